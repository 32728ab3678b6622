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
The dialects that keep transmissions outside the usual elements (issue 27, item 1).

FROST's typeless transmissions with ``<motorInertia>``, ROBOTIS' coupling matrices in the
hardware parameters of ``dynamixel_hardware_interface`` and dynamixel_hardware's per-joint
``offset`` / ``gear_ratio``: the project's fixtures load with the maps those conventions
define (written out here by hand), and each bad value is an error naming its element.
"""

import numpy as np
import pytest

from tp_support import FIXTURE_DIR
from transmission_plugins import BadValueError
from transmission_plugins import IncompleteTransmissionError
from transmission_plugins import load_robot_transmissions


def load(name_or_text, **kwargs):
    source = FIXTURE_DIR / name_or_text if name_or_text.endswith('.urdf') else name_or_text
    return load_robot_transmissions(source, warn=False, **kwargs)


def text_of(name):
    return (FIXTURE_DIR / name).read_text()


# ------------------------------------------------------------------------------------ FROST
def test_frost_reductions_and_motor_inertia_become_simple_transmissions_with_rotors():
    robot = load('frost_biped.urdf')
    expected = {  # joint: (actuator, reduction, motorInertia), as written in the fixture
        'left_hip': ('left_hip_trans', 20.0, 0.00042),
        'left_knee': ('left_knee_trans', -16.0, 0.0003),
        'left_ankle': ('left_ankle_motor', 48.0, 5e-6),
        'right_hip': ('right_hip_motor', 20.0, 0.00042),
        'right_knee': ('right_knee_trans', -16.0, 0.0003),
    }
    for joint, (actuator, n, inertia) in expected.items():
        t = robot.transmission_of_joint(joint)
        assert t.actuator_names == (actuator,)
        assert t.transmission.get_actuator_reduction() == n
        assert robot.actuator_models[actuator].rotor_inertia == inertia
        out = robot.actuator_to_joint({'position': {actuator: 2.0}})['position'][joint]
        assert out == pytest.approx(2.0 / n)
    # FROST reflects the rotor through the reduction: n^2 I_r on the joint's diagonal
    reflected = robot.reflected_inertia(robot.default_joint_position())
    for i, joint in enumerate(robot.joint_names):
        _, n, inertia = expected[joint]
        assert reflected[i, i] == pytest.approx(n * n * inertia, rel=1e-12)


def test_a_nameless_frost_actuator_is_named_after_its_transmission_and_marked_implicit():
    robot = load('frost_biped.urdf')
    info = robot.transmission('left_hip_trans').info
    assert info.dialect == 'frost' and info.type == 'transmission_interface/SimpleTransmission'
    assert info.actuators[0].implicit and info.actuators[0].name == 'left_hip_trans'
    assert info.actuators[0].path.endswith("transmission[@name='left_hip_trans']/actuator[1]")
    named = robot.transmission('left_ankle_trans').info.actuators[0]
    assert not named.implicit


def test_a_typeless_transmission_without_frost_marks_still_misses_its_type():
    text = text_of('frost_biped.urdf').replace(
        '<motorInertia>5e-6</motorInertia>', '')
    with pytest.raises(IncompleteTransmissionError, match='missing <type>') as e:
        load(text)
    assert "transmission[@name='left_ankle_trans']" in e.value.path


def test_motor_inertia_given_twice_is_an_error_naming_both_values():
    text = text_of('frost_biped.urdf').replace(
        '<actuator name="left_ankle_motor"/>',
        '<actuator name="left_ankle_motor"><motorInertia>7e-6</motorInertia></actuator>')
    with pytest.raises(BadValueError, match='described twice') as e:
        load(text)
    assert e.value.path.endswith("transmission[@name='left_ankle_trans']/motorInertia")
    assert '7e-06' in str(e.value) and '5e-06' in str(e.value)


def test_negative_motor_inertia_is_an_error():
    text = text_of('frost_biped.urdf').replace('<motorInertia>5e-6', '<motorInertia>-5e-6')
    with pytest.raises(BadValueError, match='rotor inertia >= 0') as e:
        load(text)
    assert e.value.path.endswith('/motorInertia') and '-5e-06' in str(e.value)


# ---------------------------------------------------------------------------------- ROBOTIS
A = np.array([[1.0, 0.0, 0.0], [0.0, 0.5, 0.5], [0.0, 0.5, -0.5]])  # the fixture's matrix


def test_robotis_matrices_become_one_coupling_transmission_over_the_dxl_gpios():
    robot = load('robotis_hardware.urdf')
    (t,) = robot.transmissions
    assert t.type == 'transmission_plugins/CouplingTransmission'
    assert t.joint_names == ('shoulder', 'wrist_pitch', 'wrist_roll')
    assert t.actuator_names == ('dxl1', 'dxl2', 'dxl3')   # the sensor <gpio> is no servo
    theta = np.array([0.3, 0.8, -0.2])
    out = robot.actuator_to_joint({'position': dict(zip(t.actuator_names, theta))})['position']
    assert [out[j] for j in t.joint_names] == pytest.approx(A @ theta)
    back = robot.joint_to_actuator({'position': out})['position']
    assert [back[a] for a in t.actuator_names] == pytest.approx(theta)


def test_robotis_matrices_that_are_not_inverses_are_an_error_naming_the_parameter():
    text = text_of('robotis_hardware.urdf').replace('0, 1, -1\n', '0, 1, -0.9\n')
    with pytest.raises(BadValueError) as e:
        load(text)
    assert "hardware/param[@name='joint_to_transmission_matrix']" in e.value.path
    assert 'inverse' in str(e.value)


def test_robotis_joint_count_that_disagrees_with_the_block_is_an_error():
    text = text_of('robotis_hardware.urdf').replace(
        '<param name="number_of_joints">3</param>', '<param name="number_of_joints">5</param>')
    with pytest.raises(BadValueError, match="number_of_joints is '5' but there are 3") as e:
        load(text)
    assert e.value.path.endswith("hardware/param[@name='number_of_joints']")


def test_robotis_matrix_of_the_wrong_size_names_the_rows_and_columns():
    text = text_of('robotis_hardware.urdf').replace('0, 0.5, -0.5', '0, 0.5')
    with pytest.raises(BadValueError, match='expected 9 numbers') as e:
        load(text)
    assert e.value.path.endswith("param[@name='transmission_to_joint_matrix']")


def test_a_robotis_block_without_matrices_declares_no_transmission():
    """OpenMANIPULATOR-X's block has counts but no matrices: nothing is read from it."""
    text = text_of('robotis_hardware.urdf')
    start = text.index('<param name="transmission_to_joint_matrix">')
    end = text.index('</hardware>')
    robot = load(text[:start] + text[end:])
    assert robot.transmissions == [] and len(robot.untransmitted_joints) == 3


