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

from typing import List
from typing import NamedTuple
from typing import Optional
from typing import Sequence
from typing import Tuple
from typing import TypeVar
from typing import Union
import warnings

from transmission_plugins.core.exceptions import BadValueError
from transmission_plugins.core.exceptions import IncompleteTransmissionError
from transmission_plugins.core.exceptions import LoadWarning
from transmission_plugins.core.exceptions import TransmissionWarning
from transmission_plugins.core.exceptions import UrdfTransmissionError
from transmission_plugins.urdf.elements import local_name
from transmission_plugins.urdf.records import ActuatorInfo
from transmission_plugins.urdf.records import DIALECT_ROS2_CONTROL
from transmission_plugins.urdf.records import JointInfo
from transmission_plugins.urdf.records import TransmissionInfo
from transmission_plugins.urdf.vocabulary import DEFAULT_OFFSET
from transmission_plugins.urdf.vocabulary import DEFAULT_REDUCTION
from transmission_plugins.urdf.vocabulary import REDUCTION_TAGS

_DIALECT_NAMES = {'ros1': 'ROS 1', 'pr2': 'PR2'}
#: a ``<joint>`` or ``<actuator>`` record of a transmission
_End = TypeVar('_End', JointInfo, ActuatorInfo)


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


def _role_path(end: Union[JointInfo, ActuatorInfo]) -> str:
    element = end.element
    if element is not None and element.get('role') is not None:
        return f'{end.path}/@role'
    return f'{end.path}/role'


def order_by_role(info: TransmissionInfo, items: Sequence[_End], roles: Sequence[str],
                  side: str) -> List[_End]:
    """
    Return ``items`` (JointInfo or ActuatorInfo) sorted by role, or in XML order without roles.

    :raises UrdfTransmissionError: a role is missing (while others are given), empty, unknown
        or used twice (lenient mode: XML order with a warning)
    """
    given = [i.role for i in items]
    if all(r is None for r in given):
        return list(items)
    seen: List[Optional[str]] = []
    for item in items:
        expected = f"expected one of {', '.join(repr(r) for r in roles)}"
        error: Optional[UrdfTransmissionError] = None
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


def _unused(info: TransmissionInfo, path: str, value: Optional[float], neutral: float,
            why: str) -> None:
    """Reject a value the dialect's reference loader would ignore, unless it is neutral."""
    if value is None or value == neutral:
        return
    lenient_problem(info, BadValueError(path, f'{why}; the value {value!r} would be ignored',
                                        info.line), 'ignored')


def _value_path(end: Union[JointInfo, ActuatorInfo], tags: Sequence[str]) -> str:
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
            lenient_problem(info, IncompleteTransmissionError(
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
        _unused(info, _value_path(actuator, ('offset',)), actuator.offset, 0.0,
                'the offset is read from the <joint>, not from the <actuator>')
    _unused(info, f'{info.path}/mechanicalReduction', info.mechanical_reduction, 1.0,
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
