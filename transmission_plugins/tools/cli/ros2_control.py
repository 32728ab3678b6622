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
``transmission_plugins ros2-control URDF``: the ``<ros2_control>`` block and controllers YAML.

Without an output option both go to standard output, the block first, then the YAML after a
``---`` line; ``--write-block``, ``--write-controllers`` and ``--write-urdf`` write them to
files instead (the last one: the description with its ``<ros2_control>`` blocks replaced by the
generated one, what ``ros2_control.launch.py`` gives the controller manager).  See
:mod:`transmission_plugins.tools.launch.ros2_control_config`.
"""

import argparse
from typing import Any

from transmission_plugins.core.exceptions import TransmissionError
from transmission_plugins.robot.loading import load_robot_transmissions
from transmission_plugins.robot.robot_transmissions import RobotTransmissions
from transmission_plugins.tools.cli.common import add_urdf_arguments
from transmission_plugins.tools.cli.common import error
from transmission_plugins.tools.cli.common import EXIT_ERROR
from transmission_plugins.tools.cli.common import EXIT_OK
from transmission_plugins.tools.cli.common import interruptible
from transmission_plugins.tools.cli.common import LOAD_ERRORS
from transmission_plugins.tools.cli.common import load_or_report
from transmission_plugins.tools.cli.common import refuse_outputs
from transmission_plugins.tools.cli.common import xacro_mappings
from transmission_plugins.tools.data.output_file import output_file
from transmission_plugins.tools.launch.node_plan import read_description
from transmission_plugins.tools.launch.ros2_control_config import changed_transmissions
from transmission_plugins.tools.launch.ros2_control_config import controllers_yaml
from transmission_plugins.tools.launch.ros2_control_config import DEFAULT_UPDATE_RATE
from transmission_plugins.tools.launch.ros2_control_config import JOINT_STATE_INTERFACES
from transmission_plugins.tools.launch.ros2_control_config import ros2_control_config
from transmission_plugins.tools.launch.ros2_control_config import with_block

COMMAND = 'ros2-control'


def add_parser(sub: Any) -> None:
    """Register the ``ros2-control`` verb."""
    p = sub.add_parser(COMMAND, help='print a <ros2_control> block (TopicBasedSystem) and a '
                                     'controllers YAML for a URDF',
                       description='Write what ros2_control needs to drive the robot through '
                                   'the transmission hardware interface: a <ros2_control> block '
                                   'using topic_based_ros2_control/TopicBasedSystem with every '
                                   'commandable joint (passive joints left out), and a '
                                   'controllers YAML (controller_manager, '
                                   'joint_state_broadcaster, joint_trajectory_controller). '
                                   'Without --write-* options both are printed, the block '
                                   'first, then a line "---" and the YAML.')
    add_urdf_arguments(p)
    p.add_argument('--command-interface', dest='command_interfaces', action='append',
                   choices=JOINT_STATE_INTERFACES, metavar='INTERFACE',
                   help='a command interface of every joint: position (default), velocity or '
                        'effort; repeat for more (TopicBasedSystem sends each of them, claimed '
                        'by a controller or not)')
    p.add_argument('--update-rate', type=int, default=DEFAULT_UPDATE_RATE, metavar='HZ',
                   help=f"the controller manager's update_rate (default {DEFAULT_UPDATE_RATE})")
    p.add_argument('--write-block', metavar='FILE',
                   help='write the <ros2_control> block to FILE')
    p.add_argument('--write-controllers', metavar='FILE',
                   help='write the controllers YAML to FILE')
    p.add_argument('--write-urdf', metavar='FILE',
                   help='write the description with its <ros2_control> blocks replaced by the '
                        'generated one to FILE')
    p.set_defaults(func=run)


@interruptible
def run(args: argparse.Namespace) -> int:
    """Print or write the block and the controllers (module docstring)."""
    refused = refuse_outputs(COMMAND, [(args.write_block, 'the <ros2_control> block'),
                                       (args.write_controllers, 'the controllers YAML'),
                                       (args.write_urdf, 'the URDF')], [args.urdf])
    if refused is not None:
        return refused
    robot = load_or_report(args, COMMAND)
    if robot is None:
        return EXIT_ERROR
    try:
        config = ros2_control_config(robot, args.command_interfaces or ('position',),
                                     args.update_rate)
    except TransmissionError as e:
        return error(COMMAND, str(e))
    controllers = controllers_yaml(config.controllers)
    outputs: list[tuple[str, str, str]] = []
    if args.write_block:
        outputs.append((args.write_block, config.block, 'the <ros2_control> block'))
    if args.write_controllers:
        outputs.append((args.write_controllers, controllers, 'the controllers YAML'))
    if args.write_urdf:
        try:
            urdf = with_block(read_description(args.urdf, xacro_mappings(args.xacro_args)),
                              config.block)
        except LOAD_ERRORS as e:
            return error(COMMAND, str(e))
        lost = _lost_transmissions(args, robot, urdf)
        if lost:
            return error(COMMAND, f'{args.write_urdf}: cannot write the URDF: without its '
                                  '<ros2_control> blocks the description would load other '
                                  f'transmissions: {lost}; give the hardware interface the '
                                  'original description (ros2_control.launch.py does) and the '
                                  'controller manager the generated block (--write-block)')
        outputs.append((args.write_urdf, urdf, 'the URDF'))
    if not outputs:
        print(config.block + '---\n' + controllers, end='')
        return EXIT_OK
    try:
        for path, text, what in outputs:
            with output_file(path, what, [args.urdf]) as f:
                f.write(text.encode())
    except LOAD_ERRORS as e:
        return error(COMMAND, str(e))
    passive = f', {len(config.passive)} passive left out' if config.passive else ''
    print(f'{robot.robot_name}: {len(config.joints)} joints{passive}; wrote '
          + ', '.join(path for path, _, _ in outputs))
    return EXIT_OK


def _lost_transmissions(args: argparse.Namespace, robot: RobotTransmissions, urdf: str) -> str:
    """Return what the URDF written would load differently from ``robot`` ('' when nothing)."""
    try:
        after = load_robot_transmissions(urdf, lenient=args.lenient, source=args.source,
                                         warn=False)
    except TransmissionError as e:
        return f'it would not load ({e})'
    return '; '.join(changed_transmissions(robot, after))
