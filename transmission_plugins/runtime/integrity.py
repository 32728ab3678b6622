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
Motor and joint encoders of one transmission, compared through its map.

Where the joints a transmission's map reads are named in ``absolute_encoders``, their readings
on ``absolute_positions`` and the motors' positions in ``actuator_states`` measure the same
joints twice: :math:`q_{enc}` and :math:`f(\theta)`.  They agree within a tolerance per joint
(:meth:`EncoderPairs.tolerance`):

.. math:: \epsilon_j = n\,(r_j + \textstyle\sum_a |J_{ja}|\, r_a) + b_j
          + \textstyle\sum_a |J_{ja}|\, b_a + |\dot q_j|\, \Delta t

with :math:`n` = :data:`COUNTS` counts of the joint and motor encoder resolutions :math:`r`
(``joint_encoder_resolution``, ``motor_encoder_resolution``; or ``integrity_tolerance`` in place
of the first term), :math:`J` the map's Jacobian, :math:`b` the backlash widths of the
drivetrain (``<backlash>``: the dead band lets the link move on its own), and the joint speed
times the time between the motor state and the reading.

* **The watch** (:meth:`EncoderPairs.check`): a calibrated transmission whose joint readings
  disagree beyond the tolerance in :data:`CONFIRM` consecutive readings has slipped (a belt or a
  pulley skipped, a lost calibration); one reading alone is a glitch, counted.
* **The turn** (:meth:`EncoderPairs.turns`): a motor with a single-turn absolute encoder
  (``single_turn_motor_encoders``) reports its position right up to whole turns after a power
  cycle; the joint readings pick the turn, which is unique when one turn of any combination of
  the transmission's motors moves a joint by more than twice its tolerance (checked at configure
  by :meth:`EncoderPairs.check_turns_unique`).
"""

import math
from typing import Any
from typing import NamedTuple

import numpy as np

from transmission_plugins.core.exceptions import TransmissionValueError

#: one turn of a motor, in its units (rad)
TURN = 2.0 * math.pi
#: the default resolution of a joint encoder: 12 bits per turn (rad, or m for a linear one)
JOINT_RESOLUTION = TURN / 4096
#: the default resolution of a motor encoder: 14 bits per turn (rad)
MOTOR_RESOLUTION = TURN / 16384
#: how many counts of each resolution the readings may differ by (rounding, the two encoders
#: sampled a little apart)
COUNTS = 4
#: consecutive readings beyond the tolerance that make a slip (one alone is a glitch)
CONFIRM = 2
#: the most turns tried per motor when the turn uniqueness is checked
MAX_TURNS = 20


class Disagreement(NamedTuple):
    """One comparison of a transmission's joint readings with its motors."""

    #: the joints compared (robot indices)
    joints: np.ndarray
    #: joint reading minus the joint position mapped from the motors, per joint
    difference: np.ndarray
    #: the tolerance per joint
    tolerance: np.ndarray

    def beyond(self) -> bool:
        """Return True when any joint disagrees beyond its tolerance (or is not a number)."""
        with np.errstate(invalid='ignore'):
            return not bool(np.all(np.abs(self.difference) <= self.tolerance))


