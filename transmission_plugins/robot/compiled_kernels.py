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
Compiled batch kernels (numba), used when numba is installed: the same numbers in fewer passes.

A numpy batch makes one pass over memory per operation: the stacked product of the PR2 (a
gather, a multiply, the second non-zero of some rows) and its two grippers (about thirty
operations on every sample) made up two thirds of a batch's time, and each numpy call costs a
microsecond or two whatever its size.  Compiled loops do each in one pass:

* :func:`product`: :math:`Y_r = \sum_k X_{c_{rk}} v_{rk}` row by row from a compressed-row
  copy of the :class:`~.sparse_maps.StackedProduct` (``indptr, cols, vals``), in the same
  order as the numpy layers: the first product, then each further one added in column order;
  rows without a non-zero get 0.  Every operation is the numpy path's (no fused multiply-add,
  numba's default), so the outputs are bit for bit the same.
* :func:`gripper_rows`: the PR2 gripper's
  :meth:`~transmission_plugins.transmissions.pr2_gripper_fast_paths.PR2GripperFastPaths.convert_rows`
  sample by sample with the one-sample formulas of
  :mod:`~transmission_plugins.transmissions.pr2_gripper_linkage` (``*_sample``, in the same
  order, on its :meth:`folded_constants`): the numbers of the one-sample path exactly, those of
  numpy's to the last bit of ``acos``, as between those two.

