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

"""The template serialiser and decoder of JointState: rclpy's bytes, without rclpy.init."""

from builtin_interfaces.msg import Time
from hypothesis import given
from hypothesis import HealthCheck
from hypothesis import settings
from hypothesis import strategies as st
import numpy as np
import pytest
from rclpy.serialization import deserialize_message
from rclpy.serialization import serialize_message
from sensor_msgs.msg import JointState
from transmission_plugins.ros import joint_state_serializer
from transmission_plugins.ros.common import to_msg_array
from transmission_plugins.ros.joint_state_serializer import JointStateDecoder
from transmission_plugins.ros.joint_state_serializer import JointStateSerializer

NAMES = [f'r_arm_joint_{i}' for i in range(44)]
STAMP = 1_763_770_123_456_789_012


def _reference(names, position, velocity, effort, stamp, frame_id=''):
    msg = JointState()
    msg.header.stamp = Time(sec=stamp // 10 ** 9, nanosec=stamp % 10 ** 9)
    msg.header.frame_id = frame_id
    msg.name = list(names)
    msg.position = to_msg_array(position)
    msg.velocity = to_msg_array(velocity)
    msg.effort = to_msg_array(effort)
    return msg


@pytest.mark.parametrize('present', [(1, 1, 1), (1, 0, 0), (1, 0, 1), (0, 1, 1), (0, 0, 0)])
def test_bytes_deserialise_to_the_message_rclpy_would_publish(present):
    serializer = JointStateSerializer()
    rng = np.random.default_rng(1234)
    for n in (44, 44, 3, 1, 3):  # repeated names reuse the template, new names rebuild it
        names = NAMES[:n]
        fields = [rng.normal(size=n) if p else None for p in present]
        fields[0] = None if fields[0] is None else fields[0] * 1e300  # any double goes through
        stamp = STAMP + int(rng.integers(0, 10 ** 9))
        data = serializer(names, *fields, stamp)
        assert isinstance(data, bytes)
        assert deserialize_message(data, JointState) == _reference(names, *fields, stamp)


def test_templates_are_kept_while_the_names_do_not_change(monkeypatch):
    made = []
    original = joint_state_serializer._layout

    def spy(names, present, frame_id=''):
        made.append(present)
        return original(names, present, frame_id)

    monkeypatch.setattr(joint_state_serializer, '_layout', spy)
    serializer = JointStateSerializer()
    x = np.arange(44.0)
    for _ in range(3):
        serializer(NAMES, x, x, None, STAMP)
        serializer(list(NAMES), x, None, None, STAMP)  # equal names: same templates
    assert made == [(True, True, False), (True, False, False)]
    serializer(NAMES[:43], x[:43], x[:43], None, STAMP)
    assert len(made) == 3


def test_no_bytes_when_the_message_cannot_be_made_from_the_template():
    serializer = JointStateSerializer()
    x = np.arange(44.0)
    assert serializer(NAMES, x[:40], None, None, STAMP) is None  # wrong length
    assert serializer(NAMES, x, None, None, 2 ** 80) is None     # stamp out of range
    assert serializer(NAMES, x, None, None, STAMP) is not None


@pytest.mark.parametrize('frame_id', ['base_link', 'robot1/base_footprint', 'x' * 300, 'été'])
def test_the_frame_id_parameter_reaches_every_message(frame_id):
    serializer = JointStateSerializer(frame_id)
    x = np.arange(44.0)
    for present in ((x, x, x), (x, None, None)):
        data = serializer(NAMES, *present, STAMP)
        assert deserialize_message(data, JointState) == _reference(NAMES, *present, STAMP,
                                                                   frame_id)


# ---------------------------------------------------------------------- random messages
#: ROS strings: any text without NUL (and no lone surrogate, which UTF-8 cannot encode)
TEXT = st.text(st.characters(blacklist_categories=('Cs',), blacklist_characters='\x00'),
               max_size=12)
#: NaN-free doubles (NaN != NaN would make message equality meaningless); infinities included
DOUBLES = st.floats(allow_nan=False)
#: builtin_interfaces/Time: int32 seconds >= 0, nanoseconds < 1e9
STAMPS = st.integers(0, (2 ** 31 - 1) * 10 ** 9 + 10 ** 9 - 1)


@st.composite
def _message_parts(draw, names=None):
    """Return names, three fields (None: empty), a stamp and a frame_id."""
    if names is None:
        names = draw(st.lists(TEXT, min_size=1, max_size=20, unique=True))
    n = len(names)
    fields = [np.array(draw(st.lists(DOUBLES, min_size=n, max_size=n))) if given else None
              for given in draw(st.tuples(st.booleans(), st.booleans(), st.booleans()))]
    return list(names), fields, draw(STAMPS), draw(TEXT)


def _meaningful_bytes(names, frame_id, counts):
    """
    Return the offsets of the bytes of a plain-CDR JointState that carry data.

    The rest is alignment padding and the unused end of rclpy's buffer: the middleware does not
    clear them, so two serialisations of one message may differ there.  Written from the CDR
    rules (4-byte encapsulation header; alignment counted from its end; strings as a uint32
    length including the NUL, then the bytes; sequences as a uint32 count, then the elements,
    doubles aligned to 8), independently of the module under test.
    """
    used = set(range(4))
    pos = 4

    def align(n):
        nonlocal pos
        pos += (-(pos - 4)) % n

    def take(n):
        nonlocal pos
        used.update(range(pos, pos + n))
        pos += n

    take(8)                                   # stamp: int32 sec, uint32 nanosec
    for text in [frame_id]:
        align(4)
        take(4 + len(text.encode()) + 1)
    align(4)
    take(4)                                   # number of names
    for text in names:
        align(4)
        take(4 + len(text.encode()) + 1)
    for count in counts:
        align(4)
        take(4)
        if count:
            align(8)
            take(8 * count)
    return used


@settings(max_examples=300, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(parts=_message_parts())
def test_serialised_bytes_are_rclpys_on_random_messages(parts):
    names, fields, stamp, frame_id = parts
    data = JointStateSerializer(frame_id)(names, *fields, stamp)
    reference = _reference(names, *fields, stamp, frame_id)
    expected = bytes(serialize_message(reference))
    assert data is not None and len(data) == len(expected)
    counts = [0 if x is None else len(x) for x in fields]
    meaningful = sorted(_meaningful_bytes(names, frame_id, counts))
    assert meaningful[-1] < len(expected)
    assert bytes(data[i] for i in meaningful) == bytes(expected[i] for i in meaningful)
    assert deserialize_message(data, JointState) == reference


@settings(max_examples=150, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_decoder_reads_what_rclpy_reads(data):
    """Sequences of messages over a few name lists: templates made, reused and dropped."""
    pool = data.draw(st.lists(st.lists(TEXT, min_size=1, max_size=8, unique=True),
                              min_size=1, max_size=3))
    decoder = JointStateDecoder()
    for _ in range(data.draw(st.integers(1, 12))):
        names, fields, stamp, frame_id = data.draw(
            _message_parts(names=data.draw(st.sampled_from(pool))))
        if data.draw(st.booleans()):
            frame_id = ''   # the usual: templates reused
        msg = _reference(names, *fields, stamp, frame_id)
        if data.draw(st.integers(0, 9)) == 0:   # a length mismatch: no template, rclpy reads
            msg.effort = list(msg.effort) + [1.0]
        raw = bytes(serialize_message(msg))
        got = decoder(raw)
        expected = deserialize_message(raw, JointState)
        assert list(got.names) == list(expected.name)
        for field in ('position', 'velocity', 'effort'):
            assert list(getattr(got, field)) == list(getattr(expected, field)), field
        if got.stacked is not None:   # the three fields, rows of one array
            assert got.stacked.shape == (3, len(names))
            np.testing.assert_array_equal(got.stacked, np.stack(
                [expected.position, expected.velocity, expected.effort]))


def test_the_decoder_reads_repeated_names_through_its_template():
    decoder = JointStateDecoder()
    rng = np.random.default_rng(7)
    for i in range(5):
        values = rng.normal(size=(3, 44))
        raw = bytes(serialize_message(_reference(NAMES, *values, STAMP + i)))
        got = decoder(raw)
        assert got.names == NAMES
        np.testing.assert_array_equal(np.stack(got[1:4]), values)
        assert i == 0 or got.stacked is not None   # the template's reads: one (3, n) array
        np.testing.assert_array_equal(values if got.stacked is None else got.stacked, values)
    assert (decoder.full_reads, decoder.template_reads) == (1, 4)
    renamed = NAMES[:-1] + ['other_joint']            # one name differs: rclpy reads it
    got = decoder(bytes(serialize_message(_reference(renamed, values[0], None, None, STAMP))))
    assert got.names == renamed and decoder.full_reads == 2
    assert len(got.velocity) == 0 and len(got.effort) == 0 and got.stacked is None
    with pytest.raises(Exception):
        decoder(b'\x00\x01\x00\x00\xff\xff')             # not a JointState
