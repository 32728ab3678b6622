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
The sparse fused maps against independent references, on random robots of every shape and size.

The reference of every value is each transmission's own functional map (its kernels); the
reference of where NaN goes is each transmission's own Jacobian (a NaN input reaches exactly the
outputs with a non-zero coefficient on it).
"""

import math
import sys

import numpy as np
import pytest
from synthetic_robots import humanoid_urdf
from synthetic_robots import synthetic_transmissions
from synthetic_robots import synthetic_urdf
from tp_support import REPO

from transmission_plugins import PR2GripperTransmission
from transmission_plugins.robot.limits import actuator_limits
from transmission_plugins.robot.limits import joint_effort_bound
from transmission_plugins.robot.loading import load_robot_transmissions
from transmission_plugins.robot.robot_transmissions import RobotTransmission
from transmission_plugins.robot.robot_transmissions import RobotTransmissions
from transmission_plugins.urdf.joints import UrdfJoint
from transmission_plugins.urdf.records import ActuatorInfo

KINDS = ('position', 'velocity', 'effort')
GRIPPER = {'screw_reduction': 0.004, 'gear_ratio': 40.095, 'theta0': 0.0628824676201037,
           'phi0': 0.5185181221457433, 't0': -0.0001914, 'L0': 0.0375528, 'h': 0.0,
           'a': 0.0683698, 'b': 0.043384900000000004, 'r': 0.0915}
SHAPES = [(), (1,), (7,), (2, 3), (257,)]


def _gripper(name, seed_gear=40.095):
    tr = PR2GripperTransmission(**{**GRIPPER, 'gear_ratio': seed_gear}, num_passive_joints=2,
                                num_simulated_joints=1)
    return RobotTransmission(name, 'pr2_mechanism_model/PR2GripperTransmission', tr,
                             (f'{name}_gap', f'{name}_p1', f'{name}_p2', f'{name}_screw'),
                             (f'{name}_motor',))


def _robot(n=30, seed=0):
    """Return a random robot: n mixed linear transmissions and three PR2 grippers among them."""
    ts = synthetic_transmissions(n, seed)
    ts.insert(n // 3, _gripper('g1'))
    ts.insert(2 * n // 3, _gripper('g2'))  # identical to g1: one kernel call for both
    ts.append(_gripper('g3', seed_gear=29.16))
    return RobotTransmissions(ts)


def _inputs(robot, rng, shape, to_joint, nan_fraction=0.0):
    names = robot.actuator_names if to_joint else robot.joint_names
    values = {k: rng.uniform(-2.0, 2.0, shape + (len(names),)) for k in KINDS}
    for t in robot.transmissions:
        if isinstance(t.transmission, PR2GripperTransmission):
            index = robot.actuator_index if to_joint else robot.joint_index
            first = (t.actuator_names if to_joint else t.joint_names)[0]
            values['position'][..., index[first]] = (
                rng.uniform(10.0, 1200.0, shape) if to_joint else rng.uniform(0.0, 0.08, shape))
    if nan_fraction:
        for v in values.values():
            v[rng.random(v.shape) < nan_fraction] = math.nan
    return values


def _reference(robot, values, to_joint):
    """Return each transmission's map of ``values`` and where NaN must appear, full width."""
    size = len(robot.joint_names) if to_joint else len(robot.actuator_names)
    shape = values['position'].shape[:-1]
    out = {k: np.full(shape + (size,), -1.0e300) for k in values}
    src_index = robot.actuator_index if to_joint else robot.joint_index
    dst_index = robot.joint_index if to_joint else robot.actuator_index
    done = set()
    for t in robot.transmissions:
        tr = t.transmission
        src, dst = ((t.actuator_names, t.joint_names) if to_joint
                    else (t.joint_names, t.actuator_names))
        s = [src_index[n] for n in src]
        d = [dst_index[n] for n in dst]
        if not to_joint and d[0] in done:  # a shared actuator: its owner's value
            continue
        sub = {k: v[..., s] for k, v in values.items()}
        clean = {k: np.nan_to_num(v, nan=0.0) for k, v in sub.items()}
        mapped = tr.actuator_to_joint(clean) if to_joint else tr.joint_to_actuator(clean)
        for k, y in mapped.items():
            bad = np.isnan(sub[k])
            if tr.is_linear():
                jac, inv, _ = tr.linear_map()
                m = (jac if k != 'effort' else inv.T) if to_joint else (
                    inv if k != 'effort' else jac.T)
                spoiled = (bad.astype(float) @ (m != 0.0).T.astype(float)) > 0.0
            else:
                read = list(tr.joint_to_actuator_inputs()) if not to_joint else slice(None)
                spoiled = bad[..., read].any(axis=-1) | np.isnan(sub['position'])[..., read].any(
                    axis=-1) if k != 'position' else bad[..., read].any(axis=-1)
                spoiled = np.broadcast_to(spoiled[..., None], y.shape).copy()
                if to_joint:
                    spoiled[..., 1 + tr.num_passive_joints():] = False  # simulated: always 0
            out[k][..., d] = np.where(spoiled, math.nan, y)
        done.update(d)
    return out


