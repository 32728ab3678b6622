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

"""The rotor physics of the ``mock_actuators`` node: N decoupled rotors, PD-controlled."""

import math
from typing import Any
from typing import Mapping
from typing import Sequence

import numpy as np

from transmission_plugins.core.checks import real_number
from transmission_plugins.core.exceptions import TransmissionValueError
from transmission_plugins.robot.actuators import ActuatorModel
from transmission_plugins.robot.drivetrain import RobotDrivetrain
from transmission_plugins.runtime.actuator_control import ActuatorControl
from transmission_plugins.runtime.actuator_control import DEFAULT_BANDWIDTH
from transmission_plugins.runtime.series_springs import DEFAULT_LINK_INERTIA
from transmission_plugins.runtime.series_springs import SeriesSprings

__all__ = ['ActuatorSimulator', 'ReferenceSwitches', 'RotorFriction', 'unsimulated_backlash']


class ActuatorSimulator:
    r"""
    Simulate N actuator rotors, each in position, velocity or effort mode.

    Each rotor obeys :math:`I \dot v = u - c\,v` with :math:`I = \max(\rho^2 I_r, I_{min})`
    (a rotor with no modelled inertia still needs a finite mass to integrate), :math:`c` the
    viscous ``damping`` and :math:`u` the effort of :class:`~.actuator_control.ActuatorControl`
    (Drake's PD law in position mode, clamped to the model's effort limit; default gains
    critically damped at ``bandwidth`` for the rotor's own inertia :math:`I`).  :meth:`step`
    integrates with semi-implicit Euler (velocity first, then position with the new velocity),
    split into sub-steps short enough for the stiffest actuator (at most ``max_substeps``).  All
    actuators start at rest in effort mode with a zero command.

    :param models: the :class:`ActuatorModel` of each actuator, in state order
    :param position: initial positions ``(N,)``, default 0
    :param damping: viscous damping :math:`c` >= 0, scalar or ``(N,)``
    :param min_inertia: :math:`I_{min}` > 0
    :param bandwidth: :math:`\omega` > 0 for default gains
    :param max_substeps: bound on sub-steps per :meth:`step`
    :param robot: the ``RobotTransmissions`` the ``models`` are the actuators of (same order):
        with drivetrain data, the rotors feel its friction (:class:`RotorFriction`), their
        effort is limited by its motors and their windings heat
        (:class:`~.actuator_control.ActuatorControl`); None, or a robot without drivetrain
        data: the rotors above, exactly
    :param link_inertia: joint name -> the link inertia behind each series-elastic
        transmission's spring (:func:`~.series_springs.link_inertia`; default
        :data:`~.series_springs.DEFAULT_LINK_INERTIA`)

    **Series-elastic transmissions** (with ``robot``): the motor's rotor and the link are two
    bodies joined by the spring.  With :math:`\tau = s(\delta) + d\dot\delta` the spring's
    torque (:meth:`~.series_springs.SeriesSprings.torque`, the transmission's map),
    :math:`I\ddot\theta_m = u - c\dot\theta_m - \tau/n` (plus the motor's friction) and
    :math:`J\ddot\theta_e = \tau` (plus the joint's friction), :math:`J` the link inertia; the
    encoder's state is the link's, it takes no command and its effort is 0.  The spring's
    damping is integrated implicitly, as MuJoCo's is: each body's velocity step divides by
    :math:`I + h d` (:math:`d/n^2` on the rotor), so a light link behind a damped spring needs
    no shorter sub-step; the sub-steps resolve the spring's stiffness (its steepest slope) on
    both bodies.
    """

    def __init__(self, models: Sequence[ActuatorModel], *, position: Any = None,
                 damping: Any = 0.0, min_inertia: float = 1e-4,
                 bandwidth: float = DEFAULT_BANDWIDTH, max_substeps: int = 1000,
                 robot: Any = None, link_inertia: Mapping[str, float] | None = None) -> None:
        models = list(models)
        if not all(isinstance(m, ActuatorModel) for m in models):
            raise TransmissionValueError('models', models, 'a sequence of ActuatorModel',
                                         'ActuatorSimulator')
        if not (math.isfinite(real_number(min_inertia, 'min_inertia', 'ActuatorSimulator'))
                and min_inertia > 0.0):
            raise TransmissionValueError('min_inertia', min_inertia, 'a finite number > 0',
                                         'ActuatorSimulator')
        inertia = np.array([max(m.reflected_inertia(), min_inertia) for m in models])
        springs = SeriesSprings(robot) if robot is not None else None
        #: the series-elastic transmissions (None: none)
        self.springs = springs if springs is not None and len(springs) else None
        if self.springs is not None:
            if list(robot.actuator_names) != [m.name for m in models]:
                raise TransmissionValueError('robot', list(robot.actuator_names), 'the robot '
                                             'whose actuators the models are, in their order',
                                             'ActuatorSimulator')
            links = dict(link_inertia or {})
            inertia[self.springs.encoders] = [links.get(n, DEFAULT_LINK_INERTIA)
                                              for n in self.springs.names]
        drivetrain = getattr(robot, 'drivetrain', None)
        if drivetrain is not None and not drivetrain.models_anything:
            drivetrain = None
        if drivetrain is not None and list(robot.actuator_names) != [m.name for m in models]:
            raise TransmissionValueError('robot', list(robot.actuator_names), 'the robot whose '
                                         'actuators the models are, in their order',
                                         'ActuatorSimulator')
        self._control = ActuatorControl(
            models, inertia, damping=damping, bandwidth=bandwidth, where='ActuatorSimulator',
            drivetrain=drivetrain,
            commanded=None if self.springs is None else robot.commanded_actuators)
        self._inertia = inertia
        self._max_substeps = int(max_substeps)
        #: the drivetrain's friction on the rotors (None: none)
        self.friction = (RotorFriction(robot, inertia) if drivetrain is not None
                         and (drivetrain.joint_friction.present.any()
                              or drivetrain.actuator_friction.present.any()) else None)
        # fastest closed-loop rate of any actuator in any mode, for the sub-step size
        with np.errstate(all='ignore'):
            self._rate = self._control.closed_loop_rate()
        #: the drivetrain's damping-like rate (viscous friction, the envelope's fall), 1/s
        self._damping_rate = (0.0 if drivetrain is None
                              else _drivetrain_rate(drivetrain, self.friction, inertia))
        if self.springs is not None:
            self._rate = max(self._rate, _spring_rate(self.springs, inertia))
            s = self.springs
            #: the springs' damping on each body, integrated implicitly (class docstring)
            self._spring_damping = np.zeros_like(inertia)
            self._spring_damping[s.motors] += s.damping / s.reduction ** 2
            self._spring_damping[s.encoders] += s.damping
        if not math.isfinite(self._rate):
            c = self._control
            with np.errstate(all='ignore'):
                rates = np.sqrt(c.kp / inertia) + (c.kd + c.kv + c.damping) / inertia
            i = int(np.argmin(np.isfinite(rates)))
            raise TransmissionValueError(
                'kp, kd', (float(c.kp[i]), float(c.kd[i])), 'gains whose ratio to the '
                f'inertia {float(inertia[i])!r} is finite (else the rotor cannot be '
                f'integrated)', f'ActuatorSimulator: actuator {models[i].name!r}')
        #: actuator steps that overflowed and were undone (the rotor held, at rest)
        self.diverged = 0
        n = len(models)
        self._q = np.zeros(n)
        self._v = np.zeros(n)
        self._u = np.zeros(n)
        self.reset(position)

    @property
    def names(self) -> list[str]:
        """Return the actuator names, in state order."""
        return self._control.names

    @property
    def modes(self) -> list[str]:
        """Return each actuator's current mode."""
        return self._control.modes

    def reset(self, position: Any = None, velocity: Any = None) -> None:
        """Set the state (default: zero) and clear the efforts; modes and commands are kept."""
        n = len(self._inertia)
        vector = self._control.vector
        self._q = vector(0.0 if position is None else position, 'position', n)
        self._v = vector(0.0 if velocity is None else velocity, 'velocity', n)
        self._u = np.zeros(n)

    def set_command(self, modes: Any, values: Any) -> None:
        """Set each actuator's mode and target (:meth:`.ActuatorControl.set_command`)."""
        self._control.set_command(modes, values)

    @property
    def control(self) -> ActuatorControl:
        """Return the actuators' control law (gains, limits, modes, winding temperatures)."""
        return self._control

    def step(self, dt: float) -> None:
        """
        Advance the rotors by ``dt`` seconds (> 0).

        State and effort stay finite: an actuator whose step overflows (an unlimited effort
        towards a target like 1e308) is put back where it was, at rest, and counted in
        :attr:`diverged`.
        """
        if not (math.isfinite(dt) and dt > 0.0):
            raise TransmissionValueError('dt', dt, 'a finite number > 0', 'ActuatorSimulator')
        count = int(min(max(math.ceil(dt * self._rate / 0.2), 1), self._max_substeps))
        if self._damping_rate:
            # explicit damping decays without overshoot while h b / I <= 1: 0.5 for margin
            count = int(min(max(count, math.ceil(dt * self._damping_rate / 0.5)),
                            self._max_substeps))
        h = dt / count
        damping = self._control.damping
        springs = self.springs
        inertia = None   # the bodies' own: the friction's
        if springs is not None:   # the links behind the springs are no rotors
            damping = np.where(self._control.commanded, damping, 0.0)
            inertia = self._inertia + h * self._spring_damping
        friction = self.friction
        q0 = self._q
        with np.errstate(all='ignore'):
            for _ in range(count):
                self._u = self._control.effort(self._q, self._v)
                drive = self._u - damping * self._v
                if springs is not None:
                    drive = drive + self._spring_load(springs)
                if friction is None:
                    self._v = self._v + h * drive / (self._inertia if inertia is None
                                                     else inertia)
                else:
                    self._v = friction.velocity(self._q, self._v, drive, h, inertia)
                self._q = self._q + h * self._v
                self._control.advance(self._u, h)
        finite = np.isfinite(self._q) & np.isfinite(self._v) & np.isfinite(self._u)
        if not finite.all():
            # never publish NaN or infinity: the rotor stays where it was, at rest
            self.diverged += int(np.count_nonzero(~finite))
            self._q = np.where(finite, self._q, q0)
            self._v = np.where(finite, self._v, 0.0)
            self._u = np.where(finite, self._u, 0.0)

    def _spring_load(self, springs: SeriesSprings) -> np.ndarray:
        r"""Return the springs' efforts on the rotors, :math:`-\tau/n`, and links, :math:`\tau`."""
        tau = springs.torque(self._q, self._v)
        load = np.zeros_like(self._q)
        load[springs.motors] -= tau / springs.reduction
        load[springs.encoders] += tau
        return load

    def state(self) -> dict[str, np.ndarray]:
        """Return copies of ``position``, ``velocity`` and applied ``effort``, each ``(N,)``."""
        return {'position': self._q.copy(), 'velocity': self._v.copy(),
                'effort': self._u.copy()}


