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
Joint limits seen from the actuators (and actuator effort limits seen from the joints).

At a given position, velocity and effort maps are linear in the velocity or effort.  For an
actuator :math:`a` whose velocity is :math:`\dot\theta_a = \sum_j K_{aj}\dot q_j`
(:math:`K = \partial\theta/\partial q`), the largest :math:`|\dot\theta_a|` over the box
:math:`|\dot q_j| \le \bar v_j` is

.. math::

    \bar{\dot\theta}_a = \sum_j |K_{aj}|\,\bar v_j

(a corner of the box), and likewise :math:`\bar u_a = \sum_j |J_{ja}|\,\bar\tau_j` for efforts,
since :math:`u = J^T\tau` (:func:`~.effort_limits.joint_to_actuator_effort_limit`,
:func:`~.effort_limits.box_bound`).
A zero coefficient contributes nothing even when the joint has no limit (:math:`0 \cdot \infty =
0` here).  For nonlinear transmissions the coefficients depend on the position: they are
evaluated on a grid of the joint position box (:func:`joint_samples`: :data:`SAMPLES` points
along each joint the joint-to-actuator maps read, fewer when more than two) and the **largest**
bound is kept (samples where the map is not finite are ignored).  :func:`envelope` gives the
bounds at each position: the position-dependent velocity and effort envelopes.  The result
is the largest actuator velocity or effort that a motion or load inside the joint limits can
demand; it does not guarantee that the joint limits hold.  No limit is ever NaN: a bound the
arithmetic cannot tell (:math:`\infty - \infty` when a reduction such as ``1e308`` overflows the
maps) is no bound (``-inf`` / ``inf``).
"""

import math
from typing import Any
from typing import NamedTuple

import numpy as np

from transmission_plugins.core.flat_description import FlatDescription
from transmission_plugins.core.flat_description import SparseMatrix
from transmission_plugins.core.transmission import Transmission
from transmission_plugins.robot.effort_limits import actuator_to_joint_effort_limit
from transmission_plugins.robot.effort_limits import box_bound
from transmission_plugins.robot.effort_limits import joint_to_actuator_effort_limit

#: Number of joint positions at which nonlinear maps are evaluated.
SAMPLES = 33


def joint_samples(tr: Transmission, lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
    r"""
    Return joint positions ``(S, M)`` at which to evaluate a transmission's maps.

    Linear maps do not depend on the position: one sample (the box centre).  Nonlinear ones get
    a grid over the joints their joint-to-actuator maps read
    (:meth:`~transmission_plugins.Transmission.joint_to_actuator_inputs`): :data:`SAMPLES`
    points from ``lower`` to ``upper`` for one or two such joints, an odd
    :math:`\lfloor` SAMPLES :math:`^{2/k} \rfloor` for :math:`k > 2`, so the middle sample is
    the centre; the other joints stay at their centre.  An infinite bound is replaced by the
    other bound, or by 0 when both are infinite.
    """
    lo = np.where(np.isfinite(lower), lower, np.where(np.isfinite(upper), upper, 0.0))
    hi = np.where(np.isfinite(upper), upper, lo)
    centre = (lo + hi) / 2.0
    if tr.is_linear():
        return centre[None, :]
    inputs = list(tr.joint_to_actuator_inputs())
    count = SAMPLES if len(inputs) <= 2 else int(SAMPLES ** (2.0 / len(inputs))) | 1
    axes = [lo[j] + np.linspace(0.0, 1.0, count) * (hi[j] - lo[j]) for j in inputs]
    out = np.repeat(centre[None, :], count ** len(inputs), axis=0)
    if inputs:
        out[:, inputs] = np.stack(np.meshgrid(*axes, indexing='ij'), axis=-1).reshape(
            -1, len(inputs))
    return out


class Envelope(NamedTuple):
    """The limits of one transmission at given joint positions (:func:`envelope`)."""

    #: the joint positions ``(S, M)`` and the actuator positions there ``(S, N)``
    joint_position: np.ndarray
    actuator_position: np.ndarray
    #: the actuator speeds the joint velocity limits can demand, ``(S, N)``
    actuator_velocity: np.ndarray | None
    #: the actuator efforts the joint effort limits can demand, ``(S, N)``
    actuator_effort: np.ndarray | None
    #: the joint efforts the actuator effort limits can deliver, ``(S, M)``
    joint_effort: np.ndarray | None


def envelope(tr: Transmission, joint_position: Any, joint_velocity: Any = None,
             joint_effort: Any = None, actuator_effort: Any = None) -> Envelope:
    r"""
    Return the velocity and effort envelopes of a transmission at joint positions.

    At each position: :math:`\sum_j |K_{aj}|\,\bar v_j` (the module docstring) for the joint
    velocity limits :math:`\bar v`; :func:`~.effort_limits.joint_to_actuator_effort_limit` of
    the joint effort limits; :func:`~.effort_limits.actuator_to_joint_effort_limit` of the
    actuator effort limits at the actuator positions there.  A field whose limits are not given
    is None; NaN where the maps are not defined.

    :param joint_position: ``(S, M)`` (a linear transmission's fields do not depend on it)
    :param joint_velocity: ``(M,)`` limits >= 0, ``inf`` for none
    :param joint_effort: ``(M,)`` limits >= 0, ``inf`` for none
    :param actuator_effort: ``(N,)`` limits >= 0, ``inf`` for none
    """
    q = np.asarray(joint_position, dtype=np.float64)
    nonlinear = not tr.is_linear()
    with np.errstate(all='ignore'):
        theta = tr.joint_to_actuator({'position': q})['position']
        velocity = effort = joint = None
        if joint_velocity is not None:
            jac = np.asarray(tr.joint_to_actuator_jacobian(q if nonlinear else None),
                             dtype=np.float64)
            limits = np.asarray(joint_velocity, dtype=np.float64)
            velocity = np.broadcast_to(box_bound(jac, limits), theta.shape)
        if joint_effort is not None:
            effort = np.broadcast_to(joint_to_actuator_effort_limit(
                tr, joint_effort, q if nonlinear else None), theta.shape)
        if actuator_effort is not None:
            joint = np.broadcast_to(actuator_to_joint_effort_limit(
                tr, actuator_effort, theta if nonlinear else None), q.shape)
    return Envelope(q, theta, velocity, effort, joint)


def largest(samples: np.ndarray) -> np.ndarray:
    """Return the largest value over the first axis of ``(S, n)`` (or ``(n,)``), NaN ignored."""
    x = np.asarray(samples, dtype=np.float64)
    if x.ndim == 1:
        return np.where(np.isnan(x), math.inf, x)
    ok = ~np.isnan(x)
    out = np.where(ok, x, -math.inf).max(axis=0)
    return np.where(ok.any(axis=0), out, math.inf)


def no_nan_limits(lo: np.ndarray, hi: np.ndarray, vel: np.ndarray, eff: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Return the limits with every NaN (a bound the maths cannot tell) made no bound."""
    return (np.where(np.isnan(lo), -math.inf, lo), np.where(np.isnan(hi), math.inf, hi),
            np.where(np.isnan(vel), math.inf, vel), np.where(np.isnan(eff), math.inf, eff))


def actuator_limits(tr: Transmission, lower: np.ndarray, upper: np.ndarray,
                    velocity: np.ndarray,
                    effort: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """
    Map one transmission's joint limits to its actuators.

    :param lower: joint lower position limits ``(M,)``
    :param upper: joint upper position limits ``(M,)``
    :param velocity: joint velocity limits ``(M,)``, >= 0, ``inf`` for none
    :param effort: joint effort limits ``(M,)``, >= 0, ``inf`` for none
    :returns: ``(actuator_lower, actuator_upper, velocity_limit, effort_limit)``, each ``(N,)``
    """
    bounds = envelope(tr, joint_samples(tr, lower, upper), velocity, effort)
    vel = largest(np.asarray(bounds.actuator_velocity))
    eff = largest(np.asarray(bounds.actuator_effort))
    lo, hi = actuator_position_range(tr, lower, upper)
    # never a NaN limit: a bound the maths cannot tell (inf - inf, 0 * inf with an overflowing
    # reduction) is no bound
    return no_nan_limits(lo, hi, vel, eff)


def actuator_position_range(tr: Transmission, lower: np.ndarray,
                            upper: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""
    Return the actuator position range ``(lo, hi)`` reached inside the joint position box.

    Linear: :math:`\theta = K(q - q_0)` is extremal at the box corners, so
    :math:`\theta_a \in \sum_j [\min, \max](K_{aj}(l_j - q_{0j}), K_{aj}(u_j - q_{0j}))`.
    Nonlinear: the extremes of the joint samples mapped through the transmission; ``-inf,
    inf`` for an actuator whose position depends (non-zero Jacobian column at some sample) on a
    joint with an infinite bound.
    """
    if tr.is_linear():
        _, inv, q0 = tr.linear_map()  # type: ignore[attr-defined]
        with np.errstate(all='ignore'):
            # 0 * inf = 0 both ways: a joint the actuator ignores, or a bound at the offset
            a = np.where((inv == 0.0) | (lower == q0)[None, :], 0.0, inv * (lower - q0)[None, :])
            b = np.where((inv == 0.0) | (upper == q0)[None, :], 0.0, inv * (upper - q0)[None, :])
            return np.minimum(a, b).sum(axis=1), np.maximum(a, b).sum(axis=1)
    q = joint_samples(tr, lower, upper)
    with np.errstate(all='ignore'):
        theta = tr.joint_to_actuator({'position': q})['position']
        jac = np.asarray(tr.joint_to_actuator_jacobian(q), dtype=np.float64)
    unbounded = ~(np.isfinite(lower) & np.isfinite(upper))
    free = (jac[..., unbounded] != 0.0).any(axis=(0, -1)) | np.isnan(theta).all(axis=0)
    ok = ~np.isnan(theta)
    lo = np.where(ok, theta, math.inf).min(axis=0)
    hi = np.where(ok, theta, -math.inf).max(axis=0)
    return np.where(free, -math.inf, lo), np.where(free, math.inf, hi)


def joint_effort_bound(tr: Transmission, lower: np.ndarray, upper: np.ndarray,
                       actuator_effort: np.ndarray) -> np.ndarray:
    r"""
    Return the joint efforts reachable with the actuator effort limits, ``(M,)``.

    :math:`\bar\tau_j = \sum_a |B_{ja}|\,\bar u_a` with :math:`B` the actuator-to-joint effort
    map (:func:`transmission_plugins.robot.actuators.actuator_to_joint_effort_limit`), taken at the
    actuator positions of the joint samples for nonlinear transmissions.
    """
    return largest(np.asarray(envelope(tr, joint_samples(tr, lower, upper),
                                       actuator_effort=actuator_effort).joint_effort))


def linear_limits(maps: FlatDescription, lower: np.ndarray, upper: np.ndarray,
                  velocity: np.ndarray, effort: np.ndarray) -> tuple[np.ndarray, ...]:
    """
    Map the joint limits of every linear transmission to its actuators at once.

    The same bounds as :func:`actuator_limits` for each linear transmission, computed on the
    robot's sparse fused rows (one pass over their non-zeros instead of one call per
    transmission).  Only the actuators of linear transmissions that own them are meaningful.

    :param lower: joint lower position limits ``(nj,)``
    :param upper: joint upper position limits ``(nj,)``
    :param velocity: joint velocity limits ``(nj,)``, >= 0, ``inf`` for none
    :param effort: joint effort limits ``(nj,)``, >= 0, ``inf`` for none
    :returns: ``(actuator_lower, actuator_upper, velocity_limit, effort_limit)``, each ``(na,)``
    """
    k = maps.matrix(False, 'position')
    q0 = maps.joint_offset[k.cols]
    lower_k, upper_k = lower[k.cols], upper[k.cols]
    with np.errstate(all='ignore'):
        # 0 * inf = 0: a bound at the offset contributes nothing (non-zeros only are stored)
        a = np.where(lower_k == q0, 0.0, k.values * (lower_k - q0))
        b = np.where(upper_k == q0, 0.0, k.values * (upper_k - q0))
        lo = _row_sums(k, np.minimum(a, b))
        hi = _row_sums(k, np.maximum(a, b))
        vel = largest(sparse_box_bound(k, velocity))
        eff = largest(sparse_box_bound(maps.matrix(False, 'effort'), effort))
    # never a NaN limit: a bound the arithmetic cannot tell (inf - inf when a reduction such as
    # 1e308 overflows) is no bound, as in actuator_limits
    return no_nan_limits(lo, hi, vel, eff)


def linear_joint_effort_bound(maps: FlatDescription, actuator_effort: np.ndarray) -> np.ndarray:
    r"""
    Return :math:`\sum_a |B_{ja}|\,\bar u_a` for every joint of a linear transmission, ``(nj,)``.

    :func:`joint_effort_bound` of every linear transmission at once, on the sparse
    actuator-to-joint effort map :math:`B = K^T`.
    """
    return largest(sparse_box_bound(maps.matrix(True, 'effort'), actuator_effort))


def sparse_box_bound(m: SparseMatrix, limits: np.ndarray) -> np.ndarray:
    r"""Return :math:`\sum_j |m_{ij}|\,\bar x_j` (non-zeros only: :math:`0\cdot\infty = 0`)."""
    with np.errstate(over='ignore'):   # a huge ratio times a limit is an infinite bound
        return _row_sums(m, np.abs(m.values) * limits[m.cols])


def _row_sums(m: SparseMatrix, terms: np.ndarray) -> np.ndarray:
    """Return the sum of ``terms`` (one per non-zero of ``m``) over each row, in column order."""
    return np.bincount(m.rows, weights=terms, minlength=m.shape[0]).astype(np.float64)
