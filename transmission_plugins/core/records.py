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

:func:`read_simple` serves ``SimpleTransmission.from_info`` and :func:`read_coupled` serves
``CoupledTransmission.from_info`` (Differential, FourBarLinkage).  Where each dialect keeps the
numbers:

========================  ==========================================  ========================
dialect                   reduction                                   offset
========================  ==========================================  ========================
ros2_control, Simple      joint ``<mechanical_reduction>`` only       joint ``<offset>``
                          (default 1), like ros2_control's loader
ros2_control, 2x2         actuator and joint ``<mechanical_reduction>``  joint ``<offset>``
                          (default 1 each)
ROS 1, Simple             actuator ``<mechanicalReduction>``,         joint ``<offset>``
                          required (as the ROS 1 loader)
ROS 1, 2x2                actuator (required) and joint (default 1)   joint ``<offset>``
PR2 (type attribute)      ``<mechanicalReduction>`` under             joint ``<offset>``
                          ``<transmission>`` (or on the actuator)
========================  ==========================================  ========================

A value the reference loader would silently ignore (an actuator-side reduction in ros2_control's
Simple, a joint-side one in ROS 1's Simple, an actuator offset) is an error when it would change
the map (not 1, resp. not 0).  Missing required values, bad roles and ignored values become
defaults with a warning (``warnings.warn``, recorded by the plugin loader) when ``info.lenient``
is set.  Roles order the joints and actuators (``joint1``, ``joint2``...); without any role the
XML order is used.
"""

from typing import Any
from typing import List
from typing import NamedTuple
from typing import Optional
from typing import Sequence
from typing import Tuple
import warnings

from transmission_plugins.core.elements import local_name
from transmission_plugins.core.elements import namespace
from transmission_plugins.core.elements import source_line
from transmission_plugins.core.exceptions import BadValueError
from transmission_plugins.core.exceptions import IncompleteTransmissionError
from transmission_plugins.core.info import DIALECT_ROS2_CONTROL
from transmission_plugins.core.info import TransmissionInfo
from transmission_plugins.core.vocabulary import ACTUATOR_PARAMS
from transmission_plugins.core.vocabulary import DEFAULT_OFFSET
from transmission_plugins.core.vocabulary import DEFAULT_REDUCTION
from transmission_plugins.core.vocabulary import DRAKE_ACTUATOR_TAGS
from transmission_plugins.core.vocabulary import JOINT_ATTRIBUTES
from transmission_plugins.core.vocabulary import JOINT_CHILDREN
from transmission_plugins.core.vocabulary import REDUCTION_TAGS

#: Children of a ``<transmission>`` that SimpleTransmission accepts and ignores: PR2 belt
#: compensator and Gazebo screw joint, diffbot ``motorTorqueConstant``, ROS 1
#: ``transmissionInterface``.  None of them changes the kinematic map.
SIMPLE_IGNORED_CHILDREN = ('compensator', 'simulated_actuated_joint', 'motorTorqueConstant',
                           'transmissionInterface')


_DIALECT_NAMES = {'ros1': 'ROS 1', 'pr2': 'PR2'}


class SimpleReading(NamedTuple):
    """Parameters of a SimpleTransmission read from a record."""

    reduction: float
    joint_offset: float
    joint_names: Tuple[str, ...]
    actuator_names: Tuple[str, ...]


class CoupledReading(NamedTuple):
    """Parameters of a 2x2 transmission read from a record, in role order."""

    actuator_reduction: Tuple[float, float]
    joint_reduction: Tuple[float, float]
    joint_offset: Tuple[float, float]
    joint_names: Tuple[str, ...]
    actuator_names: Tuple[str, ...]


def lenient_warning(message: str) -> None:
    """Report a lenient-mode replacement; the plugin loader records it with the load."""
    warnings.warn(message, UserWarning, stacklevel=3)


def _problem(info: TransmissionInfo, error: Exception, fallback: str) -> None:
    """Raise ``error`` in strict mode; warn that ``fallback`` is used in lenient mode."""
    if not info.lenient:
        raise error
    lenient_warning(f'{error}; {fallback} (lenient mode)')


# ---------------------------------------------------------------------------------- consumption
def parser_consumed(info: TransmissionInfo) -> Tuple[Tuple[str, ...], Tuple[str, ...]]:
    """Return the ``<transmission>`` children and attributes the parser read for ``info``."""
    if info.dialect == DIALECT_ROS2_CONTROL:
        return ('plugin', 'param', 'joint', 'actuator'), ('name',)
    return ('type', 'joint', 'actuator') + REDUCTION_TAGS, ('name', 'type')


def check_consumed(info: TransmissionInfo, *, children: Sequence[str] = (),
                   attributes: Sequence[str] = (), joint_children: Sequence[str] = (),
                   actuator_children: Sequence[str] = (), params: Sequence[str] = ()) -> None:
    """
    Reject what neither the parser nor the plugin reads in ``info.element``.

    :param children: extra ``<transmission>`` children the plugin reads (or knowingly ignores)
    :param attributes: extra ``<transmission>`` attributes
    :param joint_children: extra children of ``<joint>``; ``actuator_children`` of ``<actuator>``
    :param params: ``<param name>`` values (ros2_control) the plugin reads
    :raises BadValueError: naming the unexpected element or attribute and what is accepted
        (a warning instead when ``info.lenient``)
    """
    element = info.element
    if element is None:
        return
    urdf_ns = namespace(element)
    own_children, own_attributes = parser_consumed(info)
    _check_attributes(info, element, info.path, own_attributes + tuple(attributes))
    allowed = own_children + tuple(children)
    for child in element:
        tag = local_name(child)
        if not tag:
            continue
        path = f'{info.path}/{tag}'
        if namespace(child) != urdf_ns or tag not in allowed:
            _unexpected(info, child, path, allowed)
        elif tag == 'param' and 'param' in own_children:
            name = child.get('name')
            if name not in params:
                expected = ', '.join(params) if params else 'none'
                _problem(info, BadValueError(
                    f"{path}[@name='{name}']", f'parameter {name!r} is not read by {info.type} '
                    f'(parameters it reads: {expected})', source_line(child)), 'ignored')
        elif tag == 'joint':
            _check_end(info, child, JOINT_CHILDREN + tuple(joint_children), urdf_ns)
        elif tag == 'actuator':
            _check_end(info, child, JOINT_CHILDREN + tuple(actuator_children), urdf_ns,
                       actuator=True)


def _end_path(info: TransmissionInfo, element: Any) -> str:
    for end in info.joints + info.actuators:
        if end.element is element:
            return end.path
    return f'{info.path}/{local_name(element)}'


def _check_end(info: TransmissionInfo, element: Any, allowed: Sequence[str], urdf_ns: str,
               actuator: bool = False) -> None:
    path = _end_path(info, element)
    _check_attributes(info, element, path, JOINT_ATTRIBUTES)
    for child in element:
        tag = local_name(child)
        if not tag:
            continue
        if actuator and tag in DRAKE_ACTUATOR_TAGS:
            continue
        if actuator and namespace(child) == urdf_ns and tag == 'param' \
                and child.get('name') in ACTUATOR_PARAMS:
            continue
        if namespace(child) != urdf_ns or tag not in allowed:
            shown = tuple(allowed) + (('drake:' + ', drake:'.join(DRAKE_ACTUATOR_TAGS),)
                                      if actuator else ())
            _unexpected(info, child, f'{path}/{tag}', shown)


def _check_attributes(info: TransmissionInfo, element: Any, path: str,
                      allowed: Sequence[str]) -> None:
    for attribute in element.attrib:
        if attribute not in allowed:
            _problem(info, BadValueError(
                f'{path}/@{attribute}', f'unexpected attribute {attribute!r} for {info.type}; '
                f'expected only {", ".join(allowed)}', source_line(element)), 'ignored')


def _unexpected(info: TransmissionInfo, child: Any, path: str, allowed: Sequence[str]) -> None:
    shown = ', '.join(a if a.startswith('drake:') else f'<{a}>' for a in allowed)
    _problem(info, BadValueError(
        path, f'unexpected element <{local_name(child)}> for {info.type}; expected only '
        f'{shown}', source_line(child)), 'ignored')


# ---------------------------------------------------------------------------------- helpers
def _exactly(info: TransmissionInfo, items: Sequence[Any], count: int, side: str) -> None:
    if len(items) < count:
        names = [i.name for i in items]
        raise IncompleteTransmissionError(
            info.path, f'{info.type} needs exactly {count} <{side}> element(s), got '
            f'{len(items)}{" " + str(names) if names else ""}', info.line)
    if len(items) > count:
        raise BadValueError(
            items[count].path, f'{info.type} needs exactly {count} <{side}> element(s), got '
            f'{len(items)}: {[i.name for i in items]}', items[count].line)


def _role_path(end: Any) -> str:
    element = end.element
    if element is not None and element.get('role') is not None:
        return f'{end.path}/@role'
    return f'{end.path}/role'


def order_by_role(info: TransmissionInfo, items: Sequence[Any], roles: Sequence[str],
                  side: str) -> List[Any]:
    """
    Return ``items`` (JointInfo or ActuatorInfo) sorted by role, or in XML order without roles.

    :raises UrdfTransmissionError: a role is missing (while others are given), empty, unknown
        or used twice (lenient mode: XML order with a warning)
    """
    given = [i.role for i in items]
    if all(r is None for r in given):
        return list(items)
    seen: List[str] = []
    for item in items:
        expected = f"expected one of {', '.join(repr(r) for r in roles)}"
        error: Optional[Exception] = None
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
            _problem(info, error, f'using the XML order of the {side}s')
            return list(items)
        seen.append(item.role)
    return sorted(items, key=lambda i: roles.index(i.role))


def _unused(info: TransmissionInfo, path: str, value: Optional[float], neutral: float,
            why: str) -> None:
    """Reject a value the dialect's reference loader would ignore, unless it is neutral."""
    if value is None or value == neutral:
        return
    _problem(info, BadValueError(path, f'{why}; the value {value!r} would be ignored',
                                 info.line), 'ignored')


def _value_path(end: Any, tags: Sequence[str]) -> str:
    element = end.element
    if element is not None:
        for child in element:
            if local_name(child) in tags:
                return f'{end.path}/{local_name(child)}'
    return f'{end.path}/{tags[0]}'


# ---------------------------------------------------------------------------------- readers
def read_simple(info: TransmissionInfo) -> SimpleReading:
    """
    Read a SimpleTransmission (one joint, one actuator) from any dialect.

    See the module docstring for where the reduction and offset are read.

    :raises UrdfTransmissionError: (a subclass) naming the element path and the bad value
    """
    check_consumed(info, children=SIMPLE_IGNORED_CHILDREN)
    _exactly(info, info.joints, 1, 'joint')
    _exactly(info, info.actuators, 1, 'actuator')
    joint = info.joints[0]  # any role is fine for one joint (example 8 uses 'joint2')
    actuator = info.actuators[0]
    if info.dialect == DIALECT_ROS2_CONTROL:
        reduction = (joint.mechanical_reduction if joint.mechanical_reduction is not None
                     else DEFAULT_REDUCTION)
        _unused(info, _value_path(actuator, REDUCTION_TAGS), actuator.mechanical_reduction, 1.0,
                "ros2_control's SimpleTransmission reads only the joint-side "
                '<mechanical_reduction>')
    else:
        sources = [(p, v) for p, v in (
            (_value_path(actuator, REDUCTION_TAGS), actuator.mechanical_reduction),
            (f'{info.path}/mechanicalReduction', info.mechanical_reduction)) if v is not None]
        if len(sources) == 2 and sources[0][1] != sources[1][1]:
            raise BadValueError(sources[1][0], f'the reduction is given twice with different '
                                f'values: {sources[0][1]!r} at {sources[0][0]} and '
                                f'{sources[1][1]!r} here', info.line)
        if sources:
            reduction = sources[0][1]
        else:
            _problem(info, IncompleteTransmissionError(
                actuator.path, f'actuator {actuator.name!r} has no <mechanicalReduction> (a '
                f'{_DIALECT_NAMES.get(info.dialect, info.dialect)} SimpleTransmission requires '
                'one, on the <actuator>)',
                actuator.line), f'using the default {DEFAULT_REDUCTION!r}')
            reduction = DEFAULT_REDUCTION
        _unused(info, _value_path(joint, REDUCTION_TAGS), joint.mechanical_reduction, 1.0,
                'a ROS 1 SimpleTransmission reads the reduction from the <actuator>, not from '
                'the <joint>')
    _unused(info, _value_path(actuator, ('offset',)), actuator.offset, 0.0,
            'the offset is read from the <joint>, not from the <actuator>')
    offset = joint.offset if joint.offset is not None else DEFAULT_OFFSET
    return SimpleReading(reduction, offset, (joint.name,), (actuator.name,))


def read_coupled(info: TransmissionInfo, joint_roles: Sequence[str],
                 actuator_roles: Sequence[str]) -> CoupledReading:
    """
    Read a two-actuator, two-joint transmission (Differential, FourBarLinkage) from any dialect.

    Joints and actuators are ordered by role; actuator reductions are required outside
    ros2_control (as the ROS 1 loaders), joint reductions default to 1 and offsets to 0; both
    joints must declare the same hardware interfaces when they declare any (as ROS 1).

    :raises UrdfTransmissionError: (a subclass) naming the element path and the bad value
    """
    check_consumed(info)
    _exactly(info, info.joints, 2, 'joint')
    _exactly(info, info.actuators, 2, 'actuator')
    joints = order_by_role(info, info.joints, joint_roles, 'joint')
    actuators = order_by_role(info, info.actuators, actuator_roles, 'actuator')
    actuator_reduction = []
    for actuator in actuators:
        value = actuator.mechanical_reduction
        if value is None:
            if info.dialect != DIALECT_ROS2_CONTROL:
                _problem(info, IncompleteTransmissionError(
                    actuator.path, f'actuator {actuator.name!r} has no <mechanicalReduction> '
                    f'(a ROS 1 {info.type.rsplit("/", 1)[-1]} requires one on each <actuator>)',
                    actuator.line), f'using the default {DEFAULT_REDUCTION!r}')
            value = DEFAULT_REDUCTION
        actuator_reduction.append(value)
        _unused(info, _value_path(actuator, ('offset',)), actuator.offset, 0.0,
                'the offset is read from the <joint>, not from the <actuator>')
    _unused(info, f'{info.path}/mechanicalReduction', info.mechanical_reduction, 1.0,
            'a reduction directly under <transmission> is ambiguous for two actuators and two '
            'joints; give it on each <actuator> and <joint>')
    sets = [frozenset(j.interfaces) for j in joints]
    if sets[0] and sets[1] and sets[0] != sets[1]:
        _problem(info, BadValueError(
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
