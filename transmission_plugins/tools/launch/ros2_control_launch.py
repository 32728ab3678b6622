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
The launch description of ``launch/ros2_control.launch.py``: ros2_control driving the hardware.

The package's nodes are started as in ``transmission_hardware.launch.py``
(:mod:`.launch_description`: the same plan, parameters file in memory, a node exit ends the
launch, SIGINT to ``ros2 launch`` alone passed on), the hardware interface remapped to the
``<ros2_control>`` block's topics (:mod:`.ros2_control_plan`); in front of them
``ros2_control_node`` and one ``spawner``, started when the hardware interface logs that it is
active (doc/ros2_control.md).  The controllers' sections go into the same in-memory parameters
file; the spawner passes it (``--param-file``) to the controller manager.
"""

import re
from typing import Any

from launch import LaunchContext
from launch import LaunchDescription
from launch.action import Action
from launch.actions import LogInfo
from launch.actions import OpaqueFunction
from launch.actions import RegisterEventHandler
from launch.event_handlers import OnProcessExit
from launch.event_handlers import OnProcessIO
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node
from transmission_plugins.tools.launch.launch_description import declared
from transmission_plugins.tools.launch.launch_description import ends_the_launch
from transmission_plugins.tools.launch.launch_description import interrupt_on_shutdown
from transmission_plugins.tools.launch.launch_description import NodeExited
from transmission_plugins.tools.launch.launch_description import package_node
from transmission_plugins.tools.launch.node_plan import HARDWARE_INTERFACE
from transmission_plugins.tools.launch.params_file import ParamsFile
from transmission_plugins.tools.launch.ros2_control_plan import ARGUMENTS
from transmission_plugins.tools.launch.ros2_control_plan import plan_ros2_control
from transmission_plugins.tools.launch.ros2_control_plan import Ros2ControlPlan

#: the hardware interface's log line on reaching *active* (``ros/hardware_interface_node.py``)
ACTIVE = re.compile(r'\]: active$', re.M)


def generate_launch_description() -> LaunchDescription:
    """Declare :data:`~.ros2_control_plan.ARGUMENTS` and the node set (:func:`node_set`)."""
    return declared(ARGUMENTS, node_set)


def node_set(context: LaunchContext, *args: Any, **kwargs: Any) -> list[Action]:
    """
    Turn the evaluated launch arguments into the node actions and their event handlers.

    :raises LaunchConfigError: a bad argument or file (``ros2 launch`` prints it, exits 1)
    """
    values = {name: LaunchConfiguration(name).perform(context) for name in ARGUMENTS}
    plan = plan_ros2_control(values)
    nodes_plan = plan.nodes
    params = ParamsFile(nodes_plan.specs + [plan.control_node],   # open until ros2 launch exits
                        extra=plan.controllers)
    actions: list[Action] = [LogInfo(msg=f'{name} not started: {reason}')
                             for name, reason in nodes_plan.skipped]
    actions += [LogInfo(msg=note) for note in plan.notes]
    nodes = [package_node(spec, nodes_plan, params.path) for spec in nodes_plan.specs]
    for spec, node in zip(nodes_plan.specs, nodes):
        actions += [node, ends_the_launch(node, spec.name)]
    if plan.publish_description:
        actions.append(OpaqueFunction(function=_publish_description, args=[plan]))
    ros_arguments = ['--log-level', nodes_plan.log_level]
    namespace = nodes_plan.namespace or None
    # no name: a __node remapping would rename every node of its process (the controllers too)
    manager = Node(package=plan.control_node.package, executable=plan.control_node.executable,
                   namespace=namespace, parameters=[params.path], ros_arguments=ros_arguments,
                   output='screen')
    nodes.append(manager)
    actions += [manager, ends_the_launch(manager, 'ros2_control_node')]
    if plan.spawn:
        spawner = Node(package='controller_manager', executable='spawner',
                       arguments=[*plan.spawn, '--param-file', params.path,
                                  '--controller-manager', 'controller_manager'],
                       namespace=namespace, ros_arguments=ros_arguments, output='screen')
        nodes.append(spawner)
        hardware = nodes[[s.name for s in nodes_plan.specs].index(HARDWARE_INTERFACE)]
        # joint_trajectory_controller holds the joint state it reads when activated: not before
        # the hardware interface is active (the states would still be NaN)
        started: list[Node] = []
        actions += [RegisterEventHandler(OnProcessIO(
                        target_action=hardware,
                        on_stdout=lambda event: _when_active(event, spawner, started),
                        on_stderr=lambda event: _when_active(event, spawner, started))),
                    RegisterEventHandler(OnProcessExit(
                        target_action=spawner,
                        on_exit=lambda event, ctx: _spawner_exit(plan, event, ctx)))]
    actions.append(interrupt_on_shutdown(nodes))
    return actions


def _publish_description(context: LaunchContext, plan: Ros2ControlPlan) -> None:
    """Publish the controller manager's description on ``robot_description`` (transient local)."""
    from launch_ros.ros_adapters import get_ros_node
    from rclpy.qos import DurabilityPolicy
    from rclpy.qos import QoSProfile
    from rclpy.qos import ReliabilityPolicy
    from std_msgs.msg import String
    namespace = plan.nodes.namespace.strip('/')
    topic = f'/{namespace}/robot_description' if namespace else '/robot_description'
    qos = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL,
                     reliability=ReliabilityPolicy.RELIABLE)
    node = get_ros_node(context)   # the publisher lives as long as ros2 launch's ROS node
    node.create_publisher(String, topic, qos).publish(String(data=plan.description))
    return None


def _when_active(event: Any, spawner: Node, started: list[Node]) -> list[Action] | None:
    """Return ``[spawner]`` the first time the hardware interface logs that it is active."""
    if started or not ACTIVE.search(event.text.decode(errors='replace')):
        return None
    started.append(spawner)
    return [spawner]


def _spawner_exit(plan: Ros2ControlPlan, event: Any, context: LaunchContext) -> None:
    """End the launch when the spawner fails (the controllers are not all active)."""
    if context.is_shutdown or event.returncode == 0:
        return None
    raise NodeExited(f'spawner exited with code {event.returncode}: the controllers '
                     f'{", ".join(plan.spawn)} are not all active (see the controller_manager '
                     'lines above); stopping the other nodes')


__all__ = ['generate_launch_description', 'node_set']
