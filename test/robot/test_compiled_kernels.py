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
The compiled batch kernels (numba) against the numpy path and the one-sample path.

References: the numpy batch path of the same robot (bit for bit for every linear output; the
PR2 grippers' outputs to the last bits of ``acos``, NaN in the same places) and the one-sample
path (the gripper's ``math`` formulas), which the compiled gripper repeats operation by
operation: equal bit for bit.  The rest of the suite runs with the kernels whenever numba is
installed (``test_fused_maps.py`` checks them against every transmission's own maps); these
tests also run the numpy path, so both stay checked in one run.
"""

import contextlib
import os
import subprocess
import sys

import numpy as np
import pytest

from test_fused_maps import _inputs
from test_fused_maps import _robot
from test_fused_maps import KINDS
from transmission_plugins import PR2GripperTransmission
from transmission_plugins.robot import compiled_kernels
from transmission_plugins.robot import sparse_maps


@pytest.fixture
def compiled():
    kernels = compiled_kernels.kernels()
    if kernels is None:
        pytest.skip('numba is not installed (or TP_COMPILED=0): the compiled kernels are off; '
                    'the numpy path is what the rest of the suite tests then')
    return kernels


@pytest.fixture
def numpy_path(compiled, monkeypatch):
    """Return a context manager inside which batches take the numpy path."""
    @contextlib.contextmanager
    def inside():
        with monkeypatch.context() as m:
            m.setattr(compiled_kernels, '_kernels', None)
            yield
    return inside


def _convert(robot, values, to_joint, out=None):
    convert = robot.actuator_to_joint_arrays if to_joint else robot.joint_to_actuator_arrays
    return convert(values, out=out)


def _gripper_columns(robot, to_joint, passive_only=False):
    index = robot.joint_index if to_joint else robot.actuator_index
    columns = []
    for t in robot.transmissions:
        if isinstance(t.transmission, PR2GripperTransmission):
            names = t.joint_names if to_joint else t.actuator_names
            if passive_only:
                names = names[1:1 + t.transmission.num_passive_joints()] if to_joint else ()
            columns += [index[n] for n in names]
    return np.array(sorted(columns), dtype=np.intp)


def _compare(compiled_result, numpy_result, passive):
    """
    Check equality bit for bit, but for the passive finger angles.

    Those are ``acos(u) - phi0``: numpy's ``arccos`` and the C library's ``acos`` may differ in
    the last bit (2.2e-16 rad), which the subtraction keeps.
    """
    for kind, y in compiled_result.items():
        ref = numpy_result[kind]
        exact = np.setdiff1d(np.arange(y.shape[-1]), passive if kind == 'position' else [])
        np.testing.assert_array_equal(y[..., exact], ref[..., exact], err_msg=kind)
        if kind == 'position' and passive.size:
            np.testing.assert_allclose(y[..., passive], ref[..., passive], rtol=0.0,
                                       atol=4.5e-16)


@pytest.mark.parametrize('count', [1, 7, 1000, 9001])
@pytest.mark.parametrize('to_joint', [True, False])
@pytest.mark.parametrize('kinds', [KINDS, ('position',), ('velocity', 'position')])
def test_compiled_batches_equal_the_numpy_path(numpy_path, count, to_joint, kinds):
    reference, robot = _robot(30, 1), _robot(30, 1)
    rng = np.random.default_rng(count)
    values = _inputs(robot, rng, (count,), to_joint, nan_fraction=0.02)
    values = {k: values[k] for k in kinds}
    values['position'][:5, :] = np.inf      # inf and huge values reach the same outputs
    values['position'][5:9, :] = -1e200
    with numpy_path():
        with_numpy = _convert(reference, values, to_joint)
    gripper = _gripper_columns(robot, to_joint, passive_only=True)
    _compare(_convert(robot, values, to_joint), with_numpy, gripper)
    # into the buffers a first call returned (one block, chunk after chunk) and into separate
    # C-ordered arrays
    again = _convert(robot, values, to_joint)
    _compare(_convert(robot, values, to_joint, out=again), with_numpy, gripper)
    separate = {k: np.empty_like(v) for k, v in with_numpy.items()}
    _compare(_convert(robot, values, to_joint, out=separate), with_numpy, gripper)


@pytest.mark.parametrize('to_joint', [True, False])
def test_the_compiled_gripper_repeats_the_one_sample_formulas_bit_for_bit(compiled, to_joint):
    robot = _robot(6, 3)
    rng = np.random.default_rng(7)
    values = _inputs(robot, rng, (64,), to_joint)
    values['position'][::9] *= -1.0    # negative motor positions and gaps: M < 0, closed
    batch = _convert(robot, values, to_joint)
    gripper = _gripper_columns(robot, to_joint)
    for k in range(64):
        one = _convert(robot, {i: v[k] for i, v in values.items()}, to_joint)
        for kind in KINDS:
            np.testing.assert_array_equal(batch[kind][k, gripper], one[kind][gripper],
                                          err_msg=f'{kind}, sample {k}')


def test_the_product_writes_into_any_view_of_a_buffer(numpy_path):
    rng = np.random.default_rng(3)
    n_rows, n_cols, size = 9, 6, 37
    rows = np.repeat(np.arange(n_rows - 1), 2)          # the last row has no entry
    cols = np.tile([0, 3], n_rows - 1) + np.repeat(np.arange(n_rows - 1) % 2, 2)
    product = sparse_maps.StackedProduct(rows, cols, rng.normal(size=rows.size), n_rows,
                                         n_cols + 1)
    xt = np.vstack([rng.normal(size=(n_cols, size)), np.zeros((1, size))])
    expected = np.empty((n_rows, size))
    with numpy_path():
        product.batch(xt, expected)                     # the numpy layers
    assert expected[-1].tolist() == [0.0] * size
    big = np.full((n_rows, 100), np.nan)
    views = [np.empty((n_rows, size)),                  # contiguous
             big[:, 20:20 + size],                      # rows of a wider buffer
             np.empty((size, n_rows)).T]                # transposed: no unit stride
    for view in views:
        product.batch(xt, view)
        np.testing.assert_array_equal(view, expected)
    assert np.isnan(big[:, :20]).all() and np.isnan(big[:, 20 + size:]).all()


def test_stack_transposes_c_ordered_inputs_only(compiled):
    rng = np.random.default_rng(4)
    xs = [rng.normal(size=(13, 4)), rng.normal(size=(13, 2))]   # 13: not a multiple of 8
    xt = np.full((7, 13), np.nan)
    assert compiled_kernels.stack(xs, xt)
    np.testing.assert_array_equal(xt[:6], np.concatenate([x.T for x in xs]))
    assert np.isnan(xt[6]).all()
    assert not compiled_kernels.stack([np.asfortranarray(xs[0])], xt)


def _python(code, **env):
    return subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                          env=dict(os.environ, **env), timeout=120, check=True).stdout.strip()


def test_tp_compiled_0_keeps_the_numpy_path(compiled):
    code = ('from transmission_plugins.robot import compiled_kernels as c; '
            'print(c.kernels() is None)')
    assert _python(code, TP_COMPILED='0') == 'True'
    assert _python(code, TP_COMPILED='1') == 'False'


def test_numba_is_imported_at_the_first_batch_only(compiled):
    code = ('import sys, numpy as np; from transmission_plugins import RobotTransmissions; '
            'from transmission_plugins import SimpleTransmission as S; '
            'from transmission_plugins.robot.robot_transmissions import RobotTransmission as T; '
            "r = RobotTransmissions([T('t', 'S', S(2.0), ('j',), ('a',))]); "
            "r.actuator_to_joint_arrays({'position': np.ones(1)}); a = 'numba' in sys.modules; "
            "r.actuator_to_joint_arrays({'position': np.ones((9, 1))}); "
            "print(a, 'numba' in sys.modules)")
    assert _python(code) == 'False True'


def test_the_command_line_tool_keeps_to_the_numpy_path_unless_asked(compiled):
    """Its conversions are bound by text and bag I/O: numba's import would cost more."""
    code = ('import sys, numpy as np; from transmission_plugins.tools.cli import main; '
            "main(['list']); from transmission_plugins.robot import compiled_kernels as c; "
            'print(c.kernels() is None)')
    assert _python(code).splitlines()[-1] == 'True'
    assert _python(code, TP_COMPILED='1').splitlines()[-1] == 'False'