class RotorFriction:
    r"""
    The drivetrain's friction on the rotors of a robot, and the velocity step it allows.

    The motor-side friction :math:`f_m(v)` acts on each rotor; the joint-side friction reaches
    the rotors through the transmissions: the joints move at :math:`\dot q = A\dot\theta`
    (:math:`A = \partial q/\partial\theta`, the robot's actuator-to-joint Jacobian at the
    rotor positions) and their friction :math:`f_j(\dot q)` loads the actuators with
    :math:`A^T f_j` (power is conserved), so that

    .. math::

        f(v) = f_m(v) + A^T f_j(A v), \qquad
        F_{brk} = F_{s,m} + |A|^T F_{s,j}

    (:math:`f` from :meth:`~transmission_plugins.robot.drivetrain.FrictionArrays.torque`,
    :math:`F_{brk}` the breakaway friction of the motor and, through :math:`|A|^T`, of the
    joints).  :meth:`velocity` integrates it with a stick-slip rule: the friction applied over
    a step :math:`h` is the one that would stop the rotor within the step, :math:`I v^*/h`
    (:math:`v^*` the velocity without friction), capped at :math:`|f(v)|` while the rotor keeps
    its direction and at :math:`F_{brk}` from rest or when it would reverse.  A rotor at rest
    therefore stays exactly at rest while its drive is at most the breakaway friction (no
    drift, no chatter), and a moving one feels :math:`f(v)` until the friction would stop it.
    Exact for transmissions that pair actuators and joints one to one; for coupled ones each
    rotor's share of a joint's friction is capped on its own.

    :param robot: the ``RobotTransmissions``
    :param inertia: each rotor's inertia :math:`I`, ``(N,)``
    """

    def __init__(self, robot: Any, inertia: np.ndarray) -> None:
        drivetrain: RobotDrivetrain = robot.drivetrain
        self.motor = drivetrain.actuator_friction
        self.joint = drivetrain.joint_friction
        self._maps = robot.maps
        self._joints = bool(self.joint.present.any())
        self._inertia = inertia
        na = len(inertia)
        self._none = np.zeros((0, na))

    def jacobian(self, position: np.ndarray) -> np.ndarray:
        r"""Return :math:`A = \partial q/\partial\theta` at ``position`` (0 where not finite)."""
        if not self._joints:
            return self._none
        a = self._maps.jacobian(True, np.asarray(position, dtype=np.float64))
        a[~np.isfinite(a)] = 0.0
        return a

    def torque(self, position: np.ndarray, velocity: np.ndarray,
               jacobian: np.ndarray | None = None) -> np.ndarray:
        """Return :math:`f(v)`, the friction opposing each rotor's ``velocity`` (class doc)."""
        a = self.jacobian(position) if jacobian is None else jacobian
        f = self.motor.torque(velocity)
        if self._joints:
            f = f + a.T @ self.joint.torque(a @ velocity)
        return f

    def breakaway(self, position: np.ndarray, jacobian: np.ndarray | None = None) -> np.ndarray:
        """Return :math:`F_{brk}`, the friction each rotor must overcome to leave rest."""
        a = self.jacobian(position) if jacobian is None else jacobian
        level = self.motor.breakaway()
        if self._joints:
            level = level + np.abs(a).T @ self.joint.breakaway()
        return level

    def velocity(self, position: np.ndarray, velocity: np.ndarray, drive: np.ndarray,
                 h: float, inertia: np.ndarray | None = None) -> np.ndarray:
        """
        Return the velocities after ``h`` s under the ``drive`` efforts and the friction.

        :param inertia: the inertia of the step (default: the rotors'; with a series spring's
            damping integrated implicitly, :math:`I + h d`)
        """
        inertia = self._inertia if inertia is None else inertia
        a = self.jacobian(position)
        free = velocity + h * drive / inertia
        keeps = free * velocity > 0.0
        cap = np.where(keeps, np.abs(self.torque(position, velocity, a)),
                       self.breakaway(position, a))
        stop = inertia * free / h
        # held: exactly at rest (no round-off creep)
        return np.where(np.abs(stop) <= cap, 0.0,
                        free - h * np.clip(stop, -cap, cap) / inertia)


