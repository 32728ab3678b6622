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

"""Tests of the actuator model: validation, reflected inertia, effort limits, the PD law."""

import dataclasses
import math
import textwrap
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from transmission_plugins import BadValueError
from transmission_plugins import DifferentialTransmission
from transmission_plugins import IncompleteTransmissionError
from transmission_plugins import PR2GripperTransmission
from transmission_plugins import SimpleTransmission
from transmission_plugins import TransmissionInputError
from transmission_plugins import TransmissionValueError
from transmission_plugins import TransmissionWarning
from transmission_plugins import WristTransmission
from transmission_plugins.robot.actuators import actuator_model_from_info
from transmission_plugins.robot.actuators import ActuatorModel
from transmission_plugins.robot.actuators import check_gains
from transmission_plugins.robot.actuators import pd_effort
from transmission_plugins.robot.effort_limits import actuator_to_joint_effort_limit
from transmission_plugins.robot.effort_limits import joint_to_actuator_effort_limit
from transmission_plugins.robot.inertia import duplicated_reduction
from transmission_plugins.robot.inertia import reflected_inertia
from transmission_plugins.robot.loading import load_robot_transmissions
from transmission_plugins.urdf.actuator_tags import read_actuator_extensions
from transmission_plugins.urdf.records import ActuatorInfo

PR2_GRIPPER = {'screw_reduction': 0.004, 'gear_ratio': 40.095, 'theta0': 0.0628824676201037,
               'phi0': 0.5185181221457433, 't0': -0.0001914, 'L0': 0.0375528, 'h': 0.0,
               'a': 0.0683698, 'b': 0.043384900000000004, 'r': 0.0915}


# ------------------------------------------------------------------------------ ActuatorModel
def test_model_defaults_and_reflected_inertia():
    m = ActuatorModel('m')
    assert m.effort_limit == math.inf and m.rotor_inertia == 0.0 and m.gear_ratio == 1.0
    assert m.kp is None and m.kd is None and not m.has_pd_gains()
    m = ActuatorModel('m', effort_limit=3, rotor_inertia=2e-5, gear_ratio=-50, kp=10)
    assert m.reflected_inertia() == pytest.approx(2500 * 2e-5)
    assert m.kd == 0.0 and m.has_pd_gains() and isinstance(m.effort_limit, float)
    with pytest.raises(dataclasses.FrozenInstanceError):
        m.kp = 3.0


@pytest.mark.parametrize('kwargs, parameter', [
    ({'effort_limit': 0.0}, 'effort_limit'), ({'effort_limit': -1.0}, 'effort_limit'),
    ({'effort_limit': float('nan')}, 'effort_limit'), ({'effort_limit': 'x'}, 'effort_limit'),
    ({'rotor_inertia': -1e-6}, 'rotor_inertia'), ({'rotor_inertia': math.inf}, 'rotor_inertia'),
    ({'gear_ratio': 0.0}, 'gear_ratio'), ({'gear_ratio': math.nan}, 'gear_ratio'),
    ({'kp': 0.0}, 'kp'), ({'kp': -1.0}, 'kp'), ({'kp': math.inf}, 'kp'),
    ({'kp': 1.0, 'kd': -0.1}, 'kd'), ({'kd': 1.0}, 'kd'), ({'kp': True}, 'kp')])
def test_model_rejects_invalid_values_like_drake(kwargs, parameter):
    with pytest.raises(TransmissionValueError) as e:
        ActuatorModel('motor', **kwargs)
    assert e.value.parameter == parameter and "actuator 'motor'" in str(e.value)


def test_model_rejects_empty_name():
    with pytest.raises(TransmissionValueError, match='name'):
        ActuatorModel('')


def test_check_gains():
    assert check_gains(None, None) == (None, None)
    assert check_gains(5, None) == (5.0, 0.0)
    assert check_gains(5, 0) == (5.0, 0.0)
    with pytest.raises(TransmissionValueError, match='Kp <= 0'):
        check_gains(0.0, 1.0)
    with pytest.raises(TransmissionValueError, match='Kd < 0'):
        check_gains(1.0, -1.0)


# ------------------------------------------------------------------------------ URDF extensions
def _actuator_xml(body):
    return ET.fromstring(textwrap.dedent(f"""
        <actuator name="m" xmlns:drake="http://drake.mit.edu">
        {body}
        </actuator>""").strip())


