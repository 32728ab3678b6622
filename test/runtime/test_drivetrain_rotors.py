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
The rotor physics with a drivetrain, against closed forms written out here.

Friction (terminal velocity, breakaway, no chatter), the torque-speed envelope (the speed where
the line meets the load), the winding temperature (first order) and its derating; and a robot
without drivetrain data simulated bit for bit as before (values recorded from the code before
the drivetrain, commit 70eb49e).
"""

import math

from drivetrain_cases import one_joint
import numpy as np
import pytest
from transmission_plugins.robot.loading import load_robot_transmissions
from transmission_plugins.runtime.simulator import ActuatorSimulator
from transmission_plugins.runtime.simulator import unsimulated_backlash
from transmission_plugins.tools.launch.node_plan import default_description_file
from transmission_plugins.tools.launch.node_plan import read_description

DT = 0.005
#: joint side (reduction 10) and motor side; at the actuator F_c = 0.01 + 0.5/10 = 0.06 N m,
#: b = 0.001 + 0.2/10^2 = 0.003 N m s/rad
FRICTION = {'joint': '<friction coulomb="0.5" viscous="0.2"/>',
            'actuator': '<friction coulomb="0.01" viscous="0.001"/>'}
F_C, B = 0.06, 0.003


def _sim(text, **kwargs):
    robot = load_robot_transmissions(text, warn=False)
    models = [robot.actuator_models[n] for n in robot.actuator_names]
    return ActuatorSimulator(models, robot=robot, **kwargs)


def _run(sim, seconds):
    out = []
    for _ in range(int(round(seconds / DT))):
        sim.step(DT)
        out.append(sim.state())
    return out


def test_a_driven_rotor_reaches_the_terminal_velocity_of_its_friction():
    sim = _sim(one_joint(**FRICTION))
    u, inertia = 0.15, 1e-4
    sim.set_command('effort', [u])
    states = _run(sim, 1.0)
    terminal = (u - F_C) / B   # 30 rad/s
    assert states[-1]['velocity'][0] == pytest.approx(terminal, rel=0.01)
    # and on its way there, v = v_inf (1 - exp(-b t / I)) (tau = I / b = 33 ms)
    tau = inertia / B
    for k in (4, 9, 19):
        t = (k + 1) * DT
        expected = terminal * (1 - math.exp(-t / tau))
        assert states[k]['velocity'][0] == pytest.approx(expected, rel=0.02), t
    assert states[-1]['effort'][0] == u


def test_a_rotor_below_its_breakaway_friction_stays_exactly_at_rest():
    # Stribeck: static 0.03 at the motor; the breakaway is 0.03 + 0.5/10 = 0.08 N m
    sim = _sim(one_joint(joint='<friction coulomb="0.5"/>',
                         actuator='<friction coulomb="0.01" static="0.03" '
                                  'stribeck_velocity="0.5"/>'))
    sim.set_command('effort', [0.079])   # above the Coulomb level 0.06, below the breakaway
    states = _run(sim, 0.5)
    assert all(s['position'][0] == 0.0 and s['velocity'][0] == 0.0 for s in states)
    sim.set_command('effort', [-0.079])
    assert all(s['velocity'][0] == 0.0 for s in _run(sim, 0.2))
    sim.set_command('effort', [0.081])   # above it: it breaks away
    assert _run(sim, 0.1)[-1]['velocity'][0] > 0.0


def test_a_rotor_stopped_by_friction_does_not_chatter():
    # an underdamped PD (w = 100 rad/s, zeta = 0.1): it overshoots, friction stops it
    sim = _sim(one_joint(**FRICTION, gains='p="1.0" d="0.002"'))
    sim.set_command('position', [1.0])
    states = _run(sim, 1.0)
    final = states[-1]['position'][0]
    # within breakaway / Kp of the target, at rest, exactly, from early on and for good
    assert abs(1.0 - final) <= F_C / 1.0 + 1e-12
    velocity = [s['velocity'][0] for s in states]
    settled = next(i for i in range(len(velocity)) if not any(velocity[i:]))
    assert settled < len(states) // 4
    assert len({s['position'][0] for s in states[settled:]}) == 1
    assert sum(a * b < 0.0 for a, b in zip(velocity, velocity[1:])) <= 2
    # overdamped (zeta = 1): it creeps up to the friction's edge, never back
    sim = _sim(one_joint(**FRICTION, gains='p="1.0" d="0.02"'))
    sim.set_command('position', [1.0])
    velocity = [s['velocity'][0] for s in _run(sim, 1.0)]
    assert min(velocity) >= 0.0 and velocity[-1] < 1e-9
    assert 1.0 - sim.state()['position'][0] == pytest.approx(F_C / 1.0, rel=1e-6)
    # coasting to rest under friction alone: it stops, exactly, and stays
    sim.set_command('effort', [0.0])
    sim.reset(position=[0.0], velocity=[10.0])
    coast = _run(sim, 0.5)
    assert coast[-1]['velocity'][0] == 0.0
    assert len({s['position'][0] for s in coast[-20:]}) == 1


@pytest.mark.parametrize('gear_ratio', [1.0, 2.0])
def test_a_saturated_rotor_ends_where_the_torque_speed_line_meets_its_load(gear_ratio):
    # the line 0.2 N m at rest to 0 at 100 rad/s, at the rotor; the actuator coordinate sees
    # rho T_p (1 - rho v / w_max) = F_c + b v
    sim = _sim(one_joint(**FRICTION, gear_ratio=gear_ratio,
                         motor='<motor peak_torque="0.2" max_speed="100"/>'),
               max_substeps=10000)
    sim.set_command('effort', [10.0])
    states = _run(sim, 2.0)
    rho, peak, top = gear_ratio, 0.2, 100.0
    expected = (rho * peak - F_C) / (rho * rho * peak / top + B)   # 28 and 30.9 rad/s
    assert states[-1]['velocity'][0] == pytest.approx(expected, rel=0.01)
    assert max(s['velocity'][0] for s in states) <= expected * (1 + 1e-9)
    assert states[-1]['effort'][0] == pytest.approx(F_C + B * expected, rel=0.01)


def test_an_unloaded_rotor_never_exceeds_the_max_speed():
    sim = _sim(one_joint(motor='<motor peak_torque="0.2" max_speed="100"/>'))
    sim.set_command('effort', [10.0])
    states = _run(sim, 0.5)
    speeds = [s['velocity'][0] for s in states]
    assert max(speeds) <= 100.0 and speeds[-1] == pytest.approx(100.0, rel=0.01)


THERMAL = ('<motor torque_constant="0.05" peak_current="20" resistance="0.6" '
           'thermal_resistance="4" thermal_time_constant="{tau}" max_temperature="100" '
           'ambient_temperature="25"/>')


def test_the_winding_heats_as_the_first_order_model_at_constant_current():
    sim = _sim(one_joint(**FRICTION, motor=THERMAL.format(tau=2.0)))
    u, kt, resistance, rth, tau, ambient = 0.15, 0.05, 0.6, 4.0, 2.0, 25.0
    sim.set_command('effort', [u])
    steps = int(round(3.0 / DT))
    temperatures = []
    for _ in range(steps):
        sim.step(DT)
        temperatures.append(sim.control.temperature[0])
    rise = rth * resistance * (u / kt) ** 2   # 21.6 K at 3 A, below the warning temperature
    for t in (0.5, 1.0, 3.0):
        expected = ambient + rise * (1.0 - math.exp(-t / tau))
        simulated = temperatures[int(round(t / DT)) - 1]
        assert abs(simulated - expected) <= 0.02 * (expected - ambient), (t, simulated)
    assert sim.state()['effort'][0] == u   # no derating below the warning temperature


def test_a_hot_winding_derates_to_where_its_current_holds_it():
    sim = _sim(one_joint(**FRICTION, motor=THERMAL.format(tau=0.5)))
    sim.set_command('effort', [0.9])   # 18 A: 777 K above the ambient if it were allowed
    states, temperatures = [], []
    for _ in range(int(round(6.0 / DT))):
        sim.step(DT)
        states.append(sim.state())
        temperatures.append(sim.control.temperature[0])
    # the current allowed falls from 20 A at 85 C (80 % of the way) to the continuous current
    # I_c = sqrt((100 - 25) / (4 * 0.6)) A at 100 C, which holds the winding at 100 C: there the
    # winding settles, the effort at k_t I_c
    ic = math.sqrt(75.0 / 2.4)
    assert temperatures[-1] == pytest.approx(100.0, abs=0.02 * 75.0)
    assert max(temperatures) <= 100.0
    assert states[-1]['effort'][0] == pytest.approx(0.05 * ic, rel=0.02)
    assert states[0]['effort'][0] == 0.9   # cold: the full command


def test_a_rotor_without_a_motor_beside_one_with_an_envelope_keeps_its_plain_law():
    text = read_description('urdf/drivetrain_robot.urdf')
    start = text.index('<motor torque_constant="0.05">')
    mixed = text[:start] + text[text.index('</motor>', start) + len('</motor>'):]
    robot = load_robot_transmissions(mixed, warn=False)
    assert robot.drivetrain.motors[1] is None
    lower, upper = robot.drivetrain.effort_bounds(np.array([100.0, 100.0, 0.0, 0.0]))
    assert upper[0] == pytest.approx(0.5 * (1 - 100.0 / 500.0))
    assert (lower[1], upper[1]) == (-math.inf, math.inf)   # moving, without an envelope
    models = [robot.actuator_models[n] for n in robot.actuator_names]
    sim = ActuatorSimulator(models, robot=robot)
    sim.set_command('effort', [0.3, 0.3, 0.0, 0.0])
    _run(sim, 0.1)
    state = sim.state()
    assert state['velocity'][1] > 0.0 and state['effort'][1] == 0.3


# ---------------------------------------------------------------- robots without drivetrain data
#: the state after :func:`_script` on the bundled robot, recorded (float.hex) from the code before
#: the drivetrain (commit 70eb49e): ActuatorSimulator(models, min_inertia=1e-7, damping=0.01)
RECORDED = {
    'position': ['0x1.b6dac92bca1f0p-3', '0x1.04e97b1422f81p-3', '0x1.18a9e14bd0588p-4',
                 '0x1.8da718b052c55p-7', '-0x1.b9ce92d42f2b2p-5', '0x1.48bc085ff7075p+9'],
    'velocity': ['0x1.f08821401bd95p-4', '-0x1.1b46eb29edc14p-2', '-0x1.d87f4d11f3d3fp-4',
                 '0x1.7fc6d8348aa21p-4', '0x1.ab8cc9c6dc0dfp-4', '-0x1.3fffffffffffep+3'],
    'effort': ['0x1.999999999999ap-3', '0x1.1eb851eb851ecp-3', '0x1.47ae147ae147ap-4',
               '0x1.47ae147ae1470p-6', '-0x1.47ae147ae1480p-5', '-0x1.999999999999ap-4']}


def _script(sim, a0):
    """Position, then velocity, then effort commands, as the recording ran them."""
    n = len(a0)
    sim.set_command('position', a0 + np.linspace(0.3, -0.2, n))
    for _ in range(60):
        sim.step(0.005)
    sim.set_command('velocity', np.linspace(-0.5, 0.4, n))
    for _ in range(30):
        sim.step(0.005)
    sim.set_command('effort', np.linspace(0.2, -0.1, n))
    for _ in range(20):
        sim.step(0.005)
    return sim.state()


def test_a_robot_without_drivetrain_data_runs_bit_for_bit_as_before():
    text = read_description(default_description_file())
    robot = load_robot_transmissions(text, warn=False)
    assert not robot.drivetrain.models_anything
    models = [robot.actuator_models[n] for n in robot.actuator_names]
    a0 = np.asarray(robot.joint_to_actuator_arrays(
        {'position': robot.default_joint_position()})['position'])
    a0 = np.where(np.isfinite(a0), a0, 0.0)
    runs = []
    for kwargs in ({}, {'robot': robot}):   # the unchanged path, and the node's
        sim = ActuatorSimulator(models, min_inertia=1e-7, damping=0.01, **kwargs)
        sim.reset(position=a0)
        runs.append(_script(sim, a0))
    for key, values in RECORDED.items():
        recorded = [float.fromhex(v) for v in values]
        assert runs[0][key].tolist() == recorded, key
        assert runs[1][key].tolist() == recorded, key
    assert sim.friction is None and sim.control.drivetrain is None


def test_the_rotors_name_the_backlash_they_cannot_simulate():
    text = read_description('urdf/drivetrain_robot.urdf')
    robot = load_robot_transmissions(text, warn=False)
    words = unsimulated_backlash(robot)
    assert "not simulated by physics 'rotors'" in words and 'hip_joint (0.005)' in words
    example = load_robot_transmissions(read_description(default_description_file()),
                                       warn=False)
    assert unsimulated_backlash(example) == ''
