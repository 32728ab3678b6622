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
Sparse robot-wide matrices and their products, exact on the sparsity pattern.

A robot's fused maps are block-diagonal, one small block per transmission, so they are stored as
coordinate lists (:class:`SparseMatrix`: memory linear in the non-zeros, never a dense
``N x N`` array).  A :class:`StackedProduct` converts several interfaces at once: the inputs of
the ``m`` interfaces given are stacked into one vector :math:`X` (plus one slot holding 0), their
matrices into one block-diagonal matrix :math:`S`, and

.. math::

    Y_r = \sum_{k} X_{c_{rk}} v_{rk}

is evaluated by *layers*: layer ``k`` holds the ``k``-th non-zero of every row that has one, so
``Y = X[c_0] * v_0`` (one gather for every row; rows without a non-zero read the zero slot)
then ``Y[r_k] += X[c_k] * v_k``.  The number of layers is the widest row (2 for the PR2), the
work is the number of non-zeros.  Only structural non-zeros are multiplied, so a NaN (or inf)
input reaches exactly the outputs that depend on it, ``inf - inf`` giving NaN as in the sum;
the sums run in column order within a row.  A batch is evaluated in the transposed layout
(samples along the last axis, :meth:`StackedProduct.batch`): each gather then copies whole
contiguous rows, and no multithreaded BLAS call is made; with numba installed, a compiled loop
does the same row by row in one pass (:mod:`~.compiled_kernels`, bit for bit the same).
"""

import threading
from typing import Any
from typing import Dict
from typing import Iterable
from typing import List
from typing import NamedTuple
from typing import Optional
from typing import Sequence
from typing import Tuple

import numpy as np

from transmission_plugins.robot import compiled_kernels
from transmission_plugins.robot.nonlinear_maps import Block


#: Doubles of the per-thread scratch buffer (4 MB) that holds stacked batch inputs: batches are
#: converted in chunks of ``SCRATCH // (columns + rows)`` samples (1934 for the PR2's three
#: interfaces), so nothing big is allocated per call but the outputs (none with ``out=``), and
#: the numpy calls of a chunk are spread over enough samples (chunks from 1 to 8 MB ran
#: fastest on the development machine).
SCRATCH = 1 << 19

#: Batches of more samples multiply by a full array of the first layer's values
#: (:meth:`StackedProduct._multiplier`).
FULL_MULTIPLIER = 32


class SparseMatrix(NamedTuple):
    """A matrix as coordinates: ``m[rows[i], cols[i]] = values[i]``, sorted by row then column."""

    rows: np.ndarray
    cols: np.ndarray
    values: np.ndarray
    shape: Tuple[int, int]

    def toarray(self) -> np.ndarray:
        """Return the dense matrix (for small robots and tests: ``rows x cols`` floats)."""
        out = np.zeros(self.shape)
        out[self.rows, self.cols] = self.values
        return out

    @property
    def nnz(self) -> int:
        """Return the number of stored non-zeros."""
        return int(self.values.size)


def sparse_matrix(rows: Sequence[np.ndarray], cols: Sequence[np.ndarray],
                  values: Sequence[np.ndarray], shape: Tuple[int, int]) -> SparseMatrix:
    """
    Return a :class:`SparseMatrix` from pieces of coordinates, zeros dropped, sorted by row.

    :param rows: row indices, one array per piece (e.g. per transmission)
    :param cols: column indices, matching ``rows``
    :param values: the entries, matching ``rows``; entries equal to 0 are not stored
    :param shape: ``(rows, columns)`` of the matrix
    """
    def join(parts: Sequence[np.ndarray], dtype: type) -> np.ndarray:
        return np.concatenate(parts).astype(dtype) if len(parts) else np.zeros(0, dtype)

    r, c, v = join(rows, np.intp), join(cols, np.intp), join(values, np.float64)
    keep = v != 0.0
    r, c, v = r[keep], c[keep], v[keep]
    order = np.lexsort((c, r))
    out = SparseMatrix(r[order], c[order], v[order], shape)
    for a in out[:3]:
        a.setflags(write=False)
    return out


def fused_matrices(linear: Iterable[Block], num_joints: int,
                   num_actuators: int) -> Tuple[Dict[Tuple[bool, str], SparseMatrix], np.ndarray]:
    r"""
    Return the fused maps of linear transmissions, ``{(to_joint, kind): matrix}``, and the offsets.

    ``(True, 'position')`` is :math:`J` (``nj x na``), ``(True, 'effort')`` :math:`K^T`,
    ``(False, 'position')`` :math:`K` and ``(False, 'effort')`` :math:`J^T`, each transmission's
    block placed at its joints and actuators; joint to actuator only from the blocks that own
    their actuators.  The offsets are :math:`q_0` (``nj``).
    """
    keys = ((True, 'position'), (True, 'effort'), (False, 'position'), (False, 'effort'))
    pieces: Dict[Tuple[bool, str], List[List[np.ndarray]]] = {k: [[], [], []] for k in keys}
    offset = np.zeros(num_joints)

    def add(key: Tuple[bool, str], m: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> None:
        r, c = np.nonzero(m)
        for part, value in zip(pieces[key], (rows[r], cols[c], m[r, c])):
            part.append(value)

    for b in linear:
        jac, inv, q0 = b.transmission.linear_map()  # type: ignore[attr-defined]
        add((True, 'position'), jac, b.joints, b.actuators)
        add((True, 'effort'), inv.T, b.joints, b.actuators)
        offset[b.joints] = q0
        if b.owner:
            add((False, 'position'), inv, b.actuators, b.joints)
            add((False, 'effort'), jac.T, b.actuators, b.joints)
    shapes = {True: (num_joints, num_actuators), False: (num_actuators, num_joints)}
    return ({key: sparse_matrix(rows, cols, values, shapes[key[0]])
             for key, (rows, cols, values) in pieces.items()}, offset)


class StackedProduct:
    """
    ``Y = S X`` for a stacked sparse matrix ``S`` given by coordinates (module docstring).

    :param rows: row of each entry; entries sorted by row, then column
    :param cols: column of each entry (``n_cols - 1`` is the zero slot: never an entry)
    :param values: the entries
    :param n_rows: length of ``Y``
    :param n_cols: length of ``X``, its last slot holding 0 (read by rows without entries)
    """

    def __init__(self, rows: np.ndarray, cols: np.ndarray, values: np.ndarray, n_rows: int,
                 n_cols: int) -> None:
        self.n_rows, self.n_cols = n_rows, n_cols
        rank = np.arange(rows.size) - np.searchsorted(rows, rows, side='left')
        self.first_cols = np.full(n_rows, n_cols - 1, dtype=np.intp)
        self.first_vals = np.zeros(n_rows)
        head = rank == 0
        self.first_cols[rows[head]] = cols[head]
        self.first_vals[rows[head]] = values[head]
        self._first_vals_t = self.first_vals[:, None]
        #: layer k >= 1: (rows, cols, values, values as a column)
        self.layers: List[Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
        #: the layers as full-length (cols, values), rows without one reading the zero slot:
        #: where a layer holds many rows a gather of every row beats a scatter of some (for one
        #: sample from 1/16 of the rows on, for batches from 1/3)
        full: List[Tuple[np.ndarray, np.ndarray]] = []
        self._sparse: List[Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
        self._batch_full: List[Tuple[np.ndarray, np.ndarray]] = []
        self._batch_sparse: List[Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
        for k in range(1, int(rank.max()) + 1 if rank.size else 1):
            sel = rank == k
            layer = (rows[sel], cols[sel], values[sel], values[sel][:, None])
            self.layers.append(layer)
            full_cols = np.full(n_rows, n_cols - 1, dtype=np.intp)
            full_vals = np.zeros(n_rows)
            full_cols[layer[0]] = layer[1]
            full_vals[layer[0]] = layer[2]
            if 16 * layer[0].size >= n_rows:
                full.append((full_cols, full_vals))
            else:
                self._sparse.append(layer)
            if 3 * layer[0].size >= n_rows:
                self._batch_full.append((full_cols, full_vals[:, None]))
            else:
                self._batch_sparse.append(layer)
        self._full: Dict[int, np.ndarray] = {}
        #: whether :meth:`batch` needs a temporary of the output's shape
        self.needs_tmp = bool(self._batch_full)
        # one gather for layer 0 and the full layers, summed in layer order
        self._single_cols = np.concatenate([self.first_cols] + [c for c, _ in full])
        self._single_vals = np.concatenate([self.first_vals] + [v for _, v in full])
        self._single_count = 1 + len(full)
        #: largest |value|: with inputs below sqrt(max float) no product overflows
        self.max_value = float(np.abs(values).max()) if values.size else 0.0
        #: compressed rows (entries already sorted by row, then column) for the compiled batch
        self._csr = (np.searchsorted(rows, np.arange(n_rows + 1)).astype(np.intp),
                     cols.astype(np.intp), values.astype(np.float64))

    def set_single_columns(self, remap: np.ndarray) -> None:
        """
        Make :meth:`single` read column ``remap[c]`` of its input where the matrix has ``c``.

        For a single sample the nonlinear transmissions lay their slots out member by member
        (:meth:`~.nonlinear_maps.NonlinearMaps.single_columns`), batches group by group.
        """
        self._single_cols = remap[self._single_cols]
        self._sparse = [(rows, remap[cols], vals, vals_t)
                        for rows, cols, vals, vals_t in self._sparse]

    def single(self, x: np.ndarray) -> np.ndarray:
        """Return ``Y`` for one stacked sample ``x`` (length ``n_cols``, last slot 0)."""
        z = x[self._single_cols]
        z *= self._single_vals
        n = self.n_rows
        y = z[:n]
        for k in range(1, self._single_count):
            y += z[k * n:(k + 1) * n]
        for rows, cols, vals, _ in self._sparse:
            y[rows] += x[cols] * vals
        return y

    def batch(self, xt: np.ndarray, yt: np.ndarray, tmp: Optional[np.ndarray] = None) -> None:
        """
        Write ``Y^T`` of stacked samples into ``yt`` (``(n_rows, K)``, contiguous).

        :param xt: the stacked samples, ``(n_cols, K)``, last row 0
        :param yt: contiguous, or any view with the compiled kernels (:attr:`compiled`)
        :param tmp: scratch of ``yt``'s shape when :attr:`needs_tmp` (else one is allocated)
        """
        if compiled_kernels.product(*self._csr, xt, yt):
            return
        np.take(xt, self.first_cols, axis=0, out=yt, mode='clip')
        np.multiply(yt, self._multiplier(yt.shape[1]), out=yt)
        if self._batch_full:
            full = np.empty(yt.shape) if tmp is None else tmp
            for cols, vals_t in self._batch_full:
                np.take(xt, cols, axis=0, out=full, mode='clip')
                np.multiply(full, vals_t, out=full)
                np.add(yt, full, out=yt)
        for rows, cols, _, vals_t in self._batch_sparse:
            yt[rows] += xt[cols] * vals_t

    @property
    def compiled(self) -> bool:
        """Tell whether :meth:`batch` runs compiled: any layout of ``yt``, no ``tmp``."""
        return compiled_kernels.kernels() is not None

    def _multiplier(self, size: int) -> np.ndarray:
        """
        Return the first layer's values for ``size`` samples: ``(n_rows, size)`` or a column.

        numpy multiplies two contiguous arrays of one shape about twice as fast as it
        broadcasts a column over rows, so batches of more than :data:`FULL_MULTIPLIER` samples
        get the values repeated along the samples (made once per size; the last two sizes are
        kept: at most a chunk of the scratch buffer each).
        """
        if size <= FULL_MULTIPLIER:
            return self._first_vals_t
        full = self._full.get(size)
        if full is None:
            if len(self._full) >= 2:
                self._full.clear()
            full = np.repeat(self._first_vals_t, size, axis=1)
            self._full[size] = full
        return full

    def nbytes(self) -> int:
        """Return the bytes held by the index and value arrays (linear in the non-zeros)."""
        arrays = [self.first_cols, self.first_vals]
        for layer in self.layers:
            arrays.extend(layer[:3])
        arrays.extend([self._single_cols, self._single_vals])
        arrays.extend(a for layer in self._batch_full for a in layer)
        arrays.extend(self._csr)
        return sum(a.nbytes for a in arrays)


class Scratch:
    """
    The calling thread's scratch buffer for stacked batch inputs (reused: no page faults).

    Re-entrant calls (a kernel converting through the same maps) get a fresh buffer.
    """

    _local = threading.local()

    def __enter__(self) -> 'Scratch':
        self._own = not getattr(self._local, 'busy', False)
        self._local.busy = True
        return self

    def take(self, size: int) -> np.ndarray:
        """Return ``size`` doubles of scratch (contiguous, uninitialised)."""
        buf = getattr(self._local, 'buf', None) if self._own else None
        if buf is None or buf.size < size:
            buf = np.empty(max(size, SCRATCH if self._own else 0))
            if self._own:
                self._local.buf = buf
        return buf[:size]

    def __exit__(self, *exc: Any) -> None:
        if self._own:
            self._local.busy = False
