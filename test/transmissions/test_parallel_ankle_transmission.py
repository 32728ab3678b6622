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
Tests of ParallelAnkleTransmission: preconditions and URDF, hand-computed cases, random ankles.

The hand-computed ankle has vertical rods of length h hanging from cranks of length r that point
backwards at y = +-d: pure pitch turns both cranks by the pitch angle (each leg is a
parallelogram), K(0) = [[1, d/r], [1, -d/r]], and a pure roll is checked against each leg's loop
equation solved by bisection.  test/runtime/test_mechanisms_mujoco.py checks the maps against
the same ankle built as a closed chain in MuJoCo.
"""

import math

from mechanism_contract import check_contract
import numpy as np
import pytest

from transmission_plugins import ActuatorHandle
from transmission_plugins import BadValueError
from transmission_plugins import IncompleteTransmissionError
from transmission_plugins import JointHandle
from transmission_plugins import load_robot_transmissions
from transmission_plugins import ParallelAnkleTransmission
from transmission_plugins import TransmissionInputError
from transmission_plugins import TransmissionValueError

R, D, H = 0.04, 0.02, 0.25


def simple_ankle(r=R, d=D, h=H):
    """Return the hand-computed ankle (module docstring)."""
    return ParallelAnkleTransmission(crank_pivot=[[0.0, d, h], [0.0, -d, h]],
                                     crank_tip=[[-r, d, h], [-r, -d, h]],
                                     rod_end=[[-r, d, 0.0], [-r, -d, 0.0]])


def loop_residual(q, theta, leg, r=R, d=D, h=H):
    """Return |rod end - crank tip| - h for one leg of the hand-computed ankle, from scratch."""
    y = d if leg == 0 else -d
    pitch, roll = q
    rx = np.array([[1, 0, 0], [0, math.cos(roll), -math.sin(roll)],
                   [0, math.sin(roll), math.cos(roll)]])
    ry = np.array([[math.cos(pitch), 0, math.sin(pitch)], [0, 1, 0],
                   [-math.sin(pitch), 0, math.cos(pitch)]])
    end = ry @ rx @ np.array([-r, y, 0.0])
    phi = math.pi + theta  # the crank points backwards at theta = 0
    tip = np.array([r * math.cos(phi), y, h - r * math.sin(phi)])
    return float(np.linalg.norm(end - tip) - h)


def bisect(f, lo, hi):
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if f(lo) * f(mid) > 0.0 else (lo, mid)
    return 0.5 * (lo + hi)


URDF = """\
<robot name="r">
  <link name="shank"/><link name="mid"/><link name="foot"/>
  <joint name="pitch" type="revolute"><parent link="shank"/><child link="mid"/>
    <axis xyz="0 1 0"/><limit lower="-0.8" upper="0.5" effort="60" velocity="9"/></joint>
  <joint name="roll" type="revolute"><parent link="mid"/><child link="foot"/>
    <axis xyz="1 0 0"/><limit lower="-0.3" upper="0.3" effort="30" velocity="9"/></joint>
  <transmission name="ankle">
    <type>transmission_plugins/ParallelAnkleTransmission</type>
    <joint name="roll"><role>roll</role></joint>
    <joint name="pitch"><role>pitch</role></joint>
    <actuator name="m2"><role>actuator2</role>{leg2}</actuator>
    <actuator name="m1"><role>actuator1</role>{leg1}</actuator>
  </transmission>
