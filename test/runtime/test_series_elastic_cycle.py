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
Series-elastic transmissions in the hardware interface's cycle, without ROS (issue 36).

The robot is written here: a hip behind a simple 40:1 transmission and a knee behind a
series-elastic one (stiffness 300 N m/rad, damping 2 N m s/rad, reduction 50, the joint-side
encoder ``knee_encoder``).  Every expected number is computed here by hand from those values
(``n (q + tau / k)``, ``k delta + d delta_dot``, ``np.interp`` of the swapped table), never by
the package's own spring functions.
"""

import math

import numpy as np
import pytest
from sea_leg import D
from sea_leg import K
from sea_leg import N
from sea_leg import ROBOT

from transmission_plugins.robot.loading import load_robot_transmissions
from transmission_plugins.runtime.diagnostics import OK
from transmission_plugins.runtime.diagnostics import WARN
from transmission_plugins.runtime.hardware_interface import HardwareInterface

HIP_N = 40.0
#: the knee's limits in the URDF below
KNEE_LOWER, KNEE_UPPER, KNEE_EFFORT = -1.0, 1.0, 30.0
TABLE = {'deflections': [-0.1, 0.0, 0.1], 'torques': [-30.0, 0.0, 20.0]}
LINEAR = '<spring stiffness="300" damping="2"/>'
TABLE_SPRING = '<spring damping="2" deflections="-0.1 0 0.1" torques="-30 0 20"/>'
ACTUATORS = ['hip_motor', 'knee_motor', 'knee_encoder']
DT = 0.01


class FakeClock:
    """A steady clock the test moves by hand."""

    def __init__(self) -> None:
        self.t = 10.0

    def __call__(self) -> float:
        return self.t


def load(spring=LINEAR):
    return load_robot_transmissions(ROBOT.format(spring=spring), warn=False)


@pytest.fixture(scope='module')
def robot():
    return load()


@pytest.fixture
def clock():
    return FakeClock()


def _hw(robot, clock, **changes):
    changes.setdefault('update_rate', 1.0 / DT)
    return HardwareInterface(robot, clock=clock, **changes)


def _state(hw, q=0.2, deflection=0.01, q_dot=0.4, deflection_rate=0.1, effort=True):
    """Store a state of the knee at ``q`` deflected by ``deflection`` (hip at rest)."""
    position = [0.0, N * (q + deflection), q]
    velocity = [0.0, N * (q_dot + deflection_rate), q_dot]
    hw.set_actuator_state(ACTUATORS, position, velocity, [0.5, 0.1, 0.0] if effort else ())


def _commands(output):
    """Return ``{actuator: {field: value}}`` of one cycle's actuator commands."""
    out = {}
    for msg in output:
        for k, name in enumerate(msg.names):
            for field in ('position', 'velocity', 'effort'):
                values = getattr(msg, field)
                if values is not None:
                    out.setdefault(name, {})[field] = float(values[k])
    return out


# ------------------------------------------------------------------------------ commands
def test_an_effort_command_becomes_the_motor_position_that_deflects_the_spring(robot, clock):
    hw = _hw(robot, clock)
    _state(hw, q=0.2)
    hw.update()
    hw.set_joint_command(['hip_joint', 'knee_joint'], effort=[8.0, 6.0])
    sent = _commands(hw.update().actuator_commands)
    assert sent == {'hip_motor': {'effort': pytest.approx(8.0 / HIP_N)},
                    'knee_motor': {'position': pytest.approx(N * (0.2 + 6.0 / K))}}


def test_position_and_effort_give_the_position_target_plus_the_deflection(robot, clock):
    hw = _hw(robot, clock)
    _state(hw, q=0.2)
    hw.update()
    hw.set_joint_command(['knee_joint'], position=[-0.3], effort=[-9.0])
    sent = _commands(hw.update().actuator_commands)
    assert sent == {'knee_motor': {'position': pytest.approx(N * (-0.3 - 9.0 / K))}}


def test_position_and_velocity_commands_map_through_the_reduction(robot, clock):
    hw = _hw(robot, clock)
    _state(hw)
    hw.update()
    hw.set_joint_command(['knee_joint'], position=[0.4], velocity=[0.5])
    assert _commands(hw.update().actuator_commands) == {
        'knee_motor': {'position': pytest.approx(N * 0.4), 'velocity': pytest.approx(N * 0.5)}}
    hw.set_joint_command(['knee_joint'], velocity=[-0.5])
    assert _commands(hw.update().actuator_commands) == {
        'knee_motor': {'velocity': pytest.approx(-N * 0.5)}}


