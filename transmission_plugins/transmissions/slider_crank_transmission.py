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

import numpy as np

from transmission_plugins.core import kernel
from transmission_plugins.core.checks import check_array
from transmission_plugins.core.compiled_transmission import CompiledTransmission
from transmission_plugins.core.exceptions import TransmissionValueError
from transmission_plugins.core.mechanism import DEAD_POINT
from transmission_plugins.core.mechanism import Mechanism
from transmission_plugins.core.transmission import KernelRecord
from transmission_plugins.urdf.mechanism_elements import slider_crank_from_info
from transmission_plugins.urdf.mechanism_elements import SLIDER_CRANK_VOCABULARY
from transmission_plugins.urdf.records import TransmissionInfo
from transmission_plugins.urdf.records import TransmissionWiring

_WHERE = 'SliderCrankTransmission'
#: Steps of a turn scanned for the ends of a branch (then found by bisection).
_SCAN = 4096


class SliderCrankTransmission(CompiledTransmission, Mechanism):
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
    :math:`\operatorname{atan2}(D_y E + D_x w, D_x E - D_y w)`, measured from its neutral value;
    :math:`s = \pm 1` is the branch of the neutral pose.  On that branch the joint (and a crank)
    moves within an interval between its dead points, found once at construction
    (:meth:`joint_range`, :meth:`actuator_range`), which may reach past :math:`\pm\pi` on one
    side: each angle the maps give is taken into its interval (a joint beyond :math:`\pi` of the
    neutral pose comes back as itself, a crank-rocker's motor command does not jump by a turn), and
    a joint position read modulo a turn outside its interval is outside the workspace
    (:meth:`workspace_problems` says so).
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
        # signs (and those of each side's w) are the branches kept everywhere
        rod = self._a0 - self._p0
        motion = (np.array([-(self._a0 - self._m)[1], (self._a0 - self._m)[0]]) if self._rotary
                  else self._u)
        on_a = float(np.dot(rod, motion)) / (self._l * (self._ra if self._rotary else 1.0))
        on_p = float(rod[0] * -self._p0[1] + rod[1] * self._p0[0]) / (self._l * self._rj)
        for value, name, dead in ((on_a, names[1], "the actuator's"),
                                  (on_p, 'lever_tip', "the joint's")):
            if not abs(value) > DEAD_POINT:
                raise TransmissionValueError(
                    name, self._points[name].tolist(), f'a rod away from {dead} dead point at the '
                    "neutral pose (there it is square to the actuator's motion, or in line with "
                    'the lever)', _WHERE)
        d = self._p0 - self._m
        wa = (np.dot(self._u, rod) if not self._rotary
              else d[0] * self._u[1] - d[1] * self._u[0])
        sj = self._a0[0] * self._lever0[1] - self._a0[1] * self._lever0[0]
        # the kernel's parameters (src/kernel/slider_crank.c); the branch intervals last, found
        # with the maps unbounded
        self._parameters = np.array(
            [float(self._rotary), *self._m, *self._a0, *self._u, self._ra, self._rj, self._l,
             *self._lever0, np.sign(wa), np.sign(sj), np.sign(on_a), np.sign(on_p),
             -np.inf, np.inf, -np.inf, np.inf])
        bounds = self._interval(False) + (self._interval(True) if self._rotary
                                          else (-np.inf, np.inf))
        self._parameters[16:] = bounds
        self.__dict__.pop('_flat_description')

    def _interval(self, to_joint: bool) -> tuple[float, float]:
        """
        Return the interval of the neutral branch of a side's angle: its dead points about 0.

        The map from that side (joint to actuator for the joint, actuator to joint for a
        crank) is defined on it; ``(-inf, inf)`` where the branch goes all round.
        """
        grid = np.arange(1, _SCAN + 1) * (2.0 * np.pi / _SCAN)
        ends = []
        for sign in (1.0, -1.0):
            x = sign * grid
            undefined = np.flatnonzero(~np.isfinite(self._positions(x[:, None], to_joint)[:, 0]))
            if not undefined.size:
                ends.append(sign * np.inf)
                continue
            k = int(undefined[0])
            good, bad = (0.0 if k == 0 else float(x[k - 1])), float(x[k])
            for _ in range(60):
                middle = 0.5 * (good + bad)
                if np.isfinite(self._positions(np.array([[middle]]), to_joint)[0, 0]):
                    good = middle
                else:
                    bad = middle
            ends.append(good)
        return ends[1], ends[0]

    def _positions(self, x: np.ndarray, to_joint: bool) -> np.ndarray:
        return self.description().convert({'position': x}, to_joint)['position']

    def kernel_record(self) -> KernelRecord:
        """Return the pushrod's record in the compiled kernel (``src/kernel/slider_crank.c``)."""
        return KernelRecord(kernel.SLIDER_CRANK, self._parameters)

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

    def joint_range(self) -> tuple[float, float]:
        """Return the joint's interval on the neutral branch, between its dead points (rad)."""
        return float(self._parameters[16]), float(self._parameters[17])

    def actuator_range(self) -> tuple[float, float]:
        """Return a crank's interval on the neutral branch (rad); ``(-inf, inf)`` for a slider."""
        return float(self._parameters[18]), float(self._parameters[19])

    # ------------------------------------------------------------------ workspace
    def named_problems(self, position: np.ndarray, to_joint: bool) -> list[str]:
        """Say which side's dead point a position is at, or beyond, or that it is off its range."""
        side, other = ('actuator', 'joint') if to_joint else ('joint', 'actuator')
        target, on_p, on_a = self.kernel_terms(position, to_joint)
        value = f'{side} position {float(position[0]):.6g}'
        if not np.isfinite(target):
            return [f"{value} is beyond the {other}'s dead point: the rod ({self._l:.6g} m) "
                    f'reaches no {other} position']
        neutral_a, neutral_p = self._parameters[14], self._parameters[15]
        for projection, neutral, dead, why in (
                (on_a, neutral_a, "the actuator's", "square to the actuator's motion"),
                (on_p, neutral_p, "the joint's", 'in line with the lever')):
            if abs(projection) <= DEAD_POINT:
                return [f'{value} is at {dead} dead point: the rod is {why}']
            if projection * neutral < 0.0:
                return [f'{value} is beyond {dead} dead point (where the rod is {why})']
        low, high = self.joint_range()
        x = float(position[0])
        if not to_joint and not low <= x <= high:
            same = x - 2.0 * np.pi * np.round((x - 0.5 * (low + high)) / (2.0 * np.pi))
            return [f"{value} is outside the joint's range between its dead points "
                    f'[{low:.6g}, {high:.6g}] rad (the same pose as {same:.6g})']
        return []

    # ------------------------------------------------------------------ URDF, contract, reports
    @classmethod
    def from_info(cls, info: TransmissionInfo) -> TransmissionWiring:
        """Build from a ``<transmission>`` record; :func:`slider_crank_from_info` reads it."""
        return slider_crank_from_info(cls, info)

    @classmethod
    def example(cls) -> tuple['SliderCrankTransmission', dict[str, np.ndarray]]:
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
