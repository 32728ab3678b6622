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
The round-trip guarantee, without ROS: simulation interface and hardware interface back to back.

A joint-space source (a simulator) feeds the simulation interface; its ``actuator_states`` feed
the hardware interface, whose ``joint_states`` must reproduce the source to 1e-9, for every
transmission type of the bundled robot (simple, four-bar, differential, PR2 gripper), of the
PR2 (also its wrists and pr2_mechanism_model simple transmissions) and of the humanoid legs
fixture (parallel ankles, a pushrod and a measured knee).  Actuator commands sent
through the simulation interface and then the hardware interface come back as themselves.  The
source draws the commandable joints at random; a PR2 gripper's passive finger joints follow its
gap joint as its linkage makes them (a simulator with the mechanism does the same).

``test/ros/test_sim_interface_node.py`` checks the same through DDS, with the nodes.
"""

import numpy as np
import pytest

from tp_support import CORPUS_SKIP_REASON
from tp_support import FIXTURE_DIR
from tp_support import PR2_URDF
from transmission_plugins.robot.loading import load_robot_transmissions
from transmission_plugins.runtime.hardware_interface import HardwareInterface
from transmission_plugins.runtime.sim_interface import SimInterface
from transmission_plugins.tools.launch.node_plan import default_description_file
from transmission_plugins.tools.launch.node_plan import read_description

FIELDS = ('position', 'velocity', 'effort')
#: the round-trip bound of the issue
TOLERANCE = 1e-9


@pytest.fixture(scope='module', params=['example_robot', 'pr2', 'humanoid_legs'])
def robot(request):
    if request.param == 'pr2':
        if not PR2_URDF.is_file():
            pytest.skip(CORPUS_SKIP_REASON)
        return load_robot_transmissions(PR2_URDF, warn=False)
    if request.param == 'humanoid_legs':
        return load_robot_transmissions(FIXTURE_DIR / 'humanoid_legs.urdf', warn=False)
    return load_robot_transmissions(read_description(default_description_file()))


def joint_source(robot, rng, scale=0.9):
    """
    Return a consistent joint state: commandable joints at random within their limits.

    Passive joints (PR2 gripper fingers) follow from the commandable ones through the
    transmission.  Unbounded limits draw from [-1, 1] (positions), N(0, 1) (rates, efforts).
    """
    sim = SimInterface(robot)
    active = sim.topology.commandable
    lo = np.where(np.isfinite(robot.joint_lower), robot.joint_lower, -1.0)
    hi = np.where(np.isfinite(robot.joint_upper), robot.joint_upper, 1.0)
    mid, half = (lo + hi) / 2, (hi - lo) / 2
    vel = np.where(np.isfinite(robot.joint_velocity_limit), robot.joint_velocity_limit, 1.0)
    eff = np.where(np.isfinite(robot.joint_effort_limit), robot.joint_effort_limit, 1.0)
    n = len(robot.joint_names)
    q = {'position': mid + scale * half * rng.uniform(-1, 1, n),
         'velocity': scale * vel * rng.uniform(-1, 1, n),
         'effort': scale * eff * rng.uniform(-1, 1, n)}
    full = robot.actuator_to_joint_arrays(robot.joint_to_actuator_arrays(
        {f: np.where(active, x, 0.0) for f, x in q.items()}))
    # the source: its own draws for the commandable joints, the linkage's for passive ones
    return {f: np.where(active, q[f], full[f]) for f in FIELDS}, active


def test_joint_states_survive_sim_then_hardware_interface(robot):
    rng = np.random.default_rng(1234)
    worst = dict.fromkeys(FIELDS, 0.0)
    sim, hw = SimInterface(robot), HardwareInterface(robot)
    for _ in range(50):
        source, _ = joint_source(robot, rng)
        # a simulator also publishes joints of no transmission, NaN or not
        sim.set_joint_state(robot.joint_names + ['world_to_base'],
                            *[np.append(source[f], np.nan) for f in FIELDS])
        a = sim.update().actuator_states
        assert a.names == robot.actuator_names
        hw.set_actuator_state(a.names, a.position, a.velocity, a.effort)
        j = hw.update().joint_states
        assert j.names == robot.joint_names
        for f in FIELDS:
            err = np.abs(getattr(j, f) - source[f]) / (1.0 + np.abs(source[f]))
            worst[f] = max(worst[f], float(err.max()))
    types = {t.type for t in robot.transmissions}
    print(f'\n{robot.robot_name} ({len(robot.transmissions)} transmissions: '
          f'{", ".join(sorted(types))}): worst relative round-trip error '
          + ', '.join(f'{f} {worst[f]:.1e}' for f in FIELDS))
    assert max(worst.values()) <= TOLERANCE


def test_actuator_commands_survive_sim_then_hardware_interface(robot):
    rng = np.random.default_rng(99)
    # random position jumps from cycle to cycle: the PR2's <safety_controller> soft limits
    # would ramp them (test_soft_limits.py); the round trip is about the maps
    sim, hw = SimInterface(robot), HardwareInterface(robot, soft_limits=False)
    worst = 0.0
    for _ in range(50):
        source, active = joint_source(robot, rng, scale=0.5)
        # commands the motor-level software might send: within every limit
        cmd = robot.joint_to_actuator_arrays(source)
        sim.set_actuator_command(robot.actuator_names, *[cmd[f] for f in FIELDS])
        out = sim.update()
        assert len(out.joint_commands) == 1
        joint_cmd = out.joint_commands[0]
        commanded = [n for n, a in zip(robot.joint_names, active) if a]
        assert joint_cmd.names == commanded
        for f in FIELDS:   # the simulator is asked for the source's joint values
            np.testing.assert_allclose(getattr(joint_cmd, f), source[f][active], rtol=1e-9,
                                       atol=1e-9)
        hw.set_joint_command(joint_cmd.names, joint_cmd.position, joint_cmd.velocity,
                             joint_cmd.effort)
        (back,) = hw.update().actuator_commands
        assert back.names == robot.actuator_names
        for f in FIELDS:
            err = np.abs(getattr(back, f) - cmd[f]) / (1.0 + np.abs(cmd[f]))
            worst = max(worst, float(err.max()))
    assert sum(sim.counters.clamps.values()) == 0 and sum(hw.counters.clamps.values()) == 0
    print(f'\n{robot.robot_name}: worst relative actuator-command round-trip error '
          f'{worst:.1e}')
    assert worst <= TOLERANCE


def test_power_is_conserved_for_every_linear_transmission(robot):
    rng = np.random.default_rng(5)
    sim = SimInterface(robot)
    linear = [t for t in robot.transmissions if t.transmission.is_linear()]
    assert linear
    jpos = {n: i for i, n in enumerate(robot.joint_names)}
    apos = {n: i for i, n in enumerate(robot.actuator_names)}
    for _ in range(20):
        source, _ = joint_source(robot, rng)
        sim.set_joint_state(robot.joint_names, *[source[f] for f in FIELDS])
        a = sim.update().actuator_states
        out = sim.update()
        assert out.actuator_states is a   # nothing new: the same output, not converted again
        for t in linear:
            j = [jpos[n] for n in t.joint_names]
            k = [apos[n] for n in t.actuator_names]
            joint_power = float(source['effort'][j] @ source['velocity'][j])
            actuator_power = float(a.effort[k] @ a.velocity[k])
            assert actuator_power == pytest.approx(joint_power, rel=1e-12, abs=1e-12), t.name
