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
``transmission_plugins lint`` as a function: load a description and run every check on it.

Above the loader (:mod:`~.loading`, which runs the checks that hold for a loaded robot) and the
checks (:mod:`~.lint`).
"""

from collections.abc import Mapping
from typing import Any
import warnings

from transmission_plugins.core.exceptions import TransmissionError
from transmission_plugins.core.findings import Finding
from transmission_plugins.core.findings import LOAD_ERROR
from transmission_plugins.plugins import build_transmission
from transmission_plugins.plugins import find_transmission_plugins
from transmission_plugins.robot.lint import actuator_data_twice
from transmission_plugins.robot.lint import drivetrain_findings
from transmission_plugins.robot.lint import inverse_pairs
from transmission_plugins.robot.lint import limit_lines
from transmission_plugins.robot.lint import reductions_across_sources
from transmission_plugins.robot.lint import unknown_interfaces
from transmission_plugins.robot.lint import unreachable_limits
from transmission_plugins.robot.loading import load_robot_transmissions
from transmission_plugins.urdf.dialects import parse_transmissions
from transmission_plugins.urdf.text import read_urdf_text


def lint_urdf(urdf: Any, *, plugins: Any = None,
              xacro_args: Mapping[str, str] | None = None) -> list[Finding]:
    """
    Run every check on a robot description and return the findings, in document order.

    A description that does not load in strict mode gets a ``load-error`` finding for the first
    error (unless that error is one of the findings) and is checked as lenient mode loads it.

    :param urdf: URDF XML text, or a path to a ``.urdf`` or ``.xacro`` file
    :raises TransmissionError: the text cannot be read or is no URDF (nothing to check)
    """
    text = read_urdf_text(urdf, xacro_mappings=dict(xacro_args) if xacro_args else None)
    if plugins is None:
        plugins = find_transmission_plugins()
    error: TransmissionError | None = None
    try:
        load_robot_transmissions(text, plugins=plugins, warn=False)
    except TransmissionError as e:
        error = e
    robot = load_robot_transmissions(text, lenient=True, plugins=plugins, warn=False)
    parsed = parse_transmissions(text, lenient=True, source='all')
    built = []
    for info in parsed.transmissions:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter('ignore')
                built.append((info, build_transmission(info, plugins).transmission))
        except TransmissionError:
            continue
    found = ([w for w in robot.warnings if isinstance(w, Finding)]
             + [w for w in parsed.warnings if isinstance(w, Finding)]
             + unknown_interfaces(parsed.transmissions)
             + unreachable_limits(robot, limit_lines(parsed.root))
             + inverse_pairs(parsed.transmissions) + reductions_across_sources(built)
             + actuator_data_twice(parsed.transmissions) + drivetrain_findings(robot))
    unique = list(dict.fromkeys(found))
    if error is not None and not any(f.path == getattr(error, 'path', None) for f in unique):
        unique.insert(0, Finding(LOAD_ERROR, getattr(error, 'path', '') or '/robot',
                                 f'does not load in strict mode: '
                                 f'{getattr(error, "message", None) or error}',
                                 getattr(error, 'line', None)))
    return sorted(unique, key=lambda f: (f.line or 0))
