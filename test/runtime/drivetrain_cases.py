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

"""One joint behind a geared motor, with the drivetrain elements a test asks for."""


def one_joint(*, reduction=10.0, joint='', actuator='', motor='', rotor_inertia=1e-4,
              gear_ratio=1.0, gains='', effort=1000.0, izz=0.02, lower=-100.0, upper=100.0):
    """
    Return the URDF of a link turning about z (no gravity load) behind one simple transmission.

    ``joint`` and ``actuator`` are drivetrain elements (``<friction .../>``,
    ``<backlash .../>``) of the transmission's ends, ``motor`` the actuator's ``<motor>``;
    the link's inertia about the axis is ``izz`` (its centre of mass on the axis).
    """
    gains = f'<drake:controller_gains {gains}/>' if gains else ''
    return f"""<?xml version="1.0"?>
<robot name="one_joint" xmlns:drake="http://drake.mit.edu">
  <link name="base"/>
  <link name="arm">
    <inertial><mass value="1.0"/>
      <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="{izz!r}"/></inertial>
  </link>
  <joint name="arm_joint" type="revolute">
    <parent link="base"/><child link="arm"/><axis xyz="0 0 1"/>
    <limit lower="{lower!r}" upper="{upper!r}" velocity="1000" effort="{effort!r}"/>
  </joint>
  <transmission name="arm_trans">
    <type>transmission_interface/SimpleTransmission</type>
    <joint name="arm_joint">
      <hardwareInterface>hardware_interface/EffortJointInterface</hardwareInterface>
      {joint}
    </joint>
    <actuator name="arm_motor">
      <mechanicalReduction>{reduction!r}</mechanicalReduction>
      <drake:rotor_inertia value="{rotor_inertia!r}"/>
      <drake:gear_ratio value="{gear_ratio!r}"/>
      {gains}
      {actuator}
      {motor}
    </actuator>
  </transmission>
</robot>
"""
