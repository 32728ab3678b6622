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

"""Actuator data in ``<actuator>`` elements: Drake tags and ros2_control ``<param>`` values."""

from typing import Any
from typing import cast

from transmission_plugins.core.exceptions import BadValueError
from transmission_plugins.urdf.elements import child_path
from transmission_plugins.urdf.elements import children
from transmission_plugins.urdf.elements import local_name
from transmission_plugins.urdf.elements import parse_float
from transmission_plugins.urdf.elements import require_attribute
from transmission_plugins.urdf.elements import source_line
from transmission_plugins.urdf.elements import XmlElement
from transmission_plugins.urdf.records import Origin
from transmission_plugins.urdf.vocabulary import ACTUATOR_PARAMS
from transmission_plugins.urdf.vocabulary import MOTOR_INERTIA_TAG

#: the Drake tags with a ``value`` attribute, and the fields they fill
_VALUE_TAGS = ('rotor_inertia', 'gear_ratio', 'effort_limit')


def _check_extension(key: str, value: float, path: str, line: int | None) -> float:
    if key == 'rotor_inertia' and value < 0.0:
        raise BadValueError(path, f'expected a rotor inertia >= 0, got {value!r}', line)
    if key == 'gear_ratio' and value == 0.0:
        raise BadValueError(path, 'expected a non-zero gear ratio, got 0', line)
    if key in ('effort_limit', 'kp') and value <= 0.0:
        raise BadValueError(path, f'expected a number > 0, got {value!r}', line)
    if key == 'kd' and value < 0.0:
        raise BadValueError(path, f'expected a number >= 0 (Drake rejects Kd < 0), got '
                                  f'{value!r}', line)
    return value


def read_actuator_extensions(element: XmlElement, path: str,
                             origins: dict[str, Origin] | None = None) -> dict[str, Any]:
    """
    Read the actuator data an ``<actuator>`` element of a ``<transmission>`` may carry.

    The Drake tags (matched by local name, whatever the namespace prefix), ros2_control
    ``<param>`` values and FROST's ``<motorInertia>`` of doc/urdf.md; other children are left to
    the caller.

    :param origins: when given, receives field name ->
        :class:`~transmission_plugins.urdf.records.Origin` of each value read
    :returns: a dict with some of ``rotor_inertia``, ``gear_ratio``, ``effort_limit`` (floats)
        and ``controller_gains`` (``(p, d)``), ready for :class:`ActuatorInfo` fields
    :raises BadValueError: non-numeric or out-of-range values, duplicates, ``kd`` without ``kp``
    :raises IncompleteTransmissionError: missing ``value``, ``p``, ``d`` or ``name`` attributes
    """
    found: dict[str, float] = {}
    where: dict[str, Origin] = {}

    def put(key: str, value: float, at: str, line: int | None) -> None:
        if key in found:
            raise BadValueError(at, f'{key} is given twice (first at {where[key].path})', line)
        found[key] = _check_extension(key, value, at, line)
        where[key] = Origin(at, line)

    for child in children(element):
        tag = local_name(child)
        at = child_path(path, child)
        line = source_line(child)
        if tag in _VALUE_TAGS:
            text = require_attribute(child, 'value', at)
            put(tag, parse_float(text, f'{at}/@value', line=line), at, line)
        elif tag == 'controller_gains':
            for attribute, key in (('p', 'kp'), ('d', 'kd')):
                text = require_attribute(child, attribute, at)
                put(key, parse_float(text, f'{at}/@{attribute}', line=line), at, line)
        elif tag == MOTOR_INERTIA_TAG:
            put('rotor_inertia', parse_float(child.text, at, line=line), at, line)
        elif tag == 'param' and child.get('name') in ACTUATOR_PARAMS:
            put(cast(str, child.get('name')), parse_float(child.text, at, line=line), at,
                line)
    out: dict[str, Any] = {k: found[k] for k in _VALUE_TAGS if k in found}
    if 'kd' in found and 'kp' not in found:
        raise BadValueError(where['kd'].path, 'kd is given without kp', None)
    if 'kp' in found:
        out['controller_gains'] = (found['kp'], found.get('kd', 0.0))
        where['controller_gains'] = where.pop('kp')
    where.pop('kd', None)
    if origins is not None:
        origins.update(where)
    return out
