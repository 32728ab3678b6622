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

"""The ros2_control call style of a transmission: handles wired once, converted in place."""

from typing import NamedTuple
from typing import Sequence
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


class HandleBinding(NamedTuple):
    """The handles :func:`bind_handles` wired to a transmission."""

    #: (interface, joint handles, actuator handles) in map order, per converted interface
    pairs: list[tuple[str, list[JointHandle], list[ActuatorHandle]]]
    #: interfaces that could not be paired, with the reason
    skipped: list[str]
    joint_position: list[JointHandle] | None
    actuator_position: list[ActuatorHandle] | None

    def convert(self, transmission: 'Transmission', to_joint: bool) -> None:
        """Read the source handles, convert every pair in one call, then write the destinations."""
        values = {interface: np.array([h.value for h in (actuators if to_joint else joints)],
                                      dtype=np.float64)
                  for interface, joints, actuators in self.pairs}
        with np.errstate(all='ignore'):  # inf and NaN are results, as in the functional style
            out = (transmission.actuator_to_joint(values) if to_joint
                   else transmission.joint_to_actuator(values))
        for interface, joints, actuators in self.pairs:
            for h, v in zip(joints if to_joint else actuators, out[interface]):
                h.value = float(v)

    def report(self) -> list[str]:
        """Return one line per converted interface (handle names and values) and per skip."""
        lines = [f'  {interface}: actuators '
                 f'{[h.get_name() + "=" + repr(h.value) for h in actuators]} <-> joints '
                 f'{[h.get_name() + "=" + repr(h.value) for h in joints]}'
                 for interface, joints, actuators in self.pairs]
        return lines + [f'  skipped: {s}' for s in self.skipped]


def bind_handles(transmission: 'Transmission', joint_handles: Sequence[JointHandle],
                 actuator_handles: Sequence[ActuatorHandle]) -> HandleBinding:
    """
    Wire joint and actuator handles to ``transmission`` (ros2_control's ``configure``).

    An interface present on both sides for every joint and actuator is converted; one present
    on one side only is skipped, with the reason.

    :raises TransmissionConfigurationError: no handles, wrong number of names, an interface given
        for only some joints or actuators, duplicate handles, bad roles, or nothing left to
        convert
    """
    name = type(transmission).__name__
    joints = group_handles(list(joint_handles), JointHandle, transmission.num_joints(),
                           transmission.JOINT_ROLES, 'joint', name)
    actuators = group_handles(list(actuator_handles), ActuatorHandle,
                              transmission.num_actuators(), transmission.ACTUATOR_ROLES,
                              'actuator', name)
    supported = transmission.supported_interfaces()
    pairs = []
    skipped = []
    for interface in sorted(set(joints) | set(actuators),
                            key=lambda i: (INTERFACES + (i,)).index(i)):
        if interface in joints and interface in actuators and interface in supported:
            pairs.append((interface, joints[interface], actuators[interface]))
        else:
            side = 'joint' if interface in joints else 'actuator'
            why = ('not supported by this transmission' if interface not in supported
                   else f'only on the {side} side')
            skipped.append(f'{interface} ({why})')
    if not pairs:
        raise TransmissionConfigurationError(
            f'{name}: no interface is present on both the joint side ({sorted(joints)}) and the '
            f'actuator side ({sorted(actuators)}); nothing to convert')
    joint_pos = joints.get(POSITION)
    act_pos = actuators.get(POSITION)
    if transmission.requires_position_state():
        kinds = {INTERFACE_KIND[i] for i, _, _ in pairs}
        if kinds - {POSITION} and (joint_pos is None or act_pos is None):
            raise TransmissionConfigurationError(
                f'{name} is nonlinear: velocity and effort need position handles on both the '
                'joint and the actuator side')
    return HandleBinding(pairs, skipped, joint_pos, act_pos)
