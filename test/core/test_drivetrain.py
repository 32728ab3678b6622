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
The drivetrain models against independent references.

Friction against its formula written out per sample, the play operator against a contact state
machine, the torque-speed envelope against the line's closed form and ``np.interp`` per motor,
the winding temperature against a fine explicit integration of its differential equation, and
the robot's arrays against the URDF's numbers worked by hand.
"""

import math
from pathlib import Path

import numpy as np
import pytest

from transmission_plugins import load_robot_transmissions
from transmission_plugins.core.drivetrain import Backlash
from transmission_plugins.core.drivetrain import current_limit
from transmission_plugins.core.drivetrain import envelope_bounds
from transmission_plugins.core.drivetrain import Friction
from transmission_plugins.core.drivetrain import Motor
from transmission_plugins.core.drivetrain import play
from transmission_plugins.core.drivetrain import Thermal
from transmission_plugins.core.drivetrain import TorqueSpeed
from transmission_plugins.core.drivetrain import winding_temperature
from transmission_plugins.core.exceptions import TransmissionValueError

EXAMPLE = Path(__file__).resolve().parents[2] / 'urdf' / 'drivetrain_robot.urdf'


# ------------------------------------------------------------------------------ friction
def _stribeck_by_hand(v, fs, fc, b, vs):
    if v == 0.0:
        return 0.0
    direction = 1.0 if v > 0.0 else -1.0
    return direction * (fc + (fs - fc) * math.exp(-(v / vs) ** 2)) + b * v


def test_friction_follows_the_stribeck_formula_sample_by_sample():
    f = Friction(coulomb=0.8, viscous=0.05, static=1.2, stribeck_velocity=0.3)
    speeds = [-50.0, -1.0, -0.3, -1e-6, 0.0, 1e-6, 0.01, 0.3, 0.9, 50.0]
    got = f.torque(speeds)
    want = [_stribeck_by_hand(v, 1.2, 0.8, 0.05, 0.3) for v in speeds]
    np.testing.assert_allclose(got, want, rtol=1e-14, atol=0.0)
    # the breakaway just off rest is the static friction, far from it Coulomb plus viscous
    assert got[5] == pytest.approx(1.2, abs=1e-6)
    assert got[-1] == pytest.approx(0.8 + 0.05 * 50.0, rel=1e-12)
    np.testing.assert_array_equal(got, -f.torque(-np.array(speeds)))    # odd
    assert np.isnan(f.torque([math.nan]))[0]


def test_friction_without_stribeck_is_coulomb_plus_viscous():
    f = Friction(coulomb=0.5, viscous=0.1)
    assert f.static == 0.5 and f.stribeck_velocity is None
    np.testing.assert_allclose(f.torque([-2.0, 0.0, 1e-9, 3.0]), [-0.7, 0.0, 0.5 + 1e-10, 0.8],
                               rtol=1e-12)


@pytest.mark.parametrize(('fields', 'parameter'), [
    ({'coulomb': -0.1}, 'coulomb'),
    ({'coulomb': math.nan}, 'coulomb'),
    ({'viscous': math.inf}, 'viscous'),
    ({'coulomb': 1.0, 'static': 0.5, 'stribeck_velocity': 1.0}, 'static'),
    ({'coulomb': 1.0, 'static': 1.5}, 'stribeck_velocity'),
    ({'coulomb': 1.0, 'static': 1.5, 'stribeck_velocity': 0.0}, 'stribeck_velocity'),
    ({'coulomb': True}, 'coulomb'),
    ({'coulomb': 'x'}, 'coulomb'),
])
def test_friction_refuses_what_cannot_be_friction(fields, parameter):
    with pytest.raises(TransmissionValueError) as e:
        Friction(where='here', **fields)
    assert e.value.parameter == parameter and str(e.value).startswith('here: ')


# ------------------------------------------------------------------------------ backlash
def _contact_machine(inputs, width, start):
    """Return the driven side of a gear with play, as a state machine of which flank touches."""
    out, y = [], start
    for x in inputs:
        if x - y >= width / 2:          # the driving flank pushes forward
            y = x - width / 2
        elif y - x >= width / 2:        # the other flank pushes back
            y = x + width / 2
        out.append(y)                   # inside the play: the output stays where it is
    return np.array(out)


def test_the_play_operator_is_a_gear_with_a_dead_band():
    width = 0.2
    t = np.linspace(0.0, 4.0 * math.pi, 2001)
    x = 0.5 * np.sin(t) + 0.03 * np.sin(7.3 * t)
    y, got = 0.0, []
    for xi in x:
        y = float(play(y, xi, width))
        got.append(y)
    np.testing.assert_allclose(got, _contact_machine(x, width, 0.0), rtol=0.0, atol=1e-15)
    # the output never leaves the band around the input, and its swing is the input's minus
    # the play
    assert np.all(np.abs(np.array(got) - x) <= width / 2 + 1e-15)
    assert max(got[1000:]) == pytest.approx(max(x[1000:]) - width / 2, abs=1e-12)


def test_play_starts_at_the_input_when_the_output_is_unknown_and_keeps_nan():
    np.testing.assert_array_equal(play([math.nan, 0.0], [0.3, math.nan], 0.1),
                                  [0.3, math.nan])
    with pytest.raises(TransmissionValueError):
        Backlash(-0.01)


# ------------------------------------------------------------------------------ envelope
def test_the_torque_speed_line_gives_its_closed_form():
    line = TorqueSpeed.line(peak_torque=2.0, max_speed=100.0)
    v = np.array([0.0, 25.0, 50.0, 99.0, 100.0, 150.0, -25.0, -150.0])
    lower, upper = line.bounds(v)
    motoring = 2.0 * np.clip(1.0 - np.abs(v) / 100.0, 0.0, 1.0)
    # in the direction of motion, the line; against it (braking) and at rest, the peak
    np.testing.assert_allclose(upper, np.where(v >= 0.0, np.where(v > 0, motoring, 2.0), 2.0))
    np.testing.assert_allclose(lower, np.where(v < 0.0, -motoring, -2.0))
    lower, upper = line.bounds(math.nan)
    assert (lower, upper) == (-2.0, 2.0)


def test_tables_of_different_lengths_interpolate_like_np_interp_per_motor():
    tables = [((0.0, 300.0, 600.0), (0.4, 0.4, 0.0)),
              ((0.0, 50.0), (3.0, 1.0)),
              ((0.0, 10.0, 20.0, 40.0), (5.0, 4.0, 2.0, 0.5))]
    width = max(len(s) for s, _ in tables)
    speeds = np.array([s + (s[-1],) * (width - len(s)) for s, _ in tables])
    torques = np.array([t + (t[-1],) * (width - len(t)) for _, t in tables])
    rng = np.random.default_rng(7)
    v = rng.uniform(-700.0, 700.0, size=(50, 3))
    lower, upper = envelope_bounds(v, speeds, torques)
    for m, (s, t) in enumerate(tables):
        along = np.interp(np.abs(v[:, m]), s, t)   # holds the last torque beyond the table
        np.testing.assert_allclose(upper[:, m], np.where(v[:, m] > 0, along, t[0]),
                                   rtol=1e-12)
        np.testing.assert_allclose(lower[:, m], np.where(v[:, m] < 0, -along, -t[0]),
                                   rtol=1e-12)


@pytest.mark.parametrize(('speeds', 'torques'), [
    ((0.0,), (1.0,)), ((1.0, 2.0), (1.0, 0.0)), ((0.0, 2.0, 1.0), (1.0, 1.0, 0.0)),
    ((0.0, 1.0), (1.0, 2.0)), ((0.0, 1.0), (0.0, 0.0)), ((0.0, 1.0), (1.0,)),
    ((0.0, 1.0), (1.0, -1.0))])
def test_tables_that_are_no_envelope_are_refused(speeds, torques):
    with pytest.raises(TransmissionValueError):
        TorqueSpeed(speeds, torques)


# ------------------------------------------------------------------------------ thermal
def _euler(temperature, current, seconds, r, rth, tau, ambient, steps):
    h = seconds / steps
    for _ in range(steps):
        temperature += h * (ambient + rth * r * current * current - temperature) / tau
    return temperature


def test_the_winding_temperature_solves_its_differential_equation():
    r, rth, tau, ambient = 0.6, 4.0, 20.0, 25.0
    exact = winding_temperature(25.0, 7.0, 30.0, r, rth, tau, ambient)
    assert exact == pytest.approx(_euler(25.0, 7.0, 30.0, r, rth, tau, ambient, 200000),
                                  rel=1e-5)
    # exact at any step: two half steps are one whole step
    half = winding_temperature(25.0, 7.0, 15.0, r, rth, tau, ambient)
    assert winding_temperature(half, 7.0, 15.0, r, rth, tau, ambient) == pytest.approx(
        exact, rel=1e-13)
    # and it cools back towards the ambient
    assert winding_temperature(80.0, 0.0, 1e6, r, rth, tau, ambient) == pytest.approx(25.0)


def test_the_continuous_current_holds_the_winding_at_its_maximum():
    model = Thermal(resistance=0.6, thermal_resistance=4.0, time_constant=20.0,
                    max_temperature=100.0)
    ic = model.continuous_current
    assert ic == pytest.approx(math.sqrt(75.0 / 2.4))
    steady = winding_temperature(25.0, ic, 1e6, 0.6, 4.0, 20.0, 25.0)
    assert steady == pytest.approx(100.0, rel=1e-12)
    assert model.warning_temperature == pytest.approx(25.0 + 0.8 * 75.0)


def test_derating_keeps_a_motor_that_asks_for_its_peak_below_its_maximum():
    model = Thermal(resistance=0.6, thermal_resistance=4.0, time_constant=20.0,
                    max_temperature=100.0, warning_temperature=80.0)
    peak, ic = 20.0, model.continuous_current
    limits = current_limit([25.0, 80.0, 90.0, 100.0, 140.0, math.nan], peak, ic, 80.0, 100.0)
    np.testing.assert_allclose(limits, [peak, peak, (peak + ic) / 2, ic, ic, ic])
    temperature = 25.0
    for _ in range(20000):   # 200 s at 10 ms, always drawing what the limit allows
        allowed = float(current_limit(temperature, peak, ic, 80.0, 100.0))
        temperature = float(winding_temperature(temperature, allowed, 0.01, 0.6, 4.0, 20.0,
                                                25.0))
        assert temperature <= 100.0 + 1e-9
    assert temperature > 99.0   # it does use the budget


@pytest.mark.parametrize(('fields', 'parameter'), [
    ({'resistance': 0.0}, 'resistance'),
    ({'time_constant': -1.0}, 'time_constant'),
    ({'max_temperature': 20.0}, 'max_temperature'),
    ({'warning_temperature': 120.0}, 'warning_temperature'),
    ({'ambient_temperature': math.inf}, 'ambient_temperature'),
])
def test_thermal_models_that_cannot_be_are_refused(fields, parameter):
    values = {'resistance': 0.6, 'thermal_resistance': 4.0, 'time_constant': 20.0,
              'max_temperature': 100.0}
    values.update(fields)
    with pytest.raises(TransmissionValueError) as e:
        Thermal(**values)
    assert e.value.parameter == parameter


def test_a_motor_needs_a_torque_constant_and_a_peak_to_heat_and_derate():
    thermal = Thermal(0.6, 4.0, 20.0, 100.0)
    line = TorqueSpeed.line(0.5, 500.0)
    motor = Motor(torque_constant=0.05, torque_speed=line, thermal=thermal)
    assert motor.peak_current == pytest.approx(10.0)
    with pytest.raises(TransmissionValueError, match='torque_constant'):
        Motor(torque_speed=line, thermal=thermal)
    with pytest.raises(TransmissionValueError, match='peak_current'):
        Motor(torque_constant=0.05, thermal=thermal)
    with pytest.raises(TransmissionValueError, match='continuous current'):
        Motor(torque_constant=0.05, thermal=thermal, peak_current=1.0)


# ------------------------------------------------------------------------------ the robot
def test_the_example_robots_drivetrain_by_hand():
    d = load_robot_transmissions(EXAMPLE, warn=False).drivetrain
    assert d.models_anything
    # hip, knee, ankle motors; the ankle's joint-side encoder has no motor
    np.testing.assert_allclose(d.effort_per_current, [0.05, 0.05, 0.05, math.nan])
    np.testing.assert_allclose(d.joint_friction.coulomb, [0.8, 0.5, 0.0])
    np.testing.assert_allclose(d.actuator_friction.breakaway(), [0.006, 0.0, 0.003, 0.0])
    np.testing.assert_allclose(d.joint_backlash, [0.005, 0.0, 0.0])
    # hip: the line 0.5 N m at rest to 0 at 500 rad/s; knee: flat 0.4 to 300, 0 at 600;
    # ankle: the line 0.4 N m at rest to 0 at 600 rad/s (0.2 at 300); encoder: unlimited
    lower, upper = d.effort_bounds(np.array([250.0, 450.0, 300.0, 0.0]))
    np.testing.assert_allclose(upper, [0.25, 0.2, 0.2, math.inf])
    np.testing.assert_allclose(lower, [-0.5, -0.4, -0.4, -math.inf])
    # heating: only the hip has a model; 25 C, 20 s at 6 A
    t = d.heat(d.initial_temperature(), np.array([0.3, 0.3, 0.3, 0.0]), 20.0)
    steady = 25.0 + 4.0 * 0.6 * 36.0
    assert t[0] == pytest.approx(steady + (25.0 - steady) * math.exp(-1.0))
    assert np.isnan(t[1:]).all()


def test_a_gearhead_scales_the_motor_to_the_actuator_coordinate():
    urdf = EXAMPLE.read_text().replace(
        '<mechanicalReduction>40</mechanicalReduction>',
        '<mechanicalReduction>40</mechanicalReduction><param name="gear_ratio">2</param>')
    d = load_robot_transmissions(urdf, warn=False).drivetrain
    assert d.effort_per_current[0] == pytest.approx(0.1)
    # 2x the torque, half the speed: 1 N m at rest, 0 at 250 rad/s at the actuator
    lower, upper = d.effort_bounds(np.array([125.0, 0.0, 0.0, 0.0]))
    assert upper[0] == pytest.approx(0.5) and lower[0] == pytest.approx(-1.0)


def test_a_robot_without_drivetrain_elements_is_neutral():
    urdf = '\n'.join(line for line in EXAMPLE.read_text().splitlines()
                     if not any(t in line for t in ('<friction', '<backlash', '<motor',
                                                    '</motor', 'resistance=', 'max_temperature',
                                                    '<torque_speed')))
    d = load_robot_transmissions(urdf, warn=False).drivetrain
    assert not d.models_anything
    lower, upper = d.effort_bounds(np.array([1e3, -1e3, 1e3, 0.0]), np.full(4, 500.0))
    assert np.all(np.isinf(lower)) and np.all(np.isinf(upper))
    np.testing.assert_array_equal(d.joint_friction.torque(np.array([1.0, -1.0, 1.0])),
                                  [0.0, 0.0, 0.0])