def test_read_drake_extensions():
    element = _actuator_xml("""
        <hardwareInterface>EffortJointInterface</hardwareInterface>
        <drake:rotor_inertia value="1.5e-5"/>
        <drake:gear_ratio value="100"/>
        <drake:controller_gains p="50" d="2"/>""")
    assert read_actuator_extensions(element, '/a') == {
        'rotor_inertia': 1.5e-5, 'gear_ratio': 100.0, 'controller_gains': (50.0, 2.0)}


def test_read_ros2_control_params():
    element = _actuator_xml("""
        <param name="rotor_inertia">2e-6</param>
        <param name="effort_limit">3.5</param>
        <param name="kp">10</param>
        <param name="mechanical_reduction">7</param>""")
    assert read_actuator_extensions(element, '/a') == {
        'rotor_inertia': 2e-6, 'effort_limit': 3.5, 'controller_gains': (10.0, 0.0)}


def test_read_nothing():
    assert read_actuator_extensions(_actuator_xml(''), '/a') == {}


@pytest.mark.parametrize('body, error, fragment', [
    ('<drake:rotor_inertia value="-1"/>', BadValueError, '>= 0'),
    ('<drake:rotor_inertia value="abc"/>', BadValueError, "'abc'"),
    ('<drake:rotor_inertia/>', IncompleteTransmissionError, "'value' is missing"),
    ('<drake:gear_ratio value="0"/>', BadValueError, 'non-zero'),
    ('<drake:controller_gains p="0" d="1"/>', BadValueError, '> 0'),
    ('<drake:controller_gains p="1" d="-1"/>', BadValueError, 'Kd < 0'),
    ('<drake:controller_gains p="1"/>', IncompleteTransmissionError, "'d' is missing"),
    ('<param name="kd">1</param>', BadValueError, 'kd is given without kp'),
    ('<param name="effort_limit">0</param>', BadValueError, '> 0'),
    ('<drake:gear_ratio value="2"/><param name="gear_ratio">3</param>', BadValueError, 'twice'),
])
def test_read_extensions_rejects_bad_values(body, error, fragment):
    with pytest.raises(error) as e:
        read_actuator_extensions(_actuator_xml(body), "/robot/transmission/actuator[@name='m']")
    assert fragment in str(e.value) and "actuator[@name='m']" in e.value.path


def test_actuator_model_from_info():
    info = ActuatorInfo(name='m', rotor_inertia=1e-5, gear_ratio=10.0,
                        controller_gains=(5.0, 1.0), path='/t/actuator')
    m = actuator_model_from_info(info, effort_limit=2.0, kp=99.0, kd=9.0)
    assert m == ActuatorModel('m', 2.0, 1e-5, 10.0, 5.0, 1.0)
    assert actuator_model_from_info(ActuatorInfo(name='m', effort_limit=4.0),
                                    effort_limit=2.0).effort_limit == 4.0
    assert actuator_model_from_info(ActuatorInfo(name='m')) == ActuatorModel('m')
    with pytest.raises(BadValueError, match='/t/actuator.*rotor_inertia'):
        actuator_model_from_info(ActuatorInfo(name='m', rotor_inertia=-1.0, path='/t/actuator'))


# ------------------------------------------------------------------------------ reflected inertia
def test_simple_transmission_reflects_rho_squared_times_rotor_inertia():
    t = SimpleTransmission(-80.0, 0.3)
    m = ActuatorModel('m', rotor_inertia=3e-6)
    np.testing.assert_allclose(reflected_inertia(t, [m]), [[6400 * 3e-6]])
    np.testing.assert_allclose(reflected_inertia(t, [3e-6]), [[6400 * 3e-6]])
    # Drake's convention: the actuator's own gear ratio rho multiplies too
    geared = ActuatorModel('m', rotor_inertia=3e-6, gear_ratio=4.0)
    np.testing.assert_allclose(reflected_inertia(SimpleTransmission(1.0), [geared]),
                               [[16 * 3e-6]])


