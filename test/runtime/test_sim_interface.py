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
The simulation interface's per-cycle logic, without ROS: maths, inputs, limits, watchdogs.

A small robot (a simple transmission of reduction 10 and offset 0.5, a differential of
reductions 5, actuator effort limits, and a caster joint of no transmission) makes the expected
numbers easy to compute by hand from the transmissions' documented formulas.
"""

import numpy as np
import pytest

from transmission_plugins.core.exceptions import TransmissionValueError
from transmission_plugins.robot.loading import load_robot_transmissions
from transmission_plugins.runtime.diagnostics import OK
from transmission_plugins.runtime.diagnostics import STALE
from transmission_plugins.runtime.diagnostics import WARN
from transmission_plugins.runtime.messages import InputRejected
from transmission_plugins.runtime.reports import Reports
from transmission_plugins.runtime.sim_interface import SimInterface
from transmission_plugins.tools.launch.node_plan import default_description_file
from transmission_plugins.tools.launch.node_plan import read_description

SIM_BOT = """<robot name="sim_bot">
  <link name="base"/><link name="l1"/><link name="l2"/><link name="l3"/><link name="wheel"/>
  <joint name="j_simple" type="revolute"><parent link="base"/><child link="l1"/>
    <limit lower="-1" upper="1" velocity="3" effort="20"/></joint>
  <joint name="j_d1" type="revolute"><parent link="l1"/><child link="l2"/>
    <limit lower="-2" upper="2" velocity="3" effort="50"/></joint>
  <joint name="j_d2" type="revolute"><parent link="l2"/><child link="l3"/>
    <limit lower="-2" upper="2" velocity="3" effort="50"/></joint>
  <joint name="caster" type="continuous"><parent link="base"/><child link="wheel"/></joint>
  <ros2_control name="sim_bot" type="system">
    <hardware><plugin>mock_components/GenericSystem</plugin></hardware>
    <joint name="j_simple"><command_interface name="position"/></joint>
    <joint name="j_d1"><command_interface name="position"/></joint>
    <joint name="j_d2"><command_interface name="position"/></joint>
    <transmission name="simple_trans">
      <plugin>transmission_interface/SimpleTransmission</plugin>
      <actuator name="m_simple" role="actuator1"><param name="effort_limit">1.5</param></actuator>
      <joint name="j_simple" role="joint1">
        <mechanical_reduction>10.0</mechanical_reduction><offset>0.5</offset></joint>
    </transmission>
    <transmission name="diff_trans">
      <plugin>transmission_interface/DifferentialTransmission</plugin>
      <actuator name="m_d1" role="actuator1"><mechanical_reduction>5.0</mechanical_reduction>
        <param name="effort_limit">8.0</param></actuator>
      <actuator name="m_d2" role="actuator2"><mechanical_reduction>5.0</mechanical_reduction>
        <param name="effort_limit">8.0</param></actuator>
      <joint name="j_d1" role="joint1"/>
      <joint name="j_d2" role="joint2"/>
    </transmission>
  </ros2_control>
