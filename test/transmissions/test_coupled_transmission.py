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
Tests shared by the two 2x2 coupled transmissions, run on each of them.

DifferentialTransmission and FourBarLinkageTransmission share the base class
CoupledTransmission: preconditions, accessors, handle sets and black-box round trips are the
same for both.  Their white-box values and closed forms are in their own test files.
"""

import re

from coupled_cases import CLASSES
from coupled_cases import GARBAGE
from coupled_cases import GOOD
from coupled_cases import random_instances
from coupled_cases import tol
import numpy as np
import pytest

from transmission_plugins import ActuatorHandle
from transmission_plugins import INTERFACES
from transmission_plugins import JointHandle
from transmission_plugins import TransmissionConfigurationError
from transmission_plugins import TransmissionValueError


@pytest.fixture(scope='module', params=CLASSES, ids=lambda c: c.__name__)
def cls(request):
    return request.param


@pytest.fixture(scope='module')
def instances(cls):
    return random_instances(cls, np.random.default_rng(1234), 100)


def _value_error(parameter, value):
    """Return the ``match=`` pattern naming a parameter and its offending value."""
    return re.escape(f'{parameter}: expected') + '.*' + re.escape(f'got {value!r}')


def _args(parameter, value):
    """Return constructor arguments with ``parameter`` set to ``value``, the others valid."""
    args = {'actuator_reduction': GOOD, 'joint_reduction': GOOD, 'joint_offset': [0.0, 0.0]}
    args[parameter] = value
    return args


# ------------------------------------------------------------------------------ preconditions
# Upstream: a zero in either slot (or both) of either reduction, with and without offsets.
@pytest.mark.parametrize('parameter', ['actuator_reduction', 'joint_reduction'])
@pytest.mark.parametrize('bad, slot', [([0.0, 0.0], 0), ([1.0, 0.0], 1), ([0.0, 1.0], 0),
                                       ([1.0, -0.0], 1), ([0, 3], 0)])
@pytest.mark.parametrize('offset', [None, [1.0, 1.0]])
def test_zero_reduction_is_rejected(cls, parameter, bad, slot, offset):
    args = _args(parameter, bad)
    if offset is None:
        del args['joint_offset']
    else:
        args['joint_offset'] = offset
    with pytest.raises(TransmissionValueError,
                       match=_value_error(f'{parameter}[{slot}]', bad[slot])) as e:
        cls(**args)
    assert 'cannot be zero' in str(e.value)
    assert cls.__name__ in str(e.value)
    assert e.value.parameter == f'{parameter}[{slot}]'


# Upstream: wrong parameter sizes; here also too long, scalars, strings and None.
@pytest.mark.parametrize('parameter', ['actuator_reduction', 'joint_reduction', 'joint_offset'])
@pytest.mark.parametrize('bad', [[1.0], [1.0, 1.0, 1.0], [], 1.0, 'ab', None, {'a': 1.0},
                                 np.ones(3)])
def test_wrong_size_is_rejected(cls, parameter, bad):
    with pytest.raises(TransmissionValueError, match=_value_error(parameter, bad)) as e:
        cls(**_args(parameter, bad))
    assert e.value.parameter == parameter


@pytest.mark.parametrize('parameter', ['actuator_reduction', 'joint_reduction', 'joint_offset'])
@pytest.mark.parametrize('slot', [0, 1])
@pytest.mark.parametrize('bad', [float('nan'), float('inf'), -float('inf'), '1.0', None, [1.0],
                                 True, np.bool_(False), 2j])
def test_bad_value_in_each_slot_is_rejected(cls, parameter, slot, bad):
    value = [1.0, 1.0]
    value[slot] = bad
    with pytest.raises(TransmissionValueError,
                       match=_value_error(f'{parameter}[{slot}]', bad)) as e:
        cls(**_args(parameter, value))
    assert isinstance(e.value, ValueError)


@pytest.mark.parametrize('actuator_reduction, joint_reduction, joint_offset', [
    (GOOD, GOOD, None), (GOOD, GOOD, [1.0, 1.0]), ((-2, 3), (0.5, -7), (0, 0)),
    (np.array([2.0, 3.0]), np.array([1, 2]), np.zeros(2)), ([1e-6, 1e6], [1e3, -1e-3], [1, -1])])
def test_valid_parameters_construct(cls, actuator_reduction, joint_reduction, joint_offset):
    args = {} if joint_offset is None else {'joint_offset': joint_offset}
    t = cls(actuator_reduction, joint_reduction, **args)
    assert t.get_actuator_reduction() == [float(x) for x in actuator_reduction]
    assert t.get_joint_reduction() == [float(x) for x in joint_reduction]
    expected_offset = [0.0, 0.0] if joint_offset is None else joint_offset
    assert t.get_joint_offset() == [float(x) for x in expected_offset]


def test_accessors(cls):
    t = cls([2.0, -2.0], [4.0, -4.0], [1.0, -1.0])
    assert t.num_actuators() == 2
    assert t.num_joints() == 2
    assert t.get_actuator_reduction() == [2.0, -2.0]
    assert t.get_joint_reduction() == [4.0, -4.0]
    assert t.get_joint_offset() == [1.0, -1.0]
    t.get_actuator_reduction()[0] = 99.0  # a copy: the transmission cannot be changed
    assert t.get_actuator_reduction() == [2.0, -2.0]
    assert t.is_linear() and not t.requires_position_state()
    assert set(t.supported_interfaces()) == set(INTERFACES)


@pytest.mark.parametrize('interface', INTERFACES)
def test_configure_rejects_upstream_bad_handle_sets(cls, interface):
    # The upstream null-pointer cases have no Python equivalent: values live on the handles.
    t = cls(GOOD, GOOD)
    a1, a2, a3 = (ActuatorHandle(f'act{i}', interface) for i in (1, 2, 3))
    j1, j2, j3 = (JointHandle(f'joint{i}', interface) for i in (1, 2, 3))
    for joints, actuators in [([], []), ([j1], []), ([j1], [a1]), ([], [a1]), ([j1, j2], [a1]),
                              ([j1], [a1, a2]), ([j1, j2, j3], [a1, a2]),
                              ([j1, j2], [a1, a2, a3]), ([j1, j2, j3], [a1, a2, a3])]:
        with pytest.raises(TransmissionConfigurationError):
            t.configure(joints, actuators)
    t.configure([j1, j2], [a1, a2])
    assert t.converted_interfaces() == (interface,)


def test_configure_with_one_matching_interface(cls):
    t = cls(GOOD, GOOD)
    joints = [JointHandle('joint1', 'position'), JointHandle('joint2', 'position')]
    forces = [ActuatorHandle('act1', 'force'), ActuatorHandle('act2', 'force')]
    positions = [ActuatorHandle('act1', 'position'), ActuatorHandle('act2', 'position')]
    t.configure(joints, positions + forces)  # force has no joint counterpart: skipped
    assert t.converted_interfaces() == ('position',)
    assert t.skipped_interfaces() == ('force (only on the actuator side)',)
    with pytest.raises(TransmissionConfigurationError, match='nothing to convert'):
        t.configure(joints, forces)


def test_round_trips_functional(cls, instances):
    rng = np.random.default_rng(1234)
    for t in instances:
        a = rng.uniform(-1000.0, 1000.0, (100, 2))
        j = rng.uniform(-1000.0, 1000.0, (100, 2))
        for interface in INTERFACES:
            buf = a.copy()
            joint = t.actuator_to_joint({interface: buf})[interface]
            buf[...] = GARBAGE  # overwrite the source so the inverse cannot be a no-op
            back = t.joint_to_actuator({interface: joint})[interface]
            np.testing.assert_allclose(back, a, rtol=1e-10, atol=tol(t, 1e3))
            buf = j.copy()
            act = t.joint_to_actuator({interface: buf})[interface]
            buf[...] = GARBAGE
            back = t.actuator_to_joint({interface: act})[interface]
            np.testing.assert_allclose(back, j, rtol=1e-10, atol=tol(t, 1e3))


def test_round_trips_handles(cls, instances):
    rng = np.random.default_rng(1234)
    for t in instances[::5]:
        for interface in INTERFACES:
            ref = rng.uniform(-1000.0, 1000.0, 2)
            acts = [ActuatorHandle(f'act{i}', interface, ref[i]) for i in range(2)]
            joints = [JointHandle(f'joint{i}', interface, GARBAGE) for i in range(2)]
            t.configure(joints, acts)
            t.actuator_to_joint()
            assert not np.allclose([h.value for h in joints], ref)
            for h in acts:
                h.value = GARBAGE  # the inverse must really write the actuators
            t.joint_to_actuator()
            np.testing.assert_allclose([h.value for h in acts], ref, rtol=1e-10,
                                       atol=tol(t, 1e3))
            for h, v in zip(joints, ref):
                h.value = v
            t.joint_to_actuator()
            for h in joints:
                h.value = GARBAGE
            t.actuator_to_joint()
            np.testing.assert_allclose([h.value for h in joints], ref, rtol=1e-10,
                                       atol=tol(t, 1e3))


def test_power_is_conserved(cls, instances):
    rng = np.random.default_rng(1234)
    for t in instances:
        u, theta_dot = rng.uniform(-100.0, 100.0, (2, 50, 2))
        joint = t.actuator_to_joint({'effort': u, 'velocity': theta_dot})
        np.testing.assert_allclose(np.sum(joint['effort'] * joint['velocity'], axis=-1),
                                   np.sum(u * theta_dot, axis=-1), rtol=1e-9,
                                   atol=tol(t, 1e4))
        tau, q_dot = rng.uniform(-100.0, 100.0, (2, 50, 2))
        act = t.joint_to_actuator({'force': tau, 'velocity': q_dot})
        np.testing.assert_allclose(np.sum(act['force'] * act['velocity'], axis=-1),
                                   np.sum(tau * q_dot, axis=-1), rtol=1e-9, atol=tol(t, 1e4))


def _central_difference(f, x, h):
    """
    Return the Jacobian of ``f`` at ``x`` by central differences, shape (M, N).

    :returns: the Jacobian and the rounding error to expect (the maps being affine, there is
        no truncation error)
    """
    steps = h * np.eye(x.size)
    plus, minus = f(x + steps), f(x - steps)
    error = 1e-13 * max(np.abs(plus).max(), np.abs(minus).max()) / h
    return ((plus - minus) / (2.0 * h)).T, error


def test_linear_map_matches_finite_differences(cls, instances):
    rng = np.random.default_rng(1234)
    for t in instances:
        a2j, j2a, offset = t.linear_map()
        assert a2j.shape == (2, 2) and j2a.shape == (2, 2)
        np.testing.assert_array_equal(offset, t.get_joint_offset())
        eye_tol = 1e-13 * np.linalg.norm(a2j) * np.linalg.norm(j2a)
        np.testing.assert_allclose(a2j @ j2a, np.eye(2), atol=eye_tol)
        np.testing.assert_allclose(j2a @ a2j, np.eye(2), atol=eye_tol)
        x = rng.uniform(-10.0, 10.0, 2)
        fd, error = _central_difference(
            lambda p: t.actuator_to_joint({'position': p})['position'], x, 0.1)
        np.testing.assert_allclose(fd, a2j, rtol=1e-9, atol=error)
        fd, error = _central_difference(
            lambda p: t.joint_to_actuator({'position': p})['position'], x, 0.1)
        np.testing.assert_allclose(fd, j2a, rtol=1e-9, atol=error)
        # velocity and effort use the same matrices: qdot = J thetadot, tau = J^-T u
        v = rng.uniform(-10.0, 10.0, 2)
        out = t.actuator_to_joint({'velocity': v, 'effort': v})
        np.testing.assert_allclose(out['velocity'], a2j @ v, rtol=1e-12, atol=tol(t, 10.0))
        np.testing.assert_allclose(out['effort'], j2a.T @ v, rtol=1e-12, atol=tol(t, 10.0))
        out = t.joint_to_actuator({'velocity': v, 'effort': v})
        np.testing.assert_allclose(out['velocity'], j2a @ v, rtol=1e-12, atol=tol(t, 10.0))
        np.testing.assert_allclose(out['effort'], a2j.T @ v, rtol=1e-12, atol=tol(t, 10.0))
        assert t.actuator_to_joint_jacobian() is a2j
        assert t.joint_to_actuator_jacobian() is j2a


def test_linear_map_is_read_only(cls):
    for m in cls(GOOD, GOOD).linear_map():
        with pytest.raises(ValueError):
            m[...] = 0.0
