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
Batches through the stacked product: chunks in a reused scratch buffer, outputs in place.

A batch of ``K`` samples is converted with samples along the last axis: the inputs of the
interfaces are stacked, transposed, into rows of a scratch buffer (``(n_cols, K)``), the
nonlinear transmissions write their slots there (:mod:`~.nonlinear_maps`), and the product
(:class:`~.sparse_maps.StackedProduct`) writes the stacked outputs ``(n_rows, K)``.  Big batches
go in chunks that fit the per-thread scratch buffer (:data:`~.sparse_maps.SCRATCH` doubles,
reused: no page faults), each chunk's outputs written straight into their place.

Where they go: by default one new ``(n_rows, K)`` buffer, returned as one view per interface
(Fortran order, equal in value to C-ordered arrays); or the caller's arrays (``out=``): when
they are such views of one buffer (the arrays a previous call returned), the product writes into
them directly, otherwise each chunk is copied into them.
"""

import math
import sys
import threading
from typing import Any
from typing import Dict
from typing import List
from typing import Mapping
from typing import NamedTuple
from typing import Optional
from typing import Sequence
from typing import Tuple

import numpy as np

from transmission_plugins.core.exceptions import TransmissionInputError
from transmission_plugins.robot import compiled_kernels
from transmission_plugins.robot.nonlinear_maps import NonlinearMaps
from transmission_plugins.robot.sparse_maps import SCRATCH
from transmission_plugins.robot.sparse_maps import Scratch
from transmission_plugins.robot.sparse_maps import StackedProduct


class Plan(NamedTuple):
    """The stacked product of one direction and one sequence of interface kinds."""

    product: StackedProduct
    #: number of stacked interfaces
    m: int
    #: the first slot of the nonlinear outputs in the stacked input
    base: int
    #: subtracted from the stacked input (joint offsets in position segments), or None
    offset_in: Optional[np.ndarray]
    #: added to the stacked output (joint offsets in position segments), or None
    offset_out: Optional[np.ndarray]
    #: first stacked row of each position segment (joints)
    offset_rows: Tuple[int, ...]
    #: True when inputs with a finite sum of squares cannot overflow a product
    quiet: bool


class Call(NamedTuple):
    """What one conversion needs, by direction and interface names (cached)."""

    plan: Plan
    kinds: Tuple[str, ...]
    #: each interface's part of the stacked output
    slices: Tuple[slice, ...]
    #: which interface holds the positions for velocity and effort, or None
    state: Optional[int]
    nonlinear: Optional[NonlinearMaps]
    #: the shape of one sample of one interface
    shape: Tuple[int]
    #: the joint offsets as a column (``(nj, 1)``), for the position segments
    offset: np.ndarray
    #: zeros, appended to the inputs of one sample (the slots and the zero slot)
    tail: np.ndarray


class OutputPool:
    """
    Output buffers of batches, reused once nothing refers to them any more.

    A program that converts batch after batch drops each result before (or just after) it gets
    the next; a new buffer for each is new memory that the kernel faults in page by page when
    glibc has returned the old one (hundreds of faults per PR2 batch of 1000, as long as the
    conversion itself, depending on the heap's history).  The pool keeps the last
    :data:`POOL_SIZE` buffers of at most :data:`POOL_BYTES` each and hands one out again only
    when its reference count shows that no array (no view of it, whatever the caller kept) is
    left: the caller's arrays never change behind its back.
    """

    def __init__(self) -> None:
        self._buffers: List[np.ndarray] = []
        self._lock = threading.Lock()
        # the count of an array only a list refers to, as take() reads it (2 on CPython 3.11:
        # the list's reference and getrefcount's argument)
        probe = [np.empty(0)]
        self._unused = sys.getrefcount(probe[0])

    def take(self, shape: Tuple[int, int]) -> np.ndarray:
        """Return a C-ordered float64 buffer of ``shape``, unused or new."""
        with self._lock:
            for i in range(len(self._buffers)):
                if self._buffers[i].shape == shape and \
                        sys.getrefcount(self._buffers[i]) == self._unused:
                    buffer = self._buffers[i]
                    return buffer
            buffer = np.empty(shape)
            if buffer.nbytes <= POOL_BYTES:
                self._buffers.append(buffer)
                if len(self._buffers) > POOL_SIZE:
                    del self._buffers[0]
            return buffer


#: buffers an :class:`OutputPool` keeps, and their largest size (bytes)
POOL_SIZE = 4
POOL_BYTES = 1 << 24


def output_rows(out: Any, names: Sequence[str], shape: Tuple[int, ...], size: int,
                inputs: Sequence[np.ndarray], owner: str) -> List[np.ndarray]:
    """
    Return each interface's ``out`` array as a ``(size, count)`` view, checked.

    :param out: mapping of interface name to a writeable float64 array of shape
        ``shape + (size,)``, one for every interface converted
    :param inputs: the input arrays, which ``out`` must not overlap
    :raises TransmissionInputError: not such a mapping, a missing or wrong array, an overlap
    """
    if not isinstance(out, Mapping) or set(out) != set(names):
        raise TransmissionInputError(
            f'{owner}: out= must map every interface converted ({", ".join(names)}) to an '
            f'array, got {out!r:.80}')
    rows = []
    for name in names:
        y = out[name]
        if not isinstance(y, np.ndarray) or y.dtype != np.float64 or \
                y.shape != shape + (size,) or not y.flags.writeable:
            got = (f'{y.dtype} array of shape {y.shape}' if isinstance(y, np.ndarray)
                   else type(y).__name__)
            raise TransmissionInputError(
                f'{owner}: out[{name!r}] must be a writeable float64 array of shape '
                f'{shape + (size,)}, got {got}')
        if any(np.may_share_memory(y, x) for x in inputs):
            raise TransmissionInputError(
                f'{owner}: out[{name!r}] overlaps the input arrays; give separate buffers')
        try:
            rows.append(np.reshape(y, (-1, size), copy=False).T)
        except ValueError:
            raise TransmissionInputError(
                f'{owner}: out[{name!r}] cannot be viewed as {math.prod(shape)} samples of '
                f'{size} (strides {y.strides}); give a C- or Fortran-ordered array') from None
    return rows


def joined_rows(rows: Sequence[np.ndarray]) -> Optional[np.ndarray]:
    """Return one ``(m * size, count)`` view of ``rows`` when they lie end to end, else None."""
    first = rows[0]
    if not first.flags.c_contiguous:
        return None
    step = first.nbytes
    start = _address(first)
    for i, r in enumerate(rows):
        if r.shape != first.shape or not r.flags.c_contiguous or _address(r) != start + i * step:
            return None
    shape = (len(rows) * first.shape[0], first.shape[1])
    root = first
    while isinstance(root.base, np.ndarray):
        root = root.base
    if root.flags.c_contiguous and root.size == shape[0] * shape[1] and _address(root) == start:
        return root.reshape(shape)  # the buffer a previous call returned views of
    return np.lib.stride_tricks.as_strided(first, shape, first.strides)


def _address(x: np.ndarray) -> int:
    """Return the address of ``x``'s first element."""
    return int(x.__array_interface__['data'][0])


def convert_batch(call: Call, xs: Sequence[np.ndarray], position: Optional[np.ndarray],
                  dst: Sequence[np.ndarray], joined: Optional[np.ndarray]) -> None:
    """
    Write the stacked outputs of ``count`` samples into ``dst``.

    :param xs: each interface's inputs, ``(count, n_in)``
    :param position: the positions for velocity and effort, ``(count, n_in)``, when no
        interface holds them, or None
    :param dst: each interface's outputs, ``(n_out, count)`` (views)
    :param joined: ``dst`` as one ``(n_rows, count)`` view, or None
    """
    plan = call.plan
    product = plan.product
    n_cols, n_rows = product.n_cols, product.n_rows
    count = xs[0].shape[0]
    compiled = product.compiled
    extra = n_rows if product.needs_tmp and not compiled else 0
    # numpy: one chunk written straight into contiguous outputs, else chunks computed in scratch
    # (numpy's operations are fastest on contiguous arrays) and copied into place; compiled:
    # every chunk straight into the outputs when they are one buffer
    direct = joined is not None and (compiled or joined.flags.c_contiguous and
                                     count * (n_cols + extra) <= SCRATCH)
    per_sample = n_cols + extra + (0 if direct else n_rows)
    chunk = count if direct and not compiled else max(1, min(count, SCRATCH // per_sample))
    with Scratch() as scratch, np.errstate(over='ignore', invalid='ignore'):
        for start in range(0, count, chunk):
            stop = min(start + chunk, count)
            size = stop - start
            buf = scratch.take(per_sample * size)
            xt = buf[:n_cols * size].reshape(n_cols, size)
            tmp = buf[n_cols * size:(n_cols + extra) * size].reshape(n_rows, size) \
                if extra else None
            yt = joined[:, start:stop] if direct and joined is not None else \
                buf[(n_cols + extra) * size:].reshape(n_rows, size)
            _chunk(call, [x[start:stop] for x in xs],
                   None if position is None else position[start:stop], xt, yt, tmp)
            if not direct:
                if joined is not None:
                    joined[:, start:stop] = yt
                else:
                    for d, part in zip(dst, call.slices):
                        d[:, start:stop] = yt[part]


def _chunk(call: Call, xs: List[np.ndarray], position: Optional[np.ndarray], xt: np.ndarray,
           yt: np.ndarray, tmp: Optional[np.ndarray]) -> None:
    """Convert one chunk: stack ``xs`` into ``xt``, add the slots, product into ``yt``."""
    plan = call.plan
    if not compiled_kernels.stack(xs, xt):
        np.concatenate([x.T for x in xs], axis=0, out=xt[:plan.base])
    n_in = xs[0].shape[1]
    if call.nonlinear is not None:
        call.nonlinear.batch(call.kinds, xt, n_in, plan.base, call.state,
                             None if position is None else position.T)
    xt[-1] = 0.0
    if plan.offset_in is not None:
        column, nj = call.offset, call.offset.shape[0]
        for start in plan.offset_rows:
            rows = xt[start:start + nj]
            np.subtract(rows, column, out=rows)
    plan.product.batch(xt, yt, tmp)
    if plan.offset_out is not None:
        column, nj = call.offset, call.offset.shape[0]
        for start in plan.offset_rows:
            rows = yt[start:start + nj]
            np.add(rows, column, out=rows)


def batch_result(names: Sequence[str], rows: Sequence[np.ndarray],
                 shape: Tuple[int, ...]) -> Dict[str, np.ndarray]:
    """Return each interface's ``(n_out, count)`` rows as an array ``shape + (n_out,)``."""
    return {name: r.T.reshape(shape + (-1,)) for name, r in zip(names, rows)}
