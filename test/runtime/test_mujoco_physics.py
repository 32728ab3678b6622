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

"""The MuJoCo physics against independent references: the rotor model, statics, power, limits."""

import math

from mujoco_cases import BUNDLED
from mujoco_cases import GRAVITY
from mujoco_cases import loaded
from mujoco_cases import one_joint
import numpy as np
import pytest
from transmission_plugins.runtime.mujoco_model import ActuatorJacobian
from transmission_plugins.runtime.mujoco_model import ModelOptions
from transmission_plugins.runtime.mujoco_physics import MujocoPhysics
from transmission_plugins.runtime.simulator import ActuatorSimulator


def _exact_step_response(inertia, kp, kd, t, step):
    """Return the solution of I x'' = -kp (x - step) - kd x', x(0) = x'(0) = 0, at ``t``."""
    a = np.array([[0.0, 1.0], [-kp / inertia, -kd / inertia]])
    w, v = np.linalg.eig(a)
    c = np.linalg.solve(v, np.array([-step, 0.0]))
    return step + np.real((v @ (c[:, None] * np.exp(np.outer(w, t))))[0])


@pytest.mark.parametrize('gains', [None, (0.5, 0.02)], ids=['bandwidth_gains', 'urdf_gains'])
def test_a_joint_without_link_inertia_reproduces_the_rotor_model(gains):
    """Link inertia 1e-10 kg m^2 behind a 0.01 kg m^2 rotor: the rotor's step response."""
    text, robot = loaded(one_joint(gains=gains))
    physics = MujocoPhysics(robot, text, ModelOptions(physics_step=1e-4, gravity=False),
                            joint_position=[0.0])
    rotor = ActuatorSimulator([robot.actuator_models['motor']], min_inertia=1e-7)
    rotor.reset([0.0])
    # the default gains come from the inertia each sees: the rotor's, rho^2 I_r, in both
    model = robot.actuator_models['motor']
    np.testing.assert_allclose(physics.control.inertia, [model.reflected_inertia()], rtol=1e-4)
    step = 0.5
    physics.set_command('position', [step])
    rotor.set_command('position', [step])
    t = np.arange(1, 401) * 1e-3
    theta_physics, theta_rotor = [], []
    for _ in t:
        physics.step(1e-3)
        rotor.step(1e-3)
        theta_physics.append(physics.state()['position'][0])
        theta_rotor.append(rotor.state()['position'][0])
    theta_physics = np.array(theta_physics)
    assert np.max(np.abs(theta_physics - theta_rotor)) <= 0.01 * step
    exact = _exact_step_response(model.reflected_inertia(), physics.control.kp[0],
                                 physics.control.kd[0], t, step)
    assert np.max(np.abs(theta_physics - exact)) <= 0.005 * step
    assert physics.sim_time == pytest.approx(0.4)


def test_the_rotor_damping_matches_the_rotor_model_in_velocity_mode():
    """Viscous damping at the actuator (a tendon's damping) and the velocity law."""
    text, robot = loaded(one_joint())
    physics = MujocoPhysics(robot, text, ModelOptions(physics_step=1e-4, gravity=False,
                                                      rotor_damping=0.05),
                            joint_position=[0.0])
    rotor = ActuatorSimulator([robot.actuator_models['motor']], min_inertia=1e-7, damping=0.05)
    for sim in (physics, rotor):
        sim.set_command('velocity', [2.0])
    for _ in range(100):
        physics.step(1e-3)
        rotor.step(1e-3)
    np.testing.assert_allclose(physics.state()['velocity'], rotor.state()['velocity'],
                               rtol=0.01)
    # at steady velocity the motor supplies what the damping takes: u = c v
    assert physics.state()['effort'][0] == pytest.approx(0.05 * 2.0, rel=0.01)


def _settle(physics, seconds):
    for _ in range(int(seconds / 0.01)):
        physics.step(0.01)


def test_a_pendulum_settles_where_statics_says():
    """PD stiffness against gravity: n^2 Kp (q_d - q) = m g l sin q, and u = m g l sin q / n."""
    n, m, length, kp = 2.0, 1.5, 0.3, 2.0
    text, robot = loaded(one_joint(reduction=n, mass=m, length=length, gains=(kp, 0.3),
                                   damping=2.0))
    physics = MujocoPhysics(robot, text, ModelOptions(physics_step=1e-3), joint_position=[0.0])
    q_d = 0.9
    physics.set_command('position', [n * q_d])
    _settle(physics, 4.0)
    # statics, solved by Newton's method: f(q) = n^2 kp (q_d - q) - m g l sin q = 0
    q = q_d
    for _ in range(50):
        q -= (n * n * kp * (q_d - q) - m * GRAVITY * length * math.sin(q)) / (
            -n * n * kp - m * GRAVITY * length * math.cos(q))
    assert q_d - q > 0.1   # the PD's steady-state error is large enough to be seen
    state = physics.joint_state()
    assert state['position'][0] == pytest.approx(q, abs=1e-4)
    assert abs(state['velocity'][0]) < 1e-4
    torque = m * GRAVITY * length * math.sin(state['position'][0])
    assert physics.state()['effort'][0] == pytest.approx(torque / n, rel=1e-3)
    assert state['effort'][0] == pytest.approx(torque, rel=1e-3)


