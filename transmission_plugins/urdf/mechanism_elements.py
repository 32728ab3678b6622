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
Readers of the mechanisms' elements: the parallel ankle, the slider-crank, the table, the SEA.

Where each reads its dimensions, in every dialect alike, is doc/urdf.md's table "Where each
built-in transmission reads its numbers".  What each plugin may contain is its vocabulary
(:data:`ANKLE_VOCABULARY`, :data:`SLIDER_CRANK_VOCABULARY`, :data:`TABLE_VOCABULARY`,
:data:`SERIES_ELASTIC_VOCABULARY`); the
loader's one strict check rejects everything else, and these readers check the attributes of
their own elements.  Errors name the element path, the line and the value; a value the
constructor rejects is reported at the element that holds it.
"""

from typing import Any
from typing import Callable
from typing import Sequence

from transmission_plugins.core.exceptions import BadValueError
from transmission_plugins.core.exceptions import IncompleteTransmissionError
from transmission_plugins.core.exceptions import TransmissionValueError
from transmission_plugins.core.transmission import Transmission
from transmission_plugins.urdf.elements import child_path
from transmission_plugins.urdf.elements import children
from transmission_plugins.urdf.elements import local_name
from transmission_plugins.urdf.elements import one_child
from transmission_plugins.urdf.elements import parse_float
from transmission_plugins.urdf.elements import parse_numbers
from transmission_plugins.urdf.elements import require_attribute
from transmission_plugins.urdf.elements import source_line
from transmission_plugins.urdf.elements import XmlElement
from transmission_plugins.urdf.pr2_elements import transmission_element
from transmission_plugins.urdf.readers import lenient_problem
from transmission_plugins.urdf.readers import order_by_role
from transmission_plugins.urdf.readers import reduction_origin
from transmission_plugins.urdf.readers import reduction_tag
from transmission_plugins.urdf.readers import value_origin
from transmission_plugins.urdf.records import ActuatorInfo
from transmission_plugins.urdf.records import JointInfo
from transmission_plugins.urdf.records import Origin
from transmission_plugins.urdf.records import TransmissionInfo
from transmission_plugins.urdf.records import TransmissionWiring
from transmission_plugins.urdf.vocabulary import ElementRule
from transmission_plugins.urdf.vocabulary import OFFSET_TAG
from transmission_plugins.urdf.vocabulary import UrdfVocabulary

#: The points of an ankle leg, children of its ``<actuator>`` (constructor keyword names).
ANKLE_POINTS = ('crank_pivot', 'crank_tip', 'rod_end')
#: The lever of a slider-crank, a child of its ``<joint>``.
LEVER_TIP = 'lever_tip'
#: The actuator of a slider-crank: a rotary crank, or a linear slider.
ROTARY = ('crank_pivot', 'crank_tip')
LINEAR = ('slider_tip', 'slider_axis')
TABLE_TAG = 'table'
POINT_TAG = 'point'
OUTSIDE_ATTRIBUTE = 'outside'
SPRING_TAG = 'spring'
#: The attributes of a series-elastic transmission's ``<spring>`` (constructor keyword names).
SPRING_ATTRIBUTES = ('stiffness', 'damping', 'deflections', 'torques')

#: What a ``transmission_plugins/ParallelAnkleTransmission`` element may contain.
ANKLE_VOCABULARY = UrdfVocabulary(actuator_children=ANKLE_POINTS)
#: What a ``transmission_plugins/SliderCrankTransmission`` element may contain.
SLIDER_CRANK_VOCABULARY = UrdfVocabulary(joint_children=(LEVER_TIP,),
                                         actuator_children=ROTARY + LINEAR)
#: What a ``transmission_plugins/TableTransmission`` element may contain.
TABLE_VOCABULARY = UrdfVocabulary(
    extra_children=(TABLE_TAG,),
    elements={TABLE_TAG: ElementRule((OUTSIDE_ATTRIBUTE,), (POINT_TAG,))})

#: What a ``transmission_plugins/SeriesElasticTransmission`` element may contain.
SERIES_ELASTIC_VOCABULARY = UrdfVocabulary(
    extra_children=(SPRING_TAG,), elements={SPRING_TAG: ElementRule(SPRING_ATTRIBUTES, ())})

_End = JointInfo | ActuatorInfo


# ---------------------------------------------------------------------------------- helpers
def _count(info: TransmissionInfo, items: Sequence[_End], count: int, side: str) -> None:
    if len(items) != count:
        names = [i.name for i in items]
        error = IncompleteTransmissionError if len(items) < count else BadValueError
        raise error(info.path, f'{info.type} needs exactly {count} <{side}> element(s), got '
                    f'{len(items)}{" " + str(names) if names else ""}', info.line)


def _no_reduction(info: TransmissionInfo, ends: Sequence[_End]) -> None:
    """Reject a reduction or offset: a mechanism's dimensions are its whole map."""
    for end in ends:
        for value, neutral, what in ((end.mechanical_reduction, 1.0, 'reduction'),
                                     (end.offset, 0.0, 'offset')):
            if value is not None and value != neutral:
                lenient_problem(info, BadValueError(
                    end.path, f'{info.type} has no {what}: its dimensions define the map; the '
                    f'value {value!r} would be ignored', end.line), 'ignored')


