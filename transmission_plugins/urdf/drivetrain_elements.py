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
The drivetrain elements of a transmission's ``<joint>`` and ``<actuator>`` (doc/drivetrain.md).

``<friction>`` and ``<backlash>`` on either end (joint side or motor side, in that end's
units), ``<motor>`` (with an optional ``<torque_speed>`` table) on an ``<actuator>``; read
strictly: each number as the URDF grammar writes it, every attribute known, each value's
:class:`~transmission_plugins.urdf.records.Origin` kept (``friction:coulomb`` ->
``.../friction/@coulomb``).
"""

from typing import Any
from typing import Callable
from typing import cast

from transmission_plugins.core.drivetrain import Backlash
from transmission_plugins.core.drivetrain import Friction
from transmission_plugins.core.drivetrain import Motor
from transmission_plugins.core.drivetrain import Thermal
from transmission_plugins.core.drivetrain import TorqueSpeed
from transmission_plugins.core.exceptions import BadValueError
from transmission_plugins.core.exceptions import TransmissionValueError
from transmission_plugins.urdf.elements import child_path
from transmission_plugins.urdf.elements import children
from transmission_plugins.urdf.elements import local_name
from transmission_plugins.urdf.elements import parse_float
from transmission_plugins.urdf.elements import source_line
from transmission_plugins.urdf.elements import XmlElement
from transmission_plugins.urdf.records import item_key
from transmission_plugins.urdf.records import Origin
from transmission_plugins.urdf.vocabulary import BACKLASH_TAG
from transmission_plugins.urdf.vocabulary import FRICTION_TAG
from transmission_plugins.urdf.vocabulary import MOTOR_TAG
from transmission_plugins.urdf.vocabulary import TORQUE_SPEED_TAG

#: the attributes of each element, in the order the docs list them
FRICTION_ATTRIBUTES = ('coulomb', 'viscous', 'static', 'stribeck_velocity')
BACKLASH_ATTRIBUTES = ('width',)
MOTOR_ATTRIBUTES = ('torque_constant', 'peak_torque', 'max_speed', 'peak_current', 'resistance',
                    'thermal_resistance', 'thermal_time_constant', 'max_temperature',
                    'ambient_temperature', 'warning_temperature')
#: the motor attributes of the thermal model: all of the first four, or none
THERMAL_ATTRIBUTES = ('resistance', 'thermal_resistance', 'thermal_time_constant',
                      'max_temperature')
TORQUE_SPEED_ATTRIBUTES = ('speeds', 'torques')
#: the attribute of a model parameter spelled otherwise
_ATTRIBUTE = {'time_constant': 'thermal_time_constant'}


class _Element:
    """One drivetrain element being read: its path, line and the numbers of its attributes."""

    def __init__(self, element: XmlElement, path: str, allowed: tuple[str, ...],
                 origins: dict[str, Origin], key: str) -> None:
        self.path = path
        self.line = source_line(element)
        self.allowed = allowed
        self.values: dict[str, Any] = {}
        tag = local_name(element)
        for name in element.attrib:
            if name not in allowed:
                raise BadValueError(f'{path}/@{name}', f'<{tag}> has no attribute {name!r} '
                                    f'(it takes {", ".join(allowed)})', self.line)
        for name in allowed:
            text = element.get(name)
            if text is None:
                continue
            at = f'{path}/@{name}'
            if name in TORQUE_SPEED_ATTRIBUTES:
                self.values[name] = tuple(parse_float(t, at, line=self.line)
                                          for t in text.split())
            else:
                self.values[name] = parse_float(text, at, line=self.line)
            origins[item_key(key, name)] = Origin(at, self.line)
        origins[key] = Origin(path, self.line)

    def build(self, make: Callable[..., Any], *args: Any, **fields: Any) -> Any:
        """Return ``make(*args, **fields)``, a complaint a :class:`BadValueError` naming it."""
        try:
            return make(*args, **fields)
        except TransmissionValueError as e:
            where = _ATTRIBUTE.get(e.parameter, e.parameter.split('[', 1)[0])
            if where in self.values:
                raise BadValueError(f'{self.path}/@{where}', f'expected {e.expected}, got '
                                    f'{e.value!r}', self.line) from e
            if where in self.allowed:   # a value the element does not give
                raise BadValueError(f'{self.path}/@{where}', f'attribute {where!r} is missing: '
                                    f'expected {e.expected}', self.line) from e
            raise BadValueError(self.path, f'{e.parameter}: expected {e.expected}, got '
                                f'{e.value!r}', self.line) from e


def _single(element: XmlElement, path: str, tag: str) -> tuple[XmlElement, str] | None:
    found = children(element, tag)
    if not found:
        return None
    if len(found) > 1:
        raise BadValueError(child_path(path, found[1], 2), f'<{tag}> is given twice (first at '
                            f'line {source_line(found[0])})', source_line(found[1]))
    return found[0], child_path(path, found[0])


def _read_element(element: XmlElement, path: str, origins: dict[str, Origin], tag: str,
                  attributes: tuple[str, ...], make: Callable[..., Any],
                  required: tuple[str, ...] = ()) -> dict[str, Any]:
    """Read the one ``<tag>`` of an end into ``{tag: make(**attributes)}`` (or nothing)."""
    found = _single(element, path, tag)
    if found is None:
        return {}
    read = _Element(*found, attributes, origins, tag)
    for name in required:
        if name not in read.values:
            raise BadValueError(f'{read.path}/@{name}', f'attribute {name!r} is missing',
                                read.line)
    return {tag: read.build(make, where=read.path, **read.values)}


def read_friction(element: XmlElement, path: str,
                  origins: dict[str, Origin]) -> dict[str, Any]:
    """
    Read the ``<friction>`` of a ``<joint>`` or ``<actuator>`` end.

    :returns: ``{'friction': Friction}`` or an empty dict, ready for the record's fields
    :raises BadValueError: naming the attribute, its line and the value
    """
    return _read_element(element, path, origins, FRICTION_TAG, FRICTION_ATTRIBUTES, Friction)


def read_backlash(element: XmlElement, path: str,
                  origins: dict[str, Origin]) -> dict[str, Any]:
    """
    Read the ``<backlash>`` of a ``<joint>`` or ``<actuator>`` end.

    :returns: ``{'backlash': Backlash}`` or an empty dict, ready for the record's fields
    :raises BadValueError: naming the attribute, its line and the value
    """
    return _read_element(element, path, origins, BACKLASH_TAG, BACKLASH_ATTRIBUTES, Backlash,
                         required=('width',))


def read_motor(element: XmlElement, path: str, origins: dict[str, Origin]) -> dict[str, Any]:
    """
    Read the ``<motor>`` of an ``<actuator>``: torque constant, envelope, thermal model.

    :returns: ``{'motor': Motor}`` or an empty dict
    :raises BadValueError: naming the attribute, its line and the value, or the missing ones
    """
    found = _single(element, path, MOTOR_TAG)
    if found is None:
        return {}
    motor, motor_path = found
    read = _Element(motor, motor_path, MOTOR_ATTRIBUTES, origins, MOTOR_TAG)
    v = read.values
    envelope = None
    table = _single(motor, motor_path, TORQUE_SPEED_TAG)
    for child in children(motor):
        if local_name(child) and local_name(child) != TORQUE_SPEED_TAG:
            raise BadValueError(child_path(motor_path, child), f'<motor> has no child '
                                f'<{local_name(child)}> (it takes <{TORQUE_SPEED_TAG}>)',
                                source_line(child))
    if table is not None:
        if 'peak_torque' in v or 'max_speed' in v:
            raise BadValueError(table[1], f'<{TORQUE_SPEED_TAG}> replaces peak_torque and '
                                'max_speed: give the table or the line, not both', read.line)
        points = _Element(*table, TORQUE_SPEED_ATTRIBUTES, origins,
                          item_key(MOTOR_TAG, TORQUE_SPEED_TAG))
        missing = [a for a in TORQUE_SPEED_ATTRIBUTES if a not in points.values]
        if missing:
            raise BadValueError(f'{points.path}/@{missing[0]}',
                                f'attribute {missing[0]!r} is missing', points.line)
        envelope = points.build(TorqueSpeed, where=points.path, **points.values)
    elif 'peak_torque' in v or 'max_speed' in v:
        if 'peak_torque' not in v or 'max_speed' not in v:
            one, other = ('peak_torque', 'max_speed') if 'peak_torque' in v \
                else ('max_speed', 'peak_torque')
            raise BadValueError(f'{motor_path}/@{other}', f'attribute {other!r} is missing: '
                                f'the torque-speed line needs it with {one!r}', read.line)
        envelope = read.build(TorqueSpeed.line, v['peak_torque'], v['max_speed'], motor_path)
    thermal = None
    given = [a for a in THERMAL_ATTRIBUTES if a in v]
    if given:
        missing = [a for a in THERMAL_ATTRIBUTES if a not in v]
        if missing:
            raise BadValueError(f'{motor_path}/@{missing[0]}', f'attribute {missing[0]!r} is '
                                f'missing: the thermal model needs {", ".join(THERMAL_ATTRIBUTES)}'
                                f' (given: {", ".join(given)})', read.line)
        extra = {k: v[k] for k in ('ambient_temperature', 'warning_temperature') if k in v}
        thermal = read.build(Thermal, v['resistance'], v['thermal_resistance'],
                             v['thermal_time_constant'], v['max_temperature'],
                             where=motor_path, **extra)
    elif 'ambient_temperature' in v or 'warning_temperature' in v:
        name = 'ambient_temperature' if 'ambient_temperature' in v else 'warning_temperature'
        raise BadValueError(f'{motor_path}/@{name}', f'{name} without the thermal model '
                            f'({", ".join(THERMAL_ATTRIBUTES)})', read.line)
    return {'motor': read.build(Motor, v.get('torque_constant'), envelope, thermal,
                                v.get('peak_current'), where=motor_path)}


#: the attributes of each drivetrain element that hold one number (what a rewriter may write)
NUMBER_ATTRIBUTES = {FRICTION_TAG: FRICTION_ATTRIBUTES, BACKLASH_TAG: BACKLASH_ATTRIBUTES,
                     MOTOR_TAG: MOTOR_ATTRIBUTES}


def drivetrain_origin(end: Any, key: str) -> Origin | str:
    """
    Return where the drivetrain value ``key`` of an end is read, or where it would be written.

    :param end: a :class:`~.records.JointInfo` or :class:`~.records.ActuatorInfo`
    :param key: ``element:attribute`` (:func:`~.records.item_key`): ``friction:coulomb``,
        ``backlash:width``, ``motor:torque_constant``...
    :returns: the :class:`Origin` (``given`` False for an attribute the text does not give: on
        the element when it is there, else on a new element of the end); or why there is none
        (a key that names no single number, a ``<motor>`` on a joint)
    """
    element, _, attribute = key.partition(':')
    if attribute not in NUMBER_ATTRIBUTES.get(element, ()):
        known = ', '.join(item_key(e, a) for e, names in NUMBER_ATTRIBUTES.items()
                          for a in names[:1])
        return f'{key!r} names no drivetrain number (they are element:attribute, e.g. {known})'
    if element == MOTOR_TAG and not hasattr(end, MOTOR_TAG):
        return f'a <{MOTOR_TAG}> belongs on an <actuator>, not on joint {end.name!r}'
    origin = end.origins.get(key)
    if origin is not None:
        return cast(Origin, origin)
    holder = end.origins.get(element)
    if holder is not None:
        return Origin(f'{holder.path}/@{attribute}', holder.line, given=False)
    return Origin(f'{end.path}/{element}/@{attribute}', end.line, given=False)
