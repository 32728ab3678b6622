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

r"""
Tests of SliderCrankTransmission: preconditions and URDF, hand-computed cases, random pushrods.

Hand-computed: a slider moving along y under a lever of length r with a rod of length l,
vertical at the neutral pose, puts the slider at the textbook offset-free slider-crank position
:math:`\theta = r\sin q - l + \sqrt{l^2 - r^2(1 - \cos q)^2}`; a parallelogram four-bar
(crank and lever of equal length and parallel) turns the joint exactly as the crank.
test/runtime/test_mechanisms_mujoco.py checks the maps against MuJoCo's closed chain.
"""

import math

from mechanism_contract import check_contract
import numpy as np
import pytest

from transmission_plugins import BadValueError
from transmission_plugins import IncompleteTransmissionError
from transmission_plugins import load_robot_transmissions
from transmission_plugins import RobotTransmission
from transmission_plugins import RobotTransmissions
from transmission_plugins import SliderCrankTransmission
from transmission_plugins import TransmissionValueError

LEVER, ROD = 0.05, 0.25


def slider(r=LEVER, rod=ROD):
    return SliderCrankTransmission(lever_tip=[r, 0.0], slider_tip=[r, rod],
                                   slider_axis=[0.0, 2.0])


def slider_position(q, r=LEVER, rod=ROD):
    """Return the textbook slider position (module docstring)."""
    return r * math.sin(q) - rod + math.sqrt(rod * rod - (r * (1.0 - math.cos(q))) ** 2)


def parallelogram(r=0.04, height=0.2):
    return SliderCrankTransmission(lever_tip=[r, 0.0], crank_pivot=[0.0, height],
                                   crank_tip=[r, height])


URDF = """\
<robot name="r">
  <link name="a"/><link name="b"/>
  <joint name="knee" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 1 0"/>
    <limit lower="-1" upper="1" effort="150" velocity="8"/></joint>
  <transmission name="pushrod">
    <type>transmission_plugins/SliderCrankTransmission</type>
    <joint name="knee">{joint}</joint>
    <actuator name="screw">{actuator}</actuator>
  </transmission>
</robot>
"""
JOINT = '<lever_tip xy="0.05 0"/>'
LINEAR = '<slider_tip xy="0.05 0.25"/><slider_axis xy="0 2"/>'
ROTARY = '<crank_pivot xy="0 0.2"/><crank_tip xy="0.05 0.2"/>'


def load(joint=JOINT, actuator=LINEAR):
    return load_robot_transmissions(URDF.format(joint=joint, actuator=actuator), warn=False)


# ------------------------------------------------------------------------------ preconditions
@pytest.mark.parametrize('kwargs, parameter, expected', [
    ({'crank_pivot': [0, 1], 'slider_axis': [0, 1]}, 'crank_tip', 'not both'),
    ({'slider_tip': [0, 1]}, 'slider_axis', 'not both'),
    ({'crank_pivot': [0, 1], 'crank_tip': [0, 1, 2]}, 'crank_tip', '2 real numbers'),
    ({'slider_tip': [0, math.inf], 'slider_axis': [0, 1]}, 'slider_tip', '2 finite numbers'),
    ({'slider_tip': [0.05, 0.25], 'slider_axis': [0, 0]}, 'slider_axis', 'not (0, 0)'),
    ({'crank_pivot': [0.05, 0.25], 'crank_tip': [0.05, 0.25]}, 'crank_tip', 'away from '
     'crank_pivot'),
    ({'slider_tip': [0.05, 0.0], 'slider_axis': [0, 1]}, 'slider_tip', 'the rod has length 0'),
    ({'slider_tip': [0.3, 0.0], 'slider_axis': [0, 1]}, 'slider_axis', "the actuator's dead "
     'point'),
    ({'slider_tip': [0.1, 0.0], 'slider_axis': [1, 1]}, 'lever_tip', "the joint's dead point"),
])
def test_bad_geometry_is_rejected(kwargs, parameter, expected):
    with pytest.raises(TransmissionValueError) as e:
        SliderCrankTransmission(lever_tip=[0.05, 0.0], **kwargs)
    assert e.value.parameter == parameter and expected in str(e.value)


def test_the_lever_must_not_sit_on_the_joint_axis():
    with pytest.raises(TransmissionValueError, match='lever_tip: expected a point off the joint'):
        SliderCrankTransmission(lever_tip=[0, 0], slider_tip=[0, 1], slider_axis=[1, 0])


def test_valid_construction_and_queries():
    t = slider()
    assert t.num_actuators() == t.num_joints() == 1 and not t.is_rotary()
    assert t.rod_length() == pytest.approx(ROD)
    assert t.parameters() == {'lever_tip': [LEVER, 0.0], 'slider_tip': [LEVER, ROD],
                              'slider_axis': [0.0, 2.0]}
    assert parallelogram().is_rotary()
    assert 'linear actuator' in str(t) and 'crank 0.04 m' in str(parallelogram())
    assert eval(repr(t), {'SliderCrankTransmission': SliderCrankTransmission}).map_key() == \
        t.map_key()


