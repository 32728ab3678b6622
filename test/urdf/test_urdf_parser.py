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

"""URDF transmission parsing: one failure mode (or dialect feature) per test, inline URDF."""

import textwrap

import pytest

from transmission_plugins import DifferentialTransmission
from transmission_plugins import SimpleTransmission
from transmission_plugins.core.exceptions import BadValueError
from transmission_plugins.core.exceptions import BrokenReferenceError
from transmission_plugins.core.exceptions import IncompleteTransmissionError
from transmission_plugins.core.exceptions import TransmissionError
from transmission_plugins.core.exceptions import TransmissionFileError
from transmission_plugins.core.exceptions import TransmissionValueError
from transmission_plugins.core.exceptions import UnknownTransmissionTypeError
from transmission_plugins.plugins import find_transmission_plugins
from transmission_plugins.robot.loading import load_robot_transmissions
from transmission_plugins.urdf.dialects import parse_transmissions
from transmission_plugins.urdf.records import DIALECT_PR2
from transmission_plugins.urdf.records import DIALECT_ROS1
from transmission_plugins.urdf.records import DIALECT_ROS2_CONTROL
from transmission_plugins.urdf.text import read_urdf_text

PLUGINS = find_transmission_plugins()
T1 = "/robot[@name='r']/transmission[@name='t1']"


def urdf(body, joints=('j1', 'j2'), attributes=''):
    """Return a robot with revolute ``joints`` (on its first line) and the dedented ``body``."""
    joint_xml = '<link name="base"/>' + ''.join(
        f'<link name="l_{j}"/><joint name="{j}" type="revolute"><parent link="base"/>'
        f'<child link="l_{j}"/></joint>' for j in joints)
    return f'<robot name="r"{attributes}>{joint_xml}\n{textwrap.dedent(body)}</robot>'


def simple(reduction='50', offset=None, joint='j1', name='t1', extra=''):
    """Return a ROS 1 SimpleTransmission element."""
    offset_xml = f'<offset>{offset}</offset>' if offset is not None else ''
    reduction_xml = (f'<mechanicalReduction>{reduction}</mechanicalReduction>'
                     if reduction is not None else '')
    return f"""
        <transmission name="{name}">
          <type>transmission_interface/SimpleTransmission</type>
          <joint name="{joint}">
            {offset_xml}
            <hardwareInterface>hardware_interface/EffortJointInterface</hardwareInterface>
          </joint>
          <actuator name="m_{name}">{reduction_xml}</actuator>{extra}
        </transmission>
        """


def differential(j1_role='joint1', j2_role='joint2', a1_role='actuator1', a2_role='actuator2'):
    """Return a ROS 1 DifferentialTransmission with the given roles (None: no role)."""
    def role(r):
        return f'<role>{r}</role>' if r is not None else ''
    return f"""
        <transmission name="t1">
          <type>transmission_interface/DifferentialTransmission</type>
          <joint name="j1">{role(j1_role)}</joint>
          <joint name="j2">{role(j2_role)}</joint>
          <actuator name="m1">{role(a1_role)}<mechanicalReduction>10</mechanicalReduction>
          </actuator>
          <actuator name="m2">{role(a2_role)}<mechanicalReduction>20</mechanicalReduction>
          </actuator>
        </transmission>
        """


def ros2_control(transmission, block_type='system', joints=('j1', 'j2')):
    """Return a <ros2_control> block with ``joints`` around ``transmission``."""
    joint_xml = ''.join(f'<joint name="{j}"><state_interface name="position"/></joint>'
                        for j in joints)
    return f"""
        <ros2_control name="hw" type="{block_type}">
          <hardware><plugin>my_hardware/Hardware</plugin></hardware>
          {joint_xml}
          {textwrap.dedent(transmission)}
        </ros2_control>
        """


