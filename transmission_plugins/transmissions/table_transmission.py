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

"""
TableTransmission: a measured map, joint position against actuator position, interpolated.

Lookup name: ``transmission_plugins/TableTransmission``.  For a linkage nobody has modelled, or
one whose model does not match the robot: measure pairs of actuator and joint positions, write
them in the URDF, and the transmission interpolates them monotonically (Isaac Lab's
``RemotizedPD`` does the same with a lookup table).  The URDF reading lives in
:mod:`transmission_plugins.urdf.mechanism_elements`.
"""

from typing import Any
from typing import Dict
from typing import List
from typing import Tuple

import numpy as np

from transmission_plugins.core.checks import check_array
from transmission_plugins.core.exceptions import TransmissionValueError
from transmission_plugins.core.mechanism import Mechanism
from transmission_plugins.urdf.mechanism_elements import table_from_info
from transmission_plugins.urdf.mechanism_elements import TABLE_VOCABULARY
from transmission_plugins.urdf.records import TransmissionInfo
from transmission_plugins.urdf.records import TransmissionWiring

_WHERE = 'TableTransmission'
#: What the maps do outside the table: ``nan`` (no value), or ``linear`` (the end tangents).
OUTSIDE = ('nan', 'linear')
#: Safeguarded Newton steps of the inverse on one segment: bisection alone would reach 2^-60.
_INVERSE_STEPS = 60
#: A step below this (a few units in the last place of t in [0, 1]) ends the inverse's search.
_ULPS = 4.0 * np.finfo(float).eps


