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
The per-cycle logic of the hardware interface node, free of ROS.

:class:`HardwareInterface` composes the parts of a cycle: message validation
(:mod:`~.messages`), the actuator states and their watchdog (:mod:`~.states`), the joint
commands with their watchdog, limits and timeout actions (:mod:`~.commands`), counters, timing
and diagnostics, on an injectable steady clock.  Both conversions go through the
:class:`~transmission_plugins.RobotTransmissions` array maps.  The node
(:mod:`transmission_plugins.ros.hardware_interface_node`) only moves messages in and out, so
everything here is unit tested without DDS.

Conventions: a rejected message raises :class:`~.messages.InputRejected` (its ``reason`` is a
counter key) and leaves every buffer untouched; outputs never contain NaN or infinity: joints or
actuators whose values are unknown or non-finite are left out of the output instead, and stale
joints follow the ``stale_joints`` policy (:mod:`~.states`).  Messages carry their arrival time
(``received``, steady clock) when the caller knows it: the watchdogs count from arrival, not
from when a callback got to run.
"""

import math
import time
from typing import Any
from typing import Callable
from typing import Dict
from typing import List
from typing import NamedTuple
from typing import Optional
from typing import Sequence

import numpy as np

from transmission_plugins.core.checks import FloatArray
from transmission_plugins.core.exceptions import TransmissionValueError
from transmission_plugins.robot.robot_transmissions import RobotTransmissions
from transmission_plugins.runtime.commands import CommandOutput
from transmission_plugins.runtime.commands import JointCommands
from transmission_plugins.runtime.commands import TIMEOUT_ACTIONS
from transmission_plugins.runtime.counters import CLAMP_KINDS
from transmission_plugins.runtime.counters import Counters
from transmission_plugins.runtime.diagnostics import DiagnosticRecord
from transmission_plugins.runtime.diagnostics import ERROR
from transmission_plugins.runtime.diagnostics import interface_diagnostics
from transmission_plugins.runtime.diagnostics import OK
from transmission_plugins.runtime.diagnostics import STALE
from transmission_plugins.runtime.diagnostics import WARN
from transmission_plugins.runtime.messages import DROP_REASONS
from transmission_plugins.runtime.messages import DropCounts
from transmission_plugins.runtime.messages import field_array
from transmission_plugins.runtime.messages import FIELDS
from transmission_plugins.runtime.messages import InputRejected
from transmission_plugins.runtime.messages import NameIndex
from transmission_plugins.runtime.messages import read_message
from transmission_plugins.runtime.states import ActuatorStates
from transmission_plugins.runtime.states import JointOutput
from transmission_plugins.runtime.states import STALE_JOINT_POLICIES
from transmission_plugins.runtime.timing import CycleTimer
from transmission_plugins.runtime.topology import Topology

__all__ = ['CLAMP_KINDS', 'CommandOutput', 'CycleOutput', 'DROP_REASONS', 'DiagnosticRecord',
           'ERROR', 'FIELDS', 'HardwareInterface', 'InputRejected', 'JointOutput', 'OK', 'STALE',
           'STALE_JOINT_POLICIES', 'TIMEOUT_ACTIONS', 'WARN']


class CycleOutput(NamedTuple):
    """What one :meth:`HardwareInterface.update` produces."""

    joint_states: Optional[JointOutput]
    actuator_commands: List[CommandOutput]


class HardwareInterface:
    """
    Latest-value buffers, watchdogs, limits and conversions between actuators and joints.

    :param robot: a ``RobotTransmissions`` (joint and actuator names, array maps, limits)
    :param state_timeout: seconds after which an actuator's state is stale; <= 0 disables
    :param command_timeout: seconds after which a joint command expires; <= 0 disables
    :param enforce_limits: clamp joint commands to the URDF limits and actuator efforts to the
        actuator effort limits
    :param command_joints: joint order of the per-interface array commands; default: every
        commandable joint in URDF order
    :param timeout_action: what happens to actuators whose joint command expired, one of
        :data:`TIMEOUT_ACTIONS`: ``stop`` sends nothing, ``hold`` sends the actuator position
        measured when the command expired, ``zero_velocity`` / ``zero_effort`` send zero
    :param stale_joints: what ``joint_states`` says about stale joints, one of
        :data:`STALE_JOINT_POLICIES`: ``last`` keeps their last values, ``omit`` leaves them out
    :param clock: steady clock in seconds (``time.monotonic``); tests inject their own
    :raises TransmissionValueError: a setting outside its range, or ``command_joints`` that
        are not distinct commandable joints
    """

    def __init__(self, robot: RobotTransmissions, *, state_timeout: float = 0.1,
                 command_timeout: float = 0.5, enforce_limits: bool = True,
                 command_joints: Optional[Sequence[str]] = None, timeout_action: str = 'stop',
                 stale_joints: str = 'last',
                 clock: Callable[[], float] = time.monotonic) -> None:
        _check_choice('timeout_action', timeout_action, TIMEOUT_ACTIONS)
        _check_choice('stale_joints', stale_joints, STALE_JOINT_POLICIES)
        for name, value in (('state_timeout', state_timeout),
                            ('command_timeout', command_timeout)):
            if not isinstance(value, (int, float)) or math.isnan(value):
                raise TransmissionValueError(name, value, 'a number of seconds (<= 0: off)')
        self.robot = robot
        self.clock = clock
        self.joint_names: List[str] = list(robot.joint_names)
        self.actuator_names: List[str] = list(robot.actuator_names)
        self._joints = NameIndex(self.joint_names, 'joint')
        self._actuators = NameIndex(self.actuator_names, 'actuator')
        self.topology = Topology(robot)
        self.counters = Counters(len(self.joint_names), len(self.actuator_names))
        self.states = ActuatorStates(robot, self.topology, self.counters, state_timeout, clock,
                                     stale_joints)
        self.commands = JointCommands(robot, self.topology, self.counters, command_timeout,
                                      enforce_limits, timeout_action)
        self.timer = CycleTimer()
        #: dropped messages per topic and reason
        self.drops = DropCounts()
        commandable = self.topology.commandable
        if command_joints:
            try:
                idx = self._joints.lookup(command_joints)
            except InputRejected as e:
                raise TransmissionValueError('joints', list(command_joints)[:10],
                                             f'distinct joint names of the robot ({e.detail})'
                                             ) from e
            bad = [self.joint_names[i] for i in idx if not commandable[i]]
            if bad:
                raise TransmissionValueError('joints', bad, 'joints that are not passive '
                                             '(passive joints cannot be commanded)')
            self.command_joints = list(command_joints)
        else:
            self.command_joints = [n for i, n in enumerate(self.joint_names) if commandable[i]]
        self._command_idx = self._joints.lookup(self.command_joints)
        self._joints.forget()

    # ------------------------------------------------------------------ settings and state
    # every setting may change between cycles (the node applies parameter changes at once)
    @property
    def state_timeout(self) -> float:
        """Return the state watchdog's timeout in seconds (<= 0: disabled)."""
        return self.states.state_timeout

    @state_timeout.setter
    def state_timeout(self, value: float) -> None:
        self.states.state_timeout = float(value)

    @property
    def command_timeout(self) -> float:
        """Return the command watchdog's timeout in seconds (<= 0: disabled)."""
        return self.commands.command_timeout

    @command_timeout.setter
    def command_timeout(self, value: float) -> None:
        self.commands.command_timeout = float(value)

    @property
    def enforce_limits(self) -> bool:
        """Return True when commands are clamped to the limits."""
        return self.commands.enforce_limits

    @enforce_limits.setter
    def enforce_limits(self, value: bool) -> None:
        self.commands.enforce_limits = bool(value)

    @property
    def timeout_action(self) -> str:
        """Return what expired joints send (:data:`TIMEOUT_ACTIONS`)."""
        return self.commands.timeout_action

    @timeout_action.setter
    def timeout_action(self, value: str) -> None:
        _check_choice('timeout_action', value, TIMEOUT_ACTIONS)
        self.commands.timeout_action = value

    @property
    def stale_joints(self) -> str:
        """Return the stale-joint policy of ``joint_states`` (:data:`STALE_JOINT_POLICIES`)."""
        return self.states.stale_joints

    @stale_joints.setter
    def stale_joints(self, value: str) -> None:
        _check_choice('stale_joints', value, STALE_JOINT_POLICIES)
        self.states.stale_joints = value
        self.states.invalidate()

    @property
    def state(self) -> Dict[str, FloatArray]:
        """Return the latest actuator state per field (NaN = unknown)."""
        return self.states.state

    @property
    def state_time(self) -> FloatArray:
        """Return the arrival time of each actuator's state (-inf: never)."""
        return self.states.state_time

    @property
    def command(self) -> Dict[str, FloatArray]:
        """Return the latest joint command per field (NaN = none)."""
        return self.commands.command

    @property
    def command_time(self) -> FloatArray:
        """Return the arrival time of each joint's command (-inf: never)."""
        return self.commands.command_time

    def commandable_joints(self) -> List[str]:
        """Return the joints a command may name (passive joints excluded), in URDF order."""
        return [n for i, n in enumerate(self.joint_names) if self.topology.commandable[i]]

    def fresh_actuators(self, now: Optional[float] = None) -> np.ndarray:
        """Return a boolean mask of the actuators whose state is within ``state_timeout``."""
        return self.states.fresh(now)

    # ------------------------------------------------------------------ counters and timing
    @property
    def clamps(self) -> Dict[str, int]:
        """Return the clamp counts per limit kind."""
        return self.counters.clamps

    @property
    def joint_clamps(self) -> np.ndarray:
        """Return the clamp counts per joint."""
        return self.counters.joint_clamps

    @property
    def actuator_clamps(self) -> np.ndarray:
        """Return the clamp counts per actuator."""
        return self.counters.actuator_clamps

    @property
    def incomplete_commands(self) -> int:
        """Return how many transmissions were commanded for only some of their joints."""
        return self.counters.incomplete_commands

    @property
    def non_finite_outputs(self) -> int:
        """Return how many outputs came out NaN or infinite (and were left out)."""
        return self.counters.non_finite_outputs

    @property
    def period(self) -> Optional[float]:
        """Return the cycle period in seconds (None: no overrun check)."""
        return self.timer.period

    @period.setter
    def period(self, value: Optional[float]) -> None:
        self.timer.period = value

    @property
    def cycles(self) -> int:
        """Return the number of cycles run."""
        return self.timer.cycles

    @property
    def overruns(self) -> int:
        """Return the number of cycles that overran their period or started late."""
        return self.timer.overruns

    @property
    def max_cycle_time(self) -> float:
        """Return the longest cycle's work time in seconds."""
        return self.timer.max_cycle_time

    @property
    def cycle_time_sum(self) -> float:
        """Return the total work time of all cycles in seconds."""
        return self.timer.cycle_time_sum

    def record_cycle(self, start: float, end: float, periodic: bool = True) -> None:
        """Account one cycle from ``start`` to ``end`` (steady clock); periodic: a timer tick."""
        self.timer.record(start, end, periodic)

    # ------------------------------------------------------------------ inputs
    def _arrival(self, received: Optional[float]) -> float:
        now = self.clock()
        return now if received is None or not received <= now else received

    def set_actuator_state(self, names: Sequence[str], position: Any = (), velocity: Any = (),
                           effort: Any = (), topic: str = 'actuator_states',
                           received: Optional[float] = None) -> None:
        """
        Store an actuator state message (any subset of actuators and fields).

        Fields absent from the message become unknown for the actuators it names.

        :param received: when the message arrived, on :attr:`clock` (default: now); the state
            watchdog counts from it
        :raises InputRejected: the message is dropped (and counted); buffers are unchanged
        """
        try:
            idx, values = read_message(self._actuators, names, position, velocity, effort)
        except InputRejected as e:
            self.drops.reject(topic, e)
            raise
        self.states.store(idx, values, self._arrival(received))

    def set_joint_command(self, names: Sequence[str], position: Any = (), velocity: Any = (),
                          effort: Any = (), topic: str = 'joint_commands',
                          received: Optional[float] = None) -> None:
        """
        Store a joint command (any subset of joints and fields).

        A command replaces every field of the joints it names: absent fields are cleared.

        :param received: when the message arrived, on :attr:`clock` (default: now); the command
            watchdog counts from it
        :raises InputRejected: the message is dropped (and counted); buffers are unchanged
        """
        try:
            idx, values = read_message(self._joints, names, position, velocity, effort)
            passive = [self.joint_names[i] for i in idx if not self.topology.commandable[i]]
            if passive:
                raise InputRejected('not_commandable',
                                    f'joints {passive[:5]} are passive and cannot be commanded')
        except InputRejected as e:
            self.drops.reject(topic, e)
            raise
        self.commands.store(idx, values, self._arrival(received))

    def set_interface_command(self, interface: str, data: Any, topic: Optional[str] = None,
                              received: Optional[float] = None) -> None:
        """
        Store a ros2_control-style array command for one interface, ordered by ``joints``.

        The joints named by ``command_joints`` get this interface only (others cleared).

        :raises InputRejected: the message is dropped (and counted); buffers are unchanged
        """
        if interface not in FIELDS:
            raise TransmissionValueError('interface', interface, f'one of {FIELDS}')
        topic = topic or f'{interface}_commands'
        try:
            x = field_array(data, len(self.command_joints), interface)
            if x is None:
                raise InputRejected('empty', 'no values')
        except InputRejected as e:
            self.drops.reject(topic, e)
            raise
        self.commands.store(self._command_idx, {interface: x}, self._arrival(received))

    def reset_commands(self) -> None:
        """Forget every joint command (e.g. on activation) and any held position."""
        self.commands.reset()

    # ------------------------------------------------------------------ cycle
    def update(self) -> CycleOutput:
        """Run one cycle: joint states from actuator states, actuator commands from commands."""
        now = self.clock()
        return CycleOutput(self.joint_states(now), self.actuator_commands(now))

    def joint_states(self, now: Optional[float] = None) -> Optional[JointOutput]:
        """
        Return the joint states of the latest actuator states (the state half of a cycle).

        None when no joint is known (or, with ``stale_joints: omit``, none is fresh).

        :param now: the steady time of the watchdog (default: :attr:`clock`)
        """
        return self.states.joint_states(self.clock() if now is None else now)

    def actuator_commands(self, now: Optional[float] = None) -> List[CommandOutput]:
        """
        Return the actuator command messages of the latest joint commands (the command half).

        Nonlinear maps are linearised at the joint positions :meth:`joint_states` converted last.

        :param now: the steady time of the watchdog (default: :attr:`clock`)
        """
        return self.commands.actuator_commands(self.clock() if now is None else now,
                                               self.states.state['position'],
                                               self.states.last_joint_position)

    def diagnostics(self, prefix: str, lifecycle_state: str = 'active'
                    ) -> List[DiagnosticRecord]:
        """Return one status for the interface and one per transmission (a new rate window)."""
        return interface_diagnostics(self, prefix, lifecycle_state)


def _check_choice(name: str, value: Any, choices: Sequence[str]) -> None:
    if value not in choices:
        raise TransmissionValueError(name, value, f'one of {tuple(choices)}')
