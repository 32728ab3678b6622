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
The wiring of a robot's transmissions by joint and actuator name: the one place it is checked.

Every robot, loaded from a URDF or built by hand, goes through :func:`wire`.  In order, for each
transmission:

1. it is wired to as many joints and actuators as it maps, and names none twice;
2. its joints are ``<joint>`` elements of the robot (when the robot model is known);
3. a joint is driven by one transmission only (an exact duplicate is merged with a warning);
4. a transmission name is used once;
5. an actuator is shared only by transmissions with the same actuators and identical maps; the
   first of them *owns* it (``joint_to_actuator`` takes its value from the owner's joints).

A violation raises :class:`~transmission_plugins.BrokenReferenceError`; in lenient mode the
transmission is skipped with a warning and the first one to claim a name keeps it.
"""

from dataclasses import dataclass
from typing import Any
from typing import Collection
from typing import Iterable
from typing import NamedTuple

import numpy as np

from transmission_plugins.core.exceptions import BrokenReferenceError
from transmission_plugins.core.exceptions import LoadWarning
from transmission_plugins.core.flat_description import Block
from transmission_plugins.core.transmission import Transmission
from transmission_plugins.urdf.records import TransmissionInfo
from transmission_plugins.urdf.records import TransmissionWiring


@dataclass(frozen=True)
class RobotTransmission:
    """One transmission of a robot with the names of its joints and actuators, in map order."""

    name: str
    #: the type as written in the URDF (or the class name for hand-built ones)
    type: str  # noqa: A003
    transmission: Transmission
    joint_names: tuple[str, ...]
    actuator_names: tuple[str, ...]
    #: the parsed ``<transmission>`` record, None for hand-built ones
    info: TransmissionInfo | None = None

    @property
    def path(self) -> str:
        """Return the URDF element path, or ``transmission[@name='...']`` for hand-built ones."""
        if self.info is not None and self.info.path:
            return self.info.path
        return f"transmission[@name='{self.name}']"

    @property
    def wiring(self) -> TransmissionWiring:
        """Return the transmission with its joint and actuator names, as its plugin built it."""
        return TransmissionWiring(self.transmission, self.joint_names, self.actuator_names)

    def describe(self) -> str:
        """Return how messages name it: ``transmission 't' (path, line N)``, or its path."""
        if self.info is None:
            return self.path
        line = f', line {self.info.line}' if self.info.line else ''
        return f'transmission {self.name!r} ({self.path}{line})'

    def end_path(self, name: str, side: str) -> str:
        """Return the element path of its joint or actuator ``name`` (``side``)."""
        if self.info is not None:
            for end in (self.info.joints if side == 'joint' else self.info.actuators):
                if end.name == name and end.path:
                    return end.path
        return f"{self.path}/{side}[@name='{name}']"

    def drivetrain(self) -> tuple[Any, ...]:
        """Return the friction, backlash and motor records of its ends (equal when equal)."""
        if self.info is None:
            return ()
        return tuple((e.name, e.friction, e.backlash, getattr(e, 'motor', None))
                     for e in self.info.joints + self.info.actuators)


class Wiring(NamedTuple):
    """What :func:`wire` kept: transmissions, name orders, actuator owners, index blocks."""

    transmissions: list[RobotTransmission]
    joint_names: list[str]
    actuator_names: list[str]
    #: actuator name -> the transmission that owns it (writes it in ``joint_to_actuator``)
    owner: dict[str, RobotTransmission]
    #: one block per kept transmission, in the same order, with its robot-wide indices
    blocks: list[Block]
    warnings: list[LoadWarning]


_OWNER = 'owner'
_FOLLOWER = 'follower'
_DUPLICATE = 'duplicate'


class _Wirer:
    def __init__(self, robot_joints: Collection[str]) -> None:
        self.robot_joints = frozenset(robot_joints)  # membership tests: O(1) per joint
        self.joint_owner: dict[str, RobotTransmission] = {}
        self.named: dict[str, RobotTransmission] = {}
        self.owner: dict[str, RobotTransmission] = {}
        self.warnings: list[LoadWarning] = []

    def check(self, t: RobotTransmission) -> str:
        """Return whether ``t`` owns its actuators, follows an identical owner or is a dup."""
        tr = t.transmission
        if len(t.joint_names) != tr.num_joints() or len(t.actuator_names) != tr.num_actuators():
            raise BrokenReferenceError(
                t.path, f'{type(tr).__name__} maps {tr.num_actuators()} actuator(s) to '
                f'{tr.num_joints()} joint(s) but is wired to actuators {list(t.actuator_names)} '
                f'and joints {list(t.joint_names)}', _line(t))
        for side, names in (('joint', t.joint_names), ('actuator', t.actuator_names)):
            seen = set()
            for n in names:
                if n in seen:
                    raise BrokenReferenceError(t.path, f'{side} {n!r} is listed twice', _line(t))
                seen.add(n)
        if self.robot_joints:
            for j in t.joint_names:
                if j not in self.robot_joints:
                    raise BrokenReferenceError(t.end_path(j, 'joint'), f'joint {j!r} is not a '
                                               '<joint> of the robot', _line(t))
        for j in t.joint_names:
            other = self.joint_owner.get(j)
            if other is None:
                continue
            if (other.joint_names == t.joint_names and other.actuator_names == t.actuator_names
                    and other.transmission.same_map(tr)):
                if t.drivetrain() != other.drivetrain():
                    raise BrokenReferenceError(
                        t.path, f'the same joints, actuators and map as {other.describe()}, but '
                        'other drivetrain elements (<friction>, <backlash>, <motor>): which '
                        'one holds? Give them once, or the same in both', _line(t))
                self.warnings.append(LoadWarning(
                    t.path, f'exact duplicate of {other.path} (same joints, actuators and map); '
                    'merged', _line(t)))
                return _DUPLICATE
            raise BrokenReferenceError(
                t.end_path(j, 'joint'), f'joint {j!r} is already driven by {other.describe()}; '
                'a joint can be driven by one transmission only', _line(t))
        if t.name in self.named:
            raise BrokenReferenceError(t.path, f'transmission name {t.name!r} is already used by '
                                       f'{self.named[t.name].describe()}', _line(t))
        shared = [a for a in t.actuator_names if a in self.owner]
        if not shared:
            return _OWNER
        other = self.owner[shared[0]]
        if other.actuator_names == t.actuator_names and other.transmission.same_map(tr):
            self.warnings.append(LoadWarning(
                t.path, f'actuator(s) {shared} shared with {other.describe()}, which has the same '
                f'map; joint_to_actuator takes their values from {other.name!r}', _line(t)))
            return _FOLLOWER
        raise BrokenReferenceError(
            t.end_path(shared[0], 'actuator'), f'actuator {shared[0]!r} is already used by '
            f'{other.describe()} with a different map ({other.transmission!r} vs {tr!r}); an '
            'actuator may only be shared by transmissions with identical maps (their '
            'joint-to-actuator maps would conflict)', _line(t))


def wire(transmissions: Iterable[RobotTransmission], robot_joints: Collection[str] = (), *,
         lenient: bool = False) -> Wiring:
    """
    Check and index the wiring of a robot's transmissions (module docstring).

    :param transmissions: the transmissions in URDF order
    :param robot_joints: the robot model's joint names; empty skips the unknown-joint check
        (transmission-only descriptions)
    :param lenient: skip (with a warning) a transmission that breaks a rule instead of raising
    :raises BrokenReferenceError: naming the offending joint or actuator and the conflict
    """
    wirer = _Wirer(robot_joints)
    kept: list[tuple[RobotTransmission, bool]] = []
    joint_names: list[str] = []
    actuator_names: list[str] = []
    for t in transmissions:
        try:
            role = wirer.check(t)
        except BrokenReferenceError as e:
            if not lenient:
                raise
            wirer.warnings.append(LoadWarning(e.path, f'skipped (lenient mode): {e.message}',
                                              e.line, text=f'skipped (lenient mode): {e}'))
            continue
        if role == _DUPLICATE:
            continue
        wirer.named[t.name] = t
        for j in t.joint_names:
            wirer.joint_owner[j] = t
            joint_names.append(j)
        for a in t.actuator_names:
            if a not in wirer.owner:
                wirer.owner[a] = t
                actuator_names.append(a)
        kept.append((t, role == _OWNER))
    jidx = {n: i for i, n in enumerate(joint_names)}
    aidx = {n: i for i, n in enumerate(actuator_names)}
    blocks = [Block(t.transmission, np.array([jidx[n] for n in t.joint_names], dtype=np.intp),
                    np.array([aidx[n] for n in t.actuator_names], dtype=np.intp), owner)
              for t, owner in kept]
    return Wiring([t for t, _ in kept], joint_names, actuator_names, wirer.owner, blocks,
                  wirer.warnings)


def _line(t: RobotTransmission) -> int | None:
    return t.info.line if t.info is not None else None
