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
Read the ``<transmission>`` elements of a URDF, whatever their dialect, into records.

:func:`parse_transmissions` turns URDF text into a :class:`ParseResult` with one
:class:`~transmission_plugins.urdf.records.TransmissionInfo` per transmission.  The dialects
(``ros2_control``, ``ros1``, ``pr2``, ``frost``, told apart per transmission; ros2_control
hardware parameters read by :mod:`~.hardware_parameters`), which transmissions are read
(``source``) and what strict and lenient mode do are doc/urdf.md's "Supported dialects" and
"Strict and lenient".  Exact duplicates (same name and mapping) are merged with a warning.
"""

from dataclasses import dataclass
from dataclasses import field
from dataclasses import replace
from typing import Any
from typing import Callable
from typing import Mapping
from typing import Sequence

from transmission_plugins.core.exceptions import BadValueError
from transmission_plugins.core.exceptions import BrokenReferenceError
from transmission_plugins.core.exceptions import IncompleteTransmissionError
from transmission_plugins.core.exceptions import LoadWarning
from transmission_plugins.core.exceptions import TransmissionValueError
from transmission_plugins.core.exceptions import UrdfTransmissionError
from transmission_plugins.core.findings import DUPLICATE_NAME
from transmission_plugins.core.findings import Finding
from transmission_plugins.urdf.actuator_tags import read_actuator_extensions
from transmission_plugins.urdf.drivetrain_elements import read_backlash
from transmission_plugins.urdf.drivetrain_elements import read_friction
from transmission_plugins.urdf.drivetrain_elements import read_motor
from transmission_plugins.urdf.elements import child_path
from transmission_plugins.urdf.elements import local_name
from transmission_plugins.urdf.elements import namespace
from transmission_plugins.urdf.elements import parse_float
from transmission_plugins.urdf.elements import require_attribute
from transmission_plugins.urdf.elements import require_name
from transmission_plugins.urdf.elements import source_line
from transmission_plugins.urdf.elements import XmlElement
from transmission_plugins.urdf.hardware_parameters import has_hardware_transmissions
from transmission_plugins.urdf.hardware_parameters import read_hardware_transmissions
from transmission_plugins.urdf.records import ActuatorInfo
from transmission_plugins.urdf.records import DIALECT_FROST
from transmission_plugins.urdf.records import DIALECT_PR2
from transmission_plugins.urdf.records import DIALECT_ROS1
from transmission_plugins.urdf.records import DIALECT_ROS2_CONTROL
from transmission_plugins.urdf.records import item_key
from transmission_plugins.urdf.records import JointInfo
from transmission_plugins.urdf.records import Origin
from transmission_plugins.urdf.records import TransmissionInfo
from transmission_plugins.urdf.text import parse_xml
from transmission_plugins.urdf.vocabulary import ACTUATOR_TAG
from transmission_plugins.urdf.vocabulary import DEFAULT_OFFSET
from transmission_plugins.urdf.vocabulary import DEFAULT_REDUCTION
from transmission_plugins.urdf.vocabulary import HARDWARE_INTERFACE_PREFIX
from transmission_plugins.urdf.vocabulary import HARDWARE_INTERFACE_TAG
from transmission_plugins.urdf.vocabulary import JOINT_TAG
from transmission_plugins.urdf.vocabulary import MOTOR_INERTIA_TAG
from transmission_plugins.urdf.vocabulary import OFFSET_TAG
from transmission_plugins.urdf.vocabulary import PARAM_TAG
from transmission_plugins.urdf.vocabulary import PLUGIN_TAG
from transmission_plugins.urdf.vocabulary import REDUCTION_TAGS
from transmission_plugins.urdf.vocabulary import ROBOT_TAG
from transmission_plugins.urdf.vocabulary import ROLE_TAG
from transmission_plugins.urdf.vocabulary import ROS2_CONTROL_TAG
from transmission_plugins.urdf.vocabulary import TRANSMISSION_TAG
from transmission_plugins.urdf.vocabulary import TYPE_TAG


# ------------------------------------------------------------------------------ parse state
class ParseContext:
    """Parse-wide state: lenient flag, warnings, the URDF namespace."""

    def __init__(self, lenient: bool, urdf_namespace: str) -> None:
        self.lenient = lenient
        self.ns = urdf_namespace
        self.warnings: list[LoadWarning] = []

    def warn(self, path: str, message: str, line: int | None = None) -> None:
        """Record a warning about the element at ``path``."""
        self.warnings.append(LoadWarning(path, message, line))

    def children(self, element: XmlElement, name: str | None = None) -> list[XmlElement]:
        """Return the URDF-namespace child elements, optionally only those named ``name``."""
        return [c for c in element if local_name(c) and namespace(c) == self.ns
                and (name is None or local_name(c) == name)]


def single_child_of(ctx: ParseContext, element: XmlElement, path: str,
                    tags: Sequence[str]) -> XmlElement | None:
    """Return the only child named one of ``tags`` (spellings of one value), or None."""
    found = [c for c in ctx.children(element) if local_name(c) in tags]
    if len(found) > 1:
        spelled = ', '.join(f'<{local_name(c)}>' for c in found)
        raise BadValueError(f'{path}/{local_name(found[1])}', f'the value is given '
                            f'{len(found)} times ({spelled}); expected at most once',
                            source_line(found[1]))
    return found[0] if found else None


def element_text(element: XmlElement) -> str:
    return (element.text or '').strip()


def read_number(ctx: ParseContext, text: str, path: str, line: int | None, *, default: float,
                nonzero: bool = False) -> float:
    """Parse strictly; in lenient mode fall back to ``default`` with a warning."""
    try:
        return parse_float(text, path, nonzero=nonzero, line=line)
    except BadValueError as e:
        if not ctx.lenient:
            raise
        ctx.warn(e.path, f'{e.message}; using the default {default!r} (lenient mode)', line)
        return default


# ----------------------------------------------------------------- <joint> and <actuator>
def read_role(ctx: ParseContext, element: XmlElement, path: str,
              origins: dict[str, Origin]) -> str | None:
    """Return the role (attribute or ``<role>``), recording its origin in ``origins``."""
    attribute = element.get('role')
    role_element = single_child_of(ctx, element, path, (ROLE_TAG,))
    if attribute is not None:  # the attribute names the role's place, also when both agree
        origins['role'] = Origin(f'{path}/@role', source_line(element))
    if role_element is None:
        return attribute.strip() if attribute is not None else None
    text = element_text(role_element)
    if attribute is not None and attribute.strip() != text:
        raise BadValueError(f'{path}/{ROLE_TAG}', f'role attribute {attribute!r} and <role> '
                            f'element {text!r} disagree', source_line(role_element))
    origins.setdefault('role', Origin(f'{path}/{ROLE_TAG}', source_line(role_element)))
    return text


def read_bool(element: XmlElement, path: str, attribute: str) -> bool:
    value = element.get(attribute)
    if value is None:
        return False
    if value.strip().lower() in ('true', '1'):
        return True
    if value.strip().lower() in ('false', '0'):
        return False
    raise BadValueError(f'{path}/@{attribute}', f"expected 'true' or 'false', got {value!r}",
                        source_line(element))


def read_interfaces(ctx: ParseContext, element: XmlElement, path: str,
                    origins: dict[str, Origin]) -> tuple[str, ...]:
    """Return the ``<hardwareInterface>`` names, normalised, recording their origins."""
    names: list[str] = []
    for child in ctx.children(element, HARDWARE_INTERFACE_TAG):
        text = element_text(child)
        if not text:
            if not ctx.lenient:
                raise BadValueError(f'{path}/{HARDWARE_INTERFACE_TAG}', 'the '
                                    '<hardwareInterface> element is empty', source_line(child))
            ctx.warn(f'{path}/{HARDWARE_INTERFACE_TAG}', 'empty <hardwareInterface> ignored '
                     '(lenient mode)', source_line(child))
            continue
        if '/' not in text:
            text = HARDWARE_INTERFACE_PREFIX + text
        if text not in names:
            names.append(text)
            origins[item_key('interfaces', text)] = Origin(f'{path}/{HARDWARE_INTERFACE_TAG}',
                                                           source_line(child))
    return tuple(names)


def read_value(ctx: ParseContext, element: XmlElement, path: str, tags: Sequence[str],
               key: str, origins: dict[str, Origin], *, default: float,
               nonzero: bool) -> float | None:
    """Return the number of the one child named one of ``tags``; its origin goes to ``key``."""
    child = single_child_of(ctx, element, path, tags)
    if child is None:
        return None
    origin = Origin(f'{path}/{local_name(child)}', source_line(child))
    origins[key] = origin
    return read_number(ctx, element_text(child), origin.path, origin.line, default=default,
                       nonzero=nonzero)


def read_end(ctx: ParseContext, element: XmlElement, path: str,
             default_name: str | None = None) -> dict[str, Any]:
    """Read what ``<joint>`` and ``<actuator>`` have in common (``default_name``: if nameless)."""
    nameless = default_name is not None and element.get('name') is None
    origins: dict[str, Origin] = {}
    return {
        'name': default_name if nameless else require_name(element, path),
        **({'implicit': True} if nameless else {}),
        'role': read_role(ctx, element, path, origins),
        'mechanical_reduction': read_value(ctx, element, path, REDUCTION_TAGS,
                                           'mechanical_reduction', origins,
                                           default=DEFAULT_REDUCTION, nonzero=True),
        'offset': read_value(ctx, element, path, (OFFSET_TAG,), 'offset', origins,
                             default=DEFAULT_OFFSET, nonzero=False),
        'interfaces': read_interfaces(ctx, element, path, origins),
        'read_only': read_bool(element, path, 'read_only'),
        **read_lenient(ctx, read_friction, element, path, origins, 'the friction'),
        **read_lenient(ctx, read_backlash, element, path, origins, 'the backlash'),
        'path': path,
        'line': source_line(element),
        'element': element,
        'origins': origins,
    }


def read_lenient(ctx: ParseContext, read: Callable[..., dict[str, Any]], element: XmlElement,
                 path: str, origins: dict[str, Origin], what: str) -> dict[str, Any]:
    """
    Return ``read(element, path, origins)``; in lenient mode a bad value ignores ``what``.

    ``origins`` receives the places of the values read only when the reading succeeds: what
    lenient mode ignores has no origin.
    """
    read_here: dict[str, Origin] = {}
    try:
        out = read(element, path, read_here)
        origins.update(read_here)
        return out
    except UrdfTransmissionError as e:
        if not ctx.lenient:
            raise
        ctx.warnings.append(LoadWarning(e.path, f'{e.message}; {what} ignored (lenient mode)',
                                        e.line))
        return {}


def read_actuator_data(ctx: ParseContext, element: XmlElement, path: str,
                       origins: dict[str, Origin]) -> dict[str, Any]:
    """Read an actuator's Drake tags, ros2_control ``<param>`` values and ``<motor>``."""
    return {**read_lenient(ctx, read_actuator_extensions, element, path, origins,
                           'actuator data (rotor inertia, gear ratio, effort limit, gains)'),
            **read_lenient(ctx, read_motor, element, path, origins, 'the motor')}


