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

"""Robots for the MuJoCo physics tests: one joint, a J0 finger and the bundled robot."""

import pytest
from tp_support import REPO
from transmission_plugins.robot.loading import load_robot_transmissions
from transmission_plugins.urdf.text import read_urdf_text

#: skip the MuJoCo tests, saying why, when the optional package is missing
mujoco = pytest.importorskip('mujoco', reason='the optional mujoco package is not installed '
                                              '(pip install -r requirements.txt)')

BUNDLED = REPO / 'urdf' / 'example_robot.urdf.xacro'
GRAVITY = 9.81


def one_joint(*, reduction=2.0, mass=1e-6, length=0.01, rotor_inertia=1e-4, gear_ratio=10.0,
              gains=None, damping=0.0, effort_limit=None, inertia=1e-12):
    """
    Return a URDF: one revolute joint about y, its link's mass ``length`` below the axis.

    With gravity along -z it is a pendulum hanging at q = 0; the motor drives it through a
    simple transmission of ``reduction`` after a gearhead of ``gear_ratio``.
    """
    gain = f'<drake:controller_gains p="{gains[0]}" d="{gains[1]}"/>' if gains else ''
    limit = (f'<drake:effort_limit value="{effort_limit}"/>' if effort_limit is not None
             else '')
    return f"""<robot name="one_joint" xmlns:drake="http://drake.mit.edu">
  <link name="base"/>
  <link name="arm">
    <inertial><origin xyz="0 0 {-length}"/><mass value="{mass}"/>
      <inertia ixx="{inertia}" ixy="0" ixz="0" iyy="{inertia}" iyz="0" izz="{inertia}"/>
    </inertial>
  </link>
  <joint name="joint" type="revolute">
    <parent link="base"/><child link="arm"/><axis xyz="0 1 0"/>
    <limit lower="-3" upper="3" velocity="10" effort="1000"/>
    <dynamics damping="{damping}"/>
  </joint>
  <transmission name="trans">
    <type>transmission_interface/SimpleTransmission</type>
    <joint name="joint"/>
    <actuator name="motor">
      <mechanicalReduction>{reduction}</mechanicalReduction>
      <drake:rotor_inertia value="{rotor_inertia}"/>
      <drake:gear_ratio value="{gear_ratio}"/>{gain}{limit}
    </actuator>
  </transmission>
</robot>"""


def j0_finger(damping=0.1):
    """
    Return a URDF: a Shadow-style finger, one tendon (a J0) closing its middle and distal joints.

    The finger lies along y, its joints turn about x, so gravity (-z) pulls it down; masses,
    inertias and the joints' damping are of the Shadow hand's size (its joints' damping
    0.1 N m s, against link inertias of 1e-6 kg m^2).
    """
    def link(name, mass, length, inertia):
        return f"""<link name="{name}"><inertial><origin xyz="0 {length / 2} 0"/>
    <mass value="{mass}"/><inertia ixx="{inertia}" ixy="0" ixz="0" iyy="{inertia / 4}" iyz="0"
    izz="{inertia}"/></inertial></link>"""

    def joint(name, parent, child, y):
        return f"""<joint name="{name}" type="revolute"><parent link="{parent}"/>
    <child link="{child}"/><origin xyz="0 {y} 0"/><axis xyz="1 0 0"/>
    <limit lower="0" upper="1.5708" effort="2" velocity="2"/><dynamics damping="{damping}"/>
  </joint>"""

    return f"""<robot name="j0_finger">
  <link name="palm"/>
  {link('middle', 0.017, 0.025, 2.7e-6)}
  {link('distal', 0.012, 0.026, 1.0e-6)}
  {joint('FFJ2', 'palm', 'middle', 0.0)}
  {joint('FFJ1', 'middle', 'distal', 0.025)}
  <transmission name="ffj0">
    <type>sr_mechanism_model/J0Transmission</type>
    <actuator name="FFJ0"><mechanicalReduction>1</mechanicalReduction></actuator>
    <joint name="FFJ1"><hardwareInterface>EffortJointInterface</hardwareInterface></joint>
  </transmission>
</robot>"""


def loaded(text):
    """Return (URDF text, RobotTransmissions) of a URDF text or path."""
    text = read_urdf_text(text)
    return text, load_robot_transmissions(text, warn=False)
