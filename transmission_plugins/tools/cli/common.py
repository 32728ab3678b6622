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
What every verb of the command shares: exit codes, errors, signals, the URDF arguments, loading.

The verbs that write files run :func:`interruptible`: SIGINT and SIGTERM become an exception in
the main thread, so no partial output is left (doc/cli.md).
"""

import argparse
import functools
import math
import signal
import sys
import threading
from types import FrameType
from typing import Any
from typing import Callable
from typing import Iterable
from typing import Sequence

from transmission_plugins.core.exceptions import TransmissionError
from transmission_plugins.core.exceptions import TransmissionFileError
from transmission_plugins.core.exceptions import TransmissionLoadError
from transmission_plugins.core.exceptions import UrdfTransmissionError
from transmission_plugins.robot.loading import load_robot_transmissions
from transmission_plugins.robot.robot_transmissions import RobotTransmissions
from transmission_plugins.tools.data.bag_calibrate import DEFAULT_ACTUATOR_TOPIC
from transmission_plugins.tools.data.bag_calibrate import DEFAULT_JOINT_TOPIC
from transmission_plugins.tools.data.bag_calibrate import DEFAULT_MAX_SAMPLES
from transmission_plugins.tools.data.bag_io import BagTopicError
from transmission_plugins.tools.data.output_file import output_file
from transmission_plugins.urdf.rewrite import Change
from transmission_plugins.urdf.rewrite import rewrite_urdf
from transmission_plugins.urdf.text import read_urdf_text
from transmission_plugins.urdf.user_files import check_output

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
#: The signals that stop a verb cleanly (:func:`interruptible`).
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)

PROG = 'transmission_plugins'

#: The verbs' options that name a bag topic (``args`` attributes), for the hint of a missing one.
TOPIC_OPTIONS = ('topic', 'actuator_topic', 'joint_topic')

#: What loading a URDF or a data file may raise that is the user's input, not a bug.
LOAD_ERRORS: tuple[type[BaseException], ...] = (TransmissionError, OSError, UnicodeDecodeError)


def positive_number(kind: Callable[[str], float], what: str) -> Callable[[str], float]:
    """Return an argparse type reading ``what`` (``'an integer'``...): finite and > 0."""
    def parse(text: str) -> float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f'expected {what}, got {text!r}') from None
        if not (math.isfinite(value) and value > 0):
            raise argparse.ArgumentTypeError(f'expected {what} > 0, got {text!r}')
        return value
    return parse


def error(command: str, message: str, status: int = EXIT_ERROR) -> int:
    """Print ``transmission_plugins COMMAND: error: MESSAGE`` on stderr; return ``status``."""
    print(f'{PROG} {command}: error: {message}', file=sys.stderr)
    return status


class Interrupted(BaseException):
    """A stop signal arrived (see the module doc); not an ``Exception``, like ``SystemExit``."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _interrupt(signum: int, frame: FrameType | None) -> None:
    for s in STOP_SIGNALS:  # the clean-up on the way out is not interrupted again
        signal.signal(s, signal.SIG_IGN)
    raise Interrupted(signum)


def interruptible(run: Callable[[argparse.Namespace], int]
                  ) -> Callable[[argparse.Namespace], int]:
    """Return ``run`` stopping cleanly on SIGINT and SIGTERM (see the module doc)."""
    @functools.wraps(run)
    def verb(args: argparse.Namespace) -> int:
        if threading.current_thread() is not threading.main_thread():
            return run(args)  # only the main thread receives signals
        previous = {s: signal.getsignal(s) for s in STOP_SIGNALS}
        try:
            for s in STOP_SIGNALS:
                signal.signal(s, _interrupt)
            return run(args)
        except Interrupted as e:
            name = signal.Signals(e.signum).name
            print(f'{PROG} {args.command}: interrupted by {name}; no partial output is left',
                  file=sys.stderr)
            return 128 + e.signum
        finally:
            for s, handler in previous.items():
                if handler is not None:
                    signal.signal(s, handler)
    return verb


def package_version() -> str:
    """Return the installed package's version (its metadata, else ``package.xml``)."""
    from importlib import metadata
    try:
        return metadata.version(PROG)
    except metadata.PackageNotFoundError:
        pass
    import re
    from transmission_plugins.tools.launch.node_plan import package_file
    try:
        found = re.search(r'<version>([^<]+)</version>', package_file('package.xml').read_text())
    except OSError:
        found = None
    return found.group(1).strip() if found else 'unknown'


def refuse_outputs(command: str, outputs: Iterable[tuple[str | None, str]],
                   inputs: Sequence[str]) -> int | None:
    """
    Check the outputs before any work: a new path or a regular file, and none of the inputs.

    The write checks again (:func:`~transmission_plugins.tools.data.output_file.output_file`); this
    only says it before a long computation, and before its warnings.

    :param outputs: ``(path or None, what it is)``; ``-`` (standard output) and None are skipped
    :returns: None when every output can be written, else the exit status after the error
    """
    for path, what in outputs:
        if not path or path == '-':
            continue
        try:
            check_output(path, what, inputs)
        except TransmissionFileError as e:
            return error(command, str(e))
    return None


def xacro_argument(text: str) -> tuple[str, str]:
    """Read one ``--xacro-arg NAME:=VALUE`` (argparse type)."""
    name, sep, value = text.partition(':=')
    if not sep or not name:
        raise argparse.ArgumentTypeError(f'expected NAME:=VALUE, got {text!r}')
    return name, value


def xacro_mappings(pairs: list[tuple[str, str]] | None) -> dict[str, str]:
    """Return the ``--xacro-arg`` pairs as xacro's mappings (a later pair wins)."""
    return dict(pairs or [])


