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
The command side of a cycle: latest joint commands, their watchdog, limits, conversion, grouping.

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
from transmission_plugins.robot.robot_transmissions import RobotTransmissions
from transmission_plugins.runtime.counters import Counters
from transmission_plugins.runtime.messages import any_true
from transmission_plugins.runtime.messages import FIELDS
from transmission_plugins.runtime.topology import limit_array
from transmission_plugins.runtime.topology import Topology

#: What expired joints send: nothing, the actuator position measured at expiry, or zero.
TIMEOUT_ACTIONS = ('stop', 'hold', 'zero_velocity', 'zero_effort')


class CommandOutput(NamedTuple):
    """One actuator command message: actuators sharing the same commanded fields."""

    names: List[str]
    position: Optional[FloatArray]
    velocity: Optional[FloatArray]
    effort: Optional[FloatArray]


class JointCommands:
    """
    Latest joint commands, the command watchdog and the actuator commands they make.

    :param robot: the robot (names, limits, ``joint_to_actuator_arrays``)
    :param topology: its index groups
    :param counters: clamps, incomplete commands and non-finite outputs are counted there
    :param command_timeout: seconds after which a command expires; <= 0: never
    :param enforce_limits: clamp to the joint and actuator limits
    :param timeout_action: one of :data:`TIMEOUT_ACTIONS`
    """

    def __init__(self, robot: RobotTransmissions, topology: Topology, counters: Counters,
                 command_timeout: float, enforce_limits: bool, timeout_action: str) -> None:
        self.robot = robot
        self.topology = topology
        self.counters = counters
        self.command_timeout = float(command_timeout)
        self.enforce_limits = bool(enforce_limits)
        self.timeout_action = timeout_action
        self.actuator_names: List[str] = list(robot.actuator_names)
        nj, na = len(robot.joint_names), len(self.actuator_names)
        self.lower = limit_array(robot, 'joint_lower', nj, -np.inf)
        self.upper = limit_array(robot, 'joint_upper', nj, np.inf)
        self.velocity_limit = np.abs(limit_array(robot, 'joint_velocity_limit', nj, np.inf))
        self.effort_limit = np.abs(limit_array(robot, 'joint_effort_limit', nj, np.inf))
        self.actuator_lower = limit_array(robot, 'actuator_lower', na, -np.inf)
        self.actuator_upper = limit_array(robot, 'actuator_upper', na, np.inf)
        self.actuator_velocity_limit = np.abs(
            limit_array(robot, 'actuator_velocity_limit', na, np.inf))
        self.actuator_effort_limit = np.abs(
            limit_array(robot, 'actuator_effort_limit', na, np.inf))
        #: latest command per field (NaN = none) and its arrival time (-inf: never)
        self.command: Dict[str, FloatArray] = {f: np.full(nj, np.nan) for f in FIELDS}
        self.command_time = np.full(nj, -np.inf)
        self._held = np.full(na, np.nan)
        # False while no command was stored since the last reset: then no command time is
        # finite and nothing is held, and a cycle has no actuator command to work out
        self._commanded = False
        #: joints whose command expired (and has not been renewed)
        self.expired = np.zeros(nj, dtype=bool)

    def store(self, idx: np.ndarray, values: Dict[str, FloatArray], now: float) -> None:
        """Store a validated command for joints ``idx``; absent fields are cleared."""
        for field in FIELDS:
            x = values.get(field)
            self.command[field][idx] = np.nan if x is None else x
        self.command_time[idx] = now
        self.expired[idx] = False
        self._commanded = True

    def reset(self) -> None:
        """Forget every joint command (e.g. on activation) and any held position."""
        for field in FIELDS:
            self.command[field][:] = np.nan
        self.command_time[:] = -np.inf
        self.expired[:] = False
        self._held[:] = np.nan
        self._commanded = False

    def actuator_commands(self, now: float, state_position: FloatArray,
                          joint_position: FloatArray) -> List[CommandOutput]:
        """
        Return this cycle's actuator command messages (module docstring).

        :param state_position: the latest measured actuator positions (held on expiry)
        :param joint_position: the last joint positions converted (linearisation points)
        """
        if not self._commanded:
            return []
        na = len(self.actuator_names)
        has_cmd = np.isfinite(self.command_time)
        if not any_true(has_cmd) and not any_true(np.isfinite(self._held)):
            return []
        if self.command_timeout > 0.0:
            alive = has_cmd & ((now - self.command_time) <= self.command_timeout)
        else:
            alive = has_cmd
        newly_expired = has_cmd & ~alive & ~self.expired
        if newly_expired.any():
            self._on_expired(newly_expired, state_position)
        cmd = {}
        for field in FIELDS:
            c = np.where(alive, self.command[field], np.nan)
            if np.isfinite(c).any():
                cmd[field] = c
        if self.enforce_limits:
            self._clamp_joint_commands(cmd)
        act = {f: np.full(na, np.nan) for f in FIELDS}
        if cmd:
            self._convert_commands(cmd, act, joint_position)
        self._apply_timeout_action(alive, act)
        if self.enforce_limits:
            self._clamp_actuator_commands(act)
        return self._group_commands(act)

    def _clamp_actuator_commands(self, act: Dict[str, np.ndarray]) -> None:
        bounds = {
            'position': ('actuator_position', self.actuator_lower, self.actuator_upper),
            'velocity': ('actuator_velocity', -self.actuator_velocity_limit,
                         self.actuator_velocity_limit),
            'effort': ('actuator_effort', -self.actuator_effort_limit, self.actuator_effort_limit),
        }
        for field, (kind, lo, hi) in bounds.items():
            a = act[field]
            outside = (a < lo) | (a > hi)   # NaN (no command) compares False
            if not any_true(outside):
                continue
            act[field] = np.clip(a, lo, hi)
            # counted beyond rounding only: a command at a mapped limit may land an ulp past
            # the limit computed from the same joint limit by the vectorised maths
            slack = 1e-9 * (1.0 + np.abs(a))
            over = (a < lo - slack) | (a > hi + slack)
            if any_true(over):
                self.counters.clamps[kind] += int(np.count_nonzero(over))
                self.counters.actuator_clamps += over

    def _on_expired(self, newly_expired: np.ndarray, pos: FloatArray) -> None:
        self.expired |= newly_expired
        if self.timeout_action != 'hold':
            return
        for _, jidx, aidx, active in self.topology.groups:
            if newly_expired[active].any():
                self._held[aidx] = pos[aidx]

    def _apply_timeout_action(self, alive: np.ndarray, act: Dict[str, np.ndarray]) -> None:
        if self.timeout_action == 'stop':
            return
        expired = self.expired & ~alive
        if not expired.any():
            self._held[:] = np.nan
            return
        for _, jidx, aidx, active in self.topology.groups:
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
                self.counters.clamps[kind] += int(over.sum())
                self.counters.joint_clamps += over
                cmd[field] = np.where(over, np.clip(c, lo, hi), c)

    def _convert_commands(self, cmd: Dict[str, FloatArray], act: Dict[str, FloatArray],
                          joint_position: FloatArray) -> None:
        """Map joint commands to actuators, transmission by transmission (complete ones only)."""
        nj = len(joint_position)
        complete = {}
        actuator_complete = {}
        for field, c in cmd.items():
            missing_j = (~np.isfinite(c) & self.topology.commandable).astype(float)
            missing = self.topology.tr_active @ missing_j            # per transmission
            full = (missing == 0.0) & self.topology.tr_has_active
            commanded = self.topology.tr_active @ np.isfinite(c).astype(float)
            self.counters.incomplete_commands += int(((missing > 0.0) & (commanded > 0.0)).sum())
            complete[field] = (self.topology.joint_tr @ full.astype(float)) > 0.0
            actuator_complete[field] = (self.topology.actuator_tr @ full.astype(float)) > 0.0
        # linearisation point of nonlinear maps: the commanded position (itself the position
        # command, clamped with enforce_limits), else the measured one clipped to the limits
        measured = np.clip(np.where(np.isfinite(joint_position), joint_position, 0.0),
                           self.lower, self.upper)
        lin = np.where(complete.get('position', np.zeros(nj, dtype=bool)),
                       cmd.get('position', np.zeros(nj)), measured)
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
                bad_tr = (self.topology.tr_actuators @ bad.astype(float)) > 0.0
                use = use & ~((self.topology.actuator_tr @ bad_tr.astype(float)) > 0.0)
                self.counters.non_finite_outputs += int(bad_tr.sum())
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
