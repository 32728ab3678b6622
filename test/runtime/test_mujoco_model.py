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

"""The MuJoCo model of a description: limits, damping, rotor inertia, meshes, the PR2, errors."""

import subprocess
import sys
import textwrap

from lxml import etree
from mujoco_cases import BUNDLED
from mujoco_cases import loaded
from mujoco_cases import mujoco
from mujoco_cases import one_joint
import numpy as np
import pytest
from tp_support import PR2_URDF
from tp_support import REPO
from transmission_plugins.core.exceptions import TransmissionValueError
from transmission_plugins.runtime.mujoco_model import build_model
from transmission_plugins.runtime.mujoco_model import ModelOptions
from transmission_plugins.runtime.mujoco_model import MujocoUnavailableError
from transmission_plugins.runtime.mujoco_physics import MujocoPhysics


def _joint_id(model, name):
    return mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, name)


def test_joint_limits_and_damping_come_from_the_urdf():
    text, robot = loaded(BUNDLED)
    model = build_model(robot, text).model
    root = etree.fromstring(text.encode())
    damping = {j.get('name'): float(j.find('dynamics').get('damping'))
               for j in root.iter('joint') if j.find('dynamics') is not None}
    assert len(damping) == 6
    for i, name in enumerate(robot.joint_names):
        j = _joint_id(model, name)
        assert model.jnt_limited[j]
        np.testing.assert_array_equal(model.jnt_range[j],
                                      [robot.joint_lower[i], robot.joint_upper[i]])
        assert model.dof_damping[model.jnt_dofadr[j]] == damping.get(name, 0.0)


def _inertia_matrix(physics):
    full = np.zeros((physics.model.nv, physics.model.nv))
    mujoco.mj_fullM(physics.model, physics.data, full)
    dof = physics.built.dof
    return full[np.ix_(dof, dof)]


def test_the_rotor_tendons_add_exactly_the_reflected_inertia_matrix():
    """K^T diag(rho^2 I_r) K, off-diagonal terms of the coupled transmissions included."""
    text, robot = loaded(BUNDLED)
    physics = MujocoPhysics(robot, text)
    q = physics.joint_state()['position']
    with_rotors = _inertia_matrix(physics)
    physics.model.tendon_armature[:] = 0.0
    mujoco.mj_forward(physics.model, physics.data)
    rotors = with_rotors - _inertia_matrix(physics)
    expected = robot.reflected_inertia(q)
    linear = [robot.joint_index[n] for t in robot.transmissions if t.transmission.is_linear()
              for n in t.joint_names]
    block = np.ix_(linear, linear)
    np.testing.assert_allclose(rotors[block], expected[block], rtol=1e-10, atol=1e-12)
    shoulder, elbow = robot.joint_index['shoulder_joint'], robot.joint_index['elbow_joint']
    assert abs(expected[shoulder, elbow]) > 0.1   # the four-bar couples them
    # the gripper: its rotor plus the passive fingers' inertia, both seen through the gap
    gap = robot.joint_index['gripper_joint']
    passive = physics.built.passive[0]
    tr = passive.block.transmission
    theta = physics.state()['position'][[robot.actuator_index['gripper_motor']]]
    dq_dtheta = tr.actuator_to_joint_jacobian(theta)[passive.local, 0]
    fingers = np.diag(with_rotors)[[robot.joint_index[n] for n in
                                    np.array(robot.joint_names)[passive.joints]]]
    k_gap = tr.joint_to_actuator_jacobian(q[passive.block.joints])[0, 0]
    motor = robot.actuator_models['gripper_motor'].reflected_inertia()
    assert rotors[gap, gap] == pytest.approx(
        k_gap ** 2 * (motor + np.sum(dq_dtheta ** 2 * fingers)), rel=1e-9)


def _write_obj(path):
    """Write a tetrahedron as a Wavefront OBJ file (MuJoCo reads STL only in binary)."""
    path.write_text('v 0 0 0\nv 0.1 0 0\nv 0 0.1 0\nv 0 0 0.1\n'
                    'f 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n')


