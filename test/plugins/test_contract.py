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
The test contract: every registered plugin's ``example()`` through the same invariants.

Every entry point of the group ``transmission_plugins.transmissions`` (built in or installed by
a third-party package) is loaded and its class's ``example()`` checked; a third-party plugin
gets these tests by declaring its entry point (shown at the end with a throw-away distribution
in ``tmp_path``).  With :math:`N` actuators, :math:`M` joints, the example's actuator states
:math:`a` and their joint states :math:`j` (``actuator_to_joint(a)``, position, velocity and
effort in one call):

================================  =================================================  ==========
invariant                         applies to                                         tolerance
================================  =================================================  ==========
well-formed example               every plugin: ``type(t) is cls``, arrays           exact
                                  ``(samples, N)``, finite joint states
joint -> actuator -> joint        every shape, on :math:`j` (joint states the        1e-12
                                  mechanism reaches); joint efforts only where the
                                  actuator-to-joint effort map reads actuator efforts
joint efforts from motion         a map that declares ``joint_effort_from_motion()``  exact
                                  (a series-elastic spring): the joint efforts come
                                  from positions and velocities, the same with NaN
                                  actuator efforts or none given
actuator -> joint -> actuator     :math:`N \le M` (the map is one-to-one); for      1e-12
                                  :math:`N > M` actuator states differing by the
                                  null space reach the same joints, and the trip
                                  above covers them
unread joints                     the joints outside ``joint_to_actuator_inputs()``  exact
                                  (passive followers): NaN there changes nothing
velocity = finite difference      every plugin, both directions, along the           1e-6
of position                       example's velocities
power ``u.dtheta = tau.dq``       :math:`N = M`, both directions; a non-square map   1e-9
                                  has joint efforts of its own rule (least squares,
                                  or the builder's, as the PR2 gripper's C++)
batches equal single samples      every plugin: shapes ``(k,)``, ``(2, k)``,         1e-14
                                  ``(samples, k)``, ``(samples, 1, k)``,
                                  ``(2, samples, k)``
================================  =================================================  ==========

Tolerances are relative: an entry may differ by the tolerance times the largest magnitude of
that quantity in the example (for power, times the sum of the magnitudes of the products).
"""

import numpy as np
import pytest

from test_plugin_loader import fake_distribution
from transmission_plugins.core.interfaces import EFFORT
from transmission_plugins.core.interfaces import POSITION
from transmission_plugins.core.interfaces import VELOCITY
from transmission_plugins.plugins import find_transmission_plugins
from transmission_plugins.plugins import load_transmission_class

KINDS = (POSITION, VELOCITY, EFFORT)
ROUND_TRIP = 1e-12
FINITE_DIFFERENCE = 1e-6
#: the step of a finite difference, relative to the position's magnitude (plus 1)
STEP = 1e-6
POWER = 1e-9
BATCH = 1e-14

PLUGINS = find_transmission_plugins()


def load_example(cls):
    """Check ``cls.example()``; return the transmission, its actuator and its joint states."""
    result = cls.example()
    assert isinstance(result, tuple) and len(result) == 2, f'{cls.__name__}.example() ' \
        'must return (transmission, states)'
    t, states = result
    assert type(t) is cls, f'{cls.__name__}.example() returned a {type(t).__name__}'
    assert set(states) >= set(KINDS), f'states need {KINDS}, got {sorted(states)}'
    a = {k: np.asarray(states[k], dtype=np.float64) for k in KINDS}
    samples = a[POSITION].shape[0] if a[POSITION].ndim == 2 else 0
    for k in KINDS:
        assert a[k].shape == (samples, t.num_actuators()) and samples >= 1, \
            f'{k}: expected (samples, {t.num_actuators()}), got {a[k].shape}'
        assert np.all(np.isfinite(a[k])), k
    j = t.actuator_to_joint(a)
    for k in KINDS:
        assert j[k].shape == (samples, t.num_joints())
        assert np.all(np.isfinite(j[k])), f'{k}: an example state outside the working range'
    return t, a, j


def close(actual, expected, tolerance, what):
    """Assert ``actual == expected`` to ``tolerance`` relative to the largest ``|expected|``."""
    scale = float(np.max(np.abs(expected), initial=0.0))
    np.testing.assert_allclose(actual, expected, rtol=tolerance, atol=tolerance * scale,
                               err_msg=what)


# ------------------------------------------------------------------------------ the checks
def check_example(cls):
    """Check that the example is well formed (:func:`load_example` asserts it)."""
    load_example(cls)


def check_round_trips(cls):
    """Joint -> actuator -> joint on reachable joint states; actuator round trips if N <= M."""
    t, a, j = load_example(cls)
    back = t.joint_to_actuator(j)
    again = t.actuator_to_joint(back)
    for k in KINDS:
        if k == EFFORT and t.joint_effort_from_motion():
            continue   # the joint effort is the spring's: check_effort_from_motion
        close(again[k], j[k], ROUND_TRIP, f'joint -> actuator -> joint {k}')
        if t.num_actuators() <= t.num_joints():
            close(back[k], a[k], ROUND_TRIP, f'actuator -> joint -> actuator {k}')


def check_unread_joints(cls):
    """Joints outside ``joint_to_actuator_inputs()`` never reach the actuators (NaN there)."""
    t, _, j = load_example(cls)
    inputs = t.joint_to_actuator_inputs()
    assert list(inputs) == sorted(set(inputs)) and set(inputs) <= set(range(t.num_joints()))
    others = [i for i in range(t.num_joints()) if i not in inputs]
    poisoned = {k: v.copy() for k, v in j.items()}
    for v in poisoned.values():
        v[:, others] = np.nan
    out, expected = t.joint_to_actuator(poisoned), t.joint_to_actuator(j)
    for k in KINDS:
        np.testing.assert_array_equal(out[k], expected[k], err_msg=k)


def check_effort_from_motion(cls):
    """Check that a joint effort from motion reads no actuator effort (NaN there, or none)."""
    t, a, j = load_example(cls)
    if not t.joint_effort_from_motion():
        return
    poisoned = t.actuator_to_joint({**a, EFFORT: np.full_like(a[EFFORT], np.nan)})
    np.testing.assert_array_equal(poisoned[EFFORT], j[EFFORT])
    motion = t.actuator_to_joint({POSITION: a[POSITION], VELOCITY: a[VELOCITY]})
    np.testing.assert_array_equal(motion[EFFORT], j[EFFORT])
    still = t.actuator_to_joint({POSITION: a[POSITION], EFFORT: a[EFFORT]})
    assert np.isnan(still[EFFORT]).all(), 'without velocities a joint effort from motion is NaN'


def _derivative(convert, position, velocity):
    """Return the central difference of ``convert``'s position map along ``velocity``."""
    speed = np.max(np.abs(velocity), axis=-1, keepdims=True)
    h = STEP * (1.0 + np.max(np.abs(position), axis=-1, keepdims=True)) / np.where(
        speed > 0.0, speed, 1.0)
    ahead = convert({POSITION: position + h * velocity})[POSITION]
    behind = convert({POSITION: position - h * velocity})[POSITION]
    return (ahead - behind) / (2.0 * h)