</robot>
"""
LEG1 = ('<crank_pivot xyz="0 0.02 0.25"/><crank_tip xyz="-0.04 0.02 0.25"/>'
        '<rod_end xyz="-0.04 0.02 0"/>')
LEG2 = ('<crank_pivot xyz="0 -0.02 0.25"/><crank_tip xyz="-0.04 -0.02 0.25"/>'
        '<rod_end xyz="-0.04 -0.02 0"/>')


def load(leg1=LEG1, leg2=LEG2, text=URDF):
    return load_robot_transmissions(text.format(leg1=leg1, leg2=leg2), warn=False)


# ------------------------------------------------------------------------------ preconditions
@pytest.mark.parametrize('name, bad, expected', [
    ('crank_pivot', [[0, 0, 0]], '2 x 3 real numbers'),
    ('crank_tip', [[0, 0, 'a'], [0, 0, 0]], '2 x 3 real numbers'),
    ('rod_end', [[0, 0, math.nan], [0, 0, 0]], '2 x 3 finite numbers'),
    ('crank_tip', None, '2 x 3 real numbers')])
def test_points_must_be_two_by_three_finite_numbers(name, bad, expected):
    points = {'crank_pivot': [[0.0, D, H], [0.0, -D, H]],
              'crank_tip': [[-R, D, H], [-R, -D, H]], 'rod_end': [[-R, D, 0.0], [-R, -D, 0.0]]}
    points[name] = bad
    with pytest.raises(TransmissionValueError, match=f'{name}: expected {expected}'):
        ParallelAnkleTransmission(**points)


def test_cranks_and_rods_need_a_length():
    with pytest.raises(TransmissionValueError, match=r'crank_tip\[1\].*the crank has length 0'):
        ParallelAnkleTransmission(crank_pivot=[[0, D, H], [0, -D, H]],
                                  crank_tip=[[-R, D, H], [0, 0.3, H]],   # on the axis
                                  rod_end=[[-R, D, 0], [-R, -D, 0]])
    with pytest.raises(TransmissionValueError, match=r'rod_end\[0\].*the rod has length 0'):
        ParallelAnkleTransmission(crank_pivot=[[0, D, H], [0, -D, H]],
                                  crank_tip=[[-R, D, H], [-R, -D, H]],
                                  rod_end=[[-R, D, H], [-R, -D, 0]])


def test_the_neutral_pose_must_be_regular():
    with pytest.raises(TransmissionValueError, match=r'crank_tip\[0\].*leg 1 is at its dead '
                                                     'point there'):
        ParallelAnkleTransmission(crank_pivot=[[0, D, H], [0, -D, H]],
                                  crank_tip=[[0, D, H - R], [-R, -D, H]],   # crank along the rod
                                  rod_end=[[0, D, 0], [-R, -D, 0]])
    with pytest.raises(TransmissionValueError, match='rod_end.*singular there'):
        ParallelAnkleTransmission(crank_pivot=[[0, 0, H], [0, 0, H]],   # both legs in y = 0
                                  crank_tip=[[-R, 0, H], [-R, 0, H]],
                                  rod_end=[[-R, 0, 0], [-R, 0, 0]])


def test_valid_construction_and_queries():
    t = simple_ankle()
    assert t.num_actuators() == t.num_joints() == 2
    assert t.requires_position_state() and not t.is_linear()
    np.testing.assert_allclose(t.crank_length(), [R, R])
    np.testing.assert_allclose(t.rod_length(), [H, H])
    assert t.parameters()['rod_end'] == [[-R, D, 0.0], [-R, -D, 0.0]]
    assert eval(repr(t), {'ParallelAnkleTransmission': ParallelAnkleTransmission}).map_key() \
        == t.map_key()
    assert 'cranks 0.04, 0.04 m, rods 0.25, 0.25 m' in str(t)
    with pytest.raises(TransmissionInputError, match='needs the current position'):
        t.actuator_to_joint({'velocity': [1.0, 0.0]})


# ------------------------------------------------------------------------------ URDF
def test_the_urdf_orders_joints_and_legs_by_role():
    robot = load()
    wiring = robot.transmission('ankle')
    assert wiring.joint_names == ('pitch', 'roll') and wiring.actuator_names == ('m1', 'm2')
    assert wiring.transmission.map_key() == simple_ankle().map_key()
    assert robot.warnings == []


def test_the_urdf_reads_the_ros2_control_dialect():
    text = """\
