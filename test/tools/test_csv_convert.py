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

"""CSV conversion through Arrow: exact numbers, csv-style text cells, bad input named."""

import csv
import io

from bag_support import EXAMPLE_URDF
import numpy as np
import pytest

from tp_support import PR2_URDF
from transmission_plugins.robot.loading import load_robot_transmissions
from transmission_plugins.tools.cli import main
from transmission_plugins.tools.data.csv_convert import convert_csv
from transmission_plugins.tools.data.csv_io import CsvError
from transmission_plugins.tools.data.csv_io import CsvWriter

INTERFACES = ('position', 'velocity', 'effort')
NOTES = ['a, "q"', '', 'x\ny', 'ü', 'line\r', 'plain']


def _csv(path, robot, rows, seed, names, note=True):
    """Write a CSV the csv module's way: repr digits, tiny values, NaN cells, awkward notes."""
    rng = np.random.default_rng(seed)
    header = ['time'] + [f'{n}/{i}' for i in INTERFACES for n in names] + (['note'] if note
                                                                           else [])
    data = rng.uniform(-2, 2, (rows, len(names) * 3))
    lower = np.where(np.isfinite(robot.joint_lower), robot.joint_lower, -1.0)
    upper = np.where(np.isfinite(robot.joint_upper), robot.joint_upper, 1.0)
    q = rng.uniform(lower, upper, (rows, len(robot.joint_names)))
    data[:, :len(names)] = (q if names == robot.joint_names
                            else robot.joint_to_actuator_arrays({'position': q})['position'])
    data[rng.random(data.shape) < 0.003] = np.nan
    data[rng.random(data.shape) < 0.003] *= 1e-7
    with open(path, 'w', newline='') as f:
        w = csv.writer(f)
        w.writerow(header)
        for k, row in enumerate(data.tolist()):
            cells = [f'{k * 0.001:.3f}'] + [None if v != v else v for v in row]
            w.writerow(cells + ([NOTES[k % len(NOTES)]] if note else []))
    return path, header, data


def _robots():
    out = [pytest.param(EXAMPLE_URDF, id='example_robot')]
    out.append(pytest.param(PR2_URDF, id='pr2', marks=pytest.mark.skipif(
        not PR2_URDF.is_file(), reason=f'URDF corpus not found at {PR2_URDF}')))
    return out


@pytest.mark.parametrize('urdf', _robots())
@pytest.mark.parametrize('to', ['joint', 'actuator'])
def test_numbers_are_exact_text_is_kept_and_chunks_do_not_matter(urdf, to, tmp_path):
    robot = load_robot_transmissions(str(urdf), warn=False)
    names = robot.actuator_names if to == 'joint' else robot.joint_names
    src, header, data = _csv(tmp_path / 'in.csv', robot, 700, seed=3, names=names)
    outputs = []
    for chunk in (1, 97, 1000):
        out = io.BytesIO()
        stats = convert_csv(robot, src, out, to, chunk_size=chunk)
        outputs.append(out.getvalue())
    assert outputs[0] == outputs[1] == outputs[2]
    with open(src, 'rb') as stream:  # a stream gives the same bytes as a path
        out = io.BytesIO()
        assert convert_csv(robot, stream, out, to) == stats
    assert out.getvalue() == outputs[0]
    rows = list(csv.reader(io.StringIO(outputs[0].decode(), newline='')))
    assert rows[0][:2] == ['time', 'note'] and len(rows) == 701
    assert [r[1] for r in rows[1:]] == [NOTES[k % len(NOTES)] for k in range(700)]
    assert [r[0] for r in rows[1:]] == [f'{k * 0.001:.3f}' for k in range(700)]
    # every number reads back to the float64 the robot's maps give (the csv module's parse)
    convert = (robot.actuator_to_joint_arrays if to == 'joint'
               else robot.joint_to_actuator_arrays)
    width = len(names)
    with np.errstate(all='ignore'):
        ref = convert({i: data[:, k * width:(k + 1) * width]
                       for k, i in enumerate(INTERFACES)})
    for j, column in enumerate(rows[0][2:]):
        name, _, interface = column.rpartition('/')
        index = (robot.joint_index if to == 'joint' else robot.actuator_index)[name]
        expected = ref[interface][:, index]
        got = np.array([float(r[2 + j]) if r[2 + j] else np.nan for r in rows[1:]])
        assert np.array_equal(got, np.where(np.isfinite(expected), expected, np.nan),
                              equal_nan=True), column
    assert stats.non_finite == 0 and stats.first_non_finite is None


def test_the_writer_quotes_like_the_csv_module_and_spells_numbers_shortest():
    out = io.BytesIO()
    writer = CsvWriter(out, ['t', 'note', 'x'])
    writer.write([['0', '1', '2', '3'], ['', 'a,b', 'say "hi"', 'two\nlines']],
                 np.array([[1.0], [1e-05], [np.inf], [np.nan]]))
    assert out.getvalue().decode() == ('t,note,x\n0,,1\n1,"a,b",0.00001\n2,"say ""hi""",\n'
                                       '3,"two\nlines",\n')
    lone = io.BytesIO()  # a lone empty cell is "" (a blank line would be no row at all)
    CsvWriter(lone, ['x']).write([], np.array([[np.nan], [2.5]]))
    assert lone.getvalue() == b'x\n""\n2.5\n'
    values = np.array([[5e-324, -0.0, 1e16, 0.1, 1 / 3, 1.7976931348623157e308]])
    text = io.BytesIO()
    CsvWriter(text, ['a'] * 6).write([], values)
    back = [float(c) for c in text.getvalue().decode().splitlines()[1].split(',')]
    assert np.array_equal(np.array(back).view(np.int64), values[0].view(np.int64))


