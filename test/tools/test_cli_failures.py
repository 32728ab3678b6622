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
The data verbs when things go wrong (issue 23): corrupted bags, signals, full disks, memory.

Each runs the real command in a child process, as a user would, and checks the exit status, the
one-line error and that nothing partial is left beside the output.
"""

import csv
import os
import resource
import signal
import subprocess
import sys
import time

from bag_support import EXAMPLE_URDF
from bag_support import joint_state
from bag_support import JS
from bag_support import storage_file
from bag_support import write_bag
import numpy as np
import pytest
from rosbags.rosbag2 import Reader

# the command line in a child process, its limits and signals (test/stages.py)
pytestmark = pytest.mark.process

COMMAND = [sys.executable, '-m', 'transmission_plugins']


def _run(args, cwd, **kwargs):
    return subprocess.run(COMMAND + [str(a) for a in args], cwd=cwd, capture_output=True,
                          text=True, timeout=120, **kwargs)


def _actuator_bag(path, storage, count):
    from transmission_plugins.robot.loading import load_robot_transmissions
    robot = load_robot_transmissions(str(EXAMPLE_URDF), warn=False)
    q = np.linspace(-0.5, 0.5, count)[:, None] * np.ones(len(robot.joint_names))
    theta = robot.joint_to_actuator_arrays({'position': q})['position']
    return write_bag(path, storage, {'/actuator_states': JS}, [
        ('/actuator_states', 1000 + k, joint_state(robot.actuator_names, theta[k], theta[k]))
        for k in range(count)])


def _read_all(bag):
    with Reader(bag) as r:
        return r.message_count, sum(1 for _ in r.messages())


def test_a_corrupted_mcap_bag_is_an_error(tmp_path):
    # issue 23: rosbags skips the messages of a corrupted chunk without a word, and convert
    # exited 0 with 259 of 400 messages gone
    bag = _actuator_bag(tmp_path / 'in', 'mcap', 400)
    data = storage_file(bag)
    original = data.read_bytes()
    for at in range(64, len(original) - 64, 97):  # find bytes whose damage loses messages
        damaged = bytearray(original)
        damaged[at:at + 8] = bytes(b ^ 0xFF for b in damaged[at:at + 8])
        data.write_bytes(bytes(damaged))
        try:
            declared, read = _read_all(bag)
        except Exception:  # noqa: B902 - a loud failure: not the case looked for
            continue
        if read < declared:
            break
    else:
        pytest.fail('no damage found that makes rosbags lose messages silently')
    for out in ('out', 'out.csv'):
        proc = _run(['convert', EXAMPLE_URDF, bag, out, '--to', 'joint'], tmp_path)
        assert proc.returncode == 1, proc.stderr
        # (the rmw's deserializer may print a line of its own about a damaged message first)
        assert proc.stderr.endswith(f'transmission_plugins convert: error: {bag}: cannot read the '
                                    f'bag in full (corrupted): {read} of its {declared} messages '
                                    'could be read\n'), proc.stderr
        assert 'Traceback' not in proc.stderr
        assert sorted(p.name for p in tmp_path.iterdir()) == ['in']
    proc = _run(['export-csv', bag, 'out.csv', '--topic', 'actuator_states'], tmp_path)
    assert proc.returncode == 1 and 'cannot read the bag in full (corrupted)' in proc.stderr


def _wait_for(folder, prefix, proc, timeout=60.0):
    """Wait until a temporary output beside OUT exists (the conversion is under way)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end and proc.poll() is None:
        if any(p.name.startswith(prefix) for p in folder.iterdir()):
            return True
        time.sleep(0.005)
    return False


@pytest.mark.parametrize('kind', ['bag', 'csv'])
@pytest.mark.parametrize('signum', [signal.SIGTERM, signal.SIGINT])
def test_a_signal_mid_conversion_leaves_nothing_behind(kind, signum, tmp_path):
    # issue 23: SIGTERM mid-conversion left the partial temporary output
    if kind == 'bag':
        src = _actuator_bag(tmp_path / 'in', 'sqlite3', 6000)
        out, prefix = tmp_path / 'out', '.convert-'
    else:
        src = tmp_path / 'in.csv'
        with open(src, 'w', newline='') as f:
            w = csv.writer(f)
            w.writerow(['time', 'pan_motor/position', 'pan_motor/velocity'])
            w.writerows([k * 0.001, k * 1e-3, 0.5] for k in range(400000))
        out, prefix = tmp_path / 'out.csv', '.out.csv.'
    before = sorted(p.name for p in tmp_path.iterdir())
    proc = subprocess.Popen(COMMAND + ['convert', str(EXAMPLE_URDF), str(src), str(out),
                                       '--to', 'joint', '--chunk-size', '20'],
                            cwd=tmp_path, stderr=subprocess.PIPE, text=True)
    try:
        assert _wait_for(tmp_path, prefix, proc), 'the conversion ended before it was seen'
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 128 + signum, err
    name = signal.Signals(signum).name
    assert err.endswith(f'transmission_plugins convert: interrupted by {name}; no partial '
                        'output is left\n'), err
    assert 'Traceback' not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def _limited(fsize=None, memory=None):
    def limit():
        if fsize is not None:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write fails with EFBIG instead
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
        if memory is not None:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    return limit


