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
from typing import NamedTuple
from typing import Sequence
from typing import TYPE_CHECKING

import numpy as np

from transmission_plugins.core.checks import FloatArray
from transmission_plugins.runtime.diagnostics import Counters
from transmission_plugins.runtime.messages import FIELDS
from transmission_plugins.runtime.soft_limits import hard_velocity_bounds
from transmission_plugins.runtime.soft_limits import JointBounds
from transmission_plugins.runtime.soft_limits import limit_effort_bounds
from transmission_plugins.runtime.soft_limits import position_bounds
from transmission_plugins.runtime.soft_limits import rate_limit
from transmission_plugins.runtime.soft_limits import soft_effort_bounds
from transmission_plugins.runtime.soft_limits import velocity_bounds
from transmission_plugins.runtime.topology import Direction
from transmission_plugins.runtime.topology import Topology

if TYPE_CHECKING:
    from transmission_plugins.runtime.cycle import Configured
    from transmission_plugins.runtime.drivetrain import Cause
    from transmission_plugins.runtime.drivetrain import CycleDrivetrain
    from transmission_plugins.runtime.series_elastic import CycleSeriesElastic

TIMEOUT_ACTIONS = ('stop', 'hold', 'zero_velocity', 'zero_effort')


class CommandOutput(NamedTuple):
    """One command message: the targets sharing the same commanded fields."""

    names: list[str]
    position: FloatArray | None
    velocity: FloatArray | None
    effort: FloatArray | None


