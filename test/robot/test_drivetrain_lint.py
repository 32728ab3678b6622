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
``lint``'s drivetrain findings (issue 36, item 5): values that load but cannot be right.

Each test breaks the bundled ``urdf/drivetrain_robot.urdf`` in one way and checks the finding:
its kind, the path and line of the drivetrain value, and the values on both sides in words.
"""

import json

import pytest

from tp_support import REPO
from transmission_plugins import load_robot_transmissions
from transmission_plugins.robot.lint_urdf import lint_urdf
from transmission_plugins.tools.cli import main

DRIVETRAIN = REPO / 'urdf' / 'drivetrain_robot.urdf'
TEXT = DRIVETRAIN.read_text()
HIP = "/robot[@name='drivetrain_robot']/transmission[@name='hip_trans']"
KNEE = "/robot[@name='drivetrain_robot']/transmission[@name='knee_trans']"
HIP_JOINT = f"{HIP}/joint[@name='hip_joint']"
HIP_MOTOR = f"{HIP}/actuator[@name='hip_motor']"
KNEE_JOINT = f"{KNEE}/joint[@name='knee_joint']"
KNEE_MOTOR = f"{KNEE}/actuator[@name='knee_motor']"
#: the elements of the bundled robot, as written
HIP_FRICTION = '<friction coulomb="0.8" viscous="0.2"/>'
HIP_MOTOR_FRICTION = '<friction coulomb="0.004" static="0.006" stribeck_velocity="5.0"'
HIP_LINE = 'peak_torque="0.5" max_speed="500.0"'
KNEE_TABLE = '<torque_speed speeds="0 300 600" torques="0.4 0.4 0"/>'


def line_of(text, needle):
    """Return the line of the end of the start tag at ``needle``: lxml's line of an element."""
    return text[:text.index('>', text.index(needle))].count('\n') + 1


def broken(*replacements):
    """Return the bundled robot with each ``(old, new)`` replaced once (old must be there)."""
    text = TEXT
    for old, new in replacements:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    return text


def only(text, kind):
    found = lint_urdf(text)
    assert [f.kind for f in found] == [kind], [str(f) for f in found]
    return found[0]


def test_the_bundled_drivetrain_robot_lints_clean(capsys):
    assert lint_urdf(DRIVETRAIN) == []
    assert main(['lint', str(DRIVETRAIN)]) == 0
    assert capsys.readouterr().out == 'no findings\n'
    # it loads without a warning too
    assert load_robot_transmissions(DRIVETRAIN, warn=False).warnings == []


# ------------------------------------------------------------------------- friction
def test_joint_side_coulomb_friction_at_the_urdf_effort_limit():
    text = broken((HIP_FRICTION, HIP_FRICTION.replace('0.8', '18')))
    finding = only(text, 'friction-at-limit')
    assert (finding.path, finding.line) == (f'{HIP_JOINT}/friction/@coulomb',
                                            line_of(text, '<friction coulomb="18"'))
    assert "joint 'hip_joint': its Coulomb friction on the joint side, 18, is at or above " \
        'its URDF effort limit 18' in finding.message


def test_joint_side_static_friction_above_the_limit_names_the_static_attribute():
    text = broken((HIP_FRICTION, '<friction coulomb="5" static="25" stribeck_velocity="0.1"/>'))
    finding = only(text, 'friction-at-limit')
    assert finding.path == f'{HIP_JOINT}/friction/@static'
    assert 'static friction on the joint side, 25' in finding.message
    assert 'URDF effort limit 18' in finding.message


def test_joint_side_friction_just_below_the_limit_is_no_finding():
    assert lint_urdf(broken((HIP_FRICTION, HIP_FRICTION.replace('0.8', '17.9')))) == []