# ---------------------------------------------------------------------------------- dialects
#: ``source`` values of :func:`parse_transmissions`.
SOURCE_AUTO = 'auto'

SOURCE_ROS2_CONTROL = 'ros2_control'

SOURCE_ROBOT = 'robot'

SOURCE_ALL = 'all'

SOURCES = (SOURCE_AUTO, SOURCE_ROS2_CONTROL, SOURCE_ROBOT, SOURCE_ALL)


@dataclass
class ParseResult:
    """What :func:`parse_transmissions` found in a URDF."""

    #: the transmissions read, in document order (exact duplicates merged)
    transmissions: list[TransmissionInfo]
    #: merged duplicates, ignored robot-level transmissions, lenient-mode replacements and skips
    warnings: list[LoadWarning]
    #: ``<robot name>`` ('' when absent)
    robot_name: str
    #: names of the top-level ``<joint>`` elements, in document order
    joint_names: list[str]
    #: where the transmissions came from: ``'ros2_control'``, ``'robot'`` or ``'all'``
    source: str
    lenient: bool = False
    #: all ``<transmission>`` elements of the document, robot level and ros2_control blocks
    element_count: int = 0
    #: the parsed ``<robot>`` element (lxml)
    root: XmlElement | None = field(default=None, repr=False, compare=False)