class TableTransmission(Mechanism):
    r"""
    Implement a measured map: monotone cubic interpolation of joint against actuator position.

    The table is :math:`n \ge 2` points :math:`(x_k, y_k)`: actuator positions :math:`x_k`
    increasing, joint positions :math:`y_k` strictly increasing or strictly decreasing.  On
    segment :math:`k`, with :math:`h_k = x_{k+1} - x_k`, :math:`\delta_k = (y_{k+1} - y_k)/h_k`
    and :math:`t = (\theta - x_k)/h_k`, the joint position is the cubic Hermite interpolant

    .. math::

        q = y_k + (y_{k+1} - y_k)\,s_k(t), \qquad
        s_k(t) = \alpha_k t + (3 - 2\alpha_k - \beta_k)t^2 + (\alpha_k + \beta_k - 2)t^3

        \frac{dq}{d\theta} = \delta_k s_k'(t), \qquad
        \alpha_k = m_k/\delta_k, \quad \beta_k = m_{k+1}/\delta_k

    with the slopes of Fritsch and Carlson's monotone interpolation in the weighted harmonic
    mean form of Fritsch and Butland (the rule of SciPy's and MATLAB's ``pchip``):
    :math:`m_k = (w_1 + w_2)/(w_1/\delta_{k-1} + w_2/\delta_k)`, :math:`w_1 = 2h_k + h_{k-1}`,
    :math:`w_2 = h_k + 2h_{k-1}` inside, and the end segments' secants :math:`m_0 = \delta_0`,
    :math:`m_{n-1} = \delta_{n-2}` at the ends (``pchip`` differs there only).  Every
    :math:`\alpha_k, \beta_k` lies in :math:`(0, 3)`, so :math:`s_k' > 0` on :math:`[0, 1]`:
    the map is strictly monotone with a derivative that never vanishes, and its inverse is
    the inverse of each segment's cubic: :math:`s_k(t) = (q - y_k)/(y_{k+1} - y_k)` solved on
    :math:`[0, 1]` by Newton's method from the linear interpolation, safeguarded by bisection
    (exact to rounding), with :math:`d\theta/dq = 1/(\delta_k s_k'(t))`.  Velocities and efforts
    are derived: :math:`\dot q = (dq/d\theta)\dot\theta`, :math:`\tau = u/(dq/d\theta)`.

    Outside the table (``outside``): ``'nan'`` (the default) gives no value, NaN through every
    map (a position the table does not cover is not guessed); ``'linear'`` continues each end
    along its tangent, :math:`q = y_0 + m_0(\theta - x_0)` below :math:`x_0` and likewise above
    :math:`x_{n-1}`, strictly monotone everywhere.

    :param actuator_position: :math:`x_k`, increasing, finite
    :param joint_position: :math:`y_k`, as many, strictly monotone, finite
    :param outside: ``'nan'`` or ``'linear'``
    :raises TransmissionValueError: fewer than 2 points, lengths that differ, values that are not
        finite or out of order (``actuator_position[k]`` names the first one), or another
        ``outside``
    """

    JOINT_ROLES = ('joint1',)
    ACTUATOR_ROLES = ('actuator1',)
    URDF_VOCABULARY = TABLE_VOCABULARY

    def __init__(self, actuator_position: Any, joint_position: Any,
                 outside: str = 'nan') -> None:
        super().__init__()
        x = check_array(actuator_position, (-1,), 'actuator_position', _WHERE)
        y = check_array(joint_position, (-1,), 'joint_position', _WHERE)
        if x.size < 2:
            raise TransmissionValueError('actuator_position', actuator_position,
                                         'at least 2 points', _WHERE)
        if y.size != x.size:
            raise TransmissionValueError('joint_position', joint_position,
                                         f'{x.size} values, one per actuator position', _WHERE)
        if outside not in OUTSIDE:
            raise TransmissionValueError('outside', outside, f'one of {", ".join(OUTSIDE)}',
                                         _WHERE)
        for k in range(1, x.size):
            if not x[k] > x[k - 1]:
                raise TransmissionValueError(
                    f'actuator_position[{k}]', float(x[k]),
                    f'actuator positions in increasing order (after {float(x[k - 1])!r})',
                    _WHERE)
        sign = np.sign(y[1] - y[0])
        if sign == 0.0:
            raise TransmissionValueError('joint_position[1]', float(y[1]), 'joint positions '
                                         'strictly increasing or decreasing (after '
                                         f'{float(y[0])!r})', _WHERE)
        for k in range(1, y.size):
            if not (y[k] - y[k - 1]) * sign > 0.0:
                order = 'increasing' if sign > 0 else 'decreasing'
                raise TransmissionValueError(
                    f'joint_position[{k}]', float(y[k]), f'joint positions strictly {order} '
                    f'like the first two (after {float(y[k - 1])!r})', _WHERE)
        self._x, self._y, self._outside = x, y, outside
        h, dy = np.diff(x), np.diff(y)
        delta = dy / h
        m = np.empty(x.size)
        m[0], m[-1] = delta[0], delta[-1]
        w1, w2 = 2.0 * h[1:] + h[:-1], h[1:] + 2.0 * h[:-1]
        m[1:-1] = (w1 + w2) / (w1 / delta[:-1] + w2 / delta[1:])
        alpha, beta = m[:-1] / delta, m[1:] / delta
        #: per segment: x_k, h_k, y_k, y_{k+1} - y_k, delta_k and the cubic's coefficients
        self._segments = (x[:-1], h, y[:-1], dy, delta, alpha, 3.0 - 2.0 * alpha - beta,
                          alpha + beta - 2.0)
        self._slopes = (m[0], m[-1])
        #: the joint positions times the sign of their order: increasing
        self._sign = float(sign)
        self._ys = y * sign

    # ------------------------------------------------------------------ queries
    def num_actuators(self) -> int:
        """Return 1."""
        return 1

    def num_joints(self) -> int:
        """Return 1."""
        return 1

    def parameters(self) -> Dict[str, Any]:
        """Return the table and the policy outside it, by keyword name."""
        return {'actuator_position': self._x.tolist(), 'joint_position': self._y.tolist(),
                'outside': self._outside}

    # ------------------------------------------------------------------ the interpolant
    def _segment(self, k: np.ndarray) -> Tuple[np.ndarray, ...]:
        return tuple(c[k] for c in self._segments)

    def _ends(self, value: Any, inside: Any, low: Any, sources: np.ndarray,
              targets: np.ndarray, slopes: Tuple[float, float]) -> Tuple[Any, Any]:
        """Return (target, derivative) outside the table: NaN, or along the end tangents."""
        if self._outside == 'nan':
            return np.where(inside, value[0], np.nan), np.where(inside, value[1], np.nan)
        end = np.where(low, 0, -1)
        slope = np.where(low, slopes[0], slopes[1])
        return (np.where(inside, value[0], targets[end] + slope * (value[2] - sources[end])),
                np.where(inside, value[1], slope))

    def joint_position_and_jacobian(self, actuator_position: Any) -> Tuple[np.ndarray, Any]:
        r"""Return :math:`q(\theta)` and :math:`dq/d\theta` ``(..., 1, 1)`` (class docstring)."""
        theta = self._position(actuator_position, 'actuator', 1)[..., 0]
        k = np.clip(np.searchsorted(self._x, theta, 'right') - 1, 0, self._x.size - 2)
        x0, h, y0, dy, delta, c1, c2, c3 = self._segment(k)
        with np.errstate(all='ignore'):
            t = (theta - x0) / h
            q = y0 + dy * (t * (c1 + t * (c2 + t * c3)))
            slope = delta * (c1 + t * (2.0 * c2 + 3.0 * t * c3))
            inside = (theta >= self._x[0]) & (theta <= self._x[-1])
            q, slope = self._ends((q, slope, theta), inside, theta < self._x[0], self._x,
                                  self._y, self._slopes)
        return q[..., None], slope[..., None, None]

    def actuator_position_and_jacobian(self, joint_position: Any) -> Tuple[np.ndarray, Any]:
        r"""Return :math:`\theta(q)` and :math:`d\theta/dq` ``(..., 1, 1)`` (class docstring)."""
        q = self._position(joint_position, 'joint', 1)[..., 0]
        along, ys = q * self._sign, self._ys
        k = np.clip(np.searchsorted(ys, along, 'right') - 1, 0, self._x.size - 2)
        x0, h, y0, dy, delta, c1, c2, c3 = self._segment(k)
        with np.errstate(all='ignore'):
            u = np.clip((q - y0) / dy, 0.0, 1.0)
            t = _solve_cubic(u, c1, c2, c3)
            theta = x0 + h * t
            slope = 1.0 / (delta * (c1 + t * (2.0 * c2 + 3.0 * t * c3)))
            inside = (along >= ys[0]) & (along <= ys[-1])
            theta, slope = self._ends((theta, slope, q), inside, along < ys[0],
                                      self._y, self._x, (1.0 / self._slopes[0],
                                                         1.0 / self._slopes[1]))
        return theta[..., None], slope[..., None, None]

    def named_problems(self, position: np.ndarray, to_joint: bool) -> List[str]:
        """Say that a position is outside the table (with ``outside='nan'``)."""
        values = self._x if to_joint else self._y
        side = 'actuator' if to_joint else 'joint'
        low, high = min(values[0], values[-1]), max(values[0], values[-1])
        if self._outside == 'nan' and not low <= position[0] <= high:
            return [f'{side} position {float(position[0]):.6g} is outside the table '
                    f"[{low:.6g}, {high:.6g}] (outside='nan')"]
        return []

    # ------------------------------------------------------------------ URDF, contract, reports
    @classmethod
    def from_info(cls, info: TransmissionInfo) -> TransmissionWiring:
        """Build from a ``<transmission>`` record; :func:`table_from_info` reads it."""
        return table_from_info(cls, info)

    @classmethod
    def example(cls) -> Tuple['TableTransmission', Dict[str, np.ndarray]]:
        """Return a measured knee linkage (7 points) and five states inside the table."""
        t = cls(actuator_position=[-1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5],
                joint_position=[-0.62, -0.45, -0.24, 0.0, 0.27, 0.6, 1.05])
        rng = np.random.default_rng(25)
        return t, {'position': rng.uniform(-1.4, 1.4, (5, 1)),
                   'velocity': rng.uniform(-4.0, 4.0, (5, 1)),
                   'effort': rng.uniform(-20.0, 20.0, (5, 1))}

    def __repr__(self) -> str:
        return (f'TableTransmission(actuator_position={self._x.tolist()!r}, '
                f'joint_position={self._y.tolist()!r}, outside={self._outside!r})')

    def __str__(self) -> str:
        return (f'TableTransmission: 1 actuator -> 1 joint, {self._x.size} points, actuator '
                f'[{self._x[0]:g}, {self._x[-1]:g}] -> joint [{self._y[0]:g}, {self._y[-1]:g}], '
                f'outside {self._outside}')


