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
The invariants of the ``example()`` test contract, for the mechanisms' own tests.

The shared contract test runs every registered plugin's ``example()`` through them; the
mechanisms run them on their examples and on seeded random instances too.  Given a transmission
and actuator states ``(samples, N)``:

* round trips: actuator -> joint -> actuator gives the states back to 1e-12 (relative to 1);
* velocities are finite differences of the position map (central, step 1e-6);
* power balance ``u . dtheta = tau . dq`` to 1e-9 where the map is square;
* a batch gives what its samples give one by one, bit for bit.
"""

import numpy as np

INTERFACES = ('position', 'velocity', 'effort')


def check_round_trips(transmission, states, tol=1e-12):
    joints = transmission.actuator_to_joint(states)
    back = transmission.joint_to_actuator(joints)
    for name in INTERFACES:
        assert np.all(np.isfinite(joints[name])), name
        np.testing.assert_allclose(back[name], states[name], rtol=tol, atol=tol, err_msg=name)
    return joints


def check_velocities(transmission, states, step=1e-6, tol=1e-6):
    theta, velocity = states['position'], states['velocity']
    joints = transmission.actuator_to_joint({'position': theta, 'velocity': velocity})
    ahead = transmission.actuator_to_joint({'position': theta + step * velocity})['position']
    behind = transmission.actuator_to_joint({'position': theta - step * velocity})['position']
    expected = (ahead - behind) / (2.0 * step)
    scale = 1.0 + np.abs(expected)
    assert np.all(np.abs(joints['velocity'] - expected) <= tol * scale)


def check_power(transmission, states, tol=1e-9):
    if transmission.num_actuators() != transmission.num_joints():
        return
    joints = transmission.actuator_to_joint(states)
    actuator_power = np.sum(states['effort'] * states['velocity'], axis=-1)
    joint_power = np.sum(joints['effort'] * joints['velocity'], axis=-1)
    scale = np.linalg.norm(states['effort'], axis=-1) * np.linalg.norm(states['velocity'], axis=-1)
    assert np.all(np.abs(actuator_power - joint_power) <= tol * (1.0 + scale))


def check_batches(transmission, states):
    for to_joint in (True, False):
        source = states if to_joint else transmission.actuator_to_joint(states)
        convert = transmission.actuator_to_joint if to_joint else transmission.joint_to_actuator
        batch = convert(source)
        count = len(source['position'])
        for k in range(count):
            one = convert({name: values[k] for name, values in source.items()})
            for name in INTERFACES:
                np.testing.assert_array_equal(one[name], batch[name][k], err_msg=name)
        grid = convert({name: np.stack([values, values]) for name, values in source.items()})
        for name in INTERFACES:
            np.testing.assert_array_equal(grid[name][1], batch[name], err_msg=name)


def check_contract(transmission, states):
    """Run every invariant on one transmission and its states."""
    for name in INTERFACES:
        assert states[name].shape == (len(states['position']), transmission.num_actuators())
    check_round_trips(transmission, states)
    check_velocities(transmission, states)
    check_power(transmission, states)
    check_batches(transmission, states)
