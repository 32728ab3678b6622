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
ShadowSimpleTransmission: a Shadow hand joint driven directly by its actuator (no reduction).

Lookup name: ``sr_mechanism_model/SimpleTransmission``.  The maps restate those of Shadow's
``sr_mechanism_model`` (``src/simple_transmission.cpp``, shadow-robot/sr_core, and its
predecessor in shadow-robot/sr-ros-interface); the URDF reading is
:func:`transmission_plugins.urdf.readers.read_shadow_simple`.
"""


import numpy as np

from transmission_plugins.core.checks import FloatArray
from transmission_plugins.transmissions.simple_transmission import SimpleTransmission
from transmission_plugins.urdf.readers import read_shadow_simple
from transmission_plugins.urdf.records import TransmissionInfo
from transmission_plugins.urdf.records import TransmissionWiring
from transmission_plugins.urdf.vocabulary import STANDARD_VOCABULARY


class ShadowSimpleTransmission(SimpleTransmission):
    r"""
    Implement the Shadow hand's simple transmission: the joint is the actuator, one to one.

    A :class:`SimpleTransmission` with reduction 1 and no offset:

    .. math::

        q = \theta, \quad \dot q = \dot\theta, \quad \tau = u

        \theta = q, \quad \dot\theta = \dot q, \quad u = \tau

    where :math:`\theta, \dot\theta, u` are the actuator position, velocity and effort and
    :math:`q, \dot q, \tau` the joint's.  How this follows sr_mechanism_model is
    doc/transmissions.md's "Shadow hand" section.
    """

    URDF_VOCABULARY = STANDARD_VOCABULARY

    def __init__(self) -> None:
        super().__init__(1.0, 0.0)

    @classmethod
    def from_info(cls, info: TransmissionInfo) -> TransmissionWiring:
        """
        Build from a parsed ``<transmission>``: one ``<joint>`` and one ``<actuator>``.

        A reduction other than 1 or an offset other than 0 is an error, as sr_mechanism_model's
        loader would ignore it (:func:`~transmission_plugins.urdf.readers.read_shadow_simple`).

        :raises UrdfTransmissionError: (a subclass) naming the element path and the bad value
        """
        joints, actuators = read_shadow_simple(info)
        return TransmissionWiring(cls(), joints, actuators)

    @classmethod
    def example(cls) -> tuple['ShadowSimpleTransmission', dict[str, FloatArray]]:
        """Return the transmission and actuator states of a wrist joint moving both ways."""
        return cls(), {'position': np.array([[-0.5], [0.0], [0.3], [0.17]]),
                       'velocity': np.array([[1.2], [-0.4], [0.0], [2.5]]),
                       'effort': np.array([[0.8], [-1.5], [0.05], [0.0]])}

    def __repr__(self) -> str:
        return f'{type(self).__name__}()'

    def __str__(self) -> str:
        return (f'{type(self).__name__}: 1 actuator -> 1 joint, position, velocity and effort '
                'one to one')
