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
``transmission_plugins export URDF --to mujoco|drake|pinocchio OUT``: the robot for a consumer.

Writes the robot with its transmissions as the consumer reads them (:mod:`~.tools.export`,
doc/cli.md).
"""

import argparse
import sys
from typing import Any
from typing import Callable

from transmission_plugins.robot.robot_transmissions import RobotTransmissions
from transmission_plugins.tools.cli.common import add_urdf_arguments
from transmission_plugins.tools.cli.common import error
from transmission_plugins.tools.cli.common import EXIT_ERROR
from transmission_plugins.tools.cli.common import EXIT_OK
from transmission_plugins.tools.cli.common import interruptible
from transmission_plugins.tools.cli.common import LOAD_ERRORS
from transmission_plugins.tools.cli.common import load_or_report
from transmission_plugins.tools.cli.common import PROG
from transmission_plugins.tools.cli.common import refuse_outputs
from transmission_plugins.tools.cli.common import xacro_mappings
from transmission_plugins.tools.data.output_file import output_file
from transmission_plugins.tools.export.drake_urdf import drake_urdf
from transmission_plugins.tools.export.mujoco_mjcf import base_directory
from transmission_plugins.tools.export.mujoco_mjcf import mujoco_mjcf
from transmission_plugins.tools.export.pinocchio_mjcf import pinocchio_mjcf
from transmission_plugins.tools.launch.node_plan import read_description

COMMAND = 'export'

Writer = Callable[[RobotTransmissions, str, str], tuple[str, list[str]]]
#: Each format: its writer (robot, URDF text, mesh directory) and what the file is.
FORMATS: dict[str, tuple[Writer, str]] = {
    'mujoco': (mujoco_mjcf, 'the MJCF file'),
    'drake': (lambda robot, text, _: drake_urdf(robot, text), 'the Drake URDF'),
    'pinocchio': (pinocchio_mjcf, 'the MJCF file for Pinocchio'),
}


def add_parser(sub: Any) -> None:
    """Register the ``export`` verb."""
    p = sub.add_parser(COMMAND, help='write the robot with its transmissions for MuJoCo, Drake '
                                     'or Pinocchio',
                       description='Write the robot with its transmissions as a consumer reads '
                                   'them. mujoco: MJCF, rotors as tendon armature (couplings '
                                   'exact), one actuator per actuator. drake: the URDF with one '
                                   'SimpleTransmission per actuated joint carrying '
                                   'drake:gear_ratio and drake:rotor_inertia. pinocchio: MJCF '
                                   'with per-joint armature for pinocchio.buildModelFromMJCF. '
                                   'Couplings that Drake and Pinocchio cannot hold, and '
                                   'nonlinear transmissions (linearised at the neutral pose), '
                                   'are reported as warnings.')
    add_urdf_arguments(p)
    p.add_argument('--to', dest='format', required=True, choices=sorted(FORMATS),
                   help='the consumer: mujoco, drake or pinocchio')
    p.add_argument('out', metavar='OUT', help="the file to write ('-': standard output)")
    p.set_defaults(func=run)


@interruptible
def run(args: argparse.Namespace) -> int:
    """Write the export (module docstring); warnings go to stderr."""
    writer, what = FORMATS[args.format]
    refused = refuse_outputs(COMMAND, [(args.out, what)], [args.urdf])
    if refused is not None:
        return refused
    robot = load_or_report(args, COMMAND)
    if robot is None:
        return EXIT_ERROR
    try:
        description = read_description(args.urdf, xacro_mappings(args.xacro_args))
        text, warnings = writer(robot, description, base_directory(args.urdf))
        for warning in warnings:
            print(f'{PROG} {COMMAND}: warning: {warning}', file=sys.stderr)
        with output_file(args.out, what, [args.urdf]) as f:
            f.write(text.encode())
    except LOAD_ERRORS as e:
        return error(COMMAND, str(e))
    if args.out != '-':
        count = len(warnings)
        noted = f'; {count} warning' + ('s' if count > 1 else '') if count else ''
        print(f'{robot.robot_name}: wrote {args.out} for {args.format}{noted}')
    return EXIT_OK
