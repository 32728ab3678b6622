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
A robot's drivetrain as arrays, at the actuator coordinate (doc/drivetrain.md).

Friction and backlash of every joint and actuator, and the motor behind every actuator.

A motor's values are at the rotor; an actuator of gear ratio :math:`\rho` (the Drake
``gear_ratio`` of :class:`~.actuators.ActuatorModel`) sees the effort :math:`\rho\,\tau`, the
speed :math:`\omega / \rho` and the current :math:`u / (\rho\,k_t)`.  Everything here is
computed by the functions of :mod:`transmission_plugins.core.drivetrain`, for all actuators (or
joints) at once; an actuator or a joint without an element gets neutral values (no friction, no
play, unlimited torque, no heating).
"""

import math
from typing import Any
from typing import Iterable
from typing import Mapping
from typing import Sequence

import numpy as np

from transmission_plugins.core.checks import FloatArray
from transmission_plugins.core.drivetrain import Backlash
from transmission_plugins.core.drivetrain import current_limit
from transmission_plugins.core.drivetrain import envelope_bounds
from transmission_plugins.core.drivetrain import Friction
from transmission_plugins.core.drivetrain import friction_torque
from transmission_plugins.core.drivetrain import Motor
from transmission_plugins.core.drivetrain import winding_temperature


class FrictionArrays:
    """The friction of N joints or actuators: each parameter a ``(N,)`` array (0: none)."""

    def __init__(self, frictions: Sequence[Friction | None]) -> None:
        def column(attr: str, default: float) -> FloatArray:
            return np.array([default if f is None or getattr(f, attr) is None
                             else getattr(f, attr) for f in frictions], dtype=np.float64)

        #: which have a ``<friction>``
        self.present = np.array([f is not None for f in frictions], dtype=bool)
        self.coulomb = column('coulomb', 0.0)
        self.viscous = column('viscous', 0.0)
        self.static = column('static', 0.0)
        self.stribeck_velocity = column('stribeck_velocity', 1.0)

    def torque(self, velocity: FloatArray) -> FloatArray:
        """Return the friction each would oppose to ``velocity`` (``(..., N)``)."""
        return friction_torque(velocity, self.static, self.coulomb, self.viscous,
                               self.stribeck_velocity)

    def breakaway(self) -> FloatArray:
        """Return the largest friction at low speed: static, or Coulomb without Stribeck."""
        return np.maximum(self.static, self.coulomb)


class RobotDrivetrain:
    r"""
    The drivetrain of a robot's joints and actuators (module docstring).

    :param joint_names: the robot's driven joints, in its order
    :param actuator_names: its actuators, in its order
    :param joint_ends: joint name -> the ``<joint>`` record of its transmission
    :param actuator_ends: actuator name -> the ``<actuator>`` record
    :param gear_ratio: each actuator's gear ratio :math:`\rho` (``(na,)``)
    """

    def __init__(self, joint_names: Sequence[str], actuator_names: Sequence[str],
                 joint_ends: Mapping[str, object], actuator_ends: Mapping[str, object],
                 gear_ratio: Iterable[float]) -> None:
        def field(ends: Mapping[str, object], names: Sequence[str], attr: str) -> list[Any]:
            return [getattr(ends.get(n), attr, None) for n in names]

        #: the record of each joint's and actuator's end (None: none), with its ``origins``
        self.joint_records = [joint_ends.get(n) for n in joint_names]
        self.actuator_records = [actuator_ends.get(n) for n in actuator_names]
        rho = np.abs(np.array(list(gear_ratio), dtype=np.float64)).reshape(-1)
        #: the actuators' gear ratios (magnitude)
        self.gear_ratio = rho
        #: the joint-side friction, per joint
        self.joint_friction = FrictionArrays(field(joint_ends, joint_names, 'friction'))
        #: the motor-side friction, per actuator (actuator units)
        self.actuator_friction = FrictionArrays(field(actuator_ends, actuator_names,
                                                      'friction'))
        joint_play: list[Backlash | None] = field(joint_ends, joint_names, 'backlash')
        actuator_play: list[Backlash | None] = field(actuator_ends, actuator_names, 'backlash')
        #: the backlash width per joint and per actuator (0: none)
        self.joint_backlash = np.array([0.0 if b is None else b.width for b in joint_play])
        self.actuator_backlash = np.array([0.0 if b is None else b.width
                                           for b in actuator_play])
        motors: list[Motor | None] = field(actuator_ends, actuator_names, 'motor')
        #: the ``<motor>`` of each actuator (None: none)
        self.motors = motors
        self._set_motors(motors, rho)

    def _set_motors(self, motors: Sequence[Motor | None], rho: FloatArray) -> None:
        na = len(motors)
        k = np.array([math.nan if m is None or m.torque_constant is None
                      else m.torque_constant for m in motors], dtype=np.float64)
        #: actuator effort per ampere, :math:`\rho k_t` (NaN: no torque constant)
        self.effort_per_current = rho * k
        envelopes = [None if m is None else m.torque_speed for m in motors]
        #: which actuators have a torque-speed envelope
        self.has_envelope = np.array([e is not None for e in envelopes], dtype=bool)
        width = max([len(e.speeds) for e in envelopes if e is not None], default=2)
        speeds = np.zeros((na, width))
        torques = np.full((na, width), math.inf)
        for i, e in enumerate(envelopes):
            if e is None:
                speeds[i] = np.arange(width)   # any increasing row: its torques are inf
                continue
            s = np.array(e.speeds + (e.speeds[-1],) * (width - len(e.speeds)))
            t = np.array(e.torques + (e.torques[-1],) * (width - len(e.torques)))
            speeds[i] = s / rho[i]           # rotor speed -> actuator-coordinate speed
            torques[i] = t * rho[i]          # rotor torque -> actuator effort
        self._speeds, self._torques = speeds, torques
        #: the envelope's peak torque (at rest) and maximum speed, at the actuator coordinate
        #: (inf without an envelope; the speed inf too when the table never reaches 0)
        self.peak_effort = torques[:, 0].copy()
        self.max_speed = np.array([math.inf if e is None else e.max_speed / rho[i]
                                   for i, e in enumerate(envelopes)], dtype=np.float64)
        thermals = [None if m is None else m.thermal for m in motors]
        #: which actuators have a thermal model
        self.has_thermal = np.array([t is not None for t in thermals], dtype=bool)

        def column(attr: str, default: float) -> FloatArray:
            return np.array([default if t is None else getattr(t, attr) for t in thermals],
                            dtype=np.float64)

        self.resistance = column('resistance', 1.0)
        self.thermal_resistance = column('thermal_resistance', 0.0)
        self.time_constant = column('time_constant', 1.0)
        #: degrees C: the ambient, where derating starts, the maximum (NaN without a model)
        self.ambient_temperature = column('ambient_temperature', math.nan)
        self.warning_temperature = column('warning_temperature', math.nan)
        self.max_temperature = column('max_temperature', math.nan)
        #: the continuous and peak currents (A; inf without a thermal model)
        self.continuous_current = np.array([math.inf if t is None else t.continuous_current
                                            for t in thermals])
        self.peak_current = np.array([math.inf if m is None or m.peak_current is None
                                      else m.peak_current for m in motors])
        #: the actuator effort of the continuous current, :math:`\rho k_t I_c` (inf without a
        #: thermal model)
        self.continuous_effort = np.where(self.has_thermal,
                                          self.effort_per_current * self.continuous_current,
                                          math.inf)

    @property
    def models_anything(self) -> bool:
        """Return True when any joint or actuator has a drivetrain element."""
        return bool(self.joint_friction.present.any() or self.actuator_friction.present.any()
                    or self.joint_backlash.any() or self.actuator_backlash.any()
                    or any(m is not None for m in self.motors))

    def effort_bounds(self, actuator_velocity: FloatArray,
                      temperature: FloatArray | None = None) -> tuple[FloatArray, FloatArray]:
        r"""
        Return ``(lower, upper)``: the actuator efforts the motors can give now.

        The torque-speed envelope at ``actuator_velocity`` (NaN: unknown, the peak), and with
        ``temperature`` also within :meth:`thermal_effort_limit`; ``inf`` where an actuator has
        neither.
        """
        lower, upper = envelope_bounds(actuator_velocity, self._speeds, self._torques)
        if temperature is not None and self.has_thermal.any():
            allowed = self.thermal_effort_limit(temperature)
            lower, upper = np.maximum(lower, -allowed), np.minimum(upper, allowed)
        return lower, upper

    def thermal_effort_limit(self, temperature: FloatArray) -> FloatArray:
        r"""Return the effort the current limit at ``temperature`` allows, :math:`\rho k_t I`."""
        return np.where(self.has_thermal,
                        self.current_limit(temperature) * self.effort_per_current, math.inf)

    def current(self, actuator_effort: FloatArray) -> FloatArray:
        """Return the motor current of each actuator effort (NaN without a torque constant)."""
        return np.asarray(actuator_effort, dtype=np.float64) / self.effort_per_current

    def current_limit(self, temperature: FloatArray) -> FloatArray:
        """Return the current each motor may draw at ``temperature`` (inf without a model)."""
        with np.errstate(invalid='ignore'):   # the motors without a model: inf - inf, unused
            limit = current_limit(temperature, self.peak_current, self.continuous_current,
                                  self.warning_temperature, self.max_temperature)
        return np.where(self.has_thermal, limit, math.inf)

    def initial_temperature(self) -> FloatArray:
        """Return the ambient temperature of each motor (NaN without a thermal model)."""
        return self.ambient_temperature.copy()

    def heat(self, temperature: FloatArray, actuator_effort: FloatArray,
             dt: float) -> FloatArray:
        """
        Return each winding's temperature after ``dt`` s at ``actuator_effort``.

        An unknown effort (NaN) heats at the peak current: the estimate errs on the hot side.
        """
        with np.errstate(invalid='ignore', over='ignore'):
            current = np.abs(self.current(actuator_effort))
            current = np.where(np.isnan(current), self.peak_current, current)
            heated = winding_temperature(temperature, current, dt, self.resistance,
                                         self.thermal_resistance, self.time_constant,
                                         self.ambient_temperature)
        return np.where(self.has_thermal, heated, math.nan)
