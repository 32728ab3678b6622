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

"""``transmission_plugins lint URDF``: the mistakes that load without a word, for CI."""

import argparse
import json
from typing import Any

from transmission_plugins.core.exceptions import TransmissionError
from transmission_plugins.robot.lint_urdf import lint_urdf
from transmission_plugins.tools.cli.common import add_urdf_arguments
from transmission_plugins.tools.cli.common import describe
from transmission_plugins.tools.cli.common import error
from transmission_plugins.tools.cli.common import EXIT_ERROR
from transmission_plugins.tools.cli.common import EXIT_OK
from transmission_plugins.tools.cli.common import xacro_mappings

#: exit status when there are findings (as when the URDF cannot be read at all)
EXIT_FINDINGS = EXIT_ERROR


def add_parser(sub: Any) -> None:
    """Register the ``lint`` verb."""
    p = sub.add_parser('lint', help="check a URDF's transmissions for known mistakes",
                       description='Check every transmission description of a URDF, in every '
                                   'dialect, for the mistakes real descriptions carry: shared '
                                   'actuators of uncoupled joints, unknown interface names, '
                                   'duplicate names, coupling matrices that are not inverses, '
                                   'a gearbox or rotor described twice, reductions that differ '
                                   'between robot level and <ros2_control>, effort limits the '
                                   'actuators cannot reach, drivetrain values that cannot be '
                                   'right (friction at an effort limit, a motor envelope below '
                                   'the joint limits, a continuous torque below friction, '
                                   'backlash wider than the range), and a description that '
                                   'does not load strictly. Exit status 0 without findings, 1 '
                                   'with.')
    add_urdf_arguments(p, loading=False)   # lint reads strictly, then leniently
    p.add_argument('--json', action='store_true',
                   help='print {"urdf": ..., "findings": [{"kind", "path", "line", '
                        '"message"}, ...]}')
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print each finding (``path (line N): message [kind]``), or JSON; 1 when there are any."""
    try:
        findings = lint_urdf(args.urdf, xacro_args=xacro_mappings(args.xacro_args))
    except (TransmissionError, OSError) as e:
        return error('lint', describe(e, args))   # no --lenient hint: lint does not take it
    if args.json:
        print(json.dumps({'urdf': args.urdf, 'findings': [f.as_dict() for f in findings]},
                         indent=2))
    else:
        for finding in findings:
            print(finding)
        print(f'{len(findings)} finding(s)' if findings else 'no findings')
    return EXIT_FINDINGS if findings else EXIT_OK
