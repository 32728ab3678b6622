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
The PR2 gripper's screw and four-bar linkage: closed forms and their derivatives.

With :math:`m` the mechanical reduction, :math:`s` the screw lead (m/rev), :math:`g` the gear
ratio and :math:`a, b, h, r, L_0, t_0, \theta_0, \phi_0` the linkage coefficients
(``pr2_mechanism_model/src/pr2_gripper_transmission.cpp``):

.. math::

    M = \frac{P_a}{2\pi m}, \quad
    u = \operatorname{clamp}_{[-1,1]} \frac{a^2 + b^2 - h^2 - (L_0 + M s/g)^2}{2ab}, \quad
    \theta = \theta_0 - \phi_0 + \arccos u, \quad
    t = t_0 + r(\sin\theta - \sin\theta_0)

    \frac{d\theta}{dM} = \frac{-1}{\sqrt{\max(1 - u_+^2, 10^{-5})}}
        \left(-\frac{L_0 s}{g a b} - \frac{M_+}{ab}\frac{s^2}{g^2}\right), \quad
    \frac{dt}{dM} = r \cos\theta_+ \frac{d\theta}{dM}

and the inverse from the half gap :math:`t`:

.. math::

    \theta = \arcsin \operatorname{clamp}_{[-1,1]}
        \left(\frac{t - t_0}{r} + \sin\theta_0\right), \quad
    A = a^2 + b^2 - h^2 - 2ab\cos(\theta - \theta_0 + \phi_0), \quad
    M = \frac{g}{s}(\sqrt{A} - L_0)

    \frac{dM}{d\theta} = \frac{g}{2s}\frac{2ab\sin(\theta + \phi_0 - \theta_0)}{\sqrt A},
    \quad \frac{d\theta}{dt} = \frac{1}{r\sqrt{\max(1 - \sin^2\theta, 10^{-5})}}

