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
Reject what nobody reads in a ``<transmission>``: one check for every plugin.

What neither the parser nor the plugin's
:class:`~transmission_plugins.urdf.vocabulary.UrdfVocabulary` reads is an error naming its path
and what is accepted (lenient mode: a warning), checked in
:func:`transmission_plugins.plugins.build_transmission`, so no plugin can forget it.
"""

from typing import Sequence

from transmission_plugins.core.exceptions import BadValueError
from transmission_plugins.core.exceptions import LoadWarning
from transmission_plugins.urdf.elements import child_path
from transmission_plugins.urdf.elements import local_name
from transmission_plugins.urdf.elements import namespace
from transmission_plugins.urdf.elements import source_line
from transmission_plugins.urdf.elements import XmlElement
from transmission_plugins.urdf.records import DIALECT_ROS2_CONTROL
from transmission_plugins.urdf.records import TransmissionInfo
from transmission_plugins.urdf.vocabulary import ACTUATOR_DATA_TAGS
from transmission_plugins.urdf.vocabulary import ACTUATOR_PARAMS
from transmission_plugins.urdf.vocabulary import ACTUATOR_TAG
from transmission_plugins.urdf.vocabulary import JOINT_ATTRIBUTES
from transmission_plugins.urdf.vocabulary import JOINT_CHILDREN
from transmission_plugins.urdf.vocabulary import JOINT_TAG
from transmission_plugins.urdf.vocabulary import MOTOR_INERTIA_TAG
from transmission_plugins.urdf.vocabulary import MOTOR_TAG
from transmission_plugins.urdf.vocabulary import PARAM_TAG
from transmission_plugins.urdf.vocabulary import PLUGIN_TAG
from transmission_plugins.urdf.vocabulary import REDUCTION_TAGS
from transmission_plugins.urdf.vocabulary import TYPE_TAG
from transmission_plugins.urdf.vocabulary import UrdfVocabulary


def standard_vocabulary(info: TransmissionInfo) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Return the ``<transmission>`` children and attributes the parser reads for ``info``."""
    if info.dialect == DIALECT_ROS2_CONTROL:
        return (PLUGIN_TAG, PARAM_TAG, JOINT_TAG, ACTUATOR_TAG), ('name',)
    own = (TYPE_TAG, JOINT_TAG, ACTUATOR_TAG, MOTOR_INERTIA_TAG) + REDUCTION_TAGS
    return own, ('name', 'type')


class _Check:
    """One check of one record: raise in strict mode, collect warnings in lenient mode."""

    def __init__(self, info: TransmissionInfo) -> None:
        self.info = info
        self.warnings: list[LoadWarning] = []

    def problem(self, path: str, message: str, line: int | None) -> None:
        if not self.info.lenient:
            raise BadValueError(path, message, line)
        self.warnings.append(LoadWarning(path, f'{message}; ignored (lenient mode)', line))

    def attributes(self, element: XmlElement, path: str, allowed: Sequence[str]) -> None:
        for attribute in element.attrib:
            if attribute not in allowed:
                self.problem(f'{path}/@{attribute}', f'unexpected attribute {attribute!r} for '
                             f'{self.info.type}; expected only {", ".join(allowed) or "none"}',
                             source_line(element))

    def unexpected(self, child: XmlElement, path: str, allowed: Sequence[str]) -> None:
        shown = ', '.join(a if a.startswith('drake:') else f'<{a}>' for a in allowed)
        self.problem(path, f'unexpected element <{local_name(child)}> for {self.info.type}; '
                     f'expected only {shown or "no child element"}', source_line(child))

    def end_path(self, element: XmlElement) -> str:
        for end in self.info.joints + self.info.actuators:
            if end.element is element:
                return end.path
        return f'{self.info.path}/{local_name(element)}'

    def end(self, element: XmlElement, allowed: Sequence[str], urdf_ns: str,
            actuator: bool) -> None:
        path = self.end_path(element)
        self.attributes(element, path, JOINT_ATTRIBUTES)
        for child in element:
            tag = local_name(child)
            if not tag:
                continue
            if actuator and (tag in ACTUATOR_DATA_TAGS or (
                    namespace(child) == urdf_ns and tag == PARAM_TAG
                    and child.get('name') in ACTUATOR_PARAMS)):
                continue  # actuator data, read by the parser
            if tag == MOTOR_TAG and tag not in allowed and namespace(child) == urdf_ns:
                self.problem(f'{path}/{tag}', f'<{MOTOR_TAG}> belongs on an <actuator>, not on '
                             'a <joint>: the motor drives the actuator side of the transmission '
                             '(friction and backlash may be on either end)', source_line(child))
            elif namespace(child) != urdf_ns or tag not in allowed:
                shown = tuple(allowed) + (('drake:' + ', drake:'.join(ACTUATOR_DATA_TAGS[:-1]),
                                           MOTOR_INERTIA_TAG) if actuator else ())
                self.unexpected(child, f'{path}/{tag}', shown)


def check_vocabulary(info: TransmissionInfo, vocabulary: UrdfVocabulary) -> list[LoadWarning]:
    """
    Reject what neither the parser nor the plugin reads in ``info.element``.

    :param vocabulary: what the plugin reads (its class's ``URDF_VOCABULARY``)
    :returns: in lenient mode, one warning per ignored element or attribute (else empty)
    :raises BadValueError: naming the unexpected element or attribute, where it is and what is
        accepted (strict mode)
    """
    check = _Check(info)
    element = info.element
    if element is None:
        return check.warnings
    urdf_ns = namespace(element)
    standard, own_attributes = standard_vocabulary(info)
    children = standard if vocabulary.children is None else tuple(vocabulary.children)
    allowed = children + tuple(vocabulary.extra_children)
    check.attributes(element, info.path, own_attributes + tuple(vocabulary.attributes))
    for child in element:
        tag = local_name(child)
        if not tag:
            continue
        path = f'{info.path}/{tag}'
        if namespace(child) != urdf_ns or tag not in allowed:
            check.unexpected(child, path, allowed)
        elif tag == PARAM_TAG and PARAM_TAG in standard:
            name = child.get('name')
            if name not in vocabulary.params:
                expected = ', '.join(vocabulary.params) if vocabulary.params else 'none'
                check.problem(f"{path}[@name='{name}']", f'parameter {name!r} is not read by '
                              f'{info.type} (parameters it reads: {expected})', source_line(child))
        elif tag == JOINT_TAG and tag in standard:
            check.end(child, JOINT_CHILDREN + tuple(vocabulary.joint_children), urdf_ns, False)
        elif tag == ACTUATOR_TAG and tag in standard:
            check.end(child, JOINT_CHILDREN + (MOTOR_TAG,) + tuple(vocabulary.actuator_children),
                      urdf_ns, True)
        elif tag in vocabulary.elements:
            rule = vocabulary.elements[tag]
            vendor_path = child_path(info.path, child)
            check.attributes(child, vendor_path, rule.attributes)
            for grandchild in child:
                if local_name(grandchild) and local_name(grandchild) not in rule.children:
                    check.unexpected(grandchild, f'{vendor_path}/{local_name(grandchild)}',
                                     rule.children)
    return check.warnings
