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
The stages of scripts/test.sh (test/stages.py): one stage per test, each test run once.

``scripts/test.sh`` checks the ledgers of every staged run with :func:`stages.check`; here the
check itself is shown to catch a test selected twice, a test selected by no stage and stages
that collected different tests, and the unit stage's guard to name a child process.
"""

from pathlib import Path
import sys

import pytest
import stages


class FakeItem:
    """What :func:`stages.stage_of` reads of a collected test."""

    def __init__(self, path: str, *markers: str) -> None:
        self.path = Path(stages.TEST_DIR, path)
        self.markers = markers

    def get_closest_marker(self, name: str) -> object:
        return name if name in self.markers else None


@pytest.mark.parametrize('path, markers, stage', [
    ('test_flake8.py', (), 'lint'),
    ('test_import_linter.py', (), 'lint'),
    ('test_layering.py', (), 'lint'),
    ('ros/test_integration.py', (), 'process'),
    ('ros_cli/test_launch_cli.py', (), 'process'),
    ('tools/test_cli_files.py', ('process',), 'process'),
    ('urdf/test_ros_marked.py', ('ros',), 'process'),
    ('tools/test_cli.py', (), 'unit'),
    ('test_docs.py', (), 'unit'),
    ('core/test_transmission_api.py', ('parametrize',), 'unit'),
])
def test_every_test_has_one_stage(path, markers, stage):
    assert stages.stage_of(FakeItem(path, *markers)) == stage


def _ledgers(collected, **selected):
    return {s: {'stage': s, 'collected': collected, 'selected': selected.get(s, [])}
            for s in stages.STAGES}


def test_the_check_passes_when_each_test_runs_in_exactly_one_stage():
    assert stages.check(_ledgers(['a', 'b', 'c', 'd'], lint=['a'], unit=['b', 'c'],
                                 process=['d'])) == []


def test_the_check_finds_a_test_run_twice_or_never():
    problems = stages.check(_ledgers(['a', 'b', 'c'], lint=['a'], unit=['a', 'b']))
    assert problems == ['a selected by stages lint and unit',
                        "1 tests selected by no stage: ['c']"]


def test_the_check_finds_stages_that_collected_other_tests():
    ledgers = _ledgers(['a', 'b'], lint=['a'], unit=['b'])
    ledgers['process']['collected'] = ['a']
    assert stages.check(ledgers) == ["stage process collected other tests than stage lint: ['b']"]
    del ledgers['unit']
    assert stages.check(ledgers) == ['stage unit: no ledger (did it run?)']
    assert stages.check(_ledgers([])) == ['no test collected']


def test_the_guard_names_a_child_process_but_not_the_packages_own():
    guard = stages.ProcessGuard()

    class Owner:
        @staticmethod
        def spawn(args):
            return len(args)

    guard._wrap(Owner, 'spawn', stages._child)
    guard.current = 'test_x'
    assert Owner.spawn(['ros2', 'launch']) == 2           # the call itself goes through
    assert Owner.spawn([sys.executable, '-m', 'transmission_plugins.urdf.xacro_expansion']) == 3
    assert guard.started == {'test_x': ["a child process ['ros2', 'launch']"]}
    guard.current = None                                  # outside a test: not recorded
    Owner.spawn(['git', 'ls-files'])
    assert list(guard.started) == ['test_x']
