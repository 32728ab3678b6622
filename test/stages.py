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
The stages of ``scripts/test.sh``: every test belongs to exactly one, by path and marker.

* ``lint``: the modules of :data:`LINT` (flake8, pep257, copyright, mypy, the import contracts
  and what they cannot see);
* ``process``: tests that start processes (ROS nodes, the ``ros2`` tools, the command line in a
  subprocess, an rclpy context): every test under ``test/ros`` and ``test/ros_cli``, and the
  tests marked ``ros`` or ``process`` anywhere else;
* ``unit``: every other test.  They run in this interpreter only: in the unit stage a test that
  starts a child process or an rclpy context fails, naming what it started (mark it
  ``pytest.mark.process``), so a misplaced test cannot slow the stage or hide in it.  The one
  child allowed is the package's own: xacro files are expanded in a bounded child process
  (:data:`PACKAGE_CHILDREN`), whoever loads them.

:func:`stage_of` gives every collected test one stage, and ``pytest --stage NAME`` deselects
the others.  With ``TP_STAGE_LEDGER=DIR`` each stage run writes what it collected and selected
to ``DIR/NAME.json``, and ``python test/stages.py check DIR`` (``scripts/test.sh`` runs it after
the last stage) verifies that the stages collected the same tests and together selected each of
them exactly once.
"""

import importlib
import json
import os
from pathlib import Path
import sys
from typing import Any
from typing import Callable

import pytest

#: in the order scripts/test.sh runs them
STAGES = ('lint', 'unit', 'process')
#: the modules (relative to test/) of the lint stage
LINT = ('test_flake8.py', 'test_pep257.py', 'test_copyright.py', 'test_mypy.py',
        'test_import_linter.py', 'test_layering.py')
#: folders (relative to test/) every test of which starts processes
PROCESS_FOLDERS = ('ros', 'ros_cli')
#: markers that put a test into the process stage
PROCESS_MARKERS = ('ros', 'process')
#: children the package itself starts, allowed in the unit stage (``python -m MODULE``)
PACKAGE_CHILDREN = ('transmission_plugins.urdf.xacro_expansion',)
#: libraries whose import starts a child process (mujoco imports glfw, which runs Python to
#: probe its library's version): the unit stage imports them before its first test
IMPORTED_FIRST = ('mujoco',)
#: the environment variable naming the folder of the stage ledgers
LEDGER = 'TP_STAGE_LEDGER'
TEST_DIR = Path(__file__).resolve().parent


def stage_of(item: pytest.Item) -> str:
    """Return the one stage of a collected test."""
    path = Path(str(item.path)).resolve()
    relative = path.relative_to(TEST_DIR) if path.is_relative_to(TEST_DIR) else path
    if relative.as_posix() in LINT:
        return 'lint'
    if relative.parts[0] in PROCESS_FOLDERS or any(
            item.get_closest_marker(m) is not None for m in PROCESS_MARKERS):
        return 'process'
    return 'unit'


def addoption(parser: pytest.Parser) -> None:
    """Add ``--stage``."""
    parser.addoption('--stage', choices=STAGES, default=None,
                     help='run only the tests of this stage (test/stages.py); '
                          'scripts/test.sh runs lint, unit, process in turn')


def _child(args: Any) -> str | None:
    """Describe a child process, or return None for one of :data:`PACKAGE_CHILDREN`."""
    argv = [os.fsdecode(a) for a in args] if isinstance(args, (list, tuple)) else [str(args)]
    if any(argv[i:i + 2] == ['-m', module] for module in PACKAGE_CHILDREN
           for i in range(len(argv))):
        return None
    return f'a child process {argv!r}'


class ProcessGuard:
    """Record the child processes and rclpy contexts a test starts (the unit stage's guard)."""

    def __init__(self) -> None:
        self.current: str | None = None
        #: node id: what it started
        self.started: dict[str, list[str]] = {}

    def _record(self, what: str | None) -> None:
        if what is not None and self.current is not None:
            self.started.setdefault(self.current, []).append(what)

    def _wrap(self, owner: Any, name: str, describe: Callable[..., str | None]) -> None:
        original = getattr(owner, name, None)
        if original is None:
            return
        guard = self

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            guard._record(describe(*args))
            return original(*args, **kwargs)
        setattr(owner, name, wrapper)

    def install(self) -> None:
        """Wrap every way this interpreter starts a process, and rclpy's context."""
        for module in IMPORTED_FIRST:
            try:
                importlib.import_module(module)
            except ImportError:   # optional: a test that needs it says so
                pass
        import _posixsubprocess
        import subprocess
        self._wrap(subprocess.Popen, '_execute_child',
                   lambda popen, args, *rest: _child(args))
        for name in ('fork', 'forkpty', 'posix_spawn', 'posix_spawnp', 'system'):
            self._wrap(os, name, lambda *args, name=name: f'os.{name}{args[:1]!r}')
        self._wrap(_posixsubprocess, 'fork_exec',   # multiprocessing's spawn and forkserver
                   lambda args, *rest: _child(args))
        try:
            from rclpy.context import Context
        except ImportError:   # without rclpy nothing can start DDS
            return
        self._wrap(Context, 'init', lambda *args: 'an rclpy context (DDS)')

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Any:
        """Attribute what starts to the running test (its fixtures included)."""
        self.current = item.nodeid
        yield
        self.current = None

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo) -> Any:
        """Fail, at its teardown, a unit test that started a process."""
        outcome = yield
        report = outcome.get_result()
        started = self.started.pop(item.nodeid, None) if call.when == 'teardown' else None
        if started:
            report.outcome = 'failed'
            report.longrepr = (
                f'{item.nodeid} ran in the unit stage, which starts no process, but it (or '
                f'its fixtures) started {len(started)}: {"; ".join(started[:3])[:600]}.  '
                'Mark it pytest.mark.process (test/stages.py), or keep it in this interpreter.')


