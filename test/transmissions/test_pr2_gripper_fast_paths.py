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

"""The PR2 gripper's fast paths (convert_sample, convert_rows) give the kernels' numbers."""

import itertools
import math

import numpy as np
import pytest

from transmission_plugins import PR2GripperTransmission
from transmission_plugins.core.sample import BatchConverter
from transmission_plugins.core.sample import DistinctOutputs
from transmission_plugins.core.sample import SampleConverter

PR2 = {'screw_reduction': 0.004, 'gear_ratio': 40.095, 'theta0': 0.0628824676201037,
       'phi0': 0.5185181221457433, 't0': -0.0001914, 'L0': 0.0375528, 'h': 0.0,
       'a': 0.0683698, 'b': 0.043384900000000004, 'r': 0.0915}
KINDS = ('position', 'velocity', 'effort')
#: Motor positions and gaps at and past the ends of the linkage, non-finite ones included.
MOTOR = [0.0, -0.0, 700.0, 1405.0, -100.0, -3000.0, 6000.0, 1e308, math.nan, math.inf, -math.inf]
GAP = [0.0, -0.0, 0.05, 0.0889, -0.01, 0.4, -0.4, 1e308, math.nan, math.inf, -math.inf]
RATE = [0.0, 1.5, -2.0, math.nan, math.inf]


@pytest.fixture(params=[(1.0, 3, 2), (-3.5, 3, 2), (1.0, 0, 1), (2.0, 2, 0)],
                ids=lambda p: f'mr={p[0]},passive={p[1]},simulated={p[2]}')
def gripper(request):
    mr, passive, simulated = request.param
    return PR2GripperTransmission(**PR2, mechanical_reduction=mr, num_passive_joints=passive,
                                  num_simulated_joints=simulated)


