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

"""The transmission_plugins command: list, inspect, convert, plot; run in-process."""

import csv
from importlib.metadata import EntryPoint
import io
import json
import os
from pathlib import Path
import textwrap

import numpy as np
import pytest

from tp_support import FIXTURE_DIR
from tp_support import PR2_URDF
from transmission_plugins.plugins import registry as plugin_loader
from transmission_plugins.tools import cli
from transmission_plugins.tools.cli import main

PR2 = PR2_URDF
needs_pr2 = pytest.mark.skipif(not PR2.is_file(), reason=f'URDF corpus not found at {PR2}')
PNG_SIGNATURE = b'\x89PNG\r\n\x1a\n'

URDF = textwrap.dedent("""\
    <?xml version="1.0"?>
    <robot name="cli_bot">
      <link name="base"/><link name="l1"/><link name="l2"/><link name="l3"/><link name="l4"/>
      <joint name="elbow" type="revolute">
        <parent link="base"/><child link="l1"/>
        <limit lower="-2" upper="2" velocity="3" effort="40"/>
      </joint>
      <joint name="wrist_pitch" type="revolute">
        <parent link="l1"/><child link="l2"/>
        <limit lower="-1" upper="1" velocity="2" effort="10"/>
      </joint>
      <joint name="wrist_roll" type="continuous">
        <parent link="l2"/><child link="l3"/><limit velocity="4" effort="5"/>
      </joint>
      <joint name="spare" type="prismatic">
        <parent link="base"/><child link="l4"/>
        <limit lower="0" upper="0.2" velocity="1" effort="100"/>
      </joint>
      <transmission name="elbow_trans">
        <type>transmission_interface/SimpleTransmission</type>
        <joint name="elbow"><hardwareInterface>EffortJointInterface</hardwareInterface></joint>
        <actuator name="elbow_motor"><mechanicalReduction>100</mechanicalReduction></actuator>
      </transmission>
      <transmission name="wrist_trans">
        <type>transmission_interface/DifferentialTransmission</type>
        <actuator name="wrist_left_motor">
          <role>actuator1</role><mechanicalReduction>40</mechanicalReduction>
        </actuator>
        <actuator name="wrist_right_motor">
          <role>actuator2</role><mechanicalReduction>-40</mechanicalReduction>
        </actuator>
        <joint name="wrist_pitch">
          <role>joint1</role><offset>0.1</offset>
          <hardwareInterface>EffortJointInterface</hardwareInterface>
        </joint>
        <joint name="wrist_roll">
          <role>joint2</role><hardwareInterface>EffortJointInterface</hardwareInterface>
        </joint>
      </transmission>
    </robot>
    """)
ACTUATORS = ['elbow_motor', 'wrist_left_motor', 'wrist_right_motor']
JOINTS = ['elbow', 'wrist_pitch', 'wrist_roll']
INTERFACES = ('position', 'velocity', 'effort')


@pytest.fixture
def urdf(tmp_path):
    path = tmp_path / 'cli_bot.urdf'
    path.write_text(URDF)
    return str(path)


def _write_csv(path, names, rows, rng, extra=True):
    header = ['time'] + [f'{n}/{i}' for i in INTERFACES for n in names] + (['note'] if extra
                                                                           else [])
    data = rng.uniform(-2.0, 2.0, (rows, len(names) * len(INTERFACES)))
    with open(path, 'w', newline='') as f:
        w = csv.writer(f)
        w.writerow(header)
        for k, row in enumerate(data.tolist()):
            w.writerow([f'{k * 0.01:.2f}'] + row + (['a, "quoted" note'] if extra else []))
    return header, data


def _read_csv(path):
    with open(path, newline='') as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]


# ---------------------------------------------------------------------------- usage
@pytest.mark.parametrize('argv', [[], ['bogus'], ['inspect'], ['convert', 'x.urdf', 'a', 'b'],
                                  ['convert', 'x.urdf', 'a', 'b', '--to', 'joint',
                                   '--chunk-size', '0'],
                                  ['plot', 'x.urdf', 't', 'o.png', '--range', '1']])
def test_usage_errors_exit_2(argv, capsys):
    assert main(argv) == 2
    assert 'usage:' in capsys.readouterr().err


def test_help_exits_0(capsys):
    assert main(['--help']) == 0
    out = capsys.readouterr().out
    for command in ('list', 'inspect', 'convert', 'plot', 'demo'):
        assert command in out


