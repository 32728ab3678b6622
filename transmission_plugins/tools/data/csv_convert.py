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
Convert recorded CSV data between actuator and joint space, streaming.

Columns named ``<name>/<interface>`` whose name is a source name are converted, as
:meth:`RobotTransmissions.actuator_to_joint` does by name; every other column is passed through
unchanged, in front (doc/cli.md has the rules).  Rows are read and written by :mod:`~.csv_io`
and converted ``chunk_size`` at a time, so memory does not grow with the file.
"""

import os
from typing import BinaryIO
from typing import Callable
from typing import NamedTuple
from typing import Union

import numpy as np

from transmission_plugins.core.interfaces import ABSOLUTE_POSITION
from transmission_plugins.core.interfaces import INTERFACE_KIND
from transmission_plugins.core.interfaces import POSITION
from transmission_plugins.robot.robot_transmissions import RobotTransmissions
from transmission_plugins.tools.data.csv_io import CsvError
from transmission_plugins.tools.data.csv_io import CsvReader
from transmission_plugins.tools.data.csv_io import CsvWriter
from transmission_plugins.tools.data.csv_io import stream_size
from transmission_plugins.urdf.user_files import open_user_file

#: Directions: the space to convert *to*.
TO_JOINT = 'joint'
TO_ACTUATOR = 'actuator'


class ConvertStats(NamedTuple):
    """What :func:`convert_csv` did."""

    rows: int
    converted: list[str]
    passed_through: list[str]
    written: list[str]
    #: converted values that were not finite and were written as empty cells
    non_finite: int = 0
    #: the first of them: (line, output column)
    first_non_finite: tuple[int, str] | None = None


class _Plan(NamedTuple):
    passed: list[int]                               # input columns copied in front
    numeric: list[int]                              # input columns read as numbers
    slots: dict[str, tuple[list[int], list[int]]]   # interface -> (numbers column, source)
    picks: list[tuple[str, list[int]]]              # (interface, target indices), in order
    depends: np.ndarray                             # (numeric, outputs): output reads input
    header: list[str]


def _some(names: list[str], count: int = 6) -> str:
    shown = ', '.join(repr(n) for n in names[:count])
    return shown + (f' and {len(names) - count} more' if len(names) > count else '')


def _columns(robot: RobotTransmissions, header: list[str], to: str,
             keep_unknown: bool) -> tuple[list[int], dict[str, dict[str, int]]]:
    """Return the passed-through columns and ``{interface: {source name: column}}``."""
    to_joint = to == TO_JOINT
    src_names = robot.actuator_names if to_joint else robot.joint_names
    src_index = {n: i for i, n in enumerate(src_names)}
    if len(set(header)) != len(header):
        dup = sorted({c for c in header if header.count(c) > 1})
        raise CsvError(f'duplicate column(s) {dup} in the header')
    passed: list[int] = []
    inputs: dict[str, dict[str, int]] = {}
    unknown: list[str] = []
    for k, column in enumerate(header):
        name, _, interface = column.rpartition('/')
        if not name or interface not in INTERFACE_KIND:
            passed.append(k)
        elif name in src_index:
            inputs.setdefault(interface, {})[name] = k
        elif keep_unknown:
            passed.append(k)
        else:
            unknown.append(column)
    if unknown:
        side = 'actuator' if to_joint else 'joint'
        other = set(robot.joint_names if to_joint else robot.actuator_names)
        hint = ''
        if any(c.rpartition('/')[0] in other for c in unknown):
            hint = (f'; some are {"joint" if to_joint else "actuator"} names: convert with '
                    f'--to {"actuator" if to_joint else "joint"} instead')
        raise CsvError(
            f'columns {_some(unknown)} name no {side} of the robot{hint}; known {side}s: '
            f'{_some(src_names)} (pass --keep-unknown to copy such columns unchanged)')
    if not inputs:
        raise CsvError(f'no column names a {"actuator" if to_joint else "joint"} of the robot '
                       'as <name>/<interface>; nothing to convert')
    return passed, inputs


def _plan(robot: RobotTransmissions, header: list[str], to: str, keep_unknown: bool) -> _Plan:
    to_joint = to == TO_JOINT
    passed, inputs = _columns(robot, header, to, keep_unknown)
    src_index = robot.actuator_index if to_joint else robot.joint_index
    dst_index = robot.joint_index if to_joint else robot.actuator_index
    numeric = sorted(k for columns in inputs.values() for k in columns.values())
    where = {k: j for j, k in enumerate(numeric)}
    state = inputs.get(POSITION, inputs.get(ABSOLUTE_POSITION, {}))
    out_header = [header[k] for k in passed]
    picks: list[tuple[str, list[int]]] = []
    reads: list[list[int]] = []  # per output column: the numbers columns it depends on
    for interface, columns in inputs.items():
        targets: list[int] = []
        for t in robot.transmissions:
            # the joints a transmission's joint-to-actuator maps read (the PR2 gripper: the
            # gap joint alone), as for the name-keyed robot maps
            src = t.actuator_names if to_joint else [
                t.joint_names[k] for k in t.transmission.joint_to_actuator_inputs()]
            if not all(n in columns for n in src):
                continue
            needed = [where[columns[n]] for n in src]
            if t.transmission.requires_position_state() and INTERFACE_KIND[interface] != POSITION:
                if not all(n in state for n in src):
                    continue
                needed += [where[state[n]] for n in src]
            for n in (t.joint_names if to_joint else t.actuator_names):
                targets.append(dst_index[n])
                out_header.append(f'{n}/{interface}')
                reads.append(needed)
        picks.append((interface, targets))
    if len(set(out_header)) != len(out_header):
        dup = sorted({c for c in out_header if out_header.count(c) > 1})
        raise CsvError(f'output column(s) {dup} would appear twice (a passed-through column '
                       'has the name of a converted one)')
    depends = np.zeros((len(numeric), len(reads)))
    for j, needed in enumerate(reads):
        depends[needed, j] = 1.0
    slots = {i: ([where[k] for k in columns.values()], [src_index[n] for n in columns])
             for i, columns in inputs.items()}
    return _Plan(passed, numeric, slots, picks, depends, out_header)


def convert_csv(robot: RobotTransmissions, src: Union[BinaryIO, str, 'os.PathLike[str]'],
                dst: BinaryIO, to: str, *, chunk_size: int = 1000, keep_unknown: bool = False,
                progress: Callable[[int], None] | None = None) -> ConvertStats:
    """
    Convert a CSV file between actuator and joint space, ``chunk_size`` rows at a time.

    :param src: input file path, or a binary stream (e.g. ``sys.stdin.buffer``)
    :param to: ``'joint'`` (input columns are actuators) or ``'actuator'``
    :param keep_unknown: copy ``<name>/<interface>`` columns of unknown names instead of failing
    :param progress: called after each chunk with the bytes read since the last call (not
        called when the input cannot tell, e.g. a pipe)
    :returns: counts and column names, the values left empty because they were not finite
    :raises CsvError: empty input, bad header, unknown names, bad numbers, ragged rows
    :raises TransmissionFileError: ``src`` a path to something else than a regular file (a FIFO,
        a device: stream them as a binary stream instead)
    """
    if to not in (TO_JOINT, TO_ACTUATOR):
        raise CsvError(f"to must be 'joint' or 'actuator', got {to!r}")
    if chunk_size < 1:
        raise CsvError(f'chunk_size must be >= 1, got {chunk_size}')
    if isinstance(src, (str, os.PathLike)):
        with open_user_file(src, 'the CSV file') as stream:
            return convert_csv(robot, stream, dst, to, chunk_size=chunk_size,
                               keep_unknown=keep_unknown, progress=progress)
    reader = CsvReader(src)
    plan = _plan(robot, reader.header, to, keep_unknown)
    writer = CsvWriter(dst, plan.header)
    convert = (robot.actuator_to_joint_arrays if to == TO_JOINT
               else robot.joint_to_actuator_arrays)
    width = len(robot.actuator_names if to == TO_JOINT else robot.joint_names)
    rows = non_finite = 0
    first: tuple[int, str] | None = None
    reported = 0 if stream_size(src) is not None else None  # the header counts too
    for numbers, texts in reader.blocks(plan.numeric):
        for start in range(0, numbers.shape[0], chunk_size):
            x = numbers[start:start + chunk_size]
            values = {}
            for interface, (columns, sources) in plan.slots.items():
                full = np.full((x.shape[0], width), np.nan)
                full[:, sources] = x[:, columns]
                values[interface] = full
            with np.errstate(all='ignore'):
                out = convert(values)
                if to != TO_JOINT and 'position' in values:
                    far = robot.unreachable_actuators(values['position'])
                    for field in out:   # outside a mechanism's range: left empty, counted
                        out[field][far] = np.nan
            block = np.concatenate([out[i][:, index] for i, index in plan.picks], axis=1)
            bad = ~np.isfinite(block)
            if bad.any():  # empty where an input is empty; count the others
                bad &= (np.isnan(x) @ plan.depends) == 0
                if first is None and bad.any():
                    r, c = np.argwhere(bad)[0]
                    first = (rows + int(r) + 2, plan.header[len(plan.passed) + int(c)])
                non_finite += int(bad.sum())
            writer.write([t.slice(start, x.shape[0]) for t in texts], block)
            rows += x.shape[0]
        position = stream_size(src)
        if progress is not None and position is not None and reported is not None:
            progress(position - reported)
            reported = position
    converted = [reader.header[k] for k in plan.numeric]
    return ConvertStats(rows, converted, [reader.header[k] for k in plan.passed],
                        plan.header[len(plan.passed):], non_finite, first)
