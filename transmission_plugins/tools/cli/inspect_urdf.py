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

"""``transmission_plugins inspect URDF``: transmissions, joints, actuators, limits, warnings."""

import argparse
import json
from typing import Any

from transmission_plugins.robot.report import report_dict
from transmission_plugins.tools.cli.common import add_urdf_arguments
from transmission_plugins.tools.cli.common import EXIT_ERROR
from transmission_plugins.tools.cli.common import EXIT_OK
from transmission_plugins.tools.cli.common import load_or_report


def add_parser(sub: Any) -> None:
    """Register the ``inspect`` verb."""
    p = sub.add_parser('inspect', help="show a URDF's transmissions, limits and warnings",
                       description='Load every transmission of a URDF and print transmissions, '
                                   'joints (URDF limits, reflected inertia) and actuators '
                                   '(limits mapped through the transmissions), the drivetrain '
                                   '(friction, backlash, motors) when the URDF has one, '
                                   'untransmitted joints and warnings.')
    add_urdf_arguments(p)
    p.add_argument('--json', action='store_true',
                   help='print JSON (unbounded limits are null)')
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the report (text, or JSON with --json); its warnings are part of it."""
    robot = load_or_report(args, 'inspect', warn=False)
    if robot is None:
        return EXIT_ERROR
    if args.json:
        print(json.dumps(report_dict(robot), indent=2, allow_nan=False))
    else:
        print(robot.summary())
    return EXIT_OK
