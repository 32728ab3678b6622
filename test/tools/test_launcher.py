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

"""The node plan of the launch files and the launcher, the config YAML, the launcher processes."""

import contextlib
import json
import os
import re
import signal
import stat
import subprocess
import sys
import tempfile
import textwrap
import threading
import time

import numpy as np
import pytest
from tp_support import PREFIXED_ARM_XACRO
from tp_support import REPO
from transmission_plugins.core.exceptions import TransmissionError
from transmission_plugins.robot.loading import load_robot_transmissions
from transmission_plugins.ros.hardware_interface_node import PARAMETERS as HW_PARAMETERS
from transmission_plugins.ros.mock_actuators_node import initial_joint_positions
from transmission_plugins.ros.mock_actuators_node import PARAMETERS as MOCK_PARAMETERS
from transmission_plugins.runtime.hardware_interface import HardwareInterface
from transmission_plugins.runtime.node_settings import SIM_INTERFACE as SIM_PARAMETERS
from transmission_plugins.runtime.sim_interface import SimInterface
from transmission_plugins.tools.launch import launcher
from transmission_plugins.tools.launch import node_plan
from transmission_plugins.tools.launch.launcher import LaunchConfigError
from transmission_plugins.tools.launch.params_file import ParamsFile
from transmission_plugins.tools.launch.params_file import write_params_file
import yaml

#: A robot unrelated to the bundled example (RRBot-like): two joints, two simple transmissions.
GENERIC_URDF = """<?xml version="1.0"?>
<robot name="generic_arm">
  <link name="base"/><link name="link1"/><link name="link2"/>
  <joint name="joint1" type="revolute">
    <parent link="base"/><child link="link1"/><axis xyz="0 0 1"/>
    <limit lower="-1.5" upper="1.5" effort="10" velocity="2"/>
  </joint>
  <joint name="joint2" type="revolute">
    <parent link="link1"/><child link="link2"/><axis xyz="0 1 0"/>
    <limit lower="-2.0" upper="1.0" effort="10" velocity="2"/>
  </joint>
  <transmission name="trans1">
    <type>transmission_interface/SimpleTransmission</type>
    <joint name="joint1"><hardwareInterface>EffortJointInterface</hardwareInterface></joint>
    <actuator name="motor1"><mechanicalReduction>50</mechanicalReduction></actuator>
  </transmission>
  <transmission name="trans2">
    <type>transmission_interface/SimpleTransmission</type>
    <joint name="joint2"><hardwareInterface>EffortJointInterface</hardwareInterface></joint>
    <actuator name="motor2"><mechanicalReduction>-20</mechanicalReduction></actuator>
  </transmission>
</robot>
"""


def _check_node_parameters(specs):
    """Apply the specs' parameters the way the nodes do; raise what the nodes would raise."""
    by_name = {s.name: s.parameters for s in specs}
    hw = by_name['transmission_hardware_interface']
    robot = load_robot_transmissions(hw['robot_description'])
    # as HardwareInterfaceNode.on_configure and MockActuatorsNode._build
    core = HardwareInterface(robot, command_joints=list(hw.get('joints') or []))
    mock = by_name['mock_actuators']
    q = initial_joint_positions(robot, mock.get('initial_joint_names') or [],
                                mock.get('initial_joint_positions') or [])
    return robot, core, q


@pytest.fixture(autouse=True)
def no_robot_state_publisher(monkeypatch, tmp_path):
    monkeypatch.setenv('AMENT_PREFIX_PATH', str(tmp_path / 'empty_prefix'))


@pytest.fixture(autouse=True)
def signal_handlers():
    """launcher.main installs handlers for its process; give pytest its own back."""
    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    yield
    for s, h in saved.items():
        signal.signal(s, h)


def _specs(description_file='', config_file='', use_mock_actuators=True,
           robot_state_publisher=None, **arguments):
    """Return the nodes ``plan_nodes`` starts for these launch arguments."""
    values = dict(arguments, description_file=description_file, config_file=config_file,
                  use_mock_actuators=use_mock_actuators)
    return node_plan.plan_nodes(values, robot_state_publisher).specs


def test_default_node_set():
    specs = _specs()
    assert [s.name for s in specs] == ['transmission_hardware_interface', 'mock_actuators']
    hw, mock = specs
    assert hw.executable == 'hardware_interface_node'
    assert mock.executable == 'mock_actuators_node'
    assert hw.module == 'transmission_plugins.ros.hardware_interface_node'
    for s in specs:
        assert s.package == 'transmission_plugins'
        assert s.parameters['robot_description'].lstrip().startswith('<?xml')
        assert '<transmission name="gripper_trans"' in s.parameters['robot_description']
    assert hw.parameters['update_rate'] == 100.0
    assert mock.parameters['rate'] == 200.0


