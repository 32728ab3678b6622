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
The robot's transmissions as one actuator per joint: what Drake and Pinocchio can carry.

Drake's ``JointActuator`` drives one joint with the effort :math:`u` at the joint (the gearbox
output) and reflects its rotor as :math:`G^2 I_r` on that joint's diagonal of the mass matrix
(:math:`G` its gear ratio, :math:`I_r` its rotor inertia); Pinocchio's ``armature`` is a
per-DOF vector added to the same diagonal.  Neither holds a coupling: only the reflected
inertia's diagonal and one effort limit per joint.

With :math:`K = \partial\theta/\partial q` (actuator positions over joint positions) at the
export pose :math:`q_0` (:meth:`~.RobotTransmissions.default_joint_position`) and the package's
rotors :math:`\rho_a^2 I_{r,a}` (:meth:`~.ActuatorModel.reflected_inertia`):

* a transmission whose :math:`K` pairs its actuators and joints one to one (a simple
  transmission of reduction :math:`n`: :math:`K = n`) becomes, per pair :math:`(a, j)`, an
  actuator named like the package's with :math:`G = K_{aj}\rho_a` and :math:`I_r = I_{r,a}`:
  Drake's :math:`G^2 I_r = K_{aj}^2\rho_a^2 I_{r,a}`, the package's reflected inertia, and a
  rotor torque :math:`\tau_r` gives :math:`u = G\tau_r = K_{aj}\rho_a\tau_r`, the package's
  joint effort (:math:`K^T` of :math:`\tau_a = \rho_a\tau_r`).  Gains go to the joint side as
  :math:`K_{aj}^2 k_p`, :math:`K_{aj}^2 k_d`;
* every other transmission (coupled: a differential, a four-bar linkage, a synergy) becomes one
  actuator per driven joint, ``<joint>_actuator``, with :math:`G = 1` and :math:`I_r` the
  diagonal term :math:`(K^T \operatorname{diag}(\rho^2 I_r) K)_{jj}`; its cross terms and its
  effort map :math:`\tau_q = K^T\tau_a` are not carried (a warning names the transmission and
  the largest term left out): export to MuJoCo for them;
* for a consumer that reads ``<mimic>`` (Drake), a transmission with one actuator and several
  joints (a synergy, the PR2 gripper) drives one of them and the others mimic it
  (:func:`_single_actuator`): the rotor's inertia along the transmission's image is exact;
* a series-elastic transmission's spring cannot be held (a second joint between the drive and
  the link): its motor drives the joint rigidly, as a one-to-one pair (:math:`G = n\rho`, the
  rigid reflected inertia), its joint-side encoder (which takes no command) gets no actuator,
  and a warning names the joint, the stiffness (or the table) and the damping
  (:func:`spring_warnings`);
* a nonlinear transmission (the PR2 gripper) is linearised at :math:`q_0`, with a warning;
  joints its maps do not read (the PR2 gripper's fingers) get no actuator (nor a ``<mimic>``
  where the consumer reads none).

The effort limit of each joint (Drake's joint ``<limit effort>``, Pinocchio's
``effortLimit``) is the URDF's, lowered to what the actuators' effort limits reach there
(:attr:`~.RobotTransmissions.joint_effort_limit_from_actuators`) and, for a one-to-one pair, to
the motor's peak torque through the reduction, :math:`|K_{aj}|` times the actuator's peak effort
(:meth:`~transmission_plugins.robot.drivetrain.RobotDrivetrain.effort_bounds` at rest).