@pytest.mark.parametrize('action', ['hold', 'zero_velocity', 'zero_effort', 'stop'])
@pytest.mark.parametrize('fields', [{'position': [0.1]}, {'velocity': [0.1]},
                                    {'effort': [3.0]},
                                    {'position': [0.1], 'velocity': [0.2], 'effort': [3.0]}])
def test_the_encoder_never_receives_a_command(robot, clock, action, fields):
    hw = _hw(robot, clock, command_timeout=0.05, timeout_action=action)
    for step in range(20):
        _state(hw)
        if step == 1:
            hw.set_joint_command(['knee_joint'], **fields)
        out = hw.update()
        assert all('knee_encoder' not in msg.names for msg in out.actuator_commands), step
        clock.t += DT
    assert hw.commands.expired.any()


def test_an_effort_command_without_a_measured_joint_position_sends_nothing(robot, clock):
    hw = _hw(robot, clock)
    hw.set_joint_command(['knee_joint'], effort=[6.0])
    assert hw.update().actuator_commands == []
    assert hw.series_elastic.unmeasured == 1
    node = hw.diagnostics('hw')[0]
    assert dict(node.values)['unmeasured_effort_commands'] == '1'
    _state(hw, q=0.2)     # measured now: the same command goes out
    assert _commands(hw.update().actuator_commands) == {
        'knee_motor': {'position': pytest.approx(N * (0.2 + 6.0 / K))}}


def test_the_target_uses_the_table_springs_inverse(clock):
    hw = _hw(load(TABLE_SPRING), clock)
    _state(hw, q=0.2)
    hw.update()
    for tau in (10.0, -12.0, 20.0, 25.0):   # 25: beyond the table, its end segment extended
        hw.set_joint_command(['knee_joint'], effort=[tau])
        target = _commands(hw.update().actuator_commands)['knee_motor']['position']
        inside = float(np.interp(tau, TABLE['torques'], TABLE['deflections']))
        slope = (0.1 - 0.0) / (20.0 - 0.0)   # the last segment's deflection per torque
        delta = inside if tau <= 20.0 else 0.1 + (tau - 20.0) * slope
        assert target == pytest.approx(N * (0.2 + delta), rel=1e-12), tau


def test_the_effort_limit_clamps_before_the_target(robot, clock):
    hw = _hw(robot, clock)
    _state(hw, q=0.2)
    hw.update()
    hw.set_joint_command(['knee_joint'], effort=[100.0])
    sent = _commands(hw.update().actuator_commands)
    assert sent['knee_motor']['position'] == pytest.approx(N * (0.2 + KNEE_EFFORT / K))
    assert hw.counters.clamps['joint_effort'] == 1
    assert hw.counters.clamps['actuator_position'] == 0


def test_the_motor_range_lets_the_full_deflection_through(robot, clock):
    hw = _hw(robot, clock)
    _state(hw, q=0.9)
    hw.update()
    # at the joint's upper limit, the effort limit's deflection beyond n times the limit
    hw.set_joint_command(['knee_joint'], position=[KNEE_UPPER], effort=[KNEE_EFFORT])
    target = _commands(hw.update().actuator_commands)['knee_motor']['position']
    assert target == pytest.approx(N * (KNEE_UPPER + KNEE_EFFORT / K))
    assert target > N * KNEE_UPPER
    hw.set_joint_command(['knee_joint'], position=[KNEE_LOWER], effort=[-KNEE_EFFORT])
    target = _commands(hw.update().actuator_commands)['knee_motor']['position']
    assert target == pytest.approx(N * (KNEE_LOWER - KNEE_EFFORT / K))
    assert hw.counters.clamps['actuator_position'] == 0
    lo, hi = hw.series_elastic.motor_range[0]
    assert (lo, hi) == pytest.approx((N * (KNEE_LOWER - KNEE_EFFORT / K),
                                      N * (KNEE_UPPER + KNEE_EFFORT / K)))


def test_a_position_command_still_respects_the_joint_limits(robot, clock):
    hw = _hw(robot, clock)
    _state(hw, q=0.9)
    hw.update()
    hw.set_joint_command(['knee_joint'], position=[3.0])
    assert _commands(hw.update().actuator_commands) == {
        'knee_motor': {'position': pytest.approx(N * KNEE_UPPER)}}
    assert hw.counters.clamps['joint_position'] == 1
    # an effort command at a measured position beyond the limit: the target of the limit
    # effort there is still within the widened range (the motor's, clamped and counted)
    _state(hw, q=1.4)
    hw.update()
    hw.set_joint_command(['knee_joint'], effort=[KNEE_EFFORT])
    target = _commands(hw.update().actuator_commands)['knee_motor']['position']
    assert target == pytest.approx(N * (KNEE_UPPER + KNEE_EFFORT / K))
    assert hw.counters.clamps['actuator_position'] == 1