def test_default_config_fits_any_robot(tmp_path):
    """The default config names no joint, so a robot other than the example starts."""
    urdf = tmp_path / 'generic_arm.urdf'
    urdf.write_text(GENERIC_URDF)
    specs = _specs(str(urdf))
    assert [s.name for s in specs] == ['transmission_hardware_interface', 'mock_actuators']
    robot, core, q = _check_node_parameters(specs)
    assert core.command_joints == ['joint1', 'joint2']
    assert q == pytest.approx([0.0, -0.5])   # the centre of each range


def test_example_config_fits_the_example_robot():
    specs = _specs('', str(node_plan.example_config_file()))
    robot, core, q = _check_node_parameters(specs)
    assert core.command_joints == ['pan_joint', 'shoulder_joint', 'elbow_joint',
                                   'wrist_pitch_joint', 'wrist_roll_joint', 'gripper_joint']
    assert q[robot.joint_names.index('gripper_joint')] == 0.08
    assert np.isfinite(q).all()
    config = node_plan.load_config(node_plan.example_config_file())
    assert set(config['transmission_hardware_interface']) <= set(HW_PARAMETERS)
    assert set(config['mock_actuators']) <= set(MOCK_PARAMETERS) | {'initial_joint_positions'}


def test_example_urdf_is_a_plain_yaml_string():
    """
    ``-p robot_description:="$(xacro ...)"`` needs a plain YAML scalar.

    rcl parses the value of ``-p`` as YAML: a ': ' (or ' #') anywhere, comments included, makes
    it a mapping (or cuts it) and the node does not start.
    """
    text = node_plan.read_description(node_plan.default_description_file())
    comments = re.findall(r'<!--(.*?)-->', text, re.S)
    assert len(comments) > 3
    assert [c for c in comments if ': ' in c or ' #' in c] == []
    assert isinstance(yaml.safe_load(text), str)


def test_bundled_config_documents_every_parameter_it_sets():
    config = node_plan.load_config(node_plan.default_config_file())
    assert set(config['transmission_hardware_interface']) <= set(HW_PARAMETERS)
    assert set(config['mock_actuators']) <= set(MOCK_PARAMETERS) | {'initial_joint_positions'}
    text = node_plan.default_config_file().read_text()
    for name in config['transmission_hardware_interface']:
        before = text[:text.index(f'    {name}:')].rstrip().splitlines()[-1]
        assert before.strip().startswith('#'), f'{name} has no comment'


def test_bundled_config_documents_the_sim_interface_with_its_defaults():
    config = node_plan.load_config(node_plan.default_config_file())
    section = config['transmission_sim_interface']
    assert set(section) == set(SIM_PARAMETERS) - {'robot_description'}
    for name, value in section.items():
        assert value == SIM_PARAMETERS[name].default, name
    text = node_plan.default_config_file().read_text()
    sim_text = text[text.index('transmission_sim_interface:'):text.index('mock_actuators:')]
    for name in section:
        before = sim_text[:sim_text.index(f'    {name}:')].rstrip().splitlines()[-1]
        assert before.strip().startswith('#'), f'{name} has no comment'


def test_simulation_mode_starts_the_sim_interface_instead(tmp_path):
    plan = launcher.plan_nodes({'mode': 'Simulation', 'update_rate': '500'},
                               robot_state_publisher=True)
    assert [s.name for s in plan.specs] == ['transmission_sim_interface', 'robot_state_publisher']
    sim = plan.specs[0]
    assert (sim.executable, sim.module) == ('sim_interface_node',
                                            'transmission_plugins.ros.sim_interface_node')
    assert sim.parameters['update_rate'] == 500.0
    assert sim.parameters['stale_joints'] == 'omit'
    reasons = dict(plan.skipped)
    assert list(reasons) == ['mock_actuators']   # the hardware interface is another mode's
    assert reasons['mock_actuators'].startswith('mode is simulation')
    # the example config's sim section fits the example robot (as the node configures)
    specs = _specs('', str(node_plan.example_config_file()), mode='simulation')
    params = specs[0].parameters
    robot = load_robot_transmissions(params['robot_description'])
    core = SimInterface(robot, command_joints=list(params['joints']),
                        array_commands=list(params.get('array_commands') or []))
    assert core.command_joints[-1] == 'gripper_joint'
    # and the default config fits any robot
    urdf = tmp_path / 'generic_arm.urdf'
    urdf.write_text(GENERIC_URDF)
    params = _specs(str(urdf), mode='simulation')[0].parameters
    core = SimInterface(load_robot_transmissions(params['robot_description']),
                        command_joints=list(params['joints']))
    assert core.command_joints == ['joint1', 'joint2']


