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

Names are strings, exactly as written: the robot name and the actuator names are read as the
text of their YAML scalars (a name ``007``, ``yes`` or ``null`` is that text, not a number, a
boolean or nothing), and written quoted where YAML would read them otherwise.  An offset is a
plain (unquoted) scalar holding a finite number.  The file is read with the bounds of every file
a user names (:mod:`~transmission_plugins.urdf.user_files`: a regular file of at most
:data:`MAX_BYTES`; YAML without aliases, :mod:`~transmission_plugins.urdf.user_yaml`) and
written whole or not at all, never with a non-finite offset: a failed write leaves the old file
as it was.
"""

import math
import re
from typing import Any
from typing import Mapping
from typing import Sequence

from transmission_plugins.core.exceptions import TransmissionFileError
from transmission_plugins.core.exceptions import TransmissionValueError
from transmission_plugins.urdf.user_files import read_user_file
from transmission_plugins.urdf.user_files import replaced_file
from transmission_plugins.urdf.user_yaml import compose_yaml
from transmission_plugins.urdf.user_yaml import yaml_text

#: the keys of the file
KEYS = ('robot', 'offsets')
#: the largest calibration file read, in bytes (a line per actuator: 1 MiB is ~25,000 of them)
MAX_BYTES = 1024 * 1024
#: what the file is, in messages
WHAT = 'the calibration file'


def _dumper() -> Any:
    """Return PyYAML's safe dumper that also quotes what YAML 1.2 reads as a number (``1e3``)."""
    import yaml

    class Dumper(yaml.SafeDumper):
        """Quotes any string a YAML 1.1 or 1.2 reader would not read back as that string."""

    Dumper.add_implicit_resolver(
        'tag:yaml.org,2002:float',
        re.compile(r'^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$'),
        list('-+0123456789.'))
    return Dumper


class CalibrationFileError(TransmissionFileError):
    """A calibration file cannot be read, does not fit the robot, or cannot be written."""