#: a ``<transmission>`` found: the element, its ``<ros2_control>`` block (None at robot level),
#: its path and the block's path; or ``(None, block, '', block path)`` for the transmissions of
#: the block's hardware parameters
_Found = tuple[XmlElement | None, XmlElement | None, str, str]


# ---------------------------------------------------------------------------------- parsing
def parse_transmissions(xml_text: str | bytes, *, lenient: bool = False,
                        source: str = SOURCE_AUTO) -> ParseResult:
    """
    Read every ``<transmission>`` of a URDF into :class:`TransmissionInfo` records.

    :param xml_text: the URDF XML (see :func:`read_urdf_text` for files and xacro)
    :param source: ``'auto'``, ``'ros2_control'``, ``'robot'`` or ``'all'`` (module docstring)
    :raises UrdfTransmissionError: (a subclass) naming the element path and the bad value
    """
    if source not in SOURCES:
        raise TransmissionValueError('source', source, f'one of {", ".join(SOURCES)}',
                                     'parse_transmissions')
    root = parse_xml(xml_text)
    ctx = ParseContext(lenient, namespace(root))
    if local_name(root) != ROBOT_TAG:
        raise BadValueError(f'/{local_name(root)}', f'expected a <robot> root element, got '
                            f'<{local_name(root)}>', source_line(root))
    robot_name = root.get('name') or ''
    robot_path = child_path('', root, 1)
    top = ctx.children(root)
    joint_names = [n for j in top if local_name(j) == JOINT_TAG and (n := j.get('name'))]

    # (transmission element, enclosing block or None, its path, the block's path)
    robot_level: list[_Found] = []
    in_blocks: list[_Found] = []
    ordered: list[_Found] = []
    robot_count = 0
    block_count = 0
    for element in top:
        if local_name(element) == TRANSMISSION_TAG:
            robot_count += 1
            item: _Found = (element, None, child_path(robot_path, element, robot_count), '')
            robot_level.append(item)
            ordered.append(item)
        elif local_name(element) == ROS2_CONTROL_TAG:
            block_count += 1
            block_path = child_path(robot_path, element, block_count)
            for i, t in enumerate(ctx.children(element, TRANSMISSION_TAG), 1):
                item = (t, element, child_path(block_path, t, i), block_path)
                in_blocks.append(item)
                ordered.append(item)
            if has_hardware_transmissions(element):
                item = (None, element, '', block_path)
                in_blocks.append(item)
                ordered.append(item)

    if source == SOURCE_AUTO:
        source = SOURCE_ROS2_CONTROL if in_blocks else SOURCE_ROBOT
        if in_blocks and robot_level:
            ctx.warn(robot_path, f'{len(robot_level)} robot-level <transmission> element(s) '
                     'ignored because <ros2_control> blocks declare transmissions (as '
                     "ros2_control does); use source='robot' or 'all' to read them")
    selected = {SOURCE_ROS2_CONTROL: in_blocks, SOURCE_ROBOT: robot_level,
                SOURCE_ALL: ordered}[source]

    infos: list[TransmissionInfo] = []
    for found, block, path, block_path in selected:
        try:
            if found is None and block is not None:
                driven = [j.get('name') for t in ctx.children(block, TRANSMISSION_TAG)
                          for j in ctx.children(t, JOINT_TAG)]
                infos.extend(read_hardware_transmissions(
                    block, block_path, [d for d in driven if d], lenient=lenient,
                    findings=ctx.warnings))
            elif found is not None:
                infos.append(_parse_transmission(found, block, path, block_path, ctx))
        except UrdfTransmissionError as e:
            if not lenient:
                raise
            ctx.warnings.append(LoadWarning(e.path, f'skipped (lenient mode): {e.message}',
                                            e.line, text=f'skipped (lenient mode): {e}'))
    infos = merge_duplicates(infos, ctx)
    if infos and not joint_names:
        ctx.warn(robot_path, 'the robot declares no <joint>; the joint names used by '
                 'transmissions cannot be checked')
    elements = [item for item in in_blocks + robot_level if item[0] is not None]
    return ParseResult(infos, ctx.warnings, robot_name, joint_names, source, lenient,
                       len(elements), root)