def test_hardware_mode_leaves_the_sim_interface_out_silently():
    plan = launcher.plan_nodes({'mode': 'hardware'}, robot_state_publisher=True)
    assert [s.name for s in plan.specs] == [
        'transmission_hardware_interface', 'mock_actuators', 'robot_state_publisher']
    assert plan.skipped == []


def test_without_mock_actuators_and_with_robot_state_publisher():
    specs = _specs(use_mock_actuators='false', robot_state_publisher=True)
    assert [s.name for s in specs] == ['transmission_hardware_interface', 'robot_state_publisher']
    rsp = specs[1]
    assert rsp.module is None and rsp.package == 'robot_state_publisher'
    assert rsp.parameters['publish_frequency'] == 50.0
    assert 'robot_description' in rsp.parameters


def test_robot_state_publisher_is_started_when_installed(monkeypatch, tmp_path):
    exe = tmp_path / 'lib' / 'robot_state_publisher' / 'robot_state_publisher'
    exe.parent.mkdir(parents=True)
    exe.write_text('#!/bin/sh\n')
    exe.chmod(0o755)
    monkeypatch.setenv('AMENT_PREFIX_PATH', str(tmp_path))
    assert launcher.robot_state_publisher_executable() == str(exe)
    assert _specs()[-1].name == 'robot_state_publisher'
    cmd = launcher.command(_specs()[-1], '/tmp/p.yaml')
    assert cmd[0] == str(exe)


def test_plain_urdf_and_custom_config(tmp_path):
    urdf = tmp_path / 'r.urdf'
    urdf.write_text('<robot name="r"/>')
    cfg = tmp_path / 'c.yaml'
    cfg.write_text(textwrap.dedent("""\
        /**/transmission_hardware_interface:
          ros__parameters:
            update_rate: 1000
        """))
    hw = _specs(str(urdf), str(cfg), False)[0]
    assert hw.parameters == {'update_rate': 1000, 'robot_description': '<robot name="r"/>',
                             'use_sim_time': False}


@pytest.mark.parametrize('text,match', [
    ('[1, 2]', 'mapping of node names'),
    ('node: {x: 1}', 'ros__parameters'),
    ('node: {ros__parameters: 3}', 'ros__parameters'),
    ('a: [', 'cannot read'),
])
def test_bad_config_files(tmp_path, text, match):
    cfg = tmp_path / 'c.yaml'
    cfg.write_text(text)
    with pytest.raises(LaunchConfigError, match=match):
        node_plan.load_config(cfg)


def test_bad_arguments(tmp_path):
    with pytest.raises(LaunchConfigError, match='does not exist'):
        _specs(str(tmp_path / 'missing.urdf'))
    with pytest.raises(LaunchConfigError, match='cannot read'):
        _specs('', str(tmp_path / 'missing.yaml'))
    with pytest.raises(LaunchConfigError, match='true or false'):
        _specs(use_mock_actuators='maybe')
    bad = tmp_path / 'bad.urdf.xacro'
    bad.write_text('<robot xmlns:xacro="http://www.ros.org/wiki/xacro"><xacro:nope/></robot>')
    with pytest.raises(LaunchConfigError, match='xacro failed'):
        _specs(str(bad))


def test_params_file_applies_in_any_namespace(tmp_path):
    specs = _specs()
    path = write_params_file(specs, str(tmp_path))
    doc = yaml.safe_load(open(path))
    assert list(doc) == ['/**/transmission_hardware_interface', '/**/mock_actuators']
    urdf = doc['/**/mock_actuators']['ros__parameters']['robot_description']
    assert urdf == specs[1].parameters['robot_description']
    cmd = launcher.command(specs[0], path, ['-r', '__ns:=/robot1'])
    # the executables module installs the stop-signal handler before importing the node
    assert cmd[:4] == [sys.executable, '-m', 'transmission_plugins.ros.executables',
                       'hardware_interface_node']
    assert cmd[4:] == ['--ros-args', '-r', '__node:=transmission_hardware_interface',
                       '--params-file', path, '-r', '__ns:=/robot1']