def load(text, lenient=False, source='auto'):
    """Return the parse and the robot loaded through the production path."""
    parsed = parse_transmissions(text, lenient=lenient, source=source)
    robot = load_robot_transmissions(text, lenient=lenient, source=source, plugins=PLUGINS,
                                     warn=False)
    return parsed, robot


# ------------------------------------------------------------------------------ names and types
def test_missing_transmission_name():
    text = urdf(simple().replace('name="t1"', '', 1))
    with pytest.raises(IncompleteTransmissionError) as e:
        load(text)
    assert "/robot[@name='r']/transmission[1]" in str(e.value)
    assert "'name' is missing" in str(e.value)


def test_empty_type():
    text = urdf(simple().replace('transmission_interface/SimpleTransmission', ''))
    with pytest.raises(IncompleteTransmissionError) as e:
        load(text)
    assert f'{T1}/type' in str(e.value)
    assert 'empty' in str(e.value)


def test_missing_type():
    text = urdf(simple().replace('<type>transmission_interface/SimpleTransmission</type>', ''))
    with pytest.raises(IncompleteTransmissionError, match='missing <type>') as e:
        load(text)
    assert T1 in str(e.value)


def test_unknown_transmission_type():
    text = urdf(simple().replace('SimpleTransmission', 'SimpleTansmission'))
    with pytest.raises(UnknownTransmissionTypeError) as e:
        load(text)
    message = str(e.value)
    assert 'transmission_interface/SimpleTansmission' in message
    assert T1 in message
    assert 'transmission_interface/SimpleTransmission' in e.value.known


def test_unknown_type_is_skipped_in_lenient_mode():
    text = urdf(simple() + simple(name='t2', joint='j2').replace('transmission_interface/',
                                                                 'hey5_transmissions/'))
    parsed, built = load(text, lenient=True)
    assert [b.info.name for b in built.transmissions] == ['t1']
    assert any("'hey5_transmissions/SimpleTransmission'" in w and 't2' in w
               for w in built.warnings)


def test_type_element_wins_over_attribute():
    # husky: type="SimpleTransmission" plus <type>transmission_interface/SimpleTransmission
    text = urdf(simple().replace('<transmission name="t1">',
                                 '<transmission name="t1" type="SimpleTransmissionX">'))
    parsed, built = load(text)
    assert parsed.transmissions[0].type == 'transmission_interface/SimpleTransmission'
    assert parsed.transmissions[0].dialect == DIALECT_ROS1
    assert any('SimpleTransmissionX' in w and 'using the element' in w for w in parsed.warnings)
    assert len(built.transmissions) == 1


def test_type_attribute_only_is_the_pr2_dialect():
    text = urdf("""
        <transmission name="t1" type="pr2_mechanism_model/SimpleTransmission">
          <actuator name="m1"/>
          <joint name="j1"/>
          <mechanicalReduction>-79.238</mechanicalReduction>
          <compensator k_belt="4000.0" kd_motor="10.0"/>
        </transmission>
        """)
    parsed, built = load(text)
    info = parsed.transmissions[0]
    assert info.dialect == DIALECT_PR2
    assert info.mechanical_reduction == -79.238
    assert built.transmissions[0].wiring.transmission.get_actuator_reduction() == -79.238


# ------------------------------------------------------------------------------ numbers
@pytest.mark.parametrize('text, expected', [
    ('fifty', "got 'fifty'"),
    ('0', "got '0'"),
    ('nan', "got 'nan'"),
    ('inf', "got 'inf'"),
    ('', 'empty value'),
])
def test_bad_mechanical_reduction(text, expected):
    with pytest.raises(BadValueError) as e:
        load(urdf(simple(reduction=text)))
    assert f"{T1}/actuator[@name='m_t1']/mechanicalReduction" in str(e.value)
    assert expected in str(e.value)


def test_zero_reduction_message_says_why():
    with pytest.raises(BadValueError, match='cannot be zero'):
        load(urdf(simple(reduction='0.0')))


