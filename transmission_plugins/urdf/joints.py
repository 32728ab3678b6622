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
its warnings are collected instead of printed, thread-safely: its module-global ``on_error`` is
not swapped per call but routed once to a per-thread collector (see ``_install_router``).

Joint limits are read from the raw XML (not through urdf_parser_py, which coerces ``nan`` and
negative values silently and stops at the first non-numeric one), so that a bad limit is reported
with its attribute path and line.  The limits of the joints named in ``check`` (the joints driven
by transmissions) are validated:

* ``lower`` and ``upper`` (revolute and prismatic joints only; 0 when absent, as in the URDF
  spec and urdfdom) must be finite numbers with ``lower <= upper``;
* ``effort`` and ``velocity`` must be given (the URDF spec requires both in ``<limit>``) and be
  finite numbers >= 0.  **0 means "no limit"** (``inf``), with a warning: the attributes are
  required, so 0 is the usual placeholder of descriptions written for simulators, and a literal
  zero limit would clamp every command to 0.  gazebo_ros_control reads 0 the same way;
  ros2_control's ``joint_limits::getJointLimits`` takes it as a zero limit (and the absolute value
  of a negative one), and Drake skips the transmission of a joint with a zero effort limit.

A bad value raises :class:`~transmission_plugins.BadValueError` (a missing
``effort``/``velocity``: :class:`~transmission_plugins.IncompleteTransmissionError`) at
e.g. ``/robot[@name='r']/joint[@name='j']/limit/@effort`` with the value and what was expected; in
lenient mode it is recorded in ``limit_warnings`` and that limit is taken as absent (both position
limits when ``lower > upper``).  Limits of other joints are read the same way, but bad ones are
only noted in ``warnings`` and taken as absent.
"""

from dataclasses import dataclass
import math
from numbers import Real
import threading
from typing import Any
from typing import Callable
from typing import Dict
from typing import Iterable
from typing import List
from typing import NamedTuple
from typing import Optional
from typing import Tuple

from lxml import etree

from transmission_plugins.core.elements import quoted
from transmission_plugins.core.exceptions import BadValueError
from transmission_plugins.core.exceptions import IncompleteTransmissionError
from transmission_plugins.core.exceptions import TransmissionValueError
from transmission_plugins.urdf.text import parse_xml

#: Joint types that move (``fixed`` does not).
MOVABLE_TYPES = ('revolute', 'continuous', 'prismatic', 'planar', 'floating')

_KEPT_TAGS = ('link', 'joint')
_LIMIT_TAG = 'limit'
#: joint types whose ``<limit lower upper>`` are position limits
_POSITION_LIMITED = ('revolute', 'prismatic')


@dataclass(frozen=True)
class UrdfJoint:
    """
    One top-level ``<joint>`` of the robot model.

    Limits are ``-inf``/``inf`` when the URDF declares none; a ``continuous`` joint never has
    position limits (urdf_parser_py reports 0, 0 for them).  A ``velocity`` or ``effort`` of 0
    means "no limit" and is stored as ``inf`` (the policy of the module docstring), so that
    every limit derived from it (actuator arrays, actuator models) agrees.

    :raises TransmissionValueError: a NaN or negative velocity or effort, a NaN position limit
        or ``lower > upper``
    """

    name: str
    type: str  # noqa: A003
    lower: float = -math.inf
    upper: float = math.inf
    velocity: float = math.inf
    effort: float = math.inf
    #: name of the joint this one mimics, or None
    mimic: Optional[str] = None

    def __post_init__(self) -> None:
        where = f'joint {self.name!r}'
        for attribute in ('velocity', 'effort'):
            value = getattr(self, attribute)
            if isinstance(value, bool) or not isinstance(value, Real) \
                    or math.isnan(value) or value < 0.0:
                raise TransmissionValueError(attribute, value, 'a number >= 0 (0 or inf = no '
                                             'limit)', where)
            object.__setattr__(self, attribute, math.inf if value == 0.0 else float(value))
        lower, upper = self.lower, self.upper
        for attribute, value in (('lower', lower), ('upper', upper)):
            if isinstance(value, bool) or not isinstance(value, Real) or math.isnan(value):
                raise TransmissionValueError(attribute, value, 'a number (-inf/inf for none)',
                                             where)
            object.__setattr__(self, attribute, float(value))
        if lower > upper:
            raise TransmissionValueError('lower, upper', (lower, upper), 'lower <= upper', where)

    @property
    def movable(self) -> bool:
        """Return True for every joint type except ``fixed``."""
        return self.type in MOVABLE_TYPES


class RobotModel(NamedTuple):
    """The name of a robot and its top-level joints in URDF order."""

    name: str
    joints: Dict[str, UrdfJoint]
    #: urdf_parser_py's complaints (unknown tags, attributes) and unusable limits of joints
    #: that were not checked, for reports
    warnings: List[str]
    #: for the checked joints: zero effort/velocity limits read as "no limit", and (lenient
    #: mode) bad limits taken as absent
    limit_warnings: List[str]


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


# urdf_parser_py reports unknown tags through the module-global function
# ``urdf_parser_py.xml_reflection.core.on_error`` (default: print to stderr).  Swapping that
# global around each parse is not thread-safe: two threads reading robot models at once would
# send each other's messages to the wrong list and could leave a dead list's ``append``
# installed for good.  Instead a router is installed once (under a lock) that hands a message to
# the collecting list of the calling thread (thread-local), and to the handler it replaced when
# the thread is not reading a model here, so other users of urdf_parser_py see no change.  A
# program that installs its own ``on_error`` later simply gets the router back, wrapping its
# handler, at our next parse.
_router_lock = threading.Lock()
_collector = threading.local()
_fallback: Callable[[str], Any] = print


def _route(message: str) -> None:
    """Collect ``message`` for this thread's parse, else pass it to the replaced handler."""
    messages = getattr(_collector, 'messages', None)
    if messages is not None:
        messages.append(str(message))
    else:
        _fallback(message)


