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
Calibration at start-up: the actuator offsets, and which joints are not calibrated yet.

Each actuator has an offset :math:`c`: its measured position at its calibrated zero; the
hardware interface subtracts it from measured positions and adds it to position commands.  All
offsets start at 0 (a robot whose drivers report calibrated positions needs nothing), then:

1. the calibration file (:mod:`~.calibration_file`) sets the offsets it holds;
2. a transmission whose actuators (or whose joints read by its map) are all named by
   ``absolute_encoders`` is calibrated when their readings arrive on ``absolute_positions``
   (:meth:`Calibration.absolute`): :math:`c = r - \theta` with :math:`r` the measured position
   and :math:`\theta` the absolute reading (a joint reading :math:`q` gives
   :math:`\theta = g(q)`).  A single-turn reading (``single_turn_encoders``) is known up to whole
   turns (:math:`2\pi`): the turn is the one that puts the joints inside their limits, which
   must be unique (checked at configure: the joint range must be narrower than what one turn
   moves the joint);
3. with ``homing``, a transmission with reference switches (:mod:`~.homing`) that steps 1 and 2
   left uncalibrated is homed; the offsets are then written to the calibration file.

A transmission whose joints are read (step 2, joint side) whose motors are all named in
``single_turn_motor_encoders`` keeps the offsets of step 1 and takes the whole motor turns
from the joint readings (:meth:`~.integrity.EncoderPairs.turns`); once calibrated, every joint
reading is compared with its motors (:meth:`Calibration.watch`): a disagreement makes it
``slipped``, not calibrated, with its offsets and the file left as they were
(:mod:`~.integrity`).

