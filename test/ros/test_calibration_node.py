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
Homing through DDS: the hardware interface homes the mock's incremental motors (issue 26).

Real nodes in this process, one executor (the rig of ``test_misuse.py``): ``mock_actuators``
with ``incremental_encoders`` (its switch motors count from 0 at start) publishes
``reference_switches``; the hardware interface with ``homing`` finds every switch to within one
cycle's motion, refuses commands until then, writes the calibration file, then reports every
joint.  Bad calibration settings fail configure with the cause, and ros2_control's joint_limits
parameters are read.
"""

import numpy as np
import pytest
from rclpy.parameter import Parameter
from sensor_msgs.msg import JointState
from test_misuse import Rig
from transmission_plugins.ros.mock_actuators_node import MockActuatorsNode
from transmission_plugins.runtime.calibration_file import read_calibration_file

pytestmark = pytest.mark.ros
#: this module's range of ROS domains (ros_domain, the conftest's context)
ROS_DOMAINS = (50, 5)

SPEED = 0.5
RATE = 100.0


@pytest.fixture
def rig(context, request):
    r = Rig(context, request.node.name.split('[')[0][-16:] + str(id(request) % 1000))
    yield r
    r.close()


def _node(rig, cls, **parameters):
    return rig.add(cls(context=rig.context, namespace=rig.namespace, parameter_overrides=[
        Parameter(k, value=v) for k, v in parameters.items()]))


def test_homing_in_the_mock_finds_the_switches(rig, urdf, tmp_path):
    path = tmp_path / 'calibration.yaml'
    mock = _node(rig, MockActuatorsNode, robot_description=urdf, incremental_encoders=True,
                 initial_joint_names=['pan_joint', 'shoulder_joint', 'elbow_joint',
                                      'wrist_pitch_joint', 'wrist_roll_joint'],
                 initial_joint_positions=[-0.4, 0.5, 0.3, -0.2, 0.6])
    hw = rig.hardware(robot_description=urdf, homing=True, homing_speed=SPEED,
                      update_rate=RATE, calibration_file=str(path))
    states = rig.record('joint_states')
    commands = rig.client.create_publisher(JointState, 'joint_commands', 10)
    cal = hw.core.calibration
    assert rig.spin(10.0, lambda: cal.state[0] == 'homing')
    commands.publish(JointState(name=['pan_joint'], position=[0.0]))
    assert rig.spin(30.0, lambda: not cal.pending()), cal.state
    assert cal.state == ['homed', 'homed', 'homed', 'not_needed'], cal.detail
    assert hw.core.drops['joint_commands']['uncalibrated'] == 1   # refused while homing
    # the true offsets are minus the mock's start positions of the incremental motors
    error = cal.offset + mock._zero
    worst = largest = 0.0
    robot = hw.core.robot
    for t in robot.transmissions[:3]:
        k = t.transmission.linear_map()[0]
        a = [robot.actuator_names.index(n) for n in t.actuator_names]
        for j, name in enumerate(t.joint_names):
            motion = SPEED * robot.joint_velocity_limit[robot.joint_index[name]] / RATE
            worst = max(worst, abs(float(k[j] @ error[a])) / motion)
            largest = max(largest, motion)
    print(f"\nhoming in the mock: worst edge error {worst:.2f} of one cycle's motion")
    # the edge is seen in the first state after it; a cycle that runs late on a busy machine
    # (DDS, two test workers) sees it one state later: two cycles' motion at most here, one in
    # test/runtime/test_calibration.py, where the clock is exact
    assert worst <= 2.0
    stored = read_calibration_file(str(path), robot.robot_name, robot.actuator_names)
    np.testing.assert_allclose(list(stored.values()), cal.offset[:5])
    states.clear()

    # the joints stop after homing (zero velocity); a busy machine lags.  They agree with the
    # mock's truth to within the offsets' error bound above
    tolerance = 2.0 * largest + 1e-3

    def truth():
        return robot.actuator_to_joint_arrays({'position': mock.sim.state()['position']})

    def agree() -> bool:
        return bool(states) and len(states[-1].name) == len(robot.joint_names) and np.allclose(
            states[-1].position[:5], truth()['position'][:5], rtol=0.0, atol=tolerance)
    assert rig.spin(15.0, agree), (list(states[-1].position[:5]) if states else 'none',
                                   list(truth()['position'][:5]), tolerance)


@pytest.mark.parametrize('parameters, words', [
    ({'homing': True, 'homing_joints': ['gripper_joint']},
     'homing_joints: expected joints with a reference switch'),
    ({'absolute_encoders': ['pan_motor'], 'single_turn_encoders': ['pan_motor']},
     'moves its joints by [3.1416] per turn'),
    ({'joint_limits.pan_joint.has_jerk_limits': True}, 'joint_limits.pan_joint.max_jerk'),
])
def test_bad_calibration_settings_fail_configure_with_the_cause(rig, urdf, parameters, words):
    hw = rig.hardware(robot_description=urdf, **parameters)
    assert hw.lifecycle_state == 'unconfigured'
    assert words in hw.configure_error, hw.configure_error


def test_a_calibration_file_for_another_robot_fails_configure(rig, urdf, tmp_path):
    path = tmp_path / 'pr2.yaml'
    path.write_text('robot: pr2\noffsets: {r_gripper_motor: 0.1}\n')
    hw = rig.hardware(robot_description=urdf, calibration_file=str(path))
    assert "a calibration of robot 'pr2', not of this robot 'example_robot'" in \
        hw.configure_error


def test_joint_limits_parameters_are_read(rig, urdf):
    hw = rig.hardware(robot_description=urdf,
                      **{'joint_limits.pan_joint.has_acceleration_limits': True,
                         'joint_limits.pan_joint.max_acceleration': 3.0})
    assert hw.lifecycle_state == 'active'
    assert hw.core.commands.bounds.acceleration[0] == 3.0
    assert hw.has_parameter('joint_limits.gripper_joint.max_jerk')
