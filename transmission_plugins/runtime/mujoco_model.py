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
(:mod:`~.mujoco_urdf`: links and joints only, no visuals, massless links bounded, meshes that
cannot be resolved left out with one warning), then edits the model:

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
* **joints held on their transmission's image**: a transmission whose joint-to-actuator maps
  read more joints than it has actuators (a synergy, a tendon finger, Shadow's J0) can only put
  its joints on the image of its actuator-to-joint map, :math:`q = f(\theta)`.  Each direction
  it cannot move in, a row :math:`c` of :func:`manifold_constraint` (an orthonormal basis of
  the left null space of :math:`J = \partial q/\partial\theta`; for a linear map the
  independent rows of :math:`(I - AB)(q - q_0) = 0`), becomes a fixed tendon of length
  :math:`c^T q`, held at :math:`c^T q^*` by a tendon equality as stiff as MuJoCo allows
  (:data:`STIFFEST`).  The constraint carries the efforts and inertia between the joints, so
  the actuators drive and feel the whole mechanism.  A nonlinear map's rows and target move
  with the position: the physics rewrites them before every step.  (The PR2 gripper's joints
  are not held this way: its maps read the gap only, the fingers are passive joints, above);
* damping integrated implicitly with the constraints solved for it (:func:`_fold_damping`:
  Euler's integrator, :math:`hD` in the armature);
* **series springs**: the joint of a series-elastic transmission is split
  (:func:`~.mujoco_urdf.split_for_spring`): the joint itself is the drive, turned by the motor's
  rotor tendon, and a joint ``<joint>__spring`` between the drive and the link carries the
  spring, MuJoCo's joint ``stiffness`` :math:`k` and ``damping`` :math:`d` (:func:`_springs`).
  A measured table gets stiffness 0: the physics applies its torque every step.  The joint-side
  encoder, an actuator that takes no command, gets no rotor tendon.

The other edits (joints sharing actuators or without a transmission, gravity compensation, the
options) are doc/physics.md's ("The model").
"""

import math
from types import ModuleType
from typing import Any
from typing import NamedTuple
from typing import Sequence

import numpy as np

from transmission_plugins.core.exceptions import BadValueError
from transmission_plugins.core.exceptions import LoadWarning
from transmission_plugins.core.exceptions import TransmissionError
from transmission_plugins.core.exceptions import TransmissionValueError
from transmission_plugins.core.flat_description import Block
from transmission_plugins.core.interfaces import POSITION
from transmission_plugins.core.transmission import Transmission
from transmission_plugins.robot.robot_transmissions import RobotTransmissions
from transmission_plugins.runtime.mujoco_urdf import BACKLASH_JOINT
from transmission_plugins.runtime.mujoco_urdf import mujoco_urdf
from transmission_plugins.runtime.mujoco_urdf import SPRING_JOINT
from transmission_plugins.runtime.series_springs import SeriesSprings

_WHERE = "physics 'mujoco'"
#: A singular value of a transmission's Jacobian :math:`J = \partial q/\partial\theta` (its
#: input joints) at most this fraction of the largest counts as zero in
#: :func:`manifold_constraint`: the joint motions outside the range of :math:`J` are constrained.
RANK_TOLERANCE = 1e-9
#: MuJoCo's softness of the constraints holding joints on a transmission's image: ``solimp``
#: 0.9999 everywhere (MuJoCo's largest impedance :math:`d`) and ``solref`` (:math:`2h`, 0.5),
#: a time constant of two physics steps :math:`h` (MuJoCo's shortest) at damping ratio 0.5, with
#: which its semi-implicit Euler step corrects a position error in one step.  A soft constraint
#: lets :math:`1 - d` of the acceleration that would break it through: the joints leave the
#: image by about :math:`(1 - d)h^2|C\ddot q_{free}|` (1e-10 s^2 times that acceleration at
#: 1 ms), :math:`\ddot q_{free}` the joints' acceleration without the constraint.
STIFFEST = ([0.9999, 0.9999, 0.001, 0.5, 2.0], 0.5)


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
    #: joint-side backlash as a limited joint between the drive and the link
    #: (:func:`~.mujoco_urdf.split_for_backlash`); off: the backlash is left out
    backlash: bool = True
    #: series-elastic transmissions as a spring joint between the drive and the link
    #: (:func:`~.mujoco_urdf.split_for_spring`); off: the joint is rigid
    springs: bool = True


class Passive(NamedTuple):
    """The passive joints of one transmission and the equalities that hold them."""

    block: Block
    #: indices in the transmission's joint order
    local: np.ndarray
    #: their robot joint indices
    joints: np.ndarray
    #: the equality constraint ids and the joints' reference positions
    equalities: np.ndarray
    refs: np.ndarray
    #: the rotor tendon of each of the transmission's actuators, and its armature without the
    #: passive joints' inertia (the rotor's, with the damping folded in: :func:`_fold_damping`)
    tendons: np.ndarray
    rotor_inertia: np.ndarray


class Manifold(NamedTuple):
    """The tendon equalities holding one transmission's joints on its image."""

    block: Block
    #: robot joint indices of the transmission's input joints, which the constraints read
    joints: np.ndarray
    #: wrap addresses of the constraint tendons' coefficients, ``(rows, joints)``, their
    #: equality ids and their lengths at ``qpos0``
    wraps: np.ndarray
    equalities: np.ndarray
    length0: np.ndarray
    #: True when the constraint depends on the position (a nonlinear map): rewritten every step
    varying: bool


class MujocoModel(NamedTuple):
    """A compiled MuJoCo model and where the robot's joints and rotors are in it."""

    #: the ``mujoco.MjModel``
    model: Any
    robot: RobotTransmissions
    #: ``qpos`` and ``qvel`` addresses of each joint of ``robot.joint_names``
    qpos: np.ndarray
    dof: np.ndarray
    #: the passive joints, per transmission
    passive: list[Passive]
    #: (wrap addresses, actuator index, robot joint indices) of each rotor tendon whose
    #: coefficients depend on the position
    varying_tendons: list[tuple[np.ndarray, int, np.ndarray]]
    #: the constraints holding the joints of transmissions on their image
    manifolds: list[Manifold]
    #: joints locked for want of a motor -> their position
    locked: dict[str, float]
    warnings: list[LoadWarning]
    #: joints with backlash -> the ``qpos`` address of their dead band (the link's position
    #: relative to the drive) and the id of the equality that locks it while the actuators'
    #: inertia is measured
    play: dict[str, tuple[int, int]] = {}
    #: the series-elastic transmissions (:class:`~.series_springs.SeriesSprings`) and the
    #: ``qpos`` and ``qvel`` addresses of their spring joints (empty: none, or rigid)
    springs: SeriesSprings | None = None
    spring_qpos: np.ndarray = np.zeros(0, dtype=int)
    spring_dof: np.ndarray = np.zeros(0, dtype=int)


def blocks(robot: RobotTransmissions) -> list[Block]:
    """Return the robot's transmissions placed in its vectors (linear ones, then the others)."""
    return list(robot.maps.linear) + list(robot.maps.nonlinear)


def passive_local(block: Block) -> np.ndarray:
    """Return the joints (transmission order) its joint-to-actuator maps do not read."""
    inputs = block.transmission.joint_to_actuator_inputs()
    return np.array([k for k in range(block.transmission.num_joints()) if k not in inputs],
                    dtype=int)


def held_on_image(block: Block) -> bool:
    """Return True when the transmission's maps read more joints than it has actuators."""
    transmission = block.transmission
    return len(transmission.joint_to_actuator_inputs()) > transmission.num_actuators()


def _moving(mujoco: ModuleType) -> tuple[int, int]:
    return int(mujoco.mjtJoint.mjJNT_HINGE), int(mujoco.mjtJoint.mjJNT_SLIDE)


def _equality(mujoco: ModuleType, spec: Any, name: str, joint: str, driver: str | None,
              poly: Sequence[float], step: float, tendon: bool = False) -> None:
    """
    Add :math:`y - y_0 = a_0 + a_1 (x - x_0)` (``driver`` x, or none: y is held).

    :math:`y` is the position of ``joint`` (:math:`y_0` at ``qpos0``), or with ``tendon`` the
    length of the tendon of that name, held as stiffly as MuJoCo allows (:data:`STIFFEST`).
    """
    data = np.zeros(12)
    data[:len(poly)] = poly
    kind = (mujoco.mjtEq.mjEQ_TENDON, mujoco.mjtObj.mjOBJ_TENDON) if tendon else (
        mujoco.mjtEq.mjEQ_JOINT, mujoco.mjtObj.mjOBJ_JOINT)
    eq = spec.add_equality(name=name, type=kind[0], name1=joint, name2=driver or '', data=data)
    eq.objtype = kind[1]
    eq.solref = [2.0 * step, STIFFEST[1] if tendon else 1.0]
    eq.solimp = STIFFEST[0] if tendon else [0.99, 0.999, 0.001, 0.5, 2.0]


def _check_options(options: ModelOptions) -> None:
    for name in ('physics_step', 'bound_mass', 'bound_inertia', 'rotor_damping'):
        value = getattr(options, name)
        low_ok = value >= 0.0 if name == 'rotor_damping' else value > 0.0
        if isinstance(value, bool) or not (isinstance(value, (int, float))
                                           and math.isfinite(value) and low_ok):
            raise TransmissionValueError(
                name, value, 'a finite number ' + ('>= 0' if name == 'rotor_damping' else '> 0'),
                _WHERE)


class ModelSpec(NamedTuple):
    """An edited, uncompiled MuJoCo model (:func:`build_spec`) and what :func:`_index` needs."""

    #: the ``mujoco.MjSpec``: the description with rotors, passive joints and constraints
    spec: Any
    tendons: list[tuple[str, int, list[int], bool]]
    manifolds: list[tuple[Block, str, int]]
    locked: dict[str, float]
    warnings: list[LoadWarning]
    #: what of the drivetrain the model cannot hold (:func:`drivetrain_warnings`)
    unheld: list[LoadWarning] = []
    #: the series-elastic transmissions split at their spring (None: none, or not split)
    springs: SeriesSprings | None = None


def build_model(robot: RobotTransmissions, description: str,
                options: ModelOptions = ModelOptions(), *, base_dir: str | None = None,
                joint_position: Any = None) -> MujocoModel:
    """
    Build the MuJoCo model of ``description`` for the transmissions ``robot``.

    :func:`build_spec`, then the damping folded into the armature (:func:`_fold_damping`) and
    the model compiled.

    :param robot: the description's transmissions (:func:`load_robot_transmissions`)
    :param description: the URDF text (or a path; xacro is expanded)
    :param options: see :class:`ModelOptions`
    :param base_dir: directory of relative mesh file names (default: the working directory)
    :param joint_position: joint positions (``robot.joint_names`` order) at which position-
        dependent tendon coefficients start; default ``robot.default_joint_position()``
    :raises MujocoUnavailableError: mujoco is not installed
    :raises TransmissionError: an option is invalid, MuJoCo rejects the description or a
        transmission cannot be represented
    """
    mujoco = import_mujoco()
    built = build_spec(robot, description, options, base_dir=base_dir,
                       joint_position=joint_position)
    _fold_damping(built.spec, options.physics_step)
    try:
        model = built.spec.compile()
    except ValueError as e:
        raise BadValueError('/robot', f'MuJoCo cannot compile the description: {e}') from e
    return _index(mujoco, model, robot, built.tendons, built.manifolds, built.locked,
                  built.warnings + built.unheld, built.springs)


def build_spec(robot: RobotTransmissions, description: str,
               options: ModelOptions = ModelOptions(), *, base_dir: str | None = None,
               joint_position: Any = None) -> ModelSpec:
    """
    Return the MuJoCo spec of ``description`` with the edits of the module docstring.

    The options are set (Euler's integrator without its implicit damping, for
    :func:`_fold_damping`), the damping is not folded and nothing is compiled: the spec is what
    :func:`build_model` compiles and what ``export --to mujoco`` writes.  Position-dependent
    coefficients (tendons of nonlinear transmissions) are their values at ``joint_position``.
    Parameters and errors as :func:`build_model`.
    """
    mujoco = import_mujoco()
    _check_options(options)
    passive_names = {robot.joint_names[int(b.joints[k])]
                     for b in blocks(robot) for k in passive_local(b)}
    drivetrain = robot.drivetrain
    found = SeriesSprings(robot)
    springs = found if options.springs and len(found) else None
    split = springs.names if springs is not None else []
    play = {n: float(w) for n, w in zip(robot.joint_names, drivetrain.joint_backlash)
            if w > 0.0 and n not in split} if options.backlash else {}
    text, warnings = mujoco_urdf(description, options, passive_names, base_dir, play, split)
    try:
        spec = mujoco.MjSpec.from_string(text)
    except ValueError as e:
        raise BadValueError('/robot', f'MuJoCo cannot read the description: {e}') from e
    spec.option.timestep = options.physics_step
    spec.option.gravity = [0.0, 0.0, -9.81 if options.gravity else 0.0]
    # damping implicit as with implicitfast, (M + hD) dv = h (f - D v), but with the constraints
    # solved for it: hD in the armature, the damping force explicit (_fold_damping)
    spec.option.integrator = mujoco.mjtIntegrator.mjINT_EULER
    spec.option.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_EULERDAMP)
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
    q0 = robot.default_joint_position() if joint_position is None else joint_position
    manifolds = _add_manifolds(mujoco, spec, robot, np.asarray(q0, dtype=np.float64), step)
    locked = {}
    for name in robot.untransmitted_joints:
        joint = spec.joint(name)
        if joint is None or int(joint.type) not in _moving(mujoco):
            continue
        lo, hi = robot.urdf_joints[name].lower, robot.urdf_joints[name].upper
        value = min(max(0.0, lo), hi) if lo <= hi else 0.0
        _equality(mujoco, spec, f'{name}__locked', name, None, [value - float(joint.ref)], step)
        locked[name] = value
    tendons = _add_rotor_tendons(spec, robot, options.rotor_damping, q0)
    _add_joint_friction(spec, robot)
    for name in play:
        _dead_band(mujoco, spec, name, step)
    if springs is not None:
        _springs(mujoco, spec, springs)
    unheld = drivetrain_warnings(robot, options.backlash)
    both = [n for n in split if drivetrain.joint_backlash[robot.joint_index[n]] > 0.0]
    if both and options.backlash:
        unheld.append(LoadWarning('/robot', 'joint-side backlash of a series-elastic joint is '
                                  'left out (its joint is split at the spring): joints '
                                  + ', '.join(both)))
    return ModelSpec(spec, tendons, manifolds, locked, warnings, unheld, springs)


def _springs(mujoco: ModuleType, spec: Any, springs: SeriesSprings) -> None:
    r"""
    Give each spring joint its stiffness :math:`k` and damping :math:`d` (a table: :math:`k=0`).

    The joint's position is :math:`q - q_{drive} = -\delta`, so its passive force
    :math:`-k(-\delta) - d(-\dot\delta)` is the spring's torque on the link.
    """
    for i, name in enumerate(springs.names):
        joint = spec.joint(f'{name}{SPRING_JOINT}')
        joint.limited = mujoco.mjtLimited.mjLIMITED_FALSE
        joint.springref = 0.0
        stiffness = np.array(joint.stiffness, dtype=np.float64)
        stiffness.reshape(-1)[0] = 0.0 if springs.table[i] else float(springs.stiffness[i])
        joint.stiffness = stiffness
        damping = np.array(joint.damping, dtype=np.float64)
        damping.reshape(-1)[0] = float(springs.damping[i])
        joint.damping = damping


def _add_joint_friction(spec: Any, robot: RobotTransmissions) -> None:
    """
    Add each joint's joint-side friction: Coulomb to ``frictionloss``, viscous to damping.

    The friction acts on the link's motion.  A joint split at a dead band or a spring (the
    drive, then ``<joint>__backlash`` or ``<joint>__spring`` carrying the link) gets it on a
    fixed tendon ``<joint>__friction``, the sum of both hinges: the link's own angle, so that the
    friction presses the link onto the driving flank of the play, as a gear's output bearing
    does, instead of braking the drive alone.
    """
    friction = robot.drivetrain.joint_friction
    for j in np.flatnonzero(friction.present):
        name = robot.joint_names[j]
        hinge = next((h for h in (f'{name}{BACKLASH_JOINT}', f'{name}{SPRING_JOINT}')
                      if spec.joint(h) is not None), None)
        if hinge is None:
            element = spec.joint(name)
            element.frictionloss = float(element.frictionloss) + float(friction.coulomb[j])
            damping = np.array(element.damping, dtype=np.float64)
            damping.reshape(-1)[0] += float(friction.viscous[j])
            element.damping = damping
        else:
            element = spec.add_tendon(name=f'{name}__friction',
                                      frictionloss=float(friction.coulomb[j]),
                                      damping=float(friction.viscous[j]))
            element.wrap_joint(name, 1.0)
            element.wrap_joint(hinge, 1.0)
        # a friction loss as stiff as the constraints holding the mechanisms: a joint driven
        # below it creeps by (1 - d) of the acceleration the drive would give it
        element.solimp_friction = STIFFEST[0]
        element.solref_friction = [2.0 * float(spec.option.timestep), 1.0]


def _dead_band(mujoco: ModuleType, spec: Any, name: str, step: float) -> None:
    """
    Make the dead band of ``name`` a stiff, inelastic stop; add its (inactive) lock.

    The teeth meet as MuJoCo's stiffest limit, critically damped (no rebound: the impact of
    lubricated gear teeth is close to inelastic); the lock, a joint equality holding the dead
    band at its centre, is switched on only while the actuators' inertia is measured.
    """
    joint = spec.joint(f'{name}{BACKLASH_JOINT}')
    joint.solref_limit = [2.0 * step, 1.0]
    joint.solimp_limit = STIFFEST[0]
    joint.limited = mujoco.mjtLimited.mjLIMITED_TRUE
    _equality(mujoco, spec, f'{name}{BACKLASH_JOINT}__lock', f'{name}{BACKLASH_JOINT}', None,
              [0.0], step)
    lock = spec.equality(f'{name}{BACKLASH_JOINT}__lock')
    lock.active = False
    lock.solimp, lock.solref = STIFFEST[0], [2.0 * step, STIFFEST[1]]


def drivetrain_warnings(robot: RobotTransmissions, backlash: bool = True) -> list[LoadWarning]:
    """
    Return what of the robot's drivetrain the MuJoCo model cannot hold, one warning each.

    Motor-side backlash (the rotor and the actuator coordinate are one tendon), joint-side
    backlash when ``backlash`` is off, and static friction above the Coulomb friction (a
    friction loss is one level: the Coulomb friction is kept).
    """
    d = robot.drivetrain
    out = []

    def listed(names: list[str], values: np.ndarray) -> str:
        return ', '.join(f'{n} ({v:g})' for n, v in zip(names, values))

    motor_play = np.flatnonzero(d.actuator_backlash > 0.0)
    if motor_play.size:
        out.append(LoadWarning('/robot', 'motor-side backlash is not simulated in MuJoCo (the '
                               'rotor is the actuator coordinate): actuators ' + listed(
                                   [robot.actuator_names[a] for a in motor_play],
                                   d.actuator_backlash[motor_play])))
    joint_play = np.flatnonzero(d.joint_backlash > 0.0)
    if joint_play.size and not backlash:
        out.append(LoadWarning('/robot', 'joint-side backlash is left out: joints ' + listed(
            [robot.joint_names[j] for j in joint_play], d.joint_backlash[joint_play])))
    for side, friction, names in (('joint', d.joint_friction, robot.joint_names),
                                  ('motor', d.actuator_friction, robot.actuator_names)):
        stribeck = np.flatnonzero(friction.static > friction.coulomb)
        if stribeck.size:
            out.append(LoadWarning('/robot', f'{side}-side static friction above the Coulomb '
                                   'friction is not simulated in MuJoCo (a friction loss has one '
                                   'level: the Coulomb friction): ' + listed(
                                       [names[i] for i in stribeck], friction.static[stribeck])))
    return out


def _fold_damping(spec: Any, step: float) -> None:
    r"""
    Add :math:`hD` to the armature of every damped joint and tendon (``step`` :math:`h`).

    MuJoCo integrates damping implicitly (``implicitfast``, or Euler's implicit damping) by
    re-solving the accelerations with :math:`M + hD` after solving the constraint forces with
    :math:`M`: where :math:`hD` is large against a light link's inertia (the Shadow hand's
    fingers: 0.1 N m s against 1e-7 to 1e-6 kg m^2) the constraints then give way, by up to
    16 mrad on its J0s.
    With :math:`hD` in the armature and the damping force :math:`-D\dot q` explicit (Euler's
    integrator without its implicit damping) every step is the same,
    :math:`(M + hD)\,\Delta\dot q = h(f - D\dot q)`, with the constraints solved for it.
    The armature so added is no inertia: :func:`folded_armature` says how much it is.
    """
    for element in list(spec.joints) + list(spec.tendons):
        element.armature += step * float(np.ravel(element.damping)[0])


def folded_armature(model: Any) -> tuple[np.ndarray, np.ndarray]:
    """Return the armature of each dof and each tendon that is damping, not inertia."""
    step = float(model.opt.timestep)
    return step * model.dof_damping, step * model.tendon_damping


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
    :math:`K(q) = \partial\theta/\partial q` (``na x nj``) of a robot, at joint positions.

    The robot's Jacobian of the joint-to-actuator maps, from its flat description (the linear
    rows and each owner mechanism's :math:`K` at its joints' positions); entries that are not
    finite (a map evaluated outside its domain) are 0.
    """

    def __init__(self, robot: RobotTransmissions) -> None:
        self._maps = robot.maps

    def __call__(self, joint_position: Any) -> np.ndarray:
        """Return :math:`K` at ``joint_position`` (a new array)."""
        k = self._maps.jacobian(False, np.asarray(joint_position, dtype=np.float64))
        k[~np.isfinite(k)] = 0.0
        return k


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


def manifold_constraint(transmission: Transmission, joint_position: Any,
                        count: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    r"""
    Return :math:`C` and :math:`C q^*`: the joint motions ``transmission`` cannot make, at q.

    With :math:`\theta = g(q)` (the joint-to-actuator position map), :math:`q^* = f(\theta)`
    (actuator to joint: :math:`q` brought onto the mechanism's image) and :math:`J = \partial
    q/\partial\theta` at :math:`\theta` (the rows of the input joints,
    :meth:`~transmission_plugins.core.transmission.Transmission.joint_to_actuator_inputs`), the
    rows of :math:`C` are an orthonormal basis of the left null space of :math:`J`: the left
    singular vectors of the singular values at most :data:`RANK_TOLERANCE` times the largest
    (or the ``count`` of the smallest).  Every motion the actuators can make,
    :math:`\dot q = J\dot\theta`, has :math:`C\dot q = 0`, and :math:`C(q - q^*) = 0` holds the
    joints on the image (to first order where :math:`J` varies).  For a linear map
    :math:`q = A\theta + q_0`, :math:`C(q - q_0) = 0`: the independent rows of
    :math:`(I - AB)(q - q_0) = 0` (the null space of :math:`B` only when :math:`B = A^+`).

    :param transmission: the transmission
    :param joint_position: its joint positions ``(M,)``
    :param count: the number of rows (default: input joints minus the rank of :math:`J`)
    :returns: :math:`C` ``(rows, inputs)`` and :math:`C q^*` ``(rows,)``; NaN where the maps
        are not finite (no rows when ``count`` is not given)
    """
    inputs = list(transmission.joint_to_actuator_inputs())
    with np.errstate(all='ignore'):
        theta = transmission.apply_map(POSITION, False, np.asarray(joint_position, dtype=float),
                                       None)
        image = np.asarray(transmission.apply_map(POSITION, True, theta, None))[inputs]
        jacobian = np.asarray(transmission.actuator_to_joint_jacobian(theta))[inputs]
    if not (np.all(np.isfinite(jacobian)) and np.all(np.isfinite(image))):
        size = count or 0
        return np.full((size, len(inputs)), np.nan), np.full(size, np.nan)
    u, s, _ = np.linalg.svd(jacobian)
    if count is None:
        count = len(inputs) - int(np.sum(s > RANK_TOLERANCE * np.max(s, initial=0.0)))
    rows = u[:, len(inputs) - count:].T
    return rows, rows @ image


def _add_manifolds(mujoco: ModuleType, spec: Any, robot: RobotTransmissions,
                   joint_position: np.ndarray, step: float) -> list[tuple[Block, str, int]]:
    """
    Hold the joints of each transmission with more input joints than actuators on its image.

    One fixed tendon per row of :func:`manifold_constraint` at ``joint_position``, its length
    :math:`c^T q` held at :math:`c^T q^*` by a tendon equality; returns (block, name prefix,
    rows) of each transmission constrained.
    """
    out = []
    for b in blocks(robot):
        if not (b.owner and held_on_image(b)):   # followers are tied to their owner
            continue
        inputs = b.joints[list(b.transmission.joint_to_actuator_inputs())]
        names = [robot.joint_names[j] for j in inputs]
        rows, target = manifold_constraint(b.transmission, joint_position[b.joints])
        if not len(rows):   # (M > N: the rank is below M) the maps are not finite there
            raise BadValueError(robot.transmission_of_joint(names[0]).path,
                                'its maps are not finite at the start position '
                                f'{joint_position[b.joints].tolist()}: its joints cannot be held '
                                'on the mechanism in MuJoCo')
        ref = np.array([float(spec.joint(n).ref) for n in names])
        for i, (row, value) in enumerate(zip(rows, target)):
            name = f'{names[0]}__manifold{i}'
            tendon = spec.add_tendon(name=name)
            for joint, coefficient in zip(names, row):
                tendon.wrap_joint(joint, float(coefficient))
            _equality(mujoco, spec, name, name, None, [value - row @ ref], step, tendon=True)
        out.append((b, names[0], len(rows)))
    return out


def _add_rotor_tendons(spec: Any, robot: RobotTransmissions, damping: float,
                       joint_position: Any) -> list[tuple[str, int, list[int], bool]]:
    """Add one fixed tendon per rotor; return (name, actuator, robot joints, varying)."""
    k = ActuatorJacobian(robot)(joint_position)
    friction = robot.drivetrain.actuator_friction
    commanded = robot.commanded_actuators
    out = []
    for b in blocks(robot):
        if not b.owner:
            continue
        # the passive joints' inertia goes to the tendons: they vary with the position
        linear = b.transmission.is_linear() and not passive_local(b).size
        inputs = [int(b.joints[i]) for i in b.transmission.joint_to_actuator_inputs()]
        for a in b.actuators:
            if not commanded[a]:   # a sensor channel (a joint-side encoder) moves nothing
                continue
            name = robot.actuator_names[a]
            inertia = robot.actuator_models[name].reflected_inertia()
            joints = [j for j in inputs if not linear or k[a, j] != 0.0]
            rubs = bool(friction.present[a])
            if not joints or (inertia == 0.0 and damping == 0.0 and linear and not rubs):
                continue
            # the motor-side friction acts along the rotor's coordinate: K(q)^T f, like u
            tendon = spec.add_tendon(name=f'{name}__rotor', armature=inertia,
                                     damping=damping + float(friction.viscous[a]),
                                     frictionloss=float(friction.coulomb[a]))
            if rubs:
                tendon.solimp_friction = STIFFEST[0]
                tendon.solref_friction = [2.0 * float(spec.option.timestep), 1.0]
            for j in joints:
                tendon.wrap_joint(robot.joint_names[j], float(k[a, j]))
            out.append((f'{name}__rotor', int(a), joints, not linear))
    return out


def _index(mujoco: ModuleType, model: Any, robot: RobotTransmissions,
           tendons: list[tuple[str, int, list[int], bool]],
           manifolds: list[tuple[Block, str, int]], locked: dict[str, float],
           warnings: list[LoadWarning], springs: SeriesSprings | None = None) -> MujocoModel:
    def find(kind: Any, name: str) -> int:
        return int(mujoco.mj_name2id(model, kind, name))

    ids = [find(mujoco.mjtObj.mjOBJ_JOINT, n) for n in robot.joint_names]
    for name, j in zip(robot.joint_names, ids):
        if int(model.jnt_type[j]) not in _moving(mujoco):
            raise BadValueError(f"/robot/joint[@name='{name}']",
                                'a transmission drives it: expected a revolute, continuous or '
                                'prismatic joint in the MuJoCo model')
    passive = []
    for b in blocks(robot):
        local = passive_local(b)
        if local.size:
            joints = b.joints[local]
            names = [robot.joint_names[j] for j in joints]
            eqs = np.array([find(mujoco.mjtObj.mjOBJ_EQUALITY, f'{n}__passive') for n in names])
            refs = model.qpos0[model.jnt_qposadr[[ids[j] for j in joints]]].copy()
            motors = [robot.actuator_names[a] for a in b.actuators]
            rotors = np.array([find(mujoco.mjtObj.mjOBJ_TENDON, f'{m}__rotor') for m in motors])
            passive.append(Passive(b, local, joints, eqs, refs, rotors,
                                   model.tendon_armature[rotors].copy()))
    varying = []
    for name, a, joints, is_varying in tendons:
        if is_varying:
            start = int(model.tendon_adr[find(mujoco.mjtObj.mjOBJ_TENDON, name)])
            varying.append((np.arange(start, start + len(joints)), a, np.array(joints)))
    held = []
    for b, prefix, count in manifolds:
        joints = b.joints[list(b.transmission.joint_to_actuator_inputs())]
        rows = [find(mujoco.mjtObj.mjOBJ_TENDON, f'{prefix}__manifold{i}') for i in range(count)]
        wraps = model.tendon_adr[rows][:, None] + np.arange(len(joints))
        eqs = np.array([find(mujoco.mjtObj.mjOBJ_EQUALITY, f'{prefix}__manifold{i}')
                        for i in range(count)])
        held.append(Manifold(b, joints, wraps, eqs, model.tendon_length0[rows].copy(),
                             not b.transmission.is_linear()))
    play = {}
    for name in robot.joint_names:
        hinge = find(mujoco.mjtObj.mjOBJ_JOINT, f'{name}{BACKLASH_JOINT}')
        if hinge >= 0:
            play[name] = (int(model.jnt_qposadr[hinge]),
                          find(mujoco.mjtObj.mjOBJ_EQUALITY, f'{name}{BACKLASH_JOINT}__lock'))
    hinges = [find(mujoco.mjtObj.mjOBJ_JOINT, f'{n}{SPRING_JOINT}')
              for n in ([] if springs is None else springs.names)]
    return MujocoModel(model=model, robot=robot, qpos=model.jnt_qposadr[ids].copy(),
                       dof=model.jnt_dofadr[ids].copy(), passive=passive,
                       varying_tendons=varying, manifolds=held, locked=locked,
                       warnings=warnings, play=play, springs=springs,
                       spring_qpos=np.array(model.jnt_qposadr[hinges], dtype=int),
                       spring_dof=np.array(model.jnt_dofadr[hinges], dtype=int))
