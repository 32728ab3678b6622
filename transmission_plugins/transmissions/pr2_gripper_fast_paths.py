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
The PR2 gripper's fast paths: one sample with :mod:`math`, several interfaces of a batch at once.

:class:`PR2GripperFastPaths` adds to the linkage maths of
:mod:`~transmission_plugins.transmissions.pr2_gripper_linkage` the optional methods the robot-wide
maps use (:mod:`transmission_plugins.core.sample`): ``convert_sample`` converts one sample of
every interface with the one-sample formulas, ``convert_batch`` evaluates the linkage once for the
position map and the velocity/effort state.  Both give the kernels' numbers.
"""

from typing import List
from typing import Optional
from typing import Sequence
from typing import Tuple
from typing import Union

import numpy as np

from transmission_plugins.core.interfaces import POSITION
from transmission_plugins.core.interfaces import VELOCITY
from transmission_plugins.transmissions.pr2_gripper_linkage import _SCALAR_ERRORS
from transmission_plugins.transmissions.pr2_gripper_linkage import ForwardState
from transmission_plugins.transmissions.pr2_gripper_linkage import InverseState
from transmission_plugins.transmissions.pr2_gripper_linkage import PR2GripperLinkage
from transmission_plugins.transmissions.pr2_gripper_linkage import RAD2MR
from transmission_plugins.transmissions.pr2_gripper_linkage import SMALL_BATCH


class PR2GripperFastPaths(PR2GripperLinkage):
    """The ``convert_sample`` and ``convert_batch`` fast paths of the PR2 gripper."""

    def convert_sample(self, to_joint: bool, kinds: Sequence[str],
                       values: Sequence[List[float]],
                       position: Optional[List[float]]) -> Optional[List[float]]:
        """
        Convert one sample with :mod:`math` (the robot maps' fast path, same numbers).

        See :class:`~transmission_plugins.core.sample.SampleConverter`; returns None where the
        array kernels must decide (Python raised, or velocity/effort without a position).
        """
        try:
            if to_joint:
                return self._forward_samples(kinds, values, position)
            return self._inverse_samples(kinds, values, position)
        except _SCALAR_ERRORS:
            return None

    def _forward_samples(self, kinds: Sequence[str], values: Sequence[List[float]],
                         position: Optional[List[float]]) -> Optional[List[float]]:
        out: List[float] = []
        state: Optional[Tuple[float, float]] = None  # (dtheta/dM, dt/dM) at ``position``
        passive_count, zeros = self._num_passive, self._sim_zeros
        for kind, v in zip(kinds, values):
            if kind == POSITION:
                gap, passive = self._position_sample(v[0])
            else:
                if state is None:
                    if position is None:
                        return None
                    state = self._forward_sample(position[0])
                gap, passive = (self._forward_velocity_sample if kind == VELOCITY
                                else self._forward_effort_sample)(v[0], *state)
            out.append(gap)
            out += [passive] * passive_count
            out += zeros
        return out

    def _inverse_samples(self, kinds: Sequence[str], values: Sequence[List[float]],
                         position: Optional[List[float]]) -> Optional[List[float]]:
        out: List[float] = []
        state: Optional[Tuple[float, float, float]] = None  # (M, dM/dtheta, dtheta/dt)
        for kind, v in zip(kinds, values):
            if kind == POSITION and v is not position:
                out.append(self._inverse_position_sample(v[0]))
                continue
            if state is None:
                if position is None:
                    return None
                state = self._inverse_sample(position[0])
            if kind == POSITION:  # the same number as _inverse_position_sample
                out.append(state[0] * self._mr / RAD2MR)
            elif kind == VELOCITY:
                out.append(self._inverse_velocity_sample(v[0], state[1], state[2]))
            else:
                out.append(self._inverse_effort_sample(v[0], state[1], state[2]))
        return out

    def convert_batch(self, to_joint: bool, kinds: Sequence[str], values: Sequence[np.ndarray],
                      position: Optional[np.ndarray]) -> Optional[List[np.ndarray]]:
        """
        Convert a batch of several interfaces, the linkage computed once for all of them.

        The position map and the velocity/effort state share the linkage when the positions
        converted are the state's (joint to actuator: always; actuator to joint: when no motor
        position is below 0, where the state is evaluated at ``max(M, 0)``); same numbers as
        the kernels.  See :class:`~transmission_plugins.core.sample.BatchConverter`.
        """
        shared = [k for k, v in zip(kinds, values) if k == POSITION and v is position]
        if position is None or not shared or len(shared) == len(kinds) \
                or position.size <= SMALL_BATCH:
            return None  # nothing to share: the kernels
        with np.errstate(all='ignore'):
            if to_joint:
                mrev = position[..., 0] / self._mr * RAD2MR
                if not (mrev >= 0.0).all():
                    return None
                u, theta, moved = self._position_at(mrev)
                dtheta_dm, dt_dm = self._forward_at(mrev, u, theta)
                state: Union[ForwardState, InverseState] = ForwardState(
                    mrev.shape, dtheta_dm, dt_dm, False)
            else:
                mrev, dm_dtheta, dtheta_dt = self._inverse(position)
                moved = (mrev * self._mr / RAD2MR)[..., None]
                state = InverseState(mrev.shape, dm_dtheta, dtheta_dt, False)
        return [moved if v is position else
                self.apply_map(k, to_joint, v, state)  # type: ignore[attr-defined]
                for k, v in zip(kinds, values)]
