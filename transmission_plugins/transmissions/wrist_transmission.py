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
WristTransmission: the PR2 wrist, two motors driving flex and roll through a differential.

Lookup names: ``pr2_mechanism_model/WristTransmission`` and the 2010 name ``WristTransmission``.
The maps are those of ``pr2_mechanism_model/src/wrist_transmission.cpp`` (PR2/pr2_mechanism).
"""


from transmission_plugins.transmissions.coupled_transmission import CoupledTransmission
from transmission_plugins.urdf.pr2_elements import wrist_from_info
from transmission_plugins.urdf.pr2_elements import WRIST_VOCABULARY
from transmission_plugins.urdf.records import TransmissionInfo
from transmission_plugins.urdf.records import TransmissionWiring


class WristTransmission(CoupledTransmission):
    r"""
    Implement the PR2 wrist differential: flex and roll from the right and left motors.

    Actuator to joint:

    .. math::

        q_f = \frac{\theta_r/n_r - \theta_l/n_l}{2 n_f} + q_{0f}, \quad
        q_o = \frac{-\theta_r/n_r - \theta_l/n_l}{2 n_o} + q_{0o}

        \tau_f = n_f (n_r u_r - n_l u_l), \quad \tau_o = n_o (-n_r u_r - n_l u_l)

    Joint to actuator (the exact inverse):

    .. math::

        \theta_r = n_r (n_f (q_f - q_{0f}) - n_o (q_o - q_{0o})), \quad
        \theta_l = n_l (-n_f (q_f - q_{0f}) - n_o (q_o - q_{0o}))

        u_r = \frac{\tau_f/n_f - \tau_o/n_o}{2 n_r}, \quad
        u_l = \frac{-\tau_f/n_f - \tau_o/n_o}{2 n_l}

    Velocities map like positions without the offsets.  :math:`n_r, n_l` are the right and left
    actuator reductions, :math:`n_f, n_o` the flex and roll joint reductions (the PR2 uses
    :math:`n_f = -1` to flip the flex direction), :math:`q_0` the joint offsets (the C++
    ``reference_position_``, set by calibration).  Joint order is [flex, roll] (roles
    ``joint1``, ``joint2``), actuator order [right, left] (``actuator1``, ``actuator2``).
    Power is conserved:
    :math:`\tau_f\dot q_f + \tau_o\dot q_o = u_r\dot\theta_r + u_l\dot\theta_l`.

    :param actuator_reduction: :math:`(n_r, n_l)`, finite and non-zero
    :param joint_reduction: :math:`(n_f, n_o)`, finite and non-zero
    :param joint_offset: :math:`(q_{0f}, q_{0o})`, finite
    :raises TransmissionValueError: wrong sizes, zero, NaN, infinite or non-numeric values
    """

    URDF_VOCABULARY = WRIST_VOCABULARY

    def _build(self) -> None:
        nr, nl = self._actuator_reduction
        nf, no = self._joint_reduction
        self._set_linear_map(
            [[1.0 / (2.0 * nf * nr), -1.0 / (2.0 * nf * nl)],
             [-1.0 / (2.0 * no * nr), -1.0 / (2.0 * no * nl)]],
            [[nr * nf, -nr * no],
             [-nl * nf, -nl * no]],
            self._joint_offset)

    @classmethod
    def from_info(cls, info: TransmissionInfo) -> TransmissionWiring:
        """Build from a ``<transmission>`` record; :func:`wrist_from_info` reads it."""
        return wrist_from_info(cls, info)
