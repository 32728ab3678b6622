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

Each node runs in a process group of its own, so that a terminal's Ctrl-C reaches the launcher
only and the launcher decides how the nodes stop: SIGINT to each, then, to one still running
after the timeout, SIGUSR1 (the nodes' executables print their threads' stacks: where it hung)
and SIGKILL a second later.  A node that exits ends the whole set.
"""

import signal
import subprocess
import sys
import time
from typing import Any
from typing import Dict
from typing import List
from typing import Optional
from typing import Sequence
from typing import Tuple

#: seconds between the SIGUSR1 that asks a node which has not stopped for its stacks and SIGKILL
STACKS_BEFORE_KILL = 1.0


class NodeSet:
    """
    Start node processes, watch them, stop them together.

    :param commands: (name, argv) per process
    :param env: environment of the children (default: this one)
    :param quiet: discard the children's output
    :param log: a file that receives the children's output (instead of this terminal)
    """

    def __init__(self, commands: Sequence[Tuple[str, List[str]]],
                 env: Optional[Dict[str, str]] = None, quiet: bool = False,
                 log: Any = None) -> None:
        self.commands = list(commands)
        self.env = env
        self.quiet = quiet
        self.log = log
        self.processes: List[Tuple[str, subprocess.Popen[bytes]]] = []

    def start(self) -> None:
        """Start every process, each in its own process group (Ctrl-C is forwarded)."""
        out = subprocess.DEVNULL if self.quiet else self.log
        for name, argv in self.commands:
            p = subprocess.Popen(argv, env=self.env, stdout=out, stderr=out,
                                 start_new_session=True)
            self.processes.append((name, p))

    def dead(self) -> List[Tuple[str, int]]:
        """Return (name, exit code) of the processes that have exited."""
        return [(n, p.returncode) for n, p in self.processes if p.poll() is not None]

    def stop(self, timeout: float = 10.0) -> List[Tuple[str, int]]:
        """
        SIGINT every live process; SIGUSR1, then SIGKILL, what still runs ``timeout`` s later.

        The default is ``ros2 launch``'s (5 s to SIGTERM, 5 s more to SIGKILL; the nodes ignore
        SIGTERM once stopping), longer than the nodes' own stop watchdog (8 s): a node stuck in
        its stop prints its stacks before it is killed.  SIGUSR1 goes :data:`STACKS_BEFORE_KILL`
        s (at most a quarter of ``timeout``) before the SIGKILL, for a node whose watchdog could
        not run (its main thread holding the GIL since before the signal); a process without
        such a handler ends there (code -10).

        :returns: (name, exit code) of the processes it stopped that did not stop cleanly
            (code not 0); each is also reported on stderr
        """
        running = [(n, p) for n, p in self.processes if p.poll() is None]
        for _, p in running:
            try:
                p.send_signal(signal.SIGINT)
            except ProcessLookupError:
                pass
        stacks = min(STACKS_BEFORE_KILL, timeout / 4)
        deadline = time.monotonic() + timeout - stacks
        for name, p in self.processes:
            try:
                p.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
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
        try:
            p.send_signal(signal.SIGUSR1)
            p.wait(wait)
        except (ProcessLookupError, subprocess.TimeoutExpired):
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
        :returns: 0 after a signal when every node stopped cleanly, else 1 (a node exited by
            itself, or stopped with a non-zero code)
        """
        interrupted = False

        def on_signal(signum: int, frame: Any) -> None:
            nonlocal interrupted
            interrupted = True

        # SIGHUP too: the nodes run in sessions of their own and would outlive a closed terminal
        old = {s: signal.signal(s, on_signal)
               for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
        code = 0
        try:
            while not interrupted:
                gone = self.dead()
                if gone:
                    for name, exit_code in gone:
                        print(f'[launcher] {name} exited with code {exit_code}; stopping the '
                              'others', file=sys.stderr, flush=True)
                    code = 1
                    break
                time.sleep(0.1)
        finally:
            if self.stop():
                code = 1
            for s, h in old.items():
                signal.signal(s, h if after is None else after)
        return code
