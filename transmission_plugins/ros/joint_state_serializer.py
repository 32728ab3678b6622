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
Serialise ``sensor_msgs/JointState`` messages by patching a template.

rclpy's ``publish(msg)`` converts the Python message to its C struct and serialises it on every
call, every name string included: for the 44 PR2 joints at 1 kHz that costs more than the
node's whole conversion.  Messages with the same names and the same fields differ only in the
stamp and in the float values, which sit at fixed offsets of the serialised bytes.
:class:`JointStateSerializer` has rclpy serialise one template per (names, fields present) with
marker values, finds the offsets by searching the markers (so the encoding is exactly rclpy's,
whatever the middleware), and then builds each message by copying the template and writing the
stamp and values in; ``publish()`` sends bytes as they are.  When a marker cannot be found
exactly once, it returns None and the caller publishes the message object as before.
"""

from array import array
import struct
from typing import Dict
from typing import List
from typing import Optional
from typing import Sequence
from typing import Tuple

import numpy as np
from rclpy.serialization import serialize_message
from sensor_msgs.msg import JointState

#: Stamp marker (sec, nanosec) written into templates; native byte order like the middleware's.
_STAMP = struct.Struct('=iI')
_STAMP_MARK = (0x5A3C1E2D, 0x1B2D3C4E)
#: Float field markers: value ``_MARK + 1e6 * field + i`` for entry ``i`` (not ASCII, unique).
_MARK = 2718281828.0
_FIELDS = ('position', 'velocity', 'effort')
_NANOSECONDS = 1_000_000_000

#: A template: serialised bytes, stamp offset, (offset, size) of each present float field.
Layout = Tuple[bytes, int, List[Tuple[int, int]]]


def _find_once(blob: bytes, pattern: bytes) -> int:
    at = blob.find(pattern)
    if at < 0 or blob.find(pattern, at + 1) >= 0:
        return -1
    return at


def _layout(names: Sequence[str], present: Tuple[bool, ...],
            frame_id: str = '') -> Optional[Layout]:
    """Serialise a marker message with rclpy and locate the stamp and float fields in it."""
    msg = JointState()
    msg.header.stamp.sec, msg.header.stamp.nanosec = _STAMP_MARK
    msg.header.frame_id = frame_id
    msg.name = list(names)
    markers = []
    for k, (field, given) in enumerate(zip(_FIELDS, present)):
        values = array('d', [_MARK + 1e6 * k + i for i in range(len(names))] if given else [])
        setattr(msg, field, values)
        if given:
            markers.append(values.tobytes())
    blob = bytes(serialize_message(msg))
    stamp_at = _find_once(blob, _STAMP.pack(*_STAMP_MARK))
    slots = [(_find_once(blob, m), len(m)) for m in markers]
    if stamp_at < 0 or any(at < 0 for at, _ in slots):
        return None
    return blob, stamp_at, slots


class JointStateSerializer:
    """
    Build the serialised bytes of ``JointState`` messages with a fixed ``frame_id``.

    Keeps the templates of the last name list (one per combination of fields present), so a
    node publishing the same joints every cycle builds them once.

    :param frame_id: the ``header.frame_id`` of every message
    """

    def __init__(self, frame_id: str = '') -> None:
        self.frame_id = frame_id
        self._names: Optional[List[str]] = None
        self._layouts: Dict[Tuple[bool, ...], Optional[Layout]] = {}

    def __call__(self, names: List[str], position: Optional[np.ndarray],
                 velocity: Optional[np.ndarray], effort: Optional[np.ndarray],
                 stamp_nanoseconds: int) -> Optional[bytes]:
        """
        Return the serialised message, or None when no template could be made.

        :param names: the joint names
        :param position: one value per name, or None for an empty field; likewise
            ``velocity`` and ``effort``
        :param stamp_nanoseconds: the header stamp, as ``rclpy.time.Time.nanoseconds``
        """
        if names is not self._names:
            if self._names is None or names != self._names:
                self._layouts = {}
            self._names = names
        fields = (position, velocity, effort)
        present = (position is not None, velocity is not None, effort is not None)
        if present in self._layouts:
            layout = self._layouts[present]
        else:
            layout = self._layouts[present] = _layout(names, present, self.frame_id)
        if layout is None:
            return None
        template, stamp_at, slots = layout
        buf = bytearray(template)
        try:
            _STAMP.pack_into(buf, stamp_at, *divmod(stamp_nanoseconds, _NANOSECONDS))
        except struct.error:  # not a valid builtin_interfaces/Time: let the message say so
            return None
        values = (x for x in fields if x is not None)
        for (at, size), x in zip(slots, values):
            data = np.ascontiguousarray(x, dtype=np.float64).tobytes()
            if len(data) != size:
                return None
            buf[at:at + size] = data
        return bytes(buf)
