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
The ``transmission_plugins`` command-line tool.

Subcommands, each registered by its own ``_add_<name>`` function:

* ``list``: the installed transmission plugins (entry points, not imported unless
  ``--verbose``);
* ``inspect URDF``: transmissions, joints, actuators, maps, limits, reflected inertia, warnings;
* ``convert URDF IN.csv OUT.csv --to joint|actuator``: recorded data between the two spaces;
* ``plot URDF TRANSMISSION OUT.png``: a transmission's maps;
* ``demo``: the main job on the bundled robot.

Exit status: 0 success, 1 the URDF or the data could not be loaded or converted, 2 bad usage.
"""

import argparse
import json
import os
import sys
import tempfile
from typing import Any
from typing import List
from typing import Optional
from typing import TextIO

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2

PROG = 'transmission_plugins'


def _error(command: str, message: str, status: int = EXIT_ERROR) -> int:
    print(f'{PROG} {command}: error: {message}', file=sys.stderr)
    return status


def _add_urdf_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument('urdf', metavar='URDF', help='URDF or .xacro file')
    parser.add_argument('--lenient', action='store_true',
                        help='skip transmissions that cannot be loaded (unknown vendor types, '
                             'bad values) with a warning instead of failing')
    parser.add_argument('--source', default='auto',
                        choices=('auto', 'ros2_control', 'robot', 'all'),
                        help='which <transmission> elements to read (default: those inside '
                             '<ros2_control> blocks when there are any, else the robot-level '
                             'ones)')


def _load(args: argparse.Namespace) -> Any:
    """Return the robot's transmissions, or raise SystemExit-free errors for the caller."""
    from transmission_plugins.robot.loading import load_robot_transmissions
    return load_robot_transmissions(args.urdf, lenient=args.lenient, source=args.source)


def _load_or_report(args: argparse.Namespace, command: str, warn: bool = True) -> Any:
    """Return the robot's transmissions, or None after printing why they cannot be loaded."""
    try:
        robot = _load(args)
    except _load_errors() as e:
        _error(command, _describe(e, args))
        return None
    if warn:
        for w in robot.warnings:
            print(f'{PROG} {command}: warning: {w}', file=sys.stderr)
    return robot


def _describe(e: BaseException, args: argparse.Namespace) -> str:
    """Return an error message; suggest --lenient for plugin and URDF problems."""
    from transmission_plugins.core.exceptions import TransmissionError
    from transmission_plugins.core.exceptions import TransmissionFileError
    if isinstance(e, OSError) and e.filename and (
            not isinstance(e, TransmissionFileError) or e.errno is not None):
        return f'cannot read {e.filename}: {e.strerror or e}'
    text = str(e)
    if isinstance(e, TransmissionFileError):
        return text  # --lenient does not help
    if isinstance(e, TransmissionError) and not getattr(args, 'lenient', True):
        text += ' (--lenient skips transmissions that cannot be loaded)'
    return text


def _load_errors() -> tuple:
    from transmission_plugins.core.exceptions import TransmissionError
    return (TransmissionError, OSError, UnicodeDecodeError)


# ---------------------------------------------------------------------------------- list
def _add_list(sub: Any) -> None:
    p = sub.add_parser('list', help='list the installed transmission plugins',
                       description='List the transmission plugins registered under the entry '
                                   'point group transmission_plugins.transmissions.')
    p.add_argument('-v', '--verbose', action='store_true',
                   help='import each plugin and show the first line of its docstring')
    p.set_defaults(func=_list)


def _list(args: argparse.Namespace) -> int:
    from transmission_plugins.core.exceptions import TransmissionError
    from transmission_plugins.plugins.registry import find_transmission_plugins
    from transmission_plugins.plugins.registry import load_transmission_class
    from transmission_plugins.robot.report import table

    plugins = find_transmission_plugins()
    headers = ['NAME', 'TARGET', 'DISTRIBUTION', 'VERSION']
    rows = []
    for p in plugins:
        row = [p.name, p.value, p.distribution, p.version]
        if args.verbose:
            try:
                cls = load_transmission_class(p.name, plugins=[p])
                doc = (cls.__doc__ or '').strip().splitlines()
                row.append(doc[0].strip() if doc else '')
            except TransmissionError as e:
                print(f'{PROG} list: warning: {e}', file=sys.stderr)
                row.append('(failed to load, see the warning)')
        rows.append(row)
    if args.verbose:
        headers.append('DESCRIPTION')
    print(table(headers, rows, indent=''))
    print(f'\n{len(plugins)} plugin(s)')
    return EXIT_OK


# ---------------------------------------------------------------------------------- inspect
def _add_inspect(sub: Any) -> None:
    p = sub.add_parser('inspect', help="show a URDF's transmissions, limits and warnings",
                       description='Load every transmission of a URDF and print transmissions, '
                                   'joints (URDF limits, reflected inertia) and actuators '
                                   '(limits mapped through the transmissions), untransmitted '
                                   'joints and warnings.')
    _add_urdf_arguments(p)
    p.add_argument('--json', action='store_true',
                   help='print JSON (unbounded limits are null)')
    p.set_defaults(func=_inspect)


