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
doc/nodes.md's parameter tables and ``--help`` say what the nodes declare (issue 35).

Each node's parameters are declared once (:mod:`transmission_plugins.runtime.node_settings`);
the type, default, accepted and applied columns of doc/nodes.md are checked against that
declaration cell by cell, so that the documentation cannot drift from what the node does.  The
meaning column is prose and free.
"""

import re

import pytest
from tp_support import PACKAGE_DIR
from transmission_plugins.runtime.node_settings import HARDWARE_INTERFACE
from transmission_plugins.runtime.node_settings import MOCK_ACTUATORS
from transmission_plugins.runtime.node_settings import SIM_INTERFACE
from transmission_plugins.runtime.settings import Setting

NODES_MD = PACKAGE_DIR.parent / 'doc' / 'nodes.md'
SIMULATION_MD = PACKAGE_DIR.parent / 'doc' / 'simulation.md'
#: rows for parameters declared per robot or per topic, not in the declaration
DYNAMIC = ('joint_limits.', 'qos_overrides.')


def default_cell(setting: Setting) -> str:
    """Return how doc/nodes.md writes a default."""
    value = setting.default
    if isinstance(value, bool):
        return f'`{str(value).lower()}`'
    if isinstance(value, float):
        text = f'{value:.6g}'
        return f'`{text if "." in text or "e" in text else text + ".0"}`'
    if value == '':
        return "`''`"
    return f'`{value}`'


def row_cells(setting: Setting) -> list[str]:
    """Return the declared columns of a row: type, default, accepted, applied."""
    return [setting.kind, default_cell(setting), setting.accepted(), setting.applies]


def tables(text: str) -> dict[str, dict[str, list[str]]]:
    """Return doc/nodes.md's parameter tables: the node (in backticks before it) -> rows."""
    out: dict[str, dict[str, list[str]]] = {}
    node = ''
    rows: dict[str, list[str]] | None = None
    for line in text.splitlines():
        heading = re.match(r'^`(\w+)`[.:]', line)
        if heading:
            node = heading.group(1)
        if line.startswith('| parameter | type | default | accepted | applied |'):
            rows = out.setdefault(node, {})
            continue
        if rows is not None and line.startswith('|'):
            cells = [c.strip() for c in re.split(r'(?<!\\)\|', line)[1:-1]]
            if set(cells[0]) <= set('-'):
                continue
            rows[cells[0].strip('`')] = cells[1:5]
        elif rows is not None:
            rows = None
    return out


DOC = tables(NODES_MD.read_text())


@pytest.mark.parametrize('declaration', [HARDWARE_INTERFACE, MOCK_ACTUATORS],
                         ids=lambda d: d.node)
def test_the_parameter_table_matches_the_declaration(declaration):
    rows = DOC.get(declaration.node)
    assert rows, f'doc/nodes.md has no parameter table after `{declaration.node}`'
    undeclared = [n for n in rows if n not in declaration and not n.startswith(DYNAMIC)]
    assert not undeclared, f'documented but not declared: {undeclared}'
    missing = [n for n in declaration if n not in rows]
    assert not missing, f'declared but not documented: {missing}'
    for name, setting in declaration.items():
        expected = ' | '.join(row_cells(setting))
        assert rows[name] == row_cells(setting), (
            f'doc/nodes.md, `{name}`: expected the cells | `{name}` | {expected} | ...')


def test_a_drifted_table_is_caught():
    """The check fails when a range, a default or when a change applies differs."""
    setting = HARDWARE_INTERFACE['update_rate']
    cells = row_cells(setting)
    assert cells == ['double', '`100.0`', 'in [0.1, 10000] Hz', 'at once']
    for drift in ({'high': 20_000.0}, {'default': 50.0}, {'applies': 'next configure'}):
        assert row_cells(Setting(**dict(vars(setting), **drift))) != cells, drift


def _plain_default(value: object) -> str:
    """Return how doc/simulation.md writes a default (backticks aside)."""
    if isinstance(value, bool):
        return str(value).lower()
    if value == '':
        return "''"
    return '[]' if value == [] else str(value)


def test_the_simulation_interface_s_table_matches_its_declaration():
    """doc/simulation.md's table of the differences: declared names, declared defaults."""
    text = SIMULATION_MD.read_text().split('\n## Parameters\n', 1)[1].split('\n## ', 1)[0]
    rows = [[c.strip() for c in line.split('|')[1:3]] for line in text.splitlines()
            if line.startswith('| `')]
    assert len(rows) >= 10, 'doc/simulation.md: no parameter table under "## Parameters"'
    for name, default in rows:
        setting = SIM_INTERFACE.get(name.strip('`'))
        assert setting is not None, f'doc/simulation.md documents {name}, not declared'
        assert default.strip('`') == _plain_default(setting.default), (name, default)


NODE_DECLARATIONS = {'hardware_interface_node': HARDWARE_INTERFACE,
                     'sim_interface_node': SIM_INTERFACE, 'mock_actuators_node': MOCK_ACTUATORS}


@pytest.mark.parametrize('name', sorted(NODE_DECLARATIONS))
def test_help_shows_each_parameter_as_declared(name):
    from transmission_plugins.ros.executables import node_help
    pytest.importorskip('rclpy')
    text = node_help(name).split('\nparameters (', 1)[1]
    declaration = NODE_DECLARATIONS[name]
    for param, setting in declaration.items():
        line = next(x for x in text.splitlines() if x.startswith(f'  {param} ('))
        assert f'default {setting.default!r}' in line and setting.applies in line, line
        assert setting.accepted() in line, line
