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
Behaviour shared by every linear transmission: array handling and the ros2_control handle API.

Each test runs against one Simple, one Differential and one FourBarLinkage transmission.
"""

import re

from kernel_spy import KernelCall
from kernel_spy import KernelSpy
import numpy as np
import pytest

from transmission_plugins import ActuatorHandle
from transmission_plugins import DifferentialTransmission
from transmission_plugins import FourBarLinkageTransmission
from transmission_plugins import INTERFACES
from transmission_plugins import JointHandle
from transmission_plugins import SimpleTransmission
from transmission_plugins import TransmissionConfigurationError
from transmission_plugins import TransmissionError
from transmission_plugins import TransmissionInputError

GARBAGE = 1337.1337
FACTORIES = {
    'simple': lambda: SimpleTransmission(-7.5, 0.3),
    'differential': lambda: DifferentialTransmission([3.0, -5.0], [2.0, 0.5], [0.1, -0.2]),
    'four_bar': lambda: FourBarLinkageTransmission([4.0, -2.0], [1.5, -3.0], [0.2, 0.7]),
}
COUPLED = ['differential', 'four_bar']


@pytest.fixture(params=sorted(FACTORIES))
def trans(request):
    return FACTORIES[request.param]()


@pytest.fixture(params=COUPLED)
def coupled(request):
    return FACTORIES[request.param]()


def _sizes(t, to_joint):
    """Return (input size, output size) for a direction."""
    if to_joint:
        return t.num_actuators(), t.num_joints()
    return t.num_joints(), t.num_actuators()


def _convert(t, values, to_joint):
    """Convert with the functional API in the given direction."""
    return t.actuator_to_joint(values) if to_joint else t.joint_to_actuator(values)


def _handles(cls, names, interfaces, values=None, roles=None):
    """Return handles for every name and interface; ``values[interface][i]`` sets the values."""
    out = []
    for interface in interfaces:
        for i, name in enumerate(names):
            value = GARBAGE if values is None else values[interface][i]
            role = None if roles is None else roles[i]
            out.append(cls(name, interface, value, role=role))
    return out


def _values(handles, names, interface):
    """Return the values of ``handles`` for ``interface`` in the order of ``names``."""
    by_name = {h.name: h.value for h in handles if h.interface == interface}
    return np.array([by_name[n] for n in names])


# ------------------------------------------------------------------------------ batches
@pytest.mark.parametrize('to_joint', [True, False])
@pytest.mark.parametrize('batch', [(5,), (3, 4), (100000,)])
def test_batch_equals_per_sample(trans, to_joint, batch):
    rng = np.random.default_rng(1234)
    n_in, n_out = _sizes(trans, to_joint)
    values = {i: rng.uniform(-100.0, 100.0, batch + (n_in,)) for i in INTERFACES}
    out = _convert(trans, values, to_joint)
    assert set(out) == set(INTERFACES)
    flat_index = list(np.ndindex(batch))
    if len(flat_index) > 50:
        flat_index = [flat_index[k] for k in rng.choice(len(flat_index), 50, replace=False)]
        flat_index.append((len(out['position']) - 1,))
    for interface in INTERFACES:
        assert out[interface].shape == batch + (n_out,)
        assert out[interface].dtype == np.float64
        for idx in flat_index:
            one = _convert(trans, {interface: values[interface][idx]}, to_joint)[interface]
            assert one.shape == (n_out,)
            np.testing.assert_allclose(out[interface][idx], one, rtol=1e-13, atol=1e-12)


@pytest.mark.parametrize('to_joint', [True, False])
def test_batch_is_one_vectorised_kernel_call(trans, monkeypatch, to_joint):
    # A batch reaches the compiled kernel whole, position, velocity and effort in one call (one
    # more for each second interface of a kind): nothing loops over samples in Python.
    n_in, n_out = _sizes(trans, to_joint)
    spy = KernelSpy(trans.description(), monkeypatch)
    values = {i: np.ones((100000, n_in)) for i in INTERFACES}
    out = _convert(trans, values, to_joint)
    assert spy.calls == [KernelCall(to_joint, 100000, (True, True, True)),
                         KernelCall(to_joint, 100000, (True, False, True)),
                         KernelCall(to_joint, 100000, (False, False, True))]
    assert all(v.shape == (100000, n_out) for v in out.values())


def test_lists_and_integers_are_accepted(trans):
    n = trans.num_actuators()
    from_list = trans.actuator_to_joint({'position': [2] * n})['position']
    from_float = trans.actuator_to_joint({'position': np.full(n, 2.0)})['position']
    np.testing.assert_array_equal(from_list, from_float)
    assert from_list.dtype == np.float64


# ------------------------------------------------------------------------------ bad input
@pytest.mark.parametrize('to_joint', [True, False])
def test_scalar_is_rejected(trans, to_joint):
    with pytest.raises(TransmissionInputError, match=r"'position' values must have \d entr.*"
                       r'got shape \(\)'):
        _convert(trans, {'position': 1.0}, to_joint)


@pytest.mark.parametrize('to_joint', [True, False])
def test_wrong_last_axis_is_rejected(trans, to_joint):
    n_in, _ = _sizes(trans, to_joint)
    side = 'actuator' if to_joint else 'joint'
    for shape in [(n_in + 1,), (3, n_in + 1), (n_in, 3), (0,)]:
        with pytest.raises(TransmissionInputError,
                           match=rf"{side} 'velocity' values must have {n_in} entries on the "
                                 rf'last axis, got shape \({shape[0]},'):
            _convert(trans, {'velocity': np.zeros(shape)}, to_joint)


@pytest.mark.parametrize('interface', ['acceleration', 'Position', 'pos', '', 3])
def test_unknown_interface_is_rejected(trans, interface):
    n = trans.num_actuators()
    with pytest.raises(TransmissionInputError, match=f'unknown interface {interface!r}'):
        trans.actuator_to_joint({'position': np.zeros(n), interface: np.zeros(n)})
    with pytest.raises(TransmissionInputError, match='expected one of position, velocity'):
        trans.joint_to_actuator({interface: np.zeros(trans.num_joints())})


@pytest.mark.parametrize('bad', ['abc', 'number', None, object(), True, 1j, '1.0'])
def test_non_numeric_input_is_rejected(trans, bad):
    n = trans.num_actuators()
    for raw in (bad, [bad] * n):
        with pytest.raises(TransmissionInputError, match="'effort' values are not numbers"):
            trans.actuator_to_joint({'effort': raw})
        with pytest.raises(TransmissionInputError, match="'effort' values are not numbers"):
            trans.joint_to_actuator({'effort': raw})


def test_ragged_input_is_rejected(coupled):
    with pytest.raises(TransmissionInputError, match='not numbers'):
        coupled.actuator_to_joint({'position': [[1.0, 2.0], [3.0]]})


@pytest.mark.parametrize('bad', [[1.0, 2.0], np.zeros(2), 'position', 3.0])
def test_non_mapping_is_rejected(trans, bad):
    with pytest.raises(TransmissionInputError, match='expected a mapping from interface name'):
        trans.actuator_to_joint(bad)
    assert issubclass(TransmissionInputError, TransmissionError)


# ------------------------------------------------------------------------------ results
@pytest.mark.parametrize('to_joint', [True, False])
def test_result_is_a_new_dict_and_inputs_are_untouched(trans, to_joint):
    rng = np.random.default_rng(1234)
    n_in, _ = _sizes(trans, to_joint)
    values = {i: rng.uniform(-10.0, 10.0, (4, n_in)) for i in INTERFACES}
    snapshot = {i: v.copy() for i, v in values.items()}
    out = _convert(trans, values, to_joint)
    assert isinstance(out, dict) and out is not values
    assert set(out) == set(values)
    for i in INTERFACES:
        np.testing.assert_array_equal(values[i], snapshot[i])
        assert not np.shares_memory(out[i], values[i])
        out[i][...] = GARBAGE  # results are the caller's to modify
        np.testing.assert_array_equal(values[i], snapshot[i])
    assert _convert(trans, {}, to_joint) == {}


@pytest.mark.parametrize('to_joint', [True, False])
def test_interfaces_share_their_kind_of_map(trans, to_joint):
    rng = np.random.default_rng(1234)
    n_in, _ = _sizes(trans, to_joint)
    x = rng.uniform(-10.0, 10.0, (6, n_in))
    out = _convert(trans, {i: x for i in INTERFACES}, to_joint)
    np.testing.assert_array_equal(out['torque'], out['effort'])
    np.testing.assert_array_equal(out['force'], out['effort'])
    np.testing.assert_array_equal(out['absolute_position'], out['position'])
    # and the three kinds are really different maps
    assert not np.allclose(out['position'], out['velocity'])
    assert not np.allclose(out['effort'], out['velocity'])


# ------------------------------------------------------------------------------ handle API
def _names(t, side):
    """Return default joint or actuator names."""
    if side == 'joint':
        return [f'j{i}' for i in range(t.num_joints())]
    return [f'm{i}' for i in range(t.num_actuators())]


def test_handles_agree_with_functional_api(trans):
    rng = np.random.default_rng(1234)
    jn, an = _names(trans, 'joint'), _names(trans, 'actuator')
    a = {i: rng.uniform(-10.0, 10.0, len(an)) for i in INTERFACES}
    acts = _handles(ActuatorHandle, an, INTERFACES, a)
    joints = _handles(JointHandle, jn, INTERFACES)
    trans.configure(joints, acts)
    assert trans.converted_interfaces() == INTERFACES
    assert trans.skipped_interfaces() == ()
    assert trans.actuator_to_joint() is None
    expected = trans.actuator_to_joint(a)
    for i in INTERFACES:
        np.testing.assert_allclose(_values(joints, jn, i), expected[i], rtol=1e-14)
        np.testing.assert_array_equal(_values(acts, an, i), a[i])  # sources untouched
    for h in acts:
        h.value = GARBAGE
    assert trans.joint_to_actuator() is None
    for i in INTERFACES:
        np.testing.assert_allclose(_values(acts, an, i), a[i], rtol=1e-10, atol=1e-10)


def test_partial_interfaces_are_skipped_and_listed(trans):
    jn, an = _names(trans, 'joint'), _names(trans, 'actuator')
    one = {'position': [1.0] * len(an)}
    joints = _handles(JointHandle, jn, ['position', 'velocity'])
    acts = _handles(ActuatorHandle, an, ['position'], one)
    acts += _handles(ActuatorHandle, an, ['effort', 'temperature'])
    trans.configure(joints, acts)
    assert trans.converted_interfaces() == ('position',)
    assert trans.skipped_interfaces() == (
        'velocity (only on the joint side)', 'effort (only on the actuator side)',
        'temperature (not supported by this transmission)')
    trans.actuator_to_joint()
    expected = trans.actuator_to_joint(one)['position']
    np.testing.assert_allclose(_values(joints, jn, 'position'), expected)
    np.testing.assert_array_equal(_values(joints, jn, 'velocity'), GARBAGE)
    trans.joint_to_actuator()
    np.testing.assert_array_equal(_values(acts, an, 'effort'), GARBAGE)
    np.testing.assert_array_equal(_values(acts, an, 'temperature'), GARBAGE)
    info = trans.get_handles_info()
    assert 'skipped: velocity (only on the joint side)' in info
    assert 'skipped: temperature (not supported by this transmission)' in info


def test_configure_rejects_nothing_to_convert(trans):
    joints = _handles(JointHandle, _names(trans, 'joint'), ['position', 'velocity'])
    acts = _handles(ActuatorHandle, _names(trans, 'actuator'), ['effort'])
    with pytest.raises(TransmissionConfigurationError,
                       match=r"joint side \(\['position', 'velocity'\]\) and the actuator side "
                             r"\(\['effort'\]\); nothing to convert"):
        trans.configure(joints, acts)


@pytest.mark.parametrize('side', ['joint', 'actuator'])
@pytest.mark.parametrize('extra', [-1, 1])
def test_configure_rejects_wrong_number_of_names(trans, side, extra):
    count = trans.num_joints() if side == 'joint' else trans.num_actuators()
    names = [f'x{i}' for i in range(count + extra)]
    joints = _handles(JointHandle, names if side == 'joint' else _names(trans, 'joint'),
                      ['position'])
    acts = _handles(ActuatorHandle, names if side == 'actuator' else _names(trans, 'actuator'),
                    ['position'])
    message = (f'expected exactly {count} {side} name(s), got {names}' if names
               else f'no {side} handles given')
    with pytest.raises(TransmissionConfigurationError, match=re.escape(message)):
        trans.configure(joints, acts)


def test_configure_rejects_three_joint_names_for_two_joints(coupled):
    joints = _handles(JointHandle, ['j0', 'j1', 'j2'], ['position'])
    acts = _handles(ActuatorHandle, ['m0', 'm1'], ['position'])
    with pytest.raises(TransmissionConfigurationError,
                       match=r"expected exactly 2 joint name\(s\), got \['j0', 'j1', 'j2'\]"):
        coupled.configure(joints, acts)


def test_configure_rejects_an_interface_for_some_joints_only(coupled):
    joints = _handles(JointHandle, ['j0', 'j1'], ['position']) + [JointHandle('j0', 'velocity')]
    acts = _handles(ActuatorHandle, ['m0', 'm1'], ['position', 'velocity'])
    with pytest.raises(TransmissionConfigurationError,
                       match=r"joint interface 'velocity' is given for \['j0'\] but not for "
                             r"\['j1'\]"):
        coupled.configure(joints, acts)
    joints = _handles(JointHandle, ['j0', 'j1'], ['position'])
    acts = _handles(ActuatorHandle, ['m0', 'm1'], ['position']) + [ActuatorHandle('m1', 'effort')]
    with pytest.raises(TransmissionConfigurationError,
                       match=r"actuator interface 'effort' is given for \['m1'\] but not for "
                             r"\['m0'\]"):
        coupled.configure(joints, acts)


def test_configure_rejects_duplicate_handles(trans):
    jn, an = _names(trans, 'joint'), _names(trans, 'actuator')
    joints = _handles(JointHandle, jn, ['position'])
    acts = _handles(ActuatorHandle, an, ['position'])
    with pytest.raises(TransmissionConfigurationError,
                       match=f"duplicate joint handle '{jn[-1]}/position'"):
        trans.configure(joints + [JointHandle(jn[-1], 'position')], acts)
    with pytest.raises(TransmissionConfigurationError,
                       match=f"duplicate actuator handle '{an[0]}/position'"):
        trans.configure(joints, acts + [acts[0]])


def test_configure_rejects_wrong_handle_class(trans):
    jn, an = _names(trans, 'joint'), _names(trans, 'actuator')
    joints = _handles(JointHandle, jn, ['position'])
    acts = _handles(ActuatorHandle, an, ['position'])
    with pytest.raises(TransmissionConfigurationError, match='expected JointHandle objects, got '
                                                             r"ActuatorHandle\('m0'"):
        trans.configure(acts, acts)
    with pytest.raises(TransmissionConfigurationError, match='expected ActuatorHandle objects'):
        trans.configure(joints, joints)
    with pytest.raises(TransmissionConfigurationError, match='expected JointHandle objects'):
        trans.configure([('j0', 'position', 1.0)], acts)


@pytest.mark.parametrize('joint_order', [['a_joint', 'z_joint'], ['z_joint', 'a_joint']])
def test_roles_in_reverse_alphabetical_order_map_by_role(coupled, joint_order):
    # ros2_control issues #1745 and #3382: joints were wired in name order, not by role.
    roles = {'a_joint': 'joint2', 'z_joint': 'joint1', 'a_motor': 'actuator2',
             'z_motor': 'actuator1'}
    theta = {'z_motor': 0.7, 'a_motor': -1.9}  # actuator1, actuator2
    acts = [ActuatorHandle(n, 'position', theta[n], role=roles[n]) for n in ('a_motor', 'z_motor')]
    joints = [JointHandle(n, 'position', GARBAGE, role=roles[n]) for n in joint_order]
    coupled.configure(joints, acts)
    coupled.actuator_to_joint()
    q = coupled.actuator_to_joint({'position': [0.7, -1.9]})['position']
    value = {h.name: h.value for h in joints}
    assert value['z_joint'] == pytest.approx(q[0])
    assert value['a_joint'] == pytest.approx(q[1])
    assert q[0] != pytest.approx(q[1])
    for h in acts:
        h.value = GARBAGE
    coupled.joint_to_actuator()
    assert {h.name: h.value for h in acts} == pytest.approx(theta)


def test_names_without_roles_keep_the_given_order(coupled):
    acts = [ActuatorHandle('z_motor', 'position', 0.7),
            ActuatorHandle('a_motor', 'position', -1.9)]
    joints = [JointHandle('z_joint', 'position'), JointHandle('a_joint', 'position')]
    coupled.configure(joints, acts)
    coupled.actuator_to_joint()
    q = coupled.actuator_to_joint({'position': [0.7, -1.9]})['position']
    assert [h.value for h in joints] == pytest.approx(q.tolist())
    coupled.configure(joints[::-1], acts[::-1])  # now a_* come first
    coupled.actuator_to_joint()
    q = coupled.actuator_to_joint({'position': [-1.9, 0.7]})['position']
    assert [joints[1].value, joints[0].value] == pytest.approx(q.tolist())


@pytest.mark.parametrize('roles, message', [
    (('joint1', 'joint3'), 'roles must be exactly'),
    (('joint1', 'joint1'), 'roles must be exactly'),
    (('joint2', None), 'roles must be exactly'),
    (('actuator1', 'actuator2'), 'roles must be exactly'),
    (('Joint1', 'joint2'), 'roles must be exactly'),
])
def test_configure_rejects_bad_joint_roles(coupled, roles, message):
    joints = [JointHandle(f'j{i}', 'position', role=r) for i, r in enumerate(roles)]
    acts = _handles(ActuatorHandle, ['m0', 'm1'], ['position'])
    with pytest.raises(TransmissionConfigurationError,
                       match=rf"joint {message} \['joint1', 'joint2'\], got"):
        coupled.configure(joints, acts)


def test_configure_rejects_bad_actuator_roles(coupled):
    joints = _handles(JointHandle, ['j0', 'j1'], ['position'])
    acts = _handles(ActuatorHandle, ['m0', 'm1'], ['position'], roles=['actuator2', 'actuator2'])
    with pytest.raises(TransmissionConfigurationError,
                       match=r"actuator roles must be exactly \['actuator1', 'actuator2'\]"):
        coupled.configure(joints, acts)


def test_configure_rejects_two_roles_for_one_name(coupled):
    joints = [JointHandle('j0', 'position', role='joint1'),
              JointHandle('j0', 'velocity', role='joint2'),
              JointHandle('j1', 'position', role='joint2'),
              JointHandle('j1', 'velocity', role='joint2')]
    acts = _handles(ActuatorHandle, ['m0', 'm1'], ['position', 'velocity'])
    with pytest.raises(TransmissionConfigurationError,
                       match="joint 'j0' has two roles, 'joint1' and 'joint2'"):
        coupled.configure(joints, acts)


def test_role_on_one_handle_of_a_name_applies_to_the_name(coupled):
    joints = [JointHandle('j0', 'position'), JointHandle('j0', 'velocity', role='joint2'),
              JointHandle('j1', 'position', role='joint1'), JointHandle('j1', 'velocity')]
    acts = _handles(ActuatorHandle, ['m0', 'm1'], ['position', 'velocity'],
                    {'position': [0.5, 2.0], 'velocity': [0.5, 2.0]})
    coupled.configure(joints, acts)
    coupled.actuator_to_joint()
    q = coupled.actuator_to_joint({'position': [0.5, 2.0]})['position']
    assert [joints[2].value, joints[0].value] == pytest.approx(q.tolist())


def test_simple_roles():
    t = SimpleTransmission(2.0)
    acts = [ActuatorHandle('m', 'position', 4.0, role='actuator1')]
    joints = [JointHandle('j', 'position', role='joint1')]
    t.configure(joints, acts)
    t.actuator_to_joint()
    assert joints[0].value == 2.0
    with pytest.raises(TransmissionConfigurationError,
                       match=r"joint roles must be exactly \['joint1'\], got \{'j': 'joint2'\}"):
        t.configure([JointHandle('j', 'position', role='joint2')], acts)


@pytest.mark.parametrize('to_joint', [True, False])
def test_converting_before_configure_raises(trans, to_joint):
    with pytest.raises(TransmissionConfigurationError, match=r'call configure\(\) with handles'):
        _convert(trans, None, to_joint)


def test_failed_configure_leaves_nothing_wired(trans):
    jn, an = _names(trans, 'joint'), _names(trans, 'actuator')
    trans.configure(_handles(JointHandle, jn, ['position']),
                    _handles(ActuatorHandle, an, ['position']))
    trans.actuator_to_joint()
    with pytest.raises(TransmissionConfigurationError):
        trans.configure([], [])
    with pytest.raises(TransmissionConfigurationError, match='call configure'):
        trans.actuator_to_joint()


def test_reconfigure_replaces_the_handles(trans):
    jn, an = _names(trans, 'joint'), _names(trans, 'actuator')
    ones = {'position': [1.0] * len(an)}
    old_joints = _handles(JointHandle, jn, ['position'])
    trans.configure(old_joints, _handles(ActuatorHandle, an, ['position'], ones))
    new_joints = _handles(JointHandle, jn, ['position'])
    trans.configure(new_joints, _handles(ActuatorHandle, an, ['position'], ones))
    trans.actuator_to_joint()
    assert all(h.value == GARBAGE for h in old_joints)
    assert all(h.value != GARBAGE for h in new_joints)


# ------------------------------------------------------------------------------ reports
def _reductions(t):
    """Return the reductions a report must mention."""
    if isinstance(t, SimpleTransmission):
        return [t.get_actuator_reduction()]
    return t.get_actuator_reduction() + t.get_joint_reduction()


def test_str_and_repr_mention_the_reductions(trans):
    for value in _reductions(trans):
        assert f'{value:g}' in str(trans)
        assert repr(value) in repr(trans)
    assert type(trans).__name__ in str(trans)
    namespace = {type(trans).__name__: type(trans)}
    clone = eval(repr(trans), namespace)  # our own repr: trusted text
    assert repr(clone) == repr(trans)


def test_get_handles_info(trans):
    info = trans.get_handles_info()
    assert info.startswith(str(trans))
    assert 'not configured' in info
    jn, an = _names(trans, 'joint'), _names(trans, 'actuator')
    values = {'velocity': [2.5] * len(an)}
    trans.configure(_handles(JointHandle, jn, ['velocity']),
                    _handles(ActuatorHandle, an, ['velocity'], values))
    info = trans.get_handles_info()
    assert 'not configured' not in info
    for value in _reductions(trans):
        assert f'{value:g}' in info
    assert f"'{an[0]}/velocity=2.5'" in info
    assert f"'{jn[-1]}/velocity=" in info
