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

The public names below are the package's contract (see DESIGN.md).  They are imported on first
use (PEP 562), so ``import transmission_plugins`` is cheap and never imports rclpy, and
``from transmission_plugins import SimpleTransmission`` imports only the maths layer (neither
lxml nor rclpy).  The layers, lowest first: ``core`` (maths), ``urdf`` (reading robot
descriptions), ``transmissions``, ``plugins``, ``robot``, ``runtime`` (ROS-free node logic),
``ros`` (nodes), ``tools``.
"""

from importlib import import_module
from typing import Any
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from transmission_plugins.core.exceptions import BadValueError
    from transmission_plugins.core.exceptions import BrokenReferenceError
    from transmission_plugins.core.exceptions import IncompleteTransmissionError
    from transmission_plugins.core.exceptions import LoadWarning
    from transmission_plugins.core.exceptions import TransmissionConfigurationError
    from transmission_plugins.core.exceptions import TransmissionError
    from transmission_plugins.core.exceptions import TransmissionFileError
    from transmission_plugins.core.exceptions import TransmissionInputError
    from transmission_plugins.core.exceptions import TransmissionLoadError
    from transmission_plugins.core.exceptions import TransmissionValueError
    from transmission_plugins.core.exceptions import TransmissionWarning
    from transmission_plugins.core.exceptions import UnknownNameError
    from transmission_plugins.core.exceptions import UnknownTransmissionTypeError
    from transmission_plugins.core.exceptions import UrdfTransmissionError
    from transmission_plugins.core.findings import Finding
    from transmission_plugins.core.handles import ActuatorHandle
    from transmission_plugins.core.handles import JointHandle
    from transmission_plugins.core.interfaces import INTERFACES
    from transmission_plugins.core.linear import LinearMap
    from transmission_plugins.core.linear import LinearTransmission
    from transmission_plugins.core.transmission import Transmission
    from transmission_plugins.robot.lint_urdf import lint_urdf
    from transmission_plugins.robot.loading import load_robot_transmissions
    from transmission_plugins.robot.robot_transmissions import RobotTransmissions
    from transmission_plugins.robot.wiring import RobotTransmission
    from transmission_plugins.transmissions import CouplingTransmission
    from transmission_plugins.transmissions import DifferentialTransmission
    from transmission_plugins.transmissions import FourBarLinkageTransmission
    from transmission_plugins.transmissions import J0Transmission
    from transmission_plugins.transmissions import J0TransmissionForMuscle
    from transmission_plugins.transmissions import ParallelAnkleTransmission
    from transmission_plugins.transmissions import PR2GripperTransmission
    from transmission_plugins.transmissions import ShadowSimpleTransmission
    from transmission_plugins.transmissions import SimpleTransmission
    from transmission_plugins.transmissions import SliderCrankTransmission
    from transmission_plugins.transmissions import TableTransmission
    from transmission_plugins.transmissions import WristTransmission

__version__ = '0.1.0'

#: public name -> the module that defines it, relative to this package
_PUBLIC = {
    'BadValueError': '.core.exceptions',
    'BrokenReferenceError': '.core.exceptions',
    'IncompleteTransmissionError': '.core.exceptions',
    'LoadWarning': '.core.exceptions',
    'TransmissionConfigurationError': '.core.exceptions',
    'TransmissionError': '.core.exceptions',
    'TransmissionFileError': '.core.exceptions',
    'TransmissionInputError': '.core.exceptions',
    'TransmissionLoadError': '.core.exceptions',
    'TransmissionValueError': '.core.exceptions',
    'TransmissionWarning': '.core.exceptions',
    'UnknownNameError': '.core.exceptions',
    'UnknownTransmissionTypeError': '.core.exceptions',
    'UrdfTransmissionError': '.core.exceptions',
    'ActuatorHandle': '.core.handles',
    'JointHandle': '.core.handles',
    'INTERFACES': '.core.interfaces',
    'LinearMap': '.core.linear',
    'LinearTransmission': '.core.linear',
    'Transmission': '.core.transmission',
    'load_robot_transmissions': '.robot.loading',
    'lint_urdf': '.robot.lint_urdf',
    'Finding': '.core.findings',
    'RobotTransmissions': '.robot.robot_transmissions',
    'RobotTransmission': '.robot.wiring',
    'CouplingTransmission': '.transmissions.coupling_transmission',
    'DifferentialTransmission': '.transmissions.differential_transmission',
    'FourBarLinkageTransmission': '.transmissions.four_bar_linkage_transmission',
    'J0Transmission': '.transmissions.j0_transmission',
    'J0TransmissionForMuscle': '.transmissions.j0_transmission_for_muscle',
    'PR2GripperTransmission': '.transmissions.pr2_gripper_transmission',
    'ShadowSimpleTransmission': '.transmissions.shadow_simple_transmission',
    'ParallelAnkleTransmission': '.transmissions.parallel_ankle_transmission',
    'SimpleTransmission': '.transmissions.simple_transmission',
    'SliderCrankTransmission': '.transmissions.slider_crank_transmission',
    'TableTransmission': '.transmissions.table_transmission',
    'WristTransmission': '.transmissions.wrist_transmission',
}

__all__ = [
    'ActuatorHandle',
    'BadValueError',
    'BrokenReferenceError',
    'CouplingTransmission',
    'DifferentialTransmission',
    'Finding',
    'FourBarLinkageTransmission',
    'INTERFACES',
    'IncompleteTransmissionError',
    'J0Transmission',
    'J0TransmissionForMuscle',
    'JointHandle',
    'LinearMap',
    'LinearTransmission',
    'LoadWarning',
    'PR2GripperTransmission',
    'ParallelAnkleTransmission',
    'RobotTransmission',
    'RobotTransmissions',
    'ShadowSimpleTransmission',
    'SimpleTransmission',
    'SliderCrankTransmission',
    'TableTransmission',
    'Transmission',
    'TransmissionConfigurationError',
    'TransmissionError',
    'TransmissionFileError',
    'TransmissionInputError',
    'TransmissionLoadError',
    'TransmissionValueError',
    'TransmissionWarning',
    'UnknownNameError',
    'UnknownTransmissionTypeError',
    'UrdfTransmissionError',
    'WristTransmission',
    'lint_urdf',
    'load_robot_transmissions',
]


def __getattr__(name: str) -> Any:
    """Import a public name on first use."""
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f'module {__name__!r} has no attribute {name!r}')
    value = getattr(import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """List the public names with the module's own."""
    return sorted(set(globals()) | set(__all__))