def _solve_cubic(u: np.ndarray, c1: np.ndarray, c2: np.ndarray, c3: np.ndarray) -> np.ndarray:
    r"""
    Return :math:`t \in [0, 1]` with :math:`t(c_1 + t(c_2 + t c_3)) = u`, an increasing cubic.

    Newton's method from :math:`t = u`, kept inside the bracket of the root (a step that
    leaves it bisects it instead); a sample stops once a step moves it by a few units in the
    last place or less, so a batch gives what its samples give alone.  NaN where :math:`u` is.
    """
    t, low, high = u.copy(), np.zeros_like(u), np.ones_like(u)
    done = np.isnan(u)
    for _ in range(_INVERSE_STEPS):
        r = t * (c1 + t * (c2 + t * c3)) - u
        low, high = np.where(r < 0.0, t, low), np.where(r > 0.0, t, high)
        newton = t - r / (c1 + t * (2.0 * c2 + 3.0 * t * c3))
        bracketed = (newton > low) & (newton < high)
        step = np.where(done | (r == 0.0), 0.0,
                        np.where(bracketed, newton, 0.5 * (low + high)) - t)
        t = t + step
        done = done | (np.abs(step) <= _ULPS)
        if np.all(done):
            break
    return np.where(np.isnan(u), np.nan, t)
