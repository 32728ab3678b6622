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
Cycle timing for /diagnostics: work time per cycle (mean, p99, max), overruns and periodicity.

Periodicity follows ros2_control's controller manager: the rate of each timer cycle, ``1 /
(start - previous start)``, summarised over the cycles since the previous summary.
"""


import numpy as np

#: Cycle times kept for the percentile (the oldest half is dropped when full).
WINDOW = 4096


class CycleTimer:
    """
    Account the cycles of a fixed-rate loop.

    An overrun is a cycle whose work took longer than the period, or that started more than one
    and a half periods after the previous one (a missed deadline).
    """

    def __init__(self) -> None:
        #: the loop's period in seconds (None: no overrun check)
        self.period: float | None = None
        self.cycles = 0
        #: the cycles that were not the timer's (event-driven updates)
        self.events = 0
        self.overruns = 0
        self.max_cycle_time = 0.0
        self.cycle_time_sum = 0.0
        self._times: list[float] = []
        self._last_start: float | None = None
        #: intervals between cycle starts since the last :meth:`periodicity`
        self._intervals: list[float] = []

    def record(self, start: float, end: float, periodic: bool = True) -> None:
        """
        Account one cycle that started at ``start`` and finished at ``end`` (steady clock).

        :param periodic: a tick of the timer; False for an event-driven update, which counts
            in the work times and as an overrun when it outlasts the period, not in the
            periodicity
        """
        self.cycles += 1
        dt = max(0.0, end - start)
        self.cycle_time_sum += dt
        self.max_cycle_time = max(self.max_cycle_time, dt)
        self._times.append(dt)
        if len(self._times) > WINDOW:
            del self._times[:WINDOW // 2]
        if not periodic:
            self.events += 1
            if self.period and dt > self.period:
                self.overruns += 1
            return
        if self._last_start is not None:
            self._intervals.append(start - self._last_start)
            if len(self._intervals) > WINDOW:
                del self._intervals[:WINDOW // 2]
        if self.period:
            late = self._last_start is not None and start - self._last_start > 1.5 * self.period
            if dt > self.period or late:
                self.overruns += 1
        self._last_start = start

    def periodicity(self) -> dict[str, float]:
        """
        Return the periodicity since the last call (module docstring) and start a new window.

        :returns: ``average``, ``standard_deviation``, ``min``, ``max`` (Hz) and ``achieved``
            (Hz), all 0 when fewer than two cycles ran in the window
        """
        dt = np.asarray([x for x in self._intervals if x > 0.0])
        self._intervals = []
        if not dt.size:
            return dict.fromkeys(('average', 'standard_deviation', 'min', 'max', 'achieved'),
                                 0.0)
        rates = 1.0 / dt
        return {'average': float(rates.mean()), 'standard_deviation': float(rates.std()),
                'min': float(rates.min()), 'max': float(rates.max()),
                'achieved': float(dt.size / dt.sum())}

    def mean(self) -> float:
        """Return the mean work time per cycle in seconds (0 before the first cycle)."""
        return self.cycle_time_sum / self.cycles if self.cycles else 0.0

    def p99(self) -> float:
        """Return the 99th percentile of the recent work times in seconds."""
        return float(np.percentile(self._times, 99)) if self._times else 0.0
