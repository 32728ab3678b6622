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
/diagnostics without ROS: what a cycle counts and times, and the statuses made of it.

:class:`Counters` are what the state and command sides of a cycle count (clamps, incomplete
commands, outputs left out); :class:`CycleTimer` accounts the cycles' work times, overruns and
periodicity (as ros2_control's controller manager: the rate of each timer cycle, ``1 / (start -
previous start)``, summarised over the cycles since the previous summary).
:class:`DiagnosticRecord` is a ROS-free ``diagnostic_msgs/DiagnosticStatus``; the node turns each
into a message.  As with diagnostic_updater, every status of one node carries the same
``hardware_id``: the robot's name from the URDF.  The keys are doc/nodes.md's ("Diagnostics").
"""

import math
from typing import Any
from typing import NamedTuple
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from transmission_plugins.runtime.cycle import Configured
    from transmission_plugins.runtime.cycle import InterfaceCycle

#: The limits a command can be clamped to: the hard limits of both sides, then the joints' soft
#: limits (``<safety_controller>``) and rate limits (ros2_control's joint_limits parameters),
#: then the motors' (``<motor>``, :mod:`~.drivetrain`): the torque-speed envelope's effort at
#: the measured speed and its maximum speed, and the thermal current limit.
CLAMP_KINDS = ('joint_position', 'joint_velocity', 'joint_effort', 'actuator_position',
               'actuator_velocity', 'actuator_effort', 'joint_soft_position',
               'joint_soft_velocity', 'joint_soft_effort', 'joint_acceleration',
               'joint_deceleration', 'joint_jerk', 'actuator_torque_speed',
               'actuator_max_speed', 'actuator_thermal')
#: The kinds per side (the ``<side>_<limit>`` entries of :data:`CLAMP_KINDS`, prefix removed).
SIDE_KINDS = {side: tuple(k[len(side) + 1:] for k in CLAMP_KINDS if k.startswith(side + '_'))
              for side in ('joint', 'actuator')}


class Counters:
    """
    Counters shared by the state and command sides of a cycle.

    :param num_joints: joints of the robot (per-joint clamp counts)
    :param num_actuators: actuators of the robot (per-actuator clamp counts)
    """

    def __init__(self, num_joints: int, num_actuators: int) -> None:
        #: clamps per :data:`CLAMP_KINDS` entry
        self.clamps: dict[str, int] = dict.fromkeys(CLAMP_KINDS, 0)
        self.joint_clamps = np.zeros(num_joints, dtype=np.int64)
        self.actuator_clamps = np.zeros(num_actuators, dtype=np.int64)
        #: per side, clamps by entry and kind (``(entries, len(SIDE_KINDS[side]))``)
        self.kind_clamps = {'joint': np.zeros((num_joints, len(SIDE_KINDS['joint'])), np.int64),
                            'actuator': np.zeros((num_actuators, len(SIDE_KINDS['actuator'])),
                                                 np.int64)}
        #: transmissions commanded for some of their joints only (nothing sent for them)
        self.incomplete_commands = 0
        #: joint or actuator values that came out NaN or infinite (left out of the output)
        self.non_finite_outputs = 0
        #: actuator values of joint positions outside their mechanism's range (left out:
        #: ``RobotTransmissions.unreachable_actuators``)
        self.unreachable_outputs = 0
        #: friction-compensated effort commands that a limit then clipped
        self.compensation_clipped = 0

    def count_clamps(self, side: str, kind: str, clamped: np.ndarray) -> None:
        """
        Count the clamps of one kind: in all, per entry and per entry and kind.

        :param side: ``'joint'`` or ``'actuator'``
        :param kind: the limit, e.g. ``'position'`` or ``'soft_velocity'`` (:data:`SIDE_KINDS`)
        :param clamped: boolean mask of the entries clamped
        """
        count = int(np.count_nonzero(clamped))
        if not count:
            return
        self.clamps[f'{side}_{kind}'] += count
        getattr(self, f'{side}_clamps')[:] += clamped
        self.kind_clamps[side][:, SIDE_KINDS[side].index(kind)] += clamped


#: Cycle times kept for the percentile (the oldest half is dropped when full).
WINDOW = 4096


class CycleTimer:
    """
    Account the cycles of a fixed-rate loop.

    An overrun is a cycle whose work took longer than the period, or that started more than one
    and a half periods after the previous one (a missed deadline).

    :param cycle: what holds the cycle's settings (:attr:`~.cycle.InterfaceCycle.settings`)
    """

    def __init__(self, cycle: 'Configured') -> None:
        #: holds the cycle's settings (their ``period``: None, no overrun check)
        self._cycle = cycle
        self.cycles = 0
        #: the cycles that were not the timer's (event-driven updates)
        self.events = 0
        self.overruns = 0
        self.max_cycle_time = 0.0
        self.cycle_time_sum = 0.0
        self._times: list[float] = []
        self._last_start: float | None = None
        #: intervals between cycle starts since the last :meth:`periodicity`
        self._intervals: list[float] = []

    def record(self, start: float, end: float, periodic: bool = True) -> None:
        """
        Account one cycle that started at ``start`` and finished at ``end`` (steady clock).

        :param periodic: a tick of the timer; False for an event-driven update, which counts
            in the work times and as an overrun when it outlasts the period, not in the
            periodicity
        """
        self.cycles += 1
        dt = max(0.0, end - start)
        self.cycle_time_sum += dt
        self.max_cycle_time = max(self.max_cycle_time, dt)
        self._times.append(dt)
        if len(self._times) > WINDOW:
            del self._times[:WINDOW // 2]
        period = self._cycle.settings.period
        if not periodic:
            self.events += 1
            if period and dt > period:
                self.overruns += 1
            return
        if self._last_start is not None:
            self._intervals.append(start - self._last_start)
            if len(self._intervals) > WINDOW:
                del self._intervals[:WINDOW // 2]
        if period:
            late = self._last_start is not None and start - self._last_start > 1.5 * period
            if dt > period or late:
                self.overruns += 1
        self._last_start = start

    def periodicity(self) -> dict[str, float]:
        """
        Return the periodicity since the last call (module docstring) and start a new window.

        :returns: ``average``, ``standard_deviation``, ``min``, ``max`` (Hz) and ``achieved``
            (Hz), all 0 when fewer than two cycles ran in the window
        """
        dt = np.asarray([x for x in self._intervals if x > 0.0])
        self._intervals = []
        if not dt.size:
            return dict.fromkeys(('average', 'standard_deviation', 'min', 'max', 'achieved'),
                                 0.0)
        rates = 1.0 / dt
        return {'average': float(rates.mean()), 'standard_deviation': float(rates.std()),
                'min': float(rates.min()), 'max': float(rates.max()),
                'achieved': float(dt.size / dt.sum())}

    def mean(self) -> float:
        """Return the mean work time per cycle in seconds (0 before the first cycle)."""
        return self.cycle_time_sum / self.cycles if self.cycles else 0.0

    def p99(self) -> float:
        """Return the 99th percentile of the recent work times in seconds."""
        return float(np.percentile(self._times, 99)) if self._times else 0.0


OK = 0
WARN = 1
ERROR = 2
STALE = 3


class DiagnosticRecord(NamedTuple):
    """A ROS-free ``diagnostic_msgs/DiagnosticStatus``."""

    name: str
    level: int
    message: str
    hardware_id: str
    values: list[tuple[str, str]]


def age_text(age: float) -> str:
    """Return an age in seconds for a diagnostic value (``never`` when infinite or NaN)."""
    return 'never' if math.isinf(age) or math.isnan(age) else f'{age:.4f}'


def hardware_id(robot: object) -> str:
    """Return the ``hardware_id`` of a robot's statuses: its URDF name (``none`` without one)."""
    return str(getattr(robot, 'robot_name', '') or 'none')


