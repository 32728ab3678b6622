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
Calibration at start-up in the hardware interface's cycle, without ROS (issue 26, item 1).

Homing runs against the rotors and switches ``mock_actuators`` simulates (``ActuatorSimulator``,
``ReferenceSwitches``), in this process on a hand-moved clock, with incremental encoders that
count from zero at start: the offsets found must be the true ones to within one cycle's motion.
Absolute encoders, the calibration file, refused commands, what ``joint_states`` says and the
errors of bad settings are checked on their own.
"""

from dataclasses import replace
import math

import numpy as np
import pytest

from transmission_plugins.core.exceptions import TransmissionValueError
from transmission_plugins.robot.loading import load_robot_transmissions
from transmission_plugins.runtime.calibration import CalibrationSettings
from transmission_plugins.runtime.calibration_file import CalibrationFileError
from transmission_plugins.runtime.calibration_file import read_calibration_file
from transmission_plugins.runtime.calibration_file import write_calibration_file
from transmission_plugins.runtime.hardware_interface import HardwareInterface
from transmission_plugins.runtime.messages import InputRejected
from transmission_plugins.runtime.simulator import ActuatorSimulator
from transmission_plugins.runtime.simulator import ReferenceSwitches
from transmission_plugins.tools.launch.node_plan import default_description_file
from transmission_plugins.tools.launch.node_plan import read_description

#: the joints' start (true) positions: off the centre, on both sides of each switch
START = {'pan_joint': -0.4, 'shoulder_joint': 0.5, 'elbow_joint': 0.3,
         'wrist_pitch_joint': -0.2, 'wrist_roll_joint': 0.6}
STEP = 0.005
#: the homing speed, a fraction of each joint's velocity limit
SPEED = 0.5


@pytest.fixture(scope='module')
def robot():
    return load_robot_transmissions(read_description(default_description_file()), warn=False)


class Clock:
    t = 1000.0

    def __call__(self):
        return self.t


class Rig:
    """The hardware interface closing the loop over the rotor simulation, on a manual clock."""

    def __init__(self, robot, start=START, **settings):
        self.robot = robot
        self.clock = Clock()
        self.hw = HardwareInterface(robot, clock=self.clock, command_timeout=0.0,
                                    calibration=CalibrationSettings(**settings))
        self.hw.apply(replace(self.hw.settings, update_rate=1.0 / STEP))
        self.sim = ActuatorSimulator([robot.actuator_models[n] for n in robot.actuator_names],
                                     min_inertia=1e-7)
        q = robot.default_joint_position()
        for name, value in start.items():
            q[robot.joint_index[name]] = value
        theta = np.asarray(robot.joint_to_actuator_arrays({'position': q})['position'])
        self.sim.reset(position=theta)
        self.sim.set_command('position', theta)
        self.switches = ReferenceSwitches(robot)
        # incremental encoders on the switch transmissions: they count from 0 at start, so
        # their offset (measured minus true position) is minus the start position
        self.true_offset = np.zeros(len(robot.actuator_names))
        for name in ('pan_motor', 'shoulder_motor', 'elbow_motor', 'wrist_left_motor',
                     'wrist_right_motor'):
            i = robot.actuator_names.index(name)
            self.true_offset[i] = -theta[i]
        self.with_switches = True
        #: positions and velocities in separate messages (doc/nodes.md allows any subset)
        self.split = False
        #: with ``split``: whether the position messages are sent
        self.positions = True
        self.log = []

    def cycle(self):
        self.sim.step(STEP)
        self.clock.t += STEP
        s = self.sim.state()
        names = self.robot.actuator_names
        if not self.split:
            self.hw.set_actuator_state(names, s['position'] + self.true_offset, s['velocity'],
                                       s['effort'])
        else:
            if self.positions:
                self.hw.set_actuator_state(names, s['position'] + self.true_offset)
            self.hw.set_actuator_state(names, velocity=s['velocity'], effort=s['effort'])
        if self.with_switches:
            self.hw.set_reference_switch(self.switches.names,
                                         self.switches.levels(s['position']))
        out = self.hw.update()
        for group in out.actuator_commands:
            for field in ('position', 'velocity', 'effort'):
                x = getattr(group, field)
                if x is not None:
                    full = np.full(len(self.robot.actuator_names), np.nan)
                    idx = [self.robot.actuator_names.index(n) for n in group.names]
                    full[idx] = x - (self.true_offset[idx] if field == 'position' else 0.0)
                    self.sim.set_command(field, full)
                    break
        self.log += self.hw.calibration.events
        self.hw.calibration.events.clear()
        return out

    def run(self, seconds):
        for _ in range(int(round(seconds / STEP))):
            out = self.cycle()
            if not self.hw.calibration.pending():
                break
        return out


def test_homing_finds_the_switches_within_one_cycles_motion(robot):
    rig = Rig(robot, homing=True, homing_speed=SPEED)
    assert rig.hw.calibration.state[:3] == ['homing_pending'] * 3
    rig.run(5.0)
    assert rig.hw.calibration.state == ['homed', 'homed', 'homed', 'not_needed'], rig.log
    error = rig.hw.calibration.offset - rig.true_offset
    # in joint space, each homed joint's edge is off by at most one cycle's motion
    worst = 0.0
    for t in robot.transmissions[:3]:
        tr = t.transmission
        a = [robot.actuator_names.index(n) for n in t.actuator_names]
        k = tr.linear_map()[0]
        for j, name in enumerate(t.joint_names):
            speed = SPEED * robot.joint_velocity_limit[robot.joint_index[name]]
            off = abs(float(k[j] @ error[a]))
            assert off <= speed * STEP, (name, off, speed * STEP)
            worst = max(worst, off / (speed * STEP))
    print(f"\nhoming: worst edge error {worst:.2f} of one cycle's motion")
    # every joint is reported, at its true position
    q = rig.cycle().joint_states
    assert q.names == robot.joint_names
    truth = robot.actuator_to_joint_arrays({'position': rig.sim.state()['position']})
    np.testing.assert_allclose(q.position[:5], truth['position'][:5], atol=0.01)
    assert any('homed: offsets' in line for _, line in rig.log)


def test_uncalibrated_joints_are_left_out_and_their_commands_refused(robot):
    rig = Rig(robot, homing=True, homing_speed=SPEED)
    out = rig.cycle()
    assert out.joint_states.names == [n for n in robot.joint_names if n.startswith('gripper')]
    with pytest.raises(InputRejected, match=r"uncalibrated: joints \['pan_joint'\]"):
        rig.hw.set_joint_command(['pan_joint'], [0.1])
    rig.hw.set_joint_command(['gripper_joint'], [0.03])     # needs no calibration
    with pytest.raises(InputRejected, match='uncalibrated'):
        rig.hw.set_interface_command('position', [0.0] * 6)
    assert rig.hw.drops['joint_commands']['uncalibrated'] == 1
    records = rig.hw.diagnostics('hw')
    assert records[0].level == 1 and '5 joints not calibrated' in records[0].message
    values = dict(records[1].values)
    assert values['calibration'].startswith('not calibrated: homing')
    rig.run(5.0)
    rig.hw.set_joint_command(['pan_joint'], [0.1])   # accepted once homed
    assert rig.hw.diagnostics('hw')[0].level == 0


def test_opting_out_uses_the_offsets_known_so_far(robot):
    rig = Rig(robot, absolute_encoders=['pan_motor'], require_calibration=False)
    out = rig.cycle()
    assert 'pan_joint' in out.joint_states.names
    rig.hw.set_joint_command(['pan_joint'], [0.1])
    assert rig.hw.diagnostics('hw')[1].level == 1   # still said to be uncalibrated


def test_homing_writes_the_calibration_file_and_the_next_start_reads_it(robot, tmp_path):
    path = tmp_path / 'calibration.yaml'
    rig = Rig(robot, homing=True, homing_speed=SPEED, calibration_file=str(path))
    rig.run(5.0)
    rig.cycle()
    stored = read_calibration_file(str(path), robot.robot_name, robot.actuator_names)
    assert set(stored) == {'pan_motor', 'shoulder_motor', 'elbow_motor', 'wrist_left_motor',
                           'wrist_right_motor'}
    assert any(f'calibration written to {path}' in line for _, line in rig.log)
    again = HardwareInterface(robot, calibration=CalibrationSettings(
        homing=True, calibration_file=str(path)))
    assert again.calibration.state == ['file', 'file', 'file', 'not_needed']
    np.testing.assert_allclose(again.calibration.offset[:5], list(stored.values()))


def edge_errors(robot, rig):
    """Return each homed joint's edge error in cycles' motion (joint space)."""
    error = rig.hw.calibration.offset - rig.true_offset
    out = {}
    for t in robot.transmissions[:3]:
        a = [robot.actuator_names.index(n) for n in t.actuator_names]
        k = t.transmission.linear_map()[0]
        for j, name in enumerate(t.joint_names):
            speed = SPEED * robot.joint_velocity_limit[robot.joint_index[name]]
            out[name] = abs(float(k[j] @ error[a])) / (speed * STEP)
    return out


def test_homing_with_positions_and_velocities_in_separate_messages(robot, tmp_path):
    # issue 34 G-1: a velocity-only message made the positions unknown when the switch edge
    # came: edges at NaN, 'homed' with NaN offsets and a calibration file of nan
    path = tmp_path / 'calibration.yaml'
    write_calibration_file(str(path), robot.robot_name, {'gripper_motor': 0.0}, 'test')
    rig = Rig(robot, homing=True, homing_speed=SPEED, calibration_file=str(path))
    rig.split = True
    rig.run(5.0)
    rig.cycle()
    assert rig.hw.calibration.state == ['homed', 'homed', 'homed', 'file'], rig.log
    assert np.isfinite(rig.hw.calibration.offset).all()
    # the latest known position is one message older than with whole messages: still within
    # one cycle's motion of the edge
    worst = edge_errors(robot, rig)
    assert max(worst.values()) <= 1.0, worst
    stored = read_calibration_file(str(path), robot.robot_name, robot.actuator_names)
    np.testing.assert_allclose([stored[n] for n in robot.actuator_names],
                               rig.hw.calibration.offset)


def test_homing_takes_no_switch_edge_without_a_known_fresh_position(robot, tmp_path):
    # issue 34 G-1: positions stop once homing started (the driver sends velocities only):
    # no edge is taken, homing fails, the good file stays and the joints' commands are refused
    path = tmp_path / 'calibration.yaml'
    write_calibration_file(str(path), robot.robot_name, {'gripper_motor': 0.0}, 'test')
    before = path.read_text()
    rig = Rig(robot, homing=True, homing_speed=SPEED, calibration_file=str(path),
              homing_timeout=1.0)
    rig.split = True
    for _ in range(5):
        rig.cycle()
    assert rig.hw.calibration.state[:3] == ['homing'] * 3
    rig.positions = False
    for _ in range(400):
        rig.cycle()
    assert rig.hw.calibration.state == ['failed', 'failed', 'failed', 'file'], rig.log
    assert np.isfinite(rig.hw.calibration.offset).all()
    assert not any('edge found' in line for _, line in rig.log)
    failures = [line for level, line in rig.log if level == 'error']
    assert failures and all('no known, fresh actuator position' in line
                            for line in failures), failures
    assert path.read_text() == before
    for command in ({'velocity': [0.1]}, {'position': [0.1]}):
        with pytest.raises(InputRejected, match='uncalibrated'):
            rig.hw.set_joint_command(['pan_joint'], **command)
    # nothing moves the failed joints: the homing velocities were replaced by zeros
    out = rig.cycle()
    for group in out.actuator_commands:
        if 'pan_motor' in group.names and group.velocity is not None:
            assert group.velocity[group.names.index('pan_motor')] == 0.0


TABLE = """<robot name="r"><link name="a"/><link name="b"/>
  <joint name="knee" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 1 0"/>
    <limit lower="-0.5" upper="1" effort="150" velocity="8"/><calibration rising="2.0"/></joint>
  <transmission name="measured"><type>transmission_plugins/TableTransmission</type>
    <joint name="knee"/><actuator name="motor"/>
    <table outside="nan"><point actuator="-1" joint="-0.5"/><point actuator="0" joint="0"/>
      <point actuator="2" joint="1"/></table></transmission></robot>"""


def test_homing_never_ends_with_a_non_finite_offset():
    # a switch edge where the transmission's map has no actuator position (outside the table):
    # the offset would be NaN; homing fails instead of ending 'homed'
    table = load_robot_transmissions(TABLE, warn=False)
    clock = Clock()
    hw = HardwareInterface(table, clock=clock, command_timeout=0.0,
                           calibration=CalibrationSettings(homing=True))
    for level in (0.0, 0.0, 1.0):
        clock.t += STEP
        hw.set_actuator_state(['motor'], [0.5], [0.0])
        hw.update()
        hw.set_reference_switch(['knee'], [level])
    hw.update()
    assert hw.calibration.state == ['failed'], hw.calibration.events
    assert np.isfinite(hw.calibration.offset).all()
    assert 'not finite' in hw.calibration.detail[0]
    with pytest.raises(InputRejected, match='uncalibrated'):
        hw.set_joint_command(['knee'], velocity=[0.1])


def test_homing_times_out_with_an_error(robot):
    rig = Rig(robot, homing=True, homing_speed=SPEED, homing_timeout=0.5)
    rig.with_switches = False     # a driver that never reports the switches
    for _ in range(200):
        rig.cycle()
    assert rig.hw.calibration.state[:3] == ['failed'] * 3
    records = rig.hw.diagnostics('hw')
    assert records[0].level == 2 and 'homing failed' in records[0].message
    assert 'no reference_switches reading named it' in dict(records[1].values)['calibration']
    assert any(level == 'error' and 'timed out after 0.5 s' in line for level, line in rig.log)


def test_a_joint_without_a_switch_cannot_be_homed(robot):
    with pytest.raises(TransmissionValueError, match=r'homing_joints.*no <calibration rising'
                                                     r".*got \['gripper_joint'\]"):
        HardwareInterface(robot, calibration=CalibrationSettings(
            homing=True, homing_joints=['pan_joint', 'gripper_joint']))


def test_a_transmission_needs_one_switch_per_actuator(robot):
    with pytest.raises(TransmissionValueError, match="transmission 'wrist_trans'.* needs 2"):
        HardwareInterface(robot, calibration=CalibrationSettings(
            homing=True, homing_joints=['wrist_pitch_joint']))


# ------------------------------------------------------------------ absolute encoders
SINGLE = ('<robot name="abs"><link name="a"/><link name="b"/>'
          '<joint name="j" type="revolute"><parent link="a"/><child link="b"/>'
          '<limit lower="{lo}" upper="{hi}" velocity="2" effort="10"/></joint>'
          '<transmission name="t"><type>transmission_interface/SimpleTransmission</type>'
          '<joint name="j"><hardwareInterface>EffortJointInterface</hardwareInterface></joint>'
          '<actuator name="m"><mechanicalReduction>10</mechanicalReduction></actuator>'
          '</transmission></robot>')


def test_a_single_turn_encoder_is_unwrapped_from_the_joint_range():
    robot = load_robot_transmissions(SINGLE.format(lo=-0.2, hi=0.3), warn=False)
    hw = HardwareInterface(robot, calibration=CalibrationSettings(
        absolute_encoders=['m'], single_turn_encoders=['m']))
    assert hw.calibration.state == ['waiting_absolute']
    true_theta = 10.0 * 0.25        # the joint at 0.25: the motor 2.5 rad past its zero
    raw = 123.0                     # where its incremental count happens to be
    hw.set_actuator_state(['m'], [raw])
    hw.set_absolute_positions(['m'], [true_theta - 2 * math.pi])   # single turn: modulo 2 pi
    out = hw.update()
    assert hw.calibration.state == ['absolute']
    assert out.joint_states.position[0] == pytest.approx(0.25)
    assert hw.calibration.offset[0] == pytest.approx(raw - true_theta)


def test_a_single_turn_encoder_needs_a_range_narrower_than_a_turn(robot):
    wide = load_robot_transmissions(SINGLE.format(lo=-0.4, hi=0.4), warn=False)
    with pytest.raises(TransmissionValueError, match=r'single_turn_encoders.*moves its joints '
                                                     r'by \[0.6283\] per turn, within their '
                                                     r'ranges \[0.8\]'):
        HardwareInterface(wide, calibration=CalibrationSettings(
            absolute_encoders=['m'], single_turn_encoders=['m']))
    with pytest.raises(TransmissionValueError, match='nonlinear'):
        HardwareInterface(robot, calibration=CalibrationSettings(
            absolute_encoders=['gripper_motor'], single_turn_encoders=['gripper_motor']))


def test_absolute_joint_positions_calibrate_a_differential(robot):
    hw = HardwareInterface(robot, calibration=CalibrationSettings(
        absolute_encoders=['wrist_pitch_joint', 'wrist_roll_joint']))
    q = {'wrist_pitch_joint': 0.4, 'wrist_roll_joint': -1.0}
    theta = robot.joint_to_actuator({'position': q})['position']
    raw = {'wrist_left_motor': 5.0, 'wrist_right_motor': -7.0}
    hw.set_actuator_state(list(raw), list(raw.values()))
    hw.set_absolute_positions(list(q), list(q.values()))
    out = hw.update()
    assert hw.calibration.state[2] == 'absolute'
    got = dict(zip(out.joint_states.names, out.joint_states.position))
    assert got['wrist_pitch_joint'] == pytest.approx(0.4)
    assert got['wrist_roll_joint'] == pytest.approx(-1.0)
    for name in raw:
        i = robot.actuator_names.index(name)
        assert hw.calibration.offset[i] == pytest.approx(raw[name] - theta[name])


def test_absolute_readings_calibrate_with_positions_in_their_own_messages(robot):
    # issue 34 G-1: a velocity-only message after the positions left them unknown at every
    # cycle: the transmission waited for its absolute positions forever
    hw = HardwareInterface(robot, calibration=CalibrationSettings(absolute_encoders=['pan_motor']))
    hw.set_actuator_state(robot.actuator_names, [3.0] + [0.0] * 5)
    hw.set_actuator_state(robot.actuator_names, velocity=[0.0] * 6)
    hw.set_absolute_positions(['pan_motor'], [1.0])
    hw.update()
    assert hw.calibration.state[0] == 'absolute'
    assert hw.calibration.offset[0] == pytest.approx(2.0)


def test_absolute_encoders_must_cover_a_transmission(robot):
    with pytest.raises(TransmissionValueError, match='all the actuators of transmission '
                                                     "'wrist_trans'"):
        HardwareInterface(robot, calibration=CalibrationSettings(
            absolute_encoders=['wrist_left_motor']))


# ------------------------------------------------------------------ the calibration file
def test_a_calibration_file_for_another_robot_is_refused(robot, tmp_path):
    path = tmp_path / 'pr2.yaml'
    write_calibration_file(str(path), 'pr2', {'r_gripper_motor': 0.1}, 'test')
    with pytest.raises(CalibrationFileError, match=r"pr2.yaml: a calibration of robot 'pr2', "
                                                   r"not of this robot 'example_robot'"):
        HardwareInterface(robot, calibration=CalibrationSettings(calibration_file=str(path)))


@pytest.mark.parametrize('text, match', [
    ('robot: example_robot\noffsets: {nope_motor: 1.0}\n', r"does not have: \['nope_motor'\]"),
    ('robot: example_robot\noffsets: {pan_motor: .nan}\n', 'offsets/pan_motor: expected a '
                                                           'finite number'),
    ('robot: example_robot\n', r"expected the keys \['robot', 'offsets'\]"),
    ('robot: [example_robot\n', 'not YAML'),
])
def test_bad_calibration_files_name_the_cause(robot, tmp_path, text, match):
    path = tmp_path / 'calibration.yaml'
    path.write_text(text)
    with pytest.raises(CalibrationFileError, match=match):
        read_calibration_file(str(path), robot.robot_name, robot.actuator_names)


def test_a_calibration_file_shifts_the_joint_states(robot, tmp_path):
    path = tmp_path / 'calibration.yaml'
    write_calibration_file(str(path), robot.robot_name, {'pan_motor': 1.0}, 'test')
    hw = HardwareInterface(robot, calibration=CalibrationSettings(calibration_file=str(path)))
    hw.set_actuator_state(robot.actuator_names, [1.0] + [0.0] * 5)
    hw.set_joint_command(['pan_joint'], [0.25])
    out = hw.update()
    assert out.joint_states.position[0] == pytest.approx(0.0)   # (1.0 - 1.0) / 2
    (command,) = [g for g in out.actuator_commands if 'pan_motor' in g.names]
    assert command.position[command.names.index('pan_motor')] == pytest.approx(1.5)
    assert read_calibration_file(str(tmp_path / 'missing.yaml'), robot.robot_name,
                                 robot.actuator_names) is None
