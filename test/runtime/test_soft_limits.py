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
Soft limits, effort at the limits and rate limits on a table of cases (issue 26, item 3).

Every expected value below is worked out by hand from the formulas of ROS 1's soft-limit handles
and ros2_control's JointSoftLimiter as doc/calibration.md states them, for one joint: position
limits [-1, 1], velocity limit 2, effort limit 10, ``<safety_controller soft_lower_limit="-0.8"
soft_upper_limit="0.8" k_position="10" k_velocity="5"/>``, behind a 10:1 simple transmission,
at 100 Hz (dt = 0.01 s).  The measured joint state comes through the actuator state, the command
through ``joint_commands``; the joint command sent is read back from the actuator command.
"""

from dataclasses import replace
import math
import warnings

import numpy as np
import pytest

from transmission_plugins.core.exceptions import TransmissionValueError
from transmission_plugins.robot.loading import load_robot_transmissions
from transmission_plugins.runtime.hardware_interface import HardwareInterface

SAFETY = ('<safety_controller soft_lower_limit="-0.8" soft_upper_limit="0.8" k_position="10" '
          'k_velocity="5"/>')


def urdf(safety=SAFETY):
    return (
        '<robot name="soft"><link name="a"/><link name="b"/>'
        '<joint name="j" type="revolute"><parent link="a"/><child link="b"/>'
        f'<limit lower="-1" upper="1" velocity="2" effort="10"/>{safety}</joint>'
        '<transmission name="t"><type>transmission_interface/SimpleTransmission</type>'
        '<joint name="j"><hardwareInterface>EffortJointInterface</hardwareInterface></joint>'
        '<actuator name="m"><mechanicalReduction>10</mechanicalReduction></actuator>'
        '</transmission></robot>')


class Clock:
    t = 100.0

    def __call__(self):
        return self.t


def interface(safety=SAFETY, **kwargs):
    clock = Clock()
    hw = HardwareInterface(load_robot_transmissions(urdf(safety), warn=False),
                           command_timeout=0.0, state_timeout=0.0, clock=clock, **kwargs)
    hw.apply(replace(hw.settings, update_rate=100.0))
    return hw, clock


def command(hw, clock, q, v, field, value):
    """Measure (q, v), command ``field`` = value, run a cycle; return the joint command sent."""
    hw.set_actuator_state(['m'], [10.0 * q], [10.0 * v], [0.0])
    hw.set_joint_command(['j'], **{field: [value]})
    (out,) = hw.update().actuator_commands
    clock.t += 0.01
    # theta = 10 q, u = tau / 10
    return float(getattr(out, field)[0]) * (10.0 if field == 'effort' else 0.1)


# (what, q, v, field, command, expected, kind counted or None)
CASES = [
    ('velocity inside the soft range', 0.0, 0.0, 'velocity', 1.5, 1.5, None),
    # v_hi = clamp(-10 (0.7 - 0.8), -2, 2) = 1.0
    ('velocity near the soft upper limit', 0.7, 0.0, 'velocity', 1.5, 1.0, 'soft_velocity'),
    # beyond the soft limit: v_hi = -10 (0.85 - 0.8) = -0.5, the joint must move back
    ('velocity beyond the soft limit', 0.85, 0.0, 'velocity', 0.5, -0.5, 'soft_velocity'),
    # -2.5 -> -2 (hard), then v_lo = -10 (-0.75 + 0.8) = -0.5
    ('velocity near the soft lower limit', -0.75, 0.0, 'velocity', -2.5, -0.5,
     'soft_velocity'),
    # first command: reference = measured 0, v_hi(0) = 2: upper bound 0 + 2 * 0.01
    ('position step', 0.0, 0.0, 'position', 0.5, 0.02, 'soft_position'),
    ('position within one step', 0.0, 0.0, 'position', 0.01, 0.01, None),
    # v_hi(0.79) = 0.1: upper bound 0.79 + 0.1 * 0.01
    ('position near the soft limit', 0.79, 0.0, 'position', 0.9, 0.791, 'soft_position'),
    # e in [clamp(-5 (0 + 2)), clamp(-5 (0 - 2))] = [-10, 10]
    ('effort at rest inside the range', 0.0, 0.0, 'effort', 5.0, 5.0, None),
    # v_hi(0.7) = 1: e_hi = -5 (0.5 - 1) = 2.5
    ('effort moving towards the soft limit', 0.7, 0.5, 'effort', 8.0, 2.5, 'soft_effort'),
    # v_lo(0.9) = -2, v_hi(0.9) = -1: e in [clamp(-11), -5 (0.2 + 1)] = [-10, -6]
    ('effort beyond the soft limit', 0.9, 0.2, 'effort', -3.0, -6.0, 'soft_effort'),
]


@pytest.mark.parametrize('what, q, v, field, value, expected, kind', CASES,
                         ids=[c[0] for c in CASES])
def test_soft_limit_table(what, q, v, field, value, expected, kind):
    hw, clock = interface()
    sent = command(hw, clock, q, v, field, value)
    assert sent == pytest.approx(expected, rel=1e-9, abs=1e-12), what
    counted = {k: n for k, n in hw.counters.clamps.items() if n and not k.startswith('actuator')}
    if kind is None:
        assert not any(k.startswith('joint_soft') for k in counted), counted
    else:
        assert counted.get(f'joint_{kind}') == 1, counted
        assert hw.counters.kind_clamps['joint'][0].sum() >= 1
        (status,) = hw.diagnostics('hw')[1:]
        assert dict(status.values)[f'clamped.j.{kind}'] == '1'


def test_position_commands_ramp_from_the_previous_command():
    hw, clock = interface()
    sent = [command(hw, clock, 0.0, 0.0, 'position', 0.5) for _ in range(5)]
    # the reference is the previous command (ROS 1's open loop), not the measured 0
    assert sent == pytest.approx([0.02, 0.04, 0.06, 0.08, 0.10])


def test_effort_is_not_blocked_inside_the_range_without_soft_limits():
    hw, clock = interface(safety='')
    assert command(hw, clock, 0.95, 1.0, 'effort', 9.0) == pytest.approx(9.0)
    assert sum(hw.counters.clamps.values()) == 0
    # beyond the position limit, moving out: no effort further out, safety controller or not
    # (issue 34, as ros2_control's compute_effort_limits); back in is free
    assert command(hw, clock, 1.2, 1.0, 'effort', 9.0) == pytest.approx(0.0)
    assert command(hw, clock, 1.2, 1.0, 'effort', -9.0) == pytest.approx(-9.0)
    assert hw.counters.clamps['joint_effort'] == 1


def position_only(hw, clock, q, field, value):
    """Measure the position only (a position-only driver), command ``field``, run a cycle."""
    hw.set_actuator_state(['m'], [10.0 * q])
    hw.set_joint_command(['j'], **{field: [value]})
    (out,) = hw.update().actuator_commands
    clock.t += 0.01
    return float(getattr(out, field)[0]) * (10.0 if field == 'effort' else 0.1)


def test_rate_limits_hold_without_a_measured_velocity():
    # issue 34 G-2: with no velocity in the actuator states, max_acceleration 10 let a velocity
    # command of 1 rad/s through at once; an unknown velocity starts from rest
    limits = {'j': {'has_acceleration_limits': True, 'max_acceleration': 10.0}}
    hw, clock = interface(safety='', joint_limits=limits)
    sent = [position_only(hw, clock, 0.0, 'velocity', 1.0) for _ in range(3)]
    assert sent == pytest.approx([0.1, 0.2, 0.3])
    # G-3: after a pause longer than three periods the ramp starts again from rest
    clock.t += 0.5
    assert position_only(hw, clock, 0.0, 'velocity', 1.0) == pytest.approx(0.1)
    # and a position command's implied velocity too
    hw, clock = interface(safety='', joint_limits=limits)
    assert position_only(hw, clock, 0.0, 'position', 0.5) == pytest.approx(0.1 * 0.01)


def test_soft_limits_hold_before_the_first_state():
    # issue 34 G-4: a position command before any actuator state skipped the soft limits
    hw, clock = interface()
    hw.set_joint_command(['j'], [0.95])
    (out,) = hw.update().actuator_commands
    assert float(out.position[0]) * 0.1 == pytest.approx(0.8)
    assert hw.counters.clamps['joint_soft_position'] == 1


@pytest.mark.parametrize('safety', [SAFETY, '<safety_controller k_velocity="100"/>', ''])
def test_no_effort_outward_at_a_position_limit_when_the_velocity_is_unknown(safety):
    # issue 34 G-5: at the hard limit with no measured velocity, 90 % of the effort limit went
    # out, further out
    hw, clock = interface(safety=safety)
    assert position_only(hw, clock, 1.0, 'effort', 9.0) == pytest.approx(0.0)
    assert position_only(hw, clock, 1.05, 'effort', 9.0) == pytest.approx(0.0)
    assert position_only(hw, clock, 1.05, 'effort', -9.0) <= 0.0   # back in: allowed
    assert position_only(hw, clock, -1.0, 'effort', -9.0) == pytest.approx(0.0)


def test_velocity_commands_stop_at_the_hard_position_limits():
    # issue 34: a joint without a <safety_controller> at q = 1.05, beyond its upper limit 1,
    # commanded +1.0, was sent +1.0; ros2_control's limiter sends 0 there and bounds the
    # velocity by (upper - q) / dt near it
    hw, clock = interface(safety='')
    assert command(hw, clock, 1.05, 0.0, 'velocity', 1.0) == pytest.approx(0.0)
    assert command(hw, clock, 1.05, 0.0, 'velocity', -0.3) == pytest.approx(-0.3)  # back in
    assert command(hw, clock, 0.998, 0.0, 'velocity', 1.5) == pytest.approx(0.2)   # 0.002/0.01
    assert command(hw, clock, -1.2, 0.0, 'velocity', -1.0) == pytest.approx(0.0)
    assert position_only(hw, clock, 1.05, 'velocity', 1.0) == pytest.approx(0.0)
    assert hw.counters.clamps['joint_velocity'] == 4
    # with a <safety_controller> the soft limits already send the joint back from there
    hw, clock = interface()
    assert command(hw, clock, 1.05, 0.0, 'velocity', 1.0) < 0.0


def test_no_effort_outward_at_a_position_limit():
    # no soft position limits and a stiff k_velocity: the soft effort bounds are the hard ones
    # at these speeds, and ros2_control's compute_effort_limits acts at the position limits
    hw, clock = interface(safety='<safety_controller k_velocity="100"/>')
    assert command(hw, clock, 0.5, 0.3, 'effort', 9.0) == pytest.approx(9.0)   # inside
    assert command(hw, clock, 1.0, 0.3, 'effort', 9.0) == pytest.approx(0.0)   # at the limit
    assert command(hw, clock, 1.0, 0.3, 'effort', -9.0) == pytest.approx(-9.0)  # back inside
    assert command(hw, clock, -1.1, -0.1, 'effort', -4.0) == pytest.approx(0.0)
    assert hw.counters.clamps['joint_effort'] == 2
    # beyond the velocity limit: -100 (2.5 - 2) = -50 -> -10 brakes
    assert command(hw, clock, 0.0, 2.5, 'effort', 4.0) == pytest.approx(-10.0)


def test_acceleration_deceleration_and_jerk_limits():
    limits = {'j': {'has_acceleration_limits': True, 'max_acceleration': 10.0,
                    'has_deceleration_limits': True, 'max_deceleration': 40.0}}
    hw, clock = interface(safety='', joint_limits=limits)
    # from rest: at most 10 * 0.01 per cycle
    assert [command(hw, clock, 0.0, 0.0, 'velocity', 1.0) for _ in range(3)] == \
        pytest.approx([0.1, 0.2, 0.3])
    assert hw.counters.clamps['joint_acceleration'] == 3
    # slowing down (towards zero) at the deceleration limit: 40 * 0.01 per cycle
    assert command(hw, clock, 0.0, 0.3, 'velocity', 0.0) == pytest.approx(0.0)
    hw, clock = interface(safety='', joint_limits=limits)
    assert command(hw, clock, 0.0, 1.0, 'velocity', 0.0) == pytest.approx(0.6)
    assert hw.counters.clamps['joint_deceleration'] == 1
    # a position command: its implied velocity is rate limited the same way
    hw, clock = interface(safety='', joint_limits=limits)
    assert command(hw, clock, 0.0, 0.0, 'position', 0.5) == pytest.approx(0.1 * 0.01)
    jerk = {'j': {'has_jerk_limits': True, 'max_jerk': 1000.0}}
    hw, clock = interface(safety='', joint_limits=jerk)
    # the implied acceleration grows by at most 1000 * 0.01 = 10 per cycle: 0.1, 0.3, 0.6
    assert [command(hw, clock, 0.0, 0.0, 'velocity', 5.0) for _ in range(3)] == \
        pytest.approx([0.1, 0.3, 0.6])
    assert hw.counters.clamps['joint_jerk'] == 3


@pytest.mark.parametrize('limits', [{}, {'j': {'has_jerk_limits': True, 'max_jerk': 1.0}}])
def test_huge_velocity_commands_give_no_overflow_warning(limits):
    """A rate that overflows is taken as unknown, silently (the node fuzz test warned)."""
    fast = urdf('').replace('velocity="2"', 'velocity="1.5e308"').replace(
        'EffortJointInterface', 'VelocityJointInterface').replace('>10<', '>1<')
    clock = Clock()
    hw = HardwareInterface(load_robot_transmissions(fast, warn=False), command_timeout=0.0,
                           state_timeout=0.0, clock=clock, joint_limits=limits)
    hw.apply(replace(hw.settings, update_rate=100.0))
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        for value in (1e308, -1e308, 1e308):
            hw.set_actuator_state(['m'], [0.0], [0.0], [0.0])
            hw.set_joint_command(['j'], velocity=[value])
            (out,) = hw.update().actuator_commands
            assert np.isfinite(out.velocity).all()
            clock.t += 0.01


def test_soft_limits_can_be_switched_off():
    hw, clock = interface(soft_limits=False)
    assert command(hw, clock, 0.7, 0.0, 'velocity', 1.5) == pytest.approx(1.5)
    hw.apply(replace(hw.settings, soft_limits=True))
    assert command(hw, clock, 0.7, 0.0, 'velocity', 1.5) == pytest.approx(1.0)


@pytest.mark.parametrize('limits, match', [
    ({'nope': {'has_jerk_limits': True}}, 'joint_limits.nope'),
    ({'j': {'max_speed': 1.0}}, 'joint_limits.j.max_speed'),
    ({'j': {'has_acceleration_limits': True}}, 'joint_limits.j.max_acceleration'),
    ({'j': {'has_acceleration_limits': 1}}, 'true or false'),
])
def test_bad_joint_limits_parameters_are_named(limits, match):
    with pytest.raises(TransmissionValueError, match=match):
        interface(joint_limits=limits)


@pytest.mark.parametrize('safety, match', [
    ('<safety_controller k_velocity="x"/>', '/safety_controller/@k_velocity'),
    ('<safety_controller k_position="-1" k_velocity="1"/>', 'gain >= 0'),
    ('<safety_controller soft_lower_limit="1" soft_upper_limit="-1" k_velocity="1"/>',
     'soft_lower_limit <= soft_upper_limit'),
])
def test_bad_safety_controllers_name_the_element(safety, match):
    with pytest.raises(Exception, match=match):
        load_robot_transmissions(urdf(safety), warn=False)


def test_a_safety_controller_is_read():
    robot = load_robot_transmissions(urdf(), warn=False)
    np.testing.assert_array_equal(robot.joint_soft_limits, [[-0.8, 0.8, 10.0, 5.0]])
    robot = load_robot_transmissions(urdf('<safety_controller k_position="3"/>'), warn=False,
                                     lenient=True)
    assert math.isnan(robot.joint_soft_limits[0, 3])
    assert any('k_velocity' in w for w in robot.warnings)
