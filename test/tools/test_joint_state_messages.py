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

"""JointState bytes through rclpy: what rosbags writes reads back, what we write rosbags reads."""

from bag_support import joint_state
from bag_support import JS
from bag_support import STORE
import numpy as np
import pytest

from transmission_plugins.tools.data.joint_state_batch import Converted
from transmission_plugins.tools.data.joint_state_batch import Rejected
from transmission_plugins.tools.data.joint_state_messages import decode_batch
from transmission_plugins.tools.data.joint_state_messages import decode_each
from transmission_plugins.tools.data.joint_state_messages import encode
from transmission_plugins.tools.data.joint_state_messages import fields


def _random_messages(seed, count=300):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        n = int(rng.integers(0, 9))
        names = ['é' * int(rng.integers(0, 2)) + f'j{k}' * int(rng.integers(1, 4))
                 for k in rng.permutation(20)[:n]]
        frame = str(rng.choice(['', 'base', 'odd_len']))
        given = rng.random(3) < 0.6
        values = [rng.normal(0, 10.0 ** rng.integers(-6, 6), n) if g else () for g in given]
        when = (int(rng.integers(-2**31, 2**31)), int(rng.integers(0, 10**9)))
        out.append(joint_state(names, *values, stamp=when, frame_id=frame))
    return out


@pytest.mark.parametrize('seed', range(3))
def test_decode_and_encode_agree_with_rosbags(seed):
    messages = _random_messages(seed)
    decoded = decode_each([bytes(STORE.serialize_cdr(msg, JS)) for msg in messages])
    for msg, got in zip(messages, decoded):
        names, *values = fields(got)
        assert list(names) == msg.name and got.frame_id == msg.header.frame_id
        assert got.stamp == msg.header.stamp.sec * 10**9 + msg.header.stamp.nanosec
        for field, v in zip(('position', 'velocity', 'effort'), values):
            assert np.array_equal(v, getattr(msg, field)) and v.dtype == np.float64
        converted = Converted(list(names), *(v if len(v) else None for v in values))
        back = STORE.deserialize_cdr(encode(got.stamp, got.frame_id, converted), JS)  # strict
        assert back.name == msg.name and back.header.frame_id == msg.header.frame_id
        assert (back.header.stamp.sec, back.header.stamp.nanosec) == (
            msg.header.stamp.sec, msg.header.stamp.nanosec)
        for field in ('position', 'velocity', 'effort'):
            assert np.array_equal(getattr(back, field), getattr(msg, field))


def test_bytes_that_are_no_joint_state_are_rejected():
    for got in decode_each([b'', b'\x00\x01\x00\x00' + b'\xff' * 7, b'garbage bytes']):
        assert isinstance(got, Rejected) and got.reason == 'undecodable'
        assert got.detail.startswith('its bytes are not a sensor_msgs/JointState in CDR (a '
                                     'damaged message?): ')


@pytest.mark.parametrize('little_endian', [True, False], ids=['little', 'big'])
def test_decode_batch_agrees_with_rosbags(little_endian):
    """Each message of a mixed batch (names, sizes, fields, frames differ) as rosbags reads it."""
    messages = _random_messages(7, count=400)
    raws = [bytes(STORE.serialize_cdr(m, JS, little_endian=little_endian)) for m in messages]
    raws += [raws[0] + bytes(8)]   # a serializer's final padding (rclpy adds up to 8 bytes)
    messages.append(messages[0])
    batches, rejected = decode_batch(raws)
    assert rejected == []
    places = np.concatenate([b.places for b in batches])
    assert sorted(places) == list(range(len(raws)))
    assert len(batches) < len(raws)   # messages of one layout share a batch
    for batch in batches:
        for row, k in enumerate(batch.places):
            want = STORE.deserialize_cdr(raws[k][:len(raws[k]) - (8 if k == 400 else 0)], JS)
            assert list(batch.names) == want.name and batch.frame_id == want.header.frame_id
            assert batch.stamp[row] == want.header.stamp.sec * 10**9 + want.header.stamp.nanosec
            for field in ('position', 'velocity', 'effort'):
                got = getattr(batch, field)[row]
                assert got.dtype == np.float64 and np.array_equal(got, getattr(want, field))


def test_decode_batch_rejects_what_is_no_joint_state_and_keeps_the_rest():
    """Damaged messages among good ones: each rejected with what is wrong, the others decoded."""
    good = bytes(STORE.serialize_cdr(joint_state(['a', 'b'], [1.0, 2.0], stamp=(3, 4)), JS))
    bad = [b'', b'\x00\x01\x00\x00' + b'\xff' * 12, good[:-9], b'\x01\x00' + good[2:],
           good[:16] + b'\xff' + good[17:]]
    batches, rejected = decode_batch([good, *bad, good])
    assert [k for k, _ in rejected] == [1, 2, 3, 4, 5]
    for _, why in rejected:
        assert why.reason == 'undecodable'
        assert why.detail.startswith('its bytes are not a sensor_msgs/JointState in CDR')
    assert 'position values' in rejected[2][1].detail   # cut inside the values: says which
    assert [list(b.places) for b in batches] == [[0, 6]]
    assert batches[0].position.tolist() == [[1.0, 2.0]] * 2
    assert batches[0].stamp.tolist() == [3_000_000_004] * 2


def test_decode_batch_of_ever_changing_layouts_of_one_size():
    """A frame that changes with every message (one size): every message decoded as it is."""
    raws = [bytes(STORE.serialize_cdr(joint_state(['a'], [float(k)], stamp=(k, 0),
                                                  frame_id=f'f{k:03d}'), JS))
            for k in range(100)]
    assert len({len(r) for r in raws}) == 1
    batches, rejected = decode_batch(raws)
    assert rejected == []
    frames = {int(k): b.frame_id for b in batches for k in b.places}
    values = {int(k): float(b.position[r, 0]) for b in batches for r, k in enumerate(b.places)}
    assert frames == {k: f'f{k:03d}' for k in range(100)}
    assert values == {k: float(k) for k in range(100)}
