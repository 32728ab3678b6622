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

"""The PR2 gripper's fast paths (convert_sample, convert_batch) give the kernels' numbers."""

import itertools
import math

import numpy as np
import pytest

from transmission_plugins import PR2GripperTransmission
from transmission_plugins.core.sample import BatchConverter
from transmission_plugins.core.sample import SampleConverter

PR2 = {'screw_reduction': 0.004, 'gear_ratio': 40.095, 'theta0': 0.0628824676201037,
       'phi0': 0.5185181221457433, 't0': -0.0001914, 'L0': 0.0375528, 'h': 0.0,
       'a': 0.0683698, 'b': 0.043384900000000004, 'r': 0.0915}
KINDS = ('position', 'velocity', 'effort')
#: Motor positions and gaps at and past the ends of the linkage, non-finite ones included.
MOTOR = [0.0, -0.0, 700.0, 1405.0, -100.0, -3000.0, 6000.0, 1e308, math.nan, math.inf, -math.inf]
GAP = [0.0, -0.0, 0.05, 0.0889, -0.01, 0.4, -0.4, 1e308, math.nan, math.inf, -math.inf]
RATE = [0.0, 1.5, -2.0, math.nan, math.inf]


@pytest.fixture(params=[1.0, -3.5])
def gripper(request):
    return PR2GripperTransmission(**PR2, mechanical_reduction=request.param,
                                  num_passive_joints=3, num_simulated_joints=2)


def test_the_gripper_offers_both_fast_paths(gripper):
    assert isinstance(gripper, SampleConverter) and isinstance(gripper, BatchConverter)


@pytest.mark.parametrize('to_joint', [True, False])
def test_convert_sample_equals_the_kernels(gripper, to_joint):
    width = gripper.num_actuators() if to_joint else gripper.num_joints()
    positions = MOTOR if to_joint else GAP
    for p, v, e in itertools.product(positions, RATE, RATE):
        values = [[p] + [0.01] * (width - 1), [v] * width, [e] * width]
        got = gripper.convert_sample(to_joint, KINDS, values, values[0])
        arrays = {k: np.array(x) for k, x in zip(KINDS, values)}
        with np.errstate(all='ignore'):
            ref = (gripper.actuator_to_joint(arrays) if to_joint
                   else gripper.joint_to_actuator(arrays))
        if got is None:  # Python raised where numpy returns inf or NaN: the kernels decide
            continue
        expected = np.concatenate([ref[k] for k in KINDS])
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=0.0, err_msg=f'{p} {v} {e}')


def test_convert_sample_declines_without_a_position(gripper):
    assert gripper.convert_sample(True, KINDS, [[1.0], [1.0], [1.0]], None) is None
    assert gripper.convert_sample(True, ('position',), [[700.0]], None) is not None


@pytest.mark.parametrize('to_joint', [True, False])
def test_convert_batch_equals_the_kernels_bit_for_bit(gripper, to_joint):
    rng = np.random.default_rng(1234)
    width = gripper.num_actuators() if to_joint else gripper.num_joints()
    sign = math.copysign(1.0, gripper.get_actuator_reduction())  # motor turns opening it
    low, high = (0.0, 1400.0 * sign) if to_joint else (0.0, 0.09)
    for shape in [(50,), (4, 9)]:
        position = low + (high - low) * rng.random(shape + (width,))
        values = [position, rng.normal(size=shape + (width,)), rng.normal(size=shape + (width,))]
        values[1][..., 0].flat[::5] = math.nan
        got = gripper.convert_batch(to_joint, KINDS, values, position)
        assert got is not None
        ref = (gripper.actuator_to_joint(dict(zip(KINDS, values))) if to_joint
               else gripper.joint_to_actuator(dict(zip(KINDS, values))))
        for k, y in zip(KINDS, got):
            np.testing.assert_array_equal(y, ref[k], err_msg=k)


def test_convert_batch_declines_where_nothing_is_shared(gripper):
    rng = np.random.default_rng(1)
    pa = rng.uniform(0.0, 1400.0, (50, 1))
    assert gripper.convert_batch(True, ('position',), [pa], pa) is None  # position only
    below = pa.copy()
    below[3] = -5.0  # the state is evaluated at max(M, 0): not the position map's linkage
    assert gripper.convert_batch(True, KINDS, [below, pa, pa], below) is None
    assert gripper.convert_batch(True, KINDS, [pa[:2], pa[:2], pa[:2]], pa[:2]) is None  # small
    other = pa + 1.0  # the positions converted are not those the state is evaluated at
    assert gripper.convert_batch(True, KINDS, [other, pa, pa], pa) is None
