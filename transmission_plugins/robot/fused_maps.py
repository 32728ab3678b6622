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
Robot-wide array maps: every linear transmission fused into one sparse matrix per map.

With :math:`\theta` all actuator positions and :math:`q` all joint positions of a robot, the
linear transmissions together are one affine map with a block-structured Jacobian:

.. math::

    q = J\theta + q_0, \quad \dot q = J\dot\theta, \quad \tau = K^T u

    \theta = K(q - q_0), \quad \dot\theta = K\dot q, \quad u = J^T\tau

where :math:`J` (``nj x na``) holds each transmission's :math:`\partial q/\partial\theta` block
and :math:`K` (``na x nj``) each :math:`J^{-1}` block, stored sparse
(:mod:`~.sparse_maps`: memory and time linear in the number of transmissions).  The interfaces
of one call are converted together: their inputs are stacked and go through one block-diagonal
product (``position``, ``velocity`` and ``effort`` of the PR2: one gather of 132 entries and
one layer of 20 sums), exact on the sparsity pattern, so NaN (and inf) reaches exactly the
outputs that depend on it.  The nonlinear transmissions write their outputs into extra slots of
the stacked input, which the product places (:mod:`~.nonlinear_maps`); their position-dependent
state is prepared once per call for the velocity and effort maps.

