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

r"""
Running shell commands the way a user does, in a terminal or in the background.

:class:`Command` starts one command line with ``bash`` (as typed, quoting and all), either on a
pseudo-terminal of its own (Ctrl-C is the byte ``\x03``: the terminal signals the whole
foreground process group, like a real one) or with pipes.  A thread keeps reading its output,
so a chatty node never blocks on a full terminal.  :meth:`Command.family` remembers every
process it spawned, to check afterwards that none is left behind.
"""

import fcntl
import os
import re
import signal
import subprocess
import termios
import threading
import time
from typing import Sequence

import psutil

#: what must never appear when a node stops
BAD_LINES = re.compile(r'Traceback|FATAL|KeyboardInterrupt|terminate called|process has died|'
                       r'failed to terminate|exit code -\d|Segmentation|core dumped')
#: the lines a node set prints once it runs (hardware interface active, mock simulating)
READY = (']: active', 'simulating ')


def _default_sigint() -> None:
    """
    Give the child SIGINT's default action, as a terminal's foreground job has.

    A test runner started as a shell's background job ignores SIGINT, and children inherit
    that; ``ros2 launch`` only sees a SIGINT through Python's default handler, which is not
    installed when the signal is ignored at start.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _foreground_job() -> None:
    """Make the pseudo-terminal the child's controlling terminal; SIGINT as by default."""
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)
    _default_sigint()


class Command:
    """
    One command line run by ``bash -c``.

    :param line: the command as a user types it
    :param env: its environment
    :param cwd: its working directory
    :param terminal: run it on a pseudo-terminal of its own (session leader, controlling
        terminal), else with pipes in a session of its own
    """

    def __init__(self, line: str, env: dict[str, str], cwd: str, terminal: bool = True) -> None:
        self.line = line
        self._chunks: list[bytes] = []
        self._lock = threading.Lock()
        self._seen: dict[int, psutil.Process] = {}
        self.terminal = terminal
        argv = ['bash', '-c', line]
        if terminal:
            master, slave = os.openpty()
            self._fd = master
            self.proc = subprocess.Popen(
                argv, env=env, cwd=cwd, stdin=slave, stdout=slave, stderr=slave,
                start_new_session=True, close_fds=True, preexec_fn=_foreground_job)
            os.close(slave)
        else:
            self.proc = subprocess.Popen(argv, env=env, cwd=cwd, stdin=subprocess.DEVNULL,
                                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                         start_new_session=True, preexec_fn=_default_sigint)
            self._fd = self.proc.stdout.fileno()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.family()

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self._fd, 65536)
            except OSError:   # EIO: every process holding the terminal has exited
                data = b''
            if not data:
                return
            with self._lock:
                self._chunks.append(data)

    @property
    def output(self) -> str:
        """Return everything the command wrote so far (terminal line ends normalised)."""
        with self._lock:
            text = b''.join(self._chunks).decode(errors='replace')
        return text.replace('\r\n', '\n')

    def wait_for(self, texts: Sequence[str], timeout: float = 60.0) -> str:
        """Wait until every text of ``texts`` appeared in the output; return the output."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            out = self.output
            if all(t in out for t in texts):
                self.family()
                return out
            if self.proc.poll() is not None:
                time.sleep(0.2)   # the last output
                break
            time.sleep(0.05)
        raise AssertionError(f'{self.line!r}: {texts} not seen within {timeout:.0f} s '
                             f'(exit code {self.proc.poll()}); output:\n{self.output}')

    def family(self) -> list[int]:
        """Record and return the pids of the command and all its descendants, alive now."""
        try:
            root = psutil.Process(self.proc.pid)
            for p in [root] + root.children(recursive=True):
                self._seen.setdefault(p.pid, p)
        except psutil.NoSuchProcess:
            pass
        return sorted(self._seen)

    def alive(self) -> list[str]:
        """Return the processes of :meth:`family` that still run, described."""
        left = []
        for pid, p in self._seen.items():
            try:
                if p.is_running() and p.status() != psutil.STATUS_ZOMBIE:
                    left.append(f'{pid} {" ".join(p.cmdline())[:120]}')
            except psutil.NoSuchProcess:
                pass
        return left

    def ctrl_c(self) -> None:
        """Type Ctrl-C on the command's terminal."""
        assert self.terminal, 'Ctrl-C needs a terminal'
        os.write(self._fd, b'\x03')

    def signal(self, signum: int, group: bool = False) -> None:
        """Send ``signum`` to the command's process (or to its whole process group)."""
        if group:
            os.killpg(self.proc.pid, signum)
        else:
            self.proc.send_signal(signum)

    def wait(self, timeout: float) -> int | None:
        """Return the exit code, or None when it still runs after ``timeout`` seconds."""
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def wait_gone(self, timeout: float) -> list[str]:
        """Wait until no process of :meth:`family` runs; return those still running."""
        deadline = time.monotonic() + timeout
        while self.alive() and time.monotonic() < deadline:
            time.sleep(0.05)
        return self.alive()

    def kill(self) -> None:
        """End every process of :meth:`family` still running (SIGKILL), and reap the command."""
        for pid, p in self._seen.items():
            try:
                if p.is_running():
                    p.send_signal(signal.SIGKILL)
            except psutil.NoSuchProcess:
                pass
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            pass
        self._reader.join(2.0)
        if self.terminal:
            try:
                os.close(self._fd)
            except OSError:
                pass

    def launch_log(self) -> str:
        """
        Return ``launch.log`` of a ``ros2 launch`` command: every line it logged.

        Its screen output can miss lines: each Ctrl-C flushes what the terminal has not yet
        delivered (POSIX, unless ``NOFLSH``), in a user's terminal as on this one.
        """
        found = re.search(r'All log files can be found below (\S+)', self.output)
        assert found, f'no log directory in the output of {self.line!r}:\n{self.output}'
        with open(os.path.join(found.group(1), 'launch.log')) as f:
            return f.read()

    def bad_lines(self) -> list[str]:
        """Return the output lines that show an unclean stop."""
        return [line for line in self.output.splitlines() if BAD_LINES.search(line)]


