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
How the built-in plugins read their parameters from a parsed ``<transmission>``, in one place.

Where each dialect keeps the numbers is doc/urdf.md's table.  A value the reference loader would
silently ignore is an error when it would change the map; missing required values, bad roles
and ignored values become defaults with a warning (``warnings.warn``, recorded by the plugin
loader) when ``info.lenient`` is set.
"""

from typing import NamedTuple
from typing import Sequence
from typing import TypeVar
import warnings

from transmission_plugins.core.exceptions import BadValueError
from transmission_plugins.core.exceptions import BrokenReferenceError
from transmission_plugins.core.exceptions import IncompleteTransmissionError
from transmission_plugins.core.exceptions import LoadWarning
from transmission_plugins.core.exceptions import TransmissionWarning
from transmission_plugins.core.exceptions import UrdfTransmissionError
from transmission_plugins.urdf.elements import children
from transmission_plugins.urdf.elements import local_name
from transmission_plugins.urdf.elements import parse_numbers
from transmission_plugins.urdf.elements import robot_joint_names
from transmission_plugins.urdf.elements import source_line
from transmission_plugins.urdf.elements import XmlElement
from transmission_plugins.urdf.records import ActuatorInfo
from transmission_plugins.urdf.records import DIALECT_ROS2_CONTROL
from transmission_plugins.urdf.records import item_key
from transmission_plugins.urdf.records import JointInfo
from transmission_plugins.urdf.records import Origin
from transmission_plugins.urdf.records import TransmissionInfo
from transmission_plugins.urdf.vocabulary import DEFAULT_OFFSET
from transmission_plugins.urdf.vocabulary import DEFAULT_REDUCTION
from transmission_plugins.urdf.vocabulary import ElementRule
from transmission_plugins.urdf.vocabulary import OFFSET_TAG
from transmission_plugins.urdf.vocabulary import PARAM_TAG
from transmission_plugins.urdf.vocabulary import REDUCTION_TAGS
from transmission_plugins.urdf.vocabulary import ROLE_TAG
from transmission_plugins.urdf.vocabulary import UrdfVocabulary

_DIALECT_NAMES = {'ros1': 'ROS 1', 'pr2': 'PR2', 'frost': 'FROST'}
#: a ``<joint>`` or ``<actuator>`` record of a transmission
_End = TypeVar('_End', JointInfo, ActuatorInfo)


class SimpleReading(NamedTuple):
    """Parameters of a SimpleTransmission read from a record."""

    reduction: float
    joint_offset: float
    joint_names: tuple[str, ...]
    actuator_names: tuple[str, ...]


class CoupledReading(NamedTuple):
    """Parameters of a 2x2 transmission read from a record, in role order."""

    actuator_reduction: tuple[float, float]
    joint_reduction: tuple[float, float]
    joint_offset: tuple[float, float]
    joint_names: tuple[str, ...]
    actuator_names: tuple[str, ...]


def lenient_problem(info: TransmissionInfo, error: UrdfTransmissionError, fallback: str) -> None:
    """
    Raise ``error`` in strict mode; in lenient mode warn that ``fallback`` is used instead.

    The warning is a :class:`~transmission_plugins.TransmissionWarning` carrying a
    :class:`~transmission_plugins.LoadWarning` at the error's path; the plugin loader records it
    with the load.
    """
    if not info.lenient:
        raise error
    warnings.warn(TransmissionWarning(LoadWarning(
        error.path, f'{error.message}; {fallback} (lenient mode)', error.line)), stacklevel=3)


# ---------------------------------------------------------------------------------- helpers
def _exactly(info: TransmissionInfo, items: Sequence[_End], count: int, side: str) -> None:
    if len(items) < count:
        names = [i.name for i in items]
        raise IncompleteTransmissionError(
            info.path, f'{info.type} needs exactly {count} <{side}> element(s), got '
            f'{len(items)}{" " + str(names) if names else ""}', info.line)
    if len(items) > count:
        raise BadValueError(
            items[count].path, f'{info.type} needs exactly {count} <{side}> element(s), got '
            f'{len(items)}: {[i.name for i in items]}', items[count].line)


def _role_path(end: JointInfo | ActuatorInfo) -> str:
    return value_origin(end, 'role', ROLE_TAG).path


def order_by_role(info: TransmissionInfo, items: Sequence[_End], roles: Sequence[str],
                  side: str) -> list[_End]:
    """
    Return ``items`` (JointInfo or ActuatorInfo) sorted by role, or in XML order without roles.

    :raises UrdfTransmissionError: a role is missing (while others are given), empty, unknown
        or used twice (lenient mode: XML order with a warning)
    """
    given = [i.role for i in items]
    if all(r is None for r in given):
        return list(items)
    seen: list[str | None] = []
    for item in items:
        expected = f"expected one of {', '.join(repr(r) for r in roles)}"
        error: UrdfTransmissionError | None = None
        if item.role is None:
            error = IncompleteTransmissionError(
                _role_path(item), f'{side} {item.name!r} has no role while other {side}s have '
                f'one; {expected}', item.line)
        elif item.role == '':
            error = BadValueError(_role_path(item), f'{side} {item.name!r} has an empty role; '
                                  f'{expected}', item.line)
        elif item.role not in roles:
            error = BadValueError(_role_path(item), f'{side} {item.name!r} has role '
                                  f'{item.role!r}; {expected}', item.line)
        elif item.role in seen:
            error = BadValueError(_role_path(item), f'role {item.role!r} is given to more than '
                                  f'one {side}', item.line)
        if error is not None:
            lenient_problem(info, error, f'using the XML order of the {side}s')
            return list(items)
        seen.append(item.role)
    return sorted(items, key=lambda i: roles.index(i.role))


def _unused(info: TransmissionInfo, origin: Origin, value: float | None, neutral: float,
            why: str, expected: str | None = None) -> None:
    """Reject a value the dialect's reference loader would ignore, unless it is neutral."""
    if value is None or value == neutral:
        return
    lenient_problem(info, BadValueError(
        origin.path, f'{why}; the value {value!r} would be ignored'
        f'{f" (expected {expected})" if expected else ""}', info.line), 'ignored')


