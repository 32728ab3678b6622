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
Name-keyed maps of a whole robot: ``{'position': {'motor_a': 1.0}}`` in, by name out.

The rules are ``RobotTransmissions.actuator_to_joint``'s; the values go through the array maps
(:mod:`~transmission_plugins.core.flat_description`) as robot vectors, NaN where a name is missing.
"""

import math
from operator import itemgetter
from typing import Any
from typing import Callable
from typing import Mapping
from typing import NamedTuple
from typing import Sequence

import numpy as np

from transmission_plugins.core.exceptions import TransmissionInputError
from transmission_plugins.core.flat_description import Block
from transmission_plugins.core.flat_description import FlatDescription
from transmission_plugins.core.interfaces import ABSOLUTE_POSITION
from transmission_plugins.core.interfaces import EFFORT
from transmission_plugins.core.interfaces import INTERFACE_KIND
from transmission_plugins.core.interfaces import POSITION
from transmission_plugins.core.interfaces import VELOCITY

#: ``{interface: {name: value}}``
NameMap = dict[str, dict[str, float]]

_NUMBER_TYPES = {float, int}


class _Part(NamedTuple):
    """One transmission in one direction: what it needs, what it writes, whom it stands for."""

    #: robot indices of the sources its maps read (a subset of ``src``)
    needed: np.ndarray
    src: np.ndarray
    dst: np.ndarray
    #: joint to actuator: the index among the parts of the owner of its actuators (its own
    #: index for an owner; always its own actuator to joint)
    owner: int


class _Direction:
    """The transmissions of one direction, indexed for :meth:`NamedMaps.convert`."""

    def __init__(self, blocks: Sequence[Block], to_joint: bool, names: Sequence[str],
                 out_names: Sequence[str]) -> None:
        self.names, self.out_names = list(names), list(out_names)
        self._getter = _getter(self.names)
        owner_of: dict[int, int] = {}
        self.parts: list[_Part] = []
        for index, b in enumerate(blocks):
            src, dst = (b.actuators, b.joints) if to_joint else (b.joints, b.actuators)
            needed = src if to_joint else src[list(b.transmission.joint_to_actuator_inputs())]
            owner = index if to_joint else owner_of.setdefault(int(dst[0]), index)
            self.parts.append(_Part(needed, src, dst, owner))
        self.nonlinear = np.array([not b.transmission.is_linear() for b in blocks], dtype=bool)
        #: the transmissions whose joint efforts come from their actuators' motion (to joint)
        self.effort_from_motion = np.array(
            [to_joint and b.transmission.joint_effort_from_motion() for b in blocks], dtype=bool)
        #: (follower, owner) part indices of transmissions sharing an earlier one's actuators
        self.followers = [(i, p.owner) for i, p in enumerate(self.parts) if p.owner != i]
        # the needed sources of every part, one after the other, and the part of each
        self._needed = np.concatenate([p.needed for p in self.parts]
                                      + [np.zeros(0, np.intp)]).astype(np.intp)
        self._part_of = np.repeat(np.arange(len(self.parts)),
                                  [p.needed.size for p in self.parts]).astype(np.intp)
        #: for each output, the part that writes it (a follower's outputs are its owner's)
        self.writer = np.zeros(len(out_names), dtype=np.intp)
        for part in self.parts:
            self.writer[part.dst] = part.owner

    def read(self, by_name: Mapping[str, Any], interface: str) -> tuple[np.ndarray, np.ndarray]:
        """
        Return the values of ``by_name`` as a vector and, per part, whether it has all it needs.

        Names not given are NaN in the vector; both arrays are new.

        :raises TransmissionInputError: a value that is not a real number
        """
        try:
            got = self._getter(by_name)
        except KeyError:  # some names are missing
            got = [by_name.get(n, math.nan) for n in self.names]
            given = np.array([n in by_name for n in self.names], dtype=bool)
            missing = np.bincount(self._part_of, weights=~given[self._needed],
                                  minlength=len(self.parts))
            complete = missing == 0
        else:
            complete = np.ones(len(self.parts), dtype=bool)
        if not set(map(type, got)) <= _NUMBER_TYPES:
            got = [_number(v, n, interface) if n in by_name else math.nan
                   for v, n in zip(got, self.names)]
        return np.array(got, dtype=np.float64), complete


class NamedMaps:
    """
    Name-keyed maps of a robot, through its array maps ``maps``.

    :param blocks: the robot's transmissions placed in its vectors (URDF order)
    """

    def __init__(self, blocks: Sequence[Block], maps: FlatDescription, joint_names: Sequence[str],
                 actuator_names: Sequence[str]) -> None:
        self._maps = maps
        self._directions = {True: _Direction(blocks, True, actuator_names, joint_names),
                            False: _Direction(blocks, False, joint_names, actuator_names)}

    def convert(self, values: Mapping[str, Mapping[str, Any]], to_joint: bool) -> NameMap:
        """
        Convert name-keyed values (module docstring).

        :raises TransmissionInputError: unknown interface or a value that is not a number
        """
        d = self._directions[to_joint]
        arrays: dict[str, np.ndarray] = {}
        complete: dict[str, np.ndarray] = {}
        for interface, by_name in values.items():
            if interface not in INTERFACE_KIND:
                raise TransmissionInputError(
                    f'unknown interface {interface!r}; expected one of '
                    f'{", ".join(INTERFACE_KIND)}')
            arrays[interface], complete[interface] = d.read(by_name, interface)
        state = None
        if d.nonlinear.any():
            # a nonlinear transmission maps velocity and effort at its own positions only
            has_state = np.zeros_like(d.nonlinear)
            for interface in (POSITION, ABSOLUTE_POSITION):
                if interface in complete:
                    has_state |= complete[interface]
            for interface, done in complete.items():
                if INTERFACE_KIND[interface] != POSITION:
                    done &= has_state | ~d.nonlinear
            state = _state(d, arrays, complete)
            if d.effort_from_motion.any():
                _effort_from_motion(d, arrays, complete)
        moved = _take_followers(d, arrays, complete) if d.followers else {}
        if state is None or not moved:
            out = self._maps.convert(arrays, to_joint, state)
        else:  # each interface at the positions of the transmissions it takes values from
            out = {}
            for interface, x in arrays.items():
                here = state.copy()
                for follower, owner in moved.get(interface, ()):
                    here[d.parts[owner].src] = state[d.parts[follower].src]
                out.update(self._maps.convert({interface: x}, to_joint, here))
        result: NameMap = {}
        for interface, y in out.items():
            if complete[interface].all():
                result[interface] = dict(zip(d.out_names, y.tolist()))
                continue
            where = np.flatnonzero(complete[interface][d.writer]).tolist()
            result[interface] = dict(zip([d.out_names[i] for i in where], y[where].tolist()))
        return result


def _getter(names: Sequence[str]) -> Callable[[Mapping[str, Any]], Sequence[Any]]:
    """Return a function reading ``names`` from a mapping, in order (KeyError if one lacks)."""
    if len(names) == 1:
        name = names[0]
        return lambda by_name: (by_name[name],)
    if not names:
        return lambda by_name: ()
    return itemgetter(*names)


def _number(value: Any, name: str, interface: str) -> float:
    """
    Return ``value`` as a float when it is a real number, as the functional API accepts them.

    :raises TransmissionInputError: for ``'1.5'``, ``True``, None and anything but int, float
        and numpy integer or floating scalars
    """
    if type(value) is float or type(value) is int:
        return value
    x = np.asarray(value)
    if x.ndim != 0 or x.dtype.kind not in 'iuf':  # bool, str, None, complex, arrays
        raise TransmissionInputError(
            f'{interface!r} values must be numbers (int or float): {name!r} is {value!r}')
    return float(x)


def _state(d: _Direction, arrays: dict[str, np.ndarray],
           complete: dict[str, np.ndarray]) -> np.ndarray | None:
    """
    Return the positions the nonlinear maps are evaluated at (a new array), or None.

    ``position`` where it is complete for a transmission, else ``absolute_position``.
    """
    position, absolute = arrays.get(POSITION), arrays.get(ABSOLUTE_POSITION)
    if position is None or absolute is None:
        chosen = position if position is not None else absolute
        return None if chosen is None else chosen.copy()
    state = position.copy()
    for part, nonlinear, has_position in zip(d.parts, d.nonlinear, complete[POSITION]):
        if nonlinear and not has_position:
            state[part.src] = absolute[part.src]
    return state


def _effort_from_motion(d: _Direction, arrays: dict[str, np.ndarray],
                        complete: dict[str, np.ndarray]) -> None:
    """
    Make a spring's joint effort complete where its actuators' positions and velocities are.

    Its actuator efforts are not read (:meth:`~.Transmission.joint_effort_from_motion`);
    without any effort-like interface given, ``effort`` is added (NaN actuator efforts) when
    ``velocity`` is given, so those joints' efforts come out.
    """
    velocity = complete.get(VELOCITY)
    moving = (velocity if velocity is not None
              else np.zeros(len(d.parts), dtype=bool))   # velocity needs the state: done above
    efforts = [i for i in complete if INTERFACE_KIND[i] == EFFORT]
    if not efforts:
        if velocity is None:
            return
        arrays[EFFORT] = np.full(len(d.names), math.nan)
        complete[EFFORT] = np.zeros(len(d.parts), dtype=bool)
        efforts = [EFFORT]
    for interface in efforts:
        complete[interface] = np.where(d.effort_from_motion, moving, complete[interface])


def _take_followers(d: _Direction, arrays: dict[str, np.ndarray],
                    complete: dict[str, np.ndarray]) -> dict[str, list[tuple[int, int]]]:
    """
    Give a shared actuator the value of the first transmission that has all it needs.

    :returns: per velocity or effort interface, the ``(follower, owner)`` part indices of the
        nonlinear transmissions whose values were taken (they need the follower's positions)
    """
    moved: dict[str, list[tuple[int, int]]] = {}
    for follower, owner in d.followers:
        for interface, done in complete.items():
            if done[owner] or not done[follower]:
                continue
            arrays[interface][d.parts[owner].src] = arrays[interface][d.parts[follower].src]
            done[owner] = True
            if d.nonlinear[follower] and INTERFACE_KIND[interface] != POSITION:
                moved.setdefault(interface, []).append((follower, owner))
    return moved