The drivetrain (doc/drivetrain.md): each joint's friction is its joint-side friction plus, for a
one-to-one pair, the motor side's reflected through the reduction (Coulomb :math:`F_c|K_{aj}|`,
viscous :math:`b K_{aj}^2`, the power-conserving reflection of :math:`\tau_q = K^T\tau_a`);
what a consumer cannot hold is named in one warning each (:func:`drivetrain_warnings`).
"""

import math
from typing import Any
from typing import NamedTuple

import numpy as np

from transmission_plugins.core.exceptions import BadValueError
from transmission_plugins.core.interfaces import POSITION
from transmission_plugins.robot.robot_transmissions import RobotTransmissions
from transmission_plugins.runtime.mujoco_model import blocks
from transmission_plugins.runtime.mujoco_model import passive_local
from transmission_plugins.runtime.series_springs import SeriesSprings

#: Relative size below which a cross term of the reflected inertia counts as zero.
CROSS_TOLERANCE = 1e-12


class JointActuator(NamedTuple):
    """One joint's actuator as Drake's ``JointActuator`` holds it (module docstring)."""

    joint: str
    #: the package's actuator name (one-to-one transmissions), else ``<joint>_actuator``
    name: str
    #: :math:`G` and :math:`I_r`: :math:`G^2 I_r` is the joint's reflected inertia
    gear_ratio: float
    rotor_inertia: float
    #: joint-side effort limit (``inf``: none)
    effort_limit: float
    #: joint-side PD gains, or None
    kp: float | None = None
    kd: float | None = None
    #: joint-side Coulomb and viscous friction: the joint's own, plus, for a one-to-one
    #: pair, the motor side's reflected (:math:`F_c |K_{aj}|`, :math:`b K_{aj}^2`)
    coulomb: float = 0.0
    viscous: float = 0.0

    def armature(self) -> float:
        r"""Return :math:`G^2 I_r`, the inertia the rotor adds to the joint's diagonal."""
        return self.gear_ratio ** 2 * self.rotor_inertia if self.rotor_inertia else 0.0


def linearised_warnings(robot: RobotTransmissions, target: str) -> list[str]:
    """Return one warning per nonlinear transmission: ``target`` gets it linearised at q0."""
    q0 = robot.default_joint_position()
    out = []
    for t in robot.transmissions:
        # a series-elastic transmission's position maps are linear: its spring is not
        if not t.transmission.is_linear() and not t.transmission.joint_effort_from_motion():
            pose = ', '.join(f'{n}={q0[robot.joint_index[n]]:.6g}' for n in t.joint_names)
            out.append(f'{t.describe()}: nonlinear ({t.type}): {target} gets constant '
                       f'coefficients, its Jacobian at the neutral pose ({pose}); the export '
                       'is exact there only')
    return out


def block_jacobian(robot: RobotTransmissions, block: Any, q0: np.ndarray) -> np.ndarray:
    r"""
    Return one transmission's :math:`K(q_0)`, ``(N, M)`` over its actuators and joints.

    Per transmission, so that the export's memory grows with the robot, not with its square.

    :raises BadValueError: the map is not finite there (named by its path)
    """
    k = np.array(block.transmission.joint_to_actuator_jacobian(q0[block.joints]),
                 dtype=np.float64)
    if not np.all(np.isfinite(k)):
        t = robot.transmission_of_joint(robot.joint_names[int(block.joints[0])])
        raise BadValueError(t.path, 'its joint-to-actuator Jacobian is not finite at the '
                            'neutral pose: it cannot be exported')
    return k


def _one_to_one(k: np.ndarray) -> bool:
    """Return True when every row and every column of ``k`` has exactly one non-zero entry."""
    nonzero = k != 0.0
    return bool(np.all(nonzero.sum(axis=0) == 1) and np.all(nonzero.sum(axis=1) == 1))


def _effort_limit(robot: RobotTransmissions, j: int) -> float:
    limit = float(min(abs(robot.joint_effort_limit[j]),
                      robot.joint_effort_limit_from_actuators[j]))
    return limit if limit > 0.0 else math.inf


class Mimic(NamedTuple):
    r"""A joint following another, :math:`q = m\,q_d + c` (URDF ``<mimic>``)."""

    joint: str
    driver: str
    multiplier: float
    offset: float


class JointActuation(NamedTuple):
    """The joint actuators of a robot, the mimic joints they drive and the export's warnings."""

    actuators: list[JointActuator]
    mimics: list[Mimic]
    warnings: list[str]