@pytest.mark.parametrize('seed', [0, 1, 2])
@pytest.mark.parametrize('shape', SHAPES)
@pytest.mark.parametrize('to_joint', [True, False])
def test_fused_maps_equal_each_transmission_nan_reaches_only_dependent_outputs(
        seed, shape, to_joint):
    robot = _robot(seed=seed)
    rng = np.random.default_rng(1234 + seed)
    values = _inputs(robot, rng, shape, to_joint, nan_fraction=0.05 if seed else 0.0)
    convert = robot.actuator_to_joint_arrays if to_joint else robot.joint_to_actuator_arrays
    out = convert(values)
    ref = _reference(robot, values, to_joint)
    for k in KINDS:
        assert out[k].shape == values[k].shape[:-1] + ref[k].shape[-1:]
        assert not (ref[k] == -1.0e300).any()  # the reference covers every output
        np.testing.assert_allclose(out[k], ref[k], rtol=1e-12, atol=1e-12, err_msg=k)


def test_one_sample_batch_of_one_and_name_keyed_agree():
    robot = _robot(seed=3)
    rng = np.random.default_rng(7)
    for to_joint in (True, False):
        values = _inputs(robot, rng, (), to_joint)
        convert = robot.actuator_to_joint_arrays if to_joint else robot.joint_to_actuator_arrays
        single = convert(values)
        batch = convert({k: v[None, :] for k, v in values.items()})
        names = robot.actuator_names if to_joint else robot.joint_names
        by_name = {k: dict(zip(names, v.tolist())) for k, v in values.items()}
        named = (robot.actuator_to_joint if to_joint else robot.joint_to_actuator)(by_name)
        ref = _reference(robot, values, to_joint)
        out_names = robot.joint_names if to_joint else robot.actuator_names
        for k in KINDS:
            np.testing.assert_array_equal(single[k], batch[k][0])
            assert list(named[k]) == out_names
            np.testing.assert_allclose([named[k][n] for n in out_names], ref[k],
                                       rtol=1e-12, atol=1e-15)
            np.testing.assert_allclose([named[k][n] for n in out_names], single[k],
                                       rtol=1e-12, atol=1e-15)


def test_interfaces_of_different_shapes_convert_each_at_its_own_shape():
    robot = _robot(seed=4)
    rng = np.random.default_rng(4)
    base = _inputs(robot, rng, (), True)
    values = {'position': base['position'],
              'velocity': np.tile(base['velocity'], (3, 1)),
              'effort': base['effort'][None, :]}
    out = robot.actuator_to_joint_arrays(values)
    ref = robot.actuator_to_joint_arrays(base)
    assert out['position'].shape == ref['position'].shape
    assert out['velocity'].shape == (3, len(robot.joint_names))
    for k in KINDS:
        np.testing.assert_allclose(out[k].reshape(-1, len(robot.joint_names)),
                                   np.broadcast_to(ref[k], (out[k].size // len(
                                       robot.joint_names), len(robot.joint_names))),
                                   rtol=1e-12, atol=1e-15)


def test_round_trip_of_batches_and_samples():
    robot = _robot(seed=6)
    rng = np.random.default_rng(6)
    for shape in SHAPES:
        values = _inputs(robot, rng, shape, True)
        back = robot.joint_to_actuator_arrays(robot.actuator_to_joint_arrays(values))
        for k in KINDS:
            np.testing.assert_allclose(back[k], values[k], rtol=1e-9, atol=1e-9)