# ---------------------------------------------------------------------------- list
def test_list_shows_plugins_without_importing(monkeypatch, capsys):
    broken = plugin_loader.TransmissionPlugin(
        'acme/BrokenTransmission', 'acme_missing_module:Broken', 'acme-transmissions', '9.9',
        EntryPoint('acme/BrokenTransmission', 'acme_missing_module:Broken',
                   plugin_loader.ENTRY_POINT_GROUP))
    real = plugin_loader.find_transmission_plugins()
    monkeypatch.setattr(plugin_loader, 'find_transmission_plugins', lambda: real + [broken])
    assert main(['list']) == 0
    captured = capsys.readouterr()
    assert 'transmission_interface/SimpleTransmission' in captured.out
    assert 'acme-transmissions' in captured.out and '9.9' in captured.out
    assert captured.err == ''  # nothing imported, nothing failed
    assert f'{len(real) + 1} plugin(s)' in captured.out


def test_list_verbose_imports_and_survives_failures(monkeypatch, capsys):
    broken = plugin_loader.TransmissionPlugin(
        'acme/BrokenTransmission', 'acme_missing_module:Broken', 'acme-transmissions', '9.9',
        EntryPoint('acme/BrokenTransmission', 'acme_missing_module:Broken',
                   plugin_loader.ENTRY_POINT_GROUP))
    real = plugin_loader.find_transmission_plugins()
    monkeypatch.setattr(plugin_loader, 'find_transmission_plugins', lambda: real + [broken])
    assert main(['list', '--verbose']) == 0
    captured = capsys.readouterr()
    assert 'Implement a simple reducer: one actuator, one joint.' in captured.out
    assert 'failed to load' in captured.out
    assert 'warning' in captured.err and 'acme/BrokenTransmission' in captured.err
    assert 'acme_missing_module' in captured.err


# ---------------------------------------------------------------------------- inspect
def test_inspect_text(urdf, capsys):
    assert main(['inspect', urdf]) == 0
    out = capsys.readouterr().out
    assert "robot 'cli_bot': 2 transmissions, 3 joints, 3 actuators" in out
    assert 'transmission_interface/DifferentialTransmission' in out
    assert 'actuator reduction 100' in out
    assert 'untransmitted joints (1):\n  spare' in out
    elbow = next(line for line in out.splitlines() if line.strip().startswith('elbow_motor'))
    assert elbow.split()[1:5] == ['-200', '200', '300', '0.4']  # lower upper velocity effort


def test_inspect_json(urdf, capsys):
    assert main(['inspect', urdf, '--json']) == 0
    data = json.loads(capsys.readouterr().out)
    assert data['robot'] == 'cli_bot'
    assert [t['name'] for t in data['transmissions']] == ['elbow_trans', 'wrist_trans']
    wrist = data['transmissions'][1]
    assert wrist['actuators'] == ACTUATORS[1:] and wrist['joints'] == JOINTS[1:]
    assert wrist['map']['actuator_reduction'] == [40.0, -40.0]
    assert wrist['map']['joint_offset'] == [0.1, 0.0]
    roll = data['joints'][2]
    assert roll['name'] == 'wrist_roll' and roll['lower'] is None and roll['upper'] is None
    assert data['actuators'][0]['effort_limit'] == pytest.approx(0.4)
    assert data['actuators'][0]['effort_limit_source'] == 'mapped'
    assert data['untransmitted_joints'] == ['spare'] and data['warnings'] == []


def test_inspect_shows_each_mechanism_s_geometry(capsys):
    # issue 34: a nonlinear transmission's MAP said 'nonlinear' and nothing of its geometry
    assert main(['inspect', str(FIXTURE_DIR / 'humanoid_legs.urdf')]) == 0
    out = capsys.readouterr().out
    section = out.split('mechanisms (nonlinear maps; lengths in m, angles in rad):\n')[1]
    section = section.split('\n\n')[0].splitlines()
    names = [line.split()[0] for line in section if not line.startswith('    ')]
    assert names == ['left_knee_trans', 'right_knee_trans', 'left_ankle_trans',
                     'right_ankle_trans']
    ankle = section.index(next(line for line in section if 'left_ankle_trans' in line))
    assert 'ParallelAnkleTransmission: 2 actuators -> ' in section[ankle]
    assert ', rods ' in section[ankle] and 'cranks ' in section[ankle]
    assert section[ankle + 1].startswith('    crank_pivot ((')
    assert any('rod' in line and 'SliderCrankTransmission' in line for line in section)


