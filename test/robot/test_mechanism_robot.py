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

r"""
A robot with mechanisms (test/fixtures/humanoid_legs.urdf): maps, limits, envelopes, inertia.

Two parallel ankles (mirror images), a measured knee and a pushrod knee beside simple hips: the
robot-wide array and name-keyed maps against each transmission's own, the actuator limits
against brute force over a dense grid of the joint box, and the reflected inertia against
:math:`K^T\operatorname{diag}(\rho^2 I_r)K` written out.
"""

import numpy as np
import pytest

from tp_support import FIXTURE_DIR
from transmission_plugins import load_robot_transmissions
from transmission_plugins.robot.limits import envelope
from transmission_plugins.robot.limits import joint_samples

ANKLES = ('left_ankle_trans', 'right_ankle_trans')


@pytest.fixture(scope='module')
def robot():
    return load_robot_transmissions(FIXTURE_DIR / 'humanoid_legs.urdf')


def _indices(robot, t):
    return ([robot.joint_index[j] for j in t.joint_names],
            [robot.actuator_index[a] for a in t.actuator_names])


def _box(robot, t, count):
    joints, _ = _indices(robot, t)
    axes = [np.linspace(robot.joint_lower[j], robot.joint_upper[j], count) for j in joints]
    return np.stack(np.meshgrid(*axes, indexing='ij'), axis=-1).reshape(-1, len(joints))


def test_array_and_name_keyed_maps_agree_with_each_transmission(robot):
    rng = np.random.default_rng(1234)
    q = np.array([rng.uniform(lo, hi, 8) for lo, hi in zip(robot.joint_lower,
                                                           robot.joint_upper)]).T * 0.8
    joints = {'position': q, 'velocity': rng.normal(size=q.shape),
              'effort': rng.normal(size=q.shape)}
    actuators = robot.joint_to_actuator_arrays(joints)
    back = robot.actuator_to_joint_arrays(actuators)
    for name in joints:
        np.testing.assert_allclose(back[name], joints[name], rtol=1e-12, atol=1e-12)
    for t in robot.transmissions:
        j, a = _indices(robot, t)
        own = t.transmission.joint_to_actuator({k: v[:, j] for k, v in joints.items()})
        for name in joints:
            np.testing.assert_array_equal(actuators[name][:, a], own[name])
    named = robot.actuator_to_joint({k: dict(zip(robot.actuator_names, v[3]))
                                     for k, v in actuators.items()})
    for name in joints:
        np.testing.assert_allclose([named[name][j] for j in robot.joint_names], back[name][3],
                                   rtol=1e-12, atol=1e-12)


