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

"""The rotor simulator behind mock_actuators: convergence, limits, modes, stability, bad calls."""

import math

import numpy as np
import pytest

from transmission_plugins import TransmissionValueError
from transmission_plugins.robot.actuators import ActuatorModel
from transmission_plugins.robot.actuators import pd_effort
from transmission_plugins.runtime.simulator import ActuatorSimulator


def _run(sim, seconds, dt=0.01):
    for _ in range(int(round(seconds / dt))):
        sim.step(dt)


def test_simulator_converges_to_a_position_target():
    models = [ActuatorModel('a', rotor_inertia=1e-4, kp=0.5, kd=0.02),
              ActuatorModel('b'),  # zero rotor inertia: the minimum inertia is used
              ActuatorModel('c', rotor_inertia=1e-6, gear_ratio=10.0)]
    sim = ActuatorSimulator(models)
    assert sim.names == ['a', 'b', 'c'] and sim.modes == ['effort'] * 3
    sim.set_command('position', [1.0, -2.0, 3.0])
    _run(sim, 2.0)
    state = sim.state()
    np.testing.assert_allclose(state['position'], [1.0, -2.0, 3.0], atol=1e-3)
    np.testing.assert_allclose(state['velocity'], 0.0, atol=1e-2)
    assert sim.modes == ['position'] * 3


def test_simulator_respects_the_effort_limit():
    inertia, limit, target = 1e-3, 0.05, 10.0
    sim = ActuatorSimulator([ActuatorModel('a', effort_limit=limit, rotor_inertia=inertia,
                                           kp=0.2, kd=0.05)])
    sim.set_command(['position'], [target])
    peak = 0.0
    for _ in range(50):
        sim.step(0.01)
        peak = max(peak, abs(sim.state()['effort'][0]))
    assert peak == pytest.approx(limit)  # saturated, never above
    # bang-bang is the fastest possible: after 0.5 s at most L t^2 / (2 I) (plus the O(h) of
    # semi-implicit Euler), so the target is not reached before sqrt(2 d I / L) = 0.63 s
    assert sim.state()['position'][0] <= 0.5 * limit / inertia * 0.5 ** 2 * (1 + 1e-3)
    _run(sim, 5.0)
    assert sim.state()['position'][0] == pytest.approx(target, abs=1e-3)


def test_simulator_velocity_and_effort_modes():
    sim = ActuatorSimulator([ActuatorModel('v', rotor_inertia=1e-4),
                             ActuatorModel('e', rotor_inertia=1e-2)], position=[1.0, 2.0])
    sim.set_command(['velocity', 'effort'], [3.0, 0.5])
    _run(sim, 1.0)
    state = sim.state()
    assert state['velocity'][0] == pytest.approx(3.0, rel=1e-6)
    # constant effort, no damping: v = u t / I and q = q0 + u t^2 / (2 I) (to O(h))
    assert state['velocity'][1] == pytest.approx(0.5 * 1.0 / 1e-2, rel=1e-9)
    assert state['position'][1] == pytest.approx(2.0 + 0.5 / (2 * 1e-2), rel=1e-2)
    assert state['effort'][1] == 0.5


def test_simulator_nan_and_none_keep_the_previous_command():
    sim = ActuatorSimulator([ActuatorModel('a'), ActuatorModel('b')])
    sim.set_command('position', [1.0, 2.0])
    sim.set_command(['effort', None], [np.nan, 5.0])
    assert sim.modes == ['position', 'position']
    _run(sim, 1.0)
    np.testing.assert_allclose(sim.state()['position'], [1.0, 2.0], atol=1e-3)


def test_simulator_is_stable_with_stiff_gains():
    sim = ActuatorSimulator([ActuatorModel('a', rotor_inertia=1e-7, kp=1e4, kd=1.0)])
    sim.set_command('position', [0.1])
    _run(sim, 0.5, dt=0.02)
    assert sim.state()['position'][0] == pytest.approx(0.1, abs=1e-6)