def unsimulated_backlash(robot: Any) -> str:
    """
    Return the warning that the rotors do not simulate the robot's backlash ('' without any).

    A rotor is the actuator coordinate, with nothing behind it: no dead band can open between
    it and a joint, and the published actuator position is the rotor's either way.
    """
    d: RobotDrivetrain = robot.drivetrain
    parts = [f'{side} {", ".join(f"{n} ({w:g})" for n, w in zip(names, widths) if w > 0.0)}'
             for side, names, widths in (('joints', robot.joint_names, d.joint_backlash),
                                         ('actuators', robot.actuator_names,
                                          d.actuator_backlash))
             if np.any(widths > 0.0)]
    if not parts:
        return ''
    return ("backlash is not simulated by physics 'rotors' (a rotor has nothing behind it for "
            f"a dead band to open to): {'; '.join(parts)}; physics 'mujoco' simulates the "
            'joint-side backlash')


def _drivetrain_rate(drivetrain: RobotDrivetrain, friction: RotorFriction | None,
                     inertia: np.ndarray) -> float:
    r"""
    Return the fastest rate the drivetrain adds to a rotor, :math:`\max(b / I)`, in 1/s.

    :math:`b` is the viscous friction (the motor's and the joints' through the transmissions,
    at the start position) plus the steepest fall of the torque-speed envelope: both act like
    damping, and the explicit step must resolve them.
    """
    b = np.zeros_like(inertia)
    if friction is not None:
        a = friction.jacobian(np.zeros_like(inertia))
        b = b + friction.motor.viscous
        if a.size:
            b = b + (a * a).T @ friction.joint.viscous
    for i, motor in enumerate(drivetrain.motors):
        envelope = None if motor is None else motor.torque_speed
        if envelope is not None:
            fall = -np.diff(envelope.torques) / np.diff(envelope.speeds)
            b[i] += float(np.max(fall, initial=0.0)) * drivetrain.gear_ratio[i] ** 2
    return float(np.max(b / inertia, initial=0.0))


