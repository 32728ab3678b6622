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

"""The URDF vocabulary of ``<transmission>``: standard tags, defaults, and what a plugin reads."""

from typing import Mapping
from typing import NamedTuple

#: Defaults of a missing reduction and offset (ros2_control's); lenient mode also puts them in
#: place of ill-defined values.
DEFAULT_REDUCTION = 1.0
DEFAULT_OFFSET = 0.0

ROBOT_TAG = 'robot'
ROS2_CONTROL_TAG = 'ros2_control'
TRANSMISSION_TAG = 'transmission'
JOINT_TAG = 'joint'
ACTUATOR_TAG = 'actuator'
TYPE_TAG = 'type'
PLUGIN_TAG = 'plugin'
PARAM_TAG = 'param'
ROLE_TAG = 'role'
OFFSET_TAG = 'offset'
HARDWARE_INTERFACE_TAG = 'hardwareInterface'
#: ROS 1 spelling first, ros2_control spelling second; both are read in every dialect.
REDUCTION_TAGS = ('mechanicalReduction', 'mechanical_reduction')
HARDWARE_INTERFACE_PREFIX = 'hardware_interface/'
#: FROST's rotor inertia, directly under ``<transmission>`` or in its ``<actuator>``
MOTOR_INERTIA_TAG = 'motorInertia'

#: The drivetrain elements (doc/drivetrain.md): friction and backlash on either end, the motor
#: (and its torque-speed table) on an actuator.
FRICTION_TAG = 'friction'
BACKLASH_TAG = 'backlash'
MOTOR_TAG = 'motor'
TORQUE_SPEED_TAG = 'torque_speed'

#: Children and attributes of ``<joint>`` / ``<actuator>`` that the parser reads itself.
JOINT_CHILDREN = (ROLE_TAG, OFFSET_TAG, HARDWARE_INTERFACE_TAG) + REDUCTION_TAGS + (
    FRICTION_TAG, BACKLASH_TAG)
JOINT_ATTRIBUTES = ('name', 'role', 'read_only')
#: Drake actuator tags (``<drake:rotor_inertia value>``..., matched by local name) and
#: ros2_control ``<param>`` names of an ``<actuator>``, read by the parser into
#: :class:`~transmission_plugins.urdf.records.ActuatorInfo` fields.
DRAKE_ACTUATOR_TAGS = ('rotor_inertia', 'gear_ratio', 'controller_gains', 'effort_limit')
#: Every actuator data tag the parser reads: Drake's and FROST's ``<motorInertia>``.
ACTUATOR_DATA_TAGS = DRAKE_ACTUATOR_TAGS + (MOTOR_INERTIA_TAG,)
ACTUATOR_PARAMS = ('rotor_inertia', 'gear_ratio', 'effort_limit', 'kp', 'kd')


class ElementRule(NamedTuple):
    """The attributes and child tags a vendor element may carry (its children are not checked)."""

    attributes: tuple[str, ...] = ()
    children: tuple[str, ...] = ()


class UrdfVocabulary(NamedTuple):
    """
    What a transmission plugin reads in its ``<transmission>`` element (``URDF_VOCABULARY``).

    :param children: every ``<transmission>`` child tag the plugin reads, or None for the
        standard ones of the record's dialect (``<joint>``, ``<actuator>``, the type element and
        the reduction of PR2-style transmissions; ``<plugin>`` and ``<param>`` inside
        ``<ros2_control>``)
    :param extra_children: child tags accepted besides ``children``: vendor tags the plugin
        reads (``<pinion_radius>``), or tags it knowingly ignores (a PR2 ``<compensator>`` that
        only matters to the PR2 controllers)
    :param attributes: ``<transmission>`` attributes read besides ``name`` and ``type``
    :param joint_children: children of ``<joint>`` read besides :data:`JOINT_CHILDREN`
    :param actuator_children: children of ``<actuator>`` read besides :data:`JOINT_CHILDREN` and
        the actuator data (Drake tags, :data:`ACTUATOR_PARAMS`)
    :param params: ``<param name>`` values of a ros2_control ``<transmission>`` the plugin reads
    :param elements: vendor children (``<gap_joint>``...) and what each may carry
    """

    children: tuple[str, ...] | None = None
    extra_children: tuple[str, ...] = ()
    attributes: tuple[str, ...] = ()
    joint_children: tuple[str, ...] = ()
    actuator_children: tuple[str, ...] = ()
    params: tuple[str, ...] = ()
    elements: Mapping[str, ElementRule] = {}


#: What a plugin that declares no ``URDF_VOCABULARY`` reads: the standard elements only.
STANDARD_VOCABULARY = UrdfVocabulary()
