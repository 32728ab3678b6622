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
The :class:`Transmission` base class: the contract every transmission plugin fulfils.

Vocabulary (after ros2_control's ``transmission_interface`` and the KinDyn notes):

* **actuator space** is what motors measure and accept; **joint space** is what the robot model
  uses.  ``actuator_to_joint`` maps states (motor readings to joint states),
  ``joint_to_actuator`` maps commands (joint commands to motor commands).
* Position, velocity and effort are *different* quantities with *different* maps.  With
  :math:`J = \partial q / \partial \theta` the Jacobian from actuator positions
  :math:`\theta` to joint positions :math:`q`:

  .. math::

      \dot q = J \dot\theta, \qquad \tau = J^{-T} u, \qquad
      \tau^T \dot q = u^T \dot\theta

  so power is conserved; position is the integral of velocity plus a joint offset.
* ``absolute_position`` goes through the position map; ``torque`` and ``force`` go through the
  effort map.

A plugin must define :meth:`num_actuators`, :meth:`num_joints` and the six kernels
``_actuator_to_joint_<kind>`` / ``_joint_to_actuator_<kind>`` (kind = position, velocity,
effort), each vectorised over leading batch axes, plus the two Jacobians.  It may override
:meth:`requires_position_state` (nonlinear maps need the current position to map velocity and
effort), :meth:`joint_to_actuator_inputs` (joints the joint-to-actuator maps ignore), the
state hooks :meth:`_prepare_actuator_state` / :meth:`_prepare_joint_state` (compute
position-dependent quantities once per call for every interface), the role names and the report
methods.  :class:`LinearTransmission` implements all of that from a constant matrix and an
offset vector.
"""

from abc import ABC
from abc import abstractmethod
from typing import Any
from typing import Dict
from typing import List
from typing import Mapping
from typing import Optional
from typing import Sequence
from typing import Tuple

import numpy as np

from transmission_plugins.core.checks import check_value_arrays
from transmission_plugins.core.exceptions import TransmissionConfigurationError
from transmission_plugins.core.exceptions import TransmissionInputError
from transmission_plugins.core.handles import ActuatorHandle
from transmission_plugins.core.handles import Handle
from transmission_plugins.core.handles import INTERFACE_KIND
from transmission_plugins.core.handles import INTERFACES
from transmission_plugins.core.handles import JointHandle
from transmission_plugins.core.handles import POSITION
from transmission_plugins.core.handles import VELOCITY

ArrayMap = Dict[str, np.ndarray]


class Transmission(ABC):
    """
    Abstract mechanical transmission between N actuators and M joints.

    Two call styles share the same maths:

    * functional: ``actuator_to_joint({'position': a, 'velocity': v})`` where each array's last
      axis has :meth:`num_actuators` entries (leading axes are a batch) returns a new dict of
      joint-space arrays, one per interface given; ``joint_to_actuator`` likewise;
    * ros2_control: :meth:`configure` with :class:`JointHandle` and :class:`ActuatorHandle`
      lists, then ``actuator_to_joint()`` / ``joint_to_actuator()`` without arguments convert the
      handle values in place.
    """

    #: Role names of the joints and actuators, in map order (coupled transmissions).
    JOINT_ROLES: Tuple[str, ...] = ()
    ACTUATOR_ROLES: Tuple[str, ...] = ()

    def __init__(self) -> None:
        self._pairs: List[Tuple[str, List[JointHandle], List[ActuatorHandle]]] = []
        self._skipped: List[str] = []
        self._joint_position_handles: Optional[List[JointHandle]] = None
        self._actuator_position_handles: Optional[List[ActuatorHandle]] = None
        self._configured = False

    # ------------------------------------------------------------------ sizes and queries
    @abstractmethod
    def num_actuators(self) -> int:
        """Return the number of actuators this transmission maps."""

    @abstractmethod
    def num_joints(self) -> int:
        """Return the number of joints this transmission maps."""

    def requires_position_state(self) -> bool:
        """Return True when velocity and effort maps need the current position (nonlinear)."""
        return False

    def is_linear(self) -> bool:
        """Return True when the maps are affine with constant Jacobians."""
        return False

    def supported_interfaces(self) -> Tuple[str, ...]:
        """Return the interface names this transmission converts."""
        return INTERFACES

    def joint_to_actuator_inputs(self) -> Tuple[int, ...]:
        """
        Return the indices (map order) of the joints the joint-to-actuator maps read.

        Every ``_joint_to_actuator_<kind>`` kernel and :meth:`joint_to_actuator_jacobian` ignore
        the values of the other joints (e.g. the PR2 gripper's passive finger joints), so
        callers need not supply them: any value, NaN included, gives the same actuator values.
        Default: every joint.
        """
        return tuple(range(self.num_joints()))

    # ------------------------------------------------------------------ state hooks
    def _prepare_actuator_state(self, position: np.ndarray) -> Any:
        """
        Return what the actuator-side velocity and effort kernels get as their ``position``.

        Called once per conversion (functional call, handle conversion, fused robot map) with
        the actuator positions ``(..., N)``, before the velocity and effort kernels of that
        conversion; the result is passed unchanged to each of them.  A nonlinear transmission
        may override it to compute its position-dependent quantities (Jacobian factors) once for
        every interface and return an opaque object; its kernels must then accept both that
        object and a plain position array (direct callers pass arrays).  The default returns
        ``position`` unchanged.

        :param position: actuator positions ``(..., N)`` as float64
        """
        return position

    def _prepare_joint_state(self, position: np.ndarray) -> Any:
        """
        Return what the joint-side velocity and effort kernels get as their ``position``.

        The joint-space counterpart of :meth:`_prepare_actuator_state`, called with the joint
        positions ``(..., M)``; the default returns ``position`` unchanged.

        :param position: joint positions ``(..., M)`` as float64
        """
        return position

    # ------------------------------------------------------------------ kernels
    @abstractmethod
    def _actuator_to_joint_position(self, position: np.ndarray) -> np.ndarray:
        """Map actuator positions ``(..., N)`` to joint positions ``(..., M)``."""

    @abstractmethod
    def _actuator_to_joint_velocity(self, velocity: np.ndarray, position: Any) -> np.ndarray:
        """
        Map actuator velocities to joint velocities at actuator ``position``.

        ``position`` is None (linear maps), an actuator position array ``(..., N)`` or what
        :meth:`_prepare_actuator_state` returned for it; likewise for the other velocity and
        effort kernels.
        """

    @abstractmethod
    def _actuator_to_joint_effort(self, effort: np.ndarray, position: Any) -> np.ndarray:
        """Map actuator efforts to joint efforts at actuator ``position``."""

    @abstractmethod
    def _joint_to_actuator_position(self, position: np.ndarray) -> np.ndarray:
        """Map joint positions ``(..., M)`` to actuator positions ``(..., N)``."""

    @abstractmethod
    def _joint_to_actuator_velocity(self, velocity: np.ndarray, position: Any) -> np.ndarray:
        """Map joint velocities to actuator velocities at joint ``position`` (or its state)."""

    @abstractmethod
    def _joint_to_actuator_effort(self, effort: np.ndarray, position: Any) -> np.ndarray:
        """Map joint efforts to actuator efforts at joint ``position`` (or its state)."""

    @abstractmethod
    def actuator_to_joint_jacobian(self, actuator_position: Any = None) -> np.ndarray:
        r"""
        Return :math:`J = \partial q / \partial \theta`, shape ``(..., M, N)``.

        :param actuator_position: actuator positions ``(..., N)``; ignored by linear maps
        """

    @abstractmethod
    def joint_to_actuator_jacobian(self, joint_position: Any = None) -> np.ndarray:
        r"""
        Return :math:`\partial \theta / \partial q`, shape ``(..., N, M)``.

        :param joint_position: joint positions ``(..., M)``; ignored by linear maps
        """

    # ------------------------------------------------------------------ functional style
    def actuator_to_joint(self, values: Optional[Mapping[str, Any]] = None
                          ) -> Optional[ArrayMap]:
        """
        Map actuator-space values to joint space.

        :param values: interface name to array with last axis :meth:`num_actuators`; when
            omitted, convert the configured handles in place and return None
        :returns: a new dict of joint-space arrays, one per interface given
        :raises TransmissionInputError: unknown interface, wrong shape or missing position
        """
        if values is None:
            self._convert_handles(to_joint=True)
            return None
        arrays = self._check_values(values, self.num_actuators(), 'actuator')
        state = self._position_state(arrays)
        if state is not None and any(INTERFACE_KIND[n] != POSITION for n in arrays):
            state = self._prepare_actuator_state(state)  # once for velocity and effort
        out: ArrayMap = {}
        for name, x in arrays.items():
            kind = INTERFACE_KIND[name]
            if kind == POSITION:
                out[name] = self._actuator_to_joint_position(x)
            elif kind == VELOCITY:
                out[name] = self._actuator_to_joint_velocity(x, self._need(state, name))
            else:
                out[name] = self._actuator_to_joint_effort(x, self._need(state, name))
        return out

    def joint_to_actuator(self, values: Optional[Mapping[str, Any]] = None
                          ) -> Optional[ArrayMap]:
        """
        Map joint-space values to actuator space.

        :param values: interface name to array with last axis :meth:`num_joints`; when omitted,
            convert the configured handles in place and return None
        :returns: a new dict of actuator-space arrays, one per interface given
        :raises TransmissionInputError: unknown interface, wrong shape or missing position
        """
        if values is None:
            self._convert_handles(to_joint=False)
            return None
        arrays = self._check_values(values, self.num_joints(), 'joint')
        state = self._position_state(arrays)
        if state is not None and any(INTERFACE_KIND[n] != POSITION for n in arrays):
            state = self._prepare_joint_state(state)  # once for velocity and effort
        out: ArrayMap = {}
        for name, x in arrays.items():
            kind = INTERFACE_KIND[name]
            if kind == POSITION:
                out[name] = self._joint_to_actuator_position(x)
            elif kind == VELOCITY:
                out[name] = self._joint_to_actuator_velocity(x, self._need(state, name))
            else:
                out[name] = self._joint_to_actuator_effort(x, self._need(state, name))
        return out

    def _check_values(self, values: Mapping[str, Any], size: int, side: str) -> ArrayMap:
        supported = [i for i in self.supported_interfaces() if i in INTERFACE_KIND]
        return check_value_arrays(values, size, side, supported, type(self).__name__)

    def _position_state(self, arrays: ArrayMap) -> Optional[np.ndarray]:
        if not self.requires_position_state():
            return None
        if POSITION in arrays:
            return arrays[POSITION]
        return arrays.get('absolute_position')

    def _need(self, state: Any, name: str) -> Any:
        if state is None and self.requires_position_state():
            raise TransmissionInputError(
                f'{type(self).__name__} is nonlinear: mapping {name!r} needs the current '
                "'position' values in the same call")
        return state

    # ------------------------------------------------------------------ handle style
    def configure(self, joint_handles: Sequence[JointHandle],
                  actuator_handles: Sequence[ActuatorHandle]) -> None:
        """
        Wire joint and actuator handles to this transmission (ros2_control style).

        Handles are grouped by name; names are ordered by ``role`` when roles are given
        (``joint1``, ``joint2``...; ``actuator1``...), else in the order given.  An interface
        present on both sides for every joint and actuator is converted; one present on one side
        only is skipped (see :meth:`get_handles_info`).

        :raises TransmissionConfigurationError: no handles, wrong number of names, an interface
            given for only some joints or actuators, duplicate handles, bad roles, or nothing
            left to convert
        """
        self._configured = False
        joints = self._group(list(joint_handles), JointHandle, self.num_joints(),
                             self.JOINT_ROLES, 'joint')
        actuators = self._group(list(actuator_handles), ActuatorHandle, self.num_actuators(),
                                self.ACTUATOR_ROLES, 'actuator')
        pairs = []
        skipped = []
        for interface in sorted(set(joints) | set(actuators),
                                key=lambda i: (INTERFACES + (i,)).index(i)):
            if interface in joints and interface in actuators \
                    and interface in self.supported_interfaces():
                pairs.append((interface, joints[interface], actuators[interface]))
            else:
                side = 'joint' if interface in joints else 'actuator'
                why = ('not supported by this transmission'
                       if interface not in self.supported_interfaces()
                       else f'only on the {side} side')
                skipped.append(f'{interface} ({why})')
        if not pairs:
            raise TransmissionConfigurationError(
                f'{type(self).__name__}: no interface is present on both the joint side '
                f'({sorted(joints)}) and the actuator side ({sorted(actuators)}); '
                'nothing to convert')
        joint_pos = joints.get(POSITION)
        act_pos = actuators.get(POSITION)
        if self.requires_position_state():
            kinds = {INTERFACE_KIND[i] for i, _, _ in pairs}
            if kinds - {POSITION} and (joint_pos is None or act_pos is None):
                raise TransmissionConfigurationError(
                    f'{type(self).__name__} is nonlinear: velocity and effort need position '
                    'handles on both the joint and the actuator side')
        self._pairs = pairs
        self._skipped = skipped
        self._joint_position_handles = joint_pos
        self._actuator_position_handles = act_pos
        self._configured = True

    def _group(self, handles: List[Handle], cls: type, count: int,
               roles: Tuple[str, ...], side: str) -> Dict[str, List[Any]]:
        name = type(self).__name__
        if not handles:
            raise TransmissionConfigurationError(f'{name}: no {side} handles given')
        for h in handles:
            if not isinstance(h, cls):
                raise TransmissionConfigurationError(
                    f'{name}: expected {cls.__name__} objects, got {h!r}')
        order: List[str] = []
        role_of: Dict[str, Optional[str]] = {}
        for h in handles:
            if h.name not in role_of:
                order.append(h.name)
                role_of[h.name] = h.role
            elif h.role is not None and role_of[h.name] not in (None, h.role):
                raise TransmissionConfigurationError(
                    f'{name}: {side} {h.name!r} has two roles, {role_of[h.name]!r} and '
                    f'{h.role!r}')
            elif h.role is not None:
                role_of[h.name] = h.role
        if len(order) != count:
            raise TransmissionConfigurationError(
                f'{name}: expected exactly {count} {side} name(s), got {order}')
        given = [role_of[n] for n in order]
        if any(r is not None for r in given):
            if any(r is None for r in given) or sorted(given) != sorted(roles):
                raise TransmissionConfigurationError(
                    f'{name}: {side} roles must be exactly {list(roles)}, got '
                    f'{dict(zip(order, given))}')
            order = sorted(order, key=lambda n: roles.index(role_of[n]))
        by_interface: Dict[str, Dict[str, Any]] = {}
        for h in handles:
            slot = by_interface.setdefault(h.interface, {})
            if h.name in slot:
                raise TransmissionConfigurationError(
                    f'{name}: duplicate {side} handle {h.get_name()!r}')
            slot[h.name] = h
        out: Dict[str, List[Any]] = {}
        for interface, slot in by_interface.items():
            if len(slot) != count:
                missing = [n for n in order if n not in slot]
                raise TransmissionConfigurationError(
                    f'{name}: {side} interface {interface!r} is given for {sorted(slot)} but '
                    f'not for {missing}; give it for every {side} or for none')
            out[interface] = [slot[n] for n in order]
        return out

    def _convert_handles(self, to_joint: bool) -> None:
        if not self._configured:
            raise TransmissionConfigurationError(
                f'{type(self).__name__}: call configure() with handles before converting '
                'without arguments')
        if to_joint:
            src_pos = self._actuator_position_handles
        else:
            src_pos = self._joint_position_handles
        state = None
        if src_pos is not None and self.requires_position_state() \
                and any(INTERFACE_KIND[i] != POSITION for i, _, _ in self._pairs):
            state = np.array([h.value for h in src_pos])
            state = (self._prepare_actuator_state(state) if to_joint
                     else self._prepare_joint_state(state))
        results = []
        for interface, joints, actuators in self._pairs:
            src, dst = (actuators, joints) if to_joint else (joints, actuators)
            x = np.array([h.value for h in src])
            kind = INTERFACE_KIND[interface]
            if to_joint:
                y = (self._actuator_to_joint_position(x) if kind == POSITION else
                     self._actuator_to_joint_velocity(x, state) if kind == VELOCITY else
                     self._actuator_to_joint_effort(x, state))
            else:
                y = (self._joint_to_actuator_position(x) if kind == POSITION else
                     self._joint_to_actuator_velocity(x, state) if kind == VELOCITY else
                     self._joint_to_actuator_effort(x, state))
            results.append((dst, y))
        for dst, y in results:
            for h, v in zip(dst, y):
                h.value = float(v)

    # ------------------------------------------------------------------ reports
    def get_handles_info(self) -> str:
        """Return a human-readable report of the transmission and its configured handles."""
        lines = [str(self)]
        if not self._configured:
            lines.append('  handles: not configured')
            return '\n'.join(lines)
        for interface, joints, actuators in self._pairs:
            lines.append(f'  {interface}: actuators '
                         f'{[h.get_name() + "=" + repr(h.value) for h in actuators]} <-> joints '
                         f'{[h.get_name() + "=" + repr(h.value) for h in joints]}')
        for s in self._skipped:
            lines.append(f'  skipped: {s}')
        return '\n'.join(lines)

    def converted_interfaces(self) -> Tuple[str, ...]:
        """Return the interfaces wired by the last :meth:`configure`."""
        return tuple(i for i, _, _ in self._pairs)

    def skipped_interfaces(self) -> Tuple[str, ...]:
        """Return the interfaces :meth:`configure` could not pair, with the reason."""
        return tuple(self._skipped)
