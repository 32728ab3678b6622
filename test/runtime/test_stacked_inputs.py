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
The event-driven node's short cuts give what the general paths give, bit for bit.

A state message whose three fields arrive as the rows of one array (``stacked``, as the node's
decoder reads them) is stored as the same message given field by field, refused for the same
reason, and the one-sample stacked conversion equals the per-interface one.
"""

import numpy as np
import pytest

from transmission_plugins.runtime.hardware_interface import HardwareInterface
from transmission_plugins.runtime.hardware_interface import InputRejected


class Clock:
    """A steady clock the test moves by hand."""

    t = 50.0

    def __call__(self) -> float:
        return self.t


def _pair(robot, stale_joints='last'):
    clock = Clock()
    return (HardwareInterface(robot, clock=clock, stale_joints=stale_joints),
            HardwareInterface(robot, clock=clock, stale_joints=stale_joints), clock)


def _message(robot, rng, order):
    names = [robot.actuator_names[i] for i in order]
    return names, rng.normal(size=(3, len(names)))


@pytest.mark.parametrize('stale_joints', ['last', 'omit'])
@pytest.mark.parametrize('robot_name', ['example_robot', 'pr2'])
def test_a_stacked_state_is_stored_and_converted_as_the_same_fields(robot_name, stale_joints,
                                                                    request):
    robot = request.getfixturevalue(robot_name)
    rng = np.random.default_rng(11)
    plain, fast, clock = _pair(robot, stale_joints)
    n = len(robot.actuator_names)
    orders = [np.arange(n), rng.permutation(n), np.arange(n)[::2], np.arange(n)]
    for k, order in enumerate(orders * 2):
        names, values = _message(robot, rng, order)
        clock.t += 0.001
        plain.set_actuator_state(names, *values)
        # the same list object twice: the second message takes the short cut
        for _ in range(2):
            fast.set_actuator_state(names, *values, stacked=values)
        np.testing.assert_array_equal(fast.states._values, plain.states._values)
        np.testing.assert_array_equal(fast.states.state_time, plain.states.state_time)
        for late in (0.0, 0.05, 0.2):   # fresh, still fresh, stale (state_timeout 0.1 s)
            a, b = plain.joint_states(clock.t + late), fast.joint_states(clock.t + late)
            assert (a is None) == (b is None), (k, late)
            if a is not None:
                assert a.names == b.names
                for x, y in zip(a[1:], b[1:]):
                    np.testing.assert_array_equal(x, y)


def test_a_bad_stacked_state_is_refused_as_the_same_fields(example_robot):
    plain, fast, _ = _pair(example_robot)
    names = list(example_robot.actuator_names)
    values = np.ones((3, len(names)))
    for hw in (plain, fast):
        hw.set_actuator_state(names, *values)
    before = fast.states._values.copy()
    values[1, 2] = np.nan
    with pytest.raises(InputRejected) as expected:
        plain.set_actuator_state(names, *values)
    with pytest.raises(InputRejected) as got:
        fast.set_actuator_state(names, *values, stacked=values)
    assert (got.value.reason, got.value.detail) == (expected.value.reason, expected.value.detail)
    assert got.value.reason == 'non_finite' and 'velocity' in got.value.detail
    np.testing.assert_array_equal(fast.states._values, before)   # nothing stored
    assert dict(fast.drops) == dict(plain.drops) == {'actuator_states': {'non_finite': 1}}
    with pytest.raises(InputRejected, match='length_mismatch'):   # a stacked of the wrong shape
        fast.set_actuator_state(names, *values[:, :-1], stacked=values[:, :-1])
    ints = np.ones((3, len(names)), dtype=int)
    for stacked in (ints, ints.tolist(), ints.astype(object)):   # not float64 arrays: checked
        fast.set_actuator_state(names, *ints, stacked=stacked)   # field by field
        np.testing.assert_array_equal(fast.states._values, ints)


@pytest.mark.parametrize('robot_name', ['example_robot', 'pr2'])
def test_the_stacked_sample_is_the_interfaces_one_after_the_other(robot_name, request):
    robot = request.getfixturevalue(robot_name)
    rng = np.random.default_rng(5)
    for to_joint, n in ((True, len(robot.actuator_names)), (False, len(robot.joint_names))):
        convert = robot.actuator_to_joint_arrays if to_joint else robot.joint_to_actuator_arrays
        values = {f: rng.normal(size=n) for f in ('position', 'velocity', 'effort')}
        expected = np.concatenate(list(convert(values).values()))
        got = robot.fused.single_stacked(values, to_joint)
        np.testing.assert_array_equal(got, expected)
        assert got is not robot.fused.single_stacked(values, to_joint)   # a new array each time
        assert robot.fused.single_stacked({'position': values['position'][:-1]},
                                          to_joint) is None   # not one sample of the robot