def lifecycle_record(prefix: str, state: str, level: int, message: str,
                     robot_id: str = 'none') -> DiagnosticRecord:
    """Return the node status of a node without a robot yet (unconfigured, or it failed)."""
    return DiagnosticRecord(prefix, level, message, robot_id, [('lifecycle_state', state)])


def node_records(prefix: str, core: 'InterfaceCycle | None', lifecycle_state: str,
                 configure_error: str = '') -> list[DiagnosticRecord]:
    """Return the statuses of an interface node: its cycle's, else why it has none yet."""
    if core is not None:
        return core.diagnostics(prefix, lifecycle_state)
    if configure_error:
        return [lifecycle_record(prefix, lifecycle_state, ERROR,
                                 f'configure failed: {configure_error}')]
    return [lifecycle_record(prefix, lifecycle_state, WARN, 'unconfigured: waiting for a '
                             'robot_description or a configure transition')]


def interface_diagnostics(hw: 'InterfaceCycle', prefix: str,
                          lifecycle_state: str = 'active') -> list[DiagnosticRecord]:
    """
    Return one status for the interface (hardware or simulation) and one per transmission.

    The state inputs counted stale are those some output depends on (a simulator need not
    publish the PR2 gripper's passive finger joints).  Starts a new periodicity window
    (:meth:`CycleTimer.periodicity`).
    """
    now = hw.clock()
    robot_id = hardware_id(hw.robot)
    states = hw.states
    source = states.direction.source
    fresh = states.fresh(now)
    needed = states.direction.state_incidence.read
    state_age = now - states.state_time
    cmd_age = now - hw.commands.command_time
    timer = hw.timer
    counters = hw.counters
    records = []
    level = OK
    message = 'ok'
    known = np.isfinite(states.state_time)
    stale = int(np.count_nonzero(needed & ~fresh & known))
    never = int(np.count_nonzero(needed & ~known))
    if not known[needed].any():
        level, message = STALE, f'no {source} state received yet'
    elif not (fresh & needed).any():
        level, message = STALE, f'no fresh {source} state'
    elif stale or never:
        words = ([f'{stale} {source}s stale'] if stale else []) + \
            ([f'{never} {source}s never received'] if never else [])
        level, message = WARN, ', '.join(words)
    if level != OK and known[needed].any():
        target, topic = states.direction.target, hw.STATE_OUTPUT_TOPIC
        message += (f"; {topic} repeats their {target}s' last values" if hw.stale_joints
                    == 'last' else f'; their {target}s are left out of {topic}')
    rate = timer.periodicity()
    values = [
        ('lifecycle_state', lifecycle_state),
        ('joints', str(len(hw.joint_names))),
        ('actuators', str(len(hw.actuator_names))),
        ('update_rate', f'{hw.settings.update_rate or 0:g}'),
        ('achieved_rate', f'{rate["achieved"]:.3f}'),
        ('periodicity.average', f'{rate["average"]:.3f}'),
        ('periodicity.standard_deviation', f'{rate["standard_deviation"]:.3f}'),
        ('periodicity.min', f'{rate["min"]:.3f}'),
        ('periodicity.max', f'{rate["max"]:.3f}'),
        ('cycles', str(timer.cycles)),
        ('event_updates', str(timer.events)),
        ('cycle_time_mean_ms', f'{timer.mean() * 1e3:.4f}'),
        ('cycle_time_p99_ms', f'{timer.p99() * 1e3:.4f}'),
        ('cycle_time_max_ms', f'{timer.max_cycle_time * 1e3:.4f}'),
        ('overruns', str(timer.overruns)),
        ('dropped_messages', str(hw.drops.total())),
    ]
    for topic in sorted(hw.drops):
        for reason in sorted(hw.drops[topic]):
            values.append((f'dropped.{topic}.{reason}', str(hw.drops[topic][reason])))
    for kind in CLAMP_KINDS:
        values.append((f'clamped.{kind}', str(counters.clamps[kind])))
    values.append(('incomplete_commands', str(counters.incomplete_commands)))
    if hw.commands.incomplete.any() and level == OK:
        level, message = WARN, (f'{int(hw.commands.incomplete.sum())} transmissions commanded '
                                'incompletely (nothing sent to their actuators)')
    values.append(('non_finite_outputs', str(counters.non_finite_outputs)))
    values.append(('unreachable_outputs', str(counters.unreachable_outputs)))
    values.append(('enforce_limits', str(hw.enforce_limits).lower()))
    values.append(('stale_joints', hw.stale_joints))
    records.append(DiagnosticRecord(prefix, level, message, robot_id, values))
    expired = hw.commands.expired
    for k, (t, jidx, aidx, active) in enumerate(hw.topology.groups):
        inputs = states.direction.groups[k][0]
        commanded = hw.commands.direction.groups[k][0]
        ages = state_age[inputs]
        age = float(np.max(ages)) if np.isfinite(ages).all() else math.inf
        cage = float(np.min(cmd_age[commanded])) if len(commanded) else math.inf
        if not fresh[inputs].all():
            level = STALE
            if math.isinf(age):
                message = f'no {source} state received'
            else:
                message = (f'stale: {source} state {age:.3f} s old '
                           f'(state_timeout {hw.state_timeout:g} s)')
        elif expired[commanded].any():
            level, message = WARN, f'command timed out ({hw.timeout_action})'
        elif hw.commands.incomplete[k]:
            level, message = WARN, ('incomplete command: each commandable '
                                    f'{hw.commands.direction.source} needs the field; '
                                    'nothing sent')
        else:
            level, message = OK, 'ok'
        values = [
            ('type', str(t.type)),
            ('joints', ' '.join(hw.joint_names[i] for i in jidx)),
            ('actuators', ' '.join(hw.actuator_names[i] for i in aidx)),
            ('state_age_s', age_text(age)),
            ('command_age_s', age_text(cage)),
            ('clamped', str(int(counters.joint_clamps[jidx].sum()
                                + counters.actuator_clamps[aidx].sum()))),
        ]
        values += clamps_by_kind(hw, 'joint', jidx) + clamps_by_kind(hw, 'actuator', aidx)
        records.append(DiagnosticRecord(f'{prefix}: {t.name}', level, message, robot_id,
                                        values))
    return records


