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
Which joints and actuators belong together, as a cycle asks it: per transmission, in one call.

The placement of every transmission is the robot's flat description
(:class:`~transmission_plugins.core.flat_description.Block`: its joints, its actuators and the
joints its joint-to-actuator maps read, the *commandable* ones; the PR2 gripper's passive fingers
are not).  A cycle must decide per transmission (is every actuator of a joint fresh? is a command
complete for a transmission?) without a Python loop over transmissions, so :class:`Incidence`
answers those questions for every transmission at once with segment reductions over the
concatenated indices: memory and work linear in the robot, whatever its size.

A cycle converts in both directions (the hardware interface: actuator states to joint states,
joint commands to actuator commands; the simulation interface the other way round), so the
parts of a cycle work on a :class:`Direction` (:meth:`Topology.direction`): the names, groups,
limits and maps of one direction, from its *sources* to its *targets*.
"""

from typing import Any
from typing import NamedTuple
from typing import Sequence

import numpy as np

from transmission_plugins.core.flat_description import FlatDescription


class Group(NamedTuple):
    """One transmission with the robot-wide indices of its joints and actuators."""

    #: the robot's ``RobotTransmission`` record (name, type, the transmission)
    transmission: Any
    joints: np.ndarray
    actuators: np.ndarray
    #: the joints a command may name (the others are passive)
    active: np.ndarray


class Incidence:
    """
    The sources and targets of each transmission of one direction, for reductions in one call.

    Every transmission has at least one source and one target.  A target (or a source) may
    belong to several transmissions (an actuator shared by identical transmissions).

    :param groups: ``(sources, targets)`` index arrays per transmission
    :param num_sources: sources of the direction
    :param num_targets: targets of the direction
    """

    def __init__(self, groups: Sequence[tuple[np.ndarray, np.ndarray]], num_sources: int,
                 num_targets: int) -> None:
        self.count = len(groups)
        self._src, self._src_start = _concatenated([s for s, _ in groups])
        self._tgt, self._tgt_start = _concatenated([t for _, t in groups])
        self._target_of = _membership([t for _, t in groups], num_targets)
        self._source_of = _membership([s for s, _ in groups], num_sources)
        #: the sources some transmission reads
        self.read = np.zeros(num_sources, dtype=bool)
        self.read[self._src] = True

    def all_sources(self, mask: np.ndarray) -> np.ndarray:
        """Return per transmission whether ``mask`` holds for every one of its sources."""
        if not self.count:
            return np.zeros(0, dtype=bool)
        return np.logical_and.reduceat(mask[self._src], self._src_start)

    def any_source(self, mask: np.ndarray) -> np.ndarray:
        """Return per transmission whether ``mask`` holds for one of its sources."""
        if not self.count:
            return np.zeros(0, dtype=bool)
        return np.logical_or.reduceat(mask[self._src], self._src_start)

    def any_target(self, mask: np.ndarray) -> np.ndarray:
        """Return per transmission whether ``mask`` holds for one of its targets."""
        if not self.count:
            return np.zeros(0, dtype=bool)
        return np.logical_or.reduceat(mask[self._tgt], self._tgt_start)

    def targets_all(self, per_transmission: np.ndarray) -> np.ndarray:
        """Return per target whether every transmission it belongs to is marked."""
        return self._target_of.spread(per_transmission, np.logical_and, True)

    def targets_any(self, per_transmission: np.ndarray) -> np.ndarray:
        """Return per target whether one transmission it belongs to is marked."""
        return self._target_of.spread(per_transmission, np.logical_or, False)

    def sources_any(self, per_transmission: np.ndarray) -> np.ndarray:
        """Return per source whether one transmission it belongs to is marked (none: False)."""
        return self._source_of.spread(per_transmission, np.logical_or, False)


class _Membership(NamedTuple):
    """Which transmissions each entry belongs to: the first, then the others as pairs."""

    #: the first transmission of each entry, or the count of transmissions (none)
    first: np.ndarray
    extra_entries: np.ndarray
    extra_groups: np.ndarray
    #: per transmission, then the value of an entry of none
    values: np.ndarray

    def spread(self, per_transmission: np.ndarray, combine: Any, empty: bool) -> np.ndarray:
        """Return ``per_transmission`` per entry, combined over its transmissions."""
        values = self.values
        values[:-1] = per_transmission
        values[-1] = empty
        out = values[self.first]
        if self.extra_entries.size:
            combine.at(out, self.extra_entries, per_transmission[self.extra_groups])
        return out


def _concatenated(parts: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Return the parts one after the other and where each starts."""
    sizes = [len(p) for p in parts]
    starts = np.cumsum([0] + sizes[:-1]).astype(np.intp)
    flat = np.concatenate(list(parts)).astype(np.intp) if parts else np.zeros(0, np.intp)
    return flat, starts


