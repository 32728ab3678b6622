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

The two modes are doc/nodes.md's "Timer mode and event-driven mode": in timer mode every tick
publishes both outputs; in event-driven mode an accepted input publishes its output at once and
a tick publishes only the outputs whose input did *not* arrive since the previous tick.
"""


class OutputSchedule:
    """
    Which outputs to publish on a tick or an arrival (module docstring).

    :param period: seconds between two ticks of the node's timer
    :param event_driven: publish each output when its input arrives (the timer as watchdog)
    """

    def __init__(self, period: float, event_driven: bool = False) -> None:
        self.period = float(period)
        self.event_driven = bool(event_driven)
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

    def tick(self) -> tuple[bool, bool]:
        """
        Start a tick; return which outputs it publishes.

        :returns: ``(states, commands)``: both in timer mode; in event-driven mode, those whose
            input did not arrive since the previous tick
        """
        outputs = (True, True)
        if self.event_driven:
            outputs = (not self._state_arrived, not self._command_arrived)
        self._state_arrived = self._command_arrived = False
        return outputs

    def stop(self) -> None:
        """Forget the arrivals (the timer stopped: deactivated or torn down)."""
        self._state_arrived = self._command_arrived = False
