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
``ros2 launch`` and ``ros2 run`` in the project's venv, with no colcon workspace (issue 34).

``scripts/setup_env.sh`` registers the package in the venv's ament index as colcon would install
it, and its ``bin/activate`` puts the venv on ``AMENT_PREFIX_PATH``: the lines of README and
doc/launch.md work as pasted in a shell where nothing of ROS is sourced (here: a directory with
``.venv`` in it, no ``AMENT_PREFIX_PATH``, the venv not on ``PATH``).
"""

import os
from pathlib import Path
import re
import subprocess
import sys
from typing import Iterator
from typing import NamedTuple

import doc_commands as doc
import pytest
from ros_cli_support import ros2
from ros_cli_support import run
from ros_cli_support import start
from ros_cli_support import stop
from tp_support import REPO
from tp_support import ros2_control_env
from tp_support import ROS2_CONTROL_SKIP_REASON

pytestmark = pytest.mark.ros

#: this module's ROS domains (test/ros_cli/conftest.py lists the others)
DOMAINS = (55, 5)


class Shell(NamedTuple):
    """A user's shell: its working directory (holding ``.venv``) and its environment."""

    path: Path
    env: dict[str, str]


@pytest.fixture(scope='module')
def domain_env(ros2_tools: Path) -> Iterator[dict[str, str]]:
    """Return a shell environment with nothing of ROS or the venv in it, in our domain."""
    venv_bin = str(Path(sys.executable).parent)
    env = {k: v for k, v in os.environ.items()
           if k not in ('AMENT_PREFIX_PATH', 'COLCON_PREFIX_PATH', 'PYTHONPATH', 'VIRTUAL_ENV',
                        'CMAKE_PREFIX_PATH', 'PYTEST_CURRENT_TEST', 'TP_STOP_WITH_PARENT',
                        'PYTHONHOME')}
    env['PATH'] = os.pathsep.join(p for p in env.get('PATH', '').split(os.pathsep)
                                  if p and p != venv_bin)
    env.update(ROS_DOMAIN_ID=str(DOMAINS[0] + os.getpid() % DOMAINS[1]),
               ROS_AUTOMATIC_DISCOVERY_RANGE='LOCALHOST', PYTHONUNBUFFERED='1',
               RCUTILS_COLORIZED_OUTPUT='0')
    yield env
    # the daemon the ros2 command started in this domain
    subprocess.run(['bash', '-c', f'. {sys.prefix}/bin/activate && ros2 daemon stop'],
                   env=env, capture_output=True, timeout=60)


@pytest.fixture
def shell(domain_env: dict[str, str], tmp_path: Path) -> Shell:
    """Return a fresh working directory with ``.venv`` (this venv) in it."""
    (tmp_path / '.venv').symlink_to(sys.prefix)
    (tmp_path / 'log').mkdir()
    return Shell(tmp_path, dict(domain_env, ROS_LOG_DIR=str(tmp_path / 'log')))


def _activated(line: str) -> str:
    return f'{doc.VENV_ACTIVATE} && {line}'


def test_the_venv_lines_are_in_the_docs():
    for page in ('README.md', 'doc/launch.md'):
        text = (REPO / page).read_text()
        assert doc.VENV_ROS2_TOOLS in text, page
        assert doc.VENV_ACTIVATE in text, page
    quick_start = (REPO / 'doc' / 'ros2_control.md').read_text().split('## Quick start')[1]
    assert quick_start.index(doc.R2C_VENV_SETUP) < quick_start.index(doc.R2C_LAUNCH)


def test_ros2_launch_in_the_venv(shell):
    assert 'AMENT_PREFIX_PATH' not in shell.env
    launch = start(_activated(doc.LAUNCH), shell)
    try:
        echo = ros2(_activated(doc.TOPIC_ECHO), shell, 'gripper_joint')
        assert 'wrist_roll_joint' in echo
        ros2(_activated(doc.LIFECYCLE_GET), shell, r'^active \[3\]')
    except BaseException:
        launch.kill()
        raise
    stop(launch)


def test_ros2_run_in_the_venv(shell):
    version = re.search(r'<version>([^<]+)</version>', (REPO / 'package.xml').read_text())[1]
    out = run(_activated(doc.RUN_VERSION), shell.env, str(shell.path)).stdout
    assert out.strip() == f'transmission_plugins {version}'
    prefix = run(_activated('ros2 pkg prefix transmission_plugins'), shell.env,
                 str(shell.path)).stdout.strip()
    assert Path(prefix).resolve() == Path(sys.prefix).resolve()
    listed = run(_activated('ros2 pkg executables transmission_plugins'), shell.env,
                 str(shell.path)).stdout.split()
    assert listed[1::2] == ['hardware_interface_node', 'mock_actuators_node',
                            'sim_interface_node', 'transmission_hardware_launch',
                            'transmission_plugins']
    usage = run(_activated('ros2 run transmission_plugins hardware_interface_node --help'),
                shell.env, str(shell.path)).stdout
    assert 'update_rate' in usage
    # the share directory is the source tree's: launch files, config and URDF as colcon
    # --symlink-install would install them
    share = Path(run(_activated('python -c "from ament_index_python.packages import '
                                'get_package_share_directory as g; '
                                'print(g(\'transmission_plugins\'))"'),
                     shell.env, str(shell.path)).stdout.strip())
    for part in ('package.xml', 'transmission_plugins.xml', 'launch/ros2_control.launch.xml',
                 'config/transmission_hardware.yaml', 'urdf/example_robot.urdf.xacro'):
        assert (share / part).resolve() == (REPO / part).resolve(), part


def test_the_ros2_control_quick_start_in_the_venv(shell):
    if ros2_control_env() is None:
        pytest.skip(ROS2_CONTROL_SKIP_REASON)
    line = f'{doc.R2C_VENV_SETUP} && {doc.R2C_LAUNCH}'
    launch = start(line, shell, ready=('Configured and activated joint_trajectory_controller',
                                       ']: active'), timeout=120)
    try:
        listed = ros2(f'{doc.R2C_VENV_SETUP} && {doc.R2C_LIST_CONTROLLERS}', shell,
                      r'joint_trajectory_controller.*active')
        assert re.search(r'joint_state_broadcaster.*active', listed), listed
    finally:
        # how ros2_control_node ends is upstream's (test_ros2_control_cli.py): stop, then make
        # sure nothing is left
        launch.ctrl_c()
        launch.wait(20)
        launch.kill()