</robot>"""


class FakeClock:
    """A steady clock the test moves by hand."""

    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture(scope='module')
def robot():
    return load_robot_transmissions(SIM_BOT)


@pytest.fixture(scope='module')
def example():
    return load_robot_transmissions(read_description(default_description_file()))


@pytest.fixture
def clock():
    return FakeClock()


@pytest.fixture
def sim(robot, clock):
    return SimInterface(robot, clock=clock, state_timeout=0.1, command_timeout=0.5)


def actuator_state(q, qd, tau):
    """Return the actuator state of SIM_BOT from the documented formulas (independent maths)."""
    q, qd, tau = (np.asarray(x, dtype=float) for x in (q, qd, tau))
    theta = [10.0 * (q[0] - 0.5), 5.0 * (q[1] + q[2]), 5.0 * (q[1] - q[2])]
    omega = [10.0 * qd[0], 5.0 * (qd[1] + qd[2]), 5.0 * (qd[1] - qd[2])]
    u = [tau[0] / 10.0, (tau[1] + tau[2]) / 10.0, (tau[1] - tau[2]) / 10.0]
    return np.array(theta), np.array(omega), np.array(u)


def by_name(groups):
    """Return ``{field: {name: value}}`` of a list of command messages."""
    out = {'position': {}, 'velocity': {}, 'effort': {}}
    for g in groups:
        for field in out:
            values = getattr(g, field)
            if values is not None:
                out[field].update(zip(g.names, values.tolist()))
    return out


# ---------------------------------------------------------------------- states
def test_joint_states_map_to_actuator_states_by_the_formulas(sim):
    q, qd, tau = [0.6, 0.1, 0.2], [0.5, -1.0, 2.0], [4.0, 10.0, -6.0]
    sim.set_joint_state(['j_d2', 'caster', 'j_simple', 'j_d1'], [q[2], 7.0, q[0], q[1]],
                        [qd[2], 1.0, qd[0], qd[1]], [tau[2], 0.0, tau[0], tau[1]])
    out = sim.update().actuator_states
    theta, omega, u = actuator_state(q, qd, tau)
    assert out.names == ['m_simple', 'm_d1', 'm_d2']
    np.testing.assert_allclose(out.position, theta, rtol=0, atol=1e-12)
    np.testing.assert_allclose(out.velocity, omega, rtol=0, atol=1e-12)
    np.testing.assert_allclose(out.effort, u, rtol=0, atol=1e-12)
    np.testing.assert_allclose(out.position, [1.0, 1.5, -0.5])   # by hand


def test_power_is_conserved_across_the_interface(sim):
    rng = np.random.default_rng(1234)
    for _ in range(20):
        q, qd, tau = rng.uniform(-1, 1, 3), rng.normal(size=3), rng.normal(size=3) * 10
        sim.set_joint_state(['j_simple', 'j_d1', 'j_d2'], q, qd, tau)
        out = sim.update().actuator_states
        joint_power = float(tau @ qd)
        actuator_power = float(out.effort @ out.velocity)
        assert actuator_power == pytest.approx(joint_power, rel=1e-12, abs=1e-12)


def test_names_of_no_transmission_are_ignored_even_with_nan_values(sim):
    sim.set_joint_state(['caster', 'j_simple'], [float('nan'), 0.5], [], [float('inf'), 1.0])
    out = sim.update().actuator_states
    assert out.names == ['m_simple']
    np.testing.assert_allclose(out.position, [0.0])
    np.testing.assert_allclose(out.effort, [0.1])
    assert out.velocity is None
    assert sim.drops.total() == 0


def test_a_transmission_with_a_missing_joint_is_left_out(sim):
    sim.set_joint_state(['j_simple', 'j_d1'], [0.5, 0.3])
    assert sim.update().actuator_states.names == ['m_simple']


@pytest.mark.parametrize('names, position, reason', [
    (['caster'], [1.0], 'unknown_names'),
    ([], [], 'empty'),
    (['j_simple', 'j_simple'], [1.0, 2.0], 'duplicate_names'),
    (['j_simple', 'caster'], [1.0], 'length_mismatch'),
    (['j_simple'], [float('nan')], 'non_finite'),
    (['j_simple'], ['a'], 'bad_type'),
    (['j_simple'], [], 'empty'),
    ([f'other_{i}' for i in range(10_001)], [0.0] * 10_001, 'too_large'),
])
def test_bad_joint_states_are_dropped_and_counted(sim, names, position, reason):
    sim.set_joint_state(['j_simple'], [0.7])
    with pytest.raises(InputRejected) as e:
        sim.set_joint_state(names, position)
    assert e.value.reason == reason
    assert sim.drops['joint_states'] == {reason: 1}
    np.testing.assert_allclose(sim.update().actuator_states.position, [2.0])   # unchanged


def test_gripper_motor_follows_the_gap_joint_alone(example):
    sim = SimInterface(example)
    sim.set_joint_state(['gripper_joint'], [0.04], [0.01], [10.0])
    out = sim.update().actuator_states
    assert out.names == ['gripper_motor']
    expected = example.joint_to_actuator({'position': {'gripper_joint': 0.04},
                                          'velocity': {'gripper_joint': 0.01},
                                          'effort': {'gripper_joint': 10.0}})
    for field in ('position', 'velocity', 'effort'):
        assert getattr(out, field)[0] == pytest.approx(expected[field]['gripper_motor'],
                                                       rel=1e-12)
    records = sim.diagnostics('sim')
    gripper = next(r for r in records if r.name == 'sim: gripper_trans')
    assert gripper.level == OK   # the passive finger joints are not needed


def test_a_gap_outside_the_gripper_range_gives_no_motor_state(example):
    """On e6277b7 a gap of -1 m became the motor position of a +0.100 m opening."""
    sim = SimInterface(example)
    for gap in (-1.0, 0.5):
        sim.set_joint_state(['gripper_joint', 'pan_joint'], [gap, 0.1])
        out = sim.update().actuator_states
        assert out.names == ['pan_motor'], (gap, out)
    assert sim.counters.unreachable_outputs == 2
    assert ('unreachable_outputs', '2') in sim.diagnostics('sim')[0].values
    sim.set_joint_state(['gripper_joint'], [0.04])   # back in range: published again
    assert 'gripper_motor' in sim.update().actuator_states.names


def test_a_gap_command_outside_the_gripper_range_sends_nothing(example):
    from transmission_plugins.runtime.hardware_interface import HardwareInterface
    hw = HardwareInterface(example, enforce_limits=False)
    hw.set_joint_command(['gripper_joint', 'pan_joint'], [-1.0, 0.1])
    (group,) = hw.update().actuator_commands
    assert group.names == ['pan_motor']
    assert hw.counters.unreachable_outputs == 1


# ---------------------------------------------------------------------- watchdog
def test_stale_simulator_leaves_actuators_out_by_default(sim, clock):
    sim.set_joint_state(['j_simple', 'j_d1', 'j_d2'], [0.5, 0.1, 0.2])
    clock.t += 0.05
    sim.set_joint_state(['j_d1', 'j_d2'], [0.1, 0.2])
    clock.t += 0.07   # j_simple 0.12 s old: stale
    out = sim.update().actuator_states
    assert out.names == ['m_d1', 'm_d2']
    top = sim.diagnostics('sim')[0]
    assert top.level == WARN and top.message.startswith('1 joints stale')
    assert 'their actuators are left out of actuator_states' in top.message
    reports = Reports(clock)
    assert reports.stale(sim) == []        # warned once it lasts (STALE_PERSIST)
    lines = []
    for _ in range(100):
        sim.set_joint_state(['j_d1', 'j_d2'], [0.1, 0.2])
        clock.t += 0.01
        sim.update()
        lines += reports.stale(sim)
    [(level, line)] = lines
    assert level == 'warning'
    assert line.startswith('no joint state for 1.1 s (state_timeout 0.1 s): 1 actuator stale '
                           '(m_simple)'), line
    clock.t += 1.0
    assert sim.update().actuator_states is None
    assert sim.diagnostics('sim')[0].level == STALE


def test_stale_joints_last_repeats_the_last_actuator_values(robot, clock):
    sim = SimInterface(robot, clock=clock, stale_joints='last')
    sim.set_joint_state(['j_simple', 'j_d1', 'j_d2'], [0.6, 0.1, 0.2])
    first = sim.update().actuator_states.position.copy()
    clock.t += 1.0
    out = sim.update().actuator_states
    assert out.names == ['m_simple', 'm_d1', 'm_d2']
    np.testing.assert_array_equal(out.position, first)
    assert sim.diagnostics('sim')[0].level == STALE


# ---------------------------------------------------------------------- commands
def test_actuator_commands_map_to_joint_commands(sim):
    sim.set_actuator_command(['m_simple', 'm_d1', 'm_d2'], [1.0, 1.5, -0.5], [2.0, 5.0, 5.0],
                             [0.5, 2.0, 1.0])
    cmd = by_name(sim.update().joint_commands)
    # q = theta / 10 + 0.5; differential: q1 = (t1/5 + t2/5) / 2, q2 = (t1/5 - t2/5) / 2
    assert cmd['position'] == pytest.approx({'j_simple': 0.6, 'j_d1': 0.1, 'j_d2': 0.2})
    assert cmd['velocity'] == pytest.approx({'j_simple': 0.2, 'j_d1': 1.0, 'j_d2': 0.0})
    # tau = 10 u; differential: tau1 = 5 (u1 + u2), tau2 = 5 (u1 - u2)
    assert cmd['effort'] == pytest.approx({'j_simple': 5.0, 'j_d1': 15.0, 'j_d2': 5.0})


def test_commands_are_grouped_by_field_set(sim):
    sim.set_actuator_command(['m_simple'], [1.0])
    sim.set_actuator_command(['m_d1', 'm_d2'], [], [], [1.0, 1.0])
    groups = sim.update().joint_commands
    assert [(g.names, g.position is not None, g.effort is not None) for g in groups] == [
        (['j_simple'], True, False), (['j_d1', 'j_d2'], False, True)]


def test_a_transmission_commanded_for_some_actuators_only_sends_nothing(sim):
    sim.set_actuator_command(['m_d1'], [1.0])
    assert sim.update().joint_commands == []
    assert sim.counters.incomplete_commands == 1


def test_actuator_effort_limits_apply_before_conversion(sim):
    sim.set_actuator_command(['m_simple'], [], [], [4.0])   # limit 1.5 -> 15 N m at the joint
    cmd = by_name(sim.update().joint_commands)
    assert cmd['effort'] == pytest.approx({'j_simple': 15.0})
    assert sim.counters.clamps['actuator_effort'] == 1 and sim.counters.clamps['joint_effort'] == 0
    assert sim.counters.actuator_clamps.tolist() == [1, 0, 0]


def test_joint_limits_apply_after_conversion(sim):
    # both motors at their velocity limit (30 rad/s, within it) turn j_d1 at 6 rad/s > 3
    sim.set_actuator_command(['m_d1', 'm_d2'], [], [30.0, 30.0])
    cmd = by_name(sim.update().joint_commands)
    assert cmd['velocity'] == pytest.approx({'j_d1': 3.0, 'j_d2': 0.0})
    clamps = sim.counters.clamps
    assert clamps['joint_velocity'] == 1 and clamps['actuator_velocity'] == 0
    assert sim.counters.joint_clamps.tolist() == [0, 1, 0]


def test_without_enforce_limits_nothing_is_clamped(robot):
    sim = SimInterface(robot, enforce_limits=False)
    sim.set_actuator_command(['m_simple'], [100.0], [], [4.0])
    cmd = by_name(sim.update().joint_commands)
    assert cmd['position'] == pytest.approx({'j_simple': 10.5})
    assert cmd['effort'] == pytest.approx({'j_simple': 40.0})
    assert sum(sim.counters.clamps.values()) == 0


def test_no_command_ever_exceeds_a_declared_limit(robot):
    rng = np.random.default_rng(7)
    sim = SimInterface(robot)
    lo, hi = robot.joint_lower, robot.joint_upper
    vel, eff = robot.joint_velocity_limit, robot.joint_effort_limit
    for _ in range(300):
        values = [rng.normal(size=3) * 10.0 ** rng.uniform(-2, 4) for _ in range(3)]
        sim.set_actuator_command(['m_simple', 'm_d1', 'm_d2'], *values)
        cmd = sim.update().joint_commands
        assert len(cmd) == 1
        c = cmd[0]
        assert np.all(np.isfinite(c.position) & np.isfinite(c.velocity) & np.isfinite(c.effort))
        assert np.all((c.position >= lo - 1e-12) & (c.position <= hi + 1e-12))
        assert np.all(np.abs(c.velocity) <= vel * (1 + 1e-12))
        assert np.all(np.abs(c.effort) <= eff * (1 + 1e-12))


@pytest.mark.parametrize('names, position, reason', [
    (['m_x'], [1.0], 'unknown_names'),
    (['m_simple', 'm_d1', 'm_d2', 'm_x'], [1.0] * 4, 'too_large'),
    (['m_simple'], [float('inf')], 'non_finite'),
    (['m_simple', 'm_simple'], [1.0, 2.0], 'duplicate_names'),
])
def test_bad_actuator_commands_are_dropped_and_counted(sim, names, position, reason):
    with pytest.raises(InputRejected) as e:
        sim.set_actuator_command(names, position)
    assert e.value.reason == reason
    assert sim.drops['actuator_commands'] == {reason: 1}
    assert sim.update().joint_commands == []


# ---------------------------------------------------------------------- command watchdog
@pytest.mark.parametrize('action, field, expected', [
    ('hold', 'position', {'j_d1': 0.25, 'j_d2': -0.5}),
    ('zero_velocity', 'velocity', {'j_d1': 0.0, 'j_d2': 0.0}),
    ('zero_effort', 'effort', {'j_d1': 0.0, 'j_d2': 0.0}),
])
def test_expired_actuator_commands_take_the_timeout_action(robot, clock, action, field,
                                                           expected):
    sim = SimInterface(robot, clock=clock, command_timeout=0.5, timeout_action=action,
                       state_timeout=0.0)
    sim.set_joint_state(['j_d1', 'j_d2'], [0.25, -0.5])
    sim.set_actuator_command(['m_d1', 'm_d2'], [], [1.0, 1.0])
    assert by_name(sim.update().joint_commands)['velocity'] == pytest.approx(
        {'j_d1': 0.2, 'j_d2': 0.0})
    clock.t += 0.3
    sim.set_joint_state(['j_d1', 'j_d2'], [0.3, -0.4])   # measured at expiry: this one
    clock.t += 0.3
    cmd = by_name(sim.update().joint_commands)
    held = {'j_d1': 0.3, 'j_d2': -0.4} if action == 'hold' else expected
    assert cmd[field] == pytest.approx(held)
    assert sum(len(v) for v in cmd.values()) == 2
    diag = next(r for r in sim.diagnostics('sim') if r.name == 'sim: diff_trans')
    assert diag.message == f'command timed out ({action})'


def test_expired_commands_send_nothing_with_stop(sim, clock):
    sim.set_actuator_command(['m_simple'], [1.0])
    assert sim.update().joint_commands
    clock.t += 0.6
    assert sim.update().joint_commands == []
    sim.set_actuator_command(['m_simple'], [1.0])
    assert sim.update().joint_commands


# ---------------------------------------------------------------------- array commands
def test_array_commands_follow_the_joint_order_and_need_every_joint(robot):
    sim = SimInterface(robot, command_joints=['j_d2', 'j_simple', 'j_d1'],
                       array_commands=['position', 'effort'])
    sim.set_actuator_command(['m_simple'], [1.0])
    assert sim.update().array_commands == {}   # the differential is not commanded
    sim.set_actuator_command(['m_d1', 'm_d2'], [1.5, -0.5])
    arrays = sim.update().array_commands
    assert list(arrays) == ['position']
    np.testing.assert_allclose(arrays['position'], [0.2, 0.6, 0.1])


@pytest.mark.parametrize('kwargs, name', [
    ({'array_commands': ['torque']}, 'array_commands'),
    ({'array_commands': ['position', 'position']}, 'array_commands'),
    ({'command_joints': ['caster']}, 'joints'),     # the node parameter's name
    ({'command_joints': ['j_d1', 'j_d1']}, 'joints'),
    ({'timeout_action': 'brake'}, 'timeout_action'), ({'stale_joints': 'drop'}, 'stale_joints'),
    ({'state_timeout': float('nan')}, 'state_timeout'),
])
def test_bad_settings_raise_naming_the_setting(robot, kwargs, name):
    with pytest.raises(TransmissionValueError) as e:
        SimInterface(robot, **kwargs)
    assert str(e.value).startswith(f'{name}: expected')


def test_passive_joints_are_neither_commanded_nor_array_joints(example):
    with pytest.raises(TransmissionValueError, match='passive'):
        SimInterface(example, command_joints=['gripper_l_finger_joint'])
    sim = SimInterface(example)
    assert 'gripper_l_finger_joint' not in sim.command_joints
    sim.set_actuator_command(['gripper_motor'], [300.0])
    (cmd,) = sim.update().joint_commands
    assert cmd.names == ['gripper_joint']


def test_diagnostics_speak_of_joint_states(sim, clock):
    records = sim.diagnostics('/sim_interface')
    assert records[0].level == STALE
    assert records[0].message.startswith('no joint state received yet')
    assert records[0].hardware_id == 'sim_bot'
    assert {r.name for r in records} == {'/sim_interface', '/sim_interface: simple_trans',
                                         '/sim_interface: diff_trans'}
    assert records[1].message == 'no joint state received'
    sim.set_joint_state(['j_simple', 'j_d1', 'j_d2'], [0.5, 0.1, 0.2])
    records = sim.diagnostics('/sim_interface')
    assert [r.level for r in records] == [OK, OK, OK]
    keys = dict(records[0].values)
    assert keys['stale_joints'] == 'omit' and keys['enforce_limits'] == 'true'


def test_name_index_select_keeps_known_names_and_caches_both_answers():
    from transmission_plugins.runtime.messages import NameIndex
    index = NameIndex(['a', 'b', 'c'], 'joint')
    idx, where = index.select(['x', 'c', 'a'])
    assert idx.tolist() == [2, 0] and where.tolist() == [1, 2]
    again = index.select(['x', 'c', 'a'])
    assert again[0] is idx and again[1] is where          # the last list: no new check
    idx, where = index.select(['b', 'a'])
    assert idx.tolist() == [1, 0] and where is None          # every name known
    with pytest.raises(InputRejected, match='unknown_names'):
        index.lookup(['x', 'a'])                              # strict lookup refuses ...
    assert index.select(['x', 'a'])[0].tolist() == [0]       # ... select does not
    for _ in range(2):                                        # refused twice, same reason
        with pytest.raises(InputRejected, match='none of the 2 names'):
            index.select(['x', 'y'])