def test_bad_offset():
    with pytest.raises(BadValueError) as e:
        load(urdf(simple(offset='three')))
    assert f"{T1}/joint[@name='j1']/offset" in str(e.value)
    assert "'three'" in str(e.value)


def test_lenient_mode_replaces_bad_numbers_by_defaults():
    parsed, built = load(urdf(simple(reduction='fifty', offset='three')), lenient=True)
    transmission = built.transmissions[0].wiring.transmission
    assert transmission.get_actuator_reduction() == 1.0
    assert transmission.get_joint_offset() == 0.0
    assert any("'fifty'" in w and 'default 1.0' in w for w in parsed.warnings)
    assert any("'three'" in w and 'default 0.0' in w for w in parsed.warnings)


def test_value_given_twice():
    text = urdf(simple(extra='').replace(
        '<mechanicalReduction>50</mechanicalReduction>',
        '<mechanicalReduction>50</mechanicalReduction><mechanical_reduction>5'
        '</mechanical_reduction>'))
    with pytest.raises(BadValueError, match='given 2 times') as e:
        load(text)
    assert "actuator[@name='m_t1']/mechanical_reduction" in str(e.value)


def test_ros1_simple_needs_an_actuator_reduction():
    with pytest.raises(IncompleteTransmissionError) as e:
        load(urdf(simple(reduction=None)))
    assert f"{T1}/actuator[@name='m_t1']" in str(e.value)
    assert 'mechanicalReduction' in str(e.value)


def test_ros1_simple_without_reduction_loads_leniently_with_default():
    # franka_panda.urdf: no mechanicalReduction anywhere
    parsed, built = load(urdf(simple(reduction=None)), lenient=True)
    assert built.transmissions[0].wiring.transmission.get_actuator_reduction() == 1.0
    assert any('default 1.0' in w for w in built.warnings)


def test_reduction_on_the_joint_of_a_ros1_simple_is_rejected():
    text = urdf(simple().replace('<offset>', '').replace(
        '<joint name="j1">', '<joint name="j1"><mechanicalReduction>7</mechanicalReduction>'))
    with pytest.raises(BadValueError, match='would be ignored') as e:
        load(text)
    assert "joint[@name='j1']/mechanicalReduction" in str(e.value)


def test_empty_hardware_interface():
    text = urdf(simple().replace('hardware_interface/EffortJointInterface', ''))
    with pytest.raises(BadValueError, match='empty') as e:
        load(text)
    assert "joint[@name='j1']/hardwareInterface" in str(e.value)


def test_hardware_interface_prefix_is_normalised():
    text = urdf(simple().replace('hardware_interface/EffortJointInterface',
                                 'EffortJointInterface'))
    parsed, _ = load(text)
    assert parsed.transmissions[0].joints[0].interfaces == (
        'hardware_interface/EffortJointInterface',)


# ------------------------------------------------------------------------------ strict elements
def test_unexpected_element():
    with pytest.raises(BadValueError) as e:
        load(urdf(simple(extra='<mechanicalReducton>3</mechanicalReducton>')))
    assert f'{T1}/mechanicalReducton' in str(e.value)
    assert 'unexpected element' in str(e.value)


def test_unexpected_attribute():
    text = urdf(simple().replace('<joint name="j1">', '<joint name="j1" reduction="3">'))
    with pytest.raises(BadValueError) as e:
        load(text)
    assert "joint[@name='j1']/@reduction" in str(e.value)


def test_unexpected_element_is_ignored_in_lenient_mode():
    parsed, built = load(urdf(simple(extra='<foo/>')), lenient=True)
    assert len(built.transmissions) == 1
    assert any('<foo>' in w and 'ignored' in w for w in built.warnings)


def test_not_well_formed_xml():
    with pytest.raises(BadValueError, match='not well-formed'):
        parse_transmissions('<robot name="r"><transmission></robot>')


def test_root_is_not_robot():
    with pytest.raises(BadValueError, match='expected a <robot> root'):
        parse_transmissions('<sdf/>')