# -------------------------------------------------------------------------------- Dynamixel
def test_dynamixel_offset_and_gear_ratio_map_as_the_hardware_does():
    robot = load('dynamixel_hardware.urdf')
    params = {'pan': ('HeadSystem/dxl1', 0.0, 1.0), 'tilt': ('HeadSystem/dxl2', 0.25, 1.0),
              'gripper': ('HeadSystem/dxl3', -0.5, -40.0)}   # (servo, offset, gear_ratio)
    for joint, (servo, offset, gear_ratio) in params.items():
        t = robot.transmission_of_joint(joint)
        assert t.name == f'HeadSystem/{joint}' and t.actuator_names == (servo,)
        raw = 1.3
        state = robot.actuator_to_joint({'position': {servo: raw}})['position'][joint]
        assert state == pytest.approx((raw - offset) / gear_ratio)   # the README's formula
        command = robot.joint_to_actuator({'position': {joint: 0.01}})['position'][servo]
        assert command == pytest.approx(0.01 * gear_ratio + offset)


def test_a_zero_gear_ratio_is_an_error_naming_the_joint_parameter():
    text = text_of('dynamixel_hardware.urdf').replace('>-40<', '>0<')
    with pytest.raises(BadValueError, match='non-zero') as e:
        load(text)
    assert e.value.path.endswith("joint[@name='gripper']/param[@name='gear_ratio']")


def test_a_transmission_of_the_block_wins_over_the_joint_parameters():
    text = text_of('dynamixel_hardware.urdf').replace('</ros2_control>', """
      <transmission name="pan_trans">
        <plugin>transmission_interface/SimpleTransmission</plugin>
        <joint name="pan"><mechanical_reduction>3</mechanical_reduction></joint>
        <actuator name="pan_motor"/>
      </transmission>
    </ros2_control>""")
    robot = load(text)
    assert robot.transmission_of_joint('pan').name == 'pan_trans'
    assert len(robot.transmissions) == 3
