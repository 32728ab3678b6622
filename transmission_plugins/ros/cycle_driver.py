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

A :class:`CycleDriver` exists while the node is active.  It owns the node's timer, always on the
steady clock, so that the watchdogs act whatever ``/clock`` does, its period the cycle's
(:attr:`~transmission_plugins.runtime.cycle.CycleSettings.period`), and the cycle's
:class:`~transmission_plugins.runtime.cycle.OutputSchedule`.  Messages are stamped with
the node clock; while that clock has not started (``use_sim_time`` and no ``/clock`` message
yet) nothing is published and a warning says why, once a minute at most.  What an output holds
comes from two callables, so the mirror node drives its outputs with the same class.
"""

from typing import Any
from typing import Callable

from rclpy.clock import Clock
from rclpy.clock import ClockType
from sensor_msgs.msg import JointState

from transmission_plugins.ros.common import fill_joint_state
from transmission_plugins.runtime.reports import Reports


def log_at(logger: Any, level: str, line: str) -> None:
    """
    Log ``line`` at ``level`` (``'info'``, ``'warning'`` or ``'error'``), one call site per level.

    rclpy remembers the severity of each call site and raises ``ValueError`` ("Logger severity
    cannot be changed between calls") when one site logs at another level: a single
    ``getattr(logger, level)(line)`` took the node down when stale states became fresh again,
    and when a homing line (info) followed a calibration error.
    """
    if level == 'info':
        logger.info(line)
    elif level == 'error':
        logger.error(line)
    else:
        logger.warning(line)


class CycleDriver:
    """
    Publish an interface's state and command outputs on its timer or as inputs arrive.

    :param core: the interface (its ``settings``, ``schedule``, ``timer`` and what
        :class:`~.runtime.reports.Reports` reads); its ``clock`` is the steady clock of the
        cycle statistics
    :param states: returns the state output now (``names, position, velocity, effort``; None:
        nothing to publish)
    :param commands: returns the command output messages now (same shape, one per message)
    :param state_input: returns what the node knows of its state input topic, for the warning
        when no state arrives after activation (:meth:`~.runtime.reports.Reports.no_state`)
    :param extra_state: an output published right after each state output, and its publisher
        (the hardware interface's ``joint_deflections``), or None
    """

    def __init__(self, node: Any, core: Any, states: Callable[[float], Any],
                 commands: Callable[[float], list[Any]], state_pub: Any, command_pub: Any,
                 frame_id: str, reports: Reports,
                 state_input: Callable[[], str] | None = None,
                 extra_state: tuple[Callable[[float], Any], Any] | None = None) -> None:
        self.node = node
        self.core = core
        self._states = states
        self._commands = commands
        self._state_pub = state_pub
        self._command_pub = command_pub
        self.frame_id = frame_id
        self._reports = reports
        self._clock = core.clock
        self._state_input = state_input
        self._extra_state = extra_state
        self._activated = self._clock()
        self._steady = Clock(clock_type=ClockType.STEADY_TIME)
        self.schedule = core.schedule
        self.timer: Any = node.create_timer(core.settings.period, self.tick, clock=self._steady)

    # ------------------------------------------------------------------ settings
    @property
    def event_driven(self) -> bool:
        """Return True in event-driven mode."""
        return self.schedule.event_driven

    def retime(self) -> None:
        """Give the timer the cycle's period when it changed (from its next tick on)."""
        period_ns = int(round(self.core.settings.period * 1e9))
        if self.timer is not None and self.timer.timer_period_ns != period_ns:
            self.timer.timer_period_ns = period_ns

    def destroy(self) -> None:
        """Stop the timer; nothing is published any more."""
        if self.timer is not None:
            self.node.destroy_timer(self.timer)
        self.timer = None
        self.schedule.stop()

    # ------------------------------------------------------------------ occasions
    def state_arrived(self) -> None:
        """Note a stored input state: publish the state output now in event-driven mode."""
        if self.schedule.state_arrived():
            self._update(True, False, periodic=False)

    def command_arrived(self) -> None:
        """Note a stored input command: publish the command output now in event-driven mode."""
        if self.schedule.command_arrived():
            self._update(False, True, periodic=False)

    def tick(self) -> None:
        """Publish what a tick publishes: both outputs, or in event mode the watchdogs'."""
        states, commands = self.schedule.tick()
        self._update(states, commands, periodic=True)

    # ------------------------------------------------------------------ publishing
    def _update(self, states: bool, commands: bool, periodic: bool) -> None:
        start = self._clock()
        stamp = self.node.get_clock().now()
        if stamp.nanoseconds == 0:   # use_sim_time and no /clock yet
            line = self._reports.no_clock()
            if line:
                self.node.get_logger().warning(line)
            return
        msg_stamp = stamp.to_msg()
        try:
            if states:
                out = self._states(start)
                if out is not None:
                    self._state_pub.publish(
                        fill_joint_state(JointState(), out, msg_stamp, self.frame_id))
                if self._extra_state is not None:   # a robot without one pays nothing
                    extra, publisher = self._extra_state
                    out = extra(start)
                    if out is not None:
                        publisher.publish(
                            fill_joint_state(JointState(), out, msg_stamp, self.frame_id))
            if commands:
                for group in self._commands(start):
                    self._command_pub.publish(
                        fill_joint_state(JointState(), group, msg_stamp, self.frame_id))
        except Exception as e:  # noqa: B902 - an update must never take the node down
            line = self._reports.cycle_failed(e)
            if line:
                self.node.get_logger().error(line)
        self.core.timer.record(start, self._clock(), periodic)
        lines = self._reports.stale(self.core) + self._reports.calibration(self.core)
        if self.core.drivetrain is not None:   # a robot without drivetrain data pays nothing
            lines += self._reports.thermal(self.core)
        for level, line in lines:
            log_at(self.node.get_logger(), level, line)
        if self._state_input is not None:
            line = self._reports.no_state(self.core, self._activated, self._state_input)
            if line:
                self.node.get_logger().warning(line)
        if commands:
            line = self._reports.incomplete(self.core)
            if line:
                self.node.get_logger().warning(line)