def value_origin(record: JointInfo | ActuatorInfo | TransmissionInfo, field: str,
                 tag: str) -> Origin:
    """
    Return where ``record``'s ``field`` was read, from its ``origins``.

    For a value the text does not give: where a reader would read it, the child ``tag`` of the
    record's element (``given`` False, the line of that element).
    """
    origin = record.origins.get(field)
    if origin is not None:
        return origin
    return Origin(f'{record.path}/{tag}', record.line, given=False)


def reduction_tag(info: TransmissionInfo) -> str:
    """Return the spelling of a reduction element in the dialect of ``info``."""
    return REDUCTION_TAGS[1] if info.dialect == DIALECT_ROS2_CONTROL else REDUCTION_TAGS[0]


def reduction_origin(info: TransmissionInfo,
                     record: JointInfo | ActuatorInfo | TransmissionInfo) -> Origin:
    """Return where the reduction of ``record`` (an end of ``info``, or ``info``) is read."""
    return value_origin(record, 'mechanical_reduction', reduction_tag(info))


def simple_reduction_source(
        info: TransmissionInfo) -> tuple[JointInfo | ActuatorInfo | TransmissionInfo, Origin]:
    """
    Return the record whose reduction a SimpleTransmission reads, and where it is read.

    ros2_control: the joint's; the other dialects: the actuator's, else the one written
    directly under ``<transmission>`` (PR2), else (missing) the actuator's.  The rewriter
    writes a corrected reduction at that origin, so it goes where this reader reads it.
    """
    joint, actuator = info.joints[0], info.actuators[0]
    if info.dialect == DIALECT_ROS2_CONTROL:
        return joint, reduction_origin(info, joint)
    if actuator.mechanical_reduction is None and info.mechanical_reduction is not None:
        return info, reduction_origin(info, info)
    return actuator, reduction_origin(info, actuator)


# ---------------------------------------------------------------------------------- readers
def read_simple(info: TransmissionInfo) -> SimpleReading:
    """
    Read a SimpleTransmission (one joint, one actuator) from any dialect.

    Where the reduction and offset are read: doc/urdf.md.

    :raises UrdfTransmissionError: (a subclass) naming the element path and the bad value
    """
    _exactly(info, info.joints, 1, 'joint')
    _exactly(info, info.actuators, 1, 'actuator')
    joint = info.joints[0]  # any role is fine for one joint (example 8 uses 'joint2')
    actuator = info.actuators[0]
    holder, origin = simple_reduction_source(info)
    reduction = holder.mechanical_reduction
    if info.dialect == DIALECT_ROS2_CONTROL:
        _unused(info, reduction_origin(info, actuator), actuator.mechanical_reduction, 1.0,
                "ros2_control's SimpleTransmission reads only the joint-side "
                '<mechanical_reduction>')
    else:
        if holder is actuator and info.mechanical_reduction not in (None, reduction):
            top = reduction_origin(info, info)
            raise BadValueError(top.path, f'the reduction is given twice with different '
                                f'values: {reduction!r} at {origin.path} and '
                                f'{info.mechanical_reduction!r} here', info.line)
        if reduction is None:
            lenient_problem(info, IncompleteTransmissionError(
                actuator.path, f'actuator {actuator.name!r} has no <mechanicalReduction> (a '
                f'{_DIALECT_NAMES.get(info.dialect, info.dialect)} SimpleTransmission requires '
                'one, on the <actuator>)',
                actuator.line), f'using the default {DEFAULT_REDUCTION!r}')
        _unused(info, reduction_origin(info, joint), joint.mechanical_reduction, 1.0,
                'a ROS 1 SimpleTransmission reads the reduction from the <actuator>, not from '
                'the <joint>')
    _unused(info, value_origin(actuator, 'offset', OFFSET_TAG), actuator.offset, 0.0,
            'the offset is read from the <joint>, not from the <actuator>')
    offset = joint.offset if joint.offset is not None else DEFAULT_OFFSET
    return SimpleReading(DEFAULT_REDUCTION if reduction is None else reduction, offset,
                         (joint.name,), (actuator.name,))


