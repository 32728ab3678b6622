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
What ``ros2_control.launch.py`` starts: the package's node plan, and ros2_control in front of it.

:func:`plan_ros2_control` takes the arguments of ``transmission_hardware.launch.py``
(:data:`~.node_plan.LAUNCH_ARGUMENTS`, read by :func:`~.node_plan.plan_nodes` for the package's
own nodes) plus :data:`ROS2_CONTROL_ARGUMENTS`, and adds what doc/ros2_control.md lists: the
``<ros2_control>`` block (the description's ``TopicBasedSystem`` blocks, else the generated
one), the remappings to its topics, ``ros2_control_node`` and its controllers, and who
publishes ``robot_description`` (:attr:`Ros2ControlPlan.publish_description`).
"""

from pathlib import Path
from typing import Any
from typing import Mapping
from typing import NamedTuple

from transmission_plugins.core.exceptions import TransmissionError
from transmission_plugins.tools.launch.node_plan import HARDWARE_INTERFACE
from transmission_plugins.tools.launch.node_plan import installed_executable
from transmission_plugins.tools.launch.node_plan import LAUNCH_ARGUMENTS
from transmission_plugins.tools.launch.node_plan import LaunchConfigError
from transmission_plugins.tools.launch.node_plan import load_sections
from transmission_plugins.tools.launch.node_plan import NodePlan
from transmission_plugins.tools.launch.node_plan import NodeSpec
from transmission_plugins.tools.launch.node_plan import package_file
from transmission_plugins.tools.launch.node_plan import parse_bool
from transmission_plugins.tools.launch.node_plan import parse_mode
from transmission_plugins.tools.launch.node_plan import plan_nodes
from transmission_plugins.tools.launch.node_plan import ROBOT_STATE_PUBLISHER
from transmission_plugins.tools.launch.ros2_control_config import CONTROLLER_MANAGER
from transmission_plugins.tools.launch.ros2_control_config import controllers_document
from transmission_plugins.tools.launch.ros2_control_config import DEFAULT_COMMAND_INTERFACES
from transmission_plugins.tools.launch.ros2_control_config import DEFAULT_CONTROLLERS
from transmission_plugins.tools.launch.ros2_control_config import DEFAULT_UPDATE_RATE
from transmission_plugins.tools.launch.ros2_control_config import other_blocks
from transmission_plugins.tools.launch.ros2_control_config import ros2_control_config
from transmission_plugins.tools.launch.ros2_control_config import topic_based_blocks
from transmission_plugins.tools.launch.ros2_control_config import with_block

#: the arguments of ros2_control.launch.py beyond those of transmission_hardware.launch.py
ROS2_CONTROL_ARGUMENTS = {
    'controllers_file': ('', 'controllers YAML (controller_manager and the controllers, '
                             '<name>: ros__parameters: ...); default: generated for the robot, '
                             'as transmission_plugins ros2-control prints it'),
    'controllers': (' '.join(DEFAULT_CONTROLLERS), 'the controllers to spawn and activate, '
                                                   'separated by spaces'),
    'command_interfaces': (' '.join(DEFAULT_COMMAND_INTERFACES),
                           'command interfaces of the generated block and of '
                           'joint_trajectory_controller, separated by spaces: position, '
                           'velocity, effort'),
}
#: every argument of ros2_control.launch.py, in declaration order
ARGUMENTS = dict(LAUNCH_ARGUMENTS, **ROS2_CONTROL_ARGUMENTS)
ARGUMENTS['config_file'] = ('', "the package's nodes' parameters YAML; default: the bundled "
                                'config/ros2_control.yaml (the defaults with qos_depth 1: the '
                                'newest state and command only)')
ARGUMENTS['mode'] = ('hardware', 'hardware only: ros2_control drives the joints of the '
                                 'hardware interface (simulation mode is '
                                 'transmission_hardware.launch.py)')
ARGUMENTS['update_rate'] = ('', 'cycle rate in Hz of the hardware interface and of the '
                                "controller manager; default: config_file's and "
                                "controllers_file's (100 Hz in the bundled and generated ones)")


class Ros2ControlPlan(NamedTuple):
    """What to start: the package's nodes, the controller manager, the controllers."""

    #: the package's nodes (the hardware interface remapped) and robot_state_publisher
    nodes: NodePlan
    #: ros2_control_node, with its parameters
    control_node: NodeSpec
    #: every controller section (name to parameters), for the spawner's parameters file
    controllers: dict[str, dict[str, Any]]
    #: the controllers to spawn, in order
    spawn: tuple[str, ...]
    #: the description the controller manager reads on ``robot_description``
    description: str
    #: True when robot_state_publisher does not start: the launch publishes the description
    publish_description: bool
    #: what the launch logs (the block's origin, replaced blocks)
    notes: list[str]


