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
ros2_control in the loop: ``ros2_control.launch.py`` with the real controller manager.

``../shared/ros2_control`` (installed into the venv by scripts/test.sh) gives
``ros2_control_node``, the spawner, joint_state_broadcaster, joint_trajectory_controller,
``TopicBasedSystem`` and ``ros2 control``; every command runs in the environment of the colcon
workspace plus ``ros2_control/setup.bash``, in ROS domain ``230 + pid % 3`` (this module's:
Fast DDS refuses domains above 232; ``bench/bench_node.py`` uses the same range), so that the
documented commands run as written, without a namespace.

Two bring-ups: the bundled robot (the documented ``ros2 control`` and trajectory commands, a
joint_trajectory_controller goal reaching its target within 0.01, Ctrl-C; beside it a light node
set in a namespace, no mock, joint_state_broadcaster only, stopped by SIGTERM to its process
group, as systemd does), and the PR2 through the XML launch file in a namespace (a partial goal,
Ctrl-C twice).  Every stop: exit 0 (or upstream's -2 on a late second Ctrl-C, -15 on SIGTERM),
the package's nodes and the spawner finished cleanly, no process left.
``ros2_control_node`` (upstream, C++) of the shared build does not always stop cleanly, and how
it ends is upstream's, not judged here: after the stop, its death by a signal and its own lines
are accepted (:data:`CM_WAY_OUT`), and so is the launch's exit 1 when that death reaches
``ros2 launch`` before it handled the stop itself.  Seen: its pal_statistics 2.2.3 publisher
thread lets ``rclcpp::Rate::sleep`` throw "context cannot be slept with because it's invalid" once
the context is shut down (pal_statistics 2.7 catches it, pal-robotics/pal_statistics#28), and
two such threads abort at once, their "terminate called" lines interleaved (-6); and a later
SIGINT ends it (-2), because ``rclcpp::shutdown`` restores the handler that was there before
``rclcpp::init`` (the terminal's default) and every stop sends it more than one signal (the
terminal's Ctrl-C and the one ``ros2 launch`` forwards, a second Ctrl-C, SIGTERM then the
launch's SIGINT).  Now and then ``ros2 launch`` itself aborts as its last act, after every node
finished ("terminate called without an active exception", -6): this launch file's process holds
launch_ros's ROS node (it publishes the description for the controller manager), and the abort
comes from native code tearing down after the launch has ended (exact cause not found).  That
exit is accepted only with that line last.  Once, the spawner (upstream, Python) died of SIGSEGV
after it had configured and activated every controller; the launch then ends the set and exits
1, as for any spawner that fails: accepted only when the spawner logged every controller
activated.  In every case the package's nodes must have finished cleanly and no process may be
left.
"""

import os
from pathlib import Path
import re
import shutil
import signal
import subprocess
import time

import doc_commands as doc
import pytest
from ros_cli_support import Command
from ros_cli_support import ros2
from ros_cli_support import run
from ros_cli_support import start
from tp_support import PR2_URDF
from tp_support import ros2_control_env
from tp_support import ROS2_CONTROL_SKIP_REASON
import yaml

pytestmark = pytest.mark.ros

READY = ('Configured and activated joint_trajectory_controller', ']: active')
GOAL = Path(__file__).resolve().parent / 'jtc_goal.py'
#: ros2_control_node on its way out (module docstring): its own lines, its death by a signal and
#: the launch's report of it
CM_WAY_OUT = re.compile(r'^\[ros2_control_node-\d+\] |\[ERROR\] \[ros2_control_node-\d+\]: '
                        r'process has died \[pid \d+, exit code -\d+, |\[ERROR\] \[launch\]: '
                        r'Caught exception in launch \(see debug for traceback\): '
                        r'ros2_control_node exited with code -\d+ ')
#: the launch's verdict when that death comes before ``ros2 launch`` handled the stop itself
CM_DIED_EXIT = re.compile(r'ros2_control_node exited with code -\d+ while the launch was running')
#: ``ros2 launch`` of ros2_control.launch.py on its way out, now and then (module docstring)
LAUNCH_ABORT = 'terminate called without an active exception'
#: the upstream spawner dying of a signal after its work (module docstring)
SPAWNER_CRASH = re.compile(r'spawner exited with code -(6|11): the controllers (.+?) are not all '
                           r'active')
#: its lines when it does: the launch's verdict and the process's death
SPAWNER_DIED = re.compile(r'\[ERROR\] \[spawner-\d+\]: process has died \[pid \d+, exit code '
                          r'-(6|11), |spawner exited with code -(6|11): the controllers ')
#: the processes ros2 launch reports finished cleanly
CLEAN = ('hardware_interface_node', 'mock_actuators_node', 'spawner')


@pytest.fixture(scope='module')
def r2c_env(workspace):
    """Return the workspace's environment with ros2_control/setup.bash on top, in our domain."""
    found = ros2_control_env()
    if found is None:
        pytest.skip(ROS2_CONTROL_SKIP_REASON)
    env = dict(workspace.env)
    for key in ('LD_LIBRARY_PATH', 'AMENT_PREFIX_PATH', 'CMAKE_PREFIX_PATH', 'PYTHONPATH',
                'PATH'):
        parts = f'{workspace.env.get(key, "")}:{found.get(key, "")}'.split(':')
        env[key] = ':'.join(dict.fromkeys(p for p in parts if p))
    env['_ROS_WHEELS_BOOTSTRAP_COMPLETE'] = '1'
    env['ROS_DOMAIN_ID'] = str(230 + os.getpid() % 3)
    yield env
    subprocess.run(['ros2', 'daemon', 'stop'], env=env, capture_output=True, timeout=60)


@pytest.fixture
def r2c_user(user, r2c_env):
    """Give a test a fresh working directory with ros2_control's environment."""
    return user._replace(env=r2c_env)


def _goal(user, action, targets, seconds=2.0, tolerance=0.01):
    """Send a goal with ``jtc_goal.py``; return its output (it succeeded)."""
    text = ','.join(f'{j}={v}' for j, v in targets.items())
    for _ in range(2):
        result = run(f'python3 {GOAL} {action} {text} {seconds} {tolerance}', user.env,
                     str(user.path), timeout=120, check=False)
        # exit 3: the result never reached the client, asked for again for a minute (DDS lost
        # the action server's replies; about one run in ten here): the same goal once more
        if result.returncode != 3:
            break
    assert result.returncode == 0, result.stdout
    return result.stdout


def _stop(cmd, act, codes=(0,)):
    """Stop the launch with ``act``; check every process ended as the module docstring says."""
    try:
        cmd.family()
        act(cmd)
        code = cmd.wait(20)
        # upstream's controller manager dying before the launch handled the stop: the launch
        # exits 1 (a node died), every one of the package's nodes still has to finish cleanly
        aborted = code == 1 and CM_DIED_EXIT.search(cmd.output) is not None
        # upstream: the spawner crashing on its way out after it activated every controller;
        # the launch ends the set (exit 1) as for any failed spawner
        crash = SPAWNER_CRASH.search(cmd.output)
        crashed = code == 1 and crash is not None and all(
            f'Configured and activated {c}' in cmd.output for c in crash.group(2).split(', '))
        aborted = aborted or crashed
        allowed = re.compile(f'{CM_WAY_OUT.pattern}|{SPAWNER_DIED.pattern}' if crashed
                             else CM_WAY_OUT.pattern)
        # upstream: ros2 launch itself aborting as its last act, after every node ended
        aborted = aborted or (code == -signal.SIGABRT
                              and cmd.output.rstrip().endswith(LAUNCH_ABORT))
        assert code in codes or aborted, f'exit code {code}:\n{cmd.output}'
        assert cmd.wait_gone(10) == [], cmd.output
        bad = [line for line in cmd.bad_lines()
               if not allowed.search(line) and line.strip() != LAUNCH_ABORT]
        assert bad == [], cmd.output
        if code == 0 or aborted:
            log = cmd.launch_log()
            for name in CLEAN:   # each of them this launch started
                if re.search(rf'\[{name}-\d+\]: process started', log) and not (
                        crashed and name == 'spawner'):
                    assert re.search(rf'\[{name}-\d+\]: process has finished cleanly',
                                     log), log
            bad = [line for line in log.splitlines() if 'process has died' in line
                   and not allowed.search(line)]
            assert bad == [], log
    finally:
        cmd.kill()


def _joint_states(user, expect):
    """Return positions of ``/joint_states`` (joint_state_broadcaster's) once ``expect`` shows."""
    echo = ros2('ros2 topic echo --once /joint_states', user, expect)
    msg = yaml.safe_load(echo[echo.index('header:'):].split('---')[0])
    return dict(zip(msg['name'], msg['position']))


#: a light node set beside the bundled robot, stopped by SIGTERM to its process group
LIGHT = (f'{doc.R2C_LAUNCH} namespace:=term use_mock_actuators:=false '
         'controllers:=joint_state_broadcaster')
LIGHT_READY = (']: active', 'Configured and activated joint_state_broadcaster')


def test_the_bundled_robot_under_ros2_control(r2c_user):
    launch = start(doc.R2C_LAUNCH, r2c_user, READY, timeout=120)
    light = Command(LIGHT, r2c_user.env, str(r2c_user.path))
    try:
        assert 'ros2_control: generated TopicBasedSystem block (6 joints, 4 passive left out)' in (
            launch.output)
        controllers = ros2(doc.R2C_LIST_CONTROLLERS, r2c_user, 'joint_trajectory_controller',
                           timeout=90)
        for name in ('joint_state_broadcaster', 'joint_trajectory_controller'):
            assert re.search(rf'^{name}\s+\S+\s+active', controllers, re.M), controllers
        interfaces = ros2(doc.R2C_LIST_INTERFACES, r2c_user, 'gripper_joint/position',
                          timeout=90)
        claimed = re.findall(r'(\w+)/position \[available\] \[claimed\]', interfaces)
        assert sorted(claimed) == sorted(['pan_joint', 'shoulder_joint', 'elbow_joint',
                                          'wrist_pitch_joint', 'wrist_roll_joint',
                                          'gripper_joint'])
        assert 'gripper_l_finger_joint' not in interfaces   # passive: not in the block
        run(doc.R2C_TRAJECTORY, r2c_user.env, str(r2c_user.path), timeout=90)
        # an action goal on every joint: the controller checks its tolerance itself
        targets = {'pan_joint': -0.4, 'shoulder_joint': 0.3, 'elbow_joint': -0.6,
                   'wrist_pitch_joint': 0.2, 'wrist_roll_joint': -0.5, 'gripper_joint': 0.03}
        assert 'error_code 0' in _goal(r2c_user, '/joint_trajectory_controller/'
                                       'follow_joint_trajectory', targets)
        positions = _joint_states(r2c_user, 'gripper_joint')   # joint_state_broadcaster's
        for joint, target in targets.items():
            assert abs(positions[joint] - target) < 0.01, positions
        light.wait_for(LIGHT_READY, 120)
    except BaseException:
        launch.kill()
        light.kill()
        raise
    _stop(launch, lambda c: c.ctrl_c())
    # no mock, one controller: every node stops on SIGTERM to the group
    _stop(light, lambda c: c.signal(signal.SIGTERM, group=True), codes=(-signal.SIGTERM,))


def test_the_pr2_in_a_namespace(r2c_user):
    """The PR2 through the XML launch file in ``/pr2``: a partial goal, Ctrl-C twice."""
    if not PR2_URDF.is_file():
        pytest.skip(f'needs {PR2_URDF} (../shared/urdf_corpus)')
    # the page's layout: a checkout with ../shared beside it
    corpus = r2c_user.path / 'shared' / 'urdf_corpus'
    corpus.mkdir(parents=True)
    shutil.copy(PR2_URDF, corpus / 'pr2.urdf')
    r2c_user = r2c_user._replace(path=r2c_user.path / 'checkout')
    r2c_user.path.mkdir()
    launch = start(doc.R2C_LAUNCH_PR2, r2c_user, READY, timeout=120)
    try:
        assert 'generated TopicBasedSystem block (32 joints, 12 passive left out)' in (
            launch.output)
        controllers = ros2(doc.R2C_LIST_CONTROLLERS_NS, r2c_user, 'joint_trajectory_controller',
                           timeout=90)
        assert re.search(r'^joint_trajectory_controller\s+\S+\s+active', controllers, re.M)
        run(doc.R2C_TRAJECTORY_PR2, r2c_user.env, str(r2c_user.path), timeout=90)
        assert 'error_code 0' in _goal(r2c_user, '/pr2/joint_trajectory_controller/'
                                       'follow_joint_trajectory',
                                       {'head_pan_joint': -0.3, 'r_shoulder_pan_joint': -0.2,
                                        'r_gripper_joint': 0.04})
    except BaseException:
        launch.kill()
        raise

    def twice(cmd):
        cmd.ctrl_c()
        time.sleep(0.05)
        cmd.ctrl_c()
    _stop(launch, twice, codes=(0, -signal.SIGINT))