def check_velocity_is_the_derivative(cls):
    """Velocities equal central finite differences of the position map, both directions."""
    t, a, j = load_example(cls)
    fd = _derivative(t.actuator_to_joint, a[POSITION], a[VELOCITY])
    close(fd, j[VELOCITY], FINITE_DIFFERENCE, 'actuator -> joint velocity')
    back = t.joint_to_actuator({POSITION: j[POSITION], VELOCITY: j[VELOCITY]})
    fd = _derivative(t.joint_to_actuator, j[POSITION], j[VELOCITY])
    close(fd, back[VELOCITY], FINITE_DIFFERENCE, 'joint -> actuator velocity')


def _power_balance(effort_a, velocity_a, effort_j, velocity_j, what):
    actuator = effort_a * velocity_a
    joint = effort_j * velocity_j
    scale = np.abs(actuator).sum(axis=-1) + np.abs(joint).sum(axis=-1)
    gap = np.abs(actuator.sum(axis=-1) - joint.sum(axis=-1))
    assert np.all(gap <= POWER * np.maximum(scale, np.max(scale))), f'{what}: {gap} / {scale}'


def check_power(cls):
    """``u . dtheta = tau . dq`` both ways where the map is square (N = M)."""
    t, a, j = load_example(cls)
    if t.num_actuators() != t.num_joints():
        return  # joint efforts of their own rule: see the module docstring
    _power_balance(a[EFFORT], a[VELOCITY], j[EFFORT], j[VELOCITY], 'actuator -> joint')
    # other joint velocities and efforts at the same positions (any is reachable when square)
    commands = {POSITION: j[POSITION], VELOCITY: np.roll(j[VELOCITY], 1, axis=0),
                EFFORT: np.roll(j[EFFORT], -1, axis=0)}
    out = t.joint_to_actuator(commands)
    _power_balance(out[EFFORT], out[VELOCITY], commands[EFFORT], commands[VELOCITY],
                   'joint -> actuator')


def check_batches(cls):
    """One sample ``(k,)``, pairs ``(2, k)`` and nested batches give the single-sample values."""
    t, a, j = load_example(cls)
    samples = a[POSITION].shape[0]
    for convert, source, width in ((t.actuator_to_joint, a, t.num_joints()),
                                   (t.joint_to_actuator, j, t.num_actuators())):
        single = [convert({k: v[s] for k, v in source.items()}) for s in range(samples)]
        expected = {k: np.stack([out[k] for out in single]) for k in KINDS}
        assert all(out[k].shape == (width,) for out in single for k in KINDS)
        shaped = {
            'pairs (2, k)': (lambda v, s: v[s:s + 2], lambda e, s: e[s:s + 2]),
            'all (samples, k)': (lambda v, s: v, lambda e, s: e),
            'nested (samples, 1, k)': (lambda v, s: v[:, None], lambda e, s: e[:, None]),
            'stacked (2, samples, k)': (lambda v, s: np.stack([v, v[::-1]]),
                                        lambda e, s: np.stack([e, e[::-1]])),
        }
        for what, (arrange, expect) in shaped.items():
            for s in range(max(samples - 1, 1)):
                out = convert({k: arrange(v, s) for k, v in source.items()})
                for k in KINDS:
                    close(out[k], expect(expected[k], s), BATCH, f'{what}: {k}')


