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
Recorded ``sensor_msgs/JointState`` messages to and from their bytes (CDR).

Every bag tool decodes the messages it reads with :func:`decode_batch`: the bytes of the
messages that share a layout (byte order, frame, names, field sizes) are one array, read by
numpy without a Python step per message; a message that is not a JointState is rejected with
what is wrong in it.  :func:`decode_each` gives the same decoding message by message.  rclpy's
own serialization (no ``rclpy.init`` needed) writes the messages ``convert`` adds, so a bag
holds exactly what a ROS 2 node would send.

One correction: ``serialize_message`` (Fast CDR through the rmw) returns a buffer up to 8
bytes longer than the message when a field is empty, and strict CDR readers such as
``rosbags`` (which allows at most 3 bytes of final padding) refuse such a message.
:func:`encode` cuts the buffer to the message's length (:func:`cdr_length`).
"""

import array
import functools
import struct
from typing import Any
from typing import NamedTuple
from typing import Sequence

import numpy as np

from transmission_plugins.tools.data.joint_state_batch import Converted
from transmission_plugins.tools.data.joint_state_batch import Rejected

_EMPTY = np.zeros(0)


@functools.lru_cache(maxsize=None)
def _types() -> tuple[Any, Any]:
    from rclpy.serialization import serialize_message
    from sensor_msgs.msg import JointState
    return serialize_message, JointState


#: the message type, as the errors name it
JOINT_STATE_TYPE = 'sensor_msgs/JointState'
#: why a message is ``undecodable`` (:func:`decode_batch` adds what is wrong in its bytes)
UNDECODABLE = f'its bytes are not a {JOINT_STATE_TYPE} in CDR (a damaged message?)'


class JointStateMessage(NamedTuple):
    """One decoded message (:func:`decode_each`); an empty field is an array of no value."""

    frame_id: str
    #: the header stamp, nanoseconds
    stamp: int
    name: tuple[str, ...]
    position: np.ndarray
    velocity: np.ndarray
    effort: np.ndarray


def decode_each(raws: Sequence[Any]) -> list['JointStateMessage | Rejected']:
    """
    Return each message of ``raws`` (CDR bytes) decoded, or rejected, in their order.

    :func:`decode_batch`'s decoding (the one decoder), one :class:`JointStateMessage` per message.
    """
    batches, rejected = decode_batch(raws)
    out: list[JointStateMessage | Rejected] = [Rejected('undecodable', UNDECODABLE)] * len(raws)
    for b in batches:
        for i, place in enumerate(b.places.tolist()):
            out[place] = JointStateMessage(b.frame_id, int(b.stamp[i]), b.names, b.position[i],
                                           b.velocity[i], b.effort[i])
    for place, why in rejected:
        out[place] = why
    return out


def fields(msg: JointStateMessage) -> tuple[Sequence[str], np.ndarray, np.ndarray, np.ndarray]:
    """Return ``(names, position, velocity, effort)`` of a decoded message (float64 arrays)."""
    return msg.name, msg.position, msg.velocity, msg.effort


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


def encode(stamp: int, frame_id: str, converted: Converted) -> bytes:
    """Return the bytes of a JointState stamped ``stamp`` (ns) in ``frame_id``, the values."""
    serialize, joint_state = _types()
    msg = joint_state()
    msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(int(stamp), 1_000_000_000)
    msg.header.frame_id = frame_id
    msg.name = list(converted.names)
    msg.position = _doubles(converted.position)
    msg.velocity = _doubles(converted.velocity)
    msg.effort = _doubles(converted.effort)
    length = cdr_length(msg.header.frame_id, tuple(msg.name),
                        (len(msg.position), len(msg.velocity), len(msg.effort)))
    return bytes(serialize(msg))[:length]


class JointStateBatch(NamedTuple):
    """Decoded messages of one layout (:func:`decode_batch`): one frame, names, field sizes."""

    #: the messages' places in the list decoded
    places: np.ndarray
    frame_id: str
    names: tuple[str, ...]
    #: header stamps (ns), ``(m,)`` int64
    stamp: np.ndarray
    #: ``(m, values)`` float64 each, ``values`` 0 when the field is empty
    position: np.ndarray
    velocity: np.ndarray
    effort: np.ndarray


class _Malformed(ValueError):
    """The bytes are not a JointState in CDR (the message says where)."""


class _Layout(NamedTuple):
    frame_id: str
    names: tuple[str, ...]
    #: ``(offset, count)`` of the position, velocity and effort values
    fields: tuple[tuple[int, int], ...]
    #: the byte ranges ``(start, stop)`` every message of this layout has equal (all but the
    #: stamp, the padding and the values)
    fixed: tuple[tuple[int, int], ...]
    #: numpy's byte order of the values
    order: str


def _layout(raw: bytes) -> _Layout:
    """
    Return the layout of one JointState in CDR (either byte order; offsets from byte 4 aligned).

    Strings as Fast CDR reads them: a length (with the NUL), the bytes; trailing bytes after the
    effort values are padding (a serializer adds up to 8).

    :raises _Malformed: not a JointState
    """
    size = len(raw)
    if size < 16 or raw[0] != 0 or raw[1] not in (0, 1):
        raise _Malformed('no plain CDR header')
    order = '<' if raw[1] else '>'
    word = struct.Struct(order + 'I')
    fixed = [[0, 4]]

    def keep(start: int, stop: int) -> None:
        if fixed[-1][1] == start:
            fixed[-1][1] = stop
        else:
            fixed.append([start, stop])

    def length(at: int) -> tuple[int, int]:
        at = _align(at - 4, 4) + 4
        if at + 4 > size:
            raise _Malformed(f'ends at byte {size}, inside a length')
        keep(at, at + 4)
        return at + 4, word.unpack_from(raw, at)[0]

    def string(at: int) -> tuple[int, str]:
        at, n = length(at)
        if n > size - at:
            raise _Malformed(f'a string of {n} bytes at byte {at} past the end ({size})')
        keep(at, at + n)
        text = raw[at:at + n]
        try:
            return at + n, text[:-1 if n and text[-1] == 0 else n].decode('utf-8')
        except UnicodeDecodeError as e:
            raise _Malformed(f'a string at byte {at} is not UTF-8') from e

    at, frame_id = string(12)
    at, count = length(at)
    if count > (size - at) // 4:
        raise _Malformed(f'{count} names in {size} bytes')
    names = []
    for _ in range(count):
        at, name = string(at)
        names.append(name)
    fields = []
    for field in ('position', 'velocity', 'effort'):
        at, n = length(at)
        if n:
            at = _align(at - 4, 8) + 4
        if n > (size - at) // 8:
            raise _Malformed(f'{n} {field} values in the {max(size - at, 0)} bytes left')
        fields.append((at, n))
        at += 8 * n
    return _Layout(frame_id, tuple(names), tuple(fields), tuple((a, b) for a, b in fixed), order)


#: layouts of one message size that :func:`decode_batch` finds by comparing bytes; the messages
#: of further layouts (a frame or names that change with every message) are each parsed
COMPARED_LAYOUTS = 32


def decode_batch(raws: Sequence[Any]) -> tuple[list[JointStateBatch], list[tuple[int, Rejected]]]:
    """
    Decode many JointState messages (CDR bytes) at once, grouped by layout (module doc).

    The messages of one size are compared, byte for byte outside the stamp, the padding and the
    values, with the first not yet decoded, whose layout is parsed: all those equal to it are
    decoded at once.  After :data:`COMPARED_LAYOUTS` layouts the remaining messages of that size
    are each parsed and grouped by layout (the comparisons would grow with the square of the
    count).

    :returns: the batches (every decodable message in exactly one) and, for each message that is
        not a JointState, its place in ``raws`` and a :class:`Rejected` ``undecodable`` saying
        what is wrong
    """
    raws = [bytes(r) for r in raws]
    sizes = np.fromiter(map(len, raws), dtype=np.intp, count=len(raws))
    batches: list[JointStateBatch] = []
    rejected: list[tuple[int, Rejected]] = []
    for size in np.unique(sizes):
        members = np.flatnonzero(sizes == size)
        rows = np.frombuffer(b''.join([raws[k] for k in members]), dtype=np.uint8)
        rows = rows.reshape(len(members), int(size))
        pending = np.arange(len(members))
        alone: dict[_Layout, list[int]] = {}
        compared = 0
        while len(pending):
            first = int(pending[0])
            try:
                layout = _layout(raws[members[first]])
            except _Malformed as e:
                why = Rejected('undecodable', f'{UNDECODABLE}: {e}')
                rejected.append((int(members[first]), why))
                pending = pending[1:]
                continue
            if compared == COMPARED_LAYOUTS:   # the rest each parsed: no quadratic cost
                alone.setdefault(layout, []).append(first)
                pending = pending[1:]
                continue
            compared += 1
            candidates = rows if len(pending) == len(rows) else rows[pending]
            mask = np.zeros(int(size), dtype=np.uint8)
            for a, b in layout.fixed:
                mask[a:b] = 0xFF
            differ = np.bitwise_xor(candidates, rows[first])
            differ &= mask
            same = ~differ.any(axis=1)
            batches.append(_batch(members[pending[same]], rows[pending[same]], layout))
            pending = pending[~same]
        batches += [_batch(members[found], rows[found], layout)
                    for layout, found in alone.items()]
    return batches, rejected


def _batch(index: np.ndarray, rows: np.ndarray, layout: _Layout) -> JointStateBatch:
    """Return the messages ``rows`` (their bytes, one layout) decoded."""
    order = layout.order
    sec = np.ascontiguousarray(rows[:, 4:8]).view(order + 'i4')[:, 0].astype(np.int64)
    nanosec = np.ascontiguousarray(rows[:, 8:12]).view(order + 'u4')[:, 0].astype(np.int64)
    values = [np.ascontiguousarray(rows[:, at:at + 8 * n]).view(order + 'f8').astype(np.float64)
              for at, n in layout.fields]
    return JointStateBatch(index, layout.frame_id, layout.names, sec * 1_000_000_000 + nanosec,
                           *values)
