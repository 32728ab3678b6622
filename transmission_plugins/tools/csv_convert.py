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

import contextlib
import csv
import os
from typing import Any
from typing import Callable
from typing import Dict
from typing import Iterable
from typing import Iterator
from typing import List
from typing import NamedTuple
from typing import Optional
from typing import TextIO
from typing import Tuple
from typing import Union

import numpy as np

from transmission_plugins.core.exceptions import TransmissionInputError
from transmission_plugins.core.interfaces import ABSOLUTE_POSITION
from transmission_plugins.core.interfaces import INTERFACE_KIND
from transmission_plugins.core.interfaces import POSITION
from transmission_plugins.robot.robot_transmissions import RobotTransmissions
from transmission_plugins.tools import csv_fast

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
            # the joints a transmission's joint-to-actuator maps read (the PR2 gripper: the
            # gap joint alone), as for the name-keyed robot maps
            src = t.actuator_names if to_joint else [
                t.joint_names[k] for k in t.transmission.joint_to_actuator_inputs()]
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


class _Job(NamedTuple):
    plan: _Plan
    convert: Callable[[Dict[str, np.ndarray]], Dict[str, np.ndarray]]
    width: int
    columns: Dict[str, List[int]]   # interface -> input columns
    slots: Dict[str, List[int]]     # interface -> source indices
    picks: List[Tuple[str, List[int]]]  # (interface, target indices) of the output columns


def _job(robot: RobotTransmissions, header: List[str], to: str, keep_unknown: bool) -> _Job:
    plan = _plan(robot, header, to, keep_unknown)
    convert = (robot.actuator_to_joint_arrays if to == TO_JOINT
               else robot.joint_to_actuator_arrays)
    width = len(robot.actuator_names if to == TO_JOINT else robot.joint_names)
    picks: List[Tuple[str, List[int]]] = []
    for interface, index in plan.outputs:  # grouped by interface, in order
        if not picks or picks[-1][0] != interface:
            picks.append((interface, []))
        picks[-1][1].append(index)
    return _Job(plan, convert, width, {i: [k for k, _ in c] for i, c in plan.inputs.items()},
                {i: [s for _, s in c] for i, c in plan.inputs.items()}, picks)


def _convert_block(job: _Job, numbers: Dict[str, np.ndarray]) -> np.ndarray:
    """Convert ``{interface: (rows, columns of it)}``; return the output columns' block."""
    rows = next(iter(numbers.values())).shape[0]
    values = {}
    for interface, x in numbers.items():
        full = np.full((rows, job.width), np.nan)
        full[:, job.slots[interface]] = x
        values[interface] = full
    out = job.convert(values)
    # the output columns come interface by interface (see _plan): one gather per interface
    return np.concatenate([out[i][:, index] for i, index in job.picks], axis=1)


def _slow_rows(job: _Job, reader: Any, header: List[str], dst: TextIO, chunk_size: int,
               skip: int, progress: Optional[Callable[[int], None]], counter: List[int]) -> int:
    """Convert with the standard library from data row ``skip`` on; return the rows done."""
    writer = csv.writer(dst, lineterminator='\n')
    passed = job.plan.passed
    rows_done = skip
    reported = counter[0]
    while True:
        rows: List[List[str]] = []
        first_line = reader.line_num + 1
        for row in reader:
            if len(row) != len(header):
                if not row:
                    continue
                raise CsvConvertError(f'line {reader.line_num}: expected {len(header)} fields '
                                      f'(as in the header), got {len(row)}')
            if skip:
                skip -= 1
                first_line = reader.line_num + 1
                continue
            rows.append(row)
            if len(rows) == chunk_size:
                break
        if not rows:
            return rows_done
        block = _convert_block(job, {i: _floats(rows, cols, first_line, header)
                                     for i, cols in job.columns.items()})
        nan = np.isnan(block)
        if nan.any():  # the csv module writes None as an empty cell, floats with repr()
            cells = block.astype(object)
            cells[nan] = None
            numbers = cells.tolist()
        else:
            numbers = block.tolist()
        writer.writerows([row[k] for k in passed] + values for row, values in zip(rows, numbers))
        rows_done += len(rows)
        if progress is not None:
            progress(counter[0] - reported)
            reported = counter[0]


def _fast_rows(job: _Job, path: str, header: List[str], dst: TextIO, chunk_size: int,
               progress: Optional[Callable[[int], None]]) -> Tuple[int, bool]:
    """
    Convert the data rows of ``path`` with Arrow and orjson (:mod:`~.csv_fast`).

    :returns: the rows done and whether the whole file was converted (False: Arrow rejected a
        block; the caller goes on from that row with the standard library)
    """
    numeric = sorted(k for cols in job.columns.values() for k in cols)
    where = {k: j for j, k in enumerate(numeric)}
    picks = {i: [where[k] for k in cols] for i, cols in job.columns.items()}
    passed = job.plan.passed
    text_index = [k for k in range(len(header)) if k not in where]
    text_pick = [text_index.index(k) for k in passed]
    rows_done = 0
    reported = 0
    with open(path, 'rb') as f:
        f.readline()  # the header (one line: checked by the caller)
        try:
            with contextlib.closing(csv_fast.read_batches(f, len(header), numeric)) as batches:
                for numbers, texts in rechunk(batches, chunk_size):
                    block = _convert_block(job, {i: numbers[:, p] for i, p in picks.items()})
                    dst.write(csv_fast.format_rows([texts[t] for t in text_pick], block))
                    rows_done += numbers.shape[0]
                    if progress is not None:
                        position = f.tell()
                        progress(position - reported)
                        reported = position
        except csv_fast.FastPathError:
            return rows_done, False
    return rows_done, True


