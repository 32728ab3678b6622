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
The nonlinear transmissions of a robot in one direction, beside the fused sparse product.

Their outputs are written into *slots* appended to the stacked input of the sparse product
(:mod:`~.sparse_maps`), whose rows for their joints (or actuators) read the slots with weight 1
(exact, NaN and inf included): the product then places them without a scatter.  Only the
*distinct* outputs get a slot (:class:`~transmission_plugins.core.sample.DistinctOutputs`: the
PR2 gripper's passive joints all read one slot, its simulated joints another).  Transmissions
with identical maps (the PR2's two grippers) form a *group* of ``G`` members; with ``m``
interfaces and ``D`` distinct outputs the group holds ``m * D * G`` slots from its offset on,
interface ``i``, output ``d`` and member ``j`` at ``(i * D + d) * G + j``.  A group's slots of
one interface are then a contiguous ``(D, G, samples)`` block of the stacked batch, and its
inputs a strided ``(N, G, samples)`` view when the members' joints (actuators) are evenly laid
out.

* A single sample goes through each transmission's
  :class:`~transmission_plugins.core.sample.SampleConverter` fast path when it has one (plain
  floats, no numpy call), else through its kernels.
* A batch goes through each group's
  :class:`~transmission_plugins.core.sample.BatchConverter` fast path, which reads its rows of
  the stacked input and writes its slots in place (the PR2 gripper's compiled one when numba
  is installed: :mod:`~.compiled_kernels`), else through the kernels.

Velocity and effort need the source positions of the same call (``position``, else
``absolute_position``); without them their outputs are NaN.
"""

import math
from typing import Callable
from typing import Dict
from typing import Hashable
from typing import List
from typing import NamedTuple
from typing import Optional
from typing import Sequence
from typing import Tuple

import numpy as np

from transmission_plugins.core.interfaces import POSITION
from transmission_plugins.core.sample import BatchConverter
from transmission_plugins.core.sample import DistinctOutputs
from transmission_plugins.core.sample import SampleConverter
from transmission_plugins.core.transmission import Transmission
from transmission_plugins.robot import compiled_kernels
from transmission_plugins.transmissions.pr2_gripper_transmission import PR2GripperTransmission


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


class _Group(NamedTuple):
    """Members with identical maps; ``src`` and ``dst`` are ``(G, n)``."""

    transmission: Transmission
    src: np.ndarray
    dst: np.ndarray
    #: for each output, the distinct value it holds; ``firsts[d]``: the first output holding d
    distinct: Tuple[int, ...]
    firsts: List[int]
    #: the first slot of the group, counted in slots per interface (multiply by ``m``)
    offset: int
    #: ``(first, member step)`` when ``src[g, k] = first + g * step + k``: the inputs are then
    #: read through a strided view instead of a gathered copy; else None
    strided: Optional[Tuple[int, int]]
    #: the fast paths, or None
    sample: Optional[Callable[..., Optional[List[float]]]]
    rows: Optional[Callable[..., bool]]

    @property
    def width(self) -> int:
        """Return the number of distinct outputs ``D``."""
        return len(self.firsts)


def _strided(src: np.ndarray) -> Optional[Tuple[int, int]]:
    """Return ``(first, step)`` when ``src`` (``(G, n)``) is evenly laid out."""
    first = int(src[0, 0])
    step = int(src[1, 0] - src[0, 0]) if len(src) > 1 else src.shape[1]
    expected = first + step * np.arange(len(src))[:, None] + np.arange(src.shape[1])
    if step < src.shape[1]:
        return None  # overlapping or reversed members
    return (first, step) if np.array_equal(src, expected) else None


def _rows(x: np.ndarray, start: int, group: _Group) -> np.ndarray:
    """
    Return rows ``start + group.src`` of ``x`` (``(n, K)``) as ``(N, G, K)`` (read only).

    A view when the members' rows are evenly laid out, else a gathered copy.
    """
    if group.strided is None:
        return x[start + group.src.T]
    first, step = group.strided
    size, n = group.src.shape
    first += start
    if x.flags.c_contiguous and first + size * step <= x.shape[0]:  # plain slicing: cheap
        if n == 1:
            return x[first:first + size * step:step][None]
        return x[first:first + size * step].reshape(size, step, -1)[:, :n].transpose(1, 0, 2)
    row, col = x.strides
    return np.lib.stride_tricks.as_strided(x[first:], (n, size, x.shape[1]),
                                           (row, step * row, col), writeable=False)


def _compiled_rows(group: _Group) -> Optional[Callable[..., bool]]:
    """Return the compiled batch fast path of a group's transmission, if it has one."""
    if type(group.transmission) is PR2GripperTransmission:   # not a subclass: its own maths
        return compiled_kernels.gripper_rows(group.transmission)
    return None


class NonlinearMaps:
    """
    The nonlinear blocks of one direction: slot layout, single-sample and batch conversion.

    :param blocks: every block of the robot (linear ones are ignored)
    :param to_joint: the direction; joint to actuator keeps only the blocks owning their
        actuators
    """

    def __init__(self, blocks: Sequence[Block], to_joint: bool) -> None:
        self.to_joint = to_joint
        kept = [b for b in blocks if not b.transmission.is_linear() and (to_joint or b.owner)]
        by_map: Dict[Hashable, List[Block]] = {}
        for b in kept:
            by_map.setdefault(b.transmission.map_key(), []).append(b)
        self.groups: List[_Group] = []
        offset = 0
        for members in by_map.values():
            tr = members[0].transmission
            src = np.stack([b.actuators if to_joint else b.joints for b in members])
            dst = np.stack([b.joints if to_joint else b.actuators for b in members])
            distinct = (tr.distinct_outputs(to_joint) if isinstance(tr, DistinctOutputs)
                        else tuple(range(dst.shape[1])))
            firsts = [distinct.index(d) for d in range(max(distinct) + 1)]
            group = _Group(tr, src, dst, distinct, firsts, offset, _strided(src),
                           tr.convert_sample if isinstance(tr, SampleConverter) else None,
                           tr.convert_rows if isinstance(tr, BatchConverter) else None)
            self.groups.append(group)
            offset += group.width * len(members)
        #: number of slots of all groups for one interface
        self.size = offset
        self._layouts: Dict[Tuple[int, int], List[np.ndarray]] = {}
        self._batch_rows: Optional[List[Optional[Callable[..., bool]]]] = None

    def __bool__(self) -> bool:
        return bool(self.groups)

    def slot_entries(self, m: int, n_out: int, base: int) -> Tuple[np.ndarray, np.ndarray]:
        """Return (stacked output rows, slot columns) reading the slots of ``m`` interfaces."""
        rows, cols = [np.zeros(0, np.intp)], [np.zeros(0, np.intp)]
        for g in self.groups:
            size, width = len(g.src), g.width
            start = base + m * g.offset
            member = np.arange(size)[:, None]
            distinct = np.array(g.distinct)[None, :]
            for i in range(m):
                rows.append((i * n_out + g.dst).ravel())
                cols.append((start + (i * width + distinct) * size + member).ravel())
        return np.concatenate(rows).astype(np.intp), np.concatenate(cols).astype(np.intp)

    # ------------------------------------------------------------------ one sample
    def single_columns(self, m: int, base: int, n_cols: int) -> np.ndarray:
        """
        Return where a single sample holds each stacked column (see :meth:`single`).

        The slots of a batch go group by group, interface, output, then member (a group's
        slots of one interface are one block); those of a single sample member by member,
        then interface and output, in the order :meth:`single` computes them.
        """
        remap = np.arange(n_cols)
        for g in self.groups:
            size, width = len(g.src), g.width
            start = base + m * g.offset
            i, d, j = np.meshgrid(np.arange(m), np.arange(width), np.arange(size),
                                  indexing='ij')
            remap[start + ((i * width + d) * size + j).ravel()] = \
                start + (j * m * width + i * width + d).ravel()
        return remap

    def single(self, kinds: Sequence[str], x: np.ndarray, n_in: int,
               state: Optional[int]) -> List[float]:
        """
        Return every slot value of one sample, member by member (:meth:`single_columns`).

        :param kinds: the map kind of each stacked interface
        :param x: the stacked inputs (``len(kinds) * n_in`` values first)
        :param n_in: the input length of one interface
        :param state: which interface holds the positions for velocity and effort, or None
        """
        m = len(kinds)
        gathers = self._layouts.get((m, n_in))
        if gathers is None:
            gathers = self._layout(m, n_in)
        out: List[float] = []
        to_joint = self.to_joint
        for g, gather in zip(self.groups, gathers):
            rows = x[gather].tolist()  # member by member, interface by interface
            for start in range(0, len(rows), m):
                values = rows[start:start + m]
                position = None if state is None else values[state]
                result = None if g.sample is None else g.sample(to_joint, kinds, values, position)
                out += self._kernels(g, kinds, values, position) if result is None else result
        return out

    def _layout(self, m: int, n_in: int) -> List[np.ndarray]:
        """Return (made once) each group's gather of its inputs: ``(G * m, N)`` indices."""
        gathers = [np.concatenate([src[None] + i * n_in for src in g.src for i in range(m)])
                   for g in self.groups]
        self._layouts[m, n_in] = gathers
        return gathers

    def _kernels(self, g: _Group, kinds: Sequence[str], values: List[List[float]],
                 position: Optional[List[float]]) -> List[float]:
        """Return one member's distinct outputs of one sample through its array kernels."""
        tr = g.transmission
        state = None
        if position is not None and any(k != POSITION for k in kinds):
            state = tr.prepare_state(self.to_joint, np.array(position))
        out: List[float] = []
        for kind, v in zip(kinds, values):
            if state is None and kind != POSITION:
                out += [math.nan] * g.width
            else:
                out += tr.apply_map(kind, self.to_joint, np.array(v), state)[g.firsts].tolist()
        return out

    # ------------------------------------------------------------------ batches
    def batch(self, kinds: Sequence[str], xt: np.ndarray, n_in: int, base: int,
              state: Optional[int], position: Optional[np.ndarray]) -> None:
        """
        Write the slots of a batch into the stacked transposed input ``xt``.

        :param kinds: the map kind of each stacked interface
        :param xt: the stacked inputs, ``(n_cols, K)``: interface ``i`` in rows
            ``i * n_in`` on, the slots from row ``base`` on
        :param state: which interface holds the positions for velocity and effort, or None
        :param position: the positions ``(n_in, K)`` when no interface holds them, or None
        """
        m = len(kinds)
        if self._batch_rows is None:
            self._batch_rows = [_compiled_rows(g) or g.rows for g in self.groups]
        for g, rows in zip(self.groups, self._batch_rows):
            values = [_rows(xt, i * n_in, g) for i in range(m)]
            at = values[state] if state is not None else \
                None if position is None else _rows(position, 0, g)
            size, width = len(g.src), g.width
            start = base + m * g.offset
            out = [xt[start + i * width * size:start + (i + 1) * width * size].reshape(
                width, size, -1) for i in range(m)]
            if rows is not None and rows(self.to_joint, kinds, values, at, out):
                continue
            self._batch_kernels(g, kinds, values, at, out)

    def _batch_kernels(self, g: _Group, kinds: Sequence[str], values: List[np.ndarray],
                       at: Optional[np.ndarray], out: List[np.ndarray]) -> None:
        """Fill one group's slots through its kernels (samples first, sources last)."""
        tr = g.transmission
        prepared = None
        if at is not None and any(k != POSITION for k in kinds):
            prepared = tr.prepare_state(self.to_joint, np.moveaxis(at, 0, -1))
        for kind, v, o in zip(kinds, values, out):
            if prepared is None and kind != POSITION:
                o[...] = math.nan
                continue
            y = tr.apply_map(kind, self.to_joint, np.moveaxis(v, 0, -1), prepared)
            o[...] = np.moveaxis(y[..., g.firsts], -1, 0)
