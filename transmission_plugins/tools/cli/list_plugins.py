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

"""``transmission_plugins list``: the installed transmission plugins, imported only with -v."""

import argparse
import sys
import textwrap
from typing import Any

from transmission_plugins.core.exceptions import TransmissionError
from transmission_plugins.plugins import registry
from transmission_plugins.robot.report import table
from transmission_plugins.tools.cli.common import EXIT_OK
from transmission_plugins.tools.cli.common import PROG

#: Longest line printed (the table's names are shorter).
WIDTH = 99


def add_parser(sub: Any) -> None:
    """Register the ``list`` verb."""
    p = sub.add_parser('list', help='list the installed transmission plugins',
                       description='List the transmission plugins registered under the entry '
                                   'point group transmission_plugins.transmissions.')
    p.add_argument('-v', '--verbose', action='store_true',
                   help='import each plugin and show its target (module:class) and the first '
                        'line of its docstring')
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """
    List the plugins (a failing import is a warning and a line, not an error).

    One row per lookup name (NAME, DISTRIBUTION, VERSION), under 100 columns; ``-v`` adds, under
    each, the entry point's target and the first docstring line, wrapped.
    """
    plugins = registry.find_transmission_plugins()
    rows = [[p.name, p.distribution, p.version] for p in plugins]
    if not args.verbose:
        print(table(['NAME', 'DISTRIBUTION', 'VERSION'], rows, indent=''))
    else:
        for p in plugins:
            try:
                cls = registry.load_transmission_class(p.name, plugins=[p])
                doc = (cls.__doc__ or '').strip().splitlines()
                summary = doc[0].strip() if doc else ''
            except TransmissionError as e:
                print(f'{PROG} list: warning: {e}', file=sys.stderr)
                summary = '(failed to load, see the warning)'
            print(f'{p.name}  ({p.distribution} {p.version})')
            print(textwrap.fill(f'target: {p.value}', WIDTH, initial_indent='    ',
                                subsequent_indent='      ', break_long_words=False))
            if summary:
                print(textwrap.fill(summary, WIDTH, initial_indent='    ',
                                    subsequent_indent='    '))
    print(f'\n{len(plugins)} plugin(s)')
    return EXIT_OK
