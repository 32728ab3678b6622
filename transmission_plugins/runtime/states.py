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
The state side of a cycle: the latest state of every source, its watchdog, and the target states.

The hardware interface converts actuator states to joint states, the simulation interface joint
states to actuator states; both with a :class:`LatestStates` over one
:class:`~.topology.Direction`, described here for the first.

Each actuator keeps its latest position, velocity and effort (NaN: unknown) and the steady-clock
time they arrived.  An actuator is *fresh* while that time is within ``state_timeout``; a joint
is fresh when every actuator of its transmission is (in the other direction: an actuator is
fresh when every joint its map reads is).  Fresh joints are converted; a value that comes out
non-finite is left out and counted.  *Stale* joints follow the ``stale_joints`` policy
(:data:`STALE_JOINT_POLICIES`, doc/nodes.md "Stale joints"); joints never known, or not
calibrated (:attr:`LatestStates.hidden`), are left out.  Joint states are converted only when a
new state arrived or the set of fresh actuators changed.
"""

from typing import Callable
from typing import NamedTuple
from typing import Protocol
from typing import TYPE_CHECKING

import numpy as np

from transmission_plugins.core.checks import FloatArray
from transmission_plugins.runtime.diagnostics import Counters
from transmission_plugins.runtime.messages import FIELDS
from transmission_plugins.runtime.topology import Direction
from transmission_plugins.runtime.topology import Topology

if TYPE_CHECKING:
    from transmission_plugins.runtime.cycle import Configured


STALE_JOINT_POLICIES = ('last', 'omit')


class StateOutput(NamedTuple):
    """States to publish: the targets with known positions, in the robot's order."""

    names: list[str]
    position: FloatArray | None
    velocity: FloatArray | None
    effort: FloatArray | None


class PositionPlay(Protocol):
    """What the state side does with backlash (:class:`~.drivetrain.StateBacklash`)."""

    def sources(self, inputs: dict[str, FloatArray]) -> dict[str, FloatArray]:
        """Return the source values with the play of the source side applied."""

    def targets(self, values: dict[str, FloatArray]) -> None:
        """Apply the play of the target side to the converted values, in place."""


