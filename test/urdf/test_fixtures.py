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
The dialects of real robot descriptions, on the project's own fixtures (``test/fixtures``).

The fixtures are small descriptions written for this project in the shapes of real robots
(``test/fixtures/INDEX.md``), so these tests run in every clone; ``test_corpus.py`` runs the same
kind of checks on the real robots of ``../shared/urdf_corpus`` when it is there.  Expected values
are the ones written in the fixture files; maps are checked against the ros_control formulas.
"""

import math
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from tp_support import FIXTURE_DIR
from transmission_plugins.core.exceptions import BadValueError
from transmission_plugins.core.exceptions import BrokenReferenceError
from transmission_plugins.core.exceptions import IncompleteTransmissionError
from transmission_plugins.plugins import find_transmission_plugins
from transmission_plugins.robot.loading import load_robot_transmissions
from transmission_plugins.urdf.dialects import parse_transmissions
from transmission_plugins.urdf.text import read_urdf_text

PLUGINS = find_transmission_plugins()

#: file: (<transmission> elements, lenient needed, transmissions built, distinct joints and
#:        actuators of the built ones, error of strict mode when lenient is needed)
FIXTURES = {
    'ros1_hardware_interfaces.urdf': (8, False, 6, (7, 7), None),
    'ros1_vendor_types.urdf': (7, True, 3, (3, 3), IncompleteTransmissionError),
    'pr2_mechanism.urdf': (5, False, 5, (12, 6), None),
    'drake_actuators.urdf': (3, False, 3, (3, 3), None),
    'ros2_control_blocks.urdf': (7, False, 5, (7, 7), None),
    'namespaced_joints.urdf': (5, False, 5, (5, 5), None),
    'odd_materials.urdf': (1, True, 1, (1, 1), BadValueError),
    'xacro_saved_as.urdf': (2, False, 2, (2, 2), None),
    'xacro/dual_arm.urdf.xacro': (6, False, 6, (6, 6), None),
    'coupled_hand.urdf': (4, False, 4, (9, 6), None),
    'humanoid_legs.urdf': (6, False, 6, (8, 8), None),
    'frost_biped.urdf': (5, False, 5, (5, 5), None),
    'robotis_hardware.urdf': (0, False, 1, (3, 3), None),
    'dynamixel_hardware.urdf': (0, False, 3, (3, 3), None),
    'lint_mistakes.urdf': (8, True, 7, (7, 5), BrokenReferenceError),
    'lint_mixed_dialects.urdf': (4, False, 2, (2, 2), None),
    'identify_robot.urdf': (4, False, 4, (5, 6), None),
}


def load(name, lenient=False, **kwargs):
    """Return the parse and the robot loaded through the production path."""
    text = read_urdf_text(FIXTURE_DIR / name, xacro_mappings=kwargs.pop('xacro_args', None))
    parsed = parse_transmissions(text, lenient=lenient, source=kwargs.get('source', 'auto'))
    robot = load_robot_transmissions(text, lenient=lenient, plugins=PLUGINS, warn=False,
                                     **kwargs)
    return parsed, robot


def messages(robot):
    return [str(w) for w in robot.warnings]


def simple_joint_position(actuator_position, reduction, offset=0.0):
    """ros_control SimpleTransmission: joint = actuator / reduction + offset."""
    return actuator_position / reduction + offset


def differential_joint_position(a, actuator_reduction, joint_reduction, offset):
    """ros_control DifferentialTransmission, actuator to joint position."""
    a1, a2 = a[0] / actuator_reduction[0], a[1] / actuator_reduction[1]
    return [(a1 + a2) / (2.0 * joint_reduction[0]) + offset[0],
            (a1 - a2) / (2.0 * joint_reduction[1]) + offset[1]]


def test_the_table_covers_the_fixtures():
    found = sorted(str(p.relative_to(FIXTURE_DIR)) for p in FIXTURE_DIR.rglob('*')
                   if p.name.endswith(('.urdf', '.urdf.xacro')))
    assert found == sorted(FIXTURES)
    assert (FIXTURE_DIR / 'INDEX.md').is_file()


@pytest.mark.parametrize('name', sorted(FIXTURES))
def test_fixture(name):
    elements, lenient, count, (joints, actuators), strict_error = FIXTURES[name]
    parsed, robot = load(name, lenient=lenient)
    assert parsed.element_count == elements
    assert len(robot.transmissions) == count, messages(robot)
    assert len({j for t in robot.transmissions for j in t.wiring.joint_names}) == joints
    assert len({a for t in robot.transmissions for a in t.wiring.actuator_names}) == actuators
    if strict_error is None:
        assert not any('lenient' in m for m in messages(robot))
    else:
        with pytest.raises(strict_error):
            load(name)


@pytest.mark.parametrize('name', sorted(FIXTURES))
def test_every_built_transmission_round_trips(name):
    """Actuator positions of joints 10 % to 30 % into their range (+-1 without limits)."""
    _, robot = load(name, lenient=FIXTURES[name][1])
    rng = np.random.default_rng(14)
    for t in robot.transmissions:
        transmission = t.wiring.transmission
        index = [robot.joint_index[j] for j in t.joint_names]
        lower, upper = robot.joint_lower[index], robot.joint_upper[index]
        lower, upper = np.where(np.isfinite(lower), lower, -1.0), np.where(
            np.isfinite(upper), upper, 1.0)
        inside = lower + rng.uniform(0.1, 0.3, len(index)) * (upper - lower)
        actuator = transmission.joint_to_actuator({'position': inside})
        joint = transmission.actuator_to_joint(actuator)
        back = transmission.joint_to_actuator(joint)
        if transmission.num_actuators() > transmission.num_joints():
            # more actuators than joints (an antagonistic pair): the same joints, not actuators
            np.testing.assert_allclose(transmission.actuator_to_joint(back)['position'],
                                       joint['position'], rtol=1e-9, err_msg=t.info.name)
            continue
        np.testing.assert_allclose(back['position'], actuator['position'], rtol=1e-9,
                                   err_msg=t.info.name)


# ------------------------------------------------------------------------------ ROS 1
def test_ros1_hardware_interfaces_are_normalised_and_kept_per_end():
    parsed, robot = load('ros1_hardware_interfaces.urdf')
    info = {t.name: t for t in parsed.transmissions}
    assert info['elbow_trans'].joints[0].interfaces == ('hardware_interface/EffortJointInterface',)
    assert info['elbow_trans'].actuators[0].interfaces == (
        'hardware_interface/EffortJointInterface',)
    assert info['rail_trans'].joints[0].interfaces == ()  # the 2013 form: only the actuator
    assert info['rail_trans'].actuators[0].interfaces == (
        'hardware_interface/EffortJointInterface',)
    assert info['wheel_trans'].joints[0].interfaces == (
        'hardware_interface/VelocityJointInterface', 'hardware_interface/JointStateInterface')
    assert robot.mimic_joints == ['finger_mimic_joint'] and robot.untransmitted_joints == []


def test_ros1_type_element_wins_and_duplicates_merge():
    parsed, robot = load('ros1_hardware_interfaces.urdf')
    wheel = next(t for t in parsed.transmissions if t.name == 'wheel_trans')
    assert wheel.type == 'transmission_interface/SimpleTransmission'
    assert sum('disagree' in str(w) for w in parsed.warnings) == 1
    finger = [t for t in parsed.transmissions if t.name == 'finger_trans']
    assert len(finger) == 1 and set(finger[0].joints[0].interfaces) == {
        'hardware_interface/PositionJointInterface', 'hardware_interface/VelocityJointInterface',
        'hardware_interface/EffortJointInterface'}
    assert sum("'finger_trans' is declared 3 times" in str(w) for w in parsed.warnings) == 1
    reduction = robot.transmission('finger_trans').transmission.get_actuator_reduction()
    assert reduction == 12.345678901234567  # 17 digits, surrounding blanks and a comment
    wheel_map = robot.transmission('wheel_trans').transmission
    got = wheel_map.actuator_to_joint({'position': [5.7]})['position'][0]
    assert got == pytest.approx(simple_joint_position(5.7, -28.5))


def test_ros1_vendor_types_need_lenient_mode_and_aliases():
    with pytest.raises(IncompleteTransmissionError) as e:
        load('ros1_vendor_types.urdf')
    assert "actuator[@name='arm_joint1_motor']" in str(e.value)
    assert 'mechanicalReduction' in str(e.value)
    _, robot = load('ros1_vendor_types.urdf', lenient=True)
    notes = messages(robot)
    assert sum('using the default 1.0 (lenient mode)' in m for m in notes) == 2
    skipped = sorted(m.split("type '")[1].split("'")[0] for m in notes
                     if m.startswith('skipped'))
    assert skipped == ['hand_reducers/LinkedReducer', 'hand_vendor_model/SimpleTransmission',
                       'vendor_hw/ArmModelInterface', 'vendor_hw/ArmStateInterface']
    assert robot.untransmitted_joints == ['arm_joint3', 'hand_index']
    assert robot.transmission('hand_thumb_trans').actuator_names == ('hand_motor',)
    aliases = {'hand_vendor_model/SimpleTransmission':
               'transmission_interface/SimpleTransmission'}
    _, robot = load('ros1_vendor_types.urdf', lenient=True, aliases=aliases)
    wiring = robot.transmission('arm_joint3_trans')
    assert wiring.joint_names == wiring.actuator_names == ('arm_joint3',)
    assert robot.untransmitted_joints == ['hand_index']


# ------------------------------------------------------------------------------ PR2
def test_pr2_gripper_reads_every_coefficient_as_written():
    root = ET.parse(FIXTURE_DIR / 'pr2_mechanism.urdf').getroot()
    gap = next(e for e in root.iter('gap_joint'))
    written = {k: float(v) for k, v in gap.attrib.items() if k != 'name'}
    assert len(written) == 11
    _, robot = load('pr2_mechanism.urdf')
    gripper = robot.transmission('gripper_trans')
    assert gripper.transmission.parameters() == written
    assert gripper.transmission.get_simulated_reduction() == 2500.0
    assert gripper.joint_names == (
        'gripper_joint', 'l_finger_joint', 'r_finger_joint', 'r_finger_tip_joint',
        'l_finger_tip_joint', 'gripper_motor_screw_joint', 'gripper_motor_slider_joint')
    motor = np.array([0.5, 2.0, 6.0])  # motor positions (rad) of an opening gripper
    gaps = gripper.transmission.actuator_to_joint({'position': motor[:, None]})['position'][:, 0]
    assert np.all(np.diff(gaps) > 0.0)  # the gap grows with the motor angle


def test_pr2_simple_wrist_and_gazebo_joint():
    parsed, robot = load('pr2_mechanism.urdf')
    assert {t.dialect for t in parsed.transmissions} == {'pr2'}
    assert robot.transmission('caster_rotation_trans').transmission.get_actuator_reduction() \
        == -61.5
    assert parsed.transmissions[2].type == 'SimpleTransmission'  # no package prefix
    assert robot.transmission('upper_arm_roll_trans').transmission.get_actuator_reduction() \
        == 32.5
    wrist = robot.transmission('wrist_trans')
    assert wrist.actuator_names == ('wrist_r_motor', 'wrist_l_motor')
    assert wrist.transmission.get_actuator_reduction() == [48.5, 48.5]
    assert wrist.transmission.get_joint_reduction() == [-1.0, 1.0]
    assert parsed.joint_names.count('gripper_joint') == 1  # not the Gazebo <joint:slider>
    assert robot.warnings == []


# ------------------------------------------------------------------------------ Drake
def test_drake_actuator_data_and_reflected_inertia():
    _, robot = load('drake_actuators.urdf')
    models = robot.actuator_models
    assert (models['arm_motor_1'].kp, models['arm_motor_1'].kd) == (8000.0, 150.0)
    assert models['arm_motor_2'].effort_limit == 250.0  # <drake:effort_limit>
    assert robot.actuator_effort_limit_source == ['mapped', 'data', 'mapped']
    assert robot.actuator_effort_limit.tolist() == [300.0, 250.0, 40.0]
    # Drake: reflected inertia = rotor inertia * gear ratio^2 (reduction 1 here)
    np.testing.assert_allclose(np.diag(robot.reflected_inertia()),
                               [0.00035 * 120.0 ** 2, 0.00035 * 120.0 ** 2, 0.0])
    attribute_form = robot.transmission('arm_joint_3_trans')
    assert attribute_form.joint_names == attribute_form.actuator_names == ('arm_joint_3',)


# ------------------------------------------------------------------------------ ros2_control
def test_ros2_control_blocks():
    parsed, robot = load('ros2_control_blocks.urdf')
    assert sum('2 robot-level <transmission> element(s) ignored' in str(w)
               for w in parsed.warnings) == 1
    assert {t.block for t in parsed.transmissions} == {'BotSystem', 'JawActuator'}
    jaw = next(t for t in parsed.transmissions if t.name == 'jaw_trans')
    assert jaw.actuators[0].implicit and jaw.actuators[0].name == 'JawActuator'
    head = next(t for t in parsed.transmissions if t.name == 'head_trans')
    assert head.joints[0].read_only and not head.actuators[0].read_only
    wrist = robot.transmission('wrist_trans')
    assert wrist.actuator_names == ('wrist_motor_1', 'wrist_motor_2')  # by role
    a = [1.2, 0.4]
    np.testing.assert_allclose(
        wrist.transmission.actuator_to_joint({'position': a})['position'],
        differential_joint_position(a, [30.0, -30.0], [1.0, -1.0], [-0.1, 0.3]))
    torso = robot.transmission('torso_trans').transmission
    assert torso.actuator_to_joint({'position': [30.0]})['position'][0] == pytest.approx(
        simple_joint_position(30.0, 3000.0, 0.01))
    # rotor inertia * gear ratio^2 * reduction^2
    assert robot.reflected_inertia()[0, 0] == pytest.approx(0.0002 * 4.0 ** 2 * 3000.0 ** 2)


def test_ros2_control_robot_level_transmissions_on_request():
    _, robot = load('ros2_control_blocks.urdf', source='robot', lenient=True)
    assert robot.transmission('jaw_gazebo_trans').actuator_names == ('jaw_servo',)
    assert any("'bot_reducers/HeadReducer'" in m for m in messages(robot))
    _, robot = load('ros2_control_blocks.urdf', source='all', lenient=True)
    assert len(robot.transmissions) == 5
    assert any("'jaw_joint' is already driven by transmission 'jaw_trans'" in m
               for m in messages(robot))


def test_ros2_control_param_a_plugin_does_not_read():
    text = read_urdf_text(FIXTURE_DIR / 'ros2_control_blocks.urdf').replace(
        '<actuator name="head_motor" role="actuator1"/>',
        '<param name="vendor_option">quiet</param><actuator name="head_motor" role="actuator1"/>')
    with pytest.raises(BadValueError) as e:
        load_robot_transmissions(text, plugins=PLUGINS, warn=False)
    assert e.value.path.endswith("transmission[@name='head_trans']/param[@name='vendor_option']")
    robot = load_robot_transmissions(text, lenient=True, plugins=PLUGINS, warn=False)
    assert len(robot.transmissions) == 5 and 'ignored (lenient mode)' in messages(robot)[1]


# ------------------------------------------------------------------------------ xacro
def test_xacro_macros_arguments_and_namespaced_prefixes():
    _, robot = load('xacro/dual_arm.urdf.xacro')
    assert robot.joint_names == [f'{side}_arm/{j}' for side in ('left', 'right')
                                 for j in ('shoulder', 'elbow', 'finger_joint')]
    reduction = {t.info.name: t.transmission.get_actuator_reduction()
                 for t in robot.transmissions}
    assert reduction['left_arm/shoulder_trans'] == 100.0  # ${side * motor_gear * 2}
    assert reduction['right_arm/shoulder_trans'] == -100.0
    assert reduction['left_arm/finger_joint_trans'] == pytest.approx(2 * math.pi / 0.004)
    elbow = robot.transmission('right_arm/elbow_trans').transmission
    assert elbow.get_joint_offset() == pytest.approx(math.pi / 4)
    assert robot.joint_upper[robot.joint_index['left_arm/elbow']] == pytest.approx(0.75 * math.pi)
    assert all(t.info.line is None for t in robot.transmissions)  # from the included file

    _, robot = load('xacro/dual_arm.urdf.xacro',
                    xacro_args={'with_grippers': 'false', 'right_prefix': 'r_'})
    assert robot.joint_names == ['left_arm/shoulder', 'left_arm/elbow', 'r_shoulder',
                                 'r_elbow', 'torso_tilt']


def test_xacro_saved_as_urdf_is_expanded_with_source_lines():
    path = FIXTURE_DIR / 'xacro_saved_as.urdf'
    _, robot = load('xacro_saved_as.urdf')
    assert [t.info.name for t in robot.transmissions] == ['pan_trans', 'tilt_trans']
    assert {t.transmission.get_actuator_reduction() for t in robot.transmissions} == {193.0}
    lines = path.read_text().splitlines()
    macro_line = next(i for i, line in enumerate(lines, 1) if '<transmission ' in line)
    assert {t.info.line for t in robot.transmissions} == {macro_line}


# ------------------------------------------------------------------------------ names and XML
def test_namespaced_names_are_kept_verbatim_in_results_and_paths():
    parsed, robot = load('namespaced_joints.urdf')
    assert robot.joint_names == ['robot1/arm/joint_1', 'robot1/arm/joint_2', 'gantry::x_axis',
                                 'wheel.front-left', 'finger/distal']
    assert robot.actuator_names[:2] == robot.joint_names[:2]  # actuators named like joints
    assert 'finger/j0' in robot.actuator_names and 'finger/j0' not in parsed.joint_names
    positions = robot.actuator_to_joint({'position': {'robot1/arm/joint_2': 16.0}})
    assert positions['position']['robot1/arm/joint_2'] == pytest.approx(-0.1)
    text = read_urdf_text(FIXTURE_DIR / 'namespaced_joints.urdf').replace(
        '314.159', 'pi')
    with pytest.raises(BadValueError) as e:
        load_robot_transmissions(text, plugins=PLUGINS, warn=False)
    assert e.value.path == ("/robot[@name='fleet/robot1']/transmission[@name='gantry::x_axis_"
                            "trans']/actuator[@name='gantry::x_motor']/mechanicalReduction")
    assert "'pi'" in str(e.value)


def test_odd_materials_are_outside_the_transmissions():
    with pytest.raises(BadValueError) as e:
        load('odd_materials.urdf')
    assert "link[@name='upper']/visual[1]/material" in str(e.value)
    assert 'outside the transmissions' in str(e.value)
    _, robot = load('odd_materials.urdf', lenient=True)
    assert robot.joint_names == ['elbow'] and robot.untransmitted_joints == ['shoulder']
    assert len(robot.warnings) == 1 and 'ignored (lenient mode)' in messages(robot)[0]
    named = read_urdf_text(FIXTURE_DIR / 'odd_materials.urdf').replace(
        '<material><color', '<material name="red"><color')
    robot = load_robot_transmissions(named, plugins=PLUGINS, warn=False)  # the rest is valid
    assert robot.warnings == [] and robot.actuator_names == ['elbow']
