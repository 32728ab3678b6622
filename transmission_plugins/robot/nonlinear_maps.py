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
(exact, NaN and inf included): the product then places them without a scatter.  The slot of
member ``b`` (in robot order), interface ``i`` of ``m`` and output ``d`` is
``base + m * offset_b + i * width_b + d``.

* A single sample goes through each transmission's
  :class:`~transmission_plugins.core.sample.SampleConverter` fast path when it has one (plain
  floats, no numpy call), else through its kernels.
* A batch goes through the kernels once per *group*: transmissions with identical maps (the
  PR2's two grippers) are stacked on a group axis and converted in one call.

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
from typing import Union

import numpy as np

from transmission_plugins.core.interfaces import POSITION
from transmission_plugins.core.sample import BatchConverter
from transmission_plugins.core.sample import SampleConverter
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


class _Group(NamedTuple):
    """Members with identical maps: ``src`` and ``dst`` are ``(G, n)`` or, for one, ``(n,)``."""

    transmission: Transmission
    src: np.ndarray
    dst: np.ndarray
    #: positions of the members in :attr:`NonlinearMaps.members`
    members: Tuple[int, ...]
    #: ``(first, member step)`` when ``src[g, k] = first + g * step + k``: the inputs are then
    #: read through a strided view instead of a gathered copy; else None
    strided: Optional[Tuple[int, int]] = None


class _Fast(NamedTuple):
    """One member in the one-sample path: its transmission, fast path, input parts, width."""

    transmission: Transmission
    convert: Optional[Callable[..., Optional[List[float]]]]
    parts: List[slice]
    width: int


def _strided(src: np.ndarray) -> Optional[Tuple[int, int]]:
    """Return ``(first, step)`` when ``src`` (``(G, n)`` or ``(n,)``) is evenly laid out."""
    grid = src.reshape(-1, src.shape[-1])
    first = int(grid[0, 0])
    step = int(grid[1, 0] - grid[0, 0]) if len(grid) > 1 else 0
    expected = first + step * np.arange(len(grid))[:, None] + np.arange(grid.shape[1])
    if len(grid) > 1 and step < grid.shape[1]:
        return None  # overlapping or reversed members
    return (first, step) if np.array_equal(grid, expected) else None


def _take(x: np.ndarray, group: _Group) -> np.ndarray:
    """Return ``x[..., group.src]``, a read-only strided view when the layout allows it."""
    if group.strided is None:
        return x[..., group.src]
    first, step = group.strided
    if group.src.ndim == 1:  # one member: a plain slice
        return x[..., first:first + group.src.shape[0]]
    inner = x.strides[-1]
    shape = x.shape[:-1] + group.src.shape
    strides = x.strides[:-1] + ((step * inner, inner) if group.src.ndim == 2 else (inner,))
    return np.lib.stride_tricks.as_strided(x[..., first:], shape, strides, writeable=False)


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
        #: (transmission, source indices, destination indices) in robot order
        self.members = [(b.transmission, b.actuators if to_joint else b.joints,
                         b.joints if to_joint else b.actuators) for b in kept]
        widths = [len(dst) for _, _, dst in self.members]
        self._widths = widths
        self._offsets = np.concatenate([[0], np.cumsum(widths)]).astype(np.intp)
        #: number of outputs of all members for one interface
        self.size = int(self._offsets[-1])
        by_map: Dict[Hashable, List[int]] = {}
        for k, (tr, _, _) in enumerate(self.members):
            by_map.setdefault(tr.map_key(), []).append(k)
        self.groups: List[_Group] = []
        for ks in by_map.values():
            tr, src, dst = self.members[ks[0]]
            if len(ks) > 1:
                src = np.stack([self.members[k][1] for k in ks])
                dst = np.stack([self.members[k][2] for k in ks])
            self.groups.append(_Group(tr, src, dst, tuple(ks), _strided(src)))
        self._layouts: Dict[Tuple[int, int], Tuple[np.ndarray, List['_Fast']]] = {}
        self._slot_cache: Dict[Tuple[int, int, int, int], List[Tuple[slice, slice]]] = {}
        self._batch_fast = [g.transmission.convert_batch
                            if isinstance(g.transmission, BatchConverter) else None
                            for g in self.groups]

    def __bool__(self) -> bool:
        return bool(self.members)

    def slot_entries(self, m: int, n_out: int, base: int) -> Tuple[np.ndarray, np.ndarray]:
        """Return (stacked output rows, slot columns) reading the slots of ``m`` interfaces."""
        rows, cols = [np.zeros(0, np.intp)], [np.zeros(0, np.intp)]
        for k, (_, _, dst) in enumerate(self.members):
            width = self._widths[k]
            for i in range(m):
                rows.append(i * n_out + dst)
                cols.append(base + m * self._offsets[k] + i * width + np.arange(width))
        return np.concatenate(rows).astype(np.intp), np.concatenate(cols).astype(np.intp)

    # ------------------------------------------------------------------ one sample
    def single(self, kinds: Sequence[str], x: np.ndarray, n_in: int,
               state: Optional[int]) -> List[float]:
        """
        Return every slot value of one sample (members in order, then interfaces, outputs).

        :param kinds: the map kind of each stacked interface
        :param x: the stacked inputs (``len(kinds) * n_in`` values first)
        :param n_in: the input length of one interface
        :param state: which interface holds the positions for velocity and effort, or None
        """
        m = len(kinds)
        layout = self._layouts.get((m, n_in)) or self._layout(m, n_in)
        flat = x[layout[0]].tolist()
        out: List[float] = []
        to_joint = self.to_joint
        for tr, fast, parts, width in layout[1]:
            values = [flat[part] for part in parts]
            position = None if state is None else values[state]
            result = None if fast is None else fast(to_joint, kinds, values, position)
            if result is None:
                result = self._kernels(tr, kinds, values, position, width)
            out += result
        return out

    def _layout(self, m: int, n_in: int) -> Tuple[np.ndarray, List['_Fast']]:
        """Return (made once) the gather of every member's inputs and each member's parts."""
        gather = np.concatenate([src + i * n_in for _, src, _ in self.members
                                 for i in range(m)] + [np.zeros(0, np.intp)])
        members = []
        start = 0
        for k, (tr, src, _) in enumerate(self.members):
            n = len(src)
            parts = [slice(start + i * n, start + (i + 1) * n) for i in range(m)]
            start += m * n
            fast = tr.convert_sample if isinstance(tr, SampleConverter) else None
            members.append(_Fast(tr, fast, parts, self._widths[k]))
        layout = (gather, members)
        self._layouts[m, n_in] = layout
        return layout

    def _kernels(self, tr: Transmission, kinds: Sequence[str], values: List[List[float]],
                 position: Optional[List[float]], width: int) -> List[float]:
        """Return one member's outputs of one sample through its array kernels."""
        state = None
        if position is not None and any(k != POSITION for k in kinds):
            state = tr.prepare_state(self.to_joint, np.array(position))
        out: List[float] = []
        for kind, v in zip(kinds, values):
            if state is None and kind != POSITION:
                out += [math.nan] * width
            else:
                out += tr.apply_map(kind, self.to_joint, np.array(v), state).tolist()
        return out

    # ------------------------------------------------------------------ batches
    def batch(self, kinds: Sequence[str], xs: Sequence[np.ndarray], state: Optional[int],
              position: Optional[np.ndarray], xt: np.ndarray, base: int) -> None:
        """
        Write the slots of a batch into the stacked transposed input ``xt``.

        :param kinds: the map kind of each stacked interface
        :param xs: the inputs of each interface, ``(K, n_in)``
        :param state: which interface holds the positions for velocity and effort, or None
        :param position: the positions ``(K, n_in)`` when no interface holds them, or None
        :param xt: the stacked inputs, ``(n_cols, K)``; rows ``base`` on are slots
        """
        m = len(kinds)
        count = xt.shape[1]
        need_state = any(k != POSITION for k in kinds)
        for g, group in enumerate(self.groups):
            tr = group.transmission
            values = [_take(x, group) for x in xs]
            at = values[state] if state is not None else \
                None if position is None else _take(position, group)
            fast = self._batch_fast[g]
            out: Optional[Sequence[Union[float, np.ndarray]]] = None
            if at is not None and fast is not None:
                out = fast(self.to_joint, kinds, values, at)
            if out is None:
                prepared = tr.prepare_state(self.to_joint, at) if need_state else None
                out = [math.nan if prepared is None and kind != POSITION else
                       tr.apply_map(kind, self.to_joint, v, prepared)
                       for kind, v in zip(kinds, values)]
            for i, v in enumerate(out):
                vt = None if isinstance(v, float) else v.reshape(count, -1).T
                for rows, columns in self._slots(g, m, i, base):
                    xt[rows] = v if vt is None else vt[columns]

    def _slots(self, g: int, m: int, i: int, base: int) -> List[Tuple[slice, slice]]:
        """
        Return (made once) where interface ``i`` of group ``g`` goes: per member, its slots.

        Each pair is (rows of ``xt``, columns of the kernel output flattened per sample); a
        member's slots are contiguous, so each write is a plain slice copy.
        """
        slots = self._slot_cache.get((g, m, i, base))
        if slots is None:
            group = self.groups[g]
            width = self._widths[group.members[0]]
            slots = []
            for j, k in enumerate(group.members):
                start = int(base + m * self._offsets[k] + i * width)
                slots.append((slice(start, start + width), slice(j * width, (j + 1) * width)))
            self._slot_cache[g, m, i, base] = slots
        return slots
