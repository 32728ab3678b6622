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
The ros2_control side: the generated block and controllers, ``transmission_plugins ros2-control``.

Without ROS: the block is checked as XML (ros2_control's own parser reads it in
``test/ros_cli/test_ros2_control_cli.py``, where the controller manager loads it).
"""

import json
import math
import subprocess
import xml.etree.ElementTree as ElementTree

import pytest
from tp_support import CORPUS_SKIP_REASON
from tp_support import FIXTURE_DIR
from tp_support import PR2_URDF
from tp_support import REPO
from tp_support import ros2_control_env
from tp_support import ROS2_CONTROL_SKIP_REASON
from transmission_plugins.core.exceptions import TransmissionValueError
from transmission_plugins.robot.loading import load_robot_transmissions
from transmission_plugins.tools.cli import main
from transmission_plugins.tools.launch.node_plan import read_description
from transmission_plugins.tools.launch.ros2_control_config import JOINT_COMMANDS_TOPIC
from transmission_plugins.tools.launch.ros2_control_config import JOINT_STATES_TOPIC
from transmission_plugins.tools.launch.ros2_control_config import other_blocks
from transmission_plugins.tools.launch.ros2_control_config import ros2_control_config
from transmission_plugins.tools.launch.ros2_control_config import topic_based_blocks
from transmission_plugins.tools.launch.ros2_control_config import TOPIC_BASED_SYSTEM
from transmission_plugins.tools.launch.ros2_control_config import with_block
import yaml

EXAMPLE = REPO / 'urdf' / 'example_robot.urdf.xacro'
COMMANDABLE = ('pan_joint', 'shoulder_joint', 'elbow_joint', 'wrist_pitch_joint',
               'wrist_roll_joint', 'gripper_joint')


@pytest.fixture(scope='module')
def example():
    text = read_description(EXAMPLE)
    return text, load_robot_transmissions(text, warn=False)


def _params(element):
    return {p.get('name'): p.text for p in element.iter('param')}


def test_the_block_of_the_example_robot(example):
    text, robot = example
    config = ros2_control_config(robot)
    assert config.joints == COMMANDABLE
    assert set(config.passive) == set(robot.joint_names) - set(COMMANDABLE)
    assert len(config.passive) == 4   # the gripper's fingers
    block = ElementTree.fromstring(config.block)
    assert block.tag == 'ros2_control' and block.get('type') == 'system'
    hardware = block.find('hardware')
    assert hardware.find('plugin').text == TOPIC_BASED_SYSTEM
    assert _params(hardware) == {'joint_commands_topic': JOINT_COMMANDS_TOPIC,
                                 'joint_states_topic': JOINT_STATES_TOPIC,
                                 'trigger_joint_command_threshold': '-1'}
    joints = block.findall('joint')
    assert tuple(j.get('name') for j in joints) == COMMANDABLE
    for joint in joints:
        assert [c.get('name') for c in joint.findall('command_interface')] == ['position']
        states = joint.findall('state_interface')
        assert [s.get('name') for s in states] == ['position', 'velocity', 'effort']
        assert all(math.isnan(float(_params(s)['initial_value'])) for s in states)


def test_the_controllers_of_the_example_robot(example):
    config = ros2_control_config(example[1], update_rate=500)
    doc = config.controllers
    assert doc['/**/controller_manager'] == {'ros__parameters': {'update_rate': 500}}
    assert doc['/**/joint_state_broadcaster']['ros__parameters']['type'] == (
        'joint_state_broadcaster/JointStateBroadcaster')
    jtc = doc['/**/joint_trajectory_controller']['ros__parameters']
    assert jtc['type'] == 'joint_trajectory_controller/JointTrajectoryController'
    assert jtc['joints'] == list(COMMANDABLE)
    assert jtc['command_interfaces'] == ['position']
    assert jtc['state_interfaces'] == ['position', 'velocity']


def test_other_command_interfaces(example):
    config = ros2_control_config(example[1], ('position', 'velocity'))
    block = ElementTree.fromstring(config.block)
    for joint in block.findall('joint'):
        assert [c.get('name') for c in joint.findall('command_interface')] == [
            'position', 'velocity']
    for bad in ((), ('torque',), ('position', 'position')):
        with pytest.raises(TransmissionValueError, match='command_interfaces'):
            ros2_control_config(example[1], bad)
    with pytest.raises(TransmissionValueError, match='update_rate'):
        ros2_control_config(example[1], update_rate=0)


def test_with_block_replaces_the_blocks_and_keeps_the_transmissions():
    text = (FIXTURE_DIR / 'ros2_control_blocks.urdf').read_text()
    robot = load_robot_transmissions(text, source='ros2_control', warn=False)
    assert other_blocks(text) and not topic_based_blocks(text)
    config = ros2_control_config(robot)
    merged = with_block(text, config.block)
    assert other_blocks(merged) == []
    block, = topic_based_blocks(merged)
    assert block.joints == config.joints
    assert (block.states_topic, block.commands_topic) == (JOINT_STATES_TOPIC,
                                                          JOINT_COMMANDS_TOPIC)
    assert block.command_interfaces == ('position',)
    assert block.state_interfaces == ('position', 'velocity', 'effort')


def test_the_generated_block_leaves_robot_level_transmissions_alone(example):
    text, robot = example
    merged = load_robot_transmissions(with_block(text, ros2_control_config(robot).block),
                                      warn=False)
    assert merged.joint_names == robot.joint_names
    assert merged.actuator_names == robot.actuator_names


@pytest.mark.skipif(not PR2_URDF.is_file(), reason=CORPUS_SKIP_REASON)
def test_the_pr2():
    config = ros2_control_config(load_robot_transmissions(PR2_URDF, warn=False))
    assert len(config.joints) == 32 and len(config.passive) == 12
    assert 'r_gripper_joint' in config.joints
    assert 'r_gripper_l_finger_joint' in config.passive


def test_the_command_prints_block_and_yaml(capsys):
    assert main(['ros2-control', str(EXAMPLE)]) == 0
    out = capsys.readouterr().out
    block, controllers = out.split('---\n')
    assert ElementTree.fromstring(block).tag == 'ros2_control'
    doc = yaml.safe_load(controllers)
    assert doc['/**/joint_trajectory_controller']['ros__parameters']['joints'] == list(
        COMMANDABLE)


def test_the_command_writes_files(tmp_path, capsys):
    files = {o: tmp_path / f'{o}.out' for o in ('block', 'controllers', 'urdf')}
    args = [a for o, path in files.items() for a in (f'--write-{o}', str(path))]
    assert main(['ros2-control', str(EXAMPLE), '--command-interface', 'velocity',
                 '--update-rate', '250'] + args) == 0
    assert 'example_robot: 6 joints, 4 passive left out; wrote' in capsys.readouterr().out
    assert 'name="velocity"' in files['block'].read_text()
    doc = yaml.safe_load(files['controllers'].read_text())
    assert doc['/**/controller_manager']['ros__parameters']['update_rate'] == 250
    block, = topic_based_blocks(files['urdf'].read_text())
    assert block.command_interfaces == ('velocity',)


def test_the_command_errors(tmp_path, capsys):
    assert main(['ros2-control', str(tmp_path / 'missing.urdf')]) == 1
    assert 'transmission_plugins ros2-control: error:' in capsys.readouterr().err
    assert main(['ros2-control', str(EXAMPLE), '--command-interface', 'torque']) == 2
    assert main(['ros2-control', str(EXAMPLE), '--update-rate', '0']) == 1
    assert 'update_rate: expected a whole number of Hz > 0' in capsys.readouterr().err
    assert main(['ros2-control', str(EXAMPLE), '--write-block',
                 str(tmp_path / 'no' / 'dir' / 'block.xml')]) == 1
    assert 'block.xml' in capsys.readouterr().err


# ------------------------------------------------------------------ issue 34: G-22
#: a block of another hardware holding the transmission (100:1), and a robot-level one for
#: Gazebo with another reduction (50:1), which ros2_control and this package ignore
GAZEBO_BESIDE_A_BLOCK = """<robot name="geared">
  <link name="a"/><link name="b"/>
  <joint name="j1" type="revolute"><parent link="a"/><child link="b"/>
    <limit lower="-1" upper="1" effort="10" velocity="2"/></joint>
  <transmission name="gazebo_trans">
    <type>transmission_interface/SimpleTransmission</type>
    <joint name="j1"><hardwareInterface>hardware_interface/EffortJointInterface</hardwareInterface>
    </joint>
    <actuator name="m1"><mechanicalReduction>50</mechanicalReduction></actuator>
  </transmission>
  <ros2_control name="real" type="system">
    <hardware><plugin>mock_components/GenericSystem</plugin></hardware>
    <joint name="j1"><command_interface name="position"/><state_interface name="position"/>
    </joint>
    <!-- the real gearbox -->
    <transmission name="real_trans">
      <plugin>transmission_interface/SimpleTransmission</plugin>
      <actuator name="m1" role="actuator1"/>
      <joint name="j1" role="joint1"><mechanical_reduction>100</mechanical_reduction>
        <offset>0.25</offset></joint>
    </transmission>
  </ros2_control>
