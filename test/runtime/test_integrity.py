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
Motor and joint encoders compared through the map (issue 37, item 3; runtime/integrity.py).

The hardware interface on a manual clock: a 10:1 joint (and the example robot's differential)
whose joint is read on ``absolute_positions`` while its motor reports in ``actuator_states``.
The references are the map by hand (``q = theta / 10``), the tolerance formula of the module
written out from the encoder resolutions, and the calibration file's bytes.
"""

import math

import numpy as np
import pytest

from transmission_plugins.core.exceptions import TransmissionValueError
from transmission_plugins.robot.loading import load_robot_transmissions
from transmission_plugins.runtime.calibration import CalibrationSettings
from transmission_plugins.runtime.calibration_file import read_calibration_file
from transmission_plugins.runtime.calibration_file import write_calibration_file
from transmission_plugins.runtime.diagnostics import ERROR
from transmission_plugins.runtime.hardware_interface import HardwareInterface
from transmission_plugins.runtime.messages import InputRejected
from transmission_plugins.tools.launch.node_plan import default_description_file
from transmission_plugins.tools.launch.node_plan import read_description

TURN = 2.0 * math.pi
REDUCTION = 10.0
SINGLE = ('<robot name="abs"><link name="a"/><link name="b"/>'
          '<joint name="j" type="revolute"><parent link="a"/><child link="b"/>'
          '<limit lower="-1" upper="1" velocity="2" effort="10"/></joint>'
          '<transmission name="t"><type>transmission_interface/SimpleTransmission</type>'
          '<joint name="j"><hardwareInterface>EffortJointInterface</hardwareInterface>{joint}'
          '</joint><actuator name="m"><mechanicalReduction>{reduction}</mechanicalReduction>'
          '</actuator></transmission></robot>')
#: the default tolerance of the 10:1 joint, written out: 4 counts of a 12-bit joint encoder
#: and of a 14-bit motor encoder seen through the gear
TOLERANCE = 4 * TURN / 4096 + 4 * TURN / 16384 / REDUCTION


class Clock:
    t = 100.0

    def __call__(self):
        return self.t


def _single(joint='', reduction=REDUCTION):
    return load_robot_transmissions(SINGLE.format(joint=joint, reduction=reduction), warn=False)


def _hw(robot, clock, **settings):
    return HardwareInterface(robot, clock=clock, command_timeout=0.0,
                             calibration=CalibrationSettings(**settings))


def _status(hw, suffix):
    return next(r for r in hw.diagnostics('/hw') if r.name.endswith(suffix))


class Joint:
    """The 10:1 joint: its motor reports ``theta + offset`` (raw), its encoder ``q``."""

    def __init__(self, hw, clock, offset=3.0):
        self.hw, self.clock, self.offset = hw, clock, offset
        self.slip = 0.0     # the motor's encoder against the joint, rad at the motor

    def step(self, q, v=0.0, reading=None, dt=0.01):
        self.clock.t += dt
        theta = REDUCTION * q + self.slip
        self.hw.set_actuator_state(['m'], [theta + self.offset], [REDUCTION * v])
        self.hw.set_absolute_positions(['j'], [q if reading is None else reading])
        return self.hw.update()


def test_agreeing_encoders_calibrate_then_hold_and_the_tolerance_is_the_formula():
    clock = Clock()
    hw = _hw(_single(), clock, absolute_encoders=['j'])
    joint = Joint(hw, clock)
    for n in range(50):
        out = joint.step(0.3 + 0.001 * n)
    assert hw.calibration.state == ['absolute']
    assert out.joint_states.position[0] == pytest.approx(0.349)
    values = dict(_status(hw, ': t').values)
    assert float(values['j.encoder_tolerance']) == pytest.approx(TOLERANCE, rel=1e-5)
    assert abs(float(values['j.encoder_disagreement'])) < 1e-12
    assert values['encoder_glitches'] == '0'


def test_a_slip_of_one_motor_turn_refuses_the_joint_and_keeps_the_offset():
    clock = Clock()
    hw = _hw(_single(), clock, absolute_encoders=['j'])
    joint = Joint(hw, clock)
    for _ in range(5):
        joint.step(0.3)
    hw.set_joint_command(['j'], effort=[1.0])
    offset = hw.calibration.offset.copy()
    joint.slip = TURN                      # the motor skips one turn against the joint
    joint.step(0.3)
    assert hw.calibration.state == ['absolute']        # one reading: maybe a glitch
    out = joint.step(0.3)
    assert hw.calibration.state == ['slipped']
    assert np.array_equal(hw.calibration.offset, offset)
    assert out.joint_states is None or 'j' not in out.joint_states.names
    with pytest.raises(InputRejected, match=r"joints \['j'\] are not calibrated"):
        hw.set_joint_command(['j'], effort=[1.0])
    sent = {g.names[0]: g for g in out.actuator_commands}
    assert sent['m'].velocity is not None and sent['m'].velocity[0] == 0.0   # stopped
    status = _status(hw, ': t')
    assert status.level == ERROR
    assert 'j reads 0.3, its motors map to 0.928319 (0.628 apart' in status.message
    assert 'slipped belt' in status.message
    node = _status(hw, '/hw')
    assert node.level == ERROR and 'motor and joint encoders disagree' in node.message
    assert hw.calibration.calibrated_offsets() == {'m': pytest.approx(offset[0])}
    assert any(level == 'error' and 'encoders disagree' in line
               for level, line in hw.calibration.events)


def test_a_lone_bad_reading_is_a_glitch_counted_not_a_slip():
    clock = Clock()
    hw = _hw(_single(), clock, absolute_encoders=['j'])
    joint = Joint(hw, clock)
    for _ in range(5):
        joint.step(0.3)
    joint.step(0.3, reading=0.5)
    for _ in range(5):
        joint.step(0.3)
    assert hw.calibration.state == ['absolute']
    assert dict(_status(hw, ': t').values)['encoder_glitches'] == '1'
    # readings that are not numbers are dropped before they are compared: never a slip
    for _ in range(3):
        with pytest.raises(InputRejected, match='non_finite'):
            joint.step(0.3, reading=math.nan)
    assert hw.calibration.state == ['absolute']


def test_a_moving_joint_read_late_is_within_the_speed_term():
    clock = Clock()
    hw = _hw(_single(), clock, absolute_encoders=['j'], integrity_tolerance=1e-4)
    joint = Joint(hw, clock)
    for _ in range(5):
        joint.step(0.0)                # calibrated at rest
    v, dt = 1.5, 0.01
    for n in range(100):
        q = 0.01 * n * v
        clock.t += dt
        hw.set_actuator_state(['m'], [REDUCTION * q + joint.offset], [REDUCTION * v])
        clock.t += 0.004              # the reading arrives 4 ms after the motor state...
        hw.set_absolute_positions(['j'], [q + 0.004 * v])   # ...and was sampled then
        hw.update()
    assert hw.calibration.state == ['absolute']
    values = dict(_status(hw, ': t').values)
    assert float(values['j.encoder_disagreement']) == pytest.approx(0.004 * v, rel=1e-6)
    assert float(values['j.encoder_tolerance']) == pytest.approx(
        1e-4 + 4 * TURN / 16384 / REDUCTION + 0.004 * v, rel=1e-6)


def test_backlash_widens_the_tolerance():
    clock = Clock()
    hw = _hw(_single('<backlash width="0.02"/>'), clock, absolute_encoders=['j'])
    joint = Joint(hw, clock)
    for _ in range(5):
        joint.step(0.3)
    for _ in range(5):
        joint.step(0.3, reading=0.3 + 0.019)    # the link at the far end of its play
    assert hw.calibration.state == ['absolute']
    values = dict(_status(hw, ': t').values)
    assert float(values['j.encoder_tolerance']) == pytest.approx(TOLERANCE + 0.02, rel=1e-5)


# ------------------------------------------------------------------ the turn at start
def _stored(tmp_path, offset):
    path = tmp_path / 'calibration.yaml'
    write_calibration_file(str(path), 'abs', {'m': offset}, 'test')
    return path


def test_a_single_turn_motor_is_re_zeroed_from_the_stored_offset_and_the_joint_reading(
        tmp_path):
    stored = 41.7                           # the motor's raw position at the joint's zero
    path = _stored(tmp_path, stored)
    clock = Clock()
    hw = _hw(_single(), clock, absolute_encoders=['j'], single_turn_motor_encoders=['m'],
             calibration_file=str(path))
    assert hw.calibration.state == ['waiting_absolute']
    q = 0.25
    # after a power cycle the driver counts from its single-turn reading: whole turns lost
    raw = REDUCTION * q + stored - 7 * TURN
    joint = Joint(hw, clock, offset=raw - REDUCTION * q)
    out = joint.step(q, reading=q + 0.003)  # a coarse joint encoder: 3 mrad off
    assert hw.calibration.state == ['file']
    assert hw.calibration.offset[0] == pytest.approx(stored - 7 * TURN, abs=1e-12)
    assert 'the turn from the joint encoders (m +7)' in hw.calibration.detail[0]
    # the motor's precision, not the joint encoder's: 0.25 exactly
    assert out.joint_states.position[0] == pytest.approx(q, abs=1e-12)
    assert path.read_text().count('41.7') == 1      # the file is as it was


def test_part_of_a_turn_since_the_file_fails_the_re_zero(tmp_path):
    path = _stored(tmp_path, 41.7)
    clock = Clock()
    hw = _hw(_single(), clock, absolute_encoders=['j'], single_turn_motor_encoders=['m'],
             calibration_file=str(path))
    joint = Joint(hw, clock, offset=41.7 - 2 * TURN + 0.5)   # a belt slipped 0.5 rad
    joint.step(0.25)
    assert hw.calibration.state == ['failed']
    assert 'moved by part of a turn since it was stored' in hw.calibration.detail[0]
    assert '[0.5] from the stored calibration' in hw.calibration.detail[0]
    assert _status(hw, '/hw').level == ERROR
    with pytest.raises(InputRejected, match='not calibrated'):
        hw.set_joint_command(['j'], effort=[1.0])


def test_without_stored_offsets_the_joint_reading_calibrates_as_before(tmp_path):
    clock = Clock()
    hw = _hw(_single(), clock, absolute_encoders=['j'], single_turn_motor_encoders=['m'],
             calibration_file=str(tmp_path / 'none_yet.yaml'))
    joint = Joint(hw, clock, offset=5.0)
    joint.step(0.25, reading=0.253)
    assert hw.calibration.state == ['absolute']
    assert hw.calibration.offset[0] == pytest.approx(5.0 - REDUCTION * 0.003)


@pytest.mark.parametrize('settings, match', [
    ({'single_turn_motor_encoders': ['m']},
     r"motors of transmissions whose joints are read .*'t'"),
    ({'absolute_encoders': ['j'], 'single_turn_motor_encoders': ['x']},
     'actuator names of the robot'),
    ({'absolute_encoders': ['m'], 'single_turn_motor_encoders': ['m']},
     'not in absolute_encoders'),
])
def test_single_turn_motor_settings_that_cannot_work_fail_configure(settings, match):
    with pytest.raises(TransmissionValueError, match=match):
        _hw(_single(), Clock(), **settings)


def test_a_gear_whose_turn_the_joint_encoder_cannot_tell_fails_configure():
    # 5000:1: one motor turn moves the joint 1.3 mrad, within twice the 6.2 mrad tolerance
    with pytest.raises(TransmissionValueError, match=r'single_turn_motor_encoders: expected '
                                                     r'motors whose turn the joint encoders '
                                                     r'tell.*\[0.001257\]'):
        _hw(_single(reduction=5000), Clock(), absolute_encoders=['j'],
            single_turn_motor_encoders=['m'])
    # a finer joint encoder tells it
    hw = _hw(_single(reduction=5000), Clock(), absolute_encoders=['j'],
             single_turn_motor_encoders=['m'], joint_encoder_resolution=TURN / 2 ** 17)
    assert hw.calibration.state == ['waiting_absolute']


def test_the_differential_is_watched_through_its_coupling():
    robot = load_robot_transmissions(read_description(default_description_file()), warn=False)
    with pytest.raises(TransmissionValueError, match='all the motors of transmission '
                                                     "'wrist_trans'"):
        _hw(robot, Clock(), absolute_encoders=['wrist_pitch_joint', 'wrist_roll_joint'],
            single_turn_motor_encoders=['wrist_left_motor'])
    clock = Clock()
    hw = _hw(robot, clock, absolute_encoders=['wrist_pitch_joint', 'wrist_roll_joint'])
    q = {'wrist_pitch_joint': 0.4, 'wrist_roll_joint': -1.0}
    motors = robot.joint_to_actuator({'position': q})['position']
    names = list(motors)
    for slip in (0.0, 0.0, 0.0, TURN, TURN):
        clock.t += 0.01
        theta = np.array([motors[n] for n in names])
        theta[0] += slip                       # the left motor skips a turn
        hw.set_actuator_state(names, theta)
        hw.set_absolute_positions(list(q), list(q.values()))
        hw.update()
    k = [g.transmission.name for g in hw.topology.groups].index('wrist_trans')
    assert hw.calibration.state[k] == 'slipped'
    # what one turn of the left motor does to each joint, by the URDF's map
    moved = robot.actuator_to_joint({'position': {**motors, names[0]: motors[names[0]] + TURN}})
    for name in q:
        assert f'its motors map to {moved["position"][name]:.6g}' in hw.calibration.detail[k]


def test_a_file_written_by_homing_keeps_the_stored_offsets_of_a_transmission_not_calibrated(
        tmp_path):
    # the wrist waits for its joint readings (its re-zero) while the pan joint homes: the file
    # homing writes keeps the wrist's stored offsets, it does not drop them
    robot = load_robot_transmissions(read_description(default_description_file()), warn=False)
    path = tmp_path / 'calibration.yaml'
    stored = {'wrist_left_motor': 12.5, 'wrist_right_motor': -3.25}
    write_calibration_file(str(path), robot.robot_name, stored, 'test')
    clock = Clock()
    hw = _hw(robot, clock, homing=True, homing_joints=['pan_joint'], homing_speed=0.5,
             calibration_file=str(path), single_turn_motor_encoders=list(stored),
             absolute_encoders=['wrist_pitch_joint', 'wrist_roll_joint'])
    k = [g.transmission.name for g in hw.topology.groups].index('wrist_trans')
    assert hw.calibration.state[k] == 'waiting_absolute'
    names = list(robot.actuator_names)
    pan = names.index('pan_motor')
    theta = np.zeros(len(names))
    edge = robot.urdf_joints['pan_joint'].calibration.edge()
    j = robot.joint_index['pan_joint']
    for _ in range(4000):   # the pan motor follows its homing velocity; its switch at the edge
        clock.t += 0.005
        hw.set_actuator_state(names, theta, np.zeros(len(names)))
        q = robot.actuator_to_joint_arrays({'position': theta})['position'][j]
        hw.set_reference_switch(['pan_joint'], [1.0 if q > edge else 0.0])
        out = hw.update()
        for group in out.actuator_commands:
            if 'pan_motor' in group.names and group.velocity is not None:
                theta[pan] += 0.005 * group.velocity[list(group.names).index('pan_motor')]
        if any('calibration written' in line for _, line in hw.calibration.events):
            break
    assert hw.calibration.state[0] == 'homed', hw.calibration.events
    assert hw.calibration.state[k] == 'waiting_absolute'
    written = read_calibration_file(str(path), robot.robot_name, robot.actuator_names)
    assert set(written) == {'pan_motor', *stored}
    assert {n: written[n] for n in stored} == stored