def test_differential_reflected_inertia_is_a_full_matrix():
    a1, a2, j1, j2, i1, i2 = 10.0, 20.0, 2.0, -3.0, 1e-4, 3e-4
    t = DifferentialTransmission((a1, a2), (j1, j2))
    m = reflected_inertia(t, [i1, i2])
    s, d = i1 * a1 * a1 + i2 * a2 * a2, i1 * a1 * a1 - i2 * a2 * a2
    expected = [[j1 * j1 * s, j1 * j2 * d], [j1 * j2 * d, j2 * j2 * s]]
    np.testing.assert_allclose(m, expected, rtol=1e-12)
    assert m[0, 1] != 0.0


def test_wrist_reflected_inertia_closed_form_and_kinetic_energy():
    nr, nl, nf, no, ir, il = 60.0, 45.0, -1.0, 1.0, 3.3e-6, 5e-6
    t = WristTransmission((nr, nl), (nf, no))
    m = reflected_inertia(t, [ir, il])
    s, d = ir * nr * nr + il * nl * nl, -ir * nr * nr + il * nl * nl
    expected = [[nf * nf * s, nf * no * d], [nf * no * d, no * no * s]]
    np.testing.assert_allclose(m, expected, rtol=1e-12)
    rng = np.random.default_rng(1234)
    qd = rng.normal(size=(20, 2))
    motor = t.joint_to_actuator({'velocity': qd})['velocity']
    np.testing.assert_allclose(np.einsum('ki,ij,kj->k', qd, m, qd),
                               motor ** 2 @ np.array([ir, il]), rtol=1e-12)
    # equal motors (the PR2) decouple flex and roll
    assert reflected_inertia(WristTransmission((nr, nr), (nf, no)), [ir, ir])[0, 1] == 0.0


def test_gripper_reflected_inertia_depends_on_the_gap():
    t = PR2GripperTransmission(**PR2_GRIPPER)
    gaps = np.linspace(0.005, 0.085, 9)
    q = np.zeros((9, 5))
    q[:, 0] = gaps
    m = reflected_inertia(t, [1e-6], q)
    assert m.shape == (9, 5, 5)
    assert np.all(m[:, 1:, :] == 0.0) and np.all(m[:, :, 1:] == 0.0)
    step = 1e-7
    dq = np.zeros(5)
    dq[0] = step
    dtheta = (t.joint_to_actuator({'position': q + dq})['position'][:, 0]
              - t.joint_to_actuator({'position': q - dq})['position'][:, 0]) / (2 * step)
    np.testing.assert_allclose(m[:, 0, 0], 1e-6 * dtheta ** 2, rtol=1e-6)
    assert np.ptp(m[:, 0, 0]) > 0.1 * m[:, 0, 0].max()
    with pytest.raises(TransmissionInputError, match='nonlinear'):
        reflected_inertia(t, [1e-6])


def test_reflected_inertia_rejects_bad_inertias():
    t = SimpleTransmission(2.0)
    with pytest.raises(TransmissionInputError, match='1 rotor inertias'):
        reflected_inertia(t, [1.0, 2.0])
    with pytest.raises(TransmissionInputError, match='>= 0'):
        reflected_inertia(t, [-1.0])


# ------------------------------------------------------------------------------ effort limits
def test_simple_effort_limits_map_by_the_reduction():
    t = SimpleTransmission(-5.0)
    np.testing.assert_allclose(joint_to_actuator_effort_limit(t, [10.0]), [2.0])
    np.testing.assert_allclose(actuator_to_joint_effort_limit(t, [2.0]), [10.0])
    np.testing.assert_allclose(joint_to_actuator_effort_limit(t, [math.inf]), [math.inf])


def test_wrist_effort_limits_are_the_bounding_box():
    nr, nl, nf, no = 60.0, 45.0, -1.0, 2.0
    t = WristTransmission((nr, nl), (nf, no))
    lf, lo = 10.0, 4.0
    np.testing.assert_allclose(joint_to_actuator_effort_limit(t, [lf, lo]),
                               [(lf / abs(nf) + lo / abs(no)) / (2 * nr),
                                (lf / abs(nf) + lo / abs(no)) / (2 * nl)])
    ur, ul = 0.1, 0.2
    np.testing.assert_allclose(actuator_to_joint_effort_limit(t, [ur, ul]),
                               [abs(nf) * (nr * ur + nl * ul), abs(no) * (nr * ur + nl * ul)])
    # any joint effort inside the box maps to actuator efforts inside the limits
    rng = np.random.default_rng(1234)
    tau = rng.uniform(-1, 1, (200, 2)) * [lf, lo]
    u = t.joint_to_actuator({'effort': tau})['effort']
    assert np.all(np.abs(u) <= joint_to_actuator_effort_limit(t, [lf, lo]) + 1e-15)