def _required(package: str, executable: str) -> None:
    if installed_executable(package, executable) is None or not _registered(
            'topic_based_ros2_control'):
        raise LaunchConfigError(
            f'{package} {executable} is not installed (no lib/{package}/{executable} under '
            'AMENT_PREFIX_PATH): install ros2_control, ros2_controllers and '
            'topic_based_ros2_control (rosdep), or ../shared/ros2_control/install.sh VENV in '
            'this project')


def _registered(package: str) -> bool:
    """Tell whether ``package`` is in the ament index (a plugin library has no executable)."""
    import os
    index = Path('share', 'ament_index', 'resource_index', 'packages', package)
    return any(Path(prefix, index).is_file()
               for prefix in os.environ.get('AMENT_PREFIX_PATH', '').split(os.pathsep) if prefix)


def load_controllers(path: str) -> dict[str, dict[str, Any]]:
    """Read the ``controllers_file``: controller (or ``controller_manager``) name to parameters."""
    return load_sections(path, 'controllers_file', 'controller')


def _is_joint_states(topic: str, namespace: str) -> bool:
    ns = '/' + namespace.strip('/') if namespace.strip('/') else ''
    return topic.strip() in ('joint_states', f'{ns}/joint_states', '~/joint_states') or (
        topic.strip() == '/joint_states' and not ns)


def _cm_rate(rate: float | None, controllers: dict[str, dict[str, Any]],
             controllers_file: str) -> int:
    """
    Return the controller manager's rate: the launch argument, else the controllers file's.

    :param rate: the ``update_rate`` launch argument's value (checked by
        :func:`~.node_plan.plan_nodes` as the node checks it), None when not given

    ros2_control declares ``update_rate`` an integer, a rule of ros2_control's own: a rate the
    hardware interface accepts but that is not a whole number is refused for the controller
    manager, and a file's 1.5 (it was read as 1 Hz) or anything but a whole number > 0 too,
    naming the file and the value.
    """
    if rate is None:
        given = controllers.get(CONTROLLER_MANAGER, {}).get('update_rate', DEFAULT_UPDATE_RATE)
        if isinstance(given, bool) or not isinstance(given, int) or given <= 0:
            raise LaunchConfigError(f'{controllers_file}: {CONTROLLER_MANAGER}.update_rate: '
                                    'expected a whole number of Hz > 0 (ros2_control reads an '
                                    f'integer), got {given!r}')
        return given
    if rate != int(rate):
        raise LaunchConfigError(f'update_rate must be a whole number of Hz for '
                                f'ros2_control_node (ros2_control reads an integer), got '
                                f'{rate:g}')
    return int(rate)