# ------------------------------------------------------------------------------ references
def test_unknown_joint():
    with pytest.raises(BrokenReferenceError) as e:
        load(urdf(simple(joint='elbow')))
    assert f"{T1}/joint[@name='elbow']" in str(e.value)
    assert "'elbow' is not a <joint> of the robot" in str(e.value)


def test_actuator_named_like_a_joint_is_fine():
    # shadow_hand_e.urdf: <actuator name="rh_WRJ2"> drives <joint name="rh_WRJ2">
    parsed, built = load(urdf(simple().replace('m_t1', 'j2')))
    assert built.transmissions[0].wiring.actuator_names == ('j2',)


def test_joint_driven_twice():
    text = urdf(simple() + simple(name='t2', joint='j1'))
    with pytest.raises(BrokenReferenceError) as e:
        load(text)
    message = str(e.value)
    assert "/robot[@name='r']/transmission[@name='t2']/joint[@name='j1']" in message
    assert "already driven by transmission 't1'" in message


def test_joint_driven_twice_keeps_the_first_in_lenient_mode():
    parsed, built = load(urdf(simple() + simple(name='t2', joint='j1')), lenient=True)
    assert [b.info.name for b in built.transmissions] == ['t1']
    assert any('t2' in w and 'already driven' in w for w in built.warnings)


def test_actuator_shared_with_a_different_map():
    text = urdf(simple() + simple(name='t2', joint='j2', reduction='60').replace('m_t2', 'm_t1'))
    with pytest.raises(BrokenReferenceError) as e:
        load(text)
    assert "transmission[@name='t2']/actuator[@name='m_t1']" in str(e.value)
    assert "actuator 'm_t1' is already used by transmission 't1'" in str(e.value)
    assert 'different map' in str(e.value)


def test_actuator_shared_with_the_same_map():
    # one motor, two identical belts (TIAGo's hand motors drive several joints)
    text = urdf(simple() + simple(name='t2', joint='j2').replace('m_t2', 'm_t1'))
    _, built = load(text)
    assert [b.wiring.actuator_names for b in built.transmissions] == [('m_t1',), ('m_t1',)]
    assert any('shared with transmission' in w for w in built.warnings)


def test_joint_listed_twice_in_one_transmission():
    text = urdf(differential().replace('<joint name="j2">', '<joint name="j1">'))
    with pytest.raises(BrokenReferenceError, match="joint 'j1' is listed twice"):
        load(text)


def test_conflicting_duplicate_name():
    text = urdf(simple() + simple(reduction='60', joint='j2'))
    with pytest.raises(BrokenReferenceError) as e:
        load(text)
    assert "transmission name 't1' is already used" in str(e.value)
    assert 'different mapping' in str(e.value)


def test_conflicting_duplicate_name_loads_both_renamed_in_lenient_mode():
    # Husky: two wheels' transmissions under one name, each with its own joint and motor
    second = simple(reduction='60', joint='j2').replace('m_t1', 'm_right')
    text = urdf(simple() + second)
    with pytest.raises(BrokenReferenceError, match="lenient mode loads both, this one as 't1#2'"):
        load(text)
    parsed, robot = load(text, lenient=True)
    assert [t.name for t in robot.transmissions] == ['t1', 't1#2']
    assert robot.joint_names == ['j1', 'j2'] and robot.untransmitted_joints == []
    assert robot.transmission('t1#2').transmission.get_actuator_reduction() == 60.0
    (note,) = [w for w in parsed.warnings if 'different mapping' in w]
    assert "lenient mode loads this one as 't1#2'" in note and '(line 3)' in note
    assert note.kind == 'duplicate-name'


def test_robot_level_plugin_says_plugin_counts_only_inside_ros2_control():
    text = urdf(simple().replace('<type>transmission_interface/SimpleTransmission</type>',
                                 '<plugin>transmission_interface/SimpleTransmission</plugin>'))
    with pytest.raises(IncompleteTransmissionError) as e:
        load(text)
    assert e.value.path == T1
    assert 'missing <type>' in str(e.value)
    assert 'names the type only inside a <ros2_control> block' in str(e.value)


