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
Joint and actuator handles for the ros2_control call style.

A handle names one value of one joint or actuator, like ``hardware_interface::Handle``: the
joint/actuator name (``prefix_name`` upstream), the interface name and the value itself.  Because
Python floats are immutable the value lives on the handle (``handle.value``); a transmission
configured with handles reads and writes it in place.
"""

from typing import Optional

#: Interface names every transmission understands.
POSITION = 'position'
VELOCITY = 'velocity'
EFFORT = 'effort'
TORQUE = 'torque'
FORCE = 'force'
ABSOLUTE_POSITION = 'absolute_position'

INTERFACES = (POSITION, VELOCITY, EFFORT, TORQUE, FORCE, ABSOLUTE_POSITION)

#: The map each interface goes through: position-like, velocity-like or effort-like.
INTERFACE_KIND = {
    POSITION: POSITION,
    ABSOLUTE_POSITION: POSITION,
    VELOCITY: VELOCITY,
    EFFORT: EFFORT,
    TORQUE: EFFORT,
    FORCE: EFFORT,
}


class Handle:
    """
    One named value of a joint or an actuator.

    :param name: joint or actuator name
    :param interface: interface name, e.g. ``'position'``
    :param value: initial value
    :param role: optional role (``'joint1'``, ``'actuator2'``...) used to order coupled
        transmissions; handles without a role keep the order they are given in
    """

    __slots__ = ('name', 'interface', 'value', 'role')

    def __init__(self, name: str, interface: str, value: float = 0.0,
                 role: Optional[str] = None) -> None:
        self.name = str(name)
        self.interface = str(interface)
        self.value = float(value)
        self.role = role

    def get_name(self) -> str:
        """Return the full name ``<name>/<interface>``, as ros2_control does."""
        return f'{self.name}/{self.interface}'

    def get_prefix_name(self) -> str:
        """Return the joint or actuator name."""
        return self.name

    def get_interface_name(self) -> str:
        """Return the interface name."""
        return self.interface

    def get_value(self) -> float:
        """Return the current value."""
        return self.value

    def set_value(self, value: float) -> None:
        """Store a new value."""
        self.value = float(value)

    def __repr__(self) -> str:
        role = f', role={self.role!r}' if self.role is not None else ''
        return (f'{type(self).__name__}({self.name!r}, {self.interface!r}, '
                f'{self.value!r}{role})')


class JointHandle(Handle):
    """A handle on a joint-space value."""

    __slots__ = ()


class ActuatorHandle(Handle):
    """A handle on an actuator-space value."""

    __slots__ = ()
