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
Shared helpers of the tests of the two 2x2 coupled transmissions.

Used by test_coupled_transmission.py (the cases run on both classes) and by the white-box and
closed-form tests of test_differential_transmission.py and
test_four_bar_linkage_transmission.py.
"""

import numpy as np

from transmission_plugins import ActuatorHandle
from transmission_plugins import DifferentialTransmission
from transmission_plugins import FourBarLinkageTransmission
from transmission_plugins import JointHandle

CLASSES = (DifferentialTransmission, FourBarLinkageTransmission)
GOOD = [1.0, 1.0]
GARBAGE = 1337.1337
KIND_INTERFACES = {
    'position': ('position', 'absolute_position'),
    'velocity': ('velocity',),
    'effort': ('effort', 'torque', 'force'),
}


def random_instances(cls, rng, count):
    """Return signed log-uniform instances, then upstream-style uniform(-1000, 1000) ones."""
    out = []
    for _ in range(count // 2):
        ar, jr = rng.choice([-1.0, 1.0], (2, 2)) * 10.0 ** rng.uniform(-2.0, 2.0, (2, 2))
        out.append(cls(ar.tolist(), jr.tolist(), rng.uniform(-10.0, 10.0, 2).tolist()))
    while len(out) < count:
        out.append(cls(*rng.uniform(-1000.0, 1000.0, (3, 2)).tolist()))
    return out


def tol(t, scale):
    """
    Return an absolute tolerance for a round trip through ``t`` at magnitude ``scale``.

    Rounding in ``J x + q_0`` is amplified by ``|J^-1|``; with a large offset and a small ``J``
    (upstream-style uniform(-1000, 1000) parameters) the offset term dominates.
    """
    a2j, j2a, offset = (np.linalg.norm(m) for m in t.linear_map())
    return 1e-13 * (a2j * j2a * (scale + offset) + j2a * offset)


def check_white_box_functional(cls, ar, jr, off, kind, a, j):
    """Check one white-box case through the functional (dict) API, both ways."""
    t = cls(ar, jr, off)
    for interface in KIND_INTERFACES[kind]:
        out = t.actuator_to_joint({interface: a})[interface]
        np.testing.assert_allclose(out, j, rtol=1e-12, atol=1e-12, err_msg=interface)
        back = t.joint_to_actuator({interface: j})[interface]
        np.testing.assert_allclose(back, a, rtol=1e-12, atol=1e-12, err_msg=interface)


def check_white_box_handles(cls, ar, jr, off, kind, a, j):
    """Check one white-box case through configured handles, both ways."""
    t = cls(ar, jr, off)
    for interface in KIND_INTERFACES[kind]:
        acts = [ActuatorHandle(f'act{i + 1}', interface, a[i]) for i in range(2)]
        joints = [JointHandle(f'joint{i + 1}', interface, GARBAGE) for i in range(2)]
        t.configure(joints, acts)
        t.actuator_to_joint()
        np.testing.assert_allclose([h.value for h in joints], j, rtol=1e-12, atol=1e-12)
        for h, v in zip(joints, j):
            h.value = v
        for h in acts:
            h.value = GARBAGE
        t.joint_to_actuator()
        np.testing.assert_allclose([h.value for h in acts], a, rtol=1e-12, atol=1e-12)


def check_closed_form(cls, closed_form):
    """
    Check ``actuator_to_joint`` of random instances of ``cls`` against ``closed_form``.

    :param closed_form: ``f(t, a)`` returning joint (position, velocity, effort) of the
        actuator values ``a`` (shape (N, 2)) from the class docstring formulas
    """
    rng = np.random.default_rng(1234)
    for t in random_instances(cls, np.random.default_rng(1234), 100):
        a = rng.uniform(-1000.0, 1000.0, (20, 2))
        pos, vel, eff = closed_form(t, a)
        out = t.actuator_to_joint({'position': a, 'velocity': a, 'effort': a})
        np.testing.assert_allclose(out['position'], pos, rtol=1e-12, atol=tol(t, 1e3))
        np.testing.assert_allclose(out['velocity'], vel, rtol=1e-12, atol=tol(t, 1e3))
        np.testing.assert_allclose(out['effort'], eff, rtol=1e-12, atol=tol(t, 1e3))
