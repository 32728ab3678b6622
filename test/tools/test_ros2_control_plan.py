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
What ``ros2_control.launch.py`` starts (:mod:`~transmission_plugins.tools.launch`).

The plan needs ros2_control installed only to say so; these tests take it as installed (the
check itself is tested with an empty ``AMENT_PREFIX_PATH``).  ``test/ros_cli`` runs the launch.
"""

import pytest
from tp_support import FIXTURE_DIR
from transmission_plugins.tools.launch import ros2_control_plan
from transmission_plugins.tools.launch.node_plan import LaunchConfigError
from transmission_plugins.tools.launch.ros2_control_config import block_xml
from transmission_plugins.tools.launch.ros2_control_config import JOINT_COMMANDS_TOPIC
from transmission_plugins.tools.launch.ros2_control_config import JOINT_STATES_TOPIC
from transmission_plugins.tools.launch.ros2_control_plan import plan_ros2_control

#: a robot with its own TopicBasedSystem block
OWN_BLOCK = """<?xml version="1.0"?>
<robot name="own">
  <link name="a"/><link name="b"/>
  <joint name="j1" type="revolute"><parent link="a"/><child link="b"/>
    <limit lower="-1" upper="1" effort="10" velocity="2"/></joint>
  <transmission name="t1">
    <type>transmission_interface/SimpleTransmission</type>
    <joint name="j1"/>
    <actuator name="m1"><mechanicalReduction>50</mechanicalReduction></actuator>
  </transmission>
  <ros2_control name="mine" type="system">
    <hardware>
      <plugin>topic_based_ros2_control/TopicBasedSystem</plugin>
      <param name="joint_states_topic">{states}</param>
    </hardware>
    <joint name="j1">
      <command_interface name="velocity"/>
      <state_interface name="position"/><state_interface name="velocity"/>
    </joint>
  </ros2_control>
