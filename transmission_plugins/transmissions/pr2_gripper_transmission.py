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
PR2GripperTransmission: one motor opens the PR2 gripper through a screw and a linkage.

Lookup names: ``pr2_mechanism_model/PR2GripperTransmission`` and the 2010 name
``PR2GripperTransmission``.  The maths follows ``pr2_mechanism_model/src/
pr2_gripper_transmission.cpp`` (PR2/pr2_mechanism), clamps included.
"""

import math
from typing import Any
from typing import Callable

import numpy as np

from transmission_plugins.core import kernel
from transmission_plugins.core.checks import check_finite
from transmission_plugins.core.checks import check_positive
from transmission_plugins.core.checks import check_reduction
from transmission_plugins.core.checks import FloatArray
from transmission_plugins.core.compiled_transmission import CompiledTransmission
from transmission_plugins.core.exceptions import TransmissionValueError
from transmission_plugins.core.mechanism import Mechanism
from transmission_plugins.core.transmission import KernelRecord
from transmission_plugins.urdf.pr2_elements import GRIPPER_COEFFICIENTS
from transmission_plugins.urdf.pr2_elements import gripper_from_info
from transmission_plugins.urdf.pr2_elements import GRIPPER_VOCABULARY
from transmission_plugins.urdf.records import TransmissionInfo
from transmission_plugins.urdf.records import TransmissionWiring

#: Motor revolutions per radian (the C++ ``RAD2MR``).
RAD2MR = 1.0 / (2.0 * math.pi)
#: Floor of the ``1 - u^2`` terms under the Jacobians' square roots (the C++ ``TOL``).
TOL = 1e-5
#: The floor of :math:`w` and :math:`c` (class docstring): ``sqrt(max(x, TOL))`` equals
#: ``max(sqrt(x), SQRT_TOL)``, sqrt being correctly rounded.
SQRT_TOL = math.sqrt(TOL)


class PR2GripperTransmission(CompiledTransmission, Mechanism):
    r"""
    Implement the PR2 gripper: a motor, a lead screw and a four-bar linkage open a gap.

    Actuator to joint, with :math:`P_a, V_a, E_a` the motor position, velocity and effort:

    .. math::

        M = \frac{P_a}{2\pi m}, \quad
        u = \operatorname{clamp}_{[-1,1]}
            \frac{a^2 + b^2 - h^2 - (L_0 + M s/g)^2}{2ab}, \quad
        \theta = \theta_0 - \phi_0 + \arccos u, \quad
        t = t_0 + r(\sin\theta - \sin\theta_0)

        \frac{d\theta}{dM} = \frac{-1}{\sqrt{\max(1 - u_+^2, 10^{-5})}}
            \left(-\frac{L_0 s}{g a b} - \frac{M_+}{ab}\frac{s^2}{g^2}\right), \quad
        \frac{dt}{dM} = r \cos\theta_+ \frac{d\theta}{dM}

        q_{gap} = 2t, \quad \dot q_{gap} = 2 \frac{dt}{dM} \frac{V_a}{2\pi m}, \quad
        \tau_{gap} = \frac{1}{2} \frac{2\pi E_a / m}{dt/dM}

        q_{p} = \theta - \theta_0, \quad \dot q_{p} = \frac{d\theta}{dM}\frac{V_a}{2\pi m}, \quad
        \tau_{p} = \frac{2\pi E_a / m}{d\theta/dM}

    where :math:`m` is ``mechanical_reduction``, :math:`M` the motor revolutions, :math:`s` the
    screw lead (m/rev), :math:`g` the gear ratio, :math:`t` the *half* gap, :math:`q_p` every
    passive finger joint, and :math:`u_+, \theta_+` are :math:`u, \theta` recomputed at
    :math:`M_+ = \max(M, 0)`: the Jacobians are evaluated at :math:`M \ge 0` while the position
    is not clamped, so squeezing past closed reports a negative gap.

    Joint to actuator (only the gap joint is read; passive joints cannot be commanded):

    .. math::

        \theta = \arcsin \operatorname{clamp}_{[-1,1]}
            \left(\frac{q_{gap}/2 - t_0}{r} + \sin\theta_0\right), \quad
        A = a^2 + b^2 - h^2 - 2ab\cos(\theta - \theta_0 + \phi_0)

        M = \frac{g}{s}(\sqrt{A} - L_0), \quad
        \frac{dM}{d\theta} = \frac{g}{2s}\frac{2ab\sin(\theta + \phi_0 - \theta_0)}{\sqrt A},
        \quad \frac{d\theta}{dt} = \frac{1}{r\sqrt{\max(1 - \sin^2\theta, 10^{-5})}}

        P_a = 2\pi m M, \quad
        V_a = 2\pi m \frac{dM}{d\theta}\frac{d\theta}{dt}\frac{\dot q_{gap}}{2}, \quad
        E_a = \frac{2\tau_{gap} m}{2\pi\,|dM/d\theta|\,d\theta/dt}

    (for :math:`A \le 0`, :math:`M = -gL_0/s` and :math:`dM/d\theta = 0`, as in the C++).

    The kernels evaluate the sines and cosines of :math:`\theta` without trigonometric calls
    (five per sample and direction in the C++: they would dominate a batch), only
    :math:`\arccos u` remains, for the passive angle.  With :math:`\delta = \theta_0 - \phi_0`,
    :math:`w = \sin(\arccos u) = \sqrt{(1 - u)(1 + u)}`, and in the inverse
    :math:`\sigma = \sin\theta` (the clamped argument of the arcsine) and
    :math:`c = \cos\theta = \sqrt{(1 - \sigma)(1 + \sigma)} \ge 0`:

    .. math::

        \sin\theta = u\sin\delta + w\cos\delta, \quad
        \cos\theta = u\cos\delta - w\sin\delta, \quad
        \sqrt{\max(1 - u^2, 10^{-5})} = \max(w, \sqrt{10^{-5}})

        \cos(\theta - \delta) = c\cos\delta + \sigma\sin\delta, \quad
        \sin(\theta - \delta) = \sigma\cos\delta - c\sin\delta, \quad
        \sqrt{\max(1 - \sigma^2, 10^{-5})} = \max(c, \sqrt{10^{-5}})

    The results differ from the C++ formulas by rounding only (the tests bound it: 1e-12 relative
    over the working range); :math:`(1 - u)(1 + u)` is the more accurate near :math:`|u| = 1`.

    With
    :math:`m = 1` power is conserved on the gap joint, :math:`\tau_{gap}\dot q_{gap} = E_a V_a`;
    like the C++, the efforts divide by :math:`m` where the positions do (both directions stay
    inverse to each other, power scales by :math:`1/m^2`).  Each passive joint reports the full
    motor torque seen through :math:`d\theta/dM`, as the C++ does.

    It is a :class:`~transmission_plugins.core.mechanism.Mechanism`: both position maps above
    are closed forms, with their Jacobians
    :math:`J = \partial q/\partial P_a` (gap row :math:`2\,(dt/dM)/(2\pi m)`, passive rows
    :math:`(d\theta/dM)/(2\pi m)`, evaluated at :math:`M_+`) and
    :math:`K = \partial P_a/\partial q` (gap column :math:`2\pi m\,(dM/d\theta)(d\theta/dt)/2`,
    the others 0), so velocities are the derived :math:`\dot q = J\dot P_a` and
    :math:`\dot P_a = K\dot q`.  The efforts keep the C++'s rules, which are not the derived
    least-squares ones: every joint reports the whole motor effort through its own ratio,
    :math:`\tau_i = E_a/(m^2 J_i)`, and :math:`E_a = m|m|\,\tau_{gap}/|K_{gap}|`.

    Joints, in map order: the gap joint, ``num_passive_joints`` passive joints, then
    ``num_simulated_joints`` (0, 1 or 2) simulated screw/slider joints whose position, velocity
    and effort are always 0 (the C++ fills them with zeros too).

    Non-finite inputs never raise: NaN propagates to every output that depends on it (unlike the
    C++, where ``NaN >= 0`` is false and the Jacobian silently falls back to :math:`M = 0`);
    infinite positions saturate through the clamps, and infinite Jacobians give inf or NaN.

    :param screw_reduction: screw lead :math:`s` in m per revolution; finite, non-zero
    :param gear_ratio: motor gearbox ratio :math:`g`; finite, non-zero
    :param theta0: :math:`\theta_0`, linkage angle when closed (rad); finite
    :param phi0: :math:`\phi_0` (rad); finite
    :param t0: :math:`t_0`, half gap when closed (m); finite
    :param L0: :math:`L_0`, screw nut distance when closed (m); finite
    :param h: :math:`h`, linkage offset (m); finite, >= 0
    :param a: :math:`a` (m); finite, > 0
    :param b: :math:`b` (m); finite, > 0
    :param r: :math:`r`, finger length (m); finite, > 0
    :param mechanical_reduction: :math:`m`, encoder units per motor radian; finite, non-zero
    :param num_passive_joints: number of passive finger joints; an int >= 0
    :param num_simulated_joints: 0, 1 (screw) or 2 (screw and slider) simulation-only joints
    :param simulated_reduction: the URDF ``simulated_reduction`` (kept, not used by the maps);
        None or finite and > 0
    :raises TransmissionValueError: for any value outside these ranges
    """

    ACTUATOR_ROLES = ('actuator1',)
    URDF_VOCABULARY = GRIPPER_VOCABULARY

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

    def kernel_record(self) -> KernelRecord:
        """Return the gripper's record in the compiled kernel (``src/kernel/pr2_gripper.c``)."""
        return KernelRecord(kernel.PR2_GRIPPER, np.array([
            self._k, self._L0, self._c0, self._two_ab, self._two_r_sd, self._two_r_cd,
            self._gap0, self._p2m, self._kab, self._du0, self._phi0, self._q2s, self._s0,
            self._two_ab_cd, self._two_ab_sd, self._m2p_gs, self._dm_dtheta, self._cos_delta,
            self._sin_delta, self._r, self._v_motor, self._mr, SQRT_TOL, self._num_passive,
            self._num_simulated]))

    # ------------------------------------------------------------------ URDF and reports
    @classmethod
    def example(cls) -> tuple['PR2GripperTransmission', dict[str, FloatArray]]:
        """
        Return the PR2's gripper (4 passive joints) and four motor states.

        The gaps range from nearly closed (4 mm) to wide open (144 mm).
        """
        gripper = cls(screw_reduction=0.004, gear_ratio=40.095, theta0=0.0628824676201037,
                      phi0=0.5185181221457433, t0=-0.0001914, L0=0.0375528, h=0.0,
                      a=0.0683698, b=0.0433849, r=0.0915, mechanical_reduction=1.0,
                      num_passive_joints=4)
        return gripper, {'position': np.array([[50.0], [400.0], [1405.74], [2500.0]]),
                         'velocity': np.array([[10.0], [-5.0], [20.0], [0.0]]),
                         'effort': np.array([[0.1], [-0.4], [0.25], [1.0]])}

    @classmethod
    def from_info(cls, info: TransmissionInfo) -> TransmissionWiring:
        """Build from a ``<transmission>`` record; :func:`gripper_from_info` reads it."""
        return gripper_from_info(cls, info)

    def __repr__(self) -> str:
        args = ', '.join(f'{k}={v!r}' for k, v in self.parameters().items())
        extra = ''
        if self._num_simulated:
            extra = (f', num_simulated_joints={self._num_simulated}, '
                     f'simulated_reduction={self._simulated_reduction!r}')
        return f'PR2GripperTransmission({args}, num_passive_joints={self._num_passive}{extra})'

    def __str__(self) -> str:
        p = self.parameters()
        return (f'PR2GripperTransmission: 1 actuator -> gap joint + {self._num_passive} passive '
                f'+ {self._num_simulated} simulated joints, mechanical reduction {self._mr:g}, '
                f'screw {p["screw_reduction"]:g} m/rev, gear ratio {p["gear_ratio"]:g}, '
                f'linkage a={p["a"]:g} b={p["b"]:g} r={p["r"]:g} h={p["h"]:g} L0={p["L0"]:g} '
                f't0={p["t0"]:g} theta0={p["theta0"]:g} phi0={p["phi0"]:g}')


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
