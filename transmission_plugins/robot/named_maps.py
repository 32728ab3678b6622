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
Name-keyed maps of a whole robot: ``{'position': {'motor_a': 1.0}}`` in, by name out.

A transmission is converted for an interface when all the names it needs are given for it (for
joint to actuator, only the joints its maps read: the gap joint alone for a PR2 gripper); a
nonlinear one also needs its positions in the same call for velocity and effort.  Names of no
transmission are ignored; values must be real numbers (not ``'1.5'``, ``True`` or None).

:class:`NamedMaps` takes a fast path when every name the maps read is given for every interface
(a hardware interface's full state or command): the values go through the fused array maps of
the robot (:mod:`~.fused_maps`) at once, with the same results as converting transmission by
transmission (:func:`convert_by_name`, the general path it falls back to).
"""

import math
from operator import itemgetter
from typing import Any
from typing import Callable
from typing import Dict
from typing import Mapping
from typing import Optional
from typing import Sequence
from typing import Tuple

import numpy as np

from transmission_plugins.core.exceptions import TransmissionInputError
from transmission_plugins.core.interfaces import ABSOLUTE_POSITION
from transmission_plugins.core.interfaces import INTERFACE_KIND
from transmission_plugins.core.interfaces import POSITION
from transmission_plugins.robot.fused_maps import FusedMaps
from transmission_plugins.robot.wiring import RobotTransmission

#: ``{interface: {name: value}}``
NameMap = Dict[str, Dict[str, float]]


_NUMBER_TYPES = {float, int}


def _getter(names: Sequence[str]) -> Callable[[Mapping[str, Any]], Tuple[Any, ...]]:
    """Return a function reading ``names`` from a mapping as a tuple (KeyError when one lacks)."""
    if len(names) == 1:
        name = names[0]
        return lambda by_name: (by_name[name],)
    if not names:
        return lambda by_name: ()
    return itemgetter(*names)


class NamedMaps:
    """
    Name-keyed maps of a robot: a fast path through ``fused`` and :func:`convert_by_name`.

    :param transmissions: the robot's transmissions (URDF order)
    :param fused: the robot's array maps
    :param joint_names: the joint vector's names
    :param actuator_names: the actuator vector's names
    :param owners: for each transmission, whether it owns its actuators (writes them in
        ``joint_to_actuator``)
    """

    def __init__(self, transmissions: Sequence[RobotTransmission], fused: FusedMaps,
                 joint_names: Sequence[str], actuator_names: Sequence[str],
                 owners: Sequence[bool]) -> None:
        self.transmissions = list(transmissions)
        self._fused = fused
        self._joint_names = tuple(joint_names)
        self._actuator_names = tuple(actuator_names)
        # joint to actuator reads only these joints: the owners' map inputs (a shared actuator
        # takes the owner's value, and the owner comes first in URDF order)
        read = {t.joint_names[i] for t, owner in zip(transmissions, owners) if owner
                for i in t.transmission.joint_to_actuator_inputs()}
        self._read_joints = tuple(n for n in joint_names if n in read)
        self._get_actuators = _getter(self._actuator_names)
        self._get_joints = _getter(self._joint_names)
        self._get_read_joints = _getter(self._read_joints)
        self._nonlinear = any(t.transmission.requires_position_state() for t in transmissions)

    def convert(self, values: Mapping[str, Mapping[str, Any]], to_joint: bool) -> NameMap:
        """Convert like :func:`convert_by_name`; via the fused maps when all names are given."""
        arrays = self._arrays(values, to_joint)
        if arrays is None:
            return convert_by_name(self.transmissions, values, to_joint)
        out = self._fused.convert_valid(arrays, to_joint)
        names = self._joint_names if to_joint else self._actuator_names
        return {interface: dict(zip(names, y.tolist())) for interface, y in out.items()}

    def _arrays(self, values: Mapping[str, Mapping[str, Any]],
                to_joint: bool) -> Optional[Dict[str, np.ndarray]]:
        """Return the values as robot vectors, or None when the fast path does not apply."""
        arrays = {}
        names = self._actuator_names if to_joint else self._joint_names
        for interface, by_name in values.items():
            if interface not in INTERFACE_KIND:
                return None  # the general path raises
            try:
                got: Sequence[Any] = (self._get_actuators if to_joint
                                      else self._get_joints)(by_name)
            except (KeyError, TypeError):
                if to_joint:
                    return None
                try:
                    self._get_read_joints(by_name)
                except (KeyError, TypeError):
                    return None
                got = [by_name[n] if n in by_name else math.nan for n in names]
            if not set(map(type, got)) <= _NUMBER_TYPES:
                got = [_number(v, n, interface) for v, n in zip(got, names)]
            arrays[interface] = np.array(got, dtype=np.float64)
        if self._nonlinear and POSITION not in arrays and ABSOLUTE_POSITION not in arrays \
                and any(INTERFACE_KIND[i] != POSITION for i in arrays):
            return None  # nonlinear transmissions convert positions only: the general path
        return arrays


def convert_by_name(transmissions: Sequence[RobotTransmission],
                    values: Mapping[str, Mapping[str, Any]], to_joint: bool) -> NameMap:
    """
    Convert name-keyed values through every transmission that has all the names it needs.

    :param values: ``{interface: {name: value}}`` (actuator names when ``to_joint``, else joint
        names)
    :returns: ``{interface: {name: value}}`` for every interface given; a shared actuator takes
        the value of the first transmission (URDF order) that converts it
    :raises TransmissionInputError: unknown interface or a value that is not a number
    """
    for interface in values:
        if interface not in INTERFACE_KIND:
            raise TransmissionInputError(
                f'unknown interface {interface!r}; expected one of '
                f'{", ".join(INTERFACE_KIND)}')
    out: NameMap = {interface: {} for interface in values}
    for t in transmissions:
        tr = t.transmission
        if to_joint:
            src, dst, needed = t.actuator_names, t.joint_names, t.actuator_names
        else:
            src, dst = t.joint_names, t.actuator_names
            needed = tuple(src[i] for i in tr.joint_to_actuator_inputs())
        arrays = {}
        for interface, by_name in values.items():
            if all(n in by_name for n in needed):
                arrays[interface] = _numbers(by_name, src, interface)
        if tr.requires_position_state() and POSITION not in arrays \
                and ABSOLUTE_POSITION not in arrays:
            arrays = {k: v for k, v in arrays.items() if INTERFACE_KIND[k] == POSITION}
        if not arrays:
            continue
        result = tr.actuator_to_joint(arrays) if to_joint else tr.joint_to_actuator(arrays)
        for interface, y in (result or {}).items():
            slot = out[interface]
            for n, v in zip(dst, y.tolist()):
                slot.setdefault(n, v)
    return out


def _numbers(by_name: Mapping[str, Any], names: Sequence[str], interface: str) -> np.ndarray:
    """
    Return the values of ``names`` as an array, NaN for names not given (unread joints).

    As in the transmissions' functional API, only real numbers are accepted (int, float, numpy
    integer or floating scalars): not ``'1.5'`` or ``True``, which ``float()`` would take.
    """
    return np.array([_number(by_name[n], n, interface) if n in by_name else math.nan
                     for n in names], dtype=np.float64)


def _number(value: Any, name: str, interface: str) -> float:
    if type(value) is float or type(value) is int:  # the common case, fast
        return value
    x = np.asarray(value)
    if x.ndim != 0 or x.dtype.kind not in 'iuf':  # bool, str, None, complex, arrays
        raise TransmissionInputError(
            f'{interface!r} values must be numbers (int or float): {name!r} is {value!r}')
    return float(x)