CHECKS = (check_example, check_round_trips, check_effort_from_motion, check_unread_joints,
          check_velocity_is_the_derivative, check_power, check_batches)


@pytest.mark.parametrize('check', CHECKS, ids=[c.__name__[len('check_'):] for c in CHECKS])
@pytest.mark.parametrize('name', [p.name for p in PLUGINS])
def test_registered_plugin(name, check):
    check(load_transmission_class(name, plugins=PLUGINS))


def test_every_built_in_plugin_is_registered():
    names = {p.name for p in PLUGINS}
    assert {'transmission_interface/SimpleTransmission', 'pr2_mechanism_model/WristTransmission',
            'pr2_mechanism_model/PR2GripperTransmission',
            'transmission_plugins/CouplingTransmission', 'sr_mechanism_model/J0Transmission',
            'sr_mechanism_model/J0TransmissionForMuscle',
            'sr_mechanism_model/SimpleTransmission'} <= names


# ------------------------------------------------------------------------------ third party
#: A third-party nonlinear mechanism: a linear actuator (m) pushes a lever of arm L at its end,
#: q = atan(theta / L); the joint-to-actuator direction is derived by Newton's method.  The
#: broken variant's Jacobian is twice too large, which only the finite differences can see
#: (its velocities, efforts and power stay consistent with that Jacobian).
LEVER_MODULE = '''
import numpy as np

from transmission_plugins.core.mechanism import Mechanism


class LeverTransmission(Mechanism):
    """Push a lever of arm L with a linear actuator: q = atan(theta / L)."""

    def __init__(self, arm=0.05):
        super().__init__()
        self.arm = arm

    def num_actuators(self):
        return 1

    def num_joints(self):
        return 1

    def joint_position(self, actuator_position):
        return np.arctan(self._position(actuator_position, 'actuator', 1) / self.arm)

    def actuator_to_joint_jacobian(self, actuator_position=None):
        theta = self._position(actuator_position, 'actuator', 1)
        return (self.arm / (self.arm ** 2 + theta ** 2))[..., None]

    @classmethod
    def example(cls):
        return cls(0.05), {'position': np.array([[-0.03], [0.0], [0.04]]),
                           'velocity': np.array([[0.1], [-0.2], [0.05]]),
                           'effort': np.array([[20.0], [-5.0], [0.0]])}


class BrokenLeverTransmission(LeverTransmission):
    """A lever whose Jacobian is wrong by a factor of two."""

    def actuator_to_joint_jacobian(self, actuator_position=None):
        return 2.0 * super().actuator_to_joint_jacobian(actuator_position)
'''


@pytest.fixture
def lever_plugins(tmp_path, monkeypatch):
    """Install a fake third-party distribution declaring the two lever entry points."""
    dist, _ = fake_distribution(tmp_path, {
        'acme/LeverTransmission': '{module}:LeverTransmission',
        'acme/BrokenLeverTransmission': '{module}:BrokenLeverTransmission'}, LEVER_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    return find_transmission_plugins([dist])


def test_a_third_party_plugin_gets_the_contract_by_its_entry_point(lever_plugins):
    assert [p.name for p in lever_plugins] == ['acme/BrokenLeverTransmission',
                                               'acme/LeverTransmission']
    lever = load_transmission_class('acme/LeverTransmission', plugins=lever_plugins)
    for check in CHECKS:
        check(lever)
    broken = load_transmission_class('acme/BrokenLeverTransmission', plugins=lever_plugins)
    for check in CHECKS:
        if check is not check_velocity_is_the_derivative:
            check(broken)
    with pytest.raises(AssertionError, match='actuator -> joint velocity'):
        check_velocity_is_the_derivative(broken)


def test_a_class_without_an_example_fails_the_contract(tmp_path, monkeypatch):
    dist, _ = fake_distribution(tmp_path, {'acme/Bare': '{module}:Bare'}, """
        from transmission_plugins.core.linear import LinearTransmission


        class Bare(LinearTransmission):
            def __init__(self):
                super().__init__()
                self._set_linear_map([[2.0]], [[0.5]], [0.0])
        """)
    monkeypatch.syspath_prepend(str(tmp_path))
    bare = load_transmission_class('acme/Bare', plugins=find_transmission_plugins([dist]))
    with pytest.raises(NotImplementedError, match='Bare defines no example'):
        check_example(bare)
