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
from ros_cli_support import start
from ros_cli_support import stop
from tp_support import PREFIXED_ARM_XACRO

pytestmark = pytest.mark.ros


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


def _processes(cmd):
    import psutil
    return [psutil.Process(pid) for pid in cmd.family() if psutil.pid_exists(pid)]
