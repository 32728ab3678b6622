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
When an interface node publishes its two outputs: on its timer, or when their inputs arrive.

An interface node has a *state* output (the hardware interface: ``joint_states``, made from
``actuator_states``) and a *command* output (``actuator_commands``, made from
``joint_commands``), and a timer that ticks every ``period`` seconds.  :class:`OutputSchedule`
says which outputs to publish on each occasion:

* **timer mode** (``event_driven`` false, the default): every tick publishes both outputs;
  inputs are only stored.  The outputs have the timer's rate, and an input waits up to one
  period before it is converted.
* **event-driven mode**: an accepted input is converted and published at once, in its own
  callback (``joint_states`` when fresh ``actuator_states`` arrive, ``actuator_commands`` when
  joint commands arrive).  The timer stays as the watchdog: a tick publishes only the outputs
  whose input did *not* arrive since the previous tick.  So while inputs keep coming, each
  output follows its input; when an input falls silent, its output keeps coming at the timer's
  rate, made by the watchdogs (stale joints under the ``stale_joints`` policy, the command
  timeout and its timeout action), which therefore act within one period as in timer mode.

Both modes share one more rule, for loaded machines (the EventsExecutor serves events in arrival
order, so a backlog of messages can hold a tick back): a message callback runs the tick itself
once it is 1.5 periods overdue (:meth:`OutputSchedule.overdue`), and the timer then skips the
tick that comes less than half a period later (:meth:`OutputSchedule.skip_tick`).  That rule
needs a steady clock: it is off (``rescue`` false) when the timer runs on simulated time.

Everything here is plain arithmetic on steady-clock readings, so the node's decisions are unit
tested without ROS; the mirror node (simulation interface) uses the same class.
"""

import math
from typing import Tuple


class OutputSchedule:
    """
    Which outputs to publish, and when a tick is due (module docstring).

    :param period: seconds between two ticks of the node's timer
    :param event_driven: publish each output when its input arrives (the timer as watchdog)
    :param rescue: let message callbacks run overdue ticks (false under simulated time)
    """

    def __init__(self, period: float, event_driven: bool = False, rescue: bool = True) -> None:
        self.period = float(period)
        self.event_driven = bool(event_driven)
        self.rescue = bool(rescue)
        #: steady start of the last tick (-inf: none yet)
        self.last_tick = -math.inf
        #: steady time after which a message callback runs the tick (inf: never)
        self.due = math.inf
        self._state_arrived = False
        self._command_arrived = False

    def state_arrived(self) -> bool:
        """Note an accepted state input; return True when the state output is published now."""
        self._state_arrived = True
        return self.event_driven

    def command_arrived(self) -> bool:
        """Note an accepted command input; return True when the command output is published now."""
        self._command_arrived = True
        return self.event_driven

    def tick(self, now: float) -> Tuple[bool, bool]:
        """
        Start a tick at steady time ``now``; return which outputs it publishes.

        :returns: ``(states, commands)``: both in timer mode; in event-driven mode, those whose
            input did not arrive since the previous tick
        """
        self.last_tick = now
        if self.rescue:
            self.due = now + 1.5 * self.period
        outputs = (True, True)
        if self.event_driven:
            outputs = (not self._state_arrived, not self._command_arrived)
        self._state_arrived = self._command_arrived = False
        return outputs

    def skip_tick(self, now: float) -> bool:
        """Return True when a message callback ran the tick less than half a period ago."""
        return now - self.last_tick < 0.5 * self.period

    def overdue(self, now: float) -> bool:
        """Return True when the tick is 1.5 periods late: the message callback should run it."""
        return now > self.due

    def stop(self) -> None:
        """Forget the pending tick (the timer stopped: deactivated or torn down)."""
        self.due = math.inf
        self._state_arrived = self._command_arrived = False
