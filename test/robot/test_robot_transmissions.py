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

"""Robot-level wiring: name-keyed and fused array maps, limits, inertia, wiring errors."""

import json
import math
import re
import textwrap
import threading

from kernel_spy import KernelSpy
import numpy as np
import pytest

from tp_support import CORPUS
from transmission_plugins import BadValueError
from transmission_plugins import BrokenReferenceError
from transmission_plugins import DifferentialTransmission
from transmission_plugins import FourBarLinkageTransmission
from transmission_plugins import LinearTransmission
from transmission_plugins import SimpleTransmission
from transmission_plugins import Transmission
from transmission_plugins import TransmissionError
from transmission_plugins import TransmissionFileError
from transmission_plugins import TransmissionInputError
from transmission_plugins import TransmissionValueError
from transmission_plugins import TransmissionWarning
from transmission_plugins import UnknownNameError
from transmission_plugins import UrdfTransmissionError
from transmission_plugins.robot.loading import load_robot_transmissions
from transmission_plugins.robot.report import report_dict
from transmission_plugins.robot.robot_transmissions import RobotTransmission
from transmission_plugins.robot.robot_transmissions import RobotTransmissions
from transmission_plugins.transmissions.pr2_gripper_transmission import PR2GripperTransmission
from transmission_plugins.urdf.joints import read_robot_model
from transmission_plugins.urdf.joints import UrdfJoint
from transmission_plugins.urdf.records import ActuatorInfo


PR2 = CORPUS / 'pr2.urdf'
needs_pr2 = pytest.mark.skipif(not PR2.is_file(), reason=f'URDF corpus not found at {PR2}')

INTERFACES_A = ('position', 'velocity', 'effort', 'absolute_position', 'torque')
GRIPPER = {'screw_reduction': 0.004, 'gear_ratio': 40.095, 'theta0': 0.0628824676201037,
           'phi0': 0.5185181221457433, 't0': -0.0001914, 'L0': 0.0375528, 'h': 0.0,
           'a': 0.0683698, 'b': 0.043384900000000004, 'r': 0.0915}


class SinhTransmission(Transmission):
    """Drive two joints nonlinearly from one actuator: q1 = sinh(theta), q2 = 2 sinh(theta)."""

    def __repr__(self):
        return 'SinhTransmission()'

    def num_actuators(self):
        return 1

    def num_joints(self):
        return 2

    def requires_position_state(self):
        return True

    def _actuator_to_joint_position(self, position):
        s = np.sinh(position[..., 0])
        return np.stack([s, 2.0 * s], axis=-1)

    def _actuator_to_joint_velocity(self, velocity, position):
        c = np.cosh(position[..., 0]) * velocity[..., 0]
        return np.stack([c, 2.0 * c], axis=-1)

    def _actuator_to_joint_effort(self, effort, position):
        return np.stack([effort[..., 0] / np.cosh(position[..., 0]),
                         np.zeros_like(effort[..., 0])], axis=-1)

    def _joint_to_actuator_position(self, position):
        return np.arcsinh(position[..., :1])

    def _joint_to_actuator_velocity(self, velocity, position):
        return velocity[..., :1] / np.sqrt(1.0 + position[..., :1] ** 2)

    def _joint_to_actuator_effort(self, effort, position):
        c = np.sqrt(1.0 + position[..., 0] ** 2)
        return (c * effort[..., 0] + 2.0 * c * effort[..., 1])[..., None]

    def actuator_to_joint_jacobian(self, actuator_position=None):
        c = np.cosh(np.asarray(actuator_position)[..., 0])
        return np.stack([c, 2.0 * c], axis=-1)[..., None]

    def joint_to_actuator_jacobian(self, joint_position=None):
        q = np.asarray(joint_position)
        out = np.zeros(q.shape[:-1] + (1, 2))
        out[..., 0, 0] = 1.0 / np.sqrt(1.0 + q[..., 0] ** 2)
        return out


class MatrixTransmission(LinearTransmission):
    """Map N actuators to N joints through any invertible matrix (a dense coupled drive)."""

    def __init__(self, jacobian, offset):
        super().__init__()
        self._set_linear_map(jacobian, np.linalg.inv(jacobian), offset)


def _t(name, tr, joints, actuators):
    return RobotTransmission(name, type(tr).__name__, tr, tuple(joints), tuple(actuators))


def _transmissions():
    return [
        _t('simple', SimpleTransmission(10.0, 0.5), ['j1'], ['m1']),
        _t('diff', DifferentialTransmission((2.0, 3.0), (1.0, -1.5), (0.1, 0.2)),
           ['j2', 'j3'], ['m2', 'm3']),
        _t('gripper', PR2GripperTransmission(**GRIPPER), ['gap', 'p1', 'p2', 'p3', 'p4'],
           ['gm']),
        _t('four_bar', FourBarLinkageTransmission((2.0, -3.0), (1.5, 2.0), (0.0, 0.3)),
           ['j4', 'j5'], ['m4', 'm5']),
        _t('sinh', SinhTransmission(), ['s1', 's2'], ['sm']),
    ]


def _joints():
    return [
        UrdfJoint('j1', 'revolute', -1.0, 1.0, 2.0, 10.0),
        UrdfJoint('j2', 'continuous', velocity=3.0, effort=5.0),
        UrdfJoint('j3', 'revolute', -2.0, 2.0, 1.0, 4.0),
        UrdfJoint('gap', 'prismatic', 0.0, 0.09, 0.2, 1000.0),
        UrdfJoint('p1', 'revolute', 0.0, 0.548, 0.5, 1000.0),
        UrdfJoint('p2', 'revolute', 0.0, 0.548, 0.5, 1000.0, mimic='p1'),
        UrdfJoint('p3', 'revolute', 0.0, 0.548, 0.5, 1000.0, mimic='p1'),
        UrdfJoint('p4', 'revolute', 0.0, 0.548, 0.5, 1000.0, mimic='p1'),
        UrdfJoint('j4', 'revolute', -1.0, 1.0, 1.0, 2.0),
        UrdfJoint('j5', 'prismatic', -0.5, 0.5, 0.1, 30.0),
        UrdfJoint('s1', 'revolute', -1.0, 1.0, 1.0, 1.0),
        UrdfJoint('s2', 'revolute', -2.0, 2.0),
        UrdfJoint('free', 'revolute', -1.0, 1.0, 1.0, 1.0),
        UrdfJoint('follower', 'revolute', -1.0, 1.0, 1.0, 1.0, mimic='j1'),
        UrdfJoint('welded', 'fixed'),
    ]


@pytest.fixture
def robot():
    info = {'m1': ActuatorInfo('m1', rotor_inertia=2e-5, gear_ratio=3.0),
            'm2': ActuatorInfo('m2', effort_limit=7.0, rotor_inertia=1e-4)}
    return RobotTransmissions(_transmissions(), _joints(), actuator_info=info, robot_name='r')