def _shown(text: str, room: int = 40) -> str:
    """Return ``repr(text)``, its middle cut when it is longer than ``room`` characters."""
    if len(text) <= room:
        return repr(text)
    return repr(text[:room // 2]) + f' ... ({len(text)} characters) ... ' + repr(text[-8:])


def read_calibration_file(path: str, robot_name: str,
                          actuator_names: Sequence[str]) -> dict[str, float] | None:
    """
    Return the offsets of the file at ``path``, None when there is no such file.

    :raises CalibrationFileError: not a regular file or too large, unreadable, not the shape
        above, for another robot (its ``robot`` is not ``robot_name``), naming actuators the
        robot does not have, or an offset that is not a finite number
    """
    try:
        root = compose_yaml(yaml_text(read_user_file(path, WHAT, MAX_BYTES), path), path)
    except TransmissionFileError as e:
        raise CalibrationFileError(e.filename, e.message) from e
    except FileNotFoundError:
        return None
    except OSError as e:
        raise CalibrationFileError(path, f'cannot read {WHAT}: {e.strerror or e}') from e
    sections = _mapping(path, root, 'the file')
    if sections is None or set(sections) != set(KEYS):
        got = sorted(sections) if sections is not None else 'nothing'
        raise CalibrationFileError(path, f'expected the keys {list(KEYS)} (robot, and offsets '
                                         f'by actuator name), got {got}')
    robot = sections['robot']
    if not _is_scalar(robot) or robot.value != robot_name:
        shown = repr(robot.value) if _is_scalar(robot) else f'a {robot.id}'
        raise CalibrationFileError(path, f'a calibration of robot {shown}, not of this robot '
                                         f'{robot_name!r} (<robot name> of the URDF): a '
                                         'calibration file for another robot')
    offsets = _mapping(path, sections['offsets'], 'offsets') or {}
    known = set(actuator_names)
    unknown = sorted(n for n in offsets if n not in known)
    if unknown:
        raise CalibrationFileError(path, f'offsets of actuators robot {robot_name!r} does not '
                                         f'have: {unknown[:10]} (its actuators: '
                                         f'{list(actuator_names)[:10]})')
    return {name: _offset(path, name, node) for name, node in offsets.items()}


def _is_scalar(node: Any) -> bool:
    return getattr(node, 'id', None) == 'scalar'


def _is_null(node: Any) -> bool:
    """Tell whether ``node`` is empty or ``null``/``~`` (an empty section)."""
    return node is None or (_is_scalar(node) and node.style is None
                            and node.tag == 'tag:yaml.org,2002:null')


def _mapping(path: str, node: Any, what: str) -> dict[str, Any] | None:
    """Return a mapping node as name (its key's text) to value node; None when empty."""
    if _is_null(node):
        return None
    if getattr(node, 'id', None) != 'mapping':
        raise CalibrationFileError(path, f'{what}: expected a mapping of names, got a '
                                         f'{node.id} (line {node.start_mark.line + 1})')
    out: dict[str, Any] = {}
    for key, value in node.value:
        if not _is_scalar(key):
            raise CalibrationFileError(path, f'{what}: expected names as keys, got a {key.id} '
                                             f'(line {key.start_mark.line + 1})')
        if key.value in out:
            raise CalibrationFileError(path, f'{what}: {key.value!r} appears twice (line '
                                             f'{key.start_mark.line + 1})')
        out[key.value] = value
    return out


def _offset(path: str, name: str, node: Any) -> float:
    """Return the finite number a plain scalar holds (any float syntax: ``1e-3``, ``.5``)."""
    where = f'offsets/{name}'
    text = node.value if _is_scalar(node) else None
    try:
        value = float(text) if text is not None and node.style is None else math.nan
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        shown = (_shown(text) if text is not None and node.style is None else
                 f'the string {_shown(text)}' if text is not None else f'a {node.id}')
        raise CalibrationFileError(path, f'{where}: expected a finite number (actuator units, '
                                         f'rad or m), got {shown} (line '
                                         f'{node.start_mark.line + 1})')
    return value


def calibration_text(robot_name: str, offsets: Mapping[str, float], source: str) -> str:
    """
    Return the file text (``source``: a comment line saying how the offsets were found).

    Names are quoted where YAML would read them as something else (module doc).

    :raises TransmissionValueError: an offset that is not a finite number
    """
    import yaml
    values = {}
    for name, value in offsets.items():
        number = float(value)
        if not math.isfinite(number):
            raise TransmissionValueError(f'offsets/{name}', number, 'a finite number')
        values[str(name)] = number
    body = yaml.dump({'robot': str(robot_name), 'offsets': values}, Dumper=_dumper(),
                     sort_keys=False, default_flow_style=False, allow_unicode=True,
                     width=10 ** 6)
    comment = ' '.join(str(source).split())
    return (f'# transmission_plugins calibration: {comment}\n'
            '# offset = the measured actuator position at its calibrated zero (actuator units)\n'
            + body)


def write_calibration_file(path: str, robot_name: str, offsets: Mapping[str, float],
                           source: str) -> None:
    """
    Write the file at ``path`` whole or not at all (a temporary file beside it, then renamed).

    :raises CalibrationFileError: an offset is not a finite number, ``path`` is not a regular
        file or a new path, or the folder cannot be written; the old file is left as it was
    """
    try:
        text = calibration_text(robot_name, offsets, source)
    except TransmissionValueError as e:
        raise CalibrationFileError(path, f'{e}; the file is left as it was') from e
    try:
        with replaced_file(path, WHAT) as f:
            f.write(text.encode('utf-8'))
    except TransmissionFileError as e:
        raise CalibrationFileError(e.filename, e.message) from e


__all__ = ['CalibrationFileError', 'KEYS', 'MAX_BYTES', 'calibration_text',
           'read_calibration_file', 'write_calibration_file']
