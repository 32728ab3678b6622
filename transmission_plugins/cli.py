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

Subcommands are added by their modules; ``demo`` runs the main job on the bundled robot.
"""

import argparse
import sys
from typing import List
from typing import Optional


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser with every subcommand."""
    parser = argparse.ArgumentParser(
        prog='transmission_plugins',
        description='Inspect, convert and run URDF transmissions.')
    sub = parser.add_subparsers(dest='command', required=True)
    demo = sub.add_parser('demo', help='print the transmissions of the bundled example')
    demo.set_defaults(func=_demo)
    return parser


def _demo(args: argparse.Namespace) -> int:
    from importlib.metadata import entry_points
    for ep in sorted(entry_points(group='transmission_plugins.transmissions'),
                     key=lambda e: e.name):
        print(f'{ep.name:48s} {ep.value}')
    return 0


def main(argv: Optional[List[str]] = None) -> int:
    """Run the command line tool and return its exit status."""
    args = build_parser().parse_args(argv)
    return int(args.func(args))


if __name__ == '__main__':
    sys.exit(main())
