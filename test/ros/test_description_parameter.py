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
import time

import pytest
from rclpy.context import Context
from rclpy.lifecycle import TransitionCallbackReturn
from transmission_plugins.robot.loading import load_robot_transmissions
from transmission_plugins.ros.hardware_interface_node import HardwareInterfaceNode
from transmission_plugins.tools.launch.node_plan import default_description_file
from transmission_plugins.tools.launch.node_plan import read_description

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


#: xacro markup that, expanded, reads the environment (on e6277b7 all three nodes expanded it)
LEAKING_XACRO = ('<robot name="$(env TP_TEST_SECRET)" xmlns:xacro="http://www.ros.org/wiki/xacro">'
                 '<link name="base"/></robot>')


def _node_classes():
    from transmission_plugins.ros.mock_actuators_node import MockActuatorsNode
    from transmission_plugins.ros.sim_interface_node import SimInterfaceNode
    return {'hardware': HardwareInterfaceNode, 'sim': SimInterfaceNode,
            'mock': MockActuatorsNode}


@pytest.mark.parametrize('kind', ['hardware', 'sim', 'mock'])
@pytest.mark.parametrize('description, words', [
    (LEAKING_XACRO, ['never expanded']),
    ('/etc/hostname', ['never read as a file path']),
])
def test_description_text_over_ros_is_data_never_code(monkeypatch, kind, description, words):
    """Parameter and topic: xacro markup and file paths are refused, nothing is expanded."""
    from rclpy.executors import SingleThreadedExecutor
    from rclpy.node import Node
    from rclpy.parameter import Parameter
    from rclpy.qos import DurabilityPolicy
    from rclpy.qos import QoSProfile
    from std_msgs.msg import String
    from transmission_plugins.ros.common import StartupFailed
    monkeypatch.setenv('ROS_DOMAIN_ID', str(os.getpid() % 30 + 140))
    monkeypatch.setenv('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')
    monkeypatch.setenv('TP_TEST_SECRET', 'hunter2')
    cls = _node_classes()[kind]
    namespace = f'/trust_{kind}_{os.getpid()}'
    context = Context()
    context.init([])
    nodes = []
    try:
        # the parameter: configure fails (the mock refuses to start), naming the cause
        param = [Parameter('robot_description', value=description),
                 Parameter('autostart', value=False)] if kind != 'mock' else [
                     Parameter('robot_description', value=description)]
        if kind == 'mock':
            with pytest.raises(StartupFailed) as info:
                cls(context=context, namespace=namespace, parameter_overrides=param)
            error = str(info.value)
        else:
            node = cls(context=context, namespace=namespace, parameter_overrides=param)
            nodes.append(node)
            assert node.trigger_configure() == TransitionCallbackReturn.FAILURE
            error = node.configure_error
        assert all(w in error for w in words) and 'hunter2' not in error, error
        # the topic: the message is rejected; the node stays unconfigured and alive
        node = cls(context=context, namespace=namespace + '_topic')
        nodes.append(node)
        sender = Node('sender', context=context, namespace=namespace + '_topic')
        nodes.append(sender)
        qos = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL)
        sender.create_publisher(String, 'robot_description', qos).publish(
            String(data=description))
        executor = SingleThreadedExecutor(context=context)
        for n in nodes[-2:]:
            executor.add_node(n)
        error_of = ((lambda: node.description_error) if kind == 'mock'
                    else (lambda: node.configure_error))
        deadline = time.monotonic() + 10.0
        while not error_of() and time.monotonic() < deadline:
            executor.spin_once(timeout_sec=0.1)
        assert all(w in error_of() for w in words), error_of()
        assert 'hunter2' not in error_of()
        if kind == 'mock':
            assert node.sim is None
        else:
            assert node.core is None
        executor.shutdown()
    finally:
        for n in nodes:
            n.destroy_node()
        context.try_shutdown()