def run(line: str, env: dict[str, str], cwd: str, timeout: float = 60.0,
        check: bool = True) -> subprocess.CompletedProcess:
    """Run a short command line with ``bash -c`` and return its result (output merged)."""
    result = subprocess.run(['bash', '-c', line], env=env, cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, timeout=timeout)
    if check:
        assert result.returncode == 0, f'{line!r} exited {result.returncode}:\n{result.stdout}'
    return result


#: what the ros2 command says while discovery has not found a node or topic yet
NOT_YET = re.compile(r'Node not found|not found|does not appear to be published yet|'
                     r'Could not determine the type')


def ros2(line, user, expect=None, timeout=30.0):
    """
    Run a short ``ros2`` command and check that ``expect`` (a regex) is in its output.

    It is run again while discovery has not found the node yet (a moment on a loaded machine),
    and, for a read-only command (get, echo, list, describe), while ``expect`` is not there yet
    or when the ``ros2`` process itself died of a signal: the upstream command line crashes now
    and then while it shuts its own Fast DDS participant down (``ros2 topic echo --once`` exited
    -11 after printing the message it was asked for), which says nothing about the node read.
    """
    read_only = not re.match(r'ros2 (lifecycle|param) set ', line)
    deadline = time.monotonic() + timeout
    while True:
        result = run(line, user.env, str(user.path), timeout=timeout, check=False)
        found = expect is None or re.search(expect, result.stdout, re.M)
        if result.returncode == 0 and found:
            return result.stdout
        again = NOT_YET.search(result.stdout) or (read_only and result.returncode <= 0)
        if not again or time.monotonic() > deadline:
            raise AssertionError(f'{line!r} exited {result.returncode}, expected {expect!r}:\n'
                                 f'{result.stdout}')
        time.sleep(0.5)


def start(line, user, ready=READY, timeout=90):
    """Start a long-running command on a terminal of its own; wait until it is ready."""
    cmd = Command(line, user.env, str(user.path))
    try:
        cmd.wait_for(ready, timeout)
    except AssertionError:
        cmd.kill()
        raise
    return cmd


def stop(cmd):
    """Ctrl-C on its terminal: exit 0, nothing unclean printed, no process left."""
    try:
        cmd.family()
        cmd.ctrl_c()
        code = cmd.wait(15)
        assert code == 0, f'{cmd.line!r} exit code {code}:\n{cmd.output}'
        assert cmd.bad_lines() == [], cmd.output
        assert cmd.wait_gone(10) == []
    finally:
        cmd.kill()


def hz(topic_hz_line, user):
    """Run ``ros2 topic hz`` until it printed three averages; Ctrl-C it; return the last rate."""
    cmd = Command(topic_hz_line, user.env, str(user.path))
    try:
        deadline = time.monotonic() + 60
        while len(re.findall(r'average rate: ([\d.]+)', cmd.output)) < 3:
            assert time.monotonic() < deadline, cmd.output
            time.sleep(0.2)
        cmd.ctrl_c()
        cmd.wait(10)
        return float(re.findall(r'average rate: ([\d.]+)', cmd.output)[-1])
    finally:
        cmd.kill()