def test_meshes_that_cannot_be_read_are_left_out_with_one_warning(tmp_path, monkeypatch):
    _write_obj(tmp_path / 'here.obj')
    (tmp_path / 'prefix' / 'share' / 'pkg').mkdir(parents=True)
    _write_obj(tmp_path / 'prefix' / 'share' / 'pkg' / 'found.obj')
    (tmp_path / 'visual.dae').write_text('<COLLADA/>')
    monkeypatch.setenv('AMENT_PREFIX_PATH', str(tmp_path / 'prefix'))
    meshes = ['here.obj', 'package://pkg/found.obj', 'package://nowhere/x.stl',
              'visual.dae', 'missing.obj']
    collisions = ''.join(f'<collision><geometry><mesh filename="{m}"/></geometry></collision>'
                         for m in meshes)
    text = one_joint().replace('<link name="arm">', f'<link name="arm">{collisions}'
                               '<visual><geometry><mesh filename="nowhere.dae"/></geometry>'
                               '</visual>')
    text, robot = loaded(text)
    built = build_model(robot, text, ModelOptions(contacts=True), base_dir=str(tmp_path))
    assert built.model.ngeom == 2    # the two mesh files found
    assert len(built.warnings) == 1
    warning = built.warnings[0]
    assert '3 collision meshes left out' in warning
    assert "2 not found ('package://nowhere/x.stl', 'missing.obj')" in warning
    assert "1 in a format MuJoCo cannot read ('visual.dae'" in warning
    # without contacts no collision geometry is read at all
    quiet = build_model(robot, text, ModelOptions(contacts=False), base_dir=str(tmp_path))
    assert quiet.model.ngeom == 0 and not quiet.warnings


@pytest.mark.skipif(not PR2_URDF.is_file(), reason=f'the PR2 description is not at {PR2_URDF}')
def test_the_pr2_loads_and_steps():
    text, robot = loaded(PR2_URDF)
    physics = MujocoPhysics(robot, text, ModelOptions(
        contacts=True, gravity_compensation=['r_shoulder_lift_link', 'l_shoulder_lift_link']))
    assert physics.model.nv == 45 and len(robot.actuator_names) == 32
    # the mesh files are not in the corpus: one warning for all of them
    assert len(physics.built.warnings) == 1 and 'collision meshes left out' \
        in physics.built.warnings[0]
    # the screw joint of the torso has no transmission: locked
    assert physics.built.locked == {'torso_lift_motor_screw_joint': 0.0}
    start = physics.joint_state()['position']
    physics.set_command('position', physics.state()['position'])
    physics.step(0.3)
    state = physics.joint_state()
    assert np.all(np.isfinite(state['position'])) and np.all(np.isfinite(state['velocity']))
    # holding: the counterbalanced arms and the rest within a few milliradians
    arm = [i for i, n in enumerate(robot.joint_names)
           if n.startswith(('r_', 'l_')) and 'gripper' not in n]
    assert np.max(np.abs(state['position'][arm] - start[arm])) < 0.02
    assert physics.real_time_factor() > 0.0


@pytest.mark.parametrize('options, parameter', [
    (ModelOptions(physics_step=0.0), 'physics_step'),
    (ModelOptions(rotor_damping=-1.0), 'rotor_damping'),
    (ModelOptions(bound_mass=float('nan')), 'bound_mass'),
    (ModelOptions(gravity_compensation=['no_such_link']), 'gravity_compensation'),
])
def test_bad_options_name_the_parameter(options, parameter):
    text, robot = loaded(one_joint())
    with pytest.raises(TransmissionValueError, match=parameter):
        build_model(robot, text, options)


@pytest.mark.process
def test_without_mujoco_the_package_and_the_rotor_mock_work_and_mujoco_is_refused():
    code = textwrap.dedent("""
        import sys
        sys.modules['mujoco'] = None      # as if it were not installed
        import transmission_plugins
        from transmission_plugins.robot.loading import load_robot_transmissions
        from transmission_plugins.runtime.mujoco_physics import MujocoPhysics
        from transmission_plugins.runtime.simulator import ActuatorSimulator
        robot = load_robot_transmissions(sys.argv[1], warn=False)
        sim = ActuatorSimulator([robot.actuator_models[n] for n in robot.actuator_names])
        sim.set_command('position', [0.1] * len(robot.actuator_names))
        sim.step(0.01)
        try:
            MujocoPhysics(robot, sys.argv[1])
        except Exception as e:
            print(type(e).__name__, e)
        """)
    out = subprocess.run([sys.executable, '-c', code, str(BUNDLED)], capture_output=True,
                         text=True, cwd=REPO, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith(MujocoUnavailableError.__name__)
    assert "physics 'mujoco' needs the mujoco Python package" in out.stdout
    assert 'pip install mujoco' in out.stdout
