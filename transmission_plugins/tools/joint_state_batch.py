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

A transmission is converted when the message names all its source ends (all its actuators for
``to='joint'``; for ``to='actuator'`` the joints its joint-to-actuator maps read, e.g. the gap
joint alone of a PR2 gripper).  The output names are the target ends of the converted
transmissions, in the robot's order; its fields are those of the input.  A message that cannot
be converted is rejected with one of :data:`REJECT_REASONS`, never silently dropped:

* the reasons of the nodes' validation (:mod:`~transmission_plugins.runtime.messages`):
  ``empty``, ``length_mismatch``, ``unknown_names``, ``duplicate_names``, ``non_finite``;
* ``partial_transmission``: some but not all source ends of a transmission are named;
* ``no_position``: velocity or effort through a nonlinear transmission without positions;
* ``out_of_range``: a converted value is not finite (e.g. a PR2 gripper motor position outside
  the range its linkage can reach).

With ``to='actuator'``, names of URDF joints that no transmission drives are ignored (a
simulator's ``joint_states`` often carries them).
"""

from typing import Dict
from typing import List
from typing import NamedTuple
from typing import Optional
from typing import Sequence
from typing import Tuple
from typing import Union

import numpy as np

from transmission_plugins.robot.robot_transmissions import RobotTransmissions
from transmission_plugins.runtime.messages import FIELDS

#: Why a message cannot be converted (first the nodes' own drop reasons).
REJECT_REASONS = ('empty', 'length_mismatch', 'unknown_names', 'duplicate_names', 'non_finite',
                  'partial_transmission', 'no_position', 'out_of_range')

#: Directions: the space to convert *to*.
TO_JOINT = 'joint'
TO_ACTUATOR = 'actuator'


class Rejected(NamedTuple):
    """A message that cannot be converted: one of :data:`REJECT_REASONS` and the detail."""

    reason: str
    detail: str


class Converted(NamedTuple):
    """A converted message: target names and one array per field (None when not recorded)."""

    names: List[str]
    position: Optional[np.ndarray]
    velocity: Optional[np.ndarray]
    effort: Optional[np.ndarray]


#: One input message: names and the three fields (sequences, possibly empty).
Message = Tuple[Sequence[str], Sequence[float], Sequence[float], Sequence[float]]


class _Plan(NamedTuple):
    columns: np.ndarray          # message positions of the names that are converted
    src: np.ndarray              # their robot source indices
    names: List[str]             # output names
    dst: np.ndarray              # their robot target indices
    nonlinear: bool              # a nonlinear transmission is converted


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
        self._ignored = set() if to_joint else set(robot.urdf_joints) - set(robot.joint_names)
        self._convert = (robot.actuator_to_joint_arrays if to_joint
                         else robot.joint_to_actuator_arrays)
        self._ends = []
        for t in robot.transmissions:
            src = t.actuator_names if to_joint else t.joint_names
            needed = (list(src) if to_joint else
                      [src[k] for k in t.transmission.joint_to_actuator_inputs()])
            dst = t.joint_names if to_joint else t.actuator_names
            nonlinear = not t.transmission.is_linear()
            self._ends.append((t.name, set(src), needed, list(dst), nonlinear))
        self._plans: Dict[Tuple[str, ...], Union[_Plan, Rejected]] = {}

    def plan(self, names: Sequence[str]) -> Union[_Plan, Rejected]:
        """Return how messages naming ``names`` convert (cached per name list)."""
        key = tuple(names)
        plan = self._plans.get(key)
        if plan is None:
            plan = self._make_plan(key)
            if len(self._plans) >= 4096:  # a bag of ever-changing name lists: bound the cache
                self._plans.clear()
            self._plans[key] = plan
        return plan

    def _make_plan(self, names: Tuple[str, ...]) -> Union[_Plan, Rejected]:
        if not names:
            return Rejected('empty', 'the message has no names')
        if len(set(names)) != len(names):
            dup = sorted({n for n in names if names.count(n) > 1})
            return Rejected('duplicate_names', f'duplicate {self.src_kind} names {_some(dup)}')
        unknown = [n for n in names if n not in self._src_index and n not in self._ignored]
        if unknown:
            return Rejected('unknown_names', f'unknown {self.src_kind} names {_some(unknown)}')
        present = set(names)
        dst: List[str] = []
        used = set()
        nonlinear = False
        for name, src, needed, targets, is_nonlinear in self._ends:
            have = [n for n in needed if n in present]
            if len(have) == len(needed):
                used.update(needed)
                dst += [n for n in targets if n not in dst]
                nonlinear = nonlinear or is_nonlinear
            elif src & present:
                missing = [n for n in needed if n not in present]
                return Rejected('partial_transmission',
                                f'transmission {name!r} lacks {self.src_kind}s {_some(missing)}')
        if not dst:
            return Rejected('partial_transmission',
                            f'no transmission has all its {self.src_kind}s in the message')
        columns = [k for k, n in enumerate(names) if n in used]
        dst_index = sorted(self.robot.joint_index[n] if self.to == TO_JOINT
                           else self.robot.actuator_index[n] for n in dst)
        return _Plan(np.array(columns, dtype=np.intp),
                     np.array([self._src_index[names[k]] for k in columns], dtype=np.intp),
                     [self.dst_names[i] for i in dst_index], np.array(dst_index, dtype=np.intp),
                     nonlinear)

    def convert(self, messages: Sequence[Message]) -> List[Union[Converted, Rejected]]:
        """
        Convert ``messages``; return one :class:`Converted` or :class:`Rejected` per message.

        The values of a converted message are those of converting it alone (the maps act on
        each row independently); only the number of array calls depends on the batch.
        """
        out: List[Union[Converted, Rejected, None]] = [None] * len(messages)
        groups: Dict[Tuple[int, Tuple[bool, ...]], List[int]] = {}
        plans: Dict[int, _Plan] = {}
        for k, (names, *fields) in enumerate(messages):
            plan = self.plan(names)
            if isinstance(plan, Rejected):
                out[k] = plan
                continue
            n = len(names)
            lengths = [len(f) for f in fields]
            bad = [(f, m) for f, m in zip(FIELDS, lengths) if m not in (0, n)]
            if bad:
                out[k] = Rejected('length_mismatch', f'{n} names but {bad[0][1]} {bad[0][0]} '
                                                     'values')
                continue
            given = tuple(m > 0 for m in lengths)
            if not any(given):
                out[k] = Rejected('empty', 'no position, velocity or effort values')
                continue
            if plan.nonlinear and not given[0]:
                out[k] = Rejected('no_position', 'velocity or effort through a nonlinear '
                                                 'transmission needs the positions')
                continue
            plans[id(plan)] = plan
            groups.setdefault((id(plan), given), []).append(k)
        for (plan_id, given), members in groups.items():
            self._convert_group(plans[plan_id], given, members, messages, out)
        return out  # type: ignore[return-value]

    def _convert_group(self, plan: _Plan, given: Tuple[bool, ...], members: List[int],
                       messages: Sequence[Message], out: List[Union[Converted, Rejected, None]]
                       ) -> None:
        width = len(self.src_names)
        stacked = {}
        ok = np.ones(len(members), dtype=bool)
        for f, (field, present) in enumerate(zip(FIELDS, given)):
            if not present:
                continue
            x = np.array([messages[k][f + 1] for k in members], dtype=np.float64)
            x = x[:, plan.columns]
            ok &= np.isfinite(x).all(axis=1)
            stacked[field] = x
        for k in np.flatnonzero(~ok):
            out[members[k]] = Rejected('non_finite', 'a value is NaN or infinite')
        if not ok.any():
            return
        values = {}
        count = int(ok.sum())
        for field, x in stacked.items():
            full = np.full((count, width), np.nan)
            full[:, plan.src] = x[ok]
            values[field] = full
        with np.errstate(all='ignore'):
            result = self._convert(values)
        arrays = {field: np.ascontiguousarray(result[field][:, plan.dst]) for field in values}
        good = np.ones(count, dtype=bool)
        for y in arrays.values():
            good &= np.isfinite(y).all(axis=1)
        rows = np.flatnonzero(ok)
        for r, k in enumerate(rows):
            index = members[k]
            if not good[r]:
                out[index] = Rejected('out_of_range', 'a converted value is not finite (an '
                                                      'input outside the range the transmission '
                                                      'can map)')
                continue
            fields = [arrays[f][r] if f in arrays else None for f in FIELDS]
            out[index] = Converted(plan.names, fields[0], fields[1], fields[2])