def plan_ros2_control(values: Mapping[str, Any],
                      robot_state_publisher: bool | None = None) -> Ros2ControlPlan:
    """
    Return what ``ros2_control.launch.py`` starts for the launch arguments ``values``.

    :param robot_state_publisher: start it; None: when it is installed
    :raises LaunchConfigError: a bad argument or file, a block that reads ``joint_states``,
        several ``TopicBasedSystem`` blocks on different topics, ros2_control not installed
    """
    if parse_mode(values.get('mode') or 'hardware') != 'hardware':
        raise LaunchConfigError('mode simulation does not apply to ros2_control.launch.py: '
                                'ros2_control drives joints; the simulation interface is for '
                                'motor-level software (transmission_hardware.launch.py '
                                'mode:=simulation)')
    _required('controller_manager', 'ros2_control_node')
    if not str(values.get('config_file') or '').strip():
        values = dict(values, config_file=str(package_file('config', 'ros2_control.yaml')))
    nodes = plan_nodes(values, robot_state_publisher)
    hardware, = [s for s in nodes.specs if s.name == HARDWARE_INTERFACE]
    original = hardware.parameters['robot_description']
    notes: list[str] = []
    controllers_file = str(values.get('controllers_file') or '').strip()
    controllers = load_controllers(controllers_file) if controllers_file else {}
    argument = str(values.get('update_rate') or '').strip()
    rate = _cm_rate(hardware.parameters['update_rate'] if argument else None, controllers,
                    controllers_file)
    try:
        blocks = topic_based_blocks(original)
        if blocks:
            topics = {(b.states_topic, b.commands_topic) for b in blocks}
            if len(topics) > 1:
                raise LaunchConfigError(
                    'the description has TopicBasedSystem blocks on different topics '
                    f'({sorted(topics)}); the hardware interface has one joint_states and one '
                    'joint_commands')
            (states, commands), = topics
            description = original
            joints = tuple(j for b in blocks for j in b.joints)
            command = tuple(i for b in blocks for i in b.command_interfaces)
            state = tuple(i for b in blocks for i in b.state_interfaces)
            notes.append("ros2_control: the description's TopicBasedSystem block "
                         f'{", ".join(repr(b.name) for b in blocks)} ({len(joints)} joints)')
        else:
            from transmission_plugins.robot.loading import load_robot_transmissions
            from transmission_plugins.tools.launch.ros2_control_config import JOINT_COMMANDS_TOPIC
            from transmission_plugins.tools.launch.ros2_control_config import JOINT_STATES_TOPIC
            lenient = parse_bool(hardware.parameters.get('lenient', False), 'lenient')
            robot = load_robot_transmissions(original, lenient=lenient, warn=False)
            interfaces = values.get('command_interfaces')
            if interfaces is None:
                interfaces = ROS2_CONTROL_ARGUMENTS['command_interfaces'][0]
            config = ros2_control_config(robot, str(interfaces).replace(',', ' ').split(),
                                         update_rate=rate)
            description = with_block(original, config.block)
            states, commands = JOINT_STATES_TOPIC, JOINT_COMMANDS_TOPIC
            joints, command, state = (config.joints, config.command_interfaces,
                                      config.state_interfaces)
            passive = f', {len(config.passive)} passive left out' if config.passive else ''
            notes.append(f'ros2_control: generated TopicBasedSystem block '
                         f'({len(joints)} joints{passive})')
            notes += [f"ros2_control: the description's block {name!r} ({plugin}) is replaced "
                      'by the generated one for the controller manager'
                      for name, plugin in other_blocks(original)]
    except LaunchConfigError:
        raise
    except TransmissionError as e:
        raise LaunchConfigError(f'ros2_control block: {e}') from e
    if _is_joint_states(states, nodes.namespace):
        raise LaunchConfigError(
            f'the TopicBasedSystem block reads {states!r}, where joint_state_broadcaster '
            'publishes: give its joint_states_topic another name (the hardware interface is '
            'remapped to it)')
    if not controllers:
        controllers = {k.rsplit('/', 1)[-1]: v['ros__parameters'] for k, v in
                       controllers_document(joints, command, state, rate).items()}
    spawn_text = values.get('controllers')
    if spawn_text is None:
        spawn_text = ROS2_CONTROL_ARGUMENTS['controllers'][0]
    spawn = tuple(str(spawn_text).replace(',', ' ').split())
    missing = [c for c in spawn if c not in controllers]
    if missing:
        where = controllers_file or 'the generated controllers'
        known = sorted(c for c in controllers if c != CONTROLLER_MANAGER)
        raise LaunchConfigError(f'controllers {missing} have no section in {where} (it has '
                                f'{known})')
    if spawn:
        _required('controller_manager', 'spawner')
    manager = dict(controllers.get(CONTROLLER_MANAGER, {}))
    manager.update(update_rate=rate, use_sim_time=hardware.parameters['use_sim_time'])
    control_node = NodeSpec(CONTROLLER_MANAGER, 'controller_manager', 'ros2_control_node', None,
                            manager)
    specs = []
    for spec in nodes.specs:
        if spec.name == HARDWARE_INTERFACE:
            spec = spec._replace(remappings=spec.remappings + (
                ('joint_states', states), ('joint_commands', commands)))
        elif spec.name == ROBOT_STATE_PUBLISHER:
            spec = spec._replace(parameters=dict(spec.parameters,
                                                 robot_description=description))
        specs.append(spec)
    publish = all(s.name != ROBOT_STATE_PUBLISHER for s in specs)
    sections = {k: v for k, v in controllers.items() if k != CONTROLLER_MANAGER}
    return Ros2ControlPlan(nodes._replace(specs=specs), control_node, sections, spawn,
                           description, publish, notes)


__all__ = ['ARGUMENTS', 'ROS2_CONTROL_ARGUMENTS', 'Ros2ControlPlan', 'load_controllers',
           'plan_ros2_control']
