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

"""A corrected URDF: each value where its dialect keeps it, the rest of the text unchanged (26)."""

import pytest

from transmission_plugins.robot.loading import load_robot_transmissions
from transmission_plugins.urdf.rewrite import Change
from transmission_plugins.urdf.rewrite import rewrite_urdf

HEAD = '<?xml version="1.0"?>\n<!-- top comment -->\n<robot name="r">\n'
JOINTS = ''.join(
    f'  <joint name="{j}" type="revolute"><parent link="a"/><child link="{j}_l"/>'
    f'<limit lower="-1" upper="1" effort="1" velocity="1"/></joint>\n'
    for j in ('j1', 'j2', 'j3'))
LINKS = '  <link name="a"/><link name="j1_l"/><link name="j2_l"/><link name="j3_l"/>\n'


def _robot(body):
    return HEAD + LINKS + JOINTS + body + '</robot>\n'


ROS2_SIMPLE = _robot("""  <ros2_control name="s" type="system">
    <hardware><plugin>x/Y</plugin></hardware>
    <joint name="j1"><command_interface name="position"/></joint>
    <transmission name="t">
      <plugin>transmission_interface/SimpleTransmission</plugin>
      <actuator name="m1" role="actuator1"/>
      <joint name="j1" role="joint1">
        <mechanical_reduction>-20.0</mechanical_reduction>
      </joint>
    </transmission>
  </ros2_control>
""")

ROS1_SIMPLE = _robot("""  <transmission name="t">
    <type>transmission_interface/SimpleTransmission</type>
    <!-- keep me -->
    <joint name="j1"><hardwareInterface>EffortJointInterface</hardwareInterface></joint>
    <actuator name="m1">
      <mechanicalReduction>20</mechanicalReduction>
    </actuator>
  </transmission>
""")

PR2_SIMPLE = _robot("""  <transmission name="t" type="pr2_mechanism_model/SimpleTransmission">
    <actuator name="m1"/>
    <joint name="j1"/>
    <mechanicalReduction>20</mechanicalReduction>
  </transmission>
""")

PR2_WRIST = _robot("""  <transmission name="w" type="pr2_mechanism_model/WristTransmission">
    <rightActuator name="r" mechanicalReduction="60"/>
    <leftActuator name="l" mechanicalReduction="60"/>
    <flexJoint name="j1" mechanicalReduction="-1.0"/>
    <rollJoint name="j2" mechanicalReduction="1.0"/>
  </transmission>
""")


def _changes(text, *items):
    robot = load_robot_transmissions(text, warn=False)
    out = []
    for name, parameter, end, value in items:
        t = robot.transmission(name)
        out.append(Change(name, t.info.line, t.info.dialect, type(t.transmission).__name__,
                          parameter, end, value))
    return out


@pytest.mark.parametrize('text, expected', [
    (ROS2_SIMPLE, 20.0), (ROS1_SIMPLE, -20.0), (PR2_SIMPLE, -20.0)])
def test_a_simple_reduction_goes_where_the_dialect_reads_it(text, expected):
    t = load_robot_transmissions(text, warn=False).transmission('t').transmission
    new, skipped = rewrite_urdf(text, _changes(text, ('t', 'actuator_reduction', 'm1',
                                                      -t.get_actuator_reduction())))
    assert skipped == []
    again = load_robot_transmissions(new, warn=False).transmission('t').transmission
    assert again.get_actuator_reduction() == expected
    assert new.startswith('<?xml version="1.0"?>\n<!-- top comment -->\n<robot name="r">')
    # only the one line changed
    changed = [(a, b) for a, b in zip(text.splitlines(), new.splitlines()) if a != b]
    assert len(changed) == 1, changed


def test_a_missing_offset_is_added_indented_and_comments_stay():
    new, skipped = rewrite_urdf(ROS1_SIMPLE, _changes(ROS1_SIMPLE,
                                                      ('t', 'joint_offset', 'j1', 0.25)))
    assert skipped == [] and '<!-- keep me -->' in new
    assert load_robot_transmissions(new, warn=False).transmission(
        't').transmission.get_joint_offset() == 0.25
    assert '<offset>0.25</offset>' in new


def test_the_pr2_wrist_takes_reductions_in_attributes_and_has_no_offset():
    new, skipped = rewrite_urdf(PR2_WRIST, _changes(
        PR2_WRIST, ('w', 'joint_reduction', 'j1', 1.0), ('w', 'joint_offset', 'j2', 0.1)))
    assert '<flexJoint name="j1" mechanicalReduction="1.0"/>' in new
    assert len(skipped) == 1 and 'the PR2 wrist has no offset element' in skipped[0]


def _sea(spring):
    return _robot(f"""  <transmission name="s">
    <type>transmission_plugins/SeriesElasticTransmission</type>
    <joint name="j1"><hardwareInterface>EffortJointInterface</hardwareInterface></joint>
    <actuator name="m1"><role>actuator1</role><mechanicalReduction>50</mechanicalReduction>
    </actuator>
    <actuator name="e1"><role>actuator2</role></actuator>
    <!-- the spring -->
    {spring}
  </transmission>
""")


def test_a_spring_takes_its_stiffness_and_a_missing_damping():
    """spring:stiffness overwrites the attribute; spring:damping, absent, is added to it."""
    text = _sea('<spring stiffness="1500"/>')
    new, skipped = rewrite_urdf(text, _changes(text, ('s', 'spring:stiffness', 'j1', 1450.0),
                                               ('s', 'spring:damping', 'j1', 4.5)))
    assert skipped == [] and '<!-- the spring -->' in new
    sea = load_robot_transmissions(new, warn=False).transmission('s').transmission
    assert (sea.stiffness(), sea.damping()) == (1450.0, 4.5)
    assert '<spring stiffness="1450.0" damping="4.5"/>' in new


def test_a_table_spring_is_left_as_is_and_a_simple_transmission_has_no_spring():
    """A measured table is not replaced by a linear spring; the reason names the element."""
    table = '<spring damping="5" deflections="-0.1 0 0.1" torques="-180 0 150"/>'
    text = _sea(table)
    new, skipped = rewrite_urdf(text, _changes(text, ('s', 'spring:stiffness', 'j1', 1450.0),
                                               ('s', 'spring:damping', 'j1', 4.5)))
    assert table in new and len(skipped) == 2
    assert all("transmission[@name='s']/spring is a measured table" in why for why in skipped)
    new, skipped = rewrite_urdf(ROS1_SIMPLE, _changes(ROS1_SIMPLE,
                                                      ('t', 'spring:stiffness', 'j1', 10.0)))
    assert new.count('spring') == 0
    assert len(skipped) == 1 and 'belongs to a SeriesElasticTransmission' in skipped[0]
