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
The launch files: the Python one and the XML one declare the launcher's arguments.

Without ``launch`` installed only their text is checked; with it (``../shared/ros2_cli``), the
launch descriptions are built and the event handlers exercised.  ``test/ros_cli`` runs them
under the real ``ros2 launch``.
"""

import ast
import signal
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

import pytest
from tp_support import REPO
from transmission_plugins.tools.launch.node_plan import LAUNCH_ARGUMENTS
from transmission_plugins.tools.launch.node_plan import package_file

PY_LAUNCH = REPO / 'launch' / 'transmission_hardware.launch.py'
XML_LAUNCH = REPO / 'launch' / 'transmission_hardware.launch.xml'


def _launch():
    try:
        import launch
        import launch_ros  # noqa: F401
    except ImportError:
        pytest.skip('launch / launch_ros are not installed (../shared/ros2_cli/install.sh '
                    'adds them); the launch files were checked as text only')
    return launch


@pytest.fixture
def ament_prefix(monkeypatch, tmp_path):
    """Make the venv an ament prefix: launch finds its grammar through the ament index."""
    monkeypatch.setenv('AMENT_PREFIX_PATH', sys.prefix)


def test_python_launch_file_is_the_package_launch_description():
    tree = ast.parse(PY_LAUNCH.read_text())
    imports = [(n.module, [a.name for a in n.names]) for n in tree.body
               if isinstance(n, ast.ImportFrom)]
    assert imports == [('transmission_plugins.tools.launch.launch_description',
                        ['generate_launch_description'])]
    for name in LAUNCH_ARGUMENTS:
        assert f'``{name}``' in ast.get_docstring(tree)


def _includes_only(xml_file, py_file):
    """Assert that an XML launch file includes ``py_file`` and declares no argument itself."""
    root = ElementTree.parse(xml_file).getroot()
    assert root.findall('arg') == []   # the arguments are declared once, in the .py
    include, = list(root)
    assert include.tag == 'include' and list(include) == []
    assert include.get('file') == f'$(find-pkg-share transmission_plugins)/launch/{py_file}'


def test_xml_launch_file_includes_the_python_one_whose_arguments_it_takes():
    _includes_only(XML_LAUNCH, 'transmission_hardware.launch.py')


def test_both_launch_files_are_installed():
    setup = (REPO / 'setup.py').read_text()
    assert "_files('launch/*.launch.*')" in setup
    assert package_file('launch', 'transmission_hardware.launch.xml').is_file()


def test_generated_description_declares_the_arguments():
    _launch()
    from transmission_plugins.tools.launch.launch_description import generate_launch_description
    description = generate_launch_description()
    arguments = description.get_launch_arguments()
    assert [a.name for a in arguments] == list(LAUNCH_ARGUMENTS)
    for a in arguments:
        default = ''.join(s.text for s in a.default_value)
        assert (default, a.description) == LAUNCH_ARGUMENTS[a.name]


def test_xml_launch_file_parses_with_launch_xml(ament_prefix):
    _launch()
    try:
        from launch.frontend import Parser
        import launch_xml  # noqa: F401
    except ImportError:
        pytest.skip('launch_xml is not installed')
    with open(XML_LAUNCH) as f:
        root, parser = Parser.load(f)
    description = parser.parse_description(root)
    arguments = description.get_launch_arguments()
    assert [a.name for a in arguments] == list(LAUNCH_ARGUMENTS)


def test_node_set_actions(monkeypatch, tmp_path):
    launch = _launch()
    from launch.actions import LogInfo
    from launch.actions import RegisterEventHandler
    from launch_ros.actions import Node
    from transmission_plugins.tools.launch.launch_description import node_set
    monkeypatch.setenv('AMENT_PREFIX_PATH', str(tmp_path))   # no robot_state_publisher
    context = launch.LaunchContext()
    context.launch_configurations.update(
        {name: default for name, (default, _) in LAUNCH_ARGUMENTS.items()})
    context.launch_configurations['use_mock_actuators'] = 'false'
    actions = node_set(context)
    logs = [a for a in actions if isinstance(a, LogInfo)]
    nodes = [a for a in actions if isinstance(a, Node)]
    handlers = [a for a in actions if isinstance(a, RegisterEventHandler)]
    text = [''.join(s.perform(context) for s in log.msg) for log in logs]
    assert text[0] == 'mock_actuators not started: use_mock_actuators is false'
    assert text[1].startswith('robot_state_publisher not started: not installed')
    assert [(n.node_package, n.node_executable) for n in nodes] == [
        ('transmission_plugins', 'hardware_interface_node')]
    assert len(handlers) == 2   # the node's exit, and the shutdown
    context.launch_configurations['mode'] = 'simulation'
    actions = node_set(context)
    nodes = [a for a in actions if isinstance(a, Node)]
    assert [(n.node_package, n.node_executable) for n in nodes] == [
        ('transmission_plugins', 'sim_interface_node')]
    text = [''.join(s.perform(context) for s in a.msg) for a in actions
            if isinstance(a, LogInfo)]
    assert text[0].startswith('mock_actuators not started: mode is simulation')


def test_the_actuator_topics_are_launch_arguments():
    """Issue 34: the launch files could not remap the actuator topics to a driver's names."""
    from transmission_plugins.tools.launch.node_plan import LaunchConfigError
    from transmission_plugins.tools.launch.node_plan import plan_nodes
    for name, default in (('actuator_states_topic', 'actuator_states'),
                          ('actuator_commands_topic', 'actuator_commands')):
        assert LAUNCH_ARGUMENTS[name][0] == default
    values = {'actuator_states_topic': '/motors/states', 'actuator_commands_topic': 'cmd'}
    plan = plan_nodes(values, robot_state_publisher=False)
    moved = (('actuator_states', '/motors/states'), ('actuator_commands', 'cmd'))
    assert {s.name: s.remappings for s in plan.specs} == {
        'transmission_hardware_interface': moved, 'mock_actuators': moved}
    plan = plan_nodes(dict(values, mode='simulation'), robot_state_publisher=False)
    assert {s.name: s.remappings for s in plan.specs} == {'transmission_sim_interface': moved}
    assert all(s.remappings == () for s in plan_nodes({}, False).specs)   # defaults: none
    with pytest.raises(LaunchConfigError, match="actuator_states_topic: 'motor states' is not a "
                                                'valid topic name'):
        plan_nodes({'actuator_states_topic': 'motor states'}, robot_state_publisher=False)
    # the launcher takes them too, and gives the nodes the remappings (the launch file's
    # Node actions get spec.remappings; test/ros_cli runs it)
    from transmission_plugins.tools.launch.launcher import command
    from transmission_plugins.tools.launch.launcher import parse_arguments
    parsed, _ = parse_arguments(['actuator_states_topic:=/motors/states'])
    assert parsed['actuator_states_topic'] == '/motors/states'
    spec = plan_nodes(values, robot_state_publisher=False).specs[0]
    argv = command(spec, '/proc/self/fd/3')
    assert argv[-4:] == ['-r', 'actuator_states:=/motors/states', '-r',
                         'actuator_commands:=cmd']