One sample goes through :meth:`FusedMaps._single` (a few numpy calls on the stacked vector),
batches through :mod:`~.stacked_batches` (samples along the last axis, in chunks; the arrays
returned are views of one buffer in that layout, Fortran order, equal in value to C-ordered
ones).  Both can write into the caller's arrays (``out=``).
"""

import math
from typing import Any
from typing import Dict
from typing import List
from typing import Mapping
from typing import Optional
from typing import Tuple

import numpy as np

from transmission_plugins.core.checks import check_value_arrays
from transmission_plugins.core.exceptions import TransmissionInputError
from transmission_plugins.core.interfaces import ABSOLUTE_POSITION
from transmission_plugins.core.interfaces import EFFORT
from transmission_plugins.core.interfaces import INTERFACE_KIND
from transmission_plugins.core.interfaces import POSITION
from transmission_plugins.robot.nonlinear_maps import Block
from transmission_plugins.robot.nonlinear_maps import NonlinearMaps
from transmission_plugins.robot.sparse_maps import fused_matrices
from transmission_plugins.robot.sparse_maps import SparseMatrix
from transmission_plugins.robot.sparse_maps import StackedProduct
from transmission_plugins.robot.stacked_batches import batch_result
from transmission_plugins.robot.stacked_batches import Call
from transmission_plugins.robot.stacked_batches import convert_batch
from transmission_plugins.robot.stacked_batches import joined_rows
from transmission_plugins.robot.stacked_batches import output_rows
from transmission_plugins.robot.stacked_batches import OutputPool
from transmission_plugins.robot.stacked_batches import Plan

#: Stacked samples up to this length are checked with one dot product (no inf, nothing that
#: overflows) instead of entering :class:`numpy.errstate` (the dot product is cheaper on small
#: vectors; BLAS would start threads on long ones).
QUIET_CHECK = 2048


def _check(values: Mapping[str, Any], size: int, side: str) -> Dict[str, np.ndarray]:
    return check_value_arrays(values, size, side, tuple(INTERFACE_KIND), 'RobotTransmissions')


class FusedMaps:
    """
    Convert whole-robot arrays: fused sparse linear products plus nonlinear kernels beside them.

    :param blocks: the transmissions with their joint and actuator indices; every joint index
        appears in exactly one block, every actuator index in at least one owner block
    :param num_joints: length of the robot joint vector
    :param num_actuators: length of the robot actuator vector
    """

    def __init__(self, blocks: List[Block], num_joints: int, num_actuators: int) -> None:
        nj, na = num_joints, num_actuators
        self.num_joints = nj
        self.num_actuators = na
        self.linear: List[Block] = [b for b in blocks if b.transmission.is_linear()]
        self.nonlinear: List[Block] = [b for b in blocks if not b.transmission.is_linear()]
        self._matrices, offset = fused_matrices(self.linear, nj, na)
        self.joint_offset = offset
        self.joint_offset.setflags(write=False)
        self._offset_column = offset[:, None]
        self._plans: Dict[Tuple[bool, Tuple[str, ...]], Plan] = {}
        self._calls: Dict[Tuple[bool, Tuple[str, ...]], Call] = {}
        self._pool = OutputPool()
        self._nonlinear_maps = {True: NonlinearMaps(blocks, True),
                                False: NonlinearMaps(blocks, False)}
        #: the nonlinear transmissions with identical maps grouped (one kernel call per group)
        self._nl_a2j = self._nonlinear_maps[True].groups

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
        for plan in list(self._plans.values()):
            total += plan.product.nbytes()
            for extra in (plan.offset_in, plan.offset_out):
                total += 0 if extra is None else extra.nbytes
        return total

    def _plan(self, to_joint: bool, kinds: Tuple[str, ...]) -> Plan:
        """Return (made once, then cached) the stacked product for ``kinds`` in one direction."""
        plan = self._plans.get((to_joint, kinds))
        if plan is not None:
            return plan
        n_out, n_in = ((self.num_joints, self.num_actuators) if to_joint
                       else (self.num_actuators, self.num_joints))
        nonlinear = self._nonlinear_maps[to_joint]
        m = len(kinds)
        base = m * n_in
        n_cols = base + m * nonlinear.size + 1
        matrices = [self.matrix(to_joint, k) for k in kinds]
        slot_rows, slot_cols = nonlinear.slot_entries(m, n_out, base)
        rows = np.concatenate([s.rows + i * n_out for i, s in enumerate(matrices)] + [slot_rows])
        cols = np.concatenate([s.cols + i * n_in for i, s in enumerate(matrices)] + [slot_cols])
        vals = np.concatenate([s.values for s in matrices] + [np.ones(slot_rows.size)])
        order = np.lexsort((cols, rows))
        product = StackedProduct(rows[order], cols[order], vals[order], m * n_out, n_cols)
        product.set_single_columns(nonlinear.single_columns(m, base, n_cols))
        offset_in = offset_out = None
        offset_rows = tuple(i * self.num_joints for i, k in enumerate(kinds) if k == POSITION)
        if POSITION in kinds and self.joint_offset.any():
            offset = np.zeros(m * self.num_joints if to_joint else n_cols)
            for i, k in enumerate(kinds):
                if k == POSITION:
                    offset[i * self.num_joints:(i + 1) * self.num_joints] = self.joint_offset
            offset_out, offset_in = (offset, None) if to_joint else (None, offset)
        plan = Plan(product, m, base, offset_in, offset_out, offset_rows,
                    product.max_value < 1e150 and n_cols <= QUIET_CHECK)
        self._plans[to_joint, kinds] = plan
        return plan

    # ------------------------------------------------------------------ conversions
    def actuator_to_joint(self, values: Mapping[str, Any],
                          out: Optional[Mapping[str, np.ndarray]] = None
                          ) -> Dict[str, np.ndarray]:
        """
        Map actuator arrays ``(..., na)`` per interface to joint arrays ``(..., nj)``.

        Joints of nonlinear transmissions get NaN velocity and effort when no ``position`` (or
        ``absolute_position``) is given in the same call.

        :param out: optional, interface name to a float64 array ``(..., nj)`` to write the
            result into (one for every interface given, not overlapping the inputs); the
            result then holds these arrays
        :raises TransmissionInputError: unknown interface, non-numeric values, wrong shape or
            a bad ``out``
        """
        if out is None:
            single = self._single(values, True)
            if single is not None:
                return single
        return self.convert_valid(_check(values, self.num_actuators, 'actuator'), True, out)

    def joint_to_actuator(self, values: Mapping[str, Any],
                          out: Optional[Mapping[str, np.ndarray]] = None
                          ) -> Dict[str, np.ndarray]:
        """
        Map joint arrays ``(..., nj)`` per interface to actuator arrays ``(..., na)``.

        Use NaN for joints without a command: the actuators that depend on them get NaN.
        Actuators of nonlinear transmissions get NaN velocity and effort when no ``position`` is
        given in the same call.

        :param out: optional, as for :meth:`actuator_to_joint` (arrays ``(..., na)``)
        :raises TransmissionInputError: unknown interface, non-numeric values, wrong shape or
            a bad ``out``
        """
        if out is None:
            single = self._single(values, False)
            if single is not None:
                return single
        return self.convert_valid(_check(values, self.num_joints, 'joint'), False, out)

    def convert_valid(self, arrays: Mapping[str, np.ndarray], to_joint: bool,
                      out: Optional[Mapping[str, np.ndarray]] = None) -> Dict[str, np.ndarray]:
        """
        Convert arrays already checked: float64, the right length on the last axis.

        :param arrays: interface name to array (as :func:`check_value_arrays` returns them)
        :param to_joint: True for actuator to joint, False for joint to actuator
        :param out: optional output arrays (see :meth:`actuator_to_joint`)
        """
        if not arrays:
            return {}
        shape = next(iter(arrays.values())).shape
        if not all(x.shape == shape for x in arrays.values()):
            if out is not None:
                raise TransmissionInputError(
                    'RobotTransmissions: out= needs every interface in one shape, got '
                    + ', '.join(f'{k} {x.shape}' for k, x in arrays.items()))
            # interfaces of different batch shapes: one product each, positions broadcast
            result: Dict[str, np.ndarray] = {}
            state = _state(arrays)
            for name, x in arrays.items():
                here = None if state is None else np.broadcast_to(state, x.shape)
                result.update(self._stacked({name: x}, to_joint, here, None))
            return result
        if math.prod(shape[:-1]) == 1:  # one sample: the one-sample path
            call = self._call(to_joint, tuple(arrays))
            single = self._single({k: v.reshape(-1) for k, v in arrays.items()}, to_joint)
            if single is not None:
                if out is None:
                    return {k: v.reshape(shape[:-1] + (-1,)) for k, v in single.items()}
                n_out = call.plan.product.n_rows // call.plan.m
                rows = output_rows(out, tuple(arrays), shape[:-1], n_out,
                                   list(arrays.values()), 'RobotTransmissions')
                for r, y in zip(rows, single.values()):
                    r[:, 0] = y
                return {name: out[name] for name in arrays}
        return self._stacked(arrays, to_joint, _state(arrays), out)

    def _call(self, to_joint: bool, names: Tuple[str, ...]) -> Call:
        """Return (made once, then cached) what a conversion of ``names`` needs."""
        call = self._calls.get((to_joint, names))
        if call is None:
            kinds = tuple(INTERFACE_KIND[n] for n in names)
            plan = self._plan(to_joint, kinds)
            n_out = plan.product.n_rows // plan.m
            state = names.index(POSITION) if POSITION in names else \
                names.index(ABSOLUTE_POSITION) if ABSOLUTE_POSITION in names else None
            slices = tuple(slice(i * n_out, (i + 1) * n_out) for i in range(len(names)))
            call = Call(plan, kinds, slices, state, self._nonlinear_maps[to_joint] or None,
                        (self.num_actuators if to_joint else self.num_joints,),
                        self._offset_column, np.zeros(plan.product.n_cols - plan.base))
            self._calls[to_joint, names] = call
        return call

    def _single(self, values: Any, to_joint: bool) -> Optional[Dict[str, np.ndarray]]:
        """
        Convert one sample of every interface with one stacked product; None if not applicable.

        Applies to a dict of float64 arrays of shape ``(n,)`` whose interface names were
        converted before (so were checked): the call of a hardware interface's every cycle.
        """
        done = self._single_product(values, to_joint)
        if done is None:
            return None
        call, y = done
        return {name: y[part] for name, part in zip(values, call.slices)}

    def single_stacked(self, values: Any, to_joint: bool) -> Optional[np.ndarray]:
        """
        Convert one sample as :meth:`actuator_to_joint` (or the other way) does, stacked.

        :returns: the outputs of every interface of ``values``, in its order, one after the
            other (a new array of ``len(values) * n`` values), or None where the one-sample
            path does not apply (then convert with :meth:`actuator_to_joint` or
            :meth:`joint_to_actuator`)
        """
        done = self._single_product(values, to_joint)
        return None if done is None else done[1]

    def _single_product(self, values: Any, to_joint: bool) -> Optional[Tuple[Call, np.ndarray]]:
        """Return the call and the stacked product of one sample (see :meth:`_single`)."""
        if type(values) is not dict:
            return None
        call = self._calls.get((to_joint, tuple(values)))
        if call is None:
            return None
        xs = list(values.values())
        shape = call.shape
        for x in xs:
            if type(x) is not np.ndarray or x.dtype is not _F64 or x.shape != shape:
                return None
        plan = call.plan
        x = np.concatenate(xs + [call.tail])  # the inputs, then room for the slots, then 0
        if call.nonlinear is not None:
            x[plan.base:-1] = call.nonlinear.single(call.kinds, x, shape[0], call.state)
        if plan.quiet and math.isfinite(x.dot(x)):  # no inf, no product can overflow
            return call, self._apply(plan, x)
        with np.errstate(over='ignore', invalid='ignore'):
            return call, self._apply(plan, x)

    @staticmethod
    def _apply(plan: Plan, x: np.ndarray) -> np.ndarray:
        if plan.offset_in is not None:
            x -= plan.offset_in
        y = plan.product.single(x)
        if plan.offset_out is not None:
            y += plan.offset_out
        return y

    def _stacked(self, arrays: Mapping[str, np.ndarray], to_joint: bool,
                 state: Optional[np.ndarray],
                 out: Optional[Mapping[str, np.ndarray]]) -> Dict[str, np.ndarray]:
        """Convert a batch of every interface (all of one shape) with one stacked product."""
        names = tuple(arrays)
        call = self._call(to_joint, names)
        xs = list(arrays.values())
        shape = xs[0].shape[:-1]
        count = math.prod(shape)
        n_out = call.plan.product.n_rows // call.plan.m
        joined: Optional[np.ndarray]
        if out is None:
            joined = self._pool.take((call.plan.product.n_rows, count))
            rows = [joined[part] for part in call.slices]
        else:
            rows = output_rows(out, names, shape, n_out, xs, 'RobotTransmissions')
            joined = joined_rows(rows)
        position = None if state is None else state.reshape(count, -1)
        convert_batch(call, [x.reshape(count, -1) for x in xs], position, rows, joined)
        if out is not None:
            return {name: out[name] for name in names}
        return batch_result(names, rows, shape)


def _state(arrays: Mapping[str, np.ndarray]) -> Optional[np.ndarray]:
    """Return where velocity and effort are mapped: ``position``, else ``absolute_position``."""
    state = arrays.get(POSITION)
    return arrays.get(ABSOLUTE_POSITION) if state is None else state


_F64 = np.dtype(np.float64)
