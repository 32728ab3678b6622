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

"""``transmission_plugins plot URDF TRANSMISSION OUT.png``: a transmission's maps as a figure."""

import argparse
from typing import Any

from transmission_plugins.core.exceptions import TransmissionError
from transmission_plugins.tools.cli.common import add_urdf_arguments
from transmission_plugins.tools.cli.common import error
from transmission_plugins.tools.cli.common import EXIT_ERROR
from transmission_plugins.tools.cli.common import EXIT_OK
from transmission_plugins.tools.cli.common import EXIT_USAGE
from transmission_plugins.tools.cli.common import load_or_report
from transmission_plugins.tools.plotting import plot_transmission


def add_parser(sub: Any) -> None:
    """Register the ``plot`` verb."""
    p = sub.add_parser('plot', help="plot a transmission's maps to an image",
                       description='Plot the joint positions (and, for the PR2 gripper, finger '
                                   'angles and effort ratio) against the actuator position.')
    add_urdf_arguments(p)
    p.add_argument('transmission', metavar='TRANSMISSION', help='transmission name')
    p.add_argument('output', metavar='OUT.png', help='image file (.png, .svg, .pdf)')
    p.add_argument('--range', nargs=2, type=float, metavar=('LO', 'HI'), dest='value_range',
                   help='actuator position sweep (default: the range reached inside the joint '
                        'limits)')
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Plot one transmission's maps to an image file."""
    if args.value_range is not None and not args.value_range[0] < args.value_range[1]:
        return error('plot', f'--range needs LO < HI, got {args.value_range}', EXIT_USAGE)
    robot = load_or_report(args, 'plot')
    if robot is None:
        return EXIT_ERROR
    names = [t.name for t in robot.transmissions]
    if args.transmission not in names:
        return error('plot', f'no transmission {args.transmission!r} in {args.urdf}; '
                     f'transmissions: {", ".join(names)}', EXIT_USAGE)
    try:
        plot_transmission(robot, args.transmission, args.output, args.value_range)
    except TransmissionError as e:  # the file or its type (a name or range was checked above)
        return error('plot', str(e))
    print(f'wrote {args.output}')
    return EXIT_OK
