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

With ``mode:=simulation``, the simulation interface instead of the hardware interface and the
mock actuators: a joint-space simulator's joint states become actuator states, actuator
commands become its joint commands.

Arguments (``ros2 launch transmission_plugins transmission_hardware.launch.py --show-args``):
``description_file``, ``config_file``, ``use_mock_actuators``, ``mode``, ``namespace``,
``use_sim_time``, ``log_level``, ``update_rate``, ``xacro_args``, ``lenient``,
``actuator_states_topic``, ``actuator_commands_topic``.  Which nodes
start, with which parameters, is decided by
:func:`transmission_plugins.tools.launch.node_plan.plan_nodes`, the same function the launcher
(``transmission_hardware_launch``, for machines without ``ros2 launch``) uses; the actions are
built by :mod:`transmission_plugins.tools.launch.launch_description`::

    ros2 launch transmission_plugins transmission_hardware.launch.py \
        description_file:=/path/robot.urdf.xacro use_mock_actuators:=false
"""

from transmission_plugins.tools.launch.launch_description import generate_launch_description

__all__ = ['generate_launch_description']
