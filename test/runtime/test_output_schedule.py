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
Timer mode and event-driven mode without ROS: which outputs go out when, and cycle accounting.

The node's decisions (:class:`OutputSchedule`); cycle accounting; the two halves of a cycle
against :meth:`HardwareInterface.update`; fresh PR2 states converted back to the same actuator
positions.
"""


from dataclasses import replace

import numpy as np
import pytest

from transmission_plugins.runtime.cycle import CycleSettings
from transmission_plugins.runtime.cycle import OutputSchedule
from transmission_plugins.runtime.diagnostics import CycleTimer
from transmission_plugins.runtime.hardware_interface import HardwareInterface

P = 0.01   # the period of every schedule here


class Settings:
    """The cycle's settings as a cycle holds them: one record, replaced whole."""

    def __init__(self, event_driven=False):
        self.settings = CycleSettings(update_rate=1.0 / P, event_driven=event_driven)

    def change(self, **fields):
        self.settings = replace(self.settings, **fields)


# ---------------------------------------------------------------------- OutputSchedule
def test_timer_mode_publishes_both_outputs_on_every_tick_and_never_on_arrival():
    s = OutputSchedule(Settings())
    assert not s.event_driven
    for _ in range(3):
        assert s.state_arrived() is False and s.command_arrived() is False
        assert s.tick() == (True, True)
    assert s.tick() == (True, True)   # nothing arrived: still both


def test_event_driven_publishes_on_arrival_and_ticks_for_silent_inputs():
    s = OutputSchedule(Settings(event_driven=True))
    assert s.tick() == (True, True)             # nothing arrived yet: the watchdog's turn
    assert s.state_arrived() is True and s.command_arrived() is True
    assert s.tick() == (False, False)          # both arrived since the previous tick
    assert s.state_arrived() is True
    assert s.tick() == (False, True)           # commands silent: the tick sends them
    assert s.tick() == (True, True)            # both silent
    s.command_arrived()
    assert s.tick() == (True, False)


def test_switching_modes_applies_at_the_next_occasion():
    settings = Settings(event_driven=True)
    s = OutputSchedule(settings)
    s.state_arrived()
    settings.change(event_driven=False)
    assert s.tick() == (True, True) and s.state_arrived() is False
    settings.change(event_driven=True)
    assert s.tick() == (False, True)   # the state came in timer mode: counted anyway
    assert s.tick() == (True, True)


def test_stop_forgets_arrivals():
    s = OutputSchedule(Settings(event_driven=True))
    s.state_arrived()
    s.command_arrived()
    s.stop()
    assert s.tick() == (True, True)


# ---------------------------------------------------------------------- CycleTimer
def test_event_updates_count_as_work_but_not_in_the_periodicity():
    timer = CycleTimer(Settings())
    for t in (0.0, 0.01, 0.02):                    # ticks, 10 ms apart
        timer.record(t, t + 0.001)
    for t in (0.003, 0.004, 0.0141, 0.015):        # event updates between them
        timer.record(t, t + 0.0005, periodic=False)
    timer.record(0.016, 0.016 + 2 * P, periodic=False)   # one outlasting the period
    assert timer.cycles == 8 and timer.events == 5
    assert timer.overruns == 1
    assert timer.max_cycle_time == pytest.approx(2 * P)
    rate = timer.periodicity()
    assert rate['average'] == pytest.approx(100.0) and rate['min'] == pytest.approx(100.0)
    assert rate['achieved'] == pytest.approx(100.0)


def test_a_late_tick_is_an_overrun_but_an_event_gap_is_not():
    timer = CycleTimer(Settings())
    timer.record(0.0, 0.001)
    timer.record(0.1, 0.1001, periodic=False)      # 100 ms after the tick: not a late tick
    assert timer.overruns == 0
    timer.record(0.2, 0.201)                       # the next tick 200 ms late
    assert timer.overruns == 1


# ---------------------------------------------------------------------- cycle halves
class Clock:
    def __init__(self) -> None:
        self.t = 50.0

    def __call__(self) -> float:
        return self.t


