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
The ros2_control side of a robot: a ``TopicBasedSystem`` ``<ros2_control>`` block, controllers.

ros2_control meets the hardware interface through PickNik's ``topic_based_ros2_control``: its
``TopicBasedSystem`` plugin publishes the joint commands of the controller manager on one
``sensor_msgs/JointState`` topic and reads joint states from another.  :func:`ros2_control_config`
writes that block (:data:`HARDWARE_NAME`, on :data:`JOINT_COMMANDS_TOPIC` and
:data:`JOINT_STATES_TOPIC`) for a robot's transmissions, and the controllers to go with it, as
doc/ros2_control.md describes them.
"""

from typing import Any
from typing import NamedTuple
from typing import Sequence
from xml.sax.saxutils import quoteattr

from transmission_plugins.core.exceptions import TransmissionValueError
from transmission_plugins.core.interfaces import INTERFACE_KIND
from transmission_plugins.robot.robot_transmissions import RobotTransmissions
from transmission_plugins.runtime.topology import Topology
from transmission_plugins.urdf.dialects import implicit_actuator_name
from transmission_plugins.urdf.elements import local_name
from transmission_plugins.urdf.text import parse_xml
import yaml

TOPIC_BASED_SYSTEM = 'topic_based_ros2_control/TopicBasedSystem'
#: the name of the generated hardware component
HARDWARE_NAME = 'transmission_hardware'
#: the topics of the generated block (the hardware interface's joint_states / joint_commands)
JOINT_STATES_TOPIC = 'transmission/joint_states'
JOINT_COMMANDS_TOPIC = 'transmission/joint_commands'
#: TopicBasedSystem's topics when its block names none
UPSTREAM_STATES_TOPIC = '/robot_joint_states'
UPSTREAM_COMMANDS_TOPIC = '/robot_joint_commands'
#: the interfaces a sensor_msgs/JointState carries, in its field order
JOINT_STATE_INTERFACES = ('position', 'velocity', 'effort')
DEFAULT_COMMAND_INTERFACES = ('position',)
#: joint_trajectory_controller reads position and velocity states
TRAJECTORY_STATE_INTERFACES = ('position', 'velocity')
CONTROLLER_MANAGER = 'controller_manager'
JOINT_STATE_BROADCASTER = 'joint_state_broadcaster'
JOINT_TRAJECTORY_CONTROLLER = 'joint_trajectory_controller'
#: the controllers the launch file spawns by default
DEFAULT_CONTROLLERS = (JOINT_STATE_BROADCASTER, JOINT_TRAJECTORY_CONTROLLER)
DEFAULT_UPDATE_RATE = 100


class Ros2ControlConfig(NamedTuple):
    """The generated ros2_control side of one robot."""

    robot_name: str
    #: the commandable joints, URDF order: the joints of the block
    joints: tuple[str, ...]
    #: joints of the transmissions left out of the block (passive)
    passive: tuple[str, ...]
    command_interfaces: tuple[str, ...]
    state_interfaces: tuple[str, ...]
    #: the ``<ros2_control>`` element, as XML text
    block: str
    #: the controllers YAML document (``/**/<name>: {ros__parameters: ...}``)
    controllers: dict[str, Any]


class TopicBasedBlock(NamedTuple):
    """A ``<ros2_control>`` block of a URDF that uses ``TopicBasedSystem``."""

    name: str
    joints: tuple[str, ...]
    #: its ``joint_states_topic`` and ``joint_commands_topic`` (upstream defaults when absent)
    states_topic: str
    commands_topic: str
    #: the interfaces its joints declare, in order of appearance
    command_interfaces: tuple[str, ...]
    state_interfaces: tuple[str, ...]


def ros2_control_config(robot: RobotTransmissions,
                        command_interfaces: Sequence[str] = DEFAULT_COMMAND_INTERFACES,
                        update_rate: int = DEFAULT_UPDATE_RATE) -> Ros2ControlConfig:
    """
    Return the ``<ros2_control>`` block and the controllers for ``robot`` (module docstring).

    :param command_interfaces: the command interfaces of every joint, among
        :data:`JOINT_STATE_INTERFACES`
    :param update_rate: the controller manager's ``update_rate`` (Hz)
    :raises TransmissionValueError: an unknown or repeated command interface, one a joint's
        transmission does not convert, a rate that is not a whole number of Hz > 0, or a robot
        without a commandable joint
    """
    command = tuple(command_interfaces)
    if not command or len(set(command)) != len(command) or any(
            i not in JOINT_STATE_INTERFACES for i in command):
        raise TransmissionValueError('command_interfaces', list(command),
                                     f'distinct names among {", ".join(JOINT_STATE_INTERFACES)}')
    if isinstance(update_rate, bool) or not isinstance(update_rate, int) or update_rate <= 0:
        raise TransmissionValueError('update_rate', update_rate, 'a whole number of Hz > 0')
    topology = Topology(robot)
    joints = tuple(n for i, n in enumerate(robot.joint_names) if topology.commandable[i])
    if not joints:
        raise TransmissionValueError('joints', [], 'at least one commandable joint',
                                     f'robot {robot.robot_name!r}')
    passive = tuple(n for n in robot.joint_names if n not in set(joints))
    state: tuple[str, ...] = JOINT_STATE_INTERFACES
    for t in robot.transmissions:
        supported = {INTERFACE_KIND.get(i, i) for i in t.transmission.supported_interfaces()}
        state = tuple(i for i in state if i in supported)
        missing = [i for i in command if i not in supported]
        if missing:
            raise TransmissionValueError('command_interfaces', missing,
                                         'interfaces its transmission converts',
                                         f'transmission {t.name!r}')
    block = block_xml(joints, command, state)
    controllers = controllers_document(joints, command, state, update_rate)
    return Ros2ControlConfig(robot.robot_name, joints, passive, command, state, block,
                             controllers)


def block_xml(joints: Sequence[str], command_interfaces: Sequence[str],
              state_interfaces: Sequence[str], name: str = HARDWARE_NAME) -> str:
    """Return the ``<ros2_control>`` element of ``joints`` (module docstring) as XML text."""
    lines = [f'<ros2_control name={quoteattr(name)} type="system">',
             '  <hardware>',
             f'    <plugin>{TOPIC_BASED_SYSTEM}</plugin>',
             f'    <param name="joint_commands_topic">{JOINT_COMMANDS_TOPIC}</param>',
             f'    <param name="joint_states_topic">{JOINT_STATES_TOPIC}</param>',
             '    <param name="trigger_joint_command_threshold">-1</param>',
             '  </hardware>']
    for joint in joints:
        lines.append(f'  <joint name={quoteattr(joint)}>')
        lines += [f'    <command_interface name="{i}"/>' for i in command_interfaces]
        lines += [f'    <state_interface name="{i}"><param name="initial_value">nan</param>'
                  '</state_interface>' for i in state_interfaces]
        lines.append('  </joint>')
    lines.append('</ros2_control>')
    return '\n'.join(lines) + '\n'


def controllers_document(joints: Sequence[str], command_interfaces: Sequence[str],
                         state_interfaces: Sequence[str],
                         update_rate: int = DEFAULT_UPDATE_RATE) -> dict[str, Any]:
    """Return the controllers YAML document for the block's ``joints`` (module docstring)."""
    trajectory_states = [i for i in TRAJECTORY_STATE_INTERFACES if i in state_interfaces]
    return {
        f'/**/{CONTROLLER_MANAGER}': {'ros__parameters': {'update_rate': update_rate}},
        f'/**/{JOINT_STATE_BROADCASTER}': {'ros__parameters': {
            'type': 'joint_state_broadcaster/JointStateBroadcaster'}},
        f'/**/{JOINT_TRAJECTORY_CONTROLLER}': {'ros__parameters': {
            'type': 'joint_trajectory_controller/JointTrajectoryController',
            'joints': list(joints),
            'command_interfaces': list(command_interfaces),
            'state_interfaces': trajectory_states,
            'allow_partial_joints_goal': True}},
    }


