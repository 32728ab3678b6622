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
DifferentialTransmission: two actuators drive two joints through a differential (bevel) gear.

Lookup name: ``transmission_interface/DifferentialTransmission``.
"""

from transmission_plugins.transmissions.coupled_transmission import CoupledTransmission


class DifferentialTransmission(CoupledTransmission):
    r"""
    Implement a differential: the joints move with the sum and difference of the actuators.

    Actuator to joint:

    .. math::

        q_1 = \frac{\theta_1/n_{a1} + \theta_2/n_{a2}}{2 n_{j1}} + q_{01}, \quad
        q_2 = \frac{\theta_1/n_{a1} - \theta_2/n_{a2}}{2 n_{j2}} + q_{02}

        \tau_1 = n_{j1}(n_{a1} u_1 + n_{a2} u_2), \quad
        \tau_2 = n_{j2}(n_{a1} u_1 - n_{a2} u_2)

    Joint to actuator:

    .. math::

        \theta_1 = n_{a1}(n_{j1}(q_1 - q_{01}) + n_{j2}(q_2 - q_{02})), \quad
        \theta_2 = n_{a2}(n_{j1}(q_1 - q_{01}) - n_{j2}(q_2 - q_{02}))

        u_1 = \frac{\tau_1/n_{j1} + \tau_2/n_{j2}}{2 n_{a1}}, \quad
        u_2 = \frac{\tau_1/n_{j1} - \tau_2/n_{j2}}{2 n_{a2}}

    Velocities map like positions without the offsets.  :math:`n_a` are the actuator reductions,
    :math:`n_j` the joint reductions, :math:`q_0` the joint offsets; index 1 and 2 follow the
    roles ``actuator1``/``actuator2`` and ``joint1``/``joint2``.  Power is conserved.
    Parameters: :class:`CoupledTransmission`'s.
    """

    def _build(self) -> None:
        a1, a2 = self._actuator_reduction
        j1, j2 = self._joint_reduction
        self._set_linear_map(
            [[1.0 / (2.0 * j1 * a1), 1.0 / (2.0 * j1 * a2)],
             [1.0 / (2.0 * j2 * a1), -1.0 / (2.0 * j2 * a2)]],
            [[a1 * j1, a1 * j2],
             [a2 * j1, -a2 * j2]],
            self._joint_offset)
