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
``ros2 launch`` of the package's launch files, inspected with ``ros2 topic/lifecycle/param``.

Every command is typed as a user would (``bash -c``, from a fresh working directory, in the
environment of the colcon workspace); the documented ones come from :mod:`doc_commands`.
"""

import os
import re

import doc_commands as doc
import pytest
from ros_cli_support import Command
from ros_cli_support import hz
from ros_cli_support import ros2
from ros_cli_support import run
from ros_cli_support import start
from ros_cli_support import stop
from tp_support import PR2_URDF
from tp_support import PREFIXED_ARM_XACRO
import yaml

pytestmark = pytest.mark.ros


#: a parent launch file of a user: ours in a namespace, joint_states remapped
PARENT_LAUNCH = """
from launch import LaunchDescription
from launch.actions import GroupAction, IncludeLaunchDescription
from launch.launch_description_sources import PythonLaunchDescriptionSource
from launch_ros.actions import PushRosNamespace, SetRemap
from launch_ros.substitutions import FindPackageShare
from launch.substitutions import PathJoinSubstitution


ARGUMENTS = {arguments}


def generate_launch_description():
    ours = PathJoinSubstitution([FindPackageShare('transmission_plugins'), 'launch',
                                 'transmission_hardware.launch.py'])
    return LaunchDescription([GroupAction([
        PushRosNamespace('fleet'),
        SetRemap(src='joint_states', dst='/fleet_joint_states'),
        IncludeLaunchDescription(PythonLaunchDescriptionSource(ours),
                                 launch_arguments=ARGUMENTS.items()),
    ])])
"""


@pytest.fixture(scope='class')
def bundled(class_user):
    """Start the README's ``ros2 launch`` of the bundled robot once for a class's checks."""
    launch = start(doc.LAUNCH, class_user)
    yield launch
    launch.kill()


class TestTheBundledRobot:
    """
    The README's launch of the bundled robot, started once for these checks, in this order.

    The last one shuts the node down through the lifecycle, which ends the launch.
    """

    def test_no_parameters_file_on_disk_while_running(self, bundled, class_user):
        """The URDF reaches the nodes through an in-memory file of ros2 launch."""
        params = re.findall(r'--params-file (\S+)', ' '.join(
            ' '.join(p.cmdline()) for p in _processes(bundled)))
        assert params and all(p.startswith(f'/proc/{bundled.proc.pid}/fd/') for p in params)
        assert os.listdir(class_user.tmp) == []

    def test_the_ros2_tools_then_the_lifecycle_shutdown(self, bundled, class_user):
        launch, user = bundled, class_user
        assert 'robot_state_publisher not started: not installed' in launch.output
        # update_rate 100 Hz; the bounds tell 100 from 50 or 200 on a loaded machine
        assert 50.0 < hz(doc.TOPIC_HZ, user) < 120.0
        echo = ros2(doc.TOPIC_ECHO, user, 'gripper_joint')
        for joint in ('pan_joint', 'shoulder_joint', 'elbow_joint', 'wrist_pitch_joint',
                      'wrist_roll_joint', 'gripper_joint'):
            assert joint in echo
        ros2(doc.LIFECYCLE_GET, user, r'^active \[3\]')
        described = ros2(doc.PARAM_DESCRIBE, user, 'Parameter name: update_rate')
        assert 'cycle rate in Hz of joint_states and actuator_commands' in described
        ros2(doc.PARAM_GET, user, 'Double value is: 0.5')
        ros2(doc.PARAM_SET, user, 'Set parameter successful')
        ros2(doc.PARAM_GET, user, 'Double value is: 1.5')
        # the lifecycle through the tool (every transition and what each does to the topics:
        # test/ros/test_integration.py::test_lifecycle_transitions)
        node = '/transmission_hardware_interface'
        ros2(doc.LIFECYCLE_DEACTIVATE, user, 'Transitioning successful')
        ros2(doc.LIFECYCLE_GET, user, r'^inactive \[2\]')
        ros2(f'ros2 lifecycle set {node} activate', user, 'Transitioning successful')
        ros2(doc.LIFECYCLE_GET, user, r'^active \[3\]')
        ros2(doc.TOPIC_ECHO, user, 'gripper_joint')   # publishing again once active
        # shut down (finalized), the node ends its process, and so the launch, cleanly
        ros2(f'ros2 lifecycle set {node} shutdown', user, 'Transitioning successful')
        assert launch.wait(30) == 0, launch.output
        assert 'shut down: finalized, exiting' in launch.output
        assert launch.bad_lines() == [], launch.output
        assert launch.wait_gone(10) == []


def test_the_actuator_topics_remapped(user):
    """doc/launch.md: the actuator topics under a driver's names (issue 34)."""
    launch = start(doc.LAUNCH_ACTUATOR_TOPICS, user)
    try:
        ros2(doc.TOPIC_ECHO, user, 'gripper_joint')      # the set meets on the new names
        topics = ros2('ros2 topic list --no-daemon --spin-time 2', user, '/motors/state').split()
        assert '/motors/command' in topics
        assert '/actuator_states' not in topics and '/actuator_commands' not in topics
    except BaseException:
        launch.kill()
        raise
    stop(launch)


