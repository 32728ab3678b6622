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

Columns named ``<name>/<interface>`` (``r_gripper_motor/position``, ``r_wrist_flex_joint/effort``)
whose name is a source name (actuators with ``to='joint'``, joints with ``to='actuator'``) are
converted; every other column (``time``, ``note``...) is passed through unchanged, in front.  A
column whose suffix is an interface but whose name is not a source name is an error (a typo, or
the wrong direction) unless ``keep_unknown`` passes it through.

A transmission is converted for an interface when all its source columns for that interface are
present (nonlinear ones also need their ``position`` columns to convert velocity and effort),
exactly as :meth:`RobotTransmissions.actuator_to_joint` does by name.  Empty cells are NaN and
give empty cells in the outputs that depend on them.  Rows are read, converted with the fused
array maps and written ``chunk_size`` at a time, so memory does not grow with the file.
"""

import csv
from typing import Callable
from typing import Dict
from typing import Iterable
from typing import Iterator
from typing import List
from typing import NamedTuple
from typing import Optional
from typing import TextIO
from typing import Tuple

import numpy as np

from transmission_plugins.core.exceptions import TransmissionInputError
from transmission_plugins.core.interfaces import ABSOLUTE_POSITION
from transmission_plugins.core.interfaces import INTERFACE_KIND
from transmission_plugins.core.interfaces import POSITION
from transmission_plugins.robot.robot_transmissions import RobotTransmissions

#: Directions: the space to convert *to*.
TO_JOINT = 'joint'
TO_ACTUATOR = 'actuator'


class CsvConvertError(TransmissionInputError):
    """The CSV cannot be converted: bad header, unknown name, bad number or ragged row."""


class ConvertStats(NamedTuple):
    """What :func:`convert_csv` did."""

    rows: int
    converted: List[str]
    passed_through: List[str]
    written: List[str]


class _Plan(NamedTuple):
    passed: List[int]                       # input column indices passed through
    inputs: Dict[str, List[Tuple[int, int]]]  # interface -> [(input column, source index)]
    outputs: List[Tuple[str, int]]          # (interface, target index) per output column
    header: List[str]


def _some(names: List[str], count: int = 6) -> str:
    shown = ', '.join(repr(n) for n in names[:count])
    return shown + (f' and {len(names) - count} more' if len(names) > count else '')


def _plan(robot: RobotTransmissions, header: List[str], to: str, keep_unknown: bool) -> _Plan:
    to_joint = to == TO_JOINT
    src_names = robot.actuator_names if to_joint else robot.joint_names
    dst_names = robot.joint_names if to_joint else robot.actuator_names
    src_index = {n: i for i, n in enumerate(src_names)}
    if len(set(header)) != len(header):
        dup = sorted({c for c in header if header.count(c) > 1})
        raise CsvConvertError(f'duplicate column(s) {dup} in the header')
    passed: List[int] = []
    inputs: Dict[str, List[Tuple[int, int]]] = {}
    unknown: List[str] = []
    for k, column in enumerate(header):
        name, _, interface = column.rpartition('/')
        if not name or interface not in INTERFACE_KIND:
            passed.append(k)
        elif name in src_index:
            inputs.setdefault(interface, []).append((k, src_index[name]))
        elif keep_unknown:
            passed.append(k)
        else:
            unknown.append(column)
    if unknown:
        side = 'actuator' if to_joint else 'joint'
        other = set(dst_names)
        hint = ''
        if any(c.rpartition('/')[0] in other for c in unknown):
            hint = (f'; some are {"joint" if to_joint else "actuator"} names: convert with '
                    f'--to {"actuator" if to_joint else "joint"} instead')
        raise CsvConvertError(
            f'columns {_some(unknown)} name no {side} of the robot{hint}; known {side}s: '
            f'{_some(src_names)} (pass --keep-unknown to copy such columns unchanged)')
    if not inputs:
        raise CsvConvertError(
            f'no column names a {"actuator" if to_joint else "joint"} of the robot as '
            '<name>/<interface>; nothing to convert')
    present = {i: {src_names[s] for _, s in cols} for i, cols in inputs.items()}
    state = present.get(POSITION, present.get(ABSOLUTE_POSITION, set()))
    dst_index = {n: i for i, n in enumerate(dst_names)}
    outputs: List[Tuple[str, int]] = []
    out_header = [header[k] for k in passed]
    for interface in inputs:
        produced = []
        for t in robot.transmissions:
            src = t.actuator_names if to_joint else t.joint_names
            dst = t.joint_names if to_joint else t.actuator_names
            if not all(n in present[interface] for n in src):
                continue
            if (t.transmission.requires_position_state()
                    and INTERFACE_KIND[interface] != POSITION
                    and not all(n in state for n in src)):
                continue
            produced += [n for n in dst if n not in produced]
        for n in produced:
            outputs.append((interface, dst_index[n]))
            out_header.append(f'{n}/{interface}')
    if len(set(out_header)) != len(out_header):
        dup = sorted({c for c in out_header if out_header.count(c) > 1})
        raise CsvConvertError(f'output column(s) {dup} would appear twice (a passed-through '
                              'column has the name of a converted one)')
    return _Plan(passed, inputs, outputs, out_header)


def _floats(rows: List[List[str]], columns: List[int], first_line: int,
            header: List[str]) -> np.ndarray:
    cells = np.array([[row[k] for k in columns] for row in rows], dtype=object)
    if cells.size:
        cells[cells == ''] = 'nan'
    try:
        return cells.astype(np.float64).reshape(len(rows), len(columns))
    except ValueError:
        for r, row in enumerate(rows):
            for k in columns:
                try:
                    float(row[k] or 'nan')
                except ValueError:
                    raise CsvConvertError(
                        f'line {first_line + r}: column {header[k]!r}: expected a number, got '
                        f'{row[k]!r}') from None
        raise


def _counted(lines: Iterable[str], counter: List[int]) -> Iterator[str]:
    for line in lines:
        counter[0] += len(line)
        yield line


def convert_csv(robot: RobotTransmissions, src: TextIO, dst: TextIO, to: str, *,
                chunk_size: int = 1000, keep_unknown: bool = False,
                progress: Optional[Callable[[int, int], None]] = None) -> ConvertStats:
    """
    Convert a CSV file between actuator and joint space, ``chunk_size`` rows at a time.

    :param robot: a :class:`~transmission_plugins.robot.robot_transmissions.RobotTransmissions`
    :param src: input text stream (open with ``newline=''``)
    :param dst: output text stream (open with ``newline=''``)
    :param to: ``'joint'`` (input columns are actuators) or ``'actuator'``
    :param chunk_size: rows per conversion, >= 1
    :param keep_unknown: copy ``<name>/<interface>`` columns of unknown names instead of failing
    :param progress: called after each chunk with (rows done, characters read)
    :returns: counts and column names
    :raises CsvConvertError: empty input, bad header, unknown names, bad numbers, ragged rows
    """
    if to not in (TO_JOINT, TO_ACTUATOR):
        raise CsvConvertError(f"to must be 'joint' or 'actuator', got {to!r}")
    if chunk_size < 1:
        raise CsvConvertError(f'chunk_size must be >= 1, got {chunk_size}')
    counter = [0]
    reader = csv.reader(_counted(src, counter))
    try:
        header = next(reader)
    except StopIteration:
        raise CsvConvertError('the input is empty (no header line)') from None
    plan = _plan(robot, header, to, keep_unknown)
    convert = (robot.actuator_to_joint_arrays if to == TO_JOINT
               else robot.joint_to_actuator_arrays)
    width = len(robot.actuator_names if to == TO_JOINT else robot.joint_names)
    writer = csv.writer(dst, lineterminator='\n')
    writer.writerow(plan.header)
    columns = {i: [k for k, _ in cols] for i, cols in plan.inputs.items()}
    slots = {i: [s for _, s in cols] for i, cols in plan.inputs.items()}
    rows_done = 0
    while True:
        rows: List[List[str]] = []
        first_line = reader.line_num + 1
        for row in reader:
            if len(row) != len(header):
                if not row:
                    continue
                raise CsvConvertError(f'line {reader.line_num}: expected {len(header)} fields '
                                      f'(as in the header), got {len(row)}')
            rows.append(row)
            if len(rows) == chunk_size:
                break
        if not rows:
            break
        values = {}
        for interface, cols in columns.items():
            full = np.full((len(rows), width), np.nan)
            full[:, slots[interface]] = _floats(rows, cols, first_line, header)
            values[interface] = full
        out = convert(values)
        block = np.empty((len(rows), len(plan.outputs)))
        for j, (interface, index) in enumerate(plan.outputs):
            block[:, j] = out[interface][:, index]
        nan = np.isnan(block)
        if nan.any():  # the csv module writes None as an empty cell, floats with repr()
            cells = block.astype(object)
            cells[nan] = None
            numbers = cells.tolist()
        else:
            numbers = block.tolist()
        passed = plan.passed
        writer.writerows([row[k] for k in passed] + values for row, values in zip(rows, numbers))
        rows_done += len(rows)
        if progress is not None:
            progress(rows_done, counter[0])
    converted = [header[k] for cols in columns.values() for k in cols]
    return ConvertStats(rows_done, converted, [header[k] for k in plan.passed],
                        plan.header[len(plan.passed):])
