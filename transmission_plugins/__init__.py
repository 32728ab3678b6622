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
Mechanical transmissions from URDF ``<transmission>`` tags, as ROS 2 plugins.

The public names below are the package's contract (see DESIGN.md).
"""

from transmission_plugins.core.exceptions import BadValueError
from transmission_plugins.core.exceptions import BrokenReferenceError
from transmission_plugins.core.exceptions import IncompleteTransmissionError
from transmission_plugins.core.exceptions import TransmissionConfigurationError
from transmission_plugins.core.exceptions import TransmissionError
from transmission_plugins.core.exceptions import TransmissionFileError
from transmission_plugins.core.exceptions import TransmissionInputError
from transmission_plugins.core.exceptions import TransmissionLoadError
from transmission_plugins.core.exceptions import TransmissionValueError
from transmission_plugins.core.exceptions import UnknownNameError
from transmission_plugins.core.exceptions import UnknownTransmissionTypeError
from transmission_plugins.core.exceptions import UrdfTransmissionError
from transmission_plugins.core.handles import ActuatorHandle
from transmission_plugins.core.handles import JointHandle
from transmission_plugins.core.interfaces import INTERFACES
from transmission_plugins.core.linear import LinearMap
from transmission_plugins.core.linear import LinearTransmission
from transmission_plugins.core.transmission import Transmission
from transmission_plugins.robot.robot_transmissions import load_robot_transmissions
from transmission_plugins.robot.robot_transmissions import RobotTransmission
from transmission_plugins.robot.robot_transmissions import RobotTransmissions
from transmission_plugins.transmissions import DifferentialTransmission
from transmission_plugins.transmissions import FourBarLinkageTransmission
from transmission_plugins.transmissions import PR2GripperTransmission
from transmission_plugins.transmissions import SimpleTransmission
from transmission_plugins.transmissions import WristTransmission

__version__ = '0.1.0'

__all__ = [
    'ActuatorHandle',
    'BadValueError',
    'BrokenReferenceError',
    'DifferentialTransmission',
    'FourBarLinkageTransmission',
    'INTERFACES',
    'IncompleteTransmissionError',
    'JointHandle',
    'LinearMap',
    'LinearTransmission',
    'PR2GripperTransmission',
    'RobotTransmission',
    'RobotTransmissions',
    'SimpleTransmission',
    'Transmission',
    'TransmissionConfigurationError',
    'TransmissionError',
    'TransmissionFileError',
    'TransmissionInputError',
    'TransmissionLoadError',
    'TransmissionValueError',
    'UnknownNameError',
    'UnknownTransmissionTypeError',
    'UrdfTransmissionError',
    'WristTransmission',
    'load_robot_transmissions',
]
