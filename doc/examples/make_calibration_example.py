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
Write the calibration example of doc/calibration.md: a URDF with mistakes and a recording.

* ``example_robot_mistakes.urdf``: the bundled example robot (expanded) with the mistakes of
  issue 26 injected: joint offsets of +-0.05 rad on the four-bar arm and the differential wrist,
  the pan reduction's sign flipped, and the wrist roll joint's reduction 1.5 times too large (an
  entry of the differential's coupling off by 1.5);
* ``calibration_recording.mcap``: 8 s of the *bundled* (true) robot in simulation: the rotors of
  ``mock_actuators`` (``ActuatorSimulator``, Drake's PD law, the URDF's rotor inertias and
  gains) follow smooth joint trajectories inside the limits; ``/actuator_states`` records the
  actuator positions as a 4096-count-per-turn encoder reads them, ``/joint_states`` the joint
  positions as independent 65536-count-per-turn joint encoders read them (the gripper gap: a
  1 um linear encoder), at 50 Hz;
* with ``--plot``, ``doc/images/calibration_residual.png``: the joint residual (measured joints
  minus the URDF's map of the actuators) with the URDF with mistakes and with the one
  ``transmission_plugins calibrate`` corrected.

Run from the repository root: ``python doc/examples/make_calibration_example.py [--plot]``.
"""

import argparse
import contextlib
import io
import math
from pathlib import Path
import re
import sys
import tempfile

from lxml import etree
from make_example_bag import START
from make_example_bag import write_joint_states
import numpy as np

from transmission_plugins.robot.loading import load_robot_transmissions
from transmission_plugins.runtime.simulator import ActuatorSimulator
from transmission_plugins.urdf.xacro_expansion import expand_xacro

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
RATE = 50.0
SECONDS = 8.0
SIM_STEP = 0.001
#: encoder resolutions: the actuators (per actuator turn) and the joints (per joint turn)
ACTUATOR_COUNTS = 4096
JOINT_COUNTS = 65536
#: the resolution of a prismatic joint's (linear) encoder, m
LINEAR_STEP = 1e-6
#: the mistakes: (transmission, element, name, child, wrong value, what)
MISTAKES = [
    ('pan_trans', 'actuator', 'pan_motor', 'mechanicalReduction', '-2.0', 'sign flipped'),
    ('wrist_trans', 'joint', 'wrist_roll_joint', 'mechanicalReduction', '1.5',
     'differential entry 1.5 times too large'),
    ('arm_trans', 'joint', 'shoulder_joint', 'offset', '0.05', 'offset +0.05 rad'),
    ('arm_trans', 'joint', 'elbow_joint', 'offset', '-0.05', 'offset -0.05 rad'),
    ('wrist_trans', 'joint', 'wrist_pitch_joint', 'offset', '0.05', 'offset +0.05 rad'),
    ('wrist_trans', 'joint', 'wrist_roll_joint', 'offset', '-0.05', 'offset -0.05 rad'),
]


def mistaken_urdf() -> str:
    """Return the expanded example robot with :data:`MISTAKES`, pretty printed."""
    text = expand_xacro(REPO / 'urdf' / 'example_robot.urdf.xacro', source_lines=False)
    # xacro's banner names this checkout's absolute path: leave it out
    text = re.sub(r'<!-- (=+|\|[^>]*(xacro from|EDITING)[^>]*) -->', '', text)
    parser = etree.XMLParser(remove_blank_text=True)
    root = etree.fromstring(text.encode('utf-8'), parser)
    for transmission, tag, name, child, value, _ in MISTAKES:
        end = root.find(f"transmission[@name='{transmission}']/{tag}[@name='{name}']")
        end.find(child).text = value
    note = etree.Comment(
        '\n  The example robot of transmission_plugins with mistakes injected for '
        'doc/calibration.md\n  (doc/examples/make_calibration_example.py):\n'
        + ''.join(f'    {n} ({t}) {c} {v}, {w}\n' for t, _, n, c, v, w in MISTAKES) + '  ')
    root.insert(0, note)
    body = etree.tostring(root.getroottree(), pretty_print=True, encoding='unicode')
    return '<?xml version="1.0"?>\n' + body


def joint_motion(robot, t: np.ndarray) -> np.ndarray:
    """Return smooth joint positions inside the limits, each joint on its own frequencies."""
    q = np.tile(robot.default_joint_position(), (len(t), 1))
    for k, name in enumerate(('pan_joint', 'shoulder_joint', 'elbow_joint', 'wrist_pitch_joint',
                              'wrist_roll_joint')):
        j = robot.joint_index[name]
        half = 0.6 * (robot.joint_upper[j] - robot.joint_lower[j]) / 2
        q[:, j] = half * (0.7 * np.sin(2 * np.pi * (0.13 + 0.07 * k) * t + k)
                          + 0.3 * np.sin(2 * np.pi * (0.41 + 0.05 * k) * t))
    g = robot.joint_index['gripper_joint']
    q[:, g] = 0.045 + 0.03 * np.sin(2 * np.pi * 0.2 * t)
    return q


def simulate(robot):
    """Return the times, actuator positions and true joint positions, at :data:`RATE`."""
    sim = ActuatorSimulator([robot.actuator_models[n] for n in robot.actuator_names],
                            min_inertia=1e-7)
    steps = int(round(SECONDS / SIM_STEP))
    t_fine = np.arange(steps) * SIM_STEP
    target = robot.joint_to_actuator_arrays({'position': joint_motion(robot, t_fine)})
    sim.reset(position=target['position'][0])
    every = int(round(1.0 / (RATE * SIM_STEP)))
    times, theta = [], []
    for k in range(steps):
        sim.set_command('position', target['position'][k])
        sim.step(SIM_STEP)
        if k % every == 0:
            times.append(t_fine[k])
            theta.append(sim.state()['position'])
    theta = np.array(theta)
    q = robot.actuator_to_joint_arrays({'position': theta})['position']
    return np.array(times), theta, q


def quantize(x: np.ndarray, step) -> np.ndarray:
    """Return ``x`` as an encoder of resolution ``step`` reads it."""
    return np.round(x / step) * step


def write_bag(path: Path, robot, times, theta, q) -> None:
    joint_step = np.array([LINEAR_STEP if robot.urdf_joints[n].type == 'prismatic'
                           else 2 * math.pi / JOINT_COUNTS for n in robot.joint_names])
    write_joint_states(path, times, [
        ('/actuator_states', robot.actuator_names,
         {'position': quantize(theta, 2 * math.pi / ACTUATOR_COUNTS)}, 150_000),
        ('/joint_states', robot.joint_names, {'position': quantize(q, joint_step)}, 400_000)])


def plot(mistakes: Path, bag: Path, image: Path) -> None:
    """Run calibrate on the example, then plot the residuals of both URDFs."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    from transmission_plugins.tools.cli import main
    from transmission_plugins.tools.data.bag_io import BagReader
    from transmission_plugins.tools.data.joint_state_messages import decode
    with tempfile.TemporaryDirectory() as tmp:
        corrected = Path(tmp) / 'corrected.urdf'
        with contextlib.redirect_stdout(io.StringIO()):
            assert main(['calibrate', str(mistakes), str(bag), '--write-urdf',
                         str(corrected)]) == 0
        robots = {'URDF with mistakes': load_robot_transmissions(str(mistakes), warn=False),
                  'corrected by calibrate': load_robot_transmissions(str(corrected), warn=False)}
    rows = {'/actuator_states': [], '/joint_states': []}
    with BagReader(str(bag)) as reader:
        for connection, received, raw in reader.messages():
            rows[connection.topic].append((received, np.array(decode(raw).position)))
    t = (np.array([r[0] for r in rows['/joint_states']]) - START) * 1e-9
    theta = np.array([r[1] for r in rows['/actuator_states']])
    q = np.array([r[1] for r in rows['/joint_states']])
    joints = ['pan_joint', 'shoulder_joint', 'elbow_joint', 'wrist_pitch_joint',
              'wrist_roll_joint']
    fig, axes = plt.subplots(1, 2, figsize=(11, 4), constrained_layout=True)
    for ax, (title, robot) in zip(axes, robots.items()):
        mapped = robot.actuator_to_joint_arrays({'position': theta})['position']
        for name in joints:
            j = robot.joint_index[name]
            ax.plot(t, np.degrees(q[:, j] - mapped[:, j]), label=name, lw=1)
        worst = max(float(np.sqrt(np.mean((q[:, robot.joint_index[n]]
                                           - mapped[:, robot.joint_index[n]]) ** 2)))
                    for n in joints)
        ax.set_title(f'{title}: worst RMS {np.degrees(worst):.3g} deg')
        ax.set_xlabel('time (s)')
        ax.set_ylabel('measured joint - URDF map of the actuators (deg)')
        ax.grid(True, alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.savefig(image, dpi=90)
    print(f'wrote {image}')


def main() -> None:
    """Write the example files next to this script; with --plot, the image too."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--plot', action='store_true', help='also draw the residual plot')
    args = parser.parse_args()
    robot = load_robot_transmissions(str(REPO / 'urdf' / 'example_robot.urdf.xacro'),
                                     warn=False)
    mistakes = HERE / 'example_robot_mistakes.urdf'
    mistakes.write_text(mistaken_urdf())
    print(f'wrote {mistakes.relative_to(REPO)}')
    bag = HERE / 'calibration_recording.mcap'
    if bag.exists():
        bag.unlink()
    write_bag(bag, robot, *simulate(robot))
    print(f'wrote {bag.relative_to(REPO)}')
    if args.plot:
        plot(mistakes, bag, REPO / 'doc' / 'images' / 'calibration_residual.png')


if __name__ == '__main__':
    sys.exit(main())
