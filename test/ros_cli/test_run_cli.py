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

"""``ros2 run`` of the two nodes with a parameters file, remapping; the workspace's commands."""

import re
import shutil

import doc_commands as doc
import pytest
from ros_cli_support import ros2
from ros_cli_support import run
from ros_cli_support import start
from ros_cli_support import stop
from tp_support import REPO

pytestmark = pytest.mark.ros

#: doc/launch.md: how to write the parameters file of ``ros2 run`` from a xacro file
WRITE_PARAMS_FILE = """\
xacro robot.urdf.xacro > robot.urdf
python3 -c 'import sys, yaml; yaml.safe_dump({"/**": {"ros__parameters": {
    "robot_description": open(sys.argv[1]).read()}}}, sys.stdout)' robot.urdf \\
    > robot_description.yaml
"""


def _params_file(user):
    shutil.copy(REPO / 'urdf' / 'example_robot.urdf.xacro', user.path / 'robot.urdf.xacro')
    run(WRITE_PARAMS_FILE, user.env, str(user.path))
    assert (user.path / 'robot_description.yaml').stat().st_size > 10000


def test_the_parameters_file_recipe_is_in_the_docs():
    assert WRITE_PARAMS_FILE in (REPO / 'doc' / 'launch.md').read_text()


def test_ros2_run_both_nodes(user):
    _params_file(user)
    hardware = start(doc.RUN_HARDWARE, user, ready=(']: active',))
    mock = None
    try:
        mock = start(doc.RUN_MOCK, user, ready=('simulating 6 actuators',))
        ros2('ros2 param get /transmission_hardware_interface update_rate', user,
             r'(Integer|Double) value is: 500(\.0)?$')   # -p 500: an integer, read as 500.0
        echo = ros2(doc.TOPIC_ECHO, user, 'gripper_joint')
        assert 'wrist_roll_joint' in echo
        ros2(doc.LIFECYCLE_GET, user, r'^active \[3\]')
    except BaseException:
        hardware.kill()
        if mock is not None:
            mock.kill()
        raise
    stop(mock)
    stop(hardware)


def test_ros2_run_with_namespace_and_remapping(user):
    _params_file(user)
    hardware = start(doc.RUN_REMAPPED, user, ready=(']: active',))
    mock = None
    try:
        mock = start(f'{doc.RUN_MOCK} -r __ns:=/left', user, ready=('simulating',))
        ros2('ros2 topic echo --once /joint_states', user, 'gripper_joint')
        topics = ros2('ros2 topic list', user, '/left/actuator_states').split()
        assert '/left/joint_states' not in topics and '/joint_states' in topics
        ros2('ros2 lifecycle get /left/transmission_hardware_interface', user, '^active')
    except BaseException:
        hardware.kill()
        if mock is not None:
            mock.kill()
        raise
    stop(mock)
    stop(hardware)


def test_the_commands_of_the_workspace(user, workspace):
    version = re.search(r'<version>([^<]+)</version>', (REPO / 'package.xml').read_text())[1]
    assert run(doc.RUN_VERSION, user.env, str(user.path)).stdout.strip() == (
        f'transmission_plugins {version}')
    # after . install/setup.bash the user commands are on PATH, from the workspace
    for command in ('transmission_plugins', 'transmission_hardware_launch'):
        where = run(f'command -v {command}', user.env, str(user.path)).stdout.strip()
        assert where == str(workspace.path / 'install' / 'transmission_plugins' / 'bin' / command)
    assert run('transmission_plugins --version', user.env, str(user.path)).stdout.strip() == (
        f'transmission_plugins {version}')
    usage = run('transmission_hardware_launch --help', user.env, str(user.path)).stdout
    for option in ('--description-file', '--namespace', '--log-level', '--xacro-args'):
        assert option in usage
    listed = run('ros2 pkg executables transmission_plugins', user.env,
                 str(user.path)).stdout.split()
    assert listed == ['transmission_plugins', 'hardware_interface_node',
                      'transmission_plugins', 'mock_actuators_node',
                      'transmission_plugins', 'sim_interface_node',
                      'transmission_plugins', 'transmission_hardware_launch',
                      'transmission_plugins', 'transmission_plugins']


def test_the_mock_with_mujoco_physics(user):
    """doc/physics.md, from a directory holding ``urdf/`` (the repository root, say)."""
    pytest.importorskip('mujoco', reason='mujoco is not installed (requirements.txt has it)')
    (user.path / 'urdf').symlink_to(REPO / 'urdf')
    mock = start(doc.RUN_MUJOCO, user, ready=('simulating',))
    try:
        ros2('ros2 param get /mock_actuators physics', user, 'String value is: mujoco')
        ros2('ros2 topic echo --once /actuator_states', user, 'gripper_motor')
    except BaseException:
        mock.kill()
        raise
    stop(mock)


def test_the_hardware_interface_event_driven(user):
    """doc/nodes.md: event-driven mode from the command line; a state in, joint_states out."""
    (user.path / 'urdf').symlink_to(REPO / 'urdf')
    node = start(doc.RUN_EVENT_DRIVEN, user, ready=(']: active',))
    try:
        ros2('ros2 param get /transmission_hardware_interface event_driven', user,
             'Boolean value is: True')
        ros2('ros2 lifecycle get /transmission_hardware_interface', user, 'active')
    except BaseException:
        node.kill()
        raise
    stop(node)
