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
A MuJoCo model of a robot description, with its transmissions' rotors and passive joints.

:func:`build_model` hands MuJoCo's own URDF importer a cleaned copy of the description
(:mod:`~.mujoco_urdf`), then edits the model (doc/physics.md, "The model"):

* **rotors**: each actuator's reflected inertia :math:`I = \rho^2 I_r`
  (:meth:`~transmission_plugins.robot.actuators.ActuatorModel.reflected_inertia`) and the rotor
  damping :math:`c` become a *fixed tendon* :math:`L = k^T q` (:math:`k^T` the actuator's row of
  :math:`K = \partial\theta/\partial q`) with ``armature`` :math:`I` and ``damping`` :math:`c`.
  A fixed tendon's armature adds :math:`I\,k k^T` to the joint-space inertia matrix, so the
  robot's rotors add exactly :math:`K^T \operatorname{diag}(I) K`
  (:meth:`~transmission_plugins.robot.robot_transmissions.RobotTransmissions.reflected_inertia`),
  off-diagonal terms of coupled transmissions included; a joint's ``armature`` alone is
  per-DOF (diagonal) and could not represent them.  For nonlinear transmissions (the PR2
  gripper) :math:`k` depends on the position: the physics rewrites the tendon coefficients
  before every step (the :math:`\dot K` terms of the rotor's kinetic energy are left out);
* **passive joints** (those a transmission's joint-to-actuator maps do not read, e.g. the PR2
  gripper fingers) follow the transmission's own passive-joint map: each is held by a MuJoCo
  joint equality at a reference that the physics sets before every step to the map's value at
  the actuator positions (:math:`q_p = \psi_p(\theta)`).  Exact positions; the fingers' weight
  is carried by the links they hang from, and their inertia is added to the actuator's rotor
  tendon as :math:`\sum_p (\partial q_p/\partial\theta)^2 M_{pp}` (:math:`M_{pp}` the
  passive joint's diagonal of the inertia matrix; cross terms left out);
* joints of a transmission that shares its actuators with an earlier, identical one are tied
  to that transmission's joints by equalities; **joints without a transmission** (and that mimic
  nothing) are locked at 0 (clipped into their range);
* **gravity compensation** (optional): the links named and every link below them are
  weightless (MuJoCo's body ``gravcomp``).
"""

import math
from types import ModuleType
from typing import Any
from typing import Dict
from typing import List
from typing import NamedTuple
from typing import Optional
from typing import Sequence
from typing import Tuple

import numpy as np

from transmission_plugins.core.exceptions import BadValueError
from transmission_plugins.core.exceptions import LoadWarning
from transmission_plugins.core.exceptions import TransmissionError
from transmission_plugins.core.exceptions import TransmissionValueError
from transmission_plugins.robot.fused_maps import Block
from transmission_plugins.robot.robot_transmissions import RobotTransmissions
from transmission_plugins.runtime.mujoco_urdf import mujoco_urdf

_WHERE = "physics 'mujoco'"


class MujocoUnavailableError(TransmissionError, ImportError):
    """``physics: mujoco`` was asked for and the ``mujoco`` package cannot be imported."""


def import_mujoco() -> ModuleType:
    """
    Return the ``mujoco`` module.

    :raises MujocoUnavailableError: saying how to install it
    """
    try:
        import mujoco
    except ImportError as e:
        raise MujocoUnavailableError(
            f"physics 'mujoco' needs the mujoco Python package, which cannot be imported "
            f"({e}); install it with 'pip install mujoco' (the project pins it in "
            "requirements.txt), or use physics 'rotors'") from e
    return mujoco


class ModelOptions(NamedTuple):
    """What :func:`build_model` builds (see the module docstring)."""

    #: physics step in seconds, > 0
    physics_step: float = 1e-3
    #: gravity along -z (9.81 m/s^2) or none
    gravity: bool = True
    #: contacts between collision geometries (off: links pass through each other)
    contacts: bool = False
    #: viscous damping of every rotor at its actuator coordinate, >= 0
    rotor_damping: float = 0.0
    #: links whose weight, and that of every link below them, an ideal counterbalance carries
    gravity_compensation: Sequence[str] = ()
    #: lower bounds of link masses (kg) and inertias (kg m^2): massless links get them
    bound_mass: float = 1e-3
    bound_inertia: float = 1e-6


class PassiveGroup(NamedTuple):
    """The passive joints of identical transmissions, stacked: one map call serves them all."""

    transmission: Any
    #: indices in the transmission's joint order
    local: np.ndarray
    #: (G, N) actuator indices; (G, P) robot joints, equality ids and reference positions
    actuators: np.ndarray
    joints: np.ndarray
    equalities: np.ndarray
    refs: np.ndarray
    #: (G, N) rotor tendons and rotor inertias; (G, P) the passive joints' inertia diagonal (0
    #: in the model: the physics measures it)
    tendons: np.ndarray
    rotor_inertia: np.ndarray
    diagonal: np.ndarray


class MujocoModel(NamedTuple):
    """A compiled MuJoCo model and where the robot's joints and rotors are in it."""

    #: the ``mujoco.MjModel``
    model: Any
    robot: RobotTransmissions
    #: ``qpos`` and ``qvel`` addresses of each joint of ``robot.joint_names``
    qpos: np.ndarray
    dof: np.ndarray
    #: the passive joints, grouped by transmission map
    passive: List[PassiveGroup]
    #: (wrap addresses, actuator index, robot joint indices) of each rotor tendon whose
    #: coefficients depend on the position
    varying_tendons: List[Tuple[np.ndarray, int, np.ndarray]]
    #: joints locked for want of a motor -> their position
    locked: Dict[str, float]
    warnings: List[LoadWarning]


def blocks(robot: RobotTransmissions) -> List[Block]:
    """Return the robot's transmissions placed in its vectors (linear ones, then the others)."""
    return list(robot.fused.linear) + list(robot.fused.nonlinear)


def passive_local(block: Block) -> np.ndarray:
    """Return the joints (transmission order) its joint-to-actuator maps do not read."""
    inputs = block.transmission.joint_to_actuator_inputs()
    return np.array([k for k in range(block.transmission.num_joints()) if k not in inputs],
                    dtype=int)


def _moving(mujoco: ModuleType) -> Tuple[int, int]:
    return int(mujoco.mjtJoint.mjJNT_HINGE), int(mujoco.mjtJoint.mjJNT_SLIDE)


def _equality(mujoco: ModuleType, spec: Any, name: str, joint: str, driver: Optional[str],
              poly: Sequence[float], step: float) -> None:
    """Add :math:`y - y_0 = a_0 + a_1 (x - x_0)` (``driver`` x, or none: y is held)."""
    data = np.zeros(12)
    data[:len(poly)] = poly
    eq = spec.add_equality(name=name, type=mujoco.mjtEq.mjEQ_JOINT, name1=joint,
                           name2=driver or '', data=data)
    eq.objtype = mujoco.mjtObj.mjOBJ_JOINT
    eq.solref = [2.0 * step, 1.0]
    eq.solimp = [0.99, 0.999, 0.001, 0.5, 2.0]


def _check_options(options: ModelOptions) -> None:
    for name in ('physics_step', 'bound_mass', 'bound_inertia', 'rotor_damping'):
        value = getattr(options, name)
        low_ok = value >= 0.0 if name == 'rotor_damping' else value > 0.0
        if isinstance(value, bool) or not (isinstance(value, (int, float))
                                           and math.isfinite(value) and low_ok):
            raise TransmissionValueError(
                name, value, 'a finite number ' + ('>= 0' if name == 'rotor_damping' else '> 0'),
                _WHERE)


def build_model(robot: RobotTransmissions, description: str,
                options: ModelOptions = ModelOptions(), *, base_dir: Optional[str] = None,
                joint_position: Any = None) -> MujocoModel:
    """
    Build the MuJoCo model of ``description`` for the transmissions ``robot``.

    :param base_dir: directory of relative mesh file names (default: the working directory)
    :param joint_position: joint positions (``robot.joint_names`` order) at which position-
        dependent tendon coefficients start; default ``robot.default_joint_position()``
    :raises MujocoUnavailableError: mujoco is not installed
    :raises TransmissionError: an option is invalid, MuJoCo rejects the description or a
        transmission cannot be represented
    """
    mujoco = import_mujoco()
    _check_options(options)
    passive_names = {robot.joint_names[int(b.joints[k])]
                     for b in blocks(robot) for k in passive_local(b)}
    text, warnings = mujoco_urdf(description, options, passive_names, base_dir)
    try:
        spec = mujoco.MjSpec.from_string(text)
    except ValueError as e:
        raise BadValueError('/robot', f'MuJoCo cannot read the description: {e}') from e
    spec.option.timestep = options.physics_step
    spec.option.gravity = [0.0, 0.0, -9.81 if options.gravity else 0.0]
    spec.option.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
    if not options.contacts:
        spec.option.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONTACT)
    missing = [n for n in robot.joint_names if spec.joint(n) is None]
    if missing:
        raise BadValueError(f"/robot/joint[@name='{missing[0]}']",
                            'a transmission drives it, and the MuJoCo model has no such joint '
                            '(not a movable top-level joint?)')
    _compensate(mujoco, spec, options.gravity_compensation)
    step = options.physics_step
    for b in blocks(robot):
        for k in passive_local(b):
            name = robot.joint_names[int(b.joints[k])]
            _equality(mujoco, spec, f'{name}__passive', name, None, [0.0], step)
    _tie_followers(mujoco, spec, robot, step)
    locked = {}
    for name in robot.untransmitted_joints:
        joint = spec.joint(name)
        if joint is None or int(joint.type) not in _moving(mujoco):
            continue
        lo, hi = robot.urdf_joints[name].lower, robot.urdf_joints[name].upper
        value = min(max(0.0, lo), hi) if lo <= hi else 0.0
        _equality(mujoco, spec, f'{name}__locked', name, None, [value - float(joint.ref)], step)
        locked[name] = value
    q0 = robot.default_joint_position() if joint_position is None else joint_position
    tendons = _add_rotor_tendons(spec, robot, options.rotor_damping, q0)
    try:
        model = spec.compile()
    except ValueError as e:
        raise BadValueError('/robot', f'MuJoCo cannot compile the description: {e}') from e
    return _index(mujoco, model, robot, tendons, locked, warnings)


def _compensate(mujoco: ModuleType, spec: Any, links: Sequence[str]) -> None:
    """Make ``links`` and every body below them weightless (``gravcomp`` 1)."""
    if isinstance(links, str):
        links = [links]
    for link in links:
        body = spec.body(link) if isinstance(link, str) and link else None
        if body is None or link == 'world':
            raise TransmissionValueError('gravity_compensation', link,
                                         'names of links of the robot description', _WHERE)
        body.gravcomp = 1.0
        for child in body.find_all(mujoco.mjtObj.mjOBJ_BODY):
            child.gravcomp = 1.0
    if links:
        spec.compiler.fusestatic = False   # a fused body would take its parent's gravcomp


class ActuatorJacobian:
    r"""
    :math:`K(q) = \partial\theta/\partial q` (``na x nj``) of a robot, the linear part fused once.

    The fused matrix of the linear transmissions, with each nonlinear owner transmission's
    :meth:`~transmission_plugins.core.transmission.Transmission.joint_to_actuator_jacobian`
    at its joints' positions; only actuator owners write rows, as in ``joint_to_actuator``.
    Entries that are not finite (a map evaluated outside its domain) are 0.
    """

    def __init__(self, robot: RobotTransmissions) -> None:
        self._k = np.array(robot.fused.joint_to_actuator_position, dtype=np.float64)
        # the owners' identical nonlinear transmissions (the PR2's two grippers) in one call
        self._groups = [(g.transmission, g.src, g.dst[:, :, None], g.src[:, None, :])
                        for g in robot.fused.groups[False]]

    def __call__(self, joint_position: Any) -> np.ndarray:
        """Return :math:`K` at ``joint_position``; the array is rewritten by the next call."""
        q = np.asarray(joint_position, dtype=np.float64)
        for transmission, joints, rows, columns in self._groups:
            jac = transmission.joint_to_actuator_jacobian(q[joints])
            self._k[rows, columns] = np.where(np.isfinite(jac), jac, 0.0)
        return self._k


def _tie_followers(mujoco: ModuleType, spec: Any, robot: RobotTransmissions,
                   step: float) -> None:
    """Tie each follower transmission's joints to its owner's (identical maps)."""
    owners = [b for b in blocks(robot) if b.owner]
    for b in blocks(robot):
        if b.owner:
            continue
        owner = next(o for o in owners if set(o.actuators) >= set(b.actuators))
        for jf, jo in zip(b.joints, owner.joints):
            follower, driver = robot.joint_names[jf], robot.joint_names[jo]
            _equality(mujoco, spec, f'{follower}__follows', follower, driver, [0.0, 1.0], step)


def _add_rotor_tendons(spec: Any, robot: RobotTransmissions, damping: float,
                       joint_position: Any) -> List[Tuple[str, int, List[int], bool]]:
    """Add one fixed tendon per rotor; return (name, actuator, robot joints, varying)."""
    k = ActuatorJacobian(robot)(joint_position)
    out = []
    for b in blocks(robot):
        if not b.owner:
            continue
        # the passive joints' inertia goes to the tendons: they vary with the position
        linear = b.transmission.is_linear() and not passive_local(b).size
        inputs = [int(b.joints[i]) for i in b.transmission.joint_to_actuator_inputs()]
        for a in b.actuators:
            name = robot.actuator_names[a]
            inertia = robot.actuator_models[name].reflected_inertia()
            joints = [j for j in inputs if not linear or k[a, j] != 0.0]
            if not joints or (inertia == 0.0 and damping == 0.0 and linear):
                continue
            tendon = spec.add_tendon(name=f'{name}__rotor', armature=inertia, damping=damping)
            for j in joints:
                tendon.wrap_joint(robot.joint_names[j], float(k[a, j]))
            out.append((f'{name}__rotor', int(a), joints, not linear))
    return out


def _index(mujoco: ModuleType, model: Any, robot: RobotTransmissions,
           tendons: List[Tuple[str, int, List[int], bool]], locked: Dict[str, float],
           warnings: List[LoadWarning]) -> MujocoModel:
    def find(kind: Any, name: str) -> int:
        return int(mujoco.mj_name2id(model, kind, name))

    ids = [find(mujoco.mjtObj.mjOBJ_JOINT, n) for n in robot.joint_names]
    for name, j in zip(robot.joint_names, ids):
        if int(model.jnt_type[j]) not in _moving(mujoco):
            raise BadValueError(f"/robot/joint[@name='{name}']",
                                'a transmission drives it: expected a revolute, continuous or '
                                'prismatic joint in the MuJoCo model')
    groups: Dict[Any, List[Block]] = {}
    for b in blocks(robot):
        if passive_local(b).size:
            groups.setdefault((b.transmission.map_key(), tuple(passive_local(b))), []).append(b)
    passive = []
    for members in groups.values():
        local = passive_local(members[0])
        held = np.array([b.joints[local] for b in members])
        eqs = np.array([[find(mujoco.mjtObj.mjOBJ_EQUALITY, f'{robot.joint_names[j]}__passive')
                         for j in row] for row in held])
        refs = model.qpos0[model.jnt_qposadr[np.array(ids)[held]]]
        actuators = np.array([b.actuators for b in members])
        motors = [[robot.actuator_names[a] for a in row] for row in actuators]
        rotors = np.array([[find(mujoco.mjtObj.mjOBJ_TENDON, f'{m}__rotor') for m in row]
                           for row in motors])
        inertia = np.array([[robot.actuator_models[m].reflected_inertia() for m in row]
                            for row in motors])
        passive.append(PassiveGroup(members[0].transmission, local, actuators, held, eqs, refs,
                                    rotors, inertia, np.zeros(held.shape)))
    varying = []
    for name, a, joints, is_varying in tendons:
        if is_varying:
            start = int(model.tendon_adr[find(mujoco.mjtObj.mjOBJ_TENDON, name)])
            varying.append((np.arange(start, start + len(joints)), a, np.array(joints)))
    return MujocoModel(model=model, robot=robot, qpos=model.jnt_qposadr[ids].copy(),
                       dof=model.jnt_dofadr[ids].copy(), passive=passive,
                       varying_tendons=varying, locked=locked, warnings=warnings)
