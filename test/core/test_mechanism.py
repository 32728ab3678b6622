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
The common definition: a mechanism given by one direction, the other by Newton's method.

A small square mechanism defined joint to actuator only (a sheared, bent map with a bounded
domain) and one defined actuator to joint only: the derived directions, the neutral start, the
step halving at the domain's edge, batches equal to single samples, the definition checks and
the workspace reports.
"""

import math

import numpy as np
import pytest

from transmission_plugins.core.exceptions import TransmissionInputError
from transmission_plugins.core.mechanism import Mechanism
from transmission_plugins.core.mechanism import newton
from transmission_plugins.core.mechanism import SINGULAR_CONDITION


class Bent(Mechanism):
    r"""
    :math:`\theta_1 = 2q_1 + \sin q_2`, :math:`\theta_2 = q_2 - \sqrt{1 - q_1^2} + 1`.

    Defined for :math:`|q_1| \le 1` only (NaN beyond: the domain's edge), regular inside
    except where :math:`\det K = 2 + q_1\cos q_2/\sqrt{1 - q_1^2}` vanishes.  Defined by
    ``actuator_position_and_jacobian`` alone.
    """

    evaluations = 0

    def num_actuators(self):
        return 2

    def num_joints(self):
        return 2

    def actuator_position_and_jacobian(self, joint_position):
        type(self).evaluations += 1
        q = np.asarray(joint_position, dtype=float)
        with np.errstate(invalid='ignore'):
            root = np.sqrt(1.0 - q[..., 0] ** 2)
        theta = np.stack((2.0 * q[..., 0] + np.sin(q[..., 1]), q[..., 1] - root + 1.0), -1)
        k = np.empty(q.shape + (2,))
        k[..., 0, 0], k[..., 0, 1] = 2.0, np.cos(q[..., 1])
        k[..., 1, 0], k[..., 1, 1] = q[..., 0] / root, 1.0
        return theta, k


class Edge(Bent):
    r"""
    :math:`\theta_1 = \arcsin q_1 + 0.2 q_2`, :math:`\theta_2 = q_2 + 0.1 q_1`: one-to-one.

    Defined for :math:`|q_1| \le 1` only; :math:`\det K = 1/\sqrt{1 - q_1^2} - 0.02 > 0`.
    """

    def actuator_position_and_jacobian(self, joint_position):
        q = np.asarray(joint_position, dtype=float)
        with np.errstate(invalid='ignore', divide='ignore'):
            slope = 1.0 / np.sqrt(1.0 - q[..., 0] ** 2)
            theta = np.stack((np.arcsin(q[..., 0]) + 0.2 * q[..., 1], q[..., 1] + 0.1 * q[..., 0]),
                             -1)
        k = np.empty(q.shape + (2,))
        k[..., 0, 0], k[..., 0, 1], k[..., 1, 0], k[..., 1, 1] = slope, 0.2, 0.1, 1.0
        return theta, k


class Forward(Mechanism):
    r""":math:`q = \theta + 0.1\theta^3` (one actuator, one joint), defined actuator to joint."""

    def num_actuators(self):
        return 1

    def num_joints(self):
        return 1

    def joint_position(self, actuator_position):
        theta = np.asarray(actuator_position, dtype=float)
        return theta + 0.1 * theta ** 3

    def actuator_to_joint_jacobian(self, actuator_position=None):
        theta = np.asarray(actuator_position, dtype=float)
        return (1.0 + 0.3 * theta ** 2)[..., None]


# ------------------------------------------------------------------------------ preconditions
def test_a_mechanism_needs_a_position_map_and_its_jacobian():
    class Nothing(Mechanism):
        def num_actuators(self):
            return 1

        def num_joints(self):
            return 1

    with pytest.raises(TypeError, match='must define joint_position or actuator_position'):
        Nothing()

    class Half(Nothing):
        def actuator_position(self, joint_position):
            return joint_position

    with pytest.raises(TypeError, match='defines actuator_position without '
                                        'joint_to_actuator_jacobian'):
        Half()


def test_only_square_maps_derive_a_direction():
    class Wide(Forward):
        def num_joints(self):
            return 2

    with pytest.raises(NotImplementedError, match='only square maps'):
        Wide().actuator_position(np.zeros(2))


def test_positions_of_the_wrong_size_are_rejected():
    with pytest.raises(TransmissionInputError, match='must have 2 entries'):
        Bent().joint_position(np.zeros(3))
    with pytest.raises(TransmissionInputError, match='one joint position'):
        Bent().workspace_problems(np.zeros((2, 2)))


# ------------------------------------------------------------------------------ white box
def test_the_derived_direction_inverts_the_defined_one_with_its_jacobian():
    t = Bent()
    q = np.array([0.3, -0.7])
    theta = t.actuator_position(q)
    assert theta == pytest.approx([0.6 + math.sin(-0.7), -0.7 - math.sqrt(0.91) + 1.0])
    expected = [[2.0, math.cos(-0.7)], [0.3 / math.sqrt(0.91), 1.0]]
    np.testing.assert_array_equal(t.joint_to_actuator_jacobian(q), expected)
    np.testing.assert_allclose(t.joint_position(theta), q, rtol=0, atol=1e-14)
    k = t.joint_to_actuator_jacobian(q)
    np.testing.assert_allclose(t.actuator_to_joint_jacobian(theta) @ k, np.eye(2), atol=1e-13)
    f = Forward()
    assert f.actuator_position([1.1])[0] == pytest.approx(1.0)   # 1 + 0.1 = 1.1


def test_newton_starts_from_the_linearisation_at_the_neutral_pose():
    t = Bent()
    # K(0) = [[2, 1], [0, 1]] and theta(0) = 0: the start is K(0)^-1 theta
    np.testing.assert_allclose(t.newton_start(True, np.array([3.0, 1.0])), [1.0, 1.0])
    Bent.evaluations = 0
    t.joint_position(t.actuator_position(np.array([0.02, 0.01])))
    assert Bent.evaluations <= 5   # the actuator position, then a few quadratic steps


def test_starts_and_steps_that_leave_the_domain_are_halved():
    """Near q1 = 1 the neutral start, and full steps, land outside |q1| <= 1."""
    t = Edge()
    q = np.array([[0.999, 0.4], [0.9999, -1.0], [-0.99999, 0.3], [0.5, 0.5]])
    theta = t.actuator_position(q)
    assert np.all(np.isnan(t.actuator_position(t.newton_start(True, theta[:3]))[:, 0]))
    np.testing.assert_allclose(t.joint_position(theta), q, atol=1e-12)


def test_newton_gives_nan_where_it_cannot_converge():
    def linearisation(x):
        return x * x + 1.0, (2.0 * x)[..., None]   # no real root

    x, jac = newton(linearisation, np.array([[0.5], [2.0]]))
    assert np.all(np.isnan(x)) and np.all(np.isnan(jac))


# ------------------------------------------------------------------------------ black box
def test_batches_give_what_single_samples_give():
    t = Bent()
    rng = np.random.default_rng(1234)
    q = rng.uniform([-0.9, -1.0], [0.9, 1.0], (50, 2))
    theta = t.actuator_position(q)
    batch = t.joint_position(theta)
    for k in range(len(q)):
        np.testing.assert_array_equal(t.joint_position(theta[k]), batch[k])
    np.testing.assert_allclose(batch, q, atol=1e-12)
    states = {'position': theta, 'velocity': rng.normal(size=(50, 2)),
              'effort': rng.normal(size=(50, 2))}
    joints = t.actuator_to_joint(states)
    back = t.joint_to_actuator(joints)
    for name, values in states.items():
        np.testing.assert_allclose(back[name], values, rtol=1e-12, atol=1e-12)
    power = np.sum(states['effort'] * states['velocity'], -1)
    np.testing.assert_allclose(np.sum(joints['effort'] * joints['velocity'], -1), power,
                               atol=1e-12)


# ------------------------------------------------------------------------------ workspace
def test_workspace_problems_say_outside_and_singular():
    t = Bent()
    assert t.workspace_problems([0.2, 0.1]) == []
    outside = t.workspace_problems([1.5, 0.0])
    assert len(outside) == 1 and 'outside the workspace' in outside[0]
    assert 'joint position [1.5, 0. ]' in outside[0]
    # det K = 0 where 2 sqrt(1 - q1^2) = -q1 cos q2: q2 = pi, q1 = -2/sqrt(5)
    singular = t.workspace_problems([-2.0 / math.sqrt(5.0), math.pi])
    assert len(singular) == 1 and 'singular' in singular[0]
    condition = float(singular[0].split('condition number ')[1].rstrip(')'))
    assert condition > SINGULAR_CONDITION
    assert 'outside the workspace' in t.workspace_problems([50.0, 0.0], to_joint=True)[0]
