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
What the interface nodes log at bring-up (issue 34): a silent input early, NaN commands once.

The rest of :class:`~transmission_plugins.runtime.reports.Reports` (stale joints, incomplete
commands) is tested in test_stale_joints.py and test/ros/test_misuse.py.
"""

import math
import re

import pytest

from test_hardware_interface import FakeClock
from test_hardware_interface import two_transmission_robot
from transmission_plugins.runtime.hardware_interface import HardwareInterface
from transmission_plugins.runtime.messages import InputRejected
from transmission_plugins.runtime.reports import Reports


def test_no_state_since_activation_is_a_warning_after_a_few_seconds():
    # states on the wrong topic said nothing on the console for 25 s, only on /diagnostics
    clock = FakeClock()
    hw = HardwareInterface(two_transmission_robot(), clock=clock)
    reports = Reports(clock)
    active = clock.t
    asked = []

    def where():
        asked.append(clock.t)
        return 'nothing on /robot1/actuator_states (no publisher)'

    lines = []
    for _ in range(4000):              # 40 s at 100 Hz
        line = reports.no_state(hw, active, where)
        if line:
            lines.append((round(clock.t - active, 2), line))
        clock.t += 0.01
    assert [t for t, _ in lines] == pytest.approx([3.0, 33.0], abs=0.015), lines
    assert len(asked) == 2             # the node is asked about its topic only for a line
    line = lines[0][1]
    assert line.startswith('no actuator state received in 3 s since activation: nothing on '
                           '/robot1/actuator_states (no publisher); expected sensor_msgs/'
                           'JointState naming the actuators m_simple, m_d1, m_d2'), line
    hw.set_actuator_state(['m_simple'], [1.0])
    clock.t += 100.0
    assert reports.no_state(hw, active, where) is None


def test_nan_commands_are_one_line_then_a_summary_a_minute():
    # ros2_control's TopicBasedSystem sends NaN for the joints no active controller claims:
    # the PR2's start logged a drop line a second, 795 drops, before the controllers ran
    clock = FakeClock()
    hw = HardwareInterface(two_transmission_robot(), clock=clock)
    reports = Reports(clock)
    start = clock.t
    lines = []

    def send(seconds, value=math.nan):
        for _ in range(round(seconds * 100)):
            with pytest.raises(InputRejected):
                hw.set_joint_command(['j_simple'], [value], topic='joint_commands')
            lines.extend((round(clock.t - start), line) for line in reports.drops(hw.drops))
            clock.t += 0.01

    send(10.0)
    assert len(lines) == 1, lines
    assert lines[0][1].startswith('joint_commands: a message with NaN or infinity was dropped '
                                  '(position contains NaN or infinity)'), lines[0][1]
    assert 'ros2_control sends NaN for the joints no active controller commands' in lines[0][1]
    send(60.0)
    assert [t for t, _ in lines] == [0, 60], lines
    assert re.match(r'joint_commands: (\d+) more messages with NaN or infinity dropped in the '
                    r'last 60 s \((\d+) in all; dropped.joint_commands.non_finite on '
                    r'/diagnostics\)$', lines[1][1]), lines[1][1]
    # other drops keep their one line a second
    with pytest.raises(InputRejected):
        hw.set_joint_command(['j_simple', 'nope'], [0.0, 0.0], topic='joint_commands')
    assert [line for line in reports.drops(hw.drops) if 'unknown_names' in line]
