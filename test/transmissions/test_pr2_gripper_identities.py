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

r"""
The PR2 gripper's trigonometric identities stay within rounding of the C++ formulas.

The gripper evaluates :math:`\sin\theta`, :math:`\cos\theta` and the inverse's sines and
cosines with square roots instead of the five ``sin``/``cos``/``asin`` calls of the C++
(:mod:`transmission_plugins.transmissions.pr2_gripper_linkage`).  ``_reference_forward`` and
``_reference_inverse`` of ``test_pr2_gripper_transmission.py`` transcribe the C++ with those
calls; the bounds here are what rounding allows:

* velocities and efforts: 1e-12 relative, sample by sample, over the working range (motor 0 to
  fully open, gap 0 to 0.09 m); 1e-11 through the clamps and past them, where ``dt/dM`` crosses
  0 and ``1 - u^2`` nears its floor;
* positions: 1e-12 of the largest value over the range (normwise), since the gap
  :math:`2(t_0 + r(\sin\theta - \sin\theta_0))` cancels to about 1e-7 m at motor 0, where
  either formula has only its absolute rounding error.
"""

import math

import numpy as np
import pytest

from test_pr2_gripper_transmission import _gripper
from test_pr2_gripper_transmission import _joints
from test_pr2_gripper_transmission import _reference_forward
from test_pr2_gripper_transmission import _reference_inverse
from test_pr2_gripper_transmission import OPEN_GAP
from test_pr2_gripper_transmission import OPEN_MOTOR
from test_pr2_gripper_transmission import PR2

KINDS = ('position', 'velocity', 'effort')


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
    for i, kind in enumerate(KINDS):
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
    for i, kind in enumerate(KINDS):
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


def test_the_identities_hold_to_rounding_on_every_u():
    """sin(acos u) = sqrt((1-u)(1+u)) and the angle sums, against math, over [-1, 1]."""
    t = _gripper()
    delta = PR2['theta0'] - PR2['phi0']
    for u in np.linspace(-1.0, 1.0, 2001).tolist():
        w = math.sqrt((1.0 - u) * (1.0 + u))
        assert abs(w - math.sin(math.acos(u))) <= 4e-16
        theta = delta + math.acos(u)
        assert abs(t._sin_delta * u + t._cos_delta * w - math.sin(theta)) <= 1e-15
        assert abs(t._cos_delta * u - t._sin_delta * w - math.cos(theta)) <= 1e-15
        c = math.sqrt((1.0 - u) * (1.0 + u))  # u as the inverse's sin(theta)
        theta = math.asin(u)
        assert abs(c * t._cos_delta + u * t._sin_delta - math.cos(theta - delta)) <= 1e-15
        assert abs(u * t._cos_delta - c * t._sin_delta - math.sin(theta - delta)) <= 1e-15
