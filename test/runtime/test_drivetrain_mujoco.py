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
``physics: mujoco`` with a drivetrain: friction as friction loss, backlash as a dead band.

The references are closed forms written out here (a joint accelerating against Coulomb and
viscous friction) and what a dead band means (the link stays while the drive moves within it).
"""

import math

from drivetrain_cases import one_joint
import numpy as np
import pytest
from transmission_plugins.robot.loading import load_robot_transmissions
from transmission_plugins.runtime.mujoco_model import ModelOptions
from transmission_plugins.runtime.mujoco_physics import MujocoPhysics
from transmission_plugins.tools.launch.node_plan import default_description_file
from transmission_plugins.tools.launch.node_plan import read_description

mujoco = pytest.importorskip('mujoco', reason='the optional mujoco package is not installed '
                                              '(pip install -r requirements.txt)')

#: joint side and motor side (reduction 10): the joint sees F_c = 0.5 + 10 * 0.01 = 0.6 N m and
#: b = 0.2 + 10^2 * 0.001 = 0.3 N m s/rad; its inertia is 0.02 + 10^2 * 1e-4 = 0.03 kg m^2
FRICTION = {'joint': '<friction coulomb="0.5" viscous="0.2"/>',
            'actuator': '<friction coulomb="0.01" viscous="0.001"/>'}
F_C, B, INERTIA, N = 0.6, 0.3, 0.03, 10.0


def _physics(text, **options):
    robot = load_robot_transmissions(text, warn=False)
    return MujocoPhysics(robot, text, ModelOptions(gravity=False, **options),
                         joint_position=[0.0])


def _run(physics, seconds, dt=0.005):
    out = []
    for _ in range(int(round(seconds / dt))):
        physics.step(dt)
        out.append(physics.joint_state())
    return out


def test_the_friction_is_in_the_model_on_both_sides():
    physics = _physics(one_joint(**FRICTION))
    m = physics.model
    dof = int(physics.built.dof[0])
    assert m.dof_frictionloss[dof] == 0.5
    assert m.dof_damping[dof] == pytest.approx(0.2)
    rotor = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_TENDON, 'arm_motor__rotor')
    assert m.tendon_frictionloss[rotor] == 0.01 and m.tendon_damping[rotor] == 0.001
    assert m.wrap_prm[m.tendon_adr[rotor]] == N   # the tendon is theta = n q


def test_a_joint_driven_below_its_friction_stays():
    physics = _physics(one_joint(**FRICTION))
    physics.set_command('effort', [0.95 * F_C / N])
    states = _run(physics, 0.5)
    # MuJoCo's friction loss is a soft constraint: it creeps by (1 - d) h a, 1.6e-6 rad/s here
    # (a = 19 rad/s^2 without friction: 2.4 rad in the same 0.5 s)
    assert max(abs(s['position'][0]) for s in states) < 2e-6
    physics.set_command('effort', [-0.95 * F_C / N])
    assert max(abs(s['position'][0]) for s in _run(physics, 0.5)) < 2e-6


def test_a_joint_driven_above_its_friction_accelerates_as_the_closed_form_says():
    physics = _physics(one_joint(**FRICTION))
    tau = 1.0   # N m at the joint: 0.1 N m at the motor
    physics.set_command('effort', [tau / N])
    states = _run(physics, 0.2, dt=0.001)
    rate = B / INERTIA   # I qdd = tau - F_c - b qd: qd = (tau - F_c) / b (1 - e^(-b t / I))
    for k in (19, 49, 99, 199):
        t = (k + 1) * 0.001
        expected = (tau - F_C) / B * (1.0 - math.exp(-rate * t))
        assert states[k]['velocity'][0] == pytest.approx(expected, rel=0.03), t


def test_the_link_does_not_move_while_the_drive_moves_within_the_backlash():
    width = 0.02
    physics = _physics(one_joint(joint=f'<backlash width="{width}"/>', gains='p="2.0" d="0.02"'))
    assert set(physics.built.play) == {'arm_joint'}

    def link():
        return physics.joint_state()['position'][0] + physics.play()['arm_joint']

    drives, links = [], []
    for target in np.linspace(0.0, 0.8 * width / 2, 20):   # the drive creeps to 0.008 rad
        physics.set_command('position', [N * target])
        for _ in range(5):
            physics.step(0.005)
            drives.append(physics.joint_state()['position'][0])
            links.append(link())
    assert max(drives) > 0.7 * width / 2
    assert max(abs(x) for x in links) < 1e-9
    # beyond the play the drive carries the link: within the dead band of the drive, pushed
    # past its starting point by the drive's travel less the play
    physics.set_command('position', [N * 0.1])
    _run(physics, 1.0)
    drive = physics.joint_state()['position'][0]
    assert drive == pytest.approx(0.1, abs=1e-3)
    assert abs(link() - drive) <= width / 2 * (1 + 1e-3)
    assert link() >= 0.1 - width / 2 - 1e-3


def test_the_default_gains_count_the_link_behind_the_dead_band():
    with_play = _physics(one_joint(joint='<backlash width="0.02"/>'))
    without = _physics(one_joint())
    np.testing.assert_allclose(with_play.control.kp, without.control.kp, rtol=1e-3)
    # the rotor 1e-4 and the link 0.02 / n^2 at the actuator (the rotor alone: a third of it)
    assert with_play.control.inertia[0] == pytest.approx(1e-4 + 0.02 / N ** 2, rel=1e-3)


def test_what_mujoco_cannot_hold_is_named_once():
    text = read_description('urdf/drivetrain_robot.urdf')
    physics = MujocoPhysics(load_robot_transmissions(text, warn=False), text)
    words = [str(w) for w in physics.built.warnings]
    assert any('hip_motor (0.006)' in w and 'static friction' in w for w in words), words
    assert not any('backlash' in w for w in words)   # the joint-side one is simulated
    assert 'hip_joint' in physics.built.play


def test_the_envelope_and_the_thermal_limit_hold_in_mujoco_too():
    text = read_description('urdf/drivetrain_robot.urdf')
    robot = load_robot_transmissions(text, warn=False)
    physics = MujocoPhysics(robot, text, ModelOptions(gravity=False))
    # above every limit; the ankle's joint-side encoder takes no command: it applies nothing
    physics.set_command('effort', [1.0, 1.0, 1.0, 1.0])
    motors = robot.commanded_actuators
    assert list(motors) == [True, True, True, False]
    saturated = 0
    for _ in range(500):
        # the law's effort is the envelope's at the velocity it was computed at
        before = physics.state()['velocity']
        physics.step(physics.physics_step)
        effort = physics.state()['effort']
        _, upper = robot.drivetrain.effort_bounds(before)
        limit = [m.effort_limit for m in physics.control.models]
        assert np.all(effort <= np.minimum(upper, limit) + 1e-12)
        assert effort[3] == 0.0
        saturated += int(np.all((effort == np.minimum(upper, limit))[motors]))
    assert saturated == 500
    assert physics.control.temperature[0] > 25.0   # the hip motor heats
    assert np.isnan(physics.control.temperature[1])   # the knee motor has no thermal model


def test_a_robot_without_drivetrain_data_runs_bit_for_bit_as_before():
    # recorded (float.hex) from the code before the drivetrain (commit 70eb49e); the script is
    # test_drivetrain_rotors._script
    from test_drivetrain_rotors import _script
    recorded = {
        'position': ['0x1.d89e3b3181d8cp-3', '0x1.18e449bd7ebd9p-3', '0x1.1d82729c52dc0p-4',
                     '0x1.a3be5f239fac0p-7', '-0x1.b3c3d42610074p-5', '0x1.324c2d5bce828p+9'],
        'velocity': ['0x1.75a14a1462151p-3', '-0x1.8d4705d0384b1p-3', '-0x1.c00f33cbed734p-4',
                     '0x1.81869341b91f0p-4', '0x1.b54647908c4a2p-4', '-0x1.c3e704e2868a6p+9'],
        'effort': ['0x1.999999999999ap-3', '0x1.1eb851eb851ecp-3', '0x1.47ae147ae147ap-4',
                   '0x1.47ae147ae1470p-6', '-0x1.47ae147ae1480p-5', '-0x1.999999999999ap-4']}
    text = read_description(default_description_file())
    physics = MujocoPhysics(load_robot_transmissions(text, warn=False), text)
    state = _script(physics, physics.state()['position'])
    for key, values in recorded.items():
        assert state[key].tolist() == [float.fromhex(v) for v in values], key