def _attributes(info: TransmissionInfo, element: XmlElement, path: str,
                allowed: Sequence[str]) -> None:
    for name in element.attrib:
        if name not in allowed:
            lenient_problem(info, BadValueError(
                f'{path}/@{name}', f'unexpected attribute {name!r} for {info.type}; expected '
                f'only {", ".join(allowed)}', source_line(element)), 'ignored')
    for child in children(element):
        lenient_problem(info, BadValueError(
            f'{path}/{local_name(child)}', f'unexpected element <{local_name(child)}> for '
            f'{info.type}; expected none', source_line(child)), 'ignored')


def read_point(info: TransmissionInfo, element: XmlElement, path: str,
               size: int) -> tuple[list[float], str]:
    """
    Return the ``xyz`` (size 3) or ``xy`` (size 2) attribute of ``element`` and its path.

    :raises UrdfTransmissionError: the attribute is missing, has another count of numbers, or
        one that is not a finite number; another attribute or a child element is there
    """
    attribute = 'xyz' if size == 3 else 'xy'
    _attributes(info, element, path, (attribute,))
    text = require_attribute(element, attribute, path)
    where = f'{path}/@{attribute}'
    parts = text.split()
    if len(parts) != size:
        raise BadValueError(where, f'expected {size} numbers "{" ".join(attribute)}", got '
                            f'{text!r}', source_line(element))
    return [parse_float(p, where, line=source_line(element)) for p in parts], where


def _child_point(info: TransmissionInfo, end: _End, tag: str,
                 size: int) -> tuple[list[float], Origin]:
    element = one_child(_element(info, end), end.path, tag)
    value, where = read_point(info, element, child_path(end.path, element), size)
    return value, Origin(where, source_line(element))


def _element(info: TransmissionInfo, end: _End) -> XmlElement:
    if end.element is None:
        raise IncompleteTransmissionError(end.path or info.path, f'{info.type} reads the '
                                          'dimensions inside each <joint> and <actuator>',
                                          info.line)
    return end.element


def _build(cls: Callable[..., Transmission], info: TransmissionInfo, kwargs: dict[str, Any],
           origins: dict[str, Origin]) -> Transmission:
    """Build, reporting a rejected value at the element it was read from."""
    try:
        return cls(**kwargs)
    except TransmissionValueError as e:
        origin = origins.get(e.parameter, Origin(info.path, info.line))
        raise BadValueError(origin.path, f'{e.parameter}: expected {e.expected}, got '
                            f'{e.value!r}', origin.line) from e


# ---------------------------------------------------------------------------------- readers
def ankle_from_info(cls: Callable[..., Transmission],
                    info: TransmissionInfo) -> TransmissionWiring:
    """
    Read a ``transmission_plugins/ParallelAnkleTransmission`` element.

    Two ``<joint>`` elements, pitch then roll (roles ``pitch`` and ``roll``, or that XML order),
    and two ``<actuator>`` elements (roles ``actuator1``, ``actuator2``, or the XML order), each
    holding its leg: ``<crank_pivot xyz/>``, ``<crank_tip xyz/>`` and ``<rod_end xyz/>``, once
    each.  No reduction or offset (lenient mode: ignored with a warning).

    :raises UrdfTransmissionError: (a subclass) naming the element path and the bad value
    """
    _count(info, info.joints, 2, 'joint')
    _count(info, info.actuators, 2, 'actuator')
    joints = order_by_role(info, info.joints, ('pitch', 'roll'), 'joint')
    actuators = order_by_role(info, info.actuators, ('actuator1', 'actuator2'), 'actuator')
    _no_reduction(info, list(joints) + list(actuators))
    kwargs: dict[str, Any] = {tag: [] for tag in ANKLE_POINTS}
    origins: dict[str, Origin] = {tag: Origin(info.path, info.line) for tag in ANKLE_POINTS}
    for i, actuator in enumerate(actuators):
        for tag in ANKLE_POINTS:
            point, origin = _child_point(info, actuator, tag, 3)
            kwargs[tag].append(point)
            origins[f'{tag}[{i}]'] = origin
    transmission = _build(cls, info, kwargs, origins)
    return TransmissionWiring(transmission, tuple(j.name for j in joints),
                              tuple(a.name for a in actuators))


