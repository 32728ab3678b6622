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
The ros2_control call style of a transmission: handles wired once, converted in place.

:meth:`HandleCallStyle.configure` groups :class:`~transmission_plugins.JointHandle` and
:class:`~transmission_plugins.ActuatorHandle` objects by interface (in role order), then
``actuator_to_joint()`` and ``joint_to_actuator()`` without arguments read the source handles,
convert through the same maps as the functional style and write the destination handles, as
``transmission_interface::Transmission`` does in ros2_control.
"""

from typing import List
from typing import Optional
from typing import Sequence
from typing import Tuple
from typing import TYPE_CHECKING

import numpy as np

from transmission_plugins.core.exceptions import TransmissionConfigurationError
from transmission_plugins.core.handles import ActuatorHandle
from transmission_plugins.core.handles import group_handles
from transmission_plugins.core.handles import JointHandle
from transmission_plugins.core.interfaces import INTERFACE_KIND
from transmission_plugins.core.interfaces import INTERFACES
from transmission_plugins.core.interfaces import POSITION

if TYPE_CHECKING:
    from transmission_plugins.core.transmission import Transmission


class HandleCallStyle:
    """The handle state of a transmission and the methods that use it (a base of Transmission)."""

    def __init__(self) -> None:
        self._pairs: List[Tuple[str, List[JointHandle], List[ActuatorHandle]]] = []
        self._skipped: List[str] = []
        self._joint_position_handles: Optional[List[JointHandle]] = None
        self._actuator_position_handles: Optional[List[ActuatorHandle]] = None
        self._configured = False

    def configure(self: 'Transmission', joint_handles: Sequence[JointHandle],
                  actuator_handles: Sequence[ActuatorHandle]) -> None:
        """
        Wire joint and actuator handles to this transmission (ros2_control style).

        Handles are grouped by name; names are ordered by ``role`` when roles are given
        (``joint1``, ``joint2``...; ``actuator1``...), else in the order given.  An interface
        present on both sides for every joint and actuator is converted; one present on one side
        only is skipped (see :meth:`get_handles_info`).

        :raises TransmissionConfigurationError: no handles, wrong number of names, an interface
            given for only some joints or actuators, duplicate handles, bad roles, or nothing
            left to convert
        """
        self._configured = False
        name = type(self).__name__
        joints = group_handles(list(joint_handles), JointHandle, self.num_joints(),
                               self.JOINT_ROLES, 'joint', name)
        actuators = group_handles(list(actuator_handles), ActuatorHandle, self.num_actuators(),
                                  self.ACTUATOR_ROLES, 'actuator', name)
        pairs = []
        skipped = []
        for interface in sorted(set(joints) | set(actuators),
                                key=lambda i: (INTERFACES + (i,)).index(i)):
            if interface in joints and interface in actuators \
                    and interface in self.supported_interfaces():
                pairs.append((interface, joints[interface], actuators[interface]))
            else:
                side = 'joint' if interface in joints else 'actuator'
                why = ('not supported by this transmission'
                       if interface not in self.supported_interfaces()
                       else f'only on the {side} side')
                skipped.append(f'{interface} ({why})')
        if not pairs:
            raise TransmissionConfigurationError(
                f'{name}: no interface is present on both the joint side '
                f'({sorted(joints)}) and the actuator side ({sorted(actuators)}); '
                'nothing to convert')
        joint_pos = joints.get(POSITION)
        act_pos = actuators.get(POSITION)
        if self.requires_position_state():
            kinds = {INTERFACE_KIND[i] for i, _, _ in pairs}
            if kinds - {POSITION} and (joint_pos is None or act_pos is None):
                raise TransmissionConfigurationError(
                    f'{name} is nonlinear: velocity and effort need position handles on both '
                    'the joint and the actuator side')
        self._pairs = pairs  # type: ignore[assignment]
        self._skipped = skipped
        self._joint_position_handles = joint_pos  # type: ignore[assignment]
        self._actuator_position_handles = act_pos  # type: ignore[assignment]
        self._configured = True

    def _convert_handles(self: 'Transmission', to_joint: bool) -> None:
        if not self._configured:
            raise TransmissionConfigurationError(
                f'{type(self).__name__}: call configure() with handles before converting '
                'without arguments')
        src_pos = (self._actuator_position_handles if to_joint
                   else self._joint_position_handles)
        state = None
        if src_pos is not None and any(INTERFACE_KIND[i] != POSITION for i, _, _ in self._pairs):
            state = self.prepare_state(to_joint, np.array([h.value for h in src_pos]))
        results = []
        for interface, joints, actuators in self._pairs:
            src, dst = (actuators, joints) if to_joint else (joints, actuators)
            x = np.array([h.value for h in src])
            results.append((dst, self.apply_map(INTERFACE_KIND[interface], to_joint, x, state)))
        for dst, y in results:
            for h, v in zip(dst, y):
                h.value = float(v)

    def get_handles_info(self) -> str:
        """Return a human-readable report of the transmission and its configured handles."""
        lines = [str(self)]
        if not self._configured:
            lines.append('  handles: not configured')
            return '\n'.join(lines)
        for interface, joints, actuators in self._pairs:
            lines.append(f'  {interface}: actuators '
                         f'{[h.get_name() + "=" + repr(h.value) for h in actuators]} <-> joints '
                         f'{[h.get_name() + "=" + repr(h.value) for h in joints]}')
        for s in self._skipped:
            lines.append(f'  skipped: {s}')
        return '\n'.join(lines)

    def converted_interfaces(self) -> Tuple[str, ...]:
        """Return the interfaces wired by the last :meth:`configure`."""
        return tuple(i for i, _, _ in self._pairs)

    def skipped_interfaces(self) -> Tuple[str, ...]:
        """Return the interfaces :meth:`configure` could not pair, with the reason."""
        return tuple(self._skipped)
