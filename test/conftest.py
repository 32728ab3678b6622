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
Shared pytest configuration.

Having this file here puts ``test/`` on ``sys.path``, so that every test module can import
:mod:`tp_support` (paths of the repository and of the optional ``../shared`` corpus); it adds
``bench/`` too, for the synthetic robots the tests of scale share with the benchmarks
(``bench/synthetic_robots.py``).

Skipped tests are summed up once, at the end, one line per reason with the number of tests it
skipped (``scripts/test.sh`` shows nothing else about them).  With ``TP_FORBID_SKIPS=1`` in the
environment (CI sets it in ``.ci/run`` when ``../shared`` is there), a skipped test fails the
session: the run ends with exit status 1 and the summary lists every skipped test, so that CI
never tests less than it claims.  Expected failures (``xfail``) are not skips.

``scripts/test.sh`` runs the suite on two pytest-xdist workers with ``--dist loadfile``: a
module runs on one worker, and every module that talks over DDS has a ROS domain range of its
own (``grep -rn ROS_DOMAIN_ID test/``), so two modules never meet.  pytest-xdist hands the
modules out in collection order, so the slowest (:data:`SLOW_FIRST`) are collected first and the
workers finish together.
"""

from collections import Counter
import os
from pathlib import Path
import sys

import pytest
import stages

sys.path.insert(1, str(Path(__file__).resolve().parents[1] / 'bench'))

#: the modules that take longest (half a minute to minutes), slowest first, the ROS 2 tools'
#: bring-ups between the CPU-bound lint runs
SLOW_FIRST = ('ros_cli/test_ros2_control_cli.py', 'test_flake8.py', 'ros_cli/test_launch_cli.py',
              'test_copyright.py', 'ros_cli/test_stop_cli.py', 'ros/test_demo.py',
              'ros_cli/test_run_cli.py', 'ros/test_stop_signals.py', 'ros/test_integration.py',
              'tools/test_cli_failures.py', 'test_skip_gate.py', 'test_docs.py', 'test_mypy.py',
              'tools/test_csv_convert.py', 'tools/test_bags.py')
#: the environment variable that turns skips into a session failure
FORBID_SKIPS = 'TP_FORBID_SKIPS'


def _skip_reason(report: pytest.CollectReport | pytest.TestReport) -> tuple[str, str]:
    """Return ``(reason, where)`` of a skip report."""
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:  # (path, line, 'Skipped: reason')
        path, line, message = longrepr
        reason = message[len('Skipped: '):] if message.startswith('Skipped: ') else message
        return reason, f'{path}:{line}'
    return str(longrepr), ''


class SkipSummary:
    """Record skipped tests; sum them up by reason, and fail the session if they are forbidden."""

    def __init__(self, forbid: bool) -> None:
        self.forbid = forbid
        #: (node id, reason, where) of every skipped test or collector, in report order
        self.skipped: list[tuple[str, str, str]] = []

    def _record(self, report: pytest.CollectReport | pytest.TestReport) -> None:
        if report.skipped and not hasattr(report, 'wasxfail'):
            self.skipped.append((report.nodeid, *_skip_reason(report)))

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        """Record a module or class skipped at collection."""
        self._record(report)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Record a test skipped in setup or call."""
        self._record(report)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """Fail a session that would otherwise pass (or find nothing) when skips are forbidden."""
        if self.forbid and self.skipped and session.exitstatus in (
                pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        """Sum the skips up by reason (and list them all when they are forbidden)."""
        if not self.skipped:
            return
        if self.forbid:
            terminalreporter.section(f'{FORBID_SKIPS}=1: skipped tests fail this run', red=True)
            for nodeid, reason, where in self.skipped:
                terminalreporter.line(f'SKIPPED {nodeid}: {reason} ({where})')
        else:
            terminalreporter.section('skipped tests, by reason', yellow=True)
        for reason, count in Counter(r for _, r, _ in self.skipped).most_common():
            terminalreporter.line(f'{count:5d} skipped: {reason}')
        if self.forbid:
            terminalreporter.line(f'{len(self.skipped)} skipped; {FORBID_SKIPS}=1 forbids skips '
                                  '(run without it to allow them)', red=True)


def pytest_addoption(parser: pytest.Parser) -> None:
    """Add ``--stage`` (:mod:`stages`)."""
    stages.addoption(parser)


def pytest_configure(config: pytest.Config) -> None:
    """
    Install the skip summary and the stage selection.

    The skip summary fails the session on a skip when ``TP_FORBID_SKIPS=1``; ``--stage NAME``
    keeps the tests of one stage of :mod:`stages` (and guards the unit stage).
    """
    if not hasattr(config, 'workerinput'):   # an xdist worker reports to the controller
        config.pluginmanager.register(SkipSummary(os.environ.get(FORBID_SKIPS) == '1'),
                                      'tp_skip_gate')
    stages.configure(config)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the modules of :data:`SLOW_FIRST` first, in its order (the rest keep theirs)."""
    def rank(item: pytest.Item) -> int:
        module = item.nodeid.split('::', 1)[0]
        return next((i for i, slow in enumerate(SLOW_FIRST) if module.endswith(slow)),
                    len(SLOW_FIRST))
    items.sort(key=rank)
