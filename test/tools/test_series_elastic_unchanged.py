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
A robot without a series-elastic transmission exports and simulates bit for bit as before.

The bundled drivetrain robot without its ankle (the foot, the joint and the transmission taken
out): its three exports (text and warnings) and a trajectory of each physics, recorded (SHA-256
of the text, float.hex of the states) from the code before series-elastic transmissions reached
the mocks and the exports (commit 831d63d); the MuJoCo export and physics re-recorded when the
hip's joint-side friction moved from its drive onto its link (a tendon over the drive and the
dead band's hinge), a deliberate change of the model (test_export_drivetrain.py checks it).
"""

import hashlib

from lxml import etree
import pytest
from tp_support import REPO

from transmission_plugins import load_robot_transmissions
from transmission_plugins.runtime.simulator import ActuatorSimulator
from transmission_plugins.tools.export.drake_urdf import drake_urdf

RECORDED = {
    'mujoco': '4a4bc862c6813d798b3246b2c266b9450ce393b7018ae350f897e708f1a26986',
    'drake': 'f6aa2f558f682296fd8be331905eb546389e80ef3c749ae166099435a393070e',
    'pinocchio': 'a8cd84d607b50dd1a3bbdf5a2faadf3caf87f9ffe46d80d8a2e42a1d7aa96356',
    'rotors': '81029b544fbf4bf1011f0cf765c1d9dc40831a637b6e9b142de33c384d7a9cb1',
    'physics': 'c4fd099835ad4711ea371f4a06279ac3c584abb2bc4a179cd8966e1b8c4ed266'}


def without_ankle():
    """Return the bundled drivetrain robot's text without its foot, ankle and transmission."""
    root = etree.fromstring((REPO / 'urdf' / 'drivetrain_robot.urdf').read_bytes())
    for element in list(root):
        if element.get('name') in ('foot_link', 'ankle_joint', 'ankle_trans'):
            root.remove(element)
    return etree.tostring(root, encoding='unicode')


def _digest(text, warnings):
    return hashlib.sha256((text + '\n'.join(warnings)).encode()).hexdigest()


@pytest.fixture(scope='module')
def robot():
    return load_robot_transmissions(without_ankle(), warn=False)


def test_the_exports_are_as_before(robot):
    text = without_ankle()
    assert _digest(*drake_urdf(robot, text)) == RECORDED['drake']
    pytest.importorskip('mujoco', reason='mujoco is not installed')
    from transmission_plugins.tools.export.mujoco_mjcf import mujoco_mjcf
    from transmission_plugins.tools.export.pinocchio_mjcf import pinocchio_mjcf
    assert _digest(*mujoco_mjcf(robot, text)) == RECORDED['mujoco']
    assert _digest(*pinocchio_mjcf(robot, text)) == RECORDED['pinocchio']


def test_the_trajectories_are_as_before(robot):
    models = [robot.actuator_models[n] for n in robot.actuator_names]
    sim = ActuatorSimulator(models, robot=robot, min_inertia=1e-7, damping=0.01)
    sim.set_command('position', [3.0, -2.0])
    for _ in range(100):
        sim.step(0.005)
    sim.set_command('effort', [0.3, -0.2])
    for _ in range(50):
        sim.step(0.005)
    state = [x.hex() for v in sim.state().values() for x in v]
    assert hashlib.sha256(str(state).encode()).hexdigest() == RECORDED['rotors']
    pytest.importorskip('mujoco', reason='mujoco is not installed')
    from transmission_plugins.runtime.mujoco_model import ModelOptions
    from transmission_plugins.runtime.mujoco_physics import MujocoPhysics
    physics = MujocoPhysics(robot, without_ankle(), ModelOptions())
    physics.set_command('position', [3.0, -2.0])
    for _ in range(50):
        physics.step(0.01)
    state = [x.hex() for s in (physics.state(), physics.joint_state())
             for v in s.values() for x in v]
    assert hashlib.sha256(str(state).encode()).hexdigest() == RECORDED['physics']
