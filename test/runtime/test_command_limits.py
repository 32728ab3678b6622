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
Actuator commands never exceed the declared limits, whatever the measured state (issue 15, 1).

Property test over every transmission type (Simple, Differential, FourBarLinkage, PR2 gripper,
PR2 wrist, PR2 simple): measured actuator states inside and far outside their ranges, joint
commands inside and far outside the joint limits, any field combination and every timeout
action.  Each actuator command must be finite and within the actuator's position range, velocity
limit and effort limit.  Before the fix a PR2 gripper velocity command reached twice its mapped
limit: the nonlinear map was linearised at a measured gap outside the joint range.
"""

import math

from hypothesis import given
from hypothesis import HealthCheck
from hypothesis import settings
from hypothesis import strategies as st
import numpy as np
import pytest

from transmission_plugins.robot.loading import load_robot_transmissions
from transmission_plugins.runtime.commands import TIMEOUT_ACTIONS
from transmission_plugins.runtime.hardware_interface import HardwareInterface
from transmission_plugins.tools.launch.node_plan import default_description_file
from transmission_plugins.tools.launch.node_plan import read_description

#: A PR2 wrist and a PR2 simple transmission (the example robot has the other four kinds).
PR2_PARTS = (
    '<robot name="pr2_parts"><link name="base"/><link name="l1"/><link name="l2"/>'
    '<link name="l3"/>'
    '<joint name="flex" type="revolute"><parent link="base"/><child link="l1"/>'
    '<limit lower="-2.18" upper="0.0" effort="10" velocity="3.078"/></joint>'
    '<joint name="roll" type="continuous"><parent link="l1"/><child link="l2"/>'
    '<limit effort="10" velocity="3.6"/></joint>'
    '<joint name="lift" type="revolute"><parent link="l2"/><child link="l3"/>'
    '<limit lower="-0.52" upper="1.39" effort="30" velocity="3.47"/></joint>'
    '<transmission name="wrist_trans" type="pr2_mechanism_model/WristTransmission">'
    '<rightActuator name="wrist_r_motor" mechanicalReduction="60.17"/>'
    '<leftActuator name="wrist_l_motor" mechanicalReduction="60.17"/>'
    '<flexJoint name="flex" mechanicalReduction="-1.0"/>'
    '<rollJoint name="roll" mechanicalReduction="1.0"/></transmission>'
    '<transmission name="lift_trans" type="pr2_mechanism_model/SimpleTransmission">'
    '<actuator name="lift_motor"/><joint name="lift"/><mechanicalReduction>-63.16'
    '</mechanicalReduction></transmission></robot>')

#: The worst ratio |command| / limit seen, per limit kind (reported by the last test).
WORST = {'position': 0.0, 'velocity': 0.0, 'effort': 0.0}
EXAMPLES = {'count': 0}


class Clock:
    """A steady clock moved by hand."""

    t = 10.0

    def __call__(self):
        return self.t


@pytest.fixture(scope='module', params=['example_robot', 'pr2_parts'])
def robot(request):
    if request.param == 'example_robot':
        return load_robot_transmissions(read_description(default_description_file()),
                                        warn=False)
    return load_robot_transmissions(PR2_PARTS, warn=False)


def test_every_transmission_type_is_covered():
    types = set()
    for text in (read_description(default_description_file()), PR2_PARTS):
        types |= {t.type for t in load_robot_transmissions(text, warn=False).transmissions}
    assert {t.split('/')[-1] for t in types} == {
        'SimpleTransmission', 'DifferentialTransmission', 'FourBarLinkageTransmission',
        'PR2GripperTransmission', 'WristTransmission'}
    assert 'pr2_mechanism_model/SimpleTransmission' in types


def _spread(lo, hi, t, wide):
    """Return lo + t (hi - lo), or ``wide`` when the range is unbounded."""
    if math.isfinite(lo) and math.isfinite(hi) and hi > lo:
        return lo + t * (hi - lo)
    return wide


SCALE = st.floats(-2.0, 3.0)                # 0..1 inside the range, the rest outside
WIDE = st.floats(-1e4, 1e4)
SIGNED = st.floats(-3.0, 3.0)               # times the limit: inside and outside
FIELDS = st.sets(st.sampled_from(('position', 'velocity', 'effort')), min_size=1)


def _check(robot, hw, out):
    lo, hi = robot.actuator_lower, robot.actuator_upper
    vlim, elim = robot.actuator_velocity_limit, robot.actuator_effort_limit
    for group in out.actuator_commands:
        idx = [robot.actuator_names.index(n) for n in group.names]
        for field in ('position', 'velocity', 'effort'):
            x = getattr(group, field)
            if x is None:
                continue
            assert np.isfinite(x).all(), (field, group)
            for i, value in zip(idx, x):
                name = robot.actuator_names[i]
                if field == 'position':
                    assert lo[i] <= value <= hi[i], (name, value, lo[i], hi[i])
                    if math.isfinite(lo[i]) and math.isfinite(hi[i]) and hi[i] > lo[i]:
                        excess = max(lo[i] - value, value - hi[i], 0.0) / (hi[i] - lo[i])
                        WORST['position'] = max(WORST['position'], 1.0 + excess)
                    continue
                limit = (vlim if field == 'velocity' else elim)[i]
                assert abs(value) <= limit, (name, field, value, limit)
                if math.isfinite(limit) and limit > 0.0:
                    WORST[field] = max(WORST[field], abs(value) / limit)


@settings(max_examples=150, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_actuator_commands_stay_within_the_actuator_limits(robot, data):
    na, names = len(robot.actuator_names), robot.actuator_names
    clock = Clock()
    action = data.draw(st.sampled_from(TIMEOUT_ACTIONS))
    hw = HardwareInterface(robot, state_timeout=0.0, command_timeout=0.5,
                           timeout_action=action, clock=clock)
    state = [_spread(robot.actuator_lower[i], robot.actuator_upper[i], data.draw(SCALE),
                     data.draw(WIDE)) for i in range(na)]
    hw.set_actuator_state(names, state, [data.draw(WIDE) for _ in range(na)],
                          [data.draw(WIDE) for _ in range(na)])
    joints = hw.commandable_joints()
    fields = data.draw(FIELDS)
    index = [robot.joint_names.index(j) for j in joints]
    command = {}
    for field in fields:
        if field == 'position':
            command[field] = [_spread(robot.joint_lower[j], robot.joint_upper[j],
                                      data.draw(SCALE), data.draw(WIDE)) for j in index]
        else:
            limits = robot.joint_velocity_limit if field == 'velocity' \
                else robot.joint_effort_limit
            command[field] = [data.draw(SIGNED) * limits[j] if math.isfinite(limits[j])
                              else data.draw(WIDE) for j in index]
    hw.set_joint_command(joints, **command)
    _check(robot, hw, hw.update())
    # a measured state outside the range, then the command expires: the timeout action too
    state = [_spread(robot.actuator_lower[i], robot.actuator_upper[i], data.draw(SCALE),
                     data.draw(WIDE)) for i in range(na)]
    hw.set_actuator_state(names, state)
    clock.t += 0.6
    _check(robot, hw, hw.update())
    _check(robot, hw, hw.update())
    EXAMPLES['count'] += 1


def test_the_pr2_gripper_velocity_of_the_issue_is_within_its_limit():
    """The issue's case: a measured gap far outside [0, 0.09] m and a velocity command."""
    robot = load_robot_transmissions(read_description(default_description_file()), warn=False)
    hw = HardwareInterface(robot, state_timeout=0.0, clock=Clock())
    i = robot.actuator_names.index('gripper_motor')
    j = robot.joint_names.index('gripper_joint')
    state = np.zeros(len(robot.actuator_names))
    state[i] = 3.0 * robot.actuator_upper[i]    # a motor position past the open gripper
    hw.set_actuator_state(robot.actuator_names, state)
    # closing, back towards the range (opening further is held back: issue 34)
    hw.set_joint_command(['gripper_joint'], velocity=[-robot.joint_velocity_limit[j]])
    out = hw.update()
    (group,) = out.actuator_commands
    value = group.velocity[group.names.index('gripper_motor')]
    assert abs(value) <= robot.actuator_velocity_limit[i]
    # linearised inside the range, it is the limit the velocity limit maps to, not a clamp
    assert abs(value) == pytest.approx(robot.actuator_velocity_limit[i], rel=0.05)
    hw.set_joint_command(['gripper_joint'], velocity=[robot.joint_velocity_limit[j]])
    (group,) = hw.update().actuator_commands
    assert group.velocity[group.names.index('gripper_motor')] == 0.0


def test_the_worst_limit_margin_is_at_most_one():
    """The largest |command| / limit met (1.0 means a command sat exactly at a limit)."""
    assert EXAMPLES['count'] > 0
    assert all(v <= 1.0 for v in WORST.values()), WORST
