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
FourBarLinkageTransmission: actuator 1 drives joint 1; joint 2 rides on joint 1 via a linkage.

Lookup name: ``transmission_interface/FourBarLinkageTransmission``.
"""

from transmission_plugins.transmissions.coupled_transmission import CoupledTransmission


class FourBarLinkageTransmission(CoupledTransmission):
    r"""
    Implement a four-bar linkage: joint 2's actuator also sees joint 1's motion.

    Actuator to joint:

    .. math::

        q_1 = \frac{\theta_1}{n_{j1} n_{a1}} + q_{01}, \quad
        q_2 = \frac{\theta_2/n_{a2} - \theta_1/(n_{j1} n_{a1})}{n_{j2}} + q_{02}

        \tau_1 = n_{j1} n_{a1} u_1 + n_{a2} u_2, \quad \tau_2 = n_{j2} n_{a2} u_2

    Joint to actuator:

    .. math::

        \theta_1 = n_{j1} n_{a1} (q_1 - q_{01}), \quad
        \theta_2 = n_{a2}\,((q_1 - q_{01}) + n_{j2}(q_2 - q_{02}))

        u_1 = \frac{\tau_1 - \tau_2 / n_{j2}}{n_{j1} n_{a1}}, \quad
        u_2 = \frac{\tau_2}{n_{j2} n_{a2}}

    Velocities map like positions without the offsets.  The effort map is the power-conserving
    one of current ros2_control (:math:`\tau = J^{-T} u`), not the old ROS 1 one, so
    :math:`\tau^T\dot q = u^T\dot\theta` holds exactly.  Symbols and parameters:
    :class:`CoupledTransmission`'s.
    """

    def _build(self) -> None:
        a1, a2 = self._actuator_reduction
        j1, j2 = self._joint_reduction
        self._set_linear_map(
            [[1.0 / (j1 * a1), 0.0],
             [-1.0 / (j1 * a1 * j2), 1.0 / (a2 * j2)]],
            [[j1 * a1, 0.0],
             [a2, a2 * j2]],
            self._joint_offset)