def add_urdf_arguments(parser: argparse.ArgumentParser, loading: bool = True) -> None:
    """Add the URDF argument, xacro's, and the loading options (``--lenient``, ``--source``)."""
    parser.add_argument('urdf', metavar='URDF', help='URDF or .xacro file')
    parser.add_argument('--xacro-arg', dest='xacro_args', metavar='NAME:=VALUE',
                        type=xacro_argument, action='append', default=[],
                        help="a xacro argument for a .xacro URDF, as on xacro's command line "
                             '(repeat for more)')
    if not loading:
        return
    parser.add_argument('--lenient', action='store_true',
                        help='skip transmissions that cannot be loaded (unknown vendor types, '
                             'bad values) with a warning instead of failing')
    parser.add_argument('--source', default='auto',
                        choices=('auto', 'ros2_control', 'robot', 'all'),
                        help='which <transmission> elements to read (default: those inside '
                             '<ros2_control> blocks when there are any, else the robot-level '
                             'ones)')


def load_or_report(args: argparse.Namespace, command: str,
                   warn: bool = True) -> RobotTransmissions | None:
    """
    Return the robot's transmissions, or None after printing why they cannot be loaded.

    :param warn: print the loader's warnings on stderr (once each; they are not also issued as
        Python warnings)
    """
    try:
        robot = load_robot_transmissions(
            args.urdf, lenient=args.lenient, source=args.source,
            xacro_args=xacro_mappings(getattr(args, 'xacro_args', None)), warn=False)
    except LOAD_ERRORS as e:
        error(command, describe(e, args, loading=True))
        return None
    if warn:
        for w in robot.warnings:
            print(f'{PROG} {command}: warning: {w}', file=sys.stderr)
    return robot


def describe(e: BaseException, args: argparse.Namespace, loading: bool = False) -> str:
    """
    Return an error message, one line, with the option that may help.

    The topic options for a bag topic that is missing or of another type.

    :param loading: the error is the robot's loading: suggest ``--lenient`` for plugin and URDF
        problems (not for the data and the files a verb reads afterwards, which it cannot help)
    """
    if isinstance(e, OSError) and e.filename and (
            not isinstance(e, TransmissionFileError) or e.errno is not None):
        return f'cannot read {e.filename}: {e.strerror or e}'
    text = ' '.join(str(e).splitlines())
    if isinstance(e, BagTopicError):
        options = [f'--{name.replace("_", "-")}' for name in TOPIC_OPTIONS if hasattr(args, name)]
        return text + (f' (choose the topic with {" or ".join(options)})' if options else '')
    if loading and isinstance(e, (UrdfTransmissionError, TransmissionLoadError)) \
            and not getattr(args, 'lenient', True):
        text += ' (--lenient skips transmissions that cannot be loaded)'
    return text


def add_recording_arguments(parser: argparse.ArgumentParser, *, actuators: str, joints: str,
                            corrected: str, several: bool = False) -> None:
    """
    Add the arguments of a verb that reads a recording and may correct the URDF.

    ``BAG``, ``--actuator-topic``, ``--joint-topic``, ``--write-urdf``, ``--json`` and
    ``--max-samples`` (``calibrate`` and ``identify``); the texts say what each verb reads on
    each topic and writes into the URDF.

    :param several: ``BAG...``: one or more bags or folders of bags (a list)
    """
    if several:
        parser.add_argument('bag', metavar='BAG', nargs='+',
                            help='rosbag2 bag (directory, .mcap or .db3 file), or a folder of '
                                 'bags; several are identified in parallel (--jobs)')
    else:
        parser.add_argument('bag', metavar='BAG',
                            help='rosbag2 bag: directory, .mcap or .db3 file')
    parser.add_argument('--actuator-topic', default=DEFAULT_ACTUATOR_TOPIC, metavar='T',
                        help=f'sensor_msgs/JointState topic of {actuators} (default '
                             f'{DEFAULT_ACTUATOR_TOPIC})')
    parser.add_argument('--joint-topic', default=DEFAULT_JOINT_TOPIC, metavar='T',
                        help=f'sensor_msgs/JointState topic of {joints}, not the hardware '
                             f"interface's output (default {DEFAULT_JOINT_TOPIC})")
    parser.add_argument('--write-urdf', metavar='OUT',
                        help=f'write the URDF with {corrected}, otherwise unchanged (comments '
                             'kept; a .xacro is written expanded)')
    parser.add_argument('--json', action='store_true', help='print the result as JSON')
    parser.add_argument('--max-samples', type=positive_number(int, 'an integer'),
                        default=DEFAULT_MAX_SAMPLES, metavar='N',
                        help='messages decoded at most on each topic, in time windows spread '
                             f'over a longer bag (default {DEFAULT_MAX_SAMPLES})')


def write_corrected_urdf(args: argparse.Namespace, changes: list[Change]) -> dict[str, Any]:
    """
    Write ``args.write_urdf``: the URDF of ``args.urdf`` with ``changes`` (comments kept).

    :returns: ``{'path', 'changed', 'not_written'}``, ``not_written`` the changes the rewriter
        could not place, in words
    """
    text = read_urdf_text(args.urdf, xacro_mappings(getattr(args, 'xacro_args', None)))
    new, skipped = rewrite_urdf(text, changes)
    with output_file(args.write_urdf, 'the URDF', [args.urdf, args.bag]) as f:
        f.write(new.encode('utf-8'))
    return {'path': args.write_urdf, 'changed': len(changes) - len(skipped),
            'not_written': skipped}