def test_exact_duplicate_is_merged():
    # franka_panda.urdf: the same transmission once per hardware interface
    second = simple().replace('EffortJointInterface', 'PositionJointInterface')
    parsed, built = load(urdf(simple() + second))
    assert len(parsed.transmissions) == 1
    assert parsed.element_count == 2
    assert parsed.transmissions[0].joints[0].interfaces == (
        'hardware_interface/EffortJointInterface', 'hardware_interface/PositionJointInterface')
    assert any("'t1' is declared 2 times" in w and 'merged' in w for w in parsed.warnings)
    assert len(built.transmissions) == 1


# ------------------------------------------------------------------------------ roles
def test_roles_order_joints_and_actuators():
    parsed, built = load(urdf(differential(j1_role='joint2', j2_role='joint1',
                                           a1_role='actuator2', a2_role='actuator1')))
    wiring = built.transmissions[0].wiring
    assert wiring.joint_names == ('j2', 'j1')
    assert wiring.actuator_names == ('m2', 'm1')
    assert wiring.transmission.get_actuator_reduction() == [20.0, 10.0]


def test_no_roles_means_xml_order():
    parsed, built = load(urdf(differential(None, None, None, None)))
    assert built.transmissions[0].wiring.joint_names == ('j1', 'j2')


def test_duplicate_roles():
    with pytest.raises(BadValueError) as e:
        load(urdf(differential(j2_role='joint1')))
    assert f"{T1}/joint[@name='j2']/role" in str(e.value)
    assert "'joint1' is given to more than one joint" in str(e.value)


def test_invalid_role():
    with pytest.raises(BadValueError) as e:
        load(urdf(differential(a1_role='invalid_role')))
    assert f"{T1}/actuator[@name='m1']/role" in str(e.value)
    assert "'invalid_role'" in str(e.value)


def test_missing_role():
    with pytest.raises(IncompleteTransmissionError, match="joint 'j1' has no role"):
        load(urdf(differential(j1_role=None)))


def test_empty_role():
    with pytest.raises(BadValueError, match="joint 'j2' has an empty role"):
        load(urdf(differential(j2_role='')))


def test_bad_roles_fall_back_to_xml_order_in_lenient_mode():
    parsed, built = load(urdf(differential(j1_role='role1', j2_role='role2')), lenient=True)
    assert built.transmissions[0].wiring.joint_names == ('j1', 'j2')
    assert any("'role1'" in w and 'XML order' in w for w in built.warnings)


def test_role_attribute_and_element_disagree():
    text = urdf(differential().replace('<joint name="j1">', '<joint name="j1" role="joint2">'))
    with pytest.raises(BadValueError, match='disagree'):
        load(text)


def test_coupled_joints_with_different_hardware_interfaces():
    # ros_control_transmission_interface_loader_unsupported.urdf
    text = urdf(differential().replace(
        '<joint name="j1">', '<joint name="j1"><hardwareInterface>PositionJointInterface'
        '</hardwareInterface>').replace(
        '<joint name="j2">', '<joint name="j2"><hardwareInterface>VelocityJointInterface'
        '</hardwareInterface>'))
    with pytest.raises(BadValueError, match='different hardware interfaces') as e:
        load(text)
    assert "joint[@name='j2']" in str(e.value)


# ------------------------------------------------------------------------------ XML shapes
def test_default_namespace():
    # the ros_control fixtures: <robot xmlns="http://www.ros.org">
    text = urdf(simple(), attributes=' xmlns="http://www.ros.org"')
    parsed, built = load(text)
    assert parsed.joint_names == ['j1', 'j2']
    assert isinstance(built.transmissions[0].wiring.transmission, SimpleTransmission)


