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
The calibration file against hostile and unlucky input (issue 34, G-7 to G-11).

A file that would exhaust the memory or block (an alias bomb, a FIFO, ``/dev/zero``) is read in
a child process with a memory bound and a timeout, so that the old behaviour fails the test
instead of the machine; the error must name the file and the cause.
"""

import json
import math
import os
import resource
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from transmission_plugins.robot.loading import load_robot_transmissions
from transmission_plugins.runtime.calibration import CalibrationSettings
from transmission_plugins.runtime.calibration_file import CalibrationFileError
from transmission_plugins.runtime.calibration_file import read_calibration_file
from transmission_plugins.runtime.calibration_file import write_calibration_file
from transmission_plugins.runtime.hardware_interface import HardwareInterface

#: a robot with one single-turn absolute encoder on its motor (10:1, joint range 0.5 rad)
SINGLE = ('<robot name="abs"><link name="a"/><link name="b"/>'
          '<joint name="j" type="revolute"><parent link="a"/><child link="b"/>'
          '<limit lower="-0.2" upper="0.3" velocity="2" effort="10"/></joint>'
          '<transmission name="t"><type>transmission_interface/SimpleTransmission</type>'
          '<joint name="j"><hardwareInterface>EffortJointInterface</hardwareInterface></joint>'
          '<actuator name="m"><mechanicalReduction>10</mechanicalReduction></actuator>'
          '</transmission></robot>')

#: 9 levels of 9 aliases: a few hundred bytes that a loader expanding aliases makes 9**9 items
ALIAS_BOMB = ('robot: [&a [x, x, x, x, x, x, x, x, x],\n'
              + ''.join(f'  &{b} [*{a}, *{a}, *{a}, *{a}, *{a}, *{a}, *{a}, *{a}, *{a}],\n'
                        for a, b in zip('abcdefgh', 'bcdefghi'))
              + '  *i]\noffsets: {}\n')


def _read_in_child(path, robot='r', actuators=('m',)):
    """
    Run ``read_calibration_file`` in a child bounded to 1 GiB and 60 s; return what it said.

    :returns: ``{'error': type, 'message': text}`` or ``{'offsets': ...}``; ``{'error':
        'timeout'}`` when it did not finish
    """
    code = textwrap.dedent(f"""
        import json
        from transmission_plugins.runtime.calibration_file import read_calibration_file
        try:
            out = {{'offsets': read_calibration_file({str(path)!r}, {robot!r},
                                                     {list(actuators)!r})}}
        except BaseException as e:
            out = {{'error': type(e).__name__, 'message': str(e)}}
        print(json.dumps(out))
        """)

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    try:
        done = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                              timeout=60, preexec_fn=limit)
    except subprocess.TimeoutExpired:
        return {'error': 'timeout'}
    lines = done.stdout.strip().splitlines()
    return json.loads(lines[-1]) if lines else {'error': 'crash', 'message': done.stderr[-500:]}


@pytest.mark.process
def test_an_alias_bomb_is_refused_naming_the_file(tmp_path):
    # G-7: a 400-byte alias bomb as calibration_file exhausted the memory
    path = tmp_path / 'bomb.yaml'
    path.write_text(ALIAS_BOMB)
    assert len(ALIAS_BOMB) < 500
    out = _read_in_child(path)
    assert out.get('error') == 'CalibrationFileError', out
    assert out['message'].startswith(f'{path}: ')
    assert 'aliases' in out['message'] and 'line 1' in out['message']


@pytest.mark.parametrize('names', [
    ['007', '01', 'yes', 'null'],
    ['on', '~', 'true', '1e3', '0x1f', '.inf', 'a: b', '#x', ' padded ', "it's", '"q"', '-'],
])
def test_names_that_look_like_other_values_read_back(tmp_path, names):
    # G-8: names such as 007, 01, yes, null did not read back
    path = tmp_path / 'calibration.yaml'
    offsets = {n: 0.125 * k - 1.0 for k, n in enumerate(names)}
    write_calibration_file(str(path), '0123', offsets, 'test')
    assert read_calibration_file(str(path), '0123', names) == offsets
    for robot in ('yes', 'null', '1.5'):
        write_calibration_file(str(path), robot, offsets, 'test')
        assert read_calibration_file(str(path), robot, names) == offsets


def test_names_written_unquoted_by_hand_are_read_as_written(tmp_path):
    path = tmp_path / 'calibration.yaml'
    path.write_text('robot: 007\noffsets:\n  007: 0.5\n  yes: -0.25\n  01: 1e-3\n')
    assert read_calibration_file(str(path), '007', ['007', 'yes', '01']) == {
        '007': 0.5, 'yes': -0.25, '01': 0.001}


def test_a_400_digit_offset_is_an_error_naming_file_key_value_and_expectation(tmp_path):
    # G-9: a 400-digit offset gave a bare OverflowError
    path = tmp_path / 'calibration.yaml'
    path.write_text('robot: r\noffsets:\n  m: 1' + '0' * 400 + '\n')
    with pytest.raises(CalibrationFileError) as info:
        read_calibration_file(str(path), 'r', ['m'])
    message = str(info.value)
    assert message.startswith(f'{path}: offsets/m: expected a finite number')
    assert "got '1000000000" in message and len(message) < 300


@pytest.mark.parametrize('text', ['yes', 'null', '"0.5"', '[1, 2]', '.nan', '-.inf', '1e999'])
def test_offsets_that_are_not_finite_numbers_are_refused(tmp_path, text):
    path = tmp_path / 'calibration.yaml'
    path.write_text(f'robot: r\noffsets:\n  m: {text}\n')
    with pytest.raises(CalibrationFileError, match='offsets/m: expected a finite number'):
        read_calibration_file(str(path), 'r', ['m'])


@pytest.mark.process
def test_a_fifo_is_refused_without_blocking(tmp_path):
    # G-10: a FIFO as calibration_file blocked configure
    path = tmp_path / 'calibration.yaml'
    os.mkfifo(path)
    out = _read_in_child(path)
    assert out.get('error') == 'CalibrationFileError', out
    assert out['message'] == (f'{path}: cannot read the calibration file: it is a FIFO (named '
                              'pipe), not a regular file')


@pytest.mark.process
@pytest.mark.skipif(not os.path.exists('/dev/zero'), reason='no /dev/zero on this system')
def test_a_device_is_refused_before_reading_it():
    # G-10: /dev/zero ran to MemoryError (only read here, never written)
    out = _read_in_child('/dev/zero')
    assert out.get('error') == 'CalibrationFileError', out
    assert out['message'] == ('/dev/zero: cannot read the calibration file: it is a character '
                              'device, not a regular file')


def test_a_directory_and_a_huge_file_are_refused(tmp_path):
    with pytest.raises(CalibrationFileError, match='cannot read the calibration file: Is a '
                                                   'directory'):
        read_calibration_file(str(tmp_path), 'r', ['m'])
    path = tmp_path / 'calibration.yaml'
    with open(path, 'w') as f:
        f.write('robot: r\noffsets:\n')
        f.write('  # padding\n' * 200_000)
    with pytest.raises(CalibrationFileError, match=r'larger than \d+ bytes'):
        read_calibration_file(str(path), 'r', ['m'])


def test_deep_nesting_is_an_error_not_a_recursion_error(tmp_path):
    path = tmp_path / 'calibration.yaml'
    path.write_text('robot: ' + '[' * 5000 + ']' * 5000 + '\noffsets: {}\n')
    with pytest.raises(CalibrationFileError, match='nested deeper than'):
        read_calibration_file(str(path), 'r', ['m'])


# ------------------------------------------------------------------ G-11: nothing non-finite
@pytest.mark.parametrize('reading', [1e308, -1e308, 1e12, 7.0])
def test_an_absurd_single_turn_reading_is_refused_and_stores_nothing(reading):
    # G-11: a single-turn reading of 1e308 calibrated to an arbitrary zero
    robot = load_robot_transmissions(SINGLE, warn=False)
    hw = HardwareInterface(robot, calibration=CalibrationSettings(
        absolute_encoders=['m'], single_turn_encoders=['m']))
    hw.set_actuator_state(['m'], [123.0])
    hw.set_absolute_positions(['m'], [reading])
    hw.update()
    cal = hw.calibration
    assert cal.state == ['failed']
    assert cal.offset.tolist() == [0.0]
    assert 'single-turn' in cal.detail[0] and 'one turn' in cal.detail[0], cal.detail
    assert cal.calibrated_offsets() == {}
    assert any(level == 'error' and f'{reading!r}'[:4] in line for level, line in cal.events)


def test_a_good_single_turn_reading_still_calibrates():
    robot = load_robot_transmissions(SINGLE, warn=False)
    hw = HardwareInterface(robot, calibration=CalibrationSettings(
        absolute_encoders=['m'], single_turn_encoders=['m']))
    hw.set_actuator_state(['m'], [123.0])
    hw.set_absolute_positions(['m'], [2.5 - 2 * math.pi])
    hw.update()
    assert hw.calibration.state == ['absolute']
    assert hw.calibration.offset[0] == pytest.approx(123.0 - 2.5)


def test_an_absurd_multi_turn_reading_of_a_continuous_joint_is_refused():
    robot = load_robot_transmissions(SINGLE.replace('type="revolute"', 'type="continuous"'),
                                     warn=False)
    hw = HardwareInterface(robot, calibration=CalibrationSettings(absolute_encoders=['m']))
    hw.set_actuator_state(['m'], [1.0])
    hw.set_absolute_positions(['m'], [1e300])
    hw.update()
    assert hw.calibration.state == ['failed'] and hw.calibration.offset.tolist() == [0.0]
    assert 'not a position' in hw.calibration.detail[0]


@pytest.mark.parametrize('bad', [math.nan, math.inf, -math.inf])
def test_non_finite_offsets_are_never_written_and_the_old_file_stays(tmp_path, bad):
    path = tmp_path / 'calibration.yaml'
    write_calibration_file(str(path), 'r', {'m': 0.5, 'n': 0.25}, 'good')
    before = path.read_bytes()
    with pytest.raises(CalibrationFileError, match=r'offsets/n: expected a finite number, got '
                                                   rf'{bad!r}; the file is left as it was'):
        write_calibration_file(str(path), 'r', {'m': 0.75, 'n': bad}, 'bad')
    assert path.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ['calibration.yaml']   # no temporary file left


def test_a_failed_write_keeps_the_old_file_and_names_it(tmp_path):
    path = tmp_path / 'calibration.yaml'
    write_calibration_file(str(path), 'r', {'m': 0.5}, 'good')
    before = path.read_bytes()
    os.mkfifo(tmp_path / 'out.yaml')
    with pytest.raises(CalibrationFileError, match='out.yaml: cannot write the calibration '
                                                   'file: it is a FIFO'):
        write_calibration_file(str(tmp_path / 'out.yaml'), 'r', {'m': 0.75}, 'test')
    assert path.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ['calibration.yaml', 'out.yaml']
    assert not os.path.isfile(tmp_path / 'out.yaml')


def test_a_written_file_is_readable_by_others_like_any_output(tmp_path):
    path = tmp_path / 'calibration.yaml'
    umask = os.umask(0o022)
    try:
        write_calibration_file(str(path), 'r', {'m': np.float64(0.5)}, 'test')
    finally:
        os.umask(umask)
    assert os.stat(path).st_mode & 0o777 == 0o644
    assert read_calibration_file(str(path), 'r', ['m']) == {'m': 0.5}
