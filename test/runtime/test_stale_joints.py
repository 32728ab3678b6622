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
Stale joints in ``joint_states`` (issue 16, item 4) and watchdogs counted from arrival (15, 7).

``stale_joints: last`` (the default) keeps publishing a stale joint with the values it was last
published with, as joint_state_broadcaster publishes every joint every cycle, so that
robot_state_publisher's TF does not vanish; ``omit`` leaves stale joints out.
"""

from dataclasses import replace
import re

import numpy as np
import pytest

from test_hardware_interface import FakeClock
from test_hardware_interface import two_transmission_robot
from transmission_plugins.runtime.diagnostics import STALE
from transmission_plugins.runtime.diagnostics import WARN
from transmission_plugins.runtime.hardware_interface import HardwareInterface
from transmission_plugins.runtime.reports import Reports

ACTUATORS = ['m_simple', 'm_d1', 'm_d2']


def _hw(clock, **kwargs):
    return HardwareInterface(two_transmission_robot(), state_timeout=0.1, clock=clock, **kwargs)


def test_last_is_the_default_and_keeps_every_stale_joint_at_its_last_values():
    clock = FakeClock()
    hw = _hw(clock)
    assert hw.stale_joints == 'last'
    hw.set_actuator_state(ACTUATORS, [10.0, 5.0, 5.0], [1.0, 0.0, 0.0], [1.0, 1.0, 1.0])
    first = hw.update().joint_states
    clock.t += 0.2                                   # every actuator stale
    stale = hw.update().joint_states
    assert stale.names == first.names
    for field in ('position', 'velocity', 'effort'):
        np.testing.assert_array_equal(getattr(stale, field), getattr(first, field))
    diag = hw.diagnostics('hw')
    assert diag[0].level == STALE and "repeats their joints' last values" in diag[0].message
    assert all(d.level == STALE for d in diag[1:])


def test_a_fresh_transmission_moves_on_while_a_stale_one_holds():
    clock = FakeClock()
    hw = _hw(clock)
    hw.set_actuator_state(ACTUATORS, [10.0, 5.0, 5.0])
    hw.update()
    clock.t += 0.2
    hw.set_actuator_state(['m_d1', 'm_d2'], [10.0, 0.0])   # only the differential reports
    js = hw.update().joint_states
    assert js.names == ['j_simple', 'j_d1', 'j_d2']
    np.testing.assert_allclose(js.position, [1.5, 1.0, 1.0])   # j_simple held at 10 / 10 + 0.5
    assert hw.diagnostics('hw')[0].level == WARN
    # the stale joint's held value is also the linearisation point of its commands
    np.testing.assert_allclose(hw.states.last_position, js.position)


def test_joints_never_heard_of_are_left_out_under_both_policies():
    for policy in ('last', 'omit'):
        hw = _hw(FakeClock(), stale_joints=policy)
        assert hw.update().joint_states is None
        hw.set_actuator_state(['m_simple'], [10.0])
        assert hw.update().joint_states.names == ['j_simple']


def test_omit_leaves_stale_joints_out_and_publishes_nothing_when_all_are_stale():
    clock = FakeClock()
    hw = _hw(clock, stale_joints='omit')
    hw.set_actuator_state(ACTUATORS, [10.0, 5.0, 5.0])
    assert hw.update().joint_states.names == ['j_simple', 'j_d1', 'j_d2']
    clock.t += 0.2
    hw.set_actuator_state(['m_d1', 'm_d2'], [10.0, 0.0])
    assert hw.update().joint_states.names == ['j_d1', 'j_d2']
    clock.t += 0.2
    assert hw.update().joint_states is None
    assert 'left out of joint_states' in hw.diagnostics('hw')[0].message


def test_the_policy_can_change_between_cycles():
    clock = FakeClock()
    hw = _hw(clock)
    hw.set_actuator_state(ACTUATORS, [10.0, 5.0, 5.0])
    hw.update()
    clock.t += 0.2
    assert hw.update().joint_states is not None
    hw.apply(replace(hw.settings, stale_joints='omit'))
    assert hw.update().joint_states is None
    hw.apply(replace(hw.settings, stale_joints='last'))
    assert hw.update().joint_states.names == ['j_simple', 'j_d1', 'j_d2']
    with pytest.raises(ValueError, match='stale_joints'):
        hw.apply(replace(hw.settings, stale_joints='forget'))


def test_fresh_changes_count_the_transitions_the_node_logs():
    clock = FakeClock()
    hw = _hw(clock)
    hw.update()
    assert hw.states.fresh_changes == 0
    hw.set_actuator_state(ACTUATORS, [10.0, 5.0, 5.0])
    hw.update()
    hw.update()
    assert hw.states.fresh_changes == 1
    clock.t += 0.2
    hw.update()
    hw.update()
    assert hw.states.fresh_changes == 2 and not hw.states.fresh_mask.any()


# ---------------------------------------------------------------------- arrival time
def test_the_state_watchdog_counts_from_arrival_not_from_the_call():
    """A message that waited 0.09 s in a queue is stale 0.01 s after the callback ran."""
    clock = FakeClock()
    hw = _hw(clock, stale_joints='omit')
    received = clock.t
    clock.t += 0.09                                   # the callback runs late
    hw.set_actuator_state(ACTUATORS, [10.0, 5.0, 5.0], received=received)
    assert hw.update().joint_states is not None
    clock.t += 0.011
    assert hw.update().joint_states is None
    assert hw.states.state_time[0] == received


def test_the_command_watchdog_counts_from_arrival_too():
    clock = FakeClock()
    hw = HardwareInterface(two_transmission_robot(), command_timeout=0.5, state_timeout=0.0,
                           clock=clock)
    hw.set_actuator_state(ACTUATORS, [10.0, 5.0, 5.0])
    received = clock.t
    clock.t += 0.4
    hw.set_joint_command(['j_simple'], [0.7], received=received)
    assert hw.update().actuator_commands
    clock.t += 0.11
    assert hw.update().actuator_commands == []
    hw.set_interface_command('position', [0.1, 0.2, 0.3], received=clock.t - 0.6)
    assert hw.update().actuator_commands == []


def test_an_arrival_time_in_the_future_or_nan_counts_as_now():
    clock = FakeClock()
    hw = _hw(clock)
    for received in (clock.t + 5.0, float('nan')):
        hw.set_actuator_state(ACTUATORS, [10.0, 5.0, 5.0], received=received)
        assert hw.states.state_time[0] == clock.t


def _run(hw, clock, reports, seconds, fresh, lines, start):
    """Cycle at 100 Hz for ``seconds``; ``fresh(k)``: whether cycle k gets a state."""
    for k in range(round(seconds * 100)):
        if fresh(k):
            hw.set_actuator_state(ACTUATORS, [10.0, 5.0, 5.0])
        hw.update()
        lines.extend((clock.t - start, level, line) for level, line in reports.stale(hw))
        clock.t += 0.01


def test_states_flapping_under_load_make_few_lines_and_a_real_stale_state_warns():
    """
    Actuator states that stop and resume every 0.15 s for two minutes: a handful of summaries.

    On e6277b7 the stale and fresh lines came once a second (issue 23, item 35); on 7160cf2 a
    warning every 5 s for as long as a loaded machine made the states late (issue 34).  Now a
    stale state that lasts under STALE_PERSIST (1 s) is a brief episode: they are summarised,
    the summaries further and further apart (5, 10, 20, 40, then 60 s), while a stale state that
    lasts warns within a second, and its end is an info line.
    """
    clock = FakeClock()
    hw = _hw(clock)
    reports = Reports(clock)
    start = clock.t
    lines = []
    _run(hw, clock, reports, 120.0, lambda k: k % 30 < 15, lines, start)  # 0.15 s on, 0.15 off
    assert hw.states.fresh_changes >= 700   # the states did flap, about 800 times
    times = [round(t) for t, _, _ in lines]
    assert times == [0, 5, 15, 35, 75], lines
    for t, level, line in lines:
        assert level == 'warning' and line.startswith('actuator states were late '), line
        assert '(j_simple, j_d1, j_d2)' in line and 'state_timeout 0.1 s' in line, line
        assert 'A loaded machine or a slow driver?' in line
    assert 'late once since the last line' in lines[0][2]            # not "1 times"
    assert re.search(r'late \d\d+ times since the last line', lines[-1][2])
    lines.clear()
    start = clock.t
    _run(hw, clock, reports, 6.0, lambda k: False, lines, start)       # then silent
    _run(hw, clock, reports, 6.0, lambda k: True, lines, start)        # then fresh
    [(t_stale, stale_level, stale), (t_fresh, fresh_level, fresh)] = lines
    # the flapping's last state came up to 0.15 s before: stale a second later, warned
    assert 0.85 <= t_stale <= 1.2, lines
    assert stale_level == 'warning' and stale.startswith('no actuator state for 1.1 s '
                                                         '(state_timeout 0.1 s): 3 joints stale')
    assert 5.99 <= t_fresh <= 6.05
    assert fresh_level == 'info'
    assert re.fullmatch(r'every actuator state is fresh again \(after 6\.\d s\)', fresh), fresh


def test_one_stale_joint_is_said_in_the_singular():
    clock = FakeClock()
    hw = HardwareInterface(two_transmission_robot(), state_timeout=0.1, clock=clock)
    reports = Reports(clock)
    lines = []
    _run(hw, clock, reports, 0.5, lambda k: True, lines, clock.t)
    hw.set_actuator_state(['m_d1', 'm_d2'], [5.0, 5.0])
    for _ in range(150):            # m_simple silent for 1.5 s, the others fresh
        hw.set_actuator_state(['m_d1', 'm_d2'], [5.0, 5.0])
        hw.update()
        lines += reports.stale(hw)
        clock.t += 0.01
    [(level, line)] = lines
    assert line.startswith('no actuator state for 1.1 s (state_timeout 0.1 s): 1 joint stale '
                           '(j_simple)'), line
