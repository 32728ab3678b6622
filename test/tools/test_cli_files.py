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
The verbs on files that are not what they seem (issue 34: G-15, G-16, G-18, G-19, G-20).

Each runs the real command in a child process with a timeout (a FIFO used to block it for good)
and checks the exit status, the one error line naming the file and the cause, and that the
files the test made are as they were.  Every FIFO is the test's own, made in ``tmp_path``; no
device and no path outside ``tmp_path`` is ever written.
"""

import contextlib
import io
import os
import resource
import shutil
import stat
import subprocess
import sys

import pytest
from tp_support import REPO

# the command line in a child process, its limits and signals (test/stages.py)
pytestmark = pytest.mark.process

COMMAND = [sys.executable, '-m', 'transmission_plugins']
EXAMPLE = REPO / 'urdf' / 'example_robot.urdf.xacro'
MISTAKES = REPO / 'doc' / 'examples' / 'example_robot_mistakes.urdf'
BAG = REPO / 'doc' / 'examples' / 'calibration_recording.mcap'
PROG = 'transmission_plugins'


def _run(args, cwd, memory=None):
    """Run the command; ``memory``: bound its address space (bytes; not with a .xacro)."""
    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    try:
        return subprocess.run(COMMAND + [str(a) for a in args], cwd=cwd, capture_output=True,
                              text=True, timeout=60, preexec_fn=limit if memory else None)
    except subprocess.TimeoutExpired:
        pytest.fail(f'{args[0]} did not finish within 60 s (blocked on a FIFO?)')


def _one_error_line(proc, verb):
    assert proc.returncode == 1, (proc.returncode, proc.stderr)
    assert 'Traceback' not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith(f'{PROG} {verb}: error: '), proc.stderr
    return lines[0][len(f'{PROG} {verb}: error: '):]


def _is_fifo(path):
    return stat.S_ISFIFO(os.stat(path).st_mode)


VERBS = {
    'lint': ['lint', '{urdf}'],
    'inspect': ['inspect', '{urdf}'],
    'export': ['export', '{urdf}', '--to', 'drake', 'out.urdf'],
    'ros2-control': ['ros2-control', '{urdf}'],
    'calibrate': ['calibrate', '{urdf}', str(BAG)],
}


@pytest.mark.parametrize('verb', sorted(VERBS))
def test_a_fifo_as_the_urdf_is_refused_at_once(verb, tmp_path):
    # G-19: a FIFO as the URDF argument hung lint, export, ros2-control and calibrate
    fifo = tmp_path / 'robot.urdf'
    os.mkfifo(fifo)
    proc = _run([a.format(urdf=fifo) for a in VERBS[verb]], tmp_path)
    assert _one_error_line(proc, verb) == (f'{fifo}: cannot read the URDF: it is a FIFO (named '
                                           'pipe), not a regular file')
    assert sorted(p.name for p in tmp_path.iterdir()) == ['robot.urdf'] and _is_fifo(fifo)


def test_a_fifo_as_a_xacro_file_is_refused_at_once(tmp_path):
    fifo = tmp_path / 'robot.urdf.xacro'
    os.mkfifo(fifo)
    proc = _run(['inspect', fifo], tmp_path)
    assert _one_error_line(proc, 'inspect') == (f'{fifo}: cannot read the URDF: it is a FIFO '
                                                '(named pipe), not a regular file')


@pytest.mark.parametrize('verb', ['lint', 'inspect'])
def test_a_file_that_is_not_xml_is_named_not_printed(verb, tmp_path):
    # G-20: lint printed the contents of a non-XML file as if they were a file name
    path = tmp_path / 'notes.txt'
    path.write_text('hello world\nthis is not a URDF\n')
    proc = _run([verb, path], tmp_path)
    assert _one_error_line(proc, verb) == (f'{path}: not a URDF: expected XML (starting with '
                                           "'<'), got 'hello world\\nthis is not a URDF'")
    empty = tmp_path / 'empty.urdf'
    empty.write_text('\n')
    proc = _run([verb, empty], tmp_path)
    assert _one_error_line(proc, verb) == (f'{empty}: not a URDF: expected XML (starting with '
                                           "'<'), got an empty file")


OUTPUTS = {
    'export': (['export', str(EXAMPLE), '--to', 'drake', '{out}'], 'the Drake URDF'),
    'ros2-control --write-block': (['ros2-control', str(EXAMPLE), '--write-block', '{out}'],
                                   'the <ros2_control> block'),
    'ros2-control --write-controllers': (['ros2-control', str(EXAMPLE), '--write-controllers',
                                          '{out}'], 'the controllers YAML'),
    'ros2-control --write-urdf': (['ros2-control', str(EXAMPLE), '--write-urdf', '{out}'],
                                  'the URDF'),
    'calibrate --write-urdf': (['calibrate', str(MISTAKES), str(BAG), '--write-urdf', '{out}'],
                               'the URDF'),
    'calibrate --write-calibration': (['calibrate', str(MISTAKES), str(BAG),
                                       '--write-calibration', '{out}'], 'the calibration file'),
}


@pytest.mark.parametrize('case', sorted(OUTPUTS))
def test_an_output_onto_a_fifo_is_refused_and_the_fifo_stays(case, tmp_path):
    # G-18: export, ros2-control --write-* and calibrate --write-urdf replaced a FIFO (or a
    # device node) with a regular file and reported success
    args, what = OUTPUTS[case]
    fifo = tmp_path / 'out'
    os.mkfifo(fifo)
    proc = _run([a.format(out=fifo) for a in args], tmp_path)
    verb = case.split()[0]
    assert _one_error_line(proc, verb) == (f'{fifo}: cannot write {what}: it is a FIFO (named '
                                           'pipe), not a regular file')
    assert sorted(p.name for p in tmp_path.iterdir()) == ['out'] and _is_fifo(fifo)


@pytest.mark.parametrize('case', sorted(OUTPUTS))
def test_an_output_onto_a_directory_is_a_write_error(case, tmp_path):
    # G-16: a failed write to a directory was reported as "cannot read"
    args, what = OUTPUTS[case]
    folder = tmp_path / 'out'
    folder.mkdir()
    proc = _run([a.format(out=folder) for a in args], tmp_path)
    line = _one_error_line(proc, case.split()[0])
    assert line == f'{folder}: cannot write {what}: it is a directory, not a regular file'
    assert sorted(p.name for p in tmp_path.iterdir()) == ['out'] and not os.listdir(folder)


def test_calibrate_does_not_write_the_urdf_onto_its_own_xacro_source(tmp_path):
    # G-15: --write-urdf onto its own .xacro input replaced the source with its expansion
    source = tmp_path / 'robot.urdf.xacro'
    shutil.copy(EXAMPLE, source)
    before = source.read_bytes()
    proc = _run(['calibrate', source, BAG, '--write-urdf', source], tmp_path)
    assert _one_error_line(proc, 'calibrate') == (
        f'{source}: cannot write the URDF: it is the input {source} (the output would replace '
        'its own source); write to another file')
    assert source.read_bytes() == before
    link = tmp_path / 'link.urdf'
    link.symlink_to(source)   # the same file by another name
    proc = _run(['calibrate', source, BAG, '--write-urdf', link], tmp_path)
    assert 'it is the input' in _one_error_line(proc, 'calibrate')
    assert source.read_bytes() == before


@pytest.mark.parametrize('args', [
    ['export', '{src}', '--to', 'mujoco', '{src}'],
    ['ros2-control', '{src}', '--write-urdf', '{src}'],
])
def test_other_verbs_do_not_write_onto_their_input_either(args, tmp_path):
    source = tmp_path / 'robot.urdf.xacro'
    shutil.copy(EXAMPLE, source)
    before = source.read_bytes()
    proc = _run([a.format(src=source) for a in args], tmp_path)
    assert 'it is the input' in _one_error_line(proc, args[0])
    assert source.read_bytes() == before


def _call_in_child(call, path):
    """Run ``call(path)`` (a module:function) in a child with a timeout; return its error."""
    module, function = call.split(':')
    code = (f'from {module} import {function}\n'
            f'try:\n    {function}({str(path)!r})\n    print("no error")\n'
            'except Exception as e:\n    print(type(e).__name__, e)\n')
    try:
        done = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                              timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail(f'{call} did not finish within 60 s (blocked on a FIFO?)')
    return done.stdout.strip()


@pytest.mark.parametrize('call, argument', [
    ('transmission_plugins.tools.launch.node_plan:load_config', 'config_file'),
    ('transmission_plugins.tools.launch.ros2_control_plan:load_controllers', 'controllers_file'),
])
def test_the_launch_files_read_yaml_with_the_same_bounds(call, argument, tmp_path):
    # G-10: one helper wherever a user-named file is read, the launch's YAML files too
    fifo = tmp_path / 'params.yaml'
    os.mkfifo(fifo)
    assert _call_in_child(call, fifo) == (f'LaunchConfigError cannot read {argument} '
                                          f"'{fifo}': it is a FIFO (named pipe), not a regular "
                                          'file')
    bomb = tmp_path / 'bomb.yaml'
    bomb.write_text('a: &a [x, x]\nb: [*a, *a]\n')
    assert _call_in_child(call, bomb) == (
        f"LaunchConfigError cannot read {argument} '{bomb}': YAML anchors and aliases (&name, "
        '*name) are not accepted in this file (a few hundred bytes of them expand to billions '
        'of items) (line 1, column 4)')


def test_the_description_file_of_the_launch_is_read_with_bounds(tmp_path):
    fifo = tmp_path / 'robot.urdf'
    os.mkfifo(fifo)
    read = 'transmission_plugins.tools.launch.node_plan:read_description'
    assert _call_in_child(read, fifo) == (
        f'LaunchConfigError {fifo}: cannot read description_file: it is a FIFO (named pipe), '
        'not a regular file')


BAG_VERBS = {
    'calibrate': ['calibrate', str(EXAMPLE), '{bag}'],
    'convert': ['convert', str(EXAMPLE), '{bag}', 'out.csv', '--to', 'joint'],
    'export-csv': ['export-csv', '{bag}', 'out.csv', '--topic', 'actuator_states'],
    'plot': ['plot', str(EXAMPLE), '{bag}', 'out.png'],
}


@pytest.mark.parametrize('verb', sorted(BAG_VERBS))
def test_a_fifo_as_the_bag_is_refused_at_once(verb, tmp_path):
    fifo = tmp_path / 'recording.mcap'
    os.mkfifo(fifo)
    proc = _run([a.format(bag=fifo) for a in BAG_VERBS[verb]], tmp_path)
    assert _one_error_line(proc, verb) == (f'{fifo}: cannot read the bag: it is a FIFO (named '
                                           'pipe), not a regular file')
    assert sorted(p.name for p in tmp_path.iterdir()) == ['recording.mcap']


def test_a_fifo_as_the_csv_input_is_refused_at_once(tmp_path):
    fifo = tmp_path / 'motors.csv'
    os.mkfifo(fifo)
    proc = _run(['convert', EXAMPLE, fifo, 'out.csv', '--to', 'joint'], tmp_path)
    assert _one_error_line(proc, 'convert') == (f'{fifo}: cannot read the CSV file: it is a '
                                                'FIFO (named pipe), not a regular file')


@pytest.mark.skipif(not os.path.exists('/dev/zero'), reason='no /dev/zero on this system')
def test_a_device_as_the_csv_input_is_refused_before_reading_it(tmp_path):
    # (only read, never written) /dev/zero as the CSV input ran to gigabytes of memory: the
    # header line never ends
    proc = _run(['convert', MISTAKES, '/dev/zero', 'out.csv', '--to', 'joint'], tmp_path,
                memory=2 << 30)
    assert _one_error_line(proc, 'convert') == ('/dev/zero: cannot read the CSV file: it is a '
                                                'character device, not a regular file')


def test_a_header_line_without_end_is_bounded(tmp_path):
    # the same through standard input, which stays a stream: the header line is bounded
    proc = subprocess.run(COMMAND + ['convert', str(MISTAKES), '-', 'out.csv', '--to', 'joint'],
                          cwd=tmp_path, input=b'a' * (3 << 20), capture_output=True,
                          timeout=60)
    assert proc.returncode == 1
    assert proc.stderr.decode() == ('transmission_plugins convert: error: -: line 1: the header '
                                    'is not CSV text: a line longer than 1024 KiB without a line '
                                    'end\n')


# ------------------------------------------------------------------ memory of the whole robot
def _peak_bytes(args):
    """Return the peak of the memory traced (Python and numpy) while the CLI runs ``args``."""
    import tracemalloc

    from transmission_plugins.tools.cli import main
    tracemalloc.start()
    try:
        with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
            assert main(args) == 0
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize('verb', [['export', '--to', 'drake'], ['ros2-control', '--write-block']],
                         ids=['export-drake', 'ros2-control'])
def test_whole_robot_verbs_take_memory_linear_in_the_transmissions(verb, tmp_path):
    """Issue 34, G-23: 686 MB for a 2.3 MB URDF (dense robot-wide K and inertia, and the reads)."""
    from synthetic_robots import synthetic_urdf
    from transmission_plugins.tools.cli import main
    peaks = {}
    for n in (10, 400, 1600):
        urdf = tmp_path / f'robot_{n}.urdf'
        urdf.write_text(synthetic_urdf(n))
        out = str(tmp_path / f'out_{n}.xml')
        args = [verb[0], str(urdf), *verb[1:], out]
        if n == 10:   # imports and caches out of the way, untraced
            with contextlib.redirect_stderr(io.StringIO()), \
                    contextlib.redirect_stdout(io.StringIO()):
                assert main(args) == 0
            continue
        peaks[n] = _peak_bytes(args)
    # four times the transmissions: about four times the memory (sixteen if it were quadratic;
    # a dense 2,700 x 2,700 matrix alone is 58 MB)
    assert peaks[1600] < 6 * peaks[400], peaks
    assert peaks[1600] < 40e6, peaks


def test_a_small_file_is_read_without_a_buffer_of_the_whole_limit(tmp_path):
    """Reading with a 64 MiB bound took 64 MiB at once, however small the file."""
    import tracemalloc

    from transmission_plugins.urdf.user_files import read_user_file
    path = tmp_path / 'small.urdf'
    path.write_bytes(b'<robot name="r"/>')
    tracemalloc.start()
    try:
        assert read_user_file(path, 'the URDF', 64 << 20) == b'<robot name="r"/>'
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20