def test_hold_keeps_the_last_motor_target(robot, clock):
    hw = _hw(robot, clock, command_timeout=0.05, timeout_action='hold')
    _state(hw, q=0.2, deflection=0.0)
    hw.update()
    hw.set_joint_command(['knee_joint'], effort=[6.0])
    target = N * (0.2 + 6.0 / K)
    sent = []
    for _ in range(15):
        clock.t += DT
        _state(hw, q=0.2, deflection=0.0)   # the motor has not moved: held is not measured
        sent.append(_commands(hw.update().actuator_commands))
    assert hw.commands.expired.any()
    assert all(s == {'knee_motor': {'position': pytest.approx(target)}} for s in sent), sent


# ------------------------------------------------------------------------------ states
def test_joint_states_carry_the_spring_torque_without_actuator_efforts(robot, clock):
    hw = _hw(robot, clock)
    # the hip's driver reports an effort, the knee's (motor and encoder) none
    hw.set_actuator_state(['hip_motor'], [4.0], [0.0], [0.5])
    hw.set_actuator_state(['knee_motor', 'knee_encoder'], [N * (0.2 + 0.01), 0.2],
                          [N * (0.4 + 0.1), 0.4])
    out = hw.update().joint_states
    assert out.names == ['hip_joint', 'knee_joint']
    assert out.effort.tolist() == pytest.approx([HIP_N * 0.5, K * 0.01 + D * 0.1])
    assert hw.counters.non_finite_outputs == 0


def test_no_effort_field_at_all_leaves_joint_states_effort_out_never_nan(robot, clock):
    hw = _hw(robot, clock)
    _state(hw, effort=False)
    out = hw.update().joint_states
    assert out.names == ['hip_joint', 'knee_joint'] and out.effort is None
    assert hw.counters.non_finite_outputs == 0
    deflections = hw.joint_deflections()
    assert deflections.effort.tolist() == pytest.approx([K * 0.01 + D * 0.1])


def test_joint_deflections_by_hand(robot, clock):
    hw = _hw(robot, clock)
    _state(hw, q=-0.3, deflection=-0.02, q_dot=0.2, deflection_rate=0.05)
    hw.update()
    out = hw.joint_deflections()
    assert out.names == ['knee_joint']
    assert out.position.tolist() == pytest.approx([-0.02])
    assert out.velocity.tolist() == pytest.approx([0.05])
    assert out.effort.tolist() == pytest.approx([K * -0.02 + D * 0.05])
    # a missing velocity: the deflection rate and the torque are unknown, nothing listed
    hw.set_actuator_state(ACTUATORS, [0.0, N * -0.32, -0.3])
    hw.update()
    assert hw.joint_deflections() is None


def test_a_stale_encoder_makes_the_spring_joint_stale(robot, clock):
    hw = _hw(robot, clock, stale_joints='omit', state_timeout=0.05)
    _state(hw)
    assert hw.update().joint_states.names == ['hip_joint', 'knee_joint']
    for _ in range(10):
        clock.t += DT
        hw.set_actuator_state(['hip_motor', 'knee_motor'], [0.0, N * 0.21], [0.0, 0.0])
        out = hw.update().joint_states
    assert out.names == ['hip_joint']
    assert hw.joint_deflections() is None


# ------------------------------------------------------------------------------ diagnostics
def test_diagnostics_give_the_deflection_and_warn_beyond_the_table(clock):
    hw = _hw(load(TABLE_SPRING), clock)
    _state(hw, q=0.2, deflection=0.05, deflection_rate=0.0)
    hw.update()
    records = hw.diagnostics('hw')
    sea = next(r for r in records if r.name == 'hw: knee_sea')
    values = dict(sea.values)
    assert sea.level == OK
    assert float(values['knee_joint.deflection']) == pytest.approx(0.05)
    assert float(values['knee_joint.spring_torque']) == pytest.approx(10.0)   # 0.05 * 200
    assert values['knee_joint.deflection_range'] == '-0.1 0.1'
    _state(hw, q=0.2, deflection=0.15, deflection_rate=0.0)
    hw.update()
    sea = next(r for r in hw.diagnostics('hw') if r.name == 'hw: knee_sea')
    assert sea.level == WARN and 'extrapolated' in sea.message
    assert float(dict(sea.values)['knee_joint.spring_torque']) == pytest.approx(30.0)


