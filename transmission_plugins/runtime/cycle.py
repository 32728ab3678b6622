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
What the hardware and the simulation interface share: settings, buffers, counters, diagnostics.

:class:`InterfaceCycle` is the common base of
:class:`~.hardware_interface.HardwareInterface` (actuator states to joint states, joint commands
to actuator commands) and :class:`~.sim_interface.SimInterface` (the mirror: joint states to
actuator states, actuator commands to joint commands).  A subclass names its direction
(:attr:`InterfaceCycle.TO_JOINTS`) and its topics, and adds its inputs and its ``update()``;
everything else (the state and command sides, watchdog settings, counters, timing, drop counts,
diagnostics) is here, once.
"""

import math
import time
from typing import Any
from typing import Callable
from typing import Sequence

from transmission_plugins.core.exceptions import TransmissionValueError
from transmission_plugins.robot.robot_transmissions import RobotTransmissions
from transmission_plugins.runtime.commands import CommandOutput
from transmission_plugins.runtime.commands import LatestCommands
from transmission_plugins.runtime.commands import TIMEOUT_ACTIONS
from transmission_plugins.runtime.counters import Counters
from transmission_plugins.runtime.diagnostics import DiagnosticRecord
from transmission_plugins.runtime.diagnostics import interface_diagnostics
from transmission_plugins.runtime.messages import DropCounts
from transmission_plugins.runtime.messages import InputRejected
from transmission_plugins.runtime.messages import NameIndex
from transmission_plugins.runtime.states import LatestStates
from transmission_plugins.runtime.states import STALE_JOINT_POLICIES
from transmission_plugins.runtime.states import StateOutput
from transmission_plugins.runtime.timing import CycleTimer
from transmission_plugins.runtime.topology import Topology


class InterfaceCycle:
    """
    Latest-value buffers, watchdogs, limits, counters and timing of one interface node.

    :param robot: a ``RobotTransmissions`` (joint and actuator names, array maps, limits)
    :param state_timeout: seconds after which a state is stale; <= 0 disables
    :param command_timeout: seconds after which a command expires; <= 0 disables
    :param enforce_limits: clamp commands to the limits of both sides
    :param timeout_action: one of :data:`~.commands.TIMEOUT_ACTIONS`
    :param stale_joints: one of :data:`~.states.STALE_JOINT_POLICIES`
    :param clock: steady clock in seconds (``time.monotonic``); tests inject their own
    :raises TransmissionValueError: a setting outside its range
    """

    #: True: actuator states to joint states and joint commands to actuator commands
    TO_JOINTS = True
    #: the topics of the state output and of the command input
    STATE_OUTPUT_TOPIC = ''
    COMMAND_TOPIC = ''

    def __init__(self, robot: RobotTransmissions, *, state_timeout: float,
                 command_timeout: float, enforce_limits: bool, timeout_action: str,
                 stale_joints: str, clock: Callable[[], float] = time.monotonic) -> None:
        check_choice('timeout_action', timeout_action, TIMEOUT_ACTIONS)
        check_choice('stale_joints', stale_joints, STALE_JOINT_POLICIES)
        for name, value in (('state_timeout', state_timeout),
                            ('command_timeout', command_timeout)):
            if not isinstance(value, (int, float)) or math.isnan(value):
                raise TransmissionValueError(name, value, 'a number of seconds (<= 0: off)')
        self.robot = robot
        self.clock = clock
        self.joint_names: list[str] = list(robot.joint_names)
        self.actuator_names: list[str] = list(robot.actuator_names)
        self._joints = NameIndex(self.joint_names, 'joint')
        self._actuators = NameIndex(self.actuator_names, 'actuator')
        self.topology = Topology(robot)
        self.counters = Counters(len(self.joint_names), len(self.actuator_names))
        self.states = LatestStates(self.topology, self.TO_JOINTS, self.counters, state_timeout,
                                   clock, stale_joints)
        self.commands = LatestCommands(self.topology, not self.TO_JOINTS, self.counters,
                                       command_timeout, enforce_limits, timeout_action)
        self.timer = CycleTimer()
        #: dropped messages per topic and reason
        self.drops = DropCounts()

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
        """Return what expired commands send (:data:`~.commands.TIMEOUT_ACTIONS`)."""
        return self.commands.timeout_action

    @timeout_action.setter
    def timeout_action(self, value: str) -> None:
        check_choice('timeout_action', value, TIMEOUT_ACTIONS)
        self.commands.timeout_action = value

    @property
    def stale_joints(self) -> str:
        """Return the stale policy of the state output (:data:`~.states.STALE_JOINT_POLICIES`)."""
        return self.states.stale_joints

    @stale_joints.setter
    def stale_joints(self, value: str) -> None:
        check_choice('stale_joints', value, STALE_JOINT_POLICIES)
        self.states.stale_joints = value
        self.states.invalidate()

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

    # ------------------------------------------------------------------ timing
    @property
    def period(self) -> float | None:
        """Return the cycle period in seconds (None: no overrun check)."""
        return self.timer.period

    @period.setter
    def period(self, value: float | None) -> None:
        self.timer.period = value
        self.commands.period = value

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


def check_choice(name: str, value: Any, choices: Sequence[str]) -> None:
    """
    Check a setting that takes one of ``choices``.

    :raises TransmissionValueError: naming the setting, the value and the choices
    """
    if value not in choices:
        raise TransmissionValueError(name, value, f'one of {tuple(choices)}')
