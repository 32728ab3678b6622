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
``transmission_plugins convert URDF IN OUT --to joint|actuator``: recorded data, either way.

IN is a CSV file or a rosbag2 bag (a bag directory, ``.mcap`` or ``.db3``: detected, or
``--format``); OUT is a bag (of IN's storage, or ``--storage``), or CSV when it ends in ``.csv``
or is ``-``.
"""

import argparse
import contextlib
import io
import os
import stat
import sys
from typing import Any
from typing import BinaryIO
from typing import Callable
from typing import ContextManager

from transmission_plugins.tools.cli.common import add_urdf_arguments
from transmission_plugins.tools.cli.common import describe
from transmission_plugins.tools.cli.common import error
from transmission_plugins.tools.cli.common import EXIT_ERROR
from transmission_plugins.tools.cli.common import EXIT_OK
from transmission_plugins.tools.cli.common import EXIT_USAGE
from transmission_plugins.tools.cli.common import interruptible
from transmission_plugins.tools.cli.common import LOAD_ERRORS
from transmission_plugins.tools.cli.common import load_or_report
from transmission_plugins.tools.cli.common import positive_number
from transmission_plugins.tools.cli.common import PROG
from transmission_plugins.tools.data.bag_convert import BagConvertStats
from transmission_plugins.tools.data.bag_convert import convert_bag
from transmission_plugins.tools.data.bag_convert import DEFAULT_TOPICS
from transmission_plugins.tools.data.bag_convert import format_time
from transmission_plugins.tools.data.bag_export import export_csv
from transmission_plugins.tools.data.bag_io import BagReader
from transmission_plugins.tools.data.bag_io import is_bag
from transmission_plugins.tools.data.csv_convert import convert_csv
from transmission_plugins.tools.data.csv_io import CsvError
from transmission_plugins.tools.data.joint_state_batch import JointStateBatchConverter
from transmission_plugins.tools.data.output_file import output_file
from transmission_plugins.tools.data.progress import progress_bar
from transmission_plugins.urdf.user_files import open_user_file


def add_bag_arguments(p: argparse.ArgumentParser, outputs: bool = True) -> None:
    """Add ``--topic`` (and, for ``convert``, the output and strictness options)."""
    p.add_argument('--topic', metavar='TOPIC',
                   help='bag input: the sensor_msgs/JointState topic, with or without namespace '
                        '(default actuator_states with --to joint, joint_commands with --to '
                        'actuator)')
    if outputs:
        p.add_argument('--output-topic', metavar='TOPIC',
                       help='bag output: the converted topic, in the namespace of the input '
                            'topic when relative (default joint_states / actuator_commands)')
        p.add_argument('--storage', choices=('mcap', 'sqlite3'),
                       help="bag output: storage (default: that of IN, or OUT's .mcap/.db3 "
                            'suffix)')
    p.add_argument('--strict', action='store_true',
                   help='bag input: a message that cannot be converted (unknown names, NaN, a '
                        'partial transmission...) is an error instead of being counted and '
                        'reported')


def add_parser(sub: Any) -> None:
    """Register the ``convert`` verb."""
    p = sub.add_parser(
        'convert', help='convert recorded data (CSV or rosbag2) between actuator and joint space',
        description='Convert recorded data from actuator to joint space (--to joint) or back '
                    '(--to actuator). CSV: columns named <name>/<interface> (e.g. '
                    'r_gripper_motor/position) are converted, other columns (time...) copied in '
                    'front; - for stdin or stdout. rosbag2 (a bag directory, .mcap or .db3): '
                    'every message is copied and the sensor_msgs/JointState messages of --topic '
                    'are converted onto --output-topic; an OUT ending in .csv gets the '
                    'converted topic as CSV.')
    add_urdf_arguments(p)
    p.add_argument('input', metavar='IN', help='input CSV file (- for stdin) or rosbag2 bag')
    p.add_argument('output', metavar='OUT',
                   help='output: CSV (.csv or - for stdout) or a new bag (directory, .mcap or '
                        '.db3)')
    p.add_argument('--to', required=True, choices=('joint', 'actuator'),
                   help='the space to convert to')
    p.add_argument('--format', choices=('auto', 'csv', 'bag'), default='auto',
                   help='what IN is (default: a bag when it is a directory or ends in .mcap or '
                        '.db3, else CSV)')
    p.add_argument('--chunk-size', type=positive_number(int, 'an integer'), default=1000,
                   metavar='N',
                   help='rows or messages converted at a time (default 1000); memory does not '
                        'grow with the input')
    p.add_argument('--keep-unknown', action='store_true',
                   help='CSV input: copy <name>/<interface> columns of unknown names instead of '
                        'failing')
    add_bag_arguments(p)
    p.set_defaults(func=run)


def _csv_output(path: str) -> bool:
    return path == '-' or path.lower().endswith('.csv')


@interruptible
def run(args: argparse.Namespace) -> int:
    """Convert IN to OUT (CSV or bag)."""
    bag_in = args.format == 'bag' or (args.format == 'auto' and args.input != '-'
                                      and is_bag(args.input))
    if not bag_in:
        used = [o for o, v in (('--topic', args.topic), ('--output-topic', args.output_topic),
                               ('--storage', args.storage), ('--strict', args.strict)) if v]
        if used:
            return error('convert', f'{", ".join(used)} apply to a bag input; {args.input} is '
                                    'read as CSV', EXIT_USAGE)
        if not _csv_output(args.output) and is_bag(args.output):
            return error('convert', f'a CSV input converts to CSV; {args.output} is a bag',
                         EXIT_USAGE)
    robot = load_or_report(args, 'convert')
    if robot is None:
        return EXIT_ERROR
    if not bag_in:
        return _run_csv(args, robot)
    try:
        if _csv_output(args.output):
            stats = write_bag_csv(args, lambda dst, progress: export_csv(
                args.input, dst, args.topic or DEFAULT_TOPICS[args.to][0],
                converter=JointStateBatchConverter(robot, args.to), strict=args.strict,
                window=args.chunk_size, progress=progress), passes=2)
        else:
            with progress_bar(_count(args.input), 'msg', 'convert') as bar:
                stats = convert_bag(robot, args.input, args.output, args.to, topic=args.topic,
                                    output=args.output_topic, storage=args.storage,
                                    strict=args.strict, window=args.chunk_size,
                                    progress=bar.update)
    except LOAD_ERRORS as e:
        return error('convert', describe(e, args))
    report(stats, args.output)
    return EXIT_OK


def _count(path: str) -> int | None:
    try:
        with BagReader(path) as reader:
            return reader.message_count
    except LOAD_ERRORS:
        return None  # the conversion reports it


def write_bag_csv(args: argparse.Namespace, write: Callable[[BinaryIO, Any], BagConvertStats],
                  passes: int) -> BagConvertStats:
    """Write CSV from a bag (``args.input`` or ``args.bag``) to ``args.output``, with progress."""
    total = _count(getattr(args, 'bag', None) or args.input)
    with progress_bar(None if total is None else total * passes, 'msg', 'export') as bar:
        with output_file(args.output, 'the CSV file') as dst:
            return write(dst, bar.update)


def report(stats: BagConvertStats, output: str, command: str = 'convert') -> None:
    """Print what a bag conversion or export did, and every part it could not convert."""
    topics = ', '.join(f'{i} -> {o}' if o else i for i, o in stats.topics.items())
    if any(stats.topics.values()):  # a bag: input -> output topics
        done = f'converted ({topics}), {stats.copied} messages copied'
    else:
        done = f'of {topics} {"exported" if command == "export-csv" else "converted"}'
    print(f'{PROG} {command}: {stats.converted} messages {done}; wrote {output}',
          file=sys.stderr)
    if stats.rejected:
        print(f'{PROG} {command}: warning: {stats.incomplete + stats.unconverted} message(s) '
              f'could not be converted in full ({stats.incomplete} in part, '
              f'{stats.unconverted} not at all); left out, by reason:', file=sys.stderr)
        for reason, count in sorted(stats.rejected.items()):
            first = stats.first_rejected[reason]
            print(f'  {reason}: {count} (first on {first.topic} at '
                  f'{format_time(first.timestamp)}: {first.detail})', file=sys.stderr)


def _run_csv(args: argparse.Namespace, robot: Any) -> int:
    try:
        with _input(args.input) as src, \
                progress_bar(_size(src), 'B', 'convert', scale=True) as bar, \
                output_file(args.output, 'the CSV file') as dst:
            stats = convert_csv(robot, src, dst, args.to, chunk_size=args.chunk_size,
                                keep_unknown=args.keep_unknown, progress=bar.update)
    except CsvError as e:  # about the input's content
        return error('convert', f'{args.input}: {e}')
    except LOAD_ERRORS as e:  # a file: the input, or the output (named in the message)
        return error('convert', describe(e, args))
    print(f'{PROG} convert: {stats.rows} rows, {len(stats.converted)} columns converted to '
          f'{len(stats.written)} {args.to} columns, {len(stats.passed_through)} passed through',
          file=sys.stderr)
    if stats.non_finite and stats.first_non_finite is not None:
        line, column = stats.first_non_finite
        print(f'{PROG} convert: warning: {stats.non_finite} converted value(s) were not finite '
              '(an infinite input, or one outside the range a transmission maps) and were '
              f'left empty; the first on line {line}, column {column!r}', file=sys.stderr)
    return EXIT_OK


def _input(path: str) -> ContextManager[BinaryIO]:
    """
    Open IN for reading (``-``: standard input, left open; a file: a regular one).

    :raises TransmissionFileError: a FIFO or a device (``-`` is the way to stream)
    """
    if path == '-':
        return contextlib.nullcontext(sys.stdin.buffer)
    return open_user_file(path, 'the CSV file')


def _size(stream: BinaryIO) -> int | None:
    """Return the size of a regular file, None for a pipe or a terminal."""
    try:
        status = os.fstat(stream.fileno())
    except (OSError, ValueError, io.UnsupportedOperation):
        return None
    return status.st_size if stat.S_ISREG(status.st_mode) else None
