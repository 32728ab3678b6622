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
The constants of the PR2 gripper's closed forms, checked: finite (and non-zero where they divide).

Coefficients that are each finite, such as ``a = 1e308`` or ``gear_ratio = 5e-324``, can make
:math:`a^2 + b^2 - h^2` or :math:`s/g` infinite or zero.  :func:`checked_constant` then raises
a ``TransmissionValueError`` naming the coefficient of the most extreme magnitude (largest log-
magnitude) among those the constant uses.

:class:`PR2GripperConstants` computes them once per transmission.  Products of constants that
always meet in the formulas are folded into one (the gap
:math:`2t = 2r\sin\delta\,u + 2r\cos\delta\,w + 2(t_0 - r\sin	heta_0)`, ...): one multiplication
per sample instead of several; the results differ from the unfolded formulas by rounding only.
"""

import math
from typing import Callable
from typing import Mapping
from typing import Tuple

from transmission_plugins.core.exceptions import TransmissionValueError


def checked_constant(formula: str, coefficients: Tuple[str, ...], values: Mapping[str, float],
                     compute: Callable[[], float], nonzero: bool = False) -> float:
    """
    Return ``compute()`` when it is finite (and non-zero with ``nonzero``).

    :param formula: the constant as written in the message (``'s/g'``)
    :param coefficients: the URDF names of the coefficients it uses
    :param values: URDF coefficient name -> value
    :raises TransmissionValueError: the constant overflows, is NaN or vanishes
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


#: Motor revolutions per radian (the C++ ``RAD2MR``).
RAD2MR = 1.0 / (2.0 * math.pi)
#: Floor of the ``1 - u^2`` terms under the Jacobians' square roots (the C++ ``TOL``).
TOL = 1e-5
#: :math:`\sqrt{10^{-5}}`: the floor of :math:`w` and :math:`c` under the Jacobians (module
#: docstring of the linkage); ``sqrt(max(x, TOL)) == max(sqrt(x), SQRT_TOL)`` as sqrt is
#: correctly rounded.
SQRT_TOL = math.sqrt(TOL)


class PR2GripperConstants:
    """
    The checked constants of the linkage, from the coefficients the transmission validated.

    The transmission stores the coefficients as ``_s, _g, _theta0, _phi0, _t0, _L0, _h, _a,
    _b, _r, _mr``, then calls :meth:`_set_linkage`.
    """

    _s: float
    _g: float
    _theta0: float
    _phi0: float
    _t0: float
    _L0: float
    _h: float
    _a: float
    _b: float
    _r: float
    _mr: float

    def _set_linkage(self) -> None:
        """
        Precompute the constants of the closed forms.

        :raises TransmissionValueError: a constant overflows or vanishes (coefficients that are
            each finite, such as ``a = 1e308`` or ``gear_ratio = 5e-324``, can make
            :math:`a^2 + b^2 - h^2` or :math:`s/g` infinite or zero); the message names the
            coefficient of the most extreme magnitude among those the constant uses
        """
        s, g, a, b, h, L0, r, mr = (self._s, self._g, self._a, self._b, self._h, self._L0,
                                    self._r, self._mr)
        c = self._constant
        self._sin_theta0 = math.sin(self._theta0)
        delta = self._theta0 - self._phi0
        self._sin_delta, self._cos_delta = math.sin(delta), math.cos(delta)
        sd, cd = self._sin_delta, self._cos_delta
        screw = ('screw_reduction', 'gear_ratio')
        self._k = k = c('s/g', screw, lambda: s / g, True)
        self._c0 = c('a^2 + b^2 - h^2', ('a', 'b', 'h'), lambda: a ** 2 + b ** 2 - h ** 2)
        self._two_ab = two_ab = c('2ab', ('a', 'b'), lambda: 2.0 * a * b, True)
        ab = c('ab', ('a', 'b'), lambda: a * b, True)
        k2 = c('(s/g)^2', screw, lambda: k ** 2, True)
        # actuator to joint: M = P p2m; gap = g_u u + g_w w + g_0; passive = acos u - phi0
        m = ('mechanical_reduction',)
        self._p2m = p2m = c('1 / (2 pi m)', m, lambda: RAD2MR / mr, True)
        self._g_u = c('2 r sin(theta0 - phi0)', ('r',), lambda: 2.0 * r * sd)
        self._g_w = c('2 r cos(theta0 - phi0)', ('r',), lambda: 2.0 * r * cd)
        self._g_0 = c('2 (t0 - r sin theta0)', ('t0', 'r'),
                      lambda: 2.0 * (self._t0 - r * self._sin_theta0))
        # dtheta/dM = (M kab - du0) / max(w, SQRT_TOL); dt/dM = (u r_cd - w r_sd) dtheta/dM
        self._kab = c('(s/g)^2 / (ab)', screw + ('a', 'b'), lambda: k2 / ab)
        self._du0 = c('L0 s / (g a b)', ('L0',) + screw + ('a', 'b'),
                      lambda: -(L0 * s) / (g * a * b))
        self._r_cd = c('r cos(theta0 - phi0)', ('r',), lambda: r * cd)
        self._r_sd = c('r sin(theta0 - phi0)', ('r',), lambda: r * sd)
        self._v_gap = c('2 / (2 pi m)', m, lambda: 2.0 * p2m, True)
        self._e_gap = c('1 / (2 (2 pi m))', m, lambda: 1.0 / (2.0 * RAD2MR * mr), True)
        self._e_passive = c('2 pi / m', m, lambda: 1.0 / (RAD2MR * mr), True)
        # joint to actuator: sin theta = q q2s + s0; A = c0 - (c a_c + sigma a_s)
        self._q2s = c('1 / (2r)', ('r',), lambda: 1.0 / (2.0 * r), True)
        self._s0 = c('sin theta0 - t0 / r', ('t0', 'r'), lambda: self._sin_theta0 - self._t0 / r)
        self._a_c = c('2ab cos(theta0 - phi0)', ('a', 'b'), lambda: two_ab * cd)
        self._a_s = c('2ab sin(theta0 - phi0)', ('a', 'b'), lambda: two_ab * sd)
        # P = sqrt(A) p_root - p_0 (A > 0), else p_closed; dM/dtheta = dm_ab / sqrt(A) (...)
        m2p = c('2 pi m', m, lambda: mr / RAD2MR, True)
        self._p_root = c('2 pi m g / s', m + screw, lambda: m2p / k, True)
        self._p_0 = c('2 pi m g L0 / s', m + screw + ('L0',), lambda: L0 * m2p / k)
        self._p_closed = c('-2 pi m g L0 / s', m + screw + ('L0',), lambda: -L0 / k * m2p)
        self._dm_ab = c('g a b / s', screw + ('a', 'b'), lambda: g / (2.0 * s) * two_ab, True)
        self._inv_r = c('1 / r', ('r',), lambda: 1.0 / r, True)
        self._v_motor = c('2 pi m / 2', m, lambda: m2p / 2.0, True)
        self._e_motor = c('2 m / (2 pi)', m, lambda: 2.0 * RAD2MR * mr, True)

    def _constant(self, formula: str, coefficients: Tuple[str, ...],
                  compute: Callable[[], float], nonzero: bool = False) -> float:
        """Return ``compute()``, checked by :func:`checked_constant`."""
        attributes = {'screw_reduction': '_s', 'gear_ratio': '_g', 'L0': '_L0',
                      'mechanical_reduction': '_mr'}
        values = {c: float(getattr(self, attributes.get(c, f'_{c}'))) for c in coefficients}
        return checked_constant(formula, coefficients, values, compute, nonzero)
