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
The drivetrain in the hardware interface's cycle, without ROS (issue 36).

The robot is the bundled ``urdf/drivetrain_robot.urdf``; every expected number is computed here
by hand from the values written in that file (:data:`HIP` and friends), never by the package's
own drivetrain functions: the torque-speed line, the first-order winding temperature, the
derated current limit, the torque constant and the reduction, the friction formula.
"""

from dataclasses import replace
import math
import re

import numpy as np
import pytest
from tp_support import REPO

from transmission_plugins.core.exceptions import TransmissionValueError
from transmission_plugins.robot.loading import load_robot_transmissions
from transmission_plugins.runtime.diagnostics import ERROR
from transmission_plugins.runtime.diagnostics import OK
from transmission_plugins.runtime.diagnostics import WARN
from transmission_plugins.runtime.hardware_interface import HardwareInterface
from transmission_plugins.runtime.reports import Reports

#: the bundled drivetrain robot without its hip's backlash: the motors and friction here, the
#: play in the joint states in test_backlash_cycle.py (it holds the joint's velocity at 0 inside
#: the play, which these tests' rigid references do not model)
URDF = re.sub(r'<backlash\b[^>]*/>', '', (REPO / 'urdf' / 'drivetrain_robot.urdf').read_text())
#: hip_motor and its transmission as urdf/drivetrain_robot.urdf writes them
HIP = {'reduction': 40.0, 'k_t': 0.05, 'peak': 0.5, 'max_speed': 500.0, 'R': 0.6, 'R_th': 4.0,
       'tau': 20.0, 'T_max': 100.0, 'T_a': 25.0, 'joint_effort': 18.0,
       'joint_coulomb': 0.8, 'joint_viscous': 0.2, 'motor_coulomb': 0.004,
       'motor_static': 0.006, 'motor_stribeck': 5.0, 'motor_viscous': 0.00001}
KNEE = {'reduction': 30.0, 'k_t': 0.05, 'joint_effort': 10.0}
#: derating starts 80 % of the way from the ambient to the maximum (no warning_temperature)
HIP_WARNING = HIP['T_a'] + 0.8 * (HIP['T_max'] - HIP['T_a'])
HIP_PEAK_CURRENT = HIP['peak'] / HIP['k_t']
HIP_CONTINUOUS = math.sqrt((HIP['T_max'] - HIP['T_a']) / (HIP['R_th'] * HIP['R']))
ACTUATORS = ['hip_motor', 'knee_motor']
JOINTS = ['hip_joint', 'knee_joint']
DT = 0.01


class FakeClock:
    """A steady clock the test moves by hand."""

    def __init__(self) -> None:
        self.t = 50.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture(scope='module')
def robot():
    return load_robot_transmissions(URDF, warn=False)


@pytest.fixture
def clock():
    return FakeClock()


def _hw(robot, clock, **changes):
    changes.setdefault('update_rate', 1.0 / DT)
    return HardwareInterface(robot, clock=clock, **changes)


def _commands(out):
    """Merge the command groups into {actuator: {field: value}}."""
    merged = {}
    for g in out.actuator_commands:
        for i, name in enumerate(g.names):
            for field in ('position', 'velocity', 'effort'):
                arr = getattr(g, field)
                if arr is not None:
                    merged.setdefault(name, {})[field] = float(arr[i])
    return merged


def _line(velocity):
    """Return the hip motor's torque in the direction of motion: the line, by hand."""
    return HIP['peak'] * max(0.0, 1.0 - abs(velocity) / HIP['max_speed'])


def _status(hw, name):
    return next(r for r in hw.diagnostics('/hw') if r.name == name)


