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
Tests of CouplingTransmission: preconditions, hand-computed cases, random couplings, the URDF.

Every shape is covered: square, more joints than actuators (synergies, tendons with a follower
joint) and more actuators than joints (antagonistic pairs).  The URDF part reads inline
descriptions of every dialect and the fixture ``test/fixtures/coupled_hand.urdf``, through the
robot's name-keyed and array maps, its limits and its reflected inertia.
"""

import math
import re
import textwrap

import numpy as np
import pytest

from tp_support import FIXTURE_DIR
from transmission_plugins import ActuatorHandle
from transmission_plugins import BadValueError
from transmission_plugins import CouplingTransmission
from transmission_plugins import IncompleteTransmissionError
from transmission_plugins import JointHandle
from transmission_plugins import load_robot_transmissions
from transmission_plugins import TransmissionValueError
from transmission_plugins.transmissions.coupling_transmission import INVERSE_TOLERANCE


def _error(parameter):
    return re.escape(f'CouplingTransmission: {parameter}: expected')


# ------------------------------------------------------------------------------ preconditions
@pytest.mark.parametrize('bad', [
    'abc', 1.0, [1.0, 2.0], [[[1.0]]], [], [[]], [[1.0, 2.0], [3.0]], [[1.0, 'x']],
    [[True]], [[1.0, None]], [[math.nan]], [[math.inf, 1.0]], [[1 + 2j]]])
def test_bad_actuator_to_joint_is_rejected(bad):
    with pytest.raises(TransmissionValueError, match=_error('actuator_to_joint')) as e:
        CouplingTransmission(bad)
    assert e.value.parameter == 'actuator_to_joint'


@pytest.mark.parametrize('matrix, rank', [
    ([[1.0, 2.0], [2.0, 4.0]], 1), ([[0.0], [0.0]], 0), ([[1.0, 1.0, 0.0], [2.0, 2.0, 0.0]], 1),
    ([[0.0]], 0)])
def test_rank_deficient_matrix_is_rejected(matrix, rank):
    with pytest.raises(TransmissionValueError, match=f'not of rank {rank}'):
        CouplingTransmission(matrix)


def test_joint_to_actuator_of_the_wrong_shape_is_rejected():
    a2j = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
    with pytest.raises(TransmissionValueError, match=re.escape('2 x 3 real numbers, not 3 x 2')):
        CouplingTransmission(a2j, [[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])
    with pytest.raises(TransmissionValueError, match=_error('joint_to_actuator')):
        CouplingTransmission(a2j, [[1.0, 0.0, math.nan], [0.0, 1.0, 0.0]])


@pytest.mark.parametrize('a2j, j2a, product, residual', [
    ([[2.0]], [[0.4]], 'B A', '0.2'),
    ([[3.0]], [[0.333]], 'B A', '0.001'),                     # hand-rounded 1/3
    ([[0.5], [0.5]], [[1.0, 0.0]], 'B A', '0.5'),              # not a left inverse
    ([[1.0, -1.0]], [[1.0], [1.0]], 'A B', '1'),               # not a right inverse
    ([[1.0, 2.0], [3.0, 4.0]], [[-2.0, 1.0], [1.5, 0.5]], 'B A', '4'),  # a sign lost
])
def test_joint_to_actuator_must_invert_actuator_to_joint(a2j, j2a, product, residual):
    with pytest.raises(TransmissionValueError) as e:
        CouplingTransmission(a2j, j2a)
    message = str(e.value)
    assert e.value.parameter == 'joint_to_actuator'
    assert f'an inverse of actuator_to_joint {a2j}' in message
    assert f'{product} = I within 1e-09' in message
    assert f'the largest entry of |{product} - I| is {residual} with it' in message
    assert f'got {j2a!r}' in message


@pytest.mark.parametrize('bad', [
    [0.0, 1.0], [0.0, 0.0, math.nan], 'abc', 1.0, [0.0, 0.0, True]])
def test_bad_joint_offset_is_rejected(bad):
    pattern = r'CouplingTransmission: joint_offset(\[2\])?: expected'
    with pytest.raises(TransmissionValueError, match=pattern):
        CouplingTransmission([[1.0], [2.0], [3.0]], joint_offset=bad)


def test_valid_construction_and_queries():
    t = CouplingTransmission([[1, 2], [3, 4]], joint_offset=(0.5, np.float32(-1.0)))
    assert (t.num_actuators(), t.num_joints()) == (2, 2)
    assert t.is_linear() and not t.requires_position_state()
    assert t.get_joint_offset() == [0.5, -1.0]
    assert t.joint_to_actuator_is_derived()
    assert t.JOINT_ROLES == ('joint1', 'joint2') and t.ACTUATOR_ROLES == ('actuator1', 'actuator2')
    a2j, j2a, offset = t.linear_map()
    np.testing.assert_allclose(j2a, [[-2.0, 1.0], [1.5, -0.5]], rtol=1e-14)
    for m in (a2j, j2a, offset):
        with pytest.raises(ValueError):
            m[...] = 0.0
    given = CouplingTransmission([[0.5], [0.5]], [[2.0, 0.0]])
    assert not given.joint_to_actuator_is_derived()
    assert repr(given) == ('CouplingTransmission(actuator_to_joint=[[0.5], [0.5]], '
                           'joint_to_actuator=[[2.0, 0.0]], joint_offset=[0.0, 0.0])')
    assert str(given) == ('CouplingTransmission: 1 actuator(s) -> 2 joint(s), actuator_to_joint '
                          '[0.5; 0.5], joint_to_actuator [2 0] (given), joint offsets (0, 0)')
    assert eval(repr(t)).map_key() == t.map_key()  # noqa: S307 - the repr of our own object
    assert given.map_key() != CouplingTransmission([[0.5], [0.5]]).map_key()


def test_the_tolerance_accepts_exact_fractions_and_ten_digits():
    CouplingTransmission([[3.0]], [[1.0 / 3.0]])
    CouplingTransmission([[3.0]], [[0.33333333333]])
    assert INVERSE_TOLERANCE == 1e-9


# ------------------------------------------------------------------------------ white box
# (actuator_to_joint, joint_to_actuator or None, offset, kind, actuator values, joint values):
# each case holds both ways; the values are computed by hand from the class docstring.
CASES = [
    # square: A = [[1, 2], [3, 4]], B = A^-1 = [[-2, 1], [1.5, -0.5]]
    ([[1, 2], [3, 4]], None, [0.5, -1.0], 'position', [1.0, 1.0], [3.5, 6.0]),
    ([[1, 2], [3, 4]], None, [0.5, -1.0], 'velocity', [1.0, -1.0], [-1.0, -1.0]),
    ([[1, 2], [3, 4]], None, [0.5, -1.0], 'effort', [1.0, 1.0], [-0.5, 0.5]),
    ([[1, 2], [3, 4]], None, [0.5, -1.0], 'effort', [1.0, 2.0], [1.0, 0.0]),
    # synergy: A = (1, 2, 2)^T, B = A^T / 9; tau = B^T u, u = A^T tau
    ([[1], [2], [2]], None, [0.0, 0.0, 0.0], 'position', [3.0], [3.0, 6.0, 6.0]),
    ([[1], [2], [2]], None, [0.1, 0.0, 0.0], 'position', [-0.5], [-0.4, -1.0, -1.0]),
    ([[1], [2], [2]], None, [0.0, 0.0, 0.0], 'effort', [9.0], [1.0, 2.0, 2.0]),
    # J0-like with a given left inverse: only joint 1 is read by the position map
    ([[0.5], [0.5]], [[2.0, 0.0]], [0.0, 0.0], 'position', [0.6], [0.3, 0.3]),
    ([[0.5], [0.5]], [[2.0, 0.0]], [0.0, 0.0], 'effort', [1.0], [2.0, 0.0]),
    # antagonists: A = (1/2, -1/2), B = A^+ = (1, -1)^T
    ([[0.5, -0.5]], None, [0.0], 'position', [0.4, -0.4], [0.4]),
    ([[0.5, -0.5]], None, [0.2], 'velocity', [1.5, -1.5], [1.5]),
    ([[0.5, -0.5]], None, [0.0], 'effort', [1.0, -1.0], [2.0]),
]


@pytest.mark.parametrize('a2j, j2a, offset, kind, a, j', CASES)
def test_white_box_functional(a2j, j2a, offset, kind, a, j):
    t = CouplingTransmission(a2j, j2a, offset)
    np.testing.assert_allclose(t.actuator_to_joint({kind: a})[kind], j, rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(t.joint_to_actuator({kind: j})[kind], a, rtol=1e-14, atol=1e-15)


def test_white_box_what_the_non_square_maps_drop():
    synergy = CouplingTransmission([[1], [2], [2]])
    # a joint command outside the synergy: the actuator takes its least-squares fit
    fit = synergy.joint_to_actuator({'position': [1.0, 1.0, 1.0]})['position']
    np.testing.assert_allclose(fit, [5.0 / 9.0], rtol=1e-14)
    # joint efforts the synergy cannot make do no work: u = A^T tau = 0
    u = synergy.joint_to_actuator({'effort': [2.0, -1.0, 0.0]})['effort']
    np.testing.assert_allclose(u, [0.0], atol=1e-15)
    follower = CouplingTransmission([[0.5], [0.5]], [[2.0, 0.0]])
    out = follower.joint_to_actuator({'position': [0.3, 123.0], 'effort': [1.0, 3.0]})
    np.testing.assert_allclose(out['position'], [0.6])  # joint 2's position is not read...
    np.testing.assert_allclose(out['effort'], [2.0])    # ...its effort is: u = (1 + 3) / 2
    antagonists = CouplingTransmission([[0.5, -0.5]])
    # co-contraction: equal pulls move nothing and give no joint effort
    out = antagonists.actuator_to_joint({'position': [0.7, 0.7], 'effort': [3.0, 3.0]})
    np.testing.assert_allclose(out['position'], [0.0], atol=1e-15)
    np.testing.assert_allclose(out['effort'], [0.0], atol=1e-15)


def test_white_box_handles():
    t = CouplingTransmission([[1], [2], [2]], joint_offset=[0.1, 0.0, 0.0])
    joints = [JointHandle(f'j{i}', 'position', 99.0, role=f'joint{i}') for i in (3, 1, 2)]
    motor = ActuatorHandle('m', 'position', -0.5)
    t.configure(joints, [motor])
    t.actuator_to_joint()
    assert {h.name: h.value for h in joints} == pytest.approx({'j1': -0.4, 'j2': -1.0,
                                                               'j3': -1.0})
    motor.value = 99.0
    t.joint_to_actuator()
    assert motor.value == pytest.approx(-0.5)


# ------------------------------------------------------------------------------ black box
def _random_couplings(rng, count):
    """Return random couplings of 1 to 4 actuators and joints, B derived or another inverse."""
    out = []
    while len(out) < count:
        rows, cols = rng.integers(1, 5, size=2)
        a2j = rng.normal(size=(rows, cols)) * 10.0 ** rng.uniform(-1.0, 1.0)
        if np.linalg.cond(a2j) > 1e3:
            continue
        j2a = np.linalg.pinv(a2j)
        if rng.uniform() < 0.5 and rows != cols:  # another inverse on the smaller side
            c = rng.normal(size=j2a.shape)
            j2a = (j2a + c @ (np.eye(rows) - a2j @ j2a) if rows > cols
                   else j2a + (np.eye(cols) - j2a @ a2j) @ c)
        out.append(CouplingTransmission(a2j.tolist(), j2a.tolist(), rng.uniform(-1, 1, rows)))
    return out


@pytest.fixture(scope='module')
def couplings():
    return _random_couplings(np.random.default_rng(1234), 200)


def test_black_box_round_trips(couplings):
    rng = np.random.default_rng(1234)
    for t in couplings:
        a = {k: rng.uniform(-10.0, 10.0, size=(20, t.num_actuators()))
             for k in ('position', 'velocity', 'effort')}
        j = t.actuator_to_joint(a)
        back = t.joint_to_actuator(j)
        for k in a:
            again = t.actuator_to_joint(back)[k]
            np.testing.assert_allclose(again, j[k], rtol=1e-9, atol=1e-9 * np.abs(j[k]).max())
            if t.num_actuators() <= t.num_joints():
                np.testing.assert_allclose(back[k], a[k], rtol=1e-9, atol=1e-8)


def test_black_box_power_on_reachable_states(couplings):
    # the joint states an actuator state reaches: u . dtheta = tau . dq through either map
    rng = np.random.default_rng(1234)
    for t in couplings:
        u, theta_dot = rng.uniform(-10.0, 10.0, size=(2, 20, t.num_actuators()))
        j = t.actuator_to_joint({'effort': u, 'velocity': theta_dot})
        joint_power = np.sum(j['effort'] * j['velocity'], axis=-1)
        back = t.joint_to_actuator(j)
        np.testing.assert_allclose(np.sum(back['effort'] * back['velocity'], axis=-1),
                                   joint_power, rtol=1e-9, atol=1e-9)
        if t.num_actuators() <= t.num_joints():
            np.testing.assert_allclose(np.sum(u * theta_dot, axis=-1), joint_power, rtol=1e-9,
                                       atol=1e-9)


def test_black_box_derived_inverse_is_the_pseudo_inverse(couplings):
    for t in couplings:
        a2j, j2a, _ = t.linear_map()
        if t.joint_to_actuator_is_derived() or a2j.shape[0] == a2j.shape[1]:
            np.testing.assert_allclose(j2a, np.linalg.pinv(a2j), rtol=1e-9, atol=1e-12)
        assert t.actuator_to_joint_jacobian() is a2j


# ------------------------------------------------------------------------------ URDF
def _robot(body, dialect='ros1', joints=('j1', 'j2', 'j3'), lenient=False):
    """Load a robot whose joints are ``joints`` and whose one transmission holds ``body``."""
    links = ''.join(f'<link name="l{i}"/>' for i in range(len(joints) + 1))
    declared = ''.join(
        f'<joint name="{n}" type="revolute"><parent link="l{i}"/><child link="l{i + 1}"/>'
        f'<limit lower="-1" upper="1" effort="2" velocity="3"/></joint>'
        for i, n in enumerate(joints))
    if dialect == 'ros2_control':
        block_joints = ''.join(f'<joint name="{n}"/>' for n in joints)
        transmission = (f'<ros2_control name="hand" type="system">{block_joints}'
                        '<transmission name="t">'
                        '<plugin>transmission_plugins/CouplingTransmission</plugin>'
                        f'{body}</transmission></ros2_control>')
    else:
        transmission = ('<transmission name="t">'
                        f'<type>transmission_plugins/CouplingTransmission</type>{body}'
                        '</transmission>')
    return load_robot_transmissions(
        textwrap.dedent(f'<robot name="r">{links}{declared}\n{transmission}</robot>'),
        lenient=lenient, warn=False)


SYNERGY = ('<actuator name="m"/><joint name="j1"/><joint name="j2"/><joint name="j3"/>'
           '<actuator_to_joint>1 2 2</actuator_to_joint>')


def test_urdf_ros1_and_ros2_control_dialects_agree():
    ros1 = _robot(SYNERGY).transmission('t').transmission
    ros2 = _robot(SYNERGY.replace('<actuator_to_joint>', '<param name="actuator_to_joint">')
                  .replace('</actuator_to_joint>', '</param>'), dialect='ros2_control')
    assert ros2.transmission('t').transmission.map_key() == ros1.map_key()
    np.testing.assert_allclose(ros1.linear_map().joint_to_actuator, [[1 / 9, 2 / 9, 2 / 9]])


def test_urdf_roles_order_rows_and_columns():
    robot = _robot('<joint name="j2" role="joint2"/><joint name="j1" role="joint1"/>'
                   '<actuator name="b" role="actuator2"/><actuator name="a" role="actuator1"/>'
                   '<actuator_to_joint>1 0\n 0 2</actuator_to_joint>', dialect='ros2_control',
                   joints=('j1', 'j2'))
    t = robot.transmission('t')
    assert t.joint_names == ('j1', 'j2') and t.actuator_names == ('a', 'b')
    out = robot.actuator_to_joint({'position': {'a': 1.0, 'b': 1.0}})['position']
    assert out == {'j1': 1.0, 'j2': 2.0}


def test_urdf_missing_matrix():
    with pytest.raises(IncompleteTransmissionError, match=re.escape(
            "transmission[@name='t'] (line 2): missing <actuator_to_joint> (or <param name="
            '"actuator_to_joint">): the 3 x 1 matrix')):
        _robot('<actuator name="m"/><joint name="j1"/><joint name="j2"/><joint name="j3"/>')


def test_urdf_no_actuator():
    with pytest.raises(IncompleteTransmissionError, match='needs at least one <actuator>'):
        _robot('<joint name="j1"/><actuator_to_joint>1</actuator_to_joint>', joints=('j1',))


@pytest.mark.parametrize('text, message', [
    ('1 2', "expected 3 numbers, row-major: 3 row(s), one per joint ['j1', 'j2', 'j3'], of 1 "
            "column(s), one per actuator ['m']; got 2: '1 2'"),
    ('1 2 x', 'entry 3 of 3: expected a number (ASCII digits, optional sign, fraction and '
              "exponent), got 'x'"),
    ('1 2 nan', "entry 3 of 3: expected a finite number, got 'nan'"),
    ('1,2,2', 'entry 1 of 1: expected a number'),
])
def test_urdf_bad_matrix_text(text, message):
    with pytest.raises(BadValueError) as e:
        _robot(SYNERGY.replace('1 2 2', text))
    assert e.value.path.endswith("transmission[@name='t']/actuator_to_joint")
    assert e.value.line == 2
    assert message in str(e.value)


def test_urdf_wrong_inverse_names_both_matrices_and_the_residual():
    body = SYNERGY + '<joint_to_actuator>0.1 0.2 0.2</joint_to_actuator>'
    with pytest.raises(BadValueError) as e:
        _robot(body)
    assert e.value.path.endswith("transmission[@name='t']/joint_to_actuator")
    assert 'expected an inverse of actuator_to_joint [[1.0], [2.0], [2.0]]' in str(e.value)
    assert '|B A - I| is 0.1' in str(e.value) and 'got [[0.1, 0.2, 0.2]]' in str(e.value)


def test_urdf_rank_deficient_matrix_names_its_element():
    with pytest.raises(BadValueError, match=r'actuator_to_joint \(line 2\): expected a matrix '
                       'of full rank 1'):
        _robot(SYNERGY.replace('1 2 2', '0 0 0'))


@pytest.mark.parametrize('body, path, fragment', [
    (SYNERGY + '<actuator_to_joint>1 2 2</actuator_to_joint>', 'actuator_to_joint',
     'given 2 times'),
    (SYNERGY.replace('<actuator name="m"/>', '<actuator name="m"><mechanicalReduction>2'
                     '</mechanicalReduction></actuator>'),
     "actuator[@name='m']/mechanicalReduction", 'a reduction is not read'),
    (SYNERGY.replace('<joint name="j2"/>', '<joint name="j2"><mechanicalReduction>3'
                     '</mechanicalReduction></joint>'),
     "joint[@name='j2']/mechanicalReduction", 'the value 3.0 would be ignored'),
    (SYNERGY.replace('<actuator name="m"/>', '<actuator name="m"><offset>1</offset></actuator>'),
     "actuator[@name='m']/offset", 'read from the <joint>'),
    (SYNERGY.replace('<actuator_to_joint>', '<actuator_to_joint rows="3">'),
     'actuator_to_joint/@rows', "unexpected attribute 'rows'"),
    (SYNERGY + '<coupling_matrix>1</coupling_matrix>', 'coupling_matrix',
     'unexpected element <coupling_matrix>'),
])
def test_urdf_strictness(body, path, fragment):
    with pytest.raises(BadValueError) as e:
        _robot(body)
    assert e.value.path.endswith(f"transmission[@name='t']/{path}"), e.value.path
    assert fragment in str(e.value)


def test_urdf_neutral_reduction_and_joint_offsets_are_read():
    body = SYNERGY.replace('<joint name="j1"/>', '<joint name="j1"><offset>0.25</offset>'
                           '<mechanicalReduction>1</mechanicalReduction></joint>')
    t = _robot(body).transmission('t').transmission
    assert t.get_joint_offset() == [0.25, 0.0, 0.0]


def test_urdf_lenient_mode_ignores_a_reduction_with_a_warning():
    body = SYNERGY.replace('<joint name="j2"/>', '<joint name="j2"><mechanicalReduction>3'
                           '</mechanicalReduction></joint>')
    robot = _robot(body, lenient=True)
    assert len(robot.transmissions) == 1
    assert any('would be ignored' in w and 'lenient' in w for w in robot.warnings)


# ------------------------------------------------------------------------------ robot
@pytest.fixture(scope='module')
def hand():
    return load_robot_transmissions(FIXTURE_DIR / 'coupled_hand.urdf', warn=False)


def test_fixture_wiring(hand):
    assert hand.warnings == []
    assert hand.transmission('index_tendons').joint_names == ('index_j1', 'index_j2', 'index_j3')
    assert hand.transmission('index_tendons').actuator_names == ('index_flexor',
                                                                 'index_extensor')
    t = hand.transmission('thumb_synergy').transmission
    assert t.linear_map().actuator_to_joint.tolist() == [[0.02], [0.04], [0.04]]
    assert t.get_joint_offset() == [0.05, 0.0, 0.0]


def test_fixture_name_keyed_maps(hand):
    out = hand.actuator_to_joint({
        'position': {'thumb_motor': 10.0, 'index_flexor': 5.0, 'index_extensor': 3.0,
                     'wrist_flexor': 4.0, 'wrist_extensor': 2.0},
        'effort': {'thumb_motor': 0.36}})
    assert out['position'] == pytest.approx({
        'thumb_j1': 0.25, 'thumb_j2': 0.4, 'thumb_j3': 0.4, 'index_j1': 0.5, 'index_j2': 0.3,
        'index_j3': 0.8, 'wrist': 0.05})
    # tau = B^T u with B = A^T / (A^T A) = (5.5..., 11.1..., 11.1...)
    assert out['effort'] == pytest.approx({'thumb_j1': 2.0, 'thumb_j2': 4.0, 'thumb_j3': 4.0})
    back = hand.joint_to_actuator({'position': {'index_j1': 0.5, 'index_j2': 0.3,
                                                'index_j3': 99.0}})
    # the distal joint follows: its command is not read (B's column is zero)
    assert back['position'] == pytest.approx({'index_flexor': 5.0, 'index_extensor': 3.0})


def test_fixture_array_maps_equal_the_transmissions(hand):
    rng = np.random.default_rng(7)
    a = {k: rng.uniform(-1.0, 1.0, size=(5, len(hand.actuator_names)))
         for k in ('position', 'velocity', 'effort')}
    q = hand.actuator_to_joint_arrays(a)
    for t in hand.transmissions:
        cols = [hand.actuator_index[n] for n in t.actuator_names]
        rows = [hand.joint_index[n] for n in t.joint_names]
        own = t.transmission.actuator_to_joint({k: v[:, cols] for k, v in a.items()})
        for k in a:
            np.testing.assert_allclose(q[k][:, rows], own[k], rtol=1e-14, atol=1e-15)
    back = hand.joint_to_actuator_arrays(q)
    again = hand.actuator_to_joint_arrays(back)
    for t in hand.transmissions:
        cols = [hand.actuator_index[n] for n in t.actuator_names]
        for k in a:
            np.testing.assert_allclose(again[k], q[k], rtol=1e-12, atol=1e-12)
            if t.transmission.num_actuators() <= t.transmission.num_joints():
                np.testing.assert_allclose(back[k][:, cols], a[k][:, cols], rtol=1e-12,
                                           atol=1e-12)


def test_fixture_limits(hand):
    i = hand.actuator_index
    # u = A^T tau: the largest thumb motor effort over the joint effort box
    assert hand.actuator_effort_limit[i['thumb_motor']] == pytest.approx(
        0.02 * 2 + 0.04 * 1.5 + 0.04 * 1)
    # theta = B q: the flexor reads index_j1 only (10 rad per rad)
    assert hand.actuator_velocity_limit[i['index_flexor']] == pytest.approx(30.0)
    assert (hand.actuator_lower[i['index_flexor']], hand.actuator_upper[i['index_flexor']]) \
        == pytest.approx((-3.0, 15.0))
    # theta = B q with B = (20, -20)^T: the wrist range +-0.5 is +-10 at each motor
    assert hand.actuator_upper[i['wrist_flexor']] == pytest.approx(10.0)
    assert hand.actuator_lower[i['wrist_extensor']] == pytest.approx(-10.0)


def test_fixture_reflected_inertia(hand):
    inertia = hand.reflected_inertia()
    rows = [hand.joint_index[n] for n in ('thumb_j1', 'thumb_j2', 'thumb_j3')]
    b = np.array([0.02, 0.04, 0.04]) / 0.0036   # B = A^+ of the thumb synergy
    rotor = 100.0 ** 2 * 2e-5                   # rho^2 I_r
    np.testing.assert_allclose(inertia[np.ix_(rows, rows)], rotor * np.outer(b, b), rtol=1e-12)
    # the kinetic energy of a synergy motion equals the rotor's
    q_dot = np.array([0.02, 0.04, 0.04]) * 3.0   # theta_dot = 3
    assert q_dot @ inertia[np.ix_(rows, rows)] @ q_dot == pytest.approx(rotor * 9.0)
