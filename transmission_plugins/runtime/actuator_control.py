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
The command side of simulated actuators: modes, targets, gains and the effort each one applies.

Shared by both physics of ``mock_actuators``: the decoupled rotors
(:class:`~transmission_plugins.runtime.simulator.ActuatorSimulator`) and the rigid-body
simulation (:class:`~transmission_plugins.runtime.mujoco_physics.MujocoPhysics`).  Only the
inertia :math:`I` each actuator drives differs between them (its own rotor, or the whole robot
seen from the actuator), and it only matters for the default gains.

With a robot's drivetrain (:class:`~transmission_plugins.robot.drivetrain.RobotDrivetrain`)
the law also does what the motor does: the effort is limited, after the effort limit, by the
torque-speed envelope at the actuator's velocity and by the current the winding's temperature
allows (a driver derating), and :meth:`ActuatorControl.advance` integrates each winding's
temperature at the applied effort over every physics step.  Friction is the physics' (the rotors
integrate it, MuJoCo holds it as constraints): the law applies the motor's torque only.
"""

import math
from typing import Any
from typing import Sequence

import numpy as np

from transmission_plugins.core.checks import real_number
from transmission_plugins.core.exceptions import TransmissionValueError
from transmission_plugins.robot.actuators import ActuatorModel
from transmission_plugins.robot.actuators import pd_law
from transmission_plugins.robot.drivetrain import RobotDrivetrain

#: The actuator modes, in the order of their codes.
MODES = ('position', 'velocity', 'effort')

#: The default bandwidth of actuators without gains, rad/s (10 Hz).
DEFAULT_BANDWIDTH = 2.0 * math.pi * 10.0


class ActuatorControl:
    r"""
    Hold each actuator's mode and target and compute the effort it applies.

    With :math:`\theta, v` the actuator position and velocity, :math:`c` the viscous damping at
    the actuator and :math:`u_{max}` the model's effort limit:

    * ``position``: :math:`u = \operatorname{clamp}(-K_p(\theta - \theta_d) - K_d v)`
      (Drake's PD law, :func:`~transmission_plugins.robot.actuators.pd_law`);
    * ``velocity``: :math:`u = \operatorname{clamp}(K_v (v_d - v) + c\,v_d)`;
    * ``effort``: :math:`u = \operatorname{clamp}(u_d)`.

    With a ``drivetrain`` whose actuators have a ``<motor>``, the clamped effort is clamped
    again to the motor's bounds now,
    :meth:`~transmission_plugins.robot.drivetrain.RobotDrivetrain.effort_bounds` at the velocity
    :math:`v` and the winding temperature :attr:`temperature` (the ambient at first), which
    :meth:`advance` integrates.

    :math:`K_p, K_d` come from the model, else :math:`K_p = I\omega^2, K_d = 2I\omega`
    (critically damped at ``bandwidth`` :math:`\omega` when the actuator drives the inertia
    :math:`I`); :math:`K_v = K_d`, or :math:`2I\omega` when :math:`K_d = 0`.  Every actuator
    starts in effort mode with a zero command.

    :param models: the :class:`ActuatorModel` of each actuator
    :param inertia: :math:`I` of each actuator, ``(N,)``, finite and > 0
    :param damping: viscous damping :math:`c` >= 0, scalar or ``(N,)``
    :param bandwidth: :math:`\omega` > 0 for default gains
    :param where: the owner named in error messages
    :param drivetrain: the robot's drivetrain, its actuators in the order of ``models``; None
        (or one without motors): the effort limit only
    :param commanded: which actuators take commands (default: all); the others (a
        series-elastic transmission's joint-side encoder) stay in effort mode at 0 whatever
        :meth:`set_command` is given
    :raises TransmissionValueError: naming the bad parameter
    """

    def __init__(self, models: Sequence[ActuatorModel], inertia: Any, *, damping: Any = 0.0,
                 bandwidth: float = DEFAULT_BANDWIDTH, where: str = 'ActuatorControl',
                 drivetrain: RobotDrivetrain | None = None, commanded: Any = None) -> None:
        self.models = list(models)
        if not all(isinstance(m, ActuatorModel) for m in self.models):
            raise TransmissionValueError('models', models, 'a sequence of ActuatorModel', where)
        n = len(self.models)
        if not (math.isfinite(real_number(bandwidth, 'bandwidth', where)) and bandwidth > 0.0):
            raise TransmissionValueError('bandwidth', bandwidth, 'a finite number > 0', where)
        self.where = where
        self.damping = self.vector(damping, 'damping', n)
        if not np.all(self.damping >= 0.0):
            raise TransmissionValueError('damping', damping, 'finite values >= 0', where)
        inertia = self.vector(inertia, 'inertia', n)
        if not np.all(inertia > 0.0):
            raise TransmissionValueError('inertia', inertia, 'finite values > 0', where)
        #: the inertia behind the default gains
        self.inertia = inertia
        self.kp = np.array([m.kp if m.kp is not None else i * bandwidth ** 2
                            for m, i in zip(self.models, inertia)])
        self.kd = np.array([m.kd if m.kp is not None else 2.0 * i * bandwidth
                            for m, i in zip(self.models, inertia)])
        self.kv = np.where(self.kd > 0.0, self.kd, 2.0 * inertia * bandwidth)
        self.limit = np.array([m.effort_limit for m in self.models])
        self._mode = np.full(n, MODES.index('effort'))
        self._target = np.zeros(n)
        #: which actuators take commands
        self.commanded = (np.ones(n, dtype=bool) if commanded is None
                          else np.array(commanded, dtype=bool).reshape(n))
        motors = drivetrain is not None and any(m is not None for m in drivetrain.motors)
        if motors and drivetrain is not None and len(drivetrain.motors) != n:
            raise TransmissionValueError('drivetrain', f'{len(drivetrain.motors)} actuators',
                                         f'the drivetrain of the {n} actuators', where)
        #: the drivetrain whose motors limit the effort (None: no motor is modelled)
        self.drivetrain = drivetrain if motors else None
        self._thermal = bool(motors and drivetrain is not None and drivetrain.has_thermal.any())
        #: each motor's winding temperature, degrees C (NaN without a thermal model)
        self.temperature = (drivetrain.initial_temperature() if drivetrain is not None
                            else np.full(n, math.nan))

    @property
    def names(self) -> list[str]:
        """Return the actuator names, in state order."""
        return [m.name for m in self.models]

    @property
    def modes(self) -> list[str]:
        """Return each actuator's current mode."""
        return [MODES[i] for i in self._mode]

    def closed_loop_rate(self) -> float:
        r"""Return the fastest closed-loop rate, :math:`\max(\sqrt{K_p/I} + (K_d+K_v+c)/I)`."""
        i = self.inertia
        return float(np.max(np.sqrt(self.kp / i) + (self.kd + self.kv + self.damping) / i,
                            initial=0.0))

    def set_command(self, modes: Any, values: Any) -> None:
        """
        Set the mode and the target of each actuator.

        :param modes: one mode name for all, or N names (None keeps that actuator's command)
        :param values: N targets; NaN keeps that actuator's previous mode and target
        :raises TransmissionValueError: unknown mode names or wrong sizes
        """
        n = len(self.models)
        target = np.asarray(values, dtype=np.float64).reshape(-1)
        where = f'{self.where}.set_command'
        if target.shape != (n,):
            raise TransmissionValueError('values', values, f'{n} numbers', where)
        names = [modes] * n if isinstance(modes, str) or modes is None else list(modes)
        if len(names) != n or any(m is not None and m not in MODES for m in names):
            raise TransmissionValueError('modes', modes, f'one of {MODES} or {n} of them', where)
        update = ~np.isnan(target) & np.array([m is not None for m in names], dtype=bool) \
            & self.commanded
        new_mode = np.array([MODES.index(m) if m is not None else -1 for m in names])
        self._mode = np.where(update, new_mode, self._mode)
        self._target = np.where(update, target, self._target)

    def effort(self, position: np.ndarray, velocity: np.ndarray) -> np.ndarray:
        """Return the effort each actuator applies at ``position`` and ``velocity``, ``(N,)``."""
        position_mode = self._mode == 0
        velocity_mode = self._mode == 1
        target = self._target
        q_d = np.where(position_mode, target, position)
        u_pd = pd_law(position, velocity, q_d, 0.0, 0.0, self.kp, self.kd)
        u_vel = self.kv * (target - velocity) + self.damping * target
        u = np.where(position_mode, u_pd, np.where(velocity_mode, u_vel, target))
        u = np.clip(u, -self.limit, self.limit)
        if self.drivetrain is None:
            return u
        lower, upper = self.drivetrain.effort_bounds(velocity, self.temperature)
        return np.clip(u, lower, upper)

    def advance(self, effort: np.ndarray, dt: float) -> None:
        """Integrate the winding temperatures over ``dt`` seconds at the applied ``effort``."""
        if self._thermal and self.drivetrain is not None:
            self.temperature = self.drivetrain.heat(self.temperature, effort, dt)

    def vector(self, value: Any, name: str, n: int) -> np.ndarray:
        """
        Return ``value`` broadcast to ``(n,)`` finite floats.

        :raises TransmissionValueError: naming ``name`` when that is not possible
        """
        try:
            x = np.broadcast_to(np.asarray(value, dtype=np.float64), (n,)).copy()
        except (TypeError, ValueError):
            raise TransmissionValueError(name, value, f'{n} finite numbers', self.where) from None
        if not np.all(np.isfinite(x)):
            raise TransmissionValueError(name, value, f'{n} finite numbers', self.where)
        return x