def _actuator_values(rng, shape):
    pos = rng.uniform(-2.0, 2.0, shape + (7,))
    pos[..., 3] = rng.uniform(0.0, 1200.0, shape)  # gripper motor: closed to open
    return {name: (pos if 'position' in name else rng.normal(size=shape + (7,)))
            for name in INTERFACES_A}


def _joint_values(rng, shape):
    q = rng.uniform(-0.9, 0.9, shape + (12,))
    q[..., 3] = rng.uniform(0.0, 0.08, shape)
    return {name: (q if 'position' in name else rng.normal(size=shape + (12,)))
            for name in INTERFACES_A}


def _by_name(names, values):
    return {i: dict(zip(names, np.asarray(v).tolist())) for i, v in values.items()}


def _loop(robot, values, to_joint):
    """Return the reference result: each transmission's functional map, full width."""
    size = len(robot.joint_names) if to_joint else len(robot.actuator_names)
    any_array = next(iter(values.values()))
    out = {i: np.full(any_array.shape[:-1] + (size,), np.nan) for i in values}
    done = set()
    for t in robot.transmissions:
        src, dst = ((t.actuator_names, t.joint_names) if to_joint
                    else (t.joint_names, t.actuator_names))
        src_index = robot.actuator_index if to_joint else robot.joint_index
        dst_index = robot.joint_index if to_joint else robot.actuator_index
        sub = {i: v[..., [src_index[n] for n in src]] for i, v in values.items()}
        fn = t.transmission.actuator_to_joint if to_joint else t.transmission.joint_to_actuator
        for i, y in fn(sub).items():
            for k, n in enumerate(dst):
                if (i, n) not in done:
                    out[i][..., dst_index[n]] = y[..., k]
                    done.add((i, n))
    return out


# ---------------------------------------------------------------------------- names and order
def test_names_follow_transmission_order(robot):
    assert robot.joint_names == ['j1', 'j2', 'j3', 'gap', 'p1', 'p2', 'p3', 'p4', 'j4', 'j5',
                                 's1', 's2']
    assert robot.actuator_names == ['m1', 'm2', 'm3', 'gm', 'm4', 'm5', 'sm']
    assert [t.name for t in robot.transmissions] == ['simple', 'diff', 'gripper', 'four_bar',
                                                     'sinh']
    assert robot.transmission('diff').joint_names == ('j2', 'j3')
    assert robot.transmission_of_joint('p3').name == 'gripper'
    with pytest.raises(KeyError, match='no transmission'):
        robot.transmission('nope')


def test_untransmitted_and_mimic_joints_are_reported(robot):
    assert robot.untransmitted_joints == ['free']
    assert robot.mimic_joints == ['follower']


# ---------------------------------------------------------------------------- name-keyed maps
def test_name_keyed_maps_agree_with_each_transmission(robot):
    rng = np.random.default_rng(1234)
    for _ in range(5):
        a = _actuator_values(rng, ())
        out = robot.actuator_to_joint(_by_name(robot.actuator_names, a))
        j = _joint_values(rng, ())
        back = robot.joint_to_actuator(_by_name(robot.joint_names, j))
        for t in robot.transmissions:
            sub = {i: v[[robot.actuator_index[n] for n in t.actuator_names]] for i, v in a.items()}
            ref = t.transmission.actuator_to_joint(sub)
            for i in INTERFACES_A:
                assert [out[i][n] for n in t.joint_names] == pytest.approx(ref[i].tolist())
            sub = {i: v[[robot.joint_index[n] for n in t.joint_names]] for i, v in j.items()}
            ref = t.transmission.joint_to_actuator(sub)
            for i in INTERFACES_A:
                assert [back[i][n] for n in t.actuator_names] == pytest.approx(ref[i].tolist())


def test_name_keyed_converts_only_complete_transmissions(robot):
    out = robot.actuator_to_joint({'position': {'m1': 5.0, 'm2': 1.0, 'unknown': 3.0},
                                   'velocity': {'m1': 10.0, 'gm': 1.0}})
    assert out == {'position': {'j1': pytest.approx(1.0)},
                   'velocity': {'j1': pytest.approx(1.0)}}  # gripper velocity needs position
    out = robot.joint_to_actuator({'effort': {'j2': 1.0, 'j3': 2.0}, 'position': {}})
    assert set(out['effort']) == {'m2', 'm3'} and out['position'] == {}


def test_name_keyed_rejects_bad_input(robot):
    with pytest.raises(TransmissionInputError, match="unknown interface 'speed'"):
        robot.actuator_to_joint({'speed': {'m1': 1.0}})
    with pytest.raises(TransmissionInputError, match='must be numbers'):
        robot.actuator_to_joint({'position': {'m1': 'fast'}})


# ---------------------------------------------------------------------------- array maps
@pytest.mark.parametrize('shape', [(), (1,), (7,), (3, 4)])
def test_arrays_equal_name_keyed_and_loop(robot, shape):
    rng = np.random.default_rng(1234)
    a = _actuator_values(rng, shape)
    fused = robot.actuator_to_joint_arrays(a)
    ref = _loop(robot, a, to_joint=True)
    j = _joint_values(rng, shape)
    fused_back = robot.joint_to_actuator_arrays(j)
    ref_back = _loop(robot, j, to_joint=False)
    for i in INTERFACES_A:
        assert fused[i].shape == shape + (12,)
        np.testing.assert_allclose(fused[i], ref[i], rtol=1e-12, atol=1e-12)
        assert fused_back[i].shape == shape + (7,)
        np.testing.assert_allclose(fused_back[i], ref_back[i], rtol=1e-12, atol=1e-12)
    if shape == ():
        named = robot.actuator_to_joint(_by_name(robot.actuator_names, a))
        for i in INTERFACES_A:
            assert [named[i][n] for n in robot.joint_names] == pytest.approx(fused[i].tolist())


def test_arrays_round_trip(robot):
    rng = np.random.default_rng(1234)
    a = _actuator_values(rng, (50,))
    a['position'][..., 3] = rng.uniform(10.0, 1000.0, 50)  # inside the gripper's range
    joints = robot.actuator_to_joint_arrays(a)
    a_buffer = {i: np.full_like(v, 1e9) for i, v in a.items()}  # overwritten, never read
    a_buffer.update(robot.joint_to_actuator_arrays(joints))
    for i in INTERFACES_A:
        np.testing.assert_allclose(a_buffer[i], a[i], rtol=1e-9, atol=1e-9)


