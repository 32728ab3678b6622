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
The bounds of a joint command beyond its hard limits: soft limits, effort at the limits, rates.

The clamps themselves (and their counts) are in :mod:`~.commands`; this module gives the
bounds, vectorised over the joints, with the semantics of ROS 1's soft-limit handles
(``joint_limits_interface``: ``PositionJointSoftLimitsHandle``, ``VelocityJointSoftLimitsHandle``,
``EffortJointSoftLimitsHandle``) and ros2_control's ``JointSoftLimiter`` and limiter helpers
(``joint_limits``: ``compute_effort_limits``, ``compute_acceleration_limits``); doc/calibration.md
cites them and lists where they differ.  With :math:`q, v` the measured joint position and
velocity, :math:`[l, u]` the position limits, :math:`\bar v, \bar\tau` the velocity and effort
limits, :math:`[s_l, s_u], k_p, k_v` the ``<safety_controller>``:

.. math::

    \underline v = \operatorname{clamp}(-k_p (q - s_l), -\bar v, \bar v), \quad
    \overline v = \operatorname{clamp}(-k_p (q - s_u), -\bar v, \bar v)

    \underline\tau = \operatorname{clamp}(-k_v (v - \underline v), -\bar\tau, \bar\tau), \quad
    \overline\tau = \operatorname{clamp}(-k_v (v - \overline v), -\bar\tau, \bar\tau)

A position command is bounded by :math:`[p + \underline v(p)\,\Delta t, p + \overline v(p)\,
\Delta t] \cap [l, u]` around the previous position command :math:`p` (ROS 1's open loop: the
states arrive a cycle late over a topic), a velocity command by :math:`[\underline v(q),
\overline v(q)]`, an effort command by :math:`[\underline\tau, \overline\tau]`.  The soft
position terms apply when :math:`s_u - s_l > 10^{-10}` and :math:`k_p > 10^{-10}` (ros2_control's
``has_soft_limits``); without them :math:`\underline v, \overline v = \mp\bar v`.

A command never drives a joint further past a hard position limit, whatever fields the
driver reports (ros2_control's ``compute_velocity_limits`` and ``compute_effort_limits``, for
every joint with position limits): a velocity command is bounded by :math:`[\min(0, (l - q)/\Delta
t), \max(0, (u - q)/\Delta t)]`, so that the joint reaches a limit at most in one period and,
beyond it, may only come back or stop; at or beyond a position limit and moving outward, or with
its velocity unknown (:math:`q \ge u`, :math:`v \ge 0` or unknown), no effort pushes further out,
and beyond the velocity limit no effort accelerates further.  Position limits never block an
effort command inside the range.  A position command is within :math:`[l, u]` already (the
hard clamp); when no reference is known yet (no command before, no state yet), a joint with soft
position limits is held within :math:`[s_l, s_u]`.

