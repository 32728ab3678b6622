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

(:math:`A \le 0`: :math:`M = -gL_0/s`, :math:`dM/d\theta = 0`, as in the C++).

The sines and cosines are evaluated without trigonometric calls (the C++ makes five per sample
and direction; they dominate a numpy batch).  With :math:`\delta = \theta_0 - \phi_0`,
:math:`w = \sin(\arccos u) = \sqrt{(1-u)(1+u)}` and, in the inverse,
:math:`\sigma = \sin\theta` (the clamped argument of the arcsine) and
:math:`c = \cos\theta = \sqrt{(1-\sigma)(1+\sigma)} \ge 0`:

.. math::

    \sin\theta = u\sin\delta + w\cos\delta, \quad \cos\theta = u\cos\delta - w\sin\delta,
    \quad \sqrt{\max(1 - u^2, 10^{-5})} = \max(w, \sqrt{10^{-5}})

    \cos(\theta - \delta) = c\cos\delta + \sigma\sin\delta, \quad
    \sin(\theta - \delta) = \sigma\cos\delta - c\sin\delta, \quad
    \sqrt{\max(1 - \sigma^2, 10^{-5})} = \max(c, \sqrt{10^{-5}})

Only :math:`\arccos u` remains, for the passive joint angle :math:`\theta - \theta_0`.  The
results differ from the C++ formulas by rounding only (``test_pr2_gripper_identities.py``
bounds the difference: 1e-12 relative over the working range); :math:`(1-u)(1+u)` is more
accurate than :math:`1 - u^2` near :math:`|u| = 1`.  Every formula exists twice, as one-sample
:mod:`math` code (``*_sample``: a hardware interface converts one sample per cycle, where
numpy's per-call overhead dominates) and as vectorised numpy code, operation by operation the
same, so both give the same numbers up to the last bit of ``acos``.
:class:`PR2GripperLinkage` holds them for :class:`~transmission_plugins.PR2GripperTransmission`,
which maps them to the gap, passive and simulated joints.
"""

import math
from typing import Any
from typing import List
from typing import Optional
from typing import Tuple

import numpy as np

from transmission_plugins.transmissions.pr2_gripper_constants import PR2GripperConstants
from transmission_plugins.transmissions.pr2_gripper_constants import RAD2MR
from transmission_plugins.transmissions.pr2_gripper_constants import SQRT_TOL
from transmission_plugins.transmissions.pr2_gripper_constants import TOL

__all__ = ['COEFFICIENTS', 'FOLDED', 'PR2GripperLinkage', 'RAD2MR', 'SMALL_BATCH', 'SQRT_TOL',
           'TOL']

#: The linkage coefficients, in the order of the constructor (URDF ``gap_joint`` attributes).
COEFFICIENTS = ('screw_reduction', 'gear_ratio', 'theta0', 'phi0', 't0', 'L0', 'h', 'a', 'b', 'r')

#: The folded constants the formulas use, in the order of
#: :meth:`PR2GripperLinkage.folded_constants` (which appends ``u, w`` at ``M = 0`` and the
#: square-root floor): what compiled code needs to repeat the one-sample formulas.
FOLDED = ('p2m', 'k', 'L0', 'c0', 'two_ab', 'g_u', 'g_w', 'g_0', 'phi0', 'kab', 'du0', 'r_cd',
          'r_sd', 'v_gap', 'e_gap', 'e_passive', 'q2s', 's0', 'a_c', 'a_s', 'p_closed',
          'p_root', 'p_0', 'dm_ab', 'cos_delta', 'sin_delta', 'inv_r', 'v_motor', 'e_motor')

#: Batches of at most this many samples are converted one sample at a time with :mod:`math`:
#: on such tiny arrays each numpy call costs more than the arithmetic it does (a hardware
#: interface converts one sample per cycle; a robot's identical grippers are stacked into one
#: call).  Larger batches use numpy.  Both give the same results (to the last bit of ``acos``).
SMALL_BATCH = 8

#: What the one-sample path may raise where numpy returns inf or NaN (x / 0); the call is then
#: redone with numpy.
_SCALAR_ERRORS = (ArithmeticError, ValueError)


class PR2GripperLinkage(PR2GripperConstants):
    """
    The linkage maths of the PR2 gripper (module docstring), as a base of the transmission.

    The transmission validates the coefficients, stores them as ``_s, _g, _theta0, _phi0, _t0,
    _L0, _h, _a, _b, _r, _mr`` and its joint count as ``_nj``, then calls :meth:`_set_linkage`
    (:class:`~.pr2_gripper_constants.PR2GripperConstants`: the folded constants used below).
    """

    _nj: int
    _num_passive: int
    _sim_zeros: List[float]

    def _set_linkage(self) -> None:
        """Precompute the constants (see the base class), and ``u, w`` at ``M = 0``."""
        super()._set_linkage()
        # the Jacobians of M < 0; + - * / and sqrt round alike in Python and numpy
        self._uw0 = self._uw_sample(0.0)
        # [gap, passive] factors of the velocity and effort maps, against [dt/dM, dtheta/dM]
        self._velocity_factors = np.array([self._v_gap, self._p2m])
        self._effort_factors = np.array([self._e_gap, self._e_passive])

    def folded_constants(self) -> np.ndarray:
        """Return the :data:`FOLDED` constants, then ``u, w`` at ``M = 0`` and ``SQRT_TOL``."""
        return np.array([float(getattr(self, '_' + name)) for name in FOLDED]
                        + [*self._uw0, SQRT_TOL])

    # ------------------------------------------------------------------ one sample (math)
    # The scalar functions below repeat the numpy expressions of the array path operation by
    # operation (same order, same constants), so that both give the same numbers up to the last
    # bit of acos; comparisons written as ``x < c`` let NaN through like np.clip and np.maximum
    # do.  Python raises where numpy returns inf or NaN (division by zero): callers then redo
    # the call with numpy (:data:`_SCALAR_ERRORS`).
    def _uw_sample(self, mrev: float) -> Tuple[float, float]:
        """Return ``u`` and ``w = sin(acos u)`` at ``mrev`` motor revolutions."""
        length = mrev * self._k + self._L0
        u = (self._c0 - length * length) / self._two_ab
        u = -1.0 if u < -1.0 else 1.0 if u > 1.0 else u
        return u, math.sqrt((1.0 - u) * (1.0 + u))

    def _gap_sample(self, u: float, w: float) -> Tuple[float, float]:
        """Return (gap, passive angle) from ``u`` and ``w``."""
        return u * self._g_u + w * self._g_w + self._g_0, math.acos(u) - self._phi0

    def _position_sample(self, p: float) -> Tuple[float, float]:
        """Return (gap, passive angle) at motor position ``p``."""
        return self._gap_sample(*self._uw_sample(p * self._p2m))

    def _jacobian_sample(self, m_plus: float, u: float, w: float) -> Tuple[float, float]:
        """Return (dtheta/dM, dt/dM) from ``M_+`` and ``u, w`` there."""
        dtheta_dm = (m_plus * self._kab - self._du0) / (SQRT_TOL if w < SQRT_TOL else w)
        return dtheta_dm, (u * self._r_cd - w * self._r_sd) * dtheta_dm

    def _forward_sample(self, p: float) -> Tuple[float, float]:
        """Return (dtheta/dM, dt/dM) at motor position ``p`` (evaluated at max(M, 0))."""
        m_plus = p * self._p2m
        if m_plus < 0.0:
            return self._jacobian_sample(0.0, *self._uw0)
        return self._jacobian_sample(m_plus, *self._uw_sample(m_plus))

    def _inverse_sample(self, q: float) -> Tuple[float, float, float]:
        """Return (motor position, dM/dtheta, dtheta/dt) at gap ``q``."""
        sin_theta = q * self._q2s + self._s0
        sin_theta = -1.0 if sin_theta < -1.0 else 1.0 if sin_theta > 1.0 else sin_theta
        cos_theta = math.sqrt((1.0 - sin_theta) * (1.0 + sin_theta))
        arg = self._c0 - (cos_theta * self._a_c + sin_theta * self._a_s)
        if arg <= 0.0:
            motor = self._p_closed
            dm_dtheta = 0.0
        else:  # NaN included, so that it propagates
            root = math.sqrt(arg)
            motor = root * self._p_root - self._p_0
            dm_dtheta = self._dm_ab / root * (sin_theta * self._cos_delta
                                              - cos_theta * self._sin_delta)
        floor = SQRT_TOL if cos_theta < SQRT_TOL else cos_theta
        return motor, dm_dtheta, self._inv_r / floor

    def _row(self, gap: float, passive: float) -> List[float]:
        """Return one sample's joint values: the gap, the passive joints, simulated zeros."""
        return [gap] + [passive] * self._num_passive + self._sim_zeros

    def _forward_velocity_sample(self, v: float, dtheta_dm: float,
                                 dt_dm: float) -> Tuple[float, float]:
        """Return (gap, passive) velocities for motor velocity ``v``."""
        return v * self._v_gap * dt_dm, v * self._p2m * dtheta_dm

    def _forward_effort_sample(self, e: float, dtheta_dm: float,
                               dt_dm: float) -> Tuple[float, float]:
        """Return (gap, passive) efforts for motor effort ``e``."""
        return e * self._e_gap / dt_dm, e * self._e_passive / dtheta_dm

    def _inverse_position_sample(self, q: float) -> float:
        """Return the motor position at gap ``q``."""
        return self._inverse_sample(q)[0]

    def _inverse_velocity_sample(self, v: float, dm_dtheta: float, dtheta_dt: float) -> float:
        """Return the motor velocity for gap velocity ``v``."""
        return v * self._v_motor * dtheta_dt * dm_dtheta

    def _inverse_effort_sample(self, e: float, dm_dtheta: float, dtheta_dt: float) -> float:
        """Return the motor effort for gap effort ``e``."""
        return e * self._e_motor / (abs(dm_dtheta) * dtheta_dt)

    # ------------------------------------------------------------------ arrays (numpy)
    # ``out`` arguments receive the results (rows of the robot maps' stacked batch); None
    # makes new arrays.
    def _uw(self, mrev: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
        """Return ``u`` and ``w = sin(acos u)`` at ``mrev`` (any shape)."""
        length = mrev * self._k
        length += self._L0
        np.multiply(length, length, out=length)
        u = np.subtract(self._c0, length, out=length)
        u /= self._two_ab
        u.clip(-1.0, 1.0, out=u)
        w = np.subtract(1.0, u)
        w *= 1.0 + u
        return u, np.sqrt(w, out=w)

    def _gap(self, u: np.ndarray, w: np.ndarray, gap: Optional[np.ndarray] = None,
             passive: Optional[np.ndarray] = None) -> Tuple[np.ndarray, np.ndarray]:
        """Return (gap, passive angle) from ``u`` and ``w``, into ``gap`` and ``passive``."""
        gap = np.multiply(u, self._g_u, out=gap)
        gap += w * self._g_w
        gap += self._g_0
        theta = np.arccos(u, out=passive)
        theta -= self._phi0
        return gap, theta

    def _jacobians(self, m_plus: np.ndarray, u: np.ndarray, w: np.ndarray) -> np.ndarray:
        """Return ``[dt/dM, dtheta/dM]`` (``(2, ...)``) from ``M_+`` and ``u, w`` there."""
        both = np.empty((2,) + np.shape(u))
        dt_dm, dtheta_dm = both
        np.multiply(m_plus, self._kab, out=dtheta_dm)
        dtheta_dm -= self._du0
        dtheta_dm /= np.maximum(w, SQRT_TOL)
        np.multiply(u, self._r_cd, out=dt_dm)
        dt_dm -= w * self._r_sd
        dt_dm *= dtheta_dm
        return both

    def _forward_at(self, mrev: np.ndarray, u: np.ndarray, w: np.ndarray) -> np.ndarray:
        """Return ``[dt/dM, dtheta/dM]`` at ``max(mrev, 0)``, given ``u, w`` at ``mrev``."""
        if np.fmin.reduce(mrev, axis=None) < 0.0:  # NaN ignored
            below = mrev < 0.0
            mrev = np.maximum(mrev, 0.0)
            u = np.where(below, self._uw0[0], u)
            w = np.where(below, self._uw0[1], w)
        return self._jacobians(mrev, u, w)

    def _forward(self, position: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
        """Return dtheta/dM and dt/dM (both ``(...)``) at actuator ``position[..., 0]``."""
        m_plus = np.maximum(position[..., 0] * self._p2m, 0.0)  # NaN-propagating, unlike
        dt_dm, dtheta_dm = self._jacobians(m_plus, *self._uw(m_plus))  # the C++
        return dtheta_dm, dt_dm

    def _forward_map(self, velocity: bool, v: np.ndarray, jacobians: np.ndarray,
                     out: Optional[np.ndarray] = None) -> np.ndarray:
        """
        Return ``[gap, passive]`` velocities (or efforts), ``(2, ...)``, of motor values ``v``.

        :param jacobians: ``[dt/dM, dtheta/dM]`` as :meth:`_forward_at` returns them
        :param out: where to write them (``(2, ...)``), or None
        """
        factors = self._velocity_factors if velocity else self._effort_factors
        out = np.multiply(v, factors.reshape((2,) + (1,) * np.ndim(v)), out=out)
        if velocity:
            out *= jacobians
        else:
            out /= jacobians
        return out

    def _joint_array(self, gap: np.ndarray, passive: np.ndarray) -> np.ndarray:
        """Return joint values ``(..., M)``: the gap, the passive joints, simulated zeros."""
        out = np.zeros(np.shape(gap) + (self._nj,))
        out[..., 0] = gap
        out[..., 1:1 + self._num_passive] = np.asarray(passive)[..., None]
        return out

    def _inverse(self, position: np.ndarray, derivatives: bool = True,
                 motor: Optional[np.ndarray] = None) -> Tuple[np.ndarray, Any, Any]:
        """
        Return motor position, dM/dtheta and dtheta/dt at the gaps ``position``.

        :param position: the gaps, any shape
        :param derivatives: False: None, None instead of the derivatives
        :param motor: where to write the motor positions, or None
        """
        sin_theta = position * self._q2s
        sin_theta += self._s0
        sin_theta.clip(-1.0, 1.0, out=sin_theta)
        cos_theta = np.subtract(1.0, sin_theta)
        cos_theta *= 1.0 + sin_theta
        np.sqrt(cos_theta, out=cos_theta)
        arg = cos_theta * self._a_c
        arg += sin_theta * self._a_s
        np.subtract(self._c0, arg, out=arg)
        closed = arg <= 0.0  # NaN stays on the computed branch so that it propagates
        any_closed = closed.any()
        if any_closed:
            arg[closed] = 1.0
        root = np.sqrt(arg, out=arg)
        motor = np.multiply(root, self._p_root, out=motor)
        motor -= self._p_0
        if any_closed:
            motor[closed] = self._p_closed
        if not derivatives:
            return motor, None, None
        dm_dtheta = np.divide(self._dm_ab, root, out=root)
        dm_dtheta *= sin_theta * self._cos_delta - cos_theta * self._sin_delta
        if any_closed:
            dm_dtheta[closed] = 0.0
        dtheta_dt = np.maximum(cos_theta, SQRT_TOL, out=cos_theta)
        np.divide(self._inv_r, dtheta_dt, out=dtheta_dt)
        return motor, dm_dtheta, dtheta_dt

    def _inverse_velocity(self, v: np.ndarray, dm_dtheta: np.ndarray, dtheta_dt: np.ndarray,
                          out: Optional[np.ndarray] = None) -> np.ndarray:
        """Return the motor velocities for gap velocities ``v``."""
        out = np.multiply(v, self._v_motor, out=out)
        out *= dtheta_dt
        out *= dm_dtheta
        return out

    def _inverse_effort(self, e: np.ndarray, dm_dtheta: np.ndarray, dtheta_dt: np.ndarray,
                        out: Optional[np.ndarray] = None) -> np.ndarray:
        """Return the motor efforts for gap efforts ``e``."""
        dm_dt = np.abs(dm_dtheta)
        dm_dt *= dtheta_dt
        out = np.multiply(e, self._e_motor, out=out)
        out /= dm_dt
        return out
