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

The hardware interface converts actuator states to joint states (:class:`ActuatorStates`), the
simulation interface joint states to actuator states (:class:`JointStates`); both are a
:class:`LatestStates` over one :class:`~.topology.Direction`, described here for the first.

Each actuator keeps its latest position, velocity and effort (NaN: unknown) and the steady-clock
time they arrived.  An actuator is *fresh* while that time is within ``state_timeout``; a joint
is fresh when every actuator of its transmission is (in the other direction: an actuator is
fresh when every joint its map reads is).  Fresh joints are converted (no NaN or infinity ever
reaches ``joint_states``: a value that comes out non-finite is left out and counted).  What
``joint_states`` says about *stale* joints is the ``stale_joints`` policy
(:data:`STALE_JOINT_POLICIES`):

* ``last`` (the hardware interface's default, what robot_state_publisher users expect:
  joint_state_broadcaster also publishes every joint every cycle): a stale joint keeps the last
  values it was published with, so TF does not vanish; the diagnostics say STALE and the node
  logs which joints are;
* ``omit``: stale joints are left out of ``joint_states`` (nothing at all is published while
  every actuator is stale).

A joint never known (no state since start) is left out under both.  Joint states are converted
only when a new state arrived or the set of fresh actuators changed.

The common case of a running robot, every source fresh with finite values, takes a short path
(:meth:`LatestStates.outputs`): one comparison of the oldest arrival with the timeout,
one finiteness check of the three fields stored as rows of one array, one of the three outputs
copied as rows of one array; the general path handles everything else.
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
from transmission_plugins.runtime.messages import all_true
from transmission_plugins.runtime.messages import any_true
from transmission_plugins.runtime.messages import FIELDS
from transmission_plugins.runtime.topology import Direction
from transmission_plugins.runtime.topology import Topology


#: What ``joint_states`` says about stale joints (module docstring).
STALE_JOINT_POLICIES = ('last', 'omit')


class StateOutput(NamedTuple):
    """States to publish: the targets with known positions, in the robot's order."""

    names: List[str]
    position: Optional[FloatArray]
    velocity: Optional[FloatArray]
    effort: Optional[FloatArray]


#: The hardware interface's name of :class:`StateOutput`.
JointOutput = StateOutput