def test_gripper_effort_limits_ignore_passive_joints_and_need_the_gap():
    t = PR2GripperTransmission(**PR2_GRIPPER)
    q = np.zeros((2, 5))
    q[:, 0] = [0.01, 0.08]
    lim = joint_to_actuator_effort_limit(t, [100.0, math.inf, math.inf, math.inf, math.inf], q)
    u = t.joint_to_actuator({'position': q, 'effort': q * 0 + [100.0, 0, 0, 0, 0]})['effort']
    np.testing.assert_allclose(lim, np.abs(u), rtol=1e-12)
    assert np.all(np.isfinite(lim)) and lim[0, 0] != lim[1, 0]
    back = actuator_to_joint_effort_limit(t, [2.0], [[300.0]])
    ref = t.actuator_to_joint({'position': [[300.0]], 'effort': [[2.0]]})['effort']
    np.testing.assert_allclose(back, np.abs(ref), rtol=1e-12)
    with pytest.raises(TransmissionInputError, match='nonlinear'):
        joint_to_actuator_effort_limit(t, [1.0] * 5)


def test_effort_limits_reject_negative_or_nan():
    with pytest.raises(TransmissionInputError, match='effort limits'):
        joint_to_actuator_effort_limit(SimpleTransmission(2.0), [-1.0])
    with pytest.raises(TransmissionInputError, match='effort limits'):
        joint_to_actuator_effort_limit(SimpleTransmission(2.0), [math.nan])


# ------------------------------------------------------------------------------ PD law
def test_pd_effort_matches_drake_law_and_clamps():
    assert pd_effort(1.0, 0.5, 2.0, 0.0, 0.1, 3.0, 0.2, 10.0) == pytest.approx(3.0 - 0.1 + 0.1)
    assert pd_effort(0.0, 0.0, 100.0, 0.0, 0.0, 3.0, 0.2, 10.0) == 10.0
    assert pd_effort(0.0, 0.0, -100.0, 0.0, 0.0, 3.0, 0.2, 10.0) == -10.0
    assert pd_effort(0.0, 0.0, 1e9, 0.0, 0.0, 3.0, 0.0) == 3e9  # no limit by default
    rng = np.random.default_rng(1234)
    q, v, qd, vd, uff = rng.normal(size=(5, 100, 3))
    kp, kd, lim = np.array([1.0, 5.0, 20.0]), np.array([0.0, 0.5, 1.0]), np.array([1, 2, 3.0])
    u = pd_effort(q, v, qd, vd, uff, kp, kd, lim)
    np.testing.assert_allclose(u, np.clip(-kp * (q - qd) - kd * (v - vd) + uff, -lim, lim))
    assert np.isnan(pd_effort(np.nan, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0))


@pytest.mark.parametrize('kp, kd, lim, parameter', [
    (0.0, 1.0, 1.0, 'kp'), (-1.0, 1.0, 1.0, 'kp'), ([1.0, 0.0], 1.0, 1.0, 'kp'),
    (np.nan, 1.0, 1.0, 'kp'), (1.0, -0.1, 1.0, 'kd'), (1.0, np.nan, 1.0, 'kd'),
    (1.0, 1.0, 0.0, 'effort_limit'), (1.0, 1.0, np.nan, 'effort_limit')])
def test_pd_effort_rejects_gains_drake_rejects(kp, kd, lim, parameter):
    with pytest.raises(TransmissionValueError) as e:
        pd_effort(0.0, 0.0, 0.0, 0.0, 0.0, kp, kd, lim)
    assert e.value.parameter == parameter


