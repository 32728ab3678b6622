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
What the interface nodes log, rate-limited, without a logger call per event.

A logger call costs a lot more than a comparison, so a flood of rejected messages must not mean
a logger call per message.  :class:`Reports` decides with one steady-clock comparison whether a
line is due; the node logs only the lines it returns.  Each kind of line (dropped messages,
stale joints, a silent input, a failed cycle, a missing ``/clock``) has its own interval, so
one cannot starve another.  A normal start logs no warning: joints that become known are not
news.  Joints stale for :data:`STALE_PERSIST` are a warning, and their return an info line;
shorter stale episodes (a loaded machine, a slow driver) are summarised, the summaries further
and further apart.  No input state at all for :data:`NO_STATE_AFTER` after activation is a
warning (the wrong topic); commands with NaN (ros2_control's "no command") are one line, then a
summary a minute.
"""

import math
import time
from typing import Callable
from typing import Sequence
from typing import TYPE_CHECKING

import numpy as np

from transmission_plugins.runtime.messages import DropCounts
from transmission_plugins.runtime.messages import FIELDS

if TYPE_CHECKING:
    from transmission_plugins.runtime.cycle import InterfaceCycle

#: Seconds between two lines of one kind.
INTERVAL = 1.0
#: Seconds between two lines about stale joints, and the first interval between two summaries of
#: brief stale episodes (a loaded machine may flap a joint; its diagnostics show every change,
#: the log a summary)
STALE_INTERVAL = 5.0
#: Seconds a stale state lasts before it is a warning of its own (shorter: a brief episode)
STALE_PERSIST = 1.0
#: The longest interval between two summaries of brief stale episodes; after as long without
#: one, the intervals start again from :data:`STALE_INTERVAL`
STALE_MAX_INTERVAL = 60.0
#: Seconds after activation without any input state before a warning says so, and between two
#: such warnings
NO_STATE_AFTER = 3.0
NO_STATE_INTERVAL = 30.0
#: Seconds between two summaries of dropped commands with NaN or infinity
NON_FINITE_INTERVAL = 60.0
#: Seconds between two "no /clock" lines
CLOCK_INTERVAL = 60.0


class Reports:
    """
    Rate-limited log lines of a hardware or simulation interface.

    :param clock: steady clock in seconds
    :param interval: seconds between two lines of one kind (stale joints: at least
        :data:`STALE_INTERVAL`)
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic,
                 interval: float = INTERVAL) -> None:
        self.clock = clock
        self.interval = interval
        self._next: dict[str, float] = {}
        self._seen = 0
        #: the targets stale now, and since when (None: none)
        self._stale_names: tuple[str, ...] = ()
        self._stale_since: float | None = None
        #: the stale targets of the last warning (None: none warned of, or fresh again since)
        self._warned: tuple[str, ...] | None = None
        #: brief stale episodes since the last summary, the targets they made stale, when the
        #: last one ended, and the interval before the next summary
        self._brief = 0
        self._brief_names: dict[str, None] = {}
        #: the targets stale at some time in the current episode
        self._episode_names: dict[str, None] = {}
        self._brief_end = -math.inf
        self._brief_interval = STALE_INTERVAL
        #: per topic: the NaN drops counted at the last line and when it was written
        self._non_finite: dict[str, tuple[int, float]] = {}
        #: the activation the silent-input warning is about, and whether a state came since
        self._active_since: float | None = None
        self._state_seen = False
        #: per motor, the thermal level last logged (0 once below the warning again)
        self._thermal = np.zeros(0, dtype=np.int64)

    def due(self, kind: str, interval: float | None = None) -> bool:
        """Return True (and start a new interval) when a line of ``kind`` may be logged."""
        now = self.clock()
        if now < self._next.get(kind, -float('inf')):
            return False
        self._next[kind] = now + (self.interval if interval is None else interval)
        return True

    def drops(self, drops: DropCounts) -> list[str]:
        """
        Return the summary of the messages dropped since the last one, when due.

        Messages dropped for NaN or infinity (ros2_control's TopicBasedSystem sends NaN for
        every joint no active controller commands) are one line when the first comes, then a
        summary at most every :data:`NON_FINITE_INTERVAL` seconds; the others a line a second.
        """
        lines = []
        for topic in [t for t, (_, e) in drops.unreported.items() if e.reason == 'non_finite']:
            _, error = drops.unreported.pop(topic)
            if topic not in self._non_finite:
                self._non_finite[topic] = (drops[topic]['non_finite'], self.clock())
                self.due(f'non_finite {topic}', NON_FINITE_INTERVAL)
                lines.append(
                    f'{topic}: a message with NaN or infinity was dropped ({error.detail}); '
                    'ros2_control sends NaN for the joints no active controller commands (as '
                    'until its controllers are active): expected then, a fault otherwise. Such '
                    f'drops are counted on /diagnostics (dropped.{topic}.non_finite) and '
                    f'summarised here at most every {NON_FINITE_INTERVAL:g} s')
        for topic, (reported, when) in list(self._non_finite.items()):
            total = drops.get(topic, {}).get('non_finite', 0)
            if total > reported and self.due(f'non_finite {topic}', NON_FINITE_INTERVAL):
                now = self.clock()
                self._non_finite[topic] = (total, now)
                count = total - reported
                lines.append(f'{topic}: {count} more {_plural(count, "message")} with NaN or '
                             f'infinity dropped in the last {now - when:.0f} s ({total} in all; '
                             f'dropped.{topic}.non_finite on /diagnostics)')
        if drops.unreported and self.due('drops'):
            lines += drops.report()
        return lines

    def stale(self, hw: 'InterfaceCycle') -> list[tuple[str, str]]:
        """
        Return ``(level, line)`` pairs about stale targets, when due (module docstring).

        The lines doc/nodes.md ("Stale joints") shows: a warning naming the targets once they
        have been stale for :data:`STALE_PERSIST` (again when the set changes, at most every
        :data:`STALE_INTERVAL`), an info line when they are all fresh again; and a summary of
        the brief stale episodes, at growing intervals.  The simulation interface's speak of
        joint states and stale actuators.
        """
        states = hw.states
        lines: list[tuple[str, str]] = []
        if states.fresh_changes != self._seen:
            self._seen = states.fresh_changes
            stale = ~states.fresh_targets(states.fresh_mask) & states.known_targets()
            names = tuple(n for n, s in zip(states.target_names, stale) if s)
            lines += self._stale_changed(hw, names)
        if self._stale_since is not None and self._warned != self._stale_names:
            now = self.clock()
            if now - self._stale_since >= STALE_PERSIST and \
                    self.due('stale', max(self.interval, STALE_INTERVAL)):
                self._warned = self._stale_names
                lines.append(('warning', self._stale_line(hw, now)))
        if self._brief and self.due('stale_brief', self._brief_interval):
            lines.append(('warning', self._brief_line(hw)))
        return lines

    def _stale_changed(self, hw: 'InterfaceCycle', names: tuple[str, ...]
                       ) -> list[tuple[str, str]]:
        """Take a new set of stale targets; return the line of an episode's end, if any."""
        now = self.clock()
        if names and self._stale_since is None:
            self._stale_since = now
            self._episode_names = {}
        self._stale_names = names
        self._episode_names.update(dict.fromkeys(names))
        if names or self._stale_since is None:
            return []
        began, self._stale_since = self._stale_since, None
        if self._warned is not None:   # a warned stale state ended
            self._warned = None
            return [('info', f'every {hw.states.direction.source} state is fresh again '
                             f'(after {now - began:.1f} s)')]
        if now - self._brief_end > STALE_MAX_INTERVAL:   # a quiet while: summaries come sooner
            self._brief_interval = STALE_INTERVAL
        self._brief += 1
        self._brief_end = now
        self._brief_names.update(self._episode_names)
        return []

    def _stale_line(self, hw: 'InterfaceCycle', now: float) -> str:
        """Return the warning about the targets stale for :data:`STALE_PERSIST` or more."""
        states = hw.states
        names = self._stale_names
        assert self._stale_since is not None
        age = now - self._stale_since + hw.state_timeout
        what = 'repeats their last values' if hw.stale_joints == 'last' else 'leaves them out'
        return (f'no {states.direction.source} state for {age:.1f} s (state_timeout '
                f'{hw.state_timeout:g} s): {len(names)} '
                f'{_plural(len(names), states.direction.target)} stale ({_first(names)}); '
                f'{hw.STATE_OUTPUT_TOPIC} {what} (stale_joints: {hw.stale_joints})')

    def _brief_line(self, hw: 'InterfaceCycle') -> str:
        """Return the summary of the brief stale episodes; make the next one wait longer."""
        states = hw.states
        source, target = states.direction.source, states.direction.target
        names = [n for n in states.target_names if n in self._brief_names] or \
            list(self._stale_names)
        count, self._brief, self._brief_names = self._brief, 0, {}
        self._brief_interval = min(2.0 * self._brief_interval, STALE_MAX_INTERVAL)
        return (f'{source} states were late {_times(count)} since the last line: '
                f'{len(names)} {_plural(len(names), target)} ({_first(names)}) stale for less '
                f'than {STALE_PERSIST:g} s each time (state_timeout {hw.state_timeout:g} s). A '
                'loaded machine or a slow driver? /diagnostics shows the state ages; a larger '
                'state_timeout tolerates them (the next such line in '
                f'{self._brief_interval:g} s at the earliest)')

    def no_state(self, hw: 'InterfaceCycle', since: float,
                 where: Callable[[], str]) -> str | None:
        """
        Return a warning when no input state came since activation at ``since``, when due.

        After :data:`NO_STATE_AFTER` seconds, then every :data:`NO_STATE_INTERVAL`: the state
        topic is likely wrong.  Costs one comparison a cycle once a state came.

        :param where: returns what the node knows of its state topic (called for a line only)
        """
        if since != self._active_since:
            self._active_since, self._state_seen = since, False
        if self._state_seen:
            return None
        if bool(np.isfinite(hw.states.state_time).any()):
            self._state_seen = True
            return None
        now = self.clock()
        if now - since < NO_STATE_AFTER or not self.due('no_state', NO_STATE_INTERVAL):
            return None
        source = hw.states.direction.source
        return (f'no {source} state received in {now - since:.0f} s since activation: '
                f'{where()}; expected sensor_msgs/JointState naming the {source}s '
                f'{_first(hw.states.direction.source_names)}')

    def incomplete(self, hw: 'InterfaceCycle') -> str | None:
        """
        Return a warning when a transmission was commanded for only some of its inputs, when due.

        A coupled transmission (a differential, a four-bar) needs a command for each of its
        joints: commanding one of them moves nothing, which looks like a broken robot.
        """
        incomplete = hw.commands.incomplete
        if not incomplete.any() or not self.due('incomplete', STALE_INTERVAL):
            return None
        direction = hw.commands.direction
        names = []
        for k in np.flatnonzero(incomplete)[:3]:
            sources = direction.groups[k][0]
            given = [direction.source_names[i] for i in sources
                     if any(np.isfinite(hw.commands.command[f][i]) for f in FIELDS)]
            missing = [direction.source_names[i] for i in sources
                       if direction.source_names[i] not in given]
            names.append(f'{hw.topology.groups[k].transmission.name} (commanded: '
                         f'{", ".join(given)}; not commanded: {", ".join(missing)})')
        more = f' and {int(incomplete.sum()) - 3} more' if incomplete.sum() > 3 else ''
        return (f'{hw.COMMAND_TOPIC}: incomplete command for {"; ".join(names)}{more}: a '
                f'transmission is commanded only when every one of its {direction.source}s '
                'has the field, so its actuators get nothing')

    def calibration(self, hw: 'InterfaceCycle') -> list[tuple[str, str]]:
        """
        Return the calibration's ``(level, line)`` pairs since the last call (and forget them).

        Homing and absolute encoders say what they found (info) or why they failed (error): a
        few lines per start, so none is held back.
        """
        calibration = getattr(hw, 'calibration', None)
        if calibration is None or not calibration.events:
            return []
        lines, calibration.events = calibration.events, []
        return lines

    def thermal(self, hw: 'InterfaceCycle') -> list[tuple[str, str]]:
        """
        Return ``(level, line)`` pairs of motors at their warning or maximum temperature.

        One line per motor at its first WARN (derating) and its first ERROR (at its maximum) since
        it was last below its warning temperature, at most one batch every
        :data:`STALE_INTERVAL` seconds; a line not due yet waits for the next.
        """
        dt = hw.drivetrain
        if dt is None:
            return []
        level = dt.level
        if self._thermal.shape != level.shape:
            self._thermal = np.zeros_like(level)
        self._thermal = np.minimum(self._thermal, level)   # cooled down: warned again later
        rising = np.flatnonzero(level > self._thermal)
        if not rising.size or not self.due('thermal', STALE_INTERVAL):
            return []
        model = dt.model
        limit = dt.current_limit()
        lines = []
        for i in rising.tolist():
            name, t = hw.actuator_names[i], float(dt.temperature[i])
            if level[i] >= 2:
                lines.append(('error', (
                    f'motor {name}: estimated winding temperature {t:.1f} C is at its maximum '
                    f'{model.max_temperature[i]:g} C; its current is limited to the continuous '
                    f'current {limit[i]:.3g} A (effort {limit[i] * dt.effort_per_current[i]:.3g}'
                    ") until it cools (/diagnostics: its transmission's status)")))
            else:
                lines.append(('warning', (
                    f'motor {name}: estimated winding temperature {t:.1f} C reached its warning '
                    f'temperature {model.warning_temperature[i]:g} C (maximum '
                    f'{model.max_temperature[i]:g} C): derating, current limit {limit[i]:.3g} A '
                    f'of the peak {model.peak_current[i]:.3g} A (effort '
                    f'{limit[i] * dt.effort_per_current[i]:.3g})')))
        self._thermal = np.maximum(self._thermal, level)
        return lines

    def cycle_failed(self, error: Exception) -> str | None:
        """Return the line for a cycle that raised, when due."""
        if not self.due('cycle'):
            return None
        return f'cycle failed: {type(error).__name__}: {error}'

    def no_clock(self) -> str | None:
        """Return the line for a node clock that has not started (sim time, no /clock)."""
        if not self.due('clock', CLOCK_INTERVAL):
            return None
        return ('use_sim_time is true and no /clock message has arrived: nothing is published '
                'until one does (is the simulator running, and is /clock remapped into this '
                "node's namespace?)")


def _plural(n: int, word: str) -> str:
    """Return ``word`` for one, ``words`` for any other count."""
    return word if n == 1 else f'{word}s'


def _times(n: int) -> str:
    """Return ``once``, ``twice`` or ``N times``."""
    return {1: 'once', 2: 'twice'}.get(n, f'{n} times')


def _first(names: Sequence[str], count: int = 8) -> str:
    """Return the first ``count`` names, comma-separated, with ``...`` when there are more."""
    return ', '.join(names[:count]) + (', ...' if len(names) > count else '')