def read_coupled(info: TransmissionInfo, joint_roles: Sequence[str],
                 actuator_roles: Sequence[str]) -> CoupledReading:
    """
    Read a two-actuator, two-joint transmission (Differential, FourBarLinkage) from any dialect.

    Both joints must declare the same hardware interfaces when they declare any (as ROS 1).

    :raises UrdfTransmissionError: (a subclass) naming the element path and the bad value
    """
    _exactly(info, info.joints, 2, 'joint')
    _exactly(info, info.actuators, 2, 'actuator')
    joints = order_by_role(info, info.joints, joint_roles, 'joint')
    actuators = order_by_role(info, info.actuators, actuator_roles, 'actuator')
    actuator_reduction = []
    for actuator in actuators:
        value = actuator.mechanical_reduction
        if value is None:
            if info.dialect != DIALECT_ROS2_CONTROL:
                lenient_problem(info, IncompleteTransmissionError(
                    actuator.path, f'actuator {actuator.name!r} has no <mechanicalReduction> '
                    f'(a ROS 1 {info.type.rsplit("/", 1)[-1]} requires one on each <actuator>)',
                    actuator.line), f'using the default {DEFAULT_REDUCTION!r}')
            value = DEFAULT_REDUCTION
        actuator_reduction.append(value)
        _unused(info, value_origin(actuator, 'offset', OFFSET_TAG), actuator.offset, 0.0,
                'the offset is read from the <joint>, not from the <actuator>')
    _unused(info, reduction_origin(info, info), info.mechanical_reduction, 1.0,
            'a reduction directly under <transmission> is ambiguous for two actuators and two '
            'joints; give it on each <actuator> and <joint>')
    sets = [frozenset(j.interfaces) for j in joints]
    if sets[0] and sets[1] and sets[0] != sets[1]:
        lenient_problem(info, BadValueError(
            joints[1].path, f'joints {joints[0].name!r} and {joints[1].name!r} declare different '
            f'hardware interfaces ({sorted(sets[0])} and {sorted(sets[1])}); both joints of a '
            'coupled transmission need the same set', joints[1].line), 'ignored')
    joint_reduction = tuple(j.mechanical_reduction if j.mechanical_reduction is not None
                            else DEFAULT_REDUCTION for j in joints)
    joint_offset = tuple(j.offset if j.offset is not None else DEFAULT_OFFSET for j in joints)
    return CoupledReading(
        (actuator_reduction[0], actuator_reduction[1]), (joint_reduction[0], joint_reduction[1]),
        (joint_offset[0], joint_offset[1]), tuple(j.name for j in joints),
        tuple(a.name for a in actuators))


# ---------------------------------------------------------------------------------- coupling
ACTUATOR_TO_JOINT_TAG = 'actuator_to_joint'
JOINT_TO_ACTUATOR_TAG = 'joint_to_actuator'
_MATRICES = (ACTUATOR_TO_JOINT_TAG, JOINT_TO_ACTUATOR_TAG)

#: What a ``transmission_plugins/CouplingTransmission`` reads besides the standard elements: its
#: matrices as ``<actuator_to_joint>`` / ``<joint_to_actuator>`` children (any dialect, no
#: attribute, no child element; comments allowed) or as ros2_control ``<param>`` values.
COUPLING_VOCABULARY = UrdfVocabulary(
    extra_children=_MATRICES, params=_MATRICES,
    elements={tag: ElementRule() for tag in _MATRICES})


