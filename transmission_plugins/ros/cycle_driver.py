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
The active part of an interface node: its timer, and publishing its two outputs.

A :class:`CycleDriver` exists while the node is active.  It owns the node's timer (on the
steady clock, a :class:`~.common.LoopTimers` timer of the :func:`~.common.run_node` loop when the
node runs in one, cheaper than an rclpy timer; otherwise, and under simulated time, an rclpy
timer on the node clock) and an
:class:`~transmission_plugins.runtime.output_schedule.OutputSchedule` (timer mode or
event-driven), and publishes the *state* output (``joint_states`` for the hardware interface:
serialised from a template, :mod:`.joint_state_serializer`) and the *command* output
(``actuator_commands``) when the schedule says so: on a tick, or from the input's own callback
in event-driven mode.  Each update is timed into the interface's cycle statistics, a failing
update is logged (rate-limited) instead of taking the node down, and stale-joint changes are
logged.  The node only stores inputs and tells the driver that one arrived; what an output
holds comes from two callables, so the mirror node (joint-space simulators) drives its outputs
with the same class.
"""

import time
from typing import Any
from typing import Callable
from typing import List
from typing import Optional

from rclpy.time import Time
from sensor_msgs.msg import JointState

from transmission_plugins.ros.common import fill_joint_state
from transmission_plugins.ros.common import loop_timers
from transmission_plugins.ros.common import LoopTimer
from transmission_plugins.ros.common import timer_callback
from transmission_plugins.ros.joint_state_serializer import JointStateSerializer
from transmission_plugins.runtime.output_schedule import OutputSchedule
from transmission_plugins.runtime.reports import Reports


class CycleDriver:
    """
    Publish an interface's state and command outputs on its timer or as inputs arrive.

    :param node: the node (its clock, timers and logger)
    :param core: the interface (``record_cycle`` and what :class:`~.runtime.reports.Reports`
        reads); its ``clock`` is the steady clock of the schedule
    :param states: returns the state output now (``names, position, velocity, effort``; None:
        nothing to publish)
    :param commands: returns the command output messages now (same shape, one per message)
    :param state_pub: publisher of the state output (bytes or ``JointState``)
    :param command_pub: publisher of the command output
    :param serializer: makes the state output's bytes (and holds ``frame_id``)
    :param reports: the node's rate-limited log lines
    :param period: seconds between ticks
    :param event_driven: publish each output when its input arrives (the timer as watchdog)
    :param steady: the node clock is the system clock (false under simulated time): the timer
        may run on the steady clock, message callbacks may run overdue ticks, stamps are read
        with ``time.time_ns``
    """

    def __init__(self, node: Any, core: Any, states: Callable[[float], Any],
                 commands: Callable[[float], List[Any]], state_pub: Any, command_pub: Any,
                 serializer: JointStateSerializer, reports: Reports, period: float,
                 event_driven: bool = False, steady: bool = True) -> None:
        self.node = node
        self.core = core
        self._states = states
        self._commands = commands
        self._state_pub = state_pub
        self._command_pub = command_pub
        self.serializer = serializer
        self._reports = reports
        self._clock = core.clock
        self._state_msg = JointState()   # reused: publish() serialises it at once
        self.steady = steady
        self.schedule = OutputSchedule(period, event_driven, rescue=steady)
        self._timer: Optional[Any] = self._start_timer(period)

    # ------------------------------------------------------------------ settings
    @property
    def event_driven(self) -> bool:
        """Return True in event-driven mode."""
        return self.schedule.event_driven

    @event_driven.setter
    def event_driven(self, value: bool) -> None:
        self.schedule.event_driven = bool(value)

    @property
    def timer(self) -> Optional[Any]:
        """Return the update timer of the node (None once destroyed)."""
        return self._timer

    def set_period(self, period: float) -> None:
        """Restart the timer with a new period."""
        self.schedule.period = float(period)
        if self._timer is not None:
            self._stop_timer()
            self._timer = self._start_timer(period)

    def destroy(self) -> None:
        """Stop the timer; nothing is published any more."""
        if self._timer is not None:
            self._stop_timer()
        self._timer = None
        self.schedule.stop()

    def _start_timer(self, period: float) -> Any:
        loop = loop_timers() if self.steady else None
        if loop is not None:
            return loop.add(period, self._on_timer)
        return self.node.create_timer(period, timer_callback(self._on_timer))

    def _stop_timer(self) -> None:
        if isinstance(self._timer, LoopTimer):
            self._timer.cancel()
        else:
            self.node.destroy_timer(self._timer)

    # ------------------------------------------------------------------ occasions
    def state_arrived(self) -> None:
        """Note a stored input state: publish the state output now in event-driven mode."""
        if self.schedule.state_arrived():
            self._update(True, False, self._clock(), periodic=False)
        self.run_if_overdue()

    def command_arrived(self) -> None:
        """Note a stored input command: publish the command output now in event-driven mode."""
        if self.schedule.command_arrived():
            self._update(False, True, self._clock(), periodic=False)
        self.run_if_overdue()

    def run_if_overdue(self) -> None:
        """Run the tick from a message callback when the timer is 1.5 periods late."""
        now = self._clock()
        if self.schedule.overdue(now):
            self._tick(now)

    def tick(self) -> None:
        """Run a tick now, as the timer does."""
        self._tick(self._clock())

    def _on_timer(self) -> None:
        now = self._clock()
        if not self.schedule.skip_tick(now):
            self._tick(now)

    def _tick(self, now: float) -> None:
        states, commands = self.schedule.tick(now)
        self._update(states, commands, now, periodic=True)

    # ------------------------------------------------------------------ publishing
    def _update(self, states: bool, commands: bool, start: float, periodic: bool) -> None:
        try:
            if states:
                self._publish_states(start)
            if commands:
                self._publish_commands(start)
        except Exception as e:  # noqa: B902 - an update must never take the node down
            line = self._reports.cycle_failed(e)
            if line:
                self.node.get_logger().error(line)
        self.core.record_cycle(start, self._clock(), periodic)
        line = self._reports.stale(self.core)
        if line:
            self.node.get_logger().warning(line)

    def _stamp(self) -> int:
        """Return the node clock's time in nanoseconds (the system clock's when steady)."""
        return time.time_ns() if self.steady else self.node.get_clock().now().nanoseconds

    def _publish_states(self, now: float) -> None:
        out = self._states(now)
        if out is None:
            return
        stamp = self._stamp()
        data = self.serializer(out.names, out.position, out.velocity, out.effort, stamp)
        self._state_pub.publish(data if data is not None else fill_joint_state(
            self._state_msg, out, Time(nanoseconds=stamp).to_msg(), self.serializer.frame_id))

    def _publish_commands(self, now: float) -> None:
        groups = self._commands(now)
        if groups:
            stamp = Time(nanoseconds=self._stamp()).to_msg()
            for group in groups:
                self._command_pub.publish(fill_joint_state(JointState(), group, stamp,
                                                           self.serializer.frame_id))
