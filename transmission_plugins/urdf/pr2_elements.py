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
Readers of the PR2 ``pr2_mechanism_model`` vendor elements (gripper and wrist).

Both read ``info.element`` (the raw ``<transmission>``) and raise
:class:`~transmission_plugins.UrdfTransmissionError` subclasses whose path names the element
and, for attributes, ``/@attribute``.  What each may contain is declared in its vocabulary
(:data:`GRIPPER_VOCABULARY`, :data:`WRIST_VOCABULARY`); everything else is rejected by the
loader's one strict check (:mod:`transmission_plugins.urdf.strict`).
"""

import math
from typing import Any
from typing import Callable
from typing import cast
from typing import NamedTuple
import warnings

from transmission_plugins.core.exceptions import BadValueError
from transmission_plugins.core.exceptions import BrokenReferenceError
from transmission_plugins.core.exceptions import IncompleteTransmissionError
from transmission_plugins.core.exceptions import LoadWarning
from transmission_plugins.core.exceptions import TransmissionValueError
from transmission_plugins.core.exceptions import TransmissionWarning
from transmission_plugins.core.transmission import Transmission
from transmission_plugins.urdf.elements import child_path
from transmission_plugins.urdf.elements import children
from transmission_plugins.urdf.elements import local_name
from transmission_plugins.urdf.elements import number
from transmission_plugins.urdf.elements import one_child
from transmission_plugins.urdf.elements import parse_float
from transmission_plugins.urdf.elements import require_attribute
from transmission_plugins.urdf.elements import require_name
from transmission_plugins.urdf.elements import source_line
from transmission_plugins.urdf.elements import XmlElement
from transmission_plugins.urdf.records import Origin
from transmission_plugins.urdf.records import TransmissionInfo
from transmission_plugins.urdf.records import TransmissionWiring
from transmission_plugins.urdf.vocabulary import ElementRule
from transmission_plugins.urdf.vocabulary import UrdfVocabulary

#: Children of ``<transmission>`` consumed by the parser itself (ROS 1 ``<type>`` form).
_PARSER_CHILDREN = ('type',)

_GAP_JOINT_TAG = 'gap_joint'
_PASSIVE_JOINT_TAG = 'passive_joint'
_SIMULATED_JOINT_TAG = 'simulated_actuated_joint'
_USE_SIMULATED_GRIPPER_TAG = 'use_simulated_gripper_joint'
_ACTUATOR_TAG = 'actuator'
_GAP_REDUCTION_ATTRIBUTE = 'mechanical_reduction'
_SIMULATED_REDUCTION_ATTRIBUTE = 'simulated_reduction'
_PASSIVE_ACTUATED_ATTRIBUTE = 'passive_actuated_joint'

_WRIST_TAGS = ('rightActuator', 'leftActuator', 'flexJoint', 'rollJoint')
_WRIST_REDUCTION_ATTRIBUTE = 'mechanicalReduction'

#: What a ``pr2_mechanism_model/WristTransmission`` element may contain.
WRIST_VOCABULARY = UrdfVocabulary(
    children=_PARSER_CHILDREN + _WRIST_TAGS,
    elements={tag: ElementRule(('name', _WRIST_REDUCTION_ATTRIBUTE)) for tag in _WRIST_TAGS})


#: The ``<gap_joint>`` coefficients, in the order of the ``PR2GripperTransmission`` constructor
#: (the attribute names are its keyword names).
GRIPPER_COEFFICIENTS = ('screw_reduction', 'gear_ratio', 'theta0', 'phi0', 't0', 'L0', 'h', 'a',
                        'b', 'r')

#: The PR2 alpha2 values the C++ falls back to when a coefficient is missing (see
#: :func:`gripper_from_info`; SI units).
ALPHA2_DEFAULTS = {
    'screw_reduction': 2.0 / 1000.0,
    'gear_ratio': 29.16,
    'theta0': 2.97571 * math.pi / 180.0,
    'phi0': 29.98717 * math.pi / 180.0,
    't0': -0.19543 / 1000.0,
    'L0': 34.70821 / 1000.0,
    'h': 5.200 / 1000.0,
    'a': 67.56801 / 1000.0,
    'b': 48.97193 / 1000.0,
    'r': 91.50000 / 1000.0,
}

#: What a ``pr2_mechanism_model/PR2GripperTransmission`` element may contain.
GRIPPER_VOCABULARY = UrdfVocabulary(
    children=_PARSER_CHILDREN + (_ACTUATOR_TAG, _GAP_JOINT_TAG, _PASSIVE_JOINT_TAG,
                                 _SIMULATED_JOINT_TAG, _USE_SIMULATED_GRIPPER_TAG),
    elements={
        _GAP_JOINT_TAG: ElementRule(('name', _GAP_REDUCTION_ATTRIBUTE) + GRIPPER_COEFFICIENTS),
        _PASSIVE_JOINT_TAG: ElementRule(('name',)),
        _SIMULATED_JOINT_TAG: ElementRule(('name', _SIMULATED_REDUCTION_ATTRIBUTE,
                                           _PASSIVE_ACTUATED_ATTRIBUTE)),
        _USE_SIMULATED_GRIPPER_TAG: ElementRule(),
    })


def transmission_element(info: TransmissionInfo) -> XmlElement:
    """Return ``info.element`` or raise when the record carries no XML."""
    if getattr(info, 'element', None) is None:
        raise IncompleteTransmissionError(
            info.path or info.name, f'the {info.type} plugin reads its vendor elements from the '
            'raw <transmission> element, and this record has none', info.line)
    return cast(XmlElement, info.element)


def _unique(names: list[str], paths: list[str], what: str) -> None:
    seen: dict[str, str] = {}
    for name, path in zip(names, paths):
        if name in seen:
            raise BrokenReferenceError(
                path, f'{what} {name!r} is already used by {seen[name]}')
        seen[name] = path


def _build(cls: Callable[..., Transmission], path: str,
           kwargs: dict[str, Any]) -> Transmission:
    try:
        return cls(**kwargs)
    except TransmissionValueError as e:
        raise BadValueError(f'{path}/@{e.parameter}',
                            f'expected {e.expected}, got {e.value!r}') from e


def gripper_from_info(cls: Callable[..., Transmission],
                      info: TransmissionInfo) -> TransmissionWiring:
    """
    Read a ``pr2_mechanism_model/PR2GripperTransmission`` element.

    Accepted children: :data:`GRIPPER_VOCABULARY`; joint order and the missing coefficients
    (an :class:`IncompleteTransmissionError`, lenient: the PR2 alpha2 value with a warning) as
    doc/transmissions.md ("PR2GripperTransmission") says.

    :raises UrdfTransmissionError: (a subclass) naming the element path and the bad value
    """
    element = transmission_element(info)
    path = info.path or f"transmission[@name='{info.name}']"

    actuator = one_child(element, path, _ACTUATOR_TAG)
    actuator_path = child_path(path, actuator)
    actuator_name = require_name(actuator, actuator_path)
    for child in children(actuator):
        if local_name(child) in ('mechanicalReduction', 'mechanical_reduction'):
            raise BadValueError(
                child_path(actuator_path, child), f'<{local_name(child)}> is not read by the '
                "PR2 gripper; put the reduction in <gap_joint mechanical_reduction='...'>",
                source_line(child))

    gap = one_child(element, path, _GAP_JOINT_TAG)
    gap_path = child_path(path, gap)
    gap_name = require_name(gap, gap_path)
    kwargs: dict[str, Any] = {
        'mechanical_reduction': number(gap, gap_path, _GAP_REDUCTION_ATTRIBUTE, nonzero=True)}
    for coefficient in GRIPPER_COEFFICIENTS:
        if gap.get(coefficient) is None:
            default = ALPHA2_DEFAULTS[coefficient]
            if not info.lenient:
                raise IncompleteTransmissionError(
                    f'{gap_path}/@{coefficient}', f'attribute {coefficient!r} is missing; the '
                    f'C++ plugin would silently use the PR2 alpha2 value {default!r}, give it '
                    'explicitly (or load leniently to accept that default)', source_line(gap))
            warnings.warn(TransmissionWarning(LoadWarning(
                f'{gap_path}/@{coefficient}', f'attribute missing, using the PR2 alpha2 value '
                f'{default!r}')), stacklevel=3)
            kwargs[coefficient] = default
        else:
            kwargs[coefficient] = number(gap, gap_path, coefficient)

    joint_names = [gap_name]
    joint_paths = [gap_path]
    for passive in children(element, _PASSIVE_JOINT_TAG):
        passive_path = child_path(path, passive)
        joint_names.append(require_name(passive, passive_path))
        joint_paths.append(passive_path)
    kwargs['num_passive_joints'] = len(joint_names) - 1

    simulated = children(element, _SIMULATED_JOINT_TAG)
    if simulated:
        sim = one_child(element, path, _SIMULATED_JOINT_TAG)
        sim_path = child_path(path, sim)
        joint_names.append(require_name(sim, sim_path))
        joint_paths.append(sim_path)
        kwargs['simulated_reduction'] = number(sim, sim_path, _SIMULATED_REDUCTION_ATTRIBUTE,
                                               positive=True)
        if sim.get(_PASSIVE_ACTUATED_ATTRIBUTE) is not None:
            joint_names.append(require_name(sim, sim_path, _PASSIVE_ACTUATED_ATTRIBUTE))
            joint_paths.append(f'{sim_path}/@{_PASSIVE_ACTUATED_ATTRIBUTE}')
        kwargs['num_simulated_joints'] = len(joint_names) - 1 - kwargs['num_passive_joints']
    _unique(joint_names, joint_paths, 'joint')
    transmission = _build(cls, gap_path, kwargs)
    return TransmissionWiring(transmission, tuple(joint_names), (actuator_name,))


def wrist_from_info(cls: Callable[..., Transmission],
                    info: TransmissionInfo) -> TransmissionWiring:
    """
    Read a ``pr2_mechanism_model/WristTransmission`` element.

    Accepted children, each exactly once with attributes ``name`` and ``mechanicalReduction``
    (required, finite, non-zero): ``<rightActuator>``, ``<leftActuator>``, ``<flexJoint>``,
    ``<rollJoint>``.  Joint order [flex, roll], actuator order [right, left].

    :raises UrdfTransmissionError: (a subclass) naming the element path and the bad value
    """
    path = info.path or f"transmission[@name='{info.name}']"
    ends = wrist_ends(info)
    names = [end.name for end in ends]
    paths = [end.origin.parent for end in ends]
    reductions = [parse_float(end.text, end.origin.path, nonzero=True, line=end.origin.line)
                  for end in ends]
    _unique(names[:2], paths[:2], 'actuator')
    _unique(names[2:], paths[2:], 'joint')
    transmission = _build(cls, path, {'actuator_reduction': reductions[:2],
                                      'joint_reduction': reductions[2:]})
    return TransmissionWiring(transmission, tuple(names[2:]), tuple(names[:2]))


class WristEnd(NamedTuple):
    """One end of a PR2 wrist: its element's tag, its name and its reduction attribute."""

    tag: str
    name: str
    #: the ``mechanicalReduction`` attribute as written
    text: str
    #: where the reduction is read: ``.../flexJoint[@name='j']/@mechanicalReduction``
    origin: Origin


def wrist_ends(info: TransmissionInfo) -> list[WristEnd]:
    """
    Return the four ends of a wrist, in the order right, left, flex, roll.

    :raises UrdfTransmissionError: an element is missing or given twice, a name or the
        reduction attribute is missing or empty
    """
    element = transmission_element(info)
    path = info.path or f"transmission[@name='{info.name}']"
    ends = []
    for tag in _WRIST_TAGS:
        child = one_child(element, path, tag)
        child_p = child_path(path, child)
        name = require_name(child, child_p)
        text = require_attribute(child, _WRIST_REDUCTION_ATTRIBUTE, child_p)
        ends.append(WristEnd(tag, name, text, Origin(
            f'{child_p}/@{_WRIST_REDUCTION_ATTRIBUTE}', source_line(child))))
    return ends