def test_a_big_robot_is_stored_sparse_and_converts_every_shape():
    small, big = (RobotTransmissions(synthetic_transmissions(n)) for n in (1000, 10000))
    nj, na = len(big.joint_names), len(big.actuator_names)
    assert (nj, na) == (16666, 16666)
    nnz = sum(int((t.transmission.linear_map()[0] != 0.0).sum()) for t in big.transmissions)
    assert big.maps.matrix(True, 'position').nnz == nnz < 3 * nj  # coordinates, not N x N
    for robot in (small, big):
        x = np.random.default_rng(0).normal(size=len(robot.actuator_names))
        for shape in [(), (1,), (2,)]:
            values = {k: np.broadcast_to(x, shape + x.shape).copy() for k in KINDS}
            robot.joint_to_actuator_arrays(robot.actuator_to_joint_arrays(values))
    # everything the maps hold (matrices, the products of every call converted) grows
    # linearly: ten times the transmissions, about ten times the bytes, far from nj * na * 8
    assert big.maps.nbytes() < 12 * small.maps.nbytes()
    assert big.maps.nbytes() < 600 * (nj + na) < nj * na * 8 / 100  # < 1 % of one dense map
    for array in big.maps.__dict__.values():
        assert not isinstance(array, np.ndarray) or array.size <= 4 * nj


def test_synthetic_urdf_loads_the_same_robot_as_the_records():
    loaded = load_robot_transmissions(synthetic_urdf(12, seed=3), warn=False)
    built = RobotTransmissions(synthetic_transmissions(12, seed=3))
    assert loaded.joint_names == built.joint_names
    assert loaded.actuator_names == built.actuator_names
    for a, b in zip(loaded.transmissions, built.transmissions):
        assert a.transmission.same_map(b.transmission), a.name
    assert not loaded.warnings


def test_limits_on_the_sparse_maps_equal_each_transmission():
    rng = np.random.default_rng(11)
    ts = synthetic_transmissions(40, seed=11) + [_gripper('g')]
    joints = []
    for t in ts:
        for j in t.joint_names:
            lo = -math.inf if rng.random() < 0.2 else float(rng.uniform(-3.0, -0.1))
            joints.append(UrdfJoint(j, 'revolute', lo, float(rng.uniform(0.1, 3.0)),
                                    math.inf if rng.random() < 0.2 else float(rng.uniform(1, 5)),
                                    math.inf if rng.random() < 0.2 else float(rng.uniform(1, 90))))
    info = {a: ActuatorInfo(a, effort_limit=float(rng.uniform(1.0, 50.0)))
            for t in ts[::3] for a in t.actuator_names}
    robot = RobotTransmissions(ts, joints, actuator_info=info)
    data = np.array([info[a].effort_limit if a in info else math.inf
                     for a in robot.actuator_names])
    for t in robot.transmissions:
        j = [robot.joint_index[n] for n in t.joint_names]
        a = [robot.actuator_index[n] for n in t.actuator_names]
        lo, hi, vel, eff = actuator_limits(
            t.transmission, robot.joint_lower[j], robot.joint_upper[j],
            robot.joint_velocity_limit[j], robot.joint_effort_limit[j])
        np.testing.assert_allclose(robot.actuator_lower[a], lo, rtol=1e-15)
        np.testing.assert_allclose(robot.actuator_upper[a], hi, rtol=1e-15)
        np.testing.assert_allclose(robot.actuator_velocity_limit[a], vel, rtol=1e-15)
        mapped = [robot.actuator_models[n].effort_limit if n not in info else None
                  for n in t.actuator_names]
        for m, e in zip(mapped, eff):
            if m is not None:
                assert m == pytest.approx(e if math.isfinite(e) and e > 0 else math.inf,
                                          rel=1e-15)
        np.testing.assert_allclose(
            robot.joint_effort_limit_from_actuators[j],
            joint_effort_bound(t.transmission, robot.joint_lower[j], robot.joint_upper[j],
                               data[a]), rtol=1e-15)


def _calls(fn):
    """Return the Python and C functions one call of ``fn`` calls (``sys.setprofile``)."""
    calls = []

    def profile(frame, event, arg):
        if event in ('call', 'c_call'):
            calls.append(event)
    fn()
    sys.setprofile(profile)
    fn()
    sys.setprofile(None)
    return len(calls) - 2   # fn itself and setprofile(None)


@pytest.mark.parametrize('which', ['example', 'humanoid', 'twin'])
def test_a_one_sample_array_cycle_makes_at_most_60_calls(which):
    """Issue 33: the count of calls one sample costs, whatever the load: pinned."""
    description = (REPO / 'urdf' / 'example_robot.urdf.xacro' if which == 'example'
                   else humanoid_urdf(which == 'humanoid'))
    robot = load_robot_transmissions(description, warn=False)
    q = robot.default_joint_position()
    state = {'position': robot.joint_to_actuator_arrays({'position': q})['position'],
             'velocity': np.ones(len(robot.actuator_names)),
             'effort': np.ones(len(robot.actuator_names))}

    def cycle():
        return robot.joint_to_actuator_arrays(robot.actuator_to_joint_arrays(state))
    assert _calls(cycle) <= 60
