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

"""The template JointState codec gives what rosbags gives, byte for byte and value for value."""

from bag_support import joint_state
from bag_support import JS
from bag_support import STORE
import numpy as np
import pytest

from transmission_plugins.tools.joint_state_cdr import JointStateCodec


def _random_messages(seed, count=400):
    rng = np.random.default_rng(seed)
    layouts = []
    for _ in range(4):
        n = int(rng.integers(1, 9))
        names = [f'j{int(k)}' * int(rng.integers(1, 4)) for k in rng.permutation(20)[:n]]
        frame = str(rng.choice(['', 'base', 'odd_len']))
        given = rng.random(3) < 0.7
        given[int(rng.integers(0, 3))] = True
        layouts.append((names, frame, given))
    out = []
    for k in range(count):
        names, frame, given = layouts[int(rng.integers(0, 4)) if k % 7 else k % 4]
        fields = [rng.normal(0, 10.0 ** rng.integers(-6, 6), len(names)) if g else ()
                  for g in given]
        stamp = (int(rng.integers(-2**31, 2**31)), int(rng.integers(0, 10**9)))
        out.append(joint_state(names, *fields, stamp=stamp, frame_id=frame))
    return out


@pytest.mark.parametrize('seed', range(3))
def test_decode_and_encode_match_rosbags(seed):
    codec = JointStateCodec(STORE)
    for msg in _random_messages(seed):
        raw = bytes(STORE.serialize_cdr(msg, JS))
        got = codec.decode(raw)
        assert (got.sec, got.nanosec) == (msg.header.stamp.sec, msg.header.stamp.nanosec)
        assert got.frame_id == msg.header.frame_id and got.name == msg.name
        for field in ('position', 'velocity', 'effort'):
            np.testing.assert_array_equal(getattr(got, field), getattr(msg, field))
        fields = [getattr(msg, f) if len(getattr(msg, f)) else None
                  for f in ('position', 'velocity', 'effort')]
        assert codec.encode(got.sec, got.nanosec, got.frame_id, got.name, *fields) == raw


def test_a_changed_name_is_not_read_through_the_template():
    codec = JointStateCodec(STORE)
    first = bytes(STORE.serialize_cdr(joint_state(['ab', 'cd'], [1.0, 2.0]), JS))
    same_length = bytes(STORE.serialize_cdr(joint_state(['ab', 'ce'], [3.0, 4.0]), JS))
    assert codec.decode(first).name == ['ab', 'cd']
    got = codec.decode(same_length)
    assert got.name == ['ab', 'ce'] and list(got.position) == [3.0, 4.0]


def test_bytes_that_are_no_joint_state_raise():
    with pytest.raises(Exception):
        JointStateCodec(STORE).decode(b'\x00\x01\x00\x00' + b'\xff' * 7)
