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
Serialise and read ``sensor_msgs/JointState`` messages through templates of their bytes.

rclpy's ``publish(msg)`` converts the Python message to its C struct and serialises it on every
call, every name string included: for the 44 PR2 joints at 1 kHz that costs more than the
node's whole conversion.  Taking a message costs the same the other way round (a Python message
object with one ``str`` per name).  Messages with the same names and the same fields differ
only in the stamp and in the float values, which sit at fixed offsets of the serialised bytes.

* :class:`JointStateSerializer` has rclpy serialise one template per (names, fields present)
  with marker values, finds the offsets by searching the markers (so the encoding is exactly
  rclpy's, whatever the middleware), and then builds each message by copying the template and
  writing the stamp and values in; ``publish()`` sends bytes as they are.  When a marker cannot
  be found exactly once, it returns None and the caller publishes the message object as before.
* :class:`JointStateDecoder` reads the bytes of a raw subscription: a message whose bytes equal
  the template of the previous one everywhere but at the stamp and the values (its length, its
  encoding header, its ``frame_id`` and every name byte) has that template's names, and its
  values are read in place with ``numpy.frombuffer``; any other message is deserialised by
  rclpy (``rclpy.serialization.deserialize_message``) and makes the next template.
"""

from array import array
import struct
from typing import Any
from typing import Dict
from typing import List
from typing import NamedTuple
from typing import Optional
from typing import Sequence
from typing import Tuple

import numpy as np
from rclpy.serialization import deserialize_message
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
    node publishing the same joints every cycle builds them once.  A message is one
    ``bytes.join`` of the template's pieces between the stamp and the value slots, the stamp
    and the values.

    :param frame_id: the ``header.frame_id`` of every message
    """

    def __init__(self, frame_id: str = '') -> None:
        self.frame_id = frame_id
        self._names: Optional[List[str]] = None
        self._pieces: Dict[Tuple[bool, ...], Optional[Pieces]] = {}

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
                self._pieces = {}
            self._names = names
        present = (position is not None, velocity is not None, effort is not None)
        if present in self._pieces:
            pieces = self._pieces[present]
        else:
            pieces = self._pieces[present] = _pieces(_layout(names, present, self.frame_id))
        if pieces is None:
            return None
        gaps, size = pieces
        try:
            stamp = _STAMP.pack(*divmod(stamp_nanoseconds, _NANOSECONDS))
        except struct.error:  # not a valid builtin_interfaces/Time: let the message say so
            return None
        parts = [gaps[0], stamp]
        for gap, x in zip(gaps[1:], (x for x in (position, velocity, effort) if x is not None)):
            data = np.ascontiguousarray(x, dtype=np.float64).tobytes()
            if len(data) != size:
                return None
            parts += (gap, data)
        parts.append(gaps[-1])
        return b''.join(parts)


#: A template cut at the stamp and the value slots: the pieces between them, the slot size.
Pieces = Tuple[List[bytes], int]


def _pieces(layout: Optional[Layout]) -> Optional[Pieces]:
    """Cut a template at its stamp and value slots (the stamp first, slots of one size)."""
    if layout is None:
        return None
    blob, stamp_at, slots = layout
    holes = [(stamp_at, _STAMP.size)] + slots
    if any(a + n > b for (a, n), (b, _) in zip(holes, holes[1:])) or \
            len({n for _, n in slots}) > 1:
        return None
    gaps, start = [], 0
    for at, n in holes:
        gaps.append(blob[start:at])
        start = at + n
    gaps.append(blob[start:])
    return gaps, slots[0][1] if slots else 0


class JointStateFields(NamedTuple):
    """The names and value fields of a JointState (each field a sequence of floats, or empty)."""

    names: List[str]
    position: Any
    velocity: Any
    effort: Any
    #: the three fields as the rows of one ``(3, n)`` float64 array, when all three are full
    stacked: Optional[np.ndarray] = None


class _Template(NamedTuple):
    size: int                     # length of the serialised message
    span: int                     # the bytes compared: data[:span]
    mask: int                     # data[:span] as a little-endian integer, ANDed with mask ...
    expected: int                 # ... equals expected (mask: 0 at stamp, values and padding)
    slots: List[Tuple[int, int]]  # (offset, count) of position, velocity, effort
    names: List[str]
    stride: int                   # bytes from one field's values to the next's (0: not even)


def _cdr_layout(names: Sequence[str], frame_id: str, counts: Sequence[int]
                ) -> Tuple[int, List[Tuple[int, int]], List[Tuple[int, int]], int]:
    """
    Predict where the parts of a JointState sit in plain little- or big-endian CDR (XCDR1).

    Offsets count from the start of the bytes, alignment from the end of the 4-byte encoding
    header.  Padding bytes are left out of the ``fixed`` ranges: the middleware does not clear
    them (they differ between two serialisations of one message).

    :returns: the stamp offset, ``(offset, count)`` of each value field, the ``(start, end)``
        byte ranges that are neither stamp, values nor padding, and the total size
    """
    fixed: List[Tuple[int, int]] = [(0, 4)]
    slots: List[Tuple[int, int]] = []
    pos = 4

    def align(pos: int, size: int) -> int:
        return 4 + -(-(pos - 4) // size) * size

    def take(pos: int, size: int) -> int:
        if fixed[-1][1] == pos:
            fixed[-1] = (fixed[-1][0], pos + size)
        else:
            fixed.append((pos, pos + size))
        return pos + size

    stamp_at, pos = pos, pos + _STAMP.size
    for text in [frame_id, None] + list(names):
        pos = align(pos, 4)
        if text is None:   # the name sequence's length
            pos = take(pos, 4)
        else:
            pos = take(pos, 4 + len(text.encode('utf-8')) + 1)
    for count in counts:
        pos = take(align(pos, 4), 4)
        if count:
            pos = align(pos, 8)
            slots.append((pos, count))
            pos += 8 * count
        else:
            slots.append((0, 0))
    return stamp_at, slots, fixed, pos


def _template(msg: JointState) -> Optional[_Template]:
    """
    Return the template of messages like ``msg`` (same names, frame_id and fields), or None.

    The CDR prediction (:func:`_cdr_layout`) must agree with rclpy's own serialisation of a
    marker message: the stamp and every value slot where the markers are (each slot's offset
    depends on every length and alignment before it), within its size (rclpy's size is the
    type support's bound, which can hold a few unused bytes at the end).  Without a value field
    there is no marker to check, hence no template.
    """
    names = list(msg.name)
    fields = (msg.position, msg.velocity, msg.effort)
    present = tuple(len(x) > 0 for x in fields)
    if not names or not any(present) or any(len(x) not in (0, len(names)) for x in fields):
        return None
    layout = _layout(names, present, msg.header.frame_id)
    if layout is None:
        return None
    blob, stamp_at, found = layout
    counts = [len(names) if given else 0 for given in present]
    stamp, slots, fixed, end = _cdr_layout(names, msg.header.frame_id, counts)
    if stamp != stamp_at or end > len(blob) or \
            [at for at, c in slots if c] != [at for at, _ in found]:
        return None
    span = fixed[-1][1]
    mask = bytearray(span)
    for a, b in fixed:
        mask[a:b] = b'\xff' * (b - a)
    bits = int.from_bytes(mask, 'little')
    starts = [at for at, _ in slots]
    stride = starts[1] - starts[0] if all(present) and \
        starts[2] - starts[1] == starts[1] - starts[0] else 0
    return _Template(len(blob), span, bits, int.from_bytes(blob[:span], 'little') & bits,
                     slots, names, stride)


class JointStateDecoder:
    """
    Read the names and values of serialised JointState messages (see the module doc).

    Equal to ``rclpy.serialization.deserialize_message`` on every message (tested on random
    ones), in a fraction of its time when the names repeat.  The values read through a template
    are read-only float64 views of the message bytes; the names list is the same object while
    the names do not change.
    """

    def __init__(self) -> None:
        self._last: Optional[_Template] = None
        #: messages read through the template and deserialised by rclpy (for tests and tuning)
        self.template_reads = 0
        self.full_reads = 0

    def __call__(self, data: bytes) -> JointStateFields:
        """
        Return the names, position, velocity and effort of the message in ``data``.

        :raises Exception: whatever rclpy raises for bytes that are not a JointState
        """
        t = self._last
        # one masked comparison of big integers: a fraction of a microsecond for the PR2
        if t is not None and len(data) == t.size and \
                int.from_bytes(data[:t.span], 'little') & t.mask == t.expected:
            self.template_reads += 1
            if t.stride:
                block = np.ndarray((3, len(t.names)), np.float64, data, t.slots[0][0],
                                   (t.stride, 8))
                return JointStateFields(t.names, block[0], block[1], block[2], block)
            values = [np.frombuffer(data, np.float64, count, at) if count else ()
                      for at, count in t.slots]
            return JointStateFields(t.names, values[0], values[1], values[2])
        msg = deserialize_message(data, JointState)
        self.full_reads += 1
        self._last = _template(msg)
        return JointStateFields(self._last.names if self._last is not None else list(msg.name),
                                msg.position, msg.velocity, msg.effort)