class LatestStates:
    """
    Latest source states with arrival times, the state watchdog and the target states.

    :param to_joints: actuator states in, joint states out (False: the other way round)
    :param counters: where non-finite outputs are counted
    :param cycle: what holds the cycle's settings (:attr:`~.cycle.InterfaceCycle.settings`)

    The other parameters are :class:`~.cycle.InterfaceCycle`'s.
    """

    def __init__(self, topology: Topology, to_joints: bool, counters: Counters,
                 cycle: 'Configured', clock: Callable[[], float]) -> None:
        direction = topology.direction(to_joints)
        #: the sources, targets and map (:class:`~.topology.Direction`)
        self.direction: Direction = direction
        self._incidence = direction.state_incidence
        self.counters = counters
        #: holds the cycle's settings (``state_timeout``, ``stale_joints``)
        self._cycle = cycle
        self.clock = clock
        self.target_names: list[str] = list(direction.target_names)
        ns, nt = len(direction.source_names), len(self.target_names)
        #: latest value per field (NaN = unknown): rows of one array, position, velocity, effort
        self._values = np.full((len(FIELDS), ns), np.nan)
        self.state: dict[str, FloatArray] = dict(zip(FIELDS, self._values))
        #: arrival time per source (-inf: never)
        self.state_time = np.full(ns, -np.inf)
        #: counts stored messages: the output is converted again only when it changed
        self._version = 0
        self._cached: tuple[int, bytes | None, StateOutput | None] = (-1, None, None)
        #: the last target positions converted (NaN where unknown): linearisation point of
        #: nonlinear command maps
        self.last_position = np.full(nt, np.nan)
        #: the last target velocities converted (NaN where unknown): the soft limits' measure
        self.last_velocity = np.full(nt, np.nan)
        #: the last target efforts converted (NaN where unknown)
        self.last_effort = np.full(nt, np.nan)
        #: the targets whose effort comes from their sources' positions and velocities (a
        #: series-elastic spring's joint), known when those are; None: no such target
        self.effort_from_motion: np.ndarray | None = None
        #: the backlash of either side (a dead band in the position map), None: none
        self.play: PositionPlay | None = None
        #: the values each target was last published with (NaN: none), for ``stale_joints: last``
        self.held: dict[str, FloatArray] = {f: np.full(nt, np.nan) for f in FIELDS}
        #: the fresh-source mask of the last cycle, and how often it changed
        self.fresh_mask = np.zeros(ns, dtype=bool)
        self.fresh_changes = 0
        #: subtracted from every source position stored (the hardware interface's actuator
        #: calibration offsets, :mod:`~.calibration`)
        self.position_offset = np.zeros(ns)
        #: targets left out of the output whatever their state (not calibrated), or None
        self.hidden: np.ndarray | None = None
        # joints to actuators: which targets come from positions outside a mechanism's range
        self._far = None if direction.to_joint else np.zeros(nt, dtype=bool)
        # the values of a cycle before the conversion writes them, and every field complete
        self._unknown = np.full((len(FIELDS), nt), np.nan)
        self._complete = dict.fromkeys(FIELDS, True)

    def store(self, idx: np.ndarray, values: dict[str, FloatArray], now: float) -> None:
        """Store a validated message for sources ``idx``; absent fields become unknown."""
        for field, row in zip(FIELDS, self._values):
            x = values.get(field)
            row[idx] = np.nan if x is None else x
        self._values[0, idx] -= self.position_offset[idx]
        self.state_time[idx] = now
        self._version += 1

    def set_offsets(self, offset: np.ndarray, hidden: np.ndarray | None) -> None:
        """Take new position offsets (the stored positions are shifted) and hidden targets."""
        self.state['position'] -= offset - self.position_offset
        self.position_offset = np.array(offset, dtype=np.float64)
        self.hidden = hidden if hidden is not None and hidden.any() else None
        self.invalidate()

    def invalidate(self) -> None:
        """Make the next cycle convert again (a setting that shapes the output changed)."""
        self._version += 1

    def fresh(self, now: float | None = None) -> np.ndarray:
        """Return a boolean mask of the sources whose state is within ``state_timeout``."""
        now = self.clock() if now is None else now
        timeout = self._cycle.settings.state_timeout
        if timeout <= 0.0:
            return self.state_time > -np.inf
        # never seen: now - (-inf) = inf is not <= the timeout
        return (now - self.state_time) <= timeout

    def fresh_targets(self, fresh: np.ndarray) -> np.ndarray:
        """Return the targets whose every source is in ``fresh`` (boolean mask)."""
        return self._incidence.targets_all(self._incidence.all_sources(fresh))

    def known_targets(self) -> np.ndarray:
        """Return the targets whose every source has had a state since the start."""
        return self.fresh_targets(self.state_time > -np.inf)

    def outputs(self, now: float) -> StateOutput | None:
        """Return this cycle's target states (module docstring), None when none is known."""
        version, mask, output = self._cached
        fresh = self.fresh(now)
        key = fresh.tobytes()
        if key != mask:
            if mask is not None or True in fresh:
                self.fresh_changes += 1
            self.fresh_mask = fresh
        elif version == self._version:
            return output   # nothing new since the last cycle: same target states
        if self._cycle.settings.stale_joints == 'omit' and True not in fresh:
            output = None
        else:
            output = self._convert(fresh)
        self._cached = (self._version, key, output)
        return output

    def _convert(self, fresh: np.ndarray) -> StateOutput | None:
        values, complete = self._target_values(fresh)
        if self.play is not None:
            self.play.targets(values)
        if self._cycle.settings.stale_joints == 'last' and False in fresh:
            target_fresh = self.fresh_targets(fresh)
            values = {f: np.where(target_fresh, values[f], self.held[f]) for f in FIELDS}
            complete = {f: False not in np.isfinite(values[f]) for f in FIELDS}
        if self.hidden is not None:
            values = {f: np.where(self.hidden, np.nan, values[f]) for f in FIELDS}
            complete = dict.fromkeys(FIELDS, False)
        if self._cycle.settings.stale_joints == 'last':
            self.held = values
        self.last_position = values['position']
        self.last_velocity = values['velocity']
        self.last_effort = values['effort']
        if complete['position']:
            return StateOutput(self.target_names, values['position'],
                               values['velocity'] if complete['velocity'] else None,
                               values['effort'] if complete['effort'] else None)
        include = np.isfinite(values['position'])
        if True not in include:
            return None
        names = [n for n, k in zip(self.target_names, include) if k]
        fields: dict[str, np.ndarray | None] = {}
        for field in FIELDS:
            x = values[field][include]
            fields[field] = x if False not in np.isfinite(x) else None
        return StateOutput(names, fields['position'], fields['velocity'], fields['effort'])

    def _target_values(self, fresh: np.ndarray
                       ) -> tuple[dict[str, FloatArray], dict[str, bool]]:
        """
        Convert the fresh, finite source values; return target values and completeness.

        :returns: per field, the target values (new arrays, NaN where unknown: a stale or
            missing source, or a non-finite result, counted), and whether every target has one
        """
        inputs: dict[str, FloatArray] = {}
        unknown: dict[str, FloatArray] = {}
        finite = np.isfinite(self._values)
        if False in fresh or False in finite:
            for field, x, ok in zip(FIELDS, self._values, finite & fresh):
                if False not in ok:
                    inputs[field] = x
                elif True in ok:
                    inputs[field] = np.where(ok, x, 0.0)
                    unknown[field] = ~ok
        else:
            inputs = self.state
        block = self._unknown.copy()
        values = dict(zip(FIELDS, block))
        if 'position' not in inputs:
            return values, dict.fromkeys(FIELDS, False)
        far = self._far
        out = {f: values[f] for f in inputs}
        motion = self.effort_from_motion
        if motion is not None and 'velocity' in inputs:
            out['effort'] = values['effort']   # the springs' efforts, actuator efforts or not
        if self.play is not None:
            inputs = self.play.sources(inputs)
        self.direction.maps.convert(inputs, self.direction.to_joint, out=out, unreachable=far)
        if far is not None and True in far:
            self.counters.unreachable_outputs += int(np.count_nonzero(far))
            block[:, far] = np.nan
        finite = np.isfinite(block)
        if not unknown and False not in finite:
            return values, self._complete
        complete = dict.fromkeys(FIELDS, False)
        for field, y, valid in zip(FIELDS, block, finite):
            if field not in out:
                continue
            known = None
            if field in inputs:
                missing = unknown.get(field)
                if missing is not None:
                    # a target is known when every source it depends on is
                    known = self.fresh_targets(np.logical_not(missing))
            else:
                known = np.zeros(len(y), dtype=bool)
            if field == 'effort' and motion is not None:
                # a spring's effort is known when its positions and velocities are
                moved = np.full(len(self.state_time), 'velocity' not in inputs)
                for f in ('position', 'velocity'):
                    if f in unknown:
                        moved |= unknown[f]
                known = np.where(motion, self.fresh_targets(np.logical_not(moved)),
                                 True if known is None else known)
            bad = ~valid
            if known is not None:
                bad &= known
                valid &= known
            if far is not None:
                bad &= ~far   # counted as unreachable
            if True in bad:
                self.counters.non_finite_outputs += int(np.count_nonzero(bad))
            complete[field] = False not in valid
            if not complete[field]:
                y[~valid] = np.nan
        return values, complete
