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
Progress bars for the long operations of the command line, drawn by ``tqdm``.

A bar is drawn on ``stream`` (standard error by default, so that ``-`` outputs on standard
output stay clean) only when that stream is a terminal; in a pipe, a log file or CI it is
silent, and the command's one-line summary is all that is printed.
"""

import sys
from typing import Any
from typing import Optional
from typing import TextIO


def is_terminal(stream: Any) -> bool:
    """Return True when ``stream`` is an interactive terminal."""
    isatty = getattr(stream, 'isatty', None)
    try:
        return bool(isatty()) if isatty is not None else False
    except ValueError:  # closed stream
        return False


class Progress:
    """
    A progress bar over ``total`` units (messages, rows, bytes), quiet off a terminal.

    Use as a context manager; call it with the number of units done since the last call.

    :param total: units expected (None when unknown: the bar counts without a percentage)
    :param unit: ``'msg'``, ``'B'``...
    :param description: the text in front of the bar
    :param stream: where to draw (default standard error)
    :param scale: ``True`` to show large numbers with k/M prefixes (bytes)
    """

    def __init__(self, total: Optional[int], unit: str, description: str,
                 stream: Optional[TextIO] = None, scale: bool = False) -> None:
        self.stream = sys.stderr if stream is None else stream
        self.enabled = is_terminal(self.stream)
        self._bar: Any = None
        if self.enabled:
            from tqdm import tqdm
            self._bar = tqdm(total=total, unit=unit, desc=description, file=self.stream,
                             unit_scale=scale, unit_divisor=1024 if scale else 1000,
                             dynamic_ncols=True, leave=True)

    def __call__(self, done: int) -> None:
        """Advance by ``done`` units."""
        if self._bar is not None:
            self._bar.update(done)

    def close(self) -> None:
        """End the bar (its line stays on the terminal)."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def __enter__(self) -> 'Progress':
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