# ---------------------------------------------------------------------- torque-speed envelope
@pytest.mark.parametrize('speed', [0.5 * HIP['max_speed'], -0.5 * HIP['max_speed']])
def test_an_effort_beyond_the_envelope_at_half_the_maximum_speed_is_limited_to_the_line(
        robot, clock, speed):
    hw = _hw(robot, clock)
    hw.set_actuator_state(ACTUATORS, [0.0, 0.0], [speed, 0.0], [0.0, 0.0])
    joint_effort = 15.0   # 0.375 N m at the motor: within the URDF (0.45), beyond the line
    assert joint_effort / HIP['reduction'] > _line(speed)
    sign = math.copysign(1.0, speed)
    hw.set_joint_command(['hip_joint'], effort=[sign * joint_effort])
    cmd = _commands(hw.update())
    assert cmd['hip_motor']['effort'] == pytest.approx(sign * _line(speed), rel=1e-12)
    assert hw.counters.clamps['actuator_torque_speed'] == 1
    assert hw.counters.clamps['actuator_effort'] == 0
    assert hw.counters.clamps['joint_effort'] == 0
    node = _status(hw, '/hw')
    assert ('clamped.actuator_torque_speed', '1') in node.values
    trans = _status(hw, '/hw: hip_trans')
    assert ('clamped.hip_motor.torque_speed', '1') in trans.values
    # the joint-side view: the line's torque through the reduction
    reach = dict(trans.values)['hip_joint.effort_reach']
    assert float(reach) == pytest.approx(_line(speed) * HIP['reduction'], rel=1e-6)
    # braking (against the motion) gets the URDF's limit (the peak is larger)
    hw.set_joint_command(['hip_joint'], effort=[-sign * 17.0])
    clock.t += DT
    hw.set_actuator_state(ACTUATORS, [0.0, 0.0], [speed, 0.0], [0.0, 0.0])
    assert _commands(hw.update())['hip_motor']['effort'] == pytest.approx(
        -sign * 17.0 / HIP['reduction'], rel=1e-12)


def test_a_velocity_beyond_the_envelope_s_maximum_speed_is_limited_to_it(clock):
    # the URDF's joint velocity limit (10 rad/s = 400 rad/s at the motor) is within the
    # envelope; raised to 20 rad/s, the envelope's maximum speed binds
    robot = load_robot_transmissions(URDF.replace('velocity="10.0" effort="18.0"',
                                                  'velocity="20.0" effort="18.0"'), warn=False)
    hw = _hw(robot, clock)
    hw.set_actuator_state(ACTUATORS, [0.0, 0.0], [0.0, 0.0])
    hw.set_joint_command(['hip_joint', 'knee_joint'], velocity=[15.0, -19.0])
    cmd = _commands(hw.update())
    assert cmd['hip_motor']['velocity'] == HIP['max_speed']          # 600 -> 500
    assert cmd['knee_motor']['velocity'] == pytest.approx(-15.0 * KNEE['reduction'])  # URDF's
    assert hw.counters.clamps['actuator_max_speed'] == 1
    assert dict(_status(hw, '/hw: hip_trans').values)['hip_motor.max_speed'] == '500'


def test_an_unknown_velocity_leaves_the_peak_and_commands_never_exceed_a_bound(robot, clock):
    hw = _hw(robot, clock)
    rng = np.random.default_rng(3)
    for _ in range(300):
        clock.t += DT
        speed = rng.uniform(-700.0, 700.0, 2)
        fields = {'position': [0.0, 0.0]}
        if rng.random() < 0.7:   # a driver that reports velocities now and then
            fields['velocity'] = speed.tolist()
        hw.set_actuator_state(ACTUATORS, **fields)
        hw.set_joint_command(JOINTS, effort=rng.uniform(-40.0, 40.0, 2).tolist())
        effort = _commands(hw.update())['hip_motor']['effort']
        v = speed[0] if 'velocity' in fields else 0.0   # unknown: the peak both ways
        upper = _line(v) if v > 0 else HIP['peak']
        lower = -_line(v) if v < 0 else -HIP['peak']
        limit = HIP['joint_effort'] / HIP['reduction']
        assert max(lower, -limit) - 1e-12 <= effort <= min(upper, limit) + 1e-12


# ---------------------------------------------------------------------- thermal estimate
def _closed_form(current, t, start=HIP['T_a']):
    steady = HIP['T_a'] + HIP['R_th'] * HIP['R'] * current ** 2
    return steady + (start - steady) * math.exp(-t / HIP['tau'])


def _crossing(current, temperature):
    """Return the time the closed form takes from the ambient to ``temperature``."""
    steady = HIP['T_a'] + HIP['R_th'] * HIP['R'] * current ** 2
    return -HIP['tau'] * math.log((steady - temperature) / (steady - HIP['T_a']))


