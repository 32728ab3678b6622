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
The series-elastic transmissions' part of the hardware interface's cycle (doc/nodes.md).

Every number comes from :class:`~transmission_plugins.SeriesElasticTransmission`'s own methods
(``motor_position_target``, ``deflection``, ``deflection_for_torque``); this module decides at
configure, from the robot's data, whether a cycle has anything to do (:func:`cycle_series_elastic`
returns None for a robot without one, whose cycle then does exactly what it did before), and
keeps what a cycle carries over: the motor position targets sent last (held on a timeout).

* **Commands** (:meth:`CycleSeriesElastic.motor_commands`): a joint effort command
  :math:`\tau` (already clamped to the joint's limits) becomes the motor *position* target
  :math:`\theta_m = n(q - q_0 + s^{-1}(\tau))`, at the commanded joint position when the joint
  has one (the position target plus the deflection that carries :math:`\tau`), else at the
  measured one (fresh; unknown or stale: nothing is sent, counted).  The motor gets no effort.
  Actuators that take no command (the joint-side encoders) get nothing
  (:meth:`CycleSeriesElastic.finish`).
* **Limits** (:meth:`CycleSeriesElastic.widen`): the motor's position range is widened, once,
  by the deflection that the joint's effort limit allows, so that the clamp to the motor's
  range never takes away the deflection of an allowed effort.
* **Deflections** (:meth:`CycleSeriesElastic.output`): the ``joint_deflections`` message.
"""

import math
from typing import NamedTuple

import numpy as np

from transmission_plugins.core.checks import FloatArray
from transmission_plugins.robot.robot_transmissions import RobotTransmissions
from transmission_plugins.runtime.states import LatestStates
from transmission_plugins.runtime.states import StateOutput
from transmission_plugins.runtime.topology import side_limits
from transmission_plugins.transmissions.series_elastic_transmission import ENCODER
from transmission_plugins.transmissions.series_elastic_transmission import MOTOR
from transmission_plugins.transmissions.series_elastic_transmission import \
    SeriesElasticTransmission

__all__ = ['CycleSeriesElastic', 'Spring', 'cycle_series_elastic']


class Spring(NamedTuple):
    """One series-elastic transmission with its robot-wide indices."""

    name: str
    #: its index in the robot's transmissions (URDF order)
    group: int
    transmission: SeriesElasticTransmission
    joint: int
    motor: int
    encoder: int


class CycleSeriesElastic:
    """
    What a hardware interface cycle does with the series-elastic transmissions (module doc).

    :param robot: the robot (its transmissions, joint limits, ``commanded_actuators``)
    :param states: the cycle's state side (the measured joint positions and their freshness)
    """

    def __init__(self, robot: RobotTransmissions, states: LatestStates) -> None:
        self._states = states
        self.counters = states.counters
        springs = []
        for g, (t, b) in enumerate(zip(robot.transmissions, robot.maps.blocks)):
            if isinstance(t.transmission, SeriesElasticTransmission):
                springs.append(Spring(t.name, g, t.transmission, int(b.joints[0]),
                                      int(b.actuators[MOTOR]), int(b.actuators[ENCODER])))
        #: the series-elastic transmissions, URDF order
        self.springs: list[Spring] = springs
        self.joints = np.array([s.joint for s in springs], dtype=np.intp)
        self.motors = np.array([s.motor for s in springs], dtype=np.intp)
        #: the names of their joints (the ``joint_deflections`` names)
        self.joint_names = [robot.joint_names[j] for j in self.joints.tolist()]
        #: per joint of the robot: its effort comes from its actuators' motion (a spring)
        self.joint_mask = np.zeros(len(robot.joint_names), dtype=bool)
        self.joint_mask[self.joints] = True
        #: the actuators sent nothing (``robot.commanded_actuators`` False: the encoders)
        self.silent = np.flatnonzero(~np.asarray(robot.commanded_actuators, dtype=bool))
        #: the motor position targets of the last cycle (NaN: none), held on a timeout
        self.last_target = np.full(len(springs), np.nan)
        #: per cycle and joint, effort commands that sent nothing: the joint position was
        #: unknown or stale
        self.unmeasured = 0
        limits = side_limits(robot, 'joint')
        #: per spring, the lowest and highest motor position target the joint's position and
        #: effort limits allow (infinite where a limit is)
        self.motor_range = np.array([self._motor_range(s.transmission, limits.lower[s.joint],
                                                       limits.upper[s.joint],
                                                       limits.effort[s.joint])
                                     for s in springs]).reshape(-1, 2)

    @staticmethod
    def _motor_range(t: SeriesElasticTransmission, lower: float, upper: float,
                     effort: float) -> tuple[float, float]:
        """Return the motor targets' range over the joint's position and effort limits."""
        with np.errstate(invalid='ignore'):   # an unbounded joint: inf - inf, unbounded
            corners = [float(t.motor_position_target([q], [tau])[0])
                       for q in (lower, upper) for tau in (-effort, effort)]
        if not all(math.isfinite(c) for c in corners):
            return -math.inf, math.inf
        return min(corners), max(corners)

    def deflection_limits(self, spring: Spring) -> tuple[float, float] | None:
        """Return the spring table's deflection range (None: a linear spring, no range)."""
        table = spring.transmission.spring_table()
        return None if table is None else (table[0][0], table[0][-1])

    # ------------------------------------------------------------------ commands
    def widen(self, lower: np.ndarray, upper: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """
        Return actuator bounds ``(3, na)`` whose motor position rows hold :attr:`motor_range`.

        The union of both: the motor's range only grows, by the deflection of the joint's
        effort limit (a position command alone stays within the joint limits times n: it is
        clamped on the joint side first).
        """
        lower, upper = lower.copy(), upper.copy()
        lower[0, self.motors] = np.minimum(lower[0, self.motors], self.motor_range[:, 0])
        upper[0, self.motors] = np.maximum(upper[0, self.motors], self.motor_range[:, 1])
        return lower, upper

    def motor_commands(self, block: np.ndarray, out: np.ndarray, now: float) -> None:
        """
        Make the springs' joint effort commands motor position targets, in place.

        :param block: the joint commands (position, velocity, effort rows), clamped
        :param out: the actuator commands converted from them (rows alike)
        """
        out[2, self.motors] = np.nan     # the motor takes a deflection target, not an effort
        tau = block[2, self.joints]
        given = np.isfinite(tau)
        if not given.any():
            return
        states = self._states
        fresh = states.fresh_targets(states.fresh(now))[self.joints]
        measured = np.where(fresh, states.last_position[self.joints], np.nan)
        commanded = block[0, self.joints]
        q = np.where(np.isfinite(commanded), commanded, measured)
        for k in np.flatnonzero(given).tolist():
            spring = self.springs[k]
            if not math.isfinite(q[k]):
                out[:, spring.motor] = np.nan
                self.unmeasured += 1
                continue
            with np.errstate(over='ignore', invalid='ignore'):   # a huge effort: inf, dropped
                target = float(spring.transmission.motor_position_target([q[k]], [tau[k]])[0])
            if math.isfinite(target):
                out[0, spring.motor] = target
            else:
                out[:, spring.motor] = np.nan
                self.counters.non_finite_outputs += 1

    def finish(self, out: np.ndarray) -> None:
        """Send the encoders nothing; keep the motor position targets (held on a timeout)."""
        out[:, self.silent] = np.nan
        self.last_target = out[0, self.motors].copy()

    def hold(self, held: np.ndarray, expired: np.ndarray) -> None:
        """
        Hold the motors of newly ``expired`` joints at their last position targets.

        Else (no position target last cycle) where they were measured, as every actuator.
        """
        target = self.last_target
        use = expired[self.joints] & np.isfinite(target)
        held[self.motors] = np.where(use, target, held[self.motors])

    def reset(self) -> None:
        """Forget the targets (commands forgotten: activation)."""
        self.last_target[:] = np.nan

    # ------------------------------------------------------------------ deflections
    def measure(self, now: float) -> tuple[np.ndarray, FloatArray, FloatArray, FloatArray]:
        """
        Return which springs are measured now and their deflection, its rate and the torque.

        A spring is measured when its actuators are fresh with finite positions and velocities
        and its joint is not hidden (calibration); its torque is the joint effort that
        ``joint_states`` converted.  The deflection is linear in the actuator positions, without
        an offset, so the deflection of the velocities is its rate.
        """
        states = self._states
        position, velocity = states.state['position'], states.state['velocity']
        fresh = states.fresh(now)
        n = len(self.springs)
        deflection, rate = np.full(n, np.nan), np.full(n, np.nan)
        for k, s in enumerate(self.springs):
            pair = [s.motor, s.encoder]
            if not fresh[pair].all():
                continue
            deflection[k] = float(s.transmission.deflection(position[pair])[0])
            rate[k] = float(s.transmission.deflection(velocity[pair])[0])
        torque = states.last_effort[self.joints]
        ok = np.isfinite(deflection) & np.isfinite(rate) & np.isfinite(torque)
        if states.hidden is not None:
            ok &= ~states.hidden[self.joints]
        return ok, deflection, rate, torque

    def output(self, now: float) -> StateOutput | None:
        """Return the ``joint_deflections`` message now (None: no spring is measured)."""
        ok, deflection, rate, torque = self.measure(now)
        if ok.all():
            return StateOutput(self.joint_names, deflection, rate, torque)
        if not ok.any():
            return None
        names = [n for n, k in zip(self.joint_names, ok.tolist()) if k]
        return StateOutput(names, deflection[ok], rate[ok], torque[ok])


def cycle_series_elastic(robot: RobotTransmissions, states: LatestStates
                         ) -> CycleSeriesElastic | None:
    """
    Return the series-elastic part of a cycle for ``robot``.

    None when it has no spring and every actuator takes commands: nothing to do.
    """
    if not any(isinstance(t.transmission, SeriesElasticTransmission)
               for t in robot.transmissions) and bool(np.all(robot.commanded_actuators)):
        return None
    return CycleSeriesElastic(robot, states)
