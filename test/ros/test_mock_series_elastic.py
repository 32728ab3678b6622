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
``mock_actuators`` with the bundled robot's series-elastic ankle, both physics, through DDS.

A command naming the joint-side encoder (as a hardware interface that sends the encoder the
joint's position does) moves the motor and not the encoder: the encoder's values are dropped
and counted under ``ignored_commands.ankle_encoder``; the encoder reads the foot, which follows
the motor through the spring, at the motor's position over the reduction 50.
"""

import os
import time

from diagnostic_msgs.msg import DiagnosticArray
import pytest
from rclpy.context import Context
from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node
from sensor_msgs.msg import JointState
from tp_support import REPO
from transmission_plugins.ros.mock_actuators_node import MockActuatorsNode

pytestmark = pytest.mark.ros
URDF = (REPO / 'urdf' / 'drivetrain_robot.urdf').read_text()


@pytest.fixture(autouse=True)
def private_domain(monkeypatch):
    # a domain of this module's own (80-84); Fast DDS ends the process above 232
    monkeypatch.setenv('ROS_DOMAIN_ID', str(os.getpid() % 5 + 80))
    monkeypatch.setenv('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')


def _spin_until(executor, condition, timeout=30.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end and not condition():
        executor.spin_once(timeout_sec=0.05)
    return condition()


@pytest.mark.parametrize('physics', ['rotors', 'mujoco'])
def test_the_encoder_reads_the_foot_and_takes_no_command(physics):
    if physics == 'mujoco':
        pytest.importorskip('mujoco', reason='the optional mujoco package is not installed')
    context = Context()
    context.init(['--ros-args', '-r', f'__ns:=/mock_sea_{os.getpid()}', '-p',
                  f'robot_description:={URDF}', '-p', f'physics:={physics}', '-p',
                  'rate:=100.0', '-p', 'diagnostic_period:=0.2', '-p', 'gravity:=false'])
    node = client = None
    try:
        node = MockActuatorsNode(context=context)
        client = Node('mock_sea_client', context=context)
        states, statuses = {}, []
        client.create_subscription(JointState, 'actuator_states',
                                   lambda m: states.update(zip(m.name, zip(m.position,
                                                                           m.effort))), 10)
        client.create_subscription(
            DiagnosticArray, '/diagnostics',
            lambda m: statuses.extend(s for s in m.status if s.name.endswith('mock_actuators')),
            10)
        pub = client.create_publisher(JointState, 'actuator_commands', 10)
        executor = SingleThreadedExecutor(context=context)
        executor.add_node(node)
        executor.add_node(client)
        assert _spin_until(executor, lambda: 'ankle_encoder' in states)
        # the motor to 10 rad (0.2 rad at the joint); the encoder "commanded" elsewhere
        command = JointState(name=['ankle_motor', 'ankle_encoder'], position=[10.0, -0.5])
        # the motor stops within its friction band, 0.003 N m / kp 0.5 = 6 mrad, and the foot
        # at rest without load where the motor puts it, theta_m / 50
        assert _spin_until(executor, lambda: pub.publish(command) or (
            abs(states['ankle_motor'][0] - 10.0) <= 0.006 + 1e-9
            and abs(states['ankle_encoder'][0] - states['ankle_motor'][0] / 50.0) < 1e-6)), \
            states
        assert states['ankle_encoder'][1] == 0.0   # it applies nothing
        assert _spin_until(executor, lambda: any(
            int(v.value) > 0 for s in statuses for v in s.values
            if v.key == 'ignored_commands.ankle_encoder'))
    finally:
        for n in (client, node):
            if n is not None:
                n.destroy_node()
        context.try_shutdown()
