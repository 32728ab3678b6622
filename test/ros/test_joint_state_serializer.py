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

"""The template serialiser of joint_states: same message as rclpy's, without rclpy.init."""

from builtin_interfaces.msg import Time
import numpy as np
import pytest
from rclpy.serialization import deserialize_message
from sensor_msgs.msg import JointState
from transmission_plugins.ros import joint_state_serializer
from transmission_plugins.ros.common import to_msg_array
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
