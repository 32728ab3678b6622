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

"""Tests of WristTransmission (the PR2 wrist): white box, round trips, power, URDF reading."""

import textwrap
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from tp_support import PR2_URDF
from transmission_plugins import BadValueError
from transmission_plugins import BrokenReferenceError
from transmission_plugins import IncompleteTransmissionError
from transmission_plugins import LinearTransmission
from transmission_plugins import TransmissionValueError
from transmission_plugins import WristTransmission
from transmission_plugins.plugins import build_transmission
from transmission_plugins.urdf.records import TransmissionInfo


PR2_REDUCTION = 60.17142857142857


# ------------------------------------------------------------------------------ preconditions
@pytest.mark.parametrize('kwargs, parameter', [
    ({'actuator_reduction': (0.0, 1.0), 'joint_reduction': (1.0, 1.0)}, 'actuator_reduction[0]'),
    ({'actuator_reduction': (1.0, 1.0), 'joint_reduction': (1.0, float('nan'))},
     'joint_reduction[1]'),
    ({'actuator_reduction': (1.0,), 'joint_reduction': (1.0, 1.0)}, 'actuator_reduction'),
    ({'actuator_reduction': (1.0, 1.0), 'joint_reduction': (1.0, 1.0),
      'joint_offset': (0.0, float('inf'))}, 'joint_offset[1]')])
def test_bad_parameters_are_rejected(kwargs, parameter):
    with pytest.raises(TransmissionValueError) as e:
        WristTransmission(**kwargs)
    assert e.value.parameter == parameter


def test_is_a_linear_two_by_two_transmission_with_accessors():
    t = WristTransmission((2.0, 3.0), (-1.0, 4.0), (0.1, 0.2))
    assert isinstance(t, LinearTransmission) and t.is_linear()
    assert t.num_actuators() == 2 and t.num_joints() == 2
    assert t.get_actuator_reduction() == [2.0, 3.0]
    assert t.get_joint_reduction() == [-1.0, 4.0]
    assert t.get_joint_offset() == [0.1, 0.2]
    assert 'WristTransmission' in str(t) and 'WristTransmission(' in repr(t)


# ------------------------------------------------------------------------------ white box
def test_white_box_values_follow_the_cpp_formulas():
    nr, nl, nf, no = 2.0, 4.0, -1.0, 5.0
    t = WristTransmission((nr, nl), (nf, no), (0.5, -0.25))
    ar, al = 8.0, 2.0
    out = t.actuator_to_joint({'position': [ar, al], 'velocity': [ar, al],
                               'effort': [ar, al]})
    flex = (ar / nr - al / nl) / (2 * nf)   # (4 - 0.5) / -2 = -1.75
    roll = (-ar / nr - al / nl) / (2 * no)  # (-4 - 0.5) / 10 = -0.45
    np.testing.assert_allclose(out['position'], [flex + 0.5, roll - 0.25])
    np.testing.assert_allclose(out['velocity'], [-1.75, -0.45])
    np.testing.assert_allclose(out['effort'], [nf * (ar * nr - al * nl),
                                               no * (-ar * nr - al * nl)])  # [-8, -120]
    back = t.joint_to_actuator({'position': [1.25, 0.75], 'velocity': [1.0, 2.0],
                                'effort': [3.0, 10.0]})
    # (q - offset) = (0.75, 1.0): right = 2*(-0.75 - 5), left = 4*(0.75 - 5)
    np.testing.assert_allclose(back['position'], [-11.5, -17.0])
    np.testing.assert_allclose(back['velocity'], [nr * (nf * 1 - no * 2), nl * (-nf * 1 - no * 2)])
    np.testing.assert_allclose(back['effort'], [(3 / nf - 10 / no) / (2 * nr),
                                                (-3 / nf - 10 / no) / (2 * nl)])


def test_pr2_wrist_motors_turning_together_roll_and_opposite_flex():
    t = WristTransmission((PR2_REDUCTION, PR2_REDUCTION), (-1.0, 1.0))
    same = t.actuator_to_joint({'position': [PR2_REDUCTION, PR2_REDUCTION]})['position']
    np.testing.assert_allclose(same, [0.0, -1.0], atol=1e-15)
    opposite = t.actuator_to_joint({'position': [PR2_REDUCTION, -PR2_REDUCTION]})['position']
    np.testing.assert_allclose(opposite, [-1.0, 0.0], atol=1e-15)


# ------------------------------------------------------------------------------ black box
def _random_wrist(rng):
    sign = rng.choice([-1.0, 1.0], 4)
    mag = rng.uniform(0.1, 100.0, 4)
    red = sign * mag
    return WristTransmission(tuple(red[:2]), tuple(red[2:]), tuple(rng.uniform(-1, 1, 2)))


def test_round_trips_both_directions():
    rng = np.random.default_rng(1234)
    for _ in range(20):
        t = _random_wrist(rng)
        act = {k: rng.uniform(-10.0, 10.0, (50, 2)) for k in ('position', 'velocity', 'effort')}
        saved = {k: v.copy() for k, v in act.items()}
        joint = t.actuator_to_joint(act)
        for v in act.values():
            v[:] = 1337.0
        back = t.joint_to_actuator(joint)
        for k in saved:
            np.testing.assert_allclose(back[k], saved[k], rtol=1e-10, atol=1e-10)
        again = t.actuator_to_joint(back)
        for k in joint:
            np.testing.assert_allclose(again[k], joint[k], rtol=1e-10, atol=1e-10)


