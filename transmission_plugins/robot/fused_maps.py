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
Robot-wide array maps: the linear transmissions fused into sparse matrices, the others beside.

With :math:`\theta` all actuator positions and :math:`q` all joint positions of a robot, the
linear transmissions together are one affine map with a block-structured Jacobian:

.. math::

    q = J\theta + q_0, \quad \dot q = J\dot\theta, \quad \tau = K^T u

    \theta = K(q - q_0), \quad \dot\theta = K\dot q, \quad u = J^T\tau

where :math:`J` (``nj x na``) holds each transmission's :math:`\partial q/\partial\theta` block
and :math:`K` (``na x nj``) each :math:`J^{-1}` block.  They are stored as coordinate lists
(:class:`SparseMatrix`: memory linear in the number of transmissions, never a dense
``nj x na`` array), and a product

.. math::

    y_r = \sum_{k} x_{c_{rk}} v_{rk}

multiplies structural non-zeros only, so NaN (and inf) reaches exactly the outputs that depend
on it, ``inf - inf`` giving NaN as in the sum.  It is evaluated by *layers*
(:class:`SparseProduct`): layer ``k`` holds the ``k``-th non-zero of every row that has one, so
the work is the number of non-zeros and the number of numpy calls the widest row (2 for the
PR2).  Every conversion, one sample or a batch, takes this path (:meth:`FusedMaps.convert`).
"""

import math
from typing import Any
from typing import Dict
from typing import Hashable
from typing import Iterable
from typing import List
from typing import Mapping
from typing import NamedTuple
from typing import Optional
from typing import Sequence
from typing import Tuple

import numpy as np

from transmission_plugins.core.checks import check_value_arrays
from transmission_plugins.core.exceptions import TransmissionInputError
from transmission_plugins.core.interfaces import ABSOLUTE_POSITION
from transmission_plugins.core.interfaces import EFFORT
from transmission_plugins.core.interfaces import INTERFACE_KIND
from transmission_plugins.core.interfaces import POSITION
from transmission_plugins.core.transmission import Transmission


class Block(NamedTuple):
    """One transmission placed in the robot-wide vectors."""

    transmission: Transmission
    #: indices of its joints in the robot joint vector, in map order
    joints: np.ndarray
    #: indices of its actuators in the robot actuator vector, in map order
    actuators: np.ndarray
    #: False when an earlier, identical transmission already drives its actuators; only owners
    #: write actuator values in ``joint_to_actuator``
    owner: bool = True


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

    :param rows: row indices, one array per piece (e.g. per transmission); ``cols`` and
        ``values`` match it
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
    keys = ((True, POSITION), (True, EFFORT), (False, POSITION), (False, EFFORT))
    pieces: Dict[Tuple[bool, str], List[List[np.ndarray]]] = {k: [[], [], []] for k in keys}
    offset = np.zeros(num_joints)

    def add(key: Tuple[bool, str], m: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> None:
        r, c = np.nonzero(m)
        for part, value in zip(pieces[key], (rows[r], cols[c], m[r, c])):
            part.append(value)

    for b in linear:
        jac, inv, q0 = b.transmission.linear_map()  # type: ignore[attr-defined]
        add((True, POSITION), jac, b.joints, b.actuators)
        add((True, EFFORT), inv.T, b.joints, b.actuators)
        offset[b.joints] = q0
        if b.owner:
            add((False, POSITION), inv, b.actuators, b.joints)
            add((False, EFFORT), jac.T, b.actuators, b.joints)
    shapes = {True: (num_joints, num_actuators), False: (num_actuators, num_joints)}
    return ({key: sparse_matrix(rows, cols, values, shapes[key[0]])
             for key, (rows, cols, values) in pieces.items()}, offset)


class SparseProduct:
    """
    ``y = S x`` for a :class:`SparseMatrix` ``S``, by layers of non-zeros (module docstring).

    :param matrix: ``S``
    :param written: rows the caller writes itself (the outputs of nonlinear transmissions):
        they may hold anything after :meth:`apply`; every other row without a non-zero is 0
    """

    def __init__(self, matrix: SparseMatrix, written: np.ndarray) -> None:
        rows, cols, values = matrix.rows, matrix.cols, matrix.values
        rank = np.arange(rows.size) - np.searchsorted(rows, rows, side='left')
        head = rank == 0
        #: the first layer, for every row (column 0 and 0 where a row has no non-zero)
        self.first_cols = np.zeros(matrix.shape[0], dtype=np.intp)
        self.first_cols[rows[head]] = cols[head]
        self.first_values = np.zeros(matrix.shape[0])
        self.first_values[rows[head]] = values[head]
        #: rows without a non-zero that nobody else writes: 0 (a NaN in column 0 must not
        #: reach them through the first layer's 0)
        self.empty = np.setdiff1d(np.arange(matrix.shape[0]), np.union1d(rows, written))
        #: the further layers: (rows, cols, values)
        self.layers = [(rows[rank == k], cols[rank == k], values[rank == k])
                       for k in range(1, int(rank.max()) + 1 if rank.size else 1)]

    def apply(self, x: np.ndarray, out: np.ndarray) -> None:
        """
        Write ``S x`` into ``out``, over leading batch axes.

        :param x: ``(..., n_cols)``
        :param out: ``(..., n_rows)``, not overlapping ``x``
        """
        x.take(self.first_cols, axis=-1, out=out, mode='clip')
        out *= self.first_values
        for rows, cols, values in self.layers:
            out[..., rows] += x[..., cols] * values
        if self.empty.size:
            out[..., self.empty] = 0.0

    def nbytes(self) -> int:
        """Return the bytes of its index and value arrays (linear in the non-zeros)."""
        return self.first_cols.nbytes + self.first_values.nbytes + self.empty.nbytes + sum(
            a.nbytes for layer in self.layers for a in layer)


class _Group(NamedTuple):
    """Nonlinear transmissions with identical maps, converted in one kernel call."""

    transmission: Transmission
    #: ``(G, n)`` source and destination indices of its ``G`` members
    src: np.ndarray
    dst: np.ndarray


def _groups(blocks: Sequence[Block], to_joint: bool) -> List[_Group]:
    """Return the nonlinear blocks of one direction grouped by map (joint to actuator: owners)."""
    by_map: Dict[Hashable, List[Block]] = {}
    for b in blocks:
        if not b.transmission.is_linear() and (to_joint or b.owner):
            by_map.setdefault(b.transmission.map_key(), []).append(b)
    return [_Group(members[0].transmission,
                   np.stack([b.actuators if to_joint else b.joints for b in members]),
                   np.stack([b.joints if to_joint else b.actuators for b in members]))
            for members in by_map.values()]


class FusedMaps:
    """
    Convert whole-robot arrays: fused sparse linear products plus nonlinear kernels beside them.

    :param blocks: the transmissions with their joint and actuator indices; every joint index
        appears in exactly one block, every actuator index in at least one owner block
    """

    def __init__(self, blocks: List[Block], num_joints: int, num_actuators: int) -> None:
        self.num_joints = num_joints
        self.num_actuators = num_actuators
        self.linear: List[Block] = [b for b in blocks if b.transmission.is_linear()]
        self.nonlinear: List[Block] = [b for b in blocks if not b.transmission.is_linear()]
        self._matrices, offset = fused_matrices(self.linear, num_joints, num_actuators)
        self.joint_offset = offset
        self.joint_offset.setflags(write=False)
        self._has_offset = bool(offset.any())
        #: the nonlinear transmissions of each direction, identical maps grouped
        self.groups = {True: _groups(blocks, True), False: _groups(blocks, False)}
        self._products = {
            key: SparseProduct(m, np.concatenate(
                [g.dst.ravel() for g in self.groups[key[0]]] + [np.zeros(0, np.intp)]))
            for key, m in self._matrices.items()}

    # ------------------------------------------------------------------ the fused matrices
    def matrix(self, to_joint: bool, kind: str) -> SparseMatrix:
        """
        Return one fused map as a sparse matrix.

        :param to_joint: True for actuator to joint (``nj x na``), False for the reverse
        :param kind: ``'position'`` (velocities map alike) or ``'effort'``
        """
        return self._matrices[to_joint, EFFORT if kind == EFFORT else POSITION]

    @property
    def actuator_to_joint_position(self) -> np.ndarray:
        r"""Return :math:`J` (``nj x na``, dense copy): joint positions and velocities."""
        return self.matrix(True, POSITION).toarray()

    @property
    def actuator_to_joint_effort(self) -> np.ndarray:
        r"""Return :math:`K^T` (``nj x na``, dense copy): joint efforts from actuator efforts."""
        return self.matrix(True, EFFORT).toarray()

    @property
    def joint_to_actuator_position(self) -> np.ndarray:
        r"""Return :math:`K` (``na x nj``, dense copy): actuator positions and velocities."""
        return self.matrix(False, POSITION).toarray()

    @property
    def joint_to_actuator_effort(self) -> np.ndarray:
        r"""Return :math:`J^T` (``na x nj``, dense copy): actuator efforts from joint efforts."""
        return self.matrix(False, EFFORT).toarray()

    def nbytes(self) -> int:
        """Return the bytes held by the fused maps' arrays (linear in the transmissions)."""
        total = self.joint_offset.nbytes
        for m in self._matrices.values():
            total += m.rows.nbytes + m.cols.nbytes + m.values.nbytes
        for groups in self.groups.values():
            total += sum(g.src.nbytes + g.dst.nbytes for g in groups)
        return total + sum(p.nbytes() for p in self._products.values())

    # ------------------------------------------------------------------ conversions
    def actuator_to_joint(self, values: Mapping[str, Any],
                          out: Optional[Mapping[str, np.ndarray]] = None
                          ) -> Dict[str, np.ndarray]:
        """
        Map actuator arrays ``(..., na)`` per interface to joint arrays ``(..., nj)``.

        :param out: optional, interface name to a float64 array ``(..., nj)`` to write the
            result into (one for every interface given, not overlapping the inputs)
        :raises TransmissionInputError: unknown interface, non-numeric values, wrong shape or
            a bad ``out``
        """
        arrays = check_value_arrays(values, self.num_actuators, 'actuator',
                                    tuple(INTERFACE_KIND), 'RobotTransmissions')
        return self._convert_into(arrays, True, out)

    def joint_to_actuator(self, values: Mapping[str, Any],
                          out: Optional[Mapping[str, np.ndarray]] = None
                          ) -> Dict[str, np.ndarray]:
        """
        Map joint arrays ``(..., nj)`` per interface to actuator arrays ``(..., na)``.

        Use NaN for joints without a command: the actuators that depend on them get NaN.

        :param out: optional, as for :meth:`actuator_to_joint` (arrays ``(..., na)``)
        :raises TransmissionInputError: unknown interface, non-numeric values, wrong shape or
            a bad ``out``
        """
        arrays = check_value_arrays(values, self.num_joints, 'joint', tuple(INTERFACE_KIND),
                                    'RobotTransmissions')
        return self._convert_into(arrays, False, out)

    def _convert_into(self, arrays: Dict[str, np.ndarray], to_joint: bool,
                      out: Optional[Mapping[str, np.ndarray]]) -> Dict[str, np.ndarray]:
        """Convert checked arrays, into the caller's arrays ``out`` when given."""
        if out is not None:
            _check_out(out, arrays, self.num_joints if to_joint else self.num_actuators)
        return self.convert(arrays, to_joint, out=out)

    def convert(self, arrays: Mapping[str, np.ndarray], to_joint: bool,
                state: Optional[np.ndarray] = None,
                out: Optional[Mapping[str, np.ndarray]] = None) -> Dict[str, np.ndarray]:
        """
        Convert arrays already checked: float64, the right length on the last axis.

        Nonlinear transmissions' velocity and effort outputs are NaN without a position state.

        :param state: the source positions of the nonlinear maps, of the inputs' shape;
            default: ``position``, else ``absolute_position``
        :param out: arrays to write the results into (checked by the caller), or None: the
            results are then C-ordered views of one new buffer
        """
        if state is None:
            state = arrays.get(POSITION, arrays.get(ABSOLUTE_POSITION))
        shapes = {x.shape for x in arrays.values()}
        if len(shapes) > 1:
            result: Dict[str, np.ndarray] = {}
            for name, values in arrays.items():
                here = None if state is None else np.broadcast_to(state, values.shape)
                result.update(self.convert({name: values}, to_joint, here))
            return result
        if not arrays:
            return {}
        n_out = self.num_joints if to_joint else self.num_actuators
        kinds = [INTERFACE_KIND[name] for name in arrays]
        ys = (list(np.empty((len(kinds),) + next(iter(shapes))[:-1] + (n_out,)))
              if out is None else [out[name] for name in arrays])
        with np.errstate(all='ignore'):  # inf and NaN are results, never warnings
            for x, y, kind in zip(arrays.values(), ys, kinds):
                offset = kind == POSITION and self._has_offset
                if offset and not to_joint:
                    x = x - self.joint_offset
                self._products[to_joint, EFFORT if kind == EFFORT else POSITION].apply(x, y)
                if offset and to_joint:
                    y += self.joint_offset
            for group in self.groups[to_joint]:
                tr = group.transmission
                prepared = at = None
                if state is not None and any(kind != POSITION for kind in kinds):
                    at = state.take(group.src, axis=-1)  # the members: one more batch axis
                    prepared = tr.prepare_state(to_joint, at)
                for x, y, kind in zip(arrays.values(), ys, kinds):
                    if kind != POSITION and prepared is None:
                        y[..., group.dst] = math.nan
                        continue
                    # the state's own positions: a mechanism maps them once for every kind
                    src = at if x is state and at is not None else x.take(group.src, axis=-1)
                    y[..., group.dst] = tr.apply_map(kind, to_joint, src, prepared)
        return dict(zip(arrays, ys))


