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
Tests of SimpleTransmission: preconditions, white-box values and black-box round trips.

The published cases come from ros2_control ``transmission_interface/test/
simple_transmission_test.cpp``; they are re-stated here, not copied.
"""

from fractions import Fraction
import re

import numpy as np
import pytest

from transmission_plugins import ActuatorHandle
from transmission_plugins import INTERFACES
from transmission_plugins import JointHandle
from transmission_plugins import SimpleTransmission
from transmission_plugins import TransmissionConfigurationError
from transmission_plugins import TransmissionValueError

EFFORT_LIKE = ('effort', 'torque', 'force')
POSITION_LIKE = ('position', 'absolute_position')
GARBAGE = 1337.1337


def _value_error(parameter, value):
    """Return the ``match=`` pattern naming a parameter and its offending value."""
    return re.escape(f'{parameter}: expected') + '.*' + re.escape(f'got {value!r}')


# ------------------------------------------------------------------------------ preconditions
# Zero reductions: the upstream cases (0, 0 with offsets 1 and -1) plus integer and signed zero.
@pytest.mark.parametrize('reduction, offset', [
    (0.0, 0.0), (0.0, 1.0), (0.0, -1.0), (0, 0.0), (-0.0, 0.0)])
def test_zero_reduction_is_rejected(reduction, offset):
    with pytest.raises(TransmissionValueError, match=_value_error('reduction', reduction)) as e:
        SimpleTransmission(reduction, offset)
    assert 'cannot be zero' in str(e.value)
    assert e.value.parameter == 'reduction'
    assert isinstance(e.value, ValueError)


@pytest.mark.parametrize('bad', [
    float('nan'), float('inf'), -float('inf'), np.nan, '10', None, [10.0], np.array([10.0]),
    True, False, np.bool_(True), 1 + 2j])
def test_bad_reduction_is_rejected(bad):
    with pytest.raises(TransmissionValueError, match=_value_error('reduction', bad)):
        SimpleTransmission(bad)


@pytest.mark.parametrize('bad', [
    float('nan'), float('inf'), -float('inf'), '1.0', None, [1.0], True])
def test_bad_joint_offset_is_rejected(bad):
    with pytest.raises(TransmissionValueError, match=_value_error('joint_offset', bad)) as e:
        SimpleTransmission(10.0, bad)
    assert e.value.parameter == 'joint_offset'
    assert 'SimpleTransmission' in str(e.value)


# Valid constructions of the upstream test, plus other real number types.
@pytest.mark.parametrize('reduction, offset', [
    (1.0, 0.0), (1.0, 1.0), (-1.0, 1.0), (1.0, -1.0), (-1.0, -1.0), (3, 2),
    (np.float32(2.5), np.int64(-1)), (Fraction(1, 3), Fraction(1, 2)), (1e-6, 1e6)])
def test_valid_parameters_construct(reduction, offset):
    t = SimpleTransmission(reduction, offset)
    assert t.get_actuator_reduction() == float(reduction)
    assert t.get_joint_offset() == float(offset)
    assert isinstance(t.get_actuator_reduction(), float)
    assert isinstance(t.get_joint_offset(), float)


def test_accessors():
    t = SimpleTransmission(2.0, -1.0)
    assert t.num_actuators() == 1
    assert t.num_joints() == 1
    assert t.get_actuator_reduction() == 2.0
    assert t.get_joint_offset() == -1.0
    assert SimpleTransmission(5.0).get_joint_offset() == 0.0
    assert t.is_linear()
    assert not t.requires_position_state()
    assert set(t.supported_interfaces()) == set(INTERFACES)


def test_configure_rejects_upstream_bad_handle_sets():
    t = SimpleTransmission(2.0, -1.0)
    a1 = ActuatorHandle('act1', 'position')
    a2 = ActuatorHandle('act2', 'position')
    j1 = JointHandle('joint1', 'position')
    j2 = JointHandle('joint2', 'position')
    for joints, actuators in [([], []), ([j1], []), ([], [a1]), ([j1], [a1, a2]),
                              ([j1, j2], [a1])]:
        with pytest.raises(TransmissionConfigurationError):
            t.configure(joints, actuators)
    # A velocity pair alone converts; a velocity joint against a position actuator does not.
    with pytest.raises(TransmissionConfigurationError, match='nothing to convert'):
        t.configure([JointHandle('joint1', 'velocity')], [a1])


# ------------------------------------------------------------------------------ white box
# (interface, actuator value, joint value) for n = 10, offset 1: upstream's MoveJoint case
# (actuator 1.0 -> effort 10, velocity 0.1, position 1.1) extended to every interface.
N10_OFF1 = [
    ('effort', 1.0, 10.0), ('torque', 1.0, 10.0), ('force', 1.0, 10.0),
    ('velocity', 1.0, 0.1), ('position', 1.0, 1.1), ('absolute_position', 1.0, 1.1),
    # hand-computed: theta = 10 * (q - 1)
    ('position', -5.0, 0.5), ('velocity', -2.5, -0.25), ('effort', 0.25, 2.5),
]

# n = -4, offset 0.5: q = theta / -4 + 0.5, tau = -4 u (hand-computed).
NEG4_OFF05 = [
    ('position', 2.0, 0.0), ('position', 0.0, 0.5), ('absolute_position', -6.0, 2.0),
    ('velocity', 2.0, -0.5), ('effort', 2.0, -8.0), ('force', -0.5, 2.0),
]


@pytest.mark.parametrize('params, cases', [((10.0, 1.0), N10_OFF1), ((-4.0, 0.5), NEG4_OFF05)])
def test_white_box_functional(params, cases):
    t = SimpleTransmission(*params)
    for interface, a, j in cases:
        out = t.actuator_to_joint({interface: [a]})
        assert out[interface] == pytest.approx([j], rel=1e-12, abs=1e-12), interface
        back = t.joint_to_actuator({interface: [j]})
        assert back[interface] == pytest.approx([a], rel=1e-12, abs=1e-12), interface


@pytest.mark.parametrize('params, cases', [((10.0, 1.0), N10_OFF1), ((-4.0, 0.5), NEG4_OFF05)])
def test_white_box_handles(params, cases):
    t = SimpleTransmission(*params)
    for interface, a, j in cases:
        ah = ActuatorHandle('act1', interface, a)
        jh = JointHandle('joint1', interface, GARBAGE)
        t.configure([jh], [ah])
        t.actuator_to_joint()
        assert jh.value == pytest.approx(j, rel=1e-12, abs=1e-12), interface
        assert ah.value == a
        jh.value = j
        ah.value = GARBAGE
        t.joint_to_actuator()
        assert ah.value == pytest.approx(a, rel=1e-12, abs=1e-12), interface


def test_mismatched_interface_is_left_alone():
    # Upstream's "mismatched interface is ignored": a velocity handle on one side only.
    t = SimpleTransmission(10.0, 1.0)
    a_pos = ActuatorHandle('act1', 'position', 1.0)
    a_vel = ActuatorHandle('act1', 'velocity', 13.37)
    j_pos = JointHandle('joint1', 'position', 0.0)
    j_vel = JointHandle('joint1', 'velocity', 13.37)
    t.configure([j_pos, j_vel], [a_pos])
    t.actuator_to_joint()
    assert j_pos.value == pytest.approx(1.1)
    assert j_vel.value == 13.37
    j_pos.value = 3.0
    t.configure([j_pos], [a_pos, a_vel])
    t.joint_to_actuator()
    assert a_pos.value == pytest.approx(20.0)
    assert a_vel.value == 13.37
    assert t.converted_interfaces() == ('position',)
    assert any(s.startswith('velocity') for s in t.skipped_interfaces())


# ------------------------------------------------------------------------------ black box
def _random_instances(rng, count):
    """Return ``count`` transmissions with signed reductions of magnitude 1e-2..1e2."""
    sign = rng.choice([-1.0, 1.0], size=count)
    reduction = sign * 10.0 ** rng.uniform(-2.0, 2.0, size=count)
    offset = rng.uniform(-10.0, 10.0, size=count)
    return [SimpleTransmission(float(n), float(o)) for n, o in zip(reduction, offset)]


@pytest.fixture(scope='module')
def instances():
    rng = np.random.default_rng(1234)
    out = _random_instances(rng, 100)
    # Upstream's parametrised instances: +-10 with offsets 0, +-1.
    out += [SimpleTransmission(n, o) for n in (10.0, -10.0) for o in (0.0, 1.0, -1.0)]
    return out


def _close(actual, expected, scale):
    np.testing.assert_allclose(actual, expected, rtol=1e-10, atol=1e-10 * scale)


def test_round_trips_functional(instances):
    rng = np.random.default_rng(1234)
    for t in instances:
        a = rng.uniform(-1000.0, 1000.0, size=(100, 1))
        a[:3, 0] = (1.0, 0.0, -1.0)
        j = rng.uniform(-1000.0, 1000.0, size=(100, 1))
        for interface in INTERFACES:
            buf = a.copy()
            joint = t.actuator_to_joint({interface: buf})[interface]
            assert not np.allclose(joint, a)  # the map is not the identity
            buf[...] = GARBAGE  # overwrite the source so the inverse cannot be a no-op
            back = t.joint_to_actuator({interface: joint})[interface]
            _close(back, a, 1000.0)
            buf = j.copy()
            act = t.joint_to_actuator({interface: buf})[interface]
            buf[...] = GARBAGE
            _close(t.actuator_to_joint({interface: act})[interface], j, 1000.0)


def test_round_trips_handles(instances):
    rng = np.random.default_rng(1234)
    for t in instances[::5]:
        for interface in INTERFACES:
            for ref in rng.uniform(-1000.0, 1000.0, size=3):
                ah = ActuatorHandle('act1', interface, ref)
                jh = JointHandle('joint1', interface, GARBAGE)
                t.configure([jh], [ah])
                t.actuator_to_joint()
                ah.value = GARBAGE  # the inverse must really write the actuator
                t.joint_to_actuator()
                assert ah.value == pytest.approx(ref, rel=1e-10, abs=1e-7)
                jh.value = ref
                t.joint_to_actuator()
                jh.value = GARBAGE
                t.actuator_to_joint()
                assert jh.value == pytest.approx(ref, rel=1e-10, abs=1e-7)


def test_power_is_conserved(instances):
    rng = np.random.default_rng(1234)
    for t in instances:
        u, theta_dot = rng.uniform(-100.0, 100.0, size=(2, 50, 1))
        joint = t.actuator_to_joint({'effort': u, 'velocity': theta_dot})
        np.testing.assert_allclose(np.sum(joint['effort'] * joint['velocity'], axis=-1),
                                   np.sum(u * theta_dot, axis=-1), rtol=1e-10, atol=1e-8)
        tau, q_dot = rng.uniform(-100.0, 100.0, size=(2, 50, 1))
        act = t.joint_to_actuator({'torque': tau, 'velocity': q_dot})
        np.testing.assert_allclose(np.sum(act['torque'] * act['velocity'], axis=-1),
                                   np.sum(tau * q_dot, axis=-1), rtol=1e-10, atol=1e-8)


def test_linear_map_matches_finite_differences(instances):
    rng = np.random.default_rng(1234)
    h = 1e-3
    for t in instances:
        a2j, j2a, offset = t.linear_map()
        n = t.get_actuator_reduction()
        assert a2j.shape == (1, 1) and j2a.shape == (1, 1)
        assert a2j[0, 0] == pytest.approx(1.0 / n) and j2a[0, 0] == pytest.approx(n)
        assert offset.tolist() == [t.get_joint_offset()]
        np.testing.assert_allclose(a2j @ j2a, np.eye(1), atol=1e-12)
        np.testing.assert_allclose(j2a @ a2j, np.eye(1), atol=1e-12)
        x = rng.uniform(-10.0, 10.0, size=(1,))
        fd = (t.actuator_to_joint({'position': x + h})['position']
              - t.actuator_to_joint({'position': x - h})['position']) / (2 * h)
        np.testing.assert_allclose(fd, a2j[:, 0], rtol=1e-6)
        fd = (t.joint_to_actuator({'position': x + h})['position']
              - t.joint_to_actuator({'position': x - h})['position']) / (2 * h)
        np.testing.assert_allclose(fd, j2a[:, 0], rtol=1e-6)
        np.testing.assert_allclose(t.actuator_to_joint({'position': [0.0]})['position'],
                                   offset, atol=1e-12)
        assert t.actuator_to_joint_jacobian() is a2j
        assert t.joint_to_actuator_jacobian() is j2a


def test_linear_map_is_read_only():
    a2j, j2a, offset = SimpleTransmission(10.0, 1.0).linear_map()
    for m in (a2j, j2a, offset):
        with pytest.raises(ValueError):
            m[...] = 0.0
