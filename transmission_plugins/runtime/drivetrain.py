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
The drivetrain's part of the hardware interface's cycle (doc/nodes.md, "Drivetrain").

Everything is computed by the robot's drivetrain
(:class:`~transmission_plugins.robot.drivetrain.RobotDrivetrain`, ``robot.drivetrain``); this
module decides at configure, from the robot's data, what a cycle has to do, and keeps what a
cycle carries over: the estimated winding temperatures and the effort last commanded.

* **Limits** (:meth:`CycleDrivetrain.target_bounds`): actuator effort commands within the
  torque-speed envelope at the measured actuator velocity and the thermal current limit at the
  estimated temperature (times :math:`\rho k_t`), velocity commands within the envelope's
  maximum speed; each clamp is counted under the limit that bound it (``actuator_torque_speed``,
  ``actuator_thermal``, ``actuator_max_speed``; the URDF's own on a tie).
* **Thermal estimate** (:meth:`CycleDrivetrain.heat`): every motor with a thermal model heats
  over the time since the previous update at the measured actuator effort, else the effort
  commanded last (unknown: the peak current, the hot side), from its actuator's first state.
* **Effort unit** (``actuator_effort_unit``): with ``current``, state efforts are currents
  (:meth:`CycleDrivetrain.state_effort`) and command efforts are sent as currents
  (:meth:`CycleDrivetrain.sent`).
* **Friction compensation** (``friction_compensation``): the friction of each side at the
  commanded velocity, else the measured one, added to effort commands before their limits.

A robot without drivetrain data gets no :class:`CycleDrivetrain` (:func:`cycle_drivetrain`
returns None) and its cycle does exactly what it did before.
"""

import math

import numpy as np

from transmission_plugins.core.checks import FloatArray
from transmission_plugins.core.drivetrain import play
from transmission_plugins.core.exceptions import TransmissionValueError
from transmission_plugins.robot.drivetrain import FrictionArrays
from transmission_plugins.robot.drivetrain import RobotDrivetrain
from transmission_plugins.robot.robot_transmissions import RobotTransmissions
from transmission_plugins.runtime.diagnostics import Counters
from transmission_plugins.runtime.states import LatestStates

#: the values of ``actuator_effort_unit``: what the effort fields of the actuator topics hold
EFFORT_UNITS = ('torque', 'current')

#: thermal levels of a motor: below its warning temperature, derating, at its maximum or above
COOL, DERATING, HOT = 0, 1, 2

#: the clamp kinds of an actuator velocity and effort row, the URDF's first
VELOCITY_KINDS = ('velocity', 'max_speed')
EFFORT_KINDS = ('effort', 'torque_speed', 'thermal')

#: the clamp kinds of a row and, per entry, which one binds its low and its high bound
Cause = tuple[tuple[str, ...], np.ndarray, np.ndarray]


def max_speed(drivetrain: RobotDrivetrain) -> FloatArray:
    """
    Return each actuator's envelope maximum speed at the actuator coordinate (inf: none).

    The speed where the envelope's torque falls to 0 after its last positive point, over the
    gear ratio; an envelope whose last torque is positive (it holds beyond) has none.
    """
    out = np.full(len(drivetrain.motors), math.inf)
    for i, motor in enumerate(drivetrain.motors):
        envelope = None if motor is None else motor.torque_speed
        if envelope is None:
            continue
        positive = [k for k, t in enumerate(envelope.torques) if t > 0.0]
        if positive[-1] + 1 < len(envelope.speeds):
            out[i] = envelope.speeds[positive[-1] + 1] / drivetrain.gear_ratio[i]
    return out


class CycleDrivetrain:
    """
    What a hardware interface cycle does with the drivetrain (module docstring).

    :param robot: the robot (``robot.drivetrain``, its actuators)
    :param states: the cycle's state side (the measured actuator velocity and effort)
    :param effort_unit: one of :data:`EFFORT_UNITS`
    :raises TransmissionValueError: an unknown unit, or ``current`` while some actuators have no
        torque constant (naming every one)
    """

    def __init__(self, robot: RobotTransmissions, states: LatestStates,
                 effort_unit: str = 'torque') -> None:
        if effort_unit not in EFFORT_UNITS:
            raise TransmissionValueError('actuator_effort_unit', effort_unit,
                                         f'one of {EFFORT_UNITS}')
        model = robot.drivetrain
        #: the robot's drivetrain (every formula)
        self.model = model
        self.actuator_names = list(robot.actuator_names)
        self._states = states
        #: ``rho * k_t`` per actuator (NaN: no torque constant); 1 for a sensor channel (a
        #: series-elastic joint-side encoder), which draws no current: its effort passes as is
        self.effort_per_current = np.where(robot.commanded_actuators,
                                           model.effort_per_current, 1.0)
        missing = [n for n, k in zip(self.actuator_names, self.effort_per_current)
                   if not math.isfinite(k)]
        if effort_unit == 'current' and missing:
            raise TransmissionValueError(
                'actuator_effort_unit', effort_unit, 'a torque constant (<motor '
                'torque_constant="...">) for every actuator, to turn currents into efforts; '
                f'{len(missing)} of {len(self.actuator_names)} actuators have none: '
                f'{", ".join(missing)}')
        #: True: the effort fields of actuator_states and actuator_commands are currents (A)
        self.current = effort_unit == 'current'
        self.effort_unit = effort_unit
        #: the envelope's maximum speed per actuator (inf: none), and whether any has one
        self.speed_limit = max_speed(model)
        self.speed_limited = bool(np.isfinite(self.speed_limit).any())
        #: True when an actuator has an envelope or a thermal model (effort commands limited)
        self.effort_limited = bool(model.has_envelope.any() or model.has_thermal.any())
        self.thermal = bool(model.has_thermal.any())
        #: the friction of each side, None where no joint (actuator) has any
        self.joint_friction: FrictionArrays | None = (
            model.joint_friction if model.joint_friction.present.any() else None)
        self.actuator_friction: FrictionArrays | None = (
            model.actuator_friction if model.actuator_friction.present.any() else None)
        #: the estimated winding temperature per actuator, degrees C (NaN: no thermal model)
        self.temperature = model.initial_temperature()
        #: the thermal level per actuator (:data:`COOL`, :data:`DERATING`, :data:`HOT`)
        self.level = np.zeros(len(self.actuator_names), dtype=np.int64)
        #: the actuator efforts commanded last (torque units; NaN: none)
        self.commanded = np.full(len(self.actuator_names), np.nan)
        #: the steady time of the last thermal update (None: none yet)
        self.time: float | None = None

    @property
    def needed(self) -> bool:
        """Return True when a cycle has anything to do (else the cycle runs without it)."""
        return bool(self.current or self.speed_limited or self.effort_limited
                    or self.joint_friction is not None or self.actuator_friction is not None)

    # ------------------------------------------------------------------ measured state
    def measured(self, field: str, now: float) -> FloatArray:
        """Return the fresh measured actuator ``field`` (NaN where unknown or stale)."""
        return np.where(self._states.fresh(now), self._states.state[field], np.nan)

    def state_effort(self, idx: np.ndarray, effort: FloatArray) -> FloatArray:
        """Return the efforts of a state message of actuators ``idx`` (currents made efforts)."""
        if not self.current:
            return effort
        return np.asarray(effort, dtype=np.float64) * self.effort_per_current[idx]

    # ------------------------------------------------------------------ thermal estimate
    def heat(self, now: float) -> None:
        """
        Integrate the winding temperatures from the previous update to ``now``.

        At the measured actuator effort, else the effort commanded last; an unknown effort
        heats at the peak current (:meth:`RobotDrivetrain.heat`).  The estimate of an actuator
        starts with its first state: before it, nothing tells that its motor is driven at all.
        """
        last, self.time = self.time, now
        if not self.thermal or last is None or not now > last:
            return
        effort = self.measured('effort', now)
        effort = np.where(np.isfinite(effort), effort, self.commanded)
        effort = np.where(self._states.state_time > -np.inf, effort, 0.0)
        self.temperature = self.model.heat(self.temperature, effort, now - last)
        t = self.temperature
        with np.errstate(invalid='ignore'):
            self.level = ((t >= self.model.warning_temperature).astype(np.int64)
                          + (t >= self.model.max_temperature))

    def current_limit(self) -> FloatArray:
        """Return the current each motor may draw now (inf without a thermal model)."""
        return self.model.current_limit(self.temperature)

    # ------------------------------------------------------------------ limits
    def effort_bounds(self, now: float) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
        """
        Return the envelope's bounds and the envelope's within the thermal limit, now.

        :returns: ``(envelope_lower, envelope_upper, lower, upper)``: at the measured actuator
            velocity (unknown: the peak), the last two also within the current limit at the
            estimated temperature
        """
        lower, upper = self.model.effort_bounds(self.measured('velocity', now))
        if not self.thermal:
            return lower, upper, lower, upper
        allowed = self.model.thermal_effort_limit(self.temperature)
        return lower, upper, np.maximum(lower, -allowed), np.minimum(upper, allowed)

    def target_bounds(self, lo: np.ndarray, hi: np.ndarray, now: float
                      ) -> tuple[np.ndarray, np.ndarray, list[Cause | None]]:
        """
        Return the actuator bounds ``(3, na)`` within the drivetrain's, and what binds.

        :param lo: the actuator limits' low bounds (position, velocity, effort rows)
        :param hi: their high bounds
        :returns: ``(lo, hi, causes)``: per row None (the URDF's alone) or the kinds and which
            one binds each entry's low and high bound
        """
        causes: list[Cause | None] = [None, None, None]
        if self.speed_limited:
            lo, hi = lo.copy(), hi.copy()
            lows = np.stack([lo[1], -self.speed_limit])
            highs = np.stack([hi[1], self.speed_limit])
            lo[1], hi[1] = lows.max(axis=0), highs.min(axis=0)
            causes[1] = (VELOCITY_KINDS, lows.argmax(axis=0), highs.argmin(axis=0))
        if self.effort_limited:
            if not self.speed_limited:
                lo, hi = lo.copy(), hi.copy()
            env_lo, env_hi, all_lo, all_hi = self.effort_bounds(now)
            lows = np.stack([lo[2], env_lo, all_lo])
            highs = np.stack([hi[2], env_hi, all_hi])
            lo[2], hi[2] = lows.max(axis=0), highs.min(axis=0)
            causes[2] = (EFFORT_KINDS, lows.argmax(axis=0), highs.argmin(axis=0))
        return lo, hi, causes

    # ------------------------------------------------------------------ friction compensation
    def compensation(self, friction: FrictionArrays | None, effort: np.ndarray,
                     commanded_velocity: np.ndarray, measured_velocity: FloatArray
                     ) -> FloatArray | None:
        """
        Add ``friction`` at the commanded velocity, else the measured one, to ``effort``.

        In place, where an effort is commanded; nothing at rest or at an unknown velocity.

        :returns: the compensated efforts (to tell a clipped compensation), or None when
            nothing was added
        """
        if friction is None:
            return None
        v = np.where(np.isfinite(commanded_velocity), commanded_velocity, measured_velocity)
        tau = friction.torque(v)
        add = np.isfinite(effort) & np.isfinite(tau) & (tau != 0.0)
        if not add.any():
            return None
        effort += np.where(add, tau, 0.0)
        return np.where(add, effort, np.nan)

    @staticmethod
    def count_clipped(counters: Counters, compensated: FloatArray | None,
                      effort: np.ndarray) -> None:
        """Count the compensated efforts that a limit then clipped (beyond rounding)."""
        if compensated is None:
            return
        with np.errstate(invalid='ignore'):
            clipped = np.abs(effort - compensated) > 1e-9 * (1.0 + np.abs(compensated))
        counters.compensation_clipped += int(np.count_nonzero(clipped))

    # ------------------------------------------------------------------ output
    def sent(self, effort: np.ndarray) -> None:
        """Keep the efforts commanded (torque units); make them currents with ``current``."""
        self.commanded = effort.copy()
        if self.current:
            effort /= self.effort_per_current


class _Play:
    """The play operator on some entries of a vector, with the output it keeps."""

    def __init__(self, width: FloatArray) -> None:
        self.index = np.flatnonzero(width > 0.0)
        self.width = width[self.index]
        self.output = np.full(len(self.index), np.nan)

    def apply(self, position: FloatArray, velocity: FloatArray | None) -> None:
        """Put the dead band into ``position`` (and ``velocity``: 0 inside it) in place."""
        x = position[self.index]
        y = play(self.output, x, self.width)
        self.output = np.where(np.isnan(y), self.output, y)
        position[self.index] = y
        if velocity is not None:
            v = velocity[self.index]
            # the driven side moves with the driving side only where a flank touches and the
            # motion pushes on it
            touching = np.abs(x - y) >= 0.5 * self.width * (1.0 - 1e-12)
            velocity[self.index] = np.where(touching & (v * (x - y) > 0.0) | np.isnan(v), v,
                                            0.0)


class StateBacklash:
    """
    Backlash on the hardware interface's state side: the play operator on positions.

    A motor-side ``<backlash>`` acts on the actuator positions before the map, a joint-side one
    on the joint positions after it: the driven side stays where it is until the driving side
    has crossed the play (:func:`~transmission_plugins.core.drivetrain.play`), and its velocity
    is 0 meanwhile.  Each play starts where the first state puts it.
    """

    def __init__(self, model: RobotDrivetrain) -> None:
        self._actuators = _Play(model.actuator_backlash)
        self._joints = _Play(model.joint_backlash)

    @property
    def needed(self) -> bool:
        """Return True when any joint or actuator has backlash."""
        return bool(len(self._actuators.index) or len(self._joints.index))

    def sources(self, inputs: dict[str, FloatArray]) -> dict[str, FloatArray]:
        """Return the actuator values with the motor-side play (copies where changed)."""
        if not len(self._actuators.index):
            return inputs
        out = dict(inputs)
        out['position'] = inputs['position'].copy()
        if 'velocity' in inputs:
            out['velocity'] = inputs['velocity'].copy()
        self._actuators.apply(out['position'], out.get('velocity'))
        return out

    def targets(self, values: dict[str, FloatArray]) -> None:
        """Apply the joint-side play to the converted joint values, in place."""
        if len(self._joints.index):
            self._joints.apply(values['position'], values.get('velocity'))


def state_backlash(robot: RobotTransmissions) -> StateBacklash | None:
    """Return the state side's backlash for ``robot``, None when it has none."""
    backlash = StateBacklash(robot.drivetrain)
    return backlash if backlash.needed else None


def cycle_drivetrain(robot: RobotTransmissions, states: LatestStates, effort_unit: str = 'torque'
                     ) -> CycleDrivetrain | None:
    """
    Return the drivetrain part of a cycle for ``robot``, None when it has nothing to do.

    :raises TransmissionValueError: as :class:`CycleDrivetrain`
    """
    drivetrain = CycleDrivetrain(robot, states, effort_unit)
    return drivetrain if drivetrain.needed else None


__all__ = ['COOL', 'CycleDrivetrain', 'DERATING', 'EFFORT_UNITS', 'HOT', 'StateBacklash',
           'cycle_drivetrain', 'max_speed', 'state_backlash']
