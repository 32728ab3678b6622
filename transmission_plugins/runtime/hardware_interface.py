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

:class:`HardwareInterface` adds to the shared cycle (:class:`~.cycle.InterfaceCycle`) its
inputs, the soft and rate limits and the calibration.  A rejected message raises
:class:`~.messages.InputRejected` and leaves every buffer untouched; messages carry their
arrival time (``received``, steady clock) when the caller knows it: the watchdogs count from
arrival, not from when a callback got to run.
"""

import math
import time
from typing import Any
from typing import Callable
from typing import Mapping
from typing import NamedTuple
from typing import Sequence

import numpy as np

from transmission_plugins.core.exceptions import TransmissionValueError
from transmission_plugins.robot.robot_transmissions import RobotTransmissions
from transmission_plugins.runtime.calibration import Calibration
from transmission_plugins.runtime.calibration import CalibrationSettings
from transmission_plugins.runtime.calibration_file import CalibrationFileError
from transmission_plugins.runtime.calibration_file import write_calibration_file
from transmission_plugins.runtime.commands import CommandOutput
from transmission_plugins.runtime.cycle import CycleSettings
from transmission_plugins.runtime.cycle import InterfaceCycle
from transmission_plugins.runtime.diagnostics import calibration_diagnostics
from transmission_plugins.runtime.diagnostics import DiagnosticRecord
from transmission_plugins.runtime.diagnostics import drivetrain_diagnostics
from transmission_plugins.runtime.diagnostics import series_elastic_diagnostics
from transmission_plugins.runtime.drivetrain import cycle_drivetrain
from transmission_plugins.runtime.drivetrain import state_backlash
from transmission_plugins.runtime.messages import field_array
from transmission_plugins.runtime.messages import FIELDS
from transmission_plugins.runtime.messages import InputRejected
from transmission_plugins.runtime.messages import NameIndex
from transmission_plugins.runtime.messages import read_message
from transmission_plugins.runtime.series_elastic import cycle_series_elastic
from transmission_plugins.runtime.soft_limits import joint_bounds
from transmission_plugins.runtime.soft_limits import rate_limits
from transmission_plugins.runtime.states import StateOutput

__all__ = ['CycleOutput', 'HardwareInterface']


class CycleOutput(NamedTuple):
    """What one :meth:`HardwareInterface.update` produces."""

    joint_states: StateOutput | None
    actuator_commands: list[CommandOutput]


class HardwareInterface(InterfaceCycle):
    """
    Latest-value buffers, watchdogs, limits and conversions between actuators and joints.

    The other parameters are :class:`~.cycle.InterfaceCycle`'s.

    :param command_joints: joint order of the per-interface array commands; default: every
        commandable joint in URDF order
    :param joint_limits: ros2_control's joint_limits parameters per joint, ``{joint: {key:
        value}}`` (:data:`~.soft_limits.JOINT_LIMIT_PARAMETERS`: acceleration, deceleration and
        jerk limits)
    :param calibration: the calibration settings (:mod:`~.calibration`; default: none needed)
    :param effort_unit: what the actuator topics' effort fields hold: ``torque`` or
        ``current`` (:data:`~.drivetrain.EFFORT_UNITS`)
    :raises TransmissionValueError: a setting outside its range, ``command_joints`` that
        are not distinct commandable joints, ``joint_limits`` or calibration settings that do
        not fit the robot, ``effort_unit`` ``current`` with actuators without a torque constant
    :raises CalibrationFileError: the calibration file does not fit the robot
    """

    TO_JOINTS = True
    STATE_OUTPUT_TOPIC = 'joint_states'
    COMMAND_TOPIC = 'joint_commands'

    def __init__(self, robot: RobotTransmissions, settings: CycleSettings | None = None, *,
                 command_joints: Sequence[str] | None = None,
                 joint_limits: Mapping[str, Mapping[str, Any]] | None = None,
                 calibration: CalibrationSettings | None = None, effort_unit: str = 'torque',
                 clock: Callable[[], float] = time.monotonic, **changes: Any) -> None:
        super().__init__(robot, settings, clock=clock, **changes)
        #: decided here from the robot's data: None when it has nothing to do
        self.drivetrain = cycle_drivetrain(robot, self.states, effort_unit)
        #: the dead bands of the joints and actuators with backlash (joint states), or None
        self.states.play = state_backlash(robot)
        self.commands.drivetrain = self.drivetrain
        #: decided here from the robot's data: the series-elastic transmissions and the
        #: actuators that take no command (:mod:`~.series_elastic`), else None
        self.series_elastic = cycle_series_elastic(robot, self.states)
        if self.series_elastic is not None:
            self.commands.series_elastic = self.series_elastic
            self.states.effort_from_motion = self.series_elastic.joint_mask
        self.command_joints = self.joint_order(command_joints)
        self._command_idx = self._joints.lookup(self.command_joints)
        self._joints.forget()
        self._rates = rate_limits(self.joint_names, joint_limits or {})
        self.commands.bounds = joint_bounds(robot, self._rates, self.settings.soft_limits)
        self.commands.measured = lambda: (self.states.last_position, self.states.last_velocity)
        wanted = calibration if calibration is not None else CalibrationSettings()
        #: the actuator offsets and the calibration of each transmission
        self.calibration = Calibration(robot, self.topology, wanted)
        self.require_calibration = bool(wanted.require_calibration)
        self._switches = NameIndex(self.calibration.switch_names, 'reference switch')
        self._absolutes = NameIndex(list(wanted.absolute_encoders), 'absolute encoder')
        #: joints whose commands are refused (not calibrated, or being homed)
        self.refused = np.zeros(len(self.joint_names), dtype=bool)
        self._apply_calibration()

    @property
    def soft_limits(self) -> bool:
        """Return True when joint commands are clamped to the soft limits too."""
        return self.settings.soft_limits

    def apply(self, settings: CycleSettings) -> None:
        """Take new settings; a change of ``soft_limits`` changes the joint bounds at once."""
        soft = self.settings.soft_limits
        super().apply(settings)
        if settings.soft_limits != soft:
            self.commands.bounds = joint_bounds(self.robot, self._rates, settings.soft_limits)

    # ------------------------------------------------------------------ inputs
    def set_actuator_state(self, names: Sequence[str], position: Any = (), velocity: Any = (),
                           effort: Any = (), topic: str = 'actuator_states',
                           received: float | None = None) -> None:
        """
        Store an actuator state message (any subset of actuators and fields).

        Fields absent from the message become unknown for the actuators it names.

        :param received: when the message arrived, on :attr:`clock` (default: now)
        :raises InputRejected: the message is dropped (and counted); buffers are unchanged
        """
        idx, values = self._read(topic, read_message, self._actuators, names, position,
                                 velocity, effort)
        drivetrain = self.drivetrain
        if drivetrain is not None and drivetrain.current and 'effort' in values:
            values['effort'] = drivetrain.state_effort(idx, values['effort'])
        arrival = self._arrival(received)
        self.states.store(idx, values, arrival)
        if self.calibration.pending():   # it keeps positions a later message may not carry
            self.calibration.observe(idx, values.get('position'), arrival)

    def set_joint_command(self, names: Sequence[str], position: Any = (), velocity: Any = (),
                          effort: Any = (), topic: str = 'joint_commands',
                          received: float | None = None) -> None:
        """
        Store a joint command (any subset of joints and fields).

        A command replaces every field of the joints it names: absent fields are cleared.

        :param received: when the message arrived, on :attr:`clock` (default: now)
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
        self._check_calibrated(idx)
        return idx, values

    def _check_calibrated(self, idx: np.ndarray) -> None:
        """Refuse commands naming joints that are not calibrated or are being homed."""
        if not self.refused[idx].any():
            return
        names = [self.joint_names[i] for i in idx if self.refused[i]]
        raise InputRejected('uncalibrated', f'joints {names[:5]} are not calibrated yet '
                                            '(homing, or waiting for absolute positions: see '
                                            '/diagnostics); their commands are refused until '
                                            'they are (require_calibration)')

    def set_reference_switch(self, names: Sequence[str], position: Any = (),
                             velocity: Any = (), effort: Any = (),
                             received: float | None = None) -> None:
        """
        Store reference switch readings (``reference_switches``: ``position`` >= 0.5 is on).

        Names are joints with a switch (or the actuator of a one-switch transmission).

        :raises InputRejected: the message is dropped (and counted)
        """
        idx, values = self._read('reference_switches', self._position_only, self._switches,
                                 names, position, velocity, effort)
        raw = self.calibration.known_positions(self._arrival(received), self.state_timeout)
        self.calibration.switch(idx, values, raw)

    def set_absolute_positions(self, names: Sequence[str], position: Any = (),
                               velocity: Any = (), effort: Any = (),
                               received: float | None = None) -> None:
        """
        Store absolute encoder readings (``absolute_positions``, ``absolute_encoders`` names).

        Joint readings of a calibrated transmission are compared with its motors
        (:meth:`Calibration.watch`): a slip refuses its joints' commands and stops them.

        :raises InputRejected: the message is dropped (and counted)
        """
        idx, values = self._read('absolute_positions', self._position_only, self._absolutes,
                                 names, position, velocity, effort)
        cal = self.calibration
        cal.absolute(idx, values)
        if not cal.encoders.watched:
            return
        now = self._arrival(received)
        states = self.states
        slipped = cal.watch(idx, values, states.state['position'], states.state['velocity'],
                            states.fresh(now), now - states.state_time)
        for k in slipped:   # stopped where they are, as a failed homing leaves them
            active = self.topology.groups[k].active
            self.commands.store(active, {'velocity': np.zeros(len(active))}, now)
        if slipped:
            self._apply_calibration()

    @staticmethod
    def _position_only(index: NameIndex, names: Sequence[str], position: Any, velocity: Any,
                       effort: Any) -> Any:
        idx, values = read_message(index, names, position, velocity, effort)
        if set(values) != {'position'}:
            raise InputRejected('bad_type', 'expected positions only (velocity and effort have '
                                            'no meaning here)')
        return idx, values['position']

    def set_interface_command(self, interface: str, data: Any, topic: str | None = None,
                              received: float | None = None) -> None:
        """
        Store a ros2_control-style array command for one interface, ordered by ``joints``.

        The joints named by ``command_joints`` get this interface only (others cleared).

        :raises InputRejected: the message is dropped (and counted); buffers are unchanged
        """
        if interface not in FIELDS:
            raise TransmissionValueError('interface', interface, f'one of {FIELDS}')
        x = self._read(topic or f'{interface}_commands', array_values, data,
                       len(self.command_joints), interface)
        self._read(topic or f'{interface}_commands', self._check_calibrated, self._command_idx)
        self.commands.store(self._command_idx, {interface: x}, self._arrival(received))

    # ------------------------------------------------------------------ cycle
    def update(self) -> CycleOutput:
        """Run one cycle: joint states from actuator states, actuator commands from commands."""
        now = self.clock()
        return CycleOutput(self.joint_states(now), self.actuator_commands(now))

    #: the joint states of the latest actuator states (the state half of a cycle)
    joint_states = InterfaceCycle.state_output

    @property
    def has_springs(self) -> bool:
        """Return True when the robot has series-elastic joints (``joint_deflections``)."""
        return self.series_elastic is not None and bool(self.series_elastic.springs)

    def joint_deflections(self, now: float | None = None) -> StateOutput | None:
        """
        Return the ``joint_deflections`` message of the latest actuator states.

        Names: the series-elastic joints measured now (fresh actuators, finite positions and
        velocities); position: the spring's deflection at the joint, velocity: its rate,
        effort: the spring's torque (``joint_states``' effort).  None when none is measured,
        or the robot has no spring.  Call it after :meth:`joint_states` of the same cycle.
        """
        if self.series_elastic is None or not self.series_elastic.springs:
            return None
        return self.series_elastic.output(self.clock() if now is None else now)
    #: the actuator commands of the latest joint commands (the command half of a cycle)
    actuator_commands = InterfaceCycle.command_output

    # ------------------------------------------------------------------ calibration
    def _advance(self, now: float) -> None:
        """
        Advance the thermal estimate and the calibration; apply new offsets; save them.

        Both halves of a cycle call it with the same ``now``: the second changes nothing.
        """
        if self.drivetrain is not None:
            self.drivetrain.heat(now)
        cal = self.calibration
        if not cal.pending():
            return
        changed, commands = cal.step(now, cal.known_positions(now, self.state_timeout))
        for idx, v in commands:
            self.commands.store(idx, {'velocity': v}, now)
        if changed:
            self._apply_calibration()
        path = cal.settings.calibration_file
        if cal.unsaved and cal.homing_finished():
            cal.unsaved = False
            if not path:
                return
            offsets = cal.calibrated_offsets()
            bad = [n for n, x in offsets.items() if not math.isfinite(x)]
            if bad:     # never stored: the file keeps its last good calibration
                cal.events.append(('error', f'calibration not written to {path}: the offsets '
                                            f'of {bad[:10]} are not finite; the file keeps its '
                                            'previous calibration'))
                return
            try:
                write_calibration_file(path, self.robot.robot_name, offsets,
                                       'written by transmission_hardware_interface after '
                                       'homing')
            except CalibrationFileError as e:
                cal.events.append(('error', f'{e}; the offsets found are used, not stored'))
            else:
                cal.events.append(('info', f'calibration written to {path}'))

    def _apply_calibration(self) -> None:
        """Give the states and commands the offsets; hide and refuse uncalibrated joints."""
        cal = self.calibration
        uncalibrated = cal.joint_uncalibrated()
        self.states.set_offsets(cal.offset, uncalibrated if self.require_calibration else None)
        self.commands.position_offset = cal.offset.copy() if cal.offset.any() else None
        self.refused = cal.joint_homing() | (uncalibrated & self.require_calibration)

    def diagnostics(self, prefix: str, lifecycle_state: str = 'active'
                    ) -> list[DiagnosticRecord]:
        """Return the shared statuses (:meth:`.InterfaceCycle.diagnostics`) with calibration."""
        records = calibration_diagnostics(self, super().diagnostics(prefix, lifecycle_state))
        if self.drivetrain is not None:
            records = drivetrain_diagnostics(self, records)
        if self.series_elastic is not None:
            records = series_elastic_diagnostics(self, records)
        return records


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