class LatestCommands:
    """
    Latest source commands, the command watchdog and the target commands they make.

    :param to_joints: actuator commands in, joint commands out (False: the other way round)
    :param counters: clamps, incomplete commands and non-finite outputs are counted there
    :param cycle: what holds the cycle's settings (:attr:`~.cycle.InterfaceCycle.settings`)

    The other parameters are :class:`~.cycle.InterfaceCycle`'s.
    """

    def __init__(self, topology: Topology, to_joints: bool, counters: Counters,
                 cycle: 'Configured') -> None:
        direction = topology.direction(to_joints)
        #: the sources, targets, limits and map (:class:`~.topology.Direction`)
        self.direction: Direction = direction
        self._incidence = direction.incidence
        self.counters = counters
        #: holds the cycle's settings (the watchdog, limits, timeout action and period)
        self._cycle = cycle
        self.target_names: list[str] = list(direction.target_names)
        ns, nt = len(direction.source_names), len(self.target_names)
        #: latest command per field (NaN = none): rows of one array, position, velocity, effort
        self._command = np.full((len(FIELDS), ns), np.nan)
        self.command: dict[str, FloatArray] = dict(zip(FIELDS, self._command))
        #: and its arrival time (-inf: never)
        self.command_time = np.full(ns, -np.inf)
        self._held = np.full(nt, np.nan)
        # False while no command was stored since the last reset: then no command time is
        # finite and nothing is held, and a cycle has no target command to work out
        self._commanded = False
        #: sources whose command expired (and has not been renewed)
        self.expired = np.zeros(ns, dtype=bool)
        #: the last cycle's target commands per field (NaN: none; empty: no command at all)
        self.latest: dict[str, FloatArray] = {}
        #: per transmission: commanded for only some of its commandable sources last cycle
        self.incomplete = np.zeros(len(direction.groups), dtype=bool)
        #: the measured source positions and velocities (NaN: unknown), for the soft limits
        self.measured: Callable[[], tuple[FloatArray, FloatArray]] | None = None
        self._motion = MotionState(ns)
        #: added to every target position command (the hardware interface's actuator
        #: calibration offsets, :mod:`~.calibration`), or None
        self.position_offset: FloatArray | None = None
        # the hard limits of both sides, one row per field
        self._source_bounds = direction.source_limits.stacked()
        self._target_bounds = direction.target_limits.stacked()
        # where the conversion writes (rewritten every cycle) and the mechanisms' range
        self._converted = np.empty((len(FIELDS), nt))
        self._nothing = np.full((len(FIELDS), nt), np.nan)
        self._far = None if direction.to_joint else np.zeros(nt, dtype=bool)
        self._bounds: JointBounds | None = None
        # what a command of every commandable source completes: the sources and targets of
        # every transmission
        everything = np.ones(self._incidence.count, dtype=bool)
        self._commandable = direction.commandable
        self._sourced = self._incidence.sources_any(everything)
        self._targeted = self._incidence.targets_any(everything)
        self._rated = np.zeros(ns, dtype=bool)
        self._any_rated = self._position_limited = False
        self._motion_limited = False
        #: the drivetrain's part of the cycle (hardware interface, a robot with drivetrain
        #: data: :mod:`~.drivetrain`), else None
        self.drivetrain: 'CycleDrivetrain | None' = None
        self._springs: 'CycleSeriesElastic | None' = None

    @property
    def series_elastic(self) -> 'CycleSeriesElastic | None':
        """Return the series-elastic part of the cycle (:mod:`~.series_elastic`), or None."""
        return self._springs

    @series_elastic.setter
    def series_elastic(self, value: 'CycleSeriesElastic | None') -> None:
        """Take it (once, at configure): the motors' position range is widened by it."""
        self._springs = value
        if value is not None:
            self._target_bounds = value.widen(*self.direction.target_limits.stacked())

    @property
    def bounds(self) -> JointBounds | None:
        """Return the soft and rate limits of joint sources (None: hard limits only)."""
        return self._bounds

    @bounds.setter
    def bounds(self, value: JointBounds | None) -> None:
        self._bounds = value
        if value is None:
            self._motion_limited = False
            return
        self._rated = (np.isfinite(value.acceleration) | np.isfinite(value.deceleration)
                       | np.isfinite(value.jerk))
        self._any_rated = bool(self._rated.any())
        # position commands: the soft limits and the rates; velocity and effort commands, the
        # position limits too: a robot with none of them skips the motion limits whole
        self._position_limited = bool(value.safety.any() or self._any_rated)
        self._motion_limited = bool(self._position_limited or np.isfinite(value.lower).any()
                                    or np.isfinite(value.upper).any())

    def store(self, idx: np.ndarray, values: dict[str, FloatArray], now: float) -> None:
        """Store a validated command for sources ``idx``; absent fields are cleared."""
        for field, row in zip(FIELDS, self._command):
            x = values.get(field)
            row[idx] = np.nan if x is None else x
        self.command_time[idx] = now
        self.expired[idx] = False
        self._commanded = True

    def reset(self) -> None:
        """Forget every command (e.g. on activation) and any held position."""
        self._command[:] = np.nan
        self.command_time[:] = -np.inf
        self.expired[:] = False
        self._held[:] = np.nan
        self._commanded = False
        self._motion.reset()
        if self._springs is not None:
            self._springs.reset()

    def outputs(self, now: float, target_position: FloatArray,
                source_position: FloatArray) -> list[CommandOutput]:
        """
        Return this cycle's target command messages (module docstring).

        :param target_position: the latest measured target positions (held on expiry)
        :param source_position: the last source positions measured (linearisation points)
        """
        self.latest = {}
        self.incomplete[:] = False
        if not self._commanded:
            return []
        has_cmd = self.command_time > -np.inf
        if True not in has_cmd and False not in np.isnan(self._held):
            return []
        alive = has_cmd
        settings = self._cycle.settings
        if settings.command_timeout > 0.0:
            alive = has_cmd & ((now - self.command_time) <= settings.command_timeout)
            if False in alive:
                newly_expired = has_cmd & ~alive & ~self.expired
                if True in newly_expired:
                    self._on_expired(newly_expired, target_position)
        block = np.where(alive, self._command, np.nan)
        given = np.isfinite(block)
        cmd = {}
        for field, row, finite in zip(FIELDS, block, given):
            if True in finite:
                cmd[field] = row
        drivetrain = self.drivetrain
        compensated = None
        if drivetrain is not None and settings.friction_compensation and 'effort' in cmd:
            measured = np.full_like(block[1], np.nan) if self.measured is None \
                else self.measured()[1]
            compensated = drivetrain.compensation(drivetrain.joint_friction, block[2], block[1],
                                                  measured)
        if settings.enforce_limits:
            self._clamp_block(self.direction.source, block, *self._source_bounds)
            if self._motion_limited and self.measured is not None and self._bounds:
                self._limit_motion(cmd, now, self._bounds, *self.measured())
            if drivetrain is not None and compensated is not None:
                drivetrain.count_clipped(self.counters, compensated, block[2])
        out = self._nothing.copy()
        values = dict(zip(FIELDS, out))
        if cmd:
            self._convert_commands(cmd, values, source_position)
        springs = self._springs
        if springs is not None:
            springs.motor_commands(block, out, now)
        # the drivetrain (:mod:`~.drivetrain`): live effort commands get the actuator-side
        # friction compensation before the timeout action; every actuator limit (the URDF's,
        # the torque-speed envelope, the thermal current limit, the maximum speed) after it,
        # each clamp counted under the limit that binds
        compensated = None
        if drivetrain is not None and settings.friction_compensation:
            compensated = drivetrain.compensation(drivetrain.actuator_friction, out[2], out[1],
                                                  drivetrain.measured('velocity', now))
        self._apply_timeout_action(alive, values)
        if springs is not None:
            springs.finish(out)
        if settings.enforce_limits:
            if drivetrain is None:
                self._clamp_block(self.direction.target, out, *self._target_bounds)
            else:
                lo, hi, causes = drivetrain.target_bounds(*self._target_bounds, now)
                self._clamp_block(self.direction.target, out, lo, hi, causes)
                drivetrain.count_clipped(self.counters, compensated, out[2])
        if drivetrain is not None:
            drivetrain.sent(out[2])   # kept for the thermal estimate; sent in its effort unit
        if self.position_offset is not None:
            out[0] += self.position_offset
        self.latest = values
        return group_by_fields(self.target_names, out)

    def _clamp_block(self, side: str, block: np.ndarray, lo: np.ndarray, hi: np.ndarray,
                     causes: 'Sequence[Cause | None] | None' = None) -> None:
        """
        Clip position, velocity and effort rows to their limits in place; count the clamps.

        :param causes: per row, None (counted under the row's field) or the kinds whose
            bounds ``lo`` and ``hi`` are and which one binds each entry (:mod:`~.drivetrain`)
        """
        outside = (block < lo) | (block > hi)   # NaN (no command) compares False
        if True not in outside:
            return
        for k, field in enumerate(FIELDS):
            if True in outside[k]:
                block[k] = self._clamp(side, field, block[k], lo[k], hi[k],
                                       None if causes is None else causes[k])

    def _clamp(self, side: str, kind: str, a: np.ndarray, lo: np.ndarray,
               hi: np.ndarray, cause: 'Cause | None' = None) -> np.ndarray:
        """
        Return ``a`` clipped to ``[lo, hi]`` (NaN stays NaN); count the clamps of ``kind``.

        :param cause: the kinds of the bounds and, per entry, which one binds the low and the
            high bound: each clamp is counted under the kind that binds it
        """
        outside = (a < lo) | (a > hi)   # NaN (no command) compares False
        if True not in outside:
            return a
        # counted beyond rounding only: a command at a mapped limit may land an ulp past
        # the limit computed from the same limit of the other side by the vectorised maths
        slack = 1e-9 * (1.0 + np.abs(a))
        over = (a < lo - slack) | (a > hi + slack)
        if cause is None:
            self.counters.count_clamps(side, kind, over)
        else:
            kinds, low, high = cause
            which = np.where(a > hi, high, low)
            for k, name in enumerate(kinds):
                self.counters.count_clamps(side, name, over & (which == k))
        return np.where(outside, np.clip(a, lo, hi), a)

    def _on_expired(self, newly_expired: np.ndarray, pos: FloatArray) -> None:
        self.expired |= newly_expired
        if self._cycle.settings.timeout_action != 'hold':
            return
        for sidx, tidx in self.direction.groups:
            if newly_expired[sidx].any():
                self._held[tidx] = pos[tidx]
        if self._springs is not None:
            self._springs.hold(self._held, newly_expired)

    def _apply_timeout_action(self, alive: np.ndarray, out: dict[str, np.ndarray]) -> None:
        if self._cycle.settings.timeout_action == 'stop':
            return
        expired = self.expired & ~alive
        if True not in expired:
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
            if self._cycle.settings.timeout_action == 'hold':
                out['position'][tidx] = self._held[tidx]
            elif self._cycle.settings.timeout_action == 'zero_velocity':
                out['velocity'][tidx] = 0.0
            else:
                out['effort'][tidx] = 0.0

    def _limit_motion(self, cmd: dict[str, np.ndarray], now: float, b: JointBounds,
                      q: FloatArray, v: FloatArray) -> None:
        """
        Clamp joint commands to the soft and rate limits of :mod:`~.soft_limits` (and count).

        The rate limits act on a joint commanded in the previous cycle; :class:`MotionState`
        keeps its last commanded position, velocity and implied acceleration (the velocity and
        acceleration only when some joint has a rate limit).
        """
        m = self._motion
        dt = m.step(now, self._cycle.settings.period)
        none = m.none
        rated = self._rated if self._any_rated else None
        prev_v = none
        if rated is not None:   # the previous command's, the measured one, else at rest
            prev_v = np.where(np.isfinite(m.velocity), m.velocity,
                              np.where(np.isfinite(v), v, 0.0))
        new_v = none
        p = cmd.get('position')
        if p is not None and self._position_limited:
            ref = np.where(np.isfinite(m.position), m.position, q)
            p[:] = self._clamp('joint', 'soft_position', p, *position_bounds(b, ref, dt))
            if rated is not None:
                has_p = np.isfinite(p)
                go = has_p & rated & np.isfinite(ref)
                with np.errstate(invalid='ignore', over='ignore'):   # a huge rate: inf
                    implied = (p - ref) / dt
                    if True in go:
                        p[:] = np.where(go, ref + self._rates(b, implied, prev_v, m.acceleration,
                                                              dt, go) * dt, p)
                        implied = (p - ref) / dt
                new_v = np.where(has_p, implied, none)
        vel = cmd.get('velocity')
        if vel is not None:
            lo, hi = np.where(b.safety, velocity_bounds(b, q), b.open_range)
            vel[:] = self._clamp('joint', 'soft_velocity', vel, lo, hi)
            vel[:] = self._clamp('joint', 'velocity', vel, *hard_velocity_bounds(b, q, dt))
            if rated is not None:
                free = np.isfinite(vel) & (True if p is None else ~np.isfinite(p))
                go = free & rated
                if True in go:
                    vel[:] = np.where(go, self._rates(b, vel, prev_v, m.acceleration, dt, go),
                                      vel)
                new_v = np.where(free, vel, new_v)
        eff = cmd.get('effort')
        if eff is not None:
            eff[:] = self._clamp('joint', 'soft_effort', eff, *soft_effort_bounds(b, q, v))
            eff[:] = self._clamp('joint', 'effort', eff, *limit_effort_bounds(b, q, v))
        if rated is None:
            m.update(now, none if p is None else p, none, none)
            return
        with np.errstate(invalid='ignore', over='ignore'):   # inf - inf: an unknown rate
            m.update(now, none if p is None else p, new_v, (new_v - prev_v) / dt)

    def _rates(self, b: JointBounds, desired: np.ndarray, previous: np.ndarray,
               acceleration: np.ndarray, dt: float, go: np.ndarray) -> np.ndarray:
        """Return ``desired`` velocities after the rate limits (counted where ``go``)."""
        r = rate_limit(b, desired, previous, acceleration, dt)
        for kind in ('acceleration', 'deceleration', 'jerk'):
            self.counters.count_clamps('joint', kind, getattr(r, kind) & go)
        return r.velocity

    def _convert_commands(self, cmd: dict[str, FloatArray], out: dict[str, FloatArray],
                          source_position: FloatArray) -> None:
        """Map source commands to targets, transmission by transmission (complete ones only)."""
        inc = self._incidence
        complete = {}
        target_complete = {}
        for field, c in cmd.items():
            finite = np.isfinite(c)
            if True not in (self._commandable > finite):   # every commandable source has it
                complete[field], target_complete[field] = self._sourced, self._targeted
                continue
            full = inc.all_sources(finite)                    # per transmission
            incomplete = inc.any_source(finite) & ~full
            if True in incomplete:
                self.counters.incomplete_commands += int(np.count_nonzero(incomplete))
                self.incomplete |= incomplete
            complete[field] = inc.sources_any(full)
            target_complete[field] = inc.targets_any(full)
        # linearisation point of nonlinear maps: the commanded position (itself the position
        # command, clamped with enforce_limits), else the measured one clipped to the limits
        position = complete.get('position')
        if position is not None and False not in position:
            lin = cmd['position']
        else:
            limits = self.direction.source_limits
            lin = np.clip(np.where(np.isfinite(source_position), source_position, 0.0),
                          limits.lower, limits.upper)
            if position is not None:
                lin = np.where(position, cmd['position'], lin)
        inputs = {'position': lin}
        for field in ('velocity', 'effort'):
            if field in cmd and True in complete[field]:
                inputs[field] = (cmd[field] if False not in complete[field]
                                 else np.where(complete[field], cmd[field], 0.0))
        converted = self.direction.maps.convert(
            inputs, self.direction.to_joint, out=dict(zip(FIELDS, self._converted)),
            unreachable=self._far)
        far = self._far
        for field in cmd:
            if True not in complete[field]:
                continue
            y = converted[field]
            use = target_complete[field]
            if far is not None and True in far:
                self.counters.unreachable_outputs += int(np.count_nonzero(use & far))
                use = use & ~far
            bad = use & ~np.isfinite(y)
            if True in bad:
                # a transmission with any non-finite target output sends nothing
                bad_tr = inc.any_target(bad)
                use = use & ~inc.targets_any(bad_tr)
                self.counters.non_finite_outputs += int(np.count_nonzero(bad_tr))
            np.copyto(out[field], y, where=use)


