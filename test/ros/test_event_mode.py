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
The hardware and the simulation interface with ``event_driven: true``, through DDS in this process.

The watchdog timer runs at 4 Hz while states and commands come every 10 ms, so every output
seen while inputs flow was made by its input's callback; then the inputs fall silent and the
watchdog's outputs take over: the held joint states (``stale_joints: last``) and the
``hold`` timeout action.  Expected values come from the robot's maps, one message at a time.
The simulation interface shares the event-driven mode: each joint state makes its
``actuator_states``, each actuator command its ``joint_commands``.
"""

import os
import time

import numpy as np
import pytest
from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node
from rclpy.parameter import Parameter
from sensor_msgs.msg import JointState
from transmission_plugins.robot.loading import load_robot_transmissions
from transmission_plugins.ros.hardware_interface_node import HardwareInterfaceNode
from transmission_plugins.ros.sim_interface_node import SimInterfaceNode
from transmission_plugins.tools.launch.node_plan import default_description_file
from transmission_plugins.tools.launch.node_plan import read_description

pytestmark = pytest.mark.ros
#: this module's range of ROS domains (ros_domain, the conftest's context)
ROS_DOMAINS = (90, 10)

WATCHDOG_RATE = 4.0     # Hz: a tick every 250 ms
STATE_TIMEOUT = 0.3
COMMAND_TIMEOUT = 0.4


class Setup:
    """The node, a client publishing inputs and recording outputs, one executor."""

    def __init__(self, context) -> None:
        urdf = read_description(default_description_file())
        self.robot = load_robot_transmissions(urdf)
        ns = f'/event_{os.getpid()}'
        self.hw = HardwareInterfaceNode(context=context, namespace=ns, parameter_overrides=[
            Parameter('robot_description', value=urdf), Parameter('event_driven', value=True),
            Parameter('update_rate', value=WATCHDOG_RATE),
            Parameter('state_timeout', value=STATE_TIMEOUT),
            Parameter('command_timeout', value=COMMAND_TIMEOUT),
            Parameter('command_timeout_action', value='hold')])
        self.client = Node('event_client', context=context, namespace=ns)
        self.states = self.client.create_publisher(JointState, 'actuator_states', 10)
        self.commands = self.client.create_publisher(JointState, 'joint_commands', 10)
        self.joint_states = []
        self.actuator_commands = []
        self.client.create_subscription(JointState, 'joint_states',
                                        lambda m: self.joint_states.append((time.monotonic(), m)),
                                        100)
        self.client.create_subscription(
            JointState, 'actuator_commands',
            lambda m: self.actuator_commands.append((time.monotonic(), m)), 100)
        self.executor = SingleThreadedExecutor(context=context)
        self.executor.add_node(self.hw)
        self.executor.add_node(self.client)

    def spin_until(self, done, timeout=5.0) -> bool:
        end = time.monotonic() + timeout
        while not done() and time.monotonic() < end:
            self.executor.spin_once(timeout_sec=0.01)
        return done()

    def spin_for(self, seconds) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.executor.spin_once(timeout_sec=0.01)

    def close(self) -> None:
        self.executor.shutdown()
        self.hw.destroy_node()
        self.client.destroy_node()


@pytest.fixture(scope='module')
def setup(context):
    s = Setup(context)
    assert s.hw.driver is not None and s.hw.driver.event_driven
    assert s.spin_until(lambda: s.states.get_subscription_count() > 0
                        and s.commands.get_subscription_count() > 0
                        and s.hw._state_pub.get_subscription_count() > 0
                        and s.hw._command_pub.get_subscription_count() > 0, 10.0)
    yield s
    s.close()


def _state(robot, k):
    """Actuator state number k: every actuator, three fields, the grippers within range."""
    q = robot.default_joint_position() + 1e-3 * k
    a = {f: np.asarray(v) for f, v in robot.joint_to_actuator_arrays(
        {'position': q, 'velocity': np.full(len(q), 0.01 * k),
         'effort': np.full(len(q), -0.02 * k)}).items()}
    return a


def test_each_state_is_converted_and_published_by_its_own_callback(setup):
    robot = setup.robot
    events = setup.hw.core.timer.events
    for k in range(1, 31):
        a = _state(robot, k)
        count = len(setup.joint_states)
        setup.states.publish(JointState(name=list(robot.actuator_names),
                                        position=a['position'].tolist(),
                                        velocity=a['velocity'].tolist(),
                                        effort=a['effort'].tolist()))
        # within a 250 ms watchdog period: only the state's callback can have published it
        assert setup.spin_until(lambda: len(setup.joint_states) > count, 0.2), k
        msg = setup.joint_states[-1][1]
        expected = robot.actuator_to_joint_arrays(a)
        assert list(msg.name) == list(robot.joint_names)
        for field in ('position', 'velocity', 'effort'):
            np.testing.assert_allclose(getattr(msg, field), expected[field], rtol=1e-12,
                                       atol=1e-12, err_msg=f'state {k}: {field}')
    assert setup.hw.core.timer.events >= events + 30


def test_each_command_is_converted_and_published_by_its_own_callback(setup):
    robot, core = setup.robot, setup.hw.core
    joints = core.commandable_joints()
    q = robot.default_joint_position()
    index = [robot.joint_names.index(j) for j in joints]
    for k in range(1, 11):
        target = q.copy()
        target[index] += 1e-3 * k
        count = len(setup.actuator_commands)
        setup.commands.publish(JointState(name=joints, position=target[index].tolist()))
        assert setup.spin_until(lambda: len(setup.actuator_commands) > count, 0.2), k
        msg = setup.actuator_commands[-1][1]
        expected = robot.joint_to_actuator_arrays({'position': target})['position']
        got = dict(zip(msg.name, msg.position))
        assert set(got) == set(robot.actuator_names)
        np.testing.assert_allclose([got[n] for n in robot.actuator_names], expected,
                                   rtol=1e-9, atol=1e-12, err_msg=f'command {k}')


def test_silent_inputs_are_covered_by_the_watchdog(setup):
    """No state and no command any more: held joint states, then the hold action."""
    robot = setup.robot
    a = _state(robot, 5)   # within every limit: hold sends it unclamped
    setup.states.publish(JointState(name=list(robot.actuator_names),
                                    position=a['position'].tolist(),
                                    velocity=a['velocity'].tolist(),
                                    effort=a['effort'].tolist()))
    assert setup.spin_until(lambda: bool(setup.joint_states) and np.allclose(
        setup.joint_states[-1][1].position,
        robot.actuator_to_joint_arrays(a)['position']), 3.0)
    joints = setup.hw.core.commandable_joints()
    count = len(setup.actuator_commands)
    setup.commands.publish(JointState(name=joints, velocity=[0.0] * len(joints)))
    assert setup.spin_until(lambda: len(setup.actuator_commands) > count, 1.0)
    silent = time.monotonic()
    states_before, commands_before = len(setup.joint_states), len(setup.actuator_commands)
    setup.spin_for(1.5)    # six watchdog ticks; both timeouts pass
    held = setup.joint_states[states_before:]
    assert len(held) >= 2, 'the watchdog republishes the held joint states'
    last = robot.actuator_to_joint_arrays(a)['position']
    for _, msg in held:
        np.testing.assert_allclose(msg.position, last, rtol=1e-12, atol=1e-12)
    hold = [m for t, m in setup.actuator_commands[commands_before:]
            if t >= silent + COMMAND_TIMEOUT]
    assert hold, 'the hold action comes from the watchdog once the command expired'
    got = dict(zip(hold[-1].name, hold[-1].position))
    # hold: the actuator positions measured when the command expired (the last state)
    for name, value in got.items():
        assert value == pytest.approx(a['position'][robot.actuator_names.index(name)],
                                      rel=1e-9, abs=1e-12)
    top = dict(setup.hw.core.diagnostics('/x')[0].values)
    assert int(top['event_updates']) >= 42


def test_the_simulation_interface_publishes_each_output_from_its_input(context):
    """The mirror: joint states to actuator states, actuator commands to joint commands."""
    urdf = read_description(default_description_file())
    robot = load_robot_transmissions(urdf)
    ns = f'/event_sim_{os.getpid()}'
    sim = SimInterfaceNode(context=context, namespace=ns, parameter_overrides=[
        Parameter('robot_description', value=urdf), Parameter('event_driven', value=True),
        Parameter('update_rate', value=WATCHDOG_RATE)])
    client = Node('event_sim_client', context=context, namespace=ns)
    states = client.create_publisher(JointState, 'joint_states', 10)
    commands = client.create_publisher(JointState, 'actuator_commands', 10)
    seen = {'actuator_states': [], 'joint_commands': []}
    for topic, got in seen.items():
        client.create_subscription(JointState, topic, got.append, 100)
    executor = SingleThreadedExecutor(context=context)
    executor.add_node(sim)
    executor.add_node(client)

    def spin_until(done, timeout):
        end = time.monotonic() + timeout
        while not done() and time.monotonic() < end:
            executor.spin_once(timeout_sec=0.01)
        return done()

    try:
        assert sim.driver is not None and sim.driver.event_driven
        assert spin_until(lambda: states.get_subscription_count() > 0
                          and commands.get_subscription_count() > 0
                          and client.count_publishers('actuator_states') > 0
                          and client.count_publishers('joint_commands') > 0, 10.0)
        q0 = robot.default_joint_position()
        n = len(q0)
        for k in range(1, 11):
            q, qd, tau = q0 + 1e-3 * k, np.full(n, 0.01 * k), np.full(n, -0.02 * k)
            count = len(seen['actuator_states'])
            states.publish(JointState(name=list(robot.joint_names), position=q.tolist(),
                                      velocity=qd.tolist(), effort=tau.tolist()))
            # within a 250 ms watchdog period: only the state's callback can have published it
            assert spin_until(lambda: len(seen['actuator_states']) > count, 0.2), k
            msg = seen['actuator_states'][-1]
            expected = robot.joint_to_actuator_arrays({'position': q, 'velocity': qd,
                                                       'effort': tau})
            assert list(msg.name) == list(robot.actuator_names)
            for field in ('position', 'velocity', 'effort'):
                np.testing.assert_allclose(getattr(msg, field), expected[field], rtol=1e-12,
                                           atol=1e-12, err_msg=f'state {k}: {field}')
            a = np.asarray(expected['position'])
            count = len(seen['joint_commands'])
            commands.publish(JointState(name=list(robot.actuator_names), position=a.tolist()))
            assert spin_until(lambda: len(seen['joint_commands']) > count, 0.2), k
            got = dict(zip(seen['joint_commands'][-1].name, seen['joint_commands'][-1].position))
            back = robot.actuator_to_joint_arrays({'position': a})['position']
            for name, value in got.items():
                assert value == pytest.approx(back[robot.joint_names.index(name)], rel=1e-9,
                                              abs=1e-12)
        assert sim.core.timer.events >= 20
    finally:
        executor.shutdown()
        sim.destroy_node()
        client.destroy_node()