def test_your_robot_without_mock_actuators(user):
    """A xacro description, no mock: the actuator states come from ``ros2 topic pub``."""
    (user.path / 'robot.urdf.xacro').write_text(PREFIXED_ARM_XACRO)
    launch = start(doc.LAUNCH_OWN_ROBOT, user, ready=(']: active',))
    publisher = None
    try:
        assert 'mock_actuators not started: use_mock_actuators is false' in launch.output
        # without the daemon, whose graph cache can still list the previous test's nodes
        nodes = ros2('ros2 node list --no-daemon --spin-time 2', user,
                     'transmission_hardware_interface').split()
        assert nodes == ['/transmission_hardware_interface']
        publisher = Command(doc.TOPIC_PUB_STATES, user.env, str(user.path))
        echo = ros2(doc.TOPIC_ECHO, user, 'joint1')
        # joint = motor / reduction: 1.0 / 50
        assert re.search(r'position:\s*\n- 0\.02\b', echo), echo
    except BaseException:
        launch.kill()
        raise
    finally:
        if publisher is not None:
            publisher.kill()
    stop(launch)


def _values(echo, field):
    """Return ``{name: value}`` of one field of a ``ros2 topic echo`` of a JointState."""
    # from the message on: ros2 topic echo may print a warning first ("A message was lost")
    msg = yaml.safe_load(echo[echo.index('header:'):].split('---')[0])
    return dict(zip(msg['name'], msg[field]))


def test_simulation_mode_with_a_stand_in_simulator(user):
    """The worked example of doc/simulation.md: ``ros2 topic pub`` plays the simulator."""
    launch = start(doc.LAUNCH_SIM, user, ready=(']: active',))
    publishers = []
    try:
        assert 'mock_actuators not started: mode is simulation' in launch.output
        # without the daemon: its graph cache kept the previous test's node listed for over a
        # minute once in CI; a fresh participant lists the nodes that answer discovery now
        nodes = ros2('ros2 node list --no-daemon --spin-time 2', user,
                     r'^/transmission_sim_interface$', timeout=60).split()
        assert '/transmission_hardware_interface' not in nodes
        assert '/transmission_sim_interface' in nodes
        publishers.append(Command(doc.TOPIC_PUB_JOINT_STATES, user.env, str(user.path)))
        states = _values(ros2(doc.TOPIC_ECHO_ACTUATOR_STATES, user, 'gripper_motor'),
                         'position')
        # pan: 2:1; wrist: 2.5 (pitch +- roll); gripper: screw and linkage (PR2 constants)
        assert states['pan_motor'] == pytest.approx(1.0, abs=1e-9)
        assert states['wrist_left_motor'] == pytest.approx(0.75, abs=1e-9)
        assert states['wrist_right_motor'] == pytest.approx(0.25, abs=1e-9)
        assert states['gripper_motor'] == pytest.approx(581.0, abs=0.5)
        assert 'shoulder_motor' not in states
        publishers.append(Command(doc.TOPIC_PUB_ACTUATOR_COMMANDS, user.env, str(user.path)))
        commands = _values(ros2(doc.TOPIC_ECHO_JOINT_COMMANDS, user, 'wrist_roll_joint'),
                           'position')
        assert commands == pytest.approx({'wrist_pitch_joint': 0.6, 'wrist_roll_joint': 0.2})
        ros2(doc.PARAM_GET_STALE, user, 'String value is: omit')
    except BaseException:
        launch.kill()
        raise
    finally:
        for p in publishers:
            p.kill()
    stop(launch)


def test_the_xml_launch_file_with_xacro_arguments(user):
    (user.path / 'robot.urdf.xacro').write_text(PREFIXED_ARM_XACRO)
    launch = start(doc.LAUNCH_XML, user)
    try:
        assert 25.0 < hz('ros2 topic hz /left/joint_states', user) < 60.0   # update_rate:=50
        echo = ros2('ros2 topic echo --once /left/joint_states', user, 'left_joint1')
        assert 'left_joint1' in echo
        ros2('ros2 lifecycle get /left/transmission_hardware_interface', user, r'^active')
        ros2('ros2 param get /left/transmission_hardware_interface update_rate', user,
             'Double value is: 50.0')
    except BaseException:
        launch.kill()
        raise
    stop(launch)