def test_a_node_exiting_while_running_ends_the_launch():
    launch = _launch()
    from transmission_plugins.tools.launch.launch_description import _on_exit
    from transmission_plugins.tools.launch.launch_description import NodeExited

    class Exited:
        returncode = 1

    context = launch.LaunchContext()
    with pytest.raises(NodeExited, match='mock_actuators exited with code 1 while the launch '
                                         'was running; stopping the other nodes'):
        _on_exit('mock_actuators', Exited(), context)
    context._set_is_shutdown(True)   # as ros2 launch does when it shuts down
    assert _on_exit('mock_actuators', Exited(), context) is None


@pytest.mark.process
def test_sigint_to_ros2_launch_alone_reaches_the_running_nodes():
    _launch()
    from launch.events import Shutdown
    from transmission_plugins.tools.launch.launch_description import _interrupt
    code = ('import signal, sys, time\n'
            'signal.signal(signal.SIGINT, lambda *a: sys.exit(7))\n'
            'print("ready", flush=True)\n'
            'time.sleep(30)\n')
    sleeper = subprocess.Popen([sys.executable, '-c', code], stdout=subprocess.PIPE, text=True)

    class FakeNode:
        def __init__(self, pid, return_code=None):
            self.process_details = None if pid is None else {'pid': pid}
            self.return_code = return_code

    try:
        assert sleeper.stdout.readline().strip() == 'ready'
        nodes = [FakeNode(None), FakeNode(sleeper.pid, return_code=0)]
        assert _interrupt(nodes, Shutdown(reason='ctrl-c', due_to_sigint=True)) is None
        assert sleeper.poll() is None   # not started, or exited: not signalled
        nodes.append(FakeNode(sleeper.pid))
        assert _interrupt(nodes, Shutdown(reason='test', due_to_sigint=False)) is None
        assert sleeper.poll() is None   # launch signals the nodes itself then
        assert _interrupt(nodes, Shutdown(reason='ctrl-c', due_to_sigint=True)) is None
        assert sleeper.wait(10) == 7
    finally:
        if sleeper.poll() is None:
            sleeper.send_signal(signal.SIGKILL)
            sleeper.wait()