def _single_actuator(robot: RobotTransmissions, block: Any,
                     q0: np.ndarray) -> tuple[JointActuator, list[Mimic]]:
    r"""
    Return the actuator of a one-actuator transmission on its driver and its other joints' mimics.

    Along the transmission's image :math:`q = f(\theta)`, :math:`\dot q = J\dot\theta` with
    :math:`J = \partial q/\partial\theta` at :math:`\theta_0 = g(q_0)`; the driver :math:`d` is
    its first input joint with :math:`J_d \ne 0`, the others follow it with
    :math:`m = J_p/J_d`, :math:`c = q_p^* - m q_d^*` (:math:`q^* = f(\theta_0)`), and the rotor
    turns :math:`\rho/J_d` times as fast as the driver: :math:`G = \rho/J_d`.
    """
    tr = block.transmission
    joints = [int(j) for j in block.joints]
    theta = tr.apply_map(POSITION, False, q0[joints], None)
    image = np.asarray(tr.apply_map(POSITION, True, theta, None), dtype=np.float64)
    jac = np.asarray(tr.actuator_to_joint_jacobian(theta), dtype=np.float64)[:, 0]
    inputs = list(tr.joint_to_actuator_inputs())
    d = next(i for i in inputs + list(range(len(joints))) if jac[i] != 0.0)
    model = robot.actuator_models[robot.actuator_names[int(block.actuators[0])]]
    ratio = 1.0 / float(jac[d])   # d theta / d q_d along the image
    gains = (None, None) if model.kp is None else (
        ratio ** 2 * model.kp, ratio ** 2 * (model.kd or 0.0))
    driver = robot.joint_names[joints[d]]
    a = int(block.actuators[0])
    drivetrain = robot.drivetrain
    peak = abs(float(drivetrain.effort_bounds(np.zeros(len(robot.actuator_names)))[1][a]))
    joint, motor = drivetrain.joint_friction, drivetrain.actuator_friction
    actuator = JointActuator(
        driver, model.name, ratio * model.gear_ratio, model.rotor_inertia,
        min(_effort_limit(robot, joints[d]), abs(ratio) * peak), kp=gains[0], kd=gains[1],
        coulomb=float(joint.coulomb[joints[d]] + abs(ratio) * motor.coulomb[a]),
        viscous=float(joint.viscous[joints[d]] + ratio ** 2 * motor.viscous[a]))
    mimics = []
    for i, j in enumerate(joints):
        if i != d and jac[i] != 0.0:
            multiplier = float(jac[i] / jac[d])
            mimics.append(Mimic(robot.joint_names[j], driver, multiplier,
                                float(image[i] - multiplier * image[d])))
    return actuator, mimics


#: Why each consumer cannot hold a series spring.
SPRING_REASONS = {'Drake': 'a URDF joint cannot hold a series spring',
                  'Pinocchio': 'a spring joint between the drive and the link would be an extra '
                               'joint, a different kinematic tree'}


def spring_warnings(robot: RobotTransmissions, target: str) -> list[str]:
    """Return one warning per series-elastic joint: ``target`` gets it rigid (no spring)."""
    springs = SeriesSprings(robot)
    reason = SPRING_REASONS.get(target, f'{target} holds no series spring')
    return [f'joint {name}: its series spring ({springs.describe(i)}) is left out ({reason}): '
            f'{target} gets the motor {robot.actuator_names[int(springs.motors[i])]} driving '
            f'{name} rigidly, and the joint-side encoder '
            f'{robot.actuator_names[int(springs.encoders[i])]} no actuator'
            for i, name in enumerate(springs.names)]


