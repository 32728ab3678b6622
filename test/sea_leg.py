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
A leg whose knee is series elastic, for the hardware interface's tests with and without DDS.

A simple hip (40:1) and a ``SeriesElasticTransmission`` knee: motor ``knee_motor`` (50:1),
joint-side encoder ``knee_encoder``; ``ROBOT.format(spring=...)`` puts its ``<spring>`` in.
"""

#: the knee's reduction, and the stiffness and damping of :data:`SPRING`
N, K, D = 50.0, 300.0, 2.0
#: a linear spring of stiffness K and damping D
SPRING = f'<spring stiffness="{K:g}" damping="{D:g}"/>'
#: the leg, its knee's spring a ``{spring}`` placeholder
ROBOT = """\
<robot name="sea_leg">
  <link name="base"/><link name="thigh"/><link name="shin"/>
  <joint name="hip_joint" type="revolute"><parent link="base"/><child link="thigh"/>
    <axis xyz="0 1 0"/><limit lower="-1.5" upper="1.5" effort="100" velocity="10"/></joint>
  <joint name="knee_joint" type="revolute"><parent link="thigh"/><child link="shin"/>
    <axis xyz="0 1 0"/><limit lower="-1" upper="1" effort="30" velocity="10"/></joint>
  <transmission name="hip_trans">
    <type>transmission_interface/SimpleTransmission</type>
    <joint name="hip_joint"><hardwareInterface>hardware_interface/EffortJointInterface\
</hardwareInterface></joint>
    <actuator name="hip_motor"><mechanicalReduction>40</mechanicalReduction></actuator>
  </transmission>
  <transmission name="knee_sea">
    <type>transmission_plugins/SeriesElasticTransmission</type>
    <joint name="knee_joint"><hardwareInterface>hardware_interface/EffortJointInterface\
</hardwareInterface></joint>
    <actuator name="knee_motor"><role>actuator1</role><mechanicalReduction>50\
</mechanicalReduction></actuator>
    <actuator name="knee_encoder"><role>actuator2</role></actuator>
    {spring}
  </transmission>
</robot>
"""
