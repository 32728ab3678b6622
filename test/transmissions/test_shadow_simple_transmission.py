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
Tests of ShadowSimpleTransmission against sr_mechanism_model's formulas, and its URDF reading.

The reference functions below restate, independently, what Shadow's code computes
(shadow-robot/sr_core ``sr_mechanism_model/src/simple_transmission.cpp``: ``propagatePosition``
and ``propagateEffort``; before September 2011, in shadow-robot/sr-ros-interface, the same with
a reduction read from ``<mechanicalReduction>``); they are written from the formulas, not
copied.
"""

import numpy as np
import pytest

from transmission_plugins import BadValueError
from transmission_plugins import IncompleteTransmissionError
from transmission_plugins import load_robot_transmissions
from transmission_plugins import ShadowSimpleTransmission
from transmission_plugins import SimpleTransmission


# ------------------------------------------------------------------------------ the references
def shadow_joint_state(position, velocity, last_measured_effort):
    """sr_mechanism_model (propagatePosition): the joint takes the actuator's state as it is."""
    return position, velocity, last_measured_effort


def shadow_effort_command(commanded_effort):
    """sr_mechanism_model (propagateEffort): the actuator is sent the joint's effort command."""
    return commanded_effort


def shadow_2011_joint_state(position, velocity, effort, reduction, reference_position):
    """Return the joint state as the version before September 2011 (a reduction, then set to 1)."""
    return position / reduction + reference_position, velocity / reduction, effort * reduction


KINDS = ('position', 'velocity', 'effort')


# ------------------------------------------------------------------------------ preconditions
def test_construction_and_queries():
    t = ShadowSimpleTransmission()
    assert isinstance(t, SimpleTransmission) and t.is_linear()
    assert (t.num_actuators(), t.num_joints()) == (1, 1)
    a2j, j2a, offset = t.linear_map()
    assert (a2j.tolist(), j2a.tolist(), offset.tolist()) == ([[1.0]], [[1.0]], [0.0])
    assert (t.get_actuator_reduction(), t.get_joint_offset()) == (1.0, 0.0)
    assert repr(t) == 'ShadowSimpleTransmission()'
    assert str(t) == ('ShadowSimpleTransmission: 1 actuator -> 1 joint, position, velocity '
                      'and effort one to one')
    assert ShadowSimpleTransmission().same_map(t)
    assert not SimpleTransmission(1.0).same_map(t)  # another type, the same maths
    with pytest.raises(TypeError):
        ShadowSimpleTransmission(2.0)


# ------------------------------------------------------------------------------ white box
@pytest.mark.parametrize('state', [(0.0, 0.0, 0.0), (0.35, -1.2, 0.4), (-1.57, 3.0, -2.5)])
def test_white_box(state):
    t = ShadowSimpleTransmission()
    out = t.actuator_to_joint({k: [v] for k, v in zip(KINDS, state)})
    assert {k: out[k].tolist() for k in KINDS} == {k: [v] for k, v in zip(KINDS, state)}
    back = t.joint_to_actuator(out)
    assert {k: back[k].tolist() for k in KINDS} == {k: [v] for k, v in zip(KINDS, state)}


def test_agrees_with_sr_mechanism_model():
    rng = np.random.default_rng(1234)
    t = ShadowSimpleTransmission()
    for position, velocity, effort, command in rng.uniform(-3.0, 3.0, size=(200, 4)):
        out = t.actuator_to_joint({'position': [position], 'velocity': [velocity],
                                   'effort': [effort]})
        assert (out['position'][0], out['velocity'][0], out['effort'][0]) == \
            shadow_joint_state(position, velocity, effort)
        # the 2011 version with its reduction of 1 and no reference position: the same map
        assert shadow_2011_joint_state(position, velocity, effort, 1.0, 0.0) == \
            shadow_joint_state(position, velocity, effort)
        u = t.joint_to_actuator({'effort': [command]})['effort'][0]
        assert u == shadow_effort_command(command)


