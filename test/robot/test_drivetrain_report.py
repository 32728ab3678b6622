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
``inspect``'s drivetrain section (issue 36), text and JSON, against numbers worked by hand.

``urdf/drivetrain_robot.urdf``: the hip motor (0.05 N m/A, peak 0.5 N m, 500 rad/s, R 0.6 ohm,
R_th 4 K/W, 25 to 100 degrees C) behind 40:1; the knee motor (a table, 0.4 N m to 300 rad/s,
0 at 600 rad/s) behind 30:1; gear ratios 1.  By hand:

* hip: peak 0.5 * 40 = 20 N m and 500 / 40 = 12.5 rad/s at the joint; continuous current
  sqrt((100 - 25) / (4 * 0.6)) = sqrt(31.25) = 5.5901699 A, torque 0.05 * 5.5901699 =
  0.2795085 N m at the actuator, 11.180340 N m at the joint;
* knee: peak 0.4 * 30 = 12 N m and 600 / 30 = 20 rad/s at the joint; no thermal model;
* ankle (series-elastic, 50:1 to a spring): motor-side friction 0.003 N m Coulomb, 1e-5 N m s/rad
  viscous, a line from 0.4 N m at rest to 0 at 600 rad/s, 0.05 N m/A; nothing on the joint side
  (its peak through the spring is not a rigid map: none); the joint-side encoder has no motor.