def test_inspect_missing_file(tmp_path, capsys):
    assert main(['inspect', str(tmp_path / 'nope.urdf')]) == 1
    err = capsys.readouterr().err
    assert err.startswith('transmission_plugins inspect: error: cannot read')
    assert 'nope.urdf' in err


def test_inspect_bad_value_names_the_element(tmp_path, capsys):
    path = tmp_path / 'bad.urdf'
    path.write_text(URDF.replace('<mechanicalReduction>100<', '<mechanicalReduction>zero<'))
    assert main(['inspect', str(path)]) == 1
    err = capsys.readouterr().err
    assert "transmission[@name='elbow_trans']" in err and "'zero'" in err


def test_inspect_unknown_type_and_lenient(tmp_path, capsys):
    path = tmp_path / 'vendor.urdf'
    path.write_text(URDF.replace('transmission_interface/SimpleTransmission',
                                 'acme_transmissions/Harmonic'))
    assert main(['inspect', str(path)]) == 1
    err = capsys.readouterr().err
    assert 'acme_transmissions/Harmonic' in err and '--lenient' in err
    assert main(['inspect', str(path), '--lenient']) == 0
    out = capsys.readouterr().out
    assert '1 transmissions' in out and 'warnings (1):' in out
    assert 'acme_transmissions/Harmonic' in out


# ---------------------------------------------------------------------------- convert
def test_convert_round_trip_with_pass_through(urdf, tmp_path, capsys):
    rng = np.random.default_rng(1234)
    header, data = _write_csv(tmp_path / 'a.csv', ACTUATORS, 50, rng)
    a, j, b = (str(tmp_path / n) for n in ('a.csv', 'j.csv', 'b.csv'))
    assert main(['convert', urdf, a, j, '--to', 'joint', '--chunk-size', '7']) == 0
    assert '50 rows' in capsys.readouterr().err
    umask = os.umask(0)
    os.umask(umask)
    assert os.stat(j).st_mode & 0o777 == 0o666 & ~umask
    jh, jrows = _read_csv(j)
    assert jh == ['time', 'note'] + [f'{n}/{i}' for i in INTERFACES for n in JOINTS]
    assert len(jrows) == 50 and jrows[3][:2] == ['0.03', 'a, "quoted" note']
    # elbow: q = theta / 100
    assert float(jrows[0][2]) == pytest.approx(data[0, 0] / 100.0)
    assert main(['convert', urdf, j, b, '--to', 'actuator', '--chunk-size', '1000']) == 0
    bh, brows = _read_csv(b)
    assert bh == ['time', 'note'] + header[1:-1]
    back = np.array([[float(x) for x in row[2:]] for row in brows])
    np.testing.assert_allclose(back, data, rtol=1e-12, atol=1e-12)
    assert [row[0] for row in brows] == [f'{k * 0.01:.2f}' for k in range(50)]


def test_convert_chunking_does_not_change_the_result(urdf, tmp_path):
    rng = np.random.default_rng(1234)
    _write_csv(tmp_path / 'a.csv', ACTUATORS, 23, rng, extra=False)
    outputs = []
    for chunk in ('1', '5', '23', '100'):
        out = tmp_path / f'j{chunk}.csv'
        assert main(['convert', urdf, str(tmp_path / 'a.csv'), str(out), '--to', 'joint',
                     '--chunk-size', chunk]) == 0
        outputs.append(out.read_text())
    assert all(o == outputs[0] for o in outputs)


def test_convert_partial_columns_and_empty_cells(urdf, tmp_path):
    src = tmp_path / 'j.csv'
    src.write_text('t,elbow/position,wrist_pitch/position,wrist_roll/position,elbow/effort\n'
                   '0,1.0,0.1,,2.0\n'
                   '1,,0.2,0.3,\n')
    out = tmp_path / 'a.csv'
    assert main(['convert', urdf, str(src), str(out), '--to', 'actuator']) == 0
    header, rows = _read_csv(out)
    assert header == ['t', 'elbow_motor/position', 'wrist_left_motor/position',
                      'wrist_right_motor/position', 'elbow_motor/effort']
    # numbers in the shortest text that reads back exactly (100 for 100.0)
    assert rows[0] == ['0', '100', '', '', '0.02']  # NaN roll spoils both wrist motors
    assert rows[1][1] == '' and rows[1][4] == ''
    assert float(rows[1][2]) == pytest.approx(40.0 * (0.1 + 0.3))


