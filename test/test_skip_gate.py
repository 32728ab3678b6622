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
The ``TP_FORBID_SKIPS=1`` gate of ``test/conftest.py``, run on tiny test files in a subprocess.

Each case copies the real conftest next to a small test module and runs pytest on it, with and
without the variable, and checks the exit status and the printed list of skipped tests.
"""

import ast
import os
import re
import shutil
import subprocess
import sys
import textwrap

import pytest

from tp_support import REPO

# pytest runs in a child process (test/stages.py)
pytestmark = pytest.mark.process

SKIPPING = textwrap.dedent("""\
    import pytest

    def test_passes():
        assert True

    def test_skips_inside():
        pytest.skip('no frobnicator on this machine')

    @pytest.mark.skipif(True, reason='needs ../shared/urdf_corpus')
    def test_skipped_by_marker():
        pass

    @pytest.mark.xfail(reason='known bug', strict=True)
    def test_expected_failure():
        assert False
    """)
PASSING = textwrap.dedent("""\
    import pytest

    def test_passes():
        assert True

    @pytest.mark.xfail(reason='known bug', strict=True)
    def test_expected_failure():
        assert False
    """)
FAILING_AND_SKIPPING = textwrap.dedent("""\
    import pytest

    def test_fails():
        assert 1 == 2

    def test_skips():
        pytest.skip('not here')
    """)
MODULE_SKIP = textwrap.dedent("""\
    import pytest

    pytest.skip('the whole module needs a robot', allow_module_level=True)

    def test_never_collected():
        pass
    """)


SEVERAL_REASONS = {
    'test_tiny.py': SKIPPING + textwrap.dedent("""\

        def test_skips_inside_for_the_same_reason():
            pytest.skip('no frobnicator on this machine')
        """),
    'test_module_skipped.py': MODULE_SKIP,
    'test_optional.py': textwrap.dedent("""\
        import pytest

        pytest.importorskip('tp_no_such_module', reason='tp_no_such_module is not installed')

        def test_never_collected():
            pass
        """),
}


def run(tmp_path, source, forbid):
    """Run pytest on ``source`` beside a copy of the project's conftest; return (status, out)."""
    for name in ('conftest.py', 'stages.py'):   # the conftest and the stages it selects
        shutil.copy(REPO / 'test' / name, tmp_path / name)
    (tmp_path / 'test_tiny.py').write_text(source)
    env = {k: v for k, v in os.environ.items() if k != 'TP_FORBID_SKIPS'}
    if forbid is not None:
        env['TP_FORBID_SKIPS'] = forbid
    env['PYTHONDONTWRITEBYTECODE'] = '1'
    done = subprocess.run(
        [sys.executable, '-m', 'pytest', '-q', '-p', 'no:cacheprovider', '--rootdir',
         str(tmp_path), '-c', os.devnull, str(tmp_path / 'test_tiny.py')],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    return done.returncode, done.stdout + done.stderr


def test_skips_fail_the_session_and_are_listed_with_their_reasons(tmp_path):
    status, out = run(tmp_path, SKIPPING, '1')
    assert status == 1, out
    assert 'TP_FORBID_SKIPS=1: skipped tests fail this run' in out
    assert 'SKIPPED test_tiny.py::test_skips_inside: no frobnicator on this machine' in out
    assert 'SKIPPED test_tiny.py::test_skipped_by_marker: needs ../shared/urdf_corpus' in out
    assert 'test_expected_failure' not in out.split('skipped tests fail this run')[1]
    assert '2 skipped; TP_FORBID_SKIPS=1 forbids skips' in out


@pytest.mark.parametrize('forbid', [None, '0', ''])
def test_skips_are_allowed_without_the_variable(tmp_path, forbid):
    status, out = run(tmp_path, SKIPPING, forbid)
    assert status == 0, out
    assert '1 passed, 2 skipped, 1 xfailed' in out
    assert 'skipped tests fail this run' not in out
    # one summary: a line per reason with its count, nothing else about them
    summary = out.split('skipped tests, by reason')[1]
    assert '    1 skipped: no frobnicator on this machine' in summary
    assert '    1 skipped: needs ../shared/urdf_corpus' in summary
    assert 'SKIPPED' not in out


def test_a_run_without_skips_passes_with_the_variable(tmp_path):
    status, out = run(tmp_path, PASSING, '1')
    assert status == 0, out
    assert '1 passed, 1 xfailed' in out and 'skipped tests fail' not in out


def test_a_failing_run_keeps_its_status_and_still_lists_the_skips(tmp_path):
    status, out = run(tmp_path, FAILING_AND_SKIPPING, '1')
    assert status == 1, out
    assert 'FAILED test_tiny.py::test_fails' in out
    assert 'SKIPPED test_tiny.py::test_skips: not here' in out


def test_a_module_skipped_at_collection_counts(tmp_path):
    status, out = run(tmp_path, MODULE_SKIP, '1')
    assert status == 1, out
    assert 'SKIPPED test_tiny.py: the whole module needs a robot' in out
    status, out = run(tmp_path, MODULE_SKIP, None)
    assert status == 5, out  # pytest's own "no tests ran" without the gate


def test_skips_of_several_reasons_make_one_summary_and_nothing_else(tmp_path):
    """
    Issue 23 (items 45-47): a run printed a line per skip, in 9 wordings, and a stray print.

    Now the progress line is followed by one section, a line per reason with its count (most
    skips first), and pytest's own last line: nothing else.
    """
    for name in ('conftest.py', 'stages.py'):
        shutil.copy(REPO / 'test' / name, tmp_path / name)
    for name, source in SEVERAL_REASONS.items():
        (tmp_path / name).write_text(source)
    env = {k: v for k, v in os.environ.items() if k != 'TP_FORBID_SKIPS'}
    env['PYTHONDONTWRITEBYTECODE'] = '1'
    done = subprocess.run(
        [sys.executable, '-m', 'pytest', '-q', '-p', 'no:cacheprovider', '--rootdir',
         str(tmp_path), '-c', os.devnull, str(tmp_path)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stderr == ''
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    progress = [line for line in lines if re.fullmatch(r'[.sxXF]+ +\[ *\d+%\]', line)]
    assert lines[:len(progress)] == progress and len(progress) == 1, lines
    assert re.fullmatch(r'=+ skipped tests, by reason =+', lines[1]), lines
    assert lines[2] == '    2 skipped: no frobnicator on this machine', lines
    assert sorted(lines[3:-1]) == ['    1 skipped: needs ../shared/urdf_corpus',
                                   '    1 skipped: the whole module needs a robot',
                                   '    1 skipped: tp_no_such_module is not installed'], lines
    assert re.fullmatch(r'1 passed, 5 skipped, 1 xfailed in [\d.]+s', lines[-1]), lines


def test_collecting_tests_prints_only_their_ids():
    """
    No package module nor test helper prints at import or collection (issue 23, item 47).

    ``-s`` shows what a module prints while it is imported; pytest would hide it otherwise and
    ``scripts/test.sh`` would not.  The package's modules are imported in one interpreter, the
    core tests (and the helpers they import) collected in another.
    """
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE='1')
    # the launch files' actions need upstream launch_ros (../shared/ros2_cli adds it); without
    # it their two modules are left out, the rest is imported
    code = textwrap.dedent("""\
        import importlib
        import importlib.util
        import pkgutil
        import transmission_plugins
        launch = importlib.util.find_spec('launch_ros') is not None
        for m in pkgutil.walk_packages(transmission_plugins.__path__, 'transmission_plugins.'):
            if m.name.endswith('__main__'):   # that one runs the command
                continue
            if launch or not m.name.endswith(('.launch_description', '.ros2_control_launch')):
                importlib.import_module(m.name)
        """)
    done = subprocess.run([sys.executable, '-c', code], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == ''
    done = subprocess.run(
        [sys.executable, '-m', 'pytest', '--collect-only', '-q', '-s', '-p', 'no:cacheprovider',
         'test/core'], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    assert all(line.startswith('test/core/test_') and '::' in line for line in lines[:-1]), [
        line for line in lines[:-1] if '::' not in line]
    assert re.fullmatch(r'\d+ tests collected in [\d.]+s', lines[-1]), lines[-1]


def _prints_on_import(path):
    """Yield the lines of ``print`` calls that run when ``path`` is imported."""
    def main_block(node):
        test = node.test if isinstance(node, ast.If) else None
        return (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name)
                and test.left.id == '__name__')

    def walk(node):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) or \
                    main_block(child):
                continue
            if isinstance(child, ast.Call) and getattr(child.func, 'id', None) == 'print':
                yield child.lineno
            yield from walk(child)
    yield from walk(ast.parse(path.read_text(encoding='utf-8')))


def test_no_module_prints_when_it_is_imported():
    """
    No module of the package, the tests or the benchmarks prints at import (issue 23, item 47).

    On e6277b7 ``test/tools/test_csv_fast.py`` printed at collection when pyarrow or orjson was
    missing, beside its skip.  A ``print`` in a function or under ``if __name__ == ...`` is
    fine: it runs when called.
    """
    found = [f'{path.relative_to(REPO)}:{line}'
             for folder in ('transmission_plugins', 'test', 'bench', 'launch')
             for path in sorted((REPO / folder).rglob('*.py'))
             for line in _prints_on_import(path)]
    assert not found, f'print at import: {found}'
