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
The numpy references of the built-in mechanisms: the oracles the compiled kernel is checked by.

These are the package's numpy implementations as they were before the kernel replaced them
(7160cf2), kept here only: each is a :class:`~transmission_plugins.core.mechanism.Mechanism`
in numpy, built from the same constructor arguments as the built-in it checks
(:func:`reference`), with the kernel's two additions: the slider-crank's angles taken into their
branch intervals, and Newton's evaluation budget (the numpy base applies it).  Linear
transmissions are checked by :func:`linear_reference`, the fused rows as sums of their
structural non-zeros.  ``test_kernel_fuzz.py`` feeds random robots and inputs through both.
"""

import math
from typing import Any
from typing import Callable

import numpy as np

from transmission_plugins import ParallelAnkleTransmission
from transmission_plugins import PR2GripperTransmission
from transmission_plugins import SeriesElasticTransmission
from transmission_plugins import SliderCrankTransmission
from transmission_plugins import TableTransmission
from transmission_plugins.core.checks import check_array
from transmission_plugins.core.checks import check_finite
from transmission_plugins.core.checks import check_positive
from transmission_plugins.core.checks import check_reduction
from transmission_plugins.core.exceptions import TransmissionValueError
from transmission_plugins.core.mechanism import ActuatorSide
from transmission_plugins.core.mechanism import DEAD_POINT
from transmission_plugins.core.mechanism import JointSide
from transmission_plugins.core.mechanism import Mechanism
from transmission_plugins.core.mechanism import SINGULAR_CONDITION
from transmission_plugins.core.transmission import Transmission
from transmission_plugins.urdf.pr2_elements import GRIPPER_COEFFICIENTS

_WHERE = 'reference'
RAD2MR = 1.0 / (2.0 * math.pi)
TOL = 1e-5
SQRT_TOL = math.sqrt(TOL)
_INVERSE_STEPS = 60
_ULPS = 4.0 * np.finfo(float).eps


class AnkleReference(Mechanism):
    """ParallelAnkleTransmission in numpy (7160cf2)."""

    def __init__(self, crank_pivot: Any, crank_tip: Any, rod_end: Any) -> None:
        super().__init__()
        self._pivot = check_array(crank_pivot, (2, 3), 'crank_pivot', _WHERE)
        self._tip = check_array(crank_tip, (2, 3), 'crank_tip', _WHERE)
        self._end = check_array(rod_end, (2, 3), 'rod_end', _WHERE)
        centre = self._pivot.copy()
        centre[:, 1] = self._tip[:, 1]
        crank = self._tip - centre
        self._r = np.linalg.norm(crank, axis=1)
        self._l = np.linalg.norm(self._end - self._tip, axis=1)
        for i in range(2):
            if not self._r[i] > 0.0:
                raise TransmissionValueError(
                    f'crank_tip[{i}]', self._tip[i].tolist(), 'a point off the crank axis '
                    '(the crank has length 0)', _WHERE)
            if not self._l[i] > 0.0:
                raise TransmissionValueError(
                    f'rod_end[{i}]', self._end[i].tolist(), 'a point away from the crank tip '
                    '(the rod has length 0)', _WHERE)
        self._cx, self._cy, self._cz = centre.T
        self._ux, self._uy, self._uz = (centre / self._r[:, None]).T
        self._px, self._py, self._pz = self._end.T
        phi0 = np.arctan2(-crank[:, 2], crank[:, 0])
        self._cos0, self._sin0 = np.cos(phi0), np.sin(phi0)
        self._e0 = (np.sum(self._end ** 2, axis=1) + np.sum(centre ** 2, axis=1)
                    + self._r ** 2 - self._l ** 2) / (2.0 * self._r)
        # the assembly mode: the sign of w at the neutral pose
        d = self._end - centre
        w0 = d[:, 0] * self._sin0 + d[:, 2] * self._cos0
        rho0 = np.hypot(d[:, 0], d[:, 2])
        self._s = np.sign(w0)
        for i in range(2):
            if not abs(w0[i]) > rho0[i] * DEAD_POINT:
                raise TransmissionValueError(
                    f'crank_tip[{i}]', self._tip[i].tolist(), f'a crank not in line with its rod '
                    f'at the neutral pose (leg {i + 1} is at its dead point there)', _WHERE)
        self._det_sign = 0.0                             # no workspace check until known
        k0, det0 = np.asarray(self._legs(np.zeros(2))[1]), self._legs(np.zeros(2))[5]
        self._det_sign = float(np.sign(det0))
        condition = float(np.linalg.cond(k0))
        if not condition <= SINGULAR_CONDITION:
            raise TransmissionValueError(
                'rod_end', self._end.tolist(), 'rods that hold the foot at the neutral pose (the '
                f'mechanism is singular there: condition number of K {condition:.3g})', _WHERE)

    # ------------------------------------------------------------------ queries
    def num_actuators(self) -> int:
        """Return 2: the two crank motors."""
        return 2

    def num_joints(self) -> int:
        """Return 2: pitch, then roll."""
        return 2

    def parameters(self) -> dict[str, list[list[float]]]:
        """Return the three points of each leg by keyword name (the constructor's)."""
        return {'crank_pivot': self._pivot.tolist(), 'crank_tip': self._tip.tolist(),
                'rod_end': self._end.tolist()}

    def crank_length(self) -> np.ndarray:
        """Return :math:`r_i`, each crank's length (m)."""
        return self._r.copy()

    def rod_length(self) -> np.ndarray:
        """Return :math:`l_i`, each rod's length (m)."""
        return self._l.copy()

    # ------------------------------------------------------------------ the loops
    def _legs(self, joint_position: Any) -> tuple[Any, ...]:
        r"""
        Close both loops at ``q``: return theta and K, NaN outside the workspace, and the terms.

        Outside the workspace: a leg cannot reach, or :math:`\det K` has the other sign than at
        the neutral pose (beyond a singularity of the two legs together).  The terms:
        :math:`\rho^2`, :math:`E`, :math:`w` of each leg and :math:`\det K`.
        """
        q = self._position(joint_position, 'joint', 2)
        with np.errstate(all='ignore'):
            cos, sin = np.cos(q), np.sin(q)
            cp, sp, cr, sr = cos[..., :1], sin[..., :1], cos[..., 1:], sin[..., 1:]
            vy = self._py * cr - self._pz * sr           # R_x(roll) p
            vz = self._py * sr + self._pz * cr
            ax = cp * self._px + sp * vz                 # a = R_y(pitch) R_x(roll) p
            az = cp * vz - sp * self._px
            dx, dz = ax - self._cx, az - self._cz
            e = self._e0 - (ax * self._ux + vy * self._uy + az * self._uz)
            rho2 = dx * dx + dz * dz
            w = self._s * np.sqrt(rho2 - e * e)          # NaN where the rod cannot reach
            cos_r2 = e * dx + w * dz                     # rho^2 cos(phi)
            sin_r2 = w * dx - e * dz                     # rho^2 sin(phi)
            theta = np.arctan2(sin_r2 * self._cos0 - cos_r2 * self._sin0,
                               cos_r2 * self._cos0 + sin_r2 * self._sin0)
            scale = self._r / rho2
            bx = self._cx + scale * cos_r2               # the crank tips
            bz = self._cz - scale * sin_r2
            rw = self._r * w
            pitch = (bx * az - bz * ax) / rw
            roll = (vy * (sp * bx + cp * bz) - vz * self._cy) / rw
            k = np.stack((pitch, roll), axis=-1)
            det = pitch[..., 0] * roll[..., 1] - roll[..., 0] * pitch[..., 1]
            inside = (det * self._det_sign >= 0.0)[..., None]
            return (np.where(inside, theta, np.nan), np.where(inside[..., None], k, np.nan),
                    rho2, e, w, det)

    def actuator_position_and_jacobian(self, joint_position: Any) -> tuple[np.ndarray, Any]:
        r"""
        Return the crank angles :math:`\theta(q)` and :math:`K = \partial\theta/\partial q`.

        ``(..., 2)`` and ``(..., 2, 2)`` (class docstring); NaN outside the workspace.
        """
        return self._legs(joint_position)[:2]


def _on_circle(dx: Any, dy: Any, radius: Any, length: float,
               sign: float) -> tuple[Any, Any, Any, Any]:
    r"""
    Return where a circle about the origin is ``length`` from the point :math:`D`.

    The point :math:`R(\cos\psi, \sin\psi)` with :math:`D\cdot e(\psi) = E =
    (|D|^2 + R^2 - l^2)/(2R)`: :math:`\rho^2\cos\psi = D_x E - D_y w` and
    :math:`\rho^2\sin\psi = D_y E + D_x w` with :math:`\rho = |D|`,
    :math:`w = s\sqrt{\rho^2 - E^2}` (NaN where the circles do not meet).

    :returns: :math:`\rho^2\cos\psi`, :math:`\rho^2\sin\psi`, :math:`\rho^2`, :math:`w`
    """
    rho2 = dx * dx + dy * dy
    e = (rho2 + radius * radius - length * length) / (2.0 * radius)
    w = sign * np.sqrt(rho2 - e * e)
    return dx * e - dy * w, dy * e + dx * w, rho2, w


class SliderCrankReference(Mechanism):
    """SliderCrankTransmission in numpy (7160cf2), angles taken into their branch intervals."""

    def __init__(self, lever_tip: Any, crank_pivot: Any = None, crank_tip: Any = None,
                 slider_tip: Any = None, slider_axis: Any = None) -> None:
        super().__init__()
        self._rotary = crank_pivot is not None or crank_tip is not None
        given = {'crank_pivot': crank_pivot, 'crank_tip': crank_tip, 'slider_tip': slider_tip,
                 'slider_axis': slider_axis}
        names = ('crank_pivot', 'crank_tip') if self._rotary else ('slider_tip', 'slider_axis')
        for name, value in given.items():
            if (name in names) != (value is not None):
                raise TransmissionValueError(
                    name, value, 'crank_pivot and crank_tip (a rotary actuator) or slider_tip and '
                    'slider_axis (a linear one), not both', _WHERE)
        self._p0 = check_array(lever_tip, (2,), 'lever_tip', _WHERE)
        first = check_array(given[names[0]], (2,), names[0], _WHERE)
        second = check_array(given[names[1]], (2,), names[1], _WHERE)
        self._points = {'lever_tip': self._p0, names[0]: first, names[1]: second}
        if self._rotary:
            self._m, self._a0 = first, second
            self._ra = float(np.linalg.norm(second - first))
            self._u = (second - first) / (self._ra or 1.0)      # the crank's neutral direction
        else:
            self._m, self._a0 = np.zeros(2), first
            self._ra = float(np.linalg.norm(second))
            self._u = second / (self._ra or 1.0)
        self._rj = float(np.linalg.norm(self._p0))
        self._l = float(np.linalg.norm(self._a0 - self._p0))
        self._lever0 = self._p0 / (self._rj or 1.0)              # the lever's neutral direction
        for value, name, what in ((self._rj, 'lever_tip', 'a point off the joint axis'),
                                  (self._ra, names[1], 'a point away from crank_pivot'
                                   if self._rotary else 'a direction, not (0, 0)'),
                                  (self._l, names[1] if self._rotary else names[0],
                                   'a point away from lever_tip (the rod has length 0)')):
            if not value > 0.0:
                raise TransmissionValueError(name, self._points[name].tolist(), what, _WHERE)
        # the neutral pose: the rod's projections on both ends' motions, nowhere near 0; their
        # signs (and those of each side's w in _on_circle) are the branches kept everywhere
        self._sa = self._sj = self._neutral_a = self._neutral_p = 1.0
        on_p, on_a = self._cosines(self._actuator(0.0), self._lever_at(0.0))
        for value, name, dead in ((on_a, names[1], "the actuator's"),
                                  (on_p, 'lever_tip', "the joint's")):
            if not abs(value) > DEAD_POINT:
                raise TransmissionValueError(
                    name, self._points[name].tolist(), f'a rod away from {dead} dead point at the '
                    "neutral pose (there it is square to the actuator's motion, or in line with "
                    'the lever)', _WHERE)
        self._neutral_a, self._neutral_p = float(np.sign(on_a)), float(np.sign(on_p))
        d, rod = self._p0 - self._m, self._a0 - self._p0
        wa = (np.dot(self._u, rod) if not self._rotary
              else d[0] * self._u[1] - d[1] * self._u[0])
        self._sa = float(np.sign(wa))
        self._sj = float(np.sign(self._a0[0] * self._lever0[1] - self._a0[1] * self._lever0[0]))

    # ------------------------------------------------------------------ queries
    def num_actuators(self) -> int:
        """Return 1."""
        return 1

    def num_joints(self) -> int:
        """Return 1."""
        return 1

    def is_rotary(self) -> bool:
        """Return True for a crank (actuator in rad), False for a slider (in m)."""
        return self._rotary

    def parameters(self) -> dict[str, list[float]]:
        """Return the points by keyword name (the constructor's; ``slider_axis`` as given)."""
        return {k: v.tolist() for k, v in self._points.items()}

    def rod_length(self) -> float:
        """Return :math:`l`, the rod's length (m)."""
        return self._l

    # ------------------------------------------------------------------ the loop
    def _lever(self, cos: Any, sin: Any) -> tuple[Any, Any, Any, Any]:
        """Return the lever's rod end at the direction ``(cos, sin)``, and its derivative."""
        x, y = self._rj * cos, self._rj * sin
        return x, y, -y, x

    def _lever_at(self, q: Any) -> tuple[Any, Any, Any, Any]:
        """Return the lever's rod end at the joint position ``q``, and its derivative."""
        c, s = np.cos(q), np.sin(q)
        return self._lever(c * self._lever0[0] - s * self._lever0[1],
                           s * self._lever0[0] + c * self._lever0[1])

    def _actuator(self, theta: Any) -> tuple[Any, Any, Any, Any]:
        """Return the actuator's rod end at ``theta``, and its derivative."""
        if not self._rotary:
            return (self._a0[0] + theta * self._u[0], self._a0[1] + theta * self._u[1],
                    self._u[0], self._u[1])
        c, s = np.cos(theta), np.sin(theta)
        return self._crank(c * self._u[0] - s * self._u[1], s * self._u[0] + c * self._u[1])

    def _crank(self, cos: Any, sin: Any) -> tuple[Any, Any, Any, Any]:
        x, y = self._ra * cos, self._ra * sin
        return self._m[0] + x, self._m[1] + y, -y, x

    def _loop(self, end: tuple[Any, ...],
              lever: bool) -> tuple[Any, tuple[Any, ...], tuple[Any, ...]]:
        """
        Close the loop from one rod end: the other side's position, and both ends.

        :param end: the lever's end (``lever``: solve for the actuator) or the actuator's
        :returns: the other side's position, the actuator's end, the lever's end
        """
        if not lever:
            c2, s2, rho2, _ = _on_circle(end[0], end[1], self._rj, self._l, self._sj)
            q = _angle(s2, c2, self._lever0)
            return q, end, self._lever(c2 / rho2, s2 / rho2)
        if self._rotary:
            c2, s2, rho2, _ = _on_circle(end[0] - self._m[0], end[1] - self._m[1], self._ra,
                                         self._l, self._sa)
            return _angle(s2, c2, self._u), self._crank(c2 / rho2, s2 / rho2), end
        gx, gy = self._a0[0] - end[0], self._a0[1] - end[1]
        h = gx * self._u[0] + gy * self._u[1]
        c = gx * gx + gy * gy - self._l * self._l
        theta = -c / (h + self._sa * np.sqrt(h * h - c))
        return theta, self._actuator(theta), end

    @staticmethod
    def _projections(a: tuple[Any, ...], p: tuple[Any, ...]) -> tuple[Any, Any]:
        r"""Return :math:`(A-P)\cdot P'` and :math:`(A-P)\cdot A'`."""
        rx, ry = a[0] - p[0], a[1] - p[1]
        return rx * p[2] + ry * p[3], rx * a[2] + ry * a[3]

    def _cosines(self, a: tuple[Any, ...], p: tuple[Any, ...]) -> tuple[Any, Any]:
        """Return the projections of the rod on both ends' motions over their lengths."""
        on_p, on_a = self._projections(a, p)
        return (on_p / (self._l * self._rj),
                on_a / (self._l * (self._ra if self._rotary else 1.0)))

    def _closed(self, target: Any, a: tuple[Any, ...], p: tuple[Any, ...],
                to_joint: bool) -> tuple[np.ndarray, np.ndarray]:
        """Return the other side's position and the Jacobian; NaN off the neutral branches."""
        on_p, on_a = self._projections(a, p)
        inside = (on_p * self._neutral_p > 0.0) & (on_a * self._neutral_a > 0.0)
        ratio = on_a / on_p if to_joint else on_p / on_a
        return (np.where(inside, target, np.nan),
                np.where(inside, ratio, np.nan)[..., None])

    def actuator_position_and_jacobian(self, joint_position: Any) -> tuple[np.ndarray, Any]:
        """Return the actuator position and :math:`K` at ``joint_position`` (class docstring)."""
        q = self._position(joint_position, 'joint', 1)
        with np.errstate(all='ignore'):
            return self._closed(*self._loop(self._lever_at(q), True), False)

    def joint_position_and_jacobian(self, actuator_position: Any) -> tuple[np.ndarray, Any]:
        """Return the joint position and :math:`J` at ``actuator_position`` (class docstring)."""
        theta = self._position(actuator_position, 'actuator', 1)
        with np.errstate(all='ignore'):
            return self._closed(*self._loop(self._actuator(theta), False), True)


def _angle(sin_r2: Any, cos_r2: Any, neutral: np.ndarray) -> Any:
    """Return the angle of ``(cos_r2, sin_r2)`` from the direction ``neutral``, in (-pi, pi]."""
    return np.arctan2(sin_r2 * neutral[0] - cos_r2 * neutral[1],
                      cos_r2 * neutral[0] + sin_r2 * neutral[1])


class TableReference(Mechanism):
    """TableTransmission in numpy (7160cf2)."""

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

    def parameters(self) -> dict[str, Any]:
        """Return the table and the policy outside it, by keyword name."""
        return {'actuator_position': self._x.tolist(), 'joint_position': self._y.tolist(),
                'outside': self._outside}

    # ------------------------------------------------------------------ the interpolant
    def _segment(self, k: np.ndarray) -> tuple[np.ndarray, ...]:
        return tuple(c[k] for c in self._segments)

    def _ends(self, value: Any, inside: Any, low: Any, sources: np.ndarray,
              targets: np.ndarray, slopes: tuple[float, float]) -> tuple[Any, Any]:
        """Return (target, derivative) outside the table: NaN, or along the end tangents."""
        if self._outside == 'nan':
            return np.where(inside, value[0], np.nan), np.where(inside, value[1], np.nan)
        end = np.where(low, 0, -1)
        slope = np.where(low, slopes[0], slopes[1])
        return (np.where(inside, value[0], targets[end] + slope * (value[2] - sources[end])),
                np.where(inside, value[1], slope))

    def joint_position_and_jacobian(self, actuator_position: Any) -> tuple[np.ndarray, Any]:
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

    def actuator_position_and_jacobian(self, joint_position: Any) -> tuple[np.ndarray, Any]:
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


class GripperReference(Mechanism):
    """PR2GripperTransmission in numpy (7160cf2)."""

    def __init__(self, screw_reduction: Any, gear_ratio: Any, theta0: Any, phi0: Any, t0: Any,
                 L0: Any, h: Any, a: Any, b: Any, r: Any,  # noqa: N803
                 mechanical_reduction: Any = 1.0, num_passive_joints: Any = 4,
                 num_simulated_joints: Any = 0, simulated_reduction: Any = None) -> None:
        super().__init__()
        w = 'PR2GripperTransmission'
        self._s = check_reduction(screw_reduction, 'screw_reduction', w)
        self._g = check_reduction(gear_ratio, 'gear_ratio', w)
        self._theta0 = check_finite(theta0, 'theta0', w)
        self._phi0 = check_finite(phi0, 'phi0', w)
        self._t0 = check_finite(t0, 't0', w)
        self._L0 = check_finite(L0, 'L0', w)
        self._h = check_finite(h, 'h', w)
        if self._h < 0.0:
            raise TransmissionValueError('h', h, 'a finite number >= 0 (a length)', w)
        self._a = check_positive(a, 'a', w)
        self._b = check_positive(b, 'b', w)
        self._r = check_positive(r, 'r', w)
        self._mr = check_reduction(mechanical_reduction, 'mechanical_reduction', w)
        self._num_passive = _check_count(num_passive_joints, 'num_passive_joints', 0, None)
        self._num_simulated = _check_count(num_simulated_joints, 'num_simulated_joints', 0, 2)
        self._simulated_reduction = (None if simulated_reduction is None else check_positive(
            simulated_reduction, 'simulated_reduction', w))
        sim_roles = ('simulated_actuated_joint', 'passive_actuated_joint')
        self.JOINT_ROLES = (('gap_joint',)
                            + tuple(f'passive_joint{i + 1}' for i in range(self._num_passive))
                            + sim_roles[:self._num_simulated])
        self._nj = 1 + self._num_passive + self._num_simulated
        self._set_constants()

    def _set_constants(self) -> None:
        """
        Precompute the constants of the formulas, each checked finite (non-zero where it divides).

        :raises TransmissionValueError: a constant overflows or vanishes (coefficients that are
            each finite, such as ``a = 1e308`` or ``gear_ratio = 5e-324``, can make
            :math:`a^2 + b^2 - h^2` or :math:`s/g` infinite or zero); the message names the
            coefficient of the most extreme magnitude among those the constant uses
        """
        s, g, a, b, h, L0, r, m = (self._s, self._g, self._a, self._b, self._h, self._L0,
                                   self._r, self._mr)
        values = self.parameters()

        def c(formula: str, names: tuple[str, ...], compute: Callable[[], float],
              nonzero: bool = False) -> float:
            return checked_constant(formula, names, values, compute, nonzero)

        screw, mr = ('screw_reduction', 'gear_ratio'), ('mechanical_reduction',)
        delta = self._theta0 - self._phi0
        self._sin_delta, self._cos_delta = math.sin(delta), math.cos(delta)
        self._sin_theta0 = math.sin(self._theta0)
        self._k = c('s/g', screw, lambda: s / g, True)
        self._c0 = c('a^2 + b^2 - h^2', ('a', 'b', 'h'), lambda: a * a + b * b - h * h)
        self._two_ab = c('2ab', ('a', 'b'), lambda: 2.0 * a * b, True)
        ab = c('ab', ('a', 'b'), lambda: a * b, True)
        self._kab = c('(s/g)^2 / (ab)', screw + ('a', 'b'), lambda: (s / g) ** 2 / ab)
        self._du0 = c('L0 s / (g a b)', ('L0',) + screw + ('a', 'b'), lambda: L0 * s / (g * ab))
        self._p2m = c('1 / (2 pi m)', mr, lambda: RAD2MR / m, True)
        self._m2p = c('2 pi m', mr, lambda: m / RAD2MR, True)
        self._g_s = c('g/s', screw, lambda: g / s, True)
        self._gap0 = c('2 (t0 - r sin theta0)', ('t0', 'r'),
                       lambda: 2.0 * (self._t0 - r * self._sin_theta0))
        self._two_r_sd = c('2r sin(theta0 - phi0)', ('r',), lambda: 2.0 * r * self._sin_delta)
        self._two_r_cd = c('2r cos(theta0 - phi0)', ('r',), lambda: 2.0 * r * self._cos_delta)
        self._two_ab_sd = c('2ab sin(theta0 - phi0)', ('a', 'b'),
                            lambda: self._two_ab * self._sin_delta)
        self._two_ab_cd = c('2ab cos(theta0 - phi0)', ('a', 'b'),
                            lambda: self._two_ab * self._cos_delta)
        self._m2p_gs = c('2 pi m g / s', mr + screw, lambda: self._m2p * self._g_s)
        # checked only: the motor position of a closed linkage, -L0 (2 pi m g / s)
        c('2 pi m g L0 / s', mr + screw + ('L0',), lambda: L0 * self._m2p_gs)
        self._q2s = c('1 / (2r)', ('r',), lambda: 0.5 / r, True)
        self._s0 = c('sin theta0 - t0 / r', ('t0', 'r'), lambda: self._sin_theta0 - self._t0 / r)
        self._dm_dtheta = c('g a b / s', screw + ('a', 'b'),
                            lambda: self._g_s / 2.0 * self._two_ab)
        self._v_motor = self._m2p / 2.0

    # ------------------------------------------------------------------ queries
    def num_actuators(self) -> int:
        """Return 1: the gripper motor."""
        return 1

    def num_joints(self) -> int:
        """Return 1 (gap) + passive joints + simulated joints."""
        return self._nj

    def num_passive_joints(self) -> int:
        """Return the number of passive finger joints."""
        return self._num_passive

    def num_simulated_joints(self) -> int:
        """Return the number of simulation-only screw/slider joints (always reported as 0)."""
        return self._num_simulated

    def joint_to_actuator_inputs(self) -> tuple[int, ...]:
        """Return ``(0,)``: joint to actuator maps read the gap joint only."""
        return (0,)

    def get_actuator_reduction(self) -> float:
        """Return the mechanical reduction :math:`m`."""
        return self._mr

    def get_simulated_reduction(self) -> float | None:
        """Return the URDF ``simulated_reduction``, or None."""
        return self._simulated_reduction

    def parameters(self) -> dict[str, float]:
        """Return the linkage coefficients and ``mechanical_reduction`` by keyword name."""
        values = (self._s, self._g, self._theta0, self._phi0, self._t0, self._L0, self._h,
                  self._a, self._b, self._r)
        out = dict(zip(GRIPPER_COEFFICIENTS, values))
        out['mechanical_reduction'] = self._mr
        return out

    # ------------------------------------------------------------------ the linkage
    # The kernels below may meet inf and NaN; the maps that call them (the functional and
    # handle styles, the robot maps) ignore floating-point warnings: NaN and inf are results.
    def _uw(self, mrev: Any) -> tuple[Any, Any]:
        """Return ``u`` (clamped to [-1, 1]) and ``w = sin(acos u)`` at ``mrev`` revolutions."""
        length = mrev * self._k + self._L0
        u = np.minimum(np.maximum((self._c0 - length * length) / self._two_ab, -1.0), 1.0)
        return u, np.sqrt((1.0 - u) * (1.0 + u))

    def _joints(self, gap: Any, passive: Any) -> np.ndarray:
        """
        Return joint values ``(..., M)``: the gap, the passive joints, simulated zeros.

        The array is laid out joint by joint (a transposed view of ``(M, ...)``): each joint's
        values are contiguous, so they are written, and read, as whole batches.
        """
        out = np.zeros((self._nj,) + np.shape(gap))
        out[0] = gap
        out[1:1 + self._num_passive] = passive
        return out.transpose(tuple(range(1, out.ndim)) + (0,))

    def _forward_jacobian(self, mrev: Any, u: Any, w: Any) -> np.ndarray:
        r"""Return :math:`J` from :math:`M_+` and ``u, w`` there (``(..., M, 1)``)."""
        dtheta_dm = (mrev * self._kab + self._du0) / np.maximum(w, SQRT_TOL)
        two_dt_dm = (u * self._two_r_cd - w * self._two_r_sd) * dtheta_dm
        return self._joints(two_dt_dm * self._p2m, dtheta_dm * self._p2m)[..., None]

    def _inverse_rate(self, sin_theta: Any, cos_theta: Any, arg: Any, root: Any) -> Any:
        r"""Return :math:`(dM/d\theta)(d\theta/dt)` (0 where :math:`A \le 0`, as the C++)."""
        dm_dtheta = np.where(arg <= 0.0, 0.0, self._dm_dtheta / root * (
            sin_theta * self._cos_delta - cos_theta * self._sin_delta))
        return dm_dtheta / (np.maximum(cos_theta, SQRT_TOL) * self._r)

    def _inverse(self, gap: Any) -> tuple[Any, Any, Any, Any]:
        r"""
        Return sin(theta), cos(theta), A and sqrt(max(A, 0)) at the gaps ``gap``.

        The motor position is :math:`(\sqrt{\max(A, 0)} - L_0)\,g/s` revolutions: for
        :math:`A \le 0` that is the C++'s :math:`-g L_0/s`.
        """
        sin_theta = np.minimum(np.maximum(gap * self._q2s + self._s0, -1.0), 1.0)
        cos_theta = np.sqrt((1.0 - sin_theta) * (1.0 + sin_theta))
        arg = self._c0 - (cos_theta * self._two_ab_cd + sin_theta * self._two_ab_sd)
        return sin_theta, cos_theta, arg, np.sqrt(np.maximum(arg, 0.0))

    # ------------------------------------------------------------------ the definition
    def joint_position(self, actuator_position: Any) -> np.ndarray:
        """Return the gap, passive and simulated joint positions at the motor positions."""
        theta = self._position(actuator_position, 'actuator', 1)
        u, w = self._uw(theta[..., 0] * self._p2m)
        return self._joints(u * self._two_r_sd + w * self._two_r_cd + self._gap0,
                            np.arccos(u) - self._phi0)

    def actuator_to_joint_jacobian(self, actuator_position: Any = None) -> np.ndarray:
        r"""
        Return :math:`J = \partial q / \partial P_a`, shape ``(..., M, 1)`` (class docstring).

        :param actuator_position: motor positions ``(..., 1)``
        :raises TransmissionInputError: when the position is missing or has the wrong shape
        """
        with np.errstate(all='ignore'):
            return self._prepare_actuator_state(actuator_position).jacobian

    def actuator_position(self, joint_position: Any) -> np.ndarray:
        """Return the motor position at the gaps (the other joints are not read)."""
        q = self._position(joint_position, 'joint', self._nj)
        return ((self._inverse(q[..., 0])[3] - self._L0) * self._m2p_gs)[..., None]

    def joint_to_actuator_jacobian(self, joint_position: Any = None) -> np.ndarray:
        r"""
        Return :math:`K = \partial P_a / \partial q`, shape ``(..., 1, M)``: the gap column only.

        :param joint_position: joint positions ``(..., M)`` (only the gap is read)
        :raises TransmissionInputError: when the position is missing or has the wrong shape
        """
        with np.errstate(all='ignore'):
            return self._prepare_joint_state(joint_position).jacobian

    # ------------------------------------------------------------------ one conversion
    def _prepare_actuator_state(self, position: Any) -> ActuatorSide:
        """Return positions and :math:`J`, the linkage solved once (twice where M < 0)."""
        theta = self._position(position, 'actuator', 1)
        mrev = theta[..., 0] * self._p2m
        u, w = self._uw(mrev)
        joint = self._joints(u * self._two_r_sd + w * self._two_r_cd + self._gap0,
                             np.arccos(u) - self._phi0)
        if np.fmin.reduce(mrev, axis=None) < 0.0:  # NaN ignored: it propagates either way
            mrev = np.maximum(mrev, 0.0)
            u, w = self._uw(mrev)
        return ActuatorSide(theta, joint, self._forward_jacobian(mrev, u, w))

    def _prepare_joint_state(self, position: Any) -> JointSide:
        """Return positions and :math:`K`, the linkage solved once."""
        q = self._position(position, 'joint', self._nj)
        parts = self._inverse(q[..., 0])
        rate = self._inverse_rate(*parts)
        jacobian = np.zeros((1, self._nj) + np.shape(rate))  # joint by joint, as _joints
        jacobian[0, 0] = self._v_motor * rate
        jacobian = jacobian.transpose(tuple(range(2, jacobian.ndim)) + (0, 1))
        return JointSide(q, ((parts[3] - self._L0) * self._m2p_gs)[..., None], jacobian)

    def _ratios(self, position: Any) -> tuple[np.ndarray, np.ndarray]:
        """Return the gap's and the passive joints' rows of :math:`J` (the gap's twice if none)."""
        jacobian = self._actuator_state(position).jacobian[..., 0]
        return jacobian[..., 0], jacobian[..., 1 if self._num_passive else 0]

    def _actuator_to_joint_velocity(self, velocity: np.ndarray, position: Any) -> np.ndarray:
        r"""Return :math:`J\dot P_a`, the simulated joints 0 whatever the motor reports."""
        gap, passive = self._ratios(position)
        return self._joints(velocity[..., 0] * gap, velocity[..., 0] * passive)

    def _actuator_to_joint_effort(self, effort: np.ndarray, position: Any) -> np.ndarray:
        r"""
        Return the joint efforts as the C++ does, :math:`\tau_i = E_a / (m^2 J_i)`; simulated: 0.

        Where the linkage is singular (:math:`J = 0`) the effort is infinite, as in the C++;
        callers that send values on drop what is not finite.
        """
        gap, passive = self._ratios(position)
        m2 = self._mr * self._mr
        return self._joints(effort[..., 0] / (m2 * gap), effort[..., 0] / (m2 * passive))

    def _joint_to_actuator_effort(self, effort: np.ndarray, position: Any) -> np.ndarray:
        """Return the motor effort from the gap effort as the C++ does (absolute ratio)."""
        k = self._joint_state(position).jacobian[..., 0, 0]
        return (effort[..., 0] * (self._mr * abs(self._mr)) / np.abs(k))[..., None]


def _check_count(value: Any, parameter: str, low: int, high: int | None) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low \
            or (high is not None and value > high):
        expected = f'an int >= {low}' if high is None else f'an int in {low}..{high}'
        raise TransmissionValueError(parameter, value, expected, 'PR2GripperTransmission')
    return int(value)


def checked_constant(formula: str, coefficients: tuple[str, ...], values: dict[str, float],
                     compute: Callable[[], float], nonzero: bool = False) -> float:
    """
    Return ``compute()`` when it is finite (and non-zero with ``nonzero``).

    :param formula: the constant as written in the message (``'s/g'``)
    :param coefficients: the constructor names of the coefficients it uses
    :raises TransmissionValueError: the constant overflows, is NaN or vanishes, naming the
        coefficient of the most extreme magnitude (largest log-magnitude) among those it uses
    """
    try:
        value = compute()
    except ArithmeticError:  # float ** and / raise where numpy gives inf
        value = math.nan
    if math.isfinite(value) and not (nonzero and value == 0.0):
        return value

    def extremity(name: str) -> float:
        x = abs(values[name])
        return abs(math.log(x)) if x > 0.0 else 0.0

    culprit = max(coefficients, key=extremity)
    others = ', '.join(f'{c}={values[c]!r}' for c in coefficients if c != culprit)
    state = 'finite and non-zero' if nonzero else 'finite'
    raise TransmissionValueError(
        culprit, values[culprit], f'a magnitude for which the linkage constant {formula} is '
        f'{state}' + (f' (with {others})' if others else ''), 'PR2GripperTransmission')


OUTSIDE = ('nan', 'linear')


class UnwrappedSliderCrankReference(SliderCrankReference):
    """The slider-crank reference with each angle taken into its branch interval."""

    def __init__(self, bounds: tuple[float, float, float, float], **points: Any) -> None:
        super().__init__(**points)
        self._bounds = bounds

    @staticmethod
    def _unwrapped(angle: np.ndarray, low: float, high: float) -> np.ndarray:
        return np.where(angle < low, angle + 2.0 * np.pi,
                        np.where(angle > high, angle - 2.0 * np.pi, angle))

    def actuator_position_and_jacobian(self, joint_position: Any) -> tuple[np.ndarray, Any]:
        theta, k = super().actuator_position_and_jacobian(joint_position)
        if self._rotary:
            with np.errstate(all='ignore'):
                theta = self._unwrapped(theta, *self._bounds[2:])
        return theta, k

    def joint_position_and_jacobian(self, actuator_position: Any) -> tuple[np.ndarray, Any]:
        q, j = super().joint_position_and_jacobian(actuator_position)
        with np.errstate(all='ignore'):
            return self._unwrapped(q, *self._bounds[:2]), j


class SeriesElasticReference:
    """
    SeriesElasticTransmission in numpy: the spring by ``np.interp``, its end segments extended.

    Not a :class:`Mechanism`: its joint effort comes from the actuator positions and velocities
    (the deflection and its rate), which no Jacobian gives; it has the two functional maps.
    """

    def __init__(self, reduction: float, stiffness: float | None = None, damping: float = 0.0,
                 deflections: Any = None, torques: Any = None,
                 joint_offset: float = 0.0) -> None:
        self.n, self.k, self.d, self.q0 = reduction, stiffness, damping, joint_offset
        self.x = None if deflections is None else np.asarray(deflections, dtype=float)
        self.t = None if torques is None else np.asarray(torques, dtype=float)

    @staticmethod
    def _interpolate(v: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Piecewise-linear y(v) through the points, its end segments extended."""
        below = y[0] + (v - x[0]) * ((y[1] - y[0]) / (x[1] - x[0]))
        above = y[-1] + (v - x[-1]) * ((y[-1] - y[-2]) / (x[-1] - x[-2]))
        return np.where(v < x[0], below, np.where(v > x[-1], above, np.interp(v, x, y)))

    def spring(self, delta: np.ndarray) -> np.ndarray:
        """Return s(delta)."""
        if self.k is not None:
            return self.k * delta
        return self._interpolate(delta, self.x, self.t)

    def inverse_spring(self, tau: np.ndarray) -> np.ndarray:
        """Return s^-1(tau)."""
        if self.k is not None:
            return tau / self.k
        return self._interpolate(tau, self.t, self.x)

    def actuator_to_joint(self, values: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Return q = theta_e + q0, qdot = thetadot_e, tau = s(delta) + d deltadot."""
        out = {}
        theta, rate = values.get('position'), values.get('velocity')
        with np.errstate(all='ignore'):
            if theta is not None:
                out['position'] = theta[..., 1:] + self.q0
            if rate is not None:
                out['velocity'] = rate[..., 1:].copy()
            if 'effort' in values:
                if theta is None or rate is None:
                    out['effort'] = np.full(values['effort'].shape[:-1] + (1,), np.nan)
                else:
                    delta = theta[..., :1] / self.n - theta[..., 1:]
                    deflection_rate = rate[..., :1] / self.n - rate[..., 1:]
                    out['effort'] = self.spring(delta) + self.d * deflection_rate
        return out

    def joint_to_actuator(self, values: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Return the unloaded pose [n (q - q0), q - q0], [n qdot, qdot], and [tau / n, 0]."""
        out = {}
        with np.errstate(all='ignore'):
            if 'position' in values:
                e = values['position'] - self.q0
                out['position'] = np.concatenate([self.n * e, e], axis=-1)
            if 'velocity' in values:
                v = values['velocity']
                out['velocity'] = np.concatenate([self.n * v, v], axis=-1)
            if 'effort' in values:
                tau = values['effort']
                out['effort'] = np.concatenate([tau / self.n, np.zeros_like(tau)], axis=-1)
        return out


def reference(transmission: Transmission) -> Mechanism | SeriesElasticReference:
    """Return the numpy reference of a built-in mechanism, built from its constructor arguments."""
    if isinstance(transmission, ParallelAnkleTransmission):
        return AnkleReference(**transmission.parameters())
    if isinstance(transmission, SliderCrankTransmission):
        return UnwrappedSliderCrankReference(
            transmission.joint_range() + transmission.actuator_range(),
            **transmission.parameters())
    if isinstance(transmission, TableTransmission):
        return TableReference(**transmission.parameters())
    if isinstance(transmission, PR2GripperTransmission):
        return GripperReference(**transmission.parameters(),
                                num_passive_joints=transmission.num_passive_joints(),
                                num_simulated_joints=transmission.num_simulated_joints())
    if isinstance(transmission, SeriesElasticTransmission):
        return SeriesElasticReference(**transmission.parameters())
    raise TypeError(f'no numpy reference for {type(transmission).__name__}')


def linear_reference(matrix: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Return ``matrix @ x`` over a batch as the kernel's rows do: structural non-zeros only."""
    out = np.zeros(x.shape[:-1] + matrix.shape[:1])
    with np.errstate(all='ignore'):
        _rows(matrix, x, out)
    return out


def _rows(matrix: np.ndarray, x: np.ndarray, out: np.ndarray) -> None:
    for r in range(matrix.shape[0]):
        cols = np.flatnonzero(matrix[r])
        if cols.size:
            terms = x[..., cols] * matrix[r, cols]
            total = terms[..., 0]
            for k in range(1, cols.size):
                total = total + terms[..., k]
            out[..., r] = total
