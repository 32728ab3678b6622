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
The demo's scripted joint targets: minimum-jerk moves the robot's own limits allow, then holds.

Each joint moves inside its *window*: its position limits, narrowed to its soft limits where
its ``<safety_controller>`` has them (the hardware interface holds a command there, so a target
beyond them is never reached), and, for a joint too slow to cross it in :data:`MAX_MOVE_TIME`
at :data:`VELOCITY_SHARE` of its velocity limit, a part of it around the joint's start (the
PR2's torso: 0.013 m/s).  A joint without position limits moves within
:data:`UNBOUNDED_SPAN` around its start.  The targets are :data:`WAYPOINTS` (fractions of the
window), visited in a loop after a first move from where the robot stands.

A minimum-jerk move of :math:`d` in :math:`T` peaks at :math:`1.875\,d/T`; each move takes
:data:`MOVE_TIME`, or longer when a joint needs it to stay within :data:`VELOCITY_SHARE` of its
velocity limit, then the targets are held for :data:`HOLD_TIME`.
"""

import math
from typing import Sequence

import numpy as np

#: the shortest move, seconds
MOVE_TIME = 1.5
#: the longest move of the loop, seconds (a slow joint's window shrinks to fit it)
MAX_MOVE_TIME = 4.0
#: the hold after each move, seconds (the demo checks the tracking at its end)
HOLD_TIME = 1.0
#: the share of a joint's velocity limit its moves may reach
VELOCITY_SHARE = 0.5
#: the peak speed of a minimum-jerk move, in distance over time
PEAK = 1.875
#: targets as fractions of each joint's window (0 = its lower end, 1 = its upper end)
WAYPOINTS = [
    [0.50, 0.50, 0.50, 0.50, 0.50, 0.50],
    [0.70, 0.35, 0.75, 0.60, 0.30, 0.90],
    [0.30, 0.60, 0.30, 0.35, 0.80, 0.20],
    [0.55, 0.45, 0.65, 0.70, 0.50, 0.60],
    [0.40, 0.55, 0.40, 0.45, 0.20, 0.05],
]
#: the window of a joint without position limits (a continuous joint), rad around its start
UNBOUNDED_SPAN = 2.0
#: below this a soft range or gain is none (ros2_control's ``VALUE_CONSIDERED_ZERO``)
ZERO = 1e-10


def smooth(s: float) -> float:
    """Return the minimum-jerk blend of ``s`` in [0, 1]."""
    s = min(max(s, 0.0), 1.0)
    return s * s * s * (10.0 - 15.0 * s + 6.0 * s * s)


def joint_windows(lower: Sequence[float], upper: Sequence[float], soft: np.ndarray
                  ) -> list[tuple[float, float]]:
    """
    Return each joint's range for targets: its limits, narrowed to its soft limits.

    :param soft: ``(soft_lower, soft_upper, k_position, k_velocity)`` rows (NaN: none), as
        ``RobotTransmissions.joint_soft_limits``; they apply where the joint has position limits,
        a soft range and a position gain (ros2_control's ``has_soft_limits``)
    :returns: ``(lower, upper)`` per joint, infinite where it has no position limits
    """
    out = []
    for lo, hi, (s_lo, s_hi, k_p, _) in zip(lower, upper, soft):
        lo, hi = float(lo), float(hi)
        if math.isfinite(lo) and math.isfinite(hi) and s_hi - s_lo > ZERO and k_p > ZERO:
            lo, hi = max(lo, float(s_lo)), min(hi, float(s_hi))
        out.append((lo, hi))
    return out


class Script:
    """
    The scripted joint targets (module docstring): a first move from ``start``, then a loop.

    :param joints: the commanded joints
    :param windows: each joint's range (:func:`joint_windows`)
    :param velocity: each joint's velocity limit (not finite or <= 0: none)
    :param start: each joint's measured position when the script starts
    """

    def __init__(self, joints: Sequence[str], windows: Sequence[tuple[float, float]],
                 velocity: Sequence[float], start: Sequence[float]) -> None:
        self.joints = list(joints)
        fractions = np.array([[w[i % len(w)] for i in range(len(self.joints))]
                              for w in WAYPOINTS])
        steps = np.abs(fractions - np.roll(fractions, -1, axis=0)).max(axis=0)
        self.speed = np.array([v * VELOCITY_SHARE if math.isfinite(v) and v > 0.0 else math.inf
                               for v in velocity])
        #: the range each joint's targets span, after the slow joints' narrowing
        self.window: list[tuple[float, float]] = []
        for (lo, hi), speed, step, q in zip(windows, self.speed, steps, start):
            width = hi - lo if math.isfinite(lo) and math.isfinite(hi) else UNBOUNDED_SPAN
            width = min(width, speed * MAX_MOVE_TIME / (PEAK * step))
            centre = q if math.isfinite(q) else (lo + hi) / 2.0
            centre = min(max(centre, lo + width / 2.0), hi - width / 2.0)
            self.window.append((centre - width / 2.0, centre + width / 2.0))
        low = np.array([w[0] for w in self.window])
        high = np.array([w[1] for w in self.window])
        #: the targets of the loop, one row per waypoint
        self.points = low + fractions * (high - low)
        start_q = np.array([q if math.isfinite(q) else p
                            for q, p in zip(start, self.points[-1])], dtype=np.float64)
        #: the first move, from ``start`` to the first waypoint: (from, to, move time)
        self.first = (start_q, self.points[0], self.move_time(start_q, self.points[0]))
        n = len(self.points)
        #: the loop's moves: (from, to, move time)
        self.loop = [(self.points[i], self.points[(i + 1) % n],
                      self.move_time(self.points[i], self.points[(i + 1) % n]))
                     for i in range(n)]
        self.loop_ends = np.cumsum([m + HOLD_TIME for _, _, m in self.loop])

    def move_time(self, a: np.ndarray, b: np.ndarray) -> float:
        """Return the time of a move from ``a`` to ``b`` (module docstring)."""
        with np.errstate(invalid='ignore', divide='ignore'):
            need = PEAK * np.abs(b - a) / self.speed
        need = need[np.isfinite(need)]
        return max(MOVE_TIME, float(need.max()) if need.size else 0.0)

    def _segment(self, k: int) -> tuple[float, tuple[np.ndarray, np.ndarray, float]]:
        """Return the start time and the move of segment ``k`` (0: the first move)."""
        first_end = self.first[2] + HOLD_TIME
        if k == 0:
            return 0.0, self.first
        laps, i = divmod(k - 1, len(self.loop))
        begin = first_end + laps * float(self.loop_ends[-1]) + (
            float(self.loop_ends[i - 1]) if i else 0.0)
        return begin, self.loop[i]

    def segment_at(self, t: float) -> int:
        """Return the segment under way at ``t`` seconds into the script."""
        first_end = self.first[2] + HOLD_TIME
        if t < first_end:
            return 0
        laps, rest = divmod(t - first_end, float(self.loop_ends[-1]))
        return 1 + int(laps) * len(self.loop) + int(np.searchsorted(self.loop_ends, rest,
                                                                    side='right'))

    def target(self, t: float) -> list[float]:
        """Return the commanded positions at ``t`` seconds into the script (it loops)."""
        begin, (a, b, move) = self._segment(self.segment_at(t))
        s = smooth((t - begin) / move)
        return [float(x + s * (y - x)) for x, y in zip(a, b)]

    def hold_end(self, k: int) -> float:
        """Return the time at which the hold of segment ``k`` ends."""
        begin, (_, _, move) = self._segment(k)
        return begin + move + HOLD_TIME

    def segment_start(self, k: int) -> float:
        """Return the time at which segment ``k`` (its move) starts."""
        return self._segment(k)[0]
