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

"""``transmission_plugins export-csv BAG OUT.csv --topic T``: a JointState topic as CSV."""

import argparse
from typing import Any

from transmission_plugins.tools.cli.common import describe
from transmission_plugins.tools.cli.common import error
from transmission_plugins.tools.cli.common import EXIT_OK
from transmission_plugins.tools.cli.common import interruptible
from transmission_plugins.tools.cli.common import LOAD_ERRORS
from transmission_plugins.tools.cli.convert import report
from transmission_plugins.tools.cli.convert import write_bag_csv
from transmission_plugins.tools.data.bag_export import export_csv


def add_parser(sub: Any) -> None:
    """Register the ``export-csv`` verb."""
    p = sub.add_parser(
        'export-csv', help='write a sensor_msgs/JointState topic of a rosbag2 bag as CSV',
        description='Write the JointState messages of --topic as CSV: time (receive time) and '
                    'stamp (header stamp) in seconds, then one <name>/<interface> column per '
                    'name and recorded interface, as the CSV conversion reads them. No URDF '
                    'needed; use convert ... OUT.csv to convert on the way.')
    p.add_argument('bag', metavar='BAG', help='rosbag2 bag: directory, .mcap or .db3 file')
    p.add_argument('output', metavar='OUT.csv', help='CSV file, or - for stdout')
    p.add_argument('--topic', required=True, metavar='TOPIC',
                   help='the topic, with or without namespace (e.g. joint_states)')
    p.add_argument('--strict', action='store_true',
                   help='a message that cannot be read (bad lengths, duplicate names) is an '
                        'error instead of being counted and reported')
    p.set_defaults(func=run)


@interruptible
def run(args: argparse.Namespace) -> int:
    """Export one topic of a bag as CSV."""
    try:
        stats = write_bag_csv(args, lambda dst, progress: export_csv(
            args.bag, dst, args.topic, strict=args.strict, progress=progress), passes=2)
    except LOAD_ERRORS as e:
        return error('export-csv', describe(e, args))
    report(stats, args.output, 'export-csv')
    return EXIT_OK
