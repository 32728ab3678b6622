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
Transmissions with more joints than actuators in MuJoCo: the joints stay where the maps put them.

The references are the fixtures' own matrices, written out here: the joints of a coupling
:math:`q = A\theta + q_0`, :math:`\theta = B(q - q_0)` must keep :math:`(I - AB)(q - q_0) = 0`
while they move, a J0's two joints equal, and the actuator positions reported are
:math:`B(q - q_0)`.
"""

from mujoco_cases import j0_finger
from mujoco_cases import loaded
import numpy as np
import pytest
from tp_support import FIXTURE_DIR
from transmission_plugins.core.mechanism import Mechanism
from transmission_plugins.robot.robot_transmissions import RobotTransmissions
from transmission_plugins.robot.wiring import RobotTransmission
from transmission_plugins.runtime.mujoco_model import ModelOptions
from transmission_plugins.runtime.mujoco_physics import MujocoPhysics
from transmission_plugins.urdf.joints import read_robot_model

#: coupled_hand.urdf's couplings: joints, A, B (the thumb's: A's pseudo-inverse) and q0
HAND = {
    'thumb': (('thumb_j1', 'thumb_j2', 'thumb_j3'), ('thumb_motor',), [[0.02], [0.04], [0.04]],
              np.linalg.pinv([[0.02], [0.04], [0.04]]), [0.05, 0.0, 0.0]),
    'index': (('index_j1', 'index_j2', 'index_j3'), ('index_flexor', 'index_extensor'),
              [[0.1, 0.0], [0.0, 0.1], [0.1, 0.1]], [[10.0, 0.0, 0.0], [0.0, 10.0, 0.0]],
              [0.0, 0.0, 0.0]),
    'middle': (('middle_J1', 'middle_J2'), ('middle_J0',), [[0.5], [0.5]], [[1.0, 1.0]],
               [0.0, 0.0]),
}
#: the joints leave the image by less than this while they move (radians)
ON_IMAGE = 1e-6


def _residual(coupling, q):
    """Return :math:`(I - AB)(q - q_0)` of one coupling at joint positions ``q`` (by name)."""
    joints, _, a, b, q0 = coupling
    dq = np.array([q[n] for n in joints]) - q0
    return dq - np.asarray(a) @ (np.asarray(b) @ dq)


def _run(physics, couplings, steps):
    r"""
    Step ``physics`` and check every step; return how far each joint moved, and the steps.

    At every step: each coupling's joints on its image within :data:`ON_IMAGE`, the actuator
    positions :math:`B(q - q_0)`, and actuator work equal to joint work over the step,
    :math:`u\cdot\Delta\theta = \tau\cdot\Delta q` (:math:`u` and :math:`\tau` act through the
    step).  The maps are linear, :math:`\Delta\theta = B\Delta q` exactly, so the two sides
    differ by rounding only: the differences carry the rounding of the positions they subtract,
    a few ulps (2.2e-16) of :math:`|\theta|` and :math:`|q|`; allowed: 1e-14 (45 ulps) of
    :math:`|u|\cdot(|\theta| + |\theta'|) + |\tau|\cdot(|q| + |q'|)`.  A step counts as doing
    work when it does a thousand times that.
    """
    robot = physics.robot
    joints, actuators = robot.joint_index, robot.actuator_index
    q = physics.joint_state()['position']
    theta = physics.state()['position']
    low, high = q.copy(), q.copy()
    worked = 0
    for _ in range(steps):
        physics.step(physics.physics_step)
        u, tau = physics.state()['effort'], physics.joint_state()['effort']
        q_next, theta_next = physics.joint_state()['position'], physics.state()['position']
        named = {n: q_next[i] for n, i in joints.items()}
        for coupling in couplings:
            assert np.max(np.abs(_residual(coupling, named))) <= ON_IMAGE
            names, motors, _, b, q0 = coupling
            expected = np.asarray(b) @ (np.array([named[n] for n in names]) - q0)
            np.testing.assert_allclose(theta_next[[actuators[m] for m in motors]], expected,
                                       rtol=1e-12, atol=1e-12)
        actuator_work = float(np.dot(u, theta_next - theta))
        joint_work = float(np.dot(tau, q_next - q))
        rounding = 1e-14 * (np.abs(u) @ (np.abs(theta) + np.abs(theta_next))
                            + np.abs(tau) @ (np.abs(q) + np.abs(q_next)))
        assert abs(actuator_work - joint_work) <= rounding
        worked += abs(actuator_work) > 1e3 * rounding
        q, theta = q_next, theta_next
        low, high = np.minimum(low, q), np.maximum(high, q)
    return high - low, worked


def test_the_coupled_hand_starts_on_its_couplings_where_the_maps_put_its_box_centre():
    """Start at q = f(g(q_c)): the centre of the index finger's joint box breaks q3 = q1 + q2."""
    text, robot = loaded(FIXTURE_DIR / 'coupled_hand.urdf')
    q = robot.default_joint_position()
    named = dict(zip(robot.joint_names, q))
    assert named['index_j3'] != pytest.approx(named['index_j1'] + named['index_j2'])
    start = dict(zip(robot.joint_names, MujocoPhysics(robot, text).joint_state()['position']))
    for joints, _, a, b, q0 in HAND.values():
        centre = np.array([named[n] for n in joints])
        expected = np.asarray(a) @ (np.asarray(b) @ (centre - q0)) + q0
        np.testing.assert_allclose([start[n] for n in joints], expected, rtol=0, atol=1e-12)
    assert start['index_j3'] == pytest.approx(1.35)   # 0.6 + 0.75, not the centre's 1.5


