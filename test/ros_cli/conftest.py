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
The real ROS 2 tools and a colcon workspace, once per test session.

The tools (``ros2``, ``launch``, ``launch_ros``, ``launch_xml``) must be importable by this
interpreter: when they are not and ``../shared/ros2_cli/install.sh`` exists, it installs them
into this venv (seconds); otherwise every test here is skipped with that reason.  The package is
then built with ``colcon build --symlink-install`` in a temporary workspace, and every command
runs with the environment of ``. install/setup.bash``, as a user's would.

Each module runs in a ROS domain range of its own (:data:`DOMAINS`: 60-79 and 110-114 in
ranges of five, ``test_ros2_control_cli`` 230-232, ``test_venv_cli`` 55-59 in a shell without
the workspace; the domain is ``first + pid % count``), so that modules on two pytest-xdist
workers never meet, and each session has its own temporary directory
(``TMPDIR``), which must be empty again after each test: nothing holding the robot description
may be left behind.
"""

import importlib.util
import os
from pathlib import Path
import shutil
import subprocess
import sys
from typing import Iterator
from typing import NamedTuple

import pytest
from ros_cli_support import run
from tp_support import REPO
from tp_support import SHARED

INSTALL = SHARED / 'ros2_cli' / 'install.sh'
#: the ROS domain range of each module: (first, count)
DOMAINS = {'test_launch_cli': (60, 5), 'test_launch_files_cli': (110, 5),
           'test_run_cli': (65, 5), 'test_stop_cli': (70, 5), 'test_doc_commands': (75, 5),
           'test_ros2_control_cli': (230, 3)}
#: the domains this process's tests ran in
USED_DOMAINS: set[int] = set()
MODULES = ('ros2cli', 'ros2launch', 'launch', 'launch_ros', 'launch_xml', 'ros2lifecycle',
           'ros2param', 'ros2topic', 'ros2run', 'colcon_core')


class Workspace(NamedTuple):
    """A built colcon workspace and the environment of its ``install/setup.bash``."""

    path: Path
    env: dict[str, str]
    tmp: Path


def _missing() -> list:
    importlib.invalidate_caches()
    return [m for m in MODULES if importlib.util.find_spec(m) is None]


@pytest.fixture(scope='session')
def ros2_tools() -> Path:
    """Return the ``ros2`` command of this interpreter, installing it when possible."""
    missing = _missing()
    if missing and INSTALL.is_file() and sys.prefix != sys.base_prefix:
        result = subprocess.run(['bash', str(INSTALL), sys.prefix], capture_output=True,
                                text=True, timeout=600)
        assert result.returncode == 0, f'{INSTALL} failed:\n{result.stdout}{result.stderr}'
        missing = _missing()
    if missing:
        pytest.skip(f'the ROS 2 command line tools are not installed ({", ".join(missing)} '
                    f'missing) and {INSTALL} was not found to install them')
    ros2 = Path(sys.executable).parent / 'ros2'
    assert ros2.is_file(), f'{ros2} missing although ros2cli is importable'
    return ros2


def _base_env() -> dict[str, str]:
    """Return this environment without any workspace sourced; the venv first on PATH."""
    env = {k: v for k, v in os.environ.items()
           if k not in ('AMENT_PREFIX_PATH', 'COLCON_PREFIX_PATH', 'PYTHONPATH',
                        'CMAKE_PREFIX_PATH', 'PYTEST_CURRENT_TEST', 'TP_STOP_WITH_PARENT')}
    env['PATH'] = f'{Path(sys.executable).parent}{os.pathsep}{env.get("PATH", "")}'
    env['VIRTUAL_ENV'] = sys.prefix
    env['AMENT_PREFIX_PATH'] = sys.prefix
    return env


@pytest.fixture(scope='session')
def workspace(ros2_tools: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    """Build the package with colcon in a temporary workspace; yield it with its environment."""
    ws = tmp_path_factory.mktemp('ros_cli_ws')
    (ws / 'src').mkdir()
    (ws / 'src' / 'transmission_plugins').symlink_to(REPO)
    env = _base_env()
    run('colcon build --symlink-install --event-handlers console_direct-', env, str(ws),
        timeout=600)
    out = run('. install/setup.bash && env -0', env, str(ws)).stdout
    sourced = dict(item.split('=', 1) for item in out.split('\0') if '=' in item)
    tmp = tmp_path_factory.mktemp('ros_cli_tmp')
    logs = tmp_path_factory.mktemp('ros_cli_logs')   # not the user's ~/.ros/log
    sourced.update(ROS_LOG_DIR=str(logs), ROS_AUTOMATIC_DISCOVERY_RANGE='LOCALHOST',
                   PYTHONUNBUFFERED='1', RCUTILS_COLORIZED_OUTPUT='0', TMPDIR=str(tmp))
    yield Workspace(ws, sourced, tmp)
    # the ros2 command starts a daemon per domain on first use: stop those of the domains this
    # process used, and no other (the other test worker may still run a module whose domain
    # number this process would compute too; a daemon stopped while another one starts in that
    # domain once wedged in Fast DDS's shared memory and hung every later node's creation)
    for domain in sorted(USED_DOMAINS):
        subprocess.run(['ros2', 'daemon', 'stop'], cwd=str(ws), capture_output=True, timeout=60,
                       env=dict(sourced, ROS_DOMAIN_ID=str(domain)))


def _user(workspace: Workspace, path: Path, request: pytest.FixtureRequest) -> Iterator[Workspace]:
    for entry in workspace.tmp.iterdir():   # what an earlier failing test left
        shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
    first, count = DOMAINS[request.module.__name__.rsplit('.', 1)[-1]]
    domain = first + os.getpid() % count
    USED_DOMAINS.add(domain)
    yield Workspace(path, dict(workspace.env, ROS_DOMAIN_ID=str(domain)), workspace.tmp)
    left = sorted(p.name for p in workspace.tmp.iterdir())
    assert left == [], f'files left in the temporary directory: {left}'


@pytest.fixture
def user(workspace: Workspace, tmp_path: Path,
         request: pytest.FixtureRequest) -> Iterator[Workspace]:
    """Run a test in a fresh working directory and its module's domain; check ``TMPDIR``."""
    yield from _user(workspace, tmp_path, request)


@pytest.fixture(scope='class')
def class_user(workspace: Workspace, tmp_path_factory: pytest.TempPathFactory,
               request: pytest.FixtureRequest) -> Iterator[Workspace]:
    """
    :func:`user` for a class of tests sharing one bring-up (a scenario and its checks).

    Same domain as the module's other tests; ``TMPDIR`` is checked when the class is done.
    """
    yield from _user(workspace, tmp_path_factory.mktemp('class_user'), request)
