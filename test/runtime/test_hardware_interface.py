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
The hardware interface's per-cycle logic, without ROS.

A small hand-built robot (one simple and one differential transmission, known limits) makes
the expected numbers easy to compute by hand; the bundled example robot checks the real loader.
"""

from dataclasses import replace
import math

import numpy as np
import pytest

from transmission_plugins import DifferentialTransmission
from transmission_plugins import SimpleTransmission
from transmission_plugins.core.exceptions import TransmissionError
from transmission_plugins.core.exceptions import TransmissionInputError
from transmission_plugins.core.exceptions import TransmissionValueError
from transmission_plugins.robot.robot_transmissions import RobotTransmission
from transmission_plugins.robot.robot_transmissions import RobotTransmissions
from transmission_plugins.runtime.diagnostics import OK
from transmission_plugins.runtime.diagnostics import STALE
from transmission_plugins.runtime.diagnostics import WARN
from transmission_plugins.runtime.hardware_interface import HardwareInterface
from transmission_plugins.runtime.messages import InputRejected
from transmission_plugins.urdf.joints import UrdfJoint
from transmission_plugins.urdf.records import ActuatorInfo


class FakeClock:
    """A steady clock the test moves by hand."""

    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def two_transmission_robot():
    """Return a robot of one simple and one differential transmission, with known limits."""
    records = [
        RobotTransmission('simple_trans', 'transmission_interface/SimpleTransmission',
                          SimpleTransmission(10.0, 0.5), ('j_simple',), ('m_simple',)),
        RobotTransmission('diff_trans', 'transmission_interface/DifferentialTransmission',
                          DifferentialTransmission((5.0, 5.0), (1.0, 1.0)), ('j_d1', 'j_d2'),
                          ('m_d1', 'm_d2')),
    ]
    joints = [UrdfJoint('j_simple', 'revolute', -1.0, 1.0, 3.0, 20.0),
              UrdfJoint('j_d1', 'revolute', -2.0, 2.0, 3.0, 50.0),
              UrdfJoint('j_d2', 'revolute', -2.0, 2.0, 3.0, 50.0)]
    info = {name: ActuatorInfo(name, effort_limit=limit)
            for name, limit in (('m_simple', 1.5), ('m_d1', 8.0), ('m_d2', 8.0))}
    return RobotTransmissions(records, joints, actuator_info=info, robot_name='fake_robot')


@pytest.fixture
def clock():
    return FakeClock()


@pytest.fixture
def hw(clock):
    return HardwareInterface(two_transmission_robot(), state_timeout=0.1, command_timeout=0.5,
                             enforce_limits=True, clock=clock)


def _state(hw, pos=(4.0, 5.0, 5.0), vel=(1.0, 0.0, 0.0), eff=(1.0, 1.0, 1.0)):
    # j_simple at 0.9, inside its limits [-1, 1] (beyond them, outward commands are held back)
    hw.set_actuator_state(['m_simple', 'm_d1', 'm_d2'], pos, vel, eff)


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


def _finite(out):
    arrays = []
    if out.joint_states is not None:
        arrays += [out.joint_states.position, out.joint_states.velocity,
                   out.joint_states.effort]
    for g in out.actuator_commands:
        arrays += [g.position, g.velocity, g.effort]
    return all(a is None or np.isfinite(a).all() for a in arrays)


# ---------------------------------------------------------------------- conversion
def test_joint_states_follow_the_transmission_maths(hw):
    _state(hw)
    js = hw.update().joint_states
    assert js.names == ['j_simple', 'j_d1', 'j_d2']
    # simple: q = theta / n + offset; differential: q1 = (t1/5 + t2/5) / 2, q2 = (t1/5 - t2/5) / 2
    np.testing.assert_allclose(js.position, [4.0 / 10.0 + 0.5, 1.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(js.velocity, [0.1, 0.0, 0.0], atol=1e-12)
    # simple: tau = n u; differential: tau1 = 5 (u1 + u2), tau2 = 5 (u1 - u2)
    np.testing.assert_allclose(js.effort, [10.0, 10.0, 0.0], atol=1e-12)


def test_no_state_means_no_joint_states(hw):
    out = hw.update()
    assert out.joint_states is None
    assert out.actuator_commands == []


def test_partial_state_publishes_complete_transmissions_only(hw):
    hw.set_actuator_state(['m_simple', 'm_d1'], [10.0, 5.0])
    js = hw.update().joint_states
    assert js.names == ['j_simple']
    assert js.velocity is None and js.effort is None
    np.testing.assert_allclose(js.position, [1.5])


def test_position_command_reaches_actuators_in_actuator_units(hw):
    _state(hw)
    hw.set_joint_command(['j_simple', 'j_d1', 'j_d2'], [0.7, 0.5, 0.25])
    cmd = _commands(hw.update())
    assert cmd['m_simple'] == {'position': pytest.approx((0.7 - 0.5) * 10.0)}
    assert cmd['m_d1']['position'] == pytest.approx(5.0 * (0.5 + 0.25))
    assert cmd['m_d2']['position'] == pytest.approx(5.0 * (0.5 - 0.25))


def test_subset_command_leaves_incomplete_transmissions_alone(hw):
    _state(hw)
    hw.set_joint_command(['j_simple', 'j_d1'], [0.7, 0.5])
    cmd = _commands(hw.update())
    assert set(cmd) == {'m_simple'}
    assert hw.counters.incomplete_commands == 1


def test_mixed_fields_are_grouped_per_message(hw):
    _state(hw)
    hw.set_joint_command(['j_simple'], velocity=[0.2])
    hw.set_joint_command(['j_d1', 'j_d2'], [0.1, 0.1], [0.0, 0.0])
    out = hw.update()
    assert len(out.actuator_commands) == 2
    for g in out.actuator_commands:
        assert all(a is None or len(a) == len(g.names) for a in (g.position, g.velocity, g.effort))
    cmd = _commands(out)
    assert cmd['m_simple'] == {'velocity': pytest.approx(2.0)}
    assert set(cmd['m_d1']) == {'position', 'velocity'}


def test_new_command_replaces_every_field_of_its_joints(hw):
    _state(hw)
    hw.set_joint_command(['j_simple'], [0.7], [0.1])
    hw.set_joint_command(['j_simple'], effort=[1.0])
    assert _commands(hw.update())['m_simple'] == {'effort': pytest.approx(0.1)}


def test_array_command_uses_the_joints_order(clock):
    hw = HardwareInterface(two_transmission_robot(), command_joints=['j_d2', 'j_d1', 'j_simple'],
                           clock=clock)
    _state(hw)
    hw.set_interface_command('position', [0.25, 0.5, 0.7])
    cmd = _commands(hw.update())
    assert cmd['m_simple']['position'] == pytest.approx(2.0)
    assert cmd['m_d1']['position'] == pytest.approx(3.75)
    with pytest.raises(InputRejected):
        hw.set_interface_command('position', [0.25, 0.5])
    assert hw.drops['position_commands'] == {'length_mismatch': 1}


# ---------------------------------------------------------------------- limits
def test_position_velocity_effort_commands_are_clamped_and_counted(hw):
    _state(hw)
    hw.set_joint_command(['j_simple', 'j_d1', 'j_d2'], [5.0, -9.0, 0.0])
    cmd = _commands(hw.update())
    assert cmd['m_simple']['position'] == pytest.approx((1.0 - 0.5) * 10.0)
    assert cmd['m_d1']['position'] == pytest.approx(5.0 * -2.0)
    assert hw.counters.clamps['joint_position'] == 2
    hw.set_joint_command(['j_simple'], velocity=[-10.0])
    assert _commands(hw.update())['m_simple']['velocity'] == pytest.approx(-30.0)
    assert hw.counters.clamps['joint_velocity'] == 1
    hw.set_joint_command(['j_simple'], effort=[100.0])
    # joint effort clamped to 20 -> 2.0 at the actuator, then to the actuator limit 1.5
    assert _commands(hw.update())['m_simple']['effort'] == pytest.approx(1.5)
    assert hw.counters.clamps['joint_effort'] == 1
    assert hw.counters.clamps['actuator_effort'] == 1
    assert hw.counters.joint_clamps[0] == 3


def test_limits_off_passes_commands_through(clock):
    hw = HardwareInterface(two_transmission_robot(), enforce_limits=False, clock=clock)
    _state(hw)
    hw.set_joint_command(['j_simple'], [5.0])
    assert _commands(hw.update())['m_simple']['position'] == pytest.approx(45.0)
    assert sum(hw.counters.clamps.values()) == 0


# ---------------------------------------------------------------------- watchdogs
def test_state_watchdog_fires_exactly_at_the_timeout(hw, clock):
    hw.apply(replace(hw.settings, stale_joints='omit'))
    _state(hw)
    clock.t += 0.1
    assert hw.update().joint_states is not None
    clock.t += 1e-6
    assert hw.update().joint_states is None
    diag = hw.diagnostics('hw')
    assert diag[0].level == STALE
    assert diag[1].level == STALE and 'stale' in diag[1].message
    _state(hw)
    assert hw.update().joint_states is not None
    assert hw.diagnostics('hw')[0].level == OK


def test_one_stale_actuator_hides_only_its_transmission(hw, clock):
    hw.apply(replace(hw.settings, stale_joints='omit'))
    _state(hw)
    clock.t += 0.08
    hw.set_actuator_state(['m_d1', 'm_d2'], [5.0, 5.0])
    clock.t += 0.05
    js = hw.update().joint_states
    assert js.names == ['j_d1', 'j_d2']
    assert hw.diagnostics('hw')[0].level == WARN


def test_command_watchdog_stops_commands(hw, clock):
    _state(hw)
    hw.set_joint_command(['j_simple'], [0.7])
    for _ in range(5):
        clock.t += 0.1
        _state(hw)
        assert 'm_simple' in _commands(hw.update())
    clock.t += 0.01
    _state(hw)
    assert _commands(hw.update()) == {}
    assert hw.diagnostics('hw')[1].level == WARN
    hw.set_joint_command(['j_simple'], [0.6])
    assert 'm_simple' in _commands(hw.update())


@pytest.mark.parametrize('action,field,value', [
    ('hold', 'position', 4.0), ('zero_velocity', 'velocity', 0.0),
    ('zero_effort', 'effort', 0.0)])
def test_command_timeout_actions(clock, action, field, value):
    hw = HardwareInterface(two_transmission_robot(), command_timeout=0.5, timeout_action=action,
                           state_timeout=0.0, clock=clock)
    _state(hw, pos=(4.0, 5.0, 5.0))  # m_simple inside its mapped position limits [-15, 5]
    hw.set_joint_command(['j_simple'], velocity=[0.3])
    hw.update()
    clock.t += 0.6
    hw.update()  # the expiry is seen here: 'hold' latches the position measured now (4)
    _state(hw, pos=(12.0, 5.0, 5.0))
    cmd = _commands(hw.update())
    assert cmd == {'m_simple': {field: pytest.approx(value)}}


def test_disabled_watchdogs(clock):
    hw = HardwareInterface(two_transmission_robot(), state_timeout=0.0, command_timeout=0.0,
                           clock=clock)
    _state(hw)
    hw.set_joint_command(['j_simple'], [0.7])
    clock.t += 1e6
    out = hw.update()
    assert out.joint_states is not None and 'm_simple' in _commands(out)


# ---------------------------------------------------------------------- bad input
@pytest.mark.parametrize('names,pos,reason', [
    (['m_simple', 'm_d1'], [1.0], 'length_mismatch'),
    (['m_simple', 'nope'], [1.0, 2.0], 'unknown_names'),
    (['m_simple', 'm_simple'], [1.0, 2.0], 'duplicate_names'),
    (['m_simple'], [math.nan], 'non_finite'),
    (['m_simple'], [math.inf], 'non_finite'),
    (['m_simple'], [], 'empty'),
    ([], [], 'empty'),
])
def test_bad_state_messages_are_dropped_and_counted(hw, names, pos, reason):
    _state(hw)
    before = hw.update().joint_states.position.copy()
    with pytest.raises(InputRejected) as e:
        hw.set_actuator_state(names, pos)
    assert e.value.reason == reason
    assert hw.drops['actuator_states'] == {reason: 1}
    out = hw.update()
    np.testing.assert_array_equal(out.joint_states.position, before)
    assert _finite(out)


def test_bad_commands_are_dropped_and_counted(hw):
    _state(hw)
    bad = [(['j_simple'], [math.nan]), (['j_simple', 'j_x'], [0.1, 0.2]),
           (['j_simple'], [0.1, 0.2]), (['j_simple', 'j_simple'], [0.1, 0.1])]
    for names, pos in bad:
        with pytest.raises(InputRejected):
            hw.set_joint_command(names, pos)
    with pytest.raises(InputRejected):
        hw.set_joint_command(['j_simple'], ['a'])
    assert sum(hw.drops['joint_commands'].values()) == 5
    out = hw.update()
    assert out.actuator_commands == []
    assert _finite(out)


def test_random_garbage_never_produces_non_finite_output(hw):
    rng = np.random.default_rng(1234)
    names = ['m_simple', 'm_d1', 'm_d2', 'x', 'j_simple', 'j_d1', 'j_d2']
    specials = [math.nan, math.inf, -math.inf, 1e308, -1e308, 0.0, 1.0]
    for _ in range(500):
        k = int(rng.integers(0, 4))
        msg_names = list(rng.choice(names, size=k))
        vals = [specials[int(i)] for i in rng.integers(0, len(specials), size=int(
            rng.integers(0, 4)))]
        for setter in (hw.set_actuator_state, hw.set_joint_command):
            try:
                setter(msg_names, vals, vals if rng.random() < 0.5 else [], [])
            except InputRejected:
                pass
        assert _finite(hw.update())


@pytest.mark.filterwarnings('ignore::RuntimeWarning')
def test_huge_values_stay_finite_after_conversion(clock):
    hw = HardwareInterface(two_transmission_robot(), enforce_limits=False, clock=clock)
    hw.set_actuator_state(['m_simple', 'm_d1', 'm_d2'], [1e308, 1e308, 1e308])
    hw.set_joint_command(['j_simple', 'j_d1', 'j_d2'], [1e308, 1e308, 1e308])
    out = hw.update()
    assert _finite(out)
    assert hw.counters.non_finite_outputs > 0


# ---------------------------------------------------------------------- timing, diagnostics
def test_overruns_are_counted(hw):
    hw.apply(replace(hw.settings, update_rate=100.0))
    hw.timer.record(0.0, 0.001)
    hw.timer.record(0.01, 0.0112)
    hw.timer.record(0.02, 0.035)   # work longer than the period
    hw.timer.record(0.05, 0.051)   # started 30 ms after the previous one
    assert hw.timer.cycles == 4
    assert hw.timer.overruns == 2
    assert hw.timer.max_cycle_time == pytest.approx(0.015)


def test_diagnostics_report_ages_counters_and_transmissions(hw, clock):
    _state(hw)
    hw.set_joint_command(['j_simple'], [9.0])
    hw.update()
    clock.t += 0.05
    with pytest.raises(InputRejected):
        hw.set_actuator_state(['bad'], [1.0])
    recs = hw.diagnostics('/hw')
    assert [r.name for r in recs] == ['/hw', '/hw: simple_trans', '/hw: diff_trans']
    top = dict(recs[0].values)
    assert top['dropped.actuator_states.unknown_names'] == '1'
    assert top['clamped.joint_position'] == '1'
    simple = dict(recs[1].values)
    assert float(simple['state_age_s']) == pytest.approx(0.05)
    assert float(simple['command_age_s']) == pytest.approx(0.05)
    assert simple['clamped'] == '1'
    assert dict(recs[2].values)['command_age_s'] == 'never'
    assert simple['type'] == 'transmission_interface/SimpleTransmission'
    # diagnostic_updater's habit: one hardware_id for the node's statuses, the robot's name
    assert {r.hardware_id for r in recs} == {'fake_robot'}
    assert top['lifecycle_state'] == 'active' and top['stale_joints'] == 'last'
    assert hw.diagnostics('/hw', 'inactive')[0].values[0] == ('lifecycle_state', 'inactive')


def test_diagnostics_report_the_achieved_rate_and_periodicity(hw):
    hw.apply(replace(hw.settings, update_rate=100.0))
    starts = [0.0, 0.01, 0.02, 0.03, 0.045, 0.05]   # intervals 10, 10, 10, 15, 5 ms
    for t in starts:
        hw.timer.record(t, t + 0.001)
    top = dict(hw.diagnostics('/hw')[0].values)
    rates = [100.0, 100.0, 100.0, 1 / 0.015, 200.0]
    assert float(top['update_rate']) == pytest.approx(100.0)
    assert float(top['periodicity.average']) == pytest.approx(np.mean(rates), abs=1e-3)
    assert float(top['periodicity.standard_deviation']) == pytest.approx(np.std(rates), abs=1e-3)
    assert float(top['periodicity.min']) == pytest.approx(1 / 0.015, abs=1e-3)
    assert float(top['periodicity.max']) == pytest.approx(200.0, abs=1e-3)
    assert float(top['achieved_rate']) == pytest.approx(5 / 0.05, abs=1e-3)
    # each message summarises the cycles since the previous one
    hw.timer.record(0.07, 0.071)
    hw.timer.record(0.09, 0.091)
    top = dict(hw.diagnostics('/hw')[0].values)
    assert float(top['periodicity.average']) == pytest.approx(50.0, abs=1e-3)
    assert float(dict(hw.diagnostics('/hw')[0].values)['achieved_rate']) == 0.0


def test_bad_constructor_arguments(clock):
    with pytest.raises(ValueError):
        HardwareInterface(two_transmission_robot(), timeout_action='explode')
    with pytest.raises(TransmissionValueError, match="joints.*unknown joint names .'nope'."):
        HardwareInterface(two_transmission_robot(), command_joints=['nope'])
    with pytest.raises(TransmissionValueError, match='joints.*duplicate'):
        HardwareInterface(two_transmission_robot(), command_joints=['j_simple', 'j_simple'])
    with pytest.raises(TransmissionValueError, match='stale_joints'):
        HardwareInterface(two_transmission_robot(), stale_joints='forget')
    with pytest.raises(TransmissionValueError, match='state_timeout'):
        HardwareInterface(two_transmission_robot(), state_timeout=math.nan)


def test_every_error_belongs_to_the_package_exception_tree(hw):
    """Callers catch ``TransmissionError``; ``ValueError`` keeps working too."""
    assert issubclass(InputRejected, TransmissionInputError)
    with pytest.raises(TransmissionValueError, match='timeout_action.*explode'):
        HardwareInterface(two_transmission_robot(), timeout_action='explode')
    with pytest.raises(TransmissionError) as e:
        hw.set_joint_command(['j_simple'], [math.nan])
    assert isinstance(e.value, ValueError) and e.value.reason == 'non_finite'
    with pytest.raises(TransmissionValueError, match='interface.*torque'):
        hw.set_interface_command('torque', [1.0])


def test_activation_reset_forgets_commands(hw):
    _state(hw)
    hw.set_joint_command(['j_simple'], [0.7])
    hw.commands.reset()
    assert hw.update().actuator_commands == []
