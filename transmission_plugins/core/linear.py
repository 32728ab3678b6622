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
:class:`LinearTransmission`: a transmission whose maps are affine with a constant Jacobian.

With :math:`J` (``M x N``) the actuator-to-joint Jacobian, :math:`J^{-1}` its inverse and
:math:`q_0` the joint offsets:

.. math::

    q = J\theta + q_0, \quad \dot q = J\dot\theta, \quad \tau = J^{-T} u

    \theta = J^{-1}(q - q_0), \quad \dot\theta = J^{-1}\dot q, \quad u = J^{T}\tau

It is the simplest :class:`~transmission_plugins.core.mechanism.Mechanism`: both position maps
are closed forms and both Jacobians constant, so no map needs the position.  The matrices are
plain data (:meth:`LinearTransmission.linear_map`), so many transmissions can be fused into one
matrix product and reflected inertia is :math:`J^{-T} I_r J^{-1}`.
"""

from typing import Hashable
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from transmission_plugins.core.compiled_transmission import CompiledTransmission
from transmission_plugins.core.mechanism import Mechanism


class LinearMap(NamedTuple):
    """The affine maps of a linear transmission, as data."""

    #: :math:`J = \partial q / \partial \theta`, shape (M, N)
    actuator_to_joint: np.ndarray
    #: :math:`J^{-1} = \partial \theta / \partial q`, shape (N, M)
    joint_to_actuator: np.ndarray
    #: :math:`q_0`, shape (M,)
    joint_offset: np.ndarray


class LinearTransmission(CompiledTransmission, Mechanism):
    """
    Base of transmissions with constant Jacobians (Simple, Differential, FourBarLinkage, Wrist).

    Subclasses call :meth:`_set_linear_map` once in their constructor with ``J``, ``J^{-1}`` and
    the joint offsets; everything else is provided, the maps by the compiled kernel (its rows are
    these matrices).  Both matrices are given explicitly (from the
    closed-form seed formulas) rather than inverted numerically.
    """

    def _set_linear_map(self, a2j: ArrayLike, j2a: ArrayLike, joint_offset: ArrayLike) -> None:
        a2j = np.array(a2j, dtype=np.float64)
        j2a = np.array(j2a, dtype=np.float64)
        off = np.array(joint_offset, dtype=np.float64).reshape(-1)
        for m in (a2j, j2a, off):
            m.setflags(write=False)
        self._a2j = a2j
        self._j2a = j2a
        self._offset = off

    def num_actuators(self) -> int:
        """Return the number of actuators (columns of ``J``)."""
        return int(self._a2j.shape[1])

    def num_joints(self) -> int:
        """Return the number of joints (rows of ``J``)."""
        return int(self._a2j.shape[0])

    def is_linear(self) -> bool:
        """Return True: the maps are affine."""
        return True

    def requires_position_state(self) -> bool:
        """Return False: the Jacobians are constant."""
        return False

    def linear_map(self) -> LinearMap:
        """Return ``(J, J^{-1}, q_0)`` as read-only arrays."""
        return LinearMap(self._a2j, self._j2a, self._offset)

    def map_key(self) -> Hashable:
        """Return the type and the three arrays of :meth:`linear_map` as nested tuples."""
        return (type(self),) + tuple(tuple(np.asarray(m, dtype=np.float64).ravel().tolist())
                                     + m.shape for m in self.linear_map())

    def actuator_to_joint_jacobian(self, actuator_position: ArrayLike | None = None
                                   ) -> np.ndarray:
        """Return the constant :math:`J`, shape ``(M, N)``."""
        return self._a2j

    def joint_to_actuator_jacobian(self, joint_position: ArrayLike | None = None
                                   ) -> np.ndarray:
        """Return the constant :math:`J^{-1}`, shape ``(N, M)``."""
        return self._j2a
