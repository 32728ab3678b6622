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
An effort command on a series-elastic joint, end to end: the real node and MuJoCo (issue 36).

The hardware interface and ``mock_actuators`` with ``physics: mujoco`` over DDS, on a pendulum
of 2 kg at 0.2 m driven through a spring of 300 N m/rad by a motor behind a 50:1 gear.  The
node turns the joint effort command into the motor position that deflects the spring by
``tau / k`` at the measured joint position; MuJoCo simulates the rotor, the spring and the arm
under gravity.  At rest the spring holds the commanded torque: the torque the node reports on
``joint_deflections`` (from the simulated motor and encoder) is the command within 2 %, and it
balances gravity at the measured angle, ``m g l cos q``, the independent reference.  What keeps
it from the command is the motor's own position loop: under the spring's load ``tau / n`` it
stops ``tau / (n Kp)`` short, which costs ``k / (n^2 Kp)`` of the torque, 1.2 % here.
"""

import math

import pytest
from rclpy.parameter import Parameter
from sensor_msgs.msg import JointState
from test_misuse import Rig
from transmission_plugins.ros.mock_actuators_node import MockActuatorsNode

pytestmark = pytest.mark.ros
pytest.importorskip('mujoco', reason='the optional mujoco package is not installed '
                                     '(pip install -r requirements.txt)')
#: this module's range of ROS domains (ros_domain, the conftest's context)
ROS_DOMAINS = (105, 5)

MASS, ARM, K, D, N, KP = 2.0, 0.2, 300.0, 2.0, 50.0, 10.0
G = 9.81
URDF = f"""<robot name="sea_pendulum" xmlns:drake="http://drake.mit.edu">
  <link name="base_link"/>
  <link name="arm_link">
    <inertial>
      <origin xyz="{ARM} 0 0"/>
      <mass value="{MASS}"/>
      <inertia ixx="0.001" ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.001"/>
    </inertial>
  </link>
  <joint name="arm_joint" type="revolute">
    <parent link="base_link"/>
    <child link="arm_link"/>
    <axis xyz="0 1 0"/>
    <limit lower="-3.0" upper="3.0" velocity="10.0" effort="20.0"/>
  </joint>
  <transmission name="arm_sea">
    <type>transmission_plugins/SeriesElasticTransmission</type>
    <joint name="arm_joint">
      <hardwareInterface>hardware_interface/EffortJointInterface</hardwareInterface>
    </joint>
    <actuator name="arm_motor">
      <role>actuator1</role>
      <mechanicalReduction>{N}</mechanicalReduction>
      <drake:rotor_inertia value="1.2e-5"/>
      <drake:controller_gains p="{KP}" d="0.01"/>
    </actuator>
    <actuator name="arm_encoder">
      <role>actuator2</role>
    </actuator>
    <spring stiffness="{K}" damping="{D}"/>
  </transmission>
</robot>
"""


@pytest.fixture
def rig(context, request):
    r = Rig(context, 'sea_mujoco' + str(id(request) % 1000))
    yield r
    r.close()


def test_an_effort_command_holds_its_spring_torque_in_mujoco(rig):
    hw = rig.hardware(robot_description=URDF, update_rate=200.0, command_timeout=0.0,
                      state_timeout=1.0)
    rig.add(MockActuatorsNode(
        context=rig.context, namespace=rig.namespace,
        parameter_overrides=[Parameter('robot_description', value=URDF),
                             Parameter('physics', value='mujoco'),
                             Parameter('rate', value=200.0)]))
    assert rig.spin(20.0, lambda: hw.lifecycle_state == 'active'), hw.configure_error
    commands = rig.client.create_publisher(JointState, 'joint_commands', 10)
    deflections = rig.record('joint_deflections')
    joints = rig.record('joint_states')
    tau = -2.0   # holds the arm at cos q = 2 / (m g l), below the horizontal
    command = JointState(name=['arm_joint'], effort=[tau])

    def settled():
        commands.publish(command)
        if len(deflections) < 200:
            return False
        recent = [m.effort[0] for m in deflections[-200:]]   # the last second
        return max(recent) - min(recent) < 1e-3 * abs(tau)
    assert rig.spin(40.0, settled), [m.effort[0] for m in deflections[-5:]]
    spring = deflections[-1].effort[0]
    q = joints[-1].position[0]
    gravity = MASS * G * ARM * math.cos(q)   # about +y, what the spring must hold
    expected = tau * (1.0 - K / (N * N * KP))
    print(f'\nspring torque {spring:.5f} N m for a command of {tau} N m '
          f'({100 * (spring - tau) / tau:+.2f} %; the motor loop predicts {expected:.5f}); '
          f'gravity at q = {q:.4f} rad: {gravity:.5f} N m')
    assert spring == pytest.approx(tau, rel=0.02)
    assert spring == pytest.approx(expected, rel=0.005)
    assert -spring == pytest.approx(gravity, rel=0.01)
    assert deflections[-1].position[0] == pytest.approx(spring / K, rel=0.01)