def test_main_keeps_the_parameters_in_memory(tmp_path, monkeypatch):
    """The parameters file (the whole URDF) is readable while the nodes run, never on disk."""
    tmp = tmp_path / 'tmp'
    tmp.mkdir()
    monkeypatch.setattr(tempfile, 'tempdir', str(tmp))
    urdf = tmp_path / 'generic_arm.urdf'
    urdf.write_text(GENERIC_URDF)
    seen = []

    class FakeNodeSet:
        def __init__(self, commands, env):
            self.commands, self.env = commands, env

        def start(self):
            argv = self.commands[0][1]
            path = argv[argv.index('--params-file') + 1]
            seen.append((path, yaml.safe_load(open(path)), self.env, self.commands))

        def wait(self, after=None):
            return 0

    monkeypatch.setattr(launcher, 'NodeSet', FakeNodeSet)
    assert launcher.main([f'description_file:={urdf}', 'namespace:=arm', 'log_level:=WARN',
                          'update_rate:=250']) == 0
    (path, doc, env, commands), = seen
    assert path.startswith(f'/proc/{os.getpid()}/fd/')
    assert doc['/**/transmission_hardware_interface']['ros__parameters']['update_rate'] == 250.0
    assert 'joint2' in doc['/**/mock_actuators']['ros__parameters']['robot_description']
    assert env['TP_STOP_WITH_PARENT'] == str(os.getpid())
    for _, argv in commands:
        assert argv[argv.index('--log-level') + 1] == 'warn'
        assert '__ns:=/arm' in argv
    assert not os.path.exists(path)   # closed with the launcher
    assert list(tmp.iterdir()) == []


@pytest.mark.process
def test_in_memory_parameters_file_is_readable_by_a_child_and_gone_with_its_owner(tmp_path):
    """Killed with SIGKILL, the owner leaves nothing: the file was never on disk."""
    code = textwrap.dedent("""\
        import subprocess, sys, time
        from transmission_plugins.tools.launch.node_plan import NodeSpec
        from transmission_plugins.tools.launch.params_file import ParamsFile
        spec = NodeSpec('n', 'p', 'e', None, {'robot_description': '<robot name="big"/>' * 10000})
        params = ParamsFile([spec])
        child = subprocess.run([sys.executable, '-c',
                                'import sys, yaml; d = yaml.safe_load(open(sys.argv[1])); '
                                'print(len(d["/**/n"]["ros__parameters"]["robot_description"]))',
                                params.path], capture_output=True, text=True, check=True)
        print(params.in_memory, params.path, child.stdout.strip(), flush=True)
        time.sleep(60)
        """)
    env = dict(os.environ, TMPDIR=str(tmp_path))
    p = subprocess.Popen([sys.executable, '-c', code], env=env, stdout=subprocess.PIPE,
                         text=True)
    try:
        in_memory, path, length = p.stdout.readline().split()
    finally:
        p.kill()
        p.wait(30)
    assert (in_memory, int(length)) == ('True', len('<robot name="big"/>') * 10000)
    assert path.startswith(f'/proc/{p.pid}/fd/')
    assert not os.path.exists(path)
    assert list(tmp_path.iterdir()) == []


def test_parameters_file_fallback_directory_is_private_and_removed(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, 'tempdir', str(tmp_path))
    spec = launcher.NodeSpec('n', 'p', 'e', None, {'robot_description': '<robot/>'})
    with ParamsFile([spec], in_memory=False) as params:
        assert not params.in_memory and params.path.startswith(str(tmp_path))
        assert stat.S_IMODE(os.stat(os.path.dirname(params.path)).st_mode) == 0o700
        assert yaml.safe_load(open(params.path)) == node_plan.params_document([spec])
    assert list(tmp_path.iterdir()) == []


def test_argument_parsing():
    values, ros = launcher.parse_arguments(
        ['description_file:=a.urdf', '--config-file', 'c.yaml', 'xacro_args:=a:=1 b:=2',
         '--ros-args', '-r', '__ns:=/x', '-p', 'update_rate:=5.0'])
    assert values == {'description_file': 'a.urdf', 'config_file': 'c.yaml',
                      'use_mock_actuators': 'true', 'mode': 'hardware', 'namespace': '',
                      'use_sim_time': 'false', 'log_level': 'info', 'update_rate': '',
                      'xacro_args': 'a:=1 b:=2', 'lenient': '',
                      'actuator_states_topic': 'actuator_states',
                      'actuator_commands_topic': 'actuator_commands'}
    assert ros == ['-r', '__ns:=/x', '-p', 'update_rate:=5.0']
    with pytest.raises(SystemExit):
        launcher.parse_arguments(['nonsense:=1'])


