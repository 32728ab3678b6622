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
SimpleTransmission: one actuator drives one joint through a gear or belt of ratio ``n``.

Lookup names: ``transmission_interface/SimpleTransmission`` (also the PR2 one).
"""


import numpy as np

from transmission_plugins.core.checks import check_finite
from transmission_plugins.core.checks import check_reduction
from transmission_plugins.core.checks import FloatArray
from transmission_plugins.core.linear import LinearTransmission
from transmission_plugins.urdf.readers import read_simple
from transmission_plugins.urdf.records import TransmissionInfo
from transmission_plugins.urdf.records import TransmissionWiring
from transmission_plugins.urdf.vocabulary import UrdfVocabulary

#: Children of a ``<transmission>`` that SimpleTransmission accepts and ignores: PR2 belt
#: compensator and Gazebo screw joint, diffbot ``motorTorqueConstant``, ROS 1
#: ``transmissionInterface``.  None of them changes the kinematic map.
SIMPLE_IGNORED_CHILDREN = ('compensator', 'simulated_actuated_joint', 'motorTorqueConstant',
                           'transmissionInterface')


class SimpleTransmission(LinearTransmission):
    r"""
    Implement a simple reducer: one actuator, one joint.

    .. math::

        q = \theta / n + q_0, \quad \dot q = \dot\theta / n, \quad \tau = n\,u

        \theta = n\,(q - q_0), \quad \dot\theta = n\,\dot q, \quad u = \tau / n

    where :math:`n` is the reduction (actuator turns per joint turn, negative when the joint
    turns the other way), :math:`q_0` the joint offset, :math:`\theta, u` the actuator position
    and effort and :math:`q, \tau` the joint's.  Power is conserved:
    :math:`\tau \dot q = u \dot\theta`.

    :param reduction: the reduction :math:`n`; finite and non-zero
    :param joint_offset: :math:`q_0` in joint units; finite
    :raises TransmissionValueError: zero, NaN, infinite or non-numeric values
    """

    JOINT_ROLES = ('joint1',)
    ACTUATOR_ROLES = ('actuator1',)
    URDF_VOCABULARY = UrdfVocabulary(extra_children=SIMPLE_IGNORED_CHILDREN)

    def __init__(self, reduction: float, joint_offset: float = 0.0) -> None:
        super().__init__()
        self._reduction = check_reduction(reduction, 'reduction', 'SimpleTransmission')
        self._joint_offset = check_finite(joint_offset, 'joint_offset', 'SimpleTransmission')
        n = self._reduction
        self._set_linear_map([[1.0 / n]], [[n]], [self._joint_offset])

    @classmethod
    def from_info(cls, info: TransmissionInfo) -> TransmissionWiring:
        """Build from a parsed ``<transmission>`` of any dialect (see :func:`read_simple`)."""
        r = read_simple(info)
        return TransmissionWiring(cls(r.reduction, r.joint_offset), r.joint_names,
                                  r.actuator_names)

    @classmethod
    def example(cls) -> tuple['SimpleTransmission', dict[str, FloatArray]]:
        """Return a reversing reducer with an offset and four actuator states."""
        return cls(reduction=-12.5, joint_offset=0.3), {
            'position': np.array([[-3.0], [0.0], [7.5], [40.0]]),
            'velocity': np.array([[2.0], [-0.5], [0.0], [12.0]]),
            'effort': np.array([[0.1], [-2.0], [0.7], [0.0]])}

    def get_actuator_reduction(self) -> float:
        """Return the reduction :math:`n`."""
        return self._reduction

    def get_joint_offset(self) -> float:
        """Return the joint offset :math:`q_0`."""
        return self._joint_offset

    def __repr__(self) -> str:
        return f'SimpleTransmission(reduction={self._reduction!r}, ' \
               f'joint_offset={self._joint_offset!r})'

    def __str__(self) -> str:
        return (f'SimpleTransmission: 1 actuator -> 1 joint, reduction {self._reduction:g}, '
                f'joint offset {self._joint_offset:g}')
