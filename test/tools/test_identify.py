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
``transmission_plugins identify`` on an MCAP bag of the MuJoCo mock with a known drivetrain.

The recording is test/drivetrain_recording.py's (the simulator of ``mock_actuators``); every
expected value is the fixture's drivetrain (its ``TRUE``), never the package's own fit.
"""

import contextlib
import io
import json
from xml.etree import ElementTree

from bag_support import joint_state
from bag_support import JS
from bag_support import write_bag
from drivetrain_recording import record
from drivetrain_recording import SPLIT
from drivetrain_recording import TORQUE_CONSTANT
from drivetrain_recording import TRUE
from drivetrain_recording import URDF
import numpy as np
import pytest

from transmission_plugins.robot.loading import load_robot_transmissions
from transmission_plugins.tools.cli import main
from transmission_plugins.tools.data.bag_identify import identify_bag

#: the fixture with a wrong drivetrain: what --write-urdf corrects
WRONG = (URDF.read_text().replace('coulomb="0.6" viscous="0.3"', 'coulomb="0.2" viscous="0.05"')
         .replace('<backlash width="0.02"/>', '<backlash width="0.004"/>')
         .replace('coulomb="0.4" viscous="0.2"', 'coulomb="0.1" viscous="0.5"')
         .replace('coulomb="0.008" viscous="0.00015"', 'coulomb="0.02" viscous="0.0005"'))
#: the fixture with both sides' friction wrong (the geared joint and the differential): what
#: --write-urdf corrects, each side apart, from a recording with joint torque sensors
WRONG_SPLIT = (URDF.read_text()
               .replace('coulomb="0.6" viscous="0.3"', 'coulomb="0.2" viscous="0.05"')
               .replace('coulomb="0.01" viscous="0.0002"', 'coulomb="0.03" viscous="0.001"')
               .replace('coulomb="0.3" viscous="0.1"', 'coulomb="0.1" viscous="0.3"')
               .replace('coulomb="0.02" viscous="0.0005"', 'coulomb="0.05"'))
#: the --json keys of every transmission (DESIGN.md), and those of each kind
COMMON = {'type', 'samples', 'not_excited', 'why_not_excited', 'residual_rms', 'notes'}


def _stamp(t):
    ns = int(round(t * 1e9))
    return ns, (ns // 1_000_000_000, ns % 1_000_000_000)


def write_recording(path, rec, storage='mcap'):
    """
    Write ``rec`` as ``actuator_states`` and ``joint_states`` (efforts NaN where no sensor).

    Its commands, when it has them, go to ``actuator_commands`` (the commanded actuators'
    efforts), stamped when sent: at the start of the period, one period before the state.
    """
    messages = []
    robot = rec.robot
    period = float(rec.time[1] - rec.time[0])
    commanded = [n for n, c in zip(robot.actuator_names, robot.commanded_actuators) if c]
    columns = [robot.actuator_index[n] for n in commanded]
    for k, t in enumerate(rec.time):
        ns, stamp = _stamp(t)
        if rec.commands is not None:
            sent, sent_stamp = _stamp(t - period)
            messages.append(('/actuator_commands', sent, joint_state(
                commanded, effort=rec.commands[k, columns], stamp=sent_stamp)))
        messages.append(('/actuator_states', ns, joint_state(
            robot.actuator_names, rec.actuator['position'][k], rec.actuator['velocity'][k],
            rec.actuator['effort'][k], stamp)))
        effort = rec.joint['effort'][k]
        messages.append(('/joint_states', ns, joint_state(
            robot.joint_names, rec.joint['position'][k], rec.joint['velocity'][k],
            effort if np.isfinite(effort).any() else (), stamp)))
    topics = {'/actuator_states': JS, '/joint_states': JS}
    if rec.commands is not None:
        topics['/actuator_commands'] = JS
    return write_bag(path, storage, topics, messages)


@pytest.fixture(scope='module')
def bag(tmp_path_factory):
    """Return the path of the MCAP bag of ten simulated seconds, and the wrong URDF's."""
    tmp = tmp_path_factory.mktemp('identify')
    wrong = tmp / 'wrong.urdf'
    wrong.write_text(WRONG)
    return write_recording(tmp / 'recording.mcap', record()), wrong


def _run(*args):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(['identify', *map(str, args)])
    return code, out.getvalue()