def test_convert_stdin_to_stdout(urdf, monkeypatch, capsys):
    monkeypatch.setattr('sys.stdin', io.TextIOWrapper(io.BytesIO(
        b'time,elbow_motor/velocity\n0.5,250\n')))
    assert main(['convert', urdf, '-', '-', '--to', 'joint']) == 0
    assert capsys.readouterr().out == 'time,elbow/velocity\n0.5,2.5\n'


@pytest.mark.parametrize('content, message', [
    ('time,ghost_motor/position\n0,1\n', "'ghost_motor/position' name no actuator"),
    ('time,elbow/position\n0,1\n', 'convert with --to actuator instead'),
    ('time,elbow_motor/position\n0,1\n1,fast\n', "line 3: column 'elbow_motor/position': "
                                                 "expected a number, got 'fast'"),
    ('time,elbow_motor/position\n0,1\n1,2,3\n', 'line 3: expected 2 fields'),
    ('time,note\n0,1\n', 'nothing to convert'),
    ('', 'the input is empty'),
    ('a,a,elbow_motor/position\n', "duplicate column(s) ['a']"),
])
def test_convert_errors(urdf, tmp_path, capsys, content, message):
    src = tmp_path / 'in.csv'
    src.write_text(content)
    out = tmp_path / 'out.csv'
    assert main(['convert', urdf, str(src), str(out), '--to', 'joint']) == 1
    err = capsys.readouterr().err
    assert message in err
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ['cli_bot.urdf', 'in.csv']


def test_convert_keep_unknown(urdf, tmp_path):
    src = tmp_path / 'in.csv'
    src.write_text('ghost/position,elbow_motor/position\nx,100\n')
    out = tmp_path / 'out.csv'
    assert main(['convert', urdf, str(src), str(out), '--to', 'joint', '--keep-unknown']) == 0
    assert out.read_text() == 'ghost/position,elbow/position\nx,1\n'


def test_convert_missing_input(urdf, tmp_path, capsys):
    assert main(['convert', urdf, str(tmp_path / 'none.csv'), str(tmp_path / 'o.csv'),
                 '--to', 'joint']) == 1
    assert 'cannot read' in capsys.readouterr().err


def test_progress_bar_only_on_a_terminal(urdf, tmp_path, monkeypatch, capsys):
    src = tmp_path / 'in.csv'
    src.write_text('elbow_motor/position\n1\n2\n')
    assert main(['convert', urdf, str(src), str(tmp_path / 'o.csv'), '--to', 'joint']) == 0
    assert '%' not in capsys.readouterr().err
    monkeypatch.setattr(cli.sys.stderr, 'isatty', lambda: True, raising=False)
    assert main(['convert', urdf, str(src), str(tmp_path / 'o.csv'), '--to', 'joint']) == 0
    err = capsys.readouterr().err
    size = src.stat().st_size
    assert 'convert: 100%' in err and f'{size}.0/{size}.0' in err  # tqdm's bar over the bytes


@needs_pr2
def test_convert_pr2_round_trip(tmp_path):
    from transmission_plugins.robot.loading import load_robot_transmissions
    robot = load_robot_transmissions(PR2)
    rng = np.random.default_rng(1234)
    header, data = _write_csv(tmp_path / 'a.csv', robot.actuator_names, 120, rng)
    for k, name in enumerate(header[1:-1]):
        if name.startswith(('r_gripper_motor/position', 'l_gripper_motor/position')):
            data[:, k] = rng.uniform(5.0, 1400.0, 120)
    with open(tmp_path / 'a.csv', 'w', newline='') as f:
        w = csv.writer(f)
        w.writerow(header[:-1])
        for k, row in enumerate(data.tolist()):
            w.writerow([str(k)] + row)
    a, j, b = (str(tmp_path / n) for n in ('a.csv', 'j.csv', 'b.csv'))
    assert main(['convert', str(PR2), a, j, '--to', 'joint', '--chunk-size', '50']) == 0
    jh, _ = _read_csv(j)
    assert 'r_gripper_joint/position' in jh and 'r_gripper_l_finger_joint/effort' in jh
    assert main(['convert', str(PR2), j, b, '--to', 'actuator', '--chunk-size', '50']) == 0
    bh, brows = _read_csv(b)
    assert bh == header[:-1]
    back = np.array([[float(x) for x in row[1:]] for row in brows])
    np.testing.assert_allclose(back, data, rtol=1e-7, atol=1e-9)