def test_fused_matrices_are_the_block_diagonal_of_the_transmissions(robot):
    def block_diag(blocks):
        rows = sum(b.shape[0] for b in blocks)
        cols = sum(b.shape[1] for b in blocks)
        out = np.zeros((rows, cols))
        r = c = 0
        for b in blocks:
            out[r:r + b.shape[0], c:c + b.shape[1]] = b
            r, c = r + b.shape[0], c + b.shape[1]
        return out

    def maps(t):
        if t.transmission.is_linear():
            return t.transmission.linear_map()
        m, n = t.transmission.num_joints(), t.transmission.num_actuators()
        return np.zeros((m, n)), np.zeros((n, m)), np.zeros(m)

    lm = [maps(t) for t in robot.transmissions]
    f = robot.maps
    np.testing.assert_array_equal(f.actuator_to_joint_position, block_diag([x[0] for x in lm]))
    np.testing.assert_array_equal(f.joint_to_actuator_position, block_diag([x[1] for x in lm]))
    np.testing.assert_array_equal(f.actuator_to_joint_effort, block_diag([x[1].T for x in lm]))
    np.testing.assert_array_equal(f.joint_to_actuator_effort, block_diag([x[0].T for x in lm]))
    np.testing.assert_array_equal(f.joint_offset, np.concatenate([x[2] for x in lm]))
    assert [type(b.transmission).__name__ for b in f.nonlinear] == ['PR2GripperTransmission',
                                                                    'SinhTransmission']


def test_nan_reaches_only_dependent_outputs(robot):
    q = np.zeros((2, 12))
    q[:, 3] = 0.05
    q[0, robot.joint_index['j2']] = np.nan   # coupled: both differential motors
    q[1, robot.joint_index['j4']] = np.inf   # four-bar: both motors depend on j4
    out = robot.joint_to_actuator_arrays({'position': q})['position']
    bad = {name for name, v in zip(robot.actuator_names, out[0]) if np.isnan(v)}
    assert bad == {'m2', 'm3'}
    assert np.isfinite(out[1, [0, 1, 2, 3, 6]]).all()
    assert np.isinf(out[1, robot.actuator_index['m4']])
    for row in range(2):  # single samples: same result
        single = robot.joint_to_actuator_arrays({'position': q[row]})['position']
        np.testing.assert_allclose(single, out[row], rtol=1e-15, atol=1e-15)
    # passive gripper joints are not commanded: NaN there does not matter
    q = np.zeros(12)
    q[3] = 0.05
    q[4:8] = np.nan
    assert np.isfinite(robot.joint_to_actuator_arrays({'position': q})['position']).all()


def test_nonlinear_velocity_without_position_is_nan(robot):
    out = robot.actuator_to_joint_arrays({'velocity': np.ones(7)})['velocity']
    nonlinear = [robot.joint_index[n] for n in ('gap', 'p1', 'p2', 'p3', 'p4', 's1', 's2')]
    assert np.isnan(out[nonlinear]).all()
    assert out[robot.joint_index['j1']] == pytest.approx(0.1)


def test_array_input_errors(robot):
    with pytest.raises(TransmissionInputError, match='7 entries on the last axis'):
        robot.actuator_to_joint_arrays({'position': np.zeros(12)})
    with pytest.raises(TransmissionInputError, match="unknown interface 'pos'"):
        robot.joint_to_actuator_arrays({'pos': np.zeros(12)})
    with pytest.raises(TransmissionInputError, match='not numbers'):
        robot.joint_to_actuator_arrays({'position': ['a'] * 12})
    # numeric-looking strings, booleans and None are not silently coerced either
    for bad in (['1.5'] * 7, [True] * 7, [None] * 7):
        with pytest.raises(TransmissionInputError, match='not numbers'):
            robot.actuator_to_joint_arrays({'position': bad})


def test_identical_nonlinear_transmissions_share_one_kernel_call(monkeypatch):
    ts = [_t('s1', SinhTransmission(), ['a1', 'a2'], ['m1']),
          _t('lin', SimpleTransmission(3.0), ['b'], ['n']),
          _t('s2', SinhTransmission(), ['c1', 'c2'], ['m2']),
          _t('g1', PR2GripperTransmission(**GRIPPER), ['g1', 'p1'], ['gm1']),
          _t('g2', PR2GripperTransmission(**GRIPPER), ['g2', 'p2'], ['gm2'])]
    with pytest.raises(BrokenReferenceError, match='maps 1 actuator'):
        RobotTransmissions(ts)  # the grippers have 4 passive joints by default
    gripper = {**GRIPPER, 'num_passive_joints': 1}
    ts[3:] = [_t('g1', PR2GripperTransmission(**gripper), ['g1', 'p1'], ['gm1']),
              _t('g2', PR2GripperTransmission(**gripper), ['g2', 'p2'], ['gm2'])]
    robot = RobotTransmissions(ts)
    rng = np.random.default_rng(1234)
    a = {i: rng.uniform(-1.0, 1.0, (6, 5)) for i in INTERFACES_A}
    a['position'][:, [3, 4]] = rng.uniform(10.0, 1000.0, (6, 2))
    calls = []
    original = SinhTransmission.apply_map

    def spy(self, kind, to_joint, values, state):
        calls.append((type(self).__name__, values.shape))
        return original(self, kind, to_joint, values, state)

    monkeypatch.setattr(SinhTransmission, 'apply_map', spy)
    kernel = KernelSpy(robot.maps, monkeypatch)
    fused = robot.actuator_to_joint_arrays(a)
    # the mechanisms written in Python: one call per interface for each pair of identical ones,
    # (samples, members, 1); the built-ins (the grippers, the linear one): one kernel call for
    # position, velocity and effort, one more for the second interface of a kind
    assert sorted(calls) == [('SinhTransmission', (6, 2, 1))] * len(INTERFACES_A)
    assert [c.kinds for c in kernel.calls] == [(True, True, True), (True, False, True),
                                               (False, False, True)][:len(kernel.calls)]
    monkeypatch.undo()
    ref = _loop(robot, a, to_joint=True)
    back, ref_back = robot.joint_to_actuator_arrays(fused), _loop(robot, fused, to_joint=False)
    for i in INTERFACES_A:
        np.testing.assert_allclose(fused[i], ref[i], rtol=1e-12)
        np.testing.assert_allclose(back[i], ref_back[i], rtol=1e-12)
        np.testing.assert_allclose(back[i], a[i], rtol=1e-9, atol=1e-9)