def test_launch_config_error_is_a_transmission_error(tmp_path):
    assert issubclass(LaunchConfigError, TransmissionError)
    assert issubclass(LaunchConfigError, ValueError)
    with pytest.raises(TransmissionError, match='does not exist'):
        _specs(str(tmp_path / 'missing.urdf'))


def test_main_reports_bad_files(tmp_path, capsys):
    assert launcher.main([f'description_file:={tmp_path}/none.urdf']) == 2
    assert 'does not exist' in capsys.readouterr().err


@pytest.mark.process
def test_node_set_exits_non_zero_when_a_node_dies():
    nodes = launcher.NodeSet([
        ('sleeper', [sys.executable, '-c', 'import time; time.sleep(30)']),
        ('crasher', [sys.executable, '-c', 'import sys; sys.exit(3)'])], quiet=True)
    nodes.start()
    start = time.monotonic()
    assert nodes.wait() == 1
    assert time.monotonic() - start < 10.0
    assert all(p.poll() is not None for _, p in nodes.processes)


#: a node that stops cleanly (exit 0) on SIGINT
@pytest.mark.process
def test_node_set_stops_the_nodes_on_sighup(tmp_path):
    """A closed terminal must not leave the nodes (in background groups) running."""
    ready = tmp_path / 'ready'
    sleeper = [sys.executable, '-c', 'import pathlib, signal, sys, time; '
               'signal.signal(signal.SIGINT, lambda *a: sys.exit(0)); '
               f'pathlib.Path({str(ready)!r}).touch(); time.sleep(30)']
    nodes = launcher.NodeSet([('sleeper', sleeper)], quiet=True)
    nodes.start()
    before = signal.getsignal(signal.SIGHUP)

    def hang_up_once_handled():
        # never hang up on pytest itself: only once wait() has installed its handler, and
        # once the sleeper handles SIGINT (under load its start-up can take seconds)
        deadline = time.monotonic() + 60.0
        while time.monotonic() < deadline:
            if signal.getsignal(signal.SIGHUP) != before and ready.exists():
                os.kill(os.getpid(), signal.SIGHUP)
                return
            time.sleep(0.01)

    sender = threading.Thread(target=hang_up_once_handled, daemon=True)
    sender.start()
    start = time.monotonic()
    assert nodes.wait() == 0
    sender.join(1.0)
    assert time.monotonic() - start < 60.0
    assert all(p.poll() is not None for _, p in nodes.processes)
    assert signal.getsignal(signal.SIGHUP) == before


#: prints how a child of the NodeSet was started: process group, session, SIGTTOU, stdin
PROBE = """
import json, os, signal, sys
status = open('/proc/self/status').read().splitlines()
ignored = int(next(line for line in status if line.startswith('SigIgn:')).split()[1], 16)
json.dump({'pid': os.getpid(), 'pgid': os.getpgid(0), 'sid': os.getsid(0),
           'ttou_ignored': bool(ignored >> (signal.SIGTTOU - 1) & 1),
           'stdin': os.readlink('/proc/self/fd/0')}, open(sys.argv[1], 'w'))
"""


@pytest.mark.process
def test_node_set_starts_each_node_in_a_group_of_its_own_in_this_session(tmp_path):
    """A group each (Ctrl-C reaches the launcher only), not a session each (autogroups)."""
    before = signal.getsignal(signal.SIGTTOU)
    nodes = launcher.NodeSet([(f'probe{i}', [sys.executable, '-c', PROBE, str(tmp_path / f'{i}')])
                              for i in range(2)], quiet=True)
    try:
        nodes.start()
        assert [p.wait(60) for _, p in nodes.processes] == [0, 0]
    finally:
        signal.signal(signal.SIGTTOU, before)
    seen = [json.loads((tmp_path / f'{i}').read_text()) for i in range(2)]
    for child, (_, p) in zip(seen, nodes.processes):
        assert child['pid'] == p.pid
        assert child['pgid'] == p.pid != os.getpgid(0)   # its own group, not the launcher's
        assert child['sid'] == os.getsid(0)               # the launcher's session
        assert child['ttou_ignored'] is (before == signal.SIG_DFL or before == signal.SIG_IGN)
        assert child['stdin'] == '/dev/null'