def controllers_yaml(document: dict[str, Any]) -> str:
    """Return the controllers document as YAML text."""
    return yaml.safe_dump(document, default_flow_style=False, sort_keys=False)


def _blocks(urdf_text: str) -> tuple[Any, list[Any]]:
    root = parse_xml(urdf_text)
    return root, [e for e in root if local_name(e) == 'ros2_control']


def _plugin(block: Any) -> str:
    for hardware in block:
        if local_name(hardware) == 'hardware':
            for child in hardware:
                if local_name(child) == 'plugin':
                    return (child.text or '').strip()
    return ''


def _hardware_param(block: Any, name: str, default: str) -> str:
    for hardware in block:
        if local_name(hardware) == 'hardware':
            for child in hardware:
                if local_name(child) == 'param' and child.get('name') == name:
                    return (child.text or '').strip()
    return default


def _interfaces(joints: list[Any], tag: str) -> tuple[str, ...]:
    names: dict[str, None] = {}
    for joint in joints:
        names.update((i.get('name') or '', None) for i in joint if local_name(i) == tag)
    return tuple(names)


def topic_based_blocks(urdf_text: str) -> list[TopicBasedBlock]:
    """
    Return the URDF's ``<ros2_control>`` blocks that use ``TopicBasedSystem``, in order.

    :raises BadValueError: the text is not well-formed XML
    """
    found = []
    for block in _blocks(urdf_text)[1]:
        if _plugin(block) != TOPIC_BASED_SYSTEM:
            continue
        joints = [j for j in block if local_name(j) == 'joint']
        found.append(TopicBasedBlock(
            block.get('name') or '', tuple(j.get('name') or '' for j in joints),
            _hardware_param(block, 'joint_states_topic', UPSTREAM_STATES_TOPIC),
            _hardware_param(block, 'joint_commands_topic', UPSTREAM_COMMANDS_TOPIC),
            _interfaces(joints, 'command_interface'), _interfaces(joints, 'state_interface')))
    return found


