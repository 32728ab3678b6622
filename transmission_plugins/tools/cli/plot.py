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
``transmission_plugins plot URDF TRANSMISSION|BAG OUT.png``: maps, or recorded data, as a figure.

With a transmission name: its maps swept over the actuator positions
(:mod:`~transmission_plugins.tools.data.plotting`).  With a rosbag2 bag: a JointState topic in both
spaces over time (:mod:`~transmission_plugins.tools.data.bag_plot`).
"""

import argparse
import sys
from typing import Any

from transmission_plugins.core.exceptions import TransmissionError
from transmission_plugins.tools.cli.common import add_urdf_arguments
from transmission_plugins.tools.cli.common import error
from transmission_plugins.tools.cli.common import EXIT_ERROR
from transmission_plugins.tools.cli.common import EXIT_OK
from transmission_plugins.tools.cli.common import EXIT_USAGE
from transmission_plugins.tools.cli.common import interruptible
from transmission_plugins.tools.cli.common import LOAD_ERRORS
from transmission_plugins.tools.cli.common import load_or_report
from transmission_plugins.tools.data.bag_io import is_bag
from transmission_plugins.tools.data.bag_plot import plot_bag
from transmission_plugins.tools.data.plotting import plot_transmission


def add_parser(sub: Any) -> None:
    """Register the ``plot`` verb."""
    p = sub.add_parser('plot', help="plot a transmission's maps, or a bag's joint states, to an "
                                    'image',
                       description='With a transmission name: plot the joint positions (and, '
                                   'for one-actuator nonlinear transmissions, the effort ratio) '
                                   'against the actuator position, with the joint limits; a '
                                   'nonlinear transmission of several actuators (a parallel '
                                   'ankle) is swept over its joints, with the actuator positions '
                                   'and its effort envelope. With a rosbag2 '
                                   'bag (directory, .mcap or .db3): plot a JointState topic over '
                                   'time in both spaces, actuators left and joints right.')
    add_urdf_arguments(p)
    p.add_argument('transmission', metavar='TRANSMISSION|BAG',
                   help='transmission name, or a rosbag2 bag')
    p.add_argument('output', metavar='OUT.png', help='image file (.png, .svg, .pdf)')
    p.add_argument('--range', nargs=2, type=float, metavar=('LO', 'HI'), dest='value_range',
                   help='transmission: actuator position sweep, or joint position sweep for '
                        'the joint sweeps (default: the range reached inside the joint limits)')
    p.add_argument('--joints', nargs='+', metavar='JOINT',
                   help='bag: the joints to show, with the actuators of their transmissions '
                        '(default: those of the first transmissions, at most 6 joints)')
    p.add_argument('--topic', default='actuator_states', metavar='TOPIC',
                   help='bag: the JointState topic, actuators or joints, with or without '
                        'namespace (default actuator_states)')
    p.set_defaults(func=run)


@interruptible
def run(args: argparse.Namespace) -> int:
    """Plot one transmission's maps, or a bag's JointState topic, to an image file."""
    if args.value_range is not None and not args.value_range[0] < args.value_range[1]:
        return error('plot', f'--range needs LO < HI, got {args.value_range}', EXIT_USAGE)
    robot = load_or_report(args, 'plot')
    if robot is None:
        return EXIT_ERROR
    if is_bag(args.transmission):
        return _run_bag(args, robot)
    if args.joints:
        return error('plot', '--joints applies to a bag; for a transmission the plot shows all '
                             'its joints', EXIT_USAGE)
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


def _run_bag(args: argparse.Namespace, robot: Any) -> int:
    if args.value_range is not None:
        return error('plot', '--range applies to a transmission, not a bag', EXIT_USAGE)
    try:
        drawn = plot_bag(robot, args.transmission, args.output, args.topic, args.joints)
    except LOAD_ERRORS as e:
        return error('plot', str(e))
    if drawn.rejected:
        print(f'transmission_plugins plot: warning: messages converted in part or not at all, '
              f'by reason: {drawn.rejected}', file=sys.stderr)
    print(f'wrote {args.output} ({drawn.topic}, {drawn.messages} messages, joints: '
          f'{", ".join(drawn.joints)})')
    return EXIT_OK