def test_log_level_and_sim_time(user):
    launch = start(f'{doc.LAUNCH} namespace:=quiet log_level:=warn use_sim_time:=true', user,
                   ready=('process started with pid', 'mock_actuators_node-2]: process started'))
    try:
        for node in ('transmission_hardware_interface', 'mock_actuators'):
            ros2(f'ros2 param get /quiet/{node} use_sim_time', user, 'Boolean value is: True')
        ros2('ros2 lifecycle get /quiet/transmission_hardware_interface', user, r'^active')
        # the nodes log at WARN and above only: none of their INFO lines
        assert not re.search(r'\[(hardware_interface_node|mock_actuators_node)-\d\] \[INFO\]',
                             launch.output), launch.output
    except BaseException:
        launch.kill()
        raise
    stop(launch)


def test_the_pr2_in_a_parent_launch_file_with_namespace_and_remapping(user):
    """A user's launch file includes ours in a namespace and remaps joint_states."""
    arguments = {'namespace': 'unit7'}
    if PR2_URDF.is_file():   # the real PR2 (134 kB of URDF): too large for -p on a command line
        arguments['description_file'] = str(PR2_URDF)
    (user.path / 'fleet.launch.py').write_text(PARENT_LAUNCH.format(arguments=repr(arguments)))
    line = 'ros2 launch fleet.launch.py'
    launch = start(line, user)
    try:
        echo = ros2('ros2 topic echo --once /fleet_joint_states', user, 'name:')
        if PR2_URDF.is_file():
            assert 'r_gripper_joint' in echo and 'fl_caster_rotation_joint' in echo
        else:
            assert 'gripper_joint' in echo
        topics = ros2('ros2 topic list', user, 'fleet_joint_states').split()
        assert '/fleet/unit7/actuator_states' in topics
        assert '/fleet/unit7/joint_states' not in topics
        ros2('ros2 lifecycle get /fleet/unit7/transmission_hardware_interface', user, '^active')
    except BaseException:
        launch.kill()
        raise
    stop(launch)


def test_a_node_that_exits_ends_the_launch_with_an_error(user):
    (user.path / 'no_transmissions.urdf').write_text(
        '<robot name="r"><link name="a"/><link name="b"/><joint name="j" type="revolute">'
        '<parent link="a"/><child link="b"/><limit lower="-1" upper="1" effort="1" '
        'velocity="1"/></joint></robot>')
    cmd = Command(f'{doc.LAUNCH} description_file:=no_transmissions.urdf', user.env,
                  str(user.path))
    try:
        assert cmd.wait(60) == 1, cmd.output
        assert cmd.wait_gone(10) == []
        assert re.search(r'\[ERROR\] \[launch\]: Caught exception in launch .*: mock_actuators '
                         r'exited with code 1 while the launch was running; stopping the other '
                         r'nodes', cmd.output), cmd.output
        # the hardware interface was stopped cleanly
        assert re.search(r'hardware_interface_node-1\]: process has finished cleanly',
                         cmd.output), cmd.output
    finally:
        cmd.kill()


@pytest.mark.parametrize('arguments, message', [
    ('description_file:=missing.urdf', "description_file 'missing.urdf' does not exist"),
    ('config_file:=bad.yaml', "bad.yaml: section 'node' must hold a ros__parameters mapping"),
    ('update_rate:=fast', "update_rate must be a number, got 'fast'"),
    ('xacro_args:=prefix', 'xacro_args: expected name:=value pairs separated by spaces'),
])
def test_bad_arguments_are_one_line_errors(user, arguments, message):
    (user.path / 'bad.yaml').write_text('node: {x: 1}\n')
    result = run(f'{doc.LAUNCH} {arguments}', user.env, str(user.path), timeout=60,
                 check=False)
    assert result.returncode == 1, result.stdout
    errors = [line for line in result.stdout.splitlines() if '[ERROR]' in line]
    assert len(errors) == 1 and message in errors[0], result.stdout
    assert 'Traceback' not in result.stdout and 'process started' not in result.stdout


def test_show_args_lists_every_argument(user):
    from transmission_plugins.tools.launch.node_plan import LAUNCH_ARGUMENTS
    for launch_file in ('transmission_hardware.launch.py', 'transmission_hardware.launch.xml'):
        out = run(f'ros2 launch transmission_plugins {launch_file} --show-args', user.env,
                  str(user.path)).stdout
        names = re.findall(r"^    '(\w+)':", out, re.M)
        assert names == list(LAUNCH_ARGUMENTS), out
        for name, (default, text) in LAUNCH_ARGUMENTS.items():
            assert text in ' '.join(out.split()), (name, out)


def _processes(cmd):
    import psutil
    return [psutil.Process(pid) for pid in cmd.family() if psutil.pid_exists(pid)]
