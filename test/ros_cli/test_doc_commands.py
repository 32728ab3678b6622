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
Every ``ros2`` command of the documentation is run, as written, by a test of this folder.

``tp_support.doc_ros2_commands()`` lists the commands of ``README.md`` and ``doc/*.md``;
``doc_commands.COVERED`` maps each to the test that runs it (the tests take the command text
from ``doc_commands``).  These checks need no ROS tools: they run in every clone.
"""

import ast
from pathlib import Path

import doc_commands
from tp_support import doc_ros2_commands

HERE = Path(__file__).resolve().parent


def _functions(module):
    """Return the test functions of a module, and its classes' as ``Class::method``."""
    tree = ast.parse((HERE / module).read_text())
    return ({n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
            | {f'{c.name}::{n.name}' for c in tree.body if isinstance(c, ast.ClassDef)
               for n in c.body if isinstance(n, ast.FunctionDef)})


def _used_constants(module):
    """Return the ``doc.NAME`` attributes a test module reads."""
    tree = ast.parse((HERE / module).read_text())
    return {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)
            and isinstance(n.value, ast.Name) and n.value.id == 'doc'}


def test_every_documented_ros2_command_is_run_by_a_test():
    documented = doc_ros2_commands()
    assert documented, 'the pages show the ros2 commands'
    missing = [(page, command) for page, command in documented
               if command not in doc_commands.COVERED]
    assert missing == [], ('ros2 commands of the docs that no test runs; add them to '
                           f'test/ros_cli/doc_commands.py and to a test: {missing}')


def test_the_table_lists_only_documented_commands():
    documented = {command for _, command in doc_ros2_commands()}
    stale = sorted(set(doc_commands.COVERED) - documented)
    assert stale == [], f'commands no page shows any more: {stale}'


def test_each_mapped_test_exists_and_uses_the_command():
    names = {value: name for name, value in vars(doc_commands).items()
             if isinstance(value, str) and name.isupper()}
    for command, where in doc_commands.COVERED.items():
        module, function = where.split('::', 1)
        assert function in _functions(module), where
        assert command in names, f'{command!r} is not a constant of doc_commands'
        assert names[command] in _used_constants(module), (
            f'{module} does not use doc.{names[command]} ({command!r})')


def test_the_table_as_a_report():
    """Print the table (``pytest -s``): each documented command and the test that runs it."""
    for page, command in doc_ros2_commands():
        print(f'{page}: {command}\n    -> {doc_commands.COVERED.get(command, "NOT RUN")}')