def rechunk(batches: Iterable[Tuple[np.ndarray, List[List[str]]]], size: int
            ) -> Iterator[Tuple[np.ndarray, List[List[str]]]]:
    """
    Regroup ``(numbers, texts)`` batches into batches of exactly ``size`` rows (the last less).

    The conversion then sees the same row groups as the standard-library path, so matrix
    products of the same shapes give the same bits.
    """
    numbers: List[np.ndarray] = []
    texts: List[List[List[str]]] = []
    count = 0

    def joined() -> Tuple[np.ndarray, List[List[str]]]:
        block = np.concatenate(numbers) if len(numbers) > 1 else numbers[0]
        cells = [[c for part in texts for c in part[j]] for j in range(len(texts[0]))]
        return block, cells

    for x, t in batches:
        if not x.shape[0]:
            continue
        numbers.append(x)
        texts.append(t)
        count += x.shape[0]
        if count < size:
            continue
        block, cells = joined()
        start = 0
        while count - start >= size:
            yield block[start:start + size], [c[start:start + size] for c in cells]
            start += size
        numbers, texts, count = [block[start:]], [[c[start:] for c in cells]], count - start
    if count:
        yield joined()


def convert_csv(robot: RobotTransmissions, src: Union[TextIO, str, 'os.PathLike[str]'],
                dst: TextIO, to: str, *, chunk_size: int = 1000, keep_unknown: bool = False,
                progress: Optional[Callable[[int], None]] = None,
                fast: Optional[bool] = None) -> ConvertStats:
    """
    Convert a CSV file between actuator and joint space, ``chunk_size`` rows at a time.

    A file given by path is parsed and written by compiled code (:mod:`~.csv_fast`, when
    ``pyarrow`` and ``orjson`` are installed); a text stream, or ``fast=False``, uses the
    standard library.  Both give the same bytes.

    :param robot: a :class:`~transmission_plugins.robot.robot_transmissions.RobotTransmissions`
    :param src: input file path, or a text stream (open with ``newline=''``)
    :param dst: output text stream (open with ``newline=''``)
    :param to: ``'joint'`` (input columns are actuators) or ``'actuator'``
    :param chunk_size: rows per conversion, >= 1
    :param keep_unknown: copy ``<name>/<interface>`` columns of unknown names instead of failing
    :param progress: called after each chunk with the characters (bytes) read since the last
        call
    :param fast: use the compiled path for a file path (default: when available)
    :returns: counts and column names
    :raises CsvConvertError: empty input, bad header, unknown names, bad numbers, ragged rows
    """
    if to not in (TO_JOINT, TO_ACTUATOR):
        raise CsvConvertError(f"to must be 'joint' or 'actuator', got {to!r}")
    if chunk_size < 1:
        raise CsvConvertError(f'chunk_size must be >= 1, got {chunk_size}')
    if isinstance(src, (str, os.PathLike)):
        path = os.fspath(src)
        with open(path, newline='', encoding='utf-8') as stream:
            return _convert(robot, stream, dst, to, chunk_size, keep_unknown, progress,
                            path if (csv_fast.available() if fast is None else fast) else None)
    return _convert(robot, src, dst, to, chunk_size, keep_unknown, progress, None)


def _convert(robot: RobotTransmissions, src: TextIO, dst: TextIO, to: str, chunk_size: int,
             keep_unknown: bool, progress: Optional[Callable[[int], None]],
             fast_path: Optional[str]) -> ConvertStats:
    counter = [0]
    reader = csv.reader(_counted(src, counter))
    try:
        header = next(reader)
    except StopIteration:
        raise CsvConvertError('the input is empty (no header line)') from None
    job = _job(robot, header, to, keep_unknown)
    csv.writer(dst, lineterminator='\n').writerow(job.plan.header)
    rows_done = 0
    if fast_path is not None and reader.line_num == 1:
        rows_done, finished = _fast_rows(job, fast_path, header, dst, chunk_size, progress)
        if not finished:  # go on with the standard library from the first row not written
            rows_done = _slow_rows(job, reader, header, dst, chunk_size, rows_done, progress,
                                   counter)
    else:
        rows_done = _slow_rows(job, reader, header, dst, chunk_size, 0, progress, counter)
    converted = [header[k] for cols in job.columns.values() for k in cols]
    return ConvertStats(rows_done, converted, [header[k] for k in job.plan.passed],
                        job.plan.header[len(job.plan.passed):])