</robot>
"""


@pytest.fixture(autouse=True)
def installed(monkeypatch):
    """Take ros2_control as installed, robot_state_publisher as not."""
    monkeypatch.setattr(ros2_control_plan, '_required', lambda package, executable: None)


def _plan(**values):
    return plan_ros2_control(values, robot_state_publisher=False)


def test_the_bundled_robot():
    plan = _plan()
    hardware = plan.nodes.specs[0]
    assert hardware.name == 'transmission_hardware_interface'
    assert hardware.remappings == (('joint_states', JOINT_STATES_TOPIC),
                                   ('joint_commands', JOINT_COMMANDS_TOPIC))
    assert [s.name for s in plan.nodes.specs] == ['transmission_hardware_interface',
                                                  'mock_actuators']
    assert all(s.remappings == () for s in plan.nodes.specs[1:])
    assert [s.parameters['qos_depth'] for s in plan.nodes.specs] == [1, 1]   # newest only
    assert '<ros2_control name="transmission_hardware"' in plan.description
    assert '<ros2_control' not in hardware.parameters['robot_description']
    assert plan.publish_description
    assert plan.spawn == ('joint_state_broadcaster', 'joint_trajectory_controller')
    assert set(plan.controllers) == set(plan.spawn)
    assert plan.control_node.executable == 'ros2_control_node'
    assert plan.control_node.parameters == {'update_rate': 100, 'use_sim_time': False}
    assert plan.notes == ['ros2_control: generated TopicBasedSystem block (6 joints, 4 passive '
                          'left out)']


def test_update_rate_goes_to_both_loops():
    plan = _plan(update_rate='500', use_sim_time='true', namespace='r1')
    assert plan.control_node.parameters == {'update_rate': 500, 'use_sim_time': True}
    assert plan.nodes.specs[0].parameters['update_rate'] == 500.0
    assert plan.nodes.namespace == 'r1'
    with pytest.raises(LaunchConfigError, match='whole number of Hz'):
        _plan(update_rate='250.5')


def test_simulation_mode_is_refused():
    with pytest.raises(LaunchConfigError, match='mode simulation does not apply'):
        _plan(mode='simulation')


def test_robot_state_publisher_gets_the_block():
    plan = plan_ros2_control({}, robot_state_publisher=True)
    rsp, = [s for s in plan.nodes.specs if s.name == 'robot_state_publisher']
    assert rsp.parameters['robot_description'] == plan.description
    assert not plan.publish_description


def test_the_description_blocks_are_replaced():
    plan = _plan(description_file=str(FIXTURE_DIR / 'ros2_control_blocks.urdf'))
    assert any("block 'BotSystem' (bot_hardware/BotSystemHardware) is replaced" in n
               for n in plan.notes)
    assert 'bot_hardware/BotSystemHardware' not in plan.description


def test_an_own_topic_based_block(tmp_path):
    urdf = tmp_path / 'own.urdf'
    urdf.write_text(OWN_BLOCK.format(states='/own/states'))
    plan = _plan(description_file=str(urdf))
    assert plan.description == plan.nodes.specs[0].parameters['robot_description']
    assert plan.nodes.specs[0].remappings == (('joint_states', '/own/states'),
                                              ('joint_commands', '/robot_joint_commands'))
    jtc = plan.controllers['joint_trajectory_controller']
    assert (jtc['joints'], jtc['command_interfaces']) == (['j1'], ['velocity'])
    assert plan.notes == ["ros2_control: the description's TopicBasedSystem block 'mine' "
                          '(1 joints)']
    for states in ('joint_states', '/joint_states'):
        urdf.write_text(OWN_BLOCK.format(states=states))
        with pytest.raises(LaunchConfigError, match='where joint_state_broadcaster publishes'):
            _plan(description_file=str(urdf))


def test_a_controllers_file(tmp_path):
    path = tmp_path / 'controllers.yaml'
    path.write_text('controller_manager:\n  ros__parameters:\n    update_rate: 50\n'
                    '/**/forward:\n  ros__parameters:\n'
                    '    type: forward_command_controller/ForwardCommandController\n')
    plan = _plan(controllers_file=str(path), controllers='forward')
    assert plan.control_node.parameters['update_rate'] == 50
    assert plan.controllers == {'forward': {
        'type': 'forward_command_controller/ForwardCommandController'}}
    with pytest.raises(LaunchConfigError, match=r"controllers \['joint_state_broadcaster'\] "
                                                'have no section'):
        _plan(controllers_file=str(path), controllers='joint_state_broadcaster')
    path.write_text('- a list\n')
    with pytest.raises(LaunchConfigError, match='expected a mapping'):
        _plan(controllers_file=str(path))


def test_ros2_control_not_installed(monkeypatch):
    monkeypatch.undo()
    monkeypatch.setenv('AMENT_PREFIX_PATH', '')
    with pytest.raises(LaunchConfigError, match='ros2_control_node is not installed.*install.sh'):
        _plan()


def test_the_generated_block_is_the_config_block():
    plan = _plan()
    joints = plan.controllers['joint_trajectory_controller']['joints']
    block = block_xml(joints, ['position'], ['position', 'velocity', 'effort'])
    assert block.strip() in plan.description


@pytest.mark.parametrize('value', ['1.5', 'fast', 'true', '0', '-100', '.nan', '[100]', '1e3'])
def test_a_bad_update_rate_in_the_controllers_file_names_file_and_value(tmp_path, value):
    # issue 34 (G-24): a bad controller_manager.update_rate gave a bare ValueError, and 1.5
    # silently became 1 Hz (ros2_control declares it an integer parameter)
    path = tmp_path / 'controllers.yaml'
    path.write_text(f'controller_manager:\n  ros__parameters:\n    update_rate: {value}\n'
                    '/**/forward:\n  ros__parameters:\n'
                    '    type: forward_command_controller/ForwardCommandController\n')
    with pytest.raises(LaunchConfigError) as info:
        _plan(controllers_file=str(path), controllers='forward')
    message = str(info.value)
    assert message.startswith(f'{path}: controller_manager.update_rate: expected a whole '
                              'number of Hz > 0 (ros2_control reads an integer), got ')
    assert '\n' not in message


def test_a_whole_update_rate_in_the_controllers_file_is_taken(tmp_path):
    path = tmp_path / 'controllers.yaml'
    path.write_text('/**/controller_manager:\n  ros__parameters:\n    update_rate: 250\n'
                    '/**/forward:\n  ros__parameters:\n'
                    '    type: forward_command_controller/ForwardCommandController\n')
    plan = _plan(controllers_file=str(path), controllers='forward')
    assert plan.control_node.parameters['update_rate'] == 250
    plan = _plan(controllers_file=str(path), controllers='forward', update_rate='500')
    assert plan.control_node.parameters['update_rate'] == 500   # the launch argument wins
