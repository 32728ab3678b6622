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

    sr_mechanism_model reads the same URDF (one ``<joint>``, J2 named after it) and maps the
    velocities the same way; its positions come from the joint sensors only (it has no
    simulation branch).  Its effort fields are not efforts: it packs the two muscle pressure
    readings (``p_1 \cdot 65536 + p_0``) into each joint's effort and unpacks valve commands
    from the commanded effort, bit fields that only Shadow's muscle controllers decode.  Here
    efforts map mechanically, as for :class:`J0Transmission`; a muscle driver that needs the
    packed values passes them around the transmission.
    """
