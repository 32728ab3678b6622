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
The MuJoCo mock with mechanisms (test/fixtures/humanoid_legs.urdf): torques and rotor inertia.

Square nonlinear mechanisms (two parallel ankles, a measured knee, a pushrod knee) take no
special path: each step their joints get :math:`\tau = K(q)^T u` and their rotors add
:math:`K(q)^T \operatorname{diag}(\rho^2 I_r) K(q)` to the inertia matrix, through tendons whose
coefficients follow the position.
"""

from mujoco_cases import loaded
from mujoco_cases import mujoco
import numpy as np
import pytest

from tp_support import FIXTURE_DIR
from transmission_plugins.runtime.mujoco_model import ModelOptions
from transmission_plugins.runtime.mujoco_physics import MujocoPhysics

LEGS = FIXTURE_DIR / 'humanoid_legs.urdf'


def _rotor_inertia(physics):
    """Return what the rotor tendons add to MuJoCo's inertia matrix (robot joints), as set."""
    m, d, dof = physics.model, physics.data, physics.built.dof
    matrices = []
    saved = m.tendon_armature.copy()
    for armature in (saved, 0.0):
        m.tendon_armature[:] = armature
        mujoco.mj_forward(m, d)
        full = np.zeros((m.nv, m.nv))
        mujoco.mj_fullM(m, d, full)
        matrices.append(full[np.ix_(dof, dof)])
    m.tendon_armature[:] = saved
    return matrices[0] - matrices[1]


@pytest.fixture()
def legs():
    text, robot = loaded(LEGS)
    q = robot.default_joint_position()
    for name, value in (('left_ankle_pitch_joint', 0.3), ('left_ankle_roll_joint', -0.2),
                        ('right_knee_joint', 0.4), ('left_knee_joint', 0.5)):
        q[robot.joint_index[name]] = value
    return robot, MujocoPhysics(robot, text, ModelOptions(gravity=False), joint_position=q)


def test_the_rotors_add_the_reflected_inertia_at_the_position(legs):
    robot, physics = legs
    before = physics.joint_state()['position']
    np.testing.assert_allclose(_rotor_inertia(physics), robot.reflected_inertia(before),
                               rtol=1e-10, atol=1e-14)
    target = physics.state()['position'] + 0.2
    physics.set_command(['position'] * len(target), target)
    physics.step(0.3)
    start = physics.joint_state()['position']
    assert np.max(np.abs(start - before)) > 0.05
    physics.step(physics.physics_step)   # sets the tendons at the step's start, then moves
    np.testing.assert_allclose(_rotor_inertia(physics), robot.reflected_inertia(start),
                               rtol=1e-10, atol=1e-14)


def test_joint_torques_are_k_transposed_u_and_power_is_conserved(legs):
    robot, physics = legs
    rng = np.random.default_rng(1234)
    physics.set_command(['effort'] * len(robot.actuator_names),
                        rng.uniform(-2.0, 2.0, len(robot.actuator_names)))
    moved = 0
    for _ in range(200):
        q = physics.joint_state()['position']
        before = physics.state()
        velocity = physics.joint_state()['velocity']
        physics.step(physics.physics_step)
        u, tau = physics.state()['effort'], physics.joint_state()['effort']
        for name in ('left_ankle_trans', 'right_ankle_trans', 'left_knee_trans',
                     'right_knee_trans'):
            t = robot.transmission(name)
            a = [robot.actuator_index[n] for n in t.actuator_names]
            j = [robot.joint_index[n] for n in t.joint_names]
            k = t.transmission.joint_to_actuator_jacobian(q[j])
            np.testing.assert_allclose(tau[j], k.T @ u[a], rtol=1e-12, atol=1e-15)
            power = float(np.dot(u[a], before['velocity'][a]))
            assert power == pytest.approx(float(np.dot(tau[j], velocity[j])), rel=1e-9,
                                          abs=1e-15)
            moved += abs(power) > 1e-6
    assert moved > 200 and physics.diverged == 0


def test_position_commands_bring_the_ankle_to_its_joint_target(legs):
    robot, physics = legs
    goal = physics.joint_state()['position'].copy()
    pitch, roll = (robot.joint_index[n] for n in ('left_ankle_pitch_joint',
                                                  'left_ankle_roll_joint'))
    goal[[pitch, roll]] = [-0.4, 0.15]
    target = robot.joint_to_actuator_arrays({'position': goal})['position']
    physics.set_command(['position'] * len(target), target)
    physics.step(2.0)
    reached = physics.joint_state()['position']
    assert reached[[pitch, roll]] == pytest.approx([-0.4, 0.15], abs=2e-3)
