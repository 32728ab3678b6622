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
A set of node processes started, watched and stopped together (the launcher's and the demo's).

Each node runs in a process group of its own inside the launcher's session, so that a
terminal's Ctrl-C reaches the launcher only and the launcher decides how the nodes stop, as
``ros2 launch`` does (doc/launch.md).  A session each would also give each node a CPU scheduling
group of its own (Linux autogroup).
"""

import os
import signal
import subprocess
import sys
import threading
import time
from typing import Any
from typing import Sequence

#: seconds between the SIGUSR1 that asks a node which has not stopped for its stacks and SIGKILL
STACKS_BEFORE_KILL = 1.0


class NodeSet:
    """
    Start node processes, watch them, stop them together.

    :param log: a file that receives the children's output (instead of this terminal)
    """

    def __init__(self, commands: Sequence[tuple[str, list[str]]],
                 env: dict[str, str] | None = None, quiet: bool = False,
                 log: Any = None) -> None:
        self.commands = list(commands)
        self.env = env
        self.quiet = quiet
        self.log = log
        self.processes: list[tuple[str, subprocess.Popen[bytes]]] = []

    def start(self) -> None:
        """Start every process in a process group of its own, in this session (see the module)."""
        out = subprocess.DEVNULL if self.quiet else self.log
        _let_background_groups_write()
        group: dict[str, Any] = {'process_group': 0}
        if sys.version_info < (3, 11):   # Python 3.10 (ROS 2 Humble): no process_group yet
            group = {'preexec_fn': os.setpgrp}
        for name, argv in self.commands:
            p = subprocess.Popen(argv, env=self.env, stdin=subprocess.DEVNULL, stdout=out,
                                 stderr=out, **group)
            self.processes.append((name, p))

    def dead(self) -> list[tuple[str, int]]:
        """Return (name, exit code) of the processes that have exited."""
        return [(n, p.returncode) for n, p in self.processes if p.poll() is not None]

    def stop(self, timeout: float = 10.0) -> list[tuple[str, int]]:
        """
        Stop every live process: SIGINT, SIGTERM after half of ``timeout``, SIGKILL at its end.

        A node still there :data:`STACKS_BEFORE_KILL` s (at most a quarter of ``timeout``)
        before the SIGKILL gets SIGUSR1 (the nodes' executables print their threads' stacks; a
        process without such a handler ends there, code -10).

        :returns: (name, exit code) of the processes it stopped that did not stop cleanly
            (code not 0); each is also reported on stderr
        """
        running = [(n, p) for n, p in self.processes if p.poll() is None]
        for _, p in running:
            _signal(p, signal.SIGINT)
        start = time.monotonic()
        stacks = min(STACKS_BEFORE_KILL, timeout / 4)
        _wait_all(running, start + timeout / 2)
        late = [(n, p) for n, p in running if p.poll() is None]
        for name, p in late:
            print(f'[launcher] {name} still runs {timeout / 2:g} s after SIGINT: SIGTERM',
                  file=sys.stderr, flush=True)
            _signal(p, signal.SIGTERM)
        _wait_all(late, start + timeout - stacks)
        for name, p in late:
            if p.poll() is None:
                self._kill_with_stacks(name, p, stacks)
        unclean = [(n, p.returncode) for n, p in running if p.returncode != 0]
        for name, code in unclean:
            print(f'[launcher] {name} stopped with exit code {code}', file=sys.stderr,
                  flush=True)
        return unclean

    @staticmethod
    def _kill_with_stacks(name: str, p: 'subprocess.Popen[bytes]', wait: float) -> None:
        """SIGUSR1 (a node prints its threads' stacks), then SIGKILL if it is still there."""
        print(f'[launcher] {name} has not stopped: asking for its stacks (SIGUSR1), then '
              'SIGKILL', file=sys.stderr, flush=True)
        _signal(p, signal.SIGUSR1)
        try:
            p.wait(wait)
        except subprocess.TimeoutExpired:
            pass
        if p.poll() is None:
            p.kill()
            p.wait()

    def wait(self, after: Any = None) -> int:
        """
        Wait until Ctrl-C, SIGTERM or SIGHUP, or until a node exits; stop the others.

        :param after: the handler SIGINT, SIGTERM and SIGHUP keep when this returns (``SIG_IGN``
            for a launcher on its way out: a late Ctrl-C must not raise ``KeyboardInterrupt``);
            None: the handlers found when it was called
        :returns: 0 after a signal, or a node that ended by itself with exit code 0 (shut down
            to *finalized*), when every node stopped cleanly; else 1 (a node exited with another
            code, or stopped with a non-zero code)
        """
        interrupted = False

        def on_signal(signum: int, frame: Any) -> None:
            nonlocal interrupted
            interrupted = True

        # SIGHUP too: a closed terminal signals the foreground group only, the nodes would run on
        old = {s: signal.signal(s, on_signal)
               for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
        code = 0
        try:
            while not interrupted:
                gone = self.dead()
                if gone:
                    for name, exit_code in gone:
                        what = ('was shut down (finalized)' if exit_code == 0
                                else f'exited with code {exit_code}')
                        print(f'[launcher] {name} {what}; stopping the others',
                              file=sys.stderr, flush=True)
                    code = 0 if all(c == 0 for _, c in gone) else 1
                    break
                time.sleep(0.1)
        finally:
            if self.stop():
                code = 1
            for s, h in old.items():
                signal.signal(s, h if after is None else after)
        return code


def _let_background_groups_write() -> None:
    """
    Ignore SIGTTOU in this process, and so in the nodes it starts (an ignored signal stays so).

    With ``stty tostop``, a process of a background group that writes to its terminal is stopped
    by SIGTTOU unless it ignores or blocks it (POSIX).  Only the main thread may change a
    disposition; a handler already set is left alone.
    """
    if (threading.current_thread() is threading.main_thread()
            and signal.getsignal(signal.SIGTTOU) == signal.SIG_DFL):
        signal.signal(signal.SIGTTOU, signal.SIG_IGN)


def _signal(p: 'subprocess.Popen[bytes]', signum: int) -> None:
    """Send ``signum`` to ``p`` unless it has exited."""
    try:
        p.send_signal(signum)
    except ProcessLookupError:
        pass


def _wait_all(processes: Sequence[tuple[str, 'subprocess.Popen[bytes]']], until: float) -> None:
    """Wait until every process has exited or the monotonic clock reaches ``until``."""
    for _, p in processes:
        try:
            p.wait(max(0.0, until - time.monotonic()))
        except subprocess.TimeoutExpired:
            return