def test_dense_coupling_keeps_nan_and_inf_local():
    rng = np.random.default_rng(1234)
    jac = rng.normal(size=(6, 6)) + 6.0 * np.eye(6)
    dense = MatrixTransmission(jac, rng.normal(size=6))
    robot = RobotTransmissions([_t('dense', dense, [f'j{k}' for k in range(6)],
                                   [f'm{k}' for k in range(6)]),
                                _t('simple', SimpleTransmission(2.0), ['s'], ['n'])])
    assert robot.maps.matrix(True, 'position').nnz == 37  # the dense block stays sparse data
    a = {i: rng.normal(size=(4, 7)) for i in ('position', 'velocity', 'effort')}
    ref = _loop(robot, a, to_joint=True)
    out = robot.actuator_to_joint_arrays(a)
    for i in a:
        np.testing.assert_allclose(out[i], ref[i], rtol=1e-12)
    back = robot.joint_to_actuator_arrays(out)
    for i in a:
        np.testing.assert_allclose(back[i], a[i], rtol=1e-9, atol=1e-12)
    a['position'][1, 6] = np.nan   # the simple motor: only joint s
    a['position'][2, 0] = np.inf   # a dense motor: every dense joint, not s
    a['position'][3, 6] = -np.inf  # the simple motor, reduction 2: joint s at -inf
    q = robot.actuator_to_joint_arrays(a)['position']
    assert np.isnan(q[1]).tolist() == [False] * 6 + [True]
    np.testing.assert_array_equal(q[2, :6], np.where(jac[:, 0] > 0, np.inf, -np.inf))
    assert np.isfinite(q[2, 6]) and q[3, 6] == -np.inf and np.isfinite(q[3, :6]).all()
    assert np.isfinite(q[0]).all()
    a['position'][0, [0, 1]] = [np.inf, -np.inf]  # opposite infinities meet: NaN
    q = robot.actuator_to_joint_arrays(a)['position']
    both = (jac[:, 0] != 0) & (jac[:, 1] != 0) & (np.sign(jac[:, 0]) != -np.sign(jac[:, 1]))
    assert np.isnan(q[0, :6][both]).all() and np.isfinite(q[0, 6])


def test_power_is_conserved_robot_wide_for_linear_transmissions():
    robot = RobotTransmissions([t for t in _transmissions() if t.transmission.is_linear()])
    rng = np.random.default_rng(1234)
    for _ in range(20):
        u = rng.normal(size=5)
        v = rng.normal(size=5)
        j = robot.actuator_to_joint_arrays({'effort': u, 'velocity': v})
        assert np.dot(j['effort'], j['velocity']) == pytest.approx(np.dot(u, v), rel=1e-12)


# ---------------------------------------------------------------------------- limits
def test_joint_limits_follow_the_names(robot):
    i = robot.joint_index
    assert robot.joint_lower[i['j1']] == -1.0 and robot.joint_upper[i['j1']] == 1.0
    assert robot.joint_lower[i['j2']] == -math.inf and robot.joint_upper[i['j2']] == math.inf
    assert robot.joint_velocity_limit[i['j2']] == 3.0
    assert robot.joint_effort_limit[i['s2']] == math.inf
    assert robot.joint_effort_limit[i['gap']] == 1000.0


def test_actuator_limits_are_joint_limits_mapped(robot):
    a = robot.actuator_index
    # simple: u = tau / n, theta_dot = n q_dot, theta = n (q - q0)
    assert robot.actuator_effort_limit[a['m1']] == pytest.approx(10.0 / 10.0)
    assert robot.actuator_velocity_limit[a['m1']] == pytest.approx(2.0 * 10.0)
    assert robot.actuator_lower[a['m1']] == pytest.approx(-15.0)
    assert robot.actuator_upper[a['m1']] == pytest.approx(5.0)
    # coupled: |u_a| <= sum_j |J[j, a]| tau_j
    jac, inv, _ = robot.transmission('four_bar').transmission.linear_map()
    lim = np.abs(jac).T @ np.array([2.0, 30.0])
    np.testing.assert_allclose(robot.actuator_effort_limit[[a['m4'], a['m5']]], lim)
    vel = np.abs(inv) @ np.array([1.0, 0.1])
    np.testing.assert_allclose(robot.actuator_velocity_limit[[a['m4'], a['m5']]], vel)
    # the continuous joint j2 makes the differential's position range infinite
    assert np.isinf(robot.actuator_lower[a['m3']]) and np.isinf(robot.actuator_upper[a['m2']])
    # m2 has an effort limit in its actuator data; m3 gets the mapped joint limit
    jac = robot.transmission('diff').transmission.linear_map()[0]
    assert robot.actuator_effort_limit[a['m2']] == 7.0
    assert robot.actuator_effort_limit[a['m3']] == pytest.approx(abs(jac[0, 1]) * 5.0
                                                                 + abs(jac[1, 1]) * 4.0)
    assert robot.actuator_effort_limit_source[:3] == ['mapped', 'data', 'mapped']
    assert robot.actuator_models['m3'].effort_limit == robot.actuator_effort_limit[a['m3']]
    # nonlinear: finite, positive, and sampled over the gap range
    assert 0.0 < robot.actuator_effort_limit[a['gm']] < math.inf
    assert robot.actuator_lower[a['gm']] < robot.actuator_upper[a['gm']]
    # joint efforts reachable with the actuator data limits: m3 has none, so j2, j3 are free;
    # the sinh transmission's second joint takes no effort at all
    assert np.isinf(robot.joint_effort_limit_from_actuators[:-1]).all()
    assert robot.joint_effort_limit_from_actuators[-1] == 0.0


def test_actuator_data_effort_limit_mapped_to_the_joint():
    t = _t('s', SimpleTransmission(-10.0), ['j'], ['m'])
    robot = RobotTransmissions([t], [UrdfJoint('j', 'revolute', -1, 1, 1, 50.0)],
                               actuator_info={'m': ActuatorInfo('m', effort_limit=3.0)})
    assert robot.joint_effort_limit_from_actuators.tolist() == [30.0]
    assert robot.actuator_effort_limit.tolist() == [3.0]


def test_effort_limit_box_for_inf_joint_limits():
    tr = _t('d', DifferentialTransmission((1.0, 1.0), (1.0, 1.0)), ['a', 'b'], ['m', 'n'])
    robot = RobotTransmissions([tr], [UrdfJoint('a', 'revolute', -1, 1, 1, 2),
                                      UrdfJoint('b', 'revolute', -1, 1)])
    assert np.isinf(robot.actuator_effort_limit).all()
    tr = _t('f', FourBarLinkageTransmission((1.0, 1.0), (1.0, 1.0)), ['a', 'b'], ['m', 'n'])
    robot = RobotTransmissions([tr], [UrdfJoint('a', 'revolute', -1, 1, 1, math.inf),
                                      UrdfJoint('b', 'revolute', -1, 1, 3, 2)])
    # u_m = tau_a + ... depends on both; u_n = tau_b / (n_j2 n_a2) only on b (0 * inf = 0)
    assert robot.actuator_effort_limit.tolist() == [math.inf, 2.0]