Acceleration, deceleration and jerk limits (ros2_control's joint_limits parameters) bound the
change of the commanded velocity (of a position command: its implied velocity
:math:`(p' - p)/\Delta t`) from the previous one :math:`v_p`: by :math:`a_{max}\Delta t`, or by
:math:`d_{max}\Delta t` when the change is towards zero (:math:`v_p (v' - v_p) < 0`), and the
change of the implied acceleration from the previous one by :math:`j_{max}\Delta t`.  The
previous velocity is the previous command's, else the measured one, else 0: a joint whose
velocity nobody reports starts from rest, so an unknown velocity is not a free pass.
"""

import math
from typing import Any
from typing import Mapping
from typing import NamedTuple
from typing import Sequence

import numpy as np

from transmission_plugins.core.exceptions import TransmissionValueError
from transmission_plugins.runtime.topology import side_limits

#: below this a soft range or a gain is zero (ros2_control's ``VALUE_CONSIDERED_ZERO``)
ZERO = 1e-10


class JointBounds(NamedTuple):
    """
    Per joint: the hard and soft limits and the rate limits (``inf``/NaN: none).

    The last fields are constants of the others that every cycle would otherwise compute again
    (:func:`joint_bounds` fills them).
    """

    lower: np.ndarray
    upper: np.ndarray
    velocity: np.ndarray
    effort: np.ndarray
    soft_lower: np.ndarray
    soft_upper: np.ndarray
    k_position: np.ndarray
    k_velocity: np.ndarray
    #: the joint has a ``<safety_controller>`` (and soft limits are on)
    safety: np.ndarray
    acceleration: np.ndarray
    deceleration: np.ndarray
    jerk: np.ndarray
    #: the joints whose soft position limits act (ros2_control's rule)
    soft: np.ndarray
    #: ``-k_position``, ``-velocity``, ``-effort``
    negative_k_position: np.ndarray
    negative_velocity: np.ndarray
    negative_effort: np.ndarray
    #: a ``<safety_controller>`` and a finite velocity limit: position commands are bounded
    #: around the previous one
    bounded_position: np.ndarray
    #: a ``<safety_controller>``, finite ``k_velocity`` and effort limits: effort commands are
    #: bounded by the velocity
    bounded_effort: np.ndarray
    #: ``(2, n)``: the soft limits; minus and plus the velocity limit; the lower limit and
    #: ``-inf``; ``inf`` and the upper limit; ``-inf`` and ``inf``
    soft_range: np.ndarray
    velocity_range: np.ndarray
    lower_bound: np.ndarray
    upper_bound: np.ndarray
    open_range: np.ndarray
    #: ``(2, n)``: the position limits; the soft limits within them (``-inf``, ``inf``: none)
    position_range: np.ndarray
    soft_box: np.ndarray
    #: ``(2, n)``: 0 and ``inf``; ``-inf`` and 0 (a velocity bound's caps at the limits)
    zero_high: np.ndarray
    zero_low: np.ndarray

    def soft_position(self) -> np.ndarray:
        """Return the joints whose soft position limits act (ros2_control's rule)."""
        return self.soft


def velocity_bounds(b: JointBounds, q: np.ndarray) -> np.ndarray:
    """
    Return the soft velocity bounds at positions ``q`` (unknown: the velocity limit).

    :returns: ``(2, n)``: the low and the high bounds
    """
    x = np.minimum(np.maximum(b.negative_k_position * (q - b.soft_range), b.negative_velocity),
                   b.velocity)
    return np.where(b.soft & np.isfinite(q), x, b.velocity_range)


def position_bounds(b: JointBounds, ref: np.ndarray, dt: float) -> np.ndarray:
    """
    Return the soft bounds of position commands around ``ref``, ``(2, n)``.

    NaN ``ref`` (no reference yet): the soft limits (joints with soft position limits), else none.
    """
    x = np.minimum(np.maximum(ref + velocity_bounds(b, ref) * dt, b.lower_bound), b.upper_bound)
    known = np.isfinite(ref)
    return np.where(b.bounded_position & known, x, np.where(known, b.open_range, b.soft_box))


def hard_velocity_bounds(b: JointBounds, q: np.ndarray, dt: float) -> np.ndarray:
    r"""
    Return the bounds of velocity commands at positions ``q`` by the position limits, ``(2, n)``.

    :math:`[\min(0, (l - q)/\Delta t), \max(0, (u - q)/\Delta t)]` (unknown ``q``: none).
    """
    x = (b.position_range - q) / dt
    x = np.maximum(np.minimum(x, b.zero_high), b.zero_low)
    return np.where(np.isfinite(q), x, b.open_range)


def soft_effort_bounds(b: JointBounds, q: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Return the ``k_velocity`` bounds of effort commands (unknown velocity: none), ``(2, n)``."""
    x = np.minimum(np.maximum(-b.k_velocity * (v - velocity_bounds(b, q)), b.negative_effort),
                   b.effort)
    return np.where(b.bounded_effort & np.isfinite(v), x, b.open_range)


def limit_effort_bounds(b: JointBounds, q: np.ndarray, v: np.ndarray
                        ) -> tuple[np.ndarray, np.ndarray]:
    """
    Return the bounds of effort commands at the position and velocity limits (0 or none).

    An unknown velocity may be outward: at or beyond a limit, no effort pushes further out.
    """
    unknown = ~np.isfinite(v)
    no_lower = (((q <= b.lower) & (unknown | (v <= 0.0))) | (v < b.negative_velocity))
    no_upper = (((q >= b.upper) & (unknown | (v >= 0.0))) | (v > b.velocity)) & ~no_lower
    return np.where(no_lower, 0.0, -np.inf), np.where(no_upper, 0.0, np.inf)


class RateLimited(NamedTuple):
    """Velocities after the rate limits, and which joints each limit changed."""

    velocity: np.ndarray
    acceleration: np.ndarray
    deceleration: np.ndarray
    jerk: np.ndarray


def rate_limit(b: JointBounds, desired: np.ndarray, previous: np.ndarray,
               previous_acceleration: np.ndarray, dt: float) -> RateLimited:
    """
    Bound the change of commanded velocities (module docstring).

    :param desired: the velocities asked for (NaN: none)
    :param previous: the previous commanded velocities (NaN: none, no rate limit)
    :param previous_acceleration: the previous implied accelerations (NaN: taken as 0)
    """
    with np.errstate(invalid='ignore', over='ignore'):
        change = desired - previous
        decelerating = ((previous > 0.0) & (change < 0.0)) | ((previous < 0.0) & (change > 0.0))
        use_dec = decelerating & np.isfinite(b.deceleration)
        limit = np.where(use_dec, b.deceleration, b.acceleration) * dt
        clipped = np.clip(change, -limit, limit)
        changed = np.isfinite(change) & (np.abs(change) > limit * (1.0 + 1e-12))
        v1 = np.where(np.isfinite(change), previous + clipped, desired)
        a_prev = np.where(np.isfinite(previous_acceleration), previous_acceleration, 0.0)
        a1 = (v1 - previous) / dt
        step = b.jerk * dt
        a2 = a_prev + np.clip(a1 - a_prev, -step, step)
        jerked = np.isfinite(change) & (np.abs(a1 - a_prev) > step * (1.0 + 1e-12))
        v2 = np.where(jerked, previous + a2 * dt, v1)
    return RateLimited(v2, changed & ~use_dec, changed & use_dec, jerked)


#: ros2_control's joint_limits parameters read per joint (``joint_limits.<joint>.<key>``): the
#: switch and the limit of each rate limit
RATE_LIMIT_KEYS = (('has_acceleration_limits', 'max_acceleration'),
                   ('has_deceleration_limits', 'max_deceleration'),
                   ('has_jerk_limits', 'max_jerk'))
#: every key, with its default (as ros2_control declares them: off, and 0)
JOINT_LIMIT_PARAMETERS = {key: default for pair in RATE_LIMIT_KEYS
                          for key, default in zip(pair, (False, 0.0))}


def rate_limits(joint_names: Sequence[str], values: Mapping[str, Mapping[str, Any]]
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """
    Return the acceleration, deceleration and jerk limits per joint (``inf``/NaN: none).

    :param values: ``{joint: {key: value}}`` of the ``joint_limits.<joint>.<key>`` parameters
        (:data:`JOINT_LIMIT_PARAMETERS`); a deceleration limit that is not given is NaN (the
        acceleration limit applies)
    :raises TransmissionValueError: an unknown joint or key, a value of the wrong type, or a
        limit that is switched on and not > 0 (naming the parameter and the value)
    """
    index = {n: i for i, n in enumerate(joint_names)}
    out = [np.full(len(joint_names), np.inf), np.full(len(joint_names), np.nan),
           np.full(len(joint_names), np.inf)]
    for joint, keys in values.items():
        if joint not in index:
            raise TransmissionValueError(f'joint_limits.{joint}', dict(keys),
                                         f'a joint of the robot ({list(joint_names)[:10]})')
        for key, value in keys.items():
            name = f'joint_limits.{joint}.{key}'
            if key not in JOINT_LIMIT_PARAMETERS:
                raise TransmissionValueError(name, value, 'one of the keys '
                                             f'{", ".join(JOINT_LIMIT_PARAMETERS)}')
            if isinstance(JOINT_LIMIT_PARAMETERS[key], bool) != isinstance(value, bool):
                raise TransmissionValueError(name, value, 'true or false' if key.startswith(
                    'has_') else 'a number')
        for k, (switch, limit) in enumerate(RATE_LIMIT_KEYS):
            if not keys.get(switch, False):
                continue
            value = keys.get(limit, 0.0)
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0.0):
                raise TransmissionValueError(f'joint_limits.{joint}.{limit}', value,
                                             f'a finite number > 0 ({switch} is true)')
            out[k][index[joint]] = float(value)
    return out[0], out[1], out[2]


def joint_bounds(robot: Any, rates: tuple[np.ndarray, np.ndarray, np.ndarray],
                 soft_limits: bool = True) -> JointBounds:
    """Return the bounds of ``robot``'s joints with the rate limits ``rates`` (module doc)."""
    hard = side_limits(robot, 'joint')
    soft = getattr(robot, 'joint_soft_limits', None)
    soft = (np.full((len(robot.joint_names), 4), np.nan) if soft is None
            else np.asarray(soft, dtype=np.float64).reshape(-1, 4))
    safety = ~np.isnan(soft[:, 0]) & bool(soft_limits)
    with np.errstate(invalid='ignore'):
        acting = (safety & np.isfinite(hard.lower) & np.isfinite(hard.upper)
                  & (soft[:, 1] - soft[:, 0] > ZERO) & (soft[:, 2] > ZERO)
                  & np.isfinite(hard.velocity))
    return JointBounds(hard.lower, hard.upper, hard.velocity, hard.effort, soft[:, 0],
                       soft[:, 1], soft[:, 2], soft[:, 3], safety, *rates, acting,
                       -soft[:, 2], -hard.velocity, -hard.effort,
                       safety & np.isfinite(hard.velocity),
                       safety & np.isfinite(soft[:, 3]) & np.isfinite(hard.effort),
                       soft[:, :2].T.copy(), np.stack([-hard.velocity, hard.velocity]),
                       np.stack([hard.lower, np.full_like(hard.lower, -np.inf)]),
                       np.stack([np.full_like(hard.upper, np.inf), hard.upper]),
                       np.stack([np.full_like(hard.lower, -np.inf),
                                 np.full_like(hard.upper, np.inf)]),
                       np.stack([hard.lower, hard.upper]),
                       np.where(acting, np.stack([np.maximum(soft[:, 0], hard.lower),
                                                  np.minimum(soft[:, 1], hard.upper)]),
                                np.stack([np.full_like(hard.lower, -np.inf),
                                          np.full_like(hard.upper, np.inf)])),
                       np.stack([np.zeros_like(hard.lower), np.full_like(hard.upper, np.inf)]),
                       np.stack([np.full_like(hard.lower, -np.inf), np.zeros_like(hard.upper)]))