</robot>
"""


def _maps(robot):
    return sorted((t.joint_names, t.actuator_names, repr(t.transmission.map_key()))
                  for t in robot.transmissions)


@pytest.mark.parametrize('source', ['text', FIXTURE_DIR / 'ros2_control_blocks.urdf'])
def test_write_urdf_keeps_the_transmissions_of_the_blocks_it_replaces(source, tmp_path,
                                                                      capsys):
    # G-22: --write-urdf swapped a transmission's reduction for the Gazebo one (100 became 50)
    if source == 'text':
        source = tmp_path / 'geared.urdf'
        source.write_text(GAZEBO_BESIDE_A_BLOCK)
    out = tmp_path / 'merged.urdf'
    assert main(['ros2-control', str(source), '--write-urdf', str(out)]) == 0, \
        capsys.readouterr().err
    before = load_robot_transmissions(str(source), warn=False)
    after = load_robot_transmissions(str(out), warn=False)
    assert _maps(after) == _maps(before)
    block, = topic_based_blocks(out.read_text())
    assert other_blocks(out.read_text()) == []


def test_the_geared_joint_keeps_its_100(tmp_path, capsys):
    source = tmp_path / 'geared.urdf'
    source.write_text(GAZEBO_BESIDE_A_BLOCK)
    out = tmp_path / 'merged.urdf'
    assert main(['ros2-control', str(source), '--write-urdf', str(out)]) == 0
    t, = load_robot_transmissions(str(out), warn=False).transmissions
    assert (t.name, t.transmission.get_actuator_reduction()) == ('real_trans', 100.0)
    assert '<!-- the real gearbox -->' in out.read_text()


@pytest.mark.parametrize('fixture', ['robotis_hardware.urdf', 'dynamixel_hardware.urdf'])
def test_write_urdf_refuses_to_drop_transmissions_it_cannot_keep(fixture, tmp_path, capsys):
    # G-22: --write-urdf dropped every transmission of the ROBOTIS fixture without a word
    out = tmp_path / 'merged.urdf'
    assert main(['ros2-control', str(FIXTURE_DIR / fixture), '--write-urdf', str(out)]) == 1
    err = capsys.readouterr().err
    assert err.count('\n') == 1, err
    assert err.startswith(f'transmission_plugins ros2-control: error: {out}: cannot write the '
                          'URDF: without its <ros2_control> blocks the description would load '
                          'other transmissions: ')
    assert 'in the parameters of its hardware' in err
    assert not out.exists()


@pytest.mark.process
def test_ros2_control_reads_the_moved_transmissions_in_the_generated_block(tmp_path, capsys):
    # ros2_control's own parser (tx_probe: parse_control_resources_from_urdf and the
    # transmission loaders) takes the written description, and finds every transmission
    # inside the generated TopicBasedSystem block, loaded, on the joints this package reads
    env = ros2_control_env()
    if env is None:
        pytest.skip(ROS2_CONTROL_SKIP_REASON)
    source = FIXTURE_DIR / 'ros2_control_blocks.urdf'
    out = tmp_path / 'merged.urdf'
    assert main(['ros2-control', str(source), '--write-urdf', str(out)]) == 0
    probe = subprocess.run(['tx_probe', str(out), '--compact'], env=env, capture_output=True,
                           text=True, timeout=60)
    assert probe.returncode == 0, probe.stderr
    found = {t['name']: (t['hardware'], t['loaded'], sorted(j['name'] for j in t['joints']),
                         sorted(a['name'] for a in t['actuators']))
             for t in json.loads(probe.stdout)['transmissions']}
    ours = load_robot_transmissions(str(out), warn=False)
    assert found == {t.name: ('transmission_hardware', True, sorted(t.joint_names),
                              sorted(t.actuator_names)) for t in ours.transmissions}