class EncoderPairs:
    """
    The transmissions with joint readings and the comparison of those with their motors.

    :param robot: the ``RobotTransmissions``
    :param topology: its index groups
    :param watched: transmission index -> the robot indices of the joints read (the map's)
    :param tolerance: the reading tolerance per joint, rad or m (<= 0: from ``joint_resolution``)
    :param joint_resolution: one count of a joint encoder, rad or m
    :param motor_resolution: one count of a motor encoder, rad (m)
    """

    def __init__(self, robot: Any, topology: Any, watched: dict[int, list[int]],
                 tolerance: float, joint_resolution: float, motor_resolution: float) -> None:
        self.robot = robot
        self.topology = topology
        self.watched = watched
        reading = tolerance if tolerance > 0.0 else COUNTS * joint_resolution
        drivetrain = robot.drivetrain
        #: per transmission: the tolerance per joint read, without the speed term
        self._static: dict[int, np.ndarray] = {}
        for k, joints in watched.items():
            g = topology.groups[k]
            jac = np.abs(self._jacobian(k, self._rest(k)))
            local = self._local(k, joints)
            self._static[k] = (reading + COUNTS * motor_resolution * jac.sum(axis=1)[local]
                               + drivetrain.joint_backlash[joints]
                               + (jac @ drivetrain.actuator_backlash[g.actuators])[local])
        #: per transmission: consecutive readings beyond the tolerance
        self.streak = dict.fromkeys(watched, 0)
        #: per transmission: lone readings beyond the tolerance (glitches)
        self.glitches = dict.fromkeys(watched, 0)
        #: per transmission: the latest comparison (None: none yet)
        self.latest: dict[int, Disagreement | None] = dict.fromkeys(watched)

    def _local(self, k: int, joints: list[int]) -> list[int]:
        """Return the positions of robot joints ``joints`` in transmission ``k``'s joints."""
        order = self.topology.groups[k].joints.tolist()
        return [order.index(j) for j in joints]

    def _rest(self, k: int) -> np.ndarray:
        """Return transmission ``k``'s actuator positions at the robot's default pose."""
        g = self.topology.groups[k]
        q = self.robot.default_joint_position()[g.joints]
        out = g.transmission.transmission.joint_to_actuator({'position': q[None, :]})
        return np.asarray(out['position'], dtype=np.float64)[0]

    def _jacobian(self, k: int, theta: np.ndarray) -> np.ndarray:
        """Return ``dq/dtheta`` of transmission ``k`` at actuator positions ``theta``."""
        t = self.topology.groups[k].transmission.transmission
        return np.asarray(t.actuator_to_joint_jacobian(theta), dtype=np.float64)

    def tolerance(self, k: int, joints: list[int], speed: np.ndarray, skew: float
                  ) -> np.ndarray:
        """Return the tolerance of ``joints`` of transmission ``k`` at joint ``speed``s."""
        local = self._local(k, list(self.watched[k]))
        static = self._static[k][[local.index(i) for i in self._local(k, joints)]]
        return static + np.nan_to_num(np.abs(speed)) * max(skew, 0.0)

    def compare(self, k: int, joints: list[int], readings: np.ndarray, theta: np.ndarray,
                theta_dot: np.ndarray, skew: float) -> Disagreement:
        """
        Compare joint ``readings`` of transmission ``k`` with its actuator positions.

        :param joints: the robot indices of the joints read (a subset of ``watched[k]``)
        :param theta: the transmission's calibrated actuator positions
        :param theta_dot: their velocities (NaN: unknown, taken as 0)
        :param skew: seconds between the actuator state and the readings
        """
        t = self.topology.groups[k].transmission.transmission
        mapped = t.actuator_to_joint({'position': theta[None, :],
                                      'velocity': np.nan_to_num(theta_dot)[None, :]})
        local = self._local(k, joints)
        q = np.asarray(mapped['position'], dtype=np.float64)[0, local]
        speed = np.asarray(mapped['velocity'], dtype=np.float64)[0, local]
        return Disagreement(np.asarray(joints), np.asarray(readings, dtype=np.float64) - q,
                            self.tolerance(k, joints, speed, skew))

    def check(self, k: int, found: Disagreement) -> bool:
        """
        Count comparison ``found`` of transmission ``k``; return True when it confirms a slip.

        :data:`CONFIRM` consecutive disagreeing readings make a slip; a lone one is a glitch.
        """
        self.latest[k] = found
        if not found.beyond():
            if self.streak[k]:
                self.glitches[k] += 1
            self.streak[k] = 0
            return False
        self.streak[k] += 1
        return self.streak[k] >= CONFIRM

    # ------------------------------------------------------------------ the turn
    def motor_tolerance(self, k: int) -> np.ndarray:
        """Return what the joint readings' tolerance is at transmission ``k``'s actuators."""
        g = self.topology.groups[k]
        t = g.transmission.transmission
        q = self.robot.default_joint_position()[g.joints]
        inverse = np.abs(np.asarray(t.joint_to_actuator_jacobian(q), dtype=np.float64))
        local = self._local(k, list(self.watched[k]))
        return inverse[:, local] @ self._static[k]

    def check_turns_unique(self, k: int, names: list[str]) -> None:
        """
        Check that transmission ``k``'s joint readings tell the turn of motors ``names``.

        :raises TransmissionValueError: a nonlinear map, or a combination of turns that moves
            the joints read by less than twice their tolerance
        """
        g = self.topology.groups[k]
        t = g.transmission
        if not t.transmission.is_linear():
            raise TransmissionValueError(
                'single_turn_motor_encoders', names, 'actuators of linear transmissions '
                f'({t.name!r} is nonlinear: the turn is not a fixed joint motion)')
        cols = [list(t.actuator_names).index(n) for n in names]
        local = self._local(k, list(self.watched[k]))
        moves = turn_moves(t.transmission.linear_map()[0][local], cols)
        with np.errstate(invalid='ignore'):
            close = np.all(moves < 2.0 * self._static[k][None, :], axis=1)
        if close.any():
            one = moves[close][np.argmin(moves[close].max(axis=1))]   # the smallest
            raise TransmissionValueError(
                'single_turn_motor_encoders', names,
                f'motors whose turn the joint encoders tell: a turn of transmission {t.name!r} '
                f'moves the joints read by {np.round(one, 6).tolist()}, within twice their '
                f'tolerance {np.round(self._static[k], 6).tolist()} (a finer joint encoder, or '
                'a smaller integrity_tolerance)')

    def turns(self, k: int, predicted: np.ndarray, stored: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray]:
        """
        Return the whole turns that bring ``stored`` actuator positions to ``predicted``.

        :param predicted: the actuator positions the joint readings give (through the map)
        :param stored: the actuator positions with the stored offsets
        :returns: ``(turns, residual)``: per actuator, and what is left after the turns
        """
        n = np.round((predicted - stored) / TURN)
        return n, stored + TURN * n - predicted


def turn_moves(kmat: np.ndarray, cols: list[int]) -> np.ndarray:
    """
    Return the joint motion of every combination of whole turns of actuators ``cols``.

    :param kmat: ``dq/dtheta`` rows of the joints of interest
    :returns: ``(combinations, joints)``, absolute values, the combination of no turn left out
    """
    steps = np.array(np.meshgrid(*[np.arange(-MAX_TURNS, MAX_TURNS + 1)] * len(cols)))
    steps = steps.reshape(len(cols), -1).T
    steps = steps[np.any(steps != 0, axis=1)]
    return np.abs(steps @ np.asarray(kmat)[:, cols].T * TURN)
