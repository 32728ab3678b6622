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

"""``--ros-args -p robot_description:="$(xacro urdf/example_robot.urdf.xacro)"`` works."""

import os

import pytest
from rclpy.context import Context
from rclpy.lifecycle import TransitionCallbackReturn
from transmission_plugins.robot.loading import load_robot_transmissions
from transmission_plugins.ros.hardware_interface_node import HardwareInterfaceNode
from transmission_plugins.tools.launcher import default_description_file
from transmission_plugins.tools.launcher import read_description

pytestmark = pytest.mark.ros


def test_the_example_urdf_is_accepted_as_a_command_line_parameter(monkeypatch):
    """The ``-p`` value is parsed as YAML by rcl: a comment with a colon and space broke it."""
    # a domain of this module's own; Fast DDS ends the process above 232
    monkeypatch.setenv('ROS_DOMAIN_ID', str(os.getpid() % 30 + 140))
    monkeypatch.setenv('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')
    urdf = read_description(default_description_file())
    context = Context()
    context.init(['--ros-args', '-p', f'robot_description:={urdf}', '-p', 'autostart:=false'])
    node = None
    try:
        node = HardwareInterfaceNode(context=context)
        assert node.trigger_configure() == TransitionCallbackReturn.SUCCESS
        assert node.core.joint_names == load_robot_transmissions(urdf).joint_names
    finally:
        if node is not None:
            node.destroy_node()
        context.try_shutdown()
