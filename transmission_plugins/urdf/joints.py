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
The joints of a robot description (name, type, limits, mimic), read for the transmissions.

The loader needs the joints' names, types and limits, not the rest of the kinematic model, so it
reads them itself from the **top-level** ``<joint>`` elements of the URDF namespace (doc/urdf.md),
with :mod:`~.limits`, :mod:`~.safety_controller` and :mod:`~.calibration`.  What matters to the
transmissions is checked strictly: a driven joint needs a known type and well-formed limits.

The rest of the model is validated with urdf_parser_py (links, visuals, joints' parent and
child, ...), given only the top-level ``<link>`` and ``<joint>`` elements without namespaces and
without ``<limit>`` (it chokes on transmissions it does not know, and reads limits loosely).  A
problem there does not affect the transmissions: strict mode raises
:class:`~transmission_plugins.BadValueError` saying so (with urdf_parser_py's path and message);
lenient mode loads the transmissions anyway, with a warning naming what was ignored.
urdf_parser_py's own warnings are collected per thread, not printed (doc/robot_api.md).
"""

from dataclasses import dataclass
import math
from numbers import Real
import threading
from typing import Any
from typing import Callable
from typing import Iterable
from typing import NamedTuple

from lxml import etree

from transmission_plugins.core.exceptions import BadValueError
from transmission_plugins.core.exceptions import LoadWarning
from transmission_plugins.core.exceptions import TransmissionValueError
from transmission_plugins.urdf.calibration import CALIBRATION_TAG
from transmission_plugins.urdf.calibration import read_calibration
from transmission_plugins.urdf.calibration import ReferenceSwitch
from transmission_plugins.urdf.elements import child_path
from transmission_plugins.urdf.elements import children
from transmission_plugins.urdf.elements import namespace
from transmission_plugins.urdf.elements import quoted
from transmission_plugins.urdf.elements import source_line
from transmission_plugins.urdf.limits import LIMIT_TAG
from transmission_plugins.urdf.limits import LimitReader
from transmission_plugins.urdf.safety_controller import read_safety_controller
from transmission_plugins.urdf.safety_controller import SAFETY_CONTROLLER_TAG
from transmission_plugins.urdf.safety_controller import SafetyController
from transmission_plugins.urdf.text import parse_xml

#: Joint types that move (``fixed`` does not).
MOVABLE_TYPES = ('revolute', 'continuous', 'prismatic', 'planar', 'floating')
#: Every joint type of the URDF spec.
JOINT_TYPES = MOVABLE_TYPES + ('fixed',)

_KEPT_TAGS = ('link', 'joint')
#: links and joints handed to urdf_parser_py at once (:func:`_validate_model`)
_BATCH = 512
_OUTSIDE = ("this is outside the transmissions (they need only the joints' names, types and "
            'limits)')


@dataclass(frozen=True)
class UrdfJoint:
    """
    One top-level ``<joint>`` of the robot model.

    Limits are ``-inf``/``inf`` when the URDF declares none; a ``continuous`` joint never has
    position limits.  A ``velocity`` or ``effort`` of 0
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
    mimic: str | None = None
    #: the soft limits of its ``<safety_controller>``, or None
    safety: SafetyController | None = None
    #: the reference switch of its ``<calibration rising|falling>``, or None
    calibration: ReferenceSwitch | None = None

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
    joints: dict[str, UrdfJoint]
    #: urdf_parser_py's complaints (unknown tags, attributes) and unusable limits of joints
    #: that were not checked, for reports
    warnings: list[str]
    #: what matters to the transmissions: limits of driven joints that are missing (no limit),
    #: 0 (no limit) or, in lenient mode, unusable (taken as absent); robot model problems
    #: ignored in lenient mode
    limit_warnings: list[LoadWarning]


def _local(tag: object) -> str:
    return etree.QName(tag).localname if isinstance(tag, str) else ''


def plain_copy(element: Any, namespaced: bool = True) -> Any:
    """
    Return a copy of ``element`` without comments and namespaces.

    Namespaced elements and attributes take their local name, or are left out when not
    ``namespaced``.
    """
    out = etree.Element(_local(element.tag), {_local(k): v for k, v in element.attrib.items()
                                              if namespaced or not k.startswith('{')})
    out.text = element.text
    out.extend(plain_copy(c, namespaced) for c in element
               if isinstance(c.tag, str) and (namespaced or not c.tag.startswith('{')))
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


def read_robot_model(urdf: Any, *, check: Iterable[str] = (),
                     lenient: bool = False) -> RobotModel:
    """
    Read the joints of a URDF robot description.

    :param urdf: the URDF as XML text (xacro already expanded) or as a parsed lxml element
    :param check: names of the joints driven by transmissions: their type and limits matter
        (see the module docstring and :mod:`~.limits`)
    :param lenient: take a bad limit of a driven joint as absent, and a robot model that
        urdf_parser_py rejects as readable, with a warning in ``limit_warnings``, instead of
        raising
    :returns: the robot name and its top-level joints, keyed by name in URDF order
    :raises BadValueError: the XML is not well formed, a driven joint has no known type or a bad
        limit (path of the attribute, value, expectation), or (strict mode) urdf_parser_py
        rejects the links and joints
    """
    root = parse_xml(urdf) if isinstance(urdf, (str, bytes)) else urdf
    name = root.get('name', '')
    path = f'/robot[@name={quoted(name)}]'
    driven = set(check)
    out = RobotModel(name, {}, [], [])
    quiet: list[LoadWarning] = []
    for element in children(root, 'joint'):
        if namespace(element) != namespace(root):
            continue
        joint = _read_joint(element, path, driven, lenient, out, quiet)
        if joint is not None:
            out.joints.setdefault(joint.name, joint)
    out.warnings.extend(quiet)
    _validate_model(root, path, lenient, out)
    return out


def _read_joint(element: Any, robot_path: str, driven: Iterable[str], lenient: bool,
                model: RobotModel, quiet: list[LoadWarning]) -> UrdfJoint | None:
    """Return one joint, or None for a joint without a name (no transmission can drive it)."""
    name = element.get('name') or ''   # exactly as written, as urdfdom reads it
    path = child_path(robot_path, element)
    if not name.strip():
        _model_problem(path, "a <joint> without a 'name'", source_line(element), lenient, model)
        return None
    joint_type = (element.get('type') or '').strip()
    is_driven = name in driven
    if joint_type not in JOINT_TYPES:
        message = (f"expected a joint type ({', '.join(JOINT_TYPES)}), got "
                   f'{element.get("type")!r}')
        if is_driven:
            raise BadValueError(f'{path}/@type', message, source_line(element))
        quiet.append(LoadWarning(f'{path}/@type', message, source_line(element)))
        joint_type = 'fixed'
    limits = [c for c in children(element, LIMIT_TAG) if namespace(c) == namespace(element)]
    reader = LimitReader(element, joint_type, path, driven=is_driven, lenient=lenient,
                         notes=model.limit_warnings, quiet_notes=quiet)
    lower, upper, velocity, effort = reader.read(limits[0] if limits else None)
    mimic = next((m.get('joint') for m in children(element, 'mimic') if m.get('joint')), None)
    safety = read_safety_controller(reader, _own_child(element, SAFETY_CONTROLLER_TAG))
    calibration = read_calibration(reader, _own_child(element, CALIBRATION_TAG))
    return UrdfJoint(name, joint_type, lower, upper, velocity, effort, mimic, safety,
                     calibration)


def _own_child(element: Any, tag: str) -> Any:
    """Return the first ``tag`` child of ``element`` in its namespace, or None."""
    return next((c for c in children(element, tag) if namespace(c) == namespace(element)), None)


def _model_problem(path: str, message: str, line: int | None, lenient: bool,
                   model: RobotModel) -> None:
    """Raise (strict) or note (lenient) a robot model problem that transmissions do not need."""
    if not lenient:
        raise BadValueError(path, f'{message}; {_OUTSIDE}: fix it, or load leniently to ignore '
                            'it', line)
    model.limit_warnings.append(LoadWarning(path, f'{message}; ignored (lenient mode): '
                                            f'{_OUTSIDE}', line))


def _validate_model(root: Any, path: str, lenient: bool, model: RobotModel) -> None:
    """
    Check the links and joints with urdf_parser_py; collect its warnings.

    The links and joints go to urdf_parser_py as namespace-free copies (their limits left
    out: read above), :data:`_BATCH` at a time into one robot object, as elements rather than
    text: the same checks and messages as one document of them all (element indices run on),
    without a copy of the whole model and its re-parsed text at once (memory that would grow
    with the model).
    """
    from urdf_parser_py import urdf as upp
    import urdf_parser_py.xml_reflection.core as upp_core

    name = root.get('name', '')
    messages: list[str] = []
    _install_router(upp_core)
    _collector.messages = messages
    try:
        robot = upp.URDF()
        where = upp_core.Path(upp.URDF.XML_REFL.tag)
        batch = etree.Element('robot', name=name)
        for child in root:
            if _local(child.tag) in _KEPT_TAGS:
                copy = plain_copy(child)
                for limit in [c for c in copy if c.tag == LIMIT_TAG]:
                    copy.remove(limit)  # read above, with one rule and precise messages
                batch.append(copy)
                if len(batch) == _BATCH:
                    robot.read_xml(batch, where)
                    batch = etree.Element('robot', name=name)
        if len(batch) or not robot.joints and not robot.links:
            robot.read_xml(batch, where)
    except Exception as e:  # noqa: B902 - urdf_parser_py raises plain Exception subclasses
        _model_problem(path, f'urdf_parser_py cannot read the links and joints: {e}', None,
                       lenient, model)
    finally:
        _collector.messages = None
    model.warnings.extend(messages)
