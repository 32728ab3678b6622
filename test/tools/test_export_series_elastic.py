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
``export`` of a series-elastic transmission (issue 36, item 4), read back by each consumer.

The bundled robot's linear spring is tested in ``test_export_drivetrain.py``; here a measured
table, deflections -0.1, -0.05, 0.05, 0.1 rad and torques -45, -15, 15, 30 N m: its slope at no
deflection is the middle segment's, 30 / 0.1 = 300 N m/rad, by hand.
"""

import pytest

from transmission_plugins import load_robot_transmissions
from transmission_plugins.tools.export.drake_urdf import drake_urdf
from transmission_plugins.tools.export.mujoco_mjcf import mujoco_mjcf
from transmission_plugins.tools.export.pinocchio_mjcf import pinocchio_mjcf


def sea(k=300.0, d=0.0, spring=None):
    """Return a one-joint robot: ``ankle`` behind a 50:1 motor ``m`` and a spring."""
    spring = spring or f'<spring stiffness="{k}" damping="{d}"/>'
    return f"""<robot name="sea" xmlns:drake="http://drake.mit.edu">
  <link name="base"/>
  <link name="foot"><inertial><mass value="0.5"/>
    <inertia ixx="1e-3" ixy="0" ixz="0" iyy="2e-3" iyz="0" izz="1e-3"/></inertial></link>
  <joint name="ankle" type="revolute"><parent link="base"/><child link="foot"/>
    <axis xyz="0 1 0"/><limit lower="-1" upper="1" effort="50" velocity="10"/></joint>
  <transmission name="ankle_sea"><type>transmission_plugins/SeriesElasticTransmission</type>
    <joint name="ankle"><hardwareInterface>EffortJointInterface</hardwareInterface></joint>
    <actuator name="m"><role>actuator1</role><mechanicalReduction>50</mechanicalReduction>
      <drake:rotor_inertia value="1.2e-5"/></actuator>
    <actuator name="e"><role>actuator2</role></actuator>
    {spring}
  </transmission>
</robot>"""


TABLE = sea(spring='<spring damping="2" deflections="-0.1 -0.05 0.05 0.1" '
                   'torques="-45 -15 15 30"/>')
NAMED = 'spring table (deflections -0.1 -0.05 0.05 0.1, torques -45 -15 15 30), damping 2'


@pytest.fixture(scope='module')
def robot():
    return load_robot_transmissions(TABLE, warn=False)


def test_mujoco_gets_the_tables_slope_at_zero_and_says_so(robot):
    mujoco = pytest.importorskip('mujoco', reason='mujoco is not installed')
    text, warnings = mujoco_mjcf(robot, TABLE)
    model = mujoco.MjModel.from_xml_string(text)
    spring = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, 'ankle__spring')
    assert model.jnt_stiffness[spring] == pytest.approx(300.0, rel=1e-6)
    assert model.dof_damping[model.jnt_dofadr[spring]] == 2.0
    (said,) = [w for w in warnings if 'joint ankle:' in w]
    assert NAMED in said and 'stiffness 300' in said


def test_drake_and_pinocchio_name_the_joint_and_the_spring(robot):
    _, warnings = drake_urdf(robot, TABLE)
    assert any(w.startswith(f'joint ankle: its series spring ({NAMED}) is left out (a URDF '
                            'joint cannot hold a series spring)') for w in warnings), warnings
    linear = sea(k=1500.0, d=5.0)
    _, warnings = drake_urdf(load_robot_transmissions(linear, warn=False), linear)
    assert any('joint ankle: its series spring (stiffness 1500, damping 5) is left out'
               in w for w in warnings), warnings
    pytest.importorskip('mujoco', reason='mujoco is not installed')
    _, warnings = pinocchio_mjcf(robot, TABLE)
    assert any(f'joint ankle: its series spring ({NAMED}) is left out (a spring joint between '
               'the drive and the link would be an extra joint' in w for w in warnings), warnings