def _inspect(args: argparse.Namespace) -> int:
    from transmission_plugins.robot.report import report_dict
    robot = _load_or_report(args, 'inspect', warn=False)
    if robot is None:
        return EXIT_ERROR
    if args.json:
        print(json.dumps(report_dict(robot), indent=2, allow_nan=False))
    else:
        print(robot.summary())
    return EXIT_OK


# ---------------------------------------------------------------------------------- convert
def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f'expected an integer, got {text!r}') from None
    if value < 1:
        raise argparse.ArgumentTypeError(f'expected an integer >= 1, got {value}')
    return value


def _add_convert(sub: Any) -> None:
    p = sub.add_parser(
        'convert', help='convert recorded CSV data between actuator and joint space',
        description='Convert CSV columns named <name>/<interface> (e.g. r_gripper_motor/position) '
                    'from actuator to joint space (--to joint) or back (--to actuator). Other '
                    'columns (time...) are copied in front. Use - for stdin or stdout.')
    _add_urdf_arguments(p)
    p.add_argument('input', metavar='IN.csv', help='input CSV file, or - for stdin')
    p.add_argument('output', metavar='OUT.csv', help='output CSV file, or - for stdout')
    p.add_argument('--to', required=True, choices=('joint', 'actuator'),
                   help='the space to convert to')
    p.add_argument('--chunk-size', type=_positive_int, default=1000, metavar='N',
                   help='rows converted at a time (default 1000); memory does not grow with '
                        'the file')
    p.add_argument('--keep-unknown', action='store_true',
                   help='copy <name>/<interface> columns of unknown names instead of failing')
    p.set_defaults(func=_convert)


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


def _convert(args: argparse.Namespace) -> int:
    from transmission_plugins.tools.csv_convert import convert_csv
    robot = _load_or_report(args, 'convert')
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
        return _error('convert', _describe(e, args))
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
    except _load_errors() as e:
        return _error('convert', f'{args.input}: {e}')
    finally:
        if src is not sys.stdin:
            src.close()
        if tmp is not None and os.path.exists(tmp):
            os.remove(tmp)
    print(f'{PROG} convert: {stats.rows} rows, {len(stats.converted)} columns converted to '
          f'{len(stats.written)} {args.to} columns, {len(stats.passed_through)} passed through',
          file=sys.stderr)
    return EXIT_OK


# ---------------------------------------------------------------------------------- plot
def _add_plot(sub: Any) -> None:
    p = sub.add_parser('plot', help="plot a transmission's maps to an image",
                       description='Plot the joint positions (and, for the PR2 gripper, finger '
                                   'angles and effort ratio) against the actuator position.')
    _add_urdf_arguments(p)
    p.add_argument('transmission', metavar='TRANSMISSION', help='transmission name')
    p.add_argument('output', metavar='OUT.png', help='image file (.png, .svg, .pdf)')
    p.add_argument('--range', nargs=2, type=float, metavar=('LO', 'HI'), dest='value_range',
                   help='actuator position sweep (default: the range reached inside the joint '
                        'limits)')
    p.set_defaults(func=_plot)


def _plot(args: argparse.Namespace) -> int:
    from transmission_plugins.core.exceptions import TransmissionError
    from transmission_plugins.tools.plotting import plot_transmission
    if args.value_range is not None and not args.value_range[0] < args.value_range[1]:
        return _error('plot', f'--range needs LO < HI, got {args.value_range}', EXIT_USAGE)
    robot = _load_or_report(args, 'plot')
    if robot is None:
        return EXIT_ERROR
    names = [t.name for t in robot.transmissions]
    if args.transmission not in names:
        return _error('plot', f'no transmission {args.transmission!r} in {args.urdf}; '
                      f'transmissions: {", ".join(names)}', EXIT_USAGE)
    try:
        plot_transmission(robot, args.transmission, args.output, args.value_range)
    except TransmissionError as e:  # the file or its type (a name or range was checked above)
        return _error('plot', str(e))
    print(f'wrote {args.output}')
    return EXIT_OK


# ---------------------------------------------------------------------------------- demo
def _add_demo(sub: Any) -> None:
    from transmission_plugins.tools.demo import add_arguments
    demo = sub.add_parser('demo', help='run the hardware interface and mock actuators on the '
                                       'bundled example robot with scripted joint commands')
    add_arguments(demo)
    demo.set_defaults(func=_demo)


def _demo(args: argparse.Namespace) -> int:
    from transmission_plugins.tools.demo import run
    return run(args)


# ---------------------------------------------------------------------------------- main
def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser with every subcommand."""
    parser = argparse.ArgumentParser(
        prog=PROG, description='Inspect, convert and run URDF transmissions.')
    sub = parser.add_subparsers(dest='command', required=True, metavar='COMMAND')
    for add in (_add_list, _add_inspect, _add_convert, _add_plot, _add_demo):
        add(sub)
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    """Run the command line tool and return its exit status (argparse's 2 for bad usage)."""
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as e:  # --help (0) or a usage error (2)
        return e.code if isinstance(e.code, int) else EXIT_USAGE
    try:
        return int(args.func(args))
    except BrokenPipeError:  # e.g. piped into head: not an error
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK


if __name__ == '__main__':
    sys.exit(main())
