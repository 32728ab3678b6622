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

:class:`HardwareInterface` holds the latest actuator state and joint command, validates every
input, runs the watchdogs on an injectable steady clock, clamps commands to the URDF limits and
converts both ways through :class:`~transmission_plugins.RobotTransmissions`
array maps.  The node (:mod:`transmission_plugins.ros.hardware_interface_node`) only moves messages
in and out of it, so everything here is unit tested without DDS.

Conventions:

* a message is a ``(names, position, velocity, effort)`` tuple like ``sensor_msgs/JointState``:
  each field is empty (not given) or has one value per name;
* a rejected message raises :class:`InputRejected` (its ``reason`` is a counter key) and leaves
  every buffer untouched;
* outputs never contain NaN or infinity: joints or actuators whose values are unknown, stale or
  non-finite are left out of the output instead.
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
from typing import Tuple

import numpy as np

from transmission_plugins.core.exceptions import TransmissionInputError
from transmission_plugins.core.exceptions import TransmissionValueError

#: The JointState fields, in message order.
FIELDS = ('position', 'velocity', 'effort')

#: What the node does for joints whose command is older than ``command_timeout``.
TIMEOUT_ACTIONS = ('stop', 'hold', 'zero_velocity', 'zero_effort')

#: Drop reasons, also the keys of the drop counters.
DROP_REASONS = ('empty', 'length_mismatch', 'unknown_names', 'duplicate_names', 'non_finite',
                'bad_type', 'not_commandable')

#: Clamp counter keys.
CLAMP_KINDS = ('joint_position', 'joint_velocity', 'joint_effort', 'actuator_effort')

# diagnostic_msgs/DiagnosticStatus levels (bytes in the message)
OK = 0
WARN = 1
ERROR = 2
STALE = 3


class InputRejected(TransmissionInputError):
    """
    A message failed validation; ``reason`` is one of :data:`DROP_REASONS`.

    A :class:`~transmission_plugins.TransmissionInputError`, hence also a
    ``TransmissionError`` and a ``ValueError``.
    """

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f'{reason}: {detail}')
        self.reason = reason
        self.detail = detail


class JointOutput(NamedTuple):
    """Joint states to publish: the joints with known positions, in URDF order."""

    names: List[str]
    position: Optional[np.ndarray]
    velocity: Optional[np.ndarray]
    effort: Optional[np.ndarray]


class CommandOutput(NamedTuple):
    """One actuator command message: actuators sharing the same commanded fields."""

    names: List[str]
    position: Optional[np.ndarray]
    velocity: Optional[np.ndarray]
    effort: Optional[np.ndarray]


class CycleOutput(NamedTuple):
    """What one :meth:`HardwareInterface.update` produces."""

    joint_states: Optional[JointOutput]
    actuator_commands: List[CommandOutput]


class DiagnosticRecord(NamedTuple):
    """A ROS-free ``diagnostic_msgs/DiagnosticStatus``."""

    name: str
    level: int
    message: str
    hardware_id: str
    values: List[Tuple[str, str]]


def _all(mask: np.ndarray) -> bool:
    """Return ``mask.all()`` (count_nonzero: a fraction of ``ndarray.all``'s overhead)."""
    return np.count_nonzero(mask) == mask.size


def _any(mask: np.ndarray) -> bool:
    """Return ``mask.any()``, the cheap way (see :func:`_all`)."""
    return np.count_nonzero(mask) != 0


def _as_array(values: Any, count: int, field: str) -> Optional[np.ndarray]:
    """Return ``values`` as float64, None when empty; raise when the length is wrong."""
    try:
        n = len(values)
    except TypeError as e:
        raise InputRejected('bad_type', f'{field} is not a sequence') from e
    if n == 0:
        return None
    if n != count:
        raise InputRejected('length_mismatch',
                            f'{count} names but {n} {field} values')
    try:
        x = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise InputRejected('bad_type', f'{field} values are not numbers') from e
    if not _all(np.isfinite(x)):
        raise InputRejected('non_finite', f'{field} contains NaN or infinity')
    return x


