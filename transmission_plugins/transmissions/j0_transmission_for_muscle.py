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
J0TransmissionForMuscle: J0 of Shadow's air-muscle hand, the same coupling as J0Transmission.

Lookup name: ``sr_mechanism_model/J0TransmissionForMuscle``
(``src/joint_0_transmission_for_muscle.cpp`` of shadow-robot/sr_core).
"""

from transmission_plugins.transmissions.j0_transmission import J0Transmission


class J0TransmissionForMuscle(J0Transmission):
    r"""
    Implement J0 of the muscle hand: one muscle pair drives J1 and J2, as :class:`J0Transmission`.

    .. math::

        q_1 = q_2 = \theta/2, \quad \dot q_1 = \dot q_2 = \dot\theta/2, \quad
        \tau_1 = \tau_2 = u

        \theta = q_1 + q_2, \quad \dot\theta = \dot q_1 + \dot q_2, \quad
        u = (\tau_1 + \tau_2)/2

    Shadow's muscle version packs muscle pressures and valve commands into the efforts; here
    efforts map mechanically (doc/transmissions.md, "Shadow hand").
    """
