# Copyright 2026 The transmission_plugins Authors
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

"""
Recorded ``sensor_msgs/JointState`` messages to and from their bytes (CDR), through rclpy.

rclpy's own serialization (no ``rclpy.init`` needed) reads and writes the messages of a bag, so
the bag tools hold exactly what a ROS 2 node would send or receive.

One correction: ``serialize_message`` (Fast CDR through the rmw) returns a buffer up to 8
bytes longer than the message when a field is empty, and strict CDR readers such as
``rosbags`` (which allows at most 3 bytes of final padding) refuse such a message.
:func:`encode` cuts the buffer to the message's length (:func:`cdr_length`).
"""

import array
import contextlib
import functools
import os
from typing import Any
from typing import Iterator
from typing import Sequence

import numpy as np

from transmission_plugins.tools.data.joint_state_batch import Converted
from transmission_plugins.tools.data.joint_state_batch import Rejected

_EMPTY = np.zeros(0)


@functools.lru_cache(maxsize=None)
def _types() -> tuple[Any, Any, Any]:
    from rclpy.serialization import deserialize_message
    from rclpy.serialization import serialize_message
    from sensor_msgs.msg import JointState
    return deserialize_message, serialize_message, JointState


#: the message type, as the errors name it
JOINT_STATE_TYPE = 'sensor_msgs/JointState'
#: why a message is ``undecodable``: the rmw's own words (a Fast CDR exception and a source line
#: of its type support) say nothing more to a user
UNDECODABLE = f'its bytes are not a {JOINT_STATE_TYPE} in CDR (a damaged message?)'


@functools.lru_cache(maxsize=None)
def _devnull() -> int:
    return os.open(os.devnull, os.O_WRONLY | getattr(os, 'O_CLOEXEC', 0))


@contextlib.contextmanager
def _quiet_stderr() -> Iterator[None]:
    """
    Send what native code writes to standard error (file descriptor 2) nowhere meanwhile.

    The rmw's deserializer prints a line of its own for a damaged message ("sequence size
    exceeds remaining buffer") before it raises: one per message of a damaged bag, around the
    one error line the command prints.
    """
    saved = os.dup(2)
    try:
        os.dup2(_devnull(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def decode(raw: Any) -> Any | Rejected:
    """Return the ``JointState`` in ``raw`` (CDR bytes), or a :class:`Rejected` ``undecodable``."""
    deserialize, _, joint_state = _types()
    try:
        with _quiet_stderr():
            return deserialize(bytes(raw), joint_state)
    except Exception:  # noqa: B902 - any failure of the decoder means bad bytes
        return Rejected('undecodable', UNDECODABLE)


def fields(msg: Any) -> tuple[Sequence[str], np.ndarray, np.ndarray, np.ndarray]:
    """Return ``(names, position, velocity, effort)`` of a decoded message (float64 arrays)."""
    return (msg.name, *(np.frombuffer(v, np.float64) if len(v) else _EMPTY
                        for v in (msg.position, msg.velocity, msg.effort)))


def stamp(msg: Any) -> int:
    """Return the header stamp of a decoded message in nanoseconds."""
    return int(msg.header.stamp.sec) * 1_000_000_000 + int(msg.header.stamp.nanosec)


def _doubles(values: np.ndarray | None) -> 'array.array[float]':
    out = array.array('d')
    if values is not None:
        out.frombytes(np.ascontiguousarray(values, dtype=np.float64).tobytes())
    return out


@functools.lru_cache(maxsize=256)  # the messages of a topic repeat their layout
def cdr_length(frame_id: str, names: tuple[str, ...], counts: tuple[int, ...]) -> int:
    """
    Return the length of a JointState in CDR: encapsulation, stamp, strings, three sequences.

    :param counts: the values of ``position``, ``velocity``, ``effort``
    """
    at = 8  # after the 4-byte encapsulation header: builtin_interfaces/Time, two 32-bit ints
    at = _string(at, frame_id)
    at = _align(at, 4) + 4  # the length of the name sequence
    for name in names:
        at = _string(at, name)
    for count in counts:
        at = _align(at, 4) + 4
        if count:
            at = _align(at, 8) + 8 * count
    return 4 + at


def _align(at: int, size: int) -> int:
    return (at + size - 1) // size * size


def _string(at: int, text: str) -> int:
    return _align(at, 4) + 4 + len(text.encode('utf-8')) + 1  # length, bytes, NUL


def encode(header: Any, converted: Converted) -> bytes:
    """Return the bytes of a JointState with ``header`` (stamp, ``frame_id``) and the values."""
    _, serialize, joint_state = _types()
    msg = joint_state()
    msg.header = header
    msg.name = list(converted.names)
    msg.position = _doubles(converted.position)
    msg.velocity = _doubles(converted.velocity)
    msg.effort = _doubles(converted.effort)
    length = cdr_length(msg.header.frame_id, tuple(msg.name),
                        (len(msg.position), len(msg.velocity), len(msg.effort)))
    return bytes(serialize(msg))[:length]
