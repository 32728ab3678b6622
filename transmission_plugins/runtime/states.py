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
is published only when every actuator of its transmission is fresh and finite for the field
(no NaN or infinity ever reaches ``joint_states``).  Joint states are converted only when a new
state arrived or the set of fresh actuators changed.
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
    """

    def __init__(self, robot: RobotTransmissions, topology: Topology, counters: Counters,
                 state_timeout: float, clock: Callable[[], float]) -> None:
        self.robot = robot
        self.topology = topology
        self.counters = counters
        self.state_timeout = float(state_timeout)
        self.clock = clock
        self.joint_names: List[str] = list(robot.joint_names)
        na = len(robot.actuator_names)
        #: latest value per field (NaN = unknown)
        self.state: Dict[str, FloatArray] = {f: np.full(na, np.nan) for f in FIELDS}
        #: arrival time per actuator (-inf: never)
        self.state_time = np.full(na, -np.inf)
        self._version = 0
        self._cached: Tuple[int, Optional[np.ndarray], Optional[JointOutput]] = (-1, None, None)
        #: the last joint positions converted (NaN where unknown): linearisation point of
        #: nonlinear command maps
        self.last_joint_position = np.full(len(self.joint_names), np.nan)

    def store(self, idx: np.ndarray, values: Dict[str, FloatArray], now: float) -> None:
        """Store a validated message for actuators ``idx``; absent fields become unknown."""
        for field in FIELDS:
            x = values.get(field)
            self.state[field][idx] = np.nan if x is None else x
        self.state_time[idx] = now
        self._version += 1

    def fresh(self, now: Optional[float] = None) -> np.ndarray:
        """Return a boolean mask of the actuators whose state is within ``state_timeout``."""
        now = self.clock() if now is None else now
        if self.state_timeout <= 0.0:
            return np.isfinite(self.state_time)
        # never seen: now - (-inf) = inf is not <= the timeout
        return (now - self.state_time) <= self.state_timeout

    def joint_states(self, now: float) -> Optional[JointOutput]:
        """Return the joint states of the fresh actuators, None when no joint is known."""
        fresh = self.fresh(now)
        if not any_true(fresh):
            return None
        version, mask, output = self._cached
        if version == self._version and mask is not None and np.array_equal(mask, fresh):
            return output   # nothing new since the last cycle: same joint states
        output = self._convert(fresh)
        self._cached = (self._version, fresh, output)
        return output

    def _convert(self, fresh: np.ndarray) -> Optional[JointOutput]:
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
        if 'position' not in inputs:
            return None
        out = self.robot.actuator_to_joint_arrays(inputs)
        valid = {}
        complete = {}   # field -> every joint valid
        for field in inputs:
            y = out[field]
            finite = np.isfinite(y)
            missing = unknown[field]
            if missing is None:
                v = finite
                complete[field] = all_true(finite)
                if not complete[field]:
                    self.counters.non_finite_outputs += int((~finite).sum())
            else:
                # a joint is known when every actuator of its transmission is
                known = (self.topology.joint_actuators @ missing) == 0.0
                self.counters.non_finite_outputs += int((known & ~finite).sum())
                v = known & finite
                complete[field] = all_true(v)
            valid[field] = v
        include = valid['position']
        if complete['position']:
            self.last_joint_position = out['position']
            return JointOutput(self.joint_names, out['position'],
                               out['velocity'] if complete.get('velocity') else None,
                               out['effort'] if complete.get('effort') else None)
        if not any_true(include):
            return None
        self.last_joint_position = np.where(include, out['position'], np.nan)
        names = [n for n, k in zip(self.joint_names, include) if k]
        fields: Dict[str, Optional[np.ndarray]] = {}
        for field in FIELDS:
            if field in valid and valid[field][include].all():
                fields[field] = np.asarray(out[field], dtype=np.float64)[include]
            else:
                fields[field] = None
        return JointOutput(names, fields['position'], fields['velocity'], fields['effort'])
