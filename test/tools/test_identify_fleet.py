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
``transmission_plugins identify URDF BAG...``: a folder of bags in parallel; the per-bag function.

Two short recordings of test/drivetrain_recording.py's robot (different motions) and a file that
is no bag, in a folder with a subfolder; every expected result is the one-bag command's.
"""

from concurrent.futures import ProcessPoolExecutor
import contextlib
import io
import json
import multiprocessing
import pickle

from drivetrain_recording import record
from drivetrain_recording import URDF
import pytest
from test_identify import write_recording

from transmission_plugins.tools.cli import main
from transmission_plugins.tools.cli.identify_fleet import identify_recording


@pytest.fixture(scope='module')
def fleet(tmp_path_factory):
    """Return a folder: two bags (one in a subfolder) and a broken one; and their paths."""
    root = tmp_path_factory.mktemp('fleet')
    (root / 'robot_b').mkdir()
    a = write_recording(root / 'a.mcap', record(duration=1.5))
    b = write_recording(root / 'robot_b' / 'b.mcap', record(duration=1.5, amplitude=0.5))
    broken = root / 'robot_b' / 'broken.mcap'
    broken.write_bytes(b'not a bag')
    return root, [a, b], str(broken)


def _run(*args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(['identify', *map(str, args)])
    return code, out.getvalue(), err.getvalue()


@pytest.mark.process   # the worker processes
def test_a_folder_in_parallel_equals_each_bag_alone_and_names_the_bad_one(fleet):
    """--jobs 2 on the folder: each bag's object is the one-bag command's; the broken one named."""
    root, bags, broken = fleet
    code, text, err = _run(URDF, root, '--json', '--jobs', '2')
    assert code == 1   # one bag failed
    result = json.loads(text)
    assert list(result['bags']) == bags   # sorted, the subfolder searched
    for bag in bags:
        alone_code, alone, _ = _run(URDF, bag, '--json')
        assert alone_code == 0
        assert result['bags'][bag] == json.loads(alone)
    assert list(result['errors']) == [broken]
    assert result['errors'][broken].startswith(f'{broken}: cannot read the bag')
    assert f'identify: error: {broken}: cannot read the bag' in err


def test_the_summary_table(fleet):
    """Text: a report per bag, then one row per bag and transmission (and per coupled end)."""
    root, bags, broken = fleet
    code, text, _ = _run(URDF, *bags, broken, '--jobs', '1')
    assert code == 1
    for bag in bags:
        assert f'== {bag} ==' in text
    table = text[text.index('summary: 3 bags, 2 identified, 1 failed'):].splitlines()[1:]
    assert table[0].split()[:4] == ['bag', 'transmission', 'coulomb_friction',
                                    'viscous_friction']
    assert table[0].endswith('not excited')
    alone = json.loads(_run(URDF, bags[0], '--json')[1])['transmissions']
    geared = [row for row in table if row.startswith(bags[0]) and ' geared_trans ' in row]
    value, sigma = alone['geared_trans']['coulomb_friction'], \
        alone['geared_trans']['coulomb_friction_sigma']
    assert len(geared) == 1 and f'{value:.4g} +- {sigma:.2g}' in geared[0]
    ends = [row.split()[2] for row in table if row.startswith(bags[1] + ' ')
            and 'diff_trans:' in row]
    assert ends == ['diff_joint_1', 'diff_joint_2', 'diff_motor_1', 'diff_motor_2']
    assert table[-1].split()[:2] == [broken, 'failed']
    assert len(table) == 1 + 2 * 8 + 1   # header, 4 transmissions and 4 ends per bag, failure


@pytest.mark.process   # the worker processes
def test_identify_recording_in_a_process_pool_is_the_command(fleet):
    """The per-bag function pickles, runs in worker processes and returns the --json object."""
    _, bags, _ = fleet
    assert pickle.loads(pickle.dumps(identify_recording)) is identify_recording
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context('spawn')) as pool:
        results = list(pool.map(identify_recording, [str(URDF)] * 2, bags))
    for bag, result in zip(bags, results):
        assert result == json.loads(_run(URDF, bag, '--json')[1])
    assert json.loads(json.dumps(results, allow_nan=False)) == results   # plain JSON


def test_a_folder_without_bags_and_write_urdf_with_several(tmp_path, fleet):
    """A folder without a bag is an error naming it; --write-urdf takes one bag only."""
    empty = tmp_path / 'empty'
    (empty / 'sub').mkdir(parents=True)
    code, _, err = _run(URDF, empty)
    assert code == 1 and f'{empty}: no rosbag2 bag in this folder' in err
    _, bags, _ = fleet
    out = tmp_path / 'out.urdf'
    code, _, err = _run(URDF, *bags, '--write-urdf', out)
    assert code == 1 and '--write-urdf writes what one bag gives: give one bag' in err
    assert not out.exists()
