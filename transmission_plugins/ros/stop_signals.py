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
SIGINT and SIGTERM as one stop request: recorded, never raised.

A terminal's Ctrl-C reaches ``ros2 launch`` and its nodes, and ``ros2 launch`` forwards one more
SIGINT, so a node is signalled once, twice or more, at any moment, even while it is still
importing.  Python's default SIGINT handler raises ``KeyboardInterrupt`` wherever the main thread
is (inside a callback too), and rclpy's own handlers shut the context down from a helper thread
while a callback may be publishing on it.

So the nodes install one small handler instead (:class:`StopRequest`, before importing rclpy):
it only records the request, and the spin loop (:func:`~.common.run_node`) tears down on the
main thread.  Later SIGINT and SIGTERM are ignored: Python's finalization would otherwise put the
default action back, and a second Ctrl-C would kill the process.  This module imports nothing
heavy.
"""

import signal
import threading
from types import FrameType
from typing import Optional

#: The signals that stop a node (rclpy's ``SignalHandlerOptions.ALL`` covers the same two).
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class StopRequest:
    """
    Record SIGINT and SIGTERM as a stop request instead of raising ``KeyboardInterrupt``.

    Each signal only sets :attr:`requested` and appends its number to :attr:`received`; the
    handler takes no lock and raises nothing, so a signal arriving inside it is harmless.
    Handlers can only be installed from the main thread (Python's rule): elsewhere
    :meth:`install` does nothing.
    """

    _installed: Optional['StopRequest'] = None

    def __init__(self) -> None:
        self.requested = False
        self.received: list[int] = []

    @classmethod
    def installed(cls) -> Optional['StopRequest']:
        """Return the instance whose handler is installed in this process, if any."""
        return cls._installed

    def install(self) -> 'StopRequest':
        """Install the handler for SIGINT and SIGTERM (main thread only); return self."""
        if threading.current_thread() is threading.main_thread():
            for s in STOP_SIGNALS:
                signal.signal(s, self._handler)
            StopRequest._installed = self
        return self

    def _handler(self, signum: int, frame: FrameType | None) -> None:
        self.received.append(signum)
        self.requested = True

    def finish(self) -> None:
        """
        End of a run: after a stop request ignore later signals, else restore the defaults.

        ``SIG_IGN`` survives Python's finalization, which resets the signals that have a Python
        handler to their default action (a Ctrl-C then would end the process with -2).
        """
        if threading.current_thread() is not threading.main_thread():
            return
        for s in STOP_SIGNALS:
            signal.signal(s, signal.SIG_IGN if self.requested else signal.default_int_handler
                          if s == signal.SIGINT else signal.SIG_DFL)
        if StopRequest._installed is self:
            StopRequest._installed = None


__all__ = ['STOP_SIGNALS', 'StopRequest']
