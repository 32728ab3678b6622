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
Optional fast paths of nonlinear maps: :class:`SampleConverter`, :class:`BatchConverter`.

A hardware interface converts one sample per cycle; for a nonlinear transmission numpy's cost per
call (about a microsecond) then outweighs the arithmetic.  A transmission may therefore define
``convert_sample``, which the robot-wide maps call for single samples instead of the array
kernels (:meth:`~transmission_plugins.Transmission.apply_map`).  It must give the same numbers as
the kernels (to the last bit of libm), and return None whenever it cannot (a division by zero,
a domain error, a missing position): the kernels are then used.  Linear transmissions need none
(they are fused into one sparse product).

Likewise ``convert_rows`` converts the interfaces of a batch in one call, so that what they
share (the linkage of the PR2 gripper at the given positions) is computed once.  Its batch is
laid out in *rows*, one per source value, samples along the remaining axes (the robot maps'
stacked layout): each row is contiguous, and the results are written straight into the caller's
rows.

Both may compute fewer values than the transmission has outputs when several outputs always
hold the same value (the PR2 gripper's passive finger joints, its simulated joints that are
always 0): ``distinct_outputs(to_joint)`` then says, for each output in map order, which of
the computed values it holds (indices ``0 .. D-1`` in order of first use); the robot maps copy
them where they belong.  Without it every output is computed.
"""

from typing import List
from typing import Optional
from typing import Protocol
from typing import runtime_checkable
from typing import Sequence
from typing import Tuple

import numpy as np


@runtime_checkable
class DistinctOutputs(Protocol):
    """A transmission some of whose outputs always repeat another one."""

    def distinct_outputs(self, to_joint: bool) -> Tuple[int, ...]:
        """
        Return, per output in map order, the index of the distinct value it holds.

        :param to_joint: True for the joints (actuator to joint), False for the actuators
        """


@runtime_checkable
class SampleConverter(Protocol):
    """A transmission that converts one sample with plain Python floats."""

    def convert_sample(self, to_joint: bool, kinds: Sequence[str],
                       values: Sequence[List[float]],
                       position: Optional[List[float]]) -> Optional[List[float]]:
        """
        Convert one sample of several interfaces; return None to fall back to the kernels.

        :param to_joint: True for actuator to joint, False for joint to actuator
        :param kinds: the map of each interface: ``'position'``, ``'velocity'`` or ``'effort'``
        :param values: the source values of each interface (``num_actuators()`` floats when
            ``to_joint``, else ``num_joints()``)
        :param position: the source positions the velocity and effort maps are evaluated at,
            None when the call has none; the very list among ``values`` when it is one of them
        :returns: the distinct destination values (:class:`DistinctOutputs`; else all of
            them) of every interface, concatenated in the order of ``kinds``, or None
        """


@runtime_checkable
class BatchConverter(Protocol):
    """A transmission that converts several interfaces of a batch laid out in rows at once."""

    def convert_rows(self, to_joint: bool, kinds: Sequence[str], values: Sequence[np.ndarray],
                     position: Optional[np.ndarray], out: Sequence[np.ndarray]) -> bool:
        """
        Write the distinct destination values of a batch into ``out``; False to decline.

        The same contract as :meth:`SampleConverter.convert_sample` with arrays: ``values[i]``
        has shape ``(N, *batch)`` (or ``(M, *batch)``): row ``k`` is source ``k`` of interface
        ``i`` for every sample; ``position`` is the very array among them (or another of that
        shape) the velocity and effort maps are evaluated at, or None; ``out[i]`` has shape
        ``(D, *batch)`` and receives the distinct values (:class:`DistinctOutputs`; else all
        ``D`` outputs), equal to the kernels' results.  Declining (False) leaves ``out``
        undefined: the kernels then fill it.
        """