@pytest.fixture
def default_sigint():
    """Run with Python's default SIGINT handler, as in ``ros2 launch``; restore it after."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def test_the_launch_description_leaves_signal_handling_to_ros2_launch(
        monkeypatch, tmp_path, default_sigint):
    """A launch file included in a user's own must not change Ctrl-C for the whole system."""
    launch = _launch()
    from launch.actions import RegisterEventHandler
    from launch.event_handlers import OnProcessStart
    from transmission_plugins.tools.launch.launch_description import generate_launch_description
    from transmission_plugins.tools.launch.launch_description import node_set
    monkeypatch.setenv('AMENT_PREFIX_PATH', str(tmp_path))
    generate_launch_description()
    context = launch.LaunchContext()
    context.launch_configurations.update(
        {name: default for name, (default, _) in LAUNCH_ARGUMENTS.items()})
    actions = node_set(context)
    assert not [a for a in actions if isinstance(a, RegisterEventHandler)
                and isinstance(a.event_handler, OnProcessStart)]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL


R2C_PY_LAUNCH = REPO / 'launch' / 'ros2_control.launch.py'
R2C_XML_LAUNCH = REPO / 'launch' / 'ros2_control.launch.xml'


def test_ros2_control_launch_files_declare_its_arguments():
    from transmission_plugins.tools.launch.ros2_control_plan import ARGUMENTS
    assert set(LAUNCH_ARGUMENTS) < set(ARGUMENTS)   # the same arguments, and two more
    tree = ast.parse(R2C_PY_LAUNCH.read_text())
    imports = [(n.module, [a.name for a in n.names]) for n in tree.body
               if isinstance(n, ast.ImportFrom)]
    assert imports == [('transmission_plugins.tools.launch.ros2_control_launch',
                        ['generate_launch_description'])]
    _includes_only(R2C_XML_LAUNCH, 'ros2_control.launch.py')
    assert package_file('launch', 'ros2_control.launch.xml').is_file()


def test_ros2_control_node_set_actions(monkeypatch):
    launch = _launch()
    from launch.actions import LogInfo
    from launch.actions import OpaqueFunction
    from launch.actions import RegisterEventHandler
    from launch_ros.actions import Node
    from transmission_plugins.tools.launch import ros2_control_plan
    from transmission_plugins.tools.launch.ros2_control_launch import generate_launch_description
    from transmission_plugins.tools.launch.ros2_control_launch import node_set
    from transmission_plugins.tools.launch.ros2_control_plan import ARGUMENTS
    description = generate_launch_description()
    assert [a.name for a in description.get_launch_arguments()] == list(ARGUMENTS)
    monkeypatch.setattr(ros2_control_plan, '_required', lambda package, executable: None)
    monkeypatch.setattr(ros2_control_plan, 'plan_nodes',
                        lambda values, rsp: _plan_without_rsp(values))
    context = launch.LaunchContext()
    context.launch_configurations.update(
        {name: default for name, (default, _) in ARGUMENTS.items()})
    actions = node_set(context)
    nodes = [a for a in actions if isinstance(a, Node)]
    assert [(n.node_package, n.node_executable) for n in nodes] == [
        ('transmission_plugins', 'hardware_interface_node'),
        ('transmission_plugins', 'mock_actuators_node'),
        ('controller_manager', 'ros2_control_node')]
    # the spawner starts when the hardware interface logs that it is active, once
    from launch.event_handlers import OnProcessIO
    from launch.events.process import ProcessStderr
    io, = [a.event_handler for a in actions if isinstance(a, RegisterEventHandler)
           and isinstance(a.event_handler, OnProcessIO)]

    def line(text):
        return ProcessStderr(text=text.encode(), action=nodes[0], name='hw', cmd=[], cwd=None,
                             env=None, pid=1)
    assert io.handle(line('[hw] [INFO] [1.0] [transmission_hardware_interface]: configured\n'),
                     context) is None
    spawner, = io.handle(line('[hw] [INFO] [1.0] [transmission_hardware_interface]: active\n'),
                         context)
    assert (spawner.node_package, spawner.node_executable) == ('controller_manager', 'spawner')
    assert io.handle(line('[hw] [INFO] [2.0] [transmission_hardware_interface]: active\n'),
                     context) is None
    logs = [''.join(s.perform(context) for s in a.msg) for a in actions
            if isinstance(a, LogInfo)]
    assert logs[-1].startswith('ros2_control: generated TopicBasedSystem block')
    # robot_state_publisher does not start: the launch publishes robot_description itself
    assert sum(isinstance(a, OpaqueFunction) for a in actions) == 1


def _plan_without_rsp(values):
    from transmission_plugins.tools.launch.node_plan import plan_nodes
    return plan_nodes(values, robot_state_publisher=False)
