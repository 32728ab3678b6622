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
The simulation interface driven in halves (its event-driven mode), without ROS.

The state half (:meth:`SimInterface.actuator_states`), the command half
(:meth:`SimInterface.joint_commands` with :meth:`SimInterface.array_outputs`) against
:meth:`SimInterface.update` on random joint states and actuator commands; fresh PR2 joint
states mapped to the actuator positions the robot's maps give.
"""


import numpy as np
import pytest

from transmission_plugins.runtime.sim_interface import SimInterface
from transmission_plugins.runtime.states import LatestStates


class Clock:
    """A steady clock the test moves."""

    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def _equal(a, b):
    if a is None or b is None:
        return a is b
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    return list(a.names) == list(b.names) and all(
        (x is None and y is None) or (x is not None and y is not None
                                      and np.array_equal(x, y))
        for x, y in zip(a[1:], b[1:]))


def _inputs(robot, rng, n, commands=True):
    """Random joint states (all joints, or some; some NaN), actuator commands, clock steps."""
    steps = []
    kinds = ['state', 'state', 'command', 'wait'] if commands else ['state', 'state', 'wait']
    for _ in range(n):
        kind = rng.choice(kinds)
        if kind == 'wait':
            steps.append(('wait', float(rng.choice([0.001, 0.05, 0.3]))))
            continue
        pool = robot.joint_names if kind == 'state' else robot.actuator_names
        count = len(pool) if rng.random() < 0.6 else int(rng.integers(1, len(pool) + 1))
        chosen = list(rng.permutation(pool)[:count])
        values = {}
        for field in ('position', 'velocity', 'effort'):
            if rng.random() < 0.85:
                x = rng.uniform(-0.5, 0.5, len(chosen))
                if rng.random() < 0.1:
                    x[int(rng.integers(len(x)))] = np.nan   # rejected as a whole
                values[field] = x
        steps.append((kind, chosen, values))
    return steps


def _feed(sim, clock, step):
    if step[0] == 'wait':
        clock.t += step[1]
        return
    kind, names, values = step
    store = sim.set_joint_state if kind == 'state' else sim.set_actuator_command
    try:
        store(names, **values)
    except ValueError:
        pass


@pytest.mark.filterwarnings('ignore::RuntimeWarning')
@pytest.mark.parametrize('seed', range(4))
def test_the_two_halves_make_what_update_makes(example_robot, seed):
    rng = np.random.default_rng(seed)
    clocks = Clock(), Clock()
    whole, halves = (SimInterface(example_robot, clock=c, timeout_action='hold',
                                  state_timeout=0.2, command_timeout=0.25,
                                  array_commands=['position', 'velocity'])
                     for c in clocks)
    arrays_seen = 0
    for step in _inputs(example_robot, rng, 60):
        for sim, clock in zip((whole, halves), clocks):
            _feed(sim, clock, step)
        out = whole.update()
        assert _equal(out.actuator_states, halves.actuator_states())
        assert _equal(out.joint_commands, halves.joint_commands())
        assert _equal(out.array_commands, halves.array_outputs())
        arrays_seen += len(out.array_commands)
    assert seed > 0 or arrays_seen > 0   # the arrays were compared at least once


def test_fresh_pr2_joint_states_give_the_mapped_actuator_positions(pr2):
    clock = Clock()
    sim = SimInterface(pr2, clock=clock)
    assert isinstance(sim.states, LatestStates) and sim.states.direction.source == 'joint'
    q = pr2.default_joint_position()
    n = len(pr2.joint_names)
    for i in range(3):
        sim.set_joint_state(pr2.joint_names, q + 1e-3 * i, np.zeros(n), np.zeros(n))
        clock.t += 0.001
        out = sim.actuator_states()
        expected = pr2.joint_to_actuator_arrays({'position': q + 1e-3 * i})['position']
        np.testing.assert_allclose(out.position, expected, atol=1e-12)
        assert out.names == pr2.actuator_names
