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
Convert batches of recorded ``sensor_msgs/JointState`` messages between actuator and joint space.

A message is ``(names, position, velocity, effort)``; each field is empty (not recorded) or has
one value per name.  Messages with the same names and the same non-empty fields are stacked into
one ``(m, n)`` array per field and converted with one call of the robot's array maps
(:meth:`~transmission_plugins.robot.robot_transmissions.RobotTransmissions.actuator_to_joint_arrays`
or ``joint_to_actuator_arrays``), so the cost per message is a few array copies.

Every complete transmission of a message is converted, as the name-keyed maps do; what is left
out is said (:class:`Converted`, :class:`Rejected`, :data:`REJECT_REASONS`: doc/bags.md).  With
``to='actuator'``, names of URDF joints that no transmission drives are ignored.
"""

from typing import Any
from typing import NamedTuple
from typing import Sequence

import numpy as np

from transmission_plugins.robot.robot_transmissions import RobotTransmissions
from transmission_plugins.runtime.messages import FIELDS

#: Why a message, or a part of it, cannot be converted (first the nodes' own drop reasons).
REJECT_REASONS = ('empty', 'length_mismatch', 'unknown_names', 'duplicate_names', 'non_finite',
                  'partial_transmission', 'no_position', 'out_of_range')

#: Directions: the space to convert *to*.
TO_JOINT = 'joint'
TO_ACTUATOR = 'actuator'


class Rejected(NamedTuple):
    """What cannot be converted: one of :data:`REJECT_REASONS` and the detail."""

    reason: str
    detail: str


class Converted(NamedTuple):
    """A converted message: target names and one array per field (None when not recorded)."""

    names: list[str]
    position: np.ndarray | None
    velocity: np.ndarray | None
    effort: np.ndarray | None
    #: the parts of the message that were left out, and why
    left_out: tuple[Rejected, ...] = ()


#: One input message: names and the three fields (float sequences or arrays, possibly empty).
Message = tuple[Sequence[str], Any, Any, Any]


class _Part(NamedTuple):
    name: str                    # the transmission
    src: np.ndarray              # message positions of its source ends
    dst: np.ndarray              # positions of its target ends in the plan's output
    nonlinear: bool


class _Plan(NamedTuple):
    src: np.ndarray              # robot source index of every message position (-1: ignored)
    names: list[str]             # output names of all parts, in the robot's order
    dst: np.ndarray              # their robot target indices
    parts: list[_Part]
    left_out: tuple[Rejected, ...]   # names that are not converted, whatever the values


def _some(names: Sequence[str], count: int = 5) -> str:
    shown = list(names[:count])
    return f'{shown}' + (f' and {len(names) - count} more' if len(names) > count else '')


class JointStateBatchConverter:
    """
    Convert lists of JointState messages with the robot's array maps (see the module doc).

    :param robot: the robot's transmissions
    :param to: ``'joint'`` (messages name actuators) or ``'actuator'`` (messages name joints)
    """

    def __init__(self, robot: RobotTransmissions, to: str) -> None:
        if to not in (TO_JOINT, TO_ACTUATOR):
            raise ValueError(f"to must be 'joint' or 'actuator', got {to!r}")
        self.robot = robot
        self.to = to
        to_joint = to == TO_JOINT
        self.src_kind = 'actuator' if to_joint else 'joint'
        self.src_names = robot.actuator_names if to_joint else robot.joint_names
        self.dst_names = robot.joint_names if to_joint else robot.actuator_names
        self._src_index = robot.actuator_index if to_joint else robot.joint_index
        self._dst_index = robot.joint_index if to_joint else robot.actuator_index
        self._ignored = set() if to_joint else set(robot.urdf_joints) - set(robot.joint_names)
        self._convert = (robot.actuator_to_joint_arrays if to_joint
                         else robot.joint_to_actuator_arrays)
        #: joint positions outside a mechanism's range (joints to actuators only)
        self._unreachable = None if to_joint else robot.unreachable_actuators
        self._ends = []
        for t in robot.transmissions:
            src = t.actuator_names if to_joint else t.joint_names
            needed = (list(src) if to_joint else
                      [src[k] for k in t.transmission.joint_to_actuator_inputs()])
            dst = t.joint_names if to_joint else t.actuator_names
            self._ends.append((t.name, set(src), needed, list(dst),
                               not t.transmission.is_linear()))
        self._plans: dict[tuple[str, ...], _Plan | Rejected] = {}

    def plan(self, names: Sequence[str]) -> _Plan | Rejected:
        """Return how messages naming ``names`` convert (cached per name list)."""
        key = tuple(names)
        plan = self._plans.get(key)
        if plan is None:
            plan = self._make_plan(key)
            if len(self._plans) >= 4096:  # a bag of ever-changing name lists: bound the cache
                self._plans.clear()
            self._plans[key] = plan
        return plan

    def _make_plan(self, names: tuple[str, ...]) -> _Plan | Rejected:
        if not names:
            return Rejected('empty', 'the message has no names')
        if len(set(names)) != len(names):
            dup = sorted({n for n in names if names.count(n) > 1})
            return Rejected('duplicate_names', f'duplicate {self.src_kind} names {_some(dup)}')
        left_out: list[Rejected] = []
        unknown = [n for n in names if n not in self._src_index and n not in self._ignored]
        if unknown:
            left_out.append(Rejected('unknown_names',
                                     f'unknown {self.src_kind} names {_some(unknown)}'))
        position = {n: k for k, n in enumerate(names)}
        chosen = []
        for name, src, needed, targets, nonlinear in self._ends:
            if all(n in position for n in needed):
                chosen.append((name, needed, targets, nonlinear))
            elif src & set(position):
                missing = [n for n in needed if n not in position]
                left_out.append(Rejected('partial_transmission', f'transmission {name!r} lacks '
                                                                 f'{self.src_kind}s '
                                                                 f'{_some(missing)}'))
        if not chosen:
            return left_out[0] if left_out else Rejected(
                'partial_transmission', f'no transmission has all its {self.src_kind}s in the '
                                        'message')
        dst = sorted(self._dst_index[n] for _, _, targets, _ in chosen for n in targets)
        at = {index: k for k, index in enumerate(dst)}
        parts = [_Part(name, np.array([position[n] for n in needed], dtype=np.intp),
                       np.array([at[self._dst_index[n]] for n in targets], dtype=np.intp),
                       nonlinear) for name, needed, targets, nonlinear in chosen]
        src_index = np.array([self._src_index.get(n, -1) for n in names], dtype=np.intp)
        return _Plan(src_index, [self.dst_names[i] for i in dst], np.array(dst, dtype=np.intp),
                     parts, tuple(left_out))

    def convert(self, messages: Sequence[Message]) -> list[Converted | Rejected]:
        """
        Convert ``messages``; return one :class:`Converted` or :class:`Rejected` per message.

        The values of a converted message are those of converting it alone (the maps act on
        each row independently); only the number of array calls depends on the batch.
        """
        out: list[Converted | Rejected | None] = [None] * len(messages)
        groups: dict[tuple[int, tuple[bool, ...]], list[int]] = {}
        plans: dict[int, _Plan] = {}
        for k, (names, *values) in enumerate(messages):
            plan = self.plan(names)
            if isinstance(plan, Rejected):
                out[k] = plan
                continue
            n = len(names)
            lengths = [len(v) for v in values]
            bad = [(f, m) for f, m in zip(FIELDS, lengths) if m not in (0, n)]
            if bad:
                out[k] = Rejected('length_mismatch', f'{n} names but {bad[0][1]} {bad[0][0]} '
                                                     'values')
                continue
            given = tuple(m > 0 for m in lengths)
            if not any(given):
                out[k] = Rejected('empty', 'no position, velocity or effort values')
                continue
            plans[id(plan)] = plan
            groups.setdefault((id(plan), given), []).append(k)
        for (plan_id, given), members in groups.items():
            self._convert_group(plans[plan_id], given, members, messages, out)
        return out  # type: ignore[return-value]

    def _convert_group(self, plan: _Plan, given: tuple[bool, ...], members: list[int],
                       messages: Sequence[Message], out: list[Converted | Rejected | None]
                       ) -> None:
        count, width = len(members), len(self.src_names)
        known = plan.src >= 0
        values = {}
        ok = np.ones((count, len(plan.parts)), dtype=bool)  # (message, part) converts
        for f, field in enumerate(FIELDS):
            if not given[f]:
                continue
            x = np.array([np.asarray(messages[k][f + 1]) for k in members], dtype=np.float64)
            finite = np.isfinite(x)
            for p, part in enumerate(plan.parts):
                ok[:, p] &= finite[:, part.src].all(axis=1)
            full = np.full((count, width), np.nan)
            full[:, plan.src[known]] = x[:, known]
            values[field] = full
        inputs_ok = ok.copy()
        no_position = [p for p, part in enumerate(plan.parts) if part.nonlinear and not given[0]]
        ok[:, no_position] = False
        with np.errstate(all='ignore'):
            result = self._convert(values)
            if self._unreachable is not None and 'position' in values:
                far = self._unreachable(values['position'])
                for field in values:
                    result[field][far] = np.nan   # outside the range: left out as such
        arrays = {field: result[field][:, plan.dst] for field in values}
        for y in arrays.values():
            finite = np.isfinite(y)
            for p, part in enumerate(plan.parts):
                ok[:, p] &= finite[:, part.dst].all(axis=1)
        whole: np.ndarray = np.all(ok, axis=1)
        for r, k in enumerate(members):
            fields = [arrays[f][r] if f in arrays else None for f in FIELDS]
            if whole[r]:
                out[k] = Converted(plan.names, fields[0], fields[1], fields[2], plan.left_out)
                continue
            left_out = [self._why(plan.parts[p], p in no_position, inputs_ok[r, p])
                        for p in np.flatnonzero(~ok[r])] + list(plan.left_out)
            if not ok[r].any():
                out[k] = left_out[0]
                continue
            keep = np.sort(np.concatenate([plan.parts[p].dst for p in np.flatnonzero(ok[r])]))
            position, velocity, effort = (None if v is None else v[keep] for v in fields)
            out[k] = Converted([plan.names[i] for i in keep], position, velocity, effort,
                               tuple(left_out))

    @staticmethod
    def _why(part: _Part, no_position: bool, inputs_ok: bool) -> Rejected:
        if not inputs_ok:
            return Rejected('non_finite', f'transmission {part.name!r}: a value is NaN or '
                                          'infinite')
        if no_position:
            return Rejected('no_position', f'transmission {part.name!r}: velocity or effort '
                                           'through a nonlinear transmission needs the '
                                           'positions')
        return Rejected('out_of_range', f'transmission {part.name!r}: a converted value is not '
                                        'finite (an input outside the range the transmission '
                                        'can map)')
