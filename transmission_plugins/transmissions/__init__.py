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

"""The transmissions shipped with transmission_plugins, one module each."""

from transmission_plugins.transmissions.coupling_transmission import CouplingTransmission
from transmission_plugins.transmissions.differential_transmission import \
    DifferentialTransmission
from transmission_plugins.transmissions.four_bar_linkage_transmission import \
    FourBarLinkageTransmission
from transmission_plugins.transmissions.j0_transmission import J0Transmission
from transmission_plugins.transmissions.j0_transmission_for_muscle import \
    J0TransmissionForMuscle
from transmission_plugins.transmissions.parallel_ankle_transmission import \
    ParallelAnkleTransmission
from transmission_plugins.transmissions.pr2_gripper_transmission import \
    PR2GripperTransmission
from transmission_plugins.transmissions.shadow_simple_transmission import \
    ShadowSimpleTransmission
from transmission_plugins.transmissions.simple_transmission import SimpleTransmission
from transmission_plugins.transmissions.slider_crank_transmission import \
    SliderCrankTransmission
from transmission_plugins.transmissions.table_transmission import TableTransmission
from transmission_plugins.transmissions.wrist_transmission import WristTransmission

__all__ = [
    'CouplingTransmission',
    'DifferentialTransmission',
    'FourBarLinkageTransmission',
    'J0Transmission',
    'J0TransmissionForMuscle',
    'ParallelAnkleTransmission',
    'PR2GripperTransmission',
    'ShadowSimpleTransmission',
    'SimpleTransmission',
    'SliderCrankTransmission',
    'TableTransmission',
    'WristTransmission',
]