def _install_router(core: Any) -> None:
    global _fallback
    with _router_lock:
        if core.on_error is not _route:
            _fallback = core.on_error
            core.on_error = _route


class _LimitReader:
    """Read the ``<limit>`` of one joint strictly, leniently or quietly (unchecked joints)."""

    def __init__(self, limit: Any, path: str, checked: bool, lenient: bool,
                 model: RobotModel) -> None:
        self.limit = limit
        self.path = path
        self.line = getattr(limit, 'sourceline', None)
        self.checked = checked
        self.lenient = lenient
        self.model = model

    def problem(self, where: str, message: str, error: type = BadValueError) -> None:
        """Raise (checked, strict) or record that a limit is unusable and taken as absent."""
        if self.checked and not self.lenient:
            raise error(where, message, self.line)
        line = f' (line {self.line})' if self.line else ''
        text = f'{where}{line}: {message}; taken as no limit'
        if self.checked:
            self.model.limit_warnings.append(text + ' (lenient mode)')
        else:
            self.model.warnings.append(text)

    def number(self, attribute: str) -> Optional[float]:
        """Return the finite value of ``attribute``, or None (problem recorded) when unusable."""
        raw = self.limit.get(attribute)
        where = f'{self.path}/@{attribute}'
        try:
            x = float(raw.strip())
        except ValueError:
            x = math.nan
        if not math.isfinite(x):
            expected = ('a finite number >= 0 (0 = no limit)'
                        if attribute in ('effort', 'velocity') else 'a finite number')
            self.problem(where, f'expected {expected}, got {raw!r}')
            return None
        return x

    def rate(self, attribute: str) -> float:
        """Return an effort or velocity limit: finite and > 0, or ``inf`` for none."""
        where = f'{self.path}/@{attribute}'
        if self.limit.get(attribute) is None:
            self.problem(where, f"attribute '{attribute}' is missing (the URDF spec requires "
                         'effort and velocity in <limit>; 0 means no limit)',
                         IncompleteTransmissionError)
            return math.inf
        x = self.number(attribute)
        if x is None:
            return math.inf
        if x < 0.0:
            self.problem(where, f'expected a finite number >= 0 (0 = no limit), got '
                         f'{self.limit.get(attribute)!r}')
            return math.inf
        if x == 0.0:
            if self.checked:
                line = f' (line {self.line})' if self.line else ''
                self.model.limit_warnings.append(
                    f'{where}{line}: {attribute} 0 read as no limit (the URDF requires the '
                    'attribute, 0 is its placeholder; ros2_control would clamp to 0)')
            return math.inf
        return x

    def position(self) -> Tuple[float, float]:
        """Return ``(lower, upper)``; 0 for an absent bound, ``-inf``/``inf`` for a bad one."""
        bounds = []
        for attribute, none in (('lower', -math.inf), ('upper', math.inf)):
            if self.limit.get(attribute) is None:
                bounds.append(0.0)
                continue
            x = self.number(attribute)
            bounds.append(none if x is None else x)
        lower, upper = bounds
        if lower > upper:
            self.problem(self.path, f'expected lower <= upper, got lower='
                         f'{self.limit.get("lower", "0")!r} and upper='
                         f'{self.limit.get("upper", "0")!r}')
            return -math.inf, math.inf
        return lower, upper