def test_gravity_off_and_gravity_compensation_need_no_effort():
    text, robot = loaded(one_joint(mass=1.5, length=0.3, gains=(2.0, 0.3)))
    for options in (ModelOptions(gravity=False), ModelOptions(gravity_compensation=['arm'])):
        physics = MujocoPhysics(robot, text, options, joint_position=[0.7])
        physics.set_command('position', physics.state()['position'])
        _settle(physics, 0.5)
        assert abs(physics.state()['effort'][0]) < 1e-9
        assert physics.joint_state()['position'][0] == pytest.approx(0.7, abs=1e-9)


def _moving_bundled_robot(seed=7):
    """Return the bundled robot in MuJoCo, commanded to random targets across its ranges."""
    text, robot = loaded(BUNDLED)
    physics = MujocoPhysics(robot, text, ModelOptions(physics_step=1e-3))
    rng = np.random.default_rng(seed)
    q = robot.default_joint_position()
    lo, hi = robot.joint_lower, robot.joint_upper
    q = np.where(np.isfinite(lo) & np.isfinite(hi), lo + rng.uniform(0.1, 0.9, q.size) * (hi - lo),
                 q)
    target = robot.joint_to_actuator_arrays({'position': q})['position']
    physics.set_command('position', target)
    return robot, physics


def test_actuator_power_equals_joint_power_through_every_transmission_at_every_step():
    robot, physics = _moving_bundled_robot()
    checked = 0
    for _ in range(400):
        before = physics.state()
        joint_velocity = physics.joint_state()['velocity']
        physics.step(physics.physics_step)
        u, tau = physics.state()['effort'], physics.joint_state()['effort']
        for t in robot.transmissions:
            a = [robot.actuator_index[n] for n in t.actuator_names]
            j = [robot.joint_index[n] for n in t.joint_names]
            actuator_power = float(np.dot(u[a], before['velocity'][a]))
            joint_power = float(np.dot(tau[j], joint_velocity[j]))
            scale = float(np.sum(np.abs(u[a] * before['velocity'][a]))) + 1e-300
            assert abs(actuator_power - joint_power) <= 1e-9 * scale, t.name
            checked += scale > 1e-6
    assert checked > 1000   # the robot moved: power flowed through the transmissions


def test_effort_limits_are_never_exceeded():
    robot, physics = _moving_bundled_robot(seed=3)
    limit = robot.actuator_effort_limit
    # far targets and effort commands beyond the limits
    physics.set_command(['position', 'position', 'effort', 'velocity', 'effort', 'position'],
                        [50.0, -50.0, 1e3, 1e3, -1e3, 1e4])
    saturated = np.zeros(limit.size, dtype=bool)
    for _ in range(300):
        physics.step(physics.physics_step)
        u = physics.state()['effort']
        assert np.all(np.abs(u) <= limit)
        saturated |= np.abs(u) == limit
        # joint torques stay within what the limited actuators can give: sum_i |K_ij| u_max,i
        k = ActuatorJacobian(robot)(physics.joint_state()['position'])
        k_bound = np.abs(k).T @ limit
        assert np.all(np.abs(physics.joint_state()['effort']) <= k_bound * (1 + 1e-12))
    assert saturated.sum() >= 4   # the limits were reached, so they were tested


def test_passive_joints_follow_the_transmission_map():
    robot, physics = _moving_bundled_robot(seed=11)
    _settle(physics, 1.0)
    t = robot.transmission('gripper_trans')
    tr = t.transmission
    joints = [robot.joint_index[n] for n in t.joint_names]
    a = robot.actuator_index['gripper_motor']
    expected = tr.actuator_to_joint({'position': physics.state()['position'][[a]]})['position']
    np.testing.assert_allclose(physics.joint_state()['position'][joints], expected, atol=2e-3)


def test_the_real_time_factor_counts_simulated_and_computing_time():
    text, robot = loaded(one_joint())
    physics = MujocoPhysics(robot, text, ModelOptions(physics_step=2e-3, gravity=False))
    assert physics.real_time_factor() == math.inf
    for _ in range(7):
        physics.step(3e-3)     # 1.5 physics steps each: the remainder is carried over
    assert physics.sim_time == pytest.approx(0.020)
    assert physics.real_time_factor() == pytest.approx(physics.sim_time / physics.compute_time)
