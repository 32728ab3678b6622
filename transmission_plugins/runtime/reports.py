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
What the interface nodes log, rate-limited without a logger call per event.

A logger call costs about 180 us even when a throttle suppresses it, so a flood of rejected
messages used to starve the cycle.  :class:`Reports` decides with one steady-clock comparison
whether a line is due; the node logs only the lines it returns.  Each kind of line (dropped
messages, stale joints, a failed cycle) has its own interval, so one cannot starve another.
"""

import time
from typing import Callable
from typing import Dict
from typing import List
from typing import Optional
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from transmission_plugins.runtime.cycle import InterfaceCycle

#: Seconds between two lines of one kind.
INTERVAL = 1.0


class Reports:
    """
    Rate-limited log lines of a hardware or simulation interface.

    :param clock: steady clock in seconds
    :param interval: seconds between two lines of one kind
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic,
                 interval: float = INTERVAL) -> None:
        self.clock = clock
        self.interval = interval
        self._next: Dict[str, float] = {}
        self._fresh_changes = 0

    def due(self, kind: str, now: Optional[float] = None) -> bool:
        """Return True (and start a new interval) when a line of ``kind`` may be logged."""
        now = self.clock() if now is None else now
        if now < self._next.get(kind, -float('inf')):
            return False
        self._next[kind] = now + self.interval
        return True

    def drops(self, hw: 'InterfaceCycle', force: bool = False) -> List[str]:
        """
        Return the summary of the messages dropped since the last one, when due.

        :param force: ignore the interval (the diagnostics timer flushes what is pending)
        """
        if not hw.drops.unreported or not (force or self.due('drops')):
            return []
        return hw.drops.report()

    def stale(self, hw: 'InterfaceCycle') -> Optional[str]:
        """
        Return a line when the set of stale joints changed since the last line, when due.

        ``'every actuator state is fresh again'``, or which joints are stale and what
        ``joint_states`` does about them (the ``stale_joints`` policy); the simulation
        interface's lines speak of joint states and stale actuators.
        """
        states = hw.states
        if states.fresh_changes == self._fresh_changes or not self.due('stale'):
            return None
        self._fresh_changes = states.fresh_changes
        source, target = states.direction.source, states.direction.target
        stale = ~states.fresh_targets(states.fresh_mask)
        if not stale.any():
            return f'every {source} state is fresh again'
        names = [n for n, s in zip(states.target_names, stale) if s]
        what = 'repeats their last values' if hw.stale_joints == 'last' else 'leaves them out'
        more = '...' if len(names) > 8 else ''
        return (f'no {source} state for {hw.state_timeout:g} s: {len(names)} {target}s stale '
                f'({", ".join(names[:8])}{more}); {hw.STATE_OUTPUT_TOPIC} {what} '
                f'(stale_joints: {hw.stale_joints})')

    def cycle_failed(self, error: Exception) -> Optional[str]:
        """Return the line for a cycle that raised, when due."""
        if not self.due('cycle'):
            return None
        return f'cycle failed: {type(error).__name__}: {error}'
