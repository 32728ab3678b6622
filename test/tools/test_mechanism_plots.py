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

"""``inspect`` and ``plot`` of the mechanisms of test/fixtures/humanoid_legs.urdf."""

import json

import numpy as np
import pytest

from tp_support import FIXTURE_DIR
from transmission_plugins.robot.limits import envelope
from transmission_plugins.robot.loading import load_robot_transmissions
from transmission_plugins.tools.cli import main
from transmission_plugins.tools.data.plotting import plot_transmission

LEGS = str(FIXTURE_DIR / 'humanoid_legs.urdf')


@pytest.fixture(scope='module')
def robot():
    return load_robot_transmissions(LEGS, warn=False)


def test_inspect_reports_the_mechanisms(capsys):
    assert main(['inspect', LEGS, '--json']) == 0
    report = json.loads(capsys.readouterr().out)
    ankle = next(t for t in report['transmissions'] if t['name'] == 'left_ankle_trans')
    assert ankle['class'] == 'ParallelAnkleTransmission' and not ankle['linear']
    assert ankle['map']['parameters']['crank_tip'] == [
        [-0.045, 0.025, 0.22], [-0.045, -0.025, 0.15]]
    assert ankle['description'].startswith('ParallelAnkleTransmission: 2 actuators')
    motors = {a['name']: a for a in report['actuators']}
    assert motors['left_ankle_motor_upper']['upper'] == motors['right_ankle_motor_upper']['upper']
    joints = {j['name']: j for j in report['joints']}
    assert joints['left_ankle_roll_joint']['reflected_inertia'] > 0.0
    assert main(['inspect', LEGS]) == 0
    text = capsys.readouterr().out
    assert 'transmission_plugins/TableTransmission' in text and 'nonlinear' in text


def test_the_ankle_plot_sweeps_its_joints_with_its_effort_envelope(robot, tmp_path):
    out = tmp_path / 'ankle.png'
    fig = plot_transmission(robot, 'left_ankle_trans', str(out))
    assert out.read_bytes()[:8] == b'\x89PNG\r\n\x1a\n'
    assert len(fig.axes) == 4
    t = robot.transmission('left_ankle_trans')
    pitch_row = fig.axes[0:2]
    sweep = pitch_row[0].get_lines()[0].get_xdata()
    assert sweep[0] == -0.8 and sweep[-1] == 0.5   # the pitch joint's limits
    q = np.stack([sweep, np.zeros_like(sweep)], axis=-1)   # roll at the centre of its range
    limits = robot.actuator_effort_limit[[robot.actuator_index[n] for n in t.actuator_names]]
    bounds = envelope(t.transmission, q, actuator_effort=limits)
    np.testing.assert_allclose(pitch_row[0].get_lines()[0].get_ydata(),
                               bounds.actuator_position[:, 0])
    np.testing.assert_allclose(pitch_row[1].get_lines()[0].get_ydata(), bounds.joint_effort[:, 0])
    labels = [line.get_label() for line in pitch_row[1].get_lines()]
    assert 'left_ankle_pitch_joint effort limit' in labels
    wide = plot_transmission(robot, 'left_ankle_trans', str(tmp_path / 'wide.png'), (-1.0, 0.7))
    assert wide.axes[2].get_lines()[0].get_xdata()[-1] == 0.7


@pytest.mark.parametrize('name', ['left_knee_trans', 'right_knee_trans'])
def test_a_one_joint_mechanism_has_no_empty_panel(robot, tmp_path, name):
    fig = plot_transmission(robot, name, str(tmp_path / 'knee.png'))
    assert len(fig.axes) == 2 and 'effort' in fig.axes[1].get_ylabel()


def test_the_plot_command_writes_the_ankle(tmp_path, capsys):
    out = tmp_path / 'ankle.svg'
    assert main(['plot', LEGS, 'right_ankle_trans', str(out)]) == 0
    assert capsys.readouterr().out == f'wrote {out}\n'
    assert 'right_ankle_motor_lower' in out.read_text()