def test_simulator_damping_and_reset():
    sim = ActuatorSimulator([ActuatorModel('a', rotor_inertia=1e-2)], damping=0.1)
    sim.reset(velocity=[1.0])
    _run(sim, 0.5)
    assert sim.state()['velocity'][0] == pytest.approx(math.exp(-0.1 / 1e-2 * 0.5), rel=0.05)
    state = sim.state()
    state['position'][:] = 99.0
    assert sim.state()['position'][0] != 99.0  # copies
    sim.reset([4.0])
    assert sim.state()['position'][0] == 4.0 and sim.state()['velocity'][0] == 0.0


@pytest.mark.parametrize('call', [
    lambda s: s.set_command('torque', [1.0]), lambda s: s.set_command('position', [1.0, 2.0]),
    lambda s: s.set_command(['position', 'effort'], [1.0]), lambda s: s.step(0.0),
    lambda s: s.step(math.nan), lambda s: s.reset([math.inf]), lambda s: s.reset([1.0, 2.0])])
def test_simulator_rejects_bad_calls(call):
    sim = ActuatorSimulator([ActuatorModel('a')])
    with pytest.raises(TransmissionValueError):
        call(sim)


@pytest.mark.parametrize('kwargs', [
    {'damping': -1.0}, {'min_inertia': 0.0}, {'bandwidth': math.inf}])
def test_simulator_rejects_bad_options(kwargs):
    with pytest.raises(TransmissionValueError, match=next(iter(kwargs))):
        ActuatorSimulator([ActuatorModel('a')], **kwargs)


def test_simulator_position_mode_obeys_the_shared_pd_law():
    """The simulator's PD effort is pd_effort's, bit for bit (one implementation of the law)."""
    models = [ActuatorModel('a', rotor_inertia=1e-4, kp=0.5, kd=0.02, effort_limit=0.3),
              ActuatorModel('b', rotor_inertia=2e-4, kp=3.0, kd=0.1)]
    sim = ActuatorSimulator(models)
    sim.reset(position=[0.2, -0.4], velocity=[1.5, -0.5])
    sim.set_command('position', [1.0, 2.0])
    sim.step(1e-4)
    expected = pd_effort([0.2, -0.4], [1.5, -0.5], [1.0, 2.0], 0.0, 0.0, [0.5, 3.0],
                         [0.02, 0.1], [0.3, math.inf])
    np.testing.assert_array_equal(sim.state()['effort'], expected)


# ---------------------------------------------------------------------- hostile values
def test_a_rotor_whose_step_overflows_stays_where_it_was_at_rest():
    """An unlimited effort towards 1e300 overflowed to NaN, which the mock then published."""
    models = [ActuatorModel('free', rotor_inertia=1e-6, kp=1e6, kd=1.0),
              ActuatorModel('limited', rotor_inertia=1e-4, kp=1.0, kd=0.1, effort_limit=2.0)]
    sim = ActuatorSimulator(models, position=[0.5, 0.0])
    sim.set_command('position', [1e308, 1e308])
    for _ in range(5):
        sim.step(0.01)
        state = sim.state()
        assert all(np.isfinite(v).all() for v in state.values())
    assert state['position'][0] == 0.5 and state['velocity'][0] == 0.0
    assert sim.diverged >= 1
    assert state['position'][1] > 0.0          # the limited one moves, at its effort limit
    assert abs(state['effort'][1]) == pytest.approx(2.0)


def test_gains_that_cannot_be_integrated_are_refused_naming_the_actuator():
    models = [ActuatorModel('ok'), ActuatorModel('wild', rotor_inertia=1e-300, kp=1e308)]
    with pytest.raises(TransmissionValueError, match="'wild'.*kp, kd.*cannot be integrated"):
        ActuatorSimulator(models, min_inertia=1e-300)


def test_a_reflected_inertia_that_overflows_is_refused():
    """gear_ratio ** 2 raised OverflowError in reflected_inertia (outside the error tree)."""
    with pytest.raises(TransmissionValueError, match='gear_ratio.*square times the rotor'):
        ActuatorModel('m', rotor_inertia=1.0, gear_ratio=1e308)
    assert ActuatorModel('m', rotor_inertia=0.0, gear_ratio=1e308).reflected_inertia() == 0.0