def _check_out(out: Any, arrays: Mapping[str, np.ndarray], size: int) -> None:
    """
    Check the ``out=`` arrays of a conversion.

    :raises TransmissionInputError: not a mapping of every interface converted to a writeable
        float64 array of the output's shape, one that overlaps the inputs, or interfaces of
        different shapes
    """
    owner = 'RobotTransmissions'
    names = list(arrays)
    if not isinstance(out, Mapping) or set(out) != set(names):
        raise TransmissionInputError(
            f'{owner}: out= must map every interface converted ({", ".join(names)}) to an '
            f'array, got {out!r:.80}')
    shapes = {x.shape for x in arrays.values()}
    if len(shapes) > 1:
        raise TransmissionInputError(
            f'{owner}: out= needs every interface in one shape, got '
            + ', '.join(f'{k} {x.shape}' for k, x in arrays.items()))
    shape = next(iter(shapes))[:-1] + (size,)
    for name in names:
        y = out[name]
        if not isinstance(y, np.ndarray) or y.dtype != np.float64 or y.shape != shape or \
                not y.flags.writeable:
            got = (f'{y.dtype} array of shape {y.shape}' if isinstance(y, np.ndarray)
                   else type(y).__name__)
            raise TransmissionInputError(
                f'{owner}: out[{name!r}] must be a writeable float64 array of shape {shape}, '
                f'got {got}')
        if any(np.may_share_memory(y, x) for x in arrays.values()):
            raise TransmissionInputError(
                f'{owner}: out[{name!r}] overlaps the input arrays; give separate buffers')