def _wait_ready(log_path, count):
    """Wait until ``count`` processes of a set have written ``ready`` to ``log_path``."""
    deadline = time.monotonic() + 60
    while log_path.read_text().count('ready') < count:
        assert time.monotonic() < deadline, 'the nodes did not start'
        time.sleep(0.05)


@pytest.mark.process
def test_node_set_stop_interrupts_then_kills(tmp_path):
    log_path = tmp_path / 'nodes.log'
    with open(log_path, 'w') as log:
        nodes = launcher.NodeSet([
            # its own KeyboardInterrupt handler: a runner started in the background (SIGINT
            # ignored, inherited) must not make it stubborn too
            ('polite', [sys.executable, '-c',
                        'import signal, time; '
                        'signal.signal(signal.SIGINT, signal.default_int_handler); '
                        'print("ready", flush=True); time.sleep(30)']),
            ('stubborn', [sys.executable, '-c',
                          'import signal, time; signal.signal(signal.SIGINT, signal.SIG_IGN); '
                          'print("ready", flush=True); time.sleep(30)'])], log=log)
        nodes.start()
        _wait_ready(log_path, 2)
        start = time.monotonic()
        nodes.stop(timeout=1.0)
    assert time.monotonic() - start < 5.0
    codes = dict(nodes.dead())
    # SIGINT ignored: SIGTERM half-way ends it (its default action)
    assert codes['polite'] != 0 and codes['stubborn'] == -signal.SIGTERM
    assert codes['polite'] not in (-15, -10, -9), 'the SIGINT came with time to act on it'


#: a node whose main thread holds the GIL, blocked in native code, from before any signal:
#: neither its Python handlers nor its watchdog thread can ever run
GIL_HOLDER = textwrap.dedent("""\
    import ctypes, faulthandler, signal, sys
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    faulthandler.register(signal.SIGUSR1, all_threads=True)
    libc = ctypes.PyDLL(None)
    mutex = ctypes.create_string_buffer(64)
    libc.pthread_mutex_lock(mutex)
    print('ready', flush=True)
    libc.pthread_mutex_lock(mutex)
    """)


@contextlib.contextmanager
def _one_node(name, script, log_path):
    """Start ``script`` as the only node of a set, its output in ``log_path``; yield the set."""
    with open(log_path, 'w') as log:
        nodes = launcher.NodeSet([(name, [sys.executable, '-c', script])], log=log)
        nodes.start()
        try:
            deadline = time.monotonic() + 60
            while 'ready' not in log_path.read_text():
                assert time.monotonic() < deadline, 'the node did not start'
                time.sleep(0.05)
            yield nodes
        finally:
            for _, p in nodes.processes:
                if p.poll() is None:
                    p.kill()


@pytest.mark.process
def test_node_set_asks_a_node_that_does_not_stop_for_its_stacks_before_the_kill(tmp_path):
    with _one_node('stuck', GIL_HOLDER, tmp_path / 'nodes.log') as nodes:
        start = time.monotonic()
        assert nodes.stop(timeout=1.5) == [('stuck', -9)]
        assert time.monotonic() - start >= 1.5
    out = (tmp_path / 'nodes.log').read_text()
    assert 'File "<string>", line 8 in <module>' in out, out   # where the main thread is


#: a node whose SIGINT goes nowhere (ignored here) but which stops cleanly on SIGTERM
DEAF_TO_SIGINT = textwrap.dedent("""\
    import signal, sys, time
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
    print('ready', flush=True)
    time.sleep(60)
    """)


@pytest.mark.process
def test_node_set_sends_sigterm_to_a_node_that_did_not_stop_on_sigint(tmp_path, capsys):
    with _one_node('deaf', DEAF_TO_SIGINT, tmp_path / 'nodes.log') as nodes:
        assert nodes.stop(timeout=2.0) == []      # a clean stop, on SIGTERM
    err = capsys.readouterr().err
    assert 'deaf still runs 1 s after SIGINT: SIGTERM' in err, err


# ---------------------------------------------------------------------- the new arguments