class MotionState:
    """
    The last commanded motion of each joint, for the rate limits (NaN: none).

    A joint not commanded in a cycle forgets its motion; so does every joint when cycles stop
    for more than three periods (a command after a pause starts from the measured state).
    """

    def __init__(self, count: int) -> None:
        #: NaN everywhere, never written: "no value" for a field not commanded
        self.none = np.full(count, np.nan)
        self.none.setflags(write=False)
        self.position = np.full(count, np.nan)
        self.velocity = np.full(count, np.nan)
        self.acceleration = np.full(count, np.nan)
        self.time: float | None = None

    def reset(self) -> None:
        """Forget every joint's motion."""
        self.position = self.velocity = self.acceleration = self.none
        self.time = None

    def step(self, now: float, period: float | None) -> float:
        """Return the time step since the last cycle (reset after a pause)."""
        nominal = period if period else 0.01
        if self.time is None or now - self.time > 3.0 * nominal:
            self.reset()
            return nominal
        return now - self.time if now > self.time else nominal

    def update(self, now: float, position: np.ndarray, velocity: np.ndarray,
               acceleration: np.ndarray) -> None:
        """Keep this cycle's commanded motion (arrays the caller no longer writes)."""
        self.position, self.velocity, self.acceleration = position, velocity, acceleration
        self.time = now


def group_by_fields(names: list[str], values: np.ndarray) -> list[CommandOutput]:
    """
    Group the entries of ``values`` by the set of fields they carry.

    :param values: ``(3, len(names))``: position, velocity and effort per entry (NaN: none)
    :returns: one message per set of fields, entries in ``names`` order; none for entries
        without any field.  When every entry carries the same fields, the message names are
        ``names`` itself (a publisher then keeps its message's names).
    """
    keys = _WEIGHTS @ np.isfinite(values)
    if not len(names):
        return []
    if True not in (keys != keys[0]):   # one set of fields for all (or none at all)
        key = int(keys[0])
        if not key:
            return []
        return [CommandOutput(names, values[0] if key & 1 else None,
                              values[1] if key & 2 else None, values[2] if key & 4 else None)]
    out = []
    for key in np.unique(keys).tolist():
        if key:
            sel = keys == key
            selected = [n for n, s in zip(names, sel.tolist()) if s]
            out.append(CommandOutput(selected, *(x[sel] if key & (1 << i) else None
                                                 for i, x in enumerate(values))))
    return out


#: the key of a set of fields: position 1, velocity 2, effort 4
_WEIGHTS = np.array([1, 2, 4])
