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
:class:`CompiledTransmission`: a built-in transmission, whose maps the compiled kernel computes.

Every map of a built-in transmission, in both call styles and in the robot's maps, goes through
the one compiled conversion (:mod:`~.flat_description`): a transmission alone is a robot of one
block.  Its own maps start Newton's method afresh for every sample, so a sample gives the same
numbers alone and in a batch; a robot's maps start it from the previous solution.  The class
supplies the six kernels, both Jacobians and both position maps of the
:class:`~transmission_plugins.core.transmission.Transmission` contract from that conversion; a
subclass gives its numbers (:meth:`~.Transmission.kernel_record`, or a linear map).
"""

from typing import Any
from typing import Mapping

import numpy as np

from transmission_plugins.core.checks import ArrayMap
from transmission_plugins.core.checks import check_value_arrays
from transmission_plugins.core.checks import FloatArray
from transmission_plugins.core.flat_description import Block
from transmission_plugins.core.flat_description import FlatDescription
from transmission_plugins.core.interfaces import INTERFACE_KIND
from transmission_plugins.core.interfaces import POSITION
from transmission_plugins.core.transmission import position_state
from transmission_plugins.core.transmission import Transmission

_CACHE = '_flat_description'


class CompiledTransmission(Transmission):
    """A transmission whose maps are the compiled kernel's (module docstring)."""

    def description(self) -> FlatDescription:
        """Return this transmission as a robot of one block (made on first use)."""
        flat = self.__dict__.get(_CACHE)
        if flat is None:
            nj, na = self.num_joints(), self.num_actuators()
            flat = FlatDescription([Block(self, np.arange(nj), np.arange(na))], nj, na,
                                   warm=False)
            self.__dict__[_CACHE] = flat
        return flat

    def __getstate__(self) -> dict[str, Any]:
        """Return the state to copy or pickle: the parameters, not the compiled description."""
        state = dict(self.__dict__)
        state.pop(_CACHE, None)
        return state

    # ------------------------------------------------------------------ the one dispatch
    def prepare_state(self, to_joint: bool, position: FloatArray | None) -> Any:
        """Return the source positions of a nonlinear conversion (the kernel evaluates there)."""
        if position is None or not self.requires_position_state():
            return None
        return self._source(position, to_joint)

    def apply_map(self, kind: str, to_joint: bool, values: FloatArray,
                  state: Any) -> FloatArray:
        """Apply one map through the kernel (see :meth:`Transmission.apply_map`)."""
        if kind != POSITION:
            position_state(self, state, f"mapping {kind!r} (give 'position' in the same call)")
        x = np.asarray(values, dtype=np.float64)
        at = None if state is None else np.broadcast_to(state, x.shape)
        return self.description().convert({kind: x}, to_joint, at)[kind]

    def _map(self, values: Mapping[str, Any], to_joint: bool) -> ArrayMap:
        size, side = ((self.num_actuators(), 'actuator') if to_joint
                      else (self.num_joints(), 'joint'))
        supported = [i for i in self.supported_interfaces() if i in INTERFACE_KIND]
        arrays = check_value_arrays(values, size, side, supported, type(self).__name__)
        if self.requires_position_state() and any(
                INTERFACE_KIND[n] != POSITION for n in arrays) and not (
                POSITION in arrays or 'absolute_position' in arrays):
            position_state(self, None, "mapping velocity or effort (give 'position' in the "
                           'same call)')
        return self.description().convert(arrays, to_joint)

    # ------------------------------------------------------------------ the six kernels
    def _actuator_to_joint_position(self, position: FloatArray) -> FloatArray:
        return self.apply_map(POSITION, True, position, None)

    def _actuator_to_joint_velocity(self, velocity: FloatArray, position: Any) -> FloatArray:
        return self.apply_map('velocity', True, velocity, position)

    def _actuator_to_joint_effort(self, effort: FloatArray, position: Any) -> FloatArray:
        return self.apply_map('effort', True, effort, position)

    def _joint_to_actuator_position(self, position: FloatArray) -> FloatArray:
        return self.apply_map(POSITION, False, position, None)

    def _joint_to_actuator_velocity(self, velocity: FloatArray, position: Any) -> FloatArray:
        return self.apply_map('velocity', False, velocity, position)

    def _joint_to_actuator_effort(self, effort: FloatArray, position: Any) -> FloatArray:
        return self.apply_map('effort', False, effort, position)

    # ------------------------------------------------------------------ positions and Jacobians
    def _source(self, position: Any, to_joint: bool) -> FloatArray:
        """Return checked source positions ``(..., n)`` as float64."""
        size, side = ((self.num_actuators(), 'actuator') if to_joint
                      else (self.num_joints(), 'joint'))
        return check_value_arrays({POSITION: position}, size, side, (POSITION,),
                                  type(self).__name__)[POSITION]

    def joint_position(self, actuator_position: Any) -> FloatArray:
        r"""Return the joint positions :math:`q` at actuator positions ``(..., N) -> (..., M)``."""
        return self.apply_map(POSITION, True, self._source(actuator_position, True), None)

    def actuator_position(self, joint_position: Any) -> FloatArray:
        r"""Return the actuator positions :math:`\theta` at joint positions ``(..., M)``."""
        return self.apply_map(POSITION, False, self._source(joint_position, False), None)

    def actuator_to_joint_jacobian(self, actuator_position: Any = None) -> FloatArray:
        r"""Return :math:`J = \partial q/\partial\theta` at actuator positions, ``(..., M, N)``."""
        x = self._source(actuator_position, True)
        return self.description().jacobian(True, x)

    def joint_to_actuator_jacobian(self, joint_position: Any = None) -> FloatArray:
        r"""Return :math:`K = \partial\theta/\partial q` at joint positions, ``(..., N, M)``."""
        x = self._source(joint_position, False)
        return self.description().jacobian(False, x)

    def joint_position_and_jacobian(self, actuator_position: Any) -> tuple[FloatArray, Any]:
        """Return the joint positions and :math:`J` there (one conversion)."""
        x = self._source(actuator_position, True)
        return self.joint_position(x), self.actuator_to_joint_jacobian(x)

    def actuator_position_and_jacobian(self, joint_position: Any) -> tuple[FloatArray, Any]:
        """Return the actuator positions and :math:`K` there."""
        x = self._source(joint_position, False)
        return self.actuator_position(x), self.joint_to_actuator_jacobian(x)

    def kernel_terms(self, position: Any, to_joint: bool) -> tuple[float, ...]:
        """Return the terms the kernel gives for workspace problems at one position."""
        x = self._source(position, to_joint)
        flat = self.description()
        return flat.terms(flat.compiled[0], to_joint, x)
