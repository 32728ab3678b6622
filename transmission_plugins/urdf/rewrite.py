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

The text is parsed into records (:func:`~.dialects.parse_transmissions`, leniently, every
``<transmission>``); each value goes to the place its reader reads it from, as that reader
says: :func:`~.readers.simple_reduction_source` (a SimpleTransmission: the joint's
``<mechanical_reduction>`` in ros2_control, else the actuator's ``<mechanicalReduction>`` or the
PR2's under ``<transmission>``), the records' origins for the ends of other transmissions
(:func:`~.readers.reduction_origin`, :func:`~.readers.value_origin`), and
:func:`~.pr2_elements.wrist_ends` for the ``mechanicalReduction`` attributes of a PR2 wrist.
The element is found by the path and line recorded, not searched for; a value the text does
not give is added where the reader would read it (in the dialect's spelling, indented like its
siblings).  Drivetrain values (``friction:coulomb``...) are attributes: written in place, added
to their element, or added with a new element on the joint or actuator; a series-elastic
spring's stiffness and damping go to its ``<spring>`` (not onto a measured table).  The PR2
wrist has no offset element: such a change is returned as not written.
lxml keeps comments, attribute order and the text between elements; an expanded ``.xacro`` is
written as the URDF it expands to.
"""

import re
from typing import Any
from typing import NamedTuple
from typing import Sequence

from lxml import etree

from transmission_plugins.core.exceptions import UrdfTransmissionError
from transmission_plugins.urdf.dialects import parse_transmissions
from transmission_plugins.urdf.dialects import SOURCE_ALL
from transmission_plugins.urdf.drivetrain_elements import drivetrain_origin
from transmission_plugins.urdf.elements import local_name
from transmission_plugins.urdf.mechanism_elements import spring_origin
from transmission_plugins.urdf.mechanism_elements import SPRING_TAG
from transmission_plugins.urdf.pr2_elements import wrist_ends
from transmission_plugins.urdf.readers import reduction_origin
from transmission_plugins.urdf.readers import simple_reduction_source
from transmission_plugins.urdf.readers import value_origin
from transmission_plugins.urdf.records import JointInfo
from transmission_plugins.urdf.records import Origin
from transmission_plugins.urdf.records import TransmissionInfo
from transmission_plugins.urdf.vocabulary import OFFSET_TAG

#: the transmission whose ``<spring>`` takes ``spring:stiffness`` and ``spring:damping``
SERIES_ELASTIC = 'SeriesElasticTransmission'
#: the PR2 wrist's elements, per parameter kind
_WRIST_ENDS = {'actuator_reduction': ('rightActuator', 'leftActuator'),
               'joint_reduction': ('flexJoint', 'rollJoint')}
#: one step of an element path (:func:`~.elements.child_path`): ``tag``, ``tag[@name='n']``
#: (or with double quotes) or ``tag[i]``
_STEP = re.compile(r"""/([^/\[\]@]+)(?:\[(?:@name=(?:'([^']*)'|"([^"]*)")|([0-9]+))\])?""")


class Change(NamedTuple):
    """One value to write into a ``<transmission>``."""

    #: the ``<transmission name>`` and the line of its element (None: any)
    transmission: str
    line: int | None
    #: ``ros2_control``, ``ros1`` or ``pr2`` (:mod:`~.records`; the record parsed from the
    #: text says it again), and the type's class name
    dialect: str
    kind: str
    #: ``actuator_reduction``, ``joint_reduction`` or ``joint_offset``; or a drivetrain
    #: attribute of the end, ``element:attribute`` (``friction:coulomb``, ``backlash:width``,
    #: ``motor:torque_constant``...: :func:`~.drivetrain_elements.drivetrain_origin`); or a
    #: series-elastic transmission's ``spring:stiffness``, ``spring:damping``
    #: (:func:`~.mechanism_elements.spring_origin`)
    parameter: str
    #: the actuator or joint the value belongs to
    end: str
    value: float


def rewrite_urdf(text: str, changes: Sequence[Change]) -> tuple[str, list[str]]:
    """
    Return ``text`` with ``changes`` written, and the changes that cannot be written (why).

    :raises BadValueError: the text is not well-formed XML, or its root is not ``<robot>``
    """
    parsed = parse_transmissions(text, lenient=True, source=SOURCE_ALL)
    root: Any = parsed.root
    skipped = []
    for change in changes:
        info = next((i for i in parsed.transmissions
                     if i.name == change.transmission and i.element is not None
                     and (change.line is None or i.line == change.line)), None)
        try:
            target = 'no such <transmission>' if info is None else change_origin(info, change)
        except UrdfTransmissionError as e:
            target = e.message
        why = target if isinstance(target, str) else _write(root, target,
                                                            repr(float(change.value)))
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


def change_origin(info: TransmissionInfo, change: Change) -> Origin | str:
    """
    Return where the reader of ``info`` reads the value of ``change``, or why there is none.

    :raises UrdfTransmissionError: the wrist's elements cannot be read
    """
    if change.parameter.startswith(f'{SPRING_TAG}:'):   # a series-elastic spring's number
        if change.kind != SERIES_ELASTIC:
            return f'a <{SPRING_TAG}> belongs to a {SERIES_ELASTIC}, not a {change.kind}'
        return spring_origin(info, change.parameter.partition(':')[2])
    if ':' in change.parameter:   # a drivetrain attribute, on the joint or actuator named
        named = [e for e in info.joints + info.actuators
                 if e.name == change.end and e.element is not None]
        if len(named) != 1:
            return (f'no element names {change.end!r}' if not named else
                    f'both a joint and an actuator are named {change.end!r}')
        return drivetrain_origin(named[0], change.parameter)
    if change.kind == 'WristTransmission':
        if change.parameter == 'joint_offset':
            return 'the PR2 wrist has no offset element (use the calibration file)'
        tags = _WRIST_ENDS.get(change.parameter, ())
        found = [e.origin for e in wrist_ends(info) if e.tag in tags and e.name == change.end]
        return found[0] if found else f'no element names {change.end!r}'
    if change.parameter == 'joint_offset':
        joint = _named(info.joints, change.end)
        return (value_origin(joint, 'offset', OFFSET_TAG) if joint is not None
                else f'no element names {change.end!r}')
    if change.kind == 'SimpleTransmission' and change.parameter == 'actuator_reduction' and (
            info.joints and info.actuators):
        return simple_reduction_source(info)[1]
    ends = info.joints if change.parameter == 'joint_reduction' else info.actuators
    end = _named(ends, change.end)
    return reduction_origin(info, end) if end is not None else \
        f'no element names {change.end!r}'


def _named(ends: Sequence[JointInfo], name: str) -> JointInfo | None:
    return next((e for e in ends if e.name == name and e.element is not None), None)


def element_at(root: Any, path: str, line: int | None) -> Any:
    """
    Return the element at ``path`` (an element path of the parser) below ``root``, or None.

    Where the path names several elements (a name used twice), the one starting at ``line``.
    """
    found = [root]
    position = 0
    first = True
    while position < len(path):
        step = _STEP.match(path, position)
        if step is None:
            return None
        position = step.end()
        tag, single, double, index = step.groups()
        name = single if single is not None else double
        candidates = []
        for parent in found:
            same = [root] if first else [c for c in parent if local_name(c) == tag]
            if index is not None:
                same = same[int(index) - 1:int(index)]
            candidates += [c for c in same if local_name(c) == tag
                           and (name is None or c.get('name') == name)]
        found = candidates
        first = False
    if len(found) > 1 and line is not None:
        found = [e for e in found if e.sourceline == line] or found
    return found[0] if found else None


def _write(root: Any, origin: Origin, text: str) -> str:
    """Write ``text`` at ``origin``; return why it cannot be written ('' when written)."""
    holder = origin.parent if origin.tag.startswith('@') or not origin.given else origin.path
    element = element_at(root, holder, origin.line)
    if element is None and origin.tag.startswith('@') and not origin.given:
        # an attribute of an element the text lacks (a drivetrain element): add the element
        owner = element_at(root, holder.rsplit('/', 1)[0], origin.line)
        if owner is not None:
            element = _add_child(owner, holder.rsplit('/', 1)[1])
    if element is None:
        return f'no element at {holder}'
    if origin.tag.startswith('@'):
        element.set(origin.tag[1:], text)
    elif origin.given:
        element.text = text
    else:
        _add_child(element, origin.tag).text = text
    return ''


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