def test_motor_side_friction_at_the_mapped_actuator_effort_limit():
    # 18 N m at the joint through 40:1 is 0.45 at the actuator; the peak torque is 0.5
    text = broken((HIP_MOTOR_FRICTION, HIP_MOTOR_FRICTION.replace('"0.006"', '"0.46"')))
    finding = only(text, 'friction-at-limit')
    assert (finding.path, finding.line) == (f'{HIP_MOTOR}/friction/@static',
                                            line_of(text, 'static="0.46"'))
    assert "actuator 'hip_motor': its static friction on the motor side, 0.46, is at or above " \
        'its effort limit (the joint effort limit through the transmission), 0.45: the motor ' \
        "cannot move joints ['hip_joint']" in finding.message


def test_motor_side_friction_at_the_motor_peak_torque():
    # without a joint effort limit (0: none), the motor's peak torque is the bound
    text = broken(('velocity="10.0" effort="18.0"', 'velocity="10.0" effort="0"'),
                  (HIP_MOTOR_FRICTION, HIP_MOTOR_FRICTION.replace('"0.006"', '"0.6"')))
    finding = only(text, 'friction-at-limit')
    assert finding.path == f'{HIP_MOTOR}/friction/@static'
    assert "at or above its motor's peak torque at the actuator, 0.5" in finding.message


# ------------------------------------------------------------------------- envelope
def test_peak_torque_through_the_reduction_below_the_joint_effort_limit():
    text = broken((HIP_LINE, HIP_LINE.replace('0.5', '0.4')))
    finding = only(text, 'peak-torque-below-limit')
    assert (finding.path, finding.line) == (f'{HIP_MOTOR}/motor/@peak_torque',
                                            line_of(text, '<motor torque_constant="0.05" peak'))
    assert "joint 'hip_joint' has effort limit 18 but the peak torque of its motor " \
        "('hip_motor': 0.4 at the rotor) gives only 16 through transmission 'hip_trans'" \
        in finding.message
    assert 'the URDF promises an effort the motor cannot give' in finding.message


def test_peak_torque_of_a_table_below_the_joint_effort_limit():
    text = broken((KNEE_TABLE, KNEE_TABLE.replace('0.4 0.4 0', '0.3 0.3 0')))
    finding = only(text, 'peak-torque-below-limit')
    assert (finding.path, finding.line) == (f'{KNEE_MOTOR}/motor/torque_speed/@torques',
                                            line_of(text, '<torque_speed'))
    assert "joint 'knee_joint' has effort limit 10 but the peak torque of its motor " \
        "('knee_motor': 0.3 at the rotor) gives only 9 through" in finding.message


def test_max_speed_through_the_reduction_below_the_joint_velocity_limit():
    text = broken((HIP_LINE, HIP_LINE.replace('500.0', '300')),
                  (KNEE_TABLE, KNEE_TABLE.replace('0 300 600', '0 300 400')))
    found = lint_urdf(text)
    assert [(f.kind, f.path) for f in found] == [
        ('max-speed-below-limit', f'{HIP_MOTOR}/motor/@max_speed'),
        ('max-speed-below-limit', f'{KNEE_MOTOR}/motor/torque_speed/@speeds')]
    assert "joint 'hip_joint' has velocity limit 10 but the maximum speed of its motor " \
        "('hip_motor': 300 at the rotor) gives only 7.5 through" in found[0].message
    assert "joint 'knee_joint' has velocity limit 15 but the maximum speed of its motor " \
        "('knee_motor': 400 at the rotor) gives only 13.3333 through" in found[1].message
    assert found[1].line == line_of(text, '<torque_speed')


def test_a_gear_ratio_counts_in_the_envelope_at_the_actuator():
    # a Drake gear ratio of 2 doubles the rotor's torque and halves its speed at the actuator:
    # 500 rad/s at the rotor is 250 at the actuator, 6.25 at the joint through 40:1 (the torque
    # 0.5 * 2 * 40 = 40 is enough)
    text = broken(('<mechanicalReduction>40</mechanicalReduction>',
                   '<mechanicalReduction>40</mechanicalReduction><drake:gear_ratio value="2"/>'))
    finding = only(text, 'max-speed-below-limit')
    assert "('hip_motor': 500 at the rotor, gear ratio 2) gives only 6.25" in finding.message