def test_the_cli_recovers_the_drivetrain_and_writes_it(bag, tmp_path):
    """--json: every value within 5 % (backlash 10 %); --write-urdf: the true drivetrain."""
    path, wrong = bag
    out = tmp_path / 'corrected.urdf'
    code, text = _run(wrong, path, '--json', '--write-urdf', out)
    assert code == 0
    result = json.loads(text)
    assert set(result['transmissions']) == {'geared_trans', 'sea_trans', 'diff_trans',
                                            'table_trans'}
    geared = result['transmissions']['geared_trans']
    sea = result['transmissions']['sea_trans']
    diff = result['transmissions']['diff_trans']
    keys = ('coulomb_friction', 'viscous_friction')
    assert set(geared) == COMMON | {k + s for k in keys + ('backlash',) for s in ('', '_sigma')}
    assert set(sea) == COMMON | {k + s for k in keys + ('stiffness', 'damping')
                                 for s in ('', '_sigma')}
    assert set(diff) == COMMON | {'joints', 'actuators'}
    for side in ('joints', 'actuators'):
        for end, found in diff[side].items():
            for key, value in TRUE['diff_trans'][end].items():
                assert found[key] == pytest.approx(value, rel=0.05, abs=1e-3), (end, key)
                assert 0.0 <= found[key + '_sigma'] < 1e-3
    for name, entry in result['transmissions'].items():
        assert entry['not_excited'] == []
        for key, value in TRUE[name].items():
            if name == 'diff_trans':
                continue
            rel = 0.10 if key == 'backlash' else 0.05
            assert entry[key] == pytest.approx(value, rel=rel), (name, key)
            assert 0.0 <= entry[key + '_sigma'] < 0.05 * value
    # the corrected URDF: the joint side is the lumped friction less the URDF's motor side
    truth = load_robot_transmissions(str(URDF)).drivetrain
    fixed = load_robot_transmissions(str(out)).drivetrain
    np.testing.assert_allclose(fixed.joint_friction.coulomb, truth.joint_friction.coulomb,
                               rtol=0.05)
    np.testing.assert_allclose(fixed.joint_friction.viscous, truth.joint_friction.viscous,
                               rtol=0.05)
    np.testing.assert_allclose(fixed.joint_backlash, truth.joint_backlash, rtol=0.10)
    np.testing.assert_allclose(fixed.actuator_friction.coulomb,
                               truth.actuator_friction.coulomb, rtol=0.05)
    np.testing.assert_allclose(fixed.actuator_friction.viscous,
                               truth.actuator_friction.viscous, rtol=0.05)
    # the spring: its <spring stiffness damping>, as identified (1.3 % and 1.5 % off, more
    # than three of their sigmas: written)
    sea_fixed = load_robot_transmissions(str(out)).transmission('sea_trans').transmission
    assert sea_fixed.stiffness() == pytest.approx(TRUE['sea_trans']['stiffness'], rel=0.05)
    assert sea_fixed.damping() == pytest.approx(TRUE['sea_trans']['damping'], rel=0.05)
    assert sea_fixed.stiffness() == pytest.approx(sea['stiffness'], abs=sea['stiffness_sigma'])
    assert sea_fixed.stiffness() != 200.0
    # geared: friction and backlash; the spring; the table: both sides' friction
    assert result['written']['urdf']['changed'] == 9
    assert result['written']['urdf']['not_written'] == []
    assert '<!--' in out.read_text()   # comments kept


def test_the_python_api_on_the_bag(bag):
    """identify_bag on the path gives what the CLI printed from the same bag."""
    path, _ = bag
    fits, states = identify_bag(load_robot_transmissions(str(URDF)), str(path))
    assert states.reading.pairs == len(states.time) == 10_000
    geared = {f.name: f for f in fits}['geared_trans']
    assert geared.values['backlash'] == pytest.approx(TRUE['geared_trans']['backlash'],
                                                      rel=0.10)


def test_the_text_report_and_windows(bag):
    """A long bag read in windows still identifies the spring; the report says what it read."""
    path, _ = bag
    code, text = _run(URDF, path, '--max-samples', '4000')
    assert code == 0
    assert 'sea_trans (SeriesElasticTransmission)' in text
    assert 'stiffness' in text and 'not excited' not in text


