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

"""``mock_actuators`` with ``physics: mujoco``: it moves, reports its real-time factor, refuses."""

import math
import os
import sys
import time

from diagnostic_msgs.msg import DiagnosticArray
import pytest
from rclpy.context import Context
from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node
from sensor_msgs.msg import JointState
from transmission_plugins.ros.common import StartupFailed
from transmission_plugins.ros.mock_actuators_node import MockActuatorsNode
from transmission_plugins.tools.launch.node_plan import default_description_file
from transmission_plugins.tools.launch.node_plan import read_description

pytestmark = pytest.mark.ros

pytest.importorskip('mujoco', reason='the optional mujoco package is not installed '
                                     '(pip install -r requirements.txt)')


@pytest.fixture(autouse=True)
def private_domain(monkeypatch):
    # a domain of this module's own (30-39); Fast DDS ends the process above 232
    monkeypatch.setenv('ROS_DOMAIN_ID', str(os.getpid() % 10 + 30))
    monkeypatch.setenv('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')


def _context(*parameters):
    context = Context()
    args = ['--ros-args', '-r', f'__ns:=/mock_mujoco_{os.getpid()}']
    for p in parameters:
        args += ['-p', p]
    context.init(args)
    return context


def _spin_until(executor, condition, timeout=30.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end and not condition():
        executor.spin_once(timeout_sec=0.05)
    return condition()


def _values(status):
    return {v.key: v.value for v in status.values}


def test_the_mujoco_physics_moves_the_motors_and_reports_its_real_time_factor():
    urdf = read_description(default_description_file())
    context = _context(f'robot_description:={urdf}', 'physics:=mujoco', 'rate:=100.0',
                       'diagnostic_period:=0.2')
    node = client = None
    try:
        node = MockActuatorsNode(context=context)
        client = Node('mock_mujoco_client', context=context)
        states, statuses = {}, []
        client.create_subscription(JointState, 'actuator_states',
                                   lambda m: states.update(zip(m.name, m.position)), 10)
        client.create_subscription(
            DiagnosticArray, '/diagnostics',
            lambda m: statuses.extend(s for s in m.status if s.name.endswith('mock_actuators')),
            10)
        pub = client.create_publisher(JointState, 'actuator_commands', 10)
        executor = SingleThreadedExecutor(context=context)
        executor.add_node(node)
        executor.add_node(client)
        assert _spin_until(executor, lambda: 'pan_motor' in states)
        target = states['pan_motor'] + 0.4
        command = JointState(name=['pan_motor'], position=[target])
        assert _spin_until(executor, lambda: pub.publish(command) or
                           abs(states['pan_motor'] - target) < 1e-3)
        assert _spin_until(executor, lambda: any(
            _values(s).get('simulated_time', '0') != '0.000' for s in statuses))
        values = _values(statuses[-1])
        assert values['physics'] == 'mujoco' and values['physics_step'] == '0.001'
        assert float(values['real_time_factor']) > 0.0
        assert float(values['compute_real_time_factor']) > 0.0
    finally:
        for n in (client, node):
            if n is not None:
                n.destroy_node()
        context.try_shutdown()


@pytest.mark.parametrize('physics, blocked, message', [
    ('bullet', False, "physics must be one of rotors, mujoco, got 'bullet'"),
    ('mujoco', True, "physics 'mujoco' needs the mujoco Python package"),
])
def test_an_unusable_physics_stops_the_node_with_a_clear_error(monkeypatch, physics, blocked,
                                                               message):
    if blocked:
        monkeypatch.setitem(sys.modules, 'mujoco', None)   # as if it were not installed
    urdf = read_description(default_description_file())
    context = _context(f'robot_description:={urdf}', f'physics:={physics}')
    try:
        with pytest.raises(StartupFailed, match=message):
            MockActuatorsNode(context=context)
    finally:
        context.try_shutdown()


def test_mujoco_parameters_changed_under_rotors_are_reported_as_ignored(capfd):
    urdf = read_description(default_description_file())
    context = _context(f'robot_description:={urdf}', 'gravity:=false', 'physics_step:=0.002')
    node = None
    try:
        node = MockActuatorsNode(context=context)
        err = capfd.readouterr().err
        assert "parameters ['physics_step', 'gravity'] apply to physics mujoco only" in err
        assert "physics is 'rotors': they are ignored" in err
    finally:
        if node is not None:
            node.destroy_node()
        context.try_shutdown()


def test_a_diverging_mujoco_simulation_halts_and_says_so(capfd):
    """
    On e6277b7 a diverging simulation made MuJoCo reset the robot again and again, silently.

    The divergence then came from a reduction of 1e150, which the model now simulates (the
    joint does not move); here the shoulder's PD is 1e4 times too stiff for the physics step
    (Kp 4e6, its effort unlimited), and holding the arm against gravity makes it diverge.
    """
    urdf = read_description(default_description_file()).replace(
        'p="400.0"', 'p="4e6"', 1).replace(
        '<drake:effort_limit value="80.0"/>', '<drake:effort_limit value="1e300"/>', 1)
    context = _context('physics:=mujoco', 'rate:=100.0', 'diagnostic_period:=0.2')
    node = client = None
    try:
        node = MockActuatorsNode(context=context)
        node._on_description(urdf)
        assert node.sim is not None
        client = Node('mock_mujoco_diverging', context=context)
        states, statuses = [], []
        client.create_subscription(JointState, 'actuator_states', states.append, 100)
        client.create_subscription(
            DiagnosticArray, '/diagnostics',
            lambda m: statuses.extend(s for s in m.status if s.name.endswith('mock_actuators')),
            10)
        executor = SingleThreadedExecutor(context=context)
        executor.add_node(node)
        executor.add_node(client)
        assert _spin_until(executor, lambda: statuses and statuses[-1].level == bytes([2]))
        assert 'the simulation diverged' in statuses[-1].message
        count = len(states)
        _spin_until(executor, lambda: False, timeout=0.5)
        assert len(states) == count   # halted: nothing more is published
        for msg in states:
            for field in ('position', 'velocity', 'effort'):
                assert all(math.isfinite(x) for x in getattr(msg, field))
        assert 'the simulation diverged' in capfd.readouterr().err
        executor.shutdown()
    finally:
        for n in (node, client):
            if n is not None:
                n.destroy_node()
        context.try_shutdown()