# ------------------------------------------------------------------------------ URDF
@pytest.mark.parametrize('actuator, expected', [
    (LINEAR, slider()),
    (ROTARY, SliderCrankTransmission(lever_tip=[0.05, 0], crank_pivot=[0, 0.2],
                                     crank_tip=[0.05, 0.2]))])
def test_the_urdf_reads_both_kinds(actuator, expected):
    robot = load(actuator=actuator)
    assert robot.transmission('pushrod').transmission.map_key() == expected.map_key()
    assert robot.warnings == []


@pytest.mark.parametrize('joint, actuator, error, path, message', [
    ('', LINEAR, IncompleteTransmissionError, "joint[@name='knee']", 'missing <lever_tip>'),
    (JOINT, LINEAR + ROTARY, BadValueError, "actuator[@name='screw']",
     'needs <crank_pivot> and <crank_tip> (a rotary actuator) or <slider_tip> and '
     "<slider_axis> (a linear one), got ['slider_tip', 'slider_axis', 'crank_pivot', "
     "'crank_tip']"),
    (JOINT, '', IncompleteTransmissionError, "actuator[@name='screw']", 'got none'),
    (JOINT, '<slider_tip xy="0.05 0.25"/>', IncompleteTransmissionError,
     "actuator[@name='screw']", 'missing <slider_axis>'),
    ('<lever_tip xy="0.05 0 0"/>', LINEAR, BadValueError, "joint[@name='knee']/lever_tip/@xy",
     'expected 2 numbers "x y"'),
    (JOINT, LINEAR.replace('0 2', '0 0'), BadValueError,
     "actuator[@name='screw']/slider_axis/@xy", 'slider_axis: expected a direction'),
    (JOINT + '<offset>0.1</offset>', LINEAR, BadValueError, "joint[@name='knee']",
     'has no offset'),
])
def test_urdf_errors_name_the_element_line_and_value(joint, actuator, error, path, message):
    with pytest.raises(error) as e:
        load(joint, actuator)
    assert e.value.path.endswith(path), e.value.path
    assert message in str(e.value)
    assert e.value.line is not None


# ------------------------------------------------------------------------------ white box
@pytest.mark.parametrize('q', [-1.0, -0.4, 0.0, 0.3, 0.9])
def test_the_slider_sits_where_the_textbook_puts_it(q):
    t = slider()
    assert t.actuator_position([q])[0] == pytest.approx(slider_position(q), abs=1e-15)
    h = 1e-6
    slope = (slider_position(q + h) - slider_position(q - h)) / (2.0 * h)
    assert t.joint_to_actuator_jacobian([q])[0, 0] == pytest.approx(slope, abs=1e-9)
    assert t.joint_position([slider_position(q)])[0] == pytest.approx(q, abs=1e-13)


def test_a_force_on_the_slider_turns_the_lever_by_its_arm():
    """At the neutral pose the rod is square to the lever: tau = r F."""
    out = slider().actuator_to_joint({'position': [0.0], 'velocity': [0.1], 'effort': [100.0]})
    assert out['effort'][0] == pytest.approx(LEVER * 100.0, abs=1e-12)
    assert out['velocity'][0] == pytest.approx(0.1 / LEVER, abs=1e-12)


def test_a_parallelogram_turns_the_joint_as_the_crank():
    t = parallelogram()
    q = np.linspace(-1.2, 1.2, 13)[:, None]
    np.testing.assert_allclose(t.actuator_position(q), q, atol=1e-14)
    np.testing.assert_allclose(t.joint_position(q), q, atol=1e-14)
    np.testing.assert_allclose(t.joint_to_actuator_jacobian(q)[:, 0, 0], 1.0, atol=1e-12)


def test_dead_points_bound_the_range_and_are_named():
    t = slider()
    lo, hi = 0.5, 2.5   # the rod comes in line with the lever in between
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if np.isfinite(t.actuator_position([mid])[0]) else (lo, mid)
    assert t.workspace_problems([lo]) == [
        f"joint position {lo:.6g} is at the joint's dead point: the rod is in line with the "
        'lever']
    beyond = t.workspace_problems([hi + 0.1])
    assert beyond[0] == (f"joint position {hi + 0.1:.6g} is beyond the joint's dead point (where "
                         'the rod is in line with the lever)')
    # where the lever and the rod are in line the slider is at its highest
    top = t.actuator_position([lo])[0]
    assert top == pytest.approx(math.sqrt((LEVER + ROD) ** 2 - LEVER ** 2) - ROD, abs=1e-7)
    assert "beyond the joint's dead point: the rod (0.25 m) reaches no joint position" in \
        t.workspace_problems([top + 0.01], to_joint=True)[0]


def test_an_actuator_dead_point_is_named():
    """A crank whose reach ends before the lever's: its dead point bounds the range."""
    t = SliderCrankTransmission(lever_tip=[0.06, 0.0], crank_pivot=[0.0, 0.2],
                                crank_tip=[0.03, 0.2])
    lo, hi = 0.0, 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if np.isfinite(t.actuator_position([mid])[0]) else (lo, mid)
    assert "at the actuator's dead point" in t.workspace_problems([lo])[0]
    assert "beyond the actuator's dead point: the rod" in t.workspace_problems([hi])[0]