def test_nonlinear_maps_sample_a_grid_of_the_joints_they_read(robot):
    ankle = robot.transmission(ANKLES[0])
    j, _ = _indices(robot, ankle)
    samples = joint_samples(ankle.transmission, robot.joint_lower[j], robot.joint_upper[j])
    assert samples.shape == (33 * 33, 2)
    assert {tuple(c) for c in samples} >= {(-0.8, -0.3), (-0.8, 0.3), (0.5, -0.3), (0.5, 0.3)}
    np.testing.assert_allclose(samples[len(samples) // 2], [-0.15, 0.0])
    np.testing.assert_allclose(robot.default_joint_position()[j], [-0.15, 0.0])


@pytest.mark.parametrize('name', ANKLES + ('left_knee_trans', 'right_knee_trans'))
def test_actuator_limits_match_brute_force_over_the_joint_box(robot, name):
    t = robot.transmission(name)
    j, a = _indices(robot, t)
    dense = _box(robot, t, 201)
    theta = t.transmission.actuator_position(dense)
    k = t.transmission.joint_to_actuator_jacobian(dense)
    assert np.all(np.isfinite(theta))
    # the reported range comes from a 33-point grid: inside the dense one, and close to it
    assert np.all(robot.actuator_lower[a] >= theta.min(axis=0) - 1e-12)
    assert np.all(robot.actuator_upper[a] <= theta.max(axis=0) + 1e-12)
    np.testing.assert_allclose(robot.actuator_lower[a], theta.min(axis=0), atol=2e-3)
    np.testing.assert_allclose(robot.actuator_upper[a], theta.max(axis=0), atol=2e-3)
    speed = np.abs(k) @ robot.joint_velocity_limit[j]
    np.testing.assert_allclose(robot.actuator_velocity_limit[a], speed.max(axis=0), rtol=1e-2)
    # tau = K^T u: the joint efforts the actuators' effort limits can deliver
    reach = np.abs(np.swapaxes(k, -1, -2)) @ robot.actuator_effort_limit[a]
    np.testing.assert_allclose(robot.joint_effort_limit_from_actuators[j], reach.max(axis=0),
                               rtol=1e-2)


def test_mirrored_ankles_have_the_same_limits(robot):
    (_, left), (_, right) = (_indices(robot, robot.transmission(n)) for n in ANKLES)
    for field in ('actuator_lower', 'actuator_upper', 'actuator_velocity_limit'):
        values = getattr(robot, field)
        np.testing.assert_allclose(values[left], values[right], rtol=1e-12, err_msg=field)


def test_the_envelope_gives_the_limits_at_each_position(robot):
    t = robot.transmission(ANKLES[0])
    j, a = _indices(robot, t)
    q = np.array([[0.0, 0.0], [0.4, -0.2], [5.0, 5.0]])
    bounds = envelope(t.transmission, q, robot.joint_velocity_limit[j],
                      robot.joint_effort_limit[j], robot.actuator_effort_limit[a])
    k = t.transmission.joint_to_actuator_jacobian(q[:2])
    np.testing.assert_allclose(bounds.actuator_position[:2], t.transmission.actuator_position(
        q[:2]))
    np.testing.assert_allclose(bounds.actuator_velocity[:2],
                               np.abs(k) @ robot.joint_velocity_limit[j])
    np.testing.assert_allclose(bounds.joint_effort[:2],
                               np.abs(np.swapaxes(k, -1, -2)) @ robot.actuator_effort_limit[a])
    j_inv = np.linalg.inv(k)   # u = J^T tau
    np.testing.assert_allclose(bounds.actuator_effort[:2],
                               np.abs(np.swapaxes(j_inv, -1, -2)) @ robot.joint_effort_limit[j])
    assert np.all(np.isnan(bounds.actuator_position[2])) and np.all(np.isnan(
        bounds.joint_effort[2]))
    whole = envelope(t.transmission, joint_samples(t.transmission, robot.joint_lower[j],
                                                   robot.joint_upper[j]),
                     robot.joint_velocity_limit[j])
    np.testing.assert_allclose(whole.actuator_velocity.max(axis=0),
                               robot.actuator_velocity_limit[a])


def test_reflected_inertia_is_k_transposed_rho_squared_k_at_the_position(robot):
    q = robot.default_joint_position()
    q[robot.joint_index['left_ankle_pitch_joint']] = 0.3
    q[robot.joint_index['left_ankle_roll_joint']] = -0.2
    inertia = robot.reflected_inertia(q)
    t = robot.transmission(ANKLES[0])
    j, _ = _indices(robot, t)
    k = t.transmission.joint_to_actuator_jacobian(q[j])
    rotor = 10.0 ** 2 * 0.00012   # drake:gear_ratio 10, rotor_inertia 0.00012
    np.testing.assert_allclose(inertia[np.ix_(j, j)], rotor * k.T @ k, rtol=1e-12)
    assert abs(inertia[j[0], j[1]]) > 1e-4   # the two motors couple pitch and roll
    knee = robot.joint_index['right_knee_joint']
    slider = robot.transmission('right_knee_trans').transmission
    k_knee = slider.joint_to_actuator_jacobian(q[[knee]])[0, 0]
    assert inertia[knee, knee] == pytest.approx(3000.0 ** 2 * 2e-5 * k_knee ** 2, rel=1e-12)
    assert not np.allclose(robot.reflected_inertia()[np.ix_(j, j)], inertia[np.ix_(j, j)])
