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
Read and write serialized ``sensor_msgs/JointState`` messages (CDR) through templates.

The messages of one recorded topic repeat their names and ``frame_id``: their bytes differ
only in the stamp and the float values, which sit at fixed offsets.  ``rosbags`` decodes and
encodes every name string of every message; here ``rosbags`` serializes one *template* per
layout (names, ``frame_id``, fields present) with marker values, the offsets of the stamp and
of each float field are found by searching the markers (so the encoding is exactly
``rosbags``'), and then:

* :meth:`JointStateCodec.decode` checks that a message's bytes equal the last template outside
  the stamp and the values (the length and every other byte, names included) and reads those
  with ``struct`` and ``numpy.frombuffer``; any other message is decoded by ``rosbags`` and
  gives the next template;
* :meth:`JointStateCodec.encode` copies the template of its layout and writes the stamp and
  values in.

Both give what ``rosbags`` gives (tested on random messages), at a fraction of the cost.  The
same technique as the node's ``joint_states`` serializer, with ``rosbags`` in place of rclpy.
"""

import struct
from typing import Any
from typing import Dict
from typing import List
from typing import NamedTuple
from typing import Optional
from typing import Sequence
from typing import Tuple

import numpy as np

JOINT_STATE = 'sensor_msgs/msg/JointState'
FIELDS = ('position', 'velocity', 'effort')
_STAMP = struct.Struct('<iI')
_STAMP_MARK = (0x5A3C1E2D, 0x1B2D3C4E)
_MARK = 2718281828.0  # + 1e6 * field + entry: unique and not ASCII
_EMPTY = np.zeros(0)


class JointStateMessage(NamedTuple):
    """A decoded JointState: stamp, ``frame_id``, names and fields (empty arrays: not given)."""

    sec: int
    nanosec: int
    frame_id: str
    name: List[str]
    position: np.ndarray
    velocity: np.ndarray
    effort: np.ndarray


class _Layout(NamedTuple):
    blob: bytes                    # the template
    stamp: int                     # offset of sec, nanosec
    slots: List[Tuple[int, int]]   # (offset, count) of position, velocity, effort (count 0)
    fixed: List[Tuple[int, int]]   # byte ranges outside the stamp and the values
    frame_id: str
    names: List[str]


def _find_once(blob: bytes, pattern: bytes) -> int:
    at = blob.find(pattern)
    return at if at >= 0 and blob.find(pattern, at + 1) < 0 else -1


class JointStateCodec:
    """
    Decode and encode JointState CDR bytes through cached templates (see the module doc).

    :param typestore: the ``rosbags`` type store that makes the templates and decodes the
        messages no template matches
    """

    def __init__(self, typestore: Any) -> None:
        self.store = typestore
        self._types = typestore.types
        self._last: Optional[_Layout] = None
        self._layouts: Dict[Tuple[Tuple[str, ...], str, Tuple[int, ...]], Optional[_Layout]] = {}

    def _layout(self, names: Sequence[str], frame_id: str,
                counts: Tuple[int, ...]) -> Optional[_Layout]:
        key = (tuple(names), frame_id, counts)
        if key in self._layouts:
            return self._layouts[key]
        values = [np.array([_MARK + 1e6 * f + i for i in range(c)]) for f, c in enumerate(counts)]
        blob = bytes(self.store.serialize_cdr(self._message(
            _STAMP_MARK, frame_id, list(names), values), JOINT_STATE))
        stamp = _find_once(blob, _STAMP.pack(*_STAMP_MARK))
        slots = [(_find_once(blob, v.astype('<f8').tobytes()) if len(v) else 0, len(v))
                 for v in values]
        layout = None
        if stamp >= 0 and all(at >= 0 for at, _ in slots):
            holes = sorted([(stamp, stamp + 8)] + [(at, at + 8 * c) for at, c in slots if c])
            fixed, start = [], 0
            for a, b in holes:
                fixed.append((start, a))
                start = b
            fixed.append((start, len(blob)))
            layout = _Layout(blob, stamp, slots, [(a, b) for a, b in fixed if b > a],
                             frame_id, list(names))
        if len(self._layouts) > 256:
            self._layouts.clear()
        self._layouts[key] = layout
        return layout

    def _message(self, stamp: Tuple[int, int], frame_id: str, names: List[str],
                 values: List[np.ndarray]) -> Any:
        types = self._types
        header = types['std_msgs/msg/Header'](
            stamp=types['builtin_interfaces/msg/Time'](sec=stamp[0], nanosec=stamp[1]),
            frame_id=frame_id)
        return types[JOINT_STATE](header=header, name=names, position=values[0],
                                  velocity=values[1], effort=values[2])

    def decode(self, raw: Any) -> JointStateMessage:
        """
        Return the message in ``raw`` (bytes or memoryview of CDR).

        :raises Exception: whatever ``rosbags`` raises for bytes that are not a JointState
        """
        layout = self._last
        if layout is not None and len(raw) == len(layout.blob):
            view, blob = memoryview(raw), memoryview(layout.blob)
            if all(view[a:b] == blob[a:b] for a, b in layout.fixed):
                sec, nanosec = _STAMP.unpack_from(raw, layout.stamp)
                fields = [np.frombuffer(raw, '<f8', c, at) if c else _EMPTY
                          for at, c in layout.slots]
                return JointStateMessage(sec, nanosec, layout.frame_id, layout.names,
                                         fields[0], fields[1], fields[2])
        msg = self.store.deserialize_cdr(raw, JOINT_STATE)
        counts = (len(msg.position), len(msg.velocity), len(msg.effort))
        if len(msg.name) and all(c in (0, len(msg.name)) for c in counts):
            self._last = self._layout(msg.name, msg.header.frame_id, counts)
        return JointStateMessage(msg.header.stamp.sec, msg.header.stamp.nanosec,
                                 msg.header.frame_id, list(msg.name),
                                 np.asarray(msg.position), np.asarray(msg.velocity),
                                 np.asarray(msg.effort))

    def encode(self, sec: int, nanosec: int, frame_id: str, names: List[str],
               position: Optional[np.ndarray], velocity: Optional[np.ndarray],
               effort: Optional[np.ndarray]) -> bytes:
        """Return the CDR bytes of a JointState (None fields are empty)."""
        fields = [_EMPTY if v is None else np.ascontiguousarray(v, dtype=np.float64)
                  for v in (position, velocity, effort)]
        counts = tuple(len(v) for v in fields)
        layout = self._layout(names, frame_id, counts)
        if layout is None or not all(c in (0, len(names)) for c in counts):
            return bytes(self.store.serialize_cdr(
                self._message((sec, nanosec), frame_id, list(names), fields), JOINT_STATE))
        buf = bytearray(layout.blob)
        _STAMP.pack_into(buf, layout.stamp, sec, nanosec)
        for (at, count), v in zip(layout.slots, fields):
            if count:
                buf[at:at + 8 * count] = v.astype('<f8', copy=False).tobytes()
        return bytes(buf)
