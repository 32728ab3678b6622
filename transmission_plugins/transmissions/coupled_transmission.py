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
:class:`CoupledTransmission`: the common base of the 2x2 linear transmissions.

Differential, FourBarLinkage and the PR2 wrist share their parameters (two actuator reductions,
two joint reductions, two joint offsets), their roles (``actuator1``/``actuator2``,
``joint1``/``joint2``), their URDF reading and their report; each defines only its matrices
:math:`J` and :math:`J^{-1}` (:meth:`CoupledTransmission._build`).
"""

from abc import abstractmethod
from typing import Sequence

import numpy as np

from transmission_plugins.core.checks import check_finite
from transmission_plugins.core.checks import check_reduction
from transmission_plugins.core.checks import check_sequence
from transmission_plugins.core.checks import FloatArray
from transmission_plugins.core.linear import LinearTransmission
from transmission_plugins.urdf.readers import read_coupled
from transmission_plugins.urdf.records import TransmissionInfo
from transmission_plugins.urdf.records import TransmissionWiring


class CoupledTransmission(LinearTransmission):
    """
    Base of the two-actuator, two-joint linear transmissions (Differential, FourBarLinkage).

    :param actuator_reduction: :math:`(n_{a1}, n_{a2})`, finite and non-zero
    :param joint_reduction: :math:`(n_{j1}, n_{j2})`, finite and non-zero
    :param joint_offset: :math:`(q_{01}, q_{02})`, finite
    :raises TransmissionValueError: wrong sizes, zero, NaN, infinite or non-numeric values
    """

    JOINT_ROLES = ('joint1', 'joint2')
    ACTUATOR_ROLES = ('actuator1', 'actuator2')

    def __init__(self, actuator_reduction: Sequence[float], joint_reduction: Sequence[float],
                 joint_offset: Sequence[float] = (0.0, 0.0)) -> None:
        super().__init__()
        w = type(self).__name__
        self._actuator_reduction = [
            check_reduction(v, f'actuator_reduction[{i}]', w)
            for i, v in enumerate(check_sequence(actuator_reduction, 2, 'actuator_reduction', w))]
        self._joint_reduction = [
            check_reduction(v, f'joint_reduction[{i}]', w)
            for i, v in enumerate(check_sequence(joint_reduction, 2, 'joint_reduction', w))]
        self._joint_offset = [
            check_finite(v, f'joint_offset[{i}]', w)
            for i, v in enumerate(check_sequence(joint_offset, 2, 'joint_offset', w))]
        self._build()

    @abstractmethod
    def _build(self) -> None:
        """Set the linear map from the validated reductions and offsets."""

    @classmethod
    def from_info(cls, info: TransmissionInfo) -> TransmissionWiring:
        """Build from a parsed ``<transmission>`` of two joints and two actuators, any dialect."""
        r = read_coupled(info, cls.JOINT_ROLES, cls.ACTUATOR_ROLES)
        return TransmissionWiring(cls(r.actuator_reduction, r.joint_reduction, r.joint_offset),
                                  r.joint_names, r.actuator_names)

    @classmethod
    def example(cls) -> tuple['CoupledTransmission', dict[str, FloatArray]]:
        """Return an instance with reductions of both signs and offsets, and three states."""
        return cls([20.0, -35.0], [2.0, -1.5], [0.1, -0.4]), {
            'position': np.array([[0.0, 0.0], [12.0, -30.0], [-45.0, 7.0]]),
            'velocity': np.array([[1.5, -2.0], [0.0, 4.0], [-10.0, 0.5]]),
            'effort': np.array([[0.2, 0.1], [-0.6, 0.0], [1.1, -0.9]])}

    def get_actuator_reduction(self) -> list[float]:
        """Return :math:`[n_{a1}, n_{a2}]`."""
        return list(self._actuator_reduction)

    def get_joint_reduction(self) -> list[float]:
        """Return :math:`[n_{j1}, n_{j2}]`."""
        return list(self._joint_reduction)

    def get_joint_offset(self) -> list[float]:
        """Return :math:`[q_{01}, q_{02}]`."""
        return list(self._joint_offset)

    def __repr__(self) -> str:
        return (f'{type(self).__name__}(actuator_reduction={self._actuator_reduction!r}, '
                f'joint_reduction={self._joint_reduction!r}, '
                f'joint_offset={self._joint_offset!r})')

    def __str__(self) -> str:
        a, j, o = self._actuator_reduction, self._joint_reduction, self._joint_offset
        return (f'{type(self).__name__}: 2 actuators -> 2 joints, actuator reductions '
                f'({a[0]:g}, {a[1]:g}), joint reductions ({j[0]:g}, {j[1]:g}), joint offsets '
                f'({o[0]:g}, {o[1]:g})')