def joint_actuators(robot: RobotTransmissions, target: str,
                    mimic: bool = False) -> JointActuation:
    """
    Return the robot's joint actuators (module docstring) and the export's warnings.

    :param target: the consumer, for the warnings (``'Drake'``, ``'Pinocchio'``)
    :param mimic: the consumer reads ``<mimic>``: a one-actuator transmission drives one joint
        and its other joints mimic it (:func:`_single_actuator`)
    :raises BadValueError: a transmission's map is not finite at the export pose
    """
    q0 = robot.default_joint_position()
    warnings = linearised_warnings(robot, target)
    out = []
    mimics: list[Mimic] = []
    joint_friction = robot.drivetrain.joint_friction
    motor_friction = robot.drivetrain.actuator_friction
    peak = np.abs(robot.drivetrain.effort_bounds(np.zeros(len(robot.actuator_names)))[1])
    for b in blocks(robot):
        t = robot.transmission_of_joint(robot.joint_names[int(b.joints[0])])
        if not b.owner:
            warnings.append(f'{t.describe()}: shares its actuators with an identical '
                            f'transmission: its joints get no actuator in {target}')
            continue
        if mimic and b.transmission.num_actuators() == 1 and b.transmission.num_joints() > 1:
            actuator, followers = _single_actuator(robot, b, q0)
            out.append(actuator)
            mimics += followers
            named = {m.joint for m in followers} | {actuator.joint}
            if followers:
                warnings.append(f'{t.describe()}: one actuator, several joints: {target} gets '
                                f'it on {actuator.joint} and <mimic> on '
                                + ', '.join(m.joint for m in followers)
                                + ' (their motion along its image at q0)')
            left = [n for n in t.joint_names if n not in named]
            if left:
                warnings.append(f'{t.describe()}: joints {", ".join(left)} do not move with its '
                                f'actuator at q0: {target} gets no actuator for them')
            continue
        k = block_jacobian(robot, b, q0)
        actuators = b.actuators
        commanded = robot.commanded_actuators[actuators]
        if not commanded.all():   # sensor channels (a joint-side encoder) drive nothing
            k, actuators = k[commanded], actuators[commanded]
        # joints the maps do not read, or read with no effect at q0 (a follower joint)
        passive = {int(b.joints[i]) for i in passive_local(b)} | {
            int(j) for c, j in enumerate(b.joints) if not np.any(k[:, c])}
        if passive:
            names = ', '.join(robot.joint_names[j] for j in sorted(passive))
            warnings.append(f'{t.describe()}: its actuator positions do not depend on joints '
                            f'{names} at q0 (moved by the mechanism, not driven): {target} gets '
                            'no actuator and no constraint for them')
        driven = [int(j) for j in b.joints if int(j) not in passive]
        if not driven:
            continue
        local = [int(c) for c in np.flatnonzero(np.isin(b.joints, driven))]
        sub = k[:, local]
        if _one_to_one(sub):
            for row, a in enumerate(actuators):
                col = int(np.flatnonzero(sub[row])[0])
                j, ratio = driven[col], float(sub[row, col])
                model = robot.actuator_models[robot.actuator_names[int(a)]]
                gains = (None, None) if model.kp is None else (
                    ratio ** 2 * model.kp, ratio ** 2 * (model.kd or 0.0))
                limit = min(_effort_limit(robot, j), abs(ratio) * float(peak[int(a)]))
                out.append(JointActuator(
                    robot.joint_names[j], model.name, ratio * model.gear_ratio,
                    model.rotor_inertia, limit, kp=gains[0], kd=gains[1],
                    coulomb=float(joint_friction.coulomb[j]
                                  + abs(ratio) * motor_friction.coulomb[int(a)]),
                    viscous=float(joint_friction.viscous[j]
                                  + ratio ** 2 * motor_friction.viscous[int(a)])))
            continue
        block = robot.block_inertia(b, q0)[np.ix_(local, local)]
        cross = block - np.diag(np.diag(block))
        largest = float(np.max(np.abs(cross), initial=0.0))
        dropped = ('the cross terms of its reflected inertia (largest '
                   f'{largest:.6g}) and ' if largest > CROSS_TOLERANCE * float(
                       np.max(np.abs(block), initial=0.0)) else '')
        coupling = ('couples its joints' if len(driven) > 1 else
                    f'drives {robot.joint_names[driven[0]]} with several actuators')
        warnings.append(
            f'{t.describe()}: {coupling}: {target} gets one actuator per joint with the '
            f'diagonal of its reflected inertia; {dropped}its effort map (joint efforts = K^T '
            f"actuator efforts) {'are' if dropped else 'is'} left out (export to mujoco keeps "
            'them)')
        rubs = [robot.actuator_names[int(a)] for a in b.actuators
                if motor_friction.present[int(a)]]
        if rubs:
            warnings.append(f'{t.describe()}: couples its joints: the motor-side friction of '
                            f'{", ".join(rubs)} is left out ({target} has no actuator '
                            'coordinate to put it on; export to mujoco keeps it)')
        for j, diagonal in zip(driven, np.diag(block)):
            out.append(JointActuator(robot.joint_names[j], f'{robot.joint_names[j]}_actuator',
                                     1.0, float(diagonal), _effort_limit(robot, j),
                                     coulomb=float(joint_friction.coulomb[j]),
                                     viscous=float(joint_friction.viscous[j])))
    return JointActuation(out, mimics, warnings + spring_warnings(robot, target))