def test_a_heating_run_follows_the_first_order_closed_form_and_warns_then_errs(robot, clock):
    hw = _hw(robot, clock)
    reports = Reports(clock=clock)
    effort = 0.3                      # N m at the motor: 6 A
    current = effort / HIP['k_t']
    warn_at, error_at = _crossing(current, HIP_WARNING), _crossing(current, HIP['T_max'])
    levels = {}
    lines = []
    start = clock.t
    for n in range(int(error_at / DT) + 20):
        clock.t = start + n * DT
        hw.set_actuator_state(ACTUATORS, [0.0, 0.0], [0.0, 0.0], [effort, 0.0])
        hw.update()
        lines += reports.thermal(hw)
        t = clock.t - start
        temperature = hw.drivetrain.temperature[0]
        assert temperature == pytest.approx(_closed_form(current, t), rel=1e-9), n
        for probe in (warn_at - DT, warn_at + DT, error_at - DT, error_at + DT):
            if abs(t - probe) < DT / 2:
                levels[probe] = _status(hw, '/hw: hip_trans').level
    assert levels == {warn_at - DT: OK, warn_at + DT: WARN, error_at - DT: WARN,
                      error_at + DT: ERROR}
    assert math.isnan(hw.drivetrain.temperature[1])   # the knee has no thermal model
    assert [level for level, _ in lines] == ['warning', 'error']
    assert 'motor hip_motor: estimated winding temperature 85.' in lines[0][1]
    assert 'derating, current limit ' in lines[0][1]
    assert f'at its maximum {HIP["T_max"]:g} C' in lines[1][1]
    assert f'continuous current {HIP_CONTINUOUS:.3g} A' in lines[1][1]
    node = _status(hw, '/hw')
    assert node.level == ERROR and 'hip_motor' in node.message
    values = dict(_status(hw, '/hw: hip_trans').values)
    t_now = float(values['hip_motor.temperature'])
    assert float(values['hip_motor.temperature_headroom']) == pytest.approx(
        HIP['T_max'] - t_now, abs=2e-3)
    assert float(values['hip_motor.current_limit']) == pytest.approx(HIP_CONTINUOUS, rel=1e-5)
    assert values['hip_motor.thermal'] == 'at its maximum temperature'


def test_the_status_reports_the_temperature_at_its_own_time_not_the_last_cycles(robot, clock):
    # a paused executor may publish /diagnostics before the cycles it owes: the estimate is
    # advanced to the message's time at the effort measured then
    hw = _hw(robot, clock)
    effort = 0.3
    current = effort / HIP['k_t']
    start = clock.t
    for n in range(10):
        clock.t = start + n * DT
        hw.set_actuator_state(ACTUATORS, [0.0, 0.0], [0.0, 0.0], [effort, 0.0])
        hw.update()
    clock.t += 0.5                    # no cycle for half a second; the state is still fresh
    hw.set_actuator_state(ACTUATORS, [0.0, 0.0], [0.0, 0.0], [effort, 0.0])
    values = dict(_status(hw, '/hw: hip_trans').values)
    assert float(values['hip_motor.temperature']) == pytest.approx(
        _closed_form(current, clock.t - start), abs=1e-3)


def test_without_a_state_effort_the_last_commanded_effort_heats(robot, clock):
    hw = _hw(robot, clock)
    joint_effort = 16.0
    current = joint_effort / HIP['reduction'] / HIP['k_t']   # 8 A, within every limit
    start = clock.t
    hw.set_joint_command(['hip_joint'], effort=[joint_effort])
    for n in range(500):
        clock.t = start + n * DT
        hw.set_actuator_state(ACTUATORS, [0.0, 0.0], [0.0, 0.0])   # no effort reported
        hw.set_joint_command(['hip_joint'], effort=[joint_effort])
        assert _commands(hw.update())['hip_motor']['effort'] == pytest.approx(current * 0.05)
    # each step heats at the effort commanded in the cycle before
    expected = _closed_form(current, clock.t - start)
    assert hw.drivetrain.temperature[0] == pytest.approx(expected, rel=1e-9)


def test_before_its_first_state_a_motor_holds_then_an_unknown_effort_heats_at_the_peak(
        robot, clock):
    hw = _hw(robot, clock)
    start = clock.t
    for n in range(100):   # nothing heard of the motors: nothing says they are driven
        clock.t = start + n * DT
        hw.update()
    assert hw.drivetrain.temperature[0] == HIP['T_a']
    hw.set_actuator_state(ACTUATORS, [0.0, 0.0])   # positions only, and no command
    for n in range(100, 200):
        clock.t = start + n * DT
        hw.set_actuator_state(ACTUATORS, [0.0, 0.0])
        hw.update()
    # the first step after the state heats from the update before it: 100 steps in all
    assert hw.drivetrain.temperature[0] == pytest.approx(
        _closed_form(HIP_PEAK_CURRENT, 100 * DT), rel=1e-9)


