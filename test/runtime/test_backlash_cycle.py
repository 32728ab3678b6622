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
Backlash in the hardware interface's joint states: a dead band in the position map (issue 36).

A joint-side ``<backlash>`` (0.02 rad behind a 10:1 gear) and a motor-side one (0.1 rad at a
motor behind a 5:1 gear), driven by a motor trajectory that reverses: the published joint
positions against a contact state machine written here (which flank of the gear touches), the
velocities against the rigid ones where a flank pushes and 0 inside the play.
"""

import numpy as np
import pytest

from transmission_plugins.robot.loading import load_robot_transmissions
from transmission_plugins.runtime.hardware_interface import HardwareInterface

URDF = """<robot name="play">
  <link name="a"/><link name="b"/><link name="c"/>
  <joint name="j1" type="revolute"><parent link="a"/><child link="b"/>
    <limit lower="-3" upper="3" effort="10" velocity="10"/></joint>
  <joint name="j2" type="revolute"><parent link="b"/><child link="c"/>
    <limit lower="-3" upper="3" effort="10" velocity="10"/></joint>
  <transmission name="t1">
    <type>transmission_interface/SimpleTransmission</type>
    <joint name="j1"><hardwareInterface>EffortJointInterface</hardwareInterface>
      <backlash width="0.02"/></joint>
    <actuator name="m1"><mechanicalReduction>10</mechanicalReduction></actuator>
  </transmission>
  <transmission name="t2">
    <type>transmission_interface/SimpleTransmission</type>
    <joint name="j2"><hardwareInterface>EffortJointInterface</hardwareInterface></joint>
    <actuator name="m2"><mechanicalReduction>5</mechanicalReduction>
      <backlash width="0.1"/></actuator>
  </transmission>
</robot>
"""
DT = 0.01


class Clock:
    t = 10.0

    def __call__(self):
        return self.t


def _flanks(driving, speed, width):
    """
    Return the driven side of a gear with play, and whether a flank pushes it.

    The forward flank pushes when the driving side is half the play ahead and moving forward,
    the backward one when it is half the play behind and moving back; else the driven side
    stays where it is.
    """
    out, pushing, y = [], [], driving[0]
    for x, v in zip(driving, speed):
        push = False
        if x - y >= width / 2:
            y, push = x - width / 2, v > 0.0
        elif y - x >= width / 2:
            y, push = x + width / 2, v < 0.0
        out.append(y)
        pushing.append(push)
    return np.array(out), np.array(pushing)


def test_joint_states_follow_the_gear_through_its_play():
    robot = load_robot_transmissions(URDF, warn=False)
    clock = Clock()
    hw = HardwareInterface(robot, clock=clock, update_rate=1.0 / DT)
    t = np.arange(400) * DT
    motor = np.stack([0.6 * np.sin(2.0 * t), 1.5 * np.sin(1.3 * t + 0.4)], axis=1)
    speed = np.stack([1.2 * np.cos(2.0 * t), 1.95 * np.cos(1.3 * t + 0.4)], axis=1)
    q, v = [], []
    for k in range(len(t)):
        clock.t += DT
        hw.set_actuator_state(['m1', 'm2'], motor[k].tolist(), speed[k].tolist(), [0.0, 0.0])
        out = hw.update().joint_states
        q.append(out.position.copy())
        v.append(out.velocity.copy())
    q, v = np.array(q), np.array(v)
    # j1: the play at the joint, after the 10:1 map; j2: at the motor, before the 5:1 map
    q1, push1 = _flanks(motor[:, 0] / 10.0, speed[:, 0], 0.02)
    q2, push2 = _flanks(motor[:, 1], speed[:, 1], 0.1)
    np.testing.assert_allclose(q[:, 0], q1, rtol=0.0, atol=1e-15)
    np.testing.assert_allclose(q[:, 1], q2 / 5.0, rtol=0.0, atol=1e-15)
    # a flank pushes: the rigid velocity; inside the play: 0
    np.testing.assert_allclose(v[1:, 0], np.where(push1, speed[:, 0] / 10.0, 0.0)[1:],
                               rtol=1e-12, atol=0.0)
    np.testing.assert_allclose(v[1:, 1], np.where(push2, speed[:, 1] / 5.0, 0.0)[1:],
                               rtol=1e-12, atol=0.0)
    # each reversal holds the joint while the motor crosses the play: it happened, both ways
    assert (~push1[1:]).sum() > 20 and push1.sum() > 100
    # the joint lags the rigid map by at most half the play
    assert np.max(np.abs(q[:, 0] - motor[:, 0] / 10.0)) == pytest.approx(0.01)


def test_unknown_velocities_stay_unknown_and_robots_without_play_have_none():
    robot = load_robot_transmissions(URDF, warn=False)
    clock = Clock()
    hw = HardwareInterface(robot, clock=clock, update_rate=1.0 / DT)
    hw.set_actuator_state(['m1', 'm2'], [0.3, 0.2])   # no velocity: none is invented
    out = hw.update().joint_states
    assert out.velocity is None
    np.testing.assert_allclose(out.position, [0.03, 0.04])
    plain = load_robot_transmissions(URDF.replace('<backlash width="0.02"/>', '')
                                     .replace('<backlash width="0.1"/>', ''), warn=False)
    assert HardwareInterface(plain, clock=clock).states.play is None
