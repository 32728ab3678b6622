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

import numpy as np

from transmission_plugins.core import kernel
from transmission_plugins.core.checks import check_array
from transmission_plugins.core.compiled_transmission import CompiledTransmission
from transmission_plugins.core.exceptions import TransmissionValueError
from transmission_plugins.core.mechanism import Mechanism
from transmission_plugins.core.transmission import KernelRecord
from transmission_plugins.urdf.mechanism_elements import table_from_info
from transmission_plugins.urdf.mechanism_elements import TABLE_VOCABULARY
from transmission_plugins.urdf.records import TransmissionInfo
from transmission_plugins.urdf.records import TransmissionWiring

_WHERE = 'TableTransmission'
#: What the maps do outside the table: ``nan`` (no value), or ``linear`` (the end tangents).
OUTSIDE = ('nan', 'linear')


class TableTransmission(CompiledTransmission, Mechanism):
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
        with np.errstate(all='ignore'):   # differences of extreme numbers: refused below
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
        with np.errstate(all='ignore'):  # a table of extreme numbers is refused below
            h, dy = np.diff(x), np.diff(y)
            delta = dy / h
            m = np.empty(x.size)
            m[0], m[-1] = delta[0], delta[-1]
            w1, w2 = 2.0 * h[1:] + h[:-1], h[1:] + 2.0 * h[:-1]
            m[1:-1] = (w1 + w2) / (w1 / delta[:-1] + w2 / delta[1:])
            alpha, beta = m[:-1] / delta, m[1:] / delta
            c2, c3 = 3.0 - 2.0 * alpha - beta, alpha + beta - 2.0
        # the kernel's parameters (src/kernel/table.c)
        self._parameters = np.concatenate(
            [[x.size, float(outside == 'linear'), sign, m[0], m[-1]], x, y, y * sign,
             x[:-1], h, y[:-1], dy, delta, alpha, c2, c3])
        self._check_finite(np.vstack([h, dy, delta, m[:-1], m[1:], alpha, c2, c3]))

    def _check_finite(self, terms: np.ndarray) -> None:
        """
        Refuse a table whose numbers overflow: every segment maps to finite values both ways.

        :raises TransmissionValueError: naming the first segment whose slope, coefficients or
            values (at its ends and inside) are not finite
        """
        t = np.array([0.0, 0.25, 0.5, 0.75, 1.0 - 2.0 ** -20])   # each point in its segment
        with np.errstate(all='ignore'):
            theta = (self._x[:-1, None] + np.diff(self._x)[:, None] * t).reshape(-1, 1)
            q = (self._y[:-1, None] + np.diff(self._y)[:, None] * t).reshape(-1, 1)
            back = self.description().convert({'position': theta, 'velocity': theta}, True)
            there = self.description().convert({'position': q, 'velocity': q}, False)
        bad = ~np.all(np.isfinite(terms), axis=0)
        for values in (*back.values(), *there.values()):
            bad |= ~np.all(np.isfinite(values.reshape(-1, t.size)), axis=1)
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            raise TransmissionValueError(
                f'actuator_position[{k + 1}]', float(self._x[k + 1]),
                f'points whose interpolant is finite: the segment from ({self._x[k]!r}, '
                f'{self._y[k]!r}) to ({self._x[k + 1]!r}, {self._y[k + 1]!r}) overflows '
                '(a slope, or a value, beyond the floating-point range)', _WHERE)

    def kernel_record(self) -> KernelRecord:
        """Return the table's record in the compiled kernel (``src/kernel/table.c``)."""
        return KernelRecord(kernel.TABLE, self._parameters)

    # ------------------------------------------------------------------ queries
    def num_actuators(self) -> int:
        """Return 1."""
        return 1

    def num_joints(self) -> int:
        """Return 1."""
        return 1

    def parameters(self) -> dict[str, Any]:
        """Return the table and the policy outside it, by keyword name."""
        return {'actuator_position': self._x.tolist(), 'joint_position': self._y.tolist(),
                'outside': self._outside}

    def named_problems(self, position: np.ndarray, to_joint: bool) -> list[str]:
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
    def example(cls) -> tuple['TableTransmission', dict[str, np.ndarray]]:
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
