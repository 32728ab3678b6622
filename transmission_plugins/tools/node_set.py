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
only and the launcher decides how the nodes stop: SIGINT to each, SIGTERM to one still running
5 s later, and 10 s after SIGINT SIGKILL, a second after a SIGUSR1 (the nodes' executables
print their threads' stacks: where it hung).  A node that exits ends the whole set.

The groups stay in the launcher's session, as ``ros2 launch`` keeps its nodes in its own.  A
session each (``setsid``) would also put each node in a CPU scheduling group of its own (Linux
autogroup, enabled on most distributions), and on a loaded machine nodes in such groups have
been starved for seconds while they stopped (up to 10.8 s from SIGINT to exit, against at most
0.41 s in the launcher's session: doc/launch.md).  Reading the terminal is not theirs to do
(their standard input is ``/dev/null``), and SIGTTOU is ignored (inherited) so that their output
reaches the terminal even with ``stty tostop``, as it did when they had no terminal at all.
"""

import os
import signal
import subprocess
import sys
import threading
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
        """Start every process in a process group of its own, in this session (see the module)."""
        out = subprocess.DEVNULL if self.quiet else self.log
        _let_background_groups_write()
        group: Dict[str, Any] = {'process_group': 0}
        if sys.version_info < (3, 11):   # Python 3.10 (ROS 2 Humble): no process_group yet
            group = {'preexec_fn': os.setpgrp}
        for name, argv in self.commands:
            p = subprocess.Popen(argv, env=self.env, stdin=subprocess.DEVNULL, stdout=out,
                                 stderr=out, **group)
            self.processes.append((name, p))

    def dead(self) -> List[Tuple[str, int]]:
        """Return (name, exit code) of the processes that have exited."""
        return [(n, p.returncode) for n, p in self.processes if p.poll() is not None]

    def stop(self, timeout: float = 10.0) -> List[Tuple[str, int]]:
        """
        Stop every live process: SIGINT, SIGTERM after half of ``timeout``, SIGKILL at its end.

        The same escalation as ``ros2 launch`` (SIGINT, SIGTERM 5 s later, SIGKILL 5 s after
        that). The nodes stop on SIGINT or SIGTERM alike, and ignore the later one while they
        stop; their own stop watchdog (8 s from the first signal) prints their stacks and ends
        them before the SIGKILL. A node that is still there when SIGTERM is due is named with
        the state of SIGINT in its process (pending, blocked, ignored, caught), and one still
        there :data:`STACKS_BEFORE_KILL` s (at most a quarter of ``timeout``) before the SIGKILL
        gets SIGUSR1 (the nodes' executables print their threads' stacks; a process without
        such a handler ends there, code -10).

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
            print(f'[launcher] {name} still runs {timeout / 2:g} s after SIGINT '
                  f'({sigint_state(p.pid)}; {process_state(p.pid)}): SIGTERM',
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
        :returns: 0 after a signal when every node stopped cleanly, else 1 (a node exited by
            itself, or stopped with a non-zero code)
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


def _wait_all(processes: Sequence[Tuple[str, 'subprocess.Popen[bytes]']], until: float) -> None:
    """Wait until every process has exited or the monotonic clock reaches ``until``."""
    for _, p in processes:
        try:
            p.wait(max(0.0, until - time.monotonic()))
        except subprocess.TimeoutExpired:
            return


def sigint_state(pid: int) -> str:
    """
    Return how SIGINT stands in process ``pid`` (Linux ``/proc``), e.g. ``SIGINT caught``.

    Pending (for the process or a thread), blocked (by every thread or by some), ignored,
    caught (a handler) or default: what to look at when a process does not react to it.
    """
    bit = 1 << (signal.SIGINT - 1)
    words = []
    try:
        with open(f'/proc/{pid}/status') as f:
            fields = dict(line.split(':', 1) for line in f if ':' in line)
        masks = {k: int(fields[k].strip(), 16) for k in ('ShdPnd', 'SigIgn', 'SigCgt')}
        threads = []
        for tid in os.listdir(f'/proc/{pid}/task'):
            with open(f'/proc/{pid}/task/{tid}/status') as f:
                t = dict(line.split(':', 1) for line in f if ':' in line)
            threads.append((int(t['SigPnd'].strip(), 16), int(t['SigBlk'].strip(), 16)))
    except (OSError, KeyError, ValueError):
        return 'SIGINT state unknown'
    if masks['ShdPnd'] & bit or any(pnd & bit for pnd, _ in threads):
        words.append('pending')
    blocked = sum(1 for _, blk in threads if blk & bit)
    if blocked:
        words.append('blocked by every thread' if blocked == len(threads)
                     else f'blocked by {blocked} of {len(threads)} threads')
    words.append('ignored' if masks['SigIgn'] & bit else
                 'caught' if masks['SigCgt'] & bit else 'default action')
    return 'SIGINT ' + ', '.join(words)


def process_state(pid: int) -> str:
    """
    Return the scheduler state of process ``pid`` and its threads (Linux ``/proc``).

    E.g. ``state S, threads 18 S 2 R, main thread in syscall 7``: a process whose threads all
    wait in the kernel (``D``: uninterruptible, ``T``: stopped) takes no signal.
    """
    try:
        with open(f'/proc/{pid}/stat') as f:
            state = f.read().rsplit(')', 1)[1].split()[0]
        counts: Dict[str, int] = {}
        for tid in os.listdir(f'/proc/{pid}/task'):
            with open(f'/proc/{pid}/task/{tid}/stat') as f:
                s = f.read().rsplit(')', 1)[1].split()[0]
            counts[s] = counts.get(s, 0) + 1
    except (OSError, IndexError):
        return 'state unknown'
    threads = ' '.join(f'{n} {s}' for s, n in sorted(counts.items()))
    return (f'state {state}, threads {threads}, main thread {_syscall(pid)}'
            f'{_kernel_stack(pid)}')


def _kernel_stack(pid: int, depth: int = 4) -> str:
    """Return `` (kernel: f < g < ...)``, the main thread's innermost kernel frames, or ''."""
    try:
        with open(f'/proc/{pid}/stack') as f:
            frames = [line.split()[-1].split('+')[0] for line in f if line.strip()]
    except (OSError, IndexError):
        return ''
    return f' (kernel: {" < ".join(frames[:depth])})' if frames else ''


def _syscall(pid: int) -> str:
    """Return where the main thread of ``pid`` is: ``running`` or ``in syscall N``."""
    try:
        with open(f'/proc/{pid}/syscall') as f:
            words = f.read().split()
    except OSError:   # not ours to read (ptrace rules), or gone
        return 'unknown'
    if not words or not words[0].lstrip('-').isdigit():
        return ' '.join(words[:1]) or 'unknown'
    return f'in syscall {words[0]}'
