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
The simulation interface node on DDS: back to back with the hardware interface, in processes.

Each robot (the bundled example: simple, four-bar, differential, PR2 gripper; the PR2 when
``../shared`` has it) runs a simulation interface and a hardware interface in one namespace,
wired as a simulator, motor-level software and a controller would wire them::

    test (simulator) --source/joint_states--> sim interface --actuator_states--> hardware
    interface --joint_states--> test (controller)

    test (motor software) --motor/actuator_commands--> sim interface --source/joint_commands-->
    hardware interface --actuator_commands--> test

so the controller must see the simulator's joint states, and the motor-level command must come
back as itself, to 1e-9.  A third namespace, ``/arr``, runs a simulation interface alone with
``array_commands`` and a short watchdog for the stale-simulator and array checks.  The nodes
run in subprocesses; this module has its own ROS domain (10 to 29, see
``grep -rn ROS_DOMAIN_ID test/``).
"""

import subprocess
import sys
import time

from diagnostic_msgs.msg import DiagnosticArray
from lifecycle_msgs.msg import Transition
from lifecycle_msgs.srv import ChangeState
import numpy as np
import pytest
from rcl_interfaces.srv import DescribeParameters
import rclpy
from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray
from tp_support import PR2_URDF
from tp_support import ros_domain
from transmission_plugins.robot.loading import load_robot_transmissions
from transmission_plugins.runtime.sim_interface import SimInterface
from transmission_plugins.tools.launch.node_plan import default_description_file
from transmission_plugins.tools.launch.node_plan import read_description
import yaml

pytestmark = pytest.mark.ros

EXECUTABLES = 'transmission_plugins.ros.executables'
SIM = 'transmission_sim_interface'
HW = 'transmission_hardware_interface'
FIELDS = ('position', 'velocity', 'effort')
TOLERANCE = 1e-9


def _robots():
    robots = {'b2b': read_description(default_description_file())}
    if PR2_URDF.is_file():
        robots['pr2'] = PR2_URDF.read_text()
    return robots


@pytest.fixture(scope='module')
def ros_env():
    """Give this module its own ROS domain (10-29), on localhost only."""
    with ros_domain(10, 10) as env:   # this module's range
        yield env


@pytest.fixture(scope='module')
def processes(ros_env, tmp_path_factory):
    """Start the node pairs of every robot and the ``/arr`` node; stop them at teardown."""
    tmp = tmp_path_factory.mktemp('sim_nodes')
    example = read_description(default_description_file())
    params = {f'/arr/{SIM}': {'ros__parameters': {
        'robot_description': example, 'array_commands': ['position'], 'state_timeout': 0.3,
        'joints': ['gripper_joint', 'pan_joint'], 'diagnostic_period': 0.2,
        'command_timeout': 0.0}}}
    commands = {'arr_sim': ['sim_interface_node', '-r', '__ns:=/arr']}
    for ns, urdf in _robots().items():
        params[f'/{ns}/{SIM}'] = {'ros__parameters': {
            'robot_description': urdf, 'diagnostic_period': 0.2, 'state_timeout': 1.0,
            'command_timeout': 1.0}}
        # soft_limits off: the PR2's <safety_controller> soft ranges would hold back the
        # commands drawn near the hard limits (test_soft_limits.py); the round trip is the maps
        params[f'/{ns}/{HW}'] = {'ros__parameters': {
            'robot_description': urdf, 'state_timeout': 1.0, 'command_timeout': 1.0,
            'soft_limits': False}}
        commands[f'{ns}_sim'] = ['sim_interface_node', '-r', f'__ns:=/{ns}',
                                 '-r', f'joint_states:=/{ns}/source/joint_states',
                                 '-r', f'joint_commands:=/{ns}/source/joint_commands',
                                 '-r', f'actuator_commands:=/{ns}/motor/actuator_commands']
        commands[f'{ns}_hw'] = ['hardware_interface_node', '-r', f'__ns:=/{ns}',
                                '-r', f'joint_commands:=/{ns}/source/joint_commands']
    params_file = tmp / 'params.yaml'
    params_file.write_text(yaml.safe_dump(params))
    procs = {}
    try:
        for name, (exe, *remaps) in commands.items():
            with open(tmp / f'{name}.log', 'w') as log:
                procs[name] = subprocess.Popen(
                    [sys.executable, '-m', EXECUTABLES, exe, '--ros-args', '--params-file',
                     str(params_file), *remaps], env=ros_env, stdout=log,
                    stderr=subprocess.STDOUT)
        yield procs
    finally:
        for p in procs.values():
            if p.poll() is None:
                p.send_signal(2)
        codes = {}
        for name, p in procs.items():
            try:
                codes[name] = p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
                codes[name] = p.wait()
        logs = {name: (tmp / f'{name}.log').read_text() for name in procs}
        for name, text in logs.items():
            if 'Traceback' in text or 'FATAL' in text:
                print(f'--- {name} log ---\n{text}')
        assert codes == dict.fromkeys(procs, 0), codes


class Client:
    """The test's node: the latest message per topic, publishers, service calls."""

    def __init__(self) -> None:
        self.node = Node('sim_interface_test_client')
        self.executor = SingleThreadedExecutor()
        self.executor.add_node(self.node)
        self.latest = {}
        self.count = {}
        self._pubs = {}

    def watch(self, topic, msg_type=JointState):
        if topic not in self.latest:
            self.latest[topic] = None
            self.count[topic] = 0

            def keep(msg, t=topic):
                self.latest[t] = msg
                self.count[t] += 1
            self.node.create_subscription(msg_type, topic, keep, 50)

    def publish(self, topic, msg, msg_type=JointState):
        if topic not in self._pubs:
            self._pubs[topic] = self.node.create_publisher(msg_type, topic, 10)
        self._pubs[topic].publish(msg)

    def spin_until(self, predicate, timeout, what, every=None):
        """Spin until ``predicate()``; call ``every()`` every 20 ms meanwhile (a publisher)."""
        end = time.monotonic() + timeout
        next_call = 0.0
        while time.monotonic() < end:
            if every is not None and time.monotonic() >= next_call:
                every()
                next_call = time.monotonic() + 0.02
            if predicate():
                return
            self.executor.spin_once(timeout_sec=0.005)
        assert predicate(), f'timed out after {timeout} s waiting for {what}'

    def spin_for(self, seconds, every=None):
        """Spin for ``seconds``, calling ``every()`` every 20 ms meanwhile."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if every is not None:
                every()
            self.executor.spin_once(timeout_sec=0.02)

    def call(self, srv_type, name, request, timeout=15.0):
        cli = self.node.create_client(srv_type, name)
        assert cli.wait_for_service(timeout_sec=timeout), f'service {name} not available'
        future = cli.call_async(request)
        self.spin_until(future.done, timeout, f'the reply of {name}')
        self.node.destroy_client(cli)
        return future.result()


@pytest.fixture(scope='module')
def client(processes):
    rclpy.init()
    c = Client()
    c.watch('/diagnostics', DiagnosticArray)
    yield c
    c.node.destroy_node()
    rclpy.try_shutdown()


def _msg(names, position=(), velocity=(), effort=()):
    return JointState(name=list(names), position=[float(x) for x in position],
                      velocity=[float(x) for x in velocity], effort=[float(x) for x in effort])


def _source(robot, rng):
    """
    Return a consistent joint-space sample: commandable joints at random within half limits.

    Passive joints follow through the transmission, as in a simulator with the mechanism.
    """
    active = SimInterface(robot).topology.commandable
    lo = np.where(np.isfinite(robot.joint_lower), robot.joint_lower, -1.0)
    hi = np.where(np.isfinite(robot.joint_upper), robot.joint_upper, 1.0)
    limits = (robot.joint_velocity_limit, robot.joint_effort_limit)
    vel, eff = (np.where(np.isfinite(x), x, 1.0) for x in limits)
    n = len(lo)
    q = {'position': lo + (hi - lo) * rng.uniform(0.25, 0.75, n),
         'velocity': 0.5 * vel * rng.uniform(-1, 1, n),
         'effort': 0.5 * eff * rng.uniform(-1, 1, n)}
    full = robot.actuator_to_joint_arrays(robot.joint_to_actuator_arrays(
        {f: np.where(active, x, 0.0) for f, x in q.items()}))
    return {f: np.where(active, q[f], full[f]) for f in FIELDS}


def _error(msg, names, expected):
    """Return the worst relative difference of ``msg`` to ``expected`` (inf: a name missing)."""
    if msg is None or list(msg.name) != list(names):
        return float('inf')
    worst = 0.0
    for f in FIELDS:
        got = np.asarray(getattr(msg, f))
        if got.shape != expected[f].shape:
            return float('inf')
        worst = max(worst, float(np.max(np.abs(got - expected[f]) / (1 + np.abs(expected[f])))))
    return worst


def _diagnostics(client, name):
    msg = client.latest['/diagnostics']
    if msg is None or not msg.status or msg.status[0].name != name:
        return None
    return msg.status


@pytest.mark.parametrize('ns', sorted(_robots()))
def test_joint_states_come_back_through_both_interfaces(client, processes, ns):
    robot = load_robot_transmissions(_robots()[ns], warn=False)
    rng = np.random.default_rng(1234)
    client.watch(f'/{ns}/joint_states')
    client.watch(f'/{ns}/actuator_states')
    worst = 0.0
    for k in range(3):
        source = _source(robot, rng)
        msg = _msg(robot.joint_names + ['no_such_joint'], *[
            list(source[f]) + [0.0] for f in FIELDS])

        def error():
            return _error(client.latest[f'/{ns}/joint_states'], robot.joint_names, source)
        client.spin_until(lambda: error() <= TOLERANCE, 60.0 if k == 0 else 10.0,
                          f'/{ns}/joint_states equal to the source (sample {k})',
                          every=lambda: client.publish(f'/{ns}/source/joint_states', msg))
        worst = max(worst, error())
    states = client.latest[f'/{ns}/actuator_states']
    assert list(states.name) == robot.actuator_names
    print(f'\n{ns}: worst relative error of joint_states through both nodes {worst:.1e}')
    assert all(p.poll() is None for p in processes.values())


@pytest.mark.parametrize('ns', sorted(_robots()))
def test_actuator_commands_come_back_through_both_interfaces(client, ns):
    robot = load_robot_transmissions(_robots()[ns], warn=False)
    rng = np.random.default_rng(99)
    topic = f'/{ns}/actuator_commands'
    client.watch(topic)
    client.watch(f'/{ns}/source/joint_commands')
    for k in range(2):
        sent = robot.joint_to_actuator_arrays(_source(robot, rng))
        msg = _msg(robot.actuator_names, *[sent[f] for f in FIELDS])
        client.spin_until(lambda: _error(client.latest[topic], robot.actuator_names, sent)
                          <= TOLERANCE, 60.0, f'{topic} equal to the command sent (sample {k})',
                          every=lambda: client.publish(f'/{ns}/motor/actuator_commands', msg))
    joint_cmd = client.latest[f'/{ns}/source/joint_commands']
    passive = set(robot.joint_names) - set(SimInterface(robot).commandable_joints())
    assert not passive & set(joint_cmd.name)   # the simulator is never asked to move those


def test_a_stale_simulator_leaves_the_actuators_out(client):
    topic = '/arr/actuator_states'
    client.watch(topic)
    msg = _msg(['pan_joint', 'gripper_joint', 'caster'], [0.5, 0.04, 3.0])
    client.spin_until(lambda: client.latest[topic] is not None, 60.0, topic,
                      every=lambda: client.publish('/arr/joint_states', msg))
    assert sorted(client.latest[topic].name) == ['gripper_motor', 'pan_motor']

    def level():
        status = _diagnostics(client, f'/arr/{SIM}')
        return None if status is None else status[0].level
    client.spin_until(lambda: level() == b'\x03', 10.0,
                      'STALE in /diagnostics once the simulator is quiet')
    # a joint_states published before may still arrive after that on a loaded machine (seen:
    # 0.3 s late) and make the joints fresh again for state_timeout: wait for a quiet second
    quiet = [time.monotonic(), client.count[topic]]

    def quiet_for_a_second():
        if client.count[topic] != quiet[1]:
            quiet[:] = [time.monotonic(), client.count[topic]]
        return time.monotonic() - quiet[0] >= 1.0
    client.spin_until(quiet_for_a_second, 30.0, f'{topic} to stop while every joint is stale')
    seen = client.count[topic]
    client.spin_for(1.0)
    assert client.count[topic] == seen   # nothing while every joint is stale (omit)
    client.spin_until(lambda: client.count[topic] > seen, 10.0, 'actuator_states again',
                      every=lambda: client.publish('/arr/joint_states', msg))


def test_array_commands_in_the_joints_order(client):
    topic = '/arr/position_commands'
    client.watch(topic, Float64MultiArray)
    # gripper at 300 (motor units), pan motor at 2: joints [gripper_joint, pan_joint]
    robot = load_robot_transmissions(read_description(default_description_file()))
    expected = robot.actuator_to_joint({'position': {'gripper_motor': 300.0,
                                                     'pan_motor': 2.0}})['position']
    msg = _msg(['gripper_motor', 'pan_motor'], [300.0, 2.0])
    client.spin_until(lambda: client.latest[topic] is not None, 30.0, topic,
                      every=lambda: client.publish('/arr/actuator_commands', msg))
    data = list(client.latest[topic].data)
    assert data == pytest.approx([expected['gripper_joint'], expected['pan_joint']], rel=1e-12)


def test_bad_messages_are_counted_in_diagnostics(client):
    for _ in range(3):
        client.publish('/arr/joint_states', _msg(['caster'], [1.0]))
        client.publish('/arr/joint_states', _msg(['pan_joint'], [float('nan')]))
        client.publish('/arr/actuator_commands', _msg(['no_motor'], [1.0]))

    def counts():
        status = _diagnostics(client, f'/arr/{SIM}')
        return {} if status is None else {v.key: v.value for v in status[0].values}
    client.spin_until(lambda: counts().get('dropped.joint_states.unknown_names') == '3'
                      and counts().get('dropped.joint_states.non_finite') == '3'
                      and counts().get('dropped.actuator_commands.unknown_names') == '3',
                      20.0, 'the drops in /diagnostics')
    assert counts()['stale_joints'] == 'omit'


def test_parameters_and_lifecycle_are_the_hardware_interfaces(client):
    node = f'/arr/{SIM}'
    reply = client.call(DescribeParameters, f'{node}/describe_parameters',
                        DescribeParameters.Request(names=['update_rate', 'array_commands']))
    rate, arrays = reply.descriptors
    assert rate.description.startswith('cycle rate in Hz of actuator_states and '
                                       'joint_commands (with event_driven')
    assert (rate.floating_point_range[0].from_value,
            rate.floating_point_range[0].to_value) == (0.1, 10_000.0)
    assert 'position, velocity, effort' in arrays.additional_constraints
    topic = '/arr/actuator_states'
    client.watch(topic)
    msg = _msg(['pan_joint'], [0.5])
    reply = client.call(ChangeState, f'{node}/change_state', ChangeState.Request(
        transition=Transition(id=Transition.TRANSITION_DEACTIVATE)))
    assert reply.success
    client.spin_for(0.3)   # what was on its way before the transition
    seen = client.count[topic]
    client.spin_for(1.0, every=lambda: client.publish('/arr/joint_states', msg))
    assert client.count[topic] == seen   # inactive: nothing published
    reply = client.call(ChangeState, f'{node}/change_state', ChangeState.Request(
        transition=Transition(id=Transition.TRANSITION_ACTIVATE)))
    assert reply.success
    client.spin_until(lambda: client.count[topic] > seen, 10.0, 'actuator_states once active',
                      every=lambda: client.publish('/arr/joint_states', msg))
