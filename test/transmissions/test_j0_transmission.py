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
Tests of J0Transmission against sr_mechanism_model's formulas, and its URDF reading.

The reference functions below restate, independently, what Shadow's code computes
(shadow-robot/sr_core ``sr_mechanism_model/src/joint_0_transmission.cpp`` and
``simple_transmission.cpp``; the 2013 version with a joint-to-actuator map in
shadow-robot/sr-ros-interface); they are written from the formulas, not copied.
"""

import re

import numpy as np
import pytest

from transmission_plugins import BadValueError
from transmission_plugins import BrokenReferenceError
from transmission_plugins import CouplingTransmission
from transmission_plugins import J0Transmission
from transmission_plugins import J0TransmissionForMuscle
from transmission_plugins import load_robot_transmissions


# ------------------------------------------------------------------------------ the references
def shadow_simulated_state(position, velocity, effort):
    """sr_mechanism_model, no joint sensor readings (Gazebo): each joint gets half of all."""
    half = (position / 2.0, velocity / 2.0, effort / 2.0)
    return half, half


def shadow_hardware_state(velocity, effort, sensor_j1, sensor_j2):
    """sr_mechanism_model with the two joint sensors: their positions, half the velocity."""
    return (sensor_j1, velocity / 2.0, effort), (sensor_j2, velocity / 2.0, effort)


def shadow_effort_command(command_j1, command_j2):
    """sr_mechanism_model (SimpleTransmission::propagateEffort): J1's command to the tendon."""
    return command_j1


def shadow_2013_actuator_state(j1, j2):
    """Return the tendon state as the 2013 (pr2_mechanism_model era) version: the joints' sum."""
    return tuple(a + b for a, b in zip(j1, j2))


# ------------------------------------------------------------------------------ preconditions
def test_construction_and_queries():
    t = J0Transmission()
    assert isinstance(t, CouplingTransmission) and t.is_linear()
    assert (t.num_actuators(), t.num_joints()) == (1, 2)
    a2j, j2a, offset = t.linear_map()
    assert a2j.tolist() == [[0.5], [0.5]] and j2a.tolist() == [[1.0, 1.0]]
    assert offset.tolist() == [0.0, 0.0]
    assert t.joint_to_actuator_inputs() == (0, 1)
    assert repr(t) == 'J0Transmission()'
    assert str(t).startswith('J0Transmission: 1 tendon -> 2 joints (J1, J2)')
    assert J0Transmission().same_map(t)
    assert not J0TransmissionForMuscle().same_map(t)  # another type, the same maths
    with pytest.raises(TypeError):
        J0Transmission([[1.0], [1.0]])


# ------------------------------------------------------------------------------ white box
# (tendon position, velocity, effort) -> J1 and J2 (position, velocity, effort), by hand
CASES = [
    ((0.0, 0.0, 0.0), (0.0, 0.0, 0.0)),
    ((1.0, 2.0, 0.5), (0.5, 1.0, 0.5)),
    ((3.14, -0.4, -1.25), (1.57, -0.2, -1.25)),
]


@pytest.mark.parametrize('tendon, joint', CASES)
def test_white_box(tendon, joint):
    t = J0Transmission()
    kinds = ('position', 'velocity', 'effort')
    out = t.actuator_to_joint({k: [v] for k, v in zip(kinds, tendon)})
    for k, v in zip(('position', 'velocity', 'effort'), joint):
        np.testing.assert_allclose(out[k], [v, v], rtol=1e-15, err_msg=k)
    back = t.joint_to_actuator(out)
    for k, v in zip(('position', 'velocity', 'effort'), tendon):
        np.testing.assert_allclose(back[k], [v], rtol=1e-15, err_msg=k)


