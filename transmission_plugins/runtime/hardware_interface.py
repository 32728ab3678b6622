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

import time
from typing import Any
from typing import Callable
from typing import List
from typing import NamedTuple
from typing import Optional
from typing import Sequence

import numpy as np

from transmission_plugins.core.exceptions import TransmissionValueError
from transmission_plugins.robot.robot_transmissions import RobotTransmissions
from transmission_plugins.runtime.commands import CommandOutput
from transmission_plugins.runtime.commands import JointCommands
from transmission_plugins.runtime.commands import TIMEOUT_ACTIONS
from transmission_plugins.runtime.counters import CLAMP_KINDS
from transmission_plugins.runtime.cycle import InterfaceCycle
from transmission_plugins.runtime.diagnostics import DiagnosticRecord
from transmission_plugins.runtime.diagnostics import ERROR
from transmission_plugins.runtime.diagnostics import OK
from transmission_plugins.runtime.diagnostics import STALE
from transmission_plugins.runtime.diagnostics import WARN
from transmission_plugins.runtime.messages import DROP_REASONS
from transmission_plugins.runtime.messages import field_array
from transmission_plugins.runtime.messages import FIELDS
from transmission_plugins.runtime.messages import InputRejected
from transmission_plugins.runtime.messages import read_message
from transmission_plugins.runtime.states import ActuatorStates
from transmission_plugins.runtime.states import JointOutput
from transmission_plugins.runtime.states import STALE_JOINT_POLICIES

__all__ = ['CLAMP_KINDS', 'CommandOutput', 'CycleOutput', 'DROP_REASONS', 'DiagnosticRecord',
           'ERROR', 'FIELDS', 'HardwareInterface', 'InputRejected', 'JointOutput', 'OK', 'STALE',
           'STALE_JOINT_POLICIES', 'TIMEOUT_ACTIONS', 'WARN']


class CycleOutput(NamedTuple):
    """What one :meth:`HardwareInterface.update` produces."""

    joint_states: Optional[JointOutput]
    actuator_commands: List[CommandOutput]


class HardwareInterface(InterfaceCycle):
    """
    Latest-value buffers, watchdogs, limits and conversions between actuators and joints.

    The settings, counters, timing and diagnostics are the shared ones of
    :class:`~.cycle.InterfaceCycle`.

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

    STATES = ActuatorStates
    COMMANDS = JointCommands
    STATE_TOPIC = 'actuator_states'
    STATE_OUTPUT_TOPIC = 'joint_states'
    COMMAND_TOPIC = 'joint_commands'
    COMMAND_OUTPUT_TOPIC = 'actuator_commands'
    states: ActuatorStates
    commands: JointCommands

    def __init__(self, robot: RobotTransmissions, *, state_timeout: float = 0.1,
                 command_timeout: float = 0.5, enforce_limits: bool = True,
                 command_joints: Optional[Sequence[str]] = None, timeout_action: str = 'stop',
                 stale_joints: str = 'last',
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(robot, state_timeout=state_timeout, command_timeout=command_timeout,
                         enforce_limits=enforce_limits, timeout_action=timeout_action,
                         stale_joints=stale_joints, clock=clock)
        self.command_joints = self.joint_order(command_joints)
        self._command_idx = self._joints.lookup(self.command_joints)
        self._joints.forget()

    def fresh_actuators(self, now: Optional[float] = None) -> np.ndarray:
        """Return a boolean mask of the actuators whose state is within ``state_timeout``."""
        return self.states.fresh(now)

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
        idx, values = self._read(topic, read_message, self._actuators, names, position,
                                 velocity, effort)
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
        idx, values = self._read(topic, self._read_joint_command, names, position, velocity,
                                 effort)
        self.commands.store(idx, values, self._arrival(received))

    def _read_joint_command(self, names: Sequence[str], position: Any, velocity: Any,
                            effort: Any) -> Any:
        idx, values = read_message(self._joints, names, position, velocity, effort)
        passive = [self.joint_names[i] for i in idx if not self.topology.commandable[i]]
        if passive:
            raise InputRejected('not_commandable',
                                f'joints {passive[:5]} are passive and cannot be commanded')
        return idx, values

    def set_interface_command(self, interface: str, data: Any, topic: Optional[str] = None,
                              received: Optional[float] = None) -> None:
        """
        Store a ros2_control-style array command for one interface, ordered by ``joints``.

        The joints named by ``command_joints`` get this interface only (others cleared).

        :raises InputRejected: the message is dropped (and counted); buffers are unchanged
        """
        if interface not in FIELDS:
            raise TransmissionValueError('interface', interface, f'one of {FIELDS}')
        x = self._read(topic or f'{interface}_commands', array_values, data,
                       len(self.command_joints), interface)
        self.commands.store(self._command_idx, {interface: x}, self._arrival(received))

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


def array_values(data: Any, count: int, interface: str) -> np.ndarray:
    """
    Return a ``Float64MultiArray``'s values for ``count`` joints.

    :raises InputRejected: as :func:`~.messages.field_array`, or ``empty`` without values
    """
    try:
        x = field_array(data, count, interface)
    except InputRejected as e:
        if e.reason != 'length_mismatch':
            raise
        raise InputRejected('length_mismatch', f'{len(data)} {interface} values, expected '
                            f'{count}: one per joint of the joints parameter (ros2 param get '
                            '<node> joints), in that order') from None
    if x is None:
        raise InputRejected('empty', 'no values')
    return x
