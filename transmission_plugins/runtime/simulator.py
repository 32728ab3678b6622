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

"""The rotor simulator behind the ``mock_actuators`` node: N decoupled rotors, PD-controlled."""

import math
from typing import Any
from typing import Dict
from typing import List
from typing import Sequence

import numpy as np

from transmission_plugins.core.exceptions import TransmissionValueError
from transmission_plugins.robot.actuators import _real
from transmission_plugins.robot.actuators import ActuatorModel
from transmission_plugins.robot.actuators import pd_law


#: The actuator modes of :class:`ActuatorSimulator`.
MODES = ('position', 'velocity', 'effort')


class ActuatorSimulator:
    r"""
    Simulate N actuator rotors, each in position, velocity or effort mode.

    Each rotor obeys :math:`I \dot v = u - c\,v` with :math:`I = \max(\rho^2 I_r, I_{min})`
    (a rotor with no modelled inertia still needs a finite mass to integrate), :math:`c` the
    viscous ``damping`` and :math:`u` clamped to the model's effort limit:

    * ``position``: :math:`u = \operatorname{clamp}(-K_p(q - q_d) - K_d v)` (:func:`pd_effort`);
    * ``velocity``: :math:`u = \operatorname{clamp}(K_v (v_d - v) + c\,v_d)`;
    * ``effort``: :math:`u = \operatorname{clamp}(u_d)`.

    :math:`K_p, K_d` come from the model, else :math:`K_p = I\omega^2, K_d = 2I\omega`
    (critically damped at ``bandwidth`` rad/s); :math:`K_v = K_d`.  :meth:`step` integrates with
    semi-implicit Euler (velocity first, then position with the new velocity), split into
    sub-steps short enough for the stiffest actuator (at most ``max_substeps``).  All actuators
    start at rest in effort mode with a zero command.

    :param models: the :class:`ActuatorModel` of each actuator, in state order
    :param position: initial positions ``(N,)``, default 0
    :param damping: viscous damping :math:`c` >= 0, scalar or ``(N,)``
    :param min_inertia: :math:`I_{min}` > 0
    :param bandwidth: :math:`\omega` > 0 for default gains
    :param max_substeps: bound on sub-steps per :meth:`step`
    """

    def __init__(self, models: Sequence[ActuatorModel], *, position: Any = None,
                 damping: Any = 0.0, min_inertia: float = 1e-4,
                 bandwidth: float = 2.0 * math.pi * 10.0, max_substeps: int = 1000) -> None:
        self._models = list(models)
        if not all(isinstance(m, ActuatorModel) for m in self._models):
            raise TransmissionValueError('models', models, 'a sequence of ActuatorModel',
                                         'ActuatorSimulator')
        n = len(self._models)
        for name, value in (('min_inertia', min_inertia), ('bandwidth', bandwidth)):
            if not (math.isfinite(_real(value, name, 'ActuatorSimulator')) and value > 0.0):
                raise TransmissionValueError(name, value, 'a finite number > 0',
                                             'ActuatorSimulator')
        self._damping = np.broadcast_to(np.asarray(damping, dtype=np.float64), (n,)).copy()
        if not np.all(np.isfinite(self._damping) & (self._damping >= 0.0)):
            raise TransmissionValueError('damping', damping, 'finite values >= 0',
                                         'ActuatorSimulator')
        self._max_substeps = int(max_substeps)
        self._inertia = np.array([max(m.reflected_inertia(), min_inertia)
                                  for m in self._models])
        self._kp = np.array([m.kp if m.kp is not None else i * bandwidth ** 2
                             for m, i in zip(self._models, self._inertia)])
        self._kd = np.array([m.kd if m.kp is not None else 2.0 * i * bandwidth
                             for m, i in zip(self._models, self._inertia)])
        self._kv = np.where(self._kd > 0.0, self._kd, 2.0 * self._inertia * bandwidth)
        self._limit = np.array([m.effort_limit for m in self._models])
        # fastest closed-loop rate of any actuator in any mode, for the sub-step size
        with np.errstate(all='ignore'):
            rates = (np.sqrt(self._kp / self._inertia)
                     + (self._kd + self._kv + self._damping) / self._inertia)
        if not np.all(np.isfinite(rates)):
            i = int(np.argmin(np.isfinite(rates)))
            raise TransmissionValueError(
                'kp, kd', (float(self._kp[i]), float(self._kd[i])), 'gains whose ratio to the '
                f'inertia {float(self._inertia[i])!r} is finite (else the rotor cannot be '
                f'integrated)', f'ActuatorSimulator: actuator {self._models[i].name!r}')
        self._rate = float(np.max(rates, initial=0.0))
        #: actuator steps that overflowed and were undone (the rotor held, at rest)
        self.diverged = 0
        self._mode = np.full(n, MODES.index('effort'))
        self._target = np.zeros(n)
        self._q = np.zeros(n)
        self._v = np.zeros(n)
        self._u = np.zeros(n)
        self.reset(position)

    @property
    def names(self) -> List[str]:
        """Return the actuator names, in state order."""
        return [m.name for m in self._models]

    @property
    def modes(self) -> List[str]:
        """Return each actuator's current mode."""
        return [MODES[i] for i in self._mode]

    def reset(self, position: Any = None, velocity: Any = None) -> None:
        """Set the state (default: zero) and clear the efforts; modes and commands are kept."""
        n = len(self._models)
        self._q = self._vector(0.0 if position is None else position, 'position', n)
        self._v = self._vector(0.0 if velocity is None else velocity, 'velocity', n)
        self._u = np.zeros(n)

    def set_command(self, modes: Any, values: Any) -> None:
        """
        Set the mode and the target of each actuator.

        :param modes: one mode name for all, or N names (None keeps that actuator's command)
        :param values: N targets (position, velocity or effort by mode); NaN keeps that
            actuator's previous mode and target
        :raises TransmissionValueError: unknown mode names or wrong sizes
        """
        n = len(self._models)
        target = np.asarray(values, dtype=np.float64).reshape(-1)
        if target.shape != (n,):
            raise TransmissionValueError('values', values, f'{n} numbers',
                                         'ActuatorSimulator.set_command')
        names = [modes] * n if isinstance(modes, str) or modes is None else list(modes)
        if len(names) != n or any(m is not None and m not in MODES for m in names):
            raise TransmissionValueError('modes', modes, f'one of {MODES} or {n} of them',
                                         'ActuatorSimulator.set_command')
        update = ~np.isnan(target) & np.array([m is not None for m in names])
        new_mode = np.array([MODES.index(m) if m is not None else -1 for m in names])
        self._mode = np.where(update, new_mode, self._mode)
        self._target = np.where(update, target, self._target)

    def step(self, dt: float) -> None:
        """
        Advance the rotors by ``dt`` seconds (> 0).

        State and effort stay finite: an actuator whose step overflows (an unlimited effort
        towards a target like 1e300) is put back where it was, at rest, and counted in
        :attr:`diverged`.
        """
        if not (math.isfinite(dt) and dt > 0.0):
            raise TransmissionValueError('dt', dt, 'a finite number > 0', 'ActuatorSimulator')
        count = int(min(max(math.ceil(dt * self._rate / 0.2), 1), self._max_substeps))
        h = dt / count
        q0 = self._q
        with np.errstate(all='ignore'):
            for _ in range(count):
                self._u = self._effort()
                self._v = self._v + h * (self._u - self._damping * self._v) / self._inertia
                self._q = self._q + h * self._v
        finite = np.isfinite(self._q) & np.isfinite(self._v) & np.isfinite(self._u)
        if not finite.all():
            # an effort without limit driving to an extreme target overflowed: never publish
            # NaN or infinity; the rotor stays where it was, at rest
            self.diverged += int(np.count_nonzero(~finite))
            self._q = np.where(finite, self._q, q0)
            self._v = np.where(finite, self._v, 0.0)
            self._u = np.where(finite, self._u, 0.0)

    def state(self) -> Dict[str, np.ndarray]:
        """Return copies of ``position``, ``velocity`` and applied ``effort``, each ``(N,)``."""
        return {'position': self._q.copy(), 'velocity': self._v.copy(),
                'effort': self._u.copy()}

    def _effort(self) -> np.ndarray:
        position_mode = self._mode == 0
        velocity_mode = self._mode == 1
        target = self._target
        q_d = np.where(position_mode, target, self._q)
        u_pd = pd_law(self._q, self._v, q_d, 0.0, 0.0, self._kp, self._kd)
        u_vel = self._kv * (target - self._v) + self._damping * target
        u = np.where(position_mode, u_pd, np.where(velocity_mode, u_vel, target))
        return np.clip(u, -self._limit, self._limit)

    @staticmethod
    def _vector(value: Any, name: str, n: int) -> np.ndarray:
        try:
            x = np.broadcast_to(np.asarray(value, dtype=np.float64), (n,)).copy()
        except (TypeError, ValueError):
            raise TransmissionValueError(name, value, f'{n} finite numbers',
                                         'ActuatorSimulator') from None
        if not np.all(np.isfinite(x)):
            raise TransmissionValueError(name, value, f'{n} finite numbers', 'ActuatorSimulator')
        return x