def _equal(a, b):
    if a is None or b is None:
        return a is b
    if isinstance(a, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    return list(a.names) == list(b.names) and all(
        (x is None and y is None) or (x is not None and y is not None
                                      and np.array_equal(x, y))
        for x, y in zip(a[1:], b[1:]))


def _inputs(robot, rng, names, n):
    """Random messages: states (some NaN, some partial), commands, clock steps."""
    steps = []
    for _ in range(n):
        kind = rng.choice(['state', 'state', 'command', 'wait'] if names else ['state', 'wait'])
        if kind == 'wait':
            steps.append(('wait', float(rng.choice([0.001, 0.05, 0.3]))))
            continue
        pool = robot.actuator_names if kind == 'state' else names
        count = len(pool) if rng.random() < 0.5 else int(rng.integers(1, len(pool) + 1))
        chosen = list(rng.permutation(pool)[:count])
        values = {}
        for field in ('position', 'velocity', 'effort'):
            if rng.random() < 0.8:
                x = rng.uniform(-1.0, 1.0, len(chosen))
                if rng.random() < 0.1:
                    x[int(rng.integers(len(x)))] = np.nan   # rejected as a whole
                elif rng.random() < 0.1:   # outputs overflow, or leave a gripper's range
                    x[int(rng.integers(len(x)))] = rng.choice([1e308, -1e308, 5e4])
                values[field] = x
        steps.append((kind, chosen, values))
    return steps


def _feed(hw, clock, step):
    if step[0] == 'wait':
        clock.t += step[1]
        return
    kind, names, values = step
    store = hw.set_actuator_state if kind == 'state' else hw.set_joint_command
    try:
        store(names, **values)
    except ValueError:
        pass


@pytest.mark.filterwarnings('ignore::RuntimeWarning')
@pytest.mark.parametrize('seed', range(4))
def test_the_two_halves_make_what_update_makes(example_robot, seed):
    rng = np.random.default_rng(seed)
    clocks = Clock(), Clock()
    whole, halves = (HardwareInterface(example_robot, clock=c, timeout_action='hold',
                                       state_timeout=0.2, command_timeout=0.25)
                     for c in clocks)
    for step in _inputs(example_robot, rng, whole.commandable_joints(), 60):
        for hw, clock in zip((whole, halves), clocks):
            _feed(hw, clock, step)
        out = whole.update()
        assert _equal(out.joint_states, halves.joint_states())
        assert _equal(out.actuator_commands, halves.actuator_commands())


def test_fresh_pr2_states_map_back_to_the_actuator_positions(pr2):
    clock = Clock()
    hw = HardwareInterface(pr2, clock=clock)
    q = pr2.default_joint_position()
    a = np.asarray(pr2.joint_to_actuator_arrays({'position': q})['position'])
    n = len(pr2.actuator_names)
    for i in range(3):
        hw.set_actuator_state(pr2.actuator_names, a + 1e-3 * i, np.zeros(n), np.zeros(n))
        clock.t += 0.001
        out = hw.joint_states()
        np.testing.assert_allclose(pr2.joint_to_actuator_arrays({'position': out.position})[
            'position'], a + 1e-3 * i, atol=1e-9)
        assert out.names == pr2.joint_names


# ---------------------------------------------------------------------- one period
def test_every_user_of_the_period_reads_the_cycle_s_one_setting():
    """update_rate is converted once; a live change reaches the overrun check and diagnostics."""
    from test_hardware_interface import two_transmission_robot
    hw = HardwareInterface(two_transmission_robot(), update_rate=100.0)
    assert hw.settings.period == pytest.approx(0.01)
    hw.timer.record(0.0, 0.005)                      # 5 ms of work at 100 Hz: in time
    assert hw.timer.overruns == 0
    hw.apply(replace(hw.settings, update_rate=500.0))
    assert hw.period == hw.settings.period == pytest.approx(0.002)
    hw.timer.record(0.01, 0.015)                     # the same 5 ms at 500 Hz: an overrun
    assert hw.timer.overruns == 1
    values = dict(hw.diagnostics('hw')[0].values)
    assert values['update_rate'] == '500'
    with pytest.raises(ValueError, match='update_rate'):
        replace(hw.settings, update_rate=0.0)
