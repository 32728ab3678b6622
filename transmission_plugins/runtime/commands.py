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
The command side of a cycle: latest commands, their watchdog, limits, conversion, grouping.

The hardware interface converts joint commands to actuator commands, the simulation interface
actuator commands to joint commands; both with a :class:`LatestCommands` over one
:class:`~.topology.Direction`, described here for the first (swap joint and actuator for the
second; every actuator may be commanded there).

Each joint keeps its latest commanded position, velocity and effort (NaN: none) and the time they
arrived; a command replaces every field of the joints it names.  Each cycle, as doc/nodes.md
("Topics", "Watchdogs and the safe-command policy") describes: expired commands get the timeout
action (:data:`TIMEOUT_ACTIONS`); joint commands are clamped to the joint limits and (hardware
interface) the bounds of :mod:`~.soft_limits`; complete transmissions are converted, nonlinear
maps linearised at the commanded position, else the measured one clipped to the joint position
limits (a measured position outside them must not inflate the Jacobian); actuator commands are
clamped to the actuator limits; the calibration offsets are added; actuators are grouped by the
fields they carry, one message per group.
"""

from typing import Callable
from typing import Dict
from typing import List
from typing import NamedTuple
from typing import Optional
from typing import Tuple

import numpy as np

from transmission_plugins.core.checks import FloatArray
from transmission_plugins.runtime.counters import Counters
from transmission_plugins.runtime.messages import any_true
from transmission_plugins.runtime.messages import FIELDS
from transmission_plugins.runtime.soft_limits import JointBounds
from transmission_plugins.runtime.soft_limits import limit_effort_bounds
from transmission_plugins.runtime.soft_limits import position_bounds
from transmission_plugins.runtime.soft_limits import rate_limit
from transmission_plugins.runtime.soft_limits import soft_effort_bounds
from transmission_plugins.runtime.soft_limits import velocity_bounds
from transmission_plugins.runtime.topology import Direction
from transmission_plugins.runtime.topology import Limits
from transmission_plugins.runtime.topology import Topology

#: What expired joints send: nothing, the actuator position measured at expiry, or zero.
TIMEOUT_ACTIONS = ('stop', 'hold', 'zero_velocity', 'zero_effort')


class CommandOutput(NamedTuple):
    """One command message: the targets sharing the same commanded fields."""

    names: List[str]
    position: Optional[FloatArray]
    velocity: Optional[FloatArray]
    effort: Optional[FloatArray]


class LatestCommands:
    """
    Latest source commands, the command watchdog and the target commands they make.

    :param to_joints: actuator commands in, joint commands out (False: the other way round)
    :param counters: clamps, incomplete commands and non-finite outputs are counted there

    The other parameters are :class:`~.cycle.InterfaceCycle`'s.
    """

    def __init__(self, topology: Topology, to_joints: bool, counters: Counters,
                 command_timeout: float, enforce_limits: bool, timeout_action: str) -> None:
        direction = topology.direction(to_joints)
        #: the sources, targets, limits and map (:class:`~.topology.Direction`)
        self.direction: Direction = direction
        self.counters = counters
        self.command_timeout = float(command_timeout)
        self.enforce_limits = bool(enforce_limits)
        self.timeout_action = timeout_action
        self.target_names: List[str] = list(direction.target_names)
        ns, nt = len(direction.source_names), len(self.target_names)
        #: transmission -> its commandable sources, and the reverse
        self._tr_sources = direction.tr_sources
        self._source_tr = direction.tr_sources.T.copy()
        #: target -> its transmissions
        self._target_tr = (direction.tr_targets.T > 0).astype(float)
        self._tr_commandable = direction.tr_sources.sum(axis=1) > 0
        #: latest command per field (NaN = none) and its arrival time (-inf: never)
        self.command: Dict[str, FloatArray] = {f: np.full(ns, np.nan) for f in FIELDS}
        self.command_time = np.full(ns, -np.inf)
        self._held = np.full(nt, np.nan)
        # False while no command was stored since the last reset: then no command time is
        # finite and nothing is held, and a cycle has no target command to work out
        self._commanded = False
        #: sources whose command expired (and has not been renewed)
        self.expired = np.zeros(ns, dtype=bool)
        #: the last cycle's target commands per field (NaN: none; empty: no command at all)
        self.latest: Dict[str, FloatArray] = {}
        #: per transmission: commanded for only some of its commandable sources last cycle
        self.incomplete = np.zeros(len(direction.groups), dtype=bool)
        #: the soft and rate limits of joint sources (None: hard limits only); with
        #: :attr:`measured`, the measured source positions and velocities (NaN: unknown)
        self.bounds: Optional[JointBounds] = None
        self.measured: Optional[Callable[[], Tuple[FloatArray, FloatArray]]] = None
        #: the cycle period in seconds (the rate limits' time step; None: from the clock)
        self.period: Optional[float] = None
        self._motion = MotionState(ns)
        #: added to every target position command (the hardware interface's actuator
        #: calibration offsets, :mod:`~.calibration`), or None
        self.position_offset: Optional[FloatArray] = None

    def store(self, idx: np.ndarray, values: Dict[str, FloatArray], now: float) -> None:
        """Store a validated command for sources ``idx``; absent fields are cleared."""
        for field in FIELDS:
            x = values.get(field)
            self.command[field][idx] = np.nan if x is None else x
        self.command_time[idx] = now
        self.expired[idx] = False
        self._commanded = True

    def reset(self) -> None:
        """Forget every command (e.g. on activation) and any held position."""
        for field in FIELDS:
            self.command[field][:] = np.nan
        self.command_time[:] = -np.inf
        self.expired[:] = False
        self._held[:] = np.nan
        self._commanded = False
        self._motion.reset()

    def outputs(self, now: float, target_position: FloatArray,
                source_position: FloatArray) -> List[CommandOutput]:
        """
        Return this cycle's target command messages (module docstring).

        :param target_position: the latest measured target positions (held on expiry)
        :param source_position: the last source positions measured (linearisation points)
        """
        self.latest = {}
        self.incomplete[:] = False
        if not self._commanded:
            return []
        nt = len(self.target_names)
        has_cmd = np.isfinite(self.command_time)
        if not any_true(has_cmd) and not any_true(np.isfinite(self._held)):
            return []
        if self.command_timeout > 0.0:
            alive = has_cmd & ((now - self.command_time) <= self.command_timeout)
        else:
            alive = has_cmd
        newly_expired = has_cmd & ~alive & ~self.expired
        if newly_expired.any():
            self._on_expired(newly_expired, target_position)
        cmd = {}
        for field in FIELDS:
            c = np.where(alive, self.command[field], np.nan)
            if np.isfinite(c).any():
                cmd[field] = c
        if self.enforce_limits:
            self._clamp_all(self.direction.source, cmd, self.direction.source_limits)
            if self.bounds is not None and self.measured is not None:
                self._limit_motion(cmd, now, self.bounds, *self.measured())
        out = {f: np.full(nt, np.nan) for f in FIELDS}
        if cmd:
            self._convert_commands(cmd, out, source_position)
        self._apply_timeout_action(alive, out)
        if self.enforce_limits:
            self._clamp_all(self.direction.target, out, self.direction.target_limits)
        if self.position_offset is not None:
            out['position'] = out['position'] + self.position_offset
        self.latest = out
        return group_by_fields(self.target_names, out)

    def _clamp_all(self, side: str, values: Dict[str, np.ndarray], limits: Limits) -> None:
        """Clip each field of ``values`` to ``limits`` in place; count the clamps."""
        bounds = limits.bounds()
        for field, a in values.items():
            values[field] = self._clamp(side, field, a, *bounds[field])

    def _clamp(self, side: str, kind: str, a: np.ndarray, lo: np.ndarray,
               hi: np.ndarray) -> np.ndarray:
        """Return ``a`` clipped to ``[lo, hi]`` (NaN stays NaN); count the clamps of ``kind``."""
        with np.errstate(invalid='ignore'):
            outside = (a < lo) | (a > hi)   # NaN (no command) compares False
            if not any_true(outside):
                return a
            # counted beyond rounding only: a command at a mapped limit may land an ulp past
            # the limit computed from the same limit of the other side by the vectorised maths
            slack = 1e-9 * (1.0 + np.abs(a))
            over = (a < lo - slack) | (a > hi + slack)
        self.counters.count_clamps(side, kind, over)
        return np.where(outside, np.clip(a, lo, hi), a)

    def _on_expired(self, newly_expired: np.ndarray, pos: FloatArray) -> None:
        self.expired |= newly_expired
        if self.timeout_action != 'hold':
            return
        for sidx, tidx in self.direction.groups:
            if newly_expired[sidx].any():
                self._held[tidx] = pos[tidx]

    def _apply_timeout_action(self, alive: np.ndarray, out: Dict[str, np.ndarray]) -> None:
        if self.timeout_action == 'stop':
            return
        expired = self.expired & ~alive
        if not expired.any():
            self._held[:] = np.nan
            return
        for sidx, tidx in self.direction.groups:
            if not expired[sidx].any():
                self._held[tidx] = np.nan
                continue
            commanded = np.zeros(len(tidx), dtype=bool)
            for f in FIELDS:
                commanded |= np.isfinite(out[f][tidx])
            if commanded.any():
                continue  # live commands of another source of this transmission win
            if self.timeout_action == 'hold':
                out['position'][tidx] = self._held[tidx]
            elif self.timeout_action == 'zero_velocity':
                out['velocity'][tidx] = 0.0
            else:
                out['effort'][tidx] = 0.0

    def _limit_motion(self, cmd: Dict[str, np.ndarray], now: float, b: JointBounds,
                      q: FloatArray, v: FloatArray) -> None:
        """
        Clamp joint commands to the soft and rate limits of :mod:`~.soft_limits` (and count).

        The rate limits act on a joint commanded in the previous cycle; :class:`MotionState`
        keeps its last commanded position, velocity and implied acceleration.
        """
        m = self._motion
        dt = m.step(now, self.period)
        ns = len(q)
        none = np.full(ns, np.nan)
        p, vel, eff = (cmd.get(f, none) for f in FIELDS)
        has_p, has_v = np.isfinite(p), np.isfinite(vel)
        rated = np.isfinite(b.acceleration) | np.isfinite(b.deceleration) | np.isfinite(b.jerk)
        prev_v = np.where(np.isfinite(m.velocity), m.velocity, v)
        new_p, new_v, new_a = none.copy(), none.copy(), none.copy()
        if any_true(has_p):
            ref = np.where(np.isfinite(m.position), m.position, q)
            lo, hi = position_bounds(b, ref, dt)
            p = self._clamp('joint', 'soft_position', p, lo, hi)
            # a huge command over a short step overflows to inf: a rate the next cycle takes
            # as unknown (MotionState), so no warning for it
            with np.errstate(invalid='ignore', over='ignore'):
                implied = (p - ref) / dt
            go = has_p & rated & np.isfinite(ref)
            if any_true(go):
                p = np.where(go, ref + self._rates(b, implied, prev_v, m.acceleration, dt, go)
                             * dt, p)
            with np.errstate(invalid='ignore', over='ignore'):
                new_v = np.where(has_p, (p - ref) / dt, new_v)
            new_p = np.where(has_p, p, new_p)
            cmd['position'] = p
        if any_true(has_v):
            lo, hi = velocity_bounds(b, q)
            vel = self._clamp('joint', 'soft_velocity', vel, np.where(b.safety, lo, -np.inf),
                              np.where(b.safety, hi, np.inf))
            go = has_v & ~has_p & rated
            if any_true(go):
                vel = np.where(go, self._rates(b, vel, prev_v, m.acceleration, dt, go), vel)
            new_v = np.where(has_v & ~has_p, vel, new_v)
            cmd['velocity'] = vel
        if any_true(np.isfinite(eff)):
            eff = self._clamp('joint', 'soft_effort', eff, *soft_effort_bounds(b, q, v))
            cmd['effort'] = self._clamp('joint', 'effort', eff, *limit_effort_bounds(b, q, v))
        with np.errstate(invalid='ignore', over='ignore'):
            new_a = (new_v - prev_v) / dt
        m.update(now, new_p, new_v, new_a)

    def _rates(self, b: JointBounds, desired: np.ndarray, previous: np.ndarray,
               acceleration: np.ndarray, dt: float, go: np.ndarray) -> np.ndarray:
        """Return ``desired`` velocities after the rate limits (counted where ``go``)."""
        r = rate_limit(b, desired, previous, acceleration, dt)
        for kind in ('acceleration', 'deceleration', 'jerk'):
            self.counters.count_clamps('joint', kind, getattr(r, kind) & go)
        return r.velocity

    def _convert_commands(self, cmd: Dict[str, FloatArray], out: Dict[str, FloatArray],
                          source_position: FloatArray) -> None:
        """Map source commands to targets, transmission by transmission (complete ones only)."""
        ns = len(source_position)
        complete = {}
        target_complete = {}
        commandable = self.direction.commandable
        for field, c in cmd.items():
            missing_s = (~np.isfinite(c) & commandable).astype(float)
            missing = self._tr_sources @ missing_s            # per transmission
            full = (missing == 0.0) & self._tr_commandable
            commanded = self._tr_sources @ np.isfinite(c).astype(float)
            incomplete = (missing > 0.0) & (commanded > 0.0)
            self.counters.incomplete_commands += int(incomplete.sum())
            self.incomplete |= incomplete
            complete[field] = (self._source_tr @ full.astype(float)) > 0.0
            target_complete[field] = (self._target_tr @ full.astype(float)) > 0.0
        # linearisation point of nonlinear maps: the commanded position (itself the position
        # command, clamped with enforce_limits), else the measured one clipped to the limits
        limits = self.direction.source_limits
        measured = np.clip(np.where(np.isfinite(source_position), source_position, 0.0),
                           limits.lower, limits.upper)
        lin = np.where(complete.get('position', np.zeros(ns, dtype=bool)),
                       cmd.get('position', np.zeros(ns)), measured)
        inputs = {'position': lin}
        for field in ('velocity', 'effort'):
            if field in cmd and complete[field].any():
                inputs[field] = np.where(complete[field], cmd[field], 0.0)
        converted = self.direction.convert(inputs)
        far = self.direction.unreachable(lin)
        for field in FIELDS:
            if field not in cmd or not complete[field].any():
                continue
            y = np.asarray(converted[field], dtype=np.float64)
            use = target_complete[field]
            if far.any():
                self.counters.unreachable_outputs += int(np.count_nonzero(use & far))
                use = use & ~far
            bad = use & ~np.isfinite(y)
            if bad.any():
                # a transmission with any non-finite target output sends nothing
                bad_tr = (self.direction.tr_targets @ bad.astype(float)) > 0.0
                use = use & ~((self._target_tr @ bad_tr.astype(float)) > 0.0)
                self.counters.non_finite_outputs += int(bad_tr.sum())
            out[field] = np.where(use, y, out[field])


class MotionState:
    """
    The last commanded motion of each joint, for the rate limits (NaN: none).

    A joint not commanded in a cycle forgets its motion; so does every joint when cycles stop
    for more than three periods (a command after a pause starts from the measured state).
    """

    def __init__(self, count: int) -> None:
        self.position = np.full(count, np.nan)
        self.velocity = np.full(count, np.nan)
        self.acceleration = np.full(count, np.nan)
        self.time: Optional[float] = None

    def reset(self) -> None:
        """Forget every joint's motion."""
        for x in (self.position, self.velocity, self.acceleration):
            x[:] = np.nan
        self.time = None

    def step(self, now: float, period: Optional[float]) -> float:
        """Return the time step since the last cycle (reset after a pause)."""
        nominal = period if period else 0.01
        if self.time is None or now - self.time > 3.0 * nominal:
            self.reset()
            return nominal
        return now - self.time if now > self.time else nominal

    def update(self, now: float, position: np.ndarray, velocity: np.ndarray,
               acceleration: np.ndarray) -> None:
        """Keep this cycle's commanded motion."""
        self.position, self.velocity, self.acceleration = position, velocity, acceleration
        self.time = now


def group_by_fields(names: List[str], values: Dict[str, np.ndarray]) -> List[CommandOutput]:
    """
    Group the entries of ``values`` (per field, NaN: none) by the set of fields they carry.

    :returns: one message per set of fields, entries in ``names`` order; none for entries
        without any field
    """
    masks = np.stack([np.isfinite(values[f]) for f in FIELDS], axis=1)
    if not masks.any():
        return []
    keys = masks @ np.array([1, 2, 4])
    out = []
    for key in sorted({int(k) for k in keys if k}):
        sel = keys == key
        selected = [n for n, s in zip(names, sel) if s]
        vals = [values[f][sel] if key & (1 << i) else None for i, f in enumerate(FIELDS)]
        out.append(CommandOutput(selected, *vals))
    return out