class _Index:
    """Map name lists to index arrays, caching the last list (messages repeat their names)."""

    def __init__(self, names: Sequence[str], kind: str) -> None:
        self.names = list(names)
        self.kind = kind
        self._pos = {n: i for i, n in enumerate(self.names)}
        self._last: Optional[List[str]] = None
        self._last_idx: Optional[np.ndarray] = None

    def lookup(self, names: Sequence[str]) -> np.ndarray:
        names = list(names)
        if names == self._last and self._last_idx is not None:
            return self._last_idx
        if not names:
            raise InputRejected('empty', 'message has no names')
        if len(set(names)) != len(names):
            dup = sorted({n for n in names if names.count(n) > 1})
            raise InputRejected('duplicate_names', f'duplicate {self.kind} names {dup}')
        unknown = [n for n in names if n not in self._pos]
        if unknown:
            raise InputRejected('unknown_names', f'unknown {self.kind} names {unknown[:5]}')
        idx = np.array([self._pos[n] for n in names], dtype=np.intp)
        self._last, self._last_idx = names, idx
        return idx


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
    :param clock: steady clock in seconds (``time.monotonic``); tests inject their own
    """

    def __init__(self, robot: Any, *, state_timeout: float = 0.1, command_timeout: float = 0.5,
                 enforce_limits: bool = True, command_joints: Optional[Sequence[str]] = None,
                 timeout_action: str = 'stop',
                 clock: Callable[[], float] = time.monotonic) -> None:
        if timeout_action not in TIMEOUT_ACTIONS:
            raise TransmissionValueError('timeout_action', timeout_action,
                                         f'one of {TIMEOUT_ACTIONS}')
        self.robot = robot
        self.clock = clock
        self.state_timeout = float(state_timeout)
        self.command_timeout = float(command_timeout)
        self.enforce_limits = bool(enforce_limits)
        self.timeout_action = timeout_action
        self.joint_names: List[str] = list(robot.joint_names)
        self.actuator_names: List[str] = list(robot.actuator_names)
        nj, na = len(self.joint_names), len(self.actuator_names)
        self._joints = _Index(self.joint_names, 'joint')
        self._actuators = _Index(self.actuator_names, 'actuator')
        self._wire()
        if command_joints:
            idx = self._joints.lookup(command_joints)
            bad = [self.joint_names[i] for i in idx if not self._commandable[i]]
            if bad:
                raise TransmissionValueError('joints', bad, 'joints that are not passive '
                                             '(passive joints cannot be commanded)')
            self.command_joints = list(command_joints)
        else:
            self.command_joints = [n for i, n in enumerate(self.joint_names)
                                   if self._commandable[i]]
        self._command_idx = self._joints.lookup(self.command_joints)
        self._joints._last = None
        self.lower = self._limit('joint_lower', nj, -np.inf)
        self.upper = self._limit('joint_upper', nj, np.inf)
        self.velocity_limit = np.abs(self._limit('joint_velocity_limit', nj, np.inf))
        self.effort_limit = np.abs(self._limit('joint_effort_limit', nj, np.inf))
        self.actuator_effort_limit = np.abs(self._limit('actuator_effort_limit', na, np.inf))
        # latest actuator state (NaN = unknown) and its arrival time
        self.state = {f: np.full(na, np.nan) for f in FIELDS}
        self.state_time = np.full(na, -np.inf)
        self._state_version = 0
        self._cached: Tuple[int, Optional[np.ndarray], Optional[JointOutput]] = (-1, None, None)
        # latest joint command (NaN = none) and its arrival time
        self.command = {f: np.full(nj, np.nan) for f in FIELDS}
        self.command_time = np.full(nj, -np.inf)
        self._held = np.full(na, np.nan)
        # False while no command was stored since the last reset: then no command time is
        # finite and nothing is held, and a cycle has no actuator command to work out
        self._commanded = False
        self._expired = np.zeros(nj, dtype=bool)
        self._last_joint_position = np.full(nj, np.nan)
        self.drops: Dict[str, Dict[str, int]] = {}
        self.clamps = dict.fromkeys(CLAMP_KINDS, 0)
        self.joint_clamps = np.zeros(nj, dtype=np.int64)
        self.actuator_clamps = np.zeros(na, dtype=np.int64)
        self.incomplete_commands = 0
        self.non_finite_outputs = 0
        self.cycles = 0
        self.overruns = 0
        self._cycle_times: List[float] = []
        self._last_cycle_start: Optional[float] = None
        self.period: Optional[float] = None
        self.max_cycle_time = 0.0
        self.cycle_time_sum = 0.0

    # ------------------------------------------------------------------ wiring
    def _wire(self) -> None:
        """Index each transmission's joints and actuators; find the commandable joints."""
        self._groups = []
        commandable = np.zeros(len(self.joint_names), dtype=bool)
        pos = {n: i for i, n in enumerate(self.joint_names)}
        apos = {n: i for i, n in enumerate(self.actuator_names)}
        default = getattr(self.robot, 'default_joint_position', None)
        q0 = np.asarray(default()) if default is not None else np.zeros(len(pos))
        for t in self.robot.transmissions:
            joints = np.array([pos[n] for n in t.joint_names], dtype=np.intp)
            actuators = np.array([apos[n] for n in t.actuator_names], dtype=np.intp)
            # joints the joint-to-actuator map ignores (PR2 gripper passive joints) have a zero
            # column in d(actuator)/d(joint): they cannot be commanded
            jac = np.asarray(t.transmission.joint_to_actuator_jacobian(q0[joints]))
            used = np.any(jac.reshape(len(actuators), len(joints)) != 0.0, axis=0)
            active = joints[used]
            commandable[active] = True
            self._groups.append((t, joints, actuators, active))
        self._commandable = commandable
        # incidence matrices, so that per-transmission checks are one product per cycle
        nj, na, nt = len(self.joint_names), len(self.actuator_names), len(self._groups)
        self._joint_actuators = np.zeros((nj, na))     # joint j <- actuators of its transmission
        self._tr_active = np.zeros((nt, nj))           # transmission -> its commandable joints
        self._tr_actuators = np.zeros((nt, na))        # transmission -> its actuators
        for k, (_, jidx, aidx, active) in enumerate(self._groups):
            self._joint_actuators[np.ix_(jidx, aidx)] = 1.0
            self._tr_active[k, active] = 1.0
            self._tr_actuators[k, aidx] = 1.0
        self._joint_tr = self._tr_active.T.copy()          # commandable joint -> transmission
        self._actuator_tr = (self._tr_actuators.T > 0).astype(float)
        self._tr_has_active = self._tr_active.sum(axis=1) > 0

    def _limit(self, attribute: str, size: int, default: float) -> np.ndarray:
        x = getattr(self.robot, attribute, None)
        if x is None:
            return np.full(size, default)
        x = np.array(x, dtype=np.float64).reshape(-1)
        return np.where(np.isnan(x), default, x)

    def commandable_joints(self) -> List[str]:
        """Return the joints a command may name (passive joints excluded), in URDF order."""
        return [n for i, n in enumerate(self.joint_names) if self._commandable[i]]

    # ------------------------------------------------------------------ inputs
    def _drop(self, topic: str, reason: str) -> None:
        counts = self.drops.setdefault(topic, {})
        counts[reason] = counts.get(reason, 0) + 1

    def _fields(self, names: Sequence[str], position: Any, velocity: Any,
                effort: Any) -> Dict[str, np.ndarray]:
        n = len(names)
        out = {}
        for field, values in zip(FIELDS, (position, velocity, effort)):
            x = _as_array(values, n, field)
            if x is not None:
                out[field] = x
        if not out:
            raise InputRejected('empty', 'no position, velocity or effort values')
        return out

    def set_actuator_state(self, names: Sequence[str], position: Any = (), velocity: Any = (),
                           effort: Any = (), topic: str = 'actuator_states') -> None:
        """
        Store an actuator state message (any subset of actuators and fields).

        Fields absent from the message become unknown for the actuators it names.

        :raises InputRejected: the message is dropped (and counted); buffers are unchanged
        """
        try:
            idx = self._actuators.lookup(names)
            values = self._fields(names, position, velocity, effort)
        except InputRejected as e:
            self._drop(topic, e.reason)
            raise
        now = self.clock()
        for field in FIELDS:
            x = values.get(field)
            self.state[field][idx] = np.nan if x is None else x
        self.state_time[idx] = now
        self._state_version += 1

    def set_joint_command(self, names: Sequence[str], position: Any = (), velocity: Any = (),
                          effort: Any = (), topic: str = 'joint_commands') -> None:
        """
        Store a joint command (any subset of joints and fields).

        A command replaces every field of the joints it names: absent fields are cleared.

        :raises InputRejected: the message is dropped (and counted); buffers are unchanged
        """
        try:
            idx = self._joints.lookup(names)
            values = self._fields(names, position, velocity, effort)
            passive = [self.joint_names[i] for i in idx if not self._commandable[i]]
            if passive:
                raise InputRejected('not_commandable',
                                    f'joints {passive} are passive and cannot be commanded')
        except InputRejected as e:
            self._drop(topic, e.reason)
            raise
        self._store_command(idx, values)

    def set_interface_command(self, interface: str, data: Any,
                              topic: Optional[str] = None) -> None:
        """
        Store a ros2_control-style array command for one interface, ordered by ``joints``.

        The joints named by ``command_joints`` get this interface only (others cleared).

        :raises InputRejected: the message is dropped (and counted); buffers are unchanged
        """
        if interface not in FIELDS:
            raise TransmissionValueError('interface', interface, f'one of {FIELDS}')
        topic = topic or f'{interface}_commands'
        try:
            x = _as_array(data, len(self.command_joints), interface)
            if x is None:
                raise InputRejected('empty', 'no values')
        except InputRejected as e:
            self._drop(topic, e.reason)
            raise
        self._store_command(self._command_idx, {interface: x})

    def reset_commands(self) -> None:
        """Forget every joint command (e.g. on activation) and any held position."""
        for field in FIELDS:
            self.command[field][:] = np.nan
        self.command_time[:] = -np.inf
        self._expired[:] = False
        self._held[:] = np.nan
        self._commanded = False

    def _store_command(self, idx: np.ndarray, values: Dict[str, np.ndarray]) -> None:
        for field in FIELDS:
            x = values.get(field)
            self.command[field][idx] = np.nan if x is None else x
        self.command_time[idx] = self.clock()
        self._expired[idx] = False
        self._commanded = True

    # ------------------------------------------------------------------ cycle
    def update(self) -> CycleOutput:
        """Run one cycle: joint states from actuator states, actuator commands from commands."""
        now = self.clock()
        joints = self._joint_states(now)
        commands = self._actuator_commands(now)
        return CycleOutput(joints, commands)

    def fresh_actuators(self, now: Optional[float] = None) -> np.ndarray:
        """Return a boolean mask of the actuators whose state is within ``state_timeout``."""
        now = self.clock() if now is None else now
        if self.state_timeout <= 0.0:
            return np.isfinite(self.state_time)
        # never seen: now - (-inf) = inf is not <= the timeout
        return (now - self.state_time) <= self.state_timeout

    def _joint_states(self, now: float) -> Optional[JointOutput]:
        fresh = self.fresh_actuators(now)
        if not _any(fresh):
            return None
        version, mask, output = self._cached
        if version == self._state_version and np.array_equal(mask, fresh):
            return output   # nothing new since the last cycle: same joint states
        output = self._convert_states(fresh)
        self._cached = (self._state_version, fresh, output)
        return output

    def _convert_states(self, fresh: np.ndarray) -> Optional[JointOutput]:
        inputs = {}
        unknown = {}
        all_fresh = _all(fresh)
        for field in FIELDS:
            x = self.state[field]
            finite = np.isfinite(x)
            if all_fresh and _all(finite):
                inputs[field] = x
                unknown[field] = None
                continue
            ok = fresh & finite
            if _any(ok):
                inputs[field] = np.where(ok, x, 0.0)
                unknown[field] = (~ok).astype(float)
        if 'position' not in inputs:
            return None
        out = self.robot.actuator_to_joint_arrays(inputs)
        valid = {}
        complete = {}   # field -> every joint valid
        for field in inputs:
            y = out[field]
            finite = np.isfinite(y)
            if unknown[field] is None:
                v = finite
                complete[field] = _all(finite)
                if not complete[field]:
                    self.non_finite_outputs += int((~finite).sum())
            else:
                # a joint is known when every actuator of its transmission is
                known = (self._joint_actuators @ unknown[field]) == 0.0
                self.non_finite_outputs += int((known & ~finite).sum())
                v = known & finite
                complete[field] = _all(v)
            valid[field] = v
        include = valid['position']
        if complete['position']:
            self._last_joint_position = out['position']
            return JointOutput(self.joint_names, out['position'],
                               out['velocity'] if complete.get('velocity') else None,
                               out['effort'] if complete.get('effort') else None)
        if not _any(include):
            return None
        self._last_joint_position = np.where(include, out['position'], np.nan)
        names = [n for n, k in zip(self.joint_names, include) if k]
        fields: Dict[str, Optional[np.ndarray]] = {}
        for field in FIELDS:
            if field in valid and valid[field][include].all():
                fields[field] = np.asarray(out[field], dtype=np.float64)[include]
            else:
                fields[field] = None
        return JointOutput(names, fields['position'], fields['velocity'], fields['effort'])

    def _actuator_commands(self, now: float) -> List[CommandOutput]:
        if not self._commanded:
            return []
        na = len(self.actuator_names)
        has_cmd = np.isfinite(self.command_time)
        if not _any(has_cmd) and not _any(np.isfinite(self._held)):
            return []
        if self.command_timeout > 0.0:
            alive = has_cmd & ((now - self.command_time) <= self.command_timeout)
        else:
            alive = has_cmd
        newly_expired = has_cmd & ~alive & ~self._expired
        if newly_expired.any():
            self._on_expired(newly_expired)
        cmd = {}
        for field in FIELDS:
            c = np.where(alive, self.command[field], np.nan)
            if np.isfinite(c).any():
                cmd[field] = c
        if self.enforce_limits:
            self._clamp_joint_commands(cmd)
        act = {f: np.full(na, np.nan) for f in FIELDS}
        if cmd:
            self._convert_commands(cmd, act)
        self._apply_timeout_action(alive, act)
        if self.enforce_limits:
            e = act['effort']
            lim = self.actuator_effort_limit
            over = np.isfinite(e) & (np.abs(e) > lim)
            if over.any():
                self.clamps['actuator_effort'] += int(over.sum())
                self.actuator_clamps += over
                act['effort'] = np.where(over, np.clip(e, -lim, lim), e)
        return self._group_commands(act)

    def _on_expired(self, newly_expired: np.ndarray) -> None:
        self._expired |= newly_expired
        if self.timeout_action != 'hold':
            return
        pos = self.state['position']
        for _, jidx, aidx, active in self._groups:
            if newly_expired[active].any():
                self._held[aidx] = pos[aidx]

    def _apply_timeout_action(self, alive: np.ndarray, act: Dict[str, np.ndarray]) -> None:
        if self.timeout_action == 'stop':
            return
        expired = self._expired & ~alive
        if not expired.any():
            self._held[:] = np.nan
            return
        for _, jidx, aidx, active in self._groups:
            if not expired[active].any():
                self._held[aidx] = np.nan
                continue
            commanded = np.zeros(len(aidx), dtype=bool)
            for f in FIELDS:
                commanded |= np.isfinite(act[f][aidx])
            if commanded.any():
                continue  # live commands of another joint of this transmission win
            if self.timeout_action == 'hold':
                act['position'][aidx] = self._held[aidx]
            elif self.timeout_action == 'zero_velocity':
                act['velocity'][aidx] = 0.0
            else:
                act['effort'][aidx] = 0.0

    def _clamp_joint_commands(self, cmd: Dict[str, np.ndarray]) -> None:
        bounds = {
            'position': ('joint_position', self.lower, self.upper),
            'velocity': ('joint_velocity', -self.velocity_limit, self.velocity_limit),
            'effort': ('joint_effort', -self.effort_limit, self.effort_limit),
        }
        for field, c in cmd.items():
            kind, lo, hi = bounds[field]
            known = np.isfinite(c)
            over = known & ((c < lo) | (c > hi))
            if over.any():
                self.clamps[kind] += int(over.sum())
                self.joint_clamps += over
                cmd[field] = np.where(over, np.clip(c, lo, hi), c)

    def _convert_commands(self, cmd: Dict[str, np.ndarray], act: Dict[str, np.ndarray]) -> None:
        """Map joint commands to actuators, transmission by transmission (complete ones only)."""
        nj = len(self.joint_names)
        complete = {}
        actuator_complete = {}
        for field, c in cmd.items():
            missing_j = (~np.isfinite(c) & self._commandable).astype(float)
            missing = self._tr_active @ missing_j            # per transmission
            full = (missing == 0.0) & self._tr_has_active
            commanded = self._tr_active @ np.isfinite(c).astype(float)
            self.incomplete_commands += int(((missing > 0.0) & (commanded > 0.0)).sum())
            complete[field] = (self._joint_tr @ full.astype(float)) > 0.0
            actuator_complete[field] = (self._actuator_tr @ full.astype(float)) > 0.0
        # linearisation point of nonlinear maps: commanded position, else measured position
        lin = np.where(complete.get('position', np.zeros(nj, dtype=bool)),
                       cmd.get('position', np.zeros(nj)), self._last_joint_position)
        lin = np.where(np.isfinite(lin), lin, np.clip(0.0, self.lower, self.upper))
        inputs = {'position': lin}
        for field in ('velocity', 'effort'):
            if field in cmd and complete[field].any():
                inputs[field] = np.where(complete[field], cmd[field], 0.0)
        out = self.robot.joint_to_actuator_arrays(inputs)
        for field in FIELDS:
            if field not in cmd or not complete[field].any():
                continue
            y = np.asarray(out[field], dtype=np.float64)
            use = actuator_complete[field]
            bad = use & ~np.isfinite(y)
            if bad.any():
                # a transmission with any non-finite actuator output sends nothing
                bad_tr = (self._tr_actuators @ bad.astype(float)) > 0.0
                use = use & ~((self._actuator_tr @ bad_tr.astype(float)) > 0.0)
                self.non_finite_outputs += int(bad_tr.sum())
            act[field] = np.where(use, y, act[field])

    def _group_commands(self, act: Dict[str, np.ndarray]) -> List[CommandOutput]:
        masks = np.stack([np.isfinite(act[f]) for f in FIELDS], axis=1)
        if not masks.any():
            return []
        keys = masks @ np.array([1, 2, 4])
        out = []
        for key in sorted({int(k) for k in keys if k}):
            sel = keys == key
            names = [n for n, s in zip(self.actuator_names, sel) if s]
            vals = [act[f][sel] if key & (1 << i) else None for i, f in enumerate(FIELDS)]
            out.append(CommandOutput(names, *vals))
        return out

    # ------------------------------------------------------------------ timing
    def record_cycle(self, start: float, end: float) -> None:
        """
        Account one cycle that started at ``start`` and finished at ``end`` (steady clock).

        An overrun is a cycle whose work took longer than the period, or that started more than
        one and a half periods after the previous one (a missed deadline).
        """
        self.cycles += 1
        dt = max(0.0, end - start)
        self.cycle_time_sum += dt
        self.max_cycle_time = max(self.max_cycle_time, dt)
        self._cycle_times.append(dt)
        if len(self._cycle_times) > 4096:
            del self._cycle_times[:2048]
        if self.period:
            late = (self._last_cycle_start is not None
                    and start - self._last_cycle_start > 1.5 * self.period)
            if dt > self.period or late:
                self.overruns += 1
        self._last_cycle_start = start

    # ------------------------------------------------------------------ diagnostics
    def diagnostics(self, prefix: str) -> List[DiagnosticRecord]:
        """Return one status for the interface and one per transmission."""
        now = self.clock()
        fresh = self.fresh_actuators(now)
        state_age = now - self.state_time
        cmd_age = now - self.command_time
        records = []
        drops = sum(sum(c.values()) for c in self.drops.values())
        times = self._cycle_times
        mean = self.cycle_time_sum / self.cycles if self.cycles else 0.0
        p99 = float(np.percentile(times, 99)) if times else 0.0
        level = OK
        message = 'ok'
        if not fresh.any():
            level, message = STALE, 'no fresh actuator state'
        elif not fresh.all():
            level, message = WARN, f'{int((~fresh).sum())} actuators stale'
        values = [
            ('joints', str(len(self.joint_names))),
            ('actuators', str(len(self.actuator_names))),
            ('cycles', str(self.cycles)),
            ('cycle_time_mean_ms', f'{mean * 1e3:.4f}'),
            ('cycle_time_p99_ms', f'{p99 * 1e3:.4f}'),
            ('cycle_time_max_ms', f'{self.max_cycle_time * 1e3:.4f}'),
            ('overruns', str(self.overruns)),
            ('dropped_messages', str(drops)),
        ]
        for topic in sorted(self.drops):
            for reason in sorted(self.drops[topic]):
                values.append((f'dropped.{topic}.{reason}', str(self.drops[topic][reason])))
        for kind in CLAMP_KINDS:
            values.append((f'clamped.{kind}', str(self.clamps[kind])))
        values.append(('incomplete_commands', str(self.incomplete_commands)))
        values.append(('non_finite_outputs', str(self.non_finite_outputs)))
        values.append(('enforce_limits', str(self.enforce_limits).lower()))
        records.append(DiagnosticRecord(prefix, level, message, 'transmission_hardware_interface',
                                        values))
        for t, jidx, aidx, active in self._groups:
            ages = state_age[aidx]
            age = float(np.max(ages)) if np.isfinite(ages).all() else math.inf
            cage = float(np.min(cmd_age[active])) if len(active) else math.inf
            if not fresh[aidx].all():
                level = STALE
                if math.isinf(age):
                    message = 'no actuator state received'
                else:
                    message = (f'stale: actuator state {age:.3f} s old '
                               f'(state_timeout {self.state_timeout:g} s)')
            elif self._expired[active].any():
                level, message = WARN, f'command timed out ({self.timeout_action})'
            else:
                level, message = OK, 'ok'
            values = [
                ('type', str(t.type)),
                ('joints', ' '.join(self.joint_names[i] for i in jidx)),
                ('actuators', ' '.join(self.actuator_names[i] for i in aidx)),
                ('state_age_s', _age(age)),
                ('command_age_s', _age(cage)),
                ('clamped', str(int(self.joint_clamps[jidx].sum()
                                    + self.actuator_clamps[aidx].sum()))),
            ]
            records.append(DiagnosticRecord(f'{prefix}: {t.name}', level, message, str(t.type),
                                            values))
        return records


def _age(age: float) -> str:
    return 'never' if math.isinf(age) or math.isnan(age) else f'{age:.4f}'
