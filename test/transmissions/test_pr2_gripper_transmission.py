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
Tests of PR2GripperTransmission against the behaviour of the PR2 C++ plugin.

``_reference_forward`` and ``_reference_inverse`` restate the C++ computation of
``pr2_mechanism_model/src/pr2_gripper_transmission.cpp`` one sample at a time with the ``math``
module, as plainly as possible; the vectorised class must agree with them to 1e-9 relative.
"""

import math
import textwrap
import time
import warnings
import xml.etree.ElementTree as ET

from kernel_spy import KernelCall
from kernel_spy import KernelSpy
import numpy as np
import pytest

from tp_support import PR2_URDF
from transmission_plugins import ActuatorHandle
from transmission_plugins import BadValueError
from transmission_plugins import BrokenReferenceError
from transmission_plugins import IncompleteTransmissionError
from transmission_plugins import JointHandle
from transmission_plugins import PR2GripperTransmission
from transmission_plugins import TransmissionInputError
from transmission_plugins import TransmissionValueError
from transmission_plugins import UrdfTransmissionError
from transmission_plugins.plugins import build_transmission
from transmission_plugins.urdf.records import TransmissionInfo


CTURTLE_URDF = PR2_URDF.with_name('pr2_cturtle_pr2_mechanism_model.urdf')

#: The r_gripper_trans / l_gripper_trans coefficients of pr2.urdf.
PR2 = {'screw_reduction': 0.004, 'gear_ratio': 40.095, 'theta0': 0.0628824676201037,
       'phi0': 0.5185181221457433, 't0': -0.0001914, 'L0': 0.0375528, 'h': 0.0, 'a': 0.0683698,
       'b': 0.043384900000000004, 'r': 0.0915}
OPEN_GAP = 0.09
OPEN_MOTOR = 1405.7  # rad, from the issue
RAD2MR = 1.0 / (2.0 * math.pi)
TOL = 1e-5


def _gripper(mr=1.0, passive=4, simulated=0, **overrides):
    kw = dict(PR2, **overrides)
    return PR2GripperTransmission(**kw, mechanical_reduction=mr, num_passive_joints=passive,
                                  num_simulated_joints=simulated)


def _joints(gap, width):
    gap = np.asarray(gap, dtype=float)
    out = np.zeros(gap.shape + (width,))
    out[..., 0] = gap
    return out


# ------------------------------------------------------------------------------ reference
def _reference_forward(pa, va, ea, p, mr):
    """Return gap and passive (position, velocity, effort) like the C++ propagatePosition."""
    s, g, th0, ph0, t0, L0, h, a, b, r = (p[k] for k in (
        'screw_reduction', 'gear_ratio', 'theta0', 'phi0', 't0', 'L0', 'h', 'a', 'b', 'r'))
    MR = pa / mr * RAD2MR  # noqa: N806
    MR_dot = va / mr * RAD2MR  # noqa: N806
    MT = ea / mr  # noqa: N806
    u = (a * a + b * b - h * h - (L0 + MR * s / g) ** 2) / (2.0 * a * b)
    u = -1.0 if u < -1.0 else 1.0 if u > 1.0 else u
    theta = th0 - ph0 + math.acos(u)
    gap_size = t0 + r * (math.sin(theta) - math.sin(th0))
    MR = MR if MR >= 0.0 else 0.0  # noqa: N806
    u = (a * a + b * b - h * h - (L0 + MR * s / g) ** 2) / (2.0 * a * b)
    u = -1.0 if u < -1.0 else 1.0 if u > 1.0 else u
    tmp_theta = th0 - ph0 + math.acos(u)
    arg = 1.0 - u * u
    arg = arg if arg > TOL else TOL
    du_dMR = -(L0 * s) / (g * a * b) - MR / (a * b) * (s / g) ** 2  # noqa: N806
    dtheta_dMR = -1.0 / math.sqrt(arg) * du_dMR  # noqa: N806
    dt_dMR = r * math.cos(tmp_theta) * dtheta_dMR  # noqa: N806
    gap_velocity = MR_dot * dt_dMR
    gap_effort = MT / dt_dMR / RAD2MR
    return (gap_size * 2.0, gap_velocity * 2.0, gap_effort / 2.0,
            theta - th0, dtheta_dMR * MR_dot, MT / dtheta_dMR / RAD2MR)


def _reference_inverse(pj, vj, ej, p, mr):
    """Return (motor pos, vel, eff) computed like the C++ propagatePositionBackwards/Effort."""
    s, g, th0, ph0, t0, L0, h, a, b, r = (p[k] for k in (
        'screw_reduction', 'gear_ratio', 'theta0', 'phi0', 't0', 'L0', 'h', 'a', 'b', 'r'))
    gap_size = pj / 2.0
    sin_theta = (gap_size - t0) / r + math.sin(th0)
    sin_theta = 1.0 if sin_theta > 1.0 else -1.0 if sin_theta < -1.0 else sin_theta
    theta = math.asin(sin_theta)
    arg = -2.0 * a * b * math.cos(theta - th0 + ph0) - h * h + a * a + b * b
    if arg > 0.0:
        MR = g / s * (math.sqrt(arg) - L0)  # noqa: N806
        dMR_dtheta = g / (2.0 * s) / math.sqrt(arg) * 2.0 * a * b * math.sin(  # noqa: N806
            theta + ph0 - th0)
    else:
        MR = g / s * (0.0 - L0)  # noqa: N806
        dMR_dtheta = 0.0  # noqa: N806
    gap_size = t0 + r * (math.sin(theta) - math.sin(th0))
    u = (gap_size - t0) / r + math.sin(th0)
    arg2 = 1.0 - u * u
    arg2 = arg2 if arg2 > TOL else TOL
    dtheta_dt = 1.0 / math.sqrt(arg2) / r
    dMR_dt = abs(dMR_dtheta) * dtheta_dt  # noqa: N806
    joint_rate = vj / 2.0 * dtheta_dt
    return (MR * mr / RAD2MR, joint_rate * dMR_dtheta * mr / RAD2MR,
            2.0 * ej / dMR_dt * RAD2MR * mr)


def _assert_rel(actual, expected, rtol=1e-9):
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=1e-300)


# ------------------------------------------------------------------------------ preconditions
@pytest.mark.parametrize('name', sorted(PR2))
@pytest.mark.parametrize('bad', [float('nan'), float('inf'), '0.1', None, True])
def test_non_numeric_or_non_finite_coefficient_is_rejected(name, bad):
    with pytest.raises(TransmissionValueError) as e:
        _gripper(**{name: bad})
    assert e.value.parameter == name
    assert repr(bad) in str(e.value) and 'PR2GripperTransmission' in str(e.value)


@pytest.mark.parametrize('name, bad', [
    ('a', 0.0), ('a', -0.1), ('b', 0.0), ('r', -1.0), ('h', -0.001),
    ('screw_reduction', 0.0), ('gear_ratio', 0)])
def test_non_physical_coefficient_is_rejected(name, bad):
    with pytest.raises(TransmissionValueError, match=name):
        _gripper(**{name: bad})


@pytest.mark.parametrize('kwargs', [
    {'mechanical_reduction': 0.0}, {'num_passive_joints': -1}, {'num_passive_joints': 1.5},
    {'num_passive_joints': True}, {'num_simulated_joints': 3},
    {'num_simulated_joints': 1, 'simulated_reduction': 0.0}])
def test_bad_options_are_rejected(kwargs):
    with pytest.raises(TransmissionValueError, match=list(kwargs)[-1]):
        PR2GripperTransmission(**PR2, **kwargs)


def test_valid_construction_and_queries():
    t = _gripper(mr=2.0, passive=6, simulated=2)
    assert t.num_actuators() == 1 and t.num_joints() == 9
    assert t.num_passive_joints() == 6 and t.num_simulated_joints() == 2
    assert t.requires_position_state() and not t.is_linear()
    assert t.get_actuator_reduction() == 2.0
    assert t.parameters() == dict(PR2, mechanical_reduction=2.0)
    assert t.JOINT_ROLES[0] == 'gap_joint' and len(t.JOINT_ROLES) == 9
    assert 'passive' in str(t) and 'PR2GripperTransmission(' in repr(t)
    assert PR2GripperTransmission(**PR2).num_joints() == 5  # default: 4 passive joints


# ------------------------------------------------------------------------------ real PR2 values
def test_pr2_motor_zero_is_closed_and_open_gap_is_about_1405_7_rad():
    t = _gripper()
    gap = t.actuator_to_joint({'position': [0.0]})['position'][0]
    assert abs(gap) < 1e-6
    motor = t.joint_to_actuator({'position': _joints(OPEN_GAP, 5)})['position'][0]
    assert motor == pytest.approx(OPEN_MOTOR, abs=0.05)
    closed = t.joint_to_actuator({'position': _joints(0.0, 5)})['position'][0]
    assert abs(closed) < 0.01


# ------------------------------------------------------------------------------ C++ agreement
@pytest.mark.parametrize('mr', [1.0, 2.5, -0.8])
def test_agrees_with_scalar_reference_over_working_range(mr):
    rng = np.random.default_rng(1234)
    t = _gripper(mr=mr)
    pa = rng.uniform(0.0, OPEN_MOTOR, 200) * mr
    va = rng.uniform(-50.0, 50.0, 200)
    ea = rng.uniform(-2.0, 2.0, 200)
    out = t.actuator_to_joint({'position': pa[:, None], 'velocity': va[:, None],
                               'effort': ea[:, None]})
    ref = np.array([_reference_forward(*x, PR2, mr) for x in zip(pa, va, ea)])
    for col, key in ((0, 'position'), (1, 'velocity'), (2, 'effort')):
        _assert_rel(out[key][:, 0], ref[:, col])
    for col, key in ((3, 'position'), (4, 'velocity'), (5, 'effort')):
        for j in range(1, 5):
            _assert_rel(out[key][:, j], ref[:, col])

    pj = rng.uniform(0.0, OPEN_GAP, 200)
    vj = rng.uniform(-0.2, 0.2, 200)
    ej = rng.uniform(-100.0, 100.0, 200)
    back = t.joint_to_actuator({'position': _joints(pj, 5), 'velocity': _joints(vj, 5),
                                'effort': _joints(ej, 5)})
    ref = np.array([_reference_inverse(*x, PR2, mr) for x in zip(pj, vj, ej)])
    for col, key in enumerate(('position', 'velocity', 'effort')):
        _assert_rel(back[key][:, 0], ref[:, col])


@pytest.mark.parametrize('mr, passive, simulated',
                         [(1.0, 3, 2), (-3.5, 3, 2), (1.0, 0, 1), (2.0, 2, 0)])
def test_every_joint_count_agrees_with_the_reference(mr, passive, simulated):
    """Gap, each passive joint and the simulated joints (always 0), one sample and a batch."""
    t = _gripper(mr=mr, passive=passive, simulated=simulated)
    pa = np.array([0.0, 350.0, 700.0, 1400.0, -50.0]) * mr
    ref = np.array([_reference_forward(p, 3.0, 0.5, PR2, mr) for p in pa])
    for rows in (slice(None), 2):
        out = t.actuator_to_joint({'position': pa[rows, None], 'velocity': np.full_like(
            pa[rows, None], 3.0), 'effort': np.full_like(pa[rows, None], 0.5)})
        for i, key in enumerate(('position', 'velocity', 'effort')):
            assert out[key].shape[-1] == 1 + passive + simulated
            _assert_rel(out[key][..., 0], ref[rows, i])
            for j in range(1, 1 + passive):
                _assert_rel(out[key][..., j], ref[rows, 3 + i])
            assert np.all(out[key][..., 1 + passive:] == 0.0)
        back = t.joint_to_actuator(out)  # motor 0: a gap of about 1e-7 m, hence atol
        np.testing.assert_allclose(back['position'][..., 0], pa[rows], rtol=1e-8, atol=1e-6)


def test_agrees_with_scalar_reference_outside_working_range():
    """Both directions, through every clamp: squeezed past zero, past u = -1, past asin 1."""
    t = _gripper()
    pa = np.concatenate([np.linspace(-3000.0, 0.0, 41), np.linspace(1405.0, 9000.0, 41)])
    out = t.actuator_to_joint({'position': pa[:, None], 'velocity': np.ones((82, 1)),
                               'effort': np.ones((82, 1))})
    ref = np.array([_reference_forward(x, 1.0, 1.0, PR2, 1.0) for x in pa])
    for col, key in ((0, 'position'), (1, 'velocity'), (2, 'effort')):
        _assert_rel(out[key][:, 0], ref[:, col])
    _assert_rel(out['position'][:, 1], ref[:, 3])
    pj = np.linspace(-0.3, 0.5, 81)
    back = t.joint_to_actuator({'position': _joints(pj, 5), 'velocity': _joints(1.0, 5)[None]
                                .repeat(81, 0), 'effort': _joints(np.ones(81), 5)})
    ref = np.array([_reference_inverse(x, 1.0, 1.0, PR2, 1.0) for x in pj])
    for col, key in enumerate(('position', 'velocity', 'effort')):
        _assert_rel(back[key][:, 0], ref[:, col])


# the kernels stay within rounding of the C++ formulas: velocities and efforts 1e-12 relative
# sample by sample over the working range (motor 0 to fully open, gap 0 to 0.09 m), 1e-11
# through the clamps and past them, where dt/dM crosses 0 and 1 - u^2 nears its floor;
# positions 1e-12 of the largest value (normwise): the gap 2(t0 + r(sin(theta) - sin(theta0)))
# cancels to about 1e-7 m at motor 0, where either formula has only its absolute rounding error
def _assert_bounded(got, ref, rtol, what):
    """Velocities and efforts: ``rtol`` sample by sample; positions: 1e-12 normwise."""
    got, ref = np.asarray(got), np.asarray(ref)
    assert np.isfinite(ref).all(), what  # the ranges below stay where the C++ is finite
    if what.startswith('position'):
        error = np.abs(got - ref).max() / np.abs(ref).max()
        assert error <= 1e-12, f'{what}: normwise {error:.3g}'
    else:
        error = (np.abs(got - ref) / np.abs(ref)).max()
        assert error <= rtol, f'{what}: relative {error:.3g}'


def _forward(t, pa, mr, rtol):
    rng = np.random.default_rng(7)
    va, ea = rng.uniform(-50.0, 50.0, pa.size), rng.uniform(-2.0, 2.0, pa.size)
    out = t.actuator_to_joint({'position': pa[:, None], 'velocity': va[:, None],
                               'effort': ea[:, None]})
    ref = np.array([_reference_forward(*x, PR2, mr) for x in zip(pa, va, ea)])
    for i, kind in enumerate(('position', 'velocity', 'effort')):
        _assert_bounded(out[kind][:, 0], ref[:, i], rtol, f'{kind} of the gap')
        for j in range(1, 1 + t.num_passive_joints()):
            _assert_bounded(out[kind][:, j], ref[:, 3 + i], rtol, f'{kind} of passive joint {j}')


def _inverse(t, gap, mr, rtol):
    rng = np.random.default_rng(8)
    vj, ej = rng.uniform(-0.2, 0.2, gap.size), rng.uniform(-100.0, 100.0, gap.size)
    width = t.num_joints()
    back = t.joint_to_actuator({'position': _joints(gap, width), 'velocity': _joints(vj, width),
                                'effort': _joints(ej, width)})
    ref = np.array([_reference_inverse(*x, PR2, mr) for x in zip(gap, vj, ej)])
    for i, kind in enumerate(('position', 'velocity', 'effort')):
        _assert_bounded(back[kind][:, 0], ref[:, i], rtol, f'{kind} of the motor')


@pytest.mark.parametrize('mr', [1.0, 2.5, -3.5])
def test_within_rounding_of_the_cpp_formulas_over_the_working_range(mr):
    t = _gripper(mr=mr)
    _forward(t, np.linspace(0.0, OPEN_MOTOR, 4001) * mr, mr, 1e-12)
    _inverse(t, np.linspace(0.0, OPEN_GAP, 4001), mr, 1e-12)


def test_within_rounding_of_the_cpp_formulas_through_the_clamps():
    t = _gripper()
    # squeezed past closed (Jacobians at M = 0), opened past u = -1, and dt/dM crossing 0
    pa = np.concatenate([np.linspace(-3000.0, 0.0, 1001), np.linspace(1405.0, 9000.0, 3001)])
    _forward(t, pa, 1.0, 1e-11)
    # past sin(theta) = 1 (the arcsine's clamp) and below the closed gap
    _inverse(t, np.linspace(-0.3, 0.5, 3001), 1.0, 1e-11)


# ------------------------------------------------------------------------------ round trips
@pytest.mark.parametrize('mr', [1.0, 3.0])
def test_actuator_joint_actuator_round_trip(mr):
    rng = np.random.default_rng(1234)
    t = _gripper(mr=mr)
    pa = rng.uniform(0.0, OPEN_MOTOR * mr, (500, 1))
    va = rng.uniform(-100.0, 100.0, (500, 1))
    ea = rng.uniform(-3.0, 3.0, (500, 1))
    joint = t.actuator_to_joint({'position': pa, 'velocity': va, 'effort': ea})
    pa[:], va[:], ea[:] = 1337.0, 1337.0, 1337.0  # the inverse cannot be a no-op
    back = t.joint_to_actuator(joint)
    rng = np.random.default_rng(1234)
    _assert_rel(back['position'], rng.uniform(0.0, OPEN_MOTOR * mr, (500, 1)), 1e-8)
    _assert_rel(back['velocity'], rng.uniform(-100.0, 100.0, (500, 1)), 1e-8)
    _assert_rel(back['effort'], rng.uniform(-3.0, 3.0, (500, 1)), 1e-8)


def test_joint_actuator_joint_round_trip():
    rng = np.random.default_rng(1234)
    t = _gripper(passive=2)
    gap = rng.uniform(0.0, OPEN_GAP, 500)
    joint = {'position': _joints(gap, 3), 'velocity': _joints(rng.uniform(-0.2, 0.2, 500), 3),
             'effort': _joints(rng.uniform(-50.0, 50.0, 500), 3)}
    motor = t.joint_to_actuator(joint)
    again = t.actuator_to_joint(motor)
    for key in ('position', 'velocity', 'effort'):
        np.testing.assert_allclose(again[key][:, 0], joint[key][:, 0], rtol=1e-8, atol=1e-14)


# ------------------------------------------------------------------------------ Jacobians
def test_actuator_to_joint_jacobian_matches_finite_differences_for_every_joint():
    t = _gripper(mr=1.5, passive=4, simulated=2)
    pa = np.linspace(1.0, OPEN_MOTOR * 1.5, 60)[:, None]
    step = 1e-3
    fd = (t.actuator_to_joint({'position': pa + step})['position']
          - t.actuator_to_joint({'position': pa - step})['position']) / (2.0 * step)
    jac = t.actuator_to_joint_jacobian(pa)
    assert jac.shape == (60, 7, 1)
    np.testing.assert_allclose(jac[..., 0], fd, rtol=1e-6, atol=1e-12)
    assert np.all(jac[:, 5:, 0] == 0.0)  # simulated joints
    vel = t.actuator_to_joint({'position': pa, 'velocity': np.full_like(pa, 2.0)})['velocity']
    np.testing.assert_allclose(vel, 2.0 * jac[..., 0], rtol=1e-14)


def test_joint_to_actuator_jacobian_matches_finite_differences_for_every_joint():
    t = _gripper(mr=1.5, passive=3)
    q = _joints(np.linspace(0.001, 0.089, 50), 4)
    q[:, 1:] = 0.2
    jac = t.joint_to_actuator_jacobian(q)
    assert jac.shape == (50, 1, 4)
    for j, step in ((0, 1e-7), (1, 1e-4), (2, 1e-4), (3, 1e-4)):
        dq = np.zeros(4)
        dq[j] = step
        fd = (t.joint_to_actuator({'position': q + dq})['position']
              - t.joint_to_actuator({'position': q - dq})['position']) / (2.0 * step)
        np.testing.assert_allclose(jac[:, 0, j], fd[:, 0], rtol=1e-6, atol=1e-9)
    assert np.all(jac[:, 0, 1:] == 0.0)
    forward = t.actuator_to_joint_jacobian(t.joint_to_actuator({'position': q})['position'])
    np.testing.assert_allclose(jac[:, 0, 0] * forward[:, 0, 0], 1.0, rtol=1e-8)


def test_effort_maps_follow_the_velocity_jacobians():
    t = _gripper()
    pa = np.linspace(10.0, 1400.0, 20)[:, None]
    jac = t.actuator_to_joint_jacobian(pa)[..., 0]
    eff = t.actuator_to_joint({'position': pa, 'effort': np.ones_like(pa)})['effort']
    np.testing.assert_allclose(eff[:, 0], 1.0 / jac[:, 0], rtol=1e-12)
    # each passive joint reports the full motor torque through dtheta/dM, as the C++ does
    np.testing.assert_allclose(eff[:, 1:], 1.0 / jac[:, 1:], rtol=1e-12)


# ------------------------------------------------------------------------------ power
@pytest.mark.parametrize('direction', ['forward', 'backward'])
def test_power_is_conserved_on_the_gap_joint_with_unit_reduction(direction):
    rng = np.random.default_rng(1234)
    t = _gripper(mr=1.0)
    if direction == 'forward':
        act = {'position': rng.uniform(0.0, OPEN_MOTOR, (300, 1)),
               'velocity': rng.uniform(-80.0, 80.0, (300, 1)),
               'effort': rng.uniform(-2.0, 2.0, (300, 1))}
        joint = t.actuator_to_joint(act)
    else:
        joint = {'position': _joints(rng.uniform(0.0, OPEN_GAP, 300), 5),
                 'velocity': _joints(rng.uniform(-0.2, 0.2, 300), 5),
                 'effort': _joints(rng.uniform(-80.0, 80.0, 300), 5)}
        act = t.joint_to_actuator(joint)
    np.testing.assert_allclose(joint['effort'][:, 0] * joint['velocity'][:, 0],
                               act['effort'][:, 0] * act['velocity'][:, 0], rtol=1e-9)


def test_mechanical_reduction_scales_power_like_the_cpp():
    t = _gripper(mr=2.0)
    act = {'position': [[600.0]], 'velocity': [[10.0]], 'effort': [[1.0]]}
    joint = t.actuator_to_joint(act)
    power = joint['effort'][0, 0] * joint['velocity'][0, 0]
    assert power == pytest.approx(10.0 / 4.0, rel=1e-12)


# ------------------------------------------------------------------------------ clamps
def _u(pa, mr=1.0):
    p = PR2
    mrev = pa / mr * RAD2MR
    return (p['a'] ** 2 + p['b'] ** 2 - p['h'] ** 2
            - (p['L0'] + mrev * p['screw_reduction'] / p['gear_ratio']) ** 2) / (
                2.0 * p['a'] * p['b'])


def test_u_is_clamped_to_minus_one_when_opened_too_far():
    t = _gripper()
    pa = np.array([[6000.0], [9000.0]])
    assert np.all(_u(pa) < -1.0)
    gap = t.actuator_to_joint({'position': pa})['position']
    theta = PR2['theta0'] - PR2['phi0'] + math.pi
    expected = 2.0 * (PR2['t0'] + PR2['r'] * (math.sin(theta) - math.sin(PR2['theta0'])))
    np.testing.assert_allclose(gap[:, 0], expected, rtol=1e-12)
    np.testing.assert_allclose(gap[:, 1], theta - PR2['theta0'], rtol=1e-12)


def test_u_is_clamped_to_plus_one_when_squeezed_far_past_closed():
    t = _gripper()
    pa = np.array([[-2000.0], [-3000.0]])
    assert np.all(_u(pa) > 1.0)
    passive = t.actuator_to_joint({'position': pa})['position'][:, 1]
    np.testing.assert_allclose(passive, -PR2['phi0'], rtol=1e-12)


def test_one_minus_u_squared_is_floored_at_tol():
    t = _gripper()
    pa = np.array([[6000.0]])
    mrev = 6000.0 * RAD2MR
    p = PR2
    du = (-(p['L0'] * p['screw_reduction']) / (p['gear_ratio'] * p['a'] * p['b'])
          - mrev / (p['a'] * p['b']) * (p['screw_reduction'] / p['gear_ratio']) ** 2)
    jac = t.actuator_to_joint_jacobian(pa)
    assert jac[0, 1, 0] == pytest.approx(-du / math.sqrt(TOL) * RAD2MR, rel=1e-12)
    assert np.all(np.isfinite(jac))


def test_jacobian_is_evaluated_at_non_negative_motor_revolutions():
    t = _gripper()
    pa = np.array([[-100.0], [-10.0], [0.0]])
    jac = t.actuator_to_joint_jacobian(pa)
    np.testing.assert_array_equal(jac[0], jac[2])
    np.testing.assert_array_equal(jac[1], jac[2])
    gap = t.actuator_to_joint({'position': pa})['position'][:, 0]
    assert gap[0] < gap[1] < 0.0 < abs(gap[2]) + 1e-6  # squeezing past zero: negative gap
    vel = t.actuator_to_joint({'position': pa, 'velocity': np.ones((3, 1))})['velocity']
    np.testing.assert_array_equal(vel[0], vel[2])


def test_inverse_clamps_sin_theta_and_floors_its_jacobian():
    t = _gripper()
    q = _joints([0.4, 0.6], 5)  # far beyond the linkage: sin(theta) clamped to 1
    motor = t.joint_to_actuator({'position': q})['position']
    assert motor[0, 0] == motor[1, 0]
    jac = t.joint_to_actuator_jacobian(q)
    p = PR2
    arg = (p['a'] ** 2 + p['b'] ** 2 - p['h'] ** 2
           - 2 * p['a'] * p['b'] * math.cos(math.pi / 2 - p['theta0'] + p['phi0']))
    dm_dtheta = (p['gear_ratio'] / (2 * p['screw_reduction']) / math.sqrt(arg) * 2 * p['a']
                 * p['b'] * math.sin(math.pi / 2 + p['phi0'] - p['theta0']))
    expected = dm_dtheta / math.sqrt(TOL) / p['r'] / 2.0 / RAD2MR
    np.testing.assert_allclose(jac[:, 0, 0], expected, rtol=1e-9)


# ------------------------------------------------------------------------------ arrays
def test_batch_arrays_keep_their_leading_axes():
    t = _gripper(passive=4, simulated=1)
    rng = np.random.default_rng(1234)
    pa = rng.uniform(0.0, OPEN_MOTOR, (3, 4, 1))
    out = t.actuator_to_joint({'position': pa, 'velocity': pa / 10.0, 'effort': pa / 1000.0})
    assert all(v.shape == (3, 4, 6) for v in out.values())
    flat = t.actuator_to_joint({'position': pa.reshape(12, 1), 'velocity': pa.reshape(12, 1)
                                / 10.0, 'effort': pa.reshape(12, 1) / 1000.0})
    for key in out:
        np.testing.assert_array_equal(out[key].reshape(12, 6), flat[key])
    assert np.all(out['position'][..., 5] == 0.0)
    assert t.actuator_to_joint_jacobian(pa).shape == (3, 4, 6, 1)
    back = t.joint_to_actuator(out)
    assert back['position'].shape == (3, 4, 1)


def test_large_batches_are_vectorised():
    t = _gripper()
    pa = np.linspace(0.0, OPEN_MOTOR, 200_000)[:, None]
    start = time.perf_counter()
    out = t.actuator_to_joint({'position': pa, 'velocity': pa, 'effort': pa})
    t.joint_to_actuator(out)
    assert time.perf_counter() - start < 2.0  # a Python loop would take several seconds


def test_passive_and_simulated_joint_commands_are_ignored():
    t = _gripper(passive=4, simulated=2)
    q = _joints([0.03], 7)
    ref = t.joint_to_actuator({'position': q, 'velocity': q, 'effort': q})
    q[:, 1:] = np.nan
    out = t.joint_to_actuator({'position': q, 'velocity': q, 'effort': q})
    for key in ref:
        np.testing.assert_array_equal(out[key], ref[key])


def test_velocity_and_effort_need_the_position():
    t = _gripper()
    with pytest.raises(TransmissionInputError, match='position'):
        t.actuator_to_joint({'velocity': [[1.0]]})
    with pytest.raises(TransmissionInputError, match='position'):
        t.joint_to_actuator({'effort': _joints([1.0], 5)})
    with pytest.raises(TransmissionInputError, match='position'):
        t.actuator_to_joint_jacobian()
    with pytest.raises(TransmissionInputError, match='5 entries'):
        t.joint_to_actuator_jacobian([0.01])


def test_absolute_position_and_torque_use_the_same_maps():
    t = _gripper()
    a = t.actuator_to_joint({'position': [[700.0]], 'effort': [[1.0]]})
    b = t.actuator_to_joint({'absolute_position': [[700.0]], 'torque': [[1.0]]})
    np.testing.assert_array_equal(a['position'], b['absolute_position'])
    np.testing.assert_array_equal(a['effort'], b['torque'])


# ------------------------------------------------------------------------------ NaN and inf
def test_nan_inputs_propagate_without_errors_or_warnings():
    t = _gripper()
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        out = t.actuator_to_joint({'position': [[np.nan], [700.0]],
                                   'velocity': [[1.0], [np.nan]], 'effort': [[1.0], [1.0]]})
        assert np.all(np.isnan(out['position'][0])) and np.all(np.isnan(out['velocity'][0]))
        assert np.all(np.isnan(out['effort'][0]))  # the C++ would use the Jacobian at M = 0
        assert np.all(np.isfinite(out['position'][1])) and np.all(np.isnan(out['velocity'][1]))
        back = t.joint_to_actuator({'position': _joints([np.nan], 5),
                                    'effort': _joints([1.0], 5)})
        assert np.isnan(back['position'][0, 0]) and np.isnan(back['effort'][0, 0])
        assert np.all(np.isnan(t.actuator_to_joint_jacobian([[np.nan]])[0, :5]))


def test_infinite_inputs_saturate_or_give_inf_but_never_raise():
    t = _gripper()
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        out = t.actuator_to_joint({'position': [[np.inf], [-np.inf]],
                                   'velocity': [[1.0], [1.0]], 'effort': [[1.0], [1.0]]})
        assert np.all(np.isfinite(out['position']))  # saturated through the u clamp
        assert np.all(np.isfinite(out['velocity'][1]))  # the Jacobian is taken at M = 0
        back = t.joint_to_actuator({'position': _joints([np.inf, -np.inf], 5),
                                    'velocity': _joints([1.0, 1.0], 5)})
        assert np.all(np.isfinite(back['position']))  # sin(theta) clamped


# ------------------------------------------------------------------------------ handles
def test_handle_style_matches_functional_style():
    t = _gripper(passive=2)
    joints = [JointHandle(n, i) for n in ('gap', 'f1', 'f2') for i in ('position', 'effort')]
    actuators = [ActuatorHandle('motor', 'position', 900.0), ActuatorHandle('motor', 'effort',
                                                                            0.5)]
    t.configure(joints, actuators)
    t.actuator_to_joint()
    ref = t.actuator_to_joint({'position': [900.0], 'effort': [0.5]})
    values = {(h.name, h.interface): h.value for h in joints}
    assert values[('gap', 'position')] == pytest.approx(ref['position'][0])
    assert values[('f2', 'effort')] == pytest.approx(ref['effort'][2])
    for h in actuators:
        h.value = 0.0
    t.joint_to_actuator()
    assert actuators[0].value == pytest.approx(900.0, rel=1e-9)
    assert actuators[1].value == pytest.approx(0.5, rel=1e-9)


# ------------------------------------------------------------------------------ URDF
def _urdf_root(path):
    if not path.is_file():
        pytest.skip(f'{path} is not available (the shared URDF corpus is outside the repo)')
    lxml_etree = pytest.importorskip('lxml.etree')
    return lxml_etree.parse(str(path)).getroot()


def _info(element, lenient=False, name=None):
    name = name or element.get('name')
    return TransmissionInfo(name=name, type=element.get('type') or '',
                            path=f"/robot[@name='r']/transmission[@name='{name}']",
                            element=element, lenient=lenient)


def _xml(text):
    return ET.fromstring(textwrap.dedent(text).strip())


GAP_ATTRS = ' '.join(f'{k}="{v!r}"' for k, v in PR2.items())


def _gripper_xml(gap_attrs=GAP_ATTRS, extra='', actuator='<actuator name="m"/>'):
    return _xml(f"""
        <transmission name="g" type="pr2_mechanism_model/PR2GripperTransmission">
          {actuator}
          <gap_joint name="gap" mechanical_reduction="1.0" {gap_attrs}/>
          <passive_joint name="p1"/>
          <passive_joint name="p2"/>
          {extra}
        </transmission>""")


@pytest.mark.parametrize('side', ['r', 'l'])
def test_from_info_on_pr2_urdf(side):
    root = _urdf_root(PR2_URDF)
    element = root.find(f"transmission[@name='{side}_gripper_trans']")
    wiring = PR2GripperTransmission.from_info(_info(element))
    t = wiring.transmission
    assert wiring.actuator_names == (f'{side}_gripper_motor',)
    assert wiring.joint_names == (
        f'{side}_gripper_joint', f'{side}_gripper_l_finger_joint',
        f'{side}_gripper_r_finger_joint', f'{side}_gripper_r_finger_tip_joint',
        f'{side}_gripper_l_finger_tip_joint', f'{side}_gripper_motor_screw_joint',
        f'{side}_gripper_motor_slider_joint')
    assert t.parameters() == dict(PR2, mechanical_reduction=1.0)
    assert t.num_passive_joints() == 4 and t.num_simulated_joints() == 2
    assert t.get_simulated_reduction() == 3141.6
    motor = t.joint_to_actuator({'position': _joints(OPEN_GAP, 7)})['position'][0]
    assert motor == pytest.approx(OPEN_MOTOR, abs=0.05)


def test_from_info_on_the_2010_pr2_urdf():
    root = _urdf_root(CTURTLE_URDF)
    element = root.find("transmission[@name='r_gripper_trans']")
    wiring = PR2GripperTransmission.from_info(_info(element))
    assert wiring.transmission.num_passive_joints() == 6
    assert len(wiring.joint_names) == 7


def test_from_info_minimal_inline():
    wiring = PR2GripperTransmission.from_info(_info(_gripper_xml(
        extra='<use_simulated_gripper_joint/><!-- a comment -->'
              '<simulated_actuated_joint name="screw" simulated_reduction="100"/>')))
    assert wiring.joint_names == ('gap', 'p1', 'p2', 'screw')
    assert wiring.transmission.num_simulated_joints() == 1


def test_missing_coefficient_is_an_error_by_default():
    attrs = GAP_ATTRS.replace('gear_ratio="40.095"', '')
    with pytest.raises(IncompleteTransmissionError) as e:
        PR2GripperTransmission.from_info(_info(_gripper_xml(attrs)))
    assert e.value.path.endswith("gap_joint[@name='gap']/@gear_ratio")
    assert '29.16' in str(e.value) and "transmission[@name='g']" in str(e.value)


def test_missing_coefficient_uses_alpha2_default_when_lenient():
    attrs = GAP_ATTRS.replace('gear_ratio="40.095"', '')
    with pytest.warns(UserWarning, match='gear_ratio'):
        wiring = PR2GripperTransmission.from_info(_info(_gripper_xml(attrs), lenient=True))
    assert wiring.transmission.parameters()['gear_ratio'] == 29.16


def test_missing_mechanical_reduction_is_an_error_even_when_lenient():
    element = _gripper_xml()
    element.find('gap_joint').attrib.pop('mechanical_reduction')
    with pytest.raises(IncompleteTransmissionError, match='mechanical_reduction'):
        PR2GripperTransmission.from_info(_info(element, lenient=True))


@pytest.mark.parametrize('attr, value, fragment', [
    ('screw_reduction', 'abc', "'abc'"), ('a', 'nan', "'nan'"), ('a', '0', '> 0'),
    ('h', '-1', '>= 0'), ('mechanical_reduction', '0', 'non-zero')])
def test_bad_coefficient_value(attr, value, fragment):
    element = _gripper_xml()
    element.find('gap_joint').set(attr, value)
    with pytest.raises(BadValueError) as e:
        PR2GripperTransmission.from_info(_info(element))
    assert e.value.path.endswith(f'/@{attr}') and fragment in str(e.value)


def test_unexpected_child():
    with pytest.raises(BadValueError, match=r'unexpected element <compensator>'):
        build_transmission(_info(_gripper_xml(extra='<compensator/>')))


def test_unexpected_gap_joint_attribute():
    with pytest.raises(BadValueError, match=r"/@A: unexpected attribute 'A'"):
        build_transmission(_info(_gripper_xml(GAP_ATTRS + ' A="0.05"')))


def test_duplicate_gap_joint():
    with pytest.raises(BadValueError, match='gap_joint.*2 times'):
        PR2GripperTransmission.from_info(_info(_gripper_xml(
            extra=f'<gap_joint name="gap2" mechanical_reduction="1" {GAP_ATTRS}/>')))


def test_missing_actuator():
    with pytest.raises(IncompleteTransmissionError, match='missing <actuator>'):
        PR2GripperTransmission.from_info(_info(_gripper_xml(actuator='')))


def test_missing_passive_joint_name():
    with pytest.raises(IncompleteTransmissionError, match="passive_joint.*'name' is missing"):
        PR2GripperTransmission.from_info(_info(_gripper_xml(extra='<passive_joint/>')))


def test_duplicate_joint_name():
    with pytest.raises(BrokenReferenceError, match="'p1' is already used"):
        PR2GripperTransmission.from_info(_info(_gripper_xml(extra='<passive_joint name="p1"/>')))


def test_simulated_joint_without_reduction():
    with pytest.raises(IncompleteTransmissionError, match='simulated_reduction'):
        PR2GripperTransmission.from_info(_info(_gripper_xml(
            extra='<simulated_actuated_joint name="s"/>')))


def test_reduction_inside_actuator_is_rejected():
    with pytest.raises(BadValueError, match='gap_joint mechanical_reduction'):
        PR2GripperTransmission.from_info(_info(_gripper_xml(
            actuator='<actuator name="m"><mechanicalReduction>2</mechanicalReduction>'
                     '</actuator>')))


def test_record_without_element():
    info = TransmissionInfo(name='g', type='pr2_mechanism_model/PR2GripperTransmission',
                            path='/robot/transmission')
    with pytest.raises(UrdfTransmissionError, match='raw <transmission> element'):
        PR2GripperTransmission.from_info(info)


# ------------------------------------------------------------------------------ per-call state
#: Motor positions and gaps at and past the ends of the linkage, non-finite ones included.
EDGE_MOTOR = [0.0, -0.0, OPEN_MOTOR, -100.0, -3000.0, 6000.0, 1e308, -1e308, math.nan, math.inf,
              -math.inf]
EDGE_GAP = [0.0, -0.0, OPEN_GAP, -0.01, 0.4, -0.4, 1e308, -1e308, math.nan, math.inf, -math.inf]


def _assert_paths_agree(small, large):
    for key in large:
        # inf and NaN must match exactly, finite values to 1e-12 relative
        np.testing.assert_allclose(small[key], large[key], rtol=1e-12, atol=0.0, err_msg=key)


def _sprinkled(rng, n):
    x = rng.normal(scale=100.0, size=n)
    x[::7] = math.nan
    x[::11] = math.inf
    x[::13] = -math.inf
    x[::17] = 0.0
    return x


@pytest.mark.parametrize('mr', [1.0, -3.5])
def test_single_samples_and_pairs_equal_the_batch(mr):
    """Batch = single samples (one stacked pair: the robot's two identical grippers)."""
    t = _gripper(mr, passive=4, simulated=2)
    rng = np.random.default_rng(1234)
    pa = np.concatenate([rng.uniform(-3000.0, 9000.0, 200), EDGE_MOTOR])[:, None]
    n = len(pa)
    a = {'position': pa, 'velocity': _sprinkled(rng, n)[:, None],
         'effort': _sprinkled(rng, n)[:, None]}
    gap = np.concatenate([rng.uniform(-0.05, 0.2, 200), EDGE_GAP])
    j = {'position': _joints(gap, 7), 'velocity': _joints(_sprinkled(rng, n), 7),
         'effort': _joints(_sprinkled(rng, n), 7)}
    forward, inverse = t.actuator_to_joint(a), t.joint_to_actuator(j)
    jac_a, jac_j = t.actuator_to_joint_jacobian(pa), t.joint_to_actuator_jacobian(j['position'])
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        for i in range(n):
            # one sample (batch shape ()) and two (two identical grippers stacked by the robot)
            for rows in (i, slice(i, i + 2)):
                _assert_paths_agree(t.actuator_to_joint({k: v[rows] for k, v in a.items()}),
                                    {k: v[rows] for k, v in forward.items()})
                _assert_paths_agree(t.joint_to_actuator({k: v[rows] for k, v in j.items()}),
                                    {k: v[rows] for k, v in inverse.items()})
                _assert_paths_agree({'a': t.actuator_to_joint_jacobian(pa[rows]),
                                     'j': t.joint_to_actuator_jacobian(j['position'][rows])},
                                    {'a': jac_a[rows], 'j': jac_j[rows]})


def test_single_samples_divide_by_zero_like_batches_without_warnings():
    # L0 = 0: dtheta/dM and dt/dM are 0 at M <= 0; h > a + b: no real linkage, dM/dtheta = 0
    for t in (_gripper(L0=0.0, passive=2), _gripper(h=0.2, passive=2)):
        pa = np.array([[-1.0], [0.0], [-5.0], [1.0]])
        effort = np.array([[1.0], [-1.0], [0.0], [math.nan]])
        q = _joints([0.01, 0.02, 0.03, 0.04], 3)
        je = _joints([1.0, -1.0, 0.0, math.nan], 3)
        with warnings.catch_warnings():
            warnings.simplefilter('error')
            large = t.actuator_to_joint({'position': np.tile(pa, (3, 1)),
                                         'effort': np.tile(effort, (3, 1))})['effort'][:4]
            large_back = t.joint_to_actuator({'position': np.tile(q, (3, 1)),
                                              'effort': np.tile(je, (3, 1))})['effort'][:4]
            for i in range(4):
                small = t.actuator_to_joint({'position': pa[i], 'effort': effort[i]})['effort']
                np.testing.assert_array_equal(small, large[i])
                back = t.joint_to_actuator({'position': q[i], 'effort': je[i]})['effort']
                np.testing.assert_array_equal(back, large_back[i])
    assert not np.isfinite(large_back).any()  # the h = 0.2 gripper: x / 0 everywhere


def test_velocity_and_effort_share_one_state_per_call(monkeypatch):
    """
    The linkage is solved once per conversion, in either call style: one kernel call.

    Spies on the compiled kernel of the transmission's description: a conversion that converted
    each interface apart would call it again.
    """
    t = _gripper()
    spy = KernelSpy(t.description(), monkeypatch)
    for shape in [(), (50,)]:
        pa = np.full(shape + (1,), 700.0)
        spy.calls.clear()
        out = t.actuator_to_joint({'position': pa, 'velocity': pa, 'effort': pa})
        assert spy.calls == [KernelCall(True, max(pa.size, 1), (True, True, True))]
        spy.calls.clear()
        t.joint_to_actuator(out)
        assert spy.calls == [KernelCall(False, max(pa.size, 1), (True, True, True))]
    spy.calls.clear()
    t.configure([JointHandle('gap', i, 0.05) for i in ('position', 'velocity', 'effort')]
                + [JointHandle(f'p{k}', i) for k in range(4)
                   for i in ('position', 'velocity', 'effort')],
                [ActuatorHandle('m', i, 700.0) for i in ('position', 'velocity', 'effort')])
    t.actuator_to_joint()
    assert spy.calls == [KernelCall(True, 1, (True, True, True))]
    spy.calls.clear()
    t.joint_to_actuator()
    assert spy.calls == [KernelCall(False, 1, (True, True, True))]


def test_maps_take_positions_or_prepared_states():
    """apply_map's velocity and effort maps take the positions or what prepare_state made."""
    t = _gripper(passive=2, simulated=1)
    pa = np.array([[700.0]])
    v = np.array([[1.0], [2.0], [-3.0]])
    for kind in ('velocity', 'effort'):
        ref = t.apply_map(kind, True, v, pa)  # a (1,) state broadcast against 3 values
        assert ref.shape == (3, 4)
        np.testing.assert_array_equal(t.apply_map(kind, True, v, t.prepare_state(True, pa)),
                                      ref)
        for i in range(3):
            np.testing.assert_allclose(t.apply_map(kind, True, v[i], pa[0]), ref[i],
                                       rtol=1e-12)
    q = _joints([0.04], 4)
    jv = _joints([1.0, 2.0, -3.0], 4)
    for kind in ('velocity', 'effort'):
        ref = t.apply_map(kind, False, jv, q)
        assert ref.shape == (3, 1)
        np.testing.assert_array_equal(t.apply_map(kind, False, jv, t.prepare_state(False, q)),
                                      ref)
    with pytest.raises(TransmissionInputError, match='4 entries'):
        t.prepare_state(False, np.array([0.04]))


def test_joint_to_actuator_reads_the_gap_joint_only():
    t = _gripper(passive=4, simulated=2)
    assert t.joint_to_actuator_inputs() == (0,)
    jac = t.joint_to_actuator_jacobian(_joints([0.03], 7))
    assert np.flatnonzero(jac[0, 0]).tolist() == [0]
