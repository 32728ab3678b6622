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
The drivetrain behind a transmission: friction, backlash and the motor (doc/drivetrain.md).

The motor: its torque constant, torque-speed envelope and winding temperature.

The records (:class:`Friction`, :class:`Backlash`, :class:`TorqueSpeed`, :class:`Thermal`,
:class:`Motor`) hold validated parameters; the functions compute, vectorised over actuators or
joints whose parameters are arrays of the same shape, so that one actuator and a whole robot
(:class:`~transmission_plugins.robot.drivetrain.RobotDrivetrain`) go through the same formula.

Friction (Stribeck, with viscous friction):

.. math::

    \tau_f(v) = \operatorname{sign}(v)\,\bigl(F_c + (F_s - F_c)\,e^{-(v/v_s)^2}\bigr) + b\,v

Torque-speed envelope: the torque available in the direction of motion falls along the line
from the peak torque at rest to zero at the maximum speed, or along a table of (speed, torque)
points; against the motion (braking) and at rest, the peak torque.

Winding temperature (first order, exact over a step :math:`h` at constant current :math:`I`):

.. math::

    T_{ss} = T_a + R_{th} R I^2, \qquad T(t + h) = T_{ss} + (T(t) - T_{ss})\,e^{-h/\tau_{th}}

The continuous current holds the winding at :math:`T_{max}`:
:math:`I_c = \sqrt{(T_{max} - T_a) / (R_{th} R)}`; above the warning temperature the current
allowed falls linearly from the peak current to :math:`I_c` at :math:`T_{max}`.
"""

from dataclasses import dataclass
from dataclasses import field
import math
from typing import Any

import numpy as np

from transmission_plugins.core.checks import FloatArray
from transmission_plugins.core.checks import real_number
from transmission_plugins.core.exceptions import TransmissionValueError

#: the share of the way from the ambient to the maximum temperature where derating starts,
#: when a ``<motor>`` gives no ``warning_temperature``
DEFAULT_WARNING_SHARE = 0.8


def _at_least(value: Any, parameter: str, where: str, low: float = 0.0,
              strict: bool = False) -> float:
    x = real_number(value, parameter, where)
    if not math.isfinite(x) or x < low or (strict and x == low):
        raise TransmissionValueError(parameter, value, f'a finite number {">" if strict else ">="}'
                                     f' {low:g}', where)
    return x


@dataclass(frozen=True)
class Friction:
    r"""
    Static, Coulomb and viscous friction with a Stribeck drop, on one side of a transmission.

    :param coulomb: :math:`F_c` >= 0 (N m or N)
    :param viscous: :math:`b` >= 0 (N m s/rad or N s/m)
    :param static: :math:`F_s` >= :math:`F_c`; None: equal to :math:`F_c` (no Stribeck drop)
    :param stribeck_velocity: :math:`v_s` > 0 (rad/s or m/s); needed when
        :math:`F_s > F_c`
    :param where: the owner, for errors (an element path)
    :raises TransmissionValueError: naming the parameter, the value and what was expected
    """

    coulomb: float = 0.0
    viscous: float = 0.0
    static: float | None = None
    stribeck_velocity: float | None = None
    where: str = field(default='', compare=False)

    def __post_init__(self) -> None:
        c = _at_least(self.coulomb, 'coulomb', self.where)
        b = _at_least(self.viscous, 'viscous', self.where)
        s = c if self.static is None else _at_least(self.static, 'static', self.where)
        if s < c:
            raise TransmissionValueError('static', self.static, f'a number >= coulomb ({c:g}): '
                                         'static friction is the larger one', self.where)
        v = self.stribeck_velocity
        if v is not None:
            v = _at_least(v, 'stribeck_velocity', self.where, strict=True)
        elif s > c:
            raise TransmissionValueError('stribeck_velocity', None, 'a finite number > 0 when '
                                         'static friction exceeds Coulomb friction', self.where)
        object.__setattr__(self, 'coulomb', c)
        object.__setattr__(self, 'viscous', b)
        object.__setattr__(self, 'static', s)
        object.__setattr__(self, 'stribeck_velocity', v)

    def torque(self, velocity: Any) -> FloatArray:
        r"""Return :math:`\tau_f(v)`, the friction that opposes a motion at ``velocity``."""
        s = self.static if self.static is not None else self.coulomb
        return friction_torque(velocity, s, self.coulomb, self.viscous,
                               self.stribeck_velocity or 1.0)


def friction_torque(velocity: Any, static: Any, coulomb: Any, viscous: Any,
                    stribeck_velocity: Any) -> FloatArray:
    r"""
    Return :math:`\tau_f(v)` (module docstring), vectorised over broadcastable arrays.

    Zero at rest (the friction that holds a body at rest is whatever balances it); NaN
    velocities give NaN.
    """
    v = np.asarray(velocity, dtype=np.float64)
    with np.errstate(over='ignore', under='ignore'):
        drop = np.exp(-np.square(v / stribeck_velocity))
    return np.sign(v) * (coulomb + (np.subtract(static, coulomb)) * drop) + viscous * v


@dataclass(frozen=True)
class Backlash:
    """
    A dead band of total ``width`` in a position map (:func:`play`).

    The output stays put until the input has crossed the play.

    :param width: the play, >= 0, in the units of the side it is written on (rad or m)
    :raises TransmissionValueError: for a negative, NaN or infinite width
    """

    width: float
    where: str = field(default='', compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, 'width', _at_least(self.width, 'width', self.where))


def play(output: Any, driving: Any, width: Any) -> FloatArray:
    r"""
    Return the play operator's new output, :math:`\mathrm{clip}(y, x - w/2, x + w/2)`.

    The driven side follows the driving side only when it reaches an end of the dead band.

    NaN in ``driving`` gives NaN; a NaN ``output`` (unknown) starts at the driving position.
    """
    x = np.asarray(driving, dtype=np.float64)
    y = np.where(np.isnan(output), x, output)
    half = 0.5 * np.asarray(width, dtype=np.float64)
    return np.minimum(np.maximum(y, x - half), x + half)


@dataclass(frozen=True)
class TorqueSpeed:
    """
    A motor's torque-speed envelope: (speed, torque) points, speeds from 0 increasing.

    The line of a ``<motor peak_torque max_speed>`` is the table ``(0, peak), (max, 0)``.
    Beyond the last speed the last torque holds (0 for the line: no torque past the maximum
    speed).

    :param speeds: increasing, the first 0, finite (rad/s or m/s at the rotor)
    :param torques: >= 0 and finite, the first the largest (the peak torque)
    """

    speeds: tuple[float, ...]
    torques: tuple[float, ...]
    where: str = field(default='', compare=False)

    def __post_init__(self) -> None:
        speeds = tuple(_at_least(s, f'speeds[{i}]', self.where)
                       for i, s in enumerate(self.speeds))
        torques = tuple(_at_least(t, f'torques[{i}]', self.where)
                        for i, t in enumerate(self.torques))
        if len(speeds) < 2 or len(speeds) != len(torques):
            raise TransmissionValueError('speeds, torques', (self.speeds, self.torques),
                                         'two lists of the same length, at least 2 points',
                                         self.where)
        if speeds[0] != 0.0 or any(b <= a for a, b in zip(speeds, speeds[1:])):
            raise TransmissionValueError('speeds', self.speeds, 'speeds from 0, increasing',
                                         self.where)
        if max(torques) != torques[0] or torques[0] == 0.0:
            raise TransmissionValueError('torques', self.torques, 'the peak torque (> 0) '
                                         'first, no larger torque after it', self.where)
        object.__setattr__(self, 'speeds', speeds)
        object.__setattr__(self, 'torques', torques)

    @classmethod
    def line(cls, peak_torque: float, max_speed: float, where: str = '') -> 'TorqueSpeed':
        """Return the envelope of a peak torque at rest falling to 0 at ``max_speed``."""
        _at_least(peak_torque, 'peak_torque', where, strict=True)
        _at_least(max_speed, 'max_speed', where, strict=True)
        return cls((0.0, float(max_speed)), (float(peak_torque), 0.0), where)

    @property
    def peak_torque(self) -> float:
        """Return the torque at rest, the largest of the envelope."""
        return self.torques[0]

    @property
    def max_speed(self) -> float:
        """Return the first speed where the torque is 0 (inf when the table never reaches 0)."""
        return next((s for s, t in zip(self.speeds, self.torques) if t == 0.0), math.inf)

    def bounds(self, velocity: Any) -> tuple[FloatArray, FloatArray]:
        """Return ``(lower, upper)`` effort bounds at ``velocity`` (:func:`envelope_bounds`)."""
        s = np.array([self.speeds])
        t = np.array([self.torques])
        v = np.atleast_1d(np.asarray(velocity, dtype=np.float64))
        lower, upper = envelope_bounds(v.reshape(-1, 1), s, t)
        return lower.reshape(v.shape), upper.reshape(v.shape)


def envelope_bounds(velocity: Any, speeds: FloatArray,
                    torques: FloatArray) -> tuple[FloatArray, FloatArray]:
    """
    Return ``(lower, upper)``: the efforts each motor can give at ``velocity``.

    :param velocity: ``(..., N)`` (NaN: unknown, the peak torque both ways)
    :param speeds: ``(N, K)`` tables, each row increasing from 0 (shorter tables repeat their
        last point)
    :param torques: ``(N, K)``
    """
    v = np.asarray(velocity, dtype=np.float64)
    speed = np.abs(v)
    # the segment of each speed: the last knot at or below it (a NaN speed: the first)
    k = (speeds <= speed[..., None]).sum(axis=-1) - 1
    k = np.minimum(np.maximum(k, 0), speeds.shape[-1] - 2)
    motor = np.arange(speeds.shape[0])
    s0, s1 = speeds[motor, k], speeds[motor, k + 1]
    t0, t1 = torques[motor, k], torques[motor, k + 1]
    with np.errstate(invalid='ignore', divide='ignore'):
        share = np.minimum(np.maximum((speed - s0) / (s1 - s0), 0.0), 1.0)
        # a repeated last point (s1 == s0) holds t1; equal torques (a flat piece, or a motor
        # without an envelope: inf) need no interpolation
        share = np.where(s1 > s0, share, 1.0)
        available = np.where(t1 == t0, t0, t0 + share * (t1 - t0))
    peak = torques[:, 0]
    upper = np.where(v > 0.0, available, peak)    # NaN compares False: the peak
    lower = np.where(v < 0.0, -available, -peak)
    return lower, upper


@dataclass(frozen=True)
class Thermal:
    r"""
    A first-order model of a motor's winding temperature (module docstring).

    :param resistance: winding resistance :math:`R` > 0 (ohm)
    :param thermal_resistance: :math:`R_{th}` > 0, winding to ambient (K/W)
    :param time_constant: :math:`\tau_{th}` > 0 (s)
    :param max_temperature: :math:`T_{max}` (degrees C), above the ambient
    :param ambient_temperature: :math:`T_a` (degrees C), default 25
    :param warning_temperature: where derating starts, between the ambient and the maximum;
        None: 80 % of the way
    """

    resistance: float
    thermal_resistance: float
    time_constant: float
    max_temperature: float
    ambient_temperature: float = 25.0
    warning_temperature: float | None = None
    where: str = field(default='', compare=False)

    def __post_init__(self) -> None:
        w = self.where
        for name in ('resistance', 'thermal_resistance', 'time_constant'):
            object.__setattr__(self, name, _at_least(getattr(self, name), name, w, strict=True))
        ambient = real_number(self.ambient_temperature, 'ambient_temperature', w)
        if not math.isfinite(ambient) or ambient < -273.15:
            raise TransmissionValueError('ambient_temperature', self.ambient_temperature,
                                         'a finite temperature in degrees C', w)
        top = _at_least(self.max_temperature, 'max_temperature', w, ambient, strict=True)
        warn = self.warning_temperature
        if warn is None:
            warn = ambient + DEFAULT_WARNING_SHARE * (top - ambient)
        else:
            warn = real_number(warn, 'warning_temperature', w)
            if not (ambient < warn < top):
                raise TransmissionValueError(
                    'warning_temperature', self.warning_temperature,
                    f'a temperature between the ambient ({ambient:g}) and the maximum '
                    f'({top:g}) degrees C', w)
        object.__setattr__(self, 'ambient_temperature', ambient)
        object.__setattr__(self, 'max_temperature', top)
        object.__setattr__(self, 'warning_temperature', warn)

    @property
    def continuous_current(self) -> float:
        """Return :math:`I_c`, the current that holds the winding at the maximum temperature."""
        return math.sqrt((self.max_temperature - self.ambient_temperature)
                         / (self.thermal_resistance * self.resistance))


def winding_temperature(temperature: Any, current: Any, dt: Any, resistance: Any,
                        thermal_resistance: Any, time_constant: Any,
                        ambient: Any) -> FloatArray:
    """Return the temperature after ``dt`` at a constant ``current`` (module docstring)."""
    i = np.asarray(current, dtype=np.float64)
    steady = ambient + thermal_resistance * resistance * i * i
    return steady + (np.asarray(temperature, dtype=np.float64) - steady) \
        * np.exp(-np.asarray(dt, dtype=np.float64) / time_constant)


def current_limit(temperature: Any, peak_current: Any, continuous_current: Any,
                  warning_temperature: Any, max_temperature: Any) -> FloatArray:
    """
    Return the current allowed at ``temperature``.

    The peak current up to the warning temperature, falling linearly to the continuous current
    at the maximum, the continuous current above it (which holds the winding at the maximum).
    """
    t = np.asarray(temperature, dtype=np.float64)
    span = np.subtract(max_temperature, warning_temperature)
    share = np.clip((t - warning_temperature) / span, 0.0, 1.0)
    share = np.where(np.isnan(t), 1.0, share)   # unknown: the safe end
    return peak_current - share * np.subtract(peak_current, continuous_current)


@dataclass(frozen=True)
class Motor:
    r"""
    The motor behind an actuator: torque constant, torque-speed envelope, thermal model.

    Its values are at the rotor; the actuator coordinate of a transmission sees them through the
    actuator's ``gear_ratio`` :math:`\rho` (``ActuatorModel``): effort :math:`\rho\,k_t I`,
    speed :math:`\dot\theta = \omega / \rho`.

    :param torque_constant: :math:`k_t` > 0 (N m/A), or None
    :param torque_speed: the envelope, or None
    :param thermal: the thermal model (needs ``torque_constant``: the model heats with the
        current), or None
    :param peak_current: the largest current, > 0 (A); None: the peak torque over
        :math:`k_t`
    """

    torque_constant: float | None = None
    torque_speed: TorqueSpeed | None = None
    thermal: Thermal | None = None
    peak_current: float | None = None
    where: str = field(default='', compare=False)

    def __post_init__(self) -> None:
        k = self.torque_constant
        if k is not None:
            object.__setattr__(self, 'torque_constant',
                               _at_least(k, 'torque_constant', self.where, strict=True))
        peak = self.peak_current
        if peak is not None:
            peak = _at_least(peak, 'peak_current', self.where, strict=True)
        elif k is not None and self.torque_speed is not None:
            peak = self.torque_speed.peak_torque / float(k)
        object.__setattr__(self, 'peak_current', peak)
        if self.thermal is not None:
            if self.torque_constant is None:
                raise TransmissionValueError('torque_constant', None, 'a torque constant: the '
                                             'thermal model heats with the current', self.where)
            if peak is None:
                raise TransmissionValueError('peak_current', None, 'a peak current (or a peak '
                                             'torque) for the thermal model to derate from',
                                             self.where)
            if peak < self.thermal.continuous_current:
                raise TransmissionValueError(
                    'peak_current', peak, 'a peak current at least the continuous current '
                    f'{self.thermal.continuous_current:g} A the thermal model allows',
                    self.where)