def test_comments_are_skipped():
    text = urdf(simple(offset='0.5 <!-- rad -->').replace(
        '<type>', '<!-- the type --><type>').replace(
        '</actuator>', '<!--<mechanicalReduction>2</mechanicalReduction>--></actuator>'))
    parsed, built = load(text)
    transmission = built.transmissions[0].wiring.transmission
    assert transmission.get_joint_offset() == 0.5
    assert transmission.get_actuator_reduction() == 50.0


def test_namespaced_gazebo_joint_is_not_a_joint():
    # pr2_cturtle: <joint:slider name="r_gripper_joint"> with xmlns:joint declared on <robot>
    text = ('<robot name="r" xmlns:joint="http://playerstage.sourceforge.net/gazebo/xmlschema/'
            '#slider"><joint name="j1"/><joint:slider name="g"/>'
            '<gazebo><joint name="h"/></gazebo></robot>')
    assert parse_transmissions(text).joint_names == ['j1']


def test_str_with_encoding_declaration():
    text = '<?xml version="1.0" encoding="ISO-8859-1"?>\n' + urdf(simple())
    parsed, _ = load(text)
    assert parsed.robot_name == 'r'


def test_read_urdf_text_from_a_path(tmp_path):
    path = tmp_path / 'r.urdf'
    path.write_bytes(('<?xml version="1.0" encoding="ISO-8859-1"?>' + urdf(simple()).replace(
        '<robot name="r">', '<robot name="r\u00e9">')).encode('latin-1'))
    text = read_urdf_text(path)
    assert parse_transmissions(text).robot_name == 'r\u00e9'
    assert read_urdf_text(str(path)) == text


def test_read_urdf_text_expands_xacro(tmp_path):
    path = tmp_path / 'r.urdf.xacro'
    path.write_text(textwrap.dedent("""\
        <?xml version="1.0"?>
        <robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro">
          <xacro:arg name="reduction" default="50"/>
          <xacro:macro name="trans" params="joint">
            <transmission name="${joint}_trans">
              <type>transmission_interface/SimpleTransmission</type>
              <joint name="${joint}"/>
              <actuator name="${joint}_motor">
                <mechanicalReduction>$(arg reduction)</mechanicalReduction>
              </actuator>
            </transmission>
          </xacro:macro>
          <link name="a"/><link name="b"/><link name="c"/>
          <joint name="j1" type="revolute"><parent link="a"/><child link="b"/></joint>
          <joint name="j2" type="revolute"><parent link="a"/><child link="c"/></joint>
          <xacro:trans joint="j1"/>
          <xacro:trans joint="j2"/>
        </robot>
        """))
    parsed, built = load(read_urdf_text(path, xacro_mappings={'reduction': '20'}))
    assert [t.name for t in parsed.transmissions] == ['j1_trans', 'j2_trans']
    assert built.transmissions[1].wiring.transmission.get_actuator_reduction() == 20.0


def test_bad_xacro_file(tmp_path):
    path = tmp_path / 'bad.xacro'
    path.write_text('<robot xmlns:xacro="http://www.ros.org/wiki/xacro">'
                    '<xacro:call macro="nope"/></robot>')
    with pytest.raises(BadValueError, match='xacro'):
        read_urdf_text(path)


# ------------------------------------------------------------------------------ ros2_control
def test_ros2_control_simple_reads_the_joint_side():
    text = urdf(ros2_control("""
        <transmission name="t1">
          <plugin>transmission_interface/SimpleTransmission</plugin>
          <actuator name="m1" role="actuator1"/>
          <joint name="j1" role="joint1">
            <mechanical_reduction>325.949</mechanical_reduction>
            <offset>0.5</offset>
          </joint>
        </transmission>
        """))
    parsed, built = load(text)
    info = parsed.transmissions[0]
    assert (info.dialect, info.block, info.block_type) == (DIALECT_ROS2_CONTROL, 'hw', 'system')
    transmission = built.transmissions[0].wiring.transmission
    assert transmission.get_actuator_reduction() == 325.949
    assert transmission.get_joint_offset() == 0.5


