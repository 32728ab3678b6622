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

"""The drivetrain identified from the mock's MuJoCo physics against its known parameters."""

import math

from drivetrain_recording import record
from drivetrain_recording import SPLIT
from drivetrain_recording import TORQUE_CONSTANT
from drivetrain_recording import TRUE
import numpy as np
import pytest

from transmission_plugins.robot.drivetrain_identification import identify_drivetrain


@pytest.fixture(scope='module')
def recording():
    """Simulate ten seconds of a chirp (the recording the tests share)."""
    return record()


def _fits(rec):
    """Return the fits by transmission name."""
    fits = identify_drivetrain(rec.robot, rec.time, rec.actuator, rec.joint)
    return {f.name: f for f in fits}


def test_recovers_the_simulated_drivetrain(recording):
    """Every parameter of the fixture within 5 % (backlash 10 %) of the simulated one."""
    fits = _fits(recording)
    geared, sea = fits['geared_trans'], fits['sea_trans']
    # backlash within 10 % of its width; lumped friction within 5 %
    assert geared.values['backlash'] == pytest.approx(TRUE['geared_trans']['backlash'],
                                                      rel=0.10)
    for key in ('coulomb_friction', 'viscous_friction'):
        assert geared.values[key] == pytest.approx(TRUE['geared_trans'][key], rel=0.05)
        assert sea.values[key] == pytest.approx(TRUE['sea_trans'][key], rel=0.05)
    # the spring, from the motor effort through the gear, within 5 %
    assert sea.values['stiffness'] == pytest.approx(TRUE['sea_trans']['stiffness'], rel=0.05)
    assert sea.values['damping'] == pytest.approx(TRUE['sea_trans']['damping'], rel=0.05)
    diff = fits['diff_trans']
    for end, found in {**diff.joints, **diff.actuators}.items():
        for key, value in TRUE['diff_trans'][end].items():
            assert found[key] == pytest.approx(value, rel=0.05, abs=1e-3), (end, key)
    # the nonlinear table: each side apart, the motor side in the motor's units
    table = fits['table_trans']
    for key, value in TRUE['table_trans'].items():
        assert table.values[key] == pytest.approx(value, rel=0.05), key
    # the lumped values, both sides at the joint at the median ratio of the moving samples
    tr = recording.robot.transmission('table_trans').transmission
    j = recording.robot.joint_index['table_joint']
    moving = np.abs(recording.joint['velocity'][:, j]) > 0.05
    ratio = float(np.median(np.asarray(tr.joint_to_actuator_jacobian(
        recording.joint['position'][moving, j][:, None])).ravel()))
    assert 25.0 < ratio < 35.0      # 25 + 15 q^2 over a chirp of 0.8 rad
    truth = TRUE['table_trans']
    assert table.values['coulomb_friction'] == pytest.approx(
        truth['joint_coulomb_friction'] + ratio * truth['motor_coulomb_friction'], rel=0.02)
    assert table.values['viscous_friction'] == pytest.approx(
        truth['joint_viscous_friction'] + ratio ** 2 * truth['motor_viscous_friction'], rel=0.02)
    for fit in (geared, sea, diff, table):
        assert not fit.not_excited
        for key, value in fit.values.items():
            if key != 'backlash' or fit is not table:   # the table's: an identified zero
                assert 0.0 <= fit.sigmas[key] < 0.05 * abs(value), (fit.name, key)
    assert table.values['backlash'] == pytest.approx(0.0, abs=1e-9)


def test_a_nonlinear_map_near_one_ratio_does_not_split_its_friction():
    """Within 0.1 rad of the centre the table's ratio varies by 0.6 %: not told apart."""
    table = _fits(record(duration=3.0, amplitude=0.1))['table_trans']
    for key in TRUE['table_trans']:
        assert key not in table.values
        assert 'joint side and motor side not told apart' in table.not_excited[key], key


def test_spring_from_a_joint_torque_sensor():
    """With the joint torque measured the spring is fitted on it, not on the motor effort."""
    sea = _fits(record(duration=3.0, torque_sensor=True))['sea_trans']
    assert sea.values['stiffness'] == pytest.approx(TRUE['sea_trans']['stiffness'], rel=0.01)
    assert sea.values['damping'] == pytest.approx(TRUE['sea_trans']['damping'], rel=0.01)
    assert 'coulomb_friction' not in sea.values
    assert any('joint torque measured' in note for note in sea.notes)


