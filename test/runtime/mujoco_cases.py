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

"""Robots for the MuJoCo physics tests: one joint (a rotor, a pendulum) and the bundled robot."""

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


def loaded(text):
    """Return (URDF text, RobotTransmissions) of a URDF text or path."""
    text = read_urdf_text(text)
    return text, load_robot_transmissions(text, warn=False)