def test_the_coupled_hand_moves_on_its_couplings():
    text, robot = loaded(FIXTURE_DIR / 'coupled_hand.urdf')
    physics = MujocoPhysics(robot, text, ModelOptions(physics_step=1e-3))
    # thumb (0.75, 1.4, 1.4), index (1.2, 1.2, 2.4), wrist 0.1, middle (0.2, 0.2)
    target = {'thumb_motor': 35.0, 'index_flexor': 12.0, 'index_extensor': 12.0,
              'wrist_flexor': 2.0, 'wrist_extensor': -2.0, 'middle_J0': 0.4}
    physics.set_command('position', [target[n] for n in robot.actuator_names])
    moved, worked = _run(physics, HAND.values(), 600)
    moved = dict(zip(robot.joint_names, moved))
    assert min(moved[n] for n in HAND['index'][0] + HAND['middle'][0]) > 0.1, moved
    # the thumb motor (0.2 kg m^2 reflected through 100:1) accelerates slowly at its effort limit
    assert min(moved[n] for n in HAND['thumb'][0]) > 2e-3, moved
    assert worked > 500


def test_a_j0_finger_lifts_its_joints_together_against_gravity():
    """A J0 under gravity, its joints damped as the Shadow hand's (0.1 N m s)."""
    text, robot = loaded(j0_finger())
    physics = MujocoPhysics(robot, text, ModelOptions(physics_step=1e-3))
    j0 = (('FFJ1', 'FFJ2'), ('FFJ0',), [[0.5], [0.5]], [[1.0, 1.0]], [0.0, 0.0])
    physics.set_command('position', [0.3])   # from 1.57 (both joints at 0.785) down
    moved, worked = _run(physics, [j0], 500)
    assert np.all(moved > 0.1)
    physics.set_command('position', [2.8])   # and up again, lifting the finger
    moved, worked = _run(physics, [j0], 500)
    assert np.all(moved > 0.1)
    assert worked > 400


class CamFinger(Mechanism):
    r"""
    Drive two joints by one tendon through a cam, nonlinear.

    :math:`q_1 = \theta/2`, :math:`q_2 = \theta/2 + 0.1\sin\theta`; :math:`\theta = 2q_1`.
    """

    def num_actuators(self):
        return 1

    def num_joints(self):
        return 2

    def joint_position(self, actuator_position):
        t = np.asarray(actuator_position, dtype=float)[..., 0]
        return np.stack([t / 2.0, t / 2.0 + 0.1 * np.sin(t)], axis=-1)

    def actuator_to_joint_jacobian(self, actuator_position=None):
        t = np.asarray(actuator_position, dtype=float)[..., 0]
        return np.stack([np.full_like(t, 0.5), 0.5 + 0.1 * np.cos(t)], axis=-1)[..., None]

    def actuator_position(self, joint_position):
        return 2.0 * np.asarray(joint_position, dtype=float)[..., :1]

    def joint_to_actuator_jacobian(self, joint_position=None):
        shape = np.shape(joint_position)[:-1] + (1, 2)
        return np.broadcast_to(np.array([[2.0, 0.0]]), shape)


def test_a_nonlinear_mechanism_is_held_on_its_image_as_it_moves():
    """The constraint follows the map: q2 = q1 + 0.1 sin(2 q1), rewritten every step."""
    text = j0_finger(damping=0.1)   # its J0 left out: the cam drives the finger instead
    joints = read_robot_model(text).joints
    robot = RobotTransmissions([RobotTransmission('cam', 'CamFinger', CamFinger(),
                                                  ('FFJ2', 'FFJ1'), ('tendon',))],
                               joints.values())
    physics = MujocoPhysics(robot, text, ModelOptions(physics_step=1e-3))
    physics.set_command('position', [2.8])
    q = physics.joint_state()['position']
    assert q[1] == pytest.approx(q[0] + 0.1 * np.sin(2.0 * q[0]), abs=1e-12)   # f(g(q_c))
    low, high = q.copy(), q.copy()
    for _ in range(600):
        physics.step(physics.physics_step)
        q = physics.joint_state()['position']
        proximal, distal = q
        assert abs(distal - (proximal + 0.1 * np.sin(2.0 * proximal))) <= ON_IMAGE
        low, high = np.minimum(low, q), np.maximum(high, q)
    assert np.all(high - low > 0.1)
