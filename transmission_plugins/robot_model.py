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
The joints of a robot model (type, limits, mimic) read with urdf_parser_py.

urdf_parser_py chokes on transmissions it does not know (PR2 wrists, ros2_control-style
``<transmission>`` at robot level) and on unknown tags it prints warnings to stderr.  So only the
**top-level** ``<link>`` and ``<joint>`` elements are handed to it (a ``<joint>`` nested inside
``<gazebo>``, as in the PR2 file, is not a joint of the model), with XML namespaces stripped, and
its warnings are collected instead of printed.
"""

from dataclasses import dataclass
import math
from typing import Any
from typing import Dict
from typing import List
from typing import NamedTuple
from typing import Optional

from lxml import etree

from transmission_plugins.exceptions import BadValueError
from transmission_plugins.urdf_parser import parse_xml

#: Joint types that move (``fixed`` does not).
MOVABLE_TYPES = ('revolute', 'continuous', 'prismatic', 'planar', 'floating')

_KEPT_TAGS = ('link', 'joint')


@dataclass(frozen=True)
class UrdfJoint:
    """
    One top-level ``<joint>`` of the robot model.

    Limits are ``-inf``/``inf`` when the URDF declares none; a ``continuous`` joint never has
    position limits (urdf_parser_py reports 0, 0 for them).
    """

    name: str
    type: str  # noqa: A003
    lower: float = -math.inf
    upper: float = math.inf
    velocity: float = math.inf
    effort: float = math.inf
    #: name of the joint this one mimics, or None
    mimic: Optional[str] = None

    @property
    def movable(self) -> bool:
        """Return True for every joint type except ``fixed``."""
        return self.type in MOVABLE_TYPES


class RobotModel(NamedTuple):
    """The name of a robot and its top-level joints in URDF order."""

    name: str
    joints: Dict[str, UrdfJoint]
    #: urdf_parser_py's complaints (unknown tags, attributes), for reports
    warnings: List[str]


def _local(tag: object) -> str:
    return etree.QName(tag).localname if isinstance(tag, str) else ''


def _strip(element: etree._Element) -> etree._Element:
    """Return a copy of ``element`` without namespaces and comments."""
    out = etree.Element(_local(element.tag))
    for key, value in element.attrib.items():
        out.set(_local(key), value)
    out.text = element.text
    for child in element:
        if isinstance(child.tag, str):
            out.append(_strip(child))
    return out


def _value(x: Optional[float], default: float) -> float:
    return default if x is None else float(x)


def read_robot_model(urdf: Any) -> RobotModel:
    """
    Read the joints of a URDF robot description.

    :param urdf: the URDF as XML text (xacro already expanded) or as a parsed lxml element
    :returns: the robot name and its top-level joints, keyed by name in URDF order
    :raises BadValueError: the XML is not well formed or urdf_parser_py rejects a link or joint
    """
    from urdf_parser_py import urdf as upp
    import urdf_parser_py.xml_reflection.core as upp_core

    root = parse_xml(urdf) if isinstance(urdf, (str, bytes)) else urdf
    name = root.get('name', '')
    path = f"/robot[@name='{name}']"
    robot = etree.Element('robot', name=name)
    for child in root:
        if _local(child.tag) in _KEPT_TAGS:
            robot.append(_strip(child))
    messages: List[str] = []
    saved = upp_core.on_error
    upp_core.on_error = messages.append
    try:
        model = upp.URDF.from_xml_string(etree.tostring(robot))
    except Exception as e:  # urdf_parser_py raises plain Exception subclasses
        raise BadValueError(path, f'urdf_parser_py cannot read the links and joints: {e}') from e
    finally:
        upp_core.on_error = saved
    joints: Dict[str, UrdfJoint] = {}
    for j in model.joints:
        limit = j.limit
        lower, upper = -math.inf, math.inf
        velocity = effort = math.inf
        if limit is not None:
            velocity = _value(limit.velocity, math.inf)
            effort = _value(limit.effort, math.inf)
            if j.type in ('revolute', 'prismatic'):
                lower = _value(limit.lower, 0.0)
                upper = _value(limit.upper, 0.0)
        mimic = j.mimic.joint if j.mimic is not None else None
        joints[j.name] = UrdfJoint(j.name, j.type, lower, upper, velocity, effort, mimic)
    return RobotModel(name, joints, messages)
