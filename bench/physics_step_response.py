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
Plot a joint's step response with both physics of ``mock_actuators`` (doc/physics.md).

The bundled robot's shoulder joint steps by +0.5 rad from hanging straight up (the elbow held at
its start): with ``physics: rotors`` each motor is a decoupled rotor; with ``physics: mujoco``
the motors also move the links, against gravity and through the four-bar linkage.  The figure
has the joint position and the two motors' efforts.  Also prints the real-time factor of the
PR2 at a 1 ms physics step when the shared corpus is there.

Run ``python bench/physics_step_response.py [OUT.png]`` (default:
``doc/images/physics_step_response.png``).
"""

import argparse
from pathlib import Path
import time

from matplotlib.figure import Figure
import mujoco
import numpy as np

from transmission_plugins.robot.loading import load_robot_transmissions
from transmission_plugins.runtime.mujoco_model import ModelOptions
from transmission_plugins.runtime.mujoco_physics import MujocoPhysics
from transmission_plugins.runtime.simulator import ActuatorSimulator
from transmission_plugins.urdf.text import read_urdf_text

REPO = Path(__file__).resolve().parents[1]
BUNDLED = REPO / 'urdf' / 'example_robot.urdf.xacro'
PR2 = REPO.parent / 'shared' / 'urdf_corpus' / 'pr2.urdf'
OUT = REPO / 'doc' / 'images' / 'physics_step_response.png'
STEP = 0.5
DT = 1e-3
DURATION = 1.5


def responses():
    """Return (t, {physics: (shoulder position, shoulder and elbow motor efforts)})."""
    text = read_urdf_text(BUNDLED)
    robot = load_robot_transmissions(text, warn=False)
    q0 = robot.default_joint_position()
    q1 = q0.copy()
    q1[robot.joint_index['shoulder_joint']] += STEP
    theta0 = robot.joint_to_actuator_arrays({'position': q0})['position']
    theta1 = robot.joint_to_actuator_arrays({'position': q1})['position']
    rotors = ActuatorSimulator([robot.actuator_models[n] for n in robot.actuator_names],
                               min_inertia=1e-7)
    rotors.reset(theta0)
    rigid = MujocoPhysics(robot, text, ModelOptions(physics_step=DT), joint_position=q0)
    motors = [robot.actuator_index['shoulder_motor'], robot.actuator_index['elbow_motor']]
    shoulder = robot.joint_index['shoulder_joint']
    out = {}
    t = np.arange(1, int(DURATION / DT) + 1) * DT
    for name, sim in (('rotors', rotors), ('mujoco', rigid)):
        sim.set_command('position', theta1)
        position, effort = [], []
        for _ in t:
            sim.step(DT)
            state = sim.state()
            q = robot.actuator_to_joint_arrays({'position': state['position']})['position']
            position.append(q[shoulder])
            effort.append(state['effort'][motors])
        out[name] = (np.array(position), np.array(effort))
    return t, out


def plot(path):
    """Draw the figure into ``path``."""
    t, out = responses()
    fig = Figure(figsize=(7.5, 6.0))
    ax_q, ax_u = fig.subplots(2, 1, sharex=True)
    styles = {'rotors': {'color': 'tab:blue', 'ls': '--'}, 'mujoco': {'color': 'tab:red'}}
    for name, (q, u) in out.items():
        ax_q.plot(t, q, label=f'physics: {name}', **styles[name])
        ax_u.plot(t, u[:, 0], label=f'shoulder_motor ({name})', **styles[name])
        ax_u.plot(t, u[:, 1], label=f'elbow_motor ({name})', alpha=0.6, lw=1.0,
                  color=styles[name]['color'], ls=':')
    ax_q.axhline(STEP, color='0.5', lw=0.8)
    ax_q.set_ylabel('shoulder_joint position (rad)')
    ax_q.set_title('Bundled robot: shoulder_joint steps by 0.5 rad (four-bar linkage, gravity)')
    ax_q.legend(loc='lower right')
    ax_u.set_ylabel('motor effort (N m, gearhead output)')
    ax_u.set_xlabel('time (s)')
    ax_u.legend(loc='upper right', fontsize='small', ncol=2)
    for ax in (ax_q, ax_u):
        ax.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    for name, (q, u) in out.items():
        print(f'{name:7s} final shoulder error {q[-1] - STEP:+.2e} rad, final motor efforts '
              f'{u[-1, 0]:+.3f} {u[-1, 1]:+.3f} N m')


def pr2_real_time_factor():
    """Print the PR2's real-time factor at a 1 ms physics step, holding still for 5 s."""
    if not PR2.is_file():
        print(f'no PR2 description at {PR2}: real-time factor not measured')
        return
    text = read_urdf_text(PR2)
    robot = load_robot_transmissions(text, warn=False)
    physics = MujocoPhysics(robot, text, ModelOptions(physics_step=1e-3))
    physics.set_command('position', physics.state()['position'])
    physics.step(5.0)
    start = time.perf_counter()
    for _ in range(5000):
        mujoco.mj_step(physics.model, physics.data)
    raw = 5.0 / (time.perf_counter() - start)
    print(f'PR2 at a 1 ms physics step: real-time factor {physics.real_time_factor():.1f} '
          f'(MuJoCo with the transmissions and actuator law each step), {raw:.1f} (mj_step '
          'alone)')


if __name__ == '__main__':
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument('out', nargs='?', type=Path, default=OUT,
                        help=f'the figure to write (default: {OUT.relative_to(REPO)})')
    target = parser.parse_args().out
    plot(target)
    print(f'wrote {target}')
    pr2_real_time_factor()
