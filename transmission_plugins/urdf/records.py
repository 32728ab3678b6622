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
What the URDF parser hands to transmission plugins, and what plugins hand back.

The URDF protocol of a plugin (``from_info``, ``URDF_VOCABULARY``) is ARCHITECTURE.md's "Plugin
protocol"; the raw element stays in the records so that a plugin can read its vendor tags.
Each record keeps, beside each value it holds, where in the text the value was read
(:class:`Origin`, in the record's ``origins``): errors, lint findings and the URDF rewriter name
and target that place without searching the XML again.
"""

from dataclasses import dataclass
from dataclasses import field
from typing import Mapping
from typing import NamedTuple

from transmission_plugins.core.drivetrain import Backlash
from transmission_plugins.core.drivetrain import Friction
from transmission_plugins.core.drivetrain import Motor
from transmission_plugins.core.transmission import Transmission
from transmission_plugins.urdf.elements import XmlElement


class Origin(NamedTuple):
    """
    Where a value was read in the URDF text (or, ``given`` False, where it would be read).

    The value itself stays in its record's field (one stored copy); the origin only says where.
    """

    #: element path of the value: ``.../actuator[@name='m']/mechanicalReduction`` (a child
    #: element), ``.../flexJoint[@name='j']/@mechanicalReduction`` (an attribute) or
    #: ``.../param[@name='p']``; the last step is the spelling used
    path: str
    #: source line of the element holding the value (None when unknown); when not ``given``,
    #: the line of the element the value would be added to
    line: int | None
    #: False for a value the text does not give: ``path`` is where the reader would read it
    given: bool = True

    @property
    def tag(self) -> str:
        """Return the spelling read: the element's local name, or ``@attribute``."""
        return self.path.rsplit('/', 1)[-1].split('[', 1)[0]

    @property
    def parent(self) -> str:
        """Return the path of the element holding the value (of its element, for an attribute)."""
        return self.path.rsplit('/', 1)[0]


def item_key(field_name: str, item: str) -> str:
    """Return the ``origins`` key of one item of a collection field: ``params:name``."""
    return f'{field_name}:{item}'


#: Dialects the parser recognises.
DIALECT_ROS2_CONTROL = 'ros2_control'
DIALECT_ROS1 = 'ros1'
DIALECT_PR2 = 'pr2'
#: FROST (Caltech/UMich Cassie, ATRIAS): robot-level, no type, ``<motorInertia>``
DIALECT_FROST = 'frost'


@dataclass(frozen=True)
class JointInfo:
    """One ``<joint>`` child of a ``<transmission>``."""

    name: str
    role: str | None = None
    #: ``mechanicalReduction`` / ``mechanical_reduction``; None when not given
    mechanical_reduction: float | None = None
    #: ``<offset>``; None when not given
    offset: float | None = None
    #: normalised ``hardwareInterface`` names (ROS 1) or interface names (ros2_control)
    interfaces: tuple[str, ...] = ()
    path: str = ''
    line: int | None = None
    element: XmlElement | None = field(default=None, compare=False, repr=False)
    #: ros2_control ``read_only="true"``
    read_only: bool = False
    #: ``<friction>`` on this end (its units: the joint's, or the actuator's), None when absent
    friction: Friction | None = None
    #: ``<backlash width>`` on this end, None when absent
    backlash: Backlash | None = None
    #: field name -> where its value was read: ``mechanical_reduction``, ``offset``, ``role``,
    #: the actuator data fields, ``interfaces:<name>`` for each interface (:func:`item_key`),
    #: ``friction``, ``backlash`` and ``motor`` (the elements) and ``friction:<attribute>``...
    #: (each attribute); a value not given has no entry
    origins: Mapping[str, Origin] = field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True)
class ActuatorInfo(JointInfo):
    """One ``<actuator>`` child of a ``<transmission>``: a joint's fields plus actuator data."""

    #: Drake ``<drake:rotor_inertia value>``, ros2_control ``<param name="rotor_inertia">`` or
    #: FROST ``<motorInertia>``
    rotor_inertia: float | None = None
    #: Drake ``<drake:gear_ratio value>`` or ``<param name="gear_ratio">``
    gear_ratio: float | None = None
    #: ``<param name="effort_limit">`` / ``<drake:effort_limit value>`` (actuator units)
    effort_limit: float | None = None
    #: Drake ``<drake:controller_gains p d>`` or params ``kp``/``kd``: (p, d)
    controller_gains: tuple[float, float] | None = None
    #: ``<motor>``: torque constant, torque-speed envelope, thermal model; None when absent
    motor: Motor | None = None
    #: True for an actuator the parser names: the one it adds to a transmission of a ros2_control
    #: ``type="actuator"`` block that declares none (named after the block, role ``actuator1``),
    #: a nameless FROST ``<actuator>`` (named after its transmission), and the actuators of
    #: hardware parameters (:mod:`~transmission_plugins.urdf.hardware_parameters`)
    implicit: bool = False


@dataclass(frozen=True)
class TransmissionInfo:
    """One ``<transmission>`` element, whatever its dialect."""

    name: str
    #: the type as written (``<plugin>``, ``<type>`` or ``type=`` attribute)
    type: str  # noqa: A003
    joints: tuple[JointInfo, ...] = ()
    actuators: tuple[ActuatorInfo, ...] = ()
    dialect: str = DIALECT_ROS1
    #: ``<param name=...>`` values (ros2_control)
    params: Mapping[str, str] = field(default_factory=dict)
    #: element path, e.g. ``/robot[@name='r']/transmission[@name='t']``
    path: str = ''
    line: int | None = None
    element: XmlElement | None = field(default=None, compare=False, repr=False)
    #: True when the parser may fall back to defaults for ill-defined values (lenient mode)
    lenient: bool = field(default=False, compare=False)
    #: ``<mechanicalReduction>`` written directly under ``<transmission>`` (PR2, old diffbot)
    mechanical_reduction: float | None = None
    #: name and type of the enclosing ``<ros2_control>`` block (ros2_control dialect only)
    block: str | None = None
    block_type: str | None = None
    #: field name -> where its value was read: ``mechanical_reduction`` and ``params:<name>``
    #: for each of ``params`` (:func:`item_key`); a value not given has no entry
    origins: Mapping[str, Origin] = field(default_factory=dict, compare=False, repr=False)


class TransmissionWiring(NamedTuple):
    """A transmission and the names of its joints and actuators, in map order."""

    transmission: Transmission
    joint_names: tuple[str, ...]
    actuator_names: tuple[str, ...]
