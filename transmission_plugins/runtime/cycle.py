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
What the hardware and the simulation interface share: settings, buffers, schedule, diagnostics.

:class:`InterfaceCycle` is the common base of
:class:`~.hardware_interface.HardwareInterface` (actuator states to joint states, joint commands
to actuator commands) and :class:`~.sim_interface.SimInterface` (the mirror: joint states to
actuator states, actuator commands to joint commands).  A subclass names its direction
(:attr:`InterfaceCycle.TO_JOINTS`) and its topics, and adds its inputs and its ``update()``;
everything else (the state and command sides, the :class:`CycleSettings` they all read, the
:class:`OutputSchedule`, counters, timing, drop counts, diagnostics) is here, once.
"""

from dataclasses import dataclass
from dataclasses import field
from dataclasses import replace
import math
import time
from typing import Any
from typing import Callable
from typing import Protocol
from typing import Sequence
from typing import TYPE_CHECKING

from transmission_plugins.core.exceptions import TransmissionValueError
from transmission_plugins.robot.robot_transmissions import RobotTransmissions
from transmission_plugins.runtime.commands import CommandOutput
from transmission_plugins.runtime.commands import LatestCommands
from transmission_plugins.runtime.commands import TIMEOUT_ACTIONS
from transmission_plugins.runtime.diagnostics import Counters
from transmission_plugins.runtime.diagnostics import CycleTimer
from transmission_plugins.runtime.diagnostics import DiagnosticRecord
from transmission_plugins.runtime.diagnostics import interface_diagnostics
from transmission_plugins.runtime.messages import DropCounts
from transmission_plugins.runtime.messages import InputRejected
from transmission_plugins.runtime.messages import NameIndex
from transmission_plugins.runtime.states import LatestStates
from transmission_plugins.runtime.states import STALE_JOINT_POLICIES
from transmission_plugins.runtime.states import StateOutput
from transmission_plugins.runtime.topology import Topology

if TYPE_CHECKING:
    from transmission_plugins.runtime.drivetrain import CycleDrivetrain


def check_choice(name: str, value: Any, choices: Sequence[str]) -> None:
    """
    Check a setting that takes one of ``choices``.

    :raises TransmissionValueError: naming the setting, the value and the choices
    """
    if value not in choices:
        raise TransmissionValueError(name, value, f'one of {tuple(choices)}')


@dataclass(frozen=True)
class CycleSettings:
    """
    Everything a cycle is set to, received whole; each may change between cycles.

    The node makes it from its parameters (:func:`~.node_settings.cycle_settings`); the cycle
    keeps the one copy (:attr:`InterfaceCycle.settings`) that its watchdogs, limits, schedule,
    timing and diagnostics read.

    :param update_rate: the cycle rate in Hz (None: no fixed rate, no overrun check)
    :param state_timeout: seconds after which a state is stale; <= 0 disables
    :param command_timeout: seconds after which a command expires; <= 0 disables
    :param enforce_limits: clamp commands to the limits of both sides
    :param timeout_action: one of :data:`~.commands.TIMEOUT_ACTIONS`
    :param stale_joints: one of :data:`~.states.STALE_JOINT_POLICIES`
    :param event_driven: publish each output when its input arrives (the timer as watchdog)
    :param soft_limits: with ``enforce_limits``, also the joints' soft limits (hardware
        interface)
    :param friction_compensation: add the drivetrain's friction to effort commands (hardware
        interface, a robot with ``<friction>``: :mod:`~.drivetrain`)
    :raises TransmissionValueError: a setting outside its range
    """

    update_rate: float | None = None
    state_timeout: float = 0.1
    command_timeout: float = 0.5
    enforce_limits: bool = True
    timeout_action: str = 'stop'
    stale_joints: str = 'last'
    event_driven: bool = False
    soft_limits: bool = True
    friction_compensation: bool = False
    #: seconds per cycle, ``1 / update_rate`` (None without a rate): the timer's period, the
    #: rate limits' nominal time step and the overrun check's deadline
    period: float | None = field(init=False)

    def __post_init__(self) -> None:
        check_choice('timeout_action', self.timeout_action, TIMEOUT_ACTIONS)
        check_choice('stale_joints', self.stale_joints, STALE_JOINT_POLICIES)
        for name in ('state_timeout', 'command_timeout'):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or math.isnan(value):
                raise TransmissionValueError(name, value, 'a number of seconds (<= 0: off)')
        rate = self.update_rate
        if rate is not None and not (isinstance(rate, (int, float)) and 0.0 < rate < math.inf):
            raise TransmissionValueError('update_rate', rate, 'a rate in Hz > 0, or None')
        object.__setattr__(self, 'period', None if rate is None else 1.0 / float(rate))


class Configured(Protocol):
    """What the parts of a cycle read its settings from: the cycle (their one stored copy)."""

    settings: CycleSettings


class OutputSchedule:
    """
    Which outputs to publish on a tick or an arrival.

    The two modes are doc/nodes.md's "Timer mode and event-driven mode": in timer mode every
    tick publishes both outputs; in event-driven mode an accepted input publishes its output at
    once and a tick publishes only the outputs whose input did *not* arrive since the previous
    tick.

    :param cycle: what holds the cycle's settings (their ``event_driven``)
    """

    def __init__(self, cycle: 'Configured') -> None:
        self._cycle = cycle
        self._state_arrived = False
        self._command_arrived = False

    @property
    def event_driven(self) -> bool:
        """Return True in event-driven mode."""
        return self._cycle.settings.event_driven

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


class InterfaceCycle:
    """
    Latest-value buffers, watchdogs, limits, counters and timing of one interface node.

    :param robot: a ``RobotTransmissions`` (joint and actuator names, array maps, limits)
    :param settings: the cycle's settings (default: :attr:`DEFAULTS`)
    :param changes: fields of :class:`CycleSettings` that differ from ``settings``
        (``state_timeout=0.2``...), a shorthand for ``dataclasses.replace(settings, ...)``
    :param clock: steady clock in seconds (``time.monotonic``); tests inject their own
    :raises TransmissionValueError: a setting outside its range
    """

    #: True: actuator states to joint states and joint commands to actuator commands
    TO_JOINTS = True
    #: the topics of the state output and of the command input
    STATE_OUTPUT_TOPIC = ''
    COMMAND_TOPIC = ''
    #: the settings of a cycle given none
    DEFAULTS = CycleSettings()
    #: the drivetrain's part of the cycle (:mod:`~.drivetrain`; the hardware interface of a
    #: robot with drivetrain data), else None
    drivetrain: 'CycleDrivetrain | None' = None

    def __init__(self, robot: RobotTransmissions, settings: CycleSettings | None = None, *,
                 clock: Callable[[], float] = time.monotonic, **changes: Any) -> None:
        #: the settings now: the one copy every part of the cycle reads (:meth:`apply`)
        self.settings: CycleSettings = replace(self.DEFAULTS if settings is None else settings,
                                               **changes)
        self.robot = robot
        self.clock = clock
        self.joint_names: list[str] = list(robot.joint_names)
        self.actuator_names: list[str] = list(robot.actuator_names)
        self._joints = NameIndex(self.joint_names, 'joint')
        self._actuators = NameIndex(self.actuator_names, 'actuator')
        self.topology = Topology(robot)
        self.counters = Counters(len(self.joint_names), len(self.actuator_names))
        self.states = LatestStates(self.topology, self.TO_JOINTS, self.counters, self, clock)
        self.commands = LatestCommands(self.topology, not self.TO_JOINTS, self.counters, self)
        self.timer = CycleTimer(self)
        #: which outputs a tick or an arrival publishes
        self.schedule = OutputSchedule(self)
        #: dropped messages per topic and reason
        self.drops = DropCounts()

    # ------------------------------------------------------------------ settings and state
    def apply(self, settings: CycleSettings) -> None:
        """Take new settings (the node applies parameter changes at once, between cycles)."""
        before, self.settings = self.settings, settings
        if settings.stale_joints != before.stale_joints:
            self.states.invalidate()

    @property
    def state_timeout(self) -> float:
        """Return the state watchdog's timeout in seconds (<= 0: disabled)."""
        return self.settings.state_timeout

    @property
    def command_timeout(self) -> float:
        """Return the command watchdog's timeout in seconds (<= 0: disabled)."""
        return self.settings.command_timeout

    @property
    def enforce_limits(self) -> bool:
        """Return True when commands are clamped to the limits."""
        return self.settings.enforce_limits

    @property
    def timeout_action(self) -> str:
        """Return what expired commands send (:data:`~.commands.TIMEOUT_ACTIONS`)."""
        return self.settings.timeout_action

    @property
    def stale_joints(self) -> str:
        """Return the stale policy of the state output (:data:`~.states.STALE_JOINT_POLICIES`)."""
        return self.settings.stale_joints

    @property
    def period(self) -> float | None:
        """Return the cycle period in seconds (None: no fixed rate)."""
        return self.settings.period

    def commandable_joints(self) -> list[str]:
        """Return the joints a joint command may name (passive joints excluded), URDF order."""
        return [n for i, n in enumerate(self.joint_names) if self.topology.commandable[i]]

    def joint_order(self, joints: Sequence[str] | None) -> list[str]:
        """
        Return the joint order of the ``*_commands`` arrays: ``joints``, else the commandable ones.

        :raises TransmissionValueError: ``joints`` that are not distinct commandable joints
        """
        commandable = self.commandable_joints()
        if not joints:
            return commandable
        try:
            self._joints.lookup(joints)
        except InputRejected as e:
            raise TransmissionValueError('joints', list(joints)[:10],
                                         f'distinct joint names of the robot ({e.detail})'
                                         ) from e
        finally:
            self._joints.forget()
        allowed = set(commandable)
        bad = [n for n in joints if n not in allowed]
        if bad:
            raise TransmissionValueError('joints', bad, 'joints that are not passive '
                                         '(passive joints cannot be commanded)')
        return list(joints)

    # ------------------------------------------------------------------ outputs
    def state_output(self, now: float | None = None) -> StateOutput | None:
        """
        Return the state output of the latest state inputs (the state half of a cycle).

        None when no target is known (or, with ``stale_joints: omit``, none is fresh).

        :param now: the steady time of the watchdog (default: :attr:`clock`)
        """
        now = self.clock() if now is None else now
        self._advance(now)
        return self.states.outputs(now)

    def command_output(self, now: float | None = None) -> list[CommandOutput]:
        """
        Return the command output messages of the latest command inputs (the command half).

        Nonlinear maps are linearised at the positions :meth:`state_output` converted last.

        :param now: the steady time of the watchdog (default: :attr:`clock`)
        """
        now = self.clock() if now is None else now
        self._advance(now)
        return self.commands.outputs(now, self.states.state['position'],
                                     self.states.last_position)

    def _advance(self, now: float) -> None:
        """Do what must precede the outputs at ``now`` (the hardware interface's calibration)."""

    # ------------------------------------------------------------------ inputs
    def _arrival(self, received: float | None) -> float:
        now = self.clock()
        return now if received is None or not received <= now else received

    def _read(self, topic: str, read: Callable[..., Any], *args: Any) -> Any:
        """Return ``read(*args)``; a rejection is counted under ``topic`` and re-raised."""
        try:
            return read(*args)
        except InputRejected as e:
            self.drops.reject(topic, e)
            raise

    def diagnostics(self, prefix: str, lifecycle_state: str = 'active'
                    ) -> list[DiagnosticRecord]:
        """Return one status for the interface and one per transmission (a new rate window)."""
        return interface_diagnostics(self, prefix, lifecycle_state)