def test_values_that_are_not_finite_are_left_empty_and_counted(tmp_path, capsys):
    # issue 23: an infinite input made convert write "inf"
    src = tmp_path / 'in.csv'
    src.write_text('time,pan_motor/position,wrist_left_motor/position,'
                   'wrist_right_motor/position\n'
                   '0,1.0,inf,0.5\n'
                   '1,-inf,,0.5\n'
                   '2,1e308,0.1,0.2\n')
    out = tmp_path / 'out.csv'
    assert main(['convert', str(EXAMPLE_URDF), str(src), str(out), '--to', 'joint']) == 0
    text = out.read_text()
    assert 'inf' not in text and 'nan' not in text
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == ['time', 'pan_joint/position', 'wrist_pitch_joint/position',
                       'wrist_roll_joint/position']
    assert rows[1][1] != '' and rows[1][2:] == ['', '']      # inf spoils both wrist joints
    assert rows[2][1] == '' and rows[2][2:] == ['', '']      # -inf; an empty cell is no error
    assert all(rows[3][1:])
    err = capsys.readouterr().err
    assert ('warning: 3 converted value(s) were not finite (an infinite input, or one outside '
            'the range a transmission maps) and were left empty; the first on line 2, column '
            "'wrist_pitch_joint/position'") in err


def test_a_gap_outside_the_gripper_range_is_left_empty_not_folded_back(tmp_path, capsys):
    """On e6277b7 --to actuator turned a gap of -1 m into the motor position of +0.100 m."""
    src = tmp_path / 'in.csv'
    src.write_text('gripper_joint/position,pan_joint/position\n-1.0,0.1\n0.04,0.1\n')
    out = tmp_path / 'out.csv'
    assert main(['convert', str(EXAMPLE_URDF), str(src), str(out), '--to', 'actuator']) == 0
    rows = list(csv.reader(io.StringIO(out.read_text())))
    assert rows[0] == ['pan_motor/position', 'gripper_motor/position']
    assert rows[1][0] != '' and rows[1][1] == ''
    assert all(rows[2])
    assert 'outside the range a transmission maps' in capsys.readouterr().err


def test_a_bad_number_far_into_the_file_names_line_column_and_value(tmp_path, capsys):
    robot = load_robot_transmissions(str(EXAMPLE_URDF), warn=False)
    src, _, _ = _csv(tmp_path / 'in.csv', robot, 30000, seed=4, names=robot.actuator_names,
                     note=False)
    lines = src.read_text().splitlines(keepends=True)
    cells = lines[25000].split(',')
    for bad in ('fast', '1_000.5'):  # float() accepts the second; CSV readers do not
        cells[2] = bad
        lines[25000] = ','.join(cells)
        src.write_text(''.join(lines))
        with pytest.raises(CsvError, match=r"^line 25001: column 'shoulder_motor/position': "
                                           f"expected a number, got '{bad}'$"):
            convert_csv(robot, src, io.BytesIO(), 'joint')
    out = tmp_path / 'out.csv'
    assert main(['convert', str(EXAMPLE_URDF), str(src), str(out), '--to', 'joint']) == 1
    assert capsys.readouterr().err == (
        f'transmission_plugins convert: error: {src}: line 25001: column '
        "'shoulder_motor/position': expected a number, got '1_000.5'\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ['in.csv']


def test_long_cells_convert_and_a_row_beyond_a_block_is_one_error(tmp_path, capsys):
    # issue 23: a cell over 128 KiB (the csv module's field limit) ended in a traceback
    src = tmp_path / 'in.csv'
    long = 'x' * (200 << 10)
    src.write_text(f'note,pan_motor/position\n"{long}",100\nshort,200\n')
    out = tmp_path / 'out.csv'
    assert main(['convert', str(EXAMPLE_URDF), str(src), str(out), '--to', 'joint']) == 0
    rows = [line.split(',') for line in out.read_text().splitlines()]  # csv: field limit
    assert rows[0] == ['note', 'pan_joint/position'] and rows[1][0] == long
    assert float(rows[2][1]) == pytest.approx(2 * float(rows[1][1]))
    src.write_text(f'note,pan_motor/position\nshort,100\n{"y" * (2 << 20)},100\n')
    out.unlink()
    capsys.readouterr()
    assert main(['convert', str(EXAMPLE_URDF), str(src), str(out), '--to', 'joint']) == 1
    err = capsys.readouterr().err
    assert err == (f'transmission_plugins convert: error: {src}: line 3: a row longer than '
                   '1024 KiB; rows of recorded data are far shorter (is this CSV?)\n')
    assert sorted(p.name for p in tmp_path.iterdir()) == ['in.csv']
    src.write_text(f'{"h" * (200 << 10)}\n1\n')  # the header: its own clear error
    assert main(['convert', str(EXAMPLE_URDF), str(src), str(out), '--to', 'joint']) == 1
    assert 'line 1: the header is not CSV text: field larger than field limit' in \
        capsys.readouterr().err


def test_an_output_that_cannot_be_written_is_named_as_given(tmp_path, capsys):
    # issue 23: errors about the output named the input (or a temporary file)
    src = tmp_path / 'in.csv'
    src.write_text('time,pan_motor/position\n0,1\n')
    out = tmp_path / 'missing' / 'out.csv'
    assert main(['convert', str(EXAMPLE_URDF), str(src), str(out), '--to', 'joint']) == 1
    assert capsys.readouterr().err == (f'transmission_plugins convert: error: {out}: cannot '
                                       'write the CSV file: No such file or directory\n')
