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
The PR2 gripper's per-call states: the Jacobian factors the velocity and effort maps share.

A conversion of velocity and effort evaluates the linkage once at the source positions
(:meth:`PR2GripperStates._prepare_actuator_state`, :meth:`~PR2GripperStates._prepare_joint_state`)
and hands the factors to both kernels; batches of at most :data:`.SMALL_BATCH` samples hold them
as float lists computed with :mod:`math`.
"""

from typing import cast
from typing import List
from typing import NamedTuple
from typing import Optional
from typing import Tuple
from typing import Union

import numpy as np
from numpy.typing import ArrayLike

from transmission_plugins.core.exceptions import TransmissionInputError
from transmission_plugins.transmissions.pr2_gripper_linkage import _SCALAR_ERRORS
from transmission_plugins.transmissions.pr2_gripper_linkage import PR2GripperLinkage
from transmission_plugins.transmissions.pr2_gripper_linkage import SMALL_BATCH


#: per-sample factors of a state: a list of floats (small batches) or an array of the batch shape
Factors = Union[List[float], np.ndarray]


def _batch_arrays(shape: Tuple[int, ...], small: bool, first: Factors,
                  second: Factors) -> Tuple[np.ndarray, np.ndarray]:
    """Return two per-sample factors as arrays of ``shape`` (small states hold float lists)."""
    if not small:
        return cast(np.ndarray, first), cast(np.ndarray, second)
    return np.array(first).reshape(shape), np.array(second).reshape(shape)


class ForwardState(NamedTuple):
    """
    Per-call actuator-side state of the gripper: dtheta/dM and dt/dM for every sample.

    Made by :meth:`PR2GripperTransmission._prepare_actuator_state`; ``shape`` is the batch
    shape; a ``small`` state holds lists of floats (samples in C order), else arrays of
    ``shape``.
    """

    shape: Tuple[int, ...]
    dtheta_dm: Factors
    dt_dm: Factors
    small: bool

    def arrays(self) -> Tuple[np.ndarray, np.ndarray]:
        """Return dtheta/dM and dt/dM as arrays of the batch shape."""
        return _batch_arrays(self.shape, self.small, self.dtheta_dm, self.dt_dm)


class InverseState(NamedTuple):
    """Per-call joint-side state of the gripper: dM/dtheta and dtheta/dt for every sample."""

    shape: Tuple[int, ...]
    dm_dtheta: Factors
    dtheta_dt: Factors
    small: bool

    def arrays(self) -> Tuple[np.ndarray, np.ndarray]:
        """Return dM/dtheta and dtheta/dt as arrays of the batch shape."""
        return _batch_arrays(self.shape, self.small, self.dm_dtheta, self.dtheta_dt)


class PR2GripperStates(PR2GripperLinkage):
    """The per-call states of the gripper's velocity and effort maps (module docstring)."""

    def _state(self, position: Optional[ArrayLike], side: str, size: int) -> np.ndarray:
        if position is None:
            raise TransmissionInputError(
                f'PR2GripperTransmission is nonlinear: the {side} position is needed')
        x = np.asarray(position, dtype=np.float64)
        if x.ndim == 0 or x.shape[-1] != size:
            raise TransmissionInputError(
                f'PR2GripperTransmission: {side} positions must have {size} entries on the last '
                f'axis, got shape {x.shape}')
        return x

    def _prepare_actuator_state(self, position: Optional[ArrayLike]) -> 'ForwardState':
        """
        Return dtheta/dM and dt/dM at the actuator ``position``, for the velocity/effort maps.

        Computed once per conversion and shared by the velocity and effort kernels (see
        :meth:`Transmission._prepare_actuator_state`); batches of at most
        :data:`SMALL_BATCH` samples are computed sample by sample with :mod:`math`.

        :raises TransmissionInputError: when the position is missing or has the wrong shape
        """
        x = self._state(position, 'actuator', 1)
        shape = x.shape[:-1]
        if 0 < x.size <= SMALL_BATCH:
            try:
                pairs = [self._forward_sample(p) for p in x.ravel().tolist()]
                return ForwardState(shape, [d[0] for d in pairs], [d[1] for d in pairs], True)
            except _SCALAR_ERRORS:
                pass
        with np.errstate(all='ignore'):
            dtheta_dm, dt_dm = self._forward(x)
        return ForwardState(shape, dtheta_dm, dt_dm, False)

    def _prepare_joint_state(self, position: Optional[ArrayLike]) -> 'InverseState':
        """
        Return dM/dtheta and dtheta/dt at the joint ``position`` (only the gap is read).

        The joint-side counterpart of :meth:`_prepare_actuator_state`.

        :raises TransmissionInputError: when the position is missing or has the wrong shape
        """
        x = self._state(position, 'joint', self._nj)
        gap = x[..., 0]
        if 0 < gap.size <= SMALL_BATCH:
            try:
                triples = [self._inverse_sample(q) for q in gap.ravel().tolist()]
                return InverseState(gap.shape, [d[1] for d in triples],
                                    [d[2] for d in triples], True)
            except _SCALAR_ERRORS:
                pass
        with np.errstate(all='ignore'):
            _, dm_dtheta, dtheta_dt = self._inverse(gap)
        return InverseState(gap.shape, dm_dtheta, dtheta_dt, False)

    def _forward_state(self, position: Union['ForwardState', ArrayLike, None]
                       ) -> 'ForwardState':
        if isinstance(position, ForwardState):
            return position
        return self._prepare_actuator_state(position)

    def _inverse_state(self, position: Union['InverseState', ArrayLike, None]
                       ) -> 'InverseState':
        if isinstance(position, InverseState):
            return position
        return self._prepare_joint_state(position)
