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
The flat description of a robot's maths, made once at load, and its one conversion.

Where each transmission sits in the robot's joint and actuator vectors is a :class:`Block`: its
joint and actuator indices in map order, whether it owns its actuators (an actuator shared by
identical transmissions is written by the first) and the joints its joint-to-actuator maps read.
The blocks are the one placement model of the package: the array and name-keyed maps, the
runtime's topology and the limits all derive from them.

From the blocks, :class:`FlatDescription` makes once what the compiled kernel
(:mod:`transmission_plugins.core.kernel`, built from ``src/kernel``) converts with:

* the linear transmissions fused into compressed rows, one matrix per direction and kind.  With
  :math:`\theta` all actuator positions and :math:`q` all joint positions,

  .. math::

      q = J\theta + q_0, \quad \dot q = J\dot\theta, \quad \tau = K^T u

      \theta = K(q - q_0), \quad \dot\theta = K\dot q, \quad u = J^T\tau

  where :math:`J` (``nj x na``) holds each transmission's :math:`\partial q/\partial\theta` block
  and :math:`K` (``na x nj``) each :math:`J^{-1}` block (joint to actuator: owners only).  A row
  sums its structural non-zeros only, so NaN (and inf) reach exactly the outputs that depend on
  them;
* one record per built-in mechanism (:meth:`Transmission.kernel_record`): its kind and the
  numbers its constructor prepared, plus its block.

:meth:`FlatDescription.convert` maps position, velocity and effort of a batch in one kernel call;
one sample is a batch of one.  Mechanisms written in Python (a
:class:`~transmission_plugins.core.mechanism.Mechanism` without a kernel record) are converted
after it by their own numpy maps, identical ones in one call: the documented slower way.
"""

import math
from typing import Any
from typing import Hashable
from typing import Iterable
from typing import Mapping
from typing import NamedTuple
from typing import Sequence

import numpy as np

from transmission_plugins.core.interfaces import ABSOLUTE_POSITION
from transmission_plugins.core.interfaces import EFFORT
from transmission_plugins.core.interfaces import INTERFACE_KIND
from transmission_plugins.core.interfaces import POSITION
from transmission_plugins.core.interfaces import VELOCITY
from transmission_plugins.core.transmission import Transmission

try:
    from transmission_plugins.core import kernel
except ImportError as e:  # pragma: no cover - a source tree that was never built
    raise ImportError(
        'transmission_plugins: its compiled kernel (transmission_plugins.core.kernel, src/kernel) '
        'is not built; build the package (pip install -e ., colcon build, or '
        f'scripts/setup_env.sh): {e}') from e

#: The kernel's slot of each interface: position-like, velocity-like, effort-like.
SLOT = {name: (0 if kind == POSITION else 2 if kind == EFFORT else 1)
        for name, kind in INTERFACE_KIND.items()}
#: The four fused matrices, in the kernel's order: (to_joint, kind).
KEYS = ((True, POSITION), (True, EFFORT), (False, POSITION), (False, EFFORT))


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

    @property
    def inputs(self) -> np.ndarray:
        """Return the robot indices of the joints its joint-to-actuator maps read."""
        return self.joints[list(self.transmission.joint_to_actuator_inputs())]


class SparseMatrix(NamedTuple):
    """A matrix as coordinates: ``m[rows[i], cols[i]] = values[i]``, sorted by row then column."""

    rows: np.ndarray
    cols: np.ndarray
    values: np.ndarray
    shape: tuple[int, int]

    def toarray(self) -> np.ndarray:
        """Return the dense matrix (for small robots and tests: ``rows x cols`` floats)."""
        out = np.zeros(self.shape)
        out[self.rows, self.cols] = self.values
        return out

    @property
    def nnz(self) -> int:
        """Return the number of stored non-zeros."""
        return int(self.values.size)

    def compressed_rows(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Return ``(ptr, col, val)``: row ``r`` holds ``col[ptr[r]:ptr[r + 1]]``."""
        ptr = np.zeros(self.shape[0] + 1, dtype=np.int64)
        np.cumsum(np.bincount(self.rows, minlength=self.shape[0]), out=ptr[1:])
        return ptr, self.cols.astype(np.int64), self.values


