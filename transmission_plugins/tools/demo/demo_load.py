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
Whether the machine kept up with the demo, and the demo's verdict: a busy machine or an error.

The demo watches, from its own process, what a busy machine does to a node set: the mock's
``actuator_states`` pausing for longer than the hardware interface's ``state_timeout`` (the
hardware interface then holds stale joints), ``joint_states`` missing cycles of
``update_rate``, the demo's own command loop running late, and on ``/diagnostics`` the mock
physics falling behind real time or the hardware interface overrunning its cycle.  A hold whose
joints missed their targets while such an event happened (from the start of its move to the
check) is put down to the machine; one without any is a tracking error: a transmission, a limit
or a gain (:func:`verdict`).
"""

import math
from typing import NamedTuple
from typing import Sequence

from transmission_plugins.runtime.cycle import CycleSettings

#: the exit status of a run whose missed holds all came while the machine was too busy
#: (``EX_TEMPFAIL`` of sysexits.h: a temporary failure, try again later)
BUSY_EXIT = 75
#: a real-time factor of the mock's physics below this is a busy machine
SLOW_PHYSICS = 0.9
#: a gap of this many periods between ``joint_states`` messages is missed cycles
MISSED_PERIODS = 3.0
#: how early before a window an event still counts (the diagnostics come once a second)
EVENT_SLACK = 1.0
#: what to do about a busy machine
ADVICE = ('run the demo again on an idle machine (close other programs; stop test runs, builds '
          'or simulations running beside it)')


class LoadEvent(NamedTuple):
    """One sign of a busy machine: when (steady clock, s), what, and how much."""

    start: float
    end: float
    kind: str
    size: float


class LoadMonitor:
    """
    The signs of a busy machine the demo sees (module docstring).

    :param settings: the hardware interface's cycle settings (its ``state_timeout`` and
        ``period``; <= 0 or None: not watched)
    :param command_period: the demo's command period (s)
    """

    def __init__(self, settings: CycleSettings, command_period: float) -> None:
        self.settings = settings
        self.command_period = float(command_period)
        self.events: list[LoadEvent] = []
        self._last: dict[str, float] = {}
        self._overruns: int | None = None
        self._watching = False

    def start(self, now: float) -> None:
        """Start watching (the scripted moves begin): gaps count from here."""
        self._watching = True
        self._last = {k: now for k in self._last}
        self._last['loop'] = now

    def _gap(self, key: str, now: float, limit: float, kind: str) -> None:
        last = self._last.get(key)
        self._last[key] = now
        if self._watching and last is not None and limit > 0.0 and now - last > limit:
            self.events.append(LoadEvent(last, now, kind, now - last))

    def actuator_states(self, now: float) -> None:
        """Take the arrival of an ``actuator_states`` message."""
        self._gap('actuator_states', now, self.settings.state_timeout, 'stale')

    def joint_states(self, now: float) -> None:
        """Take the arrival of a ``joint_states`` message."""
        period = self.settings.period
        limit = MISSED_PERIODS * period if period else 0.0
        self._gap('joint_states', now, limit, 'missed')

    def loop(self, now: float) -> None:
        """Take one turn of the demo's command loop."""
        self._gap('loop', now, MISSED_PERIODS * self.command_period, 'late')

    def physics(self, factor: float, now: float) -> None:
        """Take the mock's real-time factor from ``/diagnostics``."""
        if self._watching and math.isfinite(factor) and factor < SLOW_PHYSICS:
            self.events.append(LoadEvent(now - EVENT_SLACK, now, 'slow', factor))

    def overruns(self, count: int, now: float) -> None:
        """Take the hardware interface's ``overruns`` count from ``/diagnostics``."""
        if self._watching and self._overruns is not None and count > self._overruns:
            self.events.append(LoadEvent(now - EVENT_SLACK, now, 'overrun',
                                         count - self._overruns))
        self._overruns = count

    def busy_between(self, start: float, end: float) -> bool:
        """Return True when an event overlaps ``[start, end]`` (steady clock)."""
        return any(e.end >= start and e.start <= end for e in self.events)

    def describe(self) -> str:
        """Return what the machine did, in words ('' when it kept up)."""
        words = []
        by_kind: dict[str, list[LoadEvent]] = {}
        for e in self.events:
            by_kind.setdefault(e.kind, []).append(e)
        stale = by_kind.get('stale', [])
        if stale:
            words.append(f"the mock's actuator_states paused {_times(len(stale))} for up to "
                         f'{max(e.size for e in stale):.2f} s (state_timeout '
                         f'{self.settings.state_timeout:g} s: the hardware interface held stale '
                         'joints)')
        missed = by_kind.get('missed', [])
        if missed:   # only watched with a period
            period = self.settings.period or 1.0
            cycles = sum(max(round(e.size / period) - 1, 1) for e in missed)
            words.append(f'joint_states missed {cycles} {_plural(cycles, "cycle")} of '
                         f'{self.settings.update_rate:g} Hz')
        overruns = by_kind.get('overrun', [])
        if overruns:
            n = int(sum(e.size for e in overruns))
            words.append(f'the hardware interface overran its cycle {_times(n)}')
        slow = by_kind.get('slow', [])
        if slow:
            words.append(f"the mock's physics fell behind real time (real-time factor down to "
                         f'{min(e.size for e in slow):.2f})')
        late = by_kind.get('late', [])
        if late:
            words.append(f"the demo's own commands were up to {max(e.size for e in late):.2f} "
                         's late')
        return '; '.join(words)


class Verdict(NamedTuple):
    """The demo's exit status and its closing lines."""

    code: int
    lines: list[str]


def verdict(checks: Sequence[dict[str, float]], windows: Sequence[tuple[float, float]],
            tolerance: dict[str, float], load: LoadMonitor) -> Verdict:
    """
    Judge the holds: 0 all on target, :data:`BUSY_EXIT` missed only on a busy machine, else 1.

    :param checks: the tracking error of each joint at the end of each hold
    :param windows: each hold's segment, from the start of its move to the check (steady
        clock)
    :param tolerance: each joint's tolerance
    """
    missed = [k for k, errors in enumerate(checks)
              if any(not e <= tolerance[j] for j, e in errors.items())]
    busy = [k for k in missed if load.busy_between(*windows[k])]
    described = load.describe()
    lines = []
    if not checks:
        return Verdict(1, ['demo: no hold completed, nothing to judge'])
    if not missed:
        if described:
            lines.append(f'demo: the machine was busy at times ({described}); every hold was '
                         'on target all the same')
        return Verdict(0, lines + ['demo: joints tracked the targets'])
    if len(busy) == len(missed):
        return Verdict(BUSY_EXIT, [
            f'demo: the machine was too busy for the demo: {described}',
            f'demo: {len(missed)} of {len(checks)} holds missed their targets, each while the '
            'machine could not keep up: that is not a transmission error; '
            f'{ADVICE} (exit status {BUSY_EXIT})'])
    if busy:
        lines.append(f'demo: {len(busy)} of the {len(missed)} missed holds came while the '
                     f'machine was busy ({described}); the others did not')
    return Verdict(1, lines + ['demo: joints did NOT track the targets'])


def _plural(n: int, word: str) -> str:
    return word if n == 1 else f'{word}s'


def _times(n: int) -> str:
    return 'once' if n == 1 else f'{n} times'
