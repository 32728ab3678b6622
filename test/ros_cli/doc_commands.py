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
The ``ros2`` commands of ``README.md`` and ``doc/*.md``, and the test that runs each as written.

The tests of this folder take their command lines from here, so what runs is the documented
text; ``test_doc_commands.py`` checks that this table and the pages list the same commands.
"""

LAUNCH = 'ros2 launch transmission_plugins transmission_hardware.launch.py'
#: README and doc/launch.md: the ROS 2 tools in the project's venv, and its activation (which
#: puts the venv on AMENT_PREFIX_PATH: scripts/setup_env.sh registers the package there)
VENV_ROS2_TOOLS = 'bash ../shared/ros2_cli/install.sh .venv'
VENV_ACTIVATE = '. .venv/bin/activate'
#: doc/ros2_control.md: the quick start in the project's venv
R2C_VENV_SETUP = 'source .venv/ros2_control/setup.bash'
TOPIC_HZ = 'ros2 topic hz /joint_states'
TOPIC_ECHO = 'ros2 topic echo --once /joint_states'
LIFECYCLE_GET = 'ros2 lifecycle get /transmission_hardware_interface'
LIFECYCLE_DEACTIVATE = 'ros2 lifecycle set /transmission_hardware_interface deactivate'
PARAM_DESCRIBE = 'ros2 param describe /transmission_hardware_interface update_rate'
PARAM_GET = 'ros2 param get /transmission_hardware_interface command_timeout'
PARAM_SET = 'ros2 param set /transmission_hardware_interface command_timeout 1.5'
LAUNCH_OWN_ROBOT = ('ros2 launch transmission_plugins transmission_hardware.launch.py '
                    'description_file:=robot.urdf.xacro use_mock_actuators:=false')
TOPIC_PUB_STATES = ('ros2 topic pub -r 20 /actuator_states sensor_msgs/msg/JointState '
                    '"{name: [motor1], position: [1.0]}"')
LAUNCH_XML = ('ros2 launch transmission_plugins transmission_hardware.launch.xml '
              'description_file:=robot.urdf.xacro xacro_args:=prefix:=left_ namespace:=left '
              'update_rate:=50')
LAUNCH_ACTUATOR_TOPICS = ('ros2 launch transmission_plugins transmission_hardware.launch.py '
                          'actuator_states_topic:=/motors/state '
                          'actuator_commands_topic:=/motors/command')
RUN_HARDWARE = ('ros2 run transmission_plugins hardware_interface_node --ros-args '
                '--params-file robot_description.yaml -p update_rate:=500')
RUN_MOCK = ('ros2 run transmission_plugins mock_actuators_node --ros-args '
            '--params-file robot_description.yaml')
RUN_REMAPPED = ('ros2 run transmission_plugins hardware_interface_node --ros-args '
                '--params-file robot_description.yaml -r __ns:=/left '
                '-r joint_states:=/joint_states')
RUN_VERSION = 'ros2 run transmission_plugins transmission_plugins --version'
RUN_MUJOCO = ('ros2 run transmission_plugins mock_actuators_node --ros-args '
              '-p robot_description:="$(xacro urdf/example_robot.urdf.xacro)" -p physics:=mujoco')
RUN_EVENT_DRIVEN = ('ros2 run transmission_plugins hardware_interface_node --ros-args '
                    '-p robot_description:="$(xacro urdf/example_robot.urdf.xacro)" '
                    '-p event_driven:=true -p update_rate:=100.0')
LAUNCH_SIM = ('ros2 launch transmission_plugins transmission_hardware.launch.py '
              'mode:=simulation')
TOPIC_PUB_JOINT_STATES = (
    'ros2 topic pub -r 50 /joint_states sensor_msgs/msg/JointState "{name: [pan_joint, '
    'wrist_pitch_joint, wrist_roll_joint, gripper_joint], position: [0.5, 0.2, 0.1, 0.04]}"')
TOPIC_ECHO_ACTUATOR_STATES = 'ros2 topic echo --once /actuator_states'
TOPIC_PUB_ACTUATOR_COMMANDS = (
    'ros2 topic pub -r 20 /actuator_commands sensor_msgs/msg/JointState '
    '"{name: [wrist_left_motor, wrist_right_motor], position: [2.0, 1.0]}"')
TOPIC_ECHO_JOINT_COMMANDS = 'ros2 topic echo --once /joint_commands'
PARAM_GET_STALE = 'ros2 param get /transmission_sim_interface stale_joints'

R2C_LAUNCH = 'ros2 launch transmission_plugins ros2_control.launch.py'
R2C_LIST_CONTROLLERS = 'ros2 control list_controllers'
R2C_LIST_INTERFACES = 'ros2 control list_hardware_interfaces'
R2C_TRAJECTORY = (
    'ros2 topic pub --once /joint_trajectory_controller/joint_trajectory '
    'trajectory_msgs/msg/JointTrajectory "{joint_names: [pan_joint, gripper_joint], '
    'points: [{positions: [0.5, 0.05], time_from_start: {sec: 2}}]}"')
R2C_LAUNCH_PR2 = ('ros2 launch transmission_plugins ros2_control.launch.xml '
                  'description_file:=../shared/urdf_corpus/pr2.urdf namespace:=pr2')
R2C_LIST_CONTROLLERS_NS = 'ros2 control list_controllers -c /pr2/controller_manager'
R2C_TRAJECTORY_PR2 = (
    'ros2 topic pub --once /pr2/joint_trajectory_controller/joint_trajectory '
    'trajectory_msgs/msg/JointTrajectory "{joint_names: [head_pan_joint, r_shoulder_pan_joint], '
    'points: [{positions: [0.5, -0.5], time_from_start: {sec: 2}}]}"')

#: documented command -> the test (``module::function``) that runs it exactly as written
#: the test of the README's launch of the bundled robot and the ros2 tools on it
BUNDLED = ('test_launch_cli.py::TestTheBundledRobot::'
           'test_the_ros2_tools_then_the_lifecycle_shutdown')
COVERED = {
    LAUNCH: BUNDLED,
    TOPIC_HZ: BUNDLED,
    TOPIC_ECHO: BUNDLED,
    LIFECYCLE_GET: BUNDLED,
    LIFECYCLE_DEACTIVATE: BUNDLED,
    PARAM_DESCRIBE: BUNDLED,
    PARAM_GET: BUNDLED,
    PARAM_SET: BUNDLED,
    LAUNCH_OWN_ROBOT: 'test_launch_cli.py::test_your_robot_without_mock_actuators',
    TOPIC_PUB_STATES: 'test_launch_cli.py::test_your_robot_without_mock_actuators',
    LAUNCH_XML: 'test_launch_files_cli.py::test_the_xml_launch_file_with_xacro_arguments',
    LAUNCH_ACTUATOR_TOPICS: 'test_launch_cli.py::test_the_actuator_topics_remapped',
    RUN_HARDWARE: 'test_run_cli.py::test_ros2_run_both_nodes',
    RUN_MOCK: 'test_run_cli.py::test_ros2_run_both_nodes',
    RUN_REMAPPED: 'test_run_cli.py::test_ros2_run_with_namespace_and_remapping',
    RUN_VERSION: 'test_run_cli.py::test_the_commands_of_the_workspace',
    RUN_MUJOCO: 'test_run_cli.py::test_the_mock_with_mujoco_physics',
    RUN_EVENT_DRIVEN: 'test_run_cli.py::test_the_hardware_interface_event_driven',
    LAUNCH_SIM: 'test_launch_files_cli.py::test_simulation_mode_with_a_stand_in_simulator',
    TOPIC_PUB_JOINT_STATES:
        'test_launch_files_cli.py::test_simulation_mode_with_a_stand_in_simulator',
    TOPIC_ECHO_ACTUATOR_STATES:
        'test_launch_files_cli.py::test_simulation_mode_with_a_stand_in_simulator',
    TOPIC_PUB_ACTUATOR_COMMANDS:
        'test_launch_files_cli.py::test_simulation_mode_with_a_stand_in_simulator',
    TOPIC_ECHO_JOINT_COMMANDS:
        'test_launch_files_cli.py::test_simulation_mode_with_a_stand_in_simulator',
    PARAM_GET_STALE: 'test_launch_files_cli.py::test_simulation_mode_with_a_stand_in_simulator',
    R2C_LAUNCH: 'test_ros2_control_cli.py::test_the_bundled_robot_under_ros2_control',
    R2C_LIST_CONTROLLERS: 'test_ros2_control_cli.py::test_the_bundled_robot_under_ros2_control',
    R2C_LIST_INTERFACES: 'test_ros2_control_cli.py::test_the_bundled_robot_under_ros2_control',
    R2C_TRAJECTORY: 'test_ros2_control_cli.py::test_the_bundled_robot_under_ros2_control',
    R2C_LAUNCH_PR2: 'test_ros2_control_cli.py::test_the_pr2_in_a_namespace',
    R2C_LIST_CONTROLLERS_NS: 'test_ros2_control_cli.py::test_the_pr2_in_a_namespace',
    R2C_TRAJECTORY_PR2: 'test_ros2_control_cli.py::test_the_pr2_in_a_namespace',
}