<robot name="r">
  <link name="shank"/><link name="mid"/><link name="foot"/>
  <joint name="pitch" type="revolute"><parent link="shank"/><child link="mid"/>
    <axis xyz="0 1 0"/><limit lower="-0.8" upper="0.5" effort="60" velocity="9"/></joint>
  <joint name="roll" type="revolute"><parent link="mid"/><child link="foot"/>
    <axis xyz="1 0 0"/><limit lower="-0.3" upper="0.3" effort="30" velocity="9"/></joint>
  <ros2_control name="legs" type="system">
    <joint name="pitch"/><joint name="roll"/>
    <transmission name="ankle">
      <plugin>transmission_plugins/ParallelAnkleTransmission</plugin>
      <joint name="pitch" role="pitch"/><joint name="roll" role="roll"/>
      <actuator name="m1" role="actuator1">{leg1}</actuator>
      <actuator name="m2" role="actuator2">{leg2}</actuator>
    </transmission>
  </ros2_control>
</robot>
"""
    robot = load(text=text)
    assert robot.transmission('ankle').transmission.map_key() == simple_ankle().map_key()


@pytest.mark.parametrize('leg1, error, path, message', [
    (LEG1.replace('<crank_tip xyz="-0.04 0.02 0.25"/>', ''), IncompleteTransmissionError,
     "actuator[@name='m1']", 'missing <crank_tip> element'),
    (LEG1.replace('xyz="-0.04 0.02 0.25"', 'xyz="-0.04 0.02"'), BadValueError,
     "actuator[@name='m1']/crank_tip/@xyz", 'expected 3 numbers "x y z", got \'-0.04 0.02\''),
    (LEG1.replace('xyz="-0.04 0.02 0.25"', 'xyz="-0.04 0.02 high"'), BadValueError,
     "actuator[@name='m1']/crank_tip/@xyz", "got 'high'"),
    (LEG1.replace('xyz="-0.04 0.02 0.25"', 'xyz="-0.04 0.02 0.25" rpy="0 0 0"'),
     BadValueError, "actuator[@name='m1']/crank_tip/@rpy", "unexpected attribute 'rpy'"),
    (LEG1 + '<crank_tip xyz="0 0 0"/>', BadValueError, "actuator[@name='m1']/crank_tip",
     'given 2 times'),
    (LEG1 + '<mechanicalReduction>2</mechanicalReduction>', BadValueError,
     "actuator[@name='m1']", 'has no reduction'),
    (LEG1 + '<rod_length value="0.25"/>', BadValueError, "actuator[@name='m1']/rod_length",
     'unexpected element <rod_length>'),
    (LEG1.replace('<crank_tip xyz="-0.04 0.02 0.25"/>', '<crank_tip xyz="0 0.02 0.21"/>')
     .replace('<rod_end xyz="-0.04 0.02 0"/>', '<rod_end xyz="0 0.02 0"/>'), BadValueError,
     "actuator[@name='m1']/crank_tip/@xyz", 'leg 1 is at its dead point'),
])
def test_urdf_errors_name_the_element_line_and_value(leg1, error, path, message):
    with pytest.raises(error) as e:
        load(leg1=leg1)
    assert e.value.path.endswith(path) or path in e.value.path, e.value.path
    assert message in str(e.value)
    assert e.value.line is not None


def test_an_ankle_needs_two_joints_and_two_actuators():
    text = URDF.replace('<joint name="roll"><role>roll</role></joint>', '')
    with pytest.raises(IncompleteTransmissionError, match='needs exactly 2 <joint>'):
        load(text=text.replace('<role>pitch</role>', ''))


# ------------------------------------------------------------------------------ white box
def test_pure_pitch_turns_both_cranks_by_the_pitch():
    """Each leg is a parallelogram: crank and foot arm stay parallel."""
    t = simple_ankle()
    for pitch in (-0.7, -0.2, 0.0, 0.3, 0.5):
        np.testing.assert_allclose(t.actuator_position([pitch, 0.0]), [pitch, pitch],
                                   atol=1e-14)
        np.testing.assert_allclose(t.joint_position([pitch, pitch]), [pitch, 0.0], atol=1e-13)


def test_jacobian_at_the_neutral_pose():
    t = simple_ankle()
    k = t.joint_to_actuator_jacobian(np.zeros(2))
    np.testing.assert_allclose(k, [[1.0, D / R], [1.0, -D / R]], atol=1e-14)
    # tau = K^T u: pitch torque u1 + u2, roll torque d/r (u1 - u2); qdot = K^-1 thetadot
    out = t.actuator_to_joint({'position': [0.0, 0.0], 'velocity': [1.0, 1.0],
                               'effort': [10.0, 4.0]})
    np.testing.assert_allclose(out['effort'], [14.0, 3.0], atol=1e-12)
    np.testing.assert_allclose(out['velocity'], [1.0, 0.0], atol=1e-14)
    np.testing.assert_allclose(out['position'], [0.0, 0.0], atol=1e-15)


@pytest.mark.parametrize('roll', [-0.3, -0.1, 0.2, 0.35])
def test_pure_roll_closes_each_loop_as_bisection_does(roll):
    t = simple_ankle()
    theta = t.actuator_position([0.0, roll])
    for leg in range(2):
        expected = bisect(lambda x: loop_residual((0.0, roll), x, leg), -1.0, 1.0)
        assert theta[leg] == pytest.approx(expected, abs=1e-12)
        assert loop_residual((0.0, roll), theta[leg], leg) == pytest.approx(0.0, abs=1e-15)
    np.testing.assert_allclose(t.joint_position(theta), [0.0, roll], atol=1e-13)


def crank_distances(q, leg):
    """Return the least and greatest distance from a rod end to its crank circle, sampled."""
    y = D if leg == 0 else -D
    pitch, roll = q
    end = np.array([[math.cos(pitch), 0, math.sin(pitch)], [0, 1, 0],
                    [-math.sin(pitch), 0, math.cos(pitch)]]) @ np.array(
        [-R, y * math.cos(roll), y * math.sin(roll)])
    phi = np.linspace(0.0, 2.0 * math.pi, 200001)
    tips = np.stack([R * np.cos(phi), np.full_like(phi, y), H - R * np.sin(phi)], axis=-1)
    distance = np.linalg.norm(tips - end, axis=-1)
    return distance.min(), distance.max()


def test_positions_out_of_reach_are_nan_and_named():
    t = simple_ankle()
    assert np.all(np.isnan(t.actuator_position([1.2, 1.2])))
    problems = t.workspace_problems([1.2, 1.2])
    far = crank_distances((1.2, 1.2), 0)[1]
    assert far < H
    assert problems[0] == ('leg 1 (actuator1) cannot reach: its rod (0.25 m) is longer than the '
                           f'farthest crank position ({far:.6g} m)')
    assert len(problems) == 2 and 'outside the workspace' in problems[-1]
    problems = t.workspace_problems([-1.57, 1.0])
    for leg in range(2):
        near = crank_distances((-1.57, 1.0), leg)[0]
        assert problems[leg] == (f'leg {leg + 1} (actuator{leg + 1}) cannot reach: its rod (0.25 '
                                 f'm) is shorter than the nearest crank position ({near:.6g} m)')
    out = t.actuator_to_joint({'position': [[0.0, 0.0], [3.0, -3.0]], 'velocity': [[1, 1]] * 2,
                               'effort': [[1, 1]] * 2})
    assert np.all(np.isfinite(out['effort'][0])) and np.all(np.isnan(out['effort'][1]))
    far = t.workspace_problems([3.0, -3.0], to_joint=True)
    assert len(far) == 1 and 'outside the workspace' in far[0]
    # the example's lower crank turned straight down: its tip is 0.108 m from the ankle centre,
    # the rod end 0.0616 m, and the rod 0.170 m long
    ankle, _ = ParallelAnkleTransmission.example()
    low = ankle.workspace_problems([0.0, -math.pi / 2], to_joint=True)
    tip, end = math.hypot(0.025, 0.15 - 0.045), math.sqrt(0.05 ** 2 + 0.03 ** 2 + 0.02 ** 2)
    assert low[0] == ('leg 2 (actuator2) cannot reach: its rod end stays '
                      f'{end:.6g} m from the ankle centre, its crank tip is {tip:.6g} m from it, '
                      f'and the rod is {math.sqrt(0.005 ** 2 + 0.005 ** 2 + 0.17 ** 2):.6g} m '
                      'long')


def test_dead_points_and_singularities_are_named():
    t = simple_ankle()
    # pure pitch of pi/2: every crank hangs along its rod
    dead = t.workspace_problems([math.pi / 2, 0.0])
    assert [p.split(':')[0] for p in dead[:2]] == [
        'leg 1 (actuator1) is at its dead point', 'leg 2 (actuator2) is at its dead point']
    ankle, _ = ParallelAnkleTransmission.example()
    lo, hi = -1.6, -1.0   # det K changes sign between these pitches
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        inside = np.all(np.isfinite(ankle.actuator_position([mid, 0.0])))
        lo, hi = (lo, mid) if inside else (mid, hi)
    assert 'at a singularity together' in ankle.workspace_problems([hi, 0.0])[0]
    assert 'beyond a singularity together' in ankle.workspace_problems([lo, 0.0])[0]
    assert ankle.workspace_problems([0.2, 0.1]) == []


# ------------------------------------------------------------------------------ black box
def test_random_ankles_keep_the_contract():
    rng = np.random.default_rng(1234)
    done = 0
    while done < 25:
        r = rng.uniform(0.02, 0.06, 2)
        h = rng.uniform(0.1, 0.35, 2)
        y = rng.uniform(0.015, 0.05, 2) * np.array([1.0, -1.0])
        back = rng.uniform(-0.07, -0.02, 2)
        pivot = np.stack([rng.uniform(-0.02, 0.02, 2), y, h], axis=-1)
        tip = pivot + np.stack([-r, np.zeros(2), rng.uniform(-0.01, 0.01, 2)], axis=-1)
        end = np.stack([back, y + rng.uniform(-0.01, 0.01, 2), rng.uniform(-0.03, 0.0, 2)],
                       axis=-1)
        try:
            t = ParallelAnkleTransmission(pivot, tip, end)
        except TransmissionValueError:
            continue
        q = rng.uniform([-0.4, -0.15], [0.3, 0.15], (20, 2))
        theta = t.actuator_position(q)
        keep = np.all(np.isfinite(theta), axis=-1)
        states = {'position': theta[keep], 'velocity': rng.normal(size=(keep.sum(), 2)),
                  'effort': rng.normal(scale=30.0, size=(keep.sum(), 2))}
        check_contract(t, states)
        np.testing.assert_allclose(t.joint_position(theta[keep]), q[keep], atol=1e-12)
        done += 1


def test_handles_convert_in_place():
    t = simple_ankle()
    joints = [JointHandle('roll', 'position', role='roll'),
              JointHandle('pitch', 'position', role='pitch')]
    motors = [ActuatorHandle('m2', 'position', 0.3, role='actuator2'),
              ActuatorHandle('m1', 'position', 0.3, role='actuator1')]
    t.configure(joints, motors)
    t.actuator_to_joint()
    assert joints[1].value == pytest.approx(0.3, abs=1e-13)   # pure pitch
    assert joints[0].value == pytest.approx(0.0, abs=1e-13)
    assert 'roll' in t.get_handles_info()
