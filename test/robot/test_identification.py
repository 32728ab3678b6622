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

"""Identification of transmission parameters from samples, without a bag (issue 26, item 2)."""

import math

import numpy as np
import pytest

from transmission_plugins.robot.identification import identify
from transmission_plugins.robot.identification import NotExcitedError
from transmission_plugins.robot.identification import Samples
from transmission_plugins.robot.suspected_mistakes import offset_finding
from transmission_plugins.robot.suspected_mistakes import reduction_finding
from transmission_plugins.robot.wiring import RobotTransmission
from transmission_plugins.transmissions.four_bar_linkage_transmission import \
    FourBarLinkageTransmission
from transmission_plugins.transmissions.pr2_gripper_transmission import PR2GripperTransmission
from transmission_plugins.transmissions.simple_transmission import SimpleTransmission


def _samples(urdf_t, true_t, count=2000, seed=3, noise=1e-5):
    """Return samples of ``true_t`` (the robot) for a URDF that says ``urdf_t``."""
    rng = np.random.default_rng(seed)
    n = true_t.num_joints()
    t = np.linspace(0, 10, count)[:, None]
    q = 0.8 * np.sin(t * (1 + np.arange(n))) + 0.2 * np.cos(3.1 * t * (1 + np.arange(n)))
    theta = true_t.joint_to_actuator({'position': q})['position']
    s = Samples(true_t.num_actuators(), n)
    s.add(theta, q + rng.normal(0, noise, q.shape))
    return s


def _one(tr, joints=('j1',), actuators=('m1',)):
    return RobotTransmission('t', 'test', tr, tuple(joints), tuple(actuators))


def _by_name(fit):
    return {(p.name, p.end): p for p in fit.parameters}


def test_a_correct_urdf_changes_nothing():
    tr = SimpleTransmission(50.0, 0.2)
    fit = identify(_one(tr), _samples(tr, tr))
    p = _by_name(fit)
    assert not any(x.changed for x in fit.parameters)
    assert p['actuator_reduction', 'm1'].uncertainty < 1e-3
    assert fit.rms_before['j1'] == pytest.approx(1e-5, rel=0.1)


def test_a_flipped_sign_and_an_offset_near_a_turn():
    urdf = SimpleTransmission(-50.0, 0.0)
    true = SimpleTransmission(50.0, 2 * math.pi + 0.001)
    fit = identify(_one(urdf), _samples(urdf, true))
    p = _by_name(fit)
    assert p['actuator_reduction', 'm1'].corrected == 50.0
    assert 'flipped sign' in p['actuator_reduction', 'm1'].finding
    offset = p['joint_offset', 'j1']
    assert offset.value == pytest.approx(2 * math.pi + 0.001, abs=1e-5)
    assert 'near 1 full turn of the joint' in offset.finding


def test_a_four_bar_reduction_off_by_two_is_one_parameter():
    urdf = FourBarLinkageTransmission((3.0, 3.0), (1.0, 1.5))
    true = FourBarLinkageTransmission((3.0, 6.0), (1.0, 1.5))
    fit = identify(_one(urdf, ('j1', 'j2'), ('m1', 'm2')), _samples(urdf, true))
    changed = [x for x in fit.parameters if x.changed]
    assert [(x.name, x.end, x.corrected) for x in changed] == [('actuator_reduction', 'm2', 6.0)]
    assert 'off by a factor of 2 (the URDF' in changed[0].finding
    assert fit.rms_after['j2'] < 1e-4 < fit.rms_before['j2']


def test_parameters_the_recording_cannot_tell_apart_are_said():
    # a four-bar's first actuator and joint reductions only appear as their product
    urdf = FourBarLinkageTransmission((3.0, 3.0), (1.0, 1.5))
    true = FourBarLinkageTransmission((4.0, 3.0), (1.0, 1.5))
    fit = identify(_one(urdf, ('j1', 'j2'), ('m1', 'm2')), _samples(urdf, true))
    (changed,) = [x for x in fit.parameters if x.changed and x.name.endswith('reduction')]
    assert 'cannot tell them apart' in changed.finding


def test_an_actuator_that_does_not_move_is_not_excited():
    tr = FourBarLinkageTransmission((3.0, 3.0), (1.0, 1.5))
    s = Samples(2, 2)
    q = np.column_stack([np.sin(np.linspace(0, 5, 500)), np.zeros(500)])
    q[:, 1] = -q[:, 0] / 1.5   # the elbow motor stays still
    s.add(tr.joint_to_actuator({'position': q})['position'], q)
    with pytest.raises(NotExcitedError, match="transmission 't': the recorded motion does not "
                                              'identify the reduction of m2'):
        identify(_one(tr, ('j1', 'j2'), ('m1', 'm2')), s)


def test_the_gripper_zero_is_identified():
    tr = PR2GripperTransmission(screw_reduction=0.004, gear_ratio=40.095,
                                theta0=0.0628824676201037, phi0=0.5185181221457433,
                                t0=-0.0001914, L0=0.0375528, h=0.0, a=0.0683698,
                                b=0.0433849, r=0.0915)
    joints = tuple(f'j{k}' for k in range(tr.num_joints()))
    gap = np.linspace(0.01, 0.08, 300)[:, None]
    full = np.zeros((300, tr.num_joints()))
    full[:, :1] = gap
    theta = tr.joint_to_actuator({'position': full})['position']
    s = Samples(1, 1, raw=True)
    s.add(theta + 3.0, gap)   # the motor's zero is 3 rad off
    fit = identify(_one(tr, joints, ('m',)), s)
    (p,) = fit.parameters
    assert p.name == 'actuator_offset' and p.value == pytest.approx(3.0, abs=1e-6)
    assert 'calibration file holds it' in p.finding


@pytest.mark.parametrize('urdf, value, words', [
    (2.0, -2.0, 'flipped sign'),
    (2.5, 3.75, "off by a factor of 1.5 (the URDF's is 1.5 times too small)"),
    (10.0, -1.0, "off by a factor of 10 (the URDF's is 10 times too large and its sign "
                 'flipped)'),
    (3.0, 3.3, 'differs by a factor of 1.1'),
])
def test_reduction_words(urdf, value, words):
    assert words in reduction_finding('actuator_reduction', 'm', urdf, value, 1e-6)


def test_offset_words():
    assert offset_finding('j', 0.0, 1e-7, 1e-6) == ''
    words = offset_finding('j', 0.0, 4 * math.pi / 50, 1e-7, 50.0)
    assert 'near 2 full turns of its actuator' in words
    assert 'near' not in offset_finding('j', 0.0, 0.05, 1e-6, 50.0)
