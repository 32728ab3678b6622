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
Write new reductions and offsets into a URDF, the rest of it unchanged (comments included).

Each value goes where the dialect's reader (:mod:`~.readers`, :mod:`~.pr2_elements`) took it
from: a ``<mechanicalReduction>`` / ``<mechanical_reduction>`` of the ``<actuator>`` or
``<joint>`` (ros2_control's SimpleTransmission: the joint's), the PR2's reduction under
``<transmission>`` or in the ``mechanicalReduction`` attribute of a wrist's
``<rightActuator>``..., and the joint's ``<offset>``.  A missing element is added (in the
dialect's spelling, indented like its siblings).  The PR2 wrist has no offset element: such a
change is returned as not written.  lxml keeps comments, attribute order and the text between
elements; an expanded ``.xacro`` is written as the URDF it expands to.
"""

from typing import Any
from typing import NamedTuple
from typing import Sequence

from lxml import etree

from transmission_plugins.urdf.elements import local_name
from transmission_plugins.urdf.records import DIALECT_ROS2_CONTROL
from transmission_plugins.urdf.text import parse_xml
from transmission_plugins.urdf.vocabulary import OFFSET_TAG
from transmission_plugins.urdf.vocabulary import REDUCTION_TAGS

#: the PR2 wrist's elements, per parameter kind
_WRIST_ENDS = {'actuator_reduction': ('rightActuator', 'leftActuator'),
               'joint_reduction': ('flexJoint', 'rollJoint')}


class Change(NamedTuple):
    """One value to write into a ``<transmission>``."""

    #: the ``<transmission name>`` and the line of its element (None: any)
    transmission: str
    line: int | None
    #: ``ros2_control``, ``ros1`` or ``pr2`` (:mod:`~.records`), and the type's class name
    dialect: str
    kind: str
    #: ``actuator_reduction``, ``joint_reduction`` or ``joint_offset``
    parameter: str
    #: the actuator or joint the value belongs to
    end: str
    value: float


def rewrite_urdf(text: str, changes: Sequence[Change]) -> tuple[str, list[str]]:
    """
    Return ``text`` with ``changes`` written, and the changes that cannot be written (why).

    :raises BadValueError: the text is not well-formed XML
    """
    root = parse_xml(text)
    skipped = []
    for change in changes:
        element = _transmission(root, change)
        why = 'no such <transmission>' if element is None else _write(element, change)
        if why:
            skipped.append(f'{change.transmission}: {change.parameter} of {change.end} '
                           f'{change.value!r} not written: {why}')
    # the text between top-level nodes is not kept by the parser: one line break each
    nodes = [*reversed(list(root.itersiblings(preceding=True))), root,
             *root.itersiblings()]
    out = '\n'.join(etree.tostring(n, encoding='unicode', with_tail=False) for n in nodes)
    if text.lstrip('\ufeff \t\r\n').startswith('<?xml'):
        out = '<?xml version="1.0"?>\n' + out
    return out if out.endswith('\n') else out + '\n', skipped


def _transmission(root: Any, change: Change) -> Any:
    for element in root.iter():
        if local_name(element) == 'transmission' and element.get('name') == change.transmission \
                and (change.line is None or element.sourceline == change.line):
            return element
    return None


def _end(transmission: Any, tags: Sequence[str], name: str) -> Any:
    return next((c for c in transmission if local_name(c) in tags and c.get('name') == name),
                None)


def _write(transmission: Any, change: Change) -> str:
    """Write one change; return why it cannot be written ('' when written)."""
    text = repr(float(change.value))
    if change.kind == 'WristTransmission':
        if change.parameter == 'joint_offset':
            return 'the PR2 wrist has no offset element (use the calibration file)'
        end = _end(transmission, _WRIST_ENDS[change.parameter], change.end)
        if end is None:
            return f'no element names {change.end!r}'
        end.set('mechanicalReduction', text)
        return ''
    ros2 = change.dialect == DIALECT_ROS2_CONTROL
    reduction_tag = 'mechanical_reduction' if ros2 else 'mechanicalReduction'
    if change.parameter == 'joint_offset':
        end = _end(transmission, ('joint',), change.end)
        tags: Sequence[str] = (OFFSET_TAG,)
        new_tag = OFFSET_TAG
    elif change.parameter == 'joint_reduction' or (
            change.kind == 'SimpleTransmission' and ros2):
        end = _end(transmission, ('joint',), change.end if change.parameter ==
                   'joint_reduction' else _only_joint(transmission))
        tags, new_tag = REDUCTION_TAGS, reduction_tag
    else:
        end = _end(transmission, ('actuator',), change.end)
        tags, new_tag = REDUCTION_TAGS, reduction_tag
        if end is not None and change.kind == 'SimpleTransmission' and _child(end, tags) is None:
            top = _child(transmission, tags)   # the PR2 keeps it under <transmission>
            if top is not None:
                top.text = text
                return ''
    if end is None:
        return f'no element names {change.end!r}'
    child = _child(end, tags)
    if child is None:
        child = _add_child(end, new_tag)
    child.text = text
    return ''


def _only_joint(transmission: Any) -> str:
    joint = next((c for c in transmission if local_name(c) == 'joint'), None)
    return '' if joint is None else str(joint.get('name'))


def _child(element: Any, tags: Sequence[str]) -> Any:
    return next((c for c in element if local_name(c) in tags), None)


def _add_child(element: Any, tag: str) -> Any:
    """Add ``<tag>`` as the last child, indented like the others (or one level in)."""
    namespace = etree.QName(element).namespace
    child = etree.SubElement(element, f'{{{namespace}}}{tag}' if namespace else tag)
    siblings = [c for c in element if c is not child]
    if siblings:
        previous = siblings[-1]
        child.tail = previous.tail
        previous.tail = siblings[-2].tail if len(siblings) > 1 else element.text
    else:
        indent = (element.tail or '\n')
        element.text = indent + '  '
        child.tail = indent
    return child