def slider_crank_from_info(cls: Callable[..., Transmission],
                           info: TransmissionInfo) -> TransmissionWiring:
    """
    Read a ``transmission_plugins/SliderCrankTransmission`` element.

    One ``<joint>`` holding ``<lever_tip xy/>``, one ``<actuator>`` holding either
    ``<crank_pivot xy/>`` and ``<crank_tip xy/>`` (a rotary actuator) or ``<slider_tip xy/>``
    and ``<slider_axis xy/>`` (a linear one).  No reduction or offset.

    :raises UrdfTransmissionError: (a subclass) naming the element path and the bad value
    """
    _count(info, info.joints, 1, 'joint')
    _count(info, info.actuators, 1, 'actuator')
    joint, actuator = info.joints[0], info.actuators[0]
    _no_reduction(info, (joint, actuator))
    lever, origin = _child_point(info, joint, LEVER_TIP, 2)
    kwargs: dict[str, Any] = {LEVER_TIP: lever}
    origins: dict[str, Origin] = {LEVER_TIP: origin}
    element = _element(info, actuator)
    given = [kind for kind in (ROTARY, LINEAR) if any(children(element, t) for t in kind)]
    if len(given) != 1:
        found = [local_name(c) for c in children(element) if local_name(c) in ROTARY + LINEAR]
        error = IncompleteTransmissionError if not given else BadValueError
        raise error(actuator.path, f'{info.type} needs <crank_pivot> and <crank_tip> (a rotary '
                    f'actuator) or <slider_tip> and <slider_axis> (a linear one), got '
                    f'{found or "none"}', actuator.line)
    for tag in given[0]:
        kwargs[tag], origins[tag] = _child_point(info, actuator, tag, 2)
    transmission = _build(cls, info, kwargs, origins)
    return TransmissionWiring(transmission, (joint.name,), (actuator.name,))


def table_from_info(cls: Callable[..., Transmission],
                    info: TransmissionInfo) -> TransmissionWiring:
    """
    Read a ``transmission_plugins/TableTransmission`` element.

    One ``<joint>``, one ``<actuator>`` and one ``<table outside="nan|linear">`` (``outside``
    optional, default ``nan``) holding at least two ``<point actuator="..." joint="..."/>``:
    actuator positions increasing, joint positions strictly increasing or decreasing, all
    finite.  No reduction or offset.

    :raises UrdfTransmissionError: (a subclass) naming the element path (the point and
        attribute of a bad value, e.g. ``table/point[3]/@joint``), its line and the value
    """
    _count(info, info.joints, 1, 'joint')
    _count(info, info.actuators, 1, 'actuator')
    _no_reduction(info, (info.joints[0], info.actuators[0]))
    table = one_child(transmission_element(info), info.path, TABLE_TAG)
    path = child_path(info.path, table)
    kwargs: dict[str, Any] = {'actuator_position': [], 'joint_position': []}
    origins: dict[str, Origin] = {}
    outside = table.get(OUTSIDE_ATTRIBUTE)
    if outside is not None:
        kwargs[OUTSIDE_ATTRIBUTE] = outside.strip()
        origins[OUTSIDE_ATTRIBUTE] = Origin(f'{path}/@{OUTSIDE_ATTRIBUTE}', source_line(table))
    for k, point in enumerate(children(table, POINT_TAG)):
        point_path = child_path(path, point, k + 1)
        _attributes(info, point, point_path, ('actuator', 'joint'))
        for side in ('actuator', 'joint'):
            where = f'{point_path}/@{side}'
            text = require_attribute(point, side, point_path)
            kwargs[f'{side}_position'].append(parse_float(text, where, line=source_line(point)))
            origins[f'{side}_position[{k}]'] = Origin(where, source_line(point))
    origins.setdefault('actuator_position', Origin(path, source_line(table)))
    origins.setdefault('joint_position', Origin(path, source_line(table)))
    transmission = _build(cls, info, kwargs, origins)
    return TransmissionWiring(transmission, (info.joints[0].name,),
                              (info.actuators[0].name,))