def drivetrain_warnings(robot: RobotTransmissions, target: str, friction: bool = True,
                        backlash: tuple[str, ...] = ()) -> list[str]:
    """
    Return one warning per drivetrain value ``target`` cannot hold, naming it and the value.

    Always the thermal model and the torque constant (no consumer simulates a winding), static
    friction above the Coulomb friction (each holds one level) and the torque-speed envelope
    beyond its peak torque (the peak is the effort limit); the Coulomb friction unless
    ``friction``, and the backlash of the sides (``'joint'``, ``'motor'``) not in ``backlash``.
    """
    d = robot.drivetrain
    out = []
    for side, names, frictions in (('joint', robot.joint_names, d.joint_friction),
                                   ('motor', robot.actuator_names, d.actuator_friction)):
        for i in np.flatnonzero(frictions.present):
            if not friction and frictions.coulomb[i] > 0.0:
                out.append(f'{side} {names[i]}: Coulomb friction {frictions.coulomb[i]:g} is '
                           f'left out ({target} holds no dry friction; the viscous part is '
                           'kept)')
            if frictions.static[i] > frictions.coulomb[i]:
                out.append(f'{side} {names[i]}: static friction {frictions.static[i]:g} (above '
                           f'the Coulomb {frictions.coulomb[i]:g}, Stribeck velocity '
                           f'{frictions.stribeck_velocity[i]:g}) is left out: {target} '
                           'holds one friction level')
    for side, names, widths in (('joint', robot.joint_names, d.joint_backlash),
                                ('motor', robot.actuator_names, d.actuator_backlash)):
        if side not in backlash:
            for i in np.flatnonzero(widths > 0.0):
                out.append(f'{side} {names[i]}: backlash {widths[i]:g} is left out ({target} '
                           'has no dead band)')
    for name, motor in zip(robot.actuator_names, d.motors):
        if motor is None:
            continue
        if motor.torque_speed is not None:
            e = motor.torque_speed
            points = ', '.join(f'({s:g}, {t:g})' for s, t in zip(e.speeds, e.torques))
            out.append(f'actuator {name}: the torque-speed envelope beyond its peak torque '
                       f'{e.peak_torque:g} is left out (speeds and torques {points}): '
                       f'{target} gets the peak as an effort limit at every speed')
        if motor.thermal is not None:
            th = motor.thermal
            out.append(f'actuator {name}: the thermal model is left out (resistance '
                       f'{th.resistance:g}, thermal resistance {th.thermal_resistance:g}, time '
                       f'constant {th.time_constant:g}, maximum {th.max_temperature:g} degrees C, '
                       f'continuous current {th.continuous_current:.4g} A): {target} does not '
                       'derate')
        if motor.torque_constant is not None:
            out.append(f'actuator {name}: the torque constant {motor.torque_constant:g} is '
                       f'left out ({target} takes efforts, not currents)')
    return out
