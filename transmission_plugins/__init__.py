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

import ast
from functools import cache
from importlib import import_module
from pathlib import Path
from typing import Any
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from transmission_plugins.core.exceptions import (  # noqa: F401
        BadValueError, BrokenReferenceError, IncompleteTransmissionError, LoadWarning,
        TransmissionConfigurationError, TransmissionError, TransmissionFileError,
        TransmissionInputError, TransmissionLoadError, TransmissionValueError, TransmissionWarning,
        UnknownNameError, UnknownTransmissionTypeError, UrdfTransmissionError)
    from transmission_plugins.core.findings import Finding  # noqa: F401
    from transmission_plugins.core.handles import ActuatorHandle, JointHandle  # noqa: F401
    from transmission_plugins.core.interfaces import INTERFACES  # noqa: F401
    from transmission_plugins.core.linear import LinearMap, LinearTransmission  # noqa: F401
    from transmission_plugins.core.transmission import Transmission  # noqa: F401
    from transmission_plugins.robot.lint_urdf import lint_urdf  # noqa: F401
    from transmission_plugins.robot.loading import load_robot_transmissions  # noqa: F401
    from transmission_plugins.robot.robot_transmissions import RobotTransmissions  # noqa: F401
    from transmission_plugins.robot.wiring import RobotTransmission  # noqa: F401
    from transmission_plugins.transmissions.coupling_transmission import (  # noqa: F401
        CouplingTransmission)
    from transmission_plugins.transmissions.differential_transmission import (  # noqa: F401
        DifferentialTransmission)
    from transmission_plugins.transmissions.four_bar_linkage_transmission import (  # noqa: F401
        FourBarLinkageTransmission)
    from transmission_plugins.transmissions.j0_transmission import J0Transmission  # noqa: F401
    from transmission_plugins.transmissions.j0_transmission_for_muscle import (  # noqa: F401
        J0TransmissionForMuscle)
    from transmission_plugins.transmissions.parallel_ankle_transmission import (  # noqa: F401
        ParallelAnkleTransmission)
    from transmission_plugins.transmissions.pr2_gripper_transmission import (  # noqa: F401
        PR2GripperTransmission)
    from transmission_plugins.transmissions.series_elastic_transmission import (  # noqa: F401
        SeriesElasticTransmission)
    from transmission_plugins.transmissions.shadow_simple_transmission import (  # noqa: F401
        ShadowSimpleTransmission)
    from transmission_plugins.transmissions.simple_transmission import (  # noqa: F401
        SimpleTransmission)
    from transmission_plugins.transmissions.slider_crank_transmission import (  # noqa: F401
        SliderCrankTransmission)
    from transmission_plugins.transmissions.table_transmission import (  # noqa: F401
        TableTransmission)
    from transmission_plugins.transmissions.wrist_transmission import (  # noqa: F401
        WristTransmission)

__version__ = '0.1.0'


@cache
def _public() -> dict[str, str]:
    """
    Return each public name and its module: the ``TYPE_CHECKING`` imports of this file.

    Those imports declare the public names once: type checkers and IDEs read them, and
    :func:`__getattr__` imports each name from its line on first use (hence ``noqa: F401``).
    """
    tree = ast.parse(Path(__file__).read_text(encoding='utf-8'))
    block = next(node for node in tree.body if isinstance(node, ast.If))
    return {alias.name: str(node.module) for node in block.body
            if isinstance(node, ast.ImportFrom) for alias in node.names}


def __getattr__(name: str) -> Any:
    """Import a public name on first use (and list them all as ``__all__``)."""
    if name == '__all__':
        return sorted(_public())
    module = _public().get(name)
    if module is None:
        raise AttributeError(f'module {__name__!r} has no attribute {name!r}')
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """List the public names with the module's own."""
    return sorted(set(globals()) | set(_public()))