def test_ros2_control_simple_rejects_an_actuator_side_reduction():
    text = urdf(ros2_control("""
        <transmission name="t1">
          <plugin>transmission_interface/SimpleTransmission</plugin>
          <actuator name="m1" role="actuator1">
            <mechanical_reduction>50</mechanical_reduction>
          </actuator>
          <joint name="j1" role="joint1"/>
        </transmission>
        """))
    with pytest.raises(BadValueError, match='would be ignored') as e:
        load(text)
    assert "transmission[@name='t1']/actuator[@name='m1']/mechanical_reduction" in str(e.value)


def test_ros2_control_defaults_without_reduction_and_offset():
    text = urdf(ros2_control("""
        <transmission name="t1">
          <plugin>transmission_interface/DifferentialTransmission</plugin>
          <actuator name="m1" role="actuator1"/>
          <actuator name="m2" role="actuator2"/>
          <joint name="j1" role="joint1"/>
          <joint name="j2" role="joint2"/>
        </transmission>
        """))
    _, built = load(text)
    transmission = built.transmissions[0].wiring.transmission
    assert isinstance(transmission, DifferentialTransmission)
    assert transmission.get_actuator_reduction() == [1.0, 1.0]
    assert transmission.get_joint_offset() == [0.0, 0.0]


def test_ros2_control_actuator_block_has_an_implicit_actuator1():
    text = urdf(ros2_control("""
        <transmission name="t1">
          <plugin>transmission_interface/SimpleTransmission</plugin>
          <joint name="j1" role="joint1"><mechanical_reduction>2</mechanical_reduction></joint>
        </transmission>
        """, block_type='actuator', joints=('j1',)))
    parsed, built = load(text)
    actuator = parsed.transmissions[0].actuators[0]
    assert (actuator.name, actuator.role, actuator.implicit) == ('hw', 'actuator1', True)
    assert built.transmissions[0].wiring.actuator_names == ('hw',)


def test_ros2_control_actuator_block_with_two_joints():
    text = urdf(ros2_control("""
        <transmission name="t1">
          <plugin>transmission_interface/SimpleTransmission</plugin>
          <joint name="j1" role="joint1"/>
          <joint name="j2" role="joint2"/>
        </transmission>
        """, block_type='actuator'))
    with pytest.raises(BadValueError, match='exactly one joint') as e:
        load(text)
    assert "/robot[@name='r']/ros2_control[@name='hw']/transmission[@name='t1']" in str(e.value)


def test_transmission_joint_not_in_block():
    text = urdf(ros2_control("""
        <transmission name="t1">
          <plugin>transmission_interface/SimpleTransmission</plugin>
          <joint name="j2" role="joint1"/>
        </transmission>
        """, block_type='actuator', joints=('j1',)))
    with pytest.raises(BrokenReferenceError) as e:
        load(text)
    assert "ros2_control[@name='hw']/transmission[@name='t1']/joint[@name='j2']" in str(e.value)
    assert "not a <joint> of its <ros2_control> block 'hw'" in str(e.value)


def test_ros2_control_needs_plugin_not_type():
    text = urdf(ros2_control("""
        <transmission name="t1">
          <type>transmission_interface/SimpleTransmission</type>
          <joint name="j1" role="joint1"/>
          <actuator name="m1" role="actuator1"/>
        </transmission>
        """))
    with pytest.raises(IncompleteTransmissionError, match='missing <plugin>.*not from <type>'):
        load(text)