# ---------------------------------------------------------------------------- inertia
def test_reflected_inertia_of_a_simple_transmission_is_rho_squared_i(robot):
    inertia = robot.reflected_inertia()
    i = robot.joint_index['j1']
    # reduction 10, gear ratio 3: (10 * 3)^2 * 2e-5
    assert inertia[i, i] == pytest.approx(10.0 ** 2 * 3.0 ** 2 * 2e-5)
    d = [robot.joint_index['j2'], robot.joint_index['j3']]
    inv = robot.transmission('diff').transmission.linear_map()[1]
    np.testing.assert_allclose(inertia[np.ix_(d, d)],
                               inv.T @ np.diag([1e-4, 0.0]) @ inv)
    assert np.count_nonzero(inertia) == 1 + 4
    np.testing.assert_allclose(inertia, inertia.T)


def test_reflected_inertia_of_the_gripper_depends_on_the_gap():
    t = _t('g', PR2GripperTransmission(**GRIPPER), ['gap', 'p1', 'p2', 'p3', 'p4'], ['gm'])
    robot = RobotTransmissions([t], _joints()[3:8],
                               actuator_info={'gm': ActuatorInfo('gm', rotor_inertia=1e-5)})
    q = np.zeros(5)
    small = robot.reflected_inertia(np.r_[0.01, q[1:]])[0, 0]
    large = robot.reflected_inertia(np.r_[0.08, q[1:]])[0, 0]
    assert small > 0.0 and large > 0.0 and small != pytest.approx(large)
    assert robot.reflected_inertia()[1:, :].any() == np.False_
    with pytest.raises(TransmissionInputError, match='shape'):
        robot.reflected_inertia(np.zeros(3))


# ---------------------------------------------------------------------------- wiring errors
def test_joint_driven_twice_is_an_error():
    ts = [_t('a', SimpleTransmission(2.0), ['j'], ['m1']),
          _t('b', SimpleTransmission(3.0), ['j'], ['m2'])]
    with pytest.raises(BrokenReferenceError, match=r"transmission\[@name='b'\].*'j' is already "
                                                   r"driven by transmission\[@name='a'\]"):
        RobotTransmissions(ts)
    robot = RobotTransmissions(ts, lenient=True)
    assert [t.name for t in robot.transmissions] == ['a']
    assert 'skipped' in robot.warnings[0] and "'j' is already driven" in robot.warnings[0]


def test_exact_duplicates_are_merged_with_a_warning():
    ts = [_t('a', SimpleTransmission(2.0), ['j'], ['m']),
          _t('a', SimpleTransmission(2.0), ['j'], ['m'])]
    robot = RobotTransmissions(ts)
    assert len(robot.transmissions) == 1 and robot.joint_names == ['j']
    assert 'exact duplicate' in robot.warnings[0]


def test_shared_actuator_with_a_conflicting_map_is_an_error():
    ts = [_t('a', SimpleTransmission(2.0), ['j1'], ['m']),
          _t('b', SimpleTransmission(4.0), ['j2'], ['m'])]
    with pytest.raises(BrokenReferenceError, match="actuator 'm' is already used by .*'a'.* "
                                                   'different map'):
        RobotTransmissions(ts)


def test_shared_actuator_with_identical_maps_drives_every_joint():
    ts = [_t('a', SimpleTransmission(2.0), ['j1'], ['m']),
          _t('b', SimpleTransmission(2.0), ['j2'], ['m']),
          _t('c', SimpleTransmission(5.0), ['j3'], ['n'])]
    robot = RobotTransmissions(ts)
    assert robot.actuator_names == ['m', 'n'] and robot.joint_names == ['j1', 'j2', 'j3']
    assert "shared with transmission[@name='a']" in robot.warnings[0]
    out = robot.actuator_to_joint_arrays({'position': [4.0, 5.0], 'effort': [1.0, 1.0]})
    assert out['position'].tolist() == [2.0, 2.0, 1.0]
    assert out['effort'].tolist() == [2.0, 2.0, 5.0]
    back = robot.joint_to_actuator_arrays({'position': [2.0, 7.0, 1.0]})['position']
    assert back.tolist() == [4.0, 5.0]  # the owner 'a' decides
    assert robot.joint_to_actuator({'position': {'j2': 3.0}})['position'] == {'m': 6.0}


def test_a_shared_actuator_takes_each_interface_from_the_first_transmission_with_it():
    """Name-keyed: per interface, the first of identical transmissions that has its joints."""
    robot = RobotTransmissions([_t('s1', SinhTransmission(), ['a1', 'a2'], ['m']),
                                _t('s2', SinhTransmission(), ['b1', 'b2'], ['m'])])
    out = robot.joint_to_actuator({
        'position': {'a1': 0.3, 'a2': 0.6, 'b1': 1.0, 'b2': 2.0},
        'velocity': {'b1': 0.5, 'b2': 1.0},            # only the follower's joints
        'effort': {'a1': 2.0, 'a2': -1.0}})            # only the owner's joints
    own = SinhTransmission().joint_to_actuator(
        {'position': [0.3, 0.6], 'effort': [2.0, -1.0]})
    follower = SinhTransmission().joint_to_actuator(
        {'position': [1.0, 2.0], 'velocity': [0.5, 1.0]})
    assert out['position'] == {'m': pytest.approx(own['position'][0], rel=1e-15)}
    # the follower's velocity at the follower's position, the owner's effort at the owner's
    assert out['velocity'] == {'m': pytest.approx(follower['velocity'][0], rel=1e-15)}
    assert out['effort'] == {'m': pytest.approx(own['effort'][0], rel=1e-15)}
    assert robot.joint_to_actuator({'velocity': {'b1': 0.5, 'b2': 1.0}}) == {'velocity': {}}


def test_wiring_must_match_the_transmission_size():
    with pytest.raises(BrokenReferenceError, match='maps 2 actuator'):
        RobotTransmissions([_t('d', DifferentialTransmission((1, 1), (1, 1)), ['a'], ['m'])])
    with pytest.raises(BrokenReferenceError, match="joint 'a' is listed twice"):
        RobotTransmissions([_t('d', DifferentialTransmission((1, 1), (1, 1)), ['a', 'a'],
                               ['m', 'n'])])


def test_unknown_joint_is_an_error_when_the_model_has_joints():
    ts = [_t('a', SimpleTransmission(2.0), ['ghost'], ['m'])]
    with pytest.raises(BrokenReferenceError, match=r"'ghost' is not a <joint> of the robot"):
        RobotTransmissions(ts, [UrdfJoint('j', 'revolute')])
    assert RobotTransmissions(ts).joint_names == ['ghost']


# ---------------------------------------------------------------------------- reports
def test_summary_and_report(robot):
    text = robot.summary()
    assert str(robot) == text
    assert "robot 'r': 5 transmissions, 12 joints, 7 actuators" in text
    for word in ('simple', 'reduction 10', 'nonlinear', 'free', 'follower', 'REFL. INERTIA'):
        assert word in text
    data = json.loads(json.dumps(report_dict(robot), allow_nan=False))
    assert [t['name'] for t in data['transmissions']][:2] == ['simple', 'diff']
    assert data['joints'][1]['lower'] is None  # continuous: no limit
    assert data['actuators'][1]['effort_limit_source'] == 'data'
    assert repr(robot) == "<RobotTransmissions 'r': 5 transmissions, 12 joints, 7 actuators>"