# ------------------------------------------------------------------------------ black box
def test_black_box_round_trips_and_power():
    rng = np.random.default_rng(1234)
    t = ShadowSimpleTransmission()
    a = {k: rng.uniform(-3.0, 3.0, size=(100, 1)) for k in KINDS}
    j = t.actuator_to_joint(a)
    for k in KINDS:
        j[k] = j[k].copy()
    back = t.joint_to_actuator(j)
    for k in KINDS:
        np.testing.assert_array_equal(back[k], a[k])
    np.testing.assert_array_equal(j['effort'] * j['velocity'], a['effort'] * a['velocity'])


# ------------------------------------------------------------------------------ URDF
#: the form of shadow_hand_e.urdf (sr_description): the actuator named like the joint, a
#: reduction of 1 on the actuator, unprefixed hardware interfaces on the joint
WRIST = """<robot name="hand">
  <link name="forearm"/><link name="wrist"/>
  <joint name="rh_WRJ2" type="revolute"><parent link="forearm"/><child link="wrist"/>
    <limit lower="-0.52" upper="0.17" effort="10" velocity="2"/></joint>
  <transmission name="rh_wrist_transmission"{attribute}>
    {type}
    <actuator name="{actuator_name}">{actuator}</actuator>
    <joint name="rh_WRJ2">{joint}
      <hardwareInterface>EffortJointInterface</hardwareInterface>
      <hardwareInterface>PositionJointInterface</hardwareInterface>
    </joint>{extra}
  </transmission>
</robot>
"""
PATH = "/robot[@name='hand']/transmission[@name='rh_wrist_transmission']"
TYPE = 'sr_mechanism_model/SimpleTransmission'
ONE = '<mechanicalReduction>1</mechanicalReduction>'


def _wrist(actuator=ONE, joint='', extra='', actuator_name='rh_WRJ2', type_attribute=False,
           lenient=False):
    return load_robot_transmissions(WRIST.format(
        attribute=f' type="{TYPE}"' if type_attribute else '',
        type='' if type_attribute else f'<type>{TYPE}</type>', actuator_name=actuator_name,
        actuator=actuator, joint=joint, extra=extra), lenient=lenient, warn=False)


@pytest.mark.parametrize('type_attribute', [False, True], ids=['type element', 'type attribute'])
@pytest.mark.parametrize('actuator', [ONE, '', '<mechanicalReduction>1.0</mechanicalReduction>'],
                         ids=['reduction 1', 'no reduction', 'reduction 1.0'])
def test_urdf_reads_the_shadow_hand_form(type_attribute, actuator):
    robot = _wrist(actuator=actuator, type_attribute=type_attribute)
    assert robot.warnings == []
    t = robot.transmission('rh_wrist_transmission')
    assert type(t.transmission) is ShadowSimpleTransmission
    assert t.joint_names == ('rh_WRJ2',) and t.actuator_names == ('rh_WRJ2',)
    state = {'position': {'rh_WRJ2': 0.1}, 'velocity': {'rh_WRJ2': -0.3},
             'effort': {'rh_WRJ2': 0.7}}
    assert robot.actuator_to_joint(state) == state
    assert robot.joint_to_actuator(state) == state
    assert (robot.actuator_lower[0], robot.actuator_upper[0]) == (-0.52, 0.17)


def test_urdf_a_neutral_offset_is_accepted():
    robot = _wrist(joint='<offset>0</offset>')
    assert robot.warnings == []


R = '<mechanicalReduction>{}</mechanicalReduction>'


