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

Like ``hardware_interface::Handle``, but the value lives on the handle (``handle.value``, Python
floats being immutable); a transmission configured with handles reads and writes it in place.
"""

from typing import Sequence
from typing import TypeVar

from transmission_plugins.core.exceptions import TransmissionConfigurationError


class Handle:
    """
    One named value of a joint or an actuator.

    :param role: optional role (``'joint1'``, ``'actuator2'``...) used to order coupled
        transmissions; handles without a role keep the order they are given in
    """

    __slots__ = ('name', 'interface', 'value', 'role')

    def __init__(self, name: str, interface: str, value: float = 0.0,
                 role: str | None = None) -> None:
        self.name = str(name)
        self.interface = str(interface)
        self.value = float(value)
        self.role = role

    def get_name(self) -> str:
        """Return the full name ``<name>/<interface>``, as ros2_control does."""
        return f'{self.name}/{self.interface}'

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


H = TypeVar('H', bound=Handle)


def group_handles(handles: Sequence[H], cls: type[H], count: int, roles: Sequence[str],
                  side: str, owner: str) -> dict[str, list[H]]:
    """
    Group one side's handles by interface, each group in map order (ros2_control's configure).

    Names are ordered by ``role`` when roles are given (every handle of a name must agree, and
    the roles must be exactly ``roles``), else kept in the order of first appearance.

    :param side: ``'joint'`` or ``'actuator'``, for messages
    :param owner: the transmission's name, for messages
    :raises TransmissionConfigurationError: no handles, objects of the wrong class, a wrong
        number of names, conflicting or wrong roles, duplicate handles, or an interface given
        for some names only
    """
    if not handles:
        raise TransmissionConfigurationError(f'{owner}: no {side} handles given')
    for h in handles:
        if not isinstance(h, cls):
            raise TransmissionConfigurationError(
                f'{owner}: expected {cls.__name__} objects, got {h!r}')
    order: list[str] = []
    role_of: dict[str, str | None] = {}
    for h in handles:
        if h.name not in role_of:
            order.append(h.name)
            role_of[h.name] = h.role
        elif h.role is not None and role_of[h.name] not in (None, h.role):
            raise TransmissionConfigurationError(
                f'{owner}: {side} {h.name!r} has two roles, {role_of[h.name]!r} and {h.role!r}')
        elif h.role is not None:
            role_of[h.name] = h.role
    if len(order) != count:
        raise TransmissionConfigurationError(
            f'{owner}: expected exactly {count} {side} name(s), got {order}')
    given = [role_of[n] for n in order]
    if any(r is not None for r in given):
        if any(r is None for r in given) or sorted(given) != sorted(roles):  # type: ignore
            raise TransmissionConfigurationError(
                f'{owner}: {side} roles must be exactly {list(roles)}, got '
                f'{dict(zip(order, given))}')
        order = sorted(order, key=lambda n: list(roles).index(role_of[n]))  # type: ignore
    by_interface: dict[str, dict[str, H]] = {}
    for h in handles:
        slot = by_interface.setdefault(h.interface, {})
        if h.name in slot:
            raise TransmissionConfigurationError(
                f'{owner}: duplicate {side} handle {h.get_name()!r}')
        slot[h.name] = h
    out: dict[str, list[H]] = {}
    for interface, slot in by_interface.items():
        if len(slot) != count:
            missing = [n for n in order if n not in slot]
            raise TransmissionConfigurationError(
                f'{owner}: {side} interface {interface!r} is given for {sorted(slot)} but '
                f'not for {missing}; give it for every {side} or for none')
        out[interface] = [slot[n] for n in order]
    return out