def _spring_rate(springs: SeriesSprings, inertia: np.ndarray) -> float:
    r"""
    Return the fastest rate the springs give a body, :math:`\sqrt{k/I}` (damping: implicit).

    On the rotor the spring is :math:`k/n^2` (at the motor coordinate), on the link :math:`k`;
    :math:`k` is a table's steepest segment.
    """
    k = springs.steepest()
    stiff = np.concatenate([k / springs.reduction ** 2 / inertia[springs.motors],
                            k / inertia[springs.encoders]])
    return float(np.max(np.sqrt(stiff)))


class ReferenceSwitches:
    """
    The reference switches of a robot's joints, as ``mock_actuators`` simulates them.

    A joint with ``<calibration rising="R"/>`` has a switch that reads on (1.0) above
    :math:`R`, one with ``falling="F"`` a switch that reads on below :math:`F` (off: 0.0), as
    :mod:`~transmission_plugins.runtime.homing` expects them.

    :param robot: a ``RobotTransmissions``
    """

    def __init__(self, robot: Any) -> None:
        self._robot = robot
        joints = [n for n in robot.joint_names
                  if getattr(robot.urdf_joints.get(n), 'calibration', None) is not None]
        #: the joints with a switch, in the robot's order
        self.names: list[str] = joints
        self._index = np.array([robot.joint_index[n] for n in joints], dtype=np.intp)
        switches = [robot.urdf_joints[n].calibration for n in joints]
        self._edge = np.array([s.edge() for s in switches])
        self._rising = np.array([s.direction() > 0.0 for s in switches])

    def levels(self, actuator_position: Any) -> np.ndarray:
        """Return each switch's reading (1.0 on, 0.0 off) at the true actuator positions."""
        q = self._robot.actuator_to_joint_arrays({'position': actuator_position})['position']
        q = np.asarray(q, dtype=np.float64)[self._index]
        on = np.where(self._rising, q > self._edge, q < self._edge)
        return on.astype(np.float64)