@pytest.mark.parametrize('actuator, joint, extra, path, fragment', [
    (R.format(2), '', '', "actuator[@name='rh_WRJ2']/mechanicalReduction",
     f'{TYPE} reads no reduction (its map is fixed); the value 2.0 would be ignored (expected 1 '
     'or no <mechanicalReduction>)'),
    (R.format(-1), '', '', "actuator[@name='rh_WRJ2']/mechanicalReduction",
     'the value -1.0 would be ignored (expected 1 or no <mechanicalReduction>)'),
    ('', R.format(3), '', "joint[@name='rh_WRJ2']/mechanicalReduction",
     'the value 3.0 would be ignored (expected 1 or no <mechanicalReduction>)'),
    ('', '', R.format(0.5), 'mechanicalReduction',
     'the value 0.5 would be ignored (expected 1 or no <mechanicalReduction>)'),
    ('', '<offset>0.1</offset>', '', "joint[@name='rh_WRJ2']/offset",
     f'{TYPE} reads no offset (its map is fixed); the value 0.1 would be ignored (expected 0 '
     'or no <offset>)'),
    (ONE + '<offset>-0.2</offset>', '', '', "actuator[@name='rh_WRJ2']/offset",
     'the value -0.2 would be ignored (expected 0 or no <offset>)'),
    (ONE, '', '<actuator name="rh_WRJ2_spare"/>', "actuator[@name='rh_WRJ2_spare']",
     f"{TYPE} needs exactly 1 <actuator> element(s), got 2: ['rh_WRJ2', 'rh_WRJ2_spare']; "
     "sr_mechanism_model's loader reads only the first"),
    (ONE, '', '<compensator k_belt="4000.0"/>', 'compensator', 'unexpected element'),
])
def test_urdf_strictness(actuator, joint, extra, path, fragment):
    with pytest.raises(BadValueError) as e:
        _wrist(actuator=actuator, joint=joint, extra=extra)
    assert e.value.path == f'{PATH}/{path}'
    assert fragment in str(e.value)


def test_urdf_a_second_joint_is_an_error():
    text = WRIST.format(attribute='', type=f'<type>{TYPE}</type>', actuator_name='rh_WRJ2',
                        actuator=ONE, joint='', extra='<joint name="rh_WRJ1"/>').replace(
        '</robot>', '<link name="palm"/><joint name="rh_WRJ1" type="revolute"><parent '
        'link="wrist"/><child link="palm"/><limit lower="-0.7" upper="0.5" effort="5" '
        'velocity="2"/></joint></robot>')
    with pytest.raises(BadValueError) as e:
        load_robot_transmissions(text, warn=False)
    assert e.value.path == f"{PATH}/joint[@name='rh_WRJ1']"
    assert "needs exactly 1 <joint> element(s), got 2: ['rh_WRJ2', 'rh_WRJ1']" in str(e.value)
    # lenient: the first joint only, as Shadow's loader (FirstChildElement)
    robot = load_robot_transmissions(text, lenient=True, warn=False)
    assert robot.transmission('rh_wrist_transmission').joint_names == ('rh_WRJ2',)
    assert robot.untransmitted_joints == ['rh_WRJ1']
    assert any("ignored, using the first, 'rh_WRJ2' (lenient mode)" in w
               for w in robot.warnings)


def test_urdf_without_an_actuator():
    with pytest.raises(IncompleteTransmissionError, match='needs exactly 1 <actuator>'):
        load_robot_transmissions(WRIST.format(
            attribute='', type=f'<type>{TYPE}</type>', actuator_name='x', actuator='', joint='',
            extra='').replace('<actuator name="x"></actuator>', ''), warn=False)


@pytest.mark.parametrize('actuator, joint, extra', [
    (R.format(2), '', ''), ('', '<offset>0.1</offset>', ''), ('', '', R.format(-3)),
    (ONE, '', '<actuator name="rh_WRJ2_spare"/>')])
def test_urdf_lenient_mode_ignores_what_sr_mechanism_model_ignores(actuator, joint, extra):
    robot = _wrist(actuator=actuator, joint=joint, extra=extra, lenient=True)
    t = robot.transmission('rh_wrist_transmission')
    assert t.transmission.same_map(ShadowSimpleTransmission())
    assert t.actuator_names == ('rh_WRJ2',)
    assert len(robot.warnings) == 1 and 'ignored' in robot.warnings[0]
    assert 'lenient mode' in robot.warnings[0]
    assert robot.actuator_to_joint({'position': {'rh_WRJ2': 0.25}}) == {
        'position': {'rh_WRJ2': 0.25}}