def test_every_node_gets_the_launch_wide_settings(tmp_path):
    xacro = tmp_path / 'arm.urdf.xacro'
    xacro.write_text(PREFIXED_ARM_XACRO)
    plan = launcher.plan_nodes({
        'description_file': str(xacro), 'xacro_args': "prefix:=left_ reduction:='-20'",
        'namespace': 'robot1', 'use_sim_time': 'True', 'log_level': 'Warning',
        'update_rate': '250'}, robot_state_publisher=True)
    assert [s.name for s in plan.specs] == [
        'transmission_hardware_interface', 'mock_actuators', 'robot_state_publisher']
    assert plan.skipped == []
    assert (plan.namespace, plan.log_level) == ('robot1', 'warn')
    robot = load_robot_transmissions(plan.specs[0].parameters['robot_description'])
    assert robot.joint_names == ['left_joint1'] and robot.actuator_names == ['left_motor1']
    # the xacro argument reached the maths: joint = actuator / -20
    out = robot.actuator_to_joint({'position': {'left_motor1': 2.0}})
    assert out['position']['left_joint1'] == pytest.approx(-0.1)
    for spec in plan.specs:
        assert spec.parameters['use_sim_time'] is True
    # update_rate is the hardware interface's only (the mock keeps its own rate)
    assert plan.specs[0].parameters['update_rate'] == 250.0
    assert plan.specs[1].parameters['rate'] == 200.0
    assert 'update_rate' not in plan.specs[2].parameters
    assert launcher.plan_ros_arguments(plan) == ['--log-level', 'warn', '-r', '__ns:=/robot1']


def test_skipped_nodes_come_with_the_reason():
    plan = launcher.plan_nodes({'use_mock_actuators': 'false'})
    assert [s.name for s in plan.specs] == ['transmission_hardware_interface']
    reasons = dict(plan.skipped)
    assert reasons['mock_actuators'] == 'use_mock_actuators is false'
    assert 'not installed' in reasons['robot_state_publisher']
    assert 'TF' in reasons['robot_state_publisher']
    assert launcher.plan_ros_arguments(plan) == ['--log-level', 'info']


def test_one_more_node_kind_is_one_more_row(monkeypatch):
    """How a later ``mode`` argument adds a node: a row with its rule and the settings it takes."""
    from transmission_plugins.tools.launch import node_plan
    row = node_plan.NodeKind('extra_node', 'transmission_plugins', 'extra_node', 'x.extra',
                             lambda s: None if s.use_sim_time else 'use_sim_time is false',
                             takes=('update_rate',))
    monkeypatch.setattr(node_plan, 'NODE_KINDS', node_plan.NODE_KINDS + (row,))
    plan = node_plan.plan_nodes({'use_sim_time': 'true', 'update_rate': '50'})
    assert plan.specs[-1].name == 'extra_node'
    assert plan.specs[-1].parameters['update_rate'] == 50.0
    plan = node_plan.plan_nodes({})
    assert ('extra_node', 'use_sim_time is false') in plan.skipped


@pytest.mark.parametrize('values, match', [
    ({'log_level': 'loud'},
     "log_level must be one of debug, info, warn, error, fatal, got 'loud'"),
    ({'update_rate': '0'}, 'update_rate must be in [0.1, 10000] Hz, got 0'),
    ({'update_rate': 'fast'}, "update_rate must be a number, got 'fast'"),
    ({'update_rate': 'inf'}, 'update_rate must be a finite number, got inf'),
    ({'use_sim_time': 'sometimes'}, "use_sim_time must be true or false, got 'sometimes'"),
    ({'mode': 'sim'}, "mode must be one of hardware, simulation, got 'sim'"),
    ({'xacro_args': 'prefix=left_'}, 'xacro_args: expected name:=value pairs separated by '
                                     "spaces, got 'prefix=left_'"),
    ({'xacro_args': 'a:="unclosed'}, 'xacro_args'),
])
def test_bad_launch_arguments_name_the_argument_and_the_value(values, match):
    with pytest.raises(LaunchConfigError, match=re.escape(match)):
        launcher.plan_nodes(values)


def test_launcher_main_reports_a_bad_argument(capsys):
    assert launcher.main(['update_rate:=-1']) == 2
    assert capsys.readouterr().err.strip() == (
        'transmission_hardware_launch: error: update_rate must be in [0.1, 10000] Hz, got -1')


def test_launcher_prints_the_skipped_nodes(monkeypatch, capsys):
    class FakeNodeSet:
        def __init__(self, commands, env):
            pass

        def start(self):
            pass

        def wait(self, after=None):
            return 0

    monkeypatch.setattr(launcher, 'NodeSet', FakeNodeSet)
    assert launcher.main(['use_mock_actuators:=false']) == 0
    out = capsys.readouterr().out
    assert '[launcher] mock_actuators not started: use_mock_actuators is false' in out
    assert '[launcher] robot_state_publisher not started: not installed' in out


