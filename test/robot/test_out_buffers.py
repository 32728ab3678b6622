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
The array maps write into caller buffers (``out=``) exactly what they return without them.

The reference of every value is the same call without ``out=`` (itself checked against each
transmission in ``test_fused_maps.py``); the buffers are those a previous call returned (views
of one block, written in place), separate C-ordered arrays and arrays of any layout.
"""

import numpy as np
import pytest

from test_flat_description import _inputs
from test_flat_description import _robot
from test_flat_description import KINDS
from test_flat_description import SHAPES
from transmission_plugins import TransmissionInputError


def _convert(robot, to_joint):
    return robot.actuator_to_joint_arrays if to_joint else robot.joint_to_actuator_arrays


def _width(robot, to_joint):
    return len(robot.joint_names if to_joint else robot.actuator_names)


@pytest.mark.parametrize('shape', SHAPES + [(300,)])
@pytest.mark.parametrize('to_joint', [True, False])
def test_out_buffers_receive_the_result(shape, to_joint):
    robot = _robot(seed=7)
    rng = np.random.default_rng(7)
    convert, width = _convert(robot, to_joint), _width(robot, to_joint)
    values = _inputs(robot, rng, shape, to_joint, nan_fraction=0.02)
    expected = convert(values)
    # separate C-ordered arrays, filled with garbage first
    out = {k: np.full(shape + (width,), 1.0e300) for k in KINDS}
    got = convert(values, out=out)
    assert all(got[k] is out[k] for k in KINDS)
    for k in KINDS:
        np.testing.assert_array_equal(out[k], expected[k], err_msg=k)
    # the arrays a previous call returned: written in place
    again = _inputs(robot, rng, shape, to_joint, nan_fraction=0.02)
    previous = convert(values)
    addresses = {k: previous[k].__array_interface__['data'][0] for k in KINDS}
    got = convert(again, out=previous)
    reference = convert(again)
    for k in KINDS:
        assert got[k] is previous[k] and got[k].__array_interface__['data'][0] == addresses[k]
        np.testing.assert_array_equal(got[k], reference[k], err_msg=k)


def test_bad_out_buffers_are_refused_with_the_reason():
    robot = _robot(seed=9)
    rng = np.random.default_rng(9)
    values = _inputs(robot, rng, (5,), True)
    nj = len(robot.joint_names)

    def out(**change):
        buffers = {k: np.zeros((5, nj)) for k in KINDS}
        buffers.update(change)
        return buffers

    cases = [
        ({k: np.zeros((5, nj)) for k in KINDS[:2]}, 'every interface converted'),
        ([np.zeros((5, nj))] * 3, 'every interface converted'),
        (out(velocity=np.zeros((5, nj + 1))), r"out\['velocity'\] must be a writeable float64"),
        (out(effort=np.zeros((5, nj), np.float32)), 'float32'),
        (out(effort=np.zeros((5, nj)).tolist()), 'got list'),
    ]
    readonly = np.zeros((5, nj))
    readonly.setflags(write=False)
    cases.append((out(position=readonly), 'writeable'))
    for bad, message in cases:
        with pytest.raises(TransmissionInputError, match=message):
            robot.actuator_to_joint_arrays(values, out=bad)
    # overlapping the inputs
    shared = np.zeros((5, max(nj, values['position'].shape[1])))
    overlapping = dict(values, position=shared[:, :values['position'].shape[1]])
    overlapping['position'][...] = values['position']
    with pytest.raises(TransmissionInputError, match='overlaps the input'):
        robot.actuator_to_joint_arrays(overlapping, out=out(effort=shared[:, :nj]))
    # any layout receives the result: here one that is neither C- nor Fortran-ordered
    odd = np.zeros((3, 2, nj)).transpose(1, 0, 2)
    three = _inputs(robot, rng, (2, 3), True)
    got = robot.actuator_to_joint_arrays(three, out=out(position=odd, velocity=np.zeros(
        (2, 3, nj)), effort=np.zeros((2, 3, nj))))
    assert got['position'] is odd
    np.testing.assert_array_equal(odd, robot.actuator_to_joint_arrays(three)['position'])
    # interfaces of different shapes
    mixed = {'position': values['position'], 'velocity': values['velocity'][0]}
    with pytest.raises(TransmissionInputError, match='one shape'):
        robot.actuator_to_joint_arrays(mixed, out={'position': np.zeros((5, nj)),
                                                   'velocity': np.zeros(nj)})


def test_results_never_change_behind_the_callers_back():
    robot = _robot(seed=10)
    rng = np.random.default_rng(10)
    first = _inputs(robot, rng, (40,), True)
    second = _inputs(robot, rng, (40,), True)
    expected_first = {k: v.copy() for k, v in robot.actuator_to_joint_arrays(first).items()}
    expected_second = {k: v.copy() for k, v in robot.actuator_to_joint_arrays(second).items()}
    kept = robot.actuator_to_joint_arrays(first)
    view = kept['velocity'][3:7]
    del kept
    held = robot.actuator_to_joint_arrays(second)
    again = robot.actuator_to_joint_arrays(first)
    np.testing.assert_array_equal(view, expected_first['velocity'][3:7])  # untouched
    for k in KINDS:
        np.testing.assert_array_equal(held[k], expected_second[k])
        np.testing.assert_array_equal(again[k], expected_first[k])
