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
How a node process turns SIGINT and SIGTERM into one orderly stop.

A terminal's Ctrl-C reaches ``ros2 launch`` and its nodes, and ``ros2 launch`` forwards one more
SIGINT, so a node is signalled once, twice or more, at any moment, even while it is still
importing.  The defaults go wrong in three ways:

* Python's SIGINT handler raises ``KeyboardInterrupt`` wherever the main thread is, inside a
  timer callback too; the EventsExecutor (C++) logs it as FATAL and, when it surfaces in a
  C++ frame that cannot throw, the process aborts (``terminate called ...
  pybind11::error_already_set``, exit code -6);
* rclpy's own handlers shut the context down from a helper thread while a callback may be
  publishing on it (``[FATAL] Exception in 'timers' callback: publisher's context is invalid``);
* Python puts the default action back while the interpreter finalizes, so a second signal
  arriving at the end of the shutdown kills the process (exit code -2).

:class:`StopSignals` replaces all of that with one Python handler that only records the request
(it never raises).  The nodes' spin loop polls :attr:`StopSignals.requested` and tears down in
order on the main thread: node, executor, context.  After a stop request the signals are then
ignored until the process exits (:meth:`StopSignals.finish`).  This module imports nothing
heavy: the nodes' executables (:mod:`.executables`) install it before importing rclpy.

A Python handler runs only when the main thread gets back to Python code.  Should the main thread
ever stay blocked in native code (an executor wait that does not return), the stop request would
never be seen and ``ros2 launch`` would escalate to SIGTERM (ignored once a stop is under way)
and SIGKILL 10 s after SIGINT.  The executables therefore also arm :meth:`StopSignals.watch`:
the C-level part of Python's signal handling writes every signal to a pipe at once
(``signal.set_wakeup_fd``), and a watcher thread that reads it ends the process ``grace`` seconds
after the first stop signal if it has not ended by itself, printing every thread's Python stack
first (exit code 1: not a clean stop, and the stacks say where it hung).  Should the blocked main
thread also hold the GIL, the watcher thread could not run: the first stop request (the handler,
on the main thread) and the watcher, whichever runs first, therefore arm
:func:`faulthandler.dump_traceback_later`, whose native thread needs no GIL and does the same one
second later (its first line reads ``Timeout (0:00:09)!``).  A main thread that holds the GIL
from *before* the signal runs neither: the launcher then asks for the stacks with SIGUSR1 before
its SIGKILL (``kill -USR1 PID`` by hand under ``ros2 launch``).

Once the node has stopped, what is left can still hang in DDS with the GIL held (the node's
teardown, its participant's deletion): :func:`exit_later` arms a native timer that ends the
process with the node's exit code :data:`EXIT_DEADLINE` seconds later, well before the watcher.
"""

import ctypes
import faulthandler
import os
import signal
import sys
import threading
import time
from types import FrameType
from typing import Any
from typing import Callable
from typing import Dict
from typing import List
from typing import Optional

#: The signals that stop a node (rclpy's SignalHandlerOptions.ALL covers the same two).
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
#: environment variable: seconds :meth:`StopSignals.watch` allows after the first stop signal
STOP_GRACE = 'TP_STOP_GRACE'
#: its default: a loaded machine may need several seconds to stop a node cleanly, and ``ros2
#: launch`` sends SIGKILL 10 s after SIGINT (5 s to its SIGTERM, 5 s more to SIGKILL)
DEFAULT_STOP_GRACE = 8.0


class StopSignals:
    """
    Record SIGINT and SIGTERM as a stop request instead of raising ``KeyboardInterrupt``.

    Any number of signals may arrive, at any time: each one only sets :attr:`requested` and
    appends its number to :attr:`received`.  Handlers are installed from the main thread only
    (elsewhere :meth:`install` does nothing, as Python allows nothing else).

    :param on_stop: called at the first request (from the handler, on the main thread), e.g. to
        wake an executor; an exception it raises is ignored
    """

    _current: Optional['StopSignals'] = None

    def __init__(self, on_stop: Optional[Callable[[], None]] = None) -> None:
        self.received: List[int] = []
        self.on_stop = on_stop
        # a plain flag, no lock: the handler may run again inside itself (a second signal
        # between two bytecodes of the first), and a lock taken there would never be released
        self._requested = False
        self._saved: Dict[int, Any] = {}
        self._grace: Optional[float] = None   # set by watch()

    @classmethod
    def current(cls) -> Optional['StopSignals']:
        """Return the instance whose handlers are installed, if any."""
        return cls._current

    @property
    def requested(self) -> bool:
        """Tell whether a stop signal arrived (or :meth:`request` was called)."""
        return self._requested

    @property
    def watching(self) -> bool:
        """Whether :meth:`watch` armed the watcher: this process is a node's own."""
        return self._grace is not None

    @property
    def installed(self) -> bool:
        """Tell whether this instance's handlers are installed."""
        return StopSignals._current is self

    def request(self, signum: int = 0) -> None:
        """
        Ask for a stop, as a signal does (``signum`` 0: not a signal).

        Safe to re-enter: it takes no lock (``threading.Event.set`` does, and a second signal
        landing inside it deadlocked the main thread in a loaded CI run).
        """
        if signum:
            self.received.append(signum)
        first = not self._requested
        self._requested = True
        if first and self._grace is not None:
            _arm_backstop(self._grace)
        if first and self.on_stop is not None:
            try:
                self.on_stop()
            except Exception:  # noqa: B902 - a signal handler must never raise
                pass

    def _handler(self, signum: int, frame: Optional[FrameType]) -> None:
        self.request(signum)

    def install(self) -> 'StopSignals':
        """Install the handlers (again: over whatever native code put in their place)."""
        if threading.current_thread() is not threading.main_thread():
            return self
        if not self.installed:
            self._saved = {s: signal.getsignal(s) for s in STOP_SIGNALS}
            StopSignals._current = self
        for s in STOP_SIGNALS:
            signal.signal(s, self._handler)
        return self

    def restore(self) -> None:
        """Put back the handlers :meth:`install` found (``SIG_DFL`` for native ones)."""
        if not self.installed:
            return
        for s, handler in self._saved.items():
            signal.signal(s, signal.SIG_DFL if handler is None else handler)
        StopSignals._current = None

    def watch(self, grace: Optional[float] = None) -> bool:
        """
        End the process ``grace`` seconds after the first stop signal if it is still running.

        Call from the main thread after :meth:`install`, in a process of its own (never in a test
        runner: the watcher ends the whole process).  ``grace`` defaults to ``TP_STOP_GRACE``
        or :data:`DEFAULT_STOP_GRACE`; a value <= 0 disables the watcher.

        :returns: True when the watcher is armed
        """
        if grace is None:
            try:
                grace = float(os.environ.get(STOP_GRACE, DEFAULT_STOP_GRACE))
            except ValueError:
                grace = DEFAULT_STOP_GRACE
        if not grace > 0.0 or threading.current_thread() is not threading.main_thread():
            return False
        self._grace = grace
        read_end, write_end = os.pipe()
        os.set_blocking(write_end, False)
        signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
        threading.Thread(target=_watcher, args=(read_end, grace), name='stop-watchdog',
                         daemon=True).start()
        return True

    def finish(self) -> None:
        """
        End of the run: restore the handlers, or, after a stop request, ignore the signals.

        After a stop request the process is on its way out: later signals are ignored until it
        exits.  A Python handler would not do, because the interpreter puts the default action
        back while it finalizes (for every signal with a Python handler), and a signal arriving
        then would kill the process (exit code -2).  ``SIG_IGN`` is left alone.
        """
        if not self.requested:
            self.restore()
        elif self.installed:
            for s in STOP_SIGNALS:
                signal.signal(s, signal.SIG_IGN)
            StopSignals._current = None


_backstop_armed = False


def _arm_backstop(grace: float) -> None:
    """
    Arm, once, faulthandler's native thread: stacks and exit code 1 at ``grace`` + 1 s.

    It needs no GIL, which a blocked main thread may hold.  Both the handler (on the main thread,
    as soon as Python code runs there) and the watcher thread (as soon as it gets the GIL) arm
    it, whichever comes first: under load either may be late, and a main thread that blocks with
    the GIL right after its handler would keep the watcher from ever arming it.
    """
    global _backstop_armed
    if not _backstop_armed:
        _backstop_armed = True
        faulthandler.dump_traceback_later(grace + 1.0, exit=True)


def _watcher(read_end: int, grace: float) -> None:
    """Wait for a stop signal on the wakeup pipe, then ``grace`` seconds, then end the process."""
    while True:
        data = os.read(read_end, 64)
        if not data:
            return
        if any(b in STOP_SIGNALS for b in data):
            break
    _arm_backstop(grace)
    time.sleep(grace)
    sys.stderr.write(f'[stop_signals] the process did not end within {grace:g} s of the stop '
                     'signal: ending it now (exit code 1). Python stacks of every thread:\n')
    sys.stderr.flush()
    faulthandler.dump_traceback(file=sys.stderr, all_threads=True)
    os._exit(1)


#: seconds a node's teardown (:func:`~.common.run_node`) and its DDS participant's deletion
#: (:func:`~.executables.exit_process`) may each take before the process ends without them
EXIT_DEADLINE = 3.0


class _SigEvent(ctypes.Structure):
    """``struct sigevent`` (Linux, 64 bytes) with the ``SIGEV_THREAD`` members."""

    _fields_ = [('value', ctypes.c_void_p), ('signo', ctypes.c_int), ('notify', ctypes.c_int),
                ('function', ctypes.c_void_p), ('attribute', ctypes.c_void_p),
                ('pad', ctypes.c_int * 8)]


class _ITimerSpec(ctypes.Structure):
    _fields_ = [('interval_s', ctypes.c_long), ('interval_ns', ctypes.c_long),
                ('value_s', ctypes.c_long), ('value_ns', ctypes.c_long)]


_SIGEV_THREAD = 2


def exit_later(seconds: float, code: int) -> Optional[ctypes.c_void_p]:
    """
    Arm a POSIX timer that calls ``_exit(code)`` in a thread of its own after ``seconds``.

    The timer and its thread are the C library's (``timer_create`` with ``SIGEV_THREAD`` and
    ``_exit`` as the function, ``code`` as its argument): nothing of it needs Python's GIL.

    :returns: the timer, for :func:`cancel_exit`; None where the C library offers no such
        timer (the process then ends whenever the deletion does)
    """
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        event = _SigEvent(value=code, notify=_SIGEV_THREAD,
                          function=ctypes.cast(libc._exit, ctypes.c_void_p).value)
        timer = ctypes.c_void_p()
        if libc.timer_create(time.CLOCK_MONOTONIC, ctypes.byref(event), ctypes.byref(timer)):
            return None
        whole = int(seconds)
        spec = _ITimerSpec(0, 0, whole, int((seconds - whole) * 1e9))
        if libc.timer_settime(timer, 0, ctypes.byref(spec), None) != 0:
            libc.timer_delete(timer)
            return None
        return timer
    except (OSError, AttributeError):
        return None


def cancel_exit(timer: Optional[ctypes.c_void_p]) -> None:
    """Disarm and delete a timer of :func:`exit_later` (None: nothing to do)."""
    if timer is not None:
        ctypes.CDLL(None).timer_delete(timer)


__all__ = ['DEFAULT_STOP_GRACE', 'EXIT_DEADLINE', 'STOP_GRACE', 'STOP_SIGNALS', 'StopSignals',
           'cancel_exit', 'exit_later']
