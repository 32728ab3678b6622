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
The ``transmission_plugins`` command-line tool, one module per verb (doc/cli.md).

Each verb module has ``add_parser(subparsers)`` and ``run(args)``; shared pieces are in
:mod:`~.common`.
"""

import argparse
import os
import sys

from transmission_plugins.tools.cli import calibrate
from transmission_plugins.tools.cli import convert
from transmission_plugins.tools.cli import export
from transmission_plugins.tools.cli import export_csv
from transmission_plugins.tools.cli import identify
from transmission_plugins.tools.cli import inspect_urdf
from transmission_plugins.tools.cli import lint_urdf
from transmission_plugins.tools.cli import list_plugins
from transmission_plugins.tools.cli import plot
from transmission_plugins.tools.cli import ros2_control
from transmission_plugins.tools.cli import run_demo
from transmission_plugins.tools.cli.common import EXIT_OK
from transmission_plugins.tools.cli.common import EXIT_USAGE
from transmission_plugins.tools.cli.common import package_version
from transmission_plugins.tools.cli.common import PROG

__all__ = ['build_parser', 'main']


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser with every subcommand."""
    parser = argparse.ArgumentParser(
        prog=PROG, description='Inspect, convert and run URDF transmissions.')
    parser.add_argument('--version', action='version', version=f'{PROG} {package_version()}')
    sub = parser.add_subparsers(dest='command', required=True, metavar='COMMAND')
    for verb in (list_plugins, inspect_urdf, lint_urdf, convert, export_csv, plot, calibrate,
                 identify, ros2_control, export, run_demo):
        verb.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
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
