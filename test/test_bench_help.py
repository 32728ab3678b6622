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

"""Every benchmark a user runs from a fresh clone answers ``--help`` (doc/performance.md)."""

import contextlib
import io
import runpy
import sys

import pytest
from tp_support import REPO

#: the scripts of bench/ that run (the others are helpers they import)
SCRIPTS = sorted(p for p in (REPO / 'bench').glob('*.py')
                 if "__name__ == '__main__'" in p.read_text())


def test_the_runnable_benchmarks_are_found():
    names = {p.name for p in SCRIPTS}
    assert {'bench_control_rate.py', 'bench_node.py', 'value_path.py'} <= names, names


@pytest.mark.parametrize('script', SCRIPTS, ids=[p.stem for p in SCRIPTS])
def test_a_benchmark_answers_help_without_running(script, monkeypatch):
    monkeypatch.setattr(sys, 'argv', [str(script), '--help'])
    out = io.StringIO()
    with pytest.raises(SystemExit) as done, contextlib.redirect_stdout(out):
        runpy.run_path(str(script), run_name='__main__')
    assert done.value.code == 0
    text = out.getvalue()
    assert text.startswith('usage: '), text[:200]
    # a description of what it measures, beyond the usage line and the options
    assert len([line for line in text.split('\n\n') if line.strip()]) >= 3, text
