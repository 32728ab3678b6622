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
Names are kept exactly as written, as urdfdom, urdf_parser_py and ros2_control keep them.

Issue 34 (G-21): a joint name with a trailing space was stripped, so the generated
``<ros2_control>`` block and the Drake export named a joint the URDF does not have.
"""

import xml.etree.ElementTree as ElementTree

import pytest
from transmission_plugins.core.exceptions import BrokenReferenceError
from transmission_plugins.robot.loading import load_robot_transmissions
from transmission_plugins.tools.cli import main


#: a joint whose name ends with a space, driven by a transmission naming it exactly
SPACED = """<robot name="spaced">
  <link name="a"/><link name="b"/>
  <joint name="j1 " type="revolute"><parent link="a"/><child link="b"/>
    <limit lower="-1" upper="1" effort="10" velocity="2"/></joint>
  <transmission name="t">
    <type>transmission_interface/SimpleTransmission</type>
    <joint name="j1 "><hardwareInterface>EffortJointInterface</hardwareInterface></joint>
    <actuator name="m1"><mechanicalReduction>50</mechanicalReduction></actuator>
  </transmission>
</robot>
"""


def test_names_are_kept_exactly_as_urdfdom_keeps_them(tmp_path, capsys):
    # G-21: a joint name with a trailing space was stripped, so the generated block and the
    # Drake export named a joint the URDF does not have
    source = tmp_path / 'spaced.urdf'
    source.write_text(SPACED)
    robot = load_robot_transmissions(str(source), warn=False)
    assert robot.joint_names == ['j1 ']
    assert main(['ros2-control', str(source)]) == 0
    block = capsys.readouterr().out.split('---\n')[0]
    assert [j.get('name') for j in ElementTree.fromstring(block).iter('joint')] == ['j1 ']
    assert main(['export', str(source), '--to', 'drake', '-']) == 0
    exported = ElementTree.fromstring(capsys.readouterr().out)
    urdf_joints = {j.get('name') for j in exported.findall('joint')}
    named = {j.get('name') for t in exported.findall('transmission') for j in t.iter('joint')}
    assert named and named <= urdf_joints == {'j1 '}


def test_a_transmission_naming_a_joint_without_its_space_names_no_joint(tmp_path):
    source = tmp_path / 'spaced.urdf'
    source.write_text(SPACED.replace('<joint name="j1 "><hardwareInterface>',
                                     '<joint name="j1"><hardwareInterface>'))
    with pytest.raises(BrokenReferenceError,
                       match="joint 'j1' is not a <joint> of the robot"):
        load_robot_transmissions(str(source), warn=False)