def test_ros2_control_params_read_only_and_actuator_data():
    text = urdf(ros2_control("""
        <transmission name="t1">
          <plugin>transmission_interface/SimpleTransmission</plugin>
          <actuator name="m1" role="actuator1" read_only="true">
            <param name="rotor_inertia">0.001</param>
            <param name="gear_ratio">50</param>
          </actuator>
          <joint name="j1" role="joint1" read_only="false"/>
          <param name="special">1337</param>
        </transmission>
        """))
    parsed = parse_transmissions(text)
    info = parsed.transmissions[0]
    assert info.params == {'special': '1337'}
    assert info.actuators[0].read_only and not info.joints[0].read_only
    assert (info.actuators[0].rotor_inertia, info.actuators[0].gear_ratio) == (0.001, 50.0)
    with pytest.raises(BadValueError, match="parameter 'special' is not read"):
        load_robot_transmissions(text, plugins=PLUGINS)


def test_drake_actuator_tags():
    text = urdf(simple().replace(
        '<actuator name="m_t1">',
        '<actuator name="m_t1"><drake:rotor_inertia value="0.0001"/>'
        '<drake:controller_gains p="100" d="10"/>'),
        attributes=' xmlns:drake="http://drake.mit.edu"')
    parsed, built = load(text)
    actuator = parsed.transmissions[0].actuators[0]
    assert actuator.rotor_inertia == 0.0001
    assert actuator.controller_gains == (100.0, 10.0)
    assert len(built.transmissions) == 1


def test_bad_read_only():
    text = urdf(ros2_control("""
        <transmission name="t1">
          <plugin>transmission_interface/SimpleTransmission</plugin>
          <joint name="j1" role="joint1" read_only="maybe"/>
          <actuator name="m1" role="actuator1"/>
        </transmission>
        """))
    with pytest.raises(BadValueError, match="'maybe'") as e:
        load(text)
    assert "joint[@name='j1']/@read_only" in str(e.value)


# ------------------------------------------------------------------------------ sources
MIXED = urdf(ros2_control("""
    <transmission name="rc">
      <plugin>transmission_interface/SimpleTransmission</plugin>
      <joint name="j1" role="joint1"/>
      <actuator name="rc_motor" role="actuator1"/>
    </transmission>
    """) + simple(name='robot_level', joint='j2'))


def test_ros2_control_transmissions_win_when_present():
    parsed, built = load(MIXED)
    assert parsed.source == 'ros2_control'
    assert [t.name for t in parsed.transmissions] == ['rc']
    assert parsed.element_count == 2
    assert any('1 robot-level <transmission>' in w for w in parsed.warnings)


@pytest.mark.parametrize('source, names', [
    ('robot', ['robot_level']), ('ros2_control', ['rc']), ('all', ['rc', 'robot_level'])])
def test_source_option(source, names):
    parsed, built = load(MIXED, source=source)
    assert [b.info.name for b in built.transmissions] == names


# ------------------------------------------------------------------------------ unreadable input
@pytest.mark.parametrize('name, fragment', [
    ('', "'': the URDF is empty"), ('  \n', 'the URDF is empty'),
    ('missing.urdf', 'missing.urdf: cannot read the URDF file: No such file'),
    ('missing.urdf.xacro', 'missing.urdf.xacro: cannot read the xacro file: No such file'),
    ('.', '.: cannot read the URDF file: Is a directory'),
    ('folder.xacro', 'folder.xacro: cannot read the xacro file: Is a directory')])
def test_unreadable_paths_are_transmission_file_errors(tmp_path, monkeypatch, name, fragment):
    monkeypatch.chdir(tmp_path)
    (tmp_path / 'folder.xacro').mkdir()
    with pytest.raises(TransmissionFileError) as info:
        read_urdf_text(name)
    assert isinstance(info.value, TransmissionError) and isinstance(info.value, OSError)
    assert info.value.filename == name.strip() or info.value.filename == name
    assert fragment in str(info.value)
    assert (info.value.errno is None) == (not name.strip())


def test_unknown_source_is_a_transmission_value_error():
    with pytest.raises(TransmissionValueError,
                       match="expected one of auto, ros2_control, robot, all, got 'blocks'"):
        parse_transmissions(urdf(simple()), source='blocks')