def _expand(distinct, values):
    """Return every output from the distinct values of each interface (concatenated)."""
    d = max(distinct) + 1
    return [values[i * d + k] for i in range(len(values) // d) for k in distinct]


def test_the_gripper_offers_the_fast_paths(gripper):
    assert isinstance(gripper, SampleConverter) and isinstance(gripper, BatchConverter)
    assert isinstance(gripper, DistinctOutputs)


def test_distinct_outputs_name_the_joints_that_repeat_one_value(gripper):
    passive, simulated = gripper.num_passive_joints(), gripper.num_simulated_joints()
    expected = (0,) + (1,) * passive + ((1 + (passive > 0),) * simulated)
    assert gripper.distinct_outputs(True) == expected
    assert gripper.distinct_outputs(False) == (0,)
    # the kernels agree: outputs of one distinct value are equal, simulated joints are 0
    rng = np.random.default_rng(3)
    values = {k: rng.uniform(1.0, 1400.0, (20, 1)) * gripper.get_actuator_reduction()
              for k in KINDS}
    out = gripper.actuator_to_joint(values)
    for k in KINDS:
        for j, d in enumerate(expected):
            first = expected.index(d)
            np.testing.assert_array_equal(out[k][:, j], out[k][:, first])
        if simulated:
            assert np.all(out[k][:, -simulated:] == 0.0)


@pytest.mark.parametrize('to_joint', [True, False])
def test_convert_sample_equals_the_kernels(gripper, to_joint):
    width = gripper.num_actuators() if to_joint else gripper.num_joints()
    positions = MOTOR if to_joint else GAP
    distinct = gripper.distinct_outputs(to_joint)
    for p, v, e in itertools.product(positions, RATE, RATE):
        values = [[p] + [0.01] * (width - 1), [v] * width, [e] * width]
        got = gripper.convert_sample(to_joint, KINDS, values, values[0])
        arrays = {k: np.array(x) for k, x in zip(KINDS, values)}
        with np.errstate(all='ignore'):
            ref = (gripper.actuator_to_joint(arrays) if to_joint
                   else gripper.joint_to_actuator(arrays))
        if got is None:  # Python raised where numpy returns inf or NaN: the kernels decide
            continue
        assert len(got) == 3 * (max(distinct) + 1)
        expected = np.concatenate([ref[k] for k in KINDS])
        np.testing.assert_allclose(_expand(distinct, got), expected, rtol=1e-12,
                                   atol=0.0, err_msg=f'{p} {v} {e}')


def test_convert_sample_declines_without_a_position(gripper):
    assert gripper.convert_sample(True, KINDS, [[1.0], [1.0], [1.0]], None) is None
    assert gripper.convert_sample(True, ('position',), [[700.0]], None) is not None


def _rows(x):
    """Return ``x`` (``(..., n)``) laid out in rows: ``(n, ...)``, a view."""
    return np.moveaxis(x, -1, 0)


@pytest.mark.parametrize('to_joint', [True, False])
@pytest.mark.parametrize('shared', [True, False])
def test_convert_rows_equals_the_kernels_bit_for_bit(gripper, to_joint, shared):
    rng = np.random.default_rng(1234)
    width = gripper.num_actuators() if to_joint else gripper.num_joints()
    sign = math.copysign(1.0, gripper.get_actuator_reduction())  # motor turns opening it
    low, high = (-100.0 * sign, 1500.0 * sign) if to_joint else (-0.01, 0.1)
    distinct = gripper.distinct_outputs(to_joint)
    d = max(distinct) + 1
    for shape in [(50,), (4, 9)]:
        position = low + (high - low) * rng.random(shape + (width,))
        position[..., 0].flat[::9] = (MOTOR if to_joint else GAP)[:len(position[..., 0].flat[::9])]
        values = [position, rng.normal(size=shape + (width,)), rng.normal(size=shape + (width,))]
        values[1][..., 0].flat[::5] = math.nan
        state = position if shared else position.copy()  # the same array, or equal values
        rows = [_rows(v) for v in values]
        state_rows = rows[0] if shared else _rows(state)
        out = [np.full((d,) + shape, 12345.0) for _ in KINDS]
        assert gripper.convert_rows(to_joint, KINDS, rows, state_rows, out)
        with np.errstate(all='ignore'):
            ref = (gripper.actuator_to_joint(dict(zip(KINDS, values))) if to_joint
                   else gripper.joint_to_actuator(dict(zip(KINDS, values))))
        for k, y in zip(KINDS, out):
            np.testing.assert_array_equal(np.moveaxis(y[list(distinct)], 0, -1), ref[k],
                                          err_msg=k)


def test_convert_rows_writes_only_its_rows_and_declines_without_a_position(gripper):
    pa = np.full((1, 30), 700.0 * gripper.get_actuator_reduction())
    d = max(gripper.distinct_outputs(True)) + 1
    buffer = np.full((3 * d + 2, 30), 7.0)  # one row either side stays as it was
    out = [buffer[1 + i * d:1 + (i + 1) * d] for i in range(3)]
    assert gripper.convert_rows(True, KINDS, [pa, pa, pa], pa, out)
    assert np.all(buffer[0] == 7.0) and np.all(buffer[-1] == 7.0)
    assert not gripper.convert_rows(True, ('velocity',), [pa], None, out[:1])
    assert gripper.convert_rows(True, ('position',), [pa], None, out[:1])


@pytest.mark.parametrize('to_joint', [True, False])
@pytest.mark.parametrize('kinds', [('velocity', 'position'), ('effort',), ('position',),
                                   ('effort', 'velocity', 'position')])
def test_convert_sample_of_other_interface_sets_equals_the_kernels(gripper, to_joint, kinds):
    """The general path (any interfaces, the position given apart) besides a cycle's."""
    width = gripper.num_actuators() if to_joint else gripper.num_joints()
    distinct = gripper.distinct_outputs(to_joint)
    d = max(distinct) + 1
    for p, v in itertools.product(MOTOR if to_joint else GAP, RATE):
        position = [p] + [0.01] * (width - 1)
        values = [list(position) if k == 'position' else [v] * width for k in kinds]
        got = gripper.convert_sample(to_joint, kinds, values, position)
        arrays = {k: np.array(x) for k, x in zip(kinds, values)}
        arrays.setdefault('position', np.array(position))  # the state the kernels need
        with np.errstate(all='ignore'):
            ref = (gripper.actuator_to_joint(arrays) if to_joint
                   else gripper.joint_to_actuator(arrays))
        if got is None:
            continue
        for i, k in enumerate(kinds):
            np.testing.assert_allclose([got[i * d + e] for e in distinct], ref[k], rtol=1e-12,
                                       atol=0.0, err_msg=f'{k} {p} {v}')