def test_a_joint_torque_sensor_splits_the_friction_and_writes_each_side(tmp_path):
    """
    Joint torques in the bag: each side's friction within 5 %, each written to its <friction>.

    The URDF's motor side is wrong too: the split, not the lumped value less the URDF's motor
    side, must be what is written.
    """
    assert WRONG_SPLIT.count('coulomb=') == URDF.read_text().count('coulomb=')
    path = write_recording(tmp_path / 'sensed.mcap', record(duration=4.0, torque_sensor=True))
    wrong = tmp_path / 'wrong_split.urdf'
    wrong.write_text(WRONG_SPLIT)
    out = tmp_path / 'split.urdf'
    code, text = _run(wrong, path, '--json', '--write-urdf', out)
    assert code == 0
    result = json.loads(text)['transmissions']
    geared, diff = result['geared_trans'], result['diff_trans']
    for key, value in SPLIT['geared_trans'].items():
        assert geared[key] == pytest.approx(value, rel=0.05), key
        assert 0.0 <= geared[key + '_sigma'] < 0.05 * value
    for end, truth in SPLIT['diff_trans'].items():
        found = {**diff['joints'], **diff['actuators']}[end]
        for key, value in truth.items():
            assert found[key] == pytest.approx(value, rel=0.05, abs=1e-4), (end, key)
    assert geared['not_excited'] == [] and diff['not_excited'] == []
    # each side written apart: the corrected URDF has the fixture's friction on both sides
    truth = load_robot_transmissions(str(URDF)).drivetrain
    fixed = load_robot_transmissions(str(out)).drivetrain
    for found, expected in ((fixed.joint_friction, truth.joint_friction),
                            (fixed.actuator_friction, truth.actuator_friction)):
        np.testing.assert_allclose(found.coulomb, expected.coulomb, rtol=0.05, atol=1e-6)
        np.testing.assert_allclose(found.viscous, expected.viscous, rtol=0.05, atol=1e-7)
    written = out.read_text()
    assert '<!--' in written   # comments kept
    assert 'coulomb="0.01" viscous="0.0002"' in written   # the geared motor's, as identified


def test_a_table_spring_is_left_as_is(bag, tmp_path):
    """A measured spring table is not replaced by the linear fit: named under not written."""
    path, _ = bag
    table = '<spring damping="1.5" deflections="-0.1 0 0.1" torques="-20 0 20"/>'
    urdf = tmp_path / 'table.urdf'
    urdf.write_text(URDF.read_text().replace('<spring stiffness="200" damping="1.5"/>', table))
    out = tmp_path / 'table_out.urdf'
    code, text = _run(urdf, path, '--json', '--write-urdf', out)
    assert code == 0
    written = json.loads(text)['written']['urdf']
    assert [why for why in written['not_written'] if 'measured table' in why] != []
    assert all('spring' not in why or 'measured table' in why
               for why in written['not_written'])
    assert table in out.read_text()


def test_the_residual_plot_has_a_panel_per_transmission(bag, tmp_path):
    """--plot OUT.svg: a valid SVG, one titled panel per transmission, two axes per fit."""
    path, _ = bag
    out = tmp_path / 'residuals.svg'
    code, text = _run(URDF, path, '--plot', out)
    assert code == 0 and f'plotted {out}' in text
    root = ElementTree.parse(out).getroot()
    assert root.tag == '{http://www.w3.org/2000/svg}svg'
    texts = [''.join(e.itertext()) for e in root.iter('{http://www.w3.org/2000/svg}text')]
    for name, kind in (('geared_trans', 'SimpleTransmission'),
                       ('sea_trans', 'SeriesElasticTransmission'),
                       ('diff_trans', 'DifferentialTransmission'),
                       ('table_trans', 'TableTransmission')):
        assert sum(t.startswith(f'{name} ({kind})') for t in texts) == 1, name
    # the fits: geared friction and backlash, the spring, the differential's two joints, the
    # table's friction and its (zero) backlash
    for title in ('friction', 'backlash', 'spring', 'friction diff_joint_1',
                  'friction diff_joint_2'):
        assert title in texts, title
    axes = [g for g in root.iter('{http://www.w3.org/2000/svg}g')
            if g.get('id', '').startswith('axes_')]
    assert len(axes) == 2 * 7
    assert sum(t.startswith('residual, RMS') for t in texts) == 7


def test_the_residual_plot_as_png_and_a_bad_suffix(bag, tmp_path, capsys):
    """A PNG is a PNG; a file type matplotlib cannot write is an error naming it."""
    path, _ = bag
    png = tmp_path / 'residuals.png'
    code, _ = _run(URDF, path, '--plot', png)
    assert code == 0
    assert png.read_bytes()[:8] == b'\x89PNG\r\n\x1a\n'
    code, _ = _run(URDF, path, '--plot', tmp_path / 'residuals.xyz')
    assert code != 0
    assert 'residuals.xyz' in capsys.readouterr().err
    assert not (tmp_path / 'residuals.xyz').exists()


