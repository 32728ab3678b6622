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
A series-elastic transmission in both physics of ``mock_actuators`` (issue 36, items 1, 2, 5).

One joint, ``ankle``, behind a 50:1 motor and a spring; gravity off.  Every expected number is
a closed form written here: the spring's torque :math:`k(\theta_m/n - \theta_e)` (or the
table's segment, by hand), the period :math:`2\pi\sqrt{I/k}` of a link of inertia :math:`I`
on the spring with the drive held (a rotor of 10 kg m^2 behind 50:1, 25000 kg m^2 at the
joint: the link's 2e-3 moves it by 1e-7), the link's inertia about the axis by the parallel
axis theorem.
"""

import math

import numpy as np
import pytest
from tp_support import REPO

from transmission_plugins import load_robot_transmissions
from transmission_plugins.robot.report import report_dict
from transmission_plugins.runtime.series_springs import link_inertia
from transmission_plugins.runtime.simulator import ActuatorSimulator

N, K, I_LINK = 50.0, 300.0, 2e-3


def sea(k=K, d=0.0, rotor=1.2e-5, spring=None, joint=''):
    """Return a one-joint robot: ``ankle`` behind a motor ``m`` and a spring; encoder ``e``."""
    spring = spring or f'<spring stiffness="{k}" damping="{d}"/>'
    return f"""<robot name="sea" xmlns:drake="http://drake.mit.edu">
  <link name="base"/>
  <link name="foot"><inertial><origin xyz="0 0 0"/><mass value="0.5"/>
    <inertia ixx="1e-3" ixy="0" ixz="0" iyy="{I_LINK}" iyz="0" izz="1e-3"/></inertial></link>
  <joint name="ankle" type="revolute"><parent link="base"/><child link="foot"/>
    <axis xyz="0 1 0"/><limit lower="-1" upper="1" effort="50" velocity="10"/></joint>
  <transmission name="ankle_sea"><type>transmission_plugins/SeriesElasticTransmission</type>
    <joint name="ankle"><hardwareInterface>EffortJointInterface</hardwareInterface>{joint}</joint>
    <actuator name="m"><role>actuator1</role><mechanicalReduction>{N}</mechanicalReduction>
      <drake:rotor_inertia value="{rotor}"/><drake:controller_gains p="0.5" d="0.006"/>
    </actuator>
    <actuator name="e"><role>actuator2</role></actuator>
    {spring}
  </transmission>
</robot>"""


def _period(times, values):
    """Return the mean period between downward zero crossings (linearly interpolated)."""
    t, x = np.asarray(times), np.asarray(values)
    at = np.flatnonzero((x[:-1] > 0.0) & (x[1:] <= 0.0))
    crossings = t[at] + (t[at + 1] - t[at]) * x[at] / (x[at] - x[at + 1])
    assert crossings.size >= 4, crossings
    return float(np.mean(np.diff(crossings)))


# ------------------------------------------------------------------------------------- MuJoCo
@pytest.fixture
def mujoco_physics():
    pytest.importorskip('mujoco', reason='the optional mujoco package is not installed')
    from transmission_plugins.runtime.mujoco_model import ModelOptions
    from transmission_plugins.runtime.mujoco_physics import MujocoPhysics

    def make(text):
        robot = load_robot_transmissions(text, warn=False)
        return MujocoPhysics(robot, text, ModelOptions(gravity=False), joint_position=[0.0])
    return make


def _load_link(physics, torque):
    """Apply ``torque`` (N m about the joint axis, y) to the foot, as an outside load."""
    mj = physics._mj
    foot = mj.mj_name2id(physics.model, mj.mjtObj.mjOBJ_BODY, 'foot')
    physics.data.xfrc_applied[foot, 3:] = [0.0, torque, 0.0]


@pytest.mark.parametrize('load', [1.5, -2.0])
def test_mujoco_the_spring_carries_a_load_with_k_times_the_deflection(mujoco_physics, load):
    physics = mujoco_physics(sea(d=2.0))
    physics.set_command('position', [5.0, math.nan])   # the motor held at 5 rad (0.1 rad)
    _load_link(physics, load)
    for _ in range(30):
        physics.step(0.1)
    s = physics.state()
    theta_m, theta_e = s['position']
    assert abs(s['velocity'][1]) < 1e-9   # at rest
    spring = K * (theta_m / N - theta_e)   # the closed form, from the published state
    assert spring == pytest.approx(-load, rel=0.01)
    assert physics.joint_state()['effort'][0] == pytest.approx(-load, rel=0.01)
    # the motor holds the spring's reaction: its effort is tau / n, up to its PD's sag
    assert s['effort'][0] * N == pytest.approx(-load, rel=0.01)
    assert s['effort'][1] == 0.0   # the encoder applies nothing


def test_mujoco_a_spring_table_is_applied_segment_by_segment(mujoco_physics):
    # slopes 600 N m/rad below 0 and 300 above: a load of +-1.5 N m deflects by -1.5/600 and
    # +1.5/300 (the spring's torque opposes the load)
    table = '<spring damping="2" deflections="-0.1 0 0.1" torques="-60 0 30"/>'
    for load, deflection in ((1.5, -1.5 / 600.0), (-1.5, 1.5 / 300.0)):
        physics = mujoco_physics(sea(spring=table))
        assert physics.model.jnt_stiffness[physics.model.njnt - 1] == 0.0   # not MuJoCo's
        physics.set_command('position', [0.0, math.nan])
        _load_link(physics, load)
        for _ in range(30):
            physics.step(0.1)
        theta_m, theta_e = physics.state()['position']
        assert theta_m / N - theta_e == pytest.approx(deflection, rel=0.01)


def test_mujoco_the_link_oscillates_on_the_spring_with_the_closed_form_period(
        mujoco_physics):
    physics = mujoco_physics(sea(rotor=10.0))
    adr = physics.built.spring_qpos
    physics.data.qpos[adr] = 0.05   # the link 0.05 rad ahead of the drive, at rest
    physics._mj.mj_forward(physics.model, physics.data)
    times, link, drive = [], [], []
    for _ in range(100):
        physics.step(physics.physics_step)
        s = physics.state()
        times.append(physics.sim_time)
        link.append(s['position'][1])
        drive.append(s['position'][0] / N)
        # the encoder reads the link (drive and spring joint), not the drive
        q = physics.data.qpos
        assert s['position'][1] == q[physics.built.qpos[0]] + q[adr[0]]
        assert physics.joint_state()['position'][0] == s['position'][1]
    expected = 2.0 * math.pi * math.sqrt(I_LINK / K)
    measured = _period(times, link)
    print(f'\nMuJoCo: period {measured:.6f} s, closed form {expected:.6f} s')
    assert measured == pytest.approx(expected, rel=0.02)
    assert max(abs(x) for x in drive) < 1e-5   # the drive held
    assert max(link) == pytest.approx(0.05, rel=0.02)   # no damping: no decay


def test_mujoco_commands_for_the_encoder_are_ignored(mujoco_physics):
    physics = mujoco_physics(sea(d=2.0))
    physics.set_command('effort', [0.0, 3.0])
    physics.step(0.05)
    assert physics.state()['effort'][1] == 0.0 and physics.modes[1] == 'effort'
    assert abs(physics.state()['position'][1]) < 1e-12


def test_mujoco_the_bundled_robot_has_a_spring_joint_between_drive_and_foot(mujoco_physics):
    text = (REPO / 'urdf' / 'drivetrain_robot.urdf').read_text()
    robot = load_robot_transmissions(text, warn=False)
    from transmission_plugins.runtime.mujoco_model import build_model
    model = build_model(robot, text).model
    import mujoco
    spring = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, 'ankle_joint__spring')
    assert (model.jnt_stiffness[spring], model.dof_damping[model.jnt_dofadr[spring]]) == (
        300.0, 2.0)
    foot = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, 'foot_link')
    assert model.jnt_bodyid[spring] == foot
    # the drive carries the motor's reflected inertia n^2 rho^2 I_r on its rotor tendon
    tendon = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_TENDON, 'ankle_motor__rotor')
    assert model.tendon_armature[tendon] == pytest.approx(1.2e-5 + 1e-3 * 1e-5)   # + h c
    assert mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_TENDON, 'ankle_encoder__rotor') == -1


# ------------------------------------------------------------------------------------- rotors
def _rotors(text, **kwargs):
    robot = load_robot_transmissions(text, warn=False)
    models = [robot.actuator_models[n] for n in robot.actuator_names]
    return ActuatorSimulator(models, robot=robot, min_inertia=1e-7,
                             link_inertia={'ankle': I_LINK}, **kwargs)


def test_rotors_the_motor_carries_the_spring_against_a_link_held_by_friction():
    # the link held at rest by 5 N m of joint-side friction; the motor, commanded to 0.5 rad,
    # winds the spring: its PD (kp 0.5) against the spring at the motor (k / n^2) settles at
    # theta_m = kp 0.5 / (kp + k / n^2), and its effort is the spring's reaction tau / n
    sim = _rotors(sea(d=2.0, joint='<friction coulomb="5.0"/>'))
    sim.set_command(['position', None], [0.5, math.nan])
    for _ in range(200):
        sim.step(0.005)
    s = sim.state()
    theta_m, theta_e = s['position']
    assert theta_e == 0.0 and s['velocity'][1] == 0.0   # held: stick
    spring = K * (theta_m / N - theta_e)
    held = 0.5 * 0.5 / (0.5 + K / N ** 2)
    assert spring == pytest.approx(K * held / N, rel=0.01)   # 2.419 N m
    assert s['effort'][0] * N == pytest.approx(spring, rel=0.01)
    assert s['effort'][1] == 0.0


def test_rotors_the_link_oscillates_on_the_spring_with_the_closed_form_period():
    sim = _rotors(sea(rotor=10.0))
    sim.reset(position=[0.0, 0.05])   # the link 0.05 rad ahead of the drive, at rest
    times, link = [], []
    for i in range(100):
        sim.step(0.001)
        times.append((i + 1) * 0.001)
        link.append(sim.state()['position'][1])
    expected = 2.0 * math.pi * math.sqrt(I_LINK / K)
    measured = _period(times, link)
    print(f'\nrotors: period {measured:.6f} s, closed form {expected:.6f} s')
    assert measured == pytest.approx(expected, rel=0.02)
    assert max(link) == pytest.approx(0.05, rel=0.02)
    assert abs(sim.state()['position'][0]) < 1e-5 * N   # the drive held


def test_rotors_commands_for_the_encoder_are_ignored():
    sim = _rotors(sea(d=2.0))
    sim.set_command('position', [0.0, 0.3])
    sim.step(0.05)
    assert sim.modes == ['position', 'effort']
    assert sim.state()['effort'][1] == 0.0 and abs(sim.state()['position'][1]) < 1e-12


def test_the_link_inertia_is_the_child_links_about_the_joint_axis():
    # the bundled foot: iyy 3.2e-4 plus 0.25 kg at (0.03, 0, -0.03), 1.8e-3 m^2 off the y axis
    bundled = (REPO / 'urdf' / 'drivetrain_robot.urdf').read_text()
    assert link_inertia(bundled, 'ankle_joint') == pytest.approx(3.2e-4 + 0.25 * 1.8e-3)
    # an inertial turned by 90 degrees about x: its izz lies along the joint's y axis
    turned = sea().replace('<origin xyz="0 0 0"/>',
                           '<origin xyz="0 0 0" rpy="1.5707963267948966 0 0"/>')
    assert link_inertia(turned, 'ankle') == pytest.approx(1e-3)
    assert link_inertia(sea(), 'no_such_joint') == 2e-3   # the documented default
    # values that are no finite numbers, or no axis: the default, never a crash
    bundled_foot = '<mass value="0.25"/>'
    for bad in (bundled.replace(bundled_foot, '<mass value="heavy"/>'),
                bundled.replace(bundled_foot, '<mass value="nan"/>'),
                bundled.replace('iyy="0.00032"', 'iyy="1e400"'),
                bundled.replace('<axis xyz="0 1 0"/>\n    <limit lower="-0.8"',
                                '<axis xyz="0 0 0"/>\n    <limit lower="-0.8"'),
                bundled.replace('<axis xyz="0 1 0"/>\n    <limit lower="-0.8"',
                                '<axis xyz="0 1"/>\n    <limit lower="-0.8"')):
        assert bad != bundled
        assert link_inertia(bad, 'ankle_joint') == 2e-3


# ------------------------------------------------------------------------------------- inertia
def test_the_rotor_behind_the_spring_is_not_reflected_onto_the_joint():
    robot = load_robot_transmissions(REPO / 'urdf' / 'drivetrain_robot.urdf', warn=False)
    # hip 40^2 * 1.2e-5, knee 30^2 * 1.2e-5; the ankle's rotor loads the drive, not the foot
    np.testing.assert_allclose(np.diag(robot.reflected_inertia()), [0.0192, 0.0108, 0.0],
                               rtol=1e-12)
    assert robot.spring_side_inertia() == {'ankle_joint': pytest.approx(50 ** 2 * 1.2e-5)}
    ankle = report_dict(robot)['joints'][2]
    assert (ankle['reflected_inertia'], ankle['spring_side_inertia']) == (
        0.0, pytest.approx(0.03))


def _peaks(values):
    x = np.asarray(values)
    at = np.flatnonzero((x[1:-1] > x[:-2]) & (x[1:-1] >= x[2:]) & (x[1:-1] > 0.0)) + 1
    return x[at]


@pytest.mark.parametrize('physics', ['rotors', 'mujoco'])
def test_a_damped_spring_decays_at_the_closed_form_rate(physics, mujoco_physics):
    # d 0.2 on I 2e-3, k 300: the damped period 2 pi / (w sqrt(1 - z^2)) and, from one peak to
    # the next, the amplitude falls by exp(-d T_d / (2 I)) (z = d / (2 sqrt(k I)) = 0.129)
    d = 0.2
    text = sea(d=d, rotor=10.0)
    times = [i * 1e-4 for i in range(1, 801)]   # 80 ms in 0.1 ms samples
    link = []
    if physics == 'rotors':
        sim = _rotors(text)
        sim.reset(position=[0.0, 0.05])
        for _ in times:
            sim.step(1e-4)
            link.append(sim.state()['position'][1])
    else:
        from transmission_plugins.runtime.mujoco_model import ModelOptions
        from transmission_plugins.runtime.mujoco_physics import MujocoPhysics
        robot = load_robot_transmissions(text, warn=False)
        sim = MujocoPhysics(robot, text, ModelOptions(gravity=False, physics_step=1e-4),
                            joint_position=[0.0])
        sim.data.qpos[sim.built.spring_qpos] = 0.05
        sim._mj.mj_forward(sim.model, sim.data)
        for _ in times:
            sim.step(1e-4)
            link.append(sim.state()['position'][1])
    w = math.sqrt(K / I_LINK)
    z = d / (2.0 * math.sqrt(K * I_LINK))
    period = 2.0 * math.pi / (w * math.sqrt(1.0 - z * z))
    peaks = _peaks(link)
    decay = float(np.mean(peaks[1:] / peaks[:-1]))
    print(f'\n{physics}: damped period {_period(times, link):.6f} s (closed form {period:.6f}),'
          f' peak ratio {decay:.5f} (closed form {math.exp(-d * period / (2 * I_LINK)):.5f})')
    assert _period(times, link) == pytest.approx(period, rel=0.02)
    assert decay == pytest.approx(math.exp(-d * period / (2.0 * I_LINK)), rel=0.02)
