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
The actuator side of a cycle: the latest state of every actuator, its watchdog, and joint states.

Each actuator keeps its latest position, velocity and effort (NaN: unknown) and the steady-clock
time they arrived.  An actuator is *fresh* while that time is within ``state_timeout``; a joint
is fresh when every actuator of its transmission is.  Fresh joints are converted (no NaN or
infinity ever reaches ``joint_states``: a value that comes out non-finite is left out and
counted).  What ``joint_states`` says about *stale* joints is the ``stale_joints`` policy
(:data:`STALE_JOINT_POLICIES`):

* ``last`` (default, what robot_state_publisher users expect: joint_state_broadcaster also
  publishes every joint every cycle): a stale joint keeps the last values it was published
  with, so TF does not vanish; the diagnostics say STALE and the node logs which joints are;
* ``omit``: stale joints are left out of ``joint_states`` (nothing at all is published while
  every actuator is stale).

A joint never known (no state since start) is left out under both.  Joint states are converted
only when a new state arrived or the set of fresh actuators changed.

The common case of a running robot, every actuator fresh with finite values, takes a short path
(:meth:`ActuatorStates.joint_states`): one comparison of the oldest arrival with the timeout,
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
from transmission_plugins.robot.robot_transmissions import RobotTransmissions
from transmission_plugins.runtime.counters import Counters
from transmission_plugins.runtime.messages import all_true
from transmission_plugins.runtime.messages import any_true
from transmission_plugins.runtime.messages import FIELDS
from transmission_plugins.runtime.topology import Topology


#: What ``joint_states`` says about stale joints (module docstring).
STALE_JOINT_POLICIES = ('last', 'omit')


class JointOutput(NamedTuple):
    """Joint states to publish: the joints with known positions, in URDF order."""

    names: List[str]
    position: Optional[FloatArray]
    velocity: Optional[FloatArray]
    effort: Optional[FloatArray]