def test_agrees_with_sr_mechanism_model():
    rng = np.random.default_rng(1234)
    t = J0Transmission()
    for position, velocity, effort in rng.uniform(-3.0, 3.0, size=(200, 3)):
        out = t.actuator_to_joint({'position': [position], 'velocity': [velocity],
                                   'effort': [effort]})
        simulated = shadow_simulated_state(position, velocity, effort)
        hardware = shadow_hardware_state(velocity, effort, *out['position'])
        for i in range(2):
            # positions: the simulated branch's halves (the hardware reads sensors instead)
            assert out['position'][i] == pytest.approx(simulated[i][0], rel=1e-15)
            # velocities: half the tendon's, in both branches
            assert out['velocity'][i] == pytest.approx(simulated[i][1], rel=1e-15)
            assert out['velocity'][i] == pytest.approx(hardware[i][1], rel=1e-15)
            # efforts: the whole tendon effort on each joint, as the hardware branch
            assert out['effort'][i] == pytest.approx(hardware[i][2], rel=1e-15)
        # joint to actuator: the sum of the joints, as the 2013 version
        q = rng.uniform(0.0, 1.5, size=2)
        v = rng.uniform(-2.0, 2.0, size=2)
        back = t.joint_to_actuator({'position': q, 'velocity': v})
        reference = shadow_2013_actuator_state((q[0], v[0]), (q[1], v[1]))
        assert (back['position'][0], back['velocity'][0]) == pytest.approx(reference, rel=1e-15)
        # an effort command the tendon can make (equal on both joints): J1's, as today's code
        command = rng.uniform(-1.0, 1.0)
        u = t.joint_to_actuator({'effort': [command, command]})['effort'][0]
        assert u == pytest.approx(shadow_effort_command(command, command), rel=1e-15)


def test_where_it_differs_from_sr_mechanism_model():
    t = J0Transmission()
    # the simulated branch halves the effort: it would halve the power, so it is not followed
    out = t.actuator_to_joint({'velocity': [2.0], 'effort': [1.0]})
    assert out['effort'].tolist() == [1.0, 1.0]
    assert shadow_simulated_state(0.0, 2.0, 1.0)[0][2] == 0.5
    assert np.sum(out['effort'] * out['velocity']) == 2.0 * 1.0  # tau . dq = u . dtheta
    # unequal commands: the power-conserving mean, where today's code sends J1's alone
    u = t.joint_to_actuator({'effort': [1.0, 0.0]})['effort'][0]
    assert (u, shadow_effort_command(1.0, 0.0)) == (0.5, 1.0)


# ------------------------------------------------------------------------------ black box
def test_black_box_round_trips_and_power():
    rng = np.random.default_rng(1234)
    t = J0Transmission()
    a = {k: rng.uniform(-3.0, 3.0, size=(100, 1)) for k in ('position', 'velocity', 'effort')}
    j = t.actuator_to_joint(a)
    back = t.joint_to_actuator(j)
    for k in a:
        np.testing.assert_allclose(back[k], a[k], rtol=1e-15, atol=1e-15)
    np.testing.assert_allclose(np.sum(j['effort'] * j['velocity'], axis=-1),
                               (a['effort'] * a['velocity'])[:, 0], rtol=1e-14, atol=1e-15)


# ------------------------------------------------------------------------------ URDF
FINGER = """<robot name="hand">
  <link name="palm"/><link name="middle"/><link name="distal"/>
  <joint name="{j2}" type="revolute"><parent link="palm"/><child link="middle"/>
    <limit lower="0" upper="1.57" effort="2" velocity="2"/></joint>
  <joint name="{j1}" type="revolute"><parent link="middle"/><child link="distal"/>
    <limit lower="0" upper="1.57" effort="2" velocity="2"/></joint>
  <transmission name="lh_ffmiddle_transmission">
    <type>sr_mechanism_model/{type}</type>
    <actuator name="lh_FFJ0">{actuator}</actuator>
    <joint name="{named}">
      <hardwareInterface>EffortJointInterface</hardwareInterface>
    </joint>{extra}
  </transmission>
</robot>
"""
PATH = "/robot[@name='hand']/transmission[@name='lh_ffmiddle_transmission']"


def _hand(j1='lh_FFJ1', j2='lh_FFJ2', named=None, type='J0Transmission',  # noqa: A002
          actuator='<mechanicalReduction>1</mechanicalReduction>', extra='', lenient=False):
    return load_robot_transmissions(FINGER.format(
        j1=j1, j2=j2, named=named or j1, type=type, actuator=actuator, extra=extra),
        lenient=lenient, warn=False)


