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
All the transmissions of a robot, wired by joint and actuator name: :class:`RobotTransmissions`.

Built by :func:`~transmission_plugins.load_robot_transmissions` from a URDF, or by hand from
:class:`~transmission_plugins.RobotTransmission` records; the wiring rules are checked in one
place, :mod:`transmission_plugins.robot.wiring`.  Converts whole-robot values by name
(:mod:`~.named_maps`) or as arrays (its flat description,
:mod:`~transmission_plugins.core.flat_description`), and carries the joint limits, the
limits mapped to the actuators, the actuator models and the reflected inertia.
"""

import math
from typing import Any
from typing import Iterable
from typing import Mapping
from typing import Sequence

import numpy as np

from transmission_plugins.core.checks import check_value_arrays
from transmission_plugins.core.exceptions import TransmissionInputError
from transmission_plugins.core.exceptions import UnknownNameError
from transmission_plugins.core.flat_description import Block
from transmission_plugins.core.flat_description import FlatDescription
from transmission_plugins.core.interfaces import INTERFACE_KIND
from transmission_plugins.core.interfaces import POSITION
from transmission_plugins.robot.actuators import actuator_model_from_info
from transmission_plugins.robot.actuators import ActuatorModel
from transmission_plugins.robot.drivetrain import RobotDrivetrain
from transmission_plugins.robot.inertia import duplicated_reduction_warning
from transmission_plugins.robot.inertia import reflected_inertia as transmission_inertia
from transmission_plugins.robot.limits import actuator_limits
from transmission_plugins.robot.limits import joint_effort_bound
from transmission_plugins.robot.limits import joint_samples
from transmission_plugins.robot.limits import largest
from transmission_plugins.robot.limits import linear_joint_effort_bound
from transmission_plugins.robot.limits import linear_limits
from transmission_plugins.robot.limits import sparse_box_bound
from transmission_plugins.robot.named_maps import NamedMaps
from transmission_plugins.robot.named_maps import NameMap
from transmission_plugins.robot.wiring import RobotTransmission
from transmission_plugins.robot.wiring import wire
from transmission_plugins.urdf.joints import UrdfJoint
from transmission_plugins.urdf.records import ActuatorInfo

__all__ = ['RobotTransmission', 'RobotTransmissions']


class RobotTransmissions:
    """
    The transmissions of a robot, wired by name, with its maps, limits and reflected inertia.

    Usually made by :func:`load_robot_transmissions`; it can be built by hand from
    :class:`RobotTransmission` records.

    :param transmissions: the transmissions in URDF order
    :param joints: the robot model's top-level joints (for limits and the untransmitted list)
    :param actuator_info: actuator records by name (rotor inertia, effort limit, gains)
    :param warnings: warnings gathered while parsing
    :param robot_name: the robot's name
    :param lenient: skip (with a warning) transmissions that break the wiring rules
    :raises BrokenReferenceError: a wiring rule is broken (:mod:`~.wiring`)
    """

    def __init__(self, transmissions: Iterable[RobotTransmission],
                 joints: Iterable[UrdfJoint] = (), *,
                 actuator_info: Mapping[str, ActuatorInfo] | None = None,
                 warnings: Sequence[str] = (), robot_name: str = '',
                 lenient: bool = False) -> None:
        self.robot_name = robot_name
        self.urdf_joints: dict[str, UrdfJoint] = {j.name: j for j in joints}
        wiring = wire(transmissions, list(self.urdf_joints), lenient=lenient)
        #: warnings gathered while loading and wiring (:class:`~transmission_plugins.LoadWarning`
        #: records for loaded robots)
        self.warnings: list[str] = list(warnings) + list(wiring.warnings)
        #: the transmissions kept, in URDF order
        self.transmissions: list[RobotTransmission] = wiring.transmissions
        #: joints driven by transmissions (URDF transmission order, each once)
        self.joint_names: list[str] = wiring.joint_names
        #: actuators in order of first appearance
        self.actuator_names: list[str] = wiring.actuator_names
        self._owner = wiring.owner
        blocks = wiring.blocks
        self.joint_index = {n: i for i, n in enumerate(self.joint_names)}
        self.actuator_index = {n: i for i, n in enumerate(self.actuator_names)}
        self._blocks = blocks
        #: the flat description of the robot's maths: the placement of every transmission, the
        #: fused linear rows and the mechanism records the compiled kernel converts with
        self.maps = FlatDescription(blocks, len(self.joint_names), len(self.actuator_names))
        self._named = NamedMaps(blocks, self.maps, self.joint_names, self.actuator_names)
        self._set_joint_limits()
        self._set_actuators(actuator_info or {})
        commanded = np.ones(len(self.actuator_names), dtype=bool)
        for b in blocks:
            commanded[b.actuators] &= np.array(b.transmission.commanded_actuators(), dtype=bool)
        #: per actuator, whether it takes commands (False: a sensor channel such as a
        #: series-elastic transmission's joint-side encoder, which the node sends nothing)
        self.commanded_actuators = commanded
        ends = {j.name: j for t in self.transmissions if t.info is not None
                for j in t.info.joints}
        #: friction, backlash and motors of the joints and actuators (doc/drivetrain.md)
        self.drivetrain = RobotDrivetrain(
            self.joint_names, self.actuator_names, ends, actuator_info or {},
            [self.actuator_models[n].gear_ratio for n in self.actuator_names])
        driven = set(self.joint_names)
        free = [j for j in self.urdf_joints.values() if j.movable and j.name not in driven]
        #: movable URDF joints that no transmission drives and that mimic no other joint
        self.untransmitted_joints: list[str] = [j.name for j in free if j.mimic is None]
        #: movable URDF joints without a transmission that mimic another joint
        self.mimic_joints: list[str] = [j.name for j in free if j.mimic is not None]

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
        soft = [self.urdf_joints[n].safety if n in self.urdf_joints else None
                for n in self.joint_names]
        #: the soft limits of each joint's ``<safety_controller>`` (NaN where none):
        #: ``(soft_lower, soft_upper, k_position, k_velocity)`` rows, ``(nj, 4)``
        self.joint_soft_limits = np.array([tuple(s) if s is not None else (math.nan,) * 4
                                           for s in soft], dtype=np.float64).reshape(-1, 4)

    def _set_actuators(self, actuator_info: Mapping[str, ActuatorInfo]) -> None:
        na = len(self.actuator_names)
        self.actuator_lower = np.full(na, -math.inf)
        self.actuator_upper = np.full(na, math.inf)
        self.actuator_velocity_limit = np.full(na, math.inf)
        mapped_effort = np.full(na, math.inf)
        owned = [b.actuators for b in self._blocks if b.owner and b.transmission.is_linear()]
        if owned:  # every linear transmission at once, on the sparse fused maps
            a = np.concatenate(owned)
            lo, hi, vel, eff = linear_limits(
                self.maps, self.joint_lower, self.joint_upper,
                np.abs(self.joint_velocity_limit), np.abs(self.joint_effort_limit))
            self.actuator_lower[a], self.actuator_upper[a] = lo[a], hi[a]
            self.actuator_velocity_limit[a] = vel[a]
            mapped_effort[a] = eff[a]
        for b in self._blocks:
            if not b.owner or b.transmission.is_linear():
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
        self.actuator_models: dict[str, ActuatorModel] = {}
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
                info.path if info is not None and info.path else owner.path,
                info.line if info is not None else None)
            if note is not None:
                self.warnings.append(note)
        #: actuator effort limits: from actuator data, else the joint effort limits mapped
        #: through the transmission (see :mod:`transmission_plugins.robot.limits`); always
        #: ``actuator_models[name].effort_limit``, so a mapped limit that is not finite and > 0
        #: is ``inf`` (no limit) in both
        self.actuator_effort_limit = np.array(
            [self.actuator_models[n].effort_limit for n in self.actuator_names], dtype=np.float64)
        #: where each actuator effort limit comes from: ``'data'``, ``'mapped'`` or ``'none'``
        self.actuator_effort_limit_source: list[str] = [
            'data' if math.isfinite(d) else 'mapped' if math.isfinite(m) and m > 0.0 else 'none'
            for d, m in zip(data_effort, mapped_effort)]
        #: joint efforts reachable with the actuator-data effort limits (``inf`` without data)
        self.joint_effort_limit_from_actuators = self.joint_effort_bound(data_effort)

    def joint_effort_bound(self, actuator_effort: np.ndarray) -> np.ndarray:
        """
        Return the largest effort of each joint that actuator efforts within bounds produce.

        Through a nonlinear transmission the largest anywhere in the joint's range
        (:func:`~.limits.joint_effort_bound`).

        :param actuator_effort: ``(na,)`` bounds >= 0, ``inf`` for none
        :returns: ``(nj,)`` (``inf`` where an actuator without a bound contributes)
        """
        bound = np.full(len(self.joint_names), math.inf)
        driven = [b.joints for b in self._blocks if b.transmission.is_linear()]
        if driven:
            j = np.concatenate(driven)
            bound[j] = linear_joint_effort_bound(self.maps, actuator_effort)[j]
        for b in self._blocks:
            if b.transmission.is_linear():
                continue
            bound[b.joints] = joint_effort_bound(
                b.transmission, self.joint_lower[b.joints], self.joint_upper[b.joints],
                actuator_effort[b.actuators])
        return bound

    def joint_velocity_bound(self, actuator_speed: np.ndarray) -> np.ndarray:
        r"""
        Return the largest speed of each joint that actuator speeds within bounds produce.

        :math:`\sum_a |J_{ja}|\,\bar\omega_a` through the linear transmissions; NaN for the
        joints of nonlinear ones (not computed).

        :param actuator_speed: ``(na,)`` bounds >= 0, ``inf`` for none
        """
        bound = np.full(len(self.joint_names), math.nan)
        driven = [b.joints for b in self._blocks if b.transmission.is_linear()]
        if driven:
            j = np.concatenate(driven)
            bound[j] = largest(sparse_box_bound(self.maps.matrix(True, POSITION),
                                                np.asarray(actuator_speed, dtype=np.float64)))[j]
        return bound

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
        return self._named.convert(values, to_joint=True)

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
        return self._named.convert(values, to_joint=False)

    # ------------------------------------------------------------------ array maps
    def actuator_to_joint_arrays(self, values: Mapping[str, Any],
                                 out: Mapping[str, np.ndarray] | None = None
                                 ) -> dict[str, np.ndarray]:
        """
        Map actuator arrays ``(..., len(actuator_names))`` to joint arrays (doc/robot_api.md).

        One sample and a batch take the same path, the compiled conversion
        (:meth:`~transmission_plugins.core.flat_description.FlatDescription.convert`).

        :param out: optional, interface name to a float64 array ``(..., nj)`` to write the
            result into (one for every interface given, of one shape, not overlapping the inputs)
        :raises TransmissionInputError: unknown interface, non-numeric values, wrong shape or
            a bad ``out``
        """
        arrays = check_value_arrays(values, len(self.actuator_names), 'actuator', _NAMES,
                                    'RobotTransmissions')
        if out is not None:
            _check_out(out, arrays, len(self.joint_names))
        return self.maps.convert(arrays, True, None, out)

    def joint_to_actuator_arrays(self, values: Mapping[str, Any],
                                 out: Mapping[str, np.ndarray] | None = None
                                 ) -> dict[str, np.ndarray]:
        """
        Map joint arrays ``(..., len(joint_names))`` to actuator arrays.

        ``out`` as for :meth:`actuator_to_joint_arrays`.  Use NaN for joints without a command;
        the actuators that depend on them get NaN.

        :raises TransmissionInputError: unknown interface, non-numeric values, wrong shape or
            a bad ``out``
        """
        arrays = check_value_arrays(values, len(self.joint_names), 'joint', _NAMES,
                                    'RobotTransmissions')
        if out is not None:
            _check_out(out, arrays, len(self.actuator_names))
        return self.maps.convert(arrays, False, None, out)

    def unreachable_actuators(self, joint_position: Any) -> np.ndarray:
        r"""
        Return which actuators' joint positions lie outside their mechanism's range.

        A nonlinear mechanism's joint-to-actuator map is defined on a range (the PR2 gripper's
        gap, from squeezed shut to fully open); beyond it the map clamps, as the PR2's C++
        does, and the actuator position it gives maps back to another joint position: a gap of
        -1 m gives the motor position of +0.100 m.  An actuator is unreachable when the joint
        positions its transmission reads do not come back from the round trip
        :math:`f(g(q))` to within :math:`10^{-9}(1 + |q|)`.  Linear transmissions reach
        everything; NaN joint positions are left to the caller (they give NaN anyway).  The
        conversion of joint positions computes the same mask in the same call (``unreachable=``
        of :meth:`~transmission_plugins.core.flat_description.FlatDescription.convert`).

        :param joint_position: ``(..., len(joint_names))``
        :returns: a boolean array ``(..., len(actuator_names))``
        """
        q = check_value_arrays({POSITION: joint_position}, len(self.joint_names), 'joint',
                               (POSITION,), 'RobotTransmissions')[POSITION]
        out = np.zeros(q.shape[:-1] + (len(self.actuator_names),), dtype=bool)
        self.maps.convert({POSITION: q}, False, unreachable=out)
        return out

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
        actuators count once, in their owner's block.  A series-elastic joint (a transmission
        whose joint effort comes from the motion, a spring) gets 0: its rotors are behind the
        spring and load the drive, not the link (:meth:`spring_side_inertia`).

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
        for b in self._blocks:
            if b.owner:
                out[np.ix_(b.joints, b.joints)] += self.block_inertia(b, q)
        return out

    def block_inertia(self, block: Block, joint_position: np.ndarray) -> np.ndarray:
        """
        Return one transmission's term of :meth:`reflected_inertia`, ``(M, M)`` over its joints.

        :param block: the transmission's place in the robot (``robot.maps.blocks``)
        :param joint_position: the robot's joint positions (only a nonlinear map reads its own)
        """
        if block.transmission.joint_effort_from_motion():   # behind a spring: none
            size = block.transmission.num_joints()
            return np.zeros((size, size))
        return self._rigid_inertia(block, joint_position)

    def _rigid_inertia(self, block: Block, joint_position: np.ndarray) -> np.ndarray:
        models = [self.actuator_models[self.actuator_names[int(a)]] for a in block.actuators]
        return transmission_inertia(block.transmission, models, None if (
            block.transmission.is_linear()) else joint_position[block.joints])

    def spring_side_inertia(self) -> dict[str, float]:
        r"""
        Return, per series-elastic joint, the rotor inertia the drive carries, in joint units.

        :math:`K^T \operatorname{diag}(\rho^2 I_r) K` of its transmission
        (:math:`n^2\rho^2 I_r` of the motor): what a rigid transmission would reflect onto the
        joint, and what :meth:`reflected_inertia` leaves out there (the spring decouples it).
        """
        q = self.default_joint_position()
        return {self.joint_names[int(b.joints[0])]: float(self._rigid_inertia(b, q)[0, 0])
                for b in self._blocks if b.owner and b.transmission.joint_effort_from_motion()}

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


#: the interfaces the array maps accept
_NAMES = INTERFACE_KIND   # the accepted interface names (a dict: O(1) membership)


def _check_out(out: Any, arrays: Mapping[str, np.ndarray], size: int) -> None:
    """
    Check the ``out=`` arrays of a conversion.

    :raises TransmissionInputError: not a mapping of every interface converted to a writeable
        float64 array of the output's shape, one that overlaps the inputs, or interfaces of
        different shapes
    """
    owner = 'RobotTransmissions'
    names = list(arrays)
    if not isinstance(out, Mapping) or set(out) != set(names):
        raise TransmissionInputError(
            f'{owner}: out= must map every interface converted ({", ".join(names)}) to an '
            f'array, got {out!r:.80}')
    shapes = {x.shape for x in arrays.values()}
    if len(shapes) > 1:
        raise TransmissionInputError(
            f'{owner}: out= needs every interface in one shape, got '
            + ', '.join(f'{k} {x.shape}' for k, x in arrays.items()))
    shape = next(iter(shapes))[:-1] + (size,)
    for name in names:
        y = out[name]
        if not isinstance(y, np.ndarray) or y.dtype != np.float64 or y.shape != shape or \
                not y.flags.writeable:
            got = (f'{y.dtype} array of shape {y.shape}' if isinstance(y, np.ndarray)
                   else type(y).__name__)
            raise TransmissionInputError(
                f'{owner}: out[{name!r}] must be a writeable float64 array of shape {shape}, '
                f'got {got}')
        if any(np.may_share_memory(y, x) for x in arrays.values()):
            raise TransmissionInputError(
                f'{owner}: out[{name!r}] overlaps the input arrays; give separate buffers')