# ------------------------------------------------------------------------------ black box
def test_a_parallelogram_keeps_the_contract():
    # the example itself: test/plugins/test_contract.py, through the same invariants
    check_contract(parallelogram(), {'position': np.array([[0.3], [-0.2]]),
                                     'velocity': np.array([[1.0], [2]]),
                                     'effort': np.array([[3.0], [-1]])})


@pytest.mark.parametrize('rotary', [True, False])
def test_random_pushrods_keep_the_contract(rotary):
    rng = np.random.default_rng(1234 + rotary)
    done = 0
    while done < 30:
        def point(low, high):
            angle = rng.uniform(-math.pi, math.pi)
            return rng.uniform(low, high) * np.array([math.cos(angle), math.sin(angle)])

        # lever and crank of 3 to 8 cm, the actuator 15 to 30 cm away: ratios near 1
        lever, first = point(0.03, 0.08), point(0.15, 0.3)
        second = first + point(0.03, 0.08) if rotary else point(0.5, 2.0)
        try:
            t = (SliderCrankTransmission(lever, crank_pivot=first, crank_tip=second) if rotary
                 else SliderCrankTransmission(lever, slider_tip=first, slider_axis=second))
        except TransmissionValueError:
            continue
        q = rng.uniform(-0.5, 0.5, (20, 1))
        theta = t.actuator_position(q)
        # 0.15 rad away from the dead points, where finite differences mean something
        keep = np.all(np.isfinite(t.actuator_position(np.stack([q - 0.15, q, q + 0.15]))),
                      axis=(0, 2))
        if keep.sum() < 5:
            continue
        states = {'position': theta[keep], 'velocity': rng.normal(size=(keep.sum(), 1)),
                  'effort': rng.normal(size=(keep.sum(), 1))}
        check_contract(t, states)
        np.testing.assert_allclose(t.joint_position(theta[keep]), q[keep], atol=1e-11)
        done += 1


# ------------------------------------------------------------------------------ ranges past pi
#: a pushrod whose joint travels from -0.04 rad to 3.43 rad between its dead points
PAST_PI = {'lever_tip': [0.06, 0.085], 'slider_tip': [-0.14, 0.023],
           'slider_axis': [-0.11, 0.86]}
#: a crank-rocker whose crank and joint both travel past -pi from the neutral pose
CRANK_ROCKER = {'lever_tip': [0.057, -0.099], 'crank_pivot': [0.07, 0.057],
                'crank_tip': [-0.237, 0.055]}


def test_a_joint_past_pi_comes_back_as_itself():
    # issue 34: angles were wrapped into (-pi, pi], so a joint at 3.3 came back as -2.983
    t = SliderCrankTransmission(**PAST_PI)
    low, high = t.joint_range()
    assert low < 0.0 < math.pi < 3.3 < high
    q = np.linspace(low + 0.01, high - 0.01, 200)[:, None]
    theta = t.actuator_position(q)
    assert np.isfinite(theta).all()
    np.testing.assert_allclose(t.joint_position(theta), q, atol=1e-9)
    np.testing.assert_allclose(t.joint_position(t.actuator_position([[3.3]])), [[3.3]],
                               atol=1e-12)


def test_a_crank_rocker_s_motor_command_does_not_jump_a_turn():
    # issue 34: the crank angle was wrapped too, so its command jumped by 2 pi as the joint moved
    t = SliderCrankTransmission(**CRANK_ROCKER)
    low, high = t.joint_range()
    crank_low, crank_high = t.actuator_range()
    assert low < -math.pi and crank_low < -math.pi < crank_high
    q = np.linspace(low + 0.01, high - 0.01, 400)[:, None]
    theta = t.actuator_position(q)[:, 0]
    steps = np.diff(theta)
    assert np.all(np.abs(steps) < 1.0), 'the motor command jumps'   # a turn would be 6.3
    assert np.all(steps > 0.0) or np.all(steps < 0.0)   # a crank-rocker's branch: monotone
    np.testing.assert_allclose(t.joint_position(theta[:, None]), q, atol=1e-9)
    # the motor read a turn off maps to the same pose: a multi-turn encoder still converts
    np.testing.assert_allclose(t.joint_position(theta[:, None] + 2.0 * math.pi), q,
                               atol=1e-9)


def test_a_joint_a_turn_off_its_range_is_outside_the_workspace():
    t = SliderCrankTransmission(**PAST_PI)
    low, high = t.joint_range()
    off = 3.3 - 2.0 * math.pi   # the same pose as 3.3, read a turn off
    assert not low <= off <= high
    problems = t.workspace_problems([off])
    assert problems and "outside the joint's range" in problems[0] and '3.3' in problems[0]
    assert t.workspace_problems([3.3]) == []
    robot = RobotTransmissions([RobotTransmission('rod', 'transmission_plugins/'
                                                  'SliderCrankTransmission', t, ('j',), ('m',))])
    assert robot.unreachable_actuators([[off], [3.3]]).tolist() == [[True], [False]]