class LatestStates:
    """
    Latest source states with arrival times, the state watchdog and the target states.

    :param topology: the robot's index groups; :attr:`TO_JOINTS` picks the direction
    :param counters: where non-finite outputs are counted
    :param state_timeout: seconds after which a state is stale; <= 0: never
    :param clock: the steady clock of the arrival times
    :param stale_joints: one of :data:`STALE_JOINT_POLICIES`
    """

    #: True: actuator states in, joint states out; False: the other way round
    TO_JOINTS = True

    def __init__(self, topology: Topology, counters: Counters, state_timeout: float,
                 clock: Callable[[], float], stale_joints: str = 'last') -> None:
        direction = topology.direction(self.TO_JOINTS)
        #: the sources, targets and map (:class:`~.topology.Direction`)
        self.direction: Direction = direction
        self.counters = counters
        self.state_timeout = float(state_timeout)
        self.clock = clock
        self.stale_joints = stale_joints
        self.target_names: List[str] = list(direction.target_names)
        ns, nt = len(direction.source_names), len(self.target_names)
        #: latest value per field (NaN = unknown): the rows of one array, checked in one call
        self._values = np.full((len(FIELDS), ns), np.nan)
        self.state: Dict[str, FloatArray] = {f: self._values[i] for i, f in enumerate(FIELDS)}
        #: arrival time per source (-inf: never)
        self.state_time = np.full(ns, -np.inf)
        self._version = 0
        #: the last index array :meth:`store_stacked` saw, and whether it is every source in order
        self._in_order: Tuple[Optional[np.ndarray], bool] = (None, False)
        #: (version, time): at that version every source holds checked finite values, all
        #: stored at that time (one whole message in order); spares the short path two scans
        self._whole: Tuple[int, float] = (-1, 0.0)
        self._cached: Tuple[int, Optional[np.ndarray], Optional[StateOutput]] = (-1, None, None)
        #: the last target positions converted (NaN where unknown): linearisation point of
        #: nonlinear command maps
        self.last_position = np.full(nt, np.nan)
        #: the values each target was last published with (NaN: none), for ``stale_joints: last``
        self.held: Dict[str, FloatArray] = {f: np.full(nt, np.nan) for f in FIELDS}
        #: the fresh-source mask of the last cycle, and how often it changed
        self.fresh_mask = np.zeros(ns, dtype=bool)
        self.fresh_changes = 0
        #: the mask of all sources fresh (one object: :meth:`outputs` tests identity)
        self._all_fresh = np.ones(ns, dtype=bool)
        self._all_fresh.flags.writeable = False

    def store(self, idx: np.ndarray, values: Dict[str, FloatArray], now: float) -> None:
        """Store a validated message for sources ``idx``; absent fields become unknown."""
        for field in FIELDS:
            x = values.get(field)
            self.state[field][idx] = np.nan if x is None else x
        self.state_time[idx] = now
        self._version += 1

    def store_stacked(self, idx: np.ndarray, stacked: np.ndarray, now: float) -> None:
        """
        Store a validated message that has all three fields, the rows of ``stacked``.

        The same as :meth:`store`; a message naming every source in order (the indices
        ``0 .. n-1``: the usual message of a driver) is copied without indexing.
        """
        if idx is not self._in_order[0]:
            self._in_order = (idx, idx.size == self.state_time.size and
                              bool(np.array_equal(idx, np.arange(idx.size))))
        self._version += 1
        if self._in_order[1]:
            self._values[...] = stacked
            self.state_time.fill(now)
            self._whole = (self._version, now)
        else:
            self._values[:, idx] = stacked
            self.state_time[idx] = now

    def invalidate(self) -> None:
        """Make the next cycle convert again (a setting that shapes the output changed)."""
        self._version += 1

    def fresh(self, now: Optional[float] = None) -> np.ndarray:
        """Return a boolean mask of the sources whose state is within ``state_timeout``."""
        now = self.clock() if now is None else now
        if self.state_timeout <= 0.0:
            return np.isfinite(self.state_time)
        # never seen: now - (-inf) = inf is not <= the timeout
        return (now - self.state_time) <= self.state_timeout

    def fresh_targets(self, fresh: np.ndarray) -> np.ndarray:
        """Return the targets whose every source is in ``fresh`` (boolean mask)."""
        return (self.direction.depends @ (~fresh).astype(float)) == 0.0

    def outputs(self, now: float) -> Optional[StateOutput]:
        """Return this cycle's target states (module docstring), None when none is known."""
        version, mask, output = self._cached
        if mask is not None and mask is self._all_fresh and self._all_fresh_at(now):
            if version == self._version:
                return output   # nothing new since the last cycle: same target states
            output = self._convert_all_fresh()
            if output is not None:
                self._cached = (self._version, mask, output)
                return output
        fresh = self.fresh(now)
        if all_true(fresh):
            fresh = self._all_fresh   # one object: the short path's test above
        if mask is None or not np.array_equal(mask, fresh):
            if mask is not None or any_true(fresh):
                self.fresh_changes += 1
            self.fresh_mask = fresh
        elif version == self._version:
            return output   # nothing new since the last cycle: same target states
        if self.stale_joints == 'omit' and not any_true(fresh):
            output = None
        else:
            output = self._convert(fresh)
        self._cached = (self._version, fresh, output)
        return output

    def _all_fresh_at(self, now: float) -> bool:
        """Return True when every source is fresh at ``now`` (one reduction)."""
        version, at = self._whole
        oldest = at if version == self._version else float(self.state_time.min())
        if self.state_timeout <= 0.0:
            return oldest > -np.inf
        return now - oldest <= self.state_timeout

    def _convert_all_fresh(self) -> Optional[StateOutput]:
        """
        Convert when every source is fresh: the short path, None when it does not apply.

        It applies when every stored value is finite and every converted one too; then every
        target is known and complete, as the general path (:meth:`_convert`) would find.
        """
        if self._whole[0] != self._version and not all_true(np.isfinite(self._values)):
            return None
        y = self.direction.convert_stacked(self.state)   # a new array, or None
        if y is None:
            out = self.direction.convert(self.state)
            # one copy of the three (held values and cached outputs outlive the maps' buffers)
            y = np.concatenate([out[f] for f in FIELDS])
        y = y.reshape(len(FIELDS), -1)
        if y.dtype != np.float64 or not all_true(np.isfinite(y)):
            return None
        values = {f: y[i] for i, f in enumerate(FIELDS)}
        if self.stale_joints == 'last':
            self.held = values
        self.last_position = values['position']
        return StateOutput(self.target_names, values['position'], values['velocity'],
                           values['effort'])

    def _convert(self, fresh: np.ndarray) -> Optional[StateOutput]:
        values, complete = self._target_values(fresh)
        if self.stale_joints == 'last':
            if not all_true(fresh):
                target_fresh = self.fresh_targets(fresh)
                values = {f: np.where(target_fresh, values[f], self.held[f]) for f in FIELDS}
                complete = {f: all_true(np.isfinite(values[f])) for f in FIELDS}
            self.held = values
        self.last_position = values['position']
        if complete['position']:
            return StateOutput(self.target_names, values['position'],
                               values['velocity'] if complete['velocity'] else None,
                               values['effort'] if complete['effort'] else None)
        include = np.isfinite(values['position'])
        if not any_true(include):
            return None
        names = [n for n, k in zip(self.target_names, include) if k]
        fields: Dict[str, Optional[np.ndarray]] = {}
        for field in FIELDS:
            x = values[field][include]
            fields[field] = x if all_true(np.isfinite(x)) else None
        return StateOutput(names, fields['position'], fields['velocity'], fields['effort'])

    def _target_values(self, fresh: np.ndarray
                       ) -> Tuple[Dict[str, FloatArray], Dict[str, bool]]:
        """
        Convert the fresh, finite source values; return target values and completeness.

        :returns: per field, the target values (NaN where unknown: a stale or missing source,
            or a non-finite result, counted), and whether every target has one
        """
        nt = len(self.target_names)
        inputs: Dict[str, FloatArray] = {}
        unknown: Dict[str, Optional[FloatArray]] = {}
        all_fresh = all_true(fresh)
        for field in FIELDS:
            x = self.state[field]
            finite = np.isfinite(x)
            if all_fresh and all_true(finite):
                inputs[field] = x
                unknown[field] = None
                continue
            ok = fresh & finite
            if any_true(ok):
                inputs[field] = np.where(ok, x, 0.0)
                unknown[field] = (~ok).astype(float)
        values = {f: np.full(nt, np.nan) for f in FIELDS}
        complete = dict.fromkeys(FIELDS, False)
        if 'position' not in inputs:
            return values, complete
        out = self.direction.convert(inputs)
        for field in inputs:
            # a copy: held values and cached outputs outlive the maps' buffers
            y = np.array(out[field], dtype=np.float64)
            finite = np.isfinite(y)
            missing = unknown[field]
            if missing is None:
                valid = finite
                self.counters.non_finite_outputs += int(nt - np.count_nonzero(finite))
            else:
                # a target is known when every source it depends on is
                known = (self.direction.depends @ missing) == 0.0
                self.counters.non_finite_outputs += int(np.count_nonzero(known & ~finite))
                valid = known & finite
            complete[field] = all_true(valid)
            values[field] = y if complete[field] else np.where(valid, y, np.nan)
        return values, complete


class ActuatorStates(LatestStates):
    """The hardware interface's state side: actuator states in, joint states out."""

    TO_JOINTS = True

    #: this cycle's joint states
    joint_states = LatestStates.outputs
    #: the joints whose every actuator is fresh
    fresh_joints = LatestStates.fresh_targets

    @property
    def last_joint_position(self) -> FloatArray:
        """Return the last joint positions converted (NaN where unknown)."""
        return self.last_position


class JointStates(LatestStates):
    """The simulation interface's state side: joint states in, actuator states out."""

    TO_JOINTS = False

    #: this cycle's actuator states
    actuator_states = LatestStates.outputs
