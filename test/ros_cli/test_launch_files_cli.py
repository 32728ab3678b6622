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
Other ways to launch, typed as a user types them, and what ``ros2 launch`` refuses.

Simulation mode with a stand-in simulator, the XML launch file with xacro arguments, a user's
parent launch file, a node that exits, bad arguments and ``--show-args``.

The bundled robot's launch and the ``ros2`` tools on it are :mod:`test_launch_cli`'s; the two
modules run on different pytest-xdist workers.
"""

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