def _children_paths(parent_path: str,
                    elements: Sequence[XmlElement]) -> list[tuple[XmlElement, str]]:
    return [(e, child_path(parent_path, e, i)) for i, e in enumerate(elements, 1)]


def _read_type(ctx: ParseContext, element: XmlElement, path: str,
               in_block: bool) -> tuple[str, str]:
    """Return ``(dialect, type)`` of a transmission element."""
    type_element = single_child_of(ctx, element, path, (TYPE_TAG,))
    plugin_element = single_child_of(ctx, element, path, (PLUGIN_TAG,))
    attribute = element.get('type')
    if in_block:
        if plugin_element is not None:
            text = element_text(plugin_element)
            if not text:
                raise IncompleteTransmissionError(f'{path}/{PLUGIN_TAG}', 'the <plugin> element '
                                                  'is empty', source_line(plugin_element))
            return DIALECT_ROS2_CONTROL, text
        fallback = element_text(type_element) if type_element is not None else (
            attribute or '').strip()
        if fallback and ctx.lenient:
            ctx.warn(path, f'no <plugin> element; using the ROS 1 type {fallback!r} '
                     '(lenient mode)', source_line(element))
            return DIALECT_ROS2_CONTROL, fallback
        hint = (' (inside <ros2_control> the type is read from <plugin>, not from <type> or a '
                'type attribute)' if fallback else '')
        raise IncompleteTransmissionError(path, f'missing <plugin> element{hint}',
                                          source_line(element))
    if type_element is not None:
        text = element_text(type_element)
        if not text:
            raise IncompleteTransmissionError(f'{path}/{TYPE_TAG}', 'the <type> element is '
                                              'empty', source_line(type_element))
        if attribute is not None and attribute.strip() != text:
            ctx.warn(path, f'type attribute {attribute!r} and <type> element {text!r} '
                     'disagree; using the element', source_line(element))
        return DIALECT_ROS1, text
    if attribute is not None:
        if not attribute.strip():
            raise IncompleteTransmissionError(f'{path}/@type', "attribute 'type' is empty",
                                              source_line(element))
        return DIALECT_PR2, attribute.strip()
    if plugin_element is not None and element_text(plugin_element) and ctx.lenient:
        ctx.warn(path, 'robot-level transmission typed by <plugin>; using it (lenient mode)',
                 source_line(element))
        return DIALECT_ROS1, element_text(plugin_element)
    if plugin_element is None and _frost_shaped(ctx, element):
        return DIALECT_FROST, FROST_TYPE
    why = (' (a <plugin> element names the type only inside a <ros2_control> block, where '
           'ros2_control reads it; a robot-level transmission is read by the ROS 1 rules, which '
           'take the type from <type>: move the transmission into the <ros2_control> block or '
           'write <type> instead of <plugin>)' if plugin_element is not None else '')
    raise IncompleteTransmissionError(path, f'missing <type> element (or type attribute){why}',
                                      source_line(element))


