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

"""The compiled CSV path (pyarrow + orjson) writes the standard library's bytes."""

import csv
import io
import threading

from bag_support import EXAMPLE_URDF
import numpy as np
import pytest

from tp_support import PR2_URDF
from transmission_plugins.robot.loading import load_robot_transmissions
from transmission_plugins.tools import csv_fast
from transmission_plugins.tools.csv_convert import convert_csv
from transmission_plugins.tools.csv_convert import CsvConvertError

if not csv_fast.available():  # pragma: no cover - both are pinned in requirements.txt
    print('test_csv_fast: pyarrow or orjson missing; the fast path is not tested')
    pytestmark = pytest.mark.skip(reason='pyarrow or orjson not installed')

INTERFACES = ('position', 'velocity', 'effort')
TRICKY = [0.0, -0.0, 1e-05, -9.99e-05, 1e-4, 5e-324, 1e-300, 1e16, 1.5e16, 123456789.125,
          7.7e307, float('inf'), -float('inf')]


def _reference(block, texts=()):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator='\n')
    for k, row in enumerate(block.tolist()):
        w.writerow([t[k] for t in texts] + [None if v != v else v for v in row])
    return buf.getvalue()


@pytest.mark.parametrize('seed', range(5))
def test_format_rows_equals_csv_writer(seed):
    rng = np.random.default_rng(seed)
    block = rng.uniform(-3, 3, (300, 17)) * 10.0 ** rng.integers(-8, 18, (300, 17))
    picks = rng.random(block.shape)
    block[picks < 0.05] = np.nan
    special = picks > 0.97
    block[special] = rng.choice(TRICKY, int(special.sum()))
    texts = [[f'{k * 0.01:.2f}' for k in range(300)],
             [rng.choice(['', 'a, "b"', 'line\nbreak', 'plain', 'é\r']) for _ in range(300)]]
    assert csv_fast.format_rows(texts, block) == _reference(block, texts)
    assert csv_fast.format_rows([], block) == _reference(block)
    assert csv_fast.format_rows(texts[:1], block[:, :0]) == _reference(block[:, :0], texts[:1])


def test_format_rows_lone_empty_cell():
    block = np.array([[np.nan], [1.0], [np.nan]])
    assert csv_fast.format_rows([], block) == '""\n1.0\n""\n' == _reference(block)
    assert csv_fast.format_rows([['', 'x', '']], block) == _reference(block, [['', 'x', '']])


def test_format_rows_nulls_at_row_edges():
    # the split at orjson's ``null``: empty and respelled cells first, last and alone in a row
    tiny = [1.5e-05, -2e-07, float('inf'), np.nan]
    rng = np.random.default_rng(7)
    for n in (1, 2, 5):
        block = rng.uniform(-1, 1, (40, n))
        block[::3, 0] = rng.choice(tiny, len(block[::3]))
        block[1::4, -1] = rng.choice(tiny, len(block[1::4]))
        block[5] = np.nan
        block[6] = 3e-06
        texts = [[f'{k}' for k in range(40)], ['', ',', 'a"b', 'null'] * 10]
        assert csv_fast.format_rows(texts, block) == _reference(block, texts)
        assert csv_fast.format_rows(texts[1:], block) == _reference(block, texts[1:])
        if n > 1:
            assert csv_fast.format_rows([], block) == _reference(block)


def test_small_values_spelled_like_repr():
    # orjson writes 0.0000D... and De-7 where repr writes D.De-05 and De-07
    rng = np.random.default_rng(11)
    values = rng.uniform(-10, 10, 20000) * 10.0 ** rng.integers(-325, -4, 20000)
    values = np.concatenate([values[values != 0], [
        1e-05, -1e-05, 9.999999999999999e-05, -1.2345678901234567e-05, 1e-06, 9.99e-06,
        1e-07, 5e-324, -5e-324, 2.2250738585072014e-308, 1e-300, np.inf, -np.inf]])
    assert csv_fast._small_reprs(values) == [repr(v).encode() for v in values.tolist()]


def test_prefetch_keeps_order_and_raises_in_place():
    def items(fail_at):
        for k in range(10):
            if k == fail_at:
                raise csv_fast.FastPathError(f'bad block {k}')
            yield k

    with csv_fast.Prefetch(items(None)) as it:
        assert list(it) == list(range(10))
        assert next(it, 'end') == 'end'
    got = []
    with pytest.raises(csv_fast.FastPathError, match='bad block 6'):
        with csv_fast.Prefetch(items(6), depth=1) as it:
            for k in it:
                got.append(k)
    assert got == list(range(6))


def test_prefetch_stops_its_thread_when_left_early():
    produced = []

    def endless():
        k = 0
        while True:
            produced.append(k)
            yield k
            k += 1

    with csv_fast.Prefetch(endless(), depth=2) as it:
        assert next(it) == 0
    assert not it._thread.is_alive()
    assert len(produced) <= 4  # the one taken, the queue (2), the one waiting to be queued