def sparse_matrix(rows: Sequence[np.ndarray], cols: Sequence[np.ndarray],
                  values: Sequence[np.ndarray], shape: tuple[int, int]) -> SparseMatrix:
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
                   num_actuators: int) -> tuple[dict[tuple[bool, str], SparseMatrix], np.ndarray]:
    r"""
    Return the fused maps of linear transmissions, ``{(to_joint, kind): matrix}``, and the offsets.

    ``(True, 'position')`` is :math:`J` (``nj x na``), ``(True, 'effort')`` :math:`K^T`,
    ``(False, 'position')`` :math:`K` and ``(False, 'effort')`` :math:`J^T`, each transmission's
    block placed at its joints and actuators; joint to actuator only from the blocks that own
    their actuators.  The offsets are :math:`q_0` (``nj``).
    """
    pieces: dict[tuple[bool, str], list[list[np.ndarray]]] = {k: [[], [], []] for k in KEYS}
    offset = np.zeros(num_joints)

    def add(key: tuple[bool, str], m: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> None:
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


class PythonGroup(NamedTuple):
    """Mechanisms written in Python with identical maps, converted in one call of their own."""

    transmission: Transmission
    #: ``(G, n)`` source and destination indices of its ``G`` members, per direction
    src: np.ndarray
    dst: np.ndarray
    #: the joints (map order) its joint-to-actuator maps read: the round trip compares them
    read: list[int]


def _python_groups(blocks: Sequence[Block], to_joint: bool) -> list[PythonGroup]:
    """Return the Python mechanisms of one direction grouped by map (joint to actuator: owners)."""
    by_map: dict[Hashable, list[Block]] = {}
    for b in blocks:
        if to_joint or b.owner:
            by_map.setdefault(b.transmission.map_key(), []).append(b)
    groups = []
    for members in by_map.values():
        tr = members[0].transmission
        groups.append(PythonGroup(
            tr, np.stack([b.actuators if to_joint else b.joints for b in members]),
            np.stack([b.joints if to_joint else b.actuators for b in members]),
            list(tr.joint_to_actuator_inputs())))
    return groups


class FlatDescription:
    """
    A robot's maths as the kernel converts it (module docstring).

    :param blocks: the transmissions with their joint and actuator indices; every joint index
        appears in exactly one block, every actuator index in at least one owner block
    :param warm: start Newton's method of each mechanism from its previous solution (a robot's
        description: its samples come in order); False: every sample alone (a transmission's
        own maps, which give the same numbers for a sample alone and in a batch)
    :raises ValueError: a kernel record the kernel refuses (the message says which and why)
    """

    def __init__(self, blocks: Sequence[Block], num_joints: int, num_actuators: int,
                 warm: bool = True) -> None:
        self.blocks = list(blocks)
        self.num_joints = num_joints
        self.num_actuators = num_actuators
        self.warm = warm
        #: (sources, targets) of each direction
        self._sizes = {True: (num_actuators, num_joints), False: (num_joints, num_actuators)}
        self.linear = [b for b in self.blocks if b.transmission.is_linear()]
        self.nonlinear = [b for b in self.blocks if not b.transmission.is_linear()]
        records = [(b, b.transmission.kernel_record()) for b in self.nonlinear]
        #: the built-in mechanisms, in the kernel's order
        self.compiled = [b for b, r in records if r is not None]
        python = [b for b, r in records if r is None]
        #: the mechanisms written in Python, per direction
        self.python = {True: _python_groups(python, True), False: _python_groups(python, False)}
        self._has_python = (bool(self.python[False]), bool(self.python[True]))
        #: whether a built-in mechanism's joint efforts come from its actuators' motion (a
        #: series-elastic transmission's spring): then actuator ``position`` and ``velocity``
        #: give joint efforts without actuator efforts
        self.effort_from_motion = any(b.transmission.joint_effort_from_motion()
                                      for b in self.compiled)
        self._matrices, offset = fused_matrices(self.linear, num_joints, num_actuators)
        offset.setflags(write=False)
        self.joint_offset = offset
        mechanisms = tuple(
            (r.kind, np.ascontiguousarray(r.parameters, dtype=np.float64),
             b.joints.astype(np.int64), b.actuators.astype(np.int64),
             len(b.transmission.joint_to_actuator_inputs()), b.owner)
            for b, r in records if r is not None)
        self.kernel = kernel.Maps(num_joints, num_actuators,
                                  tuple(self._matrices[k].compressed_rows() for k in KEYS),
                                  offset, mechanisms)

    # ------------------------------------------------------------------ the fused matrices
    def matrix(self, to_joint: bool, kind: str) -> SparseMatrix:
        """
        Return one fused linear map as a sparse matrix.

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
        """Return the bytes of the description's arrays (linear in the transmissions)."""
        total = self.joint_offset.nbytes
        for m in self._matrices.values():
            total += m.rows.nbytes + m.cols.nbytes + m.values.nbytes
        for groups in self.python.values():
            total += sum(g.src.nbytes + g.dst.nbytes for g in groups)
        return total + sum(b.joints.nbytes + b.actuators.nbytes for b in self.blocks)

    # ------------------------------------------------------------------ conversions
    def convert(self, arrays: Mapping[str, np.ndarray], to_joint: bool,
                state: np.ndarray | None = None,
                out: Mapping[str, np.ndarray] | None = None,
                unreachable: np.ndarray | None = None) -> dict[str, np.ndarray]:
        """
        Convert arrays already checked: float64, the right length on the last axis.

        Mechanisms' velocity and effort outputs are NaN without a position state.  When a
        mechanism's joint efforts come from its actuators' motion
        (:meth:`~.Transmission.joint_effort_from_motion`), an actuator-to-joint conversion of
        ``velocity`` with a state and without an effort-like interface also gives ``effort``
        (unless ``out`` has no place for it): that mechanism's joint efforts, NaN for the others.

        :param state: the source positions the mechanisms are evaluated at, of the inputs'
            shape; default: ``position``, else ``absolute_position``
        :param out: arrays to write the results into (checked by the caller), or None: the
            results are then new C-ordered arrays, one per interface
        :param unreachable: joint to actuator only: a boolean array of the outputs' shape that
            receives which actuators come from joint positions outside their mechanism's range
            (the round trip from joint positions to actuator positions and back moves them)
        """
        if state is None:
            state = arrays.get(POSITION)
            if state is None:
                state = arrays.get(ABSOLUTE_POSITION)
        if self.effort_from_motion and to_joint and state is not None:
            arrays = _with_effort(arrays, out)
        ys = self._compiled(arrays, to_joint, state, out, unreachable)
        if ys is None:   # interfaces of different shapes
            return self._one_by_one(arrays, to_joint, state, out, unreachable)
        if self._has_python[to_joint]:
            self._python(arrays, ys, to_joint, state, unreachable)
        return ys

    def _compiled(self, arrays: Mapping[str, np.ndarray], to_joint: bool,
                  state: np.ndarray | None, out: Mapping[str, np.ndarray] | None,
                  unreachable: np.ndarray | None) -> dict[str, np.ndarray] | None:
        """Convert through the kernel (a call per interface of a kind); None: mixed shapes."""
        src: list[Any] = [None, None, None]
        dst: list[Any] = [None, None, None]
        later = []
        shape = None
        n_in, n_out = self._sizes[to_joint]
        ys = {}
        for name, x in arrays.items():
            slot = SLOT[name]
            if src[slot] is not None:   # a second interface of a kind: a call of its own
                later.append(name)
                continue
            src[slot] = x
            if shape is None:
                shape = x.shape
                result = shape[:-1] + (n_out,)
            elif x.shape != shape:
                return None
            # a new array per interface (one allocation each: cheaper than views of a block)
            ys[name] = dst[slot] = np.empty(result) if out is None else out[name]
        if shape is None:
            return {}
        batch = -1 if n_in else _count(shape[:-1])
        try:
            self.kernel.convert(to_joint, batch, src[0], src[1], src[2], dst[0], dst[1],
                                dst[2], state, unreachable, None, self.warm)
        except TypeError:   # an array that is not C-contiguous: through contiguous copies
            self._contiguous(to_joint, batch, src, dst, state, unreachable)
        if later:
            ys.update(self._compiled({name: arrays[name] for name in later}, to_joint, state,
                                     None if out is None else {n: out[n] for n in later},
                                     None) or {})
        return ys

    def _contiguous(self, to_joint: bool, batch: int, src: list[Any], dst: list[Any],
                    state: np.ndarray | None, unreachable: np.ndarray | None) -> None:
        """Convert through C-contiguous copies of the arrays that are not, then copy back."""
        def contiguous(x: Any, blank: bool = False) -> Any:
            if x is None or x.flags.c_contiguous:
                return x
            return np.empty(x.shape, x.dtype) if blank else np.ascontiguousarray(x)

        into = [contiguous(y, True) for y in dst]
        reach = contiguous(unreachable, True)
        x = [contiguous(x) for x in src]
        self.kernel.convert(to_joint, batch, x[0], x[1], x[2], into[0], into[1], into[2],
                            contiguous(state), reach, None, self.warm)
        for y, z in zip(dst + [unreachable], into + [reach]):
            if y is not z:
                y[...] = z

    def _one_by_one(self, arrays: Mapping[str, np.ndarray], to_joint: bool,
                    state: np.ndarray | None, out: Mapping[str, np.ndarray] | None,
                    unreachable: np.ndarray | None) -> dict[str, np.ndarray]:
        """Convert interfaces of different shapes each alone, at the state broadcast to them."""
        result: dict[str, np.ndarray] = {}
        for name, values in arrays.items():
            here = None if state is None else np.broadcast_to(state, values.shape)
            reach = (unreachable if unreachable is not None and SLOT[name] == 0
                     and values.shape[:-1] == unreachable.shape[:-1] else None)
            result.update(self.convert({name: values}, to_joint, here,
                                       None if out is None else {name: out[name]}, reach))
        return result

    def _python(self, arrays: Mapping[str, np.ndarray], ys: Mapping[str, np.ndarray],
                to_joint: bool, state: np.ndarray | None,
                unreachable: np.ndarray | None) -> None:
        """Convert the mechanisms written in Python, after the kernel (the slower way)."""
        kinds = [INTERFACE_KIND[name] for name in arrays]
        with np.errstate(all='ignore'):  # inf and NaN are results, never warnings
            for group in self.python[to_joint]:
                tr = group.transmission
                prepared = at = None
                if state is not None and any(kind != POSITION for kind in kinds):
                    at = state.take(group.src, axis=-1)  # the members: one more batch axis
                    prepared = tr.prepare_state(to_joint, at)
                for (name, x), kind in zip(arrays.items(), kinds):
                    y = ys[name]
                    if kind != POSITION and prepared is None:
                        y[..., group.dst] = math.nan
                        continue
                    src = at if x is state and at is not None else x.take(group.src, axis=-1)
                    y[..., group.dst] = tr.apply_map(kind, to_joint, src, prepared)
                if unreachable is not None and state is not None and not to_joint:
                    source = state.take(group.src, axis=-1)
                    back = tr.apply_map(POSITION, True, tr.apply_map(POSITION, False, source,
                                                                     None), None)
                    here, there = source[..., group.read], back[..., group.read]
                    far = np.abs(there - here) > kernel.REACH_TOLERANCE * (1.0 + np.abs(here))
                    far |= np.isnan(there) & ~np.isnan(here)
                    unreachable[..., group.dst] |= np.any(far, axis=-1, keepdims=True)

    def jacobian(self, to_joint: bool, position: np.ndarray) -> np.ndarray:
        r"""
        Return the Jacobian of a direction at source positions, ``(..., n_out, n_in)``.

        :math:`\partial q/\partial\theta` at actuator positions (``to_joint``), else
        :math:`\partial\theta/\partial q` at joint positions; NaN where a map is undefined.

        :param position: checked float64 source positions ``(..., n_in)``
        """
        n_in, n_out = ((self.num_actuators, self.num_joints) if to_joint
                       else (self.num_joints, self.num_actuators))
        x = np.ascontiguousarray(position)
        out = np.empty(x.shape[:-1] + (n_out, n_in))
        self.kernel.convert(to_joint, x.size // n_in if n_in else _count(x.shape[:-1]), None,
                            None, None, None, None, None, x, None, out, self.warm)
        with np.errstate(all='ignore'):
            for group in self.python[to_joint]:
                tr = group.transmission
                jacobian = (tr.actuator_to_joint_jacobian if to_joint
                            else tr.joint_to_actuator_jacobian)
                for src, dst in zip(group.src, group.dst):
                    out[..., dst[:, None], src[None, :]] = jacobian(x[..., src])
        return out

    def terms(self, block: Block, to_joint: bool, position: np.ndarray) -> tuple[float, ...]:
        """Return the terms a built-in mechanism words its workspace problems with."""
        index = next(i for i, b in enumerate(self.compiled) if b is block)
        return self.kernel.terms(index, to_joint, np.ascontiguousarray(position, dtype=np.float64))


def _with_effort(arrays: Mapping[str, np.ndarray],
                 out: Mapping[str, np.ndarray] | None) -> Mapping[str, np.ndarray]:
    """
    Return ``arrays`` with NaN actuator efforts when they have velocities and no efforts.

    The joint efforts of a mechanism whose efforts come from its motion are then converted
    (from the positions and velocities); every other joint effort is NaN.
    """
    velocity = arrays.get(VELOCITY)
    if velocity is None or (out is not None and EFFORT not in out) or any(
            SLOT[name] == 2 for name in arrays):
        return arrays
    with_effort = dict(arrays)
    with_effort[EFFORT] = np.full(velocity.shape, math.nan)
    return with_effort


def _count(shape: tuple[int, ...]) -> int:
    """Return the number of samples of a batch shape."""
    n = 1
    for k in shape:
        n *= k
    return n