def series_elastic_from_info(cls: Callable[..., Transmission],
                             info: TransmissionInfo) -> TransmissionWiring:
    """
    Read a ``transmission_plugins/SeriesElasticTransmission`` element.

    One ``<joint>`` (its ``<offset>`` is the joint offset), two ``<actuator>`` elements: the
    motor (role ``actuator1``, or first in XML order) with its reduction, and the joint-side
    encoder (role ``actuator2``) without one; and one ``<spring>`` whose attributes are
    ``stiffness`` (a linear spring) or ``deflections`` and ``torques`` (a measured table, lists
    of numbers), and ``damping`` (optional, default 0).  No joint reduction, no actuator offset.

    :raises UrdfTransmissionError: (a subclass) naming the element path, the line and the value
    """
    _count(info, info.joints, 1, 'joint')
    _count(info, info.actuators, 2, 'actuator')
    joint = info.joints[0]
    motor, encoder = order_by_role(info, info.actuators, ('actuator1', 'actuator2'), 'actuator')
    for value, neutral, what, end in ((joint.mechanical_reduction, 1.0, 'reduction', joint),
                                      (motor.offset, 0.0, 'offset', motor),
                                      (encoder.mechanical_reduction, 1.0, 'reduction', encoder),
                                      (encoder.offset, 0.0, 'offset', encoder)):
        if value is not None and value != neutral:
            lenient_problem(info, BadValueError(
                end.path, f'{info.type} reads the reduction from the motor <actuator> '
                '(actuator1) and the offset from the <joint>; the joint-side encoder '
                f'(actuator2) reads the joint itself; the {what} {value!r} here would be '
                'ignored', end.line), 'ignored')
    reduction = motor.mechanical_reduction
    reduction_at = reduction_origin(info, motor)
    if reduction is None and info.mechanical_reduction is not None:   # PR2 style, on top
        reduction, reduction_at = info.mechanical_reduction, reduction_origin(info, info)
    if reduction is None:
        lenient_problem(info, IncompleteTransmissionError(
            motor.path, f'motor {motor.name!r} has no reduction (<{reduction_tag(info)}>); '
            f'{info.type} needs the gear between the motor and the spring', motor.line),
            'using the default 1.0')
        reduction = 1.0
    spring = one_child(transmission_element(info), info.path, SPRING_TAG)
    path = child_path(info.path, spring)
    line = source_line(spring)
    _attributes(info, spring, path, SPRING_ATTRIBUTES)
    kwargs: dict[str, Any] = {'reduction': reduction,
                              'joint_offset': joint.offset if joint.offset is not None else 0.0}
    origins: dict[str, Origin] = {'reduction': reduction_at,
                                  'joint_offset': value_origin(joint, 'offset', OFFSET_TAG)}
    for name in SPRING_ATTRIBUTES:
        text = spring.get(name)
        where = f'{path}/@{name}'
        origins[name] = Origin(where, line, given=text is not None)
        if text is None:
            continue
        if name in ('deflections', 'torques'):
            kwargs[name] = parse_numbers(text, where, line=line)
            for k in range(len(kwargs[name])):
                origins[f'{name}[{k}]'] = Origin(where, line)
        else:
            kwargs[name] = parse_float(text, where, line=line)
    if not any(name in kwargs for name in ('stiffness', 'deflections', 'torques')):
        raise IncompleteTransmissionError(
            path, f'{info.type} needs a spring: stiffness="k" (a linear spring) or '
            'deflections="..." and torques="..." (a measured table)', line)
    transmission = _build(cls, info, kwargs, origins)
    return TransmissionWiring(transmission, (joint.name,), (motor.name, encoder.name))


def spring_origin(info: TransmissionInfo, name: str) -> Origin | str:
    """
    Return where the ``<spring>`` attribute ``name`` is read (or would be), or why not there.

    A linear spring's ``stiffness`` and ``damping`` (``given`` False for one the text lacks:
    written onto the ``<spring>``).  A measured table (``deflections``, ``torques``) is not a
    place for a linear spring's values: the reason is returned.

    :raises UrdfTransmissionError: the transmission has no single ``<spring>``
    """
    if name not in ('stiffness', 'damping'):
        return f'{name!r} is not a number of a linear <{SPRING_TAG}> (stiffness, damping)'
    spring = one_child(transmission_element(info), info.path, SPRING_TAG)
    path = child_path(info.path, spring)
    if any(spring.get(table) is not None for table in ('deflections', 'torques')):
        return (f'the <{SPRING_TAG}> at {path} is a measured table (deflections, torques): '
                "left as is, a linear spring's values do not replace it")
    return Origin(f'{path}/@{name}', source_line(spring), given=spring.get(name) is not None)