(:math:`A \le 0`: :math:`M = -gL_0/s`, :math:`dM/d\theta = 0`, as in the C++).  Every formula
exists twice, as one-sample :mod:`math` code (``*_sample``: a hardware interface converts one
sample per cycle, where numpy's per-call overhead dominates) and as vectorised numpy code; both
give the same numbers up to the last bit of libm.  :class:`PR2GripperLinkage` holds them for
:class:`~transmission_plugins.PR2GripperTransmission`, which maps them to the gap, passive and
simulated joints.
"""

import math
from typing import Any
from typing import Callable
from typing import cast
from typing import List
from typing import NamedTuple
from typing import Optional
from typing import Tuple
from typing import Union

import numpy as np
from numpy.typing import ArrayLike

from transmission_plugins.core.exceptions import TransmissionInputError
from transmission_plugins.transmissions.pr2_gripper_constants import checked_constant

#: Motor revolutions per radian (the C++ ``RAD2MR``).
RAD2MR = 1.0 / (2.0 * math.pi)
#: Floor of the ``1 - u^2`` terms under the Jacobians' square roots (the C++ ``TOL``).
TOL = 1e-5

#: The linkage coefficients, in the order of the constructor (URDF ``gap_joint`` attributes).
COEFFICIENTS = ('screw_reduction', 'gear_ratio', 'theta0', 'phi0', 't0', 'L0', 'h', 'a', 'b', 'r')

#: Batches of at most this many samples are converted one sample at a time with :mod:`math`:
#: on such tiny arrays each numpy call costs more than the arithmetic it does (a hardware
#: interface converts one sample per cycle; a robot's identical grippers are stacked into one
#: call).  Larger batches use numpy.  Both give the same results (to the last bit of libm).
SMALL_BATCH = 8

#: What the one-sample path may raise where numpy returns inf or NaN (x / 0, math domain
#: errors); the call is then redone with numpy.
_SCALAR_ERRORS = (ArithmeticError, ValueError)


#: per-sample factors of a state: a list of floats (small batches) or an array of the batch shape
Factors = Union[List[float], np.ndarray]


def _batch_arrays(shape: Tuple[int, ...], small: bool, first: Factors,
                  second: Factors) -> Tuple[np.ndarray, np.ndarray]:
    """Return two per-sample factors as arrays of ``shape`` (small states hold float lists)."""
    if not small:
        return cast(np.ndarray, first), cast(np.ndarray, second)
    return np.array(first).reshape(shape), np.array(second).reshape(shape)


class ForwardState(NamedTuple):
    """
    Per-call actuator-side state of the gripper: dtheta/dM and dt/dM for every sample.

    Made by :meth:`PR2GripperTransmission._prepare_actuator_state`; ``shape`` is the batch
    shape; a ``small`` state holds lists of floats (samples in C order), else arrays of
    ``shape``.
    """

    shape: Tuple[int, ...]
    dtheta_dm: Factors
    dt_dm: Factors
    small: bool

    def arrays(self) -> Tuple[np.ndarray, np.ndarray]:
        """Return dtheta/dM and dt/dM as arrays of the batch shape."""
        return _batch_arrays(self.shape, self.small, self.dtheta_dm, self.dt_dm)


class InverseState(NamedTuple):
    """Per-call joint-side state of the gripper: dM/dtheta and dtheta/dt for every sample."""

    shape: Tuple[int, ...]
    dm_dtheta: Factors
    dtheta_dt: Factors
    small: bool

    def arrays(self) -> Tuple[np.ndarray, np.ndarray]:
        """Return dM/dtheta and dtheta/dt as arrays of the batch shape."""
        return _batch_arrays(self.shape, self.small, self.dm_dtheta, self.dtheta_dt)


class PR2GripperLinkage:
    """
    The linkage maths of the PR2 gripper (module docstring), as a base of the transmission.

    The transmission validates the coefficients, stores them as ``_s, _g, _theta0, _phi0, _t0,
    _L0, _h, _a, _b, _r, _mr`` and its joint count as ``_nj``, then calls :meth:`_set_linkage`.
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
    _nj: int
    _num_passive: int
    _sim_zeros: List[float]

    def _set_linkage(self) -> None:
        """
        Precompute the constants of the closed forms from the validated coefficients.

        :raises TransmissionValueError: a constant overflows or vanishes (coefficients that are
            each finite, such as ``a = 1e308`` or ``gear_ratio = 5e-324``, can make
            :math:`a^2 + b^2 - h^2` or :math:`s/g` infinite or zero); the message names the
            coefficient of the most extreme magnitude among those the constant uses
        """
        # constants of the closed-form maps (each written as the expression it replaces, so
        # that the results do not change by a bit)
        s, g, a, b, h, L0 = self._s, self._g, self._a, self._b, self._h, self._L0
        self._sin_theta0 = math.sin(self._theta0)
        self._k = self._constant('s/g', ('screw_reduction', 'gear_ratio'), lambda: s / g, True)
        self._c0 = self._constant('a^2 + b^2 - h^2', ('a', 'b', 'h'),
                                  lambda: a ** 2 + b ** 2 - h ** 2)
        self._two_ab = self._constant('2ab', ('a', 'b'), lambda: 2.0 * a * b, True)
        self._theta_offset = self._theta0 - self._phi0
        self._ab = self._constant('ab', ('a', 'b'), lambda: a * b, True)
        k = self._k
        self._k2 = self._constant('(s/g)^2', ('screw_reduction', 'gear_ratio'),
                                  lambda: k ** 2, True)
        self._du0 = self._constant(  # du/dM at M = 0
            'L0 s / (g a b)', ('L0', 'screw_reduction', 'gear_ratio', 'a', 'b'),
            lambda: -(L0 * s) / (g * a * b))
        self._dm0 = self._constant('g / (2 s)', ('gear_ratio', 'screw_reduction'),
                                   lambda: g / (2.0 * s), True)
        # M where the linkage has no real solution
        self._m_closed = self._constant('L0 g / s', ('L0', 'screw_reduction', 'gear_ratio'),
                                        lambda: -L0 / k)

    def _constant(self, formula: str, coefficients: Tuple[str, ...],
                  compute: Callable[[], float], nonzero: bool = False) -> float:
        """Return ``compute()``, checked by :func:`.pr2_gripper_constants.checked_constant`."""
        attributes = {'screw_reduction': '_s', 'gear_ratio': '_g', 'L0': '_L0'}
        values = {c: float(getattr(self, attributes.get(c, f'_{c}'))) for c in coefficients}
        return checked_constant(formula, coefficients, values, compute, nonzero)

    # ------------------------------------------------------------------ one sample (math)
    # The scalar functions below repeat the numpy expressions of the array path operation by
    # operation (same order, same constants), so that both give the same numbers up to the last
    # bit of the libm functions; comparisons written as ``x < c`` let NaN through like np.clip
    # and np.maximum do.  Python raises where numpy returns inf or NaN (division by zero,
    # domain errors): callers then redo the call with numpy (:data:`_SCALAR_ERRORS`).
    def _position_sample(self, p: float) -> Tuple[float, float]:
        """Return (gap, passive angle) at motor position ``p``."""
        mrev = p / self._mr * RAD2MR
        length = self._L0 + mrev * self._k
        u = (self._c0 - length * length) / self._two_ab
        u = -1.0 if u < -1.0 else 1.0 if u > 1.0 else u
        theta = self._theta_offset + math.acos(u)
        half_gap = self._t0 + self._r * (math.sin(theta) - self._sin_theta0)
        return 2.0 * half_gap, theta - self._theta0

    def _forward_sample(self, p: float) -> Tuple[float, float]:
        """Return (dtheta/dM, dt/dM) at motor position ``p`` (evaluated at max(M, 0))."""
        m_plus = p / self._mr * RAD2MR
        if m_plus < 0.0:
            m_plus = 0.0
        length = self._L0 + m_plus * self._k
        u = (self._c0 - length * length) / self._two_ab
        u = -1.0 if u < -1.0 else 1.0 if u > 1.0 else u
        arg = 1.0 - u * u
        if arg < TOL:
            arg = TOL
        dtheta_dm = -1.0 / math.sqrt(arg) * (self._du0 - m_plus / self._ab * self._k2)
        dt_dm = self._r * math.cos(self._theta_offset + math.acos(u)) * dtheta_dm
        return dtheta_dm, dt_dm

    def _inverse_sample(self, q: float) -> Tuple[float, float, float]:
        """Return (M, dM/dtheta, dtheta/dt) at gap ``q``."""
        sin_theta = (q / 2.0 - self._t0) / self._r + self._sin_theta0
        sin_theta = -1.0 if sin_theta < -1.0 else 1.0 if sin_theta > 1.0 else sin_theta
        theta = math.asin(sin_theta)
        arg = self._c0 - self._two_ab * math.cos(theta - self._theta0 + self._phi0)
        if arg <= 0.0:
            mrev = self._m_closed
            dm_dtheta = 0.0
        else:  # NaN included, so that it propagates
            root = math.sqrt(arg)
            mrev = (root - self._L0) / self._k
            dm_dtheta = (self._dm0 / root * self._two_ab
                         * math.sin(theta + self._phi0 - self._theta0))
        u = (self._r * (math.sin(theta) - self._sin_theta0)) / self._r + self._sin_theta0
        arg2 = 1.0 - u * u
        if arg2 < TOL:
            arg2 = TOL
        return mrev, dm_dtheta, 1.0 / math.sqrt(arg2) / self._r

    def _row(self, gap: float, passive: float) -> List[float]:
        """Return one sample's joint values: the gap, the passive joints, simulated zeros."""
        return [gap] + [passive] * self._num_passive + self._sim_zeros

    def _forward_velocity_sample(self, v: float, dtheta_dm: float,
                                 dt_dm: float) -> Tuple[float, float]:
        """Return (gap, passive) velocities for motor velocity ``v``."""
        mrev_dot = v / self._mr * RAD2MR
        return 2.0 * mrev_dot * dt_dm, dtheta_dm * mrev_dot

    def _forward_effort_sample(self, e: float, dtheta_dm: float,
                               dt_dm: float) -> Tuple[float, float]:
        """Return (gap, passive) efforts for motor effort ``e``."""
        motor_torque = e / self._mr
        return motor_torque / dt_dm / RAD2MR / 2.0, motor_torque / dtheta_dm / RAD2MR

    def _inverse_position_sample(self, q: float) -> float:
        """Return the motor position at gap ``q``."""
        return self._inverse_sample(q)[0] * self._mr / RAD2MR

    def _inverse_velocity_sample(self, v: float, dm_dtheta: float, dtheta_dt: float) -> float:
        """Return the motor velocity for gap velocity ``v``."""
        return v / 2.0 * dtheta_dt * dm_dtheta * self._mr / RAD2MR

    def _inverse_effort_sample(self, e: float, dm_dtheta: float, dtheta_dt: float) -> float:
        """Return the motor effort for gap effort ``e``."""
        return 2.0 * e / (abs(dm_dtheta) * dtheta_dt) * RAD2MR * self._mr

    # ------------------------------------------------------------------ arrays (numpy)
    def _u(self, mrev: np.ndarray) -> np.ndarray:
        length = self._L0 + mrev * self._k
        return np.clip((self._c0 - length * length) / self._two_ab, -1.0, 1.0)

    def _forward(self, position: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
        """Return dtheta/dM and dt/dM (both ``(...)``) at actuator ``position[..., 0]``."""
        m_plus = np.maximum(position[..., 0] / self._mr * RAD2MR, 0.0)  # NaN-propagating,
        u_plus = self._u(m_plus)                                          # unlike the C++
        return self._forward_at(m_plus, u_plus, self._theta_offset + np.arccos(u_plus))

    def _forward_at(self, m_plus: np.ndarray, u_plus: np.ndarray,
                    theta_plus: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
        """Return dtheta/dM and dt/dM from ``M_+``, ``u_+`` and ``theta_+``."""
        arg = np.maximum(1.0 - u_plus * u_plus, TOL)
        du_dm = self._du0 - m_plus / self._ab * self._k2
        dtheta_dm = -1.0 / np.sqrt(arg) * du_dm
        dt_dm = self._r * np.cos(theta_plus) * dtheta_dm
        return dtheta_dm, dt_dm

    def _joint_array(self, gap: np.ndarray, passive: np.ndarray) -> np.ndarray:
        """Return joint values ``(..., M)``: the gap, the passive joints, simulated zeros."""
        out = np.zeros(np.shape(gap) + (self._nj,))
        out[..., 0] = gap
        out[..., 1:1 + self._num_passive] = np.asarray(passive)[..., None]
        return out

    def _position_at(self, mrev: np.ndarray) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Return ``u``, ``theta`` and the joint positions ``(..., M)`` at motor revolutions."""
        u = self._u(mrev)
        theta = self._theta_offset + np.arccos(u)
        half_gap = self._t0 + self._r * (np.sin(theta) - self._sin_theta0)
        return u, theta, self._joint_array(2.0 * half_gap, theta - self._theta0)

    def _inverse(self, position: np.ndarray, derivatives: bool = True
                 ) -> Tuple[np.ndarray, Any, Any]:
        """Return M, dM/dtheta and dtheta/dt (``(...)``; None, None without ``derivatives``)."""
        half_gap = position[..., 0] / 2.0
        sin_theta = np.clip((half_gap - self._t0) / self._r + self._sin_theta0, -1.0, 1.0)
        theta = np.arcsin(sin_theta)
        arg = self._c0 - self._two_ab * np.cos(theta - self._theta0 + self._phi0)
        real = ~(arg <= 0.0)  # NaN stays on the computed branch so that it propagates
        root = np.sqrt(np.where(real, arg, 1.0))
        mrev = np.where(real, (root - self._L0) / self._k, self._m_closed)
        if not derivatives:
            return mrev, None, None
        dm_dtheta = np.where(real, self._dm0 / root * self._two_ab
                             * np.sin(theta + self._phi0 - self._theta0), 0.0)
        u = (self._r * (np.sin(theta) - self._sin_theta0)) / self._r + self._sin_theta0
        arg2 = np.maximum(1.0 - u * u, TOL)
        dtheta_dt = 1.0 / np.sqrt(arg2) / self._r
        return mrev, dm_dtheta, dtheta_dt

    def _state(self, position: Optional[ArrayLike], side: str, size: int) -> np.ndarray:
        if position is None:
            raise TransmissionInputError(
                f'PR2GripperTransmission is nonlinear: the {side} position is needed')
        x = np.asarray(position, dtype=np.float64)
        if x.ndim == 0 or x.shape[-1] != size:
            raise TransmissionInputError(
                f'PR2GripperTransmission: {side} positions must have {size} entries on the last '
                f'axis, got shape {x.shape}')
        return x

    # ------------------------------------------------------------------ per-call states
    def _prepare_actuator_state(self, position: Optional[ArrayLike]) -> 'ForwardState':
        """
        Return dtheta/dM and dt/dM at the actuator ``position``, for the velocity/effort maps.

        Computed once per conversion and shared by the velocity and effort kernels (see
        :meth:`Transmission._prepare_actuator_state`); batches of at most
        :data:`SMALL_BATCH` samples are computed sample by sample with :mod:`math`.

        :raises TransmissionInputError: when the position is missing or has the wrong shape
        """
        x = self._state(position, 'actuator', 1)
        shape = x.shape[:-1]
        if 0 < x.size <= SMALL_BATCH:
            try:
                pairs = [self._forward_sample(p) for p in x.ravel().tolist()]
                return ForwardState(shape, [d[0] for d in pairs], [d[1] for d in pairs], True)
            except _SCALAR_ERRORS:
                pass
        with np.errstate(all='ignore'):
            dtheta_dm, dt_dm = self._forward(x)
        return ForwardState(shape, dtheta_dm, dt_dm, False)

    def _prepare_joint_state(self, position: Optional[ArrayLike]) -> 'InverseState':
        """
        Return dM/dtheta and dtheta/dt at the joint ``position`` (only the gap is read).

        The joint-side counterpart of :meth:`_prepare_actuator_state`.

        :raises TransmissionInputError: when the position is missing or has the wrong shape
        """
        x = self._state(position, 'joint', self._nj)
        gap = x[..., 0]
        if 0 < gap.size <= SMALL_BATCH:
            try:
                triples = [self._inverse_sample(q) for q in gap.ravel().tolist()]
                return InverseState(gap.shape, [d[1] for d in triples],
                                    [d[2] for d in triples], True)
            except _SCALAR_ERRORS:
                pass
        with np.errstate(all='ignore'):
            _, dm_dtheta, dtheta_dt = self._inverse(x)
        return InverseState(gap.shape, dm_dtheta, dtheta_dt, False)

    def _forward_state(self, position: Union['ForwardState', ArrayLike, None]
                       ) -> 'ForwardState':
        if isinstance(position, ForwardState):
            return position
        return self._prepare_actuator_state(position)

    def _inverse_state(self, position: Union['InverseState', ArrayLike, None]
                       ) -> 'InverseState':
        if isinstance(position, InverseState):
            return position
        return self._prepare_joint_state(position)
