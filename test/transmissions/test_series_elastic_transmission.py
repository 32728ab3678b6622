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
SeriesElasticTransmission: closed forms, the URDF in every dialect, and a robot with one.

The spring's torque is checked by hand (linear: k (theta_m / n - theta_e) + d (...)) and against
``np.interp`` (a table, its end segments extended); the kernel's numbers against the numpy
reference are the fuzz test's (test/core/test_kernel_fuzz.py).
"""

import math

import numpy as np
import pytest

from transmission_plugins import BadValueError
from transmission_plugins import IncompleteTransmissionError
from transmission_plugins import load_robot_transmissions
from transmission_plugins import SeriesElasticTransmission
from transmission_plugins import TransmissionValueError
from transmission_plugins.tools.cli import main
from transmission_plugins.tools.data.plotting import plot_transmission

N, K, D = 50.0, 1500.0, 5.0
TABLE = {'deflections': [-0.1, 0.0, 0.1], 'torques': [-180.0, 0.0, 150.0]}


def linear(**kwargs):
    return SeriesElasticTransmission(N, stiffness=K, damping=D, **kwargs)


def table(**kwargs):
    return SeriesElasticTransmission(N, damping=D, **TABLE, **kwargs)


def extended_interp(x, xp, fp):
    """``np.interp`` with its end segments extended (the transmission's rule outside)."""
    below = fp[0] + (x - xp[0]) * (fp[1] - fp[0]) / (xp[1] - xp[0])
    above = fp[-1] + (x - xp[-1]) * (fp[-1] - fp[-2]) / (xp[-1] - xp[-2])
    return np.where(x < xp[0], below, np.where(x > xp[-1], above, np.interp(x, xp, fp)))


# ------------------------------------------------------------------------------ constructor
@pytest.mark.parametrize('kwargs, parameter, expected', [
    ({'reduction': 0.0, 'stiffness': K}, 'reduction', 'non-zero'),
    ({'reduction': math.inf, 'stiffness': K}, 'reduction', 'finite'),
    ({'reduction': N, 'stiffness': 0.0}, 'stiffness', '> 0'),
    ({'reduction': N, 'stiffness': -5.0}, 'stiffness', '> 0'),
    ({'reduction': N, 'stiffness': math.nan}, 'stiffness', 'finite'),
    ({'reduction': N}, 'stiffness', 'a stiffness (a linear spring) or deflections'),
    ({'reduction': N, 'stiffness': K, **TABLE}, 'stiffness', 'not both'),
    ({'reduction': N, 'stiffness': K, 'damping': -1.0}, 'damping', '>= 0'),
    ({'reduction': N, 'stiffness': K, 'damping': math.inf}, 'damping', 'finite'),
    ({'reduction': N, 'stiffness': K, 'joint_offset': math.nan}, 'joint_offset', 'finite'),
    ({'reduction': N, 'deflections': [0.0, 0.1]}, 'torques', 'together'),
    ({'reduction': N, 'deflections': [0.0], 'torques': [0.0]}, 'deflections', 'at least 2'),
    ({'reduction': N, 'deflections': [0.0, 0.1], 'torques': [0.0, 1.0, 2.0]}, 'torques',
     '2 values'),
    ({'reduction': N, 'deflections': [0.0, 0.1, 0.1], 'torques': [0.0, 1.0, 2.0]},
     'deflections[2]', 'strictly increasing'),
    ({'reduction': N, 'deflections': [0.0, 0.1, 0.2], 'torques': [0.0, 1.0, 1.0]},
     'torques[2]', 'strictly increasing'),
    ({'reduction': N, 'deflections': [0.0, 0.1], 'torques': [1.0, -1.0]}, 'torques[1]',
     'strictly increasing'),
    ({'reduction': N, 'deflections': [0.0, math.nan], 'torques': [0.0, 1.0]}, 'deflections',
     'finite'),
    ({'reduction': N, 'deflections': [0.0, 1e-300], 'torques': [0.0, 1e300]}, 'torques[1]',
     'finite, non-zero stiffness'),
])
def test_bad_arguments_name_the_parameter_the_value_and_what_was_expected(
        kwargs, parameter, expected):
    with pytest.raises(TransmissionValueError) as e:
        SeriesElasticTransmission(**kwargs)
    assert e.value.parameter == parameter and expected in str(e.value), str(e.value)


def test_queries_and_reports():
    t = linear(joint_offset=0.25)
    assert (t.num_actuators(), t.num_joints()) == (2, 1)
    assert t.ACTUATOR_ROLES == ('actuator1', 'actuator2')
    assert t.get_actuator_reduction() == [N, 1.0] and t.get_joint_offset() == [0.25]
    assert t.stiffness() == K and t.damping() == D and t.spring_table() is None
    assert t.requires_position_state() and not t.is_linear() and t.joint_effort_from_motion()
    assert str(t) == ('SeriesElasticTransmission: 2 actuators (motor, reduction 50; joint '
                      'encoder) -> 1 joint, offset 0.25, stiffness 1500, damping 5')
    assert 'spring table of 3 points, deflection [-0.1, 0.1] -> torque [-180, 150], damping 5' \
        in str(table())
    assert table().spring_table() == (TABLE['deflections'], TABLE['torques'])
    for t in (linear(joint_offset=0.25), table()):
        again = eval(repr(t), {'SeriesElasticTransmission': SeriesElasticTransmission})
        assert again.map_key() == t.map_key()


# ------------------------------------------------------------------------------ closed forms
def test_a_linear_spring_by_hand():
    t = linear(joint_offset=0.1)
    rng = np.random.default_rng(1)
    theta = rng.normal(size=(20, 2)) * [30.0, 1.0]
    rate = rng.normal(size=(20, 2)) * [60.0, 2.0]
    effort = rng.normal(size=(20, 2))
    out = t.actuator_to_joint({'position': theta, 'velocity': rate, 'effort': effort})
    delta = theta[:, 0] / N - theta[:, 1]
    delta_rate = rate[:, 0] / N - rate[:, 1]
    np.testing.assert_allclose(out['position'][:, 0], theta[:, 1] + 0.1, rtol=1e-15)
    np.testing.assert_array_equal(out['velocity'][:, 0], rate[:, 1])
    np.testing.assert_allclose(out['effort'][:, 0], K * delta + D * delta_rate, rtol=1e-12)
    np.testing.assert_allclose(t.deflection(theta)[:, 0], delta, rtol=1e-15)
    np.testing.assert_allclose(t.deflection({'position': theta})[:, 0], delta, rtol=1e-15)


def test_a_table_spring_against_np_interp_with_its_ends_extended():
    t = table()
    delta = np.linspace(-0.3, 0.3, 61)
    theta = np.stack([N * delta, np.zeros_like(delta)], axis=-1)
    out = t.actuator_to_joint({'position': theta, 'velocity': np.zeros_like(theta)})
    x, y = np.array(TABLE['deflections']), np.array(TABLE['torques'])
    np.testing.assert_allclose(out['effort'][:, 0], extended_interp(delta, x, y), rtol=1e-12,
                               atol=1e-12)
    inside = np.abs(delta) <= 0.1
    np.testing.assert_allclose(out['effort'][inside, 0], np.interp(delta[inside], x, y),
                               rtol=1e-12, atol=1e-12)
    # beyond the table: the end segments' stiffness, 1800 below and 1500 above
    assert out['effort'][0, 0] == pytest.approx(-180.0 - 1800.0 * 0.2)
    assert out['effort'][-1, 0] == pytest.approx(150.0 + 1500.0 * 0.2)


@pytest.mark.parametrize('make', [linear, table])
def test_the_inverse_spring_gives_back_the_deflection(make):
    t = make()
    delta = np.linspace(-0.25, 0.25, 41)[:, None]
    theta = np.concatenate([N * delta, np.zeros_like(delta)], axis=-1)
    tau = t.actuator_to_joint({'position': theta, 'velocity': np.zeros_like(theta)})['effort']
    np.testing.assert_allclose(t.deflection_for_torque(tau), delta, rtol=1e-12, atol=1e-15)
    assert t.deflection_for_torque([30.0]).shape == (1,)
    assert t.deflection_for_torque(np.zeros((2, 3, 1))).shape == (2, 3, 1)


def test_the_motor_position_target_of_an_effort_command():
    for t in (linear(joint_offset=0.2), table(joint_offset=0.2)):
        q, tau = np.array([[0.5], [-0.3]]), np.array([[30.0], [-90.0]])
        target = t.motor_position_target(q, tau)
        expected = N * (q - 0.2 + t.deflection_for_torque(tau))
        np.testing.assert_allclose(target, expected, rtol=1e-14)
        # statically, that motor position with the joint at q gives the commanded torque
        theta = np.concatenate([target, q - 0.2], axis=-1)
        out = t.actuator_to_joint({'position': theta, 'velocity': np.zeros_like(theta)})
        np.testing.assert_allclose(out['effort'], tau, rtol=1e-12)


def test_joint_to_actuator_commands_the_unloaded_pose():
    t = linear(joint_offset=0.1)
    out = t.joint_to_actuator({'position': [[0.6]], 'velocity': [[2.0]], 'effort': [[30.0]]})
    np.testing.assert_allclose(out['position'], [[N * 0.5, 0.5]], rtol=1e-15)
    np.testing.assert_allclose(out['velocity'], [[N * 2.0, 2.0]])
    np.testing.assert_allclose(out['effort'], [[30.0 / N, 0.0]])
    # power from the joint to the actuators is kept: u . thetadot = tau qdot
    assert float(np.sum(out['effort'] * out['velocity'])) == pytest.approx(60.0)


def test_missing_or_nan_motion_makes_the_effort_nan_never_a_crash():
    t = linear()
    theta, rate = np.array([[25.0, 0.49]]), np.array([[0.0, 0.0]])
    assert t.actuator_to_joint({'position': theta, 'velocity': rate})['effort'][0, 0] == \
        pytest.approx(15.0)
    only_effort = t.actuator_to_joint({'position': theta, 'effort': [[1.0, 0.0]]})
    assert np.isnan(only_effort['effort']).all()
    for bad in ([[math.nan, 0.49]], [[25.0, math.nan]]):
        out = t.actuator_to_joint({'position': bad, 'velocity': rate})
        assert np.isnan(out['effort']).all()
    out = t.actuator_to_joint({'position': theta, 'velocity': [[math.nan, 0.0]]})
    assert np.isnan(out['effort']).all() and out['velocity'][0, 0] == 0.0
    # the motor's NaN position does not reach the joint position, nor its velocity the joint's
    out = t.actuator_to_joint({'position': [[math.nan, 0.49]], 'velocity': [[math.nan, 1.0]]})
    assert out['position'][0, 0] == 0.49 and out['velocity'][0, 0] == 1.0
    huge = t.actuator_to_joint({'position': [[1e308, -1e308]], 'velocity': [[math.inf, 0.0]],
                                'effort': [[0.0, 0.0]]})
    assert not np.isfinite(huge['effort']).any()


# ------------------------------------------------------------------------------ URDF
ROBOT = """\
<robot name="sea_leg">
  <link name="base"/><link name="thigh"/><link name="shin"/>
  <joint name="hip_joint" type="revolute"><parent link="base"/><child link="thigh"/>
    <axis xyz="0 1 0"/><limit lower="-1.5" upper="1.5" effort="100" velocity="10"/></joint>
  <joint name="knee_joint" type="revolute"><parent link="thigh"/><child link="shin"/>
    <axis xyz="0 1 0"/><limit lower="-2.5" upper="0.5" effort="150" velocity="10"/></joint>
  <transmission name="hip_trans">
    <type>transmission_interface/SimpleTransmission</type>
    <joint name="hip_joint"><hardwareInterface>hardware_interface/EffortJointInterface\
</hardwareInterface></joint>
    <actuator name="hip_motor"><mechanicalReduction>40</mechanicalReduction></actuator>
  </transmission>
{sea}
</robot>
"""
SEA = """\
  <transmission name="knee_sea">
    <type>transmission_plugins/SeriesElasticTransmission</type>
    <joint name="knee_joint"><hardwareInterface>hardware_interface/EffortJointInterface\
</hardwareInterface>{joint}</joint>
    <actuator name="knee_joint_encoder"><role>actuator2</role>{encoder}</actuator>
    <actuator name="knee_motor"><role>actuator1</role>{motor}</actuator>
    {spring}
  </transmission>"""
MOTOR = '<mechanicalReduction>50</mechanicalReduction>'
SPRING = '<spring stiffness="1500" damping="5"/>'
TABLE_SPRING = '<spring damping="5" deflections="-0.1 0 0.1" torques="-180 0 150"/>'
ROS2_CONTROL = """\
  <ros2_control name="leg" type="system">
    <hardware><plugin>mock_components/GenericSystem</plugin></hardware>
    <joint name="knee_joint"><command_interface name="effort"/>\
<state_interface name="position"/></joint>
    <transmission name="knee_sea">
      <plugin>transmission_plugins/SeriesElasticTransmission</plugin>
      <actuator name="knee_joint_encoder" role="actuator2"/>
      <actuator name="knee_motor" role="actuator1">
        <mechanical_reduction>50</mechanical_reduction>
      </actuator>
      <joint name="knee_joint" role="joint1"><offset>0.1</offset></joint>
      <spring stiffness="1500" damping="5"/>
    </transmission>
  </ros2_control>"""


def load(joint='', motor=MOTOR, encoder='', spring=SPRING, sea=None, **kwargs):
    text = ROBOT.format(sea=sea if sea is not None else SEA.format(
        joint=joint, motor=motor, encoder=encoder, spring=spring))
    return load_robot_transmissions(text, warn=False, **kwargs)


@pytest.mark.parametrize('spring, expected', [
    (SPRING, linear()), (TABLE_SPRING, table()),
    ('<spring stiffness="1250"/>', SeriesElasticTransmission(N, stiffness=1250.0))])
def test_the_urdf_reads_both_spring_forms_by_role(spring, expected):
    robot = load(spring=spring)
    sea = robot.transmission('knee_sea')
    assert sea.transmission.map_key() == expected.map_key()
    assert sea.actuator_names == ('knee_motor', 'knee_joint_encoder')   # by role, not XML order
    assert robot.warnings == []


def test_the_ros2_control_dialect_reads_roles_as_attributes_and_the_offset():
    robot = load(sea=ROS2_CONTROL)
    sea = robot.transmission('knee_sea')
    assert sea.transmission.map_key() == linear(joint_offset=0.1).map_key()
    assert sea.actuator_names == ('knee_motor', 'knee_joint_encoder')


@pytest.mark.parametrize('change, error, path, message', [
    ({'spring': ''}, IncompleteTransmissionError, "transmission[@name='knee_sea']",
     'missing <spring>'),
    ({'spring': SPRING * 2}, BadValueError, 'spring', 'given 2 times'),
    ({'spring': '<spring damping="5"/>'}, IncompleteTransmissionError, 'spring',
     'needs a spring: stiffness="k"'),
    ({'spring': '<spring stiffness="-3"/>'}, BadValueError, 'spring/@stiffness',
     'stiffness: expected a finite number > 0, got -3.0'),
    ({'spring': '<spring stiffness="stiff"/>'}, BadValueError, 'spring/@stiffness', 'stiff'),
    ({'spring': '<spring stiffness="1500" damping="-1"/>'}, BadValueError, 'spring/@damping',
     'damping: expected a finite number >= 0, got -1.0'),
    ({'spring': '<spring stiffness="1500" deflections="0 1" torques="0 1"/>'}, BadValueError,
     'spring/@stiffness', 'not both'),
    ({'spring': '<spring deflections="-0.1 0 0.1" torques="-180 0 0"/>'}, BadValueError,
     'spring/@torques', 'torques[2]: expected torques strictly increasing'),
    ({'spring': '<spring deflections="-0.1 0 x" torques="-180 0 10"/>'}, BadValueError,
     'spring/@deflections', 'entry 3 of 3'),
    ({'spring': '<spring deflections="0 0.1"/>'}, BadValueError, 'spring/@torques',
     'deflections and torques together'),
    ({'spring': '<spring stiffness="1500" preload="3"/>'}, BadValueError, 'spring/@preload',
     "unexpected attribute 'preload'"),
    ({'spring': '<spring stiffness="1500"><table/></spring>'}, BadValueError, 'spring/table',
     'unexpected element <table>'),
    ({'motor': ''}, IncompleteTransmissionError, "actuator[@name='knee_motor']",
     'has no reduction'),
    ({'motor': '<mechanicalReduction>0</mechanicalReduction>'}, BadValueError,
     "actuator[@name='knee_motor']", 'reduction'),
    ({'encoder': '<mechanicalReduction>2</mechanicalReduction>'}, BadValueError,
     "actuator[@name='knee_joint_encoder']", 'the reduction 2.0 here would be ignored'),
    ({'motor': MOTOR + '<offset>0.2</offset>'}, BadValueError,
     "actuator[@name='knee_motor']", 'the offset 0.2 here would be ignored'),
    ({'encoder': '<offset>0.1</offset>'}, BadValueError,
     "actuator[@name='knee_joint_encoder']", 'the offset 0.1 here would be ignored'),
    ({'joint': '<mechanicalReduction>2</mechanicalReduction>'}, BadValueError,
     "joint[@name='knee_joint']", 'reads the reduction from the motor'),
])
def test_urdf_errors_name_the_path_the_line_and_the_value(change, error, path, message):
    with pytest.raises(error) as e:
        load(**change)
    assert path in e.value.path, e.value.path
    assert message in str(e.value), str(e.value)
    assert e.value.line is not None


def test_a_missing_reduction_is_a_warning_in_lenient_mode():
    robot = load(motor='', lenient=True)
    assert robot.transmission('knee_sea').transmission.get_actuator_reduction() == [1.0, 1.0]
    assert any('has no reduction' in w.message for w in robot.warnings)


# ------------------------------------------------------------------------------ robot level
def test_the_robot_gives_the_spring_torque_from_positions_and_velocities():
    robot = load(spring=TABLE_SPRING)
    state = {'position': {'hip_motor': 4.0, 'knee_motor': -25.0, 'knee_joint_encoder': -0.55},
             'velocity': {'hip_motor': 1.0, 'knee_motor': 10.0, 'knee_joint_encoder': 0.1}}
    out = robot.actuator_to_joint(state)
    delta, rate = -25.0 / N + 0.55, 10.0 / N - 0.1
    tau = float(np.interp(delta, TABLE['deflections'], TABLE['torques'])) + D * rate
    assert out['position'] == pytest.approx({'hip_joint': 0.1, 'knee_joint': -0.55})
    assert out['velocity'] == pytest.approx({'hip_joint': 0.025, 'knee_joint': 0.1})
    assert out['effort'] == pytest.approx({'knee_joint': tau})   # the simple joint: no effort
    with_effort = robot.actuator_to_joint({**state, 'effort': {'hip_motor': 2.0}})
    assert with_effort['effort'] == pytest.approx({'hip_joint': 80.0, 'knee_joint': tau})
    without_velocity = robot.actuator_to_joint({'position': state['position'],
                                                'effort': {'hip_motor': 2.0}})
    assert without_velocity['effort'] == pytest.approx({'hip_joint': 80.0})
    arrays = robot.actuator_to_joint_arrays({'position': [4.0, -25.0, -0.55],
                                             'velocity': [1.0, 10.0, 0.1]})
    assert math.isnan(arrays['effort'][0]) and arrays['effort'][1] == pytest.approx(tau)
    commands = robot.joint_to_actuator({'position': {'hip_joint': 0.1, 'knee_joint': -0.5},
                                        'effort': {'hip_joint': 1.0, 'knee_joint': 30.0}})
    assert commands['position'] == pytest.approx(
        {'hip_motor': 4.0, 'knee_motor': -25.0, 'knee_joint_encoder': -0.5})
    assert commands['effort'] == pytest.approx(
        {'hip_motor': 0.025, 'knee_motor': 0.6, 'knee_joint_encoder': 0.0})


def test_the_joint_side_encoder_takes_no_commands():
    robot = load()
    assert robot.actuator_names == ['hip_motor', 'knee_motor', 'knee_joint_encoder']
    assert robot.commanded_actuators.tolist() == [True, True, False]
    assert robot.transmission('knee_sea').transmission.commanded_actuators() == (True, False)


def test_robot_batches_equal_single_samples():
    robot = load(spring=TABLE_SPRING)
    rng = np.random.default_rng(7)
    theta = rng.normal(size=(6, 3)) * [10.0, 8.0, 0.5]
    rate = rng.normal(size=(6, 3))
    effort = rng.normal(size=(6, 3))
    for values in ({'position': theta, 'velocity': rate},
                   {'position': theta, 'velocity': rate, 'effort': effort}):
        batch = robot.actuator_to_joint_arrays(values)
        assert set(batch) == {'position', 'velocity', 'effort'}
        for s in range(6):
            single = robot.actuator_to_joint_arrays({k: v[s] for k, v in values.items()})
            for k in batch:
                np.testing.assert_array_equal(batch[k][s], single[k])
        nested = robot.actuator_to_joint_arrays({k: v.reshape(2, 3, 3) for k, v in values.items()})
        for k in batch:
            np.testing.assert_array_equal(nested[k].reshape(6, 2), batch[k])


def test_inspect_shows_the_spring_and_plot_draws_its_curve(tmp_path, capsys):
    urdf = tmp_path / 'sea_leg.urdf'
    urdf.write_text(ROBOT.format(sea=SEA.format(joint='', motor=MOTOR, encoder='',
                                                spring=TABLE_SPRING)))
    assert main(['inspect', str(urdf)]) == 0
    text = capsys.readouterr().out
    assert ('SeriesElasticTransmission: 2 actuators (motor, reduction 50; joint encoder) -> 1 '
            'joint, spring table of 3 points') in text
    robot = load(spring=TABLE_SPRING)
    fig = plot_transmission(robot, 'knee_sea', str(tmp_path / 'knee.png'))
    assert (tmp_path / 'knee.png').read_bytes()[:8] == b'\x89PNG\r\n\x1a\n'
    curve, points = fig.axes[0].get_lines()[:2]
    x, y = curve.get_xdata(), curve.get_ydata()
    assert x[0] == pytest.approx(-0.14) and x[-1] == pytest.approx(0.14)
    np.testing.assert_allclose(y, extended_interp(x, np.array(TABLE['deflections']),
                                                  np.array(TABLE['torques'])), atol=1e-9)
    np.testing.assert_array_equal(points.get_xdata(), TABLE['deflections'])
    linear_robot = load()
    fig = plot_transmission(linear_robot, 'knee_sea', str(tmp_path / 'k.png'), (-0.01, 0.02))
    x, y = fig.axes[0].get_lines()[0].get_xdata(), fig.axes[0].get_lines()[0].get_ydata()
    assert (x[0], x[-1]) == pytest.approx((-0.01, 0.02))
    np.testing.assert_allclose(y, K * x, atol=1e-9)
    default = plot_transmission(linear_robot, 'knee_sea', str(tmp_path / 'd.png'))
    x = default.axes[0].get_lines()[0].get_xdata()
    assert x[-1] == pytest.approx(150.0 / K)   # the joint's effort limit
    with pytest.raises(TransmissionValueError, match='value_range'):
        plot_transmission(linear_robot, 'knee_sea', str(tmp_path / 'e.png'), (1.0, 0.0))