#: The type of a FROST transmission (FROST's Cassie and ATRIAS models: one joint, one motor)
FROST_TYPE = 'transmission_interface/SimpleTransmission'


def _frost_shaped(ctx: ParseContext, element: XmlElement) -> bool:
    """
    Return True for a typeless transmission in FROST's shape.

    FROST's robot models give no type: their transmissions are simple reductions with the rotor
    inertia in ``<motorInertia>`` and may leave the ``<actuator>`` nameless.  A typeless
    transmission without either mark (a forgotten ``<type>``) stays an error.
    """
    actuators = ctx.children(element, ACTUATOR_TAG)
    inertia = ctx.children(element, MOTOR_INERTIA_TAG) or any(
        ctx.children(a, MOTOR_INERTIA_TAG) for a in actuators)
    return bool(inertia) or any(a.get('name') is None for a in actuators)


def _read_params(ctx: ParseContext, element: XmlElement, path: str,
                 origins: dict[str, Origin]) -> dict[str, str]:
    params: dict[str, str] = {}
    for child in ctx.children(element, PARAM_TAG):
        name = require_attribute(child, 'name', f'{path}/{PARAM_TAG}')
        where = f"{path}/{PARAM_TAG}[@name='{name}']"
        if name in params:
            raise BadValueError(where, f'parameter {name!r} is given twice', source_line(child))
        params[name] = element_text(child)
        origins[item_key('params', name)] = Origin(where, source_line(child))
    return params