def test_friction_split_at_a_joint_torque_sensor():
    """
    A joint torque measured: each side's friction within 5 % of the fixture's, apart.

    The geared joint (behind its dead band) and the differential, whose viscous friction per
    motor and per joint the motor effort alone leaves lumped.
    """
    fits = _fits(record(duration=4.0, torque_sensor=True))
    geared, diff = fits['geared_trans'], fits['diff_trans']
    for key, value in SPLIT['geared_trans'].items():
        assert geared.values[key] == pytest.approx(value, rel=0.05), key
        assert 0.0 <= geared.sigmas[key] < 0.05 * value
    # the lumped values stay, and agree: joint side plus motor side seen at the joint
    assert geared.values['coulomb_friction'] == pytest.approx(0.6 + 20 * 0.01, rel=0.05)
    for end, truth in SPLIT['diff_trans'].items():
        found = {**diff.joints, **diff.actuators}[end]
        for key, value in truth.items():
            assert found[key] == pytest.approx(value, rel=0.05, abs=1e-4), (end, key)
            assert 0.0 <= found[key + '_sigma'] < 1e-4, (end, key)
    for fit in (geared, diff):
        assert not fit.not_excited
        assert any('joint torque measured' in note for note in fit.notes)


def test_without_a_joint_torque_the_friction_is_not_split(recording):
    """No torque sensor: the lumped friction only, no side's key, none listed as not excited."""
    fits = _fits(recording)
    for key in SPLIT['geared_trans']:
        assert key not in fits['geared_trans'].values
        assert key not in fits['geared_trans'].not_excited
    assert all(not key.startswith(('joint_', 'motor_'))
               for found in fits['diff_trans'].joints.values() for key in found)


def test_torque_constant_from_currents_and_a_joint_torque():
    """Currents and joint torques: each motor's torque constant within 5 %, friction in N m."""
    rec = record(duration=4.0, torque_sensor=True, current=True)
    fits = {f.name: f for f in identify_drivetrain(rec.robot, rec.time, rec.actuator,
                                                   rec.joint, current=True)}
    for name, motor in (('geared_trans', 'geared_motor'), ('sea_trans', 'sea_motor')):
        assert fits[name].values['torque_constant'] == pytest.approx(TORQUE_CONSTANT[motor],
                                                                     rel=0.05)
        assert 'torque_constant' not in fits[name].not_excited
    assert fits['geared_trans'].values['coulomb_friction'] == pytest.approx(
        TRUE['geared_trans']['coulomb_friction'], rel=0.05)


def test_currents_without_a_joint_torque_use_the_urdf_torque_constant():
    """No torque reference: the torque constant is not excited (said), the URDF's is used."""
    rec = record(duration=4.0, current=True)
    joint = dict(rec.joint, effort=np.full_like(rec.joint['effort'], math.nan))
    fits = {f.name: f for f in identify_drivetrain(rec.robot, rec.time, rec.actuator, joint,
                                                   current=True)}
    geared = fits['geared_trans']
    assert 'torque_constant' not in geared.values
    assert 'no joint torque measured' in geared.not_excited['torque_constant']
    assert geared.values['viscous_friction'] == pytest.approx(
        TRUE['geared_trans']['viscous_friction'], rel=0.05)


def test_too_little_motion_is_not_excited():
    """A joint that barely moves: every value not excited, in words, none guessed."""
    still = record(duration=2.0, amplitude=1e-4)
    fits = _fits(still)
    geared, sea = fits['geared_trans'], fits['sea_trans']
    assert not geared.values
    assert set(geared.not_excited) == {'coulomb_friction', 'viscous_friction', 'backlash'}
    assert 'never reversed' in geared.not_excited['backlash']
    assert 'never moved faster' in geared.not_excited['coulomb_friction']
    assert not sea.values
    assert 'never deflected' in sea.not_excited['stiffness']
    diff = fits['diff_trans']
    assert not diff.joints and not diff.actuators
    assert 'never moved faster' in diff.not_excited['diff_motor_1.coulomb_friction']


def test_one_speed_leaves_viscous_friction_out_and_says_so():
    """A triangle wave (one speed, reversing): backlash found, the friction only at that speed."""
    geared = _fits(record(duration=6.0, triangle=True))['geared_trans']
    assert geared.values['backlash'] == pytest.approx(TRUE['geared_trans']['backlash'],
                                                      rel=0.10)
    assert 'speeds within' in geared.not_excited['viscous_friction']
    assert 'one speed only' in geared.not_excited['coulomb_friction']
    assert 'coulomb_friction' not in geared.values and 'viscous_friction' not in geared.values