def test_a_linear_spring_has_no_deflection_range(robot, clock):
    hw = _hw(robot, clock)
    _state(hw)
    hw.update()
    values = dict(next(r for r in hw.diagnostics('hw') if r.name == 'hw: knee_sea').values)
    assert 'knee_joint.deflection_range' not in values
    assert float(values['knee_joint.deflection']) == pytest.approx(0.01)


# ------------------------------------------------------------------------------ no spring
def test_a_robot_without_a_spring_runs_the_cycle_it_ran_before(clock):
    text = ROBOT.split('  <transmission name="knee_sea">')[0] + """\
  <transmission name="knee_trans">
    <type>transmission_interface/SimpleTransmission</type>
    <joint name="knee_joint"><hardwareInterface>hardware_interface/EffortJointInterface\
</hardwareInterface></joint>
    <actuator name="knee_motor"><mechanicalReduction>50</mechanicalReduction></actuator>
  </transmission>
</robot>
"""
    robot = load_robot_transmissions(text, warn=False)
    hw = _hw(robot, clock, command_timeout=0.05, timeout_action='hold')
    assert hw.series_elastic is None and hw.commands.series_elastic is None
    assert hw.states.effort_from_motion is None and not hw.has_springs
    assert hw.joint_deflections() is None
    lo, hi = hw.commands.direction.target_limits.stacked()
    assert np.array_equal(hw.commands._target_bounds[0], lo)
    assert np.array_equal(hw.commands._target_bounds[1], hi)
    hw.set_actuator_state(['hip_motor', 'knee_motor'], [4.0, 10.0], [1.0, 5.0], [0.5, 0.1])
    out = hw.update()
    assert out.joint_states.effort.tolist() == pytest.approx([HIP_N * 0.5, N * 0.1])
    hw.set_joint_command(['hip_joint', 'knee_joint'], position=[0.1, 0.3], effort=[8.0, 6.0])
    assert _commands(hw.update().actuator_commands) == {
        'hip_motor': {'position': pytest.approx(HIP_N * 0.1), 'effort': pytest.approx(0.2)},
        'knee_motor': {'position': pytest.approx(N * 0.3), 'effort': pytest.approx(6.0 / N)}}
    clock.t += 0.1   # hold: the measured actuator positions
    assert _commands(hw.update().actuator_commands) == {
        'hip_motor': {'position': 4.0}, 'knee_motor': {'position': 10.0}}
    assert 'unmeasured_effort_commands' not in dict(hw.diagnostics('hw')[0].values)
    assert math.isfinite(out.joint_states.position[0])


@pytest.mark.parametrize('spring', [LINEAR, TABLE_SPRING])
def test_random_commands_stay_within_the_hand_computed_motor_range(spring, clock):
    # the motor's range: n (joint limit + the deflection of the effort limit), by hand
    if spring == LINEAR:
        reach = (-KNEE_EFFORT / K, KNEE_EFFORT / K)
    else:   # the table's end segments extended: -30 N m at -0.1, 30 N m at 0.1 + 10 / 200
        reach = (-0.1, 0.1 + (KNEE_EFFORT - 20.0) * 0.1 / 20.0)
    low, high = N * (KNEE_LOWER + reach[0]), N * (KNEE_UPPER + reach[1])
    rng = np.random.default_rng(36)
    hw = _hw(load(spring), clock, command_timeout=0.05, timeout_action='hold')
    live, beyond = {}, 0
    for step in range(300):
        clock.t += DT
        _state(hw, q=rng.uniform(-3.0, 3.0), deflection=rng.uniform(-0.3, 0.3))
        fields = {f: [rng.uniform(-5.0, 5.0) * scale]
                  for f, scale in (('position', 1.0), ('velocity', 5.0), ('effort', 30.0))
                  if rng.uniform() < 0.5}
        if fields and step % 7:
            hw.set_joint_command(['knee_joint'], **fields)
            live = fields
        sent = _commands(hw.update().actuator_commands)
        assert 'knee_encoder' not in sent
        motor = sent.get('knee_motor', {})
        assert 'effort' not in motor            # never an effort: a deflection target
        if 'position' in motor:
            assert low - 1e-9 <= motor['position'] <= high + 1e-9, (step, live, motor)
            beyond += not N * KNEE_LOWER <= motor['position'] <= N * KNEE_UPPER
            if 'effort' not in live and not hw.commands.expired.any():
                # a position command alone: within n times the joint limits
                assert N * KNEE_LOWER - 1e-9 <= motor['position'] <= N * KNEE_UPPER + 1e-9
    assert beyond > 10   # the deflection beyond n times the joint limits got through