def test_the_derated_current_limit_bounds_effort_commands(robot, clock):
    hw = _hw(robot, clock)
    effort = 0.4   # 8 A: past the warning temperature after about 10 s
    start = clock.t
    t = 0.0
    while hw.drivetrain.temperature[0] < 0.5 * (HIP_WARNING + HIP['T_max']) or t == 0.0:
        clock.t = start + t
        hw.set_actuator_state(ACTUATORS, [0.0, 0.0], [0.0, 0.0], [effort, 0.0])
        hw.update()
        t += DT
    clock.t += DT
    hw.set_actuator_state(ACTUATORS, [0.0, 0.0], [0.0, 0.0], [effort, 0.0])
    hw.set_joint_command(['hip_joint'], effort=[17.0])   # 0.425 N m: within the URDF's 0.45
    out = hw.update()
    temperature = hw.drivetrain.temperature[0]
    share = (temperature - HIP_WARNING) / (HIP['T_max'] - HIP_WARNING)
    allowed = HIP_PEAK_CURRENT - share * (HIP_PEAK_CURRENT - HIP_CONTINUOUS)
    assert allowed * HIP['k_t'] < 17.0 / HIP['reduction']
    assert _commands(out)['hip_motor']['effort'] == pytest.approx(allowed * HIP['k_t'],
                                                                  rel=1e-12)
    assert hw.counters.clamps['actuator_thermal'] == 1
    assert hw.counters.clamps['actuator_torque_speed'] == 0


# ---------------------------------------------------------------------- effort unit
def test_the_current_unit_round_trip_follows_the_torque_constant_and_the_reduction(
        robot, clock):
    hw = _hw(robot, clock, effort_unit='current')
    hw.set_actuator_state(ACTUATORS, [0.0, 0.0], [0.0, 0.0], [4.0, -2.0])   # amperes
    out = hw.update()
    joint_effort = [4.0 * HIP['k_t'] * HIP['reduction'], -2.0 * KNEE['k_t'] * KNEE['reduction']]
    np.testing.assert_allclose(out.joint_states.effort, joint_effort, rtol=1e-12)
    hw.set_joint_command(JOINTS, effort=joint_effort)
    cmd = _commands(hw.update())
    assert cmd['hip_motor']['effort'] == pytest.approx(4.0, rel=1e-12)
    assert cmd['knee_motor']['effort'] == pytest.approx(-2.0, rel=1e-12)
    assert dict(_status(hw, '/hw').values)['actuator_effort_unit'] == 'current'


def test_the_current_unit_needs_a_torque_constant_for_every_actuator(
        robot, clock, example_robot):
    with pytest.raises(TransmissionValueError) as e:
        _hw(example_robot, clock, effort_unit='current')
    for name in example_robot.actuator_names:
        assert name in str(e.value)
    assert 'actuator_effort_unit' in str(e.value) and 'torque constant' in str(e.value)
    knee_without = load_robot_transmissions(
        URDF.replace('<motor torque_constant="0.05">', '<motor>'), warn=False)
    with pytest.raises(TransmissionValueError, match=r'1 of 4 actuators have none: knee_motor'):
        _hw(knee_without, clock, effort_unit='current')
    with pytest.raises(TransmissionValueError, match="one of \\('torque', 'current'\\)"):
        _hw(robot, clock, effort_unit='ampere')


# ---------------------------------------------------------------------- friction compensation
def _joint_friction(v):
    return math.copysign(HIP['joint_coulomb'], v) + HIP['joint_viscous'] * v if v else 0.0


def _motor_friction(v):
    if not v:
        return 0.0
    drop = (HIP['motor_static'] - HIP['motor_coulomb']) * math.exp(
        -(v / HIP['motor_stribeck']) ** 2)
    return math.copysign(HIP['motor_coulomb'] + drop, v) + HIP['motor_viscous'] * v


@pytest.mark.parametrize('commanded, measured', [(1.0, None), (None, -0.1), (None, 0.0),
                                                 (0.05, 2.0)])
