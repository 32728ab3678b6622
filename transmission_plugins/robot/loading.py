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

""":func:`load_robot_transmissions`: a robot description in, :class:`RobotTransmissions` out."""

import os
from typing import Any
from typing import Mapping
from typing import Union
import warnings as python_warnings

from transmission_plugins.core.exceptions import LoadWarning
from transmission_plugins.core.exceptions import TransmissionError
from transmission_plugins.core.exceptions import TransmissionWarning
from transmission_plugins.core.exceptions import UnknownTransmissionTypeError
from transmission_plugins.plugins import build_transmission
from transmission_plugins.plugins import find_transmission_plugins
from transmission_plugins.robot.lint import robot_findings
from transmission_plugins.robot.robot_transmissions import RobotTransmissions
from transmission_plugins.robot.wiring import RobotTransmission
from transmission_plugins.urdf.dialects import parse_transmissions
from transmission_plugins.urdf.joints import read_robot_model
from transmission_plugins.urdf.records import ActuatorInfo
from transmission_plugins.urdf.text import read_urdf_text


def load_robot_transmissions(urdf: Union[str, bytes, 'os.PathLike[str]'], *,
                             lenient: bool = False, plugins: Any = None, source: str = 'auto',
                             xacro_args: Mapping[str, str] | None = None,
                             aliases: Mapping[str, str] | None = None,
                             warn: bool = True) -> RobotTransmissions:
    """
    Load every transmission of a robot description.

    :param urdf: URDF XML text, or a path to a ``.urdf`` or ``.xacro`` file
    :param lenient: load what can be loaded: transmissions of unknown types, with bad values or
        breaking the wiring rules are skipped and reported in ``warnings``, and the parser may
        fall back to defaults for ill-defined values
    :param plugins: the plugin registry to use (default: the installed entry points)
    :param source: which ``<transmission>`` elements to read: ``'auto'`` (those inside
        ``<ros2_control>`` blocks when there are any, else the robot-level ones),
        ``'ros2_control'``, ``'robot'`` or ``'all'`` (see :mod:`~.urdf.dialects`)
    :param xacro_args: xacro arguments (``name:=value``) for a ``.xacro`` path
    :param aliases: opt-in type renaming, applied before the lookup (see
        :func:`~transmission_plugins.plugins.load_transmission_class`)
    :param warn: also issue every warning with :func:`warnings.warn` (category
        :class:`~transmission_plugins.TransmissionWarning`); the nodes and the command line
        report ``warnings`` themselves and pass False
    :returns: the robot's transmissions
    :raises TransmissionError: (a subclass) naming the element path and the bad value
    """
    xml_text = read_urdf_text(urdf, xacro_mappings=dict(xacro_args) if xacro_args else None)
    if plugins is None:
        plugins = find_transmission_plugins()  # once: it scans every installed distribution
    parsed = parse_transmissions(xml_text, lenient=lenient, source=source)
    root = parsed.root if parsed.root is not None else xml_text
    del xml_text  # the parsed tree holds it all (peak memory of big robots)
    notes: list[str] = list(parsed.warnings)
    records = []
    actuators: dict[str, ActuatorInfo] = {}
    for info in parsed.transmissions:
        found: list[LoadWarning] = []
        try:
            wiring = build_transmission(info, plugins, record=found, aliases=aliases)
        except TransmissionError as e:
            if not lenient:
                raise
            notes.append(_skipped(info.path or info.name, info.line, e))
            continue
        notes.extend(found)
        records.append(RobotTransmission(info.name, info.type, wiring.transmission,
                                         tuple(wiring.joint_names), tuple(wiring.actuator_names),
                                         info))
        for a in info.actuators:
            actuators.setdefault(a.name, a)
    # the limits of the driven joints are validated (bad ones raise, or warn in lenient mode)
    model = read_robot_model(root,
                             check=[j for r in records for j in r.joint_names], lenient=lenient)
    robot = RobotTransmissions(records, model.joints.values(), actuator_info=actuators,
                               warnings=notes + list(model.limit_warnings),
                               robot_name=model.name, lenient=lenient)
    robot.warnings.extend(robot_findings(robot))   # the lint checks on a loaded robot
    if warn:
        for note in robot.warnings:
            python_warnings.warn(TransmissionWarning(note), stacklevel=2)
    return robot


def _skipped(path: str, line: int | None, error: TransmissionError) -> LoadWarning:
    """Return the warning for a transmission that lenient mode skips because of ``error``."""
    if isinstance(error, UnknownTransmissionTypeError):  # the list of known types is noise
        message = f'no plugin is installed for type {error.plugin_name!r}'
        if error.suggestions:
            message += f' (did you mean {" or ".join(map(repr, error.suggestions))}?)'
        return LoadWarning(path, message, line, text=f'skipped (lenient mode): {error.where}: '
                           f'{message}')
    return LoadWarning(getattr(error, 'path', path), f'skipped (lenient mode): {error}',
                       getattr(error, 'line', line), text=f'skipped (lenient mode): {error}')