# ------------------------------------------------------------------------- thermal
def test_continuous_torque_below_the_motor_side_coulomb_friction():
    # continuous current sqrt((100 - 25) / (4 * 0.6)) = 5.59017 A, times 0.05 N m/A = 0.279508
    text = broken((HIP_MOTOR_FRICTION, '<friction coulomb="0.3" static="0.3" '
                                       'stribeck_velocity="5.0"'))
    finding = only(text, 'continuous-below-friction')
    friction_line = line_of(text, 'coulomb="0.3"')
    assert (finding.path, finding.line) == (f'{HIP_MOTOR}/motor',
                                            line_of(text, '<motor torque_constant="0.05" peak'))
    assert "actuator 'hip_motor': the continuous torque of its thermal model, 0.279508 at the " \
        'actuator (continuous current 5.59017 A times torque constant 0.05 N m/A), is below ' \
        f'its motor-side Coulomb friction 0.3 ({HIP_MOTOR}/friction/@coulomb, line ' \
        f'{friction_line})' in finding.message


def test_a_motor_without_torque_constant_beside_thermal_data_stays_an_error():
    text = broken(('<motor torque_constant="0.05" peak', '<motor peak'))
    (finding,) = lint_urdf(text)
    assert finding.kind == 'load-error'
    assert finding.path == f'{HIP_MOTOR}/motor/@torque_constant'
    assert "attribute 'torque_constant' is missing" in finding.message


# ------------------------------------------------------------------------- backlash
def test_backlash_wider_than_the_range_on_either_side():
    # the knee's range -2.2 .. 0.1 is -66 .. 3 at its actuator (reduction 30)
    text = broken(('<backlash width="0.005"/>', '<backlash width="5.5"/>'),
                  ('<mechanicalReduction>30</mechanicalReduction>',
                   '<mechanicalReduction>30</mechanicalReduction><backlash width="70"/>'))
    found = lint_urdf(text)
    assert [(f.kind, f.path) for f in found] == [
        ('backlash-over-range', f'{HIP_JOINT}/backlash/@width'),
        ('backlash-over-range', f'{KNEE_MOTOR}/backlash/@width')]
    assert "joint 'hip_joint': its backlash width 5.5 is larger than its URDF position range, " \
        '5 (from -2.5 to 2.5)' in found[0].message
    assert "actuator 'knee_motor': its backlash width 70 is larger than its position range " \
        '(the joint range through the transmission), 69 (from -66 to 3)' in found[1].message
    assert found[1].line == line_of(text, '<backlash width="70"/>')


def test_a_continuous_joint_has_no_range_to_exceed():
    text = broken(('<joint name="hip_joint" type="revolute">',
                   '<joint name="hip_joint" type="continuous">'),
                  ('<backlash width="0.005"/>', '<backlash width="50"/>'))
    assert lint_urdf(text) == []


# ------------------------------------------------------------------------- the verb
def test_lint_json_lists_the_drivetrain_findings(capsys, tmp_path):
    path = tmp_path / 'leg.urdf'
    path.write_text(broken((HIP_LINE, HIP_LINE.replace('0.5', '0.4')),
                           ('<backlash width="0.005"/>', '<backlash width="5.5"/>')))
    assert main(['lint', str(path), '--json']) == 1
    report = json.loads(capsys.readouterr().out)
    assert [(f['kind'], f['line']) for f in report['findings']] == [
        ('backlash-over-range', line_of(path.read_text(), '<backlash')),
        ('peak-torque-below-limit', line_of(path.read_text(), '<motor torque_constant'))]
    assert report['findings'][1]['path'] == f'{HIP_MOTOR}/motor/@peak_torque'


@pytest.mark.parametrize('kind', ['friction-at-limit', 'peak-torque-below-limit',
                                  'max-speed-below-limit', 'continuous-below-friction',
                                  'backlash-over-range'])
def test_each_kind_is_documented(kind):
    assert f'| `{kind}` |' in (REPO / 'doc' / 'cli.md').read_text()
