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
"""

import math
from typing import Any
from typing import Dict
from typing import Mapping
from typing import Sequence

import numpy as np

from transmission_plugins.core.exceptions import TransmissionInputError
from transmission_plugins.core.interfaces import ABSOLUTE_POSITION
from transmission_plugins.core.interfaces import INTERFACE_KIND
from transmission_plugins.core.interfaces import POSITION
from transmission_plugins.robot.wiring import RobotTransmission

#: ``{interface: {name: value}}``
NameMap = Dict[str, Dict[str, float]]


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
