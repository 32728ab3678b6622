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
* Non-finite values are results, not errors: the conversions run with numpy's floating-point
  warnings off (an overflow gives inf, ``inf - inf`` NaN), so kernels need not guard them.

A plugin must define :meth:`num_actuators`, :meth:`num_joints`, the six kernels
``_actuator_to_joint_<kind>`` / ``_joint_to_actuator_<kind>`` (kind = position, velocity,
effort; vectorised over leading batch axes) and the two Jacobians; it may override
:meth:`requires_position_state`, :meth:`joint_to_actuator_inputs`, the state hooks, the role
names and the report methods.
"""

from abc import ABC
from abc import abstractmethod
from typing import Any
from typing import Callable
from typing import Hashable
from typing import Mapping
from typing import NamedTuple
from typing import overload
from typing import Sequence

import numpy as np

from transmission_plugins.core.checks import ArrayMap
from transmission_plugins.core.checks import check_value_arrays
from transmission_plugins.core.checks import FloatArray
from transmission_plugins.core.exceptions import TransmissionConfigurationError
from transmission_plugins.core.exceptions import TransmissionInputError
from transmission_plugins.core.handle_style import bind_handles
from transmission_plugins.core.handle_style import HandleBinding
from transmission_plugins.core.handles import ActuatorHandle
from transmission_plugins.core.handles import JointHandle
from transmission_plugins.core.interfaces import INTERFACE_KIND
from transmission_plugins.core.interfaces import INTERFACES
from transmission_plugins.core.interfaces import POSITION
from transmission_plugins.core.interfaces import VELOCITY


class KernelRecord(NamedTuple):
    """A built-in mechanism as the compiled kernel knows it (``src/kernel``)."""

    #: the mechanism's type: one of the kernel's codes (``kernel.PARALLEL_ANKLE``, ...)
    kind: int
    #: the numbers its maps use, in the order its C file lists them
    parameters: np.ndarray


def position_state(transmission: 'Transmission', position: Any, what: str) -> Any:
    """
    Return ``position``; raise when a nonlinear transmission is given none.

    :param what: what needs the position, for the message (e.g. ``"mapping 'velocity'"``)
    :raises TransmissionInputError: ``position`` is None and the transmission is nonlinear
    """
    if position is None and transmission.requires_position_state():
        raise TransmissionInputError(
            f'{type(transmission).__name__} is nonlinear: {what} needs the current position')
    return position


class Transmission(ABC):
    """
    Abstract mechanical transmission between N actuators and M joints.

    Both call styles (functional, and handles after :meth:`configure`) and the robot-level fused
    maps convert through :meth:`prepare_state` and :meth:`apply_map`.
    """

    #: Role names of the joints and actuators, in map order (coupled transmissions).
    JOINT_ROLES: tuple[str, ...] = ()
    ACTUATOR_ROLES: tuple[str, ...] = ()

    def __init__(self) -> None:
        self._handles: HandleBinding | None = None

    # ------------------------------------------------------------------ handle style
    def configure(self, joint_handles: Sequence[JointHandle],
                  actuator_handles: Sequence[ActuatorHandle]) -> None:
        """
        Wire joint and actuator handles to this transmission (ros2_control style).

        :raises TransmissionConfigurationError: the handles cannot be wired (the previous wiring
            is dropped)
        """
        self._handles = None
        self._handles = bind_handles(self, joint_handles, actuator_handles)

    def _convert_handles(self, to_joint: bool) -> None:
        if self._handles is None:
            raise TransmissionConfigurationError(
                f'{type(self).__name__}: call configure() with handles before converting '
                'without arguments')
        self._handles.convert(self, to_joint)

    def get_handles_info(self) -> str:
        """Return a human-readable report of the transmission and its configured handles."""
        if self._handles is None:
            return f'{self}\n  handles: not configured'
        return '\n'.join([str(self)] + self._handles.report())

    def converted_interfaces(self) -> tuple[str, ...]:
        """Return the interfaces wired by the last :meth:`configure`."""
        return tuple(i for i, _, _ in self._handles.pairs) if self._handles else ()

    def skipped_interfaces(self) -> tuple[str, ...]:
        """Return the interfaces :meth:`configure` could not pair, with the reason."""
        return tuple(self._handles.skipped) if self._handles else ()

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

    def supported_interfaces(self) -> tuple[str, ...]:
        """Return the interface names this transmission converts."""
        return INTERFACES

    def map_key(self) -> Hashable:
        """
        Return a key that two transmissions share exactly when their maps are the same.

        Default: the type and the ``repr`` (which shows every parameter); linear transmissions
        compare their matrices.  Used to merge exact duplicates, to let identical transmissions
        share an actuator, and to convert identical nonlinear transmissions in one call.
        """
        return (type(self), repr(self))

    def same_map(self, other: 'Transmission') -> bool:
        """Return True when ``other`` has the same type and the same maps (:meth:`map_key`)."""
        return self.map_key() == other.map_key()

    def kernel_record(self) -> KernelRecord | None:
        """
        Return the mechanism's record in the compiled kernel, or None (the default).

        The built-in mechanisms return theirs; linear transmissions are fused from their
        ``linear_map()``; any other transmission converts through its own Python kernels, after
        the compiled conversion (:mod:`~transmission_plugins.core.flat_description`).
        """
        return None

    def joint_effort_from_motion(self) -> bool:
        """
        Return True when the actuator-to-joint effort map reads motion, not actuator efforts.

        A series-elastic transmission's joint effort is its spring's torque, from the actuator
        positions and velocities (the deflection and its rate); its actuator efforts are not
        read.  Such a map gives joint efforts from ``position`` and ``velocity`` alone (NaN
        without velocities), and a joint -> actuator -> joint round trip does not keep joint
        efforts (the joint-to-actuator position map gives the unloaded pose).  Default: False.
        """
        return False

    def commanded_actuators(self) -> tuple[bool, ...]:
        """
        Return, per actuator (map order), whether it takes commands.

        A series-elastic transmission's second actuator is its joint-side encoder: a driver
        reports it beside the motor, nothing commands it, and the node sends it nothing.
        Default: every actuator.
        """
        return (True,) * self.num_actuators()

    def joint_to_actuator_inputs(self) -> tuple[int, ...]:
        """
        Return the indices (map order) of the joints the joint-to-actuator maps read.

        The other joints' values (e.g. the PR2 gripper's passive fingers), NaN included, do not
        change the actuator values.  Default: every joint.
        """
        return tuple(range(self.num_joints()))

    # ------------------------------------------------------------------ test contract
    @classmethod
    def example(cls) -> tuple['Transmission', dict[str, FloatArray]]:
        """
        Return a representative instance and a few valid actuator states: the test contract.

        The states map ``'position'``, ``'velocity'`` and ``'effort'`` to arrays of shape
        ``(samples, num_actuators())`` inside the mechanism's working range
        (``test/plugins/test_contract.py`` runs every registered plugin's example).

        :raises NotImplementedError: the class defines no example
        """
        raise NotImplementedError(f'{cls.__name__} defines no example(): every transmission '
                                  'class returns (transmission, states) for the shared tests')

    # ------------------------------------------------------------------ state hooks
    def _prepare_actuator_state(self, position: FloatArray) -> Any:
        """
        Return what the actuator-side velocity and effort kernels get as their ``position``.

        Called once per conversion; an override may return an opaque object (Jacobian factors
        computed once for every interface), and its kernels must then accept both that object
        and a plain position array (direct callers pass arrays).

        :param position: actuator positions ``(..., N)`` as float64
        """
        return position

    def _prepare_joint_state(self, position: FloatArray) -> Any:
        """
        Return what the joint-side velocity and effort kernels get as their ``position``.

        :param position: joint positions ``(..., M)`` as float64
        """
        return position

    # ------------------------------------------------------------------ kernels
    @abstractmethod
    def _actuator_to_joint_position(self, position: FloatArray) -> FloatArray:
        """Map actuator positions ``(..., N)`` to joint positions ``(..., M)``."""

    @abstractmethod
    def _actuator_to_joint_velocity(self, velocity: FloatArray, position: Any) -> FloatArray:
        """
        Map actuator velocities to joint velocities at actuator ``position``.

        ``position`` is None (linear maps), an actuator position array ``(..., N)`` or what
        :meth:`_prepare_actuator_state` returned for it; likewise for the other velocity and
        effort kernels.
        """

    @abstractmethod
    def _actuator_to_joint_effort(self, effort: FloatArray, position: Any) -> FloatArray:
        """Map actuator efforts to joint efforts at actuator ``position``."""

    @abstractmethod
    def _joint_to_actuator_position(self, position: FloatArray) -> FloatArray:
        """Map joint positions ``(..., M)`` to actuator positions ``(..., N)``."""

    @abstractmethod
    def _joint_to_actuator_velocity(self, velocity: FloatArray, position: Any) -> FloatArray:
        """Map joint velocities to actuator velocities at joint ``position`` (or its state)."""

    @abstractmethod
    def _joint_to_actuator_effort(self, effort: FloatArray, position: Any) -> FloatArray:
        """Map joint efforts to actuator efforts at joint ``position`` (or its state)."""

    @abstractmethod
    def actuator_to_joint_jacobian(self, actuator_position: Any = None) -> FloatArray:
        r"""
        Return :math:`J = \partial q / \partial \theta`, shape ``(..., M, N)``.

        :param actuator_position: actuator positions ``(..., N)``; ignored by linear maps
        """

    @abstractmethod
    def joint_to_actuator_jacobian(self, joint_position: Any = None) -> FloatArray:
        r"""
        Return :math:`\partial \theta / \partial q`, shape ``(..., N, M)``.

        :param joint_position: joint positions ``(..., M)``; ignored by linear maps
        """

    # ------------------------------------------------------------------ the one dispatch
    def prepare_state(self, to_joint: bool, position: FloatArray | None) -> Any:
        """
        Return the position state of one conversion, or None when there is nothing to prepare.

        Linear transmissions need no state; nonlinear ones get :meth:`_prepare_actuator_state`
        (``to_joint``) or :meth:`_prepare_joint_state` of the source positions.
        """
        if position is None or not self.requires_position_state():
            return None
        if to_joint:
            return self._prepare_actuator_state(position)
        return self._prepare_joint_state(position)

    def apply_map(self, kind: str, to_joint: bool, values: FloatArray,
                  state: Any) -> FloatArray:
        """
        Apply one map: ``kind`` (position, velocity or effort) in one direction.

        :param to_joint: True for actuator to joint, False for joint to actuator
        :param state: what :meth:`prepare_state` returned (velocity and effort only)
        :raises TransmissionInputError: a nonlinear velocity or effort map without a state
        """
        kernel: Callable[..., FloatArray]
        if kind == POSITION:
            kernel = (self._actuator_to_joint_position if to_joint
                      else self._joint_to_actuator_position)
            return kernel(values)
        position_state(self, state, f"mapping {kind!r} (give 'position' in the same call)")
        if kind == VELOCITY:
            kernel = (self._actuator_to_joint_velocity if to_joint
                      else self._joint_to_actuator_velocity)
        else:
            kernel = (self._actuator_to_joint_effort if to_joint
                      else self._joint_to_actuator_effort)
        return kernel(values, state)

    # ------------------------------------------------------------------ functional style
    @overload
    def actuator_to_joint(self, values: None = None) -> None:
        ...

    @overload
    def actuator_to_joint(self, values: Mapping[str, Any]) -> ArrayMap:
        ...

    def actuator_to_joint(self, values: Mapping[str, Any] | None = None
                          ) -> ArrayMap | None:
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
        return self._map(values, to_joint=True)

    @overload
    def joint_to_actuator(self, values: None = None) -> None:
        ...

    @overload
    def joint_to_actuator(self, values: Mapping[str, Any]) -> ArrayMap:
        ...

    def joint_to_actuator(self, values: Mapping[str, Any] | None = None
                          ) -> ArrayMap | None:
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
        return self._map(values, to_joint=False)

    def _map(self, values: Mapping[str, Any], to_joint: bool) -> ArrayMap:
        size, side = ((self.num_actuators(), 'actuator') if to_joint
                      else (self.num_joints(), 'joint'))
        supported = [i for i in self.supported_interfaces() if i in INTERFACE_KIND]
        arrays = check_value_arrays(values, size, side, supported, type(self).__name__)
        state = None
        with np.errstate(all='ignore'):  # inf and NaN are results, never warnings
            if any(INTERFACE_KIND[n] != POSITION for n in arrays):  # once for velocity, effort
                state = self.prepare_state(to_joint, _position_of(arrays))
            return {name: self.apply_map(INTERFACE_KIND[name], to_joint, x, state)
                    for name, x in arrays.items()}


def _position_of(arrays: dict[str, FloatArray]) -> FloatArray | None:
    """Return the ``position`` (else ``absolute_position``) values of a conversion, or None."""
    if POSITION in arrays:
        return arrays[POSITION]
    return arrays.get('absolute_position')