def clamps_by_kind(hw: 'InterfaceCycle', side: str, idx: np.ndarray) -> list[tuple[str, str]]:
    """Return ``clamped.<name>.<kind>`` values of the entries ``idx`` clamped at least once."""
    names = hw.joint_names if side == 'joint' else hw.actuator_names
    counts = hw.counters.kind_clamps[side]
    return [(f'clamped.{names[i]}.{kind}', str(int(counts[i, k])))
            for i in idx for k, kind in enumerate(SIDE_KINDS[side]) if counts[i, k]]


#: what a transmission's calibration state says on /diagnostics
_CALIBRATION_WORDS = {
    'not_needed': 'not needed', 'file': 'from the calibration file', 'absolute':
    'from absolute positions', 'homed': 'homed', 'waiting_absolute':
    'not calibrated: waiting for absolute positions', 'homing_pending':
    'not calibrated: homing starts when its actuator states arrive', 'homing':
    'not calibrated: homing', 'failed': 'not calibrated: failed', 'slipped':
    'not calibrated: motor and joint encoders disagree'}


def calibration_diagnostics(hw: Any, records: list[DiagnosticRecord]
                            ) -> list[DiagnosticRecord]:
    """
    Add the calibration of each transmission to the hardware interface's statuses.

    A transmission that is not calibrated is WARN (ERROR when its calibration failed), and so is
    the node status, whose message names how many joints are not calibrated.
    """
    cal = hw.calibration
    out = list(records)
    uncalibrated = cal.joint_uncalibrated()
    failed = any(s in ('failed', 'slipped') for s in cal.state)
    node = out[0]
    values = node.values + [
        ('uncalibrated_joints', str(int(np.count_nonzero(uncalibrated)))),
        ('require_calibration', str(hw.require_calibration).lower()),
        ('calibration_file', cal.settings.calibration_file)]
    level, message = node.level, node.message
    if uncalibrated.any() and level in (OK, WARN):
        words = (f'{int(np.count_nonzero(uncalibrated))} joints not calibrated ('
                 + ('motor and joint encoders disagree' if 'slipped' in cal.state else
                    'homing failed' if failed else 'calibrating') + ')')
        level = ERROR if failed else WARN
        message = words if node.level == OK else f'{message}; {words}'
    out[0] = node._replace(level=level, message=message, values=values)
    for k, state in enumerate(cal.state):
        r = out[k + 1]
        words = _CALIBRATION_WORDS[state]
        if cal.detail[k] and state in ('failed', 'file', 'absolute', 'slipped'):
            words += f': {cal.detail[k]}'
        values = r.values + [('calibration', words)]
        offsets = cal.offset[hw.topology.groups[k].actuators]
        values.append(('offsets', ' '.join(f'{x:.9g}' for x in offsets)))
        values += _encoder_values(cal.encoders, k)
        level, message = r.level, r.message
        if state not in ('not_needed', 'file', 'absolute', 'homed') and level != STALE:
            level = ERROR if state in ('failed', 'slipped') else WARN
            message = words
        out[k + 1] = r._replace(level=level, message=message, values=values)
    return out