"""

import json
import math

import pytest

from tp_support import REPO
from transmission_plugins import load_robot_transmissions
from transmission_plugins.robot.lint_urdf import lint_urdf
from transmission_plugins.robot.report import report_dict
from transmission_plugins.tools.cli import main

DRIVETRAIN = REPO / 'urdf' / 'drivetrain_robot.urdf'
CONTINUOUS_CURRENT = math.sqrt(31.25)


def _friction(coulomb, viscous, static=None, stribeck=None):
    return {'coulomb': coulomb, 'viscous': viscous,
            'static': coulomb if static is None else static, 'stribeck_velocity': stribeck}


EXPECTED = {
    'joints': [
        {'name': 'hip_joint', 'friction': _friction(0.8, 0.2), 'backlash': 0.005,
         'peak_effort': 20.0, 'max_speed': 12.5,
         'continuous_effort': 40 * 0.05 * CONTINUOUS_CURRENT},
        {'name': 'knee_joint', 'friction': _friction(0.5, 0.1), 'backlash': None,
         'peak_effort': 12.0, 'max_speed': 20.0, 'continuous_effort': None},
        {'name': 'ankle_joint', 'friction': None, 'backlash': None, 'peak_effort': None,
         'max_speed': None, 'continuous_effort': None}],
    'actuators': [
        {'name': 'hip_motor', 'friction': _friction(0.004, 0.00001, 0.006, 5.0),
         'backlash': None, 'torque_constant': 0.05, 'gear_ratio': 1.0, 'peak_torque': 0.5,
         'max_speed': 500.0, 'continuous_current': CONTINUOUS_CURRENT,
         'continuous_torque': 0.05 * CONTINUOUS_CURRENT, 'max_temperature': 100.0},
        {'name': 'knee_motor', 'friction': None, 'backlash': None, 'torque_constant': 0.05,
         'gear_ratio': 1.0, 'peak_torque': 0.4, 'max_speed': 600.0,
         'continuous_current': None, 'continuous_torque': None, 'max_temperature': None},
        {'name': 'ankle_motor', 'friction': _friction(0.003, 0.00001), 'backlash': None,
         'torque_constant': 0.05, 'gear_ratio': 1.0, 'peak_torque': 0.4, 'max_speed': 600.0,
         'continuous_current': None, 'continuous_torque': None, 'max_temperature': None},
        {'name': 'ankle_encoder', 'friction': None, 'backlash': None, 'torque_constant': None,
         'gear_ratio': 1.0, 'peak_torque': None, 'max_speed': None,
         'continuous_current': None, 'continuous_torque': None, 'max_temperature': None}]}


def test_inspect_json_has_the_drivetrain_worked_by_hand(capsys):
    assert main(['inspect', str(DRIVETRAIN), '--json']) == 0
    report = json.loads(capsys.readouterr().out)
    got = report['drivetrain']
    assert [j['name'] for j in got['joints']] == ['hip_joint', 'knee_joint', 'ankle_joint']
    assert [a['name'] for a in got['actuators']] == [a['name'] for a in EXPECTED['actuators']]
    for side in ('joints', 'actuators'):
        for have, want in zip(got[side], EXPECTED[side]):
            assert set(have) == set(want)
            for key, value in want.items():
                if isinstance(value, float):
                    assert have[key] == pytest.approx(value, rel=1e-12), (have['name'], key)
                else:
                    assert have[key] == value, (have['name'], key)
    assert got['joints'][0]['continuous_effort'] == pytest.approx(11.180339887, rel=1e-9)


def test_inspect_text_shows_the_drivetrain_tables(capsys):
    assert main(['inspect', str(DRIVETRAIN)]) == 0
    out = capsys.readouterr().out.splitlines()
    start = out.index("drivetrain, joint side (the <joint>'s friction and backlash; the motors "
                      'through the transmission; - = none):')
    assert out[start + 1].split() == ['JOINT', 'COULOMB', 'STATIC', 'VISCOUS', 'STRIBECK', 'V',
                                      'BACKLASH', 'PEAK', 'EFFORT', 'MAX', 'SPEED', 'CONT.',
                                      'EFFORT']
    assert out[start + 2].split() == ['hip_joint', '0.8', '0.8', '0.2', '-', '0.005', '20',
                                      '12.5', '11.18']
    assert out[start + 3].split() == ['knee_joint', '0.5', '0.5', '0.1', '-', '-', '12', '20',
                                      '-']
    assert out[start + 4].split() == ['ankle_joint'] + ['-'] * 8
    motors = out.index("drivetrain, motor side (the <actuator>'s friction and backlash; the motor "
                       'at the actuator: rotor values times the gear ratio; degrees C):')
    assert motors == start + 6
    assert out[motors + 2].split() == ['hip_motor', '0.004', '0.006', '1e-05', '5', '-', '0.05',
                                       '0.5', '500', '5.59', '0.2795', '100']
    assert out[motors + 3].split() == ['knee_motor', '-', '-', '-', '-', '-', '0.05', '0.4',
                                       '600', '-', '-', '-']
    assert out[motors + 4].split() == ['ankle_motor', '0.003', '0.003', '1e-05', '-', '-',
                                       '0.05', '0.4', '600', '-', '-', '-']
    assert out[motors + 5].split() == ['ankle_encoder'] + ['-'] * 11


def test_a_robot_without_a_drivetrain_has_no_section(capsys):
    example = REPO / 'urdf' / 'example_robot.urdf.xacro'
    assert main(['inspect', str(example)]) == 0
    assert 'drivetrain' not in capsys.readouterr().out
    assert main(['inspect', str(example), '--json']) == 0
    assert 'drivetrain' not in json.loads(capsys.readouterr().out)


def test_the_section_follows_a_gear_ratio():
    text = DRIVETRAIN.read_text()
    robot = load_robot_transmissions(text.replace(
        '<robot name="drivetrain_robot">',
        '<robot name="drivetrain_robot" xmlns:drake="http://drake.mit.edu">').replace(
        '<mechanicalReduction>30</mechanicalReduction>',
        '<mechanicalReduction>30</mechanicalReduction><drake:gear_ratio value="2"/>'), warn=False)
    drivetrain = report_dict(robot)['drivetrain']
    knee, joint = drivetrain['actuators'][1], drivetrain['joints'][1]
    # the actuator coordinate after a gear ratio of 2: twice the torque, half the speed
    assert (knee['gear_ratio'], knee['peak_torque'], knee['max_speed']) == (2.0, 0.8, 300.0)
    assert (joint['peak_effort'], joint['max_speed']) == pytest.approx((24.0, 10.0))


DIFFERENTIAL = """<robot name="wrist">
  <link name="a"/><link name="b"/><link name="c"/>
  <joint name="j1" type="revolute"><parent link="a"/><child link="b"/>
    <limit lower="-1" upper="1" effort="30" velocity="15"/></joint>
  <joint name="j2" type="revolute"><parent link="b"/><child link="c"/>
    <limit lower="-1" upper="1" effort="30" velocity="15"/></joint>
  <transmission name="diff">
    <type>transmission_interface/DifferentialTransmission</type>
    <actuator name="m1"><role>actuator1</role><mechanicalReduction>10</mechanicalReduction>
      <motor peak_torque="1" max_speed="100"/></actuator>
    <actuator name="m2"><role>actuator2</role><mechanicalReduction>10</mechanicalReduction>
      <motor peak_torque="2" max_speed="200"/></actuator>
    <joint name="j1"><role>joint1</role></joint>
    <joint name="j2"><role>joint2</role></joint>
  </transmission>
</robot>
"""


def test_a_differential_sums_its_motors_within_their_bounds():
    # efforts: tau1 = n (u1 + u2), tau2 = n (u1 - u2): at most 10 * 1 + 10 * 2 = 30 each;
    # speeds: q1 = (w1 / n + w2 / n) / 2, q2 = (w1 / n - w2 / n) / 2: at most (10 + 20) / 2
    robot = load_robot_transmissions(DIFFERENTIAL, warn=False)
    joints = report_dict(robot)['drivetrain']['joints']
    assert [j[k] for j in joints for k in ('peak_effort', 'max_speed')] == pytest.approx(
        [30.0, 15.0, 30.0, 15.0])
    # limits at what the motors give: no finding; one above: a finding on the first motor
    assert lint_urdf(DIFFERENTIAL) == []
    last = 'effort="30" velocity="15"/></joint>\n  <transmission'
    found = lint_urdf(DIFFERENTIAL.replace(last, last.replace('30', '31')))
    assert [(f.kind, f.path.rsplit('/', 3)[-3]) for f in found] == [
        ('peak-torque-below-limit', "actuator[@name='m1']")]
    assert "joint 'j2' has effort limit 31 but" in found[0].message