def _joint_limits(element: Any, jtype: str, path: str, checked: bool, lenient: bool,
                  model: RobotModel) -> Tuple[float, float, float, float]:
    """Return ``(lower, upper, velocity, effort)`` of a raw top-level ``<joint>`` element."""
    limits = [c for c in element if _local(c.tag) == _LIMIT_TAG]
    if not limits:
        return -math.inf, math.inf, math.inf, math.inf
    reader = _LimitReader(limits[0], f'{path}/{_LIMIT_TAG}', checked, lenient, model)
    lower, upper = (reader.position() if jtype in _POSITION_LIMITED
                    else (-math.inf, math.inf))
    return lower, upper, reader.rate('velocity'), reader.rate('effort')


def read_robot_model(urdf: Any, *, check: Iterable[str] = (),
                     lenient: bool = False) -> RobotModel:
    """
    Read the joints of a URDF robot description.

    :param urdf: the URDF as XML text (xacro already expanded) or as a parsed lxml element
    :param check: names of the joints whose limits must be valid (those driven by
        transmissions); see the module docstring
    :param lenient: take a bad limit of a checked joint as absent, with a warning in
        ``limit_warnings``, instead of raising
    :returns: the robot name and its top-level joints, keyed by name in URDF order
    :raises BadValueError: the XML is not well formed, urdf_parser_py rejects a link or joint,
        or a checked joint has a bad limit (path of the attribute, value, expectation)
    :raises IncompleteTransmissionError: a checked joint's ``<limit>`` lacks effort or velocity
    """
    from urdf_parser_py import urdf as upp
    import urdf_parser_py.xml_reflection.core as upp_core

    root = parse_xml(urdf) if isinstance(urdf, (str, bytes)) else urdf
    name = root.get('name', '')
    path = f'/robot[@name={quoted(name)}]'
    robot = etree.Element('robot', name=name)
    raw_joints: Dict[str, Any] = {}
    for child in root:
        tag = _local(child.tag)
        if tag not in _KEPT_TAGS:
            continue
        copy = _strip(child)
        if tag == 'joint':
            raw_joints[child.get('name', '')] = child
            for limit in [c for c in copy if c.tag == _LIMIT_TAG]:
                copy.remove(limit)  # read from the raw XML below
        robot.append(copy)
    messages: List[str] = []
    _install_router(upp_core)
    _collector.messages = messages
    try:
        model = upp.URDF.from_xml_string(etree.tostring(robot))
    except Exception as e:  # urdf_parser_py raises plain Exception subclasses
        raise BadValueError(path, f'urdf_parser_py cannot read the links and joints: {e}') from e
    finally:
        _collector.messages = None
    out = RobotModel(name, {}, messages, [])
    checked = set(check)
    for j in model.joints:
        lower, upper, velocity, effort = _joint_limits(
            raw_joints[j.name], j.type, f'{path}/joint[@name={quoted(j.name)}]',
            j.name in checked, lenient, out)
        mimic = j.mimic.joint if j.mimic is not None else None
        out.joints[j.name] = UrdfJoint(j.name, j.type, lower, upper, velocity, effort, mimic)
    return out
