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
``transmission_plugins export``: each export loaded by its consumer's own loader.

MuJoCo (``mujoco.MjModel.from_xml_path``), Drake (``pydrake``'s ``Parser``) and Pinocchio
(``pinocchio.buildModelFromMJCF``) read the files; their reflected inertia (the mass matrix
with the rotors less the one without, or the armature) and effort maps must equal the
package's to 1e-9, on the bundled robot and the fixtures with couplings.  A consumer that is
not installed skips its tests with the reason (``pip install pin drake`` installs them).
"""

import math

import numpy as np
import pytest
from tp_support import FIXTURE_DIR
from tp_support import REPO
from transmission_plugins.core.interfaces import POSITION
from transmission_plugins.robot.loading import load_robot_transmissions
from transmission_plugins.tools.cli import main
from transmission_plugins.tools.export.drake_urdf import drake_urdf
from transmission_plugins.tools.export.joint_actuators import joint_actuators
from transmission_plugins.tools.export.mujoco_mjcf import mujoco_mjcf
from transmission_plugins.tools.export.pinocchio_mjcf import pinocchio_mjcf
from transmission_plugins.tools.launch.node_plan import read_description

EXAMPLE = REPO / 'urdf' / 'example_robot.urdf.xacro'
#: the bundled robot (a four-bar linkage, a differential, the PR2 gripper) and fixtures with
#: couplings (synergies, tendon fingers, parallel ankles) and Drake's own tags
ROBOTS = [EXAMPLE, FIXTURE_DIR / 'coupled_hand.urdf', FIXTURE_DIR / 'humanoid_legs.urdf',
          FIXTURE_DIR / 'drake_actuators.urdf', FIXTURE_DIR / 'pr2_mechanism.urdf']
IDS = [p.name.split('.')[0] for p in ROBOTS]
TOLERANCE = 1e-9
#: a control small enough that no effort limit clamps it
CONTROL = 1e-6


def _consumer(module, package):
    return pytest.importorskip(
        module, reason=f'the consumer {module} is not installed (pip install {package})')


@pytest.fixture(scope='module', params=ROBOTS, ids=IDS)
def robot(request):
    text = read_description(request.param)
    return request.param, text, load_robot_transmissions(text, warn=False)


def package_jacobian(robot):
    r"""Return :math:`K = \partial\theta/\partial q` at the neutral pose, per transmission."""
    q0 = robot.default_joint_position()
    k = np.zeros((len(robot.actuator_names), len(robot.joint_names)))
    for t in robot.transmissions:
        joints = [robot.joint_index[n] for n in t.joint_names]
        actuators = [robot.actuator_index[n] for n in t.actuator_names]
        k[np.ix_(actuators, joints)] = t.transmission.joint_to_actuator_jacobian(q0[joints])
    return k


def package_effort_map(robot):
    r"""
    Return the package's joint efforts of unit actuator efforts, ``(nj, na)``, at q0.

    The package's own ``actuator_to_joint`` at the actuator positions of the neutral pose; the
    joints a transmission's maps do not read (passive joints) are left out (NaN).
    """
    q0 = robot.default_joint_position()
    theta = robot.joint_to_actuator_arrays({POSITION: q0})[POSITION]
    out = np.full((len(robot.joint_names), len(robot.actuator_names)), np.nan)
    inputs = set()
    for t in robot.transmissions:
        inputs |= {robot.joint_index[t.joint_names[i]]
                   for i in t.transmission.joint_to_actuator_inputs()}
    for a in range(len(robot.actuator_names)):
        effort = np.zeros(len(robot.actuator_names))
        effort[a] = 1.0
        joint = robot.actuator_to_joint_arrays({POSITION: theta, 'effort': effort})['effort']
        out[sorted(inputs), a] = joint[sorted(inputs)]
    return out


def square(robot):
    """Return the joints of transmissions with as many input joints as actuators."""
    out = []
    for t in robot.transmissions:
        if len(t.transmission.joint_to_actuator_inputs()) == t.transmission.num_actuators():
            out += [robot.joint_index[t.joint_names[i]]
                    for i in t.transmission.joint_to_actuator_inputs()]
    return out


# ---------------------------------------------------------------------------------- MuJoCo
def test_mujoco_carries_the_reflected_inertia_and_the_effort_map(robot, tmp_path):
    mujoco = _consumer('mujoco', 'mujoco')
    path, text, tr = robot
    xml, _ = mujoco_mjcf(tr, text, str(path.parent))
    (tmp_path / 'robot.xml').write_text(xml)
    model = mujoco.MjModel.from_xml_path(str(tmp_path / 'robot.xml'))
    data = mujoco.MjData(model)
    ids = [mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, n) for n in tr.joint_names]
    dof = model.jnt_dofadr[ids]
    data.qpos[model.jnt_qposadr[ids]] = tr.default_joint_position()

    def mass_matrix():
        mujoco.mj_forward(model, data)
        full = np.zeros((model.nv, model.nv))
        mujoco.mj_fullM(model, data, full)
        return full[np.ix_(dof, dof)]

    with_rotors = mass_matrix()
    model.tendon_armature[:] = 0.0
    reflected = with_rotors - mass_matrix()
    expected = tr.reflected_inertia()
    assert np.max(np.abs(reflected - expected)) <= TOLERANCE * max(1.0, np.max(expected))
    # one actuator per actuator, named like it: a control c gives c K^T e_a (c small: the
    # actuator's forcerange and the joint's actuatorfrcrange clamp)
    assert sorted(mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_ACTUATOR, i)
                  for i in range(model.nu)) == sorted(tr.actuator_names)
    k = package_jacobian(tr)
    effort = package_effort_map(tr)
    rows = square(tr)
    for i in range(model.nu):
        a = tr.actuator_index[mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_ACTUATOR, i)]
        data.ctrl[:] = 0.0
        data.ctrl[i] = CONTROL
        mujoco.mj_forward(model, data)
        joint_effort = data.qfrc_actuator[dof] / CONTROL
        assert np.allclose(joint_effort, k[a], rtol=0.0, atol=TOLERANCE * max(1.0, np.max(k)))
        scale = TOLERANCE * max(1.0, np.nanmax(np.abs(effort[rows, a]), initial=0.0))
        assert np.allclose(joint_effort[rows], effort[rows, a], rtol=0.0, atol=scale)
        limit = tr.actuator_models[tr.actuator_names[a]].effort_limit
        if math.isfinite(limit):
            assert list(model.actuator_forcerange[i]) == [-limit, limit]


def test_mujoco_passive_joints_follow_their_driver_linearised(tmp_path):
    mujoco = _consumer('mujoco', 'mujoco')
    text = read_description(EXAMPLE)
    tr = load_robot_transmissions(text, warn=False)
    xml, warnings = mujoco_mjcf(tr, text)
    assert any("'gripper_trans'" in w and 'neutral pose' in w for w in warnings)
    model = mujoco.MjModel.from_xml_string(xml)
    gripper = tr.transmission('gripper_trans').transmission
    q0 = tr.default_joint_position()
    joints = [tr.joint_index[n] for n in tr.transmission('gripper_trans').joint_names]
    theta = gripper.apply_map(POSITION, False, q0[joints], None)
    jac = gripper.actuator_to_joint_jacobian(theta)[:, 0]
    gap = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, 'gripper_joint')
    for k, name in enumerate(tr.transmission('gripper_trans').joint_names[1:], start=1):
        eq = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_EQUALITY, f'{name}__passive')
        assert model.eq_obj2id[eq] == gap
        assert model.eq_data[eq][1] == pytest.approx(jac[k] / jac[0], rel=1e-12)


# ---------------------------------------------------------------------------------- Drake
def directions(tr, actuation):
    """Yield each Drake actuator and its joints' motion per unit driver motion (its mimics)."""
    for actuator in actuation.actuators:
        v = np.zeros(len(tr.joint_names))
        v[tr.joint_index[actuator.joint]] = 1.0
        for mimic in actuation.mimics:
            if mimic.driver == actuator.joint:
                v[tr.joint_index[mimic.joint]] = mimic.multiplier
        yield actuator, v


def test_drake_reads_the_gear_ratio_rotor_inertia_mimics_and_limits(robot, tmp_path):
    _consumer('pydrake', 'drake')
    from pydrake.multibody.parsing import Parser
    from pydrake.multibody.plant import MultibodyPlant
    path, text, tr = robot
    urdf, _ = drake_urdf(tr, text)
    (tmp_path / 'robot.urdf').write_text(urdf)
    plant = MultibodyPlant(0.0)
    Parser(plant).AddModels(str(tmp_path / 'robot.urdf'))
    plant.Finalize()
    context = plant.CreateDefaultContext()
    v = [plant.GetJointByName(n).velocity_start() for n in tr.joint_names]
    drake_actuators = {plant.get_joint_actuator(i).name(): plant.get_joint_actuator(i)
                       for i in plant.GetJointActuatorIndices()}
    with_rotors = plant.CalcMassMatrix(context)
    for actuator in drake_actuators.values():
        actuator.SetRotorInertia(context, 0.0)
    reflected = (with_rotors - plant.CalcMassMatrix(context))[np.ix_(v, v)]
    expected = tr.reflected_inertia()
    scale = TOLERANCE * max(1.0, np.max(expected))
    actuation = joint_actuators(tr, 'Drake', mimic=True)
    assert plant.num_constraints() == len(actuation.mimics) + len(tr.mimic_joints)
    assert len(drake_actuators) == len(actuation.actuators)
    # Drake's rotors sit on the diagonal of their joints; along each actuator's motion (its
    # joint and the joints mimicking it) they weigh what the package's rotors weigh there
    assert np.max(np.abs(reflected - np.diag(np.diag(reflected)))) == 0.0
    k = package_jacobian(tr)
    selection = plant.MakeActuationMatrix()
    for ours, direction in directions(tr, actuation):
        assert abs(direction @ reflected @ direction - direction @ expected @ direction) <= scale
        actuator = drake_actuators[ours.name]
        assert actuator.joint().name() == ours.joint
        column = selection[:, actuator.index()]
        assert column[actuator.joint().velocity_start()] == 1.0 and np.sum(column) == 1.0
        if ours.name in tr.actuator_index:
            # Drake's u is the joint effort, G times the rotor torque: G is the package's rotor
            # turns per driver turn, rho (K v)_a, so u = G tau_r does the package's work
            a = tr.actuator_index[ours.name]
            rho = tr.actuator_models[ours.name].gear_ratio
            assert actuator.default_gear_ratio() == pytest.approx(rho * (k[a] @ direction),
                                                                  rel=1e-12)
        limit = ours.effort_limit
        assert actuator.effort_limit() == (limit if math.isfinite(limit) else math.inf)
        assert limit <= abs(tr.joint_effort_limit[tr.joint_index[ours.joint]])


def test_the_drake_export_reads_back_with_the_same_reflected_inertia(robot, tmp_path):
    path, text, tr = robot
    urdf, _ = drake_urdf(tr, text)
    back = load_robot_transmissions(urdf, warn=False)
    expected = tr.reflected_inertia()
    for actuator, direction in directions(tr, joint_actuators(tr, 'Drake', mimic=True)):
        j = back.joint_index[actuator.joint]
        assert back.reflected_inertia()[j, j] == pytest.approx(
            direction @ expected @ direction, rel=1e-12, abs=1e-300)
    assert all(t.type == 'transmission_interface/SimpleTransmission'
               for t in back.transmissions)


# ---------------------------------------------------------------------------------- Pinocchio
def test_pinocchio_reads_the_armature_and_effort_limits(robot, tmp_path):
    pin = _consumer('pinocchio', 'pin')
    path, text, tr = robot
    xml, _ = pinocchio_mjcf(tr, text, str(path.parent))
    (tmp_path / 'robot.xml').write_text(xml)
    model = pin.buildModelFromMJCF(str(tmp_path / 'robot.xml'))
    ours = joint_actuators(tr, 'Pinocchio').actuators
    actuated = {a.joint: a for a in ours}
    expected = np.diag(tr.reflected_inertia())
    for name in tr.joint_names:
        idx = model.joints[model.getJointId(name)].idx_v
        want = expected[tr.joint_index[name]] if name in actuated else 0.0
        assert abs(model.armature[idx] - want) <= TOLERANCE * max(1.0, want)
        if name in actuated and math.isfinite(actuated[name].effort_limit):
            assert model.effortLimit[idx] == actuated[name].effort_limit


def test_pinocchio_and_mujoco_read_one_mass_matrix_from_the_file(robot, tmp_path):
    pin = _consumer('pinocchio', 'pin')
    mujoco = _consumer('mujoco', 'mujoco')
    path, text, tr = robot
    xml, _ = pinocchio_mjcf(tr, text, str(path.parent))
    (tmp_path / 'robot.xml').write_text(xml)
    model = pin.buildModelFromMJCF(str(tmp_path / 'robot.xml'))
    mj = mujoco.MjModel.from_xml_path(str(tmp_path / 'robot.xml'))
    data = mujoco.MjData(mj)
    names = [model.names[i] for i in range(1, model.njoints)]
    ids = [mujoco.mj_name2id(mj, mujoco.mjtObj.mjOBJ_JOINT, n) for n in names]
    q = np.random.default_rng(1234).uniform(-0.3, 0.3, len(names))
    data.qpos[mj.jnt_qposadr[ids]] = q
    mujoco.mj_forward(mj, data)
    full = np.zeros((mj.nv, mj.nv))
    mujoco.mj_fullM(mj, data, full)
    pin_q = np.zeros(model.nq)
    pin_q[[model.joints[model.getJointId(n)].idx_q for n in names]] = q
    upper = pin.crba(model, model.createData(), pin_q)
    ours = np.triu(upper) + np.triu(upper, 1).T
    dof = mj.jnt_dofadr[ids]
    order = [model.joints[model.getJointId(n)].idx_v for n in names]
    assert np.max(np.abs(full[np.ix_(dof, dof)] - ours[np.ix_(order, order)])) \
        <= TOLERANCE * max(1.0, np.max(np.abs(ours)))


# ---------------------------------------------------------------------------------- warnings
def test_couplings_and_nonlinear_maps_are_warned_about():
    text = read_description(EXAMPLE)
    tr = load_robot_transmissions(text, warn=False)
    _, warnings = drake_urdf(tr, text)
    coupled = [w for w in warnings if 'couples its joints' in w]
    assert any("'arm_trans'" in w and 'cross terms' in w for w in coupled)
    assert any("'wrist_trans'" in w and 'effort map' in w for w in coupled)
    assert any("'gripper_trans'" in w and 'nonlinear' in w for w in warnings)


# ---------------------------------------------------------------------------------- command
def test_the_command_writes_each_format(tmp_path, capsys):
    for fmt in ('drake', 'mujoco', 'pinocchio'):
        out = tmp_path / f'robot.{fmt}'
        assert main(['export', str(FIXTURE_DIR / 'drake_actuators.urdf'), '--to', fmt,
                     str(out)]) == 0
        assert out.read_text().lstrip().startswith('<')
        assert f'drake_arm: wrote {out} for {fmt}' in capsys.readouterr().out


def test_the_command_writes_to_standard_output(capsys):
    assert main(['export', str(EXAMPLE), '--to', 'drake', '-']) == 0
    captured = capsys.readouterr()
    assert '<drake:gear_ratio' in captured.out and 'wrote' not in captured.out
    assert 'transmission_plugins export: warning:' in captured.err


def test_an_unknown_format_is_a_usage_error(capsys):
    assert main(['export', str(EXAMPLE), '--to', 'bullet', 'out.xml']) == 2
    assert "invalid choice: 'bullet'" in capsys.readouterr().err


def test_an_unwritable_output_is_an_error_naming_it(tmp_path, capsys):
    out = tmp_path / 'missing' / 'robot.urdf'
    assert main(['export', str(EXAMPLE), '--to', 'drake', str(out)]) == 1
    assert f'{out}: cannot write the Drake URDF' in capsys.readouterr().err
    assert not out.parent.exists()


def test_a_transmission_the_consumer_cannot_hold_is_named_by_its_path(capsys):
    _consumer('mujoco', 'mujoco')
    # MuJoCo's URDF importer has no joint for a name with '/' in it
    status = main(['export', str(FIXTURE_DIR / 'namespaced_joints.urdf'), '--to', 'mujoco',
                   'never.xml'])
    assert status == 1
    err = capsys.readouterr().err
    assert "transmission_plugins export: error: /robot/joint[@name='robot1/arm/joint_1']" in err


def test_the_command_answers_help(capsys):
    assert main(['export', '--help']) == 0
    out = capsys.readouterr().out
    assert '--to {drake,mujoco,pinocchio}' in out and 'OUT' in out