def _parse_transmission(element: XmlElement, block: XmlElement | None, path: str,
                        block_path: str,
                        ctx: ParseContext) -> TransmissionInfo:
    name = require_name(element, path)
    dialect, type_name = _read_type(ctx, element, path, block is not None)
    joint_paths = dict(_children_paths(path, ctx.children(element, JOINT_TAG)))
    actuator_paths = dict(_children_paths(path, ctx.children(element, ACTUATOR_TAG)))
    joints: list[JointInfo] = []
    actuators: list[ActuatorInfo] = []
    nameless = name if dialect == DIALECT_FROST else None  # FROST: named after its transmission
    for child in ctx.children(element):  # document order, so the first error is reported
        if child in joint_paths:
            joints.append(JointInfo(**read_end(ctx, child, joint_paths[child])))
        elif child in actuator_paths:
            fields = read_end(ctx, child, actuator_paths[child], nameless)
            fields.update(read_actuator_data(ctx, child, actuator_paths[child],
                                             fields['origins']))
            actuators.append(ActuatorInfo(**fields))
    params: dict[str, str] = {}
    origins: dict[str, Origin] = {}
    reduction = None
    block_name = block_type = None
    if block is not None:
        params = _read_params(ctx, element, path, origins)
        block_name = block.get('name')
        block_type = block.get('type')
        block_joints = [j.get('name') for j in ctx.children(block, JOINT_TAG)]
        if block_type == 'actuator' and len(joints) != 1:
            raise BadValueError(path, 'a transmission in a type="actuator" <ros2_control> '
                                f'block drives exactly one joint, got {len(joints)}: '
                                f'{[j.name for j in joints]}', source_line(element))
        for joint in joints:
            if joint.name not in block_joints:
                raise BrokenReferenceError(
                    joint.path, f'joint {joint.name!r} is not a <joint> of its <ros2_control> '
                    f'block {block_name!r} (which has {block_joints})', joint.line)
        if block_type == 'actuator':
            if not actuators:
                actuators.append(ActuatorInfo(
                    name=implicit_actuator_name(block), role='actuator1', path=block_path,
                    line=source_line(block), element=None, implicit=True))
    else:
        reduction = read_value(ctx, element, path, REDUCTION_TAGS, 'mechanical_reduction',
                               origins, default=DEFAULT_REDUCTION, nonzero=True)
        actuators = _motor_inertia(ctx, element, path, actuators)
    return TransmissionInfo(
        name=name, type=type_name, joints=tuple(joints), actuators=tuple(actuators),
        dialect=dialect, params=params, path=path, line=source_line(element), element=element,
        lenient=ctx.lenient, mechanical_reduction=reduction, block=block_name,
        block_type=block_type, origins=origins)


def implicit_actuator_name(block: XmlElement) -> str:
    """
    Return the name of the actuator of a ``type="actuator"`` block's transmission without one.

    ros2_control's actuator component is the actuator: it is named after the block.
    """
    return block.get('name') or 'actuator1'