@pytest.mark.process
def test_node_set_reports_a_node_that_does_not_stop_cleanly(tmp_path, capsys):
    log_path = tmp_path / 'nodes.log'
    with open(log_path, 'w') as log:
        nodes = launcher.NodeSet([
            ('clean', [sys.executable, '-c', 'import signal, sys, time; signal.signal('
                       'signal.SIGINT, lambda *a: sys.exit(0)); print("ready", flush=True); '
                       'time.sleep(30)']),
            ('crashes_on_stop', [sys.executable, '-c',
                                 'import signal, os, time; signal.signal(signal.SIGINT, '
                                 'lambda *a: os._exit(3)); print("ready", flush=True); '
                                 'time.sleep(30)'])], log=log)
        nodes.start()
        _wait_ready(log_path, 2)
        assert nodes.stop() == [('crashes_on_stop', 3)]
    assert '[launcher] crashes_on_stop stopped with exit code 3' in capsys.readouterr().err


@pytest.mark.process
def test_node_set_leaves_the_given_handlers_after_the_stop(tmp_path):
    log_path = tmp_path / 'nodes.log'
    log = open(log_path, 'w')
    nodes = launcher.NodeSet([('sleeper', [
        sys.executable, '-c', 'import signal, sys, time; signal.signal(signal.SIGINT, '
        'lambda *a: sys.exit(0)); print("ready", flush=True); time.sleep(30)'])], log=log)
    nodes.start()
    _wait_ready(log_path, 1)   # its SIGINT handler is in place
    before = signal.getsignal(signal.SIGTERM)

    def terminate_once_handled():   # never SIGTERM pytest itself
        deadline = time.monotonic() + 10.0
        while time.monotonic() < deadline:
            if signal.getsignal(signal.SIGTERM) != before:
                os.kill(os.getpid(), signal.SIGTERM)
                return
            time.sleep(0.01)

    threading.Thread(target=terminate_once_handled, daemon=True).start()
    assert nodes.wait(after=signal.SIG_IGN) == 0
    log.close()
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        assert signal.getsignal(s) == signal.SIG_IGN


@pytest.mark.parametrize('text, message', [
    ('transmission_hardware_interfac:\n  ros__parameters: {update_rate: 50.0}\n',
     "section 'transmission_hardware_interfac' names no node of this launch"),
    ('transmission_hardware_interface:\n  ros__parameters: {updte_rate: 50.0}\n',
     "transmission_hardware_interface has no parameter 'updte_rate'; did you mean "
     "'update_rate'?"),
    ('mock_actuators:\n  ros__parameters: {phisics: mujoco}\n',
     "mock_actuators has no parameter 'phisics'; did you mean 'physics'?"),
])
def test_a_misspelt_name_in_the_config_file_is_an_error(tmp_path, text, message):
    """Ignored without a word before: rclpy keeps overrides of undeclared parameters."""
    path = tmp_path / 'config.yaml'
    path.write_text(text)
    with pytest.raises(LaunchConfigError, match=re.escape(message)):
        launcher.plan_nodes({'config_file': str(path)})


def test_the_bundled_config_files_and_qos_overrides_pass_the_check(tmp_path):
    for name in ('transmission_hardware.yaml', 'example_robot.yaml'):
        node_plan.load_config(REPO / 'config' / name)
    path = tmp_path / 'config.yaml'
    path.write_text('transmission_hardware_interface:\n  ros__parameters:\n'
                    '    qos_overrides./joint_states.publisher.depth: 5\n'
                    'robot_state_publisher:\n  ros__parameters: {publish_frequency: 10.0}\n')
    assert node_plan.load_config(path)['transmission_hardware_interface'] == {
        'qos_overrides./joint_states.publisher.depth': 5}


def test_the_lenient_argument_reaches_every_node_that_loads_the_description():
    plan = launcher.plan_nodes({'lenient': 'true'}, robot_state_publisher=False)
    assert [s.parameters.get('lenient') for s in plan.specs] == [True, True]
    plan = launcher.plan_nodes({}, robot_state_publisher=False)
    assert [s.parameters.get('lenient') for s in plan.specs] == [False, False]   # the config's
    with pytest.raises(LaunchConfigError, match="lenient must be true or false, got 'maybe'"):
        launcher.plan_nodes({'lenient': 'maybe'})
