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

import os
import shutil
import subprocess
import sys
import textwrap

import pytest

from tp_support import REPO

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


def run(tmp_path, source, forbid):
    """Run pytest on ``source`` beside a copy of the project's conftest; return (status, out)."""
    shutil.copy(REPO / 'test' / 'conftest.py', tmp_path / 'conftest.py')
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