# ---------------------------------------------------------------------------- URDF snippets
URDF = textwrap.dedent("""\
    <?xml version="1.0" encoding="utf-8"?>
    <robot name="snippet">
      <link name="base"/><link name="l1"/><link name="l2"/><link name="l3"/><link name="l4"/>
      <joint name="j1" type="revolute">
        <parent link="base"/><child link="l1"/>
        <limit lower="-1.5" upper="1.5" velocity="2.0" effort="20.0"/>
      </joint>
      <joint name="wheel" type="continuous">
        <parent link="base"/><child link="l2"/><limit velocity="10.0" effort="4.0"/>
      </joint>
      <joint name="loose" type="prismatic">
        <parent link="base"/><child link="l3"/>
        <limit lower="0" upper="0.1" velocity="1" effort="1"/>
      </joint>
      <joint name="copy" type="revolute">
        <parent link="base"/><child link="l4"/><mimic joint="j1"/>
        <limit lower="-1.5" upper="1.5" velocity="2.0" effort="20.0"/>
      </joint>
      <gazebo><joint name="j1" type="fixed"/></gazebo>
      <transmission name="t1">
        <type>transmission_interface/SimpleTransmission</type>
        <joint name="j1"><hardwareInterface>hardware_interface/EffortJointInterface
        </hardwareInterface></joint>
        <actuator name="m1"><mechanicalReduction>50</mechanicalReduction></actuator>
      </transmission>
      <transmission name="t2">
        <type>transmission_interface/SimpleTransmission</type>
        <joint name="wheel"><hardwareInterface>VelocityJointInterface</hardwareInterface>
        </joint>
        <actuator name="m2"><mechanicalReduction>-2</mechanicalReduction></actuator>
      </transmission>
    </robot>
    """)


def test_read_robot_model_keeps_top_level_joints_only():
    model = read_robot_model(URDF)
    assert model.name == 'snippet'
    assert list(model.joints) == ['j1', 'wheel', 'loose', 'copy']
    assert model.joints['j1'].type == 'revolute'
    wheel = model.joints['wheel']
    assert (wheel.lower, wheel.upper, wheel.velocity) == (-math.inf, math.inf, 10.0)
    assert model.joints['copy'].mimic == 'j1'


def test_load_a_urdf_snippet():
    robot = load_robot_transmissions(URDF)
    assert robot.robot_name == 'snippet'
    assert robot.joint_names == ['j1', 'wheel'] and robot.actuator_names == ['m1', 'm2']
    assert robot.untransmitted_joints == ['loose'] and robot.mimic_joints == ['copy']
    assert robot.joint_lower.tolist() == [-1.5, -math.inf]
    assert robot.actuator_effort_limit.tolist() == [pytest.approx(20.0 / 50), 2.0]
    assert robot.actuator_velocity_limit.tolist() == [100.0, 20.0]
    out = robot.actuator_to_joint({'position': {'m1': 50.0, 'm2': 4.0}})
    assert out == {'position': {'j1': 1.0, 'wheel': -2.0}}
    assert robot.transmissions[0].info.name == 't1'


# ---------------------------------------------------------------------------- the PR2
@pytest.fixture(scope='module')
def pr2():
    if not PR2.is_file():
        pytest.skip(f'URDF corpus not found at {PR2}')
    return load_robot_transmissions(PR2)


@needs_pr2
def test_pr2_loads(pr2):
    assert len(pr2.transmissions) == 30
    # 26 simple + 2 x 2 wrist + 2 x (gap, 4 passive, screw and slider) gripper joints
    assert len(pr2.joint_names) == 26 + 4 + 14 and len(pr2.actuator_names) == 32
    assert [t.type for t in pr2.transmissions].count(
        'pr2_mechanism_model/PR2GripperTransmission') == 2
    assert pr2.transmission('r_gripper_trans').joint_names[:2] == ('r_gripper_joint',
                                                                   'r_gripper_l_finger_joint')
    assert pr2.untransmitted_joints == ['torso_lift_motor_screw_joint']
    assert pr2.mimic_joints == [] and pr2.warnings == []
    assert np.isfinite(pr2.actuator_effort_limit).all()
    gripper = pr2.actuator_index['r_gripper_motor']
    assert pr2.actuator_lower[gripper] < pr2.actuator_upper[gripper] < math.inf
    roll = pr2.joint_index['r_wrist_roll_joint']
    assert math.isinf(pr2.joint_lower[roll])  # continuous


@needs_pr2
def test_pr2_round_trip(pr2):
    rng = np.random.default_rng(1234)
    gripper = [pr2.actuator_index[n] for n in ('r_gripper_motor', 'l_gripper_motor')]
    for shape in [(), (200,)]:
        a = {i: rng.uniform(-3.0, 3.0, shape + (32,)) for i in ('position', 'velocity', 'effort')}
        a['position'][..., gripper] = rng.uniform(5.0, 1500.0, shape + (2,))
        joints = pr2.actuator_to_joint_arrays(a)
        assert np.isfinite(joints['position']).all()
        back = pr2.joint_to_actuator_arrays(joints)
        for i in a:
            np.testing.assert_allclose(back[i], a[i], rtol=1e-7, atol=1e-9)
    a = {i: dict(zip(pr2.actuator_names, v.tolist())) for i, v in
         {i: x[0] for i, x in a.items()}.items()}
    named = pr2.joint_to_actuator(pr2.actuator_to_joint(a))
    for i in a:
        assert named[i] == pytest.approx(a[i], rel=1e-7, abs=1e-9)


# ---------------------------------------------------------------------------- URDF joint limits
LIMIT_URDF = textwrap.dedent("""\
    <robot name="r">
      <link name="a"/><link name="b"/><link name="c"/>
      <joint name="j" type="revolute">
        <parent link="a"/><child link="b"/>
        <limit {limit}/>
      </joint>
      <joint name="free" type="revolute">
        <parent link="a"/><child link="c"/>
        <limit {free}/>
      </joint>
      <transmission name="t">
        <type>transmission_interface/SimpleTransmission</type>
        <joint name="j"/>
        <actuator name="m"><mechanicalReduction>10</mechanicalReduction></actuator>
      </transmission>
    </robot>
    """)