def _motor_inertia(ctx: ParseContext, element: XmlElement, path: str,
                   actuators: list[ActuatorInfo]) -> list[ActuatorInfo]:
    """Give a ``<motorInertia>`` written directly under ``<transmission>`` to its one actuator."""
    child = single_child_of(ctx, element, path, (MOTOR_INERTIA_TAG,))
    if child is None:
        return actuators
    where = f'{path}/{MOTOR_INERTIA_TAG}'
    line = source_line(child)
    value = read_number(ctx, element_text(child), where, line, default=0.0)
    if value < 0.0:
        raise BadValueError(where, f'expected a rotor inertia >= 0, got {value!r}', line)
    if len(actuators) != 1:
        raise BadValueError(where, 'a <motorInertia> directly under <transmission> is the rotor '
                            'inertia of its one <actuator>; expected exactly one <actuator>, got '
                            f'{len(actuators)}: {[a.name for a in actuators]}', line)
    actuator = actuators[0]
    if actuator.rotor_inertia is not None:
        raise BadValueError(where, f'the rotor inertia of actuator {actuator.name!r} is described '
                            f'twice: {actuator.rotor_inertia!r} in the <actuator> and {value!r} '
                            'here; give it once', line)
    return [replace(actuator, rotor_inertia=value,
                    origins={**actuator.origins, 'rotor_inertia': Origin(where, line)})]


# ---------------------------------------------------------------------------------- duplicates
def _canonical(element: XmlElement) -> tuple[Any, ...]:
    """Return a comparable form of an element, ignoring comments and hardwareInterface."""
    kids = tuple(_canonical(c) for c in element
                 if local_name(c) and local_name(c) != HARDWARE_INTERFACE_TAG)
    return (element.tag, tuple(sorted(element.attrib.items())), (element.text or '').strip(),
            kids)


def mapping_key(info: TransmissionInfo) -> tuple[Any, ...]:
    """Return what must be equal for two records with one name to be the same transmission."""
    element = _canonical(info.element) if info.element is not None else None
    return (info.type, info.dialect, element, tuple(a.name for a in info.actuators),
            info.block_type)


def _merge_ends(first: Sequence[Any], other: Sequence[Any]) -> tuple[Any, ...]:
    merged = []
    for a, b in zip(first, other):
        extra = tuple(i for i in b.interfaces if i not in a.interfaces)
        merged.append(replace(a, interfaces=a.interfaces + extra,
                              origins={**b.origins, **a.origins}) if extra else a)
    return tuple(merged)


def unique_name(name: str, taken: Mapping[str, Any]) -> str:
    """Return ``name#2`` (``#3``...): the first such name not in ``taken``."""
    count = 2
    while f'{name}#{count}' in taken:
        count += 1
    return f'{name}#{count}'


def merge_duplicates(infos: list[TransmissionInfo], ctx: ParseContext) -> list[TransmissionInfo]:
    out: list[TransmissionInfo] = []
    index: dict[str, int] = {}
    merged: dict[str, list[str]] = {}
    for info in infos:
        if info.name not in index:
            index[info.name] = len(out)
            out.append(info)
            continue
        first = out[index[info.name]]
        where = f'{first.path}' + (f' (line {first.line})' if first.line else '')
        if mapping_key(first) != mapping_key(info):
            new = unique_name(info.name, index)
            if not ctx.lenient:
                raise BrokenReferenceError(
                    info.path, f'transmission name {info.name!r} is already used by {where} '
                    f'with a different mapping (lenient mode loads both, this one as {new!r})',
                    info.line)
            # lenient: keep both under distinct names; nothing is dropped without a word
            ctx.warnings.append(Finding(
                DUPLICATE_NAME, info.path, f'transmission name {info.name!r} is already used by '
                f'{where} with a different mapping; strict mode rejects the robot, lenient mode '
                f'loads this one as {new!r}', info.line))
            index[new] = len(out)
            out.append(replace(info, name=new))
            continue
        out[index[info.name]] = replace(first, joints=_merge_ends(first.joints, info.joints),
                                        actuators=_merge_ends(first.actuators, info.actuators))
        merged.setdefault(info.name, [where]).append(
            info.path + (f' (line {info.line})' if info.line else ''))
    for name, places in merged.items():
        text = (f'transmission {name!r} is declared {len(places)} times with the same mapping; '
                'merged (hardware interfaces combined): ' + ', '.join(places))
        first = out[index[name]]
        ctx.warnings.append(LoadWarning(first.path, text, first.line, text=text))
    return out
