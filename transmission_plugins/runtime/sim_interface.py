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

r"""
The per-cycle logic of the simulation interface node, free of ROS: the hardware interface's mirror.

A joint-space simulator (Gazebo through gz_ros2_control, MuJoCo, Isaac, Drake) publishes
``joint_states`` and takes ``joint_commands``; motor-level software (drivers, actuator
controllers, calibration) speaks ``actuator_states`` and ``actuator_commands``.
:class:`SimInterface` sits between them, the hardware interface's cycle run the other way:

* joint states in, actuator states out, through the joint-to-actuator maps

  .. math:: \theta = f(q), \quad \dot\theta = J(q)\,\dot q, \quad \tau_a = J(q)^{-T}\tau_j

  where :math:`J = \partial\theta/\partial q`: constant for the linear transmissions, whose
  power :math:`\tau_a\cdot\dot\theta = \tau_j\cdot\dot q` is conserved;
* actuator commands in, joint commands out, through the actuator-to-joint maps.

Watchdogs, limits and the conventions are the hardware interface's (doc/simulation.md).
"""

import time
from typing import Any
from typing import Callable
from typing import NamedTuple
from typing import Sequence

import numpy as np

from transmission_plugins.core.checks import FloatArray
from transmission_plugins.core.exceptions import TransmissionValueError
from transmission_plugins.robot.robot_transmissions import RobotTransmissions
from transmission_plugins.runtime.commands import CommandOutput
from transmission_plugins.runtime.cycle import CycleSettings
from transmission_plugins.runtime.cycle import InterfaceCycle
from transmission_plugins.runtime.messages import all_true
from transmission_plugins.runtime.messages import FIELDS
from transmission_plugins.runtime.messages import read_message
from transmission_plugins.runtime.messages import read_partial_message
from transmission_plugins.runtime.messages import repeated
from transmission_plugins.runtime.states import StateOutput

__all__ = ['SimCycleOutput', 'SimInterface']


class SimCycleOutput(NamedTuple):
    """What one :meth:`SimInterface.update` produces."""

    actuator_states: StateOutput | None
    joint_commands: list[CommandOutput]
    #: interface -> joint values in ``command_joints`` order, for each interface of
    #: ``array_commands`` whose every joint was commanded this cycle
    array_commands: dict[str, FloatArray]


class SimInterface(InterfaceCycle):
    """
    Joint states to actuator states, actuator commands to joint commands (module docstring).

    The other parameters are :class:`~.cycle.InterfaceCycle`'s.

    :param command_joints: joint order of the ``*_commands`` arrays; default: every
        commandable joint in URDF order
    :param array_commands: the interfaces (``position``, ``velocity``, ``effort``) published
        as arrays too; default: none
    :raises TransmissionValueError: a setting outside its range, ``command_joints`` that are
        not distinct commandable joints, or unknown ``array_commands``
    """

    TO_JOINTS = False
    STATE_OUTPUT_TOPIC = 'actuator_states'
    COMMAND_TOPIC = 'actuator_commands'
    #: stale joints' actuators are left out of actuator_states by default
    DEFAULTS = CycleSettings(stale_joints='omit')

    def __init__(self, robot: RobotTransmissions, settings: CycleSettings | None = None, *,
                 command_joints: Sequence[str] | None = None,
                 array_commands: Sequence[str] = (),
                 clock: Callable[[], float] = time.monotonic, **changes: Any) -> None:
        super().__init__(robot, settings, clock=clock, **changes)
        self.command_joints = self.joint_order(command_joints)
        position = {n: i for i, n in enumerate(self.joint_names)}
        self._command_idx = np.array([position[n] for n in self.command_joints], dtype=np.intp)
        #: the interfaces also published as ``<interface>_commands`` arrays
        self.array_commands: tuple[str, ...] = tuple(array_commands)
        if any(v not in FIELDS for v in self.array_commands) or repeated(self.array_commands):
            raise TransmissionValueError('array_commands', list(self.array_commands),
                                         f'distinct interfaces among {FIELDS}')

    # ------------------------------------------------------------------ inputs
    def set_joint_state(self, names: Sequence[str], position: Any = (), velocity: Any = (),
                        effort: Any = (), topic: str = 'joint_states',
                        received: float | None = None) -> None:
        """
        Store a simulator's joint state message (any joints and fields).

        Names of joints no transmission drives are ignored, and so are their values.  Fields
        absent from the message become unknown for the joints it names.

        :param received: when the message arrived, on :attr:`clock` (default: now)
        :raises InputRejected: the message is dropped (and counted); buffers are unchanged
        """
        idx, values = self._read(topic, read_partial_message, self._joints, names, position,
                                 velocity, effort)
        self.states.store(idx, values, self._arrival(received))

    def set_actuator_command(self, names: Sequence[str], position: Any = (),
                             velocity: Any = (), effort: Any = (),
                             topic: str = 'actuator_commands',
                             received: float | None = None) -> None:
        """
        Store an actuator command (any subset of actuators and fields).

        A command replaces every field of the actuators it names: absent fields are cleared.

        :param received: when the message arrived, on :attr:`clock` (default: now)
        :raises InputRejected: the message is dropped (and counted); buffers are unchanged
        """
        idx, values = self._read(topic, read_message, self._actuators, names, position,
                                 velocity, effort)
        self.commands.store(idx, values, self._arrival(received))

    # ------------------------------------------------------------------ cycle
    def update(self) -> SimCycleOutput:
        """Run one cycle: actuator states from joint states, joint commands from commands."""
        now = self.clock()
        actuators = self.actuator_states(now)
        return SimCycleOutput(actuators, self.joint_commands(now), self.array_outputs())

    #: the actuator states of the latest joint states (the state half of a cycle)
    actuator_states = InterfaceCycle.state_output
    #: the joint commands of the latest actuator commands (the command half of a cycle;
    #: :meth:`array_outputs` then holds its arrays)
    joint_commands = InterfaceCycle.command_output

    def array_outputs(self) -> dict[str, FloatArray]:
        """
        Return the ``*_commands`` arrays of the last :meth:`joint_commands`.

        :returns: interface -> joint values in ``command_joints`` order, for each interface of
            ``array_commands`` whose every joint was commanded
        """
        arrays: dict[str, FloatArray] = {}
        latest = self.commands.latest
        if latest:
            for interface in self.array_commands:
                x = latest[interface][self._command_idx]
                if x.size and all_true(np.isfinite(x)):
                    arrays[interface] = x
        return arrays