def test_friction_compensation_adds_the_formula_at_the_commanded_else_measured_velocity(
        robot, clock, commanded, measured):
    hw = _hw(robot, clock, friction_compensation=True)
    v_state = 0.0 if measured is None else measured
    hw.set_actuator_state(ACTUATORS, [0.0, 0.0], [v_state * HIP['reduction'], 0.0])
    hw.update()   # the measured joint velocity
    fields = {'effort': [2.0]}
    if commanded is not None:
        fields['velocity'] = [commanded]
    hw.set_joint_command(['hip_joint'], **fields)
    clock.t += DT
    hw.set_actuator_state(ACTUATORS, [0.0, 0.0], [v_state * HIP['reduction'], 0.0])
    cmd = _commands(hw.update())['hip_motor']
    v = commanded if commanded is not None else v_state
    expected = (2.0 + _joint_friction(v)) / HIP['reduction'] + _motor_friction(
        v * HIP['reduction'])
    assert cmd['effort'] == pytest.approx(expected, rel=1e-12)
    if v == 0.0:
        assert cmd['effort'] == 2.0 / HIP['reduction']   # at rest nothing is added
    assert hw.counters.compensation_clipped == 0


def test_friction_compensation_never_pushes_a_command_past_a_limit(robot, clock):
    hw = _hw(robot, clock, friction_compensation=True)
    hw.set_actuator_state(ACTUATORS, [0.0, 0.0], [0.0, 0.0])
    hw.set_joint_command(['hip_joint'], velocity=[1.0], effort=[17.5])   # +1.0 N m: 18.5
    cmd = _commands(hw.update())['hip_motor']
    # the joint limit clips it to 18 N m; the motor side's 0.0044 N m then meets the
    # actuator's 0.45 N m: clipped again
    assert cmd['effort'] == pytest.approx(HIP['joint_effort'] / HIP['reduction'], rel=1e-12)
    assert hw.counters.compensation_clipped == 2
    assert hw.counters.clamps['joint_effort'] == 1
    assert dict(_status(hw, '/hw').values)['friction_compensation_clipped'] == '2'
    # switched off at once: the same command, no friction added, nothing clipped
    hw.apply(replace(hw.settings, friction_compensation=False))
    hw.set_joint_command(['hip_joint'], velocity=[1.0], effort=[17.5])
    clock.t += DT
    hw.set_actuator_state(ACTUATORS, [0.0, 0.0], [0.0, 0.0])
    cmd = _commands(hw.update())['hip_motor']
    assert cmd['effort'] == pytest.approx(17.5 / HIP['reduction'], rel=1e-12)
    assert hw.counters.compensation_clipped == 2


# ---------------------------------------------------------------------- no drivetrain data
def test_a_robot_without_drivetrain_data_has_no_drivetrain_part(example_robot, clock):
    assert not example_robot.drivetrain.models_anything
    hw = HardwareInterface(example_robot, clock=clock, friction_compensation=True)
    assert hw.drivetrain is None and hw.commands.drivetrain is None
    keys = {k for r in hw.diagnostics('/hw') for k, _ in r.values}
    assert not {k for k in keys if k.endswith(('.temperature', '.effort_bounds'))}
    assert 'actuator_effort_unit' not in keys


def test_limits_that_do_not_bind_leave_every_output_as_without_drivetrain_data(robot, clock):
    """The drivetrain robot and its twin without drivetrain elements: the same outputs."""
    bare = re.sub(r'<(friction|backlash|motor)\b[^>]*/>', '', URDF)
    bare = re.sub(r'<motor\b.*?</motor>', '', bare, flags=re.DOTALL)
    twin = load_robot_transmissions(bare, warn=False)
    assert not twin.drivetrain.models_anything
    both = [_hw(robot, clock), _hw(twin, clock)]
    assert both[0].drivetrain is not None and both[1].drivetrain is None
    rng = np.random.default_rng(5)
    for _ in range(200):
        clock.t += DT
        state = [rng.uniform(-1, 1, 2).tolist(), rng.uniform(-50, 50, 2).tolist(),
                 rng.uniform(-0.1, 0.1, 2).tolist()]
        command = [rng.uniform(-2, 0.1, 2).tolist(), rng.uniform(-5, 5, 2).tolist(),
                   rng.uniform(-5, 5, 2).tolist()]
        outs = []
        for hw in both:
            hw.set_actuator_state(ACTUATORS, *state)
            hw.set_joint_command(JOINTS, *command)
            outs.append(hw.update())
        a, b = outs
        for field in ('position', 'velocity', 'effort'):
            np.testing.assert_array_equal(getattr(a.joint_states, field),
                                          getattr(b.joint_states, field))
        assert len(a.actuator_commands) == len(b.actuator_commands) == 1
        for field in ('position', 'velocity', 'effort'):
            np.testing.assert_array_equal(getattr(a.actuator_commands[0], field),
                                          getattr(b.actuator_commands[0], field))
    assert both[0].counters.clamps == both[1].counters.clamps