GOOD_LIMIT = 'lower="-1" upper="1" velocity="2" effort="5"'
LIMIT_PATH = "/robot[@name='r']/joint[@name='j']/limit"
BAD_LIMITS = [
    ('lower="-1" upper="1" velocity="2" effort="-5"', '/@effort',
     "number >= 0 (0 = no limit), got '-5'"),
    ('lower="1" upper="-1" velocity="2" effort="5"', '',
     "expected lower <= upper, got lower='1' and upper='-1'"),
    ('lower="-1" upper="nan" velocity="2" effort="5"', '/@upper', "finite number, got 'nan'"),
    ('lower="-inf" upper="1" velocity="2" effort="5"', '/@lower', "finite number, got '-inf'"),
    ('lower="-1" upper="1" velocity="abc" effort="5"', '/@velocity', "got 'abc'"),
    ('lower="-1" upper="1" velocity="2" effort="nan"', '/@effort', "got 'nan'"),
    ('lower="-1" upper="1" velocity="-2" effort="5"', '/@velocity', "got '-2'"),
    ('lower="-1" upper="1" velocity="2" effort="1_000"', '/@effort', "got '1_000'"),
    ('lower="-\u0661" upper="1" velocity="2" effort="5"', '/@lower', "got '-\u0661'"),
]


def _limit_urdf(limit, free=GOOD_LIMIT):
    return LIMIT_URDF.format(limit=limit, free=free)


@pytest.mark.parametrize('limit, where, fragment', BAD_LIMITS)
def test_bad_limits_of_a_driven_joint_name_the_attribute(limit, where, fragment):
    with pytest.raises(UrdfTransmissionError) as info:
        load_robot_transmissions(_limit_urdf(limit))
    assert info.value.path == LIMIT_PATH + where
    assert fragment in str(info.value)
    assert info.value.line == 5


@pytest.mark.parametrize('limit, where, fragment', BAD_LIMITS)
def test_bad_limits_are_no_limits_with_a_warning_in_lenient_mode(limit, where, fragment):
    with pytest.warns(TransmissionWarning, match='lenient mode'):
        robot = load_robot_transmissions(_limit_urdf(limit), lenient=True)
    assert len(robot.warnings) == 1
    assert robot.warnings[0].startswith(f'{LIMIT_PATH}{where} (line 5): ')
    assert fragment in robot.warnings[0] and 'lenient mode' in robot.warnings[0]
    attribute = where[2:]
    if attribute in ('effort', 'velocity'):
        assert getattr(robot.urdf_joints['j'], attribute) == math.inf
    elif attribute == 'lower':
        assert robot.joint_lower.tolist() == [-math.inf] and robot.joint_upper.tolist() == [1.0]
    elif attribute == 'upper':
        assert robot.joint_lower.tolist() == [-1.0] and robot.joint_upper.tolist() == [math.inf]
    else:  # lower > upper: a command of 0.5 must not be clamped to -1
        assert robot.joint_lower.tolist() == [-math.inf]
        assert robot.joint_upper.tolist() == [math.inf]
    assert math.isfinite(robot.actuator_velocity_limit[0]) == (attribute != 'velocity')


def test_limits_of_joints_without_a_transmission_are_not_checked():
    robot = load_robot_transmissions(_limit_urdf(GOOD_LIMIT, free='velocity="abc" effort="-1"'))
    assert robot.warnings == [] and robot.untransmitted_joints == ['free']
    free = robot.urdf_joints['free']
    assert (free.velocity, free.effort) == (math.inf, math.inf)
    model = read_robot_model(_limit_urdf(GOOD_LIMIT, free='velocity="abc" effort="-1"'))
    assert any("joint[@name='free']/limit/@velocity" in w for w in model.warnings)
    with pytest.raises(BadValueError, match=r"joint\[@name='free'\]/limit/@velocity"):
        read_robot_model(_limit_urdf(GOOD_LIMIT, free='velocity="abc" effort="1"'),
                         check=['free'])


@pytest.mark.parametrize('lenient', [False, True])
def test_missing_limits_are_no_limits_with_a_warning_in_both_modes(lenient):
    """One rule: a missing limit (no <limit>, or no effort/velocity in it) is no limit."""
    robot = load_robot_transmissions(_limit_urdf('lower="-1" upper="1" velocity="2"'),
                                     lenient=lenient, warn=False)
    assert robot.joint_effort_limit.tolist() == [math.inf]
    assert robot.joint_velocity_limit.tolist() == [2.0]
    assert [w.path for w in robot.warnings] == [f'{LIMIT_PATH}/@effort']
    assert "'effort' is missing: no effort limit" in robot.warnings[0]
    assert robot.warnings[0].line == 5
    no_limit = LIMIT_URDF.replace('<limit {limit}/>', '').format(free=GOOD_LIMIT)
    robot = load_robot_transmissions(no_limit, lenient=lenient, warn=False)
    assert robot.joint_lower.tolist() == [-math.inf] and robot.joint_upper.tolist() == [math.inf]
    assert robot.joint_effort_limit.tolist() == [math.inf]
    assert [w.path for w in robot.warnings] == ["/robot[@name='r']/joint[@name='j']"]
    assert 'no <limit>: the revolute joint is unlimited' in robot.warnings[0]
    continuous = no_limit.replace('name="j" type="revolute"', 'name="j" type="continuous"')
    assert load_robot_transmissions(continuous, lenient=lenient, warn=False).warnings == []


def test_zero_effort_and_velocity_limits_mean_no_limit_with_a_warning():
    with pytest.warns(TransmissionWarning, match='read as no limit'):
        robot = load_robot_transmissions(
            _limit_urdf('lower="-1" upper="1" velocity="0" effort="0"'))
    assert robot.joint_effort_limit.tolist() == [math.inf]
    assert robot.joint_velocity_limit.tolist() == [math.inf]
    assert robot.actuator_effort_limit.tolist() == [math.inf]
    assert robot.actuator_velocity_limit.tolist() == [math.inf]
    assert robot.actuator_models['m'].effort_limit == math.inf
    where = [w.split(' (line')[0] for w in robot.warnings]
    assert where == [f'{LIMIT_PATH}/@velocity', f'{LIMIT_PATH}/@effort']
    assert all('read as no limit' in w for w in robot.warnings)


def test_continuous_joints_ignore_lower_and_upper():
    text = _limit_urdf('lower="x" upper="y" velocity="2" effort="5"').replace(
        'name="j" type="revolute"', 'name="j" type="continuous"')
    robot = load_robot_transmissions(text)
    assert robot.joint_lower.tolist() == [-math.inf] and robot.warnings == []


def test_zero_effort_limit_is_no_limit_everywhere():
    t = _t('s', SimpleTransmission(10.0), ['j'], ['m'])
    joint = UrdfJoint('j', 'revolute', -1.0, 1.0, 0.0, 0.0)
    assert (joint.velocity, joint.effort) == (math.inf, math.inf)
    for info in ({}, {'m': ActuatorInfo('m', rotor_inertia=1e-5)}):
        robot = RobotTransmissions([t], [joint], actuator_info=info)
        assert robot.joint_effort_limit.tolist() == [math.inf]
        assert robot.actuator_effort_limit.tolist() == [math.inf]
        assert robot.actuator_models['m'].effort_limit == math.inf
        assert robot.actuator_velocity_limit.tolist() == [math.inf]
        assert robot.actuator_effort_limit_source == ['none']


