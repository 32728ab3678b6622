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

"""``transmission_plugins convert URDF IN OUT --to joint|actuator``: recorded data, either way."""

import argparse
import os
import sys
import tempfile
from typing import Any
from typing import Optional
from typing import TextIO

from transmission_plugins.tools.cli.common import add_urdf_arguments
from transmission_plugins.tools.cli.common import describe
from transmission_plugins.tools.cli.common import error
from transmission_plugins.tools.cli.common import EXIT_ERROR
from transmission_plugins.tools.cli.common import EXIT_OK
from transmission_plugins.tools.cli.common import LOAD_ERRORS
from transmission_plugins.tools.cli.common import load_or_report
from transmission_plugins.tools.cli.common import PROG
from transmission_plugins.tools.csv_convert import convert_csv


def _positive_int(text: str) -> int:
    """Parse ``--chunk-size``: an integer >= 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f'expected an integer, got {text!r}') from None
    if value < 1:
        raise argparse.ArgumentTypeError(f'expected an integer >= 1, got {value}')
    return value


def add_parser(sub: Any) -> None:
    """Register the ``convert`` verb."""
    p = sub.add_parser(
        'convert', help='convert recorded CSV data between actuator and joint space',
        description='Convert CSV columns named <name>/<interface> (e.g. r_gripper_motor/position) '
                    'from actuator to joint space (--to joint) or back (--to actuator). Other '
                    'columns (time...) are copied in front. Use - for stdin or stdout.')
    add_urdf_arguments(p)
    p.add_argument('input', metavar='IN.csv', help='input CSV file, or - for stdin')
    p.add_argument('output', metavar='OUT.csv', help='output CSV file, or - for stdout')
    p.add_argument('--to', required=True, choices=('joint', 'actuator'),
                   help='the space to convert to')
    p.add_argument('--chunk-size', type=_positive_int, default=1000, metavar='N',
                   help='rows converted at a time (default 1000); memory does not grow with '
                        'the file')
    p.add_argument('--keep-unknown', action='store_true',
                   help='copy <name>/<interface> columns of unknown names instead of failing')
    p.set_defaults(func=run)


class ProgressBar:
    """A one-line progress bar on a terminal stream, updated in place."""

    def __init__(self, stream: TextIO, total: Optional[int], width: int = 30) -> None:
        self.stream = stream
        self.total = total
        self.width = width

    def __call__(self, rows: int, done: int) -> None:
        """Show ``rows`` rows and ``done`` of ``total`` characters read."""
        if self.total:
            frac = min(1.0, done / self.total)
            fill = int(frac * self.width)
            bar = '#' * fill + '-' * (self.width - fill)
            self.stream.write(f'\r[{bar}] {frac * 100:5.1f}% {rows} rows')
        else:
            self.stream.write(f'\r{rows} rows')
        self.stream.flush()

    def close(self) -> None:
        """End the line."""
        self.stream.write('\n')
        self.stream.flush()


def run(args: argparse.Namespace) -> int:
    """Convert IN to OUT through a temporary file (OUT is replaced only on success)."""
    robot = load_or_report(args, 'convert')
    if robot is None:
        return EXIT_ERROR
    total = None
    try:
        if args.input == '-':
            src = sys.stdin
        else:
            src = open(args.input, newline='', encoding='utf-8')
            total = os.path.getsize(args.input)
    except OSError as e:
        return error('convert', describe(e, args))
    bar = ProgressBar(sys.stderr, total) if sys.stderr.isatty() else None
    tmp = None
    try:
        if args.output == '-':
            dst = sys.stdout
        else:
            folder = os.path.dirname(os.path.abspath(args.output))
            fd, tmp = tempfile.mkstemp(prefix='.convert-', suffix='.csv', dir=folder)
            dst = os.fdopen(fd, 'w', newline='', encoding='utf-8')
        try:
            stats = convert_csv(robot, src, dst, args.to, chunk_size=args.chunk_size,
                                keep_unknown=args.keep_unknown, progress=bar)
        finally:
            if bar is not None:
                bar.close()
            if dst is not sys.stdout:
                dst.close()
        if tmp is not None:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)  # mkstemp made it private
            os.replace(tmp, args.output)
            tmp = None
    except LOAD_ERRORS as e:
        return error('convert', f'{args.input}: {e}')
    finally:
        if src is not sys.stdin:
            src.close()
        if tmp is not None and os.path.exists(tmp):
            os.remove(tmp)
    print(f'{PROG} convert: {stats.rows} rows, {len(stats.converted)} columns converted to '
          f'{len(stats.written)} {args.to} columns, {len(stats.passed_through)} passed through',
          file=sys.stderr)
    return EXIT_OK