A transmission is *calibrated* when every step it needs is done.  A joint of an uncalibrated
transmission is left out of ``joint_states`` and its commands are refused (unless
``require_calibration`` is false: then it is used with the offsets known so far); a transmission
being homed refuses commands in any case.
"""

import math
from typing import Any
from typing import NamedTuple
from typing import Sequence

import numpy as np

from transmission_plugins.core.exceptions import TransmissionValueError
from transmission_plugins.runtime.calibration_file import read_calibration_file
from transmission_plugins.runtime.homing import check_homeable
from transmission_plugins.runtime.homing import SwitchJoint
from transmission_plugins.runtime.homing import TransmissionHoming
from transmission_plugins.runtime.integrity import EncoderPairs
from transmission_plugins.runtime.integrity import JOINT_RESOLUTION
from transmission_plugins.runtime.integrity import MOTOR_RESOLUTION
from transmission_plugins.runtime.integrity import TURN
from transmission_plugins.runtime.integrity import turn_moves
from transmission_plugins.runtime.topology import Topology

#: how far outside its limits an unwrapped reading may put a joint (rounding, a joint resting
#: on its stop)
UNWRAP_TOLERANCE = 1e-3
#: the largest absolute reading taken as a position (rad or m): 2**24 turns of a multi-turn
#: encoder are 1.05e8 rad, and a double still resolves 1e-7 rad at 1e9
MAX_READING = 1e9
#: the states of a calibrated transmission
CALIBRATED = ('not_needed', 'file', 'absolute', 'homed')
#: the states whose offsets go to the calibration file: a slipped transmission keeps the ones
#: it had before it slipped
STORED = ('file', 'absolute', 'homed', 'slipped')


def absurd_readings(readings: np.ndarray, turns: np.ndarray, names: Sequence[str]) -> str:
    """
    Return why absolute readings cannot be positions ('' when they can).

    A single-turn reading (``turns``) lies within one turn of zero (``[0, 2 pi)`` or
    ``[-pi, pi)``, as encoders report it); any reading lies within :data:`MAX_READING`.  Beyond,
    the turn chosen would be arbitrary (a double cannot tell the turns of 1e308 apart): a
    glitch or a wrong encoder setting, refused rather than stored as a calibration.
    """
    for x, turn, name in zip(readings, turns, names):
        if turn and not abs(x) <= TURN * (1.0 + 1e-9):
            return (f'the single-turn reading {float(x)!r} of {name} is not within one turn '
                    '(|reading| <= 2 pi): not a single-turn position (a glitch, or the encoder '
                    'is not single-turn?); refused')
        if not abs(x) <= MAX_READING:
            return (f'the absolute reading {float(x)!r} of {name} is not a position (beyond '
                    f'+-{MAX_READING:g} rad or m, more than any encoder counts); refused')
    return ''


class CalibrationSettings(NamedTuple):
    """The calibration parameters of the hardware interface (doc/nodes.md)."""

    calibration_file: str = ''
    homing: bool = False
    homing_joints: Sequence[str] = ()
    homing_speed: float = 0.1
    homing_timeout: float = 30.0
    absolute_encoders: Sequence[str] = ()
    single_turn_encoders: Sequence[str] = ()
    require_calibration: bool = True
    single_turn_motor_encoders: Sequence[str] = ()
    integrity_tolerance: float = 0.0
    joint_encoder_resolution: float = JOINT_RESOLUTION
    motor_encoder_resolution: float = MOTOR_RESOLUTION


class Calibration:
    """
    The offsets of every actuator and the calibration of every transmission (module doc).

    :param robot: the ``RobotTransmissions``
    :param topology: its index groups
    :param settings: the calibration parameters
    :raises TransmissionValueError: a parameter naming what the robot has not, a homing joint
        without a switch, switches that do not fix a transmission's offsets, a single-turn
        encoder whose turn the joint range does not make unique
    :raises CalibrationFileError: the calibration file does not fit the robot
    """

    def __init__(self, robot: Any, topology: Topology, settings: CalibrationSettings) -> None:
        self.robot = robot
        self.topology = topology
        self.settings = settings
        na = len(robot.actuator_names)
        #: the actuator offsets (measured minus calibrated position)
        self.offset = np.zeros(na)
        groups = topology.groups
        #: per transmission: not_needed, file, absolute, homed, waiting_absolute,
        #: homing_pending, homing, failed or slipped
        self.state: list[str] = ['not_needed'] * len(groups)
        #: per transmission, what the state message adds (a failure, the source)
        self.detail: list[str] = [''] * len(groups)
        self.homing: dict[int, TransmissionHoming] = {}
        #: (level, line) pairs for the node's log
        self.events: list[tuple[str, str]] = []
        #: True when homing calibrated something not yet written to the file
        self.unsaved = False
        #: the latest known measured (raw) position of each actuator and when it arrived:
        #: calibration works from these, as a message may carry velocities only
        self.measured = np.full(na, np.nan)
        self.measured_time = np.full(na, -np.inf)
        self._done = False
        #: absolute readings per transmission: ``(side, names, readings or None)``
        self._absolute: dict[int, tuple[str, list[int], np.ndarray | None]] = {}
        self._plan_absolute()
        #: the transmissions whose joints are read, compared with their motors
        #: (:mod:`~.integrity`)
        self.encoders = EncoderPairs(
            robot, topology, {k: need for k, (side, need, _) in self._absolute.items()
                              if side == 'joint'}, settings.integrity_tolerance,
            settings.joint_encoder_resolution, settings.motor_encoder_resolution)
        single_turn = self._plan_single_turn_motors()
        #: per transmission re-zeroed from its stored offsets: those offsets
        self._stored: dict[int, np.ndarray] = {}
        self.switch_names, self._switch_joint = self._plan_homing()
        #: the calibration file's offsets as read: what a file written later keeps of the
        #: transmissions not calibrated then
        self._file: dict[str, float] = {}
        if settings.calibration_file:
            offsets = read_calibration_file(settings.calibration_file, robot.robot_name,
                                            robot.actuator_names)
            if offsets is not None:
                self._file = dict(offsets)
                self._apply_file(offsets)
        for k in single_turn:
            if self.state[k] == 'file':
                self._stored[k] = self.offset[topology.groups[k].actuators].copy()
        for k in self._absolute:
            if self.state[k] == 'not_needed' or self.state[k] == 'file':
                self.state[k] = 'waiting_absolute'
        for k in self.homing:
            if self.state[k] == 'not_needed':
                self.state[k] = 'homing_pending'

    # ------------------------------------------------------------------ configure-time plans
    def _group_of(self, side: str, index: int) -> int:
        for k, g in enumerate(self.topology.groups):
            if index in (g.actuators if side == 'actuator' else g.joints):
                return k
        raise AssertionError(index)

    def _plan_absolute(self) -> None:
        """Check the ``absolute_encoders`` settings; plan what each transmission needs."""
        robot, s = self.robot, self.settings
        names = list(s.absolute_encoders)
        unknown = [n for n in names
                   if n not in robot.actuator_index and n not in robot.joint_index]
        if unknown:
            raise TransmissionValueError('absolute_encoders', unknown, 'actuator or joint names '
                                         'of the robot')
        stray = [n for n in s.single_turn_encoders if n not in names]
        if stray:
            raise TransmissionValueError('single_turn_encoders', stray, 'entries of '
                                         'absolute_encoders')
        wanted: dict[int, list[tuple[str, int]]] = {}
        for n in names:
            side = 'actuator' if n in robot.actuator_index else 'joint'
            index = (robot.actuator_index if side == 'actuator' else robot.joint_index)[n]
            wanted.setdefault(self._group_of(side, index), []).append((side, index))
        for k, entries in wanted.items():
            g = self.topology.groups[k]
            t = g.transmission
            sides = {side for side, _ in entries}
            given = sorted(i for _, i in entries)
            need = [int(i) for i in (g.actuators if sides == {'actuator'} else
                                     g.joints[list(t.transmission.joint_to_actuator_inputs())])]
            if len(sides) > 1 or given != sorted(need):
                raise TransmissionValueError(
                    'absolute_encoders', [robot.actuator_names[i] if s_ == 'actuator' else
                                          robot.joint_names[i] for s_, i in entries],
                    f'all the actuators of transmission {t.name!r} '
                    f'({list(t.actuator_names)}) or all its joints its map reads '
                    f'({[robot.joint_names[i] for i in need]}): one reading per unknown')
            side = sides.pop()
            self._absolute[k] = (side, need, None)
            single = [n for n in s.single_turn_encoders
                      if (robot.actuator_index if side == 'actuator'
                          else robot.joint_index).get(n) in need]
            if single:
                self._check_single_turn(k, side, single)

    def _check_single_turn(self, k: int, side: str, single: list[str]) -> None:
        """Check that the joint range makes the turn of single-turn readings unique."""
        robot = self.robot
        g = self.topology.groups[k]
        t = g.transmission
        lower, upper = robot.joint_lower[g.joints], robot.joint_upper[g.joints]
        width = upper - lower
        if side == 'joint':
            bad = [n for n in single if robot.urdf_joints[n].type == 'prismatic']
            if bad:
                raise TransmissionValueError('single_turn_encoders', bad, 'rotary joints (a '
                                             'prismatic joint has no turns)')
            wide = [n for n in single if robot.urdf_joints[n].type != 'continuous'
                    and not width[[robot.joint_names[i] for i in g.joints].index(n)] < TURN]
            if wide:
                raise TransmissionValueError('single_turn_encoders', wide, 'joints whose range '
                                             'is narrower than one turn (2 pi): otherwise the '
                                             'reading does not tell the turn')
            return
        if not t.transmission.is_linear():
            raise TransmissionValueError('single_turn_encoders', single, 'actuators of linear '
                                         f'transmissions ({t.name!r} is nonlinear: its motor '
                                         'turns many times over the joint range)')
        cols = [list(t.actuator_names).index(n) for n in single]
        moves = turn_moves(t.transmission.linear_map()[0], cols)
        with np.errstate(invalid='ignore'):
            inside = np.all(moves < width[None, :], axis=1)
        if inside.any():
            one = moves[np.argmax(inside)]
            raise TransmissionValueError(
                'single_turn_encoders', single,
                f'actuators whose turn the joint range makes unique: transmission {t.name!r} '
                f'moves its joints by {np.round(one, 4).tolist()} per turn, within their ranges '
                f'{np.round(width, 4).tolist()} (use a multi-turn reading or the calibration '
                'file)')

    def _plan_single_turn_motors(self) -> list[int]:
        """Check ``single_turn_motor_encoders``; return the transmissions they re-zero."""
        robot, names = self.robot, list(self.settings.single_turn_motor_encoders)
        unknown = [n for n in names if n not in robot.actuator_index]
        if unknown:
            raise TransmissionValueError('single_turn_motor_encoders', unknown,
                                         'actuator names of the robot')
        read = [n for n in names if n in self.settings.absolute_encoders]
        if read:
            raise TransmissionValueError(
                'single_turn_motor_encoders', read, 'motors whose position comes in '
                'actuator_states, not in absolute_encoders (a single-turn reading on '
                'absolute_positions is single_turn_encoders)')
        by_group: dict[int, list[str]] = {}
        for n in names:
            by_group.setdefault(self._group_of('actuator', robot.actuator_index[n]),
                                []).append(n)
        for k, group in by_group.items():
            t = self.topology.groups[k].transmission
            if k not in self.encoders.watched:
                raise TransmissionValueError(
                    'single_turn_motor_encoders', group, 'motors of transmissions whose joints '
                    f'are read (absolute_encoders naming the joints of {t.name!r} its map '
                    'reads): the joint readings pick the turn')
            if sorted(group) != sorted(t.actuator_names):
                raise TransmissionValueError(
                    'single_turn_motor_encoders', group, f'all the motors of transmission '
                    f'{t.name!r} ({list(t.actuator_names)}): its offsets are stored together')
            self.encoders.check_turns_unique(k, group)
        return sorted(by_group)

    def _plan_homing(self) -> tuple[list[str], dict[str, int]]:
        """Set up homing; return the switch names accepted and switch name -> joint index."""
        robot, s = self.robot, self.settings
        joints = getattr(robot, 'urdf_joints', {})
        with_switch = [n for n in robot.joint_names
                       if getattr(joints.get(n), 'calibration', None) is not None]
        wanted = list(s.homing_joints) or (with_switch if s.homing else [])
        unknown = [n for n in wanted if n not in robot.joint_index]
        if unknown:
            raise TransmissionValueError('homing_joints', unknown, 'joints of the robot')
        bare = [n for n in wanted if n not in with_switch]
        if bare:
            raise TransmissionValueError(
                'homing_joints', bare, 'joints with a reference switch: their URDF <joint> has '
                'no <calibration rising="..."/> or falling="..." (a joint without a switch '
                'cannot be homed)')
        switch_of: dict[str, int] = {n: robot.joint_index[n] for n in with_switch}
        if not s.homing:
            return sorted(switch_of), switch_of
        by_group: dict[int, list[str]] = {}
        for n in wanted:
            by_group.setdefault(self._group_of('joint', robot.joint_index[n]), []).append(n)
        q0 = robot.default_joint_position()
        for k, names in by_group.items():
            g = self.topology.groups[k]
            t = g.transmission
            local = list(t.joint_names)
            joints = []
            for n in names:
                switch = robot.urdf_joints[n].calibration
                limit = robot.joint_velocity_limit[robot.joint_index[n]]
                speed = s.homing_speed * (limit if math.isfinite(limit) else 1.0)
                joints.append(SwitchJoint(n, local.index(n), switch.edge(), switch.direction(),
                                          speed))
            check_homeable(t.transmission, t.name, joints)
            active = np.array([local.index(robot.joint_names[i]) for i in g.active])
            self.homing[k] = TransmissionHoming(t.transmission, joints, active, q0[g.joints],
                                                s.homing_timeout)
            for a in g.actuators:   # a motor board carrying the switch of a 1-switch transmission
                if len(joints) == 1:
                    switch_of.setdefault(robot.actuator_names[a], robot.joint_index[names[0]])
        return sorted(switch_of), switch_of

    def _apply_file(self, offsets: dict[str, float]) -> None:
        robot = self.robot
        for name, value in offsets.items():
            self.offset[robot.actuator_index[name]] = value
        for k, g in enumerate(self.topology.groups):
            names = [robot.actuator_names[a] for a in g.actuators]
            if all(n in offsets for n in names):
                self.state[k] = 'file'
                self.detail[k] = self.settings.calibration_file
                self.homing.pop(k, None)   # calibrated once, not at every start

    # ------------------------------------------------------------------ state
    def joint_uncalibrated(self) -> np.ndarray:
        """Return the joints of transmissions that are not calibrated (boolean mask)."""
        out = np.zeros(len(self.robot.joint_names), dtype=bool)
        for k, g in enumerate(self.topology.groups):
            if self.state[k] not in CALIBRATED:
                out[g.joints] = True
        return out

    def joint_homing(self) -> np.ndarray:
        """Return the joints of transmissions being homed (boolean mask)."""
        out = np.zeros(len(self.robot.joint_names), dtype=bool)
        for k, g in enumerate(self.topology.groups):
            if self.state[k] in ('homing_pending', 'homing'):
                out[g.joints] = True
        return out

    def calibrated_offsets(self) -> dict[str, float]:
        """
        Return the offsets to store: those of calibrated (or slipped) transmissions.

        Over the calibration file's as read: a transmission not calibrated now (waiting for its
        absolute positions, a failed re-zero) keeps the entries it had.
        """
        robot = self.robot
        out: dict[str, float] = dict(self._file)
        for k, g in enumerate(self.topology.groups):
            if self.state[k] in STORED:
                out.update((robot.actuator_names[a], float(self.offset[a])) for a in g.actuators)
        return out

    # ------------------------------------------------------------------ absolute readings
    def absolute(self, index: np.ndarray, values: np.ndarray) -> None:
        """Store readings of the ``absolute_encoders`` entries ``index`` (calibrated later)."""
        names = list(self.settings.absolute_encoders)
        robot = self.robot
        for i, x in zip(index, values):
            name = names[int(i)]
            side = 'actuator' if name in robot.actuator_index else 'joint'
            at = (robot.actuator_index if side == 'actuator' else robot.joint_index)[name]
            k = self._group_of(side, at)
            side_, need, readings = self._absolute[k]
            readings = np.full(len(need), np.nan) if readings is None else readings
            readings[need.index(at)] = x
            self._absolute[k] = (side_, need, readings)

    def _calibrate_absolute(self, k: int, raw: np.ndarray) -> None:
        side, need, readings = self._absolute[k]
        g = self.topology.groups[k]
        if readings is None or not np.isfinite(readings).all() or \
                not np.isfinite(raw[g.actuators]).all():
            return
        robot = self.robot
        single = set(self.settings.single_turn_encoders)
        names = [(robot.actuator_names if side == 'actuator' else robot.joint_names)[i]
                 for i in need]
        turns = np.array([n in single for n in names])
        absurd = absurd_readings(readings, turns, names)
        if absurd:
            self._absolute_failed(k, absurd)
            return
        theta = self._unwrap(k, side, readings, turns)
        if theta is None:
            self._absolute_failed(k, f'the absolute readings {np.round(readings, 6).tolist()} '
                                     f'of {names} put the joints outside their limits whatever '
                                     'the turn')
            return
        if k in self._stored:
            self._rezero(k, raw, theta)
            return
        offset = raw[g.actuators] - theta
        if not np.isfinite(offset).all():   # never stored (doc/calibration.md)
            self._absolute_failed(k, f'the absolute readings {readings.tolist()} of {names} '
                                     f'give offsets {offset.tolist()} that are not finite')
            return
        self.offset[g.actuators] = offset
        self.state[k], self.detail[k] = 'absolute', ', '.join(names)
        self.events.append(('info', f'transmission {g.transmission.name!r} calibrated from '
                                    f'absolute positions: offsets {self._offsets_text(k)}'))

    def _rezero(self, k: int, raw: np.ndarray, predicted: np.ndarray) -> None:
        """Re-zero transmission ``k``: its stored offsets, the turn from its joint readings."""
        g = self.topology.groups[k]
        names = [self.robot.actuator_names[a] for a in g.actuators]
        stored = self._stored[k]
        turns, residual = self.encoders.turns(k, predicted, raw[g.actuators] - stored)
        tolerance = self.encoders.motor_tolerance(k)
        with np.errstate(invalid='ignore'):
            off = ~(np.abs(residual) <= tolerance)
        if off.any():
            self._absolute_failed(
                k, f'the joint encoders put motors {names} at {np.round(predicted, 6).tolist()}'
                   f', {np.round(residual, 6).tolist()} from the stored calibration plus whole '
                   f'turns (tolerance {np.round(tolerance, 6).tolist()}): they moved by part of '
                   'a turn since it was stored (a slipped belt, a lost calibration); home them '
                   'or calibrate them again')
            return
        self.offset[g.actuators] = stored - TURN * turns
        self.state[k] = 'file'
        moved = ', '.join(f'{n} {int(x):+d}' for n, x in zip(names, turns))
        self.detail[k] = (f'{self.settings.calibration_file}, the turn from the joint '
                          f'encoders ({moved})')
        self.events.append(('info', f'transmission {g.transmission.name!r} re-zeroed from the '
                                    f'calibration file, turns from the joint encoders: {moved}; '
                                    f'offsets {self._offsets_text(k)}'))

    # ------------------------------------------------------------------ the integrity watch
    def watch(self, index: np.ndarray, values: np.ndarray, theta: np.ndarray,
              theta_dot: np.ndarray, fresh: np.ndarray, skew: np.ndarray) -> list[int]:
        """
        Compare joint readings with the motors of calibrated transmissions (:mod:`~.integrity`).

        :param index: the ``absolute_encoders`` entries read, :param values: their readings
        :param theta: every actuator's calibrated position, :param theta_dot: velocity
        :param fresh: which actuator states are fresh, :param skew: their age, seconds
        :returns: the transmissions found slipped now (state ``slipped``: their joints are not
            calibrated any more; their offsets, and the stored calibration, stay as they were)
        """
        names = list(self.settings.absolute_encoders)
        robot = self.robot
        read: dict[int, dict[int, float]] = {}
        for i, x in zip(index, values):
            j = robot.joint_index.get(names[int(i)])
            if j is not None:
                k = self._group_of('joint', j)
                if k in self.encoders.watched:
                    read.setdefault(k, {})[j] = float(x)
        slipped = []
        for k, joints in read.items():
            g = self.topology.groups[k]
            if self.state[k] not in CALIBRATED or not fresh[g.actuators].all():
                continue
            found = self.encoders.compare(k, list(joints), np.array(list(joints.values())),
                                          theta[g.actuators], theta_dot[g.actuators],
                                          float(np.max(skew[g.actuators])))
            if not self.encoders.check(k, found):
                continue
            detail = ', '.join(
                f'{robot.joint_names[j]} reads {x:.6g}, its motors map to {x - d:.6g} '
                f'({abs(d):.3g} apart, tolerance {e:.3g})' for j, x, d, e in
                zip(found.joints.tolist(), joints.values(), found.difference, found.tolerance)
                if not abs(d) <= e)
            self.state[k] = 'slipped'
            self.detail[k] = (f'{detail}: a slipped belt or pulley, skipped teeth or a lost '
                              'calibration; its commands are refused until it is calibrated '
                              'again (reconfigure the node)')
            self.events.append(('error', f'transmission {g.transmission.name!r}: motor and '
                                         f'joint encoders disagree: {self.detail[k]}'))
            slipped.append(k)
        return slipped

    def _absolute_failed(self, k: int, detail: str) -> None:
        """Fail transmission ``k``'s calibration from absolute readings (nothing is stored)."""
        self.state[k], self.detail[k] = 'failed', detail
        self.events.append(('error', f'transmission {self.topology.groups[k].transmission.name!r}'
                                     f': {detail}'))

    def _unwrap(self, k: int, side: str, readings: np.ndarray,
                turns: np.ndarray) -> np.ndarray | None:
        """Return the actuator positions of the readings, the turn chosen (module doc)."""
        g = self.topology.groups[k]
        t = g.transmission.transmission
        robot = self.robot
        lower, upper = robot.joint_lower[g.joints], robot.joint_upper[g.joints]
        span = [np.arange(-3, 4) if (turn and side == 'actuator') else np.zeros(1)
                for turn in turns]
        if side == 'actuator' and turns.any():   # enough turns to cover the actuator range
            lo, hi = robot.actuator_lower[g.actuators], robot.actuator_upper[g.actuators]
            span = [np.arange(math.floor((lo[i] - r) / TURN) - 1, math.ceil((hi[i] - r) / TURN)
                              + 2) if turn and math.isfinite(lo[i]) and math.isfinite(hi[i])
                    else s_ for i, (turn, r, s_) in enumerate(zip(turns, readings, span))]
        combos = np.array(np.meshgrid(*span)).reshape(len(span), -1).T
        if side == 'actuator':
            theta = readings[None, :] + TURN * combos
            q = np.asarray(t.actuator_to_joint({'position': theta})['position'])
        else:
            q_full = np.tile(robot.default_joint_position()[g.joints], (1, 1))
            inputs = list(t.joint_to_actuator_inputs())
            wrapped = readings.copy()
            for i, turn in enumerate(turns):   # a single-turn joint reading: into the range
                j = inputs[i]
                if turn and math.isfinite(lower[j]):
                    wrapped[i] = lower[j] + (readings[i] - lower[j]) % TURN
            q_full[0, inputs] = wrapped
            theta = np.asarray(t.joint_to_actuator({'position': q_full})['position'])
            q = q_full
        with np.errstate(invalid='ignore'):
            outside = np.maximum(lower - q, 0.0) + np.maximum(q - upper, 0.0)
        worst = np.nanmax(np.where(np.isnan(outside), np.inf, outside), axis=-1)
        best = int(np.argmin(worst))
        if not worst[best] <= UNWRAP_TOLERANCE * (1.0 + np.nanmax(np.abs(q[best]))):
            return None
        return np.asarray(theta[best], dtype=np.float64)

    # ------------------------------------------------------------------ measured positions
    def observe(self, index: np.ndarray, position: np.ndarray | None, now: float) -> None:
        """
        Keep the finite measured positions of actuators ``index`` that arrived at ``now``.

        A later message without positions (velocities only) does not forget them.
        """
        if position is None:
            return
        x = np.asarray(position, dtype=np.float64)
        ok = np.isfinite(x)
        self.measured[index[ok]] = x[ok]
        self.measured_time[index[ok]] = now

    def known_positions(self, now: float, timeout: float) -> np.ndarray:
        """
        Return the latest measured actuator positions, NaN where unknown or not fresh.

        :param timeout: how old a position may be, in seconds (the state timeout; <= 0: any)
        """
        if timeout <= 0.0:
            return self.measured.copy()
        return np.where(now - self.measured_time <= timeout, self.measured, np.nan)

    # ------------------------------------------------------------------ each cycle
    def step(self, now: float, raw: np.ndarray
             ) -> tuple[bool, list[tuple[np.ndarray, np.ndarray]]]:
        """
        Advance calibration by one cycle.

        :param raw: the known, fresh measured actuator positions (NaN: unknown,
            :meth:`known_positions`)
        :returns: whether any offset or state changed, and the homing velocity commands as
            ``(joint indices, velocities)`` pairs
        """
        changed = False
        known = np.isfinite(raw)
        for k in list(self._absolute):
            if self.state[k] == 'waiting_absolute':
                self._calibrate_absolute(k, raw)
                changed |= self.state[k] != 'waiting_absolute'
        commands = []
        for k, h in self.homing.items():
            if self.state[k] not in ('homing_pending', 'homing'):
                continue
            g = self.topology.groups[k]
            if self.state[k] == 'homing_pending':
                if not known[g.actuators].all():
                    continue
                self.state[k], changed = 'homing', True
                edges = ', '.join(f'{j.name} to its {"rising" if j.direction > 0 else "falling"} '
                                  f'edge at {j.edge:g}' for j in h.joints)
                self.events.append(('info', f'homing transmission {g.transmission.name!r}: '
                                            f'{edges}'))
            v = h.velocity(now, bool(known[g.actuators].all()))
            if h.failure:
                self.state[k], self.detail[k], changed = 'failed', h.failure, True
                self.events.append(('error', f'transmission {g.transmission.name!r}: '
                                             f'{h.failure}; its joints stay uncalibrated'))
                commands.append((g.active, np.zeros(len(g.active))))
                continue
            if h.done:
                offsets = h.offsets()
                changed = True
                commands.append((g.active, np.zeros(len(g.active))))
                if not np.isfinite(offsets).all():
                    self.state[k] = 'failed'
                    self.detail[k] = (
                        f'the switch edges at actuator positions '
                        f'{np.round(h.edges, 6).tolist()} give offsets '
                        f'{offsets.tolist()} that are not finite (a <calibration> edge '
                        'outside what the transmission maps?)')
                    self.events.append(('error', f'transmission {g.transmission.name!r}: '
                                                 f'{self.detail[k]}; its joints stay '
                                                 'uncalibrated'))
                    continue
                self.offset[g.actuators] = offsets
                self.state[k], self.detail[k] = 'homed', ''
                self.unsaved = True
                self.events.append(('info', f'transmission {g.transmission.name!r} homed: '
                                            f'offsets {self._offsets_text(k)}'))
                continue
            if v is not None:
                commands.append((g.active, v))
        return changed, commands

    def switch(self, index: np.ndarray, levels: np.ndarray, raw: np.ndarray) -> None:
        """
        Take reference switch readings: ``index`` into :attr:`switch_names`, levels >= 0.5: on.

        :param raw: the known, fresh measured actuator positions when the readings arrived
            (:meth:`known_positions`; NaN: unknown, no edge is taken)
        """
        for i, level in zip(index, levels):
            joint = self._switch_joint[self.switch_names[int(i)]]
            k = self._group_of('joint', joint)
            h = self.homing.get(k)
            if h is None or self.state[k] != 'homing' or h.done or \
                    h.joint().name != self.robot.joint_names[joint]:
                continue
            g = self.topology.groups[k]
            if h.switch(bool(level >= 0.5), raw[g.actuators]):
                j = h.joints[len(h.edges) - 1]
                self.events.append(('info', f'homing {j.name}: switch edge found at actuator '
                                            f'positions {np.round(h.edges[-1], 6).tolist()}'))

    def _offsets_text(self, k: int) -> str:
        g = self.topology.groups[k]
        return ', '.join(f'{self.robot.actuator_names[a]} {self.offset[a]:.6g}'
                         for a in g.actuators)

    def pending(self) -> bool:
        """
        Return True while a transmission waits for calibration or offsets are unsaved.

        Once False it stays False (only :meth:`step` changes states, and it runs while True),
        so that a calibrated robot's cycle pays one attribute read for it.
        """
        if self._done:
            return False
        self._done = not (self.unsaved or any(
            s in ('waiting_absolute', 'homing_pending', 'homing') for s in self.state))
        return not self._done

    def homing_finished(self) -> bool:
        """Return True when homing was asked for and no transmission is still homing."""
        return bool(self.homing) and all(self.state[k] not in ('homing_pending', 'homing')
                                         for k in self.homing)
