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
Roles, not XML order, decide which joint is ``joint1`` (ros-controls/ros2_control#3382).

The issue's example is TIAGo's wrist differential written with ``role`` attributes; ros2_control
maps by position and ignores them.  Here the joints and actuators are listed in the order
opposite to their roles, with different reductions on each, so a loader that used the XML order
would produce different numbers.  The ROS 1 form (``<role>`` child elements, as in TALOS and
the ros_control test files) is checked on the project's fixture ``ros1_hardware_interfaces.urdf``.
"""

import numpy as np
import pytest

from tp_support import FIXTURE_DIR
from transmission_plugins import DifferentialTransmission
from transmission_plugins import FourBarLinkageTransmission
from transmission_plugins.robot.loading import load_robot_transmissions

URDF = """
<robot name="wrist">
  <link name="arm_5_link"/><link name="arm_6_link"/><link name="arm_7_link"/>
  <joint name="arm_6_joint" type="revolute">
    <parent link="arm_5_link"/><child link="arm_6_link"/></joint>
  <joint name="arm_7_joint" type="revolute">
    <parent link="arm_6_link"/><child link="arm_7_link"/></joint>
  <ros2_control name="system" type="system">
    <hardware><plugin>mock_components/GenericSystem</plugin></hardware>
    <joint name="arm_6_joint"/>
    <joint name="arm_7_joint"/>
    <transmission name="arm_6_arm_7_wrist_trans">
      <plugin>transmission_interface/{kind}</plugin>
      <actuator name="arm_7_motor" role="actuator2">
        <mechanical_reduction>-3.0</mechanical_reduction>
      </actuator>
      <actuator name="arm_6_motor" role="actuator1">
        <mechanical_reduction>5.0</mechanical_reduction>
      </actuator>
      <joint name="arm_7_joint" role="joint2">
        <mechanical_reduction>-2.0</mechanical_reduction>
        <offset>0.25</offset>
      </joint>
      <joint name="arm_6_joint" role="joint1">
        <mechanical_reduction>1.5</mechanical_reduction>
        <offset>-0.5</offset>
      </joint>
    </transmission>
  </ros2_control>
</robot>
"""


@pytest.mark.parametrize('cls', [DifferentialTransmission, FourBarLinkageTransmission])
def test_roles_opposite_to_xml_order(cls):
    robot = load_robot_transmissions(URDF.format(kind=cls.__name__), warn=False)
    wiring = robot.transmissions[0].wiring
    assert wiring.joint_names == ('arm_6_joint', 'arm_7_joint')
    assert wiring.actuator_names == ('arm_6_motor', 'arm_7_motor')
    assert wiring.transmission.get_actuator_reduction() == [5.0, -3.0]
    assert wiring.transmission.get_joint_reduction() == [1.5, -2.0]
    assert wiring.transmission.get_joint_offset() == [-0.5, 0.25]

    by_role = cls([5.0, -3.0], [1.5, -2.0], [-0.5, 0.25])
    by_xml_order = cls([-3.0, 5.0], [-2.0, 1.5], [0.25, -0.5])
    motor = {'arm_6_motor': 0.3, 'arm_7_motor': -1.1}
    values = {'position': [motor[n] for n in wiring.actuator_names],
              'velocity': [motor[n] for n in wiring.actuator_names],
              'effort': [motor[n] for n in wiring.actuator_names]}
    got = wiring.transmission.actuator_to_joint(values)
    expected = by_role.actuator_to_joint(values)
    for interface in values:
        np.testing.assert_allclose(got[interface], expected[interface])
    xml_order = by_xml_order.actuator_to_joint(
        {'position': [motor['arm_7_motor'], motor['arm_6_motor']]})['position'][::-1]
    assert not np.allclose(got['position'], xml_order)  # ros2_control's positional mapping


def test_ros1_role_elements_against_the_xml_order():
    # joint2 and actuator2 come first in the XML of the fixture's wrist_trans
    robot = load_robot_transmissions(FIXTURE_DIR / 'ros1_hardware_interfaces.urdf', warn=False)
    wiring = robot.transmission('wrist_trans')
    assert wiring.joint_names == ('wrist_pitch', 'wrist_roll')
    assert wiring.actuator_names == ('wrist_motor_left', 'wrist_motor_right')
    t = wiring.transmission
    assert t.get_actuator_reduction() == [40.0, -40.0]
    assert t.get_joint_reduction() == [1.5, -2.0]
    assert t.get_joint_offset() == [0.5, -0.25]
    # ros_control DifferentialTransmission: j1 = (a1/n1 + a2/n2) / (2 m1) + o1,
    #                                       j2 = (a1/n1 - a2/n2) / (2 m2) + o2
    a1, a2 = 0.8 / 40.0, -0.3 / -40.0
    expected = [(a1 + a2) / (2 * 1.5) + 0.5, (a1 - a2) / (2 * -2.0) - 0.25]
    got = t.actuator_to_joint({'position': [0.8, -0.3]})['position']
    np.testing.assert_allclose(got, expected)
