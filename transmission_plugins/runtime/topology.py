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

r"""
Which joints and actuators belong together: per-transmission index groups and incidence matrices.

A cycle must decide per transmission (is every actuator of a joint fresh? is a command complete
for a transmission?) without a Python loop over transmissions, so the groups are also stored as
0/1 incidence matrices: one matrix product answers the question for every transmission at once.
Joints that the joint-to-actuator map ignores (the PR2 gripper's passive fingers: a zero column
of :math:`\partial\theta/\partial q`) are not *commandable*.

A cycle converts in both directions (the hardware interface: actuator states to joint states,
joint commands to actuator commands; the simulation interface the other way round), so the
parts of a cycle work on a :class:`Direction` (:meth:`Topology.direction`): the names, groups,
incidence matrices, limits and array map of one direction, from its *sources* to its *targets*.
"""

from typing import Any
from typing import Callable
from typing import Dict
from typing import List
from typing import Mapping
from typing import NamedTuple
from typing import Sequence
from typing import Tuple

import numpy as np


class Group(NamedTuple):
    """One transmission with the robot-wide indices of its joints and actuators."""

    transmission: Any
    joints: np.ndarray
    actuators: np.ndarray
    #: the joints a command may name (the others are passive)
    active: np.ndarray


class Topology:
    """
    The transmissions of a robot as index groups and incidence matrices.

    :param robot: a ``RobotTransmissions`` (its ``transmissions``, joint and actuator names)
    """

    def __init__(self, robot: Any) -> None:
        joint_names: Sequence[str] = robot.joint_names
        actuator_names: Sequence[str] = robot.actuator_names
        pos = {n: i for i, n in enumerate(joint_names)}
        apos = {n: i for i, n in enumerate(actuator_names)}
        q0 = np.asarray(robot.default_joint_position())
        self.groups: List[Group] = []
        commandable = np.zeros(len(joint_names), dtype=bool)
        for t in robot.transmissions:
            joints = np.array([pos[n] for n in t.joint_names], dtype=np.intp)
            actuators = np.array([apos[n] for n in t.actuator_names], dtype=np.intp)
            # joints the joint-to-actuator map ignores (PR2 gripper passive joints) have a zero
            # column in d(actuator)/d(joint): they cannot be commanded
            jac = np.asarray(t.transmission.joint_to_actuator_jacobian(q0[joints]))
            used = np.any(jac.reshape(len(actuators), len(joints)) != 0.0, axis=0)
            active = joints[used]
            commandable[active] = True
            self.groups.append(Group(t, joints, actuators, active))
        #: joints a command may name
        self.commandable = commandable
        nj, na, nt = len(joint_names), len(actuator_names), len(self.groups)
        #: joint j <- the actuators of its transmission
        self.joint_actuators = np.zeros((nj, na))
        #: transmission -> its commandable joints
        self.tr_active = np.zeros((nt, nj))
        #: transmission -> its actuators
        self.tr_actuators = np.zeros((nt, na))
        for k, g in enumerate(self.groups):
            self.joint_actuators[np.ix_(g.joints, g.actuators)] = 1.0
            self.tr_active[k, g.active] = 1.0
            self.tr_actuators[k, g.actuators] = 1.0
        self._robot = robot

    def direction(self, to_joints: bool) -> 'Direction':
        """
        Return one direction of the robot's maps (module docstring).

        A target is known when every source its map reads is known; passive joints are never
        commanded (a PR2 gripper's fingers follow its gap joint, its motor the gap alone).
        """
        robot = self._robot
        joints = side_limits(robot, 'joint')
        actuators = side_limits(robot, 'actuator')
        if to_joints:
            return Direction(
                'actuator', 'joint', list(robot.actuator_names), list(robot.joint_names),
                self.joint_actuators, np.ones(self.tr_actuators.shape[1], dtype=bool),
                self.tr_actuators, self.tr_active,
                [(g.actuators, g.active) for g in self.groups], actuators, joints,
                robot.actuator_to_joint_arrays,
                lambda theta: np.zeros(np.shape(theta)[:-1] + (len(self.commandable),), bool))
        # actuator a <- the commandable joints of its transmissions
        depends = ((self.tr_actuators.T @ self.tr_active) > 0.0).astype(float)
        return Direction(
            'joint', 'actuator', list(robot.joint_names), list(robot.actuator_names),
            depends, self.commandable.copy(), self.tr_active, self.tr_actuators,
            [(g.active, g.actuators) for g in self.groups], joints, actuators,
            robot.joint_to_actuator_arrays, robot.unreachable_actuators)


class Limits(NamedTuple):
    """The limits of one side (joints or actuators): NaN and absent limits are unbounded."""

    lower: np.ndarray
    upper: np.ndarray
    #: >= 0
    velocity: np.ndarray
    #: >= 0
    effort: np.ndarray

    def bounds(self) -> Dict[str, Tuple[np.ndarray, np.ndarray]]:
        """Return ``field -> (low, high)`` for position, velocity and effort."""
        return {'position': (self.lower, self.upper),
                'velocity': (-self.velocity, self.velocity),
                'effort': (-self.effort, self.effort)}


class Direction(NamedTuple):
    """
    One direction of a robot's maps, from its sources to its targets, as a cycle needs it.

    ``source`` and ``target`` are ``'actuator'`` or ``'joint'``; ``groups`` has one
    ``(commandable source indices, commandable target indices)`` pair per transmission.
    """

    source: str
    target: str
    source_names: List[str]
    target_names: List[str]
    #: (targets, sources): target i is known when every source j marked 1 is
    depends: np.ndarray
    #: the sources a command may name (passive joints excluded)
    commandable: np.ndarray
    #: (transmissions, sources): transmission -> its commandable sources
    tr_sources: np.ndarray
    #: (transmissions, targets): transmission -> its commandable targets
    tr_targets: np.ndarray
    groups: List[Tuple[np.ndarray, np.ndarray]]
    source_limits: Limits
    target_limits: Limits
    #: the robot's array map of this direction
    convert: Callable[[Mapping[str, Any]], Dict[str, np.ndarray]]
    #: which targets come from source positions outside their mechanism's range (joints to
    #: actuators: ``RobotTransmissions.unreachable_actuators``; actuators to joints: none)
    unreachable: Callable[[np.ndarray], np.ndarray]


def side_limits(robot: Any, side: str) -> Limits:
    """Return the limits of ``side`` (``'joint'`` or ``'actuator'``) of ``robot``."""
    return Limits(limit_array(robot, f'{side}_lower', -np.inf),
                  limit_array(robot, f'{side}_upper', np.inf),
                  np.abs(limit_array(robot, f'{side}_velocity_limit', np.inf)),
                  np.abs(limit_array(robot, f'{side}_effort_limit', np.inf)))


def limit_array(robot: Any, attribute: str, default: float) -> np.ndarray:
    """Return ``robot.<attribute>`` as a float64 vector (NaN: ``default``)."""
    x = np.array(getattr(robot, attribute), dtype=np.float64).reshape(-1)
    return np.where(np.isnan(x), default, x)