def test_read_batches_ahead_or_not_and_closed_early(tmp_path):
    rng = np.random.default_rng(5)
    data = rng.uniform(-1, 1, (3000, 6))
    data[rng.random(data.shape) < 0.01] = np.nan
    path = tmp_path / 'in.csv'
    with open(path, 'w', newline='') as f:
        w = csv.writer(f)
        w.writerow(['t', 'a', 'b', 'c', 'd', 'e', 'f'])
        w.writerows([f'x{k}'] + [None if v != v else v for v in row]
                    for k, row in enumerate(data.tolist()))
    for ahead in (0, 1, 2):
        with open(path, 'rb') as f:
            f.readline()
            blocks = list(csv_fast.read_batches(f, 7, range(1, 7), block_size=4096, ahead=ahead))
        assert len(blocks) > 10  # many Arrow blocks
        numbers = np.concatenate([b[0] for b in blocks])
        assert np.array_equal(numbers, data, equal_nan=True)
        texts = [c for b in blocks for c in b[1][0]]
        assert texts == [f'x{k}' for k in range(3000)]
    with open(path, 'rb') as f:
        f.readline()
        batches = csv_fast.read_batches(f, 7, range(1, 7), block_size=4096)
        next(batches)
        batches.close()  # the parsing thread ends before the file is closed
        assert not any(t.name == 'csv-prefetch' for t in threading.enumerate())


def _csv(path, robot, rows, seed, names=None, note=True):
    rng = np.random.default_rng(seed)
    names = names or robot.actuator_names
    header = ['time'] + [f'{n}/{i}' for i in INTERFACES for n in names] + (['note'] if note
                                                                           else [])
    data = rng.uniform(-2, 2, (rows, len(names) * 3))
    lower = np.where(np.isfinite(robot.joint_lower), robot.joint_lower, -1.0)
    upper = np.where(np.isfinite(robot.joint_upper), robot.joint_upper, 1.0)
    q = rng.uniform(lower, upper, (rows, len(robot.joint_names)))
    positions = (q if names == robot.joint_names
                 else robot.joint_to_actuator_arrays({'position': q})['position'])
    data[:, :len(names)] = positions
    data[rng.random(data.shape) < 0.003] = np.nan
    data[rng.random(data.shape) < 0.003] *= 1e-7
    with open(path, 'w', newline='') as f:
        w = csv.writer(f)
        w.writerow(header)
        for k, row in enumerate(data.tolist()):
            cells = [f'{k * 0.001:.3f}'] + [None if v != v else v for v in row]
            w.writerow(cells + ([['a, "q"', '', 'x\ny', 'ü'][k % 4]] if note else []))
    return path


def _robots():
    out = [pytest.param(EXAMPLE_URDF, id='example_robot')]
    out.append(pytest.param(PR2_URDF, id='pr2', marks=pytest.mark.skipif(
        not PR2_URDF.is_file(), reason=f'URDF corpus not found at {PR2_URDF}')))
    return out


@pytest.mark.parametrize('urdf', _robots())
@pytest.mark.parametrize('to', ['joint', 'actuator'])
def test_fast_path_writes_the_same_bytes(urdf, to, tmp_path):
    robot = load_robot_transmissions(str(urdf), warn=False)
    names = robot.actuator_names if to == 'joint' else robot.joint_names
    src = _csv(tmp_path / 'in.csv', robot, 700, seed=3, names=names)
    for chunk in (1, 97, 1000):
        slow, fast = io.StringIO(), io.StringIO()
        stats = convert_csv(robot, src, slow, to, fast=False, chunk_size=chunk)
        assert convert_csv(robot, src, fast, to, fast=True, chunk_size=chunk) == stats
        assert fast.getvalue() == slow.getvalue()
    # a text stream takes the standard-library path: same bytes again
    with open(src, newline='') as f:
        stream = io.StringIO()
        convert_csv(robot, f, stream, to)
    assert stream.getvalue() == fast.getvalue()


def test_fast_path_falls_back_on_spellings_arrow_rejects(tmp_path):
    robot = load_robot_transmissions(str(EXAMPLE_URDF), warn=False)
    src = _csv(tmp_path / 'in.csv', robot, 30000, seed=4, note=False)
    lines = src.read_text().splitlines(keepends=True)
    cells = lines[25000].split(',')
    cells[2] = '1_000.5'  # float() accepts it, Arrow does not
    lines[25000] = ','.join(cells)
    src.write_text(''.join(lines))
    slow, fast = io.StringIO(), io.StringIO()
    convert_csv(robot, src, slow, 'joint', fast=False)
    stats = convert_csv(robot, src, fast, 'joint', fast=True)
    assert stats.rows == 30000
    assert fast.getvalue() == slow.getvalue()
    cells[2] = 'fast'
    lines[25000] = ','.join(cells)
    src.write_text(''.join(lines))
    for use_fast in (False, True):
        with pytest.raises(CsvConvertError, match=r"line 25001: column 'shoulder_motor/position"
                                                  r"': expected a number, got 'fast'"):
            convert_csv(robot, src, io.StringIO(), 'joint', fast=use_fast)