# ---------------------------------------------------------------------------- plot
def _assert_png(path):
    data = Path(path).read_bytes()
    assert data[:8] == PNG_SIGNATURE
    assert len(data) > 10000


def test_plot_linear(urdf, tmp_path, capsys):
    out = tmp_path / 'wrist.png'
    assert main(['plot', urdf, 'wrist_trans', str(out)]) == 0
    assert capsys.readouterr().out == f'wrote {out}\n'
    _assert_png(out)
    out = tmp_path / 'elbow.png'
    assert main(['plot', urdf, 'elbow_trans', str(out), '--range', '-10', '10']) == 0
    _assert_png(out)


@needs_pr2
def test_plot_pr2_gripper(tmp_path):
    out = tmp_path / 'gripper.png'
    assert main(['plot', str(PR2), 'r_gripper_trans', str(out)]) == 0
    _assert_png(out)


def test_plot_errors(urdf, tmp_path, capsys):
    assert main(['plot', urdf, 'nope', str(tmp_path / 'x.png')]) == 2
    assert "no transmission 'nope'" in capsys.readouterr().err
    assert main(['plot', urdf, 'elbow_trans', str(tmp_path / 'x.png'), '--range', '2',
                 '1']) == 2
    assert 'LO < HI' in capsys.readouterr().err
    assert main(['plot', urdf, 'elbow_trans', str(tmp_path / 'no' / 'dir' / 'x.png')]) == 1
    assert 'cannot write' in capsys.readouterr().err
    assert main(['plot', str(tmp_path / 'none.urdf'), 'elbow_trans', 'x.png']) == 1


def test_plot_api_errors_are_transmission_errors(urdf, tmp_path):
    from transmission_plugins import TransmissionError
    from transmission_plugins import TransmissionFileError
    from transmission_plugins import TransmissionValueError
    from transmission_plugins import UnknownNameError
    from transmission_plugins.robot.loading import load_robot_transmissions
    from transmission_plugins.tools.data.plotting import plot_transmission
    robot = load_robot_transmissions(urdf)
    out = str(tmp_path / 'x.png')
    with pytest.raises(UnknownNameError, match="no transmission 'nope'"):
        plot_transmission(robot, 'nope', out)
    with pytest.raises(TransmissionValueError, match=r'value_range: expected two finite '
                                                     r'numbers \(lo, hi\) with lo < hi'):
        plot_transmission(robot, 'elbow_trans', out, (2.0, 1.0))
    with pytest.raises(TransmissionFileError, match='x.png: cannot write the plot: No such'):
        plot_transmission(robot, 'elbow_trans', str(tmp_path / 'no' / 'x.png'))
    with pytest.raises(TransmissionError, match=r'path: expected a file type matplotlib can '
                                                r"write .*got '.*x\.nope'"):
        plot_transmission(robot, 'elbow_trans', str(tmp_path / 'x.nope'))


def test_unreadable_urdf_arguments_exit_1(tmp_path, capsys):
    assert main(['inspect', '']) == 1
    assert capsys.readouterr().err == ("transmission_plugins inspect: error: '': the URDF is "
                                       "empty: expected XML text (starting with '<') or a file "
                                       'path\n')
    assert main(['inspect', str(tmp_path)]) == 1
    assert f'cannot read {tmp_path}: Is a directory' in capsys.readouterr().err
    assert main(['inspect', str(tmp_path / 'nope.urdf.xacro')]) == 1
    assert 'nope.urdf.xacro: No such file' in capsys.readouterr().err


def test_plot_unknown_file_type_exits_1(urdf, tmp_path, capsys):
    assert main(['plot', urdf, 'elbow_trans', str(tmp_path / 'x.nope')]) == 1
    assert 'a file type matplotlib can write' in capsys.readouterr().err


# ---------------------------------------------------------------------------- polish (issue 16)
@pytest.mark.parametrize('argv', [['list'], ['list', '--verbose']])
def test_list_fits_in_100_columns(argv, capsys):
    assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert max(len(line) for line in lines) < 100
    assert any('transmission_interface/DifferentialTransmission' in line for line in lines)


