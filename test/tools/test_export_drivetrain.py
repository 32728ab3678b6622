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
``export`` with a drivetrain: each file read by its consumer's own loader, the values intact.

The bundled drivetrain robot (urdf/drivetrain_robot.urdf) with the hip's effort limit raised to
30 N m, so that the hip motor's peak torque (0.5 N m through 40: 20 N m) is the tighter limit
and the knee's URDF limit (10 N m, against 0.4 N m through 30: 12 N m) the tighter one there.
The ankle is series-elastic: a 50:1 motor (peak 0.4 N m, 20 N m at the joint, the URDF's limit
too; friction 0.003 N m and 1e-5 N m s/rad) behind a spring of 300 N m/rad and 2 N m s/rad.
Expected values are written out from the URDF's numbers.
"""

import numpy as np
import pytest
from tp_support import REPO
from transmission_plugins.robot.loading import load_robot_transmissions
from transmission_plugins.tools.export.drake_urdf import drake_urdf
from transmission_plugins.tools.export.mujoco_mjcf import mujoco_mjcf
from transmission_plugins.tools.export.pinocchio_mjcf import pinocchio_mjcf

TEXT = (REPO / 'urdf' / 'drivetrain_robot.urdf').read_text().replace(
    'velocity="10.0" effort="18.0"', 'velocity="10.0" effort="30.0"')
#: hip: joint side 0.8 and 0.2, motor side 0.004 and 1e-5 through 40; knee: 0.5 and 0.1
HIP_COULOMB, HIP_VISCOUS = 0.8 + 40 * 0.004, 0.2 + 40 ** 2 * 1e-5
#: joint effort limits: the hip motor's peak 0.5 * 40, the knee's URDF limit
HIP_LIMIT, KNEE_LIMIT = 20.0, 10.0
#: the ankle: k and d of its spring; the motor rigid at the joint (Drake, Pinocchio): friction
#: 50 * 0.003 and 50^2 * 1e-5, rotor 50^2 * 1.2e-5, effort limit 0.4 * 50 = the URDF's 20
ANKLE_K, ANKLE_D = 300.0, 2.0
ANKLE_COULOMB, ANKLE_VISCOUS, ANKLE_ARMATURE = 50 * 0.003, 50 ** 2 * 1e-5, 50 ** 2 * 1.2e-5
ANKLE_LIMIT = 20.0
#: what every consumer is told it cannot hold
ALWAYS = ['motor hip_motor: static friction 0.006',
          'actuator hip_motor: the torque-speed envelope beyond its peak torque 0.5',
          'actuator knee_motor: the torque-speed envelope beyond its peak torque 0.4',
          'actuator hip_motor: the thermal model is left out',
          'actuator hip_motor: the torque constant 0.05',
          'actuator knee_motor: the torque constant 0.05',
          'actuator ankle_motor: the torque-speed envelope beyond its peak torque 0.4',
          'actuator ankle_motor: the torque constant 0.05']
#: Drake and Pinocchio: the series spring, named with its joint and values
SPRING_LEFT_OUT = 'joint ankle_joint: its series spring (stiffness 300, damping 2) is left out'


@pytest.fixture(scope='module')
def robot():
    return load_robot_transmissions(TEXT, warn=False)


def _warned(warnings, expected):
    for words in expected:
        assert any(words in w for w in warnings), (words, warnings)


def test_mujoco_reads_the_friction_the_dead_band_and_the_force_ranges(robot):
    mujoco = pytest.importorskip('mujoco', reason='mujoco is not installed')
    text, warnings = mujoco_mjcf(robot, TEXT)
    model = mujoco.MjModel.from_xml_string(text)

    def ident(kind, name):
        i = mujoco.mj_name2id(model, kind, name)
        assert i >= 0, name
        return i

    joint = mujoco.mjtObj.mjOBJ_JOINT
    hip = model.jnt_dofadr[ident(joint, 'hip_joint')]
    knee = model.jnt_dofadr[ident(joint, 'knee_joint')]
    # the hip's dead band splits it: its joint-side friction brakes the link, on a tendon over
    # the drive and the dead band's hinge (the link's own angle), not the drive alone
    assert (model.dof_frictionloss[hip], model.dof_damping[hip]) == (0.0, 0.0)
    link = ident(mujoco.mjtObj.mjOBJ_TENDON, 'hip_joint__friction')
    assert (model.tendon_frictionloss[link], model.tendon_damping[link]) == (0.8, 0.2)
    wraps = range(model.tendon_adr[link], model.tendon_adr[link] + model.tendon_num[link])
    assert sorted((int(model.wrap_objid[w]), float(model.wrap_prm[w])) for w in wraps) == sorted(
        [(ident(joint, 'hip_joint'), 1.0), (ident(joint, 'hip_joint__backlash'), 1.0)])
    assert (model.dof_frictionloss[knee], model.dof_damping[knee]) == (0.5, 0.1)
    # the motor side on the rotor tendon theta = 40 q: the joint feels 40 * 0.004, 40^2 * 1e-5
    tendon = ident(mujoco.mjtObj.mjOBJ_TENDON, 'hip_motor__rotor')
    assert model.tendon_frictionloss[tendon] == 0.004
    assert model.tendon_damping[tendon] == 1e-5
    assert model.wrap_prm[model.tendon_adr[tendon]] == 40.0
    np.testing.assert_array_equal(
        model.jnt_range[ident(joint, 'hip_joint__backlash')], [-0.0025, 0.0025])
    actuator = mujoco.mjtObj.mjOBJ_ACTUATOR
    np.testing.assert_array_equal(model.actuator_forcerange[ident(actuator, 'hip_motor')],
                                  [-0.5, 0.5])   # the peak torque, tighter than 30 / 40
    np.testing.assert_allclose(model.actuator_forcerange[ident(actuator, 'knee_motor')],
                               [-1 / 3, 1 / 3], rtol=1e-15)   # the URDF's 10 / 30
    # the ankle: the motor on its rotor tendon at the drive, theta = 50 q_drive, and the spring
    # a joint between the drive and the link; the joint-side encoder gets no actuator
    ankle = ident(mujoco.mjtObj.mjOBJ_TENDON, 'ankle_motor__rotor')
    assert model.wrap_prm[model.tendon_adr[ankle]] == 50.0
    assert model.wrap_objid[model.tendon_adr[ankle]] == ident(joint, 'ankle_joint')
    assert (model.tendon_frictionloss[ankle], model.tendon_damping[ankle]) == (0.003, 1e-5)
    spring = ident(joint, 'ankle_joint__spring')
    assert model.jnt_stiffness[spring] == ANKLE_K
    assert model.dof_damping[model.jnt_dofadr[spring]] == ANKLE_D
    assert model.jnt_limited[spring] == 0
    assert model.body_parentid[model.jnt_bodyid[spring]] == model.jnt_bodyid[
        ident(joint, 'ankle_joint')]   # the link hangs from the drive
    np.testing.assert_array_equal(model.actuator_forcerange[ident(actuator, 'ankle_motor')],
                                  [-0.4, 0.4])
    assert mujoco.mj_name2id(model, actuator, 'ankle_encoder') == -1
    _warned(warnings, ALWAYS)
    assert not any('backlash' in w for w in warnings)   # held: the dead band
    assert not any('ankle_joint' in w for w in warnings)   # held: the spring


def test_drake_reads_the_damping_and_the_effort_limits(robot, tmp_path):
    pytest.importorskip('pydrake', reason='drake is not installed (pip install drake)')
    from pydrake.multibody.parsing import Parser
    from pydrake.multibody.plant import MultibodyPlant
    text, warnings = drake_urdf(robot, TEXT)
    assert 'friction=' not in text   # Drake would warn and ignore it
    plant = MultibodyPlant(0.0)
    Parser(plant).AddModelsFromString(text, 'urdf')
    plant.Finalize()
    assert plant.GetJointByName('hip_joint').default_damping() == pytest.approx(HIP_VISCOUS,
                                                                                rel=1e-15)
    assert plant.GetJointByName('knee_joint').default_damping() == 0.1
    assert plant.GetJointActuatorByName('hip_motor').effort_limit() == HIP_LIMIT
    assert plant.GetJointActuatorByName('knee_motor').effort_limit() == KNEE_LIMIT
    _warned(warnings, ALWAYS + ['joint hip_joint: Coulomb friction 0.8 is left out',
                                'joint knee_joint: Coulomb friction 0.5 is left out',
                                'motor hip_motor: Coulomb friction 0.004 is left out',
                                'joint hip_joint: backlash 0.005 is left out',
                                SPRING_LEFT_OUT])
    assert plant.GetJointActuatorByName('ankle_motor').effort_limit() == ANKLE_LIMIT


def test_pinocchio_reads_the_friction_and_the_effort_limits(robot, tmp_path):
    pin = pytest.importorskip('pinocchio', reason='pinocchio is not installed (pip install pin)')
    text, warnings = pinocchio_mjcf(robot, TEXT)
    path = tmp_path / 'robot.xml'
    path.write_text(text)
    model = pin.buildModelFromMJCF(str(path))
    assert model.nv == 3   # no dead-band or spring joint: each would be a degree of freedom
    hip = model.joints[model.getJointId('hip_joint')].idx_v
    knee = model.joints[model.getJointId('knee_joint')].idx_v
    ankle = model.joints[model.getJointId('ankle_joint')].idx_v
    assert model.friction[hip] == pytest.approx(HIP_COULOMB, rel=1e-15)
    assert model.damping[hip] == pytest.approx(HIP_VISCOUS, rel=1e-15)
    assert (model.friction[knee], model.damping[knee]) == (0.5, 0.1)
    assert model.effortLimit[hip] == HIP_LIMIT and model.effortLimit[knee] == KNEE_LIMIT
    # the ankle's motor rigid at the joint, the spring left out with a warning
    assert model.friction[ankle] == pytest.approx(ANKLE_COULOMB, rel=1e-15)
    assert model.damping[ankle] == pytest.approx(ANKLE_VISCOUS, rel=1e-15)
    assert model.armature[ankle] == pytest.approx(ANKLE_ARMATURE, rel=1e-15)
    assert model.effortLimit[ankle] == ANKLE_LIMIT
    _warned(warnings, ALWAYS + ['joint hip_joint: backlash 0.005 is left out', SPRING_LEFT_OUT])


def test_a_robot_without_drivetrain_data_exports_no_drivetrain_warning():
    text = (REPO / 'test' / 'fixtures' / 'drake_actuators.urdf').read_text()
    robot = load_robot_transmissions(text, warn=False)
    _, warnings = drake_urdf(robot, text)
    assert not any('friction' in w or 'backlash' in w or 'envelope' in w for w in warnings)
