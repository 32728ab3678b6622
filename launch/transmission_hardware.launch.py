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

r"""
Start the transmission hardware interface, mock actuators and robot_state_publisher.

A thin declarative layer: which nodes start and with which parameters is computed by
:func:`transmission_plugins.tools.launcher.node_specs`, the same function the launcher
(``transmission_hardware_launch``, for machines without ``ros2 launch``) uses::

    ros2 launch transmission_plugins transmission_hardware.launch.py \
        description_file:=/path/robot.urdf.xacro use_mock_actuators:=false
"""

from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument
from launch.actions import OpaqueFunction
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

from transmission_plugins.tools.launcher import LAUNCH_ARGUMENTS
from transmission_plugins.tools.launcher import node_specs
from transmission_plugins.tools.launcher import temporary_params_file


def _nodes(context, *args, **kwargs):
    """Turn the evaluated launch arguments into Node actions."""
    values = {name: LaunchConfiguration(name).perform(context) for name in LAUNCH_ARGUMENTS}
    specs = node_specs(values['description_file'], values['config_file'],
                       values['use_mock_actuators'])
    params_file = temporary_params_file(specs)   # removed when ros2 launch exits
    return [Node(package=spec.package, executable=spec.executable, name=spec.name,
                 parameters=[params_file], output='screen')
            for spec in specs]


def generate_launch_description():
    """
    Declare the arguments and the node set.

    :returns: the launch description: arguments ``description_file``, ``config_file``,
        ``use_mock_actuators``, then the nodes of
        :func:`~transmission_plugins.tools.launcher.node_specs`
    """
    arguments = [DeclareLaunchArgument(name, default_value=default, description=text)
                 for name, (default, text) in LAUNCH_ARGUMENTS.items()]
    return LaunchDescription(arguments + [OpaqueFunction(function=_nodes)])
