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
A stored calibration: one YAML file of actuator offsets per robot, read at start, written after.

.. code-block:: yaml

    robot: example_robot        # <robot name> of the URDF it was made for
    offsets:                    # actuator: offset (actuator units, rad or m)
      pan_motor: 0.8314

When it is read and written, and what it must hold, is doc/calibration.md's ("The calibration
file"); a file that breaks it is a :class:`CalibrationFileError` naming the file and the cause,
a file that does not exist is no calibration (the robot has not been calibrated yet).
"""

import math
import os
from pathlib import Path
import tempfile
from typing import Dict
from typing import Mapping
from typing import Optional
from typing import Sequence

from transmission_plugins.core.exceptions import TransmissionFileError

#: the keys of the file
KEYS = ('robot', 'offsets')


class CalibrationFileError(TransmissionFileError):
    """A calibration file cannot be read, does not fit the robot, or cannot be written."""


def read_calibration_file(path: str, robot_name: str,
                          actuator_names: Sequence[str]) -> Optional[Dict[str, float]]:
    """
    Return the offsets of the file at ``path``, None when there is no such file.

    :raises CalibrationFileError: unreadable, not the shape above, for another robot (its
        ``robot`` is not ``robot_name``), or naming actuators the robot does not have
    """
    import yaml
    try:
        text = Path(path).read_text(encoding='utf-8')
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as e:
        raise CalibrationFileError(path, f'cannot read the calibration file: {e}') from e
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise CalibrationFileError(path, f'not YAML: {e}') from e
    if not isinstance(data, dict) or set(data) != set(KEYS):
        keys = sorted(map(str, data)) if isinstance(data, dict) else type(data).__name__
        raise CalibrationFileError(path, f'expected the keys {list(KEYS)} (robot, and offsets '
                                         f'by actuator name), got {keys}')
    if str(data['robot']) != robot_name:
        raise CalibrationFileError(path, f'a calibration of robot {str(data["robot"])!r}, not '
                                         f'of this robot {robot_name!r} (<robot name> of the '
                                         'URDF): a calibration file for another robot')
    offsets = data['offsets'] or {}
    if not isinstance(offsets, dict):
        raise CalibrationFileError(path, f'offsets must map actuator names to numbers, got '
                                         f'{type(offsets).__name__}')
    known = set(actuator_names)
    unknown = sorted(str(n) for n in offsets if str(n) not in known)
    if unknown:
        raise CalibrationFileError(path, f'offsets of actuators robot {robot_name!r} does not '
                                         f'have: {unknown[:10]} (its actuators: '
                                         f'{list(actuator_names)[:10]})')
    out = {}
    for name, value in offsets.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) \
                or not math.isfinite(value):
            raise CalibrationFileError(path, f'offsets/{name}: expected a finite number, got '
                                             f'{value!r}')
        out[str(name)] = float(value)
    return out


def calibration_text(robot_name: str, offsets: Mapping[str, float], source: str) -> str:
    """Return the file text (``source``: a comment line saying how the offsets were found)."""
    lines = [f'# transmission_plugins calibration: {source}',
             '# offset = the measured actuator position at its calibrated zero (actuator units)',
             f'robot: {robot_name}', 'offsets:' if offsets else 'offsets: {}']
    lines += [f'  {name}: {float(value)!r}' for name, value in offsets.items()]
    return '\n'.join(lines) + '\n'


def write_calibration_file(path: str, robot_name: str, offsets: Mapping[str, float],
                           source: str) -> None:
    """
    Write the file at ``path`` whole or not at all (a temporary file beside it, then renamed).

    :raises CalibrationFileError: the folder cannot be written
    """
    target = Path(path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f'.{target.name}.', suffix='.part',
                                   dir=str(target.parent) if str(target.parent) else '.')
        try:
            with os.fdopen(fd, 'w', encoding='utf-8') as f:
                f.write(calibration_text(robot_name, offsets, source))
            os.replace(tmp, target)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError as e:
        raise CalibrationFileError(path, f'cannot write the calibration file: '
                                         f'{e.strerror or e}', e.errno) from e