@pytest.mark.parametrize('type_name, cls', [
    ('J0Transmission', J0Transmission), ('J0TransmissionForMuscle', J0TransmissionForMuscle)])
def test_urdf_second_joint_is_named_by_sr_mechanism_models_rule(type_name, cls):
    robot = _hand(type=type_name)
    t = robot.transmission('lh_ffmiddle_transmission')
    assert type(t.transmission) is cls
    assert t.joint_names == ('lh_FFJ1', 'lh_FFJ2') and t.actuator_names == ('lh_FFJ0',)
    out = robot.actuator_to_joint({'position': {'lh_FFJ0': 2.0}, 'effort': {'lh_FFJ0': 0.3}})
    assert out == {'position': {'lh_FFJ1': 1.0, 'lh_FFJ2': 1.0},
                   'effort': {'lh_FFJ1': 0.3, 'lh_FFJ2': 0.3}}
    assert robot.joint_to_actuator({'position': {'lh_FFJ1': 0.25, 'lh_FFJ2': 0.5}}) == {
        'position': {'lh_FFJ0': 0.75}}
    assert robot.actuator_upper[0] == pytest.approx(3.14)  # both joints at their upper limit


def test_urdf_the_rule_replaces_the_last_character_whatever_it_is():
    robot = _hand(j1='thumb_distal', j2='thumb_dista2')
    names = robot.transmission('lh_ffmiddle_transmission').joint_names
    assert names == ('thumb_distal', 'thumb_dista2')


def test_urdf_second_joint_missing_from_the_robot():
    with pytest.raises(BrokenReferenceError) as e:
        _hand(j2='lh_FFJ2_middle')
    assert e.value.path == f"{PATH}/joint[@name='lh_FFJ1']" and e.value.line == 10
    assert re.search(r"drives 'lh_FFJ1' and the joint named like it with the last character "
                     r"replaced by '2' \(the rule of sr_mechanism_model's loader\), 'lh_FFJ2', "
                     'which is not a <joint> of the robot', str(e.value))


def test_urdf_naming_the_middle_joint_is_an_error():
    with pytest.raises(BadValueError, match=re.escape("joint[@name='lh_FFJ2']/@name (line 10)")) \
            as e:
        _hand(named='lh_FFJ2')
    assert 'the same joint twice; name the distal joint (J1) here' in str(e.value)


@pytest.mark.parametrize('actuator, extra, path, fragment', [
    ('<mechanicalReduction>2</mechanicalReduction>', '', "actuator[@name='lh_FFJ0']/"
     'mechanicalReduction', 'reads no reduction (its map is fixed); the value 2.0'),
    ('<offset>0.1</offset>', '', "actuator[@name='lh_FFJ0']/offset", 'reads no offset'),
    ('', '<secondJoint name="lh_FFJ2"/>', 'secondJoint', 'unexpected element <secondJoint>'),
    ('', '<joint name="lh_FFJ2"/>', "joint[@name='lh_FFJ2']", 'needs exactly 1 <joint>'),
])
def test_urdf_strictness(actuator, extra, path, fragment):
    with pytest.raises(BadValueError) as e:
        _hand(actuator=actuator, extra=extra)
    assert e.value.path == f'{PATH}/{path}'
    assert fragment in str(e.value)


def test_urdf_lenient_mode_ignores_a_reduction_as_sr_mechanism_model_does():
    robot = _hand(actuator='<mechanicalReduction>2</mechanicalReduction>', lenient=True)
    assert robot.transmission('lh_ffmiddle_transmission').transmission.same_map(
        J0Transmission())
    assert any('would be ignored' in w for w in robot.warnings)


def test_urdf_lenient_mode_reads_the_first_joint_as_sr_mechanism_model_does():
    robot = _hand(extra='<joint name="lh_FFJ2"/>', lenient=True)
    t = robot.transmission('lh_ffmiddle_transmission')
    assert t.joint_names == ('lh_FFJ1', 'lh_FFJ2') and t.transmission.same_map(J0Transmission())
    assert any("reads only the first; ignored, using the first, 'lh_FFJ1' (lenient mode)" in w
               for w in robot.warnings)