class ActuatorStates:
    """
    Latest actuator states with arrival times, the state watchdog and the joint states.

    :param robot: a ``RobotTransmissions`` (names and ``actuator_to_joint_arrays``)
    :param topology: the robot's index groups
    :param counters: where non-finite outputs are counted
    :param state_timeout: seconds after which a state is stale; <= 0: never
    :param clock: the steady clock of the arrival times
    :param stale_joints: one of :data:`STALE_JOINT_POLICIES`
    """

    def __init__(self, robot: RobotTransmissions, topology: Topology, counters: Counters,
                 state_timeout: float, clock: Callable[[], float],
                 stale_joints: str = 'last') -> None:
        self.robot = robot
        self.topology = topology
        self.counters = counters
        self.state_timeout = float(state_timeout)
        self.clock = clock
        self.stale_joints = stale_joints
        self.joint_names: List[str] = list(robot.joint_names)
        na = len(robot.actuator_names)
        #: latest value per field (NaN = unknown): the rows of one array, checked in one call
        self._values = np.full((len(FIELDS), na), np.nan)
        self.state: Dict[str, FloatArray] = {f: self._values[i] for i, f in enumerate(FIELDS)}
        #: arrival time per actuator (-inf: never)
        self.state_time = np.full(na, -np.inf)
        self._version = 0
        self._cached: Tuple[int, Optional[np.ndarray], Optional[JointOutput]] = (-1, None, None)
        #: the last joint positions converted (NaN where unknown): linearisation point of
        #: nonlinear command maps
        self.last_joint_position = np.full(len(self.joint_names), np.nan)
        #: the values each joint was last published with (NaN: none), for ``stale_joints: last``
        self.held: Dict[str, FloatArray] = {
            f: np.full(len(self.joint_names), np.nan) for f in FIELDS}
        #: the fresh-actuator mask of the last cycle, and how often it changed
        self.fresh_mask = np.zeros(na, dtype=bool)
        self.fresh_changes = 0
        #: the mask of all actuators fresh (one object: :meth:`joint_states` tests identity)
        self._all_fresh = np.ones(na, dtype=bool)
        self._all_fresh.flags.writeable = False

    def store(self, idx: np.ndarray, values: Dict[str, FloatArray], now: float) -> None:
        """Store a validated message for actuators ``idx``; absent fields become unknown."""
        for field in FIELDS:
            x = values.get(field)
            self.state[field][idx] = np.nan if x is None else x
        self.state_time[idx] = now
        self._version += 1

    def invalidate(self) -> None:
        """Make the next cycle convert again (a setting that shapes the output changed)."""
        self._version += 1

    def fresh(self, now: Optional[float] = None) -> np.ndarray:
        """Return a boolean mask of the actuators whose state is within ``state_timeout``."""
        now = self.clock() if now is None else now
        if self.state_timeout <= 0.0:
            return np.isfinite(self.state_time)
        # never seen: now - (-inf) = inf is not <= the timeout
        return (now - self.state_time) <= self.state_timeout

    def fresh_joints(self, fresh: np.ndarray) -> np.ndarray:
        """Return the joints whose every actuator is in ``fresh`` (boolean mask)."""
        return (self.topology.joint_actuators @ (~fresh).astype(float)) == 0.0

    def joint_states(self, now: float) -> Optional[JointOutput]:
        """Return this cycle's joint states (module docstring), None when no joint is known."""
        version, mask, output = self._cached
        if mask is not None and mask is self._all_fresh and self._all_fresh_at(now):
            if version == self._version:
                return output   # nothing new since the last cycle: same joint states
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
            return output   # nothing new since the last cycle: same joint states
        if self.stale_joints == 'omit' and not any_true(fresh):
            output = None
        else:
            output = self._convert(fresh)
        self._cached = (self._version, fresh, output)
        return output

    def _all_fresh_at(self, now: float) -> bool:
        """Return True when every actuator is fresh at ``now`` (one reduction)."""
        oldest = float(self.state_time.min())
        if self.state_timeout <= 0.0:
            return oldest > -np.inf
        return now - oldest <= self.state_timeout

    def _convert_all_fresh(self) -> Optional[JointOutput]:
        """
        Convert when every actuator is fresh: the short path, None when it does not apply.

        It applies when every stored value is finite and every converted one too; then every
        joint is known and complete, as the general path (:meth:`_convert`) would find.
        """
        if not all_true(np.isfinite(self._values)):
            return None
        out = self.robot.actuator_to_joint_arrays(self.state)
        # one copy of the three (held values and cached outputs outlive the maps' buffers)
        y = np.concatenate([out[f] for f in FIELDS]).reshape(len(FIELDS), -1)
        if y.dtype != np.float64 or not all_true(np.isfinite(y)):
            return None
        values = {f: y[i] for i, f in enumerate(FIELDS)}
        if self.stale_joints == 'last':
            self.held = values
        self.last_joint_position = values['position']
        return JointOutput(self.joint_names, values['position'], values['velocity'],
                           values['effort'])

    def _convert(self, fresh: np.ndarray) -> Optional[JointOutput]:
        values, complete = self._joint_values(fresh)
        if self.stale_joints == 'last':
            if not all_true(fresh):
                joint_fresh = self.fresh_joints(fresh)
                values = {f: np.where(joint_fresh, values[f], self.held[f]) for f in FIELDS}
                complete = {f: all_true(np.isfinite(values[f])) for f in FIELDS}
            self.held = values
        self.last_joint_position = values['position']
        if complete['position']:
            return JointOutput(self.joint_names, values['position'],
                               values['velocity'] if complete['velocity'] else None,
                               values['effort'] if complete['effort'] else None)
        include = np.isfinite(values['position'])
        if not any_true(include):
            return None
        names = [n for n, k in zip(self.joint_names, include) if k]
        fields: Dict[str, Optional[np.ndarray]] = {}
        for field in FIELDS:
            x = values[field][include]
            fields[field] = x if all_true(np.isfinite(x)) else None
        return JointOutput(names, fields['position'], fields['velocity'], fields['effort'])

    def _joint_values(self, fresh: np.ndarray
                      ) -> Tuple[Dict[str, FloatArray], Dict[str, bool]]:
        """
        Convert the fresh, finite actuator values; return joint values and completeness.

        :returns: per field, the joint values (NaN where unknown: a stale or missing actuator,
            or a non-finite result, counted), and whether every joint has one
        """
        nj = len(self.joint_names)
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
        values = {f: np.full(nj, np.nan) for f in FIELDS}
        complete = dict.fromkeys(FIELDS, False)
        if 'position' not in inputs:
            return values, complete
        out = self.robot.actuator_to_joint_arrays(inputs)
        for field in inputs:
            # a copy: held values and cached outputs outlive the maps' buffers
            y = np.array(out[field], dtype=np.float64)
            finite = np.isfinite(y)
            missing = unknown[field]
            if missing is None:
                valid = finite
                self.counters.non_finite_outputs += int(nj - np.count_nonzero(finite))
            else:
                # a joint is known when every actuator of its transmission is
                known = (self.topology.joint_actuators @ missing) == 0.0
                self.counters.non_finite_outputs += int(np.count_nonzero(known & ~finite))
                valid = known & finite
            complete[field] = all_true(valid)
            values[field] = y if complete[field] else np.where(valid, y, np.nan)
        return values, complete