def other_blocks(urdf_text: str) -> list[tuple[str, str]]:
    """Return ``(name, plugin)`` of the URDF's blocks that do not use ``TopicBasedSystem``."""
    return [(b.get('name') or '', _plugin(b)) for b in _blocks(urdf_text)[1]
            if _plugin(b) != TOPIC_BASED_SYSTEM]


def with_block(urdf_text: str, block: str) -> str:
    """
    Return the URDF with its ``<ros2_control>`` blocks replaced by ``block``.

    Their hardware plugins would claim the same joints as ``block`` (and the controller manager
    may not have them).  The ``<transmission>`` elements inside them move into ``block`` as they
    are (comments kept), so that the description still loads the transmissions it had: without
    any block transmission, the robot-level ones (often Gazebo's, with other reductions) would
    be read instead.  ros2_control parses them and ``TopicBasedSystem`` leaves them alone.
    Transmissions kept in a block's hardware parameters (ROBOTIS and dynamixel-community
    Dynamixel hardware) cannot move: :func:`changed_transmissions` tells what is lost.
    """
    from lxml import etree
    root, blocks = _blocks(urdf_text)
    new = parse_xml(block)
    for old in blocks:
        comments: list[Any] = []   # those right before a transmission go with it
        for child in list(old):
            if not isinstance(child.tag, str):
                comments.append(child)
                continue
            if local_name(child) == 'transmission':
                if old.get('type') == 'actuator' and not any(
                        local_name(c) == 'actuator' for c in child):
                    etree.SubElement(child, 'actuator', name=implicit_actuator_name(old),
                                     role='actuator1')   # the block was its actuator
                for moved in comments + [child]:
                    new.append(moved)   # moves it, with its tail
            comments = []
        root.remove(old)
    root.append(new)
    return etree.tostring(root, encoding='unicode') + '\n'


def changed_transmissions(before: RobotTransmissions, after: RobotTransmissions) -> list[str]:
    """
    Return, in words, the transmissions of ``before`` that ``after`` does not have alike.

    Alike: the same joints and actuators, in order, and the same map
    (``Transmission.map_key``); the names may differ.
    """
    def key(t: Any) -> tuple[Any, ...]:
        return (tuple(t.joint_names), tuple(t.actuator_names), t.transmission.map_key())

    kept = [key(t) for t in after.transmissions]
    out = []
    for t in before.transmissions:
        if key(t) in kept:
            kept.remove(key(t))
            continue
        block = getattr(t.info, 'block', None) if t.info is not None else None
        where = (' (in the parameters of its hardware)' if t.info is not None
                 and getattr(t.info, 'element', None) is None and block else '')
        now = [u for u in after.transmissions if set(u.joint_names) & set(t.joint_names)]
        became = (f'read as {", ".join(repr(u.name) for u in now)} instead' if now else 'lost')
        out.append(f'{t.name!r}{where} for {", ".join(t.joint_names)}: {became}')
    return out


__all__ = ['DEFAULT_COMMAND_INTERFACES', 'DEFAULT_CONTROLLERS', 'HARDWARE_NAME',
           'JOINT_COMMANDS_TOPIC', 'JOINT_STATES_TOPIC', 'Ros2ControlConfig',
           'TOPIC_BASED_SYSTEM', 'TopicBasedBlock', 'block_xml', 'controllers_document',
           'changed_transmissions', 'controllers_yaml', 'other_blocks', 'ros2_control_config',
           'topic_based_blocks', 'with_block']
