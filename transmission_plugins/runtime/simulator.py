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
from typing import Sequence

import numpy as np

from transmission_plugins.core.exceptions import TransmissionValueError
from transmission_plugins.robot.actuators import _real
from transmission_plugins.robot.actuators import ActuatorModel
from transmission_plugins.runtime.actuator_control import ActuatorControl
from transmission_plugins.runtime.actuator_control import DEFAULT_BANDWIDTH

__all__ = ['ActuatorSimulator', 'ReferenceSwitches']


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
    """

    def __init__(self, models: Sequence[ActuatorModel], *, position: Any = None,
                 damping: Any = 0.0, min_inertia: float = 1e-4,
                 bandwidth: float = DEFAULT_BANDWIDTH, max_substeps: int = 1000) -> None:
        models = list(models)
        if not all(isinstance(m, ActuatorModel) for m in models):
            raise TransmissionValueError('models', models, 'a sequence of ActuatorModel',
                                         'ActuatorSimulator')
        if not (math.isfinite(_real(min_inertia, 'min_inertia', 'ActuatorSimulator'))
                and min_inertia > 0.0):
            raise TransmissionValueError('min_inertia', min_inertia, 'a finite number > 0',
                                         'ActuatorSimulator')
        inertia = np.array([max(m.reflected_inertia(), min_inertia) for m in models])
        self._control = ActuatorControl(models, inertia, damping=damping, bandwidth=bandwidth,
                                        where='ActuatorSimulator')
        self._inertia = inertia
        self._max_substeps = int(max_substeps)
        # fastest closed-loop rate of any actuator in any mode, for the sub-step size
        with np.errstate(all='ignore'):
            self._rate = self._control.closed_loop_rate()
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
        h = dt / count
        damping = self._control.damping
        q0 = self._q
        with np.errstate(all='ignore'):
            for _ in range(count):
                self._u = self._control.effort(self._q, self._v)
                self._v = self._v + h * (self._u - damping * self._v) / self._inertia
                self._q = self._q + h * self._v
        finite = np.isfinite(self._q) & np.isfinite(self._v) & np.isfinite(self._u)
        if not finite.all():
            # never publish NaN or infinity: the rotor stays where it was, at rest
            self.diverged += int(np.count_nonzero(~finite))
            self._q = np.where(finite, self._q, q0)
            self._v = np.where(finite, self._v, 0.0)
            self._u = np.where(finite, self._u, 0.0)

    def state(self) -> dict[str, np.ndarray]:
        """Return copies of ``position``, ``velocity`` and applied ``effort``, each ``(N,)``."""
        return {'position': self._q.copy(), 'velocity': self._v.copy(),
                'effort': self._u.copy()}


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