# ------------------------------------------------------------------- gear ratio vs reduction
GEARED_URDF = textwrap.dedent("""\
    <robot name="r" xmlns:drake="http://drake.mit.edu">
      <link name="a"/><link name="b"/><link name="c"/><link name="d"/>
      <joint name="j" type="revolute">
        <parent link="a"/><child link="b"/>
        <limit lower="-1" upper="1" velocity="2" effort="50"/>
      </joint>
      <joint name="k1" type="revolute">
        <parent link="a"/><child link="c"/>
        <limit lower="-1" upper="1" velocity="2" effort="50"/>
      </joint>
      <joint name="k2" type="revolute">
        <parent link="a"/><child link="d"/>
        <limit lower="-1" upper="1" velocity="2" effort="50"/>
      </joint>
      <transmission name="t">
        <type>transmission_interface/SimpleTransmission</type>
        <joint name="j"/>
        <actuator name="m">
          <mechanicalReduction>{reduction}</mechanicalReduction>{data}
        </actuator>
      </transmission>
      <transmission name="diff">
        <type>transmission_interface/DifferentialTransmission</type>
        <actuator name="m1"><role>actuator1</role>
          <mechanicalReduction>{reduction}</mechanicalReduction>{data}</actuator>
        <actuator name="m2"><role>actuator2</role>
          <mechanicalReduction>3</mechanicalReduction>{data}</actuator>
        <joint name="k1"><role>joint1</role></joint>
        <joint name="k2"><role>joint2</role></joint>
      </transmission>
    </robot>
    """)
ROTOR = 2e-5


def _geared(reduction, gear_ratio=None):
    data = f'<drake:rotor_inertia value="{ROTOR}"/>'
    if gear_ratio is not None:
        data += f'<drake:gear_ratio value="{gear_ratio}"/>'
    return load_robot_transmissions(GEARED_URDF.format(reduction=reduction, data=data))


def test_drake_style_urdf_reflects_exactly_rho_squared_rotor_inertia():
    robot = _geared(1, gear_ratio=100)  # Drake writes <mechanicalReduction>1</...>
    assert robot.actuator_models['m'].reflected_inertia() == pytest.approx(100 ** 2 * ROTOR)
    i = robot.joint_index['j']
    assert robot.reflected_inertia()[i, i] == pytest.approx(100 ** 2 * ROTOR, rel=1e-12)
    assert robot.warnings == []


def test_ros_style_urdf_reflects_n_squared_rotor_inertia():
    robot = _geared(-80)
    i = robot.joint_index['j']
    assert robot.reflected_inertia()[i, i] == pytest.approx(80 ** 2 * ROTOR, rel=1e-12)
    assert robot.warnings == []


def test_gear_ratio_and_reduction_of_the_same_size_warn_and_count_in_series():
    with pytest.warns(TransmissionWarning, match='described twice'):
        robot = _geared(-80, gear_ratio=80)
    i = robot.joint_index['j']
    # the documented model: rotor -> rho -> actuator coordinate -> n -> joint
    assert robot.reflected_inertia()[i, i] == pytest.approx(80 ** 4 * ROTOR, rel=1e-12)
    simple = [w for w in robot.warnings if "actuator[@name='m']" in w]
    assert len(simple) == 1
    assert "actuator 'm' has gear ratio 80 and its transmission reduction is -80" in simple[0]
    assert 'described twice' in simple[0] and '4.096e+07 times' in simple[0]
    # coupled: compared per actuator (m1 has reduction 80, m2 has 3)
    assert [w.path for w in robot.warnings] == [
        "/robot[@name='r']/transmission[@name='t']/actuator[@name='m']",
        "/robot[@name='r']/transmission[@name='diff']/actuator[@name='m1']"]
    assert {w.kind for w in robot.warnings} == {'described-twice'}
    assert _geared(-80, gear_ratio=40).warnings == []


def test_duplicated_reduction_helper():
    geared = ActuatorModel('m', gear_ratio=-50.0)
    assert duplicated_reduction(geared, SimpleTransmission(50.0), 0) == 50.0
    assert duplicated_reduction(geared, SimpleTransmission(49.0), 0) is None
    assert duplicated_reduction(ActuatorModel('m', gear_ratio=-1.0), SimpleTransmission(1.0),
                                0) is None
    wrist = WristTransmission((60.0, 50.0), (1.0, 1.0))
    assert duplicated_reduction(geared, wrist, 0) is None
    assert duplicated_reduction(geared, wrist, 1) == 50.0
    assert duplicated_reduction(ActuatorModel('m', gear_ratio=2.0),
                                PR2GripperTransmission(**PR2_GRIPPER, mechanical_reduction=2.0),
                                0) == 2.0