def test_actuator_effort_limits_always_equal_the_actuator_models(robot):
    models = [robot.actuator_models[n].effort_limit for n in robot.actuator_names]
    assert robot.actuator_effort_limit.tolist() == models
    assert robot.actuator_effort_limit_source[:2] == ['mapped', 'data']


@pytest.mark.parametrize('kwargs, parameter', [
    ({'effort': -1.0}, 'effort'), ({'velocity': math.nan}, 'velocity'),
    ({'effort': 'big'}, 'effort'), ({'lower': 1.0, 'upper': -1.0}, 'lower, upper'),
    ({'lower': math.nan}, 'lower')])
def test_urdf_joint_rejects_unusable_limits(kwargs, parameter):
    with pytest.raises(TransmissionValueError) as info:
        UrdfJoint('j', 'revolute', **kwargs)
    assert info.value.parameter == parameter and "joint 'j'" in str(info.value)


# ---------------------------------------------------------------------------- one exception tree
@pytest.mark.parametrize('urdf', ['/nonexistent.urdf', '', '/', '/nonexistent.urdf.xacro'])
def test_unreadable_urdf_is_a_transmission_error(urdf):
    with pytest.raises(TransmissionFileError) as info:
        load_robot_transmissions(urdf)
    assert isinstance(info.value, OSError)  # what callers caught before
    assert info.value.filename == urdf and str(info.value).startswith(urdf or "''")


def test_unknown_names_are_transmission_errors_and_key_errors(robot):
    with pytest.raises(UnknownNameError) as info:
        robot.transmission('nope')
    assert isinstance(info.value, KeyError) and isinstance(info.value, TransmissionError)
    assert str(info.value) == "no transmission 'nope'; transmissions: simple, diff, gripper, " \
                              'four_bar, sinh'
    with pytest.raises(KeyError, match="no transmission drives joint 'free'"):
        robot.transmission_of_joint('free')
    with pytest.raises(TransmissionError):
        robot.transmission_of_joint('free')


def test_name_keyed_joint_to_actuator_needs_only_the_joints_the_maps_read(robot):
    assert robot.transmission('gripper').transmission.joint_to_actuator_inputs() == (0,)
    assert robot.transmission('sinh').transmission.joint_to_actuator_inputs() == (0, 1)
    gap_only = {'position': {'gap': 0.05}, 'velocity': {'gap': 0.1}, 'effort': {'gap': 2.0}}
    with_passive = {i: {**v, 'p1': 0.3, 'p2': 0.3, 'p3': 0.3, 'p4': 0.3}
                    for i, v in gap_only.items()}
    out = robot.joint_to_actuator(gap_only)
    assert out == robot.joint_to_actuator(with_passive)  # the passive joints are never read
    assert all(set(v) == {'gm'} for v in out.values())
    j = np.zeros(12)
    j[3] = 0.05
    arrays = robot.joint_to_actuator_arrays({'position': j, 'velocity': 2.0 * j,
                                             'effort': 40.0 * j})
    for i in out:
        assert out[i]['gm'] == arrays[i][robot.actuator_index['gm']]
    # the default (every joint) still applies to other transmissions: s2 is read by the effort map
    assert robot.joint_to_actuator({'position': {'s1': 0.5}}) == {'position': {}}


@needs_pr2
def test_pr2_gripper_commands_by_name_need_the_gap_joint_only(pr2):
    out = pr2.joint_to_actuator({'position': {'r_gripper_joint': 0.05},
                                 'effort': {'r_gripper_joint': 10.0}})
    assert set(out['position']) == set(out['effort']) == {'r_gripper_motor'}
    q = np.full(len(pr2.joint_names), np.nan)
    q[pr2.joint_index['r_gripper_joint']] = 0.05
    e = np.where(np.isnan(q), np.nan, 10.0)
    arrays = pr2.joint_to_actuator_arrays({'position': q, 'effort': e})
    k = pr2.actuator_index['r_gripper_motor']
    assert out['position']['r_gripper_motor'] == arrays['position'][k]
    assert out['effort']['r_gripper_motor'] == arrays['effort'][k]


# ---------------------------------------------------------------------------- name-keyed numbers
@pytest.mark.parametrize('value', ['1.5', True, np.bool_(False), None, 1 + 2j, b'1', [1.0]])
def test_name_keyed_maps_reject_values_that_are_not_numbers(robot, value):
    shown = re.escape(repr(value))
    with pytest.raises(TransmissionInputError,
                       match=rf"'velocity' values must be numbers .*'m1' is {shown}"):
        robot.actuator_to_joint({'velocity': {'m1': value}})
    with pytest.raises(TransmissionInputError, match=r"'effort' values must be numbers .*'j1'"):
        robot.joint_to_actuator({'effort': {'j1': value}})


def test_name_keyed_maps_take_python_and_numpy_real_scalars(robot):
    for value in (2, 2.0, np.float32(2.0), np.int64(2), np.array(2.0)):
        out = robot.actuator_to_joint({'position': {'m1': value}})
        assert out['position']['j1'] == pytest.approx(2.0 / 10.0 + 0.5)


# ---------------------------------------------------------------- urdf_parser_py warnings
def _model_with_unknown_tag(name):
    return (f'<robot name="{name}"><link name="a"/><link name="b"/>'
            f'<joint name="{name}_joint" type="fixed"><parent link="a"/><child link="b"/>'
            f'<{name}_tag/></joint></robot>')


def test_robot_models_read_in_parallel_keep_their_own_warnings(monkeypatch):
    from urdf_parser_py import urdf as upp
    import urdf_parser_py.xml_reflection.core as upp_core
    from transmission_plugins.urdf import joints as robot_model
    monkeypatch.setattr(robot_model, '_fallback', getattr(robot_model, '_fallback', None),
                        raising=False)
    outside = []
    monkeypatch.setattr(upp_core, 'on_error', outside.append)
    original = upp.URDF.from_xml_string
    both_parsing = threading.Barrier(2, timeout=10)

    def parse_together(xml):  # both threads are inside urdf_parser_py at the same time
        both_parsing.wait()
        return original(xml)

    monkeypatch.setattr(upp.URDF, 'from_xml_string', parse_together)
    models = {}

    def read(name):
        models[name] = read_robot_model(_model_with_unknown_tag(name))

    threads = [threading.Thread(target=read, args=(n,)) for n in ('left', 'right')]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    for name in ('left', 'right'):
        assert len(models[name].warnings) == 1
        assert f'{name}_tag' in models[name].warnings[0]
    assert outside == []
    upp_core.on_error('from another user of urdf_parser_py')  # not parsing here: passed on
    assert outside == ['from another user of urdf_parser_py']
