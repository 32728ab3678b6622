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
Tests of TableTransmission: preconditions and URDF, hand-computed interpolants, random tables.

Hand-computed: the table (0, 0), (1, 1), (2, 4) has slopes 1, 1.5 (Fritsch-Butland:
6 / (3/1 + 3/3)) and 3, so its cubics are t - t^2/2 + t^3/2 and t/2 + t^2 - t^3/2, worth
0.4375 at t = 1/2 on both segments.
"""

import math
import warnings

from mechanism_contract import check_contract
import numpy as np
import pytest

from transmission_plugins import BadValueError
from transmission_plugins import IncompleteTransmissionError
from transmission_plugins import load_robot_transmissions
from transmission_plugins import TableTransmission
from transmission_plugins import TransmissionValueError

URDF = """\
<robot name="r">
  <link name="a"/><link name="b"/>
  <joint name="knee" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 1 0"/>
    <limit lower="-0.5" upper="1" effort="150" velocity="8"/></joint>
  <transmission name="measured">
    <type>transmission_plugins/TableTransmission</type>
    <joint name="knee"/>
    <actuator name="motor"/>
    {table}
  </transmission>
</robot>
"""
TABLE = """<table outside="linear">
      <point actuator="-1" joint="-0.5"/>
      <point actuator="0" joint="0"/>
      <point actuator="2" joint="1"/>
    </table>"""


def load(table=TABLE):
    return load_robot_transmissions(URDF.format(table=table), warn=False)


# ------------------------------------------------------------------------------ preconditions
@pytest.mark.parametrize('x, y, outside, parameter, expected', [
    ([0.0], [0.0], 'nan', 'actuator_position', 'at least 2 points'),
    ([0.0, 1.0], [0.0, 1.0, 2.0], 'nan', 'joint_position', '2 values, one per'),
    ([0.0, 1.0, 1.0], [0.0, 1.0, 2.0], 'nan', 'actuator_position[2]', 'increasing order (after '
     '1.0)'),
    ([0.0, 2.0, 1.0], [0.0, 1.0, 2.0], 'nan', 'actuator_position[2]', 'increasing order'),
    ([0.0, 1.0, 2.0], [0.0, 1.0, 1.0], 'nan', 'joint_position[2]', 'strictly increasing like '
     'the first two (after 1.0)'),
    ([0.0, 1.0, 2.0], [3.0, 1.0, 2.0], 'nan', 'joint_position[2]', 'strictly decreasing'),
    ([0.0, 1.0, 2.0], [1.0, 1.0, 2.0], 'nan', 'joint_position[1]', 'strictly increasing or '
     'decreasing (after 1.0)'),
    ([0.0, math.nan], [0.0, 1.0], 'nan', 'actuator_position', 'finite numbers'),
    ([0.0, 1.0], [0.0, math.inf], 'nan', 'joint_position', 'finite numbers'),
    ([0.0, 1.0], [0.0, 1.0], 'clamp', 'outside', 'one of nan, linear'),
])
def test_bad_tables_are_rejected(x, y, outside, parameter, expected):
    with pytest.raises(TransmissionValueError) as e:
        TableTransmission(x, y, outside)
    assert e.value.parameter == parameter and expected in str(e.value)


@pytest.mark.parametrize('x, y, segment', [
    ([0.0, 5e-324], [0.0, 1.0], 0),                    # a slope of 1 / 5e-324: inf
    ([0.0, 1.0], [-1e308, 1e308], 0),                  # a rise of 2e308: inf
    ([0.0, 1e308, 1.7e308], [0.0, 1.0, 2.0], 0),       # the slopes' weights overflow
    ([0.0, 1.0, 1.0 + 2.220446049250313e-16], [0.0, 1.0, 1e300], 1),
])
def test_tables_whose_interpolant_overflows_are_refused(x, y, segment):
    # issue 34 G-12: such tables were accepted and gave NaN inside their range
    with warnings.catch_warnings():   # and the refusal itself warns of no overflow
        warnings.simplefilter('error')
        with pytest.raises(TransmissionValueError) as e:
            TableTransmission(x, y)
    assert e.value.parameter == f'actuator_position[{segment + 1}]'
    assert 'overflows' in str(e.value) and repr(x[segment]) in str(e.value)


def test_valid_construction_and_queries():
    t = TableTransmission([0.0, 1.0, 2.0], [0.0, 1.0, 4.0])
    assert t.num_actuators() == t.num_joints() == 1 and not t.is_linear()
    assert t.parameters() == {'actuator_position': [0.0, 1.0, 2.0],
                              'joint_position': [0.0, 1.0, 4.0], 'outside': 'nan'}
    assert 'TableTransmission: 1 actuator -> 1 joint, 3 points' in str(t)
    assert eval(repr(t), {'TableTransmission': TableTransmission}).map_key() == t.map_key()


# ------------------------------------------------------------------------------ URDF
def test_the_urdf_reads_the_table():
    t = load().transmission('measured').transmission
    assert t.parameters() == {'actuator_position': [-1.0, 0.0, 2.0],
                              'joint_position': [-0.5, 0.0, 1.0], 'outside': 'linear'}
    default = load(TABLE.replace(' outside="linear"', '')).transmission('measured')
    assert default.transmission.parameters()['outside'] == 'nan'


@pytest.mark.parametrize('table, error, path, message', [
    ('', IncompleteTransmissionError, "transmission[@name='measured']", 'missing <table>'),
    (TABLE.replace('joint="0"/>', 'joint="-0.5"/>'), BadValueError,
     "transmission[@name='measured']/table/point[2]/@joint", 'joint_position[1]: expected joint '
     'positions strictly increasing or decreasing (after -0.5), got -0.5'),
    (TABLE.replace('joint="1"/>', 'joint="-0.1"/>'), BadValueError,
     "transmission[@name='measured']/table/point[3]/@joint", 'joint_position[2]: expected joint '
     'positions strictly increasing like the first two (after 0.0), got -0.1'),
    (TABLE.replace('actuator="2"', 'actuator="-2"'), BadValueError,
     'table/point[3]/@actuator', 'actuator_position[2]: expected actuator positions in '
     'increasing order (after 0.0), got -2.0'),
    (TABLE.replace('joint="1"', 'joint="one"'), BadValueError, 'table/point[3]/@joint',
     "got 'one'"),
    (TABLE.replace('joint="1"', ''), IncompleteTransmissionError, 'table/point[3]',
     "attribute 'joint' is missing"),
    (TABLE.replace('joint="1"', 'joint="1" torque="3"'), BadValueError,
     'table/point[3]/@torque', "unexpected attribute 'torque'"),
    (TABLE.replace('"linear"', '"clamp"'), BadValueError, 'table/@outside',
     "outside: expected one of nan, linear, got 'clamp'"),
    (TABLE.replace('"linear"', '"linear" spline="cubic"'), BadValueError, 'table/@spline',
     "unexpected attribute 'spline'"),
    ('<table><point actuator="0" joint="0"/></table>', BadValueError, 'table',
     'at least 2 points'),
    (TABLE + TABLE, BadValueError, 'table', 'given 2 times'),
])
def test_urdf_errors_name_the_point_line_and_value(table, error, path, message):
    with pytest.raises(error) as e:
        load(table)
    assert e.value.path.endswith(path), e.value.path
    assert message in str(e.value)
    assert e.value.line is not None


# ------------------------------------------------------------------------------ white box
def test_hand_computed_interpolant():
    t = TableTransmission([0.0, 1.0, 2.0], [0.0, 1.0, 4.0])
    theta = np.array([[0.0], [0.5], [1.0], [1.5], [2.0]])
    out = t.actuator_to_joint({'position': theta, 'velocity': np.ones((5, 1)),
                               'effort': np.ones((5, 1))})
    np.testing.assert_allclose(out['position'][:, 0], [0.0, 0.4375, 1.0, 1.0 + 3 * 0.4375, 4.0],
                               atol=1e-15)
    # slopes 1, 1.5, 3 at the knots; 1 - 1/2 + 3/8 at t = 1/2 on the first segment
    np.testing.assert_allclose(out['velocity'][:, 0], [1.0, 0.875, 1.5, 3.0 * (0.5 + 1.0 -
                                                                               0.375), 3.0])
    np.testing.assert_allclose(out['effort'][:, 0], 1.0 / out['velocity'][:, 0])
    np.testing.assert_allclose(t.actuator_position(out['position']), theta, atol=1e-15)


def test_two_points_are_a_straight_line():
    t = TableTransmission([-1.0, 3.0], [2.0, 0.0])
    theta = np.linspace(-1.0, 3.0, 9)[:, None]
    np.testing.assert_allclose(t.joint_position(theta), 2.0 - (theta + 1.0) / 2.0, atol=1e-15)
    np.testing.assert_allclose(t.actuator_to_joint_jacobian(theta)[:, 0, 0], -0.5)


def test_outside_the_table():
    nan = TableTransmission([0.0, 1.0, 2.0], [0.0, 1.0, 4.0])
    linear = TableTransmission([0.0, 1.0, 2.0], [0.0, 1.0, 4.0], 'linear')
    out = nan.actuator_to_joint({'position': [[-0.1], [2.1]], 'velocity': [[1], [1]],
                                 'effort': [[1], [1]]})
    assert all(np.all(np.isnan(v)) for v in out.values())
    assert np.all(np.isnan(nan.actuator_position([[-1.0], [5.0]])))
    assert nan.workspace_problems([5.0]) == [
        "joint position 5 is outside the table [0, 4] (outside='nan')",
        'no actuator position maps to joint position [5.]: outside the workspace']
    assert nan.workspace_problems([-0.5], to_joint=True)[0] == \
        "actuator position -0.5 is outside the table [0, 2] (outside='nan')"
    np.testing.assert_allclose(linear.joint_position([[-1.0], [3.0]]), [[-1.0], [7.0]])
    np.testing.assert_allclose(linear.actuator_position([[-1.0], [7.0]]), [[-1.0], [3.0]])
    np.testing.assert_allclose(linear.actuator_to_joint_jacobian([[-1.0], [3.0]])[:, 0, 0],
                               [1.0, 3.0])
    assert linear.workspace_problems([9.0]) == []


# ------------------------------------------------------------------------------ black box
@pytest.mark.parametrize('outside', ['nan', 'linear'])
def test_random_tables_are_monotone_smooth_and_keep_the_contract(outside):
    rng = np.random.default_rng(1234)
    for _ in range(30):
        n = int(rng.integers(2, 12))
        x = np.cumsum(rng.uniform(0.01, 1.0, n)) - 2.0
        y = np.cumsum(rng.uniform(0.001, 2.0, n)) * rng.choice([-1.0, 1.0])
        t = TableTransmission(x, y, outside)
        np.testing.assert_allclose(t.joint_position(x[:, None])[:, 0], y, atol=1e-14)
        dense = np.linspace(x[0], x[-1], 2001)[:, None]
        q = t.joint_position(dense)[:, 0]
        assert np.all(np.diff(q) * np.sign(y[-1] - y[0]) > 0.0)
        jac = t.actuator_to_joint_jacobian(dense)[:, 0, 0]
        assert np.all(jac * np.sign(y[-1] - y[0]) > 0.0)
        for knot in x[1:-1]:   # the derivative is continuous at the knots
            around = [[np.nextafter(knot, -np.inf)], [np.nextafter(knot, np.inf)]]
            left, right = t.actuator_to_joint_jacobian(around)[:, 0, 0]
            assert left == pytest.approx(right, rel=1e-9)
        span = x[-1] - x[0]
        low, high = ((x[0] - 0.5 * span, x[-1] + 0.5 * span) if outside == 'linear'
                     else (x[0], x[-1]))
        states = {'position': rng.uniform(low, high, (20, 1)),
                  'velocity': rng.normal(size=(20, 1)), 'effort': rng.normal(size=(20, 1))}
        check_contract(t, states)