def _encoder_values(encoders: Any, k: int) -> list[tuple[str, str]]:
    """Return the integrity watch's key values of transmission ``k`` (none: not watched)."""
    if k not in encoders.watched:
        return []
    found = encoders.latest[k]
    out = [('encoder_glitches', str(encoders.glitches[k]))]
    if found is not None:
        names = encoders.robot.joint_names
        out += [(f'{names[j]}.encoder_disagreement', f'{d:.6g}') for j, d in
                zip(found.joints.tolist(), found.difference)]
        out += [(f'{names[j]}.encoder_tolerance', f'{e:.6g}') for j, e in
                zip(found.joints.tolist(), found.tolerance)]
    return out


#: what a motor's thermal level says on /diagnostics, and its status level
THERMAL_WORDS = ('ok', 'derating', 'at its maximum temperature')
THERMAL_LEVELS = (OK, WARN, ERROR)


def drivetrain_diagnostics(hw: Any, records: list[DiagnosticRecord]
                           ) -> list[DiagnosticRecord]:
    """
    Add the drivetrain (:mod:`~.drivetrain`) to the hardware interface's statuses.

    The node status gets the effort unit and the friction compensation; each transmission with
    a ``<motor>`` its motors' effort bounds now (envelope at the measured speed, thermal
    limit, the URDF's), the joint efforts they reach, and the thermal estimate: temperature,
    current limit, headroom.  A motor derating is WARN, one at its maximum ERROR (the node
    status too).  The thermal estimate is advanced to now first.
    """
    dt = hw.drivetrain
    now = hw.clock()
    # the estimate at this message's time, not the last cycle's: a paused executor may run this
    # before the cycle it owes
    dt.heat(now)
    model = dt.model
    out = list(records)
    lo, hi = (b[2] for b in hw.commands.direction.target_limits.stacked())
    _, _, env_lo, env_hi = dt.effort_bounds(now)
    lo, hi = np.maximum(lo, env_lo), np.minimum(hi, env_hi)
    available = np.maximum(np.minimum(hi, -lo), 0.0)
    reach = hw.robot.joint_effort_bound(available)
    limit = dt.current_limit()
    node = out[0]
    values = node.values + [
        ('actuator_effort_unit', dt.effort_unit),
        ('friction_compensation', str(hw.settings.friction_compensation).lower()),
        ('friction_compensation_clipped', str(hw.counters.compensation_clipped))]
    hot = [hw.actuator_names[i] for i in np.flatnonzero(dt.level)]
    level, message = node.level, node.message
    if hot:
        worst = THERMAL_LEVELS[int(dt.level.max())]
        words = f'motors derating or at their maximum temperature: {", ".join(hot)}'
        if level in (OK, WARN) and worst > level:
            level = worst
        message = words if node.level == OK else f'{message}; {words}'
    out[0] = node._replace(level=level, message=message, values=values)
    for k, group in enumerate(hw.topology.groups):
        motors = [i for i in group.actuators.tolist() if model.motors[i] is not None]
        if not motors:
            continue
        r = out[k + 1]
        values = list(r.values)
        level, message = r.level, r.message
        for i in motors:
            name = hw.actuator_names[i]
            values.append((f'{name}.effort_bounds', f'{lo[i]:.6g} {hi[i]:.6g}'))
            if math.isfinite(dt.speed_limit[i]):
                values.append((f'{name}.max_speed', f'{dt.speed_limit[i]:.6g}'))
            if not model.has_thermal[i]:
                continue
            t, top = float(dt.temperature[i]), float(model.max_temperature[i])
            span = top - float(model.ambient_temperature[i])
            values += [
                (f'{name}.temperature', f'{t:.3f}'),
                (f'{name}.warning_temperature', f'{model.warning_temperature[i]:.6g}'),
                (f'{name}.max_temperature', f'{top:.6g}'),
                (f'{name}.temperature_headroom', f'{top - t:.3f}'),
                (f'{name}.temperature_headroom_percent', f'{100.0 * (top - t) / span:.1f}'),
                (f'{name}.current_limit', f'{limit[i]:.6g}'),
                (f'{name}.peak_current', f'{model.peak_current[i]:.6g}'),
                (f'{name}.continuous_current', f'{model.continuous_current[i]:.6g}'),
                (f'{name}.thermal', THERMAL_WORDS[int(dt.level[i])])]
            motor_level = THERMAL_LEVELS[int(dt.level[i])]
            if motor_level > OK and level != STALE:
                words = (f'{name} {THERMAL_WORDS[int(dt.level[i])]}: {t:.1f} C, current limit '
                         f'{limit[i]:.3g} A')
                message = words if level == OK else f'{message}; {words}'
                level = max(level, motor_level)
        for j in group.joints.tolist():
            values.append((f'{hw.joint_names[j]}.effort_reach', f'{reach[j]:.6g}'))
        out[k + 1] = r._replace(level=level, message=message, values=values)
    return out


