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
All the transmissions of a robot, wired by joint and actuator name.

:func:`load_robot_transmissions` reads a URDF (text, a path, or a ``.xacro`` path), parses every
``<transmission>``, builds each through its plugin and returns a :class:`RobotTransmissions`:

>>> robot = load_robot_transmissions('pr2.urdf')            # doctest: +SKIP
>>> robot.actuator_to_joint({'position': {'r_wrist_r_motor': 1.0, 'r_wrist_l_motor': 0.5}})
... # doctest: +SKIP
{'position': {'r_wrist_flex_joint': ..., 'r_wrist_roll_joint': ...}}

Wiring rules, checked when the object is built:

* a joint is driven by one transmission; a second transmission naming it is an error, unless it
  is an exact duplicate (same type, names and map: Franka repeats each transmission for every
  hardware interface), which is merged with a warning;
* an actuator may be shared by several transmissions only when their maps are identical (same
  type, same actuator list, same parameters).  The first of them *owns* it: ``joint_to_actuator``
  takes the actuator's value from the owner's joints; ``actuator_to_joint`` feeds every one.

In lenient mode a transmission that breaks these rules, or that cannot be built (unknown vendor
type, bad values), is skipped with a warning instead of raising.
"""

from dataclasses import dataclass
import math
import os
from typing import Any
from typing import Dict
from typing import Iterable
from typing import List
from typing import Mapping
from typing import Optional
from typing import Sequence
from typing import Tuple
from typing import Union

import numpy as np

from transmission_plugins.core.exceptions import BrokenReferenceError
from transmission_plugins.core.exceptions import TransmissionError
from transmission_plugins.core.exceptions import TransmissionInputError
from transmission_plugins.core.exceptions import UnknownNameError
from transmission_plugins.core.exceptions import UnknownTransmissionTypeError
from transmission_plugins.core.info import ActuatorInfo
from transmission_plugins.core.info import TransmissionInfo
from transmission_plugins.core.interfaces import ABSOLUTE_POSITION
from transmission_plugins.core.interfaces import INTERFACE_KIND
from transmission_plugins.core.interfaces import POSITION
from transmission_plugins.core.transmission import Transmission
from transmission_plugins.robot.actuators import actuator_model_from_info
from transmission_plugins.robot.actuators import ActuatorModel
from transmission_plugins.robot.fused_maps import Block
from transmission_plugins.robot.fused_maps import FusedMaps
from transmission_plugins.robot.inertia import duplicated_reduction_warning
from transmission_plugins.robot.inertia import reflected_inertia as transmission_inertia
from transmission_plugins.robot.limits import actuator_limits
from transmission_plugins.robot.limits import joint_effort_bound
from transmission_plugins.robot.limits import joint_samples
from transmission_plugins.urdf.joints import read_robot_model
from transmission_plugins.urdf.joints import UrdfJoint

NameMap = Dict[str, Dict[str, float]]

_OWNER = 'owner'
_FOLLOWER = 'follower'
_DUPLICATE = 'duplicate'


@dataclass(frozen=True)
class RobotTransmission:
    """One transmission of a robot with the names of its joints and actuators, in map order."""

    name: str
    #: the type as written in the URDF (or the class name for hand-built ones)
    type: str  # noqa: A003
    transmission: Transmission
    joint_names: Tuple[str, ...]
    actuator_names: Tuple[str, ...]
    #: the parsed ``<transmission>`` record, None for hand-built ones
    info: Optional[TransmissionInfo] = None

    @property
    def path(self) -> str:
        """Return the URDF element path, or the name for hand-built transmissions."""
        if self.info is not None and self.info.path:
            return self.info.path
        return f"transmission[@name='{self.name}']"


def _same_map(a: Transmission, b: Transmission) -> bool:
    if type(a) is not type(b):
        return False
    if a.is_linear():
        return all(np.array_equal(x, y) for x, y in
                   zip(a.linear_map(), b.linear_map()))  # type: ignore[attr-defined]
    return repr(a) == repr(b)


class RobotTransmissions:
    """
    The transmissions of a robot, wired by name, with fused maps, limits and reflected inertia.

    Usually made by :func:`load_robot_transmissions`; it can be built by hand from
    :class:`RobotTransmission` records.

    :param transmissions: the transmissions in URDF order
    :param joints: the robot model's top-level joints (for limits and the untransmitted list)
    :param actuator_info: actuator records by name (rotor inertia, effort limit, gains)
    :param warnings: warnings gathered while parsing
    :param robot_name: the robot's name
    :param lenient: skip (with a warning) transmissions that break the wiring rules
    :raises BrokenReferenceError: a joint driven twice, or an actuator shared with another map
    """

    def __init__(self, transmissions: Iterable[RobotTransmission],
                 joints: Iterable[UrdfJoint] = (), *,
                 actuator_info: Optional[Mapping[str, ActuatorInfo]] = None,
                 warnings: Sequence[str] = (), robot_name: str = '',
                 lenient: bool = False) -> None:
        self.robot_name = robot_name
        self.warnings: List[str] = list(warnings)
        self.urdf_joints: Dict[str, UrdfJoint] = {j.name: j for j in joints}
        self.transmissions: List[RobotTransmission] = []
        self.joint_names: List[str] = []
        self.actuator_names: List[str] = []
        self._owner: Dict[str, RobotTransmission] = {}
        blocks = self._wire(transmissions, lenient)
        self.joint_index = {n: i for i, n in enumerate(self.joint_names)}
        self.actuator_index = {n: i for i, n in enumerate(self.actuator_names)}
        self._blocks = blocks
        self.fused = FusedMaps(blocks, len(self.joint_names), len(self.actuator_names))
        self._set_joint_limits()
        self._set_actuators(actuator_info or {})
        driven = set(self.joint_names)
        free = [j for j in self.urdf_joints.values() if j.movable and j.name not in driven]
        #: movable URDF joints that no transmission drives and that mimic no other joint
        self.untransmitted_joints: List[str] = [j.name for j in free if j.mimic is None]
        #: movable URDF joints without a transmission that mimic another joint
        self.mimic_joints: List[str] = [j.name for j in free if j.mimic is not None]

    # ------------------------------------------------------------------ wiring
    def _wire(self, transmissions: Iterable[RobotTransmission], lenient: bool) -> List[Block]:
        joint_owner: Dict[str, RobotTransmission] = {}
        placed: List[Tuple[RobotTransmission, bool]] = []
        for t in transmissions:
            try:
                role = self._check(t, joint_owner)
            except BrokenReferenceError as e:
                if not lenient:
                    raise
                self.warnings.append(f'skipped (lenient mode): {e}')
                continue
            if role == _DUPLICATE:
                continue
            for j in t.joint_names:
                joint_owner[j] = t
                self.joint_names.append(j)
            for a in t.actuator_names:
                if a not in self._owner:
                    self._owner[a] = t
                    self.actuator_names.append(a)
            self.transmissions.append(t)
            placed.append((t, role == _OWNER))
        jidx = {n: i for i, n in enumerate(self.joint_names)}
        aidx = {n: i for i, n in enumerate(self.actuator_names)}
        return [Block(t.transmission, np.array([jidx[n] for n in t.joint_names], dtype=np.intp),
                      np.array([aidx[n] for n in t.actuator_names], dtype=np.intp), owner)
                for t, owner in placed]

    def _check(self, t: RobotTransmission,
               joint_owner: Dict[str, RobotTransmission]) -> str:
        """Return whether ``t`` owns its actuators, follows an identical owner or is a dup."""
        tr = t.transmission
        if len(t.joint_names) != tr.num_joints() or len(t.actuator_names) != tr.num_actuators():
            raise BrokenReferenceError(
                t.path, f'{type(tr).__name__} maps {tr.num_actuators()} actuator(s) to '
                f'{tr.num_joints()} joint(s) but is wired to actuators {list(t.actuator_names)} '
                f'and joints {list(t.joint_names)}')
        for side, names in (('joint', t.joint_names), ('actuator', t.actuator_names)):
            seen = set()
            for n in names:
                if n in seen:
                    raise BrokenReferenceError(t.path, f'{side} {n!r} is listed twice')
                seen.add(n)
        if self.urdf_joints:
            unknown = [j for j in t.joint_names if j not in self.urdf_joints]
            if unknown:
                raise BrokenReferenceError(
                    t.path, f'joint(s) {unknown} are not joints of the robot model')
        for j in t.joint_names:
            other = joint_owner.get(j)
            if other is None:
                continue
            if (other.joint_names == t.joint_names and other.actuator_names == t.actuator_names
                    and _same_map(other.transmission, tr)):
                self.warnings.append(
                    f'{t.path}: exact duplicate of {other.path} (same joints, actuators and '
                    'map); merged')
                return _DUPLICATE
            raise BrokenReferenceError(
                t.path, f'joint {j!r} is already driven by {other.path}; a joint can be driven '
                'by one transmission only')
        shared = [a for a in t.actuator_names if a in self._owner]
        if not shared:
            return _OWNER
        other = self._owner[shared[0]]
        if other.actuator_names == t.actuator_names and _same_map(other.transmission, tr):
            self.warnings.append(
                f'{t.path}: actuator(s) {shared} shared with {other.path} (identical maps); '
                f'joint_to_actuator takes their values from {other.name!r}')
            return _FOLLOWER
        raise BrokenReferenceError(
            t.path, f'actuator {shared[0]!r} is also driven by {other.path} with a different '
            f'map ({other.transmission!r} vs {tr!r}); an actuator may only be shared by '
            'transmissions with identical maps')

    # ------------------------------------------------------------------ limits and actuators
    def _set_joint_limits(self) -> None:
        def column(attr: str, default: float) -> np.ndarray:
            return np.array([getattr(self.urdf_joints[n], attr) if n in self.urdf_joints
                             else default for n in self.joint_names], dtype=np.float64)

        #: joint position limits (``-inf``/``inf`` when the URDF declares none, e.g. continuous)
        self.joint_lower = column('lower', -math.inf)
        self.joint_upper = column('upper', math.inf)
        #: joint velocity and effort limits (``inf`` when the URDF declares none)
        self.joint_velocity_limit = column('velocity', math.inf)
        self.joint_effort_limit = column('effort', math.inf)

    def _set_actuators(self, actuator_info: Mapping[str, ActuatorInfo]) -> None:
        na = len(self.actuator_names)
        self.actuator_lower = np.full(na, -math.inf)
        self.actuator_upper = np.full(na, math.inf)
        self.actuator_velocity_limit = np.full(na, math.inf)
        mapped_effort = np.full(na, math.inf)
        for b in self._blocks:
            if not b.owner:
                continue
            j, a = b.joints, b.actuators
            lo, hi, vel, eff = actuator_limits(
                b.transmission, self.joint_lower[j], self.joint_upper[j],
                np.abs(self.joint_velocity_limit[j]), np.abs(self.joint_effort_limit[j]))
            self.actuator_lower[a], self.actuator_upper[a] = lo, hi
            self.actuator_velocity_limit[a] = vel
            mapped_effort[a] = eff
        data_effort = np.full(na, math.inf)
        #: one :class:`~.actuators.ActuatorModel` per actuator; its effort
        #: limit is the actuator data's, else the mapped joint limit
        self.actuator_models: Dict[str, ActuatorModel] = {}
        for i, name in enumerate(self.actuator_names):
            info = actuator_info.get(name)
            mapped = float(mapped_effort[i])
            fallback = mapped if math.isfinite(mapped) and mapped > 0.0 else None
            if info is not None:
                model = actuator_model_from_info(info, effort_limit=fallback)
                if info.effort_limit is not None:
                    data_effort[i] = model.effort_limit
            else:
                model = ActuatorModel(name, effort_limit=math.inf if fallback is None
                                      else fallback)
            self.actuator_models[name] = model
            owner = self._owner[name]
            note = duplicated_reduction_warning(  # gear ratio == reduction: counted twice?
                model, owner.transmission, owner.actuator_names.index(name),
                info.path if info is not None and info.path else owner.path)
            if note is not None:
                self.warnings.append(note)
        #: actuator effort limits: from actuator data, else the joint effort limits mapped
        #: through the transmission (see :mod:`transmission_plugins.robot.limits`); always
        #: ``actuator_models[name].effort_limit``, so a mapped limit that is not finite and > 0
        #: is ``inf`` (no limit) in both
        self.actuator_effort_limit = np.array(
            [self.actuator_models[n].effort_limit for n in self.actuator_names], dtype=np.float64)
        #: where each actuator effort limit comes from: ``'data'``, ``'mapped'`` or ``'none'``
        self.actuator_effort_limit_source: List[str] = [
            'data' if math.isfinite(d) else 'mapped' if math.isfinite(m) and m > 0.0 else 'none'
            for d, m in zip(data_effort, mapped_effort)]
        #: joint efforts reachable with the actuator-data effort limits (``inf`` without data)
        self.joint_effort_limit_from_actuators = np.full(len(self.joint_names), math.inf)
        for b in self._blocks:
            self.joint_effort_limit_from_actuators[b.joints] = joint_effort_bound(
                b.transmission, self.joint_lower[b.joints], self.joint_upper[b.joints],
                data_effort[b.actuators])

    # ------------------------------------------------------------------ name-keyed maps
    def actuator_to_joint(self, values: Mapping[str, Mapping[str, Any]]) -> NameMap:
        """
        Map actuator values, by interface then actuator name, to joint values.

        A transmission is converted for an interface when all its actuators are given for it;
        a nonlinear one also needs all of them under ``position`` (or ``absolute_position``) to
        map velocity and effort.  Names of no transmission are ignored.

        :param values: e.g. ``{'position': {'motor_a': 1.0}, 'velocity': {...}}``
        :returns: ``{interface: {joint: value}}`` for every interface given
        :raises TransmissionInputError: unknown interface or a value that is not a number
        """
        return self._convert(values, to_joint=True)

    def joint_to_actuator(self, values: Mapping[str, Mapping[str, Any]]) -> NameMap:
        """
        Map joint values, by interface then joint name, to actuator values.

        Same rules as :meth:`actuator_to_joint`, except that only the joints the transmission's
        joint-to-actuator maps read are needed
        (:meth:`~transmission_plugins.core.transmission.Transmission.joint_to_actuator_inputs`: the
        gap joint alone for a PR2 gripper, whose passive finger joints cannot be commanded);
        the others may be left out (they are ignored either way).  A shared actuator takes the
        value of the first transmission (in URDF order) whose needed joints are all given.

        :returns: ``{interface: {actuator: value}}`` for every interface given
        :raises TransmissionInputError: unknown interface or a value that is not a number
        """
        return self._convert(values, to_joint=False)

    def _convert(self, values: Mapping[str, Mapping[str, Any]], to_joint: bool) -> NameMap:
        for interface in values:
            if interface not in INTERFACE_KIND:
                raise TransmissionInputError(
                    f'unknown interface {interface!r}; expected one of '
                    f'{", ".join(INTERFACE_KIND)}')
        out: NameMap = {interface: {} for interface in values}
        for t in self.transmissions:
            tr = t.transmission
            if to_joint:
                src, dst, needed = t.actuator_names, t.joint_names, t.actuator_names
            else:
                src, dst = t.joint_names, t.actuator_names
                needed = [src[i] for i in tr.joint_to_actuator_inputs()]
            arrays = {}
            for interface, by_name in values.items():
                if all(n in by_name for n in needed):
                    arrays[interface] = _numbers(by_name, src, interface)
            if tr.requires_position_state() and POSITION not in arrays \
                    and ABSOLUTE_POSITION not in arrays:
                arrays = {k: v for k, v in arrays.items() if INTERFACE_KIND[k] == POSITION}
            if not arrays:
                continue
            result = tr.actuator_to_joint(arrays) if to_joint else tr.joint_to_actuator(arrays)
            for interface, y in (result or {}).items():
                slot = out[interface]
                for n, v in zip(dst, y.tolist()):
                    slot.setdefault(n, v)
        return out

    # ------------------------------------------------------------------ array maps
    def actuator_to_joint_arrays(self, values: Mapping[str, Any]) -> Dict[str, np.ndarray]:
        """
        Map actuator arrays ``(..., len(actuator_names))`` to joint arrays.

        All linear transmissions go through one fused matrix product per interface kind,
        nonlinear ones through their vectorised kernels (see :mod:`~.fused_maps`).

        :param values: interface name to an array whose last axis follows ``actuator_names``
        :returns: interface name to an array whose last axis follows ``joint_names``
        :raises TransmissionInputError: unknown interface, non-numeric values or wrong shape
        """
        return self.fused.actuator_to_joint(values)

    def joint_to_actuator_arrays(self, values: Mapping[str, Any]) -> Dict[str, np.ndarray]:
        """
        Map joint arrays ``(..., len(joint_names))`` to actuator arrays.

        Use NaN for joints without a command; the actuators that depend on them get NaN.

        :param values: interface name to an array whose last axis follows ``joint_names``
        :returns: interface name to an array whose last axis follows ``actuator_names``
        :raises TransmissionInputError: unknown interface, non-numeric values or wrong shape
        """
        return self.fused.joint_to_actuator(values)

    # ------------------------------------------------------------------ inertia
    def default_joint_position(self) -> np.ndarray:
        """Return the centre of each joint's position range (0 where unbounded)."""
        out = np.zeros(len(self.joint_names))
        for b in self._blocks:
            q = joint_samples(b.transmission, self.joint_lower[b.joints],
                              self.joint_upper[b.joints])
            out[b.joints] = q[len(q) // 2]
        return out

    def reflected_inertia(self, joint_position: Any = None) -> np.ndarray:
        r"""
        Return the rotor inertia reflected to the joints, ``(nj, nj)``, robot-wide.

        Block-diagonal by transmission: :math:`K^T \operatorname{diag}(\rho^2 I_r) K` with
        :math:`K = \partial\theta/\partial q` and :math:`\rho^2 I_r` each actuator model's
        :meth:`~transmission_plugins.robot.actuators.ActuatorModel.reflected_inertia` (so
        :math:`n^2 \rho^2 I_r` for a simple transmission of reduction :math:`n`).  Shared
        actuators count once, in their owner's block.

        :param joint_position: joint positions aligned with ``joint_names`` (only nonlinear
            transmissions use them); default :meth:`default_joint_position`
        """
        q = (self.default_joint_position() if joint_position is None
             else np.asarray(joint_position, dtype=np.float64))
        if q.shape != (len(self.joint_names),):
            raise TransmissionInputError(
                f'joint_position must have shape ({len(self.joint_names)},), got {q.shape}')
        nj = len(self.joint_names)
        out = np.zeros((nj, nj))
        for b, t in zip(self._blocks, self.transmissions):
            if not b.owner:
                continue
            models = [self.actuator_models[a] for a in t.actuator_names]
            block = transmission_inertia(
                b.transmission, models,
                None if b.transmission.is_linear() else q[b.joints])
            out[np.ix_(b.joints, b.joints)] += block
        return out

    # ------------------------------------------------------------------ lookups and reports
    def transmission(self, name: str) -> RobotTransmission:
        """
        Return the transmission called ``name``.

        :raises UnknownNameError: (also a ``KeyError``) no such transmission
        """
        for t in self.transmissions:
            if t.name == name:
                return t
        raise UnknownNameError(f'no transmission {name!r}; transmissions: '
                               + ', '.join(t.name for t in self.transmissions))

    def transmission_of_joint(self, joint: str) -> RobotTransmission:
        """Return the transmission driving ``joint`` (:class:`UnknownNameError` when none)."""
        for t in self.transmissions:
            if joint in t.joint_names:
                return t
        raise UnknownNameError(f'no transmission drives joint {joint!r}')

    def summary(self) -> str:
        """Return a text report: transmissions, joints, actuators, leftovers and warnings."""
        from transmission_plugins.robot.report import text_report
        return text_report(self)

    def __str__(self) -> str:
        return self.summary()

    def __repr__(self) -> str:
        return (f'<RobotTransmissions {self.robot_name!r}: {len(self.transmissions)} '
                f'transmissions, {len(self.joint_names)} joints, '
                f'{len(self.actuator_names)} actuators>')


def _numbers(by_name: Mapping[str, Any], names: Sequence[str], interface: str) -> np.ndarray:
    """
    Return the values of ``names`` as an array, NaN for names not given (unread joints).

    As in the transmissions' functional API, only real numbers are accepted (int, float, numpy
    integer or floating scalars): not ``'1.5'`` or ``True``, which ``float()`` would take.
    """
    return np.array([_number(by_name[n], n, interface) if n in by_name else math.nan
                     for n in names], dtype=np.float64)


def _number(value: Any, name: str, interface: str) -> float:
    if type(value) is float or type(value) is int:  # the common case, fast
        return value
    x = np.asarray(value)
    if x.ndim != 0 or x.dtype.kind not in 'iuf':  # bool, str, None, complex, arrays
        raise TransmissionInputError(
            f'{interface!r} values must be numbers (int or float): {name!r} is {value!r}')
    return float(x)


def load_robot_transmissions(urdf: Union[str, os.PathLike], *, lenient: bool = False,
                             plugins: Any = None, source: str = 'auto') -> RobotTransmissions:
    """
    Load every transmission of a robot description.

    :param urdf: URDF XML text, or a path to a ``.urdf`` or ``.xacro`` file
    :param lenient: load what can be loaded: transmissions of unknown types, with bad values or
        breaking the wiring rules are skipped and reported in ``warnings``, and the parser may
        fall back to defaults for ill-defined values
    :param plugins: the plugin registry to use (default: the installed entry points)
    :param source: which ``<transmission>`` elements to read: ``'auto'`` (those inside
        ``<ros2_control>`` blocks when there are any, else the robot-level ones),
        ``'ros2_control'``, ``'robot'`` or ``'all'`` (see :mod:`~.urdf.dialects`)
    :returns: the robot's transmissions
    :raises TransmissionError: (a subclass) naming the element path and the bad value
    """
    from transmission_plugins.plugins.registry import build_transmission
    from transmission_plugins.plugins.registry import find_transmission_plugins
    from transmission_plugins.urdf.dialects import parse_transmissions
    from transmission_plugins.urdf.text import read_urdf_text

    xml_text = read_urdf_text(urdf)
    if plugins is None:
        plugins = find_transmission_plugins()  # once: it scans every installed distribution
    parsed = parse_transmissions(xml_text, lenient=lenient, source=source)
    warnings = list(parsed.warnings)
    records = []
    actuators: Dict[str, ActuatorInfo] = {}
    for info in parsed.transmissions:
        try:
            wiring = build_transmission(info, plugins, record=warnings)
        except TransmissionError as e:
            if not lenient:
                raise
            if isinstance(e, UnknownTransmissionTypeError):  # the known types would be noise
                warnings.append(f'skipped (lenient mode): {e.where}: no plugin is installed for '
                                f'type {e.plugin_name!r}')
            else:
                warnings.append(f'skipped (lenient mode): {e}')
            continue
        records.append(RobotTransmission(info.name, info.type, wiring.transmission,
                                         tuple(wiring.joint_names), tuple(wiring.actuator_names),
                                         info))
        for a in info.actuators:
            actuators.setdefault(a.name, a)
    # the limits of the driven joints are validated (bad ones raise, or warn in lenient mode)
    model = read_robot_model(parsed.root if parsed.root is not None else xml_text,
                             check=[j for r in records for j in r.joint_names], lenient=lenient)
    return RobotTransmissions(records, model.joints.values(), actuator_info=actuators,
                              warnings=warnings + model.limit_warnings, robot_name=model.name,
                              lenient=lenient)
