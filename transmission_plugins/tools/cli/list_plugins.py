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
from typing import Any

from transmission_plugins.core.exceptions import TransmissionError
from transmission_plugins.plugins import registry
from transmission_plugins.robot.report import table
from transmission_plugins.tools.cli.common import EXIT_OK
from transmission_plugins.tools.cli.common import PROG


def add_parser(sub: Any) -> None:
    """Register the ``list`` verb."""
    p = sub.add_parser('list', help='list the installed transmission plugins',
                       description='List the transmission plugins registered under the entry '
                                   'point group transmission_plugins.transmissions.')
    p.add_argument('-v', '--verbose', action='store_true',
                   help='import each plugin and show the first line of its docstring')
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """List the plugins (a failing import is a warning and a row, not an error)."""
    plugins = registry.find_transmission_plugins()
    headers = ['NAME', 'TARGET', 'DISTRIBUTION', 'VERSION']
    rows = []
    for p in plugins:
        row = [p.name, p.value, p.distribution, p.version]
        if args.verbose:
            try:
                cls = registry.load_transmission_class(p.name, plugins=[p])
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