Numba is optional (``pip install numba``; rosdep ``python3-numba``): without it, or with the
environment variable ``TP_COMPILED=0``, batches take the numpy path; so do the command-line
tool's conversions (:func:`prefer_numpy`) unless ``TP_COMPILED=1``.  It is imported and the
kernels compiled at the first batch, not at ``import transmission_plugins``; numba caches the
machine code on disk (``cache=True``), so later processes load it in milliseconds.
"""

import math
import os
import threading
from typing import Any
from typing import Callable
from typing import Optional
from typing import Sequence

import numpy as np

from transmission_plugins.core.interfaces import POSITION
from transmission_plugins.core.interfaces import VELOCITY
from transmission_plugins.transmissions.pr2_gripper_linkage import FOLDED

#: environment variable: ``0`` keeps batches on the numpy path
ENV = 'TP_COMPILED'

# indices into the folded constants (FOLDED, then u0, w0, SQRT_TOL)
(P2M, K, L0, C0, TWO_AB, G_U, G_W, G_0, PHI0, KAB, DU0, R_CD, R_SD, V_GAP, E_GAP, E_PASSIVE,
 Q2S, S0, A_C, A_S, P_CLOSED, P_ROOT, P_0, DM_AB, COS_DELTA, SIN_DELTA, INV_R, V_MOTOR,
 E_MOTOR) = range(len(FOLDED))
U0, W0, FLOOR = len(FOLDED), len(FOLDED) + 1, len(FOLDED) + 2

#: map kinds as the kernels take them
KIND_CODES = {POSITION: 0, VELOCITY: 1}   # anything else: effort (2)


def _product(indptr: Any, cols: Any, vals: Any, xt: Any, out: Any,
             row_stride: int) -> None:  # pragma: no cover
    """Row ``r`` of ``Y^T`` into ``out[r * row_stride:][:K]`` (``out`` 1-D: unit strides)."""
    n_rows = indptr.size - 1
    size = xt.shape[1]
    for r in range(n_rows):
        a, b = indptr[r], indptr[r + 1]
        y = out[r * row_stride:r * row_stride + size]
        if a == b:
            for k in range(size):
                y[k] = 0.0
            continue
        x, v = xt[cols[a]], vals[a]
        for k in range(size):
            y[k] = x[k] * v
        for e in range(a + 1, b):
            x, v = xt[cols[e]], vals[e]
            for k in range(size):
                y[k] += x[k] * v


def _stack(x: Any, xt: Any, row0: int) -> None:  # pragma: no cover
    """``xt[row0 + j, k] = x[k, j]``: eight samples at a time (their rows share cache lines)."""
    size, n = x.shape
    whole = size - size % 8
    for k0 in range(0, whole, 8):
        for j in range(n):
            y = xt[row0 + j]
            for k in range(k0, k0 + 8):
                y[k] = x[k, j]
    for k in range(whole, size):
        for j in range(n):
            xt[row0 + j, k] = x[k, j]


def _forward(kind: int, v: Any, at: Any, o: Any, c: Any, passive: bool,
             simulated: bool) -> None:  # pragma: no cover
    """One interface, actuator to joint: ``v, at`` ``(G, K)``, ``o`` ``(D, G, K)``."""
    # the constants in locals: loaded once, not after every store into ``o`` (which could
    # alias ``c`` as far as the compiler knows)
    p2m, k_, l0, c0, two_ab = c[P2M], c[K], c[L0], c[C0], c[TWO_AB]
    g_u, g_w, g_0, phi0, kab, du0 = c[G_U], c[G_W], c[G_0], c[PHI0], c[KAB], c[DU0]
    r_cd, r_sd, floor = c[R_CD], c[R_SD], c[FLOOR]
    f_gap = c[V_GAP] if kind == 1 else c[E_GAP]
    f_passive = p2m if kind == 1 else c[E_PASSIVE]
    last = o.shape[0] - 1
    groups, size = v.shape
    for g in range(groups):
        for k in range(size):
            # the motor revolutions: of the position itself, or of the state, at max(M, 0) (NaN
            # kept; u, w at 0 are those of M = 0 bit for bit: no branch to mispredict)
            m = (v[g, k] if kind == 0 else at[g, k]) * p2m
            if kind != 0:
                m = 0.0 if m < 0.0 else m
            length = m * k_ + l0
            u = (c0 - length * length) / two_ab
            u = -1.0 if u < -1.0 else 1.0 if u > 1.0 else u
            w = math.sqrt((1.0 - u) * (1.0 + u))
            if kind == 0:
                o[0, g, k] = u * g_u + w * g_w + g_0
                if passive:
                    o[1, g, k] = math.acos(u) - phi0
            else:
                dtheta_dm = (m * kab - du0) / (floor if w < floor else w)
                dt_dm = (u * r_cd - w * r_sd) * dtheta_dm
                if kind == 1:
                    o[0, g, k] = v[g, k] * f_gap * dt_dm
                    if passive:
                        o[1, g, k] = v[g, k] * f_passive * dtheta_dm
                else:
                    o[0, g, k] = v[g, k] * f_gap / dt_dm
                    if passive:
                        o[1, g, k] = v[g, k] * f_passive / dtheta_dm
            if simulated:
                o[last, g, k] = 0.0


def _inverse(kind: int, v: Any, at: Any, o: Any, c: Any) -> None:  # pragma: no cover
    """One interface, joint to actuator: ``v, at`` ``(G, K)`` gaps, ``o`` ``(1, G, K)``."""
    q2s, s0, c0, a_c, a_s = c[Q2S], c[S0], c[C0], c[A_C], c[A_S]
    p_closed, p_root, p_0, dm_ab = c[P_CLOSED], c[P_ROOT], c[P_0], c[DM_AB]
    cos_delta, sin_delta, inv_r, floor = c[COS_DELTA], c[SIN_DELTA], c[INV_R], c[FLOOR]
    factor = c[V_MOTOR] if kind == 1 else c[E_MOTOR]
    src = at if kind else v
    groups, size = v.shape
    for g in range(groups):
        for k in range(size):
            sin_theta = src[g, k] * q2s + s0
            sin_theta = -1.0 if sin_theta < -1.0 else 1.0 if sin_theta > 1.0 else sin_theta
            cos_theta = math.sqrt((1.0 - sin_theta) * (1.0 + sin_theta))
            arg = c0 - (cos_theta * a_c + sin_theta * a_s)
            closed = arg <= 0.0   # NaN: not closed, so that it propagates
            # both branches computed (as numpy does), then selected: no branch to mispredict
            root = math.sqrt(1.0 if closed else arg)
            motor = root * p_root - p_0
            dm_dtheta = dm_ab / root * (sin_theta * cos_delta - cos_theta * sin_delta)
            motor = p_closed if closed else motor
            dm_dtheta = 0.0 if closed else dm_dtheta
            if kind == 0:
                o[0, g, k] = motor
                continue
            dtheta_dt = inv_r / (floor if cos_theta < floor else cos_theta)
            if kind == 1:
                o[0, g, k] = v[g, k] * factor * dtheta_dt * dm_dtheta
            else:
                o[0, g, k] = v[g, k] * factor / (abs(dm_dtheta) * dtheta_dt)


class _Kernels:
    """The compiled kernels (numba dispatchers)."""

    def __init__(self, numba: Any) -> None:
        jit = numba.njit(cache=True, nogil=True, error_model='numpy')
        self.product = jit(_product)
        self.stack = jit(_stack)
        self.forward = jit(_forward)
        self.inverse = jit(_inverse)


_lock = threading.Lock()
_kernels: Optional[_Kernels] = None
_tried = False
_wanted = True


def kernels() -> Optional[_Kernels]:
    """
    Return the compiled kernels, or None.

    None: numba is not installed, ``TP_COMPILED=0``, or this process chose the numpy path
    (:func:`prefer_numpy`) and ``TP_COMPILED=1`` does not overrule it.
    """
    global _kernels, _tried
    if _tried:
        return _kernels
    with _lock:
        if not _tried:
            setting = os.environ.get(ENV, '').strip()
            if setting == '1' or setting != '0' and _wanted:
                try:
                    import numba
                except ImportError:
                    pass
                else:
                    _kernels = _Kernels(numba)
            _tried = True
    return _kernels


def prefer_numpy() -> None:
    """
    Keep this process on the numpy path (unless ``TP_COMPILED=1``), if no batch has run yet.

    For short-lived processes whose batches are a small part of the work: the ``convert`` and
    ``export-csv`` commands spend their time reading and writing text and bags, and importing
    numba with its compiler and cached code (about 0.3 s and 110 MB of memory) would cost them
    more than the kernels save.
    """
    global _wanted
    _wanted = False


def product(indptr: np.ndarray, cols: np.ndarray, vals: np.ndarray, xt: np.ndarray,
            yt: np.ndarray) -> bool:
    """
    Write ``Y^T`` of the stacked samples ``xt`` into ``yt``; False without the kernels.

    ``yt`` may be any view whose rows are contiguous (a chunk of the caller's buffer): the
    kernel writes through a 1-D view of it, so that its loops run on unit strides.
    """
    compiled = kernels()
    if compiled is None:
        return False
    if yt.flags.c_contiguous:
        compiled.product(indptr, cols, vals, xt, yt.reshape(-1), yt.shape[1])
    elif yt.strides[1] == yt.itemsize and yt.strides[0] % yt.itemsize == 0:
        step = yt.strides[0] // yt.itemsize
        flat = np.lib.stride_tricks.as_strided(
            yt, ((yt.shape[0] - 1) * step + yt.shape[1],), (yt.itemsize,))
        compiled.product(indptr, cols, vals, xt, flat, step)
    else:
        buf = np.empty(yt.shape)
        compiled.product(indptr, cols, vals, xt, buf.reshape(-1), yt.shape[1])
        yt[...] = buf
    return True


def stack(xs: Sequence[np.ndarray], xt: np.ndarray) -> bool:
    """
    Write the C-ordered ``(K, n)`` inputs ``xs`` transposed into rows of ``xt``, one after another.

    False (nothing written) without the kernels or when an input is not C-ordered: numpy then
    copies it (its transposing copy of other layouts is as fast).
    """
    compiled = kernels()
    if compiled is None or not all(x.flags.c_contiguous for x in xs):
        return False
    row = 0
    for x in xs:
        compiled.stack(x, xt, row)
        row += x.shape[1]
    return True


RowsConverter = Callable[[bool, Sequence[str], Sequence[np.ndarray], Optional[np.ndarray],
                          Sequence[np.ndarray]], bool]


def gripper_rows(transmission: Any) -> Optional[RowsConverter]:
    """
    Return a compiled ``convert_rows`` for a PR2 gripper, or None (no kernels).

    The same contract as the transmission's own (declines without positions for velocity or
    effort, which the kernels then fill with NaN).
    """
    compiled = kernels()
    if compiled is None:
        return None
    c = transmission.folded_constants()
    passive = transmission.num_passive_joints() > 0
    simulated = transmission.num_simulated_joints() > 0

    def convert_rows(to_joint: bool, kinds: Sequence[str], values: Sequence[np.ndarray],
                     position: Optional[np.ndarray], out: Sequence[np.ndarray]) -> bool:
        if position is None and any(k != POSITION for k in kinds):
            return False
        # contiguous inputs: on strided views the loops run several times slower (the rows of
        # the stacked batch are strided views; their copies are tiny)
        state = None if position is None else np.ascontiguousarray(position[0])
        for kind, v, o in zip(kinds, values, out):
            code = KIND_CODES.get(kind, 2)
            x = state if v is position else np.ascontiguousarray(v[0])
            at = x if state is None else state
            if to_joint:
                compiled.forward(code, x, at, o, c, passive, simulated)
            else:
                compiled.inverse(code, x, at, o, c)
        return True
    return convert_rows


__all__ = ['ENV', 'gripper_rows', 'kernels', 'prefer_numpy', 'product', 'stack']
