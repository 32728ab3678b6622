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
The PR2 gripper's fast paths: one sample with :mod:`math`, a batch of rows with numpy.

:class:`PR2GripperFastPaths` adds to the linkage maths
(:mod:`~transmission_plugins.transmissions.pr2_gripper_linkage`) the optional methods the
robot-wide maps use (:mod:`transmission_plugins.core.sample`).  Of the gripper's joints only
:meth:`~PR2GripperFastPaths.distinct_outputs` are computed: the gap, one passive angle (every
passive joint has it) and one 0 (every simulated joint); joint to actuator, the motor.
``convert_sample`` converts one sample of every interface with the one-sample formulas,
evaluating the linkage once when the positions converted are those the velocity and effort maps
are evaluated at; ``convert_rows`` does the same for a batch laid out one row per source value,
writing into the caller's rows.  Both give the kernels' numbers.
"""

import math
from typing import List
from typing import Optional
from typing import Sequence
from typing import Tuple

import numpy as np

from transmission_plugins.core.interfaces import EFFORT
from transmission_plugins.core.interfaces import POSITION
from transmission_plugins.core.interfaces import VELOCITY
from transmission_plugins.transmissions.pr2_gripper_linkage import _SCALAR_ERRORS
from transmission_plugins.transmissions.pr2_gripper_linkage import SQRT_TOL
from transmission_plugins.transmissions.pr2_gripper_states import PR2GripperStates


#: The interfaces of a hardware interface's cycle, in the order it converts them.
_CYCLE = (POSITION, VELOCITY, EFFORT)


class PR2GripperFastPaths(PR2GripperStates):
    """The ``convert_sample`` and ``convert_rows`` fast paths of the PR2 gripper."""

    _num_simulated: int

    def _set_linkage(self) -> None:
        """Precompute the constants, and the tuples the one-sample cycle unpacks."""
        super()._set_linkage()
        # per interface: gap, passive (if any), 0 (if simulated joints): -1 is the 0
        one = [0] + ([1] if self._num_passive else []) + ([-1] if self._num_simulated else [])
        pattern: Optional[Tuple[int, ...]] = tuple(
            i if i < 0 else i + 2 * kind for kind in range(3) for i in one)
        if pattern == (0, 1, -1, 2, 3, -1, 4, 5, -1):
            pattern = None  # spelt out in _forward_cycle
        self._forward_constants = (
            self._p2m, self._k, self._L0, self._c0, self._two_ab, self._g_u, self._g_w,
            self._g_0, self._phi0, self._kab, self._du0, self._r_cd, self._r_sd, self._v_gap,
            self._e_gap, self._e_passive, self._uw0[0], self._uw0[1], pattern)
        self._inverse_constants = (
            self._q2s, self._s0, self._c0, self._a_c, self._a_s, self._p_closed, self._p_root,
            self._p_0, self._dm_ab, self._cos_delta, self._sin_delta, self._inv_r,
            self._v_motor, self._e_motor)

    def distinct_outputs(self, to_joint: bool) -> Tuple[int, ...]:
        """
        Return, for each output, which of the distinct values the fast paths compute it holds.

        Actuator to joint: 0 the gap, then the passive angle (all passive joints), then 0 (all
        simulated joints); joint to actuator: the motor alone.
        """
        if not to_joint:
            return (0,)
        passive = 1 if self._num_passive else 0
        return ((0,) + (1,) * self._num_passive
                + (1 + passive,) * self._num_simulated)

    def _distinct(self, gap: float, passive: float) -> List[float]:
        """Return one interface's distinct joint values (see :meth:`distinct_outputs`)."""
        out = [gap, passive] if self._num_passive else [gap]
        if self._num_simulated:
            out.append(0.0)
        return out

    def convert_sample(self, to_joint: bool, kinds: Sequence[str],
                       values: Sequence[List[float]],
                       position: Optional[List[float]]) -> Optional[List[float]]:
        """
        Convert one sample with :mod:`math` (the robot maps' fast path, same numbers).

        See :class:`~transmission_plugins.core.sample.SampleConverter`; returns the distinct
        values of each interface (:meth:`distinct_outputs`), or None where the array kernels
        must decide (Python raised, or velocity/effort without a position).
        """
        try:
            if kinds == _CYCLE and values[0] is position:  # a hardware interface's call
                if to_joint:
                    return self._forward_cycle(values[0][0], values[1][0], values[2][0])
                return self._inverse_cycle(values[0][0], values[1][0], values[2][0])
            if to_joint:
                return self._forward_samples(kinds, values, position)
            return self._inverse_samples(kinds, values, position)
        except _SCALAR_ERRORS:
            return None

    def _forward_cycle(self, p: float, v: float, e: float) -> List[float]:
        """Return the distinct joint values of position ``p``, velocity ``v``, effort ``e``."""
        # _uw_sample, _gap_sample, _jacobian_sample and the velocity and effort formulas
        # inlined, operation by operation the same (about half the time of the calls)
        (p2m, k, L0, c0, two_ab, g_u, g_w, g_0, phi0, kab, du0, r_cd, r_sd, v_gap, e_gap,
         e_passive, u0, w0, pattern) = self._forward_constants
        mrev = p * p2m
        length = mrev * k + L0
        u = (c0 - length * length) / two_ab
        u = -1.0 if u < -1.0 else 1.0 if u > 1.0 else u
        w = math.sqrt((1.0 - u) * (1.0 + u))
        gap = u * g_u + w * g_w + g_0
        passive = math.acos(u) - phi0
        if mrev < 0.0:
            mrev, u, w = 0.0, u0, w0
        dtheta_dm = (mrev * kab - du0) / (SQRT_TOL if w < SQRT_TOL else w)
        dt_dm = (u * r_cd - w * r_sd) * dtheta_dm
        gap_v, passive_v = v * v_gap * dt_dm, v * p2m * dtheta_dm
        gap_e, passive_e = e * e_gap / dt_dm, e * e_passive / dtheta_dm
        if pattern is None:  # passive and simulated joints: the usual gripper
            return [gap, passive, 0.0, gap_v, passive_v, 0.0, gap_e, passive_e, 0.0]
        values = (gap, passive, gap_v, passive_v, gap_e, passive_e)
        return [0.0 if i < 0 else values[i] for i in pattern]

    def _inverse_cycle(self, q: float, v: float, e: float) -> List[float]:
        """Return the motor position, velocity and effort of gap ``q``, ``v`` and ``e``."""
        # _inverse_sample and the velocity and effort formulas inlined, operation by operation
        (q2s, s0, c0, a_c, a_s, p_closed, p_root, p_0, dm_ab, cos_delta, sin_delta, inv_r,
         v_motor, e_motor) = self._inverse_constants
        sin_theta = q * q2s + s0
        sin_theta = -1.0 if sin_theta < -1.0 else 1.0 if sin_theta > 1.0 else sin_theta
        cos_theta = math.sqrt((1.0 - sin_theta) * (1.0 + sin_theta))
        arg = c0 - (cos_theta * a_c + sin_theta * a_s)
        if arg <= 0.0:
            motor, dm_dtheta = p_closed, 0.0
        else:  # NaN included, so that it propagates
            root = math.sqrt(arg)
            motor = root * p_root - p_0
            dm_dtheta = dm_ab / root * (sin_theta * cos_delta - cos_theta * sin_delta)
        dtheta_dt = inv_r / (SQRT_TOL if cos_theta < SQRT_TOL else cos_theta)
        return [motor, v * v_motor * dtheta_dt * dm_dtheta,
                e * e_motor / (abs(dm_dtheta) * dtheta_dt)]

    def _forward_samples(self, kinds: Sequence[str], values: Sequence[List[float]],
                         position: Optional[List[float]]) -> Optional[List[float]]:
        out: List[float] = []
        state: Optional[Tuple[float, float]] = None  # (dtheta/dM, dt/dM) at ``position``
        for kind, v in zip(kinds, values):
            if kind == POSITION:
                mrev = v[0] * self._p2m
                u, w = self._uw_sample(mrev)
                if v is position and state is None:  # the same linkage for the Jacobians
                    state = (self._jacobian_sample(mrev, u, w) if not mrev < 0.0
                             else self._jacobian_sample(0.0, *self._uw0))
                out += self._distinct(*self._gap_sample(u, w))
                continue
            if state is None:
                if position is None:
                    return None
                state = self._forward_sample(position[0])
            out += self._distinct(*(self._forward_velocity_sample if kind == VELOCITY
                                    else self._forward_effort_sample)(v[0], *state))
        return out

    def _inverse_samples(self, kinds: Sequence[str], values: Sequence[List[float]],
                         position: Optional[List[float]]) -> Optional[List[float]]:
        out: List[float] = []
        state: Optional[Tuple[float, float, float]] = None  # (M, dM/dtheta, dtheta/dt)
        for kind, v in zip(kinds, values):
            if kind == POSITION and v is not position:
                out.append(self._inverse_position_sample(v[0]))
                continue
            if state is None:
                if position is None:
                    return None
                state = self._inverse_sample(position[0])
            if kind == POSITION:  # the same number as _inverse_position_sample
                out.append(state[0])
            elif kind == VELOCITY:
                out.append(self._inverse_velocity_sample(v[0], state[1], state[2]))
            else:
                out.append(self._inverse_effort_sample(v[0], state[1], state[2]))
        return out

    def convert_rows(self, to_joint: bool, kinds: Sequence[str], values: Sequence[np.ndarray],
                     position: Optional[np.ndarray], out: Sequence[np.ndarray]) -> bool:
        """
        Convert a batch laid out in rows into ``out``; False to let the kernels convert it.

        See :class:`~transmission_plugins.core.sample.BatchConverter`: ``values[i][k]`` is
        source ``k`` of interface ``i`` for every sample, ``out[i][d]`` receives distinct value
        ``d`` (:meth:`distinct_outputs`).  The linkage is evaluated once for the position map
        and the velocity/effort state when ``position`` is among ``values``.
        """
        if position is None and any(k != POSITION for k in kinds):
            return False
        with np.errstate(all='ignore'):
            if to_joint:
                self._forward_rows(kinds, values, position, out)
            else:
                self._inverse_rows(kinds, values, position, out)
        return True

    def _forward_rows(self, kinds: Sequence[str], values: Sequence[np.ndarray],
                      position: Optional[np.ndarray], out: Sequence[np.ndarray]) -> None:
        shared: Optional[Tuple[np.ndarray, np.ndarray, np.ndarray]] = None
        state: Optional[np.ndarray] = None  # [dt/dM, dtheta/dM]
        passive = bool(self._num_passive)
        for kind, v, o in zip(kinds, values, out):
            if self._num_simulated:
                o[-1] = 0.0
            if kind == POSITION:
                mrev = v[0] * self._p2m
                u, w = self._uw(mrev)
                if v is position:
                    shared = (mrev, u, w)
                self._gap(u, w, o[0], o[1] if passive else None)
                continue
            if state is None:
                if shared is None:
                    mrev = position[0] * self._p2m  # type: ignore[index]
                    shared = (mrev, *self._uw(mrev))
                state = self._forward_at(*shared)
            if passive:
                self._forward_map(kind == VELOCITY, v[0], state, o[:2])
            else:
                o[0] = self._forward_map(kind == VELOCITY, v[0], state)[0]

    def _inverse_rows(self, kinds: Sequence[str], values: Sequence[np.ndarray],
                      position: Optional[np.ndarray], out: Sequence[np.ndarray]) -> None:
        state = None
        if position is not None:
            derivatives = any(k != POSITION for k in kinds)
            index = [v is position for v in values].index(True) \
                if any(v is position for v in values) else None
            state = self._inverse(position[0], derivatives,
                                  None if index is None else out[index][0])
        for kind, v, o in zip(kinds, values, out):
            if kind == POSITION:
                if v is not position:
                    self._inverse(v[0], False, o[0])
            elif kind == VELOCITY:
                self._inverse_velocity(v[0], state[1], state[2], o[0])  # type: ignore[index]
            else:
                self._inverse_effort(v[0], state[1], state[2], o[0])  # type: ignore[index]