def test_plot_draws_limits_units_and_merged_curves(urdf, tmp_path):
    out = tmp_path / 'wrist.svg'
    assert main(['plot', urdf, 'wrist_trans', str(out), '--range', '-200', '200']) == 0
    text = out.read_text()
    assert '<!-- wrist_pitch -->' in text and '<!-- wrist_roll -->' in text  # the offset parts
    assert 'joint limits' in text
    assert 'wrist_left_motor position [rad]' in text and 'joint position [rad]' in text
    # wrist_pitch limits -1..1 (drawn), wrist_roll continuous (none)
    from transmission_plugins.robot.loading import load_robot_transmissions
    from transmission_plugins.tools.data import plotting
    import matplotlib
    matplotlib.use('Agg')
    from matplotlib import pyplot as plt
    robot = load_robot_transmissions(urdf, warn=False)
    fig, ax = plt.subplots()
    assert plotting.draw_limits(ax, robot, 'wrist_pitch', 'red', True)
    assert sorted(line.get_ydata()[0] for line in ax.get_lines()) == [-1.0, 1.0]
    assert not plotting.draw_limits(ax, robot, 'wrist_roll', 'red', False)  # continuous
    plt.close(fig)


def test_each_joint_s_limits_take_its_own_colour(tmp_path):
    # issue 23: the example robot's differential has no offsets, so one motor moves both joints
    # alike; their curves were merged into one line and both joints' limits (+-1.9 and +-3.1)
    # shared its colour. Curves now merge only when the limits are equal too.
    from transmission_plugins.robot.loading import load_robot_transmissions
    from transmission_plugins.tools.data.plotting import plot_transmission
    example = str(Path(__file__).resolve().parents[2] / 'urdf' / 'example_robot.urdf.xacro')
    robot = load_robot_transmissions(example, warn=False)
    fig = plot_transmission(robot, 'wrist_trans', str(tmp_path / 'wrist.svg'))
    text = (tmp_path / 'wrist.svg').read_text()
    assert '<!-- wrist_pitch_joint -->' in text and '<!-- wrist_roll_joint -->' in text
    assert ' = ' not in ''.join(line.get_label() for ax in fig.axes for line in ax.get_lines())
    for ax in fig.axes:
        lines = {line.get_label(): line for line in ax.get_lines()}
        limits = [line for line in ax.get_lines() if line.get_label().startswith(('_', 'joint'))]
        for joint in ('wrist_pitch_joint', 'wrist_roll_joint'):
            k = robot.joint_index[joint]
            own = [line for line in limits
                   if line.get_ydata()[0] in (robot.joint_lower[k], robot.joint_upper[k])]
            assert len(own) == 2
            assert all(line.get_color() == lines[joint].get_color() for line in own)
        assert lines['wrist_pitch_joint'].get_color() != lines['wrist_roll_joint'].get_color()
    gripper = plot_transmission(robot, 'gripper_trans', str(tmp_path / 'gripper.svg'))
    labels = [line.get_label() for line in gripper.axes[1].get_lines()]
    assert any('(and 3 more, identical)' in label for label in labels)  # equal limits: merged


def test_convert_to_actuator_needs_only_the_joints_the_maps_read(tmp_path):
    # the PR2-style gripper of the example robot: its joint-to-actuator map reads the gap joint
    # alone, so a joint file without the passive finger columns still converts (as the robot API)
    from transmission_plugins.robot.loading import load_robot_transmissions
    example = str(Path(__file__).resolve().parents[2] / 'urdf' / 'example_robot.urdf.xacro')
    robot = load_robot_transmissions(example)
    gripper = next(t for t in robot.transmissions if 'gripper_motor' in t.actuator_names)
    gap = gripper.joint_names[gripper.transmission.joint_to_actuator_inputs()[0]]
    src = tmp_path / 'gap.csv'
    src.write_text(f'time,{gap}/position\n0,0.01\n1,0.03\n')
    out = tmp_path / 'motor.csv'
    assert main(['convert', example, str(src), str(out), '--to', 'actuator']) == 0
    header, rows = _read_csv(str(out))
    assert header == ['time', 'gripper_motor/position']
    expected = robot.joint_to_actuator({'position': {gap: 0.03}})['position']['gripper_motor']
    assert float(rows[1][1]) == pytest.approx(expected, rel=1e-12)