def test_too_little_motion_is_reported_not_excited(tmp_path):
    """A joint that barely moves: the keys are listed as not excited, with reasons."""
    path = write_recording(tmp_path / 'still.mcap', record(duration=2.0, amplitude=1e-4))
    plot = tmp_path / 'still.svg'
    code, text = _run(URDF, path, '--json', '--plot', plot)
    assert code == 0
    result = json.loads(text)['transmissions']
    # the plot says it in the panels: nothing fitted, and why
    texts = [''.join(e.itertext()) for e in ElementTree.parse(plot).getroot().iter(
        '{http://www.w3.org/2000/svg}text')]
    assert sum('nothing fitted' in t and 'never reversed' in t for t in texts) == 2
    assert sorted(result['geared_trans']['not_excited']) == [
        'backlash', 'coulomb_friction', 'viscous_friction']
    assert 'coulomb_friction' not in result['geared_trans']
    assert sorted(result['sea_trans']['not_excited']) == ['damping', 'stiffness']
    # the nonlinear map: neither side's friction, and why
    assert sorted(result['table_trans']['not_excited']) == [
        'backlash', 'joint_coulomb_friction', 'joint_viscous_friction',
        'motor_coulomb_friction', 'motor_viscous_friction']
    assert 'never moved faster than' in result['table_trans']['why_not_excited'][
        'joint_coulomb_friction']
    assert 'never reversed' in result['geared_trans']['why_not_excited']['backlash']


def test_current_efforts_give_the_torque_constant(tmp_path):
    """--current with joint torques: torque_constant (and its sigma) per transmission, written."""
    rec = record(duration=4.0, torque_sensor=True, current=True)
    path = write_recording(tmp_path / 'current.mcap', rec)
    wrong = tmp_path / 'wrong_kt.urdf'
    wrong.write_text(URDF.read_text().replace('torque_constant="0.05"',
                                              'torque_constant="0.07"'))
    out = tmp_path / 'kt.urdf'
    code, text = _run(wrong, path, '--current', '--json', '--write-urdf', out)
    assert code == 0
    result = json.loads(text)['transmissions']
    for name, motor in (('geared_trans', 'geared_motor'), ('sea_trans', 'sea_motor')):
        assert result[name]['torque_constant'] == pytest.approx(TORQUE_CONSTANT[motor],
                                                                rel=0.05)
        assert result[name]['torque_constant_sigma'] >= 0.0
    fixed = load_robot_transmissions(str(out))
    assert fixed.drivetrain.effort_per_current[0] == pytest.approx(0.05, rel=0.05)


def test_the_delay_from_command_to_state(tmp_path):
    """
    Effort commands that reach the motors 4 periods late: the delay is 5 periods.

    A command stamped at the start of period k acts over period k + 4, which the state stamped
    at its end reports: (4 + 1) ms at 1 kHz, by construction of the generator.
    """
    path = write_recording(tmp_path / 'delayed.mcap', record(duration=3.0, delay=4))
    code, text = _run(URDF, path, '--json')
    assert code == 0
    result = json.loads(text)
    assert result['topics']['commands'] == '/actuator_commands'
    for entry in result['transmissions'].values():
        assert entry['delay'] == pytest.approx(0.005, rel=0.05)
        assert 0.0 <= entry['delay_sigma'] < 0.05 * 0.005
        assert 'delay' not in entry['not_excited']


def test_without_commands_the_delay_is_omitted(bag):
    """A bag without actuator_commands: no delay key, and not listed as not excited."""
    path, _ = bag
    code, text = _run(URDF, path, '--json')
    assert code == 0
    result = json.loads(text)
    assert result['topics']['commands'] is None
    for entry in result['transmissions'].values():
        assert 'delay' not in entry and 'delay' not in entry['not_excited']


def test_a_sqlite3_bag(tmp_path):
    """The same recording in SQLite3 storage gives the same backlash."""
    path = write_recording(tmp_path / 'recording.db3', record(duration=3.0), storage='sqlite3')
    code, text = _run(URDF, path, '--json')
    assert code == 0
    geared = json.loads(text)['transmissions']['geared_trans']
    assert geared['backlash'] == pytest.approx(TRUE['geared_trans']['backlash'], rel=0.10)


def test_an_output_onto_the_input_is_refused(bag, capsys):
    """--write-urdf onto the URDF itself is refused before the bag is read."""
    path, wrong = bag
    code, _ = _run(wrong, path, '--write-urdf', wrong)
    assert code != 0
    assert 'wrong.urdf' in capsys.readouterr().err
    assert wrong.read_text() == WRONG
