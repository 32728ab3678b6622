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

The hardware interface converts joint commands to actuator commands (:class:`JointCommands`),
the simulation interface actuator commands to joint commands (:class:`ActuatorCommands`); both
are a :class:`LatestCommands` over one :class:`~.topology.Direction`, described here for the
first (swap joint and actuator for the second; every actuator may be commanded there).

Each joint keeps its latest commanded position, velocity and effort (NaN: none) and the time they
arrived; a command replaces every field of the joints it names.  Each cycle:

1. commands older than ``command_timeout`` expire; the actuators of an expired transmission get
   the timeout action (:data:`TIMEOUT_ACTIONS`) unless a live command of another of its joints
   drives them;
2. with ``enforce_limits``, joint commands are clamped to the URDF position, velocity and
   effort limits (each clamp counted);
3. a transmission is converted for a field only when every commandable joint of it has that
   field (an incomplete one is counted and sends nothing); nonlinear maps are linearised at the
   commanded position, else the measured one (else 0) clipped to the joint position limits (a
   measured position outside them must not inflate the Jacobian: the PR2 gripper's velocity
   commands reached twice their limit that way);
4. with ``enforce_limits``, actuator commands (the timeout action's included) are clamped to the
   actuator limits: position to the range the joint limits map to, velocity and effort to the
   mapped (or the actuator data's) limits, each clamp counted, so that no command exceeds a
   declared limit whatever the measured state; a transmission with any non-finite actuator
   value sends nothing (counted);
5. actuators are grouped by the set of fields they carry, one message per group.
"""

from typing import Dict
from typing import List
from typing import NamedTuple
from typing import Optional

import numpy as np

from transmission_plugins.core.checks import FloatArray
from transmission_plugins.runtime.counters import Counters
from transmission_plugins.runtime.messages import any_true
from transmission_plugins.runtime.messages import FIELDS
from transmission_plugins.runtime.topology import Direction
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

    :param topology: the robot's index groups; :attr:`TO_JOINTS` picks the direction
    :param counters: clamps, incomplete commands and non-finite outputs are counted there
    :param command_timeout: seconds after which a command expires; <= 0: never
    :param enforce_limits: clamp to the source and target limits
    :param timeout_action: one of :data:`TIMEOUT_ACTIONS`
    """

    #: True: actuator commands in, joint commands out; False: the other way round
    TO_JOINTS = False

    def __init__(self, topology: Topology, counters: Counters, command_timeout: float,
                 enforce_limits: bool, timeout_action: str) -> None:
        direction = topology.direction(self.TO_JOINTS)
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
            self._clamp_sources(cmd)
        out = {f: np.full(nt, np.nan) for f in FIELDS}
        if cmd:
            self._convert_commands(cmd, out, source_position)
        self._apply_timeout_action(alive, out)
        if self.enforce_limits:
            self._clamp_targets(out)
        self.latest = out
        return group_by_fields(self.target_names, out)

    def _clamp_targets(self, out: Dict[str, np.ndarray]) -> None:
        side = self.direction.target
        per_target = getattr(self.counters, f'{side}_clamps')
        for field, (lo, hi) in self.direction.target_limits.bounds().items():
            a = out[field]
            outside = (a < lo) | (a > hi)   # NaN (no command) compares False
            if not any_true(outside):
                continue
            out[field] = np.clip(a, lo, hi)
            # counted beyond rounding only: a command at a mapped limit may land an ulp past
            # the limit computed from the same limit of the other side by the vectorised maths
            slack = 1e-9 * (1.0 + np.abs(a))
            over = (a < lo - slack) | (a > hi + slack)
            if any_true(over):
                self.counters.clamps[f'{side}_{field}'] += int(np.count_nonzero(over))
                per_target += over

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

    def _clamp_sources(self, cmd: Dict[str, np.ndarray]) -> None:
        side = self.direction.source
        bounds = self.direction.source_limits.bounds()
        for field, c in cmd.items():
            lo, hi = bounds[field]
            known = np.isfinite(c)
            over = known & ((c < lo) | (c > hi))
            if over.any():
                self.counters.clamps[f'{side}_{field}'] += int(over.sum())
                getattr(self.counters, f'{side}_clamps')[:] += over
                cmd[field] = np.where(over, np.clip(c, lo, hi), c)

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


class JointCommands(LatestCommands):
    """The hardware interface's command side: joint commands in, actuator commands out."""

    TO_JOINTS = False

    #: this cycle's actuator commands: ``(now, actuator positions measured, joint positions)``
    actuator_commands = LatestCommands.outputs


class ActuatorCommands(LatestCommands):
    """The simulation interface's command side: actuator commands in, joint commands out."""

    TO_JOINTS = True

    #: this cycle's joint commands: ``(now, joint positions measured, actuator positions)``
    joint_commands = LatestCommands.outputs
