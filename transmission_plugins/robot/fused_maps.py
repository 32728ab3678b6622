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
Robot-wide array maps: every linear transmission fused into one matrix per map.

With :math:`\theta` all actuator positions and :math:`q` all joint positions of a robot, the
linear transmissions together are one affine map with a block-structured Jacobian:

.. math::

    q = J\theta + q_0, \quad \dot q = J\dot\theta, \quad \tau = K^T u

    \theta = K(q - q_0), \quad \dot\theta = K\dot q, \quad u = J^T\tau

where :math:`J` (``nj x na``) holds each transmission's :math:`\partial q/\partial\theta` block
and :math:`K` (``na x nj``) each :math:`J^{-1}` block.  One matrix product per interface kind
then converts the whole robot; rows and columns of nonlinear transmissions are zero in these
matrices and are filled by their own (vectorised) kernels afterwards; their position-dependent
state is prepared once per call for the velocity and effort kernels.

A plain dense product would let a non-finite input (NaN = "no value") spoil outputs that do not
depend on it (``0 * nan = nan``); :class:`_Product` fixes such rows up on the sparsity pattern, so
NaN (and inf) reaches exactly the outputs that depend on it.
"""

import math
from typing import Any
from typing import Dict
from typing import List
from typing import Mapping
from typing import NamedTuple
from typing import Optional
from typing import Tuple

import numpy as np

from transmission_plugins.core.checks import check_value_arrays
from transmission_plugins.core.interfaces import ABSOLUTE_POSITION
from transmission_plugins.core.interfaces import EFFORT
from transmission_plugins.core.interfaces import INTERFACE_KIND
from transmission_plugins.core.interfaces import POSITION
from transmission_plugins.core.interfaces import VELOCITY
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


#: Largest number of non-zeros per row for which batches use the layered sparse product.
SPARSE_MAX_ROW_NONZEROS = 4


class _Product:
    """
    ``x @ m.T`` for a fixed matrix ``m``, exact on the sparsity pattern for non-finite ``x``.

    Robot matrices are very sparse (the PR2's 44 x 32 position matrix has 36 non-zeros, at most 2
    per row).  Batches then use *layers*, layer ``k`` holding the ``k``-th non-zero of every row
    that has one: ``y[..., rows_k] += x[..., cols_k] * vals_k``.  Only structural non-zeros are
    multiplied, so NaN and inf reach exactly the outputs that depend on them, and no
    multithreaded BLAS call is made (its run time varies wildly on a loaded machine).

    Single samples and denser matrices use one dense product when every input is finite
    (checked with one cheap ``x @ 0``, a ``sum`` for batches).  Rows holding NaN or inf are
    then fixed up on the sparsity pattern with products of indicator matrices (memory linear in
    the rows): an output is NaN when it depends on a NaN or on infinities of both signs,
    ``+-inf`` when it depends on infinities of one sign, else the product of the finite inputs.
    """

    def __init__(self, m: np.ndarray) -> None:
        self.m = m
        self.m.setflags(write=False)
        pattern = m != 0.0
        widths = pattern.sum(axis=1)
        self._layers: Optional[List[Tuple[np.ndarray, np.ndarray, np.ndarray]]] = None
        if widths.size and widths.max() <= SPARSE_MAX_ROW_NONZEROS:
            columns = [np.flatnonzero(row) for row in pattern]
            self._layers = []
            for k in range(int(widths.max())):
                rows = np.flatnonzero(widths > k)
                cols = np.array([columns[r][k] for r in rows], dtype=np.intp)
                self._layers.append((rows, cols, m[rows, cols].copy()))
            # layer 0 as a full-width gather (a scatter costs more): empty rows read column 0
            # with a zero weight and are zeroed afterwards, so a NaN there cannot leak
            self._first = np.zeros(m.shape[0], dtype=np.intp)
            self._first_vals = np.zeros(m.shape[0])
            if self._layers:
                rows, cols, vals = self._layers[0]
                self._first[rows] = cols
                self._first_vals[rows] = vals
            self._empty = np.flatnonzero(widths == 0)
        self._mt = np.ascontiguousarray(m.T)
        self._zeros = np.zeros(m.shape[1])
        self._pattern_t = pattern.T.astype(np.float64)
        self._positive_t = (m > 0.0).T.astype(np.float64)
        self._negative_t = (m < 0.0).T.astype(np.float64)

    def __call__(self, x: np.ndarray) -> np.ndarray:
        """Return ``x @ m.T``; call inside ``np.errstate(over='ignore', invalid='ignore')``."""
        if self._layers is not None and x.ndim > 1:
            if x.shape[-1] == 0:
                return np.zeros(x.shape[:-1] + (self.m.shape[0],))
            y = x[..., self._first] * self._first_vals
            if self._empty.size:
                y[..., self._empty] = 0.0
            for rows, cols, vals in self._layers[1:]:
                y[..., rows] += x[..., cols] * vals
            return y
        # any NaN or inf makes x @ 0 NaN (a single sample); a sum overflowing to inf only takes
        # the exact path
        if math.isfinite(x.dot(self._zeros) if x.ndim == 1 else x.sum()):
            return x @ self._mt
        finite = np.isfinite(x)
        rows = ~finite.all(axis=-1)
        y = np.where(finite, x, 0.0) @ self._mt
        bad = x[rows]
        up = (bad == math.inf).astype(np.float64)
        down = (bad == -math.inf).astype(np.float64)
        to_plus = (up @ self._positive_t + down @ self._negative_t) > 0.0
        to_minus = (up @ self._negative_t + down @ self._positive_t) > 0.0
        to_nan = (np.isnan(bad).astype(np.float64) @ self._pattern_t > 0.0) \
            | (to_plus & to_minus)
        fixed = y[rows]
        fixed[to_plus] = math.inf
        fixed[to_minus] = -math.inf
        fixed[to_nan] = math.nan
        y[rows] = fixed
        return y


def _check(values: Mapping[str, Any], size: int, side: str) -> Dict[str, np.ndarray]:
    return check_value_arrays(values, size, side, tuple(INTERFACE_KIND), 'RobotTransmissions')


def _group(blocks: List[Block]) -> List[Block]:
    """
    Merge nonlinear blocks with identical maps into one block with a group axis.

    Two PR2 grippers with the same parameters become one block whose ``actuators`` and
    ``joints`` are ``(2, N)`` and ``(2, M)`` index arrays: ``x[..., actuators]`` has shape
    ``(..., 2, N)``, one kernel call converts both (kernels accept leading batch axes), and
    ``y[..., joints] = ...`` scatters the result.
    """
    groups: Dict[Any, List[Block]] = {}
    for b in blocks:
        tr = b.transmission
        groups.setdefault(tr.map_key(), []).append(b)
    out = []
    for members in groups.values():
        if len(members) == 1:
            out.append(members[0])
        else:
            out.append(Block(members[0].transmission,
                             np.stack([m.joints for m in members]),
                             np.stack([m.actuators for m in members]),
                             all(m.owner for m in members)))
    return out


def _state(arrays: Dict[str, np.ndarray]) -> Optional[np.ndarray]:
    state = arrays.get(POSITION)
    return arrays.get(ABSOLUTE_POSITION) if state is None else state


class FusedMaps:
    """
    Convert whole-robot arrays: fused linear products plus nonlinear kernels beside them.

    :param blocks: the transmissions with their joint and actuator indices; every joint index
        appears in exactly one block, every actuator index in at least one owner block
    :param num_joints: length of the robot joint vector
    :param num_actuators: length of the robot actuator vector
    """

    def __init__(self, blocks: List[Block], num_joints: int, num_actuators: int) -> None:
        nj, na = num_joints, num_actuators
        self.num_joints = nj
        self.num_actuators = na
        a2j_pos = np.zeros((nj, na))
        a2j_eff = np.zeros((nj, na))
        j2a_pos = np.zeros((na, nj))
        j2a_eff = np.zeros((na, nj))
        offset = np.zeros(nj)
        self.linear: List[Block] = []
        self.nonlinear: List[Block] = []
        for b in blocks:
            tr = b.transmission
            if not tr.is_linear():
                self.nonlinear.append(b)
                continue
            self.linear.append(b)
            jac, inv, q0 = tr.linear_map()  # type: ignore[attr-defined]
            rows, cols = np.ix_(b.joints, b.actuators)
            a2j_pos[rows, cols] = jac
            a2j_eff[rows, cols] = inv.T
            offset[b.joints] = q0
            if b.owner:
                rows, cols = np.ix_(b.actuators, b.joints)
                j2a_pos[rows, cols] = inv
                j2a_eff[rows, cols] = jac.T
        self.joint_offset = offset
        self.joint_offset.setflags(write=False)
        # velocities map like positions (without the offsets): one product serves both
        a2j_position, j2a_position = _Product(a2j_pos), _Product(j2a_pos)
        self._a2j = {POSITION: a2j_position, VELOCITY: a2j_position, EFFORT: _Product(a2j_eff)}
        self._j2a = {POSITION: j2a_position, VELOCITY: j2a_position, EFFORT: _Product(j2a_eff)}
        self._nl_a2j = _group(self.nonlinear)
        self._nl_j2a = _group([b for b in self.nonlinear if b.owner])

    # ------------------------------------------------------------------ the fused matrices
    @property
    def actuator_to_joint_position(self) -> np.ndarray:
        r"""Return :math:`J` (``nj x na``): joint positions and velocities from actuators."""
        return self._a2j[POSITION].m

    @property
    def actuator_to_joint_effort(self) -> np.ndarray:
        r"""Return :math:`K^T` (``nj x na``): joint efforts from actuator efforts."""
        return self._a2j[EFFORT].m

    @property
    def joint_to_actuator_position(self) -> np.ndarray:
        r"""Return :math:`K` (``na x nj``): actuator positions and velocities from joints."""
        return self._j2a[POSITION].m

    @property
    def joint_to_actuator_effort(self) -> np.ndarray:
        r"""Return :math:`J^T` (``na x nj``): actuator efforts from joint efforts."""
        return self._j2a[EFFORT].m

    # ------------------------------------------------------------------ conversions
    def actuator_to_joint(self, values: Mapping[str, Any]) -> Dict[str, np.ndarray]:
        """
        Map actuator arrays ``(..., na)`` per interface to joint arrays ``(..., nj)``.

        Joints of nonlinear transmissions get NaN velocity and effort when no ``position`` (or
        ``absolute_position``) is given in the same call.

        :raises TransmissionInputError: unknown interface, non-numeric values or wrong shape
        """
        arrays = _check(values, self.num_actuators, 'actuator')
        states = self._states(arrays, self._nl_a2j, to_joint=True)
        out = {}
        with np.errstate(over='ignore', invalid='ignore'):  # once for every product
            for name, x in arrays.items():
                kind = INTERFACE_KIND[name]
                y = self._a2j[kind](x)
                if kind == POSITION:
                    y += self.joint_offset
                out[name] = y
        self._nonlinear(arrays, out, self._nl_a2j, states, to_joint=True)
        return out

    def joint_to_actuator(self, values: Mapping[str, Any]) -> Dict[str, np.ndarray]:
        """
        Map joint arrays ``(..., nj)`` per interface to actuator arrays ``(..., na)``.

        Use NaN for joints without a command: the actuators that depend on them get NaN.
        Actuators of nonlinear transmissions get NaN velocity and effort when no ``position`` is
        given in the same call.

        :raises TransmissionInputError: unknown interface, non-numeric values or wrong shape
        """
        arrays = _check(values, self.num_joints, 'joint')
        states = self._states(arrays, self._nl_j2a, to_joint=False)
        out = {}
        with np.errstate(over='ignore', invalid='ignore'):  # once for every product
            for name, x in arrays.items():
                kind = INTERFACE_KIND[name]
                if kind == POSITION:
                    out[name] = self._j2a[POSITION](x - self.joint_offset)
                else:
                    out[name] = self._j2a[kind](x)
        self._nonlinear(arrays, out, self._nl_j2a, states, to_joint=False)
        return out

    @staticmethod
    def _states(arrays: Dict[str, np.ndarray], blocks: List[Block], to_joint: bool) -> List[Any]:
        """
        Return each nonlinear block's prepared position state, None where there is none.

        Prepared once per call (:meth:`~transmission_plugins.Transmission.prepare_state`) and
        shared by the velocity and effort kernels; not computed when only positions are
        converted.
        """
        state = _state(arrays)
        if state is None or not blocks \
                or all(INTERFACE_KIND[name] == POSITION for name in arrays):
            return [None] * len(blocks)
        return [b.transmission.prepare_state(
            to_joint, _take(state, b.actuators if to_joint else b.joints)) for b in blocks]

    @staticmethod
    def _nonlinear(arrays: Dict[str, np.ndarray], out: Dict[str, np.ndarray],
                   blocks: List[Block], states: List[Any], to_joint: bool) -> None:
        """Overwrite the outputs of the nonlinear blocks with their kernels' values."""
        for name, x in arrays.items():
            kind = INTERFACE_KIND[name]
            y = out[name]
            one = x.ndim == 1
            for b, state in zip(blocks, states):
                src, dst = (b.actuators, b.joints) if to_joint else (b.joints, b.actuators)
                v = (np.nan if state is None and kind != POSITION else
                     b.transmission.apply_map(kind, to_joint, _take(x, src), state))
                if one:
                    y[dst] = v
                else:
                    y[..., dst] = v


def _take(x: np.ndarray, index: np.ndarray) -> np.ndarray:
    """Return ``x[..., index]`` (plain indexing for one sample: several times cheaper)."""
    return x[index] if x.ndim == 1 else x[..., index]
