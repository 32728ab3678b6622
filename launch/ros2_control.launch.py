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
Start ros2_control in front of the transmission hardware interface.

``ros2_control_node`` with a ``topic_based_ros2_control/TopicBasedSystem`` block (the
description's own, else generated as ``transmission_plugins ros2-control`` prints it), the
hardware interface on the block's topics, the mock actuators, robot_state_publisher when it is
installed, and a spawner for joint_state_broadcaster and joint_trajectory_controller.

Arguments (``ros2 launch transmission_plugins ros2_control.launch.py --show-args``): those of
``transmission_hardware.launch.py`` (``mode`` is ``hardware`` only) plus ``controllers_file``
and ``controllers``.  The plan is made by
:mod:`transmission_plugins.tools.launch.ros2_control_plan`, the actions by
:mod:`transmission_plugins.tools.launch.ros2_control_launch`::

    ros2 launch transmission_plugins ros2_control.launch.py \
        description_file:=/path/robot.urdf.xacro update_rate:=500
"""

from transmission_plugins.tools.launch.ros2_control_launch import generate_launch_description

__all__ = ['generate_launch_description']
