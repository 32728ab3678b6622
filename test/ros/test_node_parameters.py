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
The hardware interface node's parameters, lifecycle reports and QoS overrides (in-process).

Issue 15 finding 2: ``ros2 param set`` accepted anything (a NaN ``command_timeout`` silently
switched the command watchdog off, an infinite ``update_rate`` busy-looped, other values made
configure fail with no log line).  Every parameter now has a descriptor with its range or
choices and is checked when set, with a reason; values that can change at once do.
"""

import math
import os
import re
import statistics
import subprocess
import sys
import time

from diagnostic_msgs.msg import DiagnosticArray
import pytest
from rcl_interfaces.msg import ParameterType
from rcl_interfaces.srv import SetParameters
from rclpy.context import Context
from rclpy.executors import SingleThreadedExecutor
from rclpy.lifecycle import TransitionCallbackReturn
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.qos import ReliabilityPolicy
from transmission_plugins.ros.common import parameter_value
from transmission_plugins.ros.common import StartupFailed
from transmission_plugins.ros.hardware_interface_node import HardwareInterfaceNode
from transmission_plugins.ros.hardware_interface_node import PARAMETERS
from transmission_plugins.tools.launch import node_plan
import yaml

pytestmark = pytest.mark.ros

#: A robot whose only joint has no transmission.
NO_TRANSMISSIONS = ('<robot name="bare"><link name="a"/><link name="b"/><joint name="j" '
                    'type="revolute"><parent link="a"/><child link="b"/><limit lower="-1" '
                    'upper="1" effort="1" velocity="1"/></joint></robot>')


@pytest.fixture
def context(monkeypatch):
    # a domain range of this module's own (30-49); Fast DDS ends the process above 232
    monkeypatch.setenv('ROS_DOMAIN_ID', str(os.getpid() % 10 + 20))
    monkeypatch.setenv('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')
    context = Context()
    context.init([])
    yield context
    context.try_shutdown()


@pytest.fixture
def make_node(context):
    nodes = []

    def make(**parameters):
        overrides = [Parameter(k, value=v) for k, v in parameters.items()]
        node = HardwareInterfaceNode(context=context, parameter_overrides=overrides,
                                     namespace=f'/params_{os.getpid()}')
        nodes.append(node)
        return node

    yield make
    for node in nodes:
        node.destroy_node()


@pytest.fixture
def node(make_node, urdf):
    node = make_node(robot_description=urdf)
    assert node.lifecycle_state == 'active'
    return node


def _set(node, name, value):
    return node.set_parameters([Parameter(name, value=value)])[0]


# ---------------------------------------------------------------------- descriptors
def test_every_number_has_a_range_and_every_string_its_choices(node):
    for name, setting in PARAMETERS.items():
        d = node.describe_parameter(name)
        assert d.description == setting.description, name
        assert d.read_only == setting.read_only, name
        if setting.kind == 'double':
            (r,) = d.floating_point_range
            assert r.from_value <= setting.default <= r.to_value, name
            assert math.isfinite(r.to_value), name
            assert (r.from_value, r.to_value) == (setting.low, setting.high), name
        elif setting.kind == 'int':
            (r,) = d.integer_range
            assert r.from_value <= setting.default <= r.to_value, name
    assert 'one of stop, hold, zero_velocity, zero_effort' in \
        node.describe_parameter('command_timeout_action').additional_constraints
    assert 'one of last, omit' in node.describe_parameter('stale_joints').additional_constraints
    for name in ('autostart', 'qos_depth'):
        assert node.describe_parameter(name).read_only, name
    assert node.describe_parameter('frame_id').type == ParameterType.PARAMETER_STRING


# ---------------------------------------------------------------------- rejected with a reason
#: the declaration's check answers before rclpy's range check (issue 35: one validator)
RANGE = 'must be'


@pytest.mark.parametrize('name, value, words', [
    ('command_timeout', math.nan, RANGE),
    ('state_timeout', math.nan, RANGE),
    ('state_timeout', -1.0, RANGE),
    ('update_rate', math.inf, RANGE),
    ('update_rate', 1e308, RANGE),
    ('update_rate', 1e-300, RANGE),
    ('update_rate', 'fast', 'must be a number'),
    ('update_rate', True, 'must be a number'),
    ('diagnostic_period', math.inf, RANGE),
    ('diagnostic_period', 'x', 'must be a number'),
    ('diagnostic_period', 0.0, RANGE),
    ('command_timeout_action', 'explode', 'must be one of stop, hold'),
    ('stale_joints', 'forget', 'must be one of last, omit'),
    ('joints', ['pan_joint', 'pan_joint'], 'must not repeat'),
    ('qos_depth', 2 ** 62, 'read-only'),
    ('autostart', False, 'read-only'),
])
def test_bad_values_are_rejected_with_a_reason(node, name, value, words):
    before = parameter_value(node, name)
    result = _set(node, name, value)
    assert not result.successful
    assert re.search(words, result.reason) and name in result.reason, result.reason
    assert parameter_value(node, name) == before


# ---------------------------------------------------------------------- one validator
def _launch_check(name, text):
    """Return what the launch check says of ``name:=text`` (None: accepted)."""
    try:
        node_plan.parse_parameter(name, text)
    except node_plan.LaunchConfigError as e:
        return str(e)
    return None


@pytest.mark.parametrize('text, value', [('0.05', 0.05), ('0.1', 0.1), ('10000', 10000),
                                         ('10000.5', 10000.5), ('fast', 'fast')])
def test_the_launch_check_and_the_node_agree_on_update_rate(node, text, value):
    launch = _launch_check('update_rate', text)
    result = _set(node, 'update_rate', value)
    assert result.successful == (launch is None), (launch, result.reason)
    if launch is not None:
        assert result.reason == launch
        assert launch.startswith('update_rate must be ')


def test_an_atomic_set_is_refused_whole_with_the_launch_check_s_words(node):
    """``set_parameters_atomically`` (the parameter service's atomic set) checks first too."""
    result = node.set_parameters_atomically([Parameter('state_timeout', value=0.3),
                                             Parameter('update_rate', value=0.05)])
    assert not result.successful
    assert result.reason == _launch_check('update_rate', '0.05')
    assert node.get_parameter('state_timeout').value == 0.1   # none of the set applied
    result = node.set_parameters_atomically([Parameter('state_timeout', value=0.3),
                                             Parameter('update_rate', value=250.0)])
    assert result.successful, result.reason
    assert node.get_parameter('state_timeout').value == 0.3
    assert node.get_parameter('update_rate').value == 250.0


@pytest.mark.parametrize('value', [0.05, 10000.5])
def test_a_start_up_value_is_refused_with_the_launch_check_s_words(make_node, value):
    with pytest.raises(StartupFailed) as error:
        make_node(update_rate=value)
    assert str(error.value) == _launch_check('update_rate', str(value))


@pytest.mark.parametrize('value', ['explode', 'hold'])
def test_the_config_check_and_the_node_agree_on_a_choice(node, tmp_path, value):
    path = tmp_path / 'config.yaml'
    section = {'command_timeout_action': value}
    try:
        node_plan.check_section(path, node_plan.HARDWARE_INTERFACE, section)
        launch = None
    except node_plan.LaunchConfigError as e:
        launch = str(e)
    result = _set(node, 'command_timeout_action', value)
    assert result.successful == (launch is None)
    if launch is not None:
        assert launch == f'{path}: {node_plan.HARDWARE_INTERFACE}: {result.reason}'
        assert 'must be one of stop, hold, zero_velocity, zero_effort' in result.reason


def test_a_rejected_value_leaves_the_watchdogs_on(node):
    assert not _set(node, 'command_timeout', math.nan).successful
    assert node.core.command_timeout == 0.5
    assert not _set(node, 'state_timeout', math.nan).successful
    assert node.core.state_timeout == 0.1


def test_integers_are_accepted_for_doubles(node):
    assert _set(node, 'update_rate', 500).successful
    assert node.core.period == pytest.approx(1 / 500)


# ---------------------------------------------------------------------- applied at once
def test_live_parameters_apply_at_once(node):
    for name, value, read in (
            ('state_timeout', 0.25, lambda n: n.core.state_timeout),
            ('command_timeout', 0.0, lambda n: n.core.command_timeout),
            ('command_timeout_action', 'hold', lambda n: n.core.timeout_action),
            ('enforce_limits', False, lambda n: n.core.enforce_limits),
            ('stale_joints', 'omit', lambda n: n.core.stale_joints),
            ('frame_id', 'base_link', lambda n: n.driver.frame_id),
            ('event_driven', True, lambda n: n.driver.event_driven),
            ('event_driven', False, lambda n: n.driver.schedule.event_driven)):
        assert _set(node, name, value).successful, name
        assert read(node) == value, name
    assert _set(node, 'update_rate', 250.0).successful
    assert node.driver.timer.timer_period_ns == 4_000_000
    assert node.core.settings.period == pytest.approx(0.004)
    assert node.driver.schedule is node.core.schedule   # the schedule reads the same settings
    for period in (0.5, 0.2, 0.5):   # back to back: the diagnostics timer keeps its new period
        assert _set(node, 'diagnostic_period', period).successful
    assert node._diag_timer.timer_period_ns == 500_000_000
    assert _set(node, 'update_rate', 20).successful   # an integer: the parameter stays a double
    assert node.get_parameter('update_rate').type_ == Parameter.Type.DOUBLE


def test_diagnostic_period_set_back_to_back_keeps_diagnostics_coming(context, urdf, tmp_path):
    """
    Issue 23: five ``diagnostic_period`` sets within a few ms silenced ``/diagnostics`` for good.

    The node runs as its executable spins it (a process of its own); the sets arrive as
    ``ros2 param set`` sends them (the ``set_parameters`` service), all before the first reply.
    Afterwards diagnostics must keep coming, at the last period.
    """
    ns = f'/diag_burst_{os.getpid()}'
    name = f'{ns}/transmission_hardware_interface'
    params = tmp_path / 'params.yaml'
    params.write_text(yaml.safe_dump({name: {'ros__parameters': {
        'robot_description': urdf, 'update_rate': 20.0, 'diagnostic_period': 0.5}}}))
    log = open(tmp_path / 'node.log', 'w')
    proc = subprocess.Popen(
        [sys.executable, '-m', 'transmission_plugins.ros.executables', 'hardware_interface_node',
         '--ros-args', '--params-file', str(params), '-r', f'__ns:={ns}'],
        env=dict(os.environ), stdout=log, stderr=subprocess.STDOUT)
    log.close()
    client = Node('diag_burst_client', context=context)
    executor = SingleThreadedExecutor(context=context)
    executor.add_node(client)
    stamps = []   # header stamps (the node's clock) of the node's diagnostics messages

    def on_diagnostics(msg):
        if msg.status and msg.status[0].name == name:
            stamps.append(msg.header.stamp.sec + msg.header.stamp.nanosec * 1e-9)

    def spin_until(predicate, timeout, what):
        end = time.monotonic() + timeout
        while not predicate() and time.monotonic() < end and proc.poll() is None:
            executor.spin_once(timeout_sec=0.05)
        assert predicate(), (f'{what} (waited {timeout} s); node exit code {proc.poll()}, '
                             f'log:\n{(tmp_path / "node.log").read_text()[-3000:]}')

    try:
        client.create_subscription(DiagnosticArray, '/diagnostics', on_diagnostics, 50)
        set_parameters = client.create_client(SetParameters, f'{name}/set_parameters')
        # start-up on a busy 2-core machine: imports, DDS discovery
        spin_until(lambda: len(stamps) >= 2 and set_parameters.service_is_ready(), 60.0,
                   'diagnostics and the set_parameters service of the node')
        periods = (0.1, 1.0, 0.1, 1.0, 0.25)   # the last one stands
        sent = time.monotonic()
        futures = [set_parameters.call_async(SetParameters.Request(
            parameters=[Parameter('diagnostic_period', value=p).to_parameter_msg()]))
            for p in periods]
        assert time.monotonic() - sent < 0.05
        spin_until(lambda: all(f.done() for f in futures), 30.0, 'the replies to the five sets')
        assert all(f.result().results[0].successful for f in futures)
        count = len(stamps)
        spin_until(lambda: len(stamps) >= count + 9, 30.0,
                   'diagnostics after the five diagnostic_period sets')
        # the first tick after the sets may still be on an earlier period's schedule
        intervals = [b - a for a, b in zip(stamps[count + 1:], stamps[count + 2:])]
        assert 0.17 < statistics.median(intervals) < 0.4, intervals
    finally:
        client.destroy_node()
        executor.shutdown()
        if proc.poll() is None:
            proc.send_signal(2)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_configure_time_parameters_wait_for_the_next_configure(node):
    joints = node.core.command_joints
    assert _set(node, 'joints', ['gripper_joint']).successful
    assert node.core.command_joints == joints
    assert node.trigger_deactivate() == TransitionCallbackReturn.SUCCESS
    assert node.trigger_cleanup() == TransitionCallbackReturn.SUCCESS
    assert node.trigger_configure() == TransitionCallbackReturn.SUCCESS
    assert node.core.command_joints == ['gripper_joint']


# ---------------------------------------------------------------------- start-up and configure
@pytest.mark.parametrize('name, value', [
    ('update_rate', math.inf), ('update_rate', 1e-300), ('command_timeout', math.nan),
    ('diagnostic_period', 'x'), ('qos_depth', 2 ** 62), ('stale_joints', 'forget'),
])
def test_a_bad_value_in_a_parameters_file_stops_the_node(make_node, urdf, capfd, name, value):
    """These made configure or activate fail without a log line, or switched a watchdog off."""
    with pytest.raises(StartupFailed, match=rf'{name}.*(out of range|must be)'):
        make_node(robot_description=urdf, **{name: value})
    assert 'invalid parameter: ' in capfd.readouterr().err


def test_a_description_without_transmissions_says_so(make_node):
    node = make_node(robot_description=NO_TRANSMISSIONS)
    assert node.lifecycle_state == 'unconfigured'
    assert 'at least one <transmission>' in node.configure_error
    assert 'InputRejected' not in node.configure_error


def test_a_gripper_coefficient_of_1e308_fails_configure_naming_the_attribute(make_node, urdf):
    text = urdf.replace('a="0.0683698"', 'a="1e308"')
    assert text != urdf
    node = make_node(robot_description=text)
    assert node.lifecycle_state == 'unconfigured'
    assert node.configure_error.startswith('BadValueError: ')
    assert "gap_joint[@name='gripper_joint']/@a" in node.configure_error
    assert 'OverflowError' not in node.configure_error


def test_an_exception_in_a_transition_is_logged_with_its_cause(node, capfd):
    def boom():
        raise RuntimeError('the actuator bus is gone')

    assert node.trigger_deactivate() == TransitionCallbackReturn.SUCCESS
    node.core.commands.reset = boom
    assert node.trigger_activate() == TransitionCallbackReturn.ERROR
    assert 'activate failed: RuntimeError: the actuator bus is gone' in capfd.readouterr().err
    assert node.lifecycle_state == 'unconfigured' and node.core is None


# ---------------------------------------------------------------------- diagnostics
def _statuses(node):
    sent = []
    node._diag_pub.publish = sent.append
    node._publish_diagnostics()
    (msg,) = sent
    return msg.status


def test_the_lifecycle_state_is_in_every_diagnostics_message(make_node, urdf):
    node = make_node(autostart=False)
    (status,) = _statuses(node)
    assert {kv.key: kv.value for kv in status.values} == {
        'lifecycle_state': 'unconfigured'}
    assert status.level == bytes([1]) and 'unconfigured' in status.message
    node.set_parameters([Parameter('robot_description', value=NO_TRANSMISSIONS)])
    assert node.trigger_configure() == TransitionCallbackReturn.FAILURE
    (status,) = _statuses(node)
    assert status.level == bytes([2]) and 'configure failed' in status.message
    node.set_parameters([Parameter('robot_description', value=urdf)])
    for transition, state in ((node.trigger_configure, 'inactive'),
                              (node.trigger_activate, 'active'),
                              (node.trigger_deactivate, 'inactive')):
        assert transition() == TransitionCallbackReturn.SUCCESS
        statuses = _statuses(node)
        top = {kv.key: kv.value for kv in statuses[0].values}
        assert top['lifecycle_state'] == state
        assert {s.hardware_id for s in statuses} == {'example_robot'}
        assert float(top['update_rate']) == 100.0 and 'periodicity.average' in top


# ---------------------------------------------------------------------- QoS overrides
def test_qos_overrides_in_robot_state_publisher_style(make_node, urdf):
    node = make_node(robot_description=urdf, **{
        f'qos_overrides./params_{os.getpid()}/joint_states.publisher.depth': 3,
        f'qos_overrides./params_{os.getpid()}/joint_states.publisher.reliability': 'best_effort',
        f'qos_overrides./params_{os.getpid()}/joint_commands.subscription.depth': 7})
    assert node.lifecycle_state == 'active'
    assert node._state_pub.qos_profile.depth == 3
    assert node._state_pub.qos_profile.reliability == ReliabilityPolicy.BEST_EFFORT
    assert node._command_pub.qos_profile.depth == 10
    name = f'qos_overrides./params_{os.getpid()}/joint_states.publisher.depth'
    assert node.describe_parameter(name).read_only
    result = _set(node, name, 5)
    assert not result.successful


def test_a_bad_qos_override_fails_configure_with_the_reason(make_node, urdf):
    name = f'qos_overrides./params_{os.getpid()}/actuator_commands.publisher.depth'
    node = make_node(robot_description=urdf, **{name: 2 ** 62})
    assert node.lifecycle_state == 'unconfigured'
    assert name in node.configure_error and '[1, 10000]' in node.configure_error
