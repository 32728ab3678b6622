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

A bar is drawn on standard error (``-`` outputs on standard output stay clean) only when it is a
terminal; in a pipe, a log file or CI it is silent.
"""

import sys
from typing import Any


def is_terminal(stream: Any) -> bool:
    """Return True when ``stream`` is an interactive terminal."""
    isatty = getattr(stream, 'isatty', None)
    try:
        return bool(isatty()) if isatty is not None else False
    except ValueError:  # closed stream
        return False


def progress_bar(total: int | None, unit: str, description: str, scale: bool = False) -> Any:
    """
    Return a ``tqdm`` bar over ``total`` units, disabled off a terminal (advance: ``update``).

    :param total: units expected (None when unknown: the bar counts without a percentage)
    :param scale: ``True`` to show large numbers with k/M prefixes (bytes)
    """
    from tqdm import tqdm
    return tqdm(total=total, unit=unit, desc=description, file=sys.stderr, unit_scale=scale,
                unit_divisor=1024 if scale else 1000, dynamic_ncols=True, leave=True,
                disable=not is_terminal(sys.stderr))
