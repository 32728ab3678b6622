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
Tests of FourBarLinkageTransmission: white-box values and the closed form.

The published cases come from ros2_control ``transmission_interface/test/
four_bar_linkage_transmission_test.cpp``; they are re-stated here, not copied.  The preconditions,
accessors, handle sets and black-box round trips it shares with the other coupled transmission
are in test_coupled_transmission.py.
"""

from coupled_cases import check_closed_form
from coupled_cases import check_white_box_functional
from coupled_cases import check_white_box_handles
import numpy as np
import pytest

from transmission_plugins import FourBarLinkageTransmission

CLS = FourBarLinkageTransmission


# ------------------------------------------------------------------------------ white box
# (actuator_reduction, joint_reduction, joint_offset, kind, actuator values, joint values).
# Upstream's DontMoveJoints, MoveFirstJointOnly, MoveSecondJointOnly and MoveBothJoints cases
# (four_bar_linkage_transmission_test.cpp), followed by hand-computed ones.  The effort values
# are computed from the power-conserving map tau_1 = n_j1 n_a1 u_1 + n_a2 u_2,
# tau_2 = n_j2 n_a2 u_2; they agree with current ros2_control (e.g. commit 15c1af27), while
# older versions of that file (e.g. commit 70feeab9) expected the old non-conserving map's
# (100, 0), (0, 200) and (-60, -160) for the same three inputs.
CASES = [
    ((10, 10), (2, 2), (1, 1), 'effort', (0, 0), (0, 0)),
    ((10, 10), (2, 2), (1, 1), 'velocity', (0, 0), (0, 0)),
    ((10, 10), (2, 2), (1, 1), 'position', (0, 0), (1, 1)),
    ((10, 10), (2, 2), (0, 0), 'effort', (5, 10), (200, 200)),
    ((10, 10), (2, 2), (0, 0), 'velocity', (10, 5), (0.5, 0)),
    ((10, 10), (2, 2), (0, 0), 'position', (10, 5), (0.5, 0)),
    ((10, 10), (2, 2), (0, 0), 'effort', (0, 10), (100, 200)),
    ((10, 10), (2, 2), (0, 0), 'velocity', (0, 10), (0, 0.5)),
    ((10, 10), (2, 2), (0, 0), 'position', (0, 10), (0, 0.5)),
    ((10, -20), (-2, 4), (-2, 4), 'effort', (3, 5), (-160, -400)),
    ((10, -20), (-2, 4), (-2, 4), 'velocity', (3, 5), (-0.15, -0.025)),
    ((10, -20), (-2, 4), (-2, 4), 'position', (3, 5), (-2.15, 3.975)),
    # hand-computed: theta_1 = n_j1 n_a1 dq_1, theta_2 = n_a2 (dq_1 + n_j2 dq_2)
    ((10, -20), (-2, 4), (-2, 4), 'position', (-20, -100), (-1, 5)),
    ((10, -20), (-2, 4), (-2, 4), 'velocity', (-20, -100), (1, 1)),
    # u_1 = (tau_1 - tau_2 / n_j2) / (n_j1 n_a1), u_2 = tau_2 / (n_j2 n_a2)
    ((10, -20), (-2, 4), (-2, 4), 'effort', (-0.05, -0.05), (2, 4)),
    # unit reductions: joint 2 is the difference of the actuators; effort 1 on actuator 2
    # loads both joints
    ((1, 1), (1, 1), (0, 0), 'position', (1, 0), (1, -1)),
    ((1, 1), (1, 1), (0, 0), 'effort', (0, 1), (1, 1)),
]


@pytest.mark.parametrize('ar, jr, off, kind, a, j', CASES)
def test_white_box_functional(ar, jr, off, kind, a, j):
    check_white_box_functional(CLS, ar, jr, off, kind, a, j)


@pytest.mark.parametrize('ar, jr, off, kind, a, j', CASES)
def test_white_box_handles(ar, jr, off, kind, a, j):
    check_white_box_handles(CLS, ar, jr, off, kind, a, j)


def _closed_form_actuator_to_joint(t, a):
    """Return (position, velocity, effort) of joint space from the class docstring formulas."""
    (a1, a2), (j1, j2), (o1, o2) = (
        t.get_actuator_reduction(), t.get_joint_reduction(), t.get_joint_offset())
    v1 = a[..., 0] / (j1 * a1)
    v2 = (a[..., 1] / a2 - a[..., 0] / (j1 * a1)) / j2
    e1 = j1 * a1 * a[..., 0] + a2 * a[..., 1]
    e2 = j2 * a2 * a[..., 1]
    vel = np.stack([v1, v2], axis=-1)
    return vel + [o1, o2], vel, np.stack([e1, e2], axis=-1)


def test_closed_form():
    check_closed_form(CLS, _closed_form_actuator_to_joint)
