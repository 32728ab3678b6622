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
:class:`SampleConverter` and :class:`BatchConverter`: optional fast paths of nonlinear maps.

A hardware interface converts one sample per cycle; for a nonlinear transmission numpy's cost per
call (about a microsecond) then outweighs the arithmetic.  A transmission may therefore define
``convert_sample``, which the robot-wide maps call for single samples instead of the array
kernels (:meth:`~transmission_plugins.Transmission.apply_map`).  It must give the same numbers as
the kernels (to the last bit of libm), and return None whenever it cannot (a division by zero,
a domain error, a missing position): the kernels are then used.  Linear transmissions need none
(they are fused into one sparse product).

Likewise ``convert_batch`` converts the interfaces of a batch in one call, so that what they
share (the linkage of the PR2 gripper at the given positions) is computed once.
"""

from typing import List
from typing import Optional
from typing import Protocol
from typing import runtime_checkable
from typing import Sequence

import numpy as np


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
            None when the call has none
        :returns: the destination values of every interface, concatenated in the order of
            ``kinds``, or None
        """


@runtime_checkable
class BatchConverter(Protocol):
    """A transmission that converts several interfaces of a batch at once, sharing work."""

    def convert_batch(self, to_joint: bool, kinds: Sequence[str], values: Sequence[np.ndarray],
                      position: Optional[np.ndarray]) -> Optional[List[np.ndarray]]:
        """
        Convert a batch of several interfaces; return None to fall back to the kernels.

        The same contract as :meth:`SampleConverter.convert_sample` with arrays: ``values`` are
        ``(..., N)`` (or ``(..., M)``) arrays, ``position`` is the very array among them (or
        another one) the velocity and effort maps are evaluated at; the result holds one array
        per interface, equal to the kernels' results.
        """