def series_elastic_diagnostics(hw: Any, records: list[DiagnosticRecord]
                               ) -> list[DiagnosticRecord]:
    """
    Add the series-elastic transmissions (:mod:`~.series_elastic`) to the statuses.

    The node status gets ``unmeasured_effort_commands``; each series-elastic transmission its
    joint's ``deflection`` (at the joint), ``deflection_rate`` and ``spring_torque`` now
    (``unknown`` while not measured) and, for a table spring, its ``deflection_range``: a
    deflection beyond it is WARN (the spring is extrapolated from the table's end segments).
    """
    sea = hw.series_elastic
    out = list(records)
    node = out[0]
    out[0] = node._replace(values=node.values + [
        ('unmeasured_effort_commands', str(sea.unmeasured))])
    ok, deflection, rate, torque = sea.measure(hw.clock())
    for k, spring in enumerate(sea.springs):
        index = spring.group + 1
        r = out[index]
        joint = hw.joint_names[spring.joint]
        known = bool(ok[k])
        values = list(r.values) + [
            (f'{joint}.deflection', f'{deflection[k]:.6g}' if known else 'unknown'),
            (f'{joint}.deflection_rate', f'{rate[k]:.6g}' if known else 'unknown'),
            (f'{joint}.spring_torque', f'{torque[k]:.6g}' if known else 'unknown')]
        level, message = r.level, r.message
        span = sea.deflection_limits(spring)
        if span is not None:
            values.append((f'{joint}.deflection_range', f'{span[0]:.6g} {span[1]:.6g}'))
            if known and not span[0] <= deflection[k] <= span[1] and level in (OK, WARN):
                words = (f'{joint}: deflection {deflection[k]:.6g} beyond the range of the '
                         f'spring table [{span[0]:.6g}, {span[1]:.6g}]: the spring torque is '
                         'extrapolated')
                message = words if level == OK else f'{message}; {words}'
                level = WARN
        out[index] = r._replace(level=level, message=message, values=values)
    return out