def _membership(parts: Sequence[np.ndarray], size: int) -> _Membership:
    first = np.full(size, len(parts), dtype=np.intp)
    extra: list[tuple[int, int]] = []
    for k, part in enumerate(parts):
        for i in np.asarray(part, dtype=np.intp).tolist():
            if first[i] == len(parts):
                first[i] = k
            else:
                extra.append((i, k))
    pairs = np.array(extra, dtype=np.intp).reshape(-1, 2)
    return _Membership(first, pairs[:, 0].copy(), pairs[:, 1].copy(),
                       np.zeros(len(parts) + 1, dtype=bool))


class Topology:
    """
    The transmissions of a robot as index groups, from its flat description.

    :param robot: a ``RobotTransmissions`` (its ``transmissions``, names, ``maps`` and limits)
    """

    def __init__(self, robot: Any) -> None:
        maps: FlatDescription = robot.maps
        #: per transmission (URDF order): its record and indices
        self.groups: list[Group] = [Group(t, b.joints, b.actuators, b.inputs)
                                    for t, b in zip(robot.transmissions, maps.blocks)]
        commandable = np.zeros(len(robot.joint_names), dtype=bool)
        for g in self.groups:
            commandable[g.active] = True
        #: joints a command may name
        self.commandable = commandable
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
            groups = [(g.actuators, g.active) for g in self.groups]
            return Direction(
                'actuator', 'joint', list(robot.actuator_names), list(robot.joint_names),
                np.ones(len(robot.actuator_names), bool), groups,
                Incidence(groups, len(robot.actuator_names), len(robot.joint_names)),
                Incidence([(g.actuators, g.joints) for g in self.groups],
                          len(robot.actuator_names), len(robot.joint_names)),
                actuators, joints, robot.maps, True)
        groups = [(g.active, g.actuators) for g in self.groups]
        incidence = Incidence(groups, len(robot.joint_names), len(robot.actuator_names))
        return Direction('joint', 'actuator', list(robot.joint_names),
                         list(robot.actuator_names), self.commandable.copy(), groups, incidence,
                         incidence, joints, actuators, robot.maps, False)


class Limits(NamedTuple):
    """The limits of one side (joints or actuators): NaN and absent limits are unbounded."""

    lower: np.ndarray
    upper: np.ndarray
    #: >= 0
    velocity: np.ndarray
    #: >= 0
    effort: np.ndarray

    def bounds(self) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Return ``field -> (low, high)`` for position, velocity and effort."""
        return {'position': (self.lower, self.upper),
                'velocity': (-self.velocity, self.velocity),
                'effort': (-self.effort, self.effort)}

    def stacked(self) -> tuple[np.ndarray, np.ndarray]:
        """Return the low and high bounds as ``(3, n)`` arrays: position, velocity, effort."""
        return (np.stack([self.lower, -self.velocity, -self.effort]),
                np.stack([self.upper, self.velocity, self.effort]))


class Direction(NamedTuple):
    """
    One direction of a robot's maps, from its sources to its targets, as a cycle needs it.

    ``source`` and ``target`` are ``'actuator'`` or ``'joint'``; ``groups`` has one
    ``(commandable source indices, commandable target indices)`` pair per transmission.
    """

    source: str
    target: str
    source_names: list[str]
    target_names: list[str]
    #: the sources a command may name (passive joints excluded)
    commandable: np.ndarray
    groups: list[tuple[np.ndarray, np.ndarray]]
    #: the groups for reductions over every transmission at once: commands (to the
    #: commandable targets) and states (to every target a source's map writes: a passive
    #: joint's state follows its transmission's actuators)
    incidence: Incidence
    state_incidence: Incidence
    source_limits: Limits
    target_limits: Limits
    #: the robot's flat description: its conversion and, joints to actuators, which targets
    #: come from source positions outside their mechanism's range
    maps: FlatDescription
    to_joint: bool


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
