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

"""A joint's ``<calibration>`` and ``<safety_controller>``: read, and bad values named (26)."""

import pytest

from tp_support import CORPUS_SKIP_REASON
from tp_support import PR2_URDF
from transmission_plugins.core.exceptions import BadValueError
from transmission_plugins.robot.loading import load_robot_transmissions


def _urdf(extra, joint_type='revolute'):
    return ('<robot name="r"><link name="a"/><link name="b"/>'
            f'<joint name="j" type="{joint_type}"><parent link="a"/><child link="b"/>'
            f'<limit lower="-1" upper="1" velocity="2" effort="10"/>{extra}</joint>'
            '<transmission name="t"><type>transmission_interface/SimpleTransmission</type>'
            '<joint name="j"><hardwareInterface>EffortJointInterface</hardwareInterface>'
            '</joint><actuator name="m"><mechanicalReduction>10</mechanicalReduction>'
            '</actuator></transmission></robot>')


def test_the_pr2_switches_and_soft_limits_are_read():
    if not PR2_URDF.is_file():
        pytest.skip(CORPUS_SKIP_REASON)
    robot = load_robot_transmissions(PR2_URDF, warn=False)
    joints = robot.urdf_joints
    assert joints['torso_lift_joint'].calibration.falling == pytest.approx(0.00475)
    assert joints['r_shoulder_pan_joint'].calibration.edge() == pytest.approx(-0.7853981633974483)
    assert joints['r_shoulder_pan_joint'].calibration.direction() == 1.0
    assert joints['r_shoulder_pan_joint'].safety.k_position == 100.0
    assert sum(j.calibration is not None for j in joints.values()) == 22


def test_a_switch_is_read():
    robot = load_robot_transmissions(_urdf('<calibration falling="0.3"/>'), warn=False)
    switch = robot.urdf_joints['j'].calibration
    assert (switch.rising, switch.falling, switch.edge(), switch.direction()) == \
        (None, 0.3, 0.3, -1.0)
    assert load_robot_transmissions(_urdf('<calibration/>'), warn=False).urdf_joints[
        'j'].calibration is None


def test_a_bad_switch_position_names_the_attribute():
    with pytest.raises(BadValueError, match=r"joint\[@name='j'\]/calibration/@rising.*got 'x'"):
        load_robot_transmissions(_urdf('<calibration rising="x"/>'), warn=False)


def test_both_edges_only_on_a_continuous_joint():
    with pytest.raises(BadValueError, match='gives both rising and falling'):
        load_robot_transmissions(_urdf('<calibration rising="0" falling="0.5"/>'), warn=False)
    robot = load_robot_transmissions(_urdf('<calibration rising="0" falling="0.5"/>',
                                           'continuous'), warn=False)
    assert robot.urdf_joints['j'].calibration.edge() == 0.0   # rising, as the PR2 did


def test_lenient_mode_takes_a_bad_switch_as_none():
    robot = load_robot_transmissions(_urdf('<calibration rising="x"/>'), warn=False,
                                     lenient=True)
    assert robot.urdf_joints['j'].calibration is None
    assert any('calibration/@rising' in w for w in robot.warnings)
