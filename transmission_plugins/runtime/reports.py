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
stale joints, a failed cycle, a missing ``/clock``) has its own interval, so one cannot starve
another.  A normal start logs no warning: joints that become known are not news; joints that
go stale are a warning, and their return an info line.
"""

import time
from typing import Callable
from typing import Dict
from typing import List
from typing import Optional
from typing import Tuple
from typing import TYPE_CHECKING

import numpy as np

from transmission_plugins.runtime.messages import DropCounts
from transmission_plugins.runtime.messages import FIELDS

if TYPE_CHECKING:
    from transmission_plugins.runtime.cycle import InterfaceCycle

#: Seconds between two lines of one kind.
INTERVAL = 1.0
#: Seconds between two lines about stale joints (a loaded machine may flap a joint; its
#: diagnostics show every change, the log a summary)
STALE_INTERVAL = 5.0
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
        self._next: Dict[str, float] = {}
        self._reported = self._seen = 0
        #: the stale targets of the last line (None: none reported stale)
        self._stale: Optional[Tuple[str, ...]] = None
        self._episodes = 0
        #: the targets stale at some time since the last line (in target order)
        self._missed: Dict[str, None] = {}

    def due(self, kind: str, interval: Optional[float] = None) -> bool:
        """Return True (and start a new interval) when a line of ``kind`` may be logged."""
        now = self.clock()
        if now < self._next.get(kind, -float('inf')):
            return False
        self._next[kind] = now + (self.interval if interval is None else interval)
        return True

    def drops(self, drops: DropCounts) -> List[str]:
        """Return the summary of the messages dropped since the last one, when due."""
        if not drops.unreported or not self.due('drops'):
            return []
        return drops.report()

    def stale(self, hw: 'InterfaceCycle') -> List[Tuple[str, str]]:
        """
        Return ``(level, line)`` pairs when the set of stale joints changed, when due.

        The lines doc/nodes.md ("Stale joints") shows: a warning naming the stale joints (or
        those that flapped since the last line, with the episodes), an info line when all are
        fresh again.  The simulation interface's speak of joint states and stale actuators.
        """
        states = hw.states
        changes = states.fresh_changes
        if changes == self._reported:
            return []
        source, target = states.direction.source, states.direction.target
        stale = ~states.fresh_targets(states.fresh_mask) & states.known_targets()
        names = tuple(n for n, s in zip(states.target_names, stale) if s)
        if changes != self._seen:
            self._seen = changes
            self._episodes += bool(names)
            self._missed.update(dict.fromkeys(names))
        if not self.due('stale', max(self.interval, STALE_INTERVAL)):
            return []
        self._reported = changes
        episodes, self._episodes = self._episodes, 0
        missed = [n for n in states.target_names if n in self._missed]
        self._missed = {}
        if not names:
            if self._stale is None:
                if not episodes:
                    return []
                more = '...' if len(missed) > 8 else ''
                return [('warning', f'no {source} state for {hw.state_timeout:g} s, {episodes} '
                                    f'times since the last line: {len(missed)} {target}s went '
                                    f'stale ({", ".join(missed[:8])}{more}); every {source} '
                                    'state is fresh again')]
            self._stale = None
            again = f' ({episodes} stale episodes since the last line)' if episodes > 1 else ''
            return [('info', f'every {source} state is fresh again{again}')]
        self._stale = names
        what = 'repeats their last values' if hw.stale_joints == 'last' else 'leaves them out'
        more = '...' if len(names) > 8 else ''
        return [('warning', f'no {source} state for {hw.state_timeout:g} s: {len(names)} '
                            f'{target}s stale ({", ".join(names[:8])}{more}); '
                            f'{hw.STATE_OUTPUT_TOPIC} {what} (stale_joints: {hw.stale_joints})')]

    def incomplete(self, hw: 'InterfaceCycle') -> Optional[str]:
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

    def calibration(self, hw: 'InterfaceCycle') -> List[Tuple[str, str]]:
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

    def cycle_failed(self, error: Exception) -> Optional[str]:
        """Return the line for a cycle that raised, when due."""
        if not self.due('cycle'):
            return None
        return f'cycle failed: {type(error).__name__}: {error}'

    def no_clock(self) -> Optional[str]:
        """Return the line for a node clock that has not started (sim time, no /clock)."""
        if not self.due('clock', CLOCK_INTERVAL):
            return None
        return ('use_sim_time is true and no /clock message has arrived: nothing is published '
                'until one does (is the simulator running, and is /clock remapped into this '
                "node's namespace?)")