class CouplingReading(NamedTuple):
    """Parameters of a CouplingTransmission read from a record, in map order."""

    actuator_to_joint: list[list[float]]
    #: None when the URDF leaves it to be derived
    joint_to_actuator: list[list[float]] | None
    joint_offset: tuple[float, ...]
    joint_names: tuple[str, ...]
    actuator_names: tuple[str, ...]
    #: matrix name -> where it was read, for the constructor's errors
    origins: dict[str, Origin]


def _own_text(element: XmlElement) -> str:
    """Return the text of ``element`` without that of its comments (their tails are kept)."""
    parts = [element.text or ''] + [getattr(c, 'tail', None) or '' for c in element]
    return ' '.join(parts)


def _matrix_text(info: TransmissionInfo,
                 tag: str) -> tuple[str, str, int | None] | None:
    """Return ``(text, path, line)`` of the matrix ``tag``: a child element or a ``<param>``."""
    found: list[tuple[str, str, int | None]] = []
    if info.element is not None:
        for child in children(info.element):
            if local_name(child) == tag:
                found.append((_own_text(child), f'{info.path}/{tag}', source_line(child)))
            elif local_name(child) == PARAM_TAG and child.get('name') == tag:
                found.append((_own_text(child), f"{info.path}/{PARAM_TAG}[@name='{tag}']",
                              source_line(child)))
    elif tag in info.params:
        origin = value_origin(info, item_key('params', tag), f"{PARAM_TAG}[@name='{tag}']")
        found.append((info.params[tag], origin.path, origin.line))
    if len(found) > 1:
        raise BadValueError(found[1][1], f'the {tag} matrix is given {len(found)} times '
                            f'(first at {found[0][1]}); expected at most once', found[1][2])
    return found[0] if found else None


def _read_matrix(info: TransmissionInfo, tag: str, rows: Sequence[str], columns: Sequence[str],
                 sides: tuple[str, str]) -> tuple[list[list[float]], str, int | None] | None:
    """Return a matrix (rows of floats) with its path and line, or None when absent."""
    source = _matrix_text(info, tag)
    if source is None:
        return None
    text, path, line = source
    values = parse_numbers(text, path, line=line)
    width = len(columns)
    if len(values) != len(rows) * width:
        shown = ' '.join(text.split())
        shown = shown if len(shown) <= 80 else shown[:77] + '...'
        raise BadValueError(path, f'expected {len(rows) * width} numbers, row-major: '
                            f'{len(rows)} row(s), one per {sides[0]} {list(rows)}, of {width} '
                            f'column(s), one per {sides[1]} {list(columns)}; got {len(values)}: '
                            f'{shown!r}', line)
    return [values[i * width:(i + 1) * width] for i in range(len(rows))], path, line


def read_coupling(info: TransmissionInfo) -> CouplingReading:
    """
    Read a ``transmission_plugins/CouplingTransmission`` (N actuators, M joints), any dialect.

    The rows of ``<actuator_to_joint>`` follow the joints and its columns the actuators
    (row-major, role or XML order), the reverse for the optional ``<joint_to_actuator>``.

    :raises UrdfTransmissionError: (a subclass) naming the element path and the bad value
    """
    for side, items in (('joint', info.joints), ('actuator', info.actuators)):
        if not items:
            raise IncompleteTransmissionError(
                info.path, f'{info.type} needs at least one <{side}> element', info.line)
    joints = order_by_role(info, info.joints,
                           [f'joint{i}' for i in range(1, len(info.joints) + 1)], 'joint')
    actuators = order_by_role(info, info.actuators,
                              [f'actuator{i}' for i in range(1, len(info.actuators) + 1)],
                              'actuator')
    why = 'the coupling matrix holds the whole map, a reduction is not read'
    for end in list(joints) + list(actuators):
        _unused(info, reduction_origin(info, end), end.mechanical_reduction, 1.0, why)
    for actuator in actuators:
        _unused(info, value_origin(actuator, 'offset', OFFSET_TAG), actuator.offset, 0.0,
                'the offset is read from the <joint>, not from the <actuator>')
    _unused(info, reduction_origin(info, info), info.mechanical_reduction, 1.0, why)
    joint_names = tuple(j.name for j in joints)
    actuator_names = tuple(a.name for a in actuators)
    forward = _read_matrix(info, ACTUATOR_TO_JOINT_TAG, joint_names, actuator_names,
                           ('joint', 'actuator'))
    if forward is None:
        raise IncompleteTransmissionError(
            info.path, f'missing <{ACTUATOR_TO_JOINT_TAG}> (or <param name='
            f'"{ACTUATOR_TO_JOINT_TAG}">): the {len(joint_names)} x {len(actuator_names)} '
            'matrix of the joint positions over the actuator positions', info.line)
    backward = _read_matrix(info, JOINT_TO_ACTUATOR_TAG, actuator_names, joint_names,
                            ('actuator', 'joint'))
    origins = {ACTUATOR_TO_JOINT_TAG: Origin(*forward[1:])}
    if backward is not None:
        origins[JOINT_TO_ACTUATOR_TAG] = Origin(*backward[1:])
    return CouplingReading(
        forward[0], None if backward is None else backward[0],
        tuple(j.offset if j.offset is not None else DEFAULT_OFFSET for j in joints),
        joint_names, actuator_names, origins)