@pytest.mark.parametrize('out', ['out.db3', 'out.mcap', 'out.csv'])
def test_a_full_disk_is_one_error_naming_the_output(out, tmp_path):
    # issue 23: a full disk while writing SQLite3 ended in a traceback; errors about the output
    # named the input or an internal temporary file
    src = _actuator_bag(tmp_path / 'in', 'mcap', 3000)
    proc = _run(['convert', EXAMPLE_URDF, src, out, '--to', 'joint'], tmp_path,
                preexec_fn=_limited(fsize=64 << 10))
    assert proc.returncode == 1, proc.stderr
    what = 'the CSV file' if out.endswith('.csv') else 'the bag'
    assert proc.stderr.startswith(f'transmission_plugins convert: error: {out}: cannot write '
                                  f'{what}: '), proc.stderr
    assert proc.stderr.count('\n') == 1 and 'Traceback' not in proc.stderr
    assert '.convert-' not in proc.stderr and '.part' not in proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ['in']


def test_exporting_a_topic_of_20000_names_is_refused_in_bounded_memory(tmp_path):
    # issue 23: export-csv of a 2 MB bag with 20,000 distinct names exhausted 2 GiB
    src = write_bag(tmp_path / 'in', 'mcap', {'/joint_states': JS}, [
        ('/joint_states', 1000 + k, joint_state([f'joint_{k}'], [0.1], [0.2], [0.3]))
        for k in range(20000)])
    proc = _run(['export-csv', src, 'out.csv', '--topic', 'joint_states'], tmp_path,
                preexec_fn=_limited(memory=2 << 30))
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr == (
        f'transmission_plugins export-csv: error: {src}: /joint_states: the topic carries '
        '6000 or more distinct names, more than 16384 columns with 3 interface(s): too many for '
        'a CSV table (export a topic of fewer names)\n')
    assert sorted(p.name for p in tmp_path.iterdir()) == ['in']
    assert os.path.getsize(storage_file(src)) < 4 << 20


def _damaged_bag(path, damaged):
    """Write 50 actuator messages, those at the indices ``damaged`` with their bytes spoilt."""
    from bag_support import STORE
    from rosbags.rosbag2 import StoragePlugin
    from rosbags.rosbag2 import Writer
    from transmission_plugins.robot.loading import load_robot_transmissions
    robot = load_robot_transmissions(str(EXAMPLE_URDF), warn=False)
    with Writer(path, version=9, storage_plugin=StoragePlugin.MCAP) as w:
        c = w.add_connection('/actuator_states', JS, typestore=STORE)
        for k in range(50):
            raw = bytes(STORE.serialize_cdr(
                joint_state(robot.actuator_names, np.full(6, 0.01 * k)), JS))
            if k in damaged:   # a sequence length far beyond the message: Fast CDR refuses it
                raw = raw[:20] + b'\xff' * (len(raw) - 20)
            w.write(c, 1000 + k, raw)
    return path


#: what the damage below does to a message, in the decoder's words: its name sequence's length
WHAT = 'its bytes are not a sensor_msgs/JointState in CDR (a damaged message?): 4294967295 names'
UNDECODABLE = f'undecodable: {WHAT} in 204 bytes'


def test_a_damaged_message_is_one_line_naming_the_bag(tmp_path):
    # issue 34: a corrupt MCAP ended with a raw "Fast CDR exception" text and an unrelated
    # --lenient hint (and the rmw's own lines before it)
    bag = _damaged_bag(tmp_path / 'in', {5})
    for args, verb in ((['convert', EXAMPLE_URDF, bag, 'out.csv', '--to', 'joint', '--strict'],
                        'convert'),
                       (['export-csv', bag, 'out.csv', '--topic', 'actuator_states', '--strict'],
                        'export-csv')):
        proc = _run(args, tmp_path)
        assert proc.returncode == 1
        assert proc.stderr == (
            f'transmission_plugins {verb}: error: {bag}: /actuator_states: the message received '
            f'at 0.000001005 cannot be converted in full: {UNDECODABLE} (--strict)\n')
    proc = _run(['convert', EXAMPLE_URDF, bag, 'out.csv', '--to', 'joint'], tmp_path)
    assert proc.returncode == 0
    assert 'CDR exception' not in proc.stderr and 'RMWError' not in proc.stderr
    assert proc.stderr.splitlines()[-1] == (
        f'  undecodable: 1 (first on /actuator_states at 0.000001005: {WHAT} in 204 bytes)')
    assert len(proc.stderr.splitlines()) == 3   # converted; warning; the reason
    assert sorted(p.name for p in tmp_path.iterdir()) == ['in', 'out.csv']


def test_a_bag_of_damaged_messages_is_one_line_naming_the_bag(tmp_path):
    bag = _damaged_bag(tmp_path / 'in', set(range(50)))
    proc = _run(['convert', EXAMPLE_URDF, bag, 'out.csv', '--to', 'joint'], tmp_path)
    assert proc.returncode == 1
    assert proc.stderr == (
        f'transmission_plugins convert: error: {bag}: /actuator_states: none of its 50 '
        f'message(s) could be converted, nothing written: undecodable: 50 (first at '
        f'0.000001000: {WHAT} in 204 bytes)\n')
    proc = _run(['plot', EXAMPLE_URDF, bag, 'out.png'], tmp_path)
    assert proc.returncode == 1
    assert proc.stderr == (
        f'transmission_plugins plot: error: {bag}: none of the 50 messages of /actuator_states '
        'could be decoded: their bytes are not a sensor_msgs/JointState in CDR (a damaged '
        'bag?)\n')
    assert sorted(p.name for p in tmp_path.iterdir()) == ['in']
