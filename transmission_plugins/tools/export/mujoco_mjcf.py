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
``export --to mujoco``: the robot's MuJoCo model (:mod:`~.runtime.mujoco_model`) as MJCF.

The MJCF is the model ``mock_actuators`` simulates with ``physics: mujoco``, built by the same
:func:`~transmission_plugins.runtime.mujoco_model.build_spec`: rotors are fixed tendons
:math:`L_a = k_a^T q` (:math:`k_a^T` the actuator's row of :math:`K = \partial\theta/\partial q`)
with ``armature`` :math:`\rho_a^2 I_{r,a}`, so the joint-space inertia gains
:math:`K^T\operatorname{diag}(\rho^2 I_r)K`, cross terms of coupled transmissions included;
joints held on a transmission's image are tendons held by tendon equalities; mimic joints and
joints sharing actuators are joint equalities.  Added for a standalone model:

* one ``<general>`` actuator per actuator of the package, named like it, a force on its rotor
  tendon (gain 1, ``forcerange`` its effort limit, or its motor's peak torque through the gear
  ratio where that is tighter): a control :math:`\tau_a` gives the joint efforts
  :math:`k_a\tau_a`, the package's :math:`\tau_q = K^T\tau_a`;
* the drivetrain as the runtime's model holds it (doc/physics.md): joint-side friction in the
  joints' ``frictionloss`` and ``damping``, motor-side friction in the rotor tendons'
  (:math:`L_a = k_a^T q`: the tendon's friction reaches the joints as :math:`k_a F`, for a
  simple transmission of reduction :math:`n` the joint sees :math:`|n| F_c` and
  :math:`n^2 b`, and a coupled one gets it exactly too), joint-side backlash as a limited
  joint ``<joint>__backlash``; the rest is named in one warning each
  (:func:`~.joint_actuators.drivetrain_warnings`);
* a series-elastic transmission as the runtime's model holds it: the motor's actuator on its
  rotor tendon at the drive ``<joint>``, the spring a joint ``<joint>__spring`` between the
  drive and the link with ``stiffness`` :math:`k` and ``damping`` :math:`d`; its joint-side
  encoder takes no command and gets no actuator.  A measured spring table, which the runtime
  applies every step, becomes its slope at no deflection
  (:meth:`~.series_springs.SeriesSprings.slope_at_zero`), with a warning naming the joint and
  the table;
* MuJoCo's defaults where the runtime has its own (doc/cli.md);
* nonlinear transmissions (the PR2 gripper) are linearised at the neutral pose
  :math:`q_0` (:meth:`~.RobotTransmissions.default_joint_position`), with a warning: their
  tendon coefficients are :math:`K(q_0)`, and each passive joint follows the joint driving it,
  :math:`q_p - q_p(q_0) = (\partial q_p/\partial q_x)(q_x - q_{x,0})` (a joint equality; the
  runtime instead sets the passive joints every step).
"""

import os
from typing import Any

from lxml import etree
import numpy as np

from transmission_plugins.core.exceptions import BadValueError
from transmission_plugins.core.interfaces import POSITION
from transmission_plugins.robot.robot_transmissions import RobotTransmissions
from transmission_plugins.runtime.mujoco_model import blocks
from transmission_plugins.runtime.mujoco_model import build_spec
from transmission_plugins.runtime.mujoco_model import import_mujoco
from transmission_plugins.runtime.mujoco_model import ModelOptions
from transmission_plugins.runtime.mujoco_urdf import SPRING_JOINT
from transmission_plugins.tools.export.joint_actuators import block_jacobian
from transmission_plugins.tools.export.joint_actuators import drivetrain_warnings
from transmission_plugins.tools.export.joint_actuators import linearised_warnings

#: The model options of the export: contacts on, the rest the runtime's defaults.
EXPORT_OPTIONS = ModelOptions(contacts=True)


def export_spec(robot: RobotTransmissions, description: str,
                base_dir: str | None = None) -> tuple[Any, list[str]]:
    """
    Return the ``mujoco.MjSpec`` written by ``export --to mujoco`` and its warnings.

    :param description: the URDF text
    :param base_dir: directory of relative mesh file names
    :raises TransmissionError: MuJoCo rejects the description or a transmission cannot be
        represented (named by its URDF element path)
    """
    mujoco = import_mujoco()
    q0 = robot.default_joint_position()
    owners = [(b, block_jacobian(robot, b, q0)) for b in _owner_blocks(robot)]
    built = build_spec(robot, description, EXPORT_OPTIONS, base_dir=base_dir)
    spec = built.spec
    spec.option.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
    spec.option.disableflags &= ~int(mujoco.mjtDisableBit.mjDSBL_EULERDAMP)
    _follow_drivers(spec, robot)
    _add_actuators(mujoco, spec, robot, owners)
    warnings = linearised_warnings(robot, 'MuJoCo') + [str(w) for w in built.warnings]
    springs = built.springs
    if springs is not None:
        slope = springs.slope_at_zero()
        for i in map(int, springs.table.nonzero()[0]):
            name = springs.names[i]
            joint = spec.joint(f'{name}{SPRING_JOINT}')
            stiffness = np.array(joint.stiffness, dtype=np.float64)
            stiffness.reshape(-1)[0] = float(slope[i])
            joint.stiffness = stiffness
            warnings.append(f'joint {name}: its series spring is a measured table '
                            f'({springs.describe(i)}): MuJoCo holds a linear joint spring, so '
                            f'{name}{SPRING_JOINT} gets the slope at no deflection, stiffness '
                            f'{float(slope[i]):g} (mock_actuators applies the table itself)')
    warnings += drivetrain_warnings(robot, 'MuJoCo', backlash=('joint',))
    return spec, warnings


def mujoco_mjcf(robot: RobotTransmissions, description: str,
                base_dir: str | None = None) -> tuple[str, list[str]]:
    """Return the MJCF text of :func:`export_spec` and its warnings."""
    spec, warnings = export_spec(robot, description, base_dir)
    return to_xml(spec), warnings


def to_xml(spec: Any) -> str:
    """
    Return the spec as MJCF text: MuJoCo's own writer, the transmission numbers made exact.

    MuJoCo writes numbers with 6 significant digits; the numbers the transmissions set (joint
    and tendon ``armature``, tendon coefficients, equality ``polycoef``, actuator
    ``forcerange``, joint ``actuatorfrcrange``) are rewritten from the compiled model, whose
    doubles are the spec's, in the shortest form that reads back to the same double.

    :raises BadValueError: MuJoCo cannot compile or write it
    """
    mujoco = import_mujoco()
    try:
        model = spec.compile()
        text = str(spec.to_xml())
    except ValueError as e:
        raise BadValueError('/robot', f'MuJoCo cannot write the model: {e}') from e
    root = etree.fromstring(text.encode())

    def index(kind: Any, element: Any) -> int:
        return int(mujoco.mj_name2id(model, kind, element.get('name') or ''))

    for element in root.iter('joint'):
        i = index(mujoco.mjtObj.mjOBJ_JOINT, element)
        if i >= 0 and element.getparent().tag == 'body' \
                and model.dof_armature[model.jnt_dofadr[i]]:
            element.set('armature', _number(model.dof_armature[model.jnt_dofadr[i]]))
        if i >= 0 and element.get('stiffness') is not None:
            element.set('stiffness', _number(model.jnt_stiffness[i]))
        if i >= 0 and (element.get('name') or '').endswith(SPRING_JOINT) \
                and element.get('damping') is not None:
            element.set('damping', _number(model.dof_damping[model.jnt_dofadr[i]]))
        if i >= 0 and element.get('actuatorfrcrange') is not None:
            element.set('actuatorfrcrange',
                        ' '.join(_number(v) for v in model.jnt_actfrcrange[i]))
    for element in root.iter('fixed'):
        i = index(mujoco.mjtObj.mjOBJ_TENDON, element)
        if model.tendon_armature[i]:
            element.set('armature', _number(model.tendon_armature[i]))
        for w, wrap in enumerate(c for c in element if c.tag == 'joint'):
            wrap.set('coef', _number(model.wrap_prm[model.tendon_adr[i] + w]))
    equality = root.find('equality')
    for element in (() if equality is None else equality):
        i = index(mujoco.mjtObj.mjOBJ_EQUALITY, element)
        if i >= 0 and element.get('polycoef') is not None:
            element.set('polycoef', ' '.join(_number(v) for v in model.eq_data[i][:5]))
    for element in root.iter('general'):
        i = index(mujoco.mjtObj.mjOBJ_ACTUATOR, element)
        if i >= 0 and element.get('forcerange') is not None:
            element.set('forcerange', ' '.join(_number(v) for v in model.actuator_forcerange[i]))
    return etree.tostring(root, encoding='unicode') + '\n'


def _number(value: float) -> str:
    """Return the shortest text that reads back to the double ``value``."""
    return repr(float(value))


def _follow_drivers(spec: Any, robot: RobotTransmissions) -> None:
    """Make each passive joint follow its transmission's input joint, linearised at q0."""
    q0 = robot.default_joint_position()
    equalities = {e.name: e for e in spec.equalities}
    for t in robot.transmissions:
        tr = t.transmission
        joints = [robot.joint_index[n] for n in t.joint_names]
        inputs = list(tr.joint_to_actuator_inputs())
        passive = [k for k in range(tr.num_joints()) if k not in inputs]
        if not passive or f'{t.joint_names[passive[0]]}__passive' not in equalities:
            continue
        if len(inputs) != 1 or tr.num_actuators() != 1:
            raise BadValueError(t.path, 'its passive joints follow more than one joint: MuJoCo '
                                'joint equalities follow one; it cannot be exported')
        theta = tr.apply_map(POSITION, False, q0[joints], None)
        position = np.asarray(tr.apply_map(POSITION, True, theta, None))
        jac = np.asarray(tr.actuator_to_joint_jacobian(theta))[:, 0]
        x = t.joint_names[inputs[0]]
        x_ref = float(spec.joint(x).ref)
        for p in passive:
            slope = float(jac[p] / jac[inputs[0]])
            y = t.joint_names[p]
            offset = float(position[p]) - float(spec.joint(y).ref) \
                - slope * (float(position[inputs[0]]) - x_ref)
            eq = equalities[f'{y}__passive']
            eq.name2 = x
            data = np.zeros(12)
            data[:2] = (offset, slope)
            eq.data = data


def _add_actuators(mujoco: Any, spec: Any, robot: RobotTransmissions,
                   owners: list[tuple[Any, np.ndarray]]) -> None:
    """
    Add one force actuator per actuator on its rotor tendon (a new tendon where none is).

    :param owners: each transmission that owns its actuators, with its :math:`K(q_0)`
    """
    tendons = {t.name for t in spec.tendons}
    peak = np.abs(robot.drivetrain.effort_bounds(np.zeros(len(robot.actuator_names)))[1])
    for b, k in owners:
        inputs = list(b.transmission.joint_to_actuator_inputs())
        for row, a in enumerate(b.actuators):
            if not robot.commanded_actuators[int(a)]:   # a sensor channel: no actuator
                continue
            name = robot.actuator_names[int(a)]
            tendon = f'{name}__rotor'
            if tendon not in tendons:
                added = spec.add_tendon(name=tendon)
                for c in inputs:
                    if k[row, c] != 0.0:
                        added.wrap_joint(robot.joint_names[int(b.joints[c])], float(k[row, c]))
            actuator = spec.add_actuator(name=name, trntype=mujoco.mjtTrn.mjTRN_TENDON,
                                         target=tendon)
            limit = min(float(robot.actuator_models[name].effort_limit), float(peak[int(a)]))
            if np.isfinite(limit):
                actuator.forcelimited = mujoco.mjtLimited.mjLIMITED_TRUE
                actuator.forcerange = [-limit, limit]


def _owner_blocks(robot: RobotTransmissions) -> list[Any]:
    return [b for b in blocks(robot) if b.owner]


def base_directory(urdf: str) -> str:
    """Return the directory relative mesh names of the file ``urdf`` are resolved against."""
    return os.path.dirname(os.path.abspath(urdf))