# ---------------------------------------------------------------------------------- Shadow
#: sr_mechanism_model's J0 loader names the second joint after the one the URDF gives, with its
#: last character replaced by this digit (``rh_FFJ1`` drives ``rh_FFJ2`` too).
J0_SECOND_JOINT_DIGIT = '2'


def _first_only(info: TransmissionInfo, items: Sequence[_End], side: str) -> _End:
    """Return the first ``<joint>`` or ``<actuator>``, the only one sr_mechanism_model reads."""
    if not items:
        _exactly(info, items, 1, side)  # raises IncompleteTransmissionError
    if len(items) > 1:
        lenient_problem(info, BadValueError(
            items[1].path, f'{info.type} needs exactly 1 <{side}> element(s), got {len(items)}: '
            f"{[i.name for i in items]}; sr_mechanism_model's loader reads only the first",
            items[1].line), f'ignored, using the first, {items[0].name!r}')
    return items[0]


def _shadow_simple_ends(info: TransmissionInfo) -> tuple[JointInfo, ActuatorInfo]:
    """
    Read what sr_mechanism_model's ``SimpleTransmission::initXml`` reads: one joint, one actuator.

    That loader reads the name of the first ``<joint>`` and of the first ``<actuator>`` and
    nothing else (the J0 loaders call it first), so a reduction other than 1, an offset other
    than 0 or a second ``<joint>`` or ``<actuator>`` is an error (lenient mode: ignored with a
    warning, as the loader ignores it).
    """
    joint = _first_only(info, info.joints, 'joint')
    actuator = _first_only(info, info.actuators, 'actuator')
    why = f'{info.type} reads no reduction (its map is fixed)'
    for end in (joint, actuator):
        origin = reduction_origin(info, end)
        _unused(info, origin, end.mechanical_reduction, 1.0, why, f'1 or no <{origin.tag}>')
        _unused(info, value_origin(end, 'offset', OFFSET_TAG), end.offset, 0.0,
                f'{info.type} reads no offset (its map is fixed)', '0 or no <offset>')
    top = reduction_origin(info, info)
    _unused(info, top, info.mechanical_reduction, 1.0, why, f'1 or no <{top.tag}>')
    return joint, actuator


def read_shadow_simple(info: TransmissionInfo) -> tuple[tuple[str], tuple[str]]:
    """
    Read a ``sr_mechanism_model/SimpleTransmission``: one joint equal to one actuator.

    :returns: ``((joint,), (actuator,))``
    :raises UrdfTransmissionError: (a subclass) naming the element path and the bad value
    """
    joint, actuator = _shadow_simple_ends(info)
    return (joint.name,), (actuator.name,)


def read_j0(info: TransmissionInfo) -> tuple[tuple[str, str], tuple[str]]:
    """
    Read a ``sr_mechanism_model/J0Transmission`` (or ``...ForMuscle``): one tendon, two joints.

    As sr_mechanism_model's loader: what :func:`read_shadow_simple` reads (the distal J1 and
    the tendon), then the middle J2 named after J1 with its last character replaced by ``2``,
    which must be a ``<joint>`` of the robot.

    :returns: ``((J1, J2), (actuator,))``
    :raises UrdfTransmissionError: (a subclass) naming the element path and the bad value
    """
    joint, actuator = _shadow_simple_ends(info)
    second = joint.name[:-1] + J0_SECOND_JOINT_DIGIT
    rule = (f'{info.type} drives {joint.name!r} and the joint named like it with the last '
            f'character replaced by {J0_SECOND_JOINT_DIGIT!r} (the rule of sr_mechanism_model'
            f"'s loader), {second!r}")
    if second == joint.name:
        raise BadValueError(f'{joint.path}/@name', f'{rule}: the same joint twice; name the '
                            'distal joint (J1) here', joint.line)
    known = robot_joint_names(info.element) if info.element is not None else None
    if known and second not in known:
        raise BrokenReferenceError(joint.path, f'{rule}, which is not a <joint> of the robot',
                                   joint.line)
    return (joint.name, second), (actuator.name,)
