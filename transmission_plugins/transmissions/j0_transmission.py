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
J0Transmission: the Shadow hand's coupled finger joints, one tendon driving J1 and J2.

Lookup name: ``sr_mechanism_model/J0Transmission``.  The maps restate those of Shadow's
``sr_mechanism_model`` (``src/joint_0_transmission.cpp``, shadow-robot/sr_core, and its
predecessor in shadow-robot/sr-ros-interface); the URDF reading is
:func:`transmission_plugins.urdf.readers.read_j0`.
"""


import numpy as np

from transmission_plugins.core.checks import FloatArray
from transmission_plugins.transmissions.coupling_transmission import CouplingTransmission
from transmission_plugins.urdf.readers import read_j0
from transmission_plugins.urdf.records import TransmissionInfo
from transmission_plugins.urdf.records import TransmissionWiring
from transmission_plugins.urdf.vocabulary import STANDARD_VOCABULARY


class J0Transmission(CouplingTransmission):
    r"""
    Implement the Shadow hand's J0: one tendon actuator drives the distal J1 and middle J2.

    A :class:`CouplingTransmission` with :math:`A = (\tfrac12, \tfrac12)^T` and
    :math:`B = (1, 1)`, joints in the order (J1, J2):

    .. math::

        q_1 = q_2 = \theta/2, \quad \dot q_1 = \dot q_2 = \dot\theta/2, \quad
        \tau_1 = \tau_2 = u

        \theta = q_1 + q_2, \quad \dot\theta = \dot q_1 + \dot q_2, \quad
        u = (\tau_1 + \tau_2)/2

    where :math:`\theta, \dot\theta, u` are the tendon (J0) position, velocity and effort.
    How this follows sr_mechanism_model (positions, efforts, the tendon command) and where the
    hand's joint sensors come in is doc/transmissions.md's "Shadow hand" section.
    """

    URDF_VOCABULARY = STANDARD_VOCABULARY

    def __init__(self) -> None:
        super().__init__([[0.5], [0.5]], [[1.0, 1.0]])

    @classmethod
    def from_info(cls, info: TransmissionInfo) -> TransmissionWiring:
        """
        Build from a parsed ``<transmission>``: one ``<joint>`` (J1) and one ``<actuator>``.

        The second joint is named after J1 with its last character replaced by ``2``, as
        sr_mechanism_model's loader names it (:func:`~transmission_plugins.urdf.readers.read_j0`).

        :raises UrdfTransmissionError: (a subclass) naming the element path and the bad value
        """
        joints, actuators = read_j0(info)
        return TransmissionWiring(cls(), joints, actuators)

    @classmethod
    def example(cls) -> tuple['J0Transmission', dict[str, FloatArray]]:
        """Return the transmission and tendon states of a finger closing and opening."""
        return cls(), {'position': np.array([[0.0], [0.8], [2.4], [3.1]]),
                       'velocity': np.array([[0.5], [-1.0], [2.0], [0.0]]),
                       'effort': np.array([[0.2], [-0.3], [1.0], [0.05]])}

    def __repr__(self) -> str:
        return f'{type(self).__name__}()'

    def __str__(self) -> str:
        return (f'{type(self).__name__}: 1 tendon -> 2 joints (J1, J2), each half the tendon '
                'position and velocity and the whole tendon effort')