class StageSelection:
    """Keep the tests of one stage; write the stage's ledger when asked to."""

    def __init__(self, stage: str, ledger: str | None) -> None:
        self.stage = stage
        self.ledger = Path(ledger) if ledger else None

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config: pytest.Config,
                                      items: list[pytest.Item]) -> None:
        """Deselect the tests of the other stages."""
        stages = {item.nodeid: stage_of(item) for item in items}
        kept = [item for item in items if stages[item.nodeid] == self.stage]
        dropped = [item for item in items if stages[item.nodeid] != self.stage]
        if dropped:
            config.hook.pytest_deselected(items=dropped)
        items[:] = kept
        if self.ledger is not None:
            self.ledger.mkdir(parents=True, exist_ok=True)
            path = self.ledger / f'{self.stage}.json'
            partial = path.with_name(f'{path.name}.{os.getpid()}')   # xdist workers both write
            partial.write_text(json.dumps({'stage': self.stage, 'collected': sorted(stages),
                                           'selected': sorted(i.nodeid for i in kept)}))
            partial.replace(path)


def configure(config: pytest.Config) -> None:
    """Select the stage of ``--stage``; guard the unit stage."""
    stage = config.getoption('stage')
    if stage is None:
        return
    config.pluginmanager.register(StageSelection(stage, os.environ.get(LEDGER)),
                                  'tp_stage_selection')
    if stage == 'unit':
        guard = ProcessGuard()
        guard.install()
        config.pluginmanager.register(guard, 'tp_process_guard')


def check(ledgers: dict[str, dict[str, Any]]) -> list[str]:
    """Return what is wrong with the ledgers of a staged run (nothing: every test ran once)."""
    problems = [f'stage {s}: no ledger (did it run?)' for s in STAGES if s not in ledgers]
    if problems:
        return problems
    collected = {s: set(ledgers[s]['collected']) for s in STAGES}
    reference = collected[STAGES[0]]
    problems += [f'stage {s} collected other tests than stage {STAGES[0]}: '
                 f'{sorted(collected[s] ^ reference)[:5]}'
                 for s in STAGES[1:] if collected[s] != reference]
    seen: dict[str, str] = {}
    for s in STAGES:
        for nodeid in ledgers[s]['selected']:
            if nodeid in seen:
                problems.append(f'{nodeid} selected by stages {seen[nodeid]} and {s}')
            seen[nodeid] = s
    missed = sorted(reference - set(seen))
    if missed:
        problems.append(f'{len(missed)} tests selected by no stage: {missed[:5]}')
    if not reference:
        problems.append('no test collected')
    return problems


def main(argv: list[str]) -> int:
    """``stages.py check DIR``: check the ledgers of a staged run."""
    if len(argv) != 3 or argv[1] != 'check':
        print('usage: stages.py check LEDGER_DIR', file=sys.stderr)
        return 2
    directory = Path(argv[2])
    ledgers = {p.stem: json.loads(p.read_text()) for p in directory.glob('*.json')}
    problems = check(ledgers)
    if problems:
        print('test stages: ' + '\n  '.join(problems), file=sys.stderr)
        return 1
    counts = ' + '.join(f'{s} {len(ledgers[s]["selected"])}' for s in STAGES)
    print(f'test stages: {counts} = {len(ledgers[STAGES[0]]["collected"])} tests, '
          'each run in exactly one stage')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
