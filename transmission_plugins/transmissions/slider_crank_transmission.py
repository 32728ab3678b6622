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
SliderCrankTransmission: a rotary or linear actuator turns a joint through a rod (pushrod).

Lookup name: ``transmission_plugins/SliderCrankTransmission``.  A rod links the actuator (the
tip of a motor's crank, or a linear actuator's slider: a ball screw, a hydraulic cylinder's
piston) to a lever on the joint, in the joint's plane: Valkyrie's ankle and waist, knee
pushrods.  The URDF reading lives in :mod:`transmission_plugins.urdf.mechanism_elements`.
"""

from typing import Any
from typing import Dict
from typing import List
from typing import Tuple

import numpy as np

from transmission_plugins.core.checks import check_array
from transmission_plugins.core.exceptions import TransmissionValueError
from transmission_plugins.core.mechanism import DEAD_POINT
from transmission_plugins.core.mechanism import Mechanism
from transmission_plugins.urdf.mechanism_elements import slider_crank_from_info
from transmission_plugins.urdf.mechanism_elements import SLIDER_CRANK_VOCABULARY
from transmission_plugins.urdf.records import TransmissionInfo
from transmission_plugins.urdf.records import TransmissionWiring

_WHERE = 'SliderCrankTransmission'


def _on_circle(dx: Any, dy: Any, radius: Any, length: float,
               sign: float) -> Tuple[Any, Any, Any, Any]:
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


class SliderCrankTransmission(Mechanism):
    r"""
    Implement a pushrod: a rod from a crank or a slider to a lever on the joint.

    Geometry, in the joint's plane at the neutral pose (joint and actuator at 0), origin on the
    joint axis, angles counter-clockwise, lengths in metres: the lever's rod end
    ``lever_tip`` :math:`P_0`, and either a rotary actuator, its crank turning about
    ``crank_pivot`` :math:`M` with its rod end at ``crank_tip`` :math:`A_0`, or a linear
    actuator whose rod end ``slider_tip`` :math:`A_0` moves along ``slider_axis`` :math:`u`
    (normalised here).  Derived: the lever :math:`r_j = |P_0|`, the rod
    :math:`l = |A_0 - P_0|`, the crank :math:`r_a = |A_0 - M|`.  The joint at :math:`q` puts the
    lever's end at :math:`P = R(q)P_0`; the actuator at :math:`\theta` puts the rod's other end
    at :math:`A = M + R(\theta)(A_0 - M)` (rotary, :math:`\theta` in rad) or
    :math:`A = A_0 + \theta u` (linear, :math:`\theta` in m).  The loop closes when
    :math:`|A - P| = l`, which both directions solve in closed form (a circle, or a line, meets a
    circle), each on the branch of the neutral pose:

    .. math::

        \text{rotary, } \theta(q):\ D = P - M, \quad
        \text{linear, } \theta(q) = \frac{-c}{h + s\sqrt{h^2 - c}},\ h = u\cdot(A_0 - P),\
        c = |A_0 - P|^2 - l^2

        q(\theta):\ D = A

    where, for a point :math:`D` and a circle of radius :math:`R` about the origin
    (:math:`r_a` about :math:`M`, :math:`r_j` about the joint axis),
    :math:`E = (|D|^2 + R^2 - l^2)/(2R)`, :math:`w = s\sqrt{|D|^2 - E^2}` and the angle is
    :math:`\operatorname{atan2}(D_y E + D_x w, D_x E - D_y w)`, measured from its neutral value
    (in :math:`(-\pi, \pi]`); :math:`s = \pm 1` is the branch of the neutral pose.
    Differentiating :math:`|A - P|^2 = l^2` gives

    .. math::

        K = \frac{\partial\theta}{\partial q} = \frac{(A - P)\cdot P'}{(A - P)\cdot A'},
        \qquad J = K^{-1}, \qquad P' = \hat z\times P,\quad
        A' = \hat z\times(A - M) \text{ (rotary) or } u \text{ (linear)}

    and, derived, :math:`\dot q = J\dot\theta`, :math:`\tau = K u`, :math:`u = J\tau` (power is
    conserved).  Dead points: the actuator's where the rod is square to the actuator's motion
    (:math:`(A - P)\cdot A' = 0`, the joint's extreme position, :math:`J = 0`), the joint's
    where the rod is in line with the lever (:math:`(A - P)\cdot P' = 0`, the actuator's extreme
    position, :math:`K = 0`); beyond them the maps give NaN and :meth:`workspace_problems` says
    which.

    :param lever_tip: :math:`P_0`, 2 numbers (m), not on the joint axis
    :param crank_pivot: :math:`M`, 2 numbers (m): a rotary actuator (with ``crank_tip``)
    :param crank_tip: :math:`A_0`, 2 numbers (m), not at ``crank_pivot``
    :param slider_tip: :math:`A_0`, 2 numbers (m): a linear actuator (with ``slider_axis``)
    :param slider_axis: :math:`u`, 2 numbers, not both 0
    :raises TransmissionValueError: another set of points, numbers that are not finite, a
        lever, crank or rod of length 0, or a neutral pose at a dead point
    """

    JOINT_ROLES = ('joint1',)
    ACTUATOR_ROLES = ('actuator1',)
    URDF_VOCABULARY = SLIDER_CRANK_VOCABULARY

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

    def parameters(self) -> Dict[str, List[float]]:
        """Return the points by keyword name (the constructor's; ``slider_axis`` as given)."""
        return {k: v.tolist() for k, v in self._points.items()}

    def rod_length(self) -> float:
        """Return :math:`l`, the rod's length (m)."""
        return self._l

    # ------------------------------------------------------------------ the loop
    def _lever(self, cos: Any, sin: Any) -> Tuple[Any, Any, Any, Any]:
        """Return the lever's rod end at the direction ``(cos, sin)``, and its derivative."""
        x, y = self._rj * cos, self._rj * sin
        return x, y, -y, x

    def _lever_at(self, q: Any) -> Tuple[Any, Any, Any, Any]:
        """Return the lever's rod end at the joint position ``q``, and its derivative."""
        c, s = np.cos(q), np.sin(q)
        return self._lever(c * self._lever0[0] - s * self._lever0[1],
                           s * self._lever0[0] + c * self._lever0[1])

    def _actuator(self, theta: Any) -> Tuple[Any, Any, Any, Any]:
        """Return the actuator's rod end at ``theta``, and its derivative."""
        if not self._rotary:
            return (self._a0[0] + theta * self._u[0], self._a0[1] + theta * self._u[1],
                    self._u[0], self._u[1])
        c, s = np.cos(theta), np.sin(theta)
        return self._crank(c * self._u[0] - s * self._u[1], s * self._u[0] + c * self._u[1])

    def _crank(self, cos: Any, sin: Any) -> Tuple[Any, Any, Any, Any]:
        x, y = self._ra * cos, self._ra * sin
        return self._m[0] + x, self._m[1] + y, -y, x

    def _loop(self, end: Tuple[Any, ...],
              lever: bool) -> Tuple[Any, Tuple[Any, ...], Tuple[Any, ...]]:
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
    def _projections(a: Tuple[Any, ...], p: Tuple[Any, ...]) -> Tuple[Any, Any]:
        r"""Return :math:`(A-P)\cdot P'` and :math:`(A-P)\cdot A'`."""
        rx, ry = a[0] - p[0], a[1] - p[1]
        return rx * p[2] + ry * p[3], rx * a[2] + ry * a[3]

    def _cosines(self, a: Tuple[Any, ...], p: Tuple[Any, ...]) -> Tuple[Any, Any]:
        """Return the projections of the rod on both ends' motions over their lengths."""
        on_p, on_a = self._projections(a, p)
        return (on_p / (self._l * self._rj),
                on_a / (self._l * (self._ra if self._rotary else 1.0)))

    def _closed(self, target: Any, a: Tuple[Any, ...], p: Tuple[Any, ...],
                to_joint: bool) -> Tuple[np.ndarray, np.ndarray]:
        """Return the other side's position and the Jacobian; NaN off the neutral branches."""
        on_p, on_a = self._projections(a, p)
        inside = (on_p * self._neutral_p > 0.0) & (on_a * self._neutral_a > 0.0)
        ratio = on_a / on_p if to_joint else on_p / on_a
        return (np.where(inside, target, np.nan),
                np.where(inside, ratio, np.nan)[..., None])

    def actuator_position_and_jacobian(self, joint_position: Any) -> Tuple[np.ndarray, Any]:
        """Return the actuator position and :math:`K` at ``joint_position`` (class docstring)."""
        q = self._position(joint_position, 'joint', 1)
        with np.errstate(all='ignore'):
            return self._closed(*self._loop(self._lever_at(q), True), False)

    def joint_position_and_jacobian(self, actuator_position: Any) -> Tuple[np.ndarray, Any]:
        """Return the joint position and :math:`J` at ``actuator_position`` (class docstring)."""
        theta = self._position(actuator_position, 'actuator', 1)
        with np.errstate(all='ignore'):
            return self._closed(*self._loop(self._actuator(theta), False), True)

    # ------------------------------------------------------------------ workspace
    def named_problems(self, position: np.ndarray, to_joint: bool) -> List[str]:
        """Say which side's dead point a position is at, or beyond."""
        side, other = ('actuator', 'joint') if to_joint else ('joint', 'actuator')
        with np.errstate(all='ignore'):
            end = self._actuator(position[0]) if to_joint else self._lever_at(position[0])
            target, a, p = self._loop(end, not to_joint)
            on_p, on_a = self._cosines(a, p)
        value = f'{side} position {float(position[0]):.6g}'
        if not np.isfinite(target):
            return [f"{value} is beyond the {other}'s dead point: the rod ({self._l:.6g} m) "
                    f'reaches no {other} position']
        for projection, neutral, dead, why in (
                (on_a, self._neutral_a, "the actuator's", "square to the actuator's motion"),
                (on_p, self._neutral_p, "the joint's", 'in line with the lever')):
            if abs(projection) <= DEAD_POINT:
                return [f'{value} is at {dead} dead point: the rod is {why}']
            if projection * neutral < 0.0:
                return [f'{value} is beyond {dead} dead point (where the rod is {why})']
        return []

    # ------------------------------------------------------------------ URDF, contract, reports
    @classmethod
    def from_info(cls, info: TransmissionInfo) -> TransmissionWiring:
        """Build from a ``<transmission>`` record; :func:`slider_crank_from_info` reads it."""
        return slider_crank_from_info(cls, info)

    @classmethod
    def example(cls) -> Tuple['SliderCrankTransmission', Dict[str, np.ndarray]]:
        """Return a linear actuator pushing a 5 cm lever, and five states in its range."""
        t = cls(lever_tip=[0.05, 0.0], slider_tip=[0.06, 0.25], slider_axis=[0.1, 1.0])
        rng = np.random.default_rng(25)
        q = rng.uniform(-0.8, 0.8, (5, 1))
        return t, {'position': t.actuator_position(q), 'velocity': rng.uniform(-0.2, 0.2, (5, 1)),
                   'effort': rng.uniform(-500.0, 500.0, (5, 1))}

    def __repr__(self) -> str:
        args = ', '.join(f'{k}={v!r}' for k, v in self.parameters().items())
        return f'SliderCrankTransmission({args})'

    def __str__(self) -> str:
        kind = (f'crank {self._ra:g} m' if self._rotary else 'linear actuator')
        return (f'SliderCrankTransmission: 1 actuator ({kind}) -> 1 joint (lever {self._rj:g} '
                f'm), rod {self._l:g} m')


def _angle(sin_r2: Any, cos_r2: Any, neutral: np.ndarray) -> Any:
    """Return the angle of ``(cos_r2, sin_r2)`` from the direction ``neutral``, in (-pi, pi]."""
    return np.arctan2(sin_r2 * neutral[0] - cos_r2 * neutral[1],
                      cos_r2 * neutral[0] + sin_r2 * neutral[1])