def test_power_is_conserved():
    rng = np.random.default_rng(1234)
    for _ in range(20):
        t = _random_wrist(rng)
        act_v = rng.uniform(-10.0, 10.0, (100, 2))
        act_e = rng.uniform(-10.0, 10.0, (100, 2))
        joint = t.actuator_to_joint({'velocity': act_v, 'effort': act_e})
        np.testing.assert_allclose(np.sum(joint['velocity'] * joint['effort'], axis=-1),
                                   np.sum(act_v * act_e, axis=-1), rtol=1e-9, atol=1e-9)
        jv = rng.uniform(-1.0, 1.0, (100, 2))
        je = rng.uniform(-1.0, 1.0, (100, 2))
        act = t.joint_to_actuator({'velocity': jv, 'effort': je})
        np.testing.assert_allclose(np.sum(act['velocity'] * act['effort'], axis=-1),
                                   np.sum(jv * je, axis=-1), rtol=1e-9, atol=1e-9)


def test_jacobians_are_inverse_of_each_other():
    t = WristTransmission((PR2_REDUCTION, 30.0), (-1.0, 2.0))
    np.testing.assert_allclose(
        t.joint_to_actuator_jacobian() @ t.actuator_to_joint_jacobian(), np.eye(2), atol=1e-14)


# ------------------------------------------------------------------------------ URDF
def _info(element, name='w'):
    return TransmissionInfo(name=name, type='pr2_mechanism_model/WristTransmission',
                            path=f"/robot[@name='r']/transmission[@name='{name}']",
                            element=element)


def _wrist_xml(body):
    return ET.fromstring(textwrap.dedent(f"""
        <transmission name="w" type="pr2_mechanism_model/WristTransmission">
        {body}
        </transmission>""").strip())


GOOD = """
  <rightActuator name="r" mechanicalReduction="60.0"/>
  <leftActuator name="l" mechanicalReduction="50.0"/>
  <flexJoint name="flex" mechanicalReduction="-1.0"/>
  <rollJoint name="roll" mechanicalReduction="1.0"/>"""


@pytest.mark.parametrize('side', ['r', 'l'])
def test_from_info_on_pr2_urdf(side):
    if not PR2_URDF.is_file():
        pytest.skip(f'{PR2_URDF} is not available (the shared URDF corpus is outside the repo)')
    etree = pytest.importorskip('lxml.etree')
    root = etree.parse(str(PR2_URDF)).getroot()
    element = root.find(f"transmission[@name='{side}_wrist_trans']")
    wiring = WristTransmission.from_info(_info(element, f'{side}_wrist_trans'))
    assert wiring.joint_names == (f'{side}_wrist_flex_joint', f'{side}_wrist_roll_joint')
    assert wiring.actuator_names == (f'{side}_wrist_r_motor', f'{side}_wrist_l_motor')
    t = wiring.transmission
    assert t.get_actuator_reduction() == [PR2_REDUCTION, PR2_REDUCTION]
    assert t.get_joint_reduction() == [-1.0, 1.0]


def test_from_info_inline_orders_by_role_not_document_order():
    body = '\n'.join(reversed(GOOD.strip().splitlines())) + '\n<!-- comment -->'
    wiring = WristTransmission.from_info(_info(_wrist_xml(body)))
    assert wiring.joint_names == ('flex', 'roll') and wiring.actuator_names == ('r', 'l')
    assert wiring.transmission.get_actuator_reduction() == [60.0, 50.0]


@pytest.mark.parametrize('tag', ['rightActuator', 'leftActuator', 'flexJoint', 'rollJoint'])
def test_missing_element(tag):
    body = '\n'.join(line for line in GOOD.splitlines() if tag not in line)
    with pytest.raises(IncompleteTransmissionError, match=f'missing <{tag}>'):
        WristTransmission.from_info(_info(_wrist_xml(body)))


@pytest.mark.parametrize('tag', ['rightActuator', 'rollJoint'])
def test_missing_mechanical_reduction(tag):
    element = _wrist_xml(GOOD)
    element.find(tag).attrib.pop('mechanicalReduction')
    with pytest.raises(IncompleteTransmissionError) as e:
        WristTransmission.from_info(_info(element))
    assert f'{tag}[@name=' in e.value.path and 'mechanicalReduction' in str(e.value)


@pytest.mark.parametrize('value, fragment', [('0', 'non-zero'), ('x', "'x'"), ('inf', 'finite')])
def test_bad_mechanical_reduction(value, fragment):
    element = _wrist_xml(GOOD)
    element.find('leftActuator').set('mechanicalReduction', value)
    with pytest.raises(BadValueError) as e:
        WristTransmission.from_info(_info(element))
    assert e.value.path.endswith("leftActuator[@name='l']/@mechanicalReduction")
    assert fragment in str(e.value)


def test_missing_name():
    element = _wrist_xml(GOOD)
    element.find('flexJoint').attrib.pop('name')
    with pytest.raises(IncompleteTransmissionError, match="flexJoint.*'name' is missing"):
        WristTransmission.from_info(_info(element))


def test_unexpected_child():
    with pytest.raises(BadValueError, match=r'unexpected element <joint>'):
        build_transmission(_info(_wrist_xml(GOOD + '<joint name="x"/>')))


def test_unexpected_attribute():
    element = _wrist_xml(GOOD)
    element.find('rollJoint').set('offset', '0.1')
    with pytest.raises(BadValueError, match=r"/@offset: unexpected attribute 'offset'"):
        build_transmission(_info(element))


def test_duplicate_element():
    with pytest.raises(BadValueError, match='rollJoint.*2 times'):
        WristTransmission.from_info(_info(_wrist_xml(
            GOOD + '<rollJoint name="roll2" mechanicalReduction="1"/>')))


def test_same_joint_twice():
    element = _wrist_xml(GOOD)
    element.find('rollJoint').set('name', 'flex')
    with pytest.raises(BrokenReferenceError, match="joint 'flex' is already used"):
        WristTransmission.from_info(_info(element))
