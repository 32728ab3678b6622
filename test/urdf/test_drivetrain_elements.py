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
``<friction>``, ``<backlash>`` and ``<motor>`` read strictly in every dialect (issue 36, item 6).

Each value read with its origin (the attribute's path and line, what a rewriter writes); each
bad value an error naming the element path, the line and the value, which lenient mode turns
into a warning, ignoring that element only.
"""

import math

import pytest

from transmission_plugins import load_robot_transmissions
from transmission_plugins.core.drivetrain import Friction
from transmission_plugins.core.exceptions import BrokenReferenceError
from transmission_plugins.core.exceptions import UrdfTransmissionError
from transmission_plugins.urdf.dialects import parse_transmissions
from transmission_plugins.urdf.rewrite import Change
from transmission_plugins.urdf.rewrite import rewrite_urdf

FRICTION = '<friction coulomb="0.5" viscous="0.1" static="0.7" stribeck_velocity="0.2"/>'
BACKLASH = '<backlash width="0.004"/>'
MOTOR_FRICTION = '<friction coulomb="0.01" viscous="0.0002"/>'
MOTOR = ('<motor torque_constant="0.08" peak_torque="0.6" max_speed="400" peak_current="9"'
         ' resistance="0.5" thermal_resistance="3" thermal_time_constant="30"'
         ' max_temperature="120" ambient_temperature="20" warning_temperature="90"/>')
TABLE_MOTOR = ('<motor torque_constant="0.05">\n'
               '        <torque_speed speeds="0 300 600" torques="0.4 0.4 0"/>\n'
               '      </motor>')

HEAD = """<?xml version="1.0"?>
<robot name="r">
  <link name="a"/><link name="b"/>
  <joint name="j" type="revolute"><parent link="a"/><child link="b"/>
    <limit lower="-1" upper="1" effort="50" velocity="5"/></joint>
"""


def ros1(joint='', actuator='', name='t', reduction='10'):
    """Return a ROS 1 transmission of joint ``j`` with these drivetrain elements."""
    return f"""  <transmission name="{name}">
    <type>transmission_interface/SimpleTransmission</type>
    <joint name="j">
      <hardwareInterface>hardware_interface/EffortJointInterface</hardwareInterface>
      {joint}
    </joint>
    <actuator name="m">
      <mechanicalReduction>{reduction}</mechanicalReduction>
      {actuator}
    </actuator>
  </transmission>
"""


def ros2_control(joint='', actuator=''):
    """Return a ``<ros2_control>`` block whose transmission has these drivetrain elements."""
    return f"""  <ros2_control name="s" type="system">
    <hardware><plugin>x/Y</plugin></hardware>
    <joint name="j"><command_interface name="effort"/></joint>
    <transmission name="t">
      <plugin>transmission_interface/SimpleTransmission</plugin>
      <joint name="j" role="joint1">
        <mechanical_reduction>10</mechanical_reduction>
        {joint}
      </joint>
      <actuator name="m" role="actuator1">
        {actuator}
      </actuator>
    </transmission>
  </ros2_control>
"""


def robot(*bodies):
    return HEAD + ''.join(bodies) + '</robot>\n'


def line_of(text, needle, start=0):
    """Return the 1-based line of the first ``needle`` at or after line ``start``."""
    lines = text.splitlines()
    return next(i + 1 for i, line in enumerate(lines) if i + 1 >= start and needle in line)


DIALECTS = {'ros1': (ros1, "/robot[@name='r']/transmission[@name='t']"),
            'ros2_control': (ros2_control,
                             "/robot[@name='r']/ros2_control[@name='s']/transmission[@name='t']")}


# ----------------------------------------------------------------------------- reading
@pytest.mark.parametrize('dialect', sorted(DIALECTS))
def test_every_element_and_attribute_is_read_with_its_origin(dialect):
    make, tpath = DIALECTS[dialect]
    text = robot(make(FRICTION + '\n' + BACKLASH, MOTOR_FRICTION + '\n' + BACKLASH + '\n'
                      + MOTOR))
    (info,) = parse_transmissions(text).transmissions
    (joint,), (actuator,) = info.joints, info.actuators
    assert joint.friction == Friction(0.5, 0.1, 0.7, 0.2)
    assert joint.backlash.width == 0.004 and actuator.backlash.width == 0.004
    assert (actuator.friction.coulomb, actuator.friction.viscous) == (0.01, 0.0002)
    assert actuator.friction.static == 0.01    # no static: Coulomb, no Stribeck drop
    motor = actuator.motor
    assert (motor.torque_constant, motor.peak_current) == (0.08, 9.0)
    assert (motor.torque_speed.speeds, motor.torque_speed.torques) == ((0.0, 400.0), (0.6, 0.0))
    thermal = motor.thermal
    assert (thermal.resistance, thermal.thermal_resistance, thermal.time_constant) == (
        0.5, 3.0, 30.0)
    assert (thermal.max_temperature, thermal.ambient_temperature,
            thermal.warning_temperature) == (120.0, 20.0, 90.0)
    assert not hasattr(joint, 'motor')
    # origins: each attribute's path and the line of its element
    jpath, apath = f"{tpath}/joint[@name='j']", f"{tpath}/actuator[@name='m']"
    friction_line = line_of(text, '<friction coulomb="0.5"')
    for attribute in ('coulomb', 'viscous', 'static', 'stribeck_velocity'):
        assert joint.origins[f'friction:{attribute}'] == (
            f'{jpath}/friction/@{attribute}', friction_line, True)
    assert joint.origins['friction'] == (f'{jpath}/friction', friction_line, True)
    assert joint.origins['backlash:width'] == (f'{jpath}/backlash/@width',
                                               line_of(text, BACKLASH), True)
    motor_line = line_of(text, '<motor ')
    for attribute in ('torque_constant', 'peak_torque', 'max_speed', 'peak_current',
                      'resistance', 'thermal_resistance', 'thermal_time_constant',
                      'max_temperature', 'ambient_temperature', 'warning_temperature'):
        assert actuator.origins[f'motor:{attribute}'] == (f'{apath}/motor/@{attribute}',
                                                          motor_line, True)
    assert actuator.origins['friction:coulomb'].line == line_of(text, MOTOR_FRICTION)
    assert actuator.origins['backlash:width'].line == line_of(text, BACKLASH, motor_line - 1)
    assert 'friction:static' not in actuator.origins   # not given, no origin
    # and the robot loads strictly with them (the strict check knows the elements)
    loaded = load_robot_transmissions(text, warn=False)
    assert loaded.drivetrain.joint_friction.static.tolist() == [0.7]
    assert loaded.drivetrain.effort_per_current.tolist() == [0.08]


@pytest.mark.parametrize('dialect', sorted(DIALECTS))
def test_a_torque_speed_table_is_read_with_its_origins(dialect):
    make, tpath = DIALECTS[dialect]
    text = robot(make('', TABLE_MOTOR))
    (info,) = parse_transmissions(text).transmissions
    motor = info.actuators[0].motor
    assert motor.torque_speed.speeds == (0.0, 300.0, 600.0)
    assert motor.torque_speed.torques == (0.4, 0.4, 0.0)
    assert motor.torque_speed.max_speed == 600.0 and motor.thermal is None
    table = f"{tpath}/actuator[@name='m']/motor/torque_speed"
    line = line_of(text, '<torque_speed')
    assert info.actuators[0].origins['motor:torque_speed:speeds'] == (f'{table}/@speeds', line,
                                                                      True)
    assert info.actuators[0].origins['motor:torque_speed:torques'].path == f'{table}/@torques'


def test_a_table_that_never_reaches_zero_has_no_maximum_speed():
    text = robot(ros1('', '<motor><torque_speed speeds="0 100" torques="2 1"/></motor>'))
    motor = parse_transmissions(text).transmissions[0].actuators[0].motor
    assert math.isinf(motor.torque_speed.max_speed) and motor.torque_constant is None


# ----------------------------------------------------------------------------- bad values
J = "/robot[@name='r']/transmission[@name='t']/joint[@name='j']"
A = "/robot[@name='r']/transmission[@name='t']/actuator[@name='m']"
THERMAL = ('resistance="1" thermal_resistance="1" thermal_time_constant="1" '
           'max_temperature="100"')

#: id -> (joint xml, actuator xml, path of the error, the marker of its line, words)
BAD = {
    'not a number': ('<friction coulomb="abc"/>', '', f'{J}/friction/@coulomb', '<friction',
                     ["'abc'", 'expected a number']),
    'nan': ('<friction viscous="NaN"/>', '', f'{J}/friction/@viscous', '<friction',
            ["'NaN'", 'finite']),
    'infinite': ('<backlash width="inf"/>', '', f'{J}/backlash/@width', '<backlash',
                 ["'inf'", 'finite']),
    'empty': ('<friction coulomb=""/>', '', f'{J}/friction/@coulomb', '<friction',
              ['empty value']),
    'negative': ('', '<friction coulomb="-0.1"/>', f'{A}/friction/@coulomb', '<friction',
                 ['-0.1', '>= 0']),
    'negative width': ('<backlash width="-1e-3"/>', '', f'{J}/backlash/@width', '<backlash',
                       ['-0.001', '>= 0']),
    'static below coulomb': ('<friction coulomb="1" static="0.5" stribeck_velocity="1"/>', '',
                             f'{J}/friction/@static', '<friction',
                             ['0.5', '>= coulomb (1)']),
    'static without stribeck_velocity': ('<friction coulomb="1" static="2"/>', '',
                                         f'{J}/friction/@stribeck_velocity', '<friction',
                                         ["'stribeck_velocity' is missing", 'static friction '
                                          'exceeds Coulomb']),
    'zero stribeck_velocity': ('<friction coulomb="1" static="2" stribeck_velocity="0"/>', '',
                               f'{J}/friction/@stribeck_velocity', '<friction', ['> 0', '0.0']),
    'backlash without width': ('<backlash/>', '', f'{J}/backlash/@width', '<backlash',
                               ["'width' is missing"]),
    'unsorted table': ('', '<motor><torque_speed speeds="0 5 3" torques="1 1 0"/></motor>',
                       f'{A}/motor/torque_speed/@speeds', '<motor',
                       ['(0.0, 5.0, 3.0)', 'increasing']),
    'table not from zero': ('', '<motor><torque_speed speeds="1 5" torques="1 0"/></motor>',
                            f'{A}/motor/torque_speed/@speeds', '<motor', ['from 0']),
    'short table': ('', '<motor><torque_speed speeds="0" torques="1"/></motor>',
                    f'{A}/motor/torque_speed', '<motor', ['((0.0,), (1.0,))', 'at least 2']),
    'mismatched table': ('', '<motor><torque_speed speeds="0 1 2" torques="1 0"/></motor>',
                         f'{A}/motor/torque_speed', '<motor',
                         ['((0.0, 1.0, 2.0), (1.0, 0.0))', 'same length']),
    'table peak not first': ('', '<motor><torque_speed speeds="0 1" torques="1 2"/></motor>',
                             f'{A}/motor/torque_speed/@torques', '<motor',
                             ['(1.0, 2.0)', 'peak torque']),
    'table without torques': ('', '<motor><torque_speed speeds="0 1"/></motor>',
                              f'{A}/motor/torque_speed/@torques', '<motor',
                              ["'torques' is missing"]),
    'table not numbers': ('', '<motor><torque_speed speeds="0 1" torques="1 x"/></motor>',
                          f'{A}/motor/torque_speed/@torques', '<motor', ["'x'"]),
    'thermal partly given': ('', '<motor torque_constant="0.1" resistance="1" '
                             'max_temperature="90"/>', f'{A}/motor/@thermal_resistance',
                             '<motor', ["'thermal_resistance' is missing",
                                        'given: resistance, max_temperature']),
    'ambient without the model': ('', '<motor torque_constant="0.1" '
                                  'ambient_temperature="20"/>',
                                  f'{A}/motor/@ambient_temperature', '<motor',
                                  ['without the thermal model']),
    'warning outside the range': ('', f'<motor torque_constant="0.1" peak_current="50" '
                                  f'{THERMAL} warning_temperature="120"/>',
                                  f'{A}/motor/@warning_temperature', '<motor',
                                  ['120.0', 'between the ambient (25) and the maximum (100)']),
    'max temperature below ambient': ('', f'<motor torque_constant="0.1" peak_current="50" '
                                      f'{THERMAL.replace("100", "10")}/>',
                                      f'{A}/motor/@max_temperature', '<motor', ['10', '> 25']),
    'thermal without torque constant': ('', f'<motor peak_current="5" {THERMAL}/>',
                                        f'{A}/motor/@torque_constant', '<motor',
                                        ["'torque_constant' is missing", 'heats with the '
                                         'current']),
    'peak current below continuous': ('', f'<motor torque_constant="0.1" peak_current="1" '
                                      f'{THERMAL}/>', f'{A}/motor/@peak_current', '<motor',
                                      ['1.0', 'continuous current 8.66025 A']),
    'peak_torque without max_speed': ('', '<motor peak_torque="1"/>', f'{A}/motor/@max_speed',
                                      '<motor', ["'max_speed' is missing", "'peak_torque'"]),
    'max_speed without peak_torque': ('', '<motor max_speed="100"/>',
                                      f'{A}/motor/@peak_torque', '<motor',
                                      ["'peak_torque' is missing"]),
    'zero peak torque': ('', '<motor peak_torque="0" max_speed="100"/>',
                         f'{A}/motor/@peak_torque', '<motor', ['> 0', '0.0']),
    'table and line': ('', '<motor peak_torque="1" max_speed="3"><torque_speed speeds="0 1" '
                       'torques="1 0"/></motor>', f'{A}/motor/torque_speed', '<motor',
                       ['the table or the line, not both']),
    'unknown attribute': ('<friction coulomb="1" colomb="2"/>', '', f'{J}/friction/@colomb',
                          '<friction', ["no attribute 'colomb'", 'it takes coulomb']),
    'unknown motor attribute': ('', '<motor kt="1"/>', f'{A}/motor/@kt', '<motor',
                                ["no attribute 'kt'", 'torque_constant']),
    'unknown child of motor': ('', '<motor torque_constant="1"><curve/></motor>',
                               f'{A}/motor/curve', '<motor',
                               ['no child <curve>', 'it takes <torque_speed>']),
    'duplicated friction': ('<friction coulomb="1"/>\n<friction coulomb="1"/>', '',
                            f'{J}/friction[2]', '<friction coulomb="1"/>\n<friction',
                            ['given twice', 'first at line']),
    'duplicated motor': ('', '<motor torque_constant="1"/>\n<motor torque_constant="1"/>',
                         f'{A}/motor[2]', '<motor torque_constant="1"/>\n<motor',
                         ['given twice']),
    'duplicated table': ('', '<motor><torque_speed speeds="0 1" torques="1 0"/>\n'
                         '<torque_speed speeds="0 1" torques="1 0"/></motor>',
                         f'{A}/motor/torque_speed[2]', '<motor><torque_speed speeds="0 1" '
                         'torques="1 0"/>\n<torque_speed', ['given twice']),
}


def _line(text, marker):
    """Return the line of the last line of ``marker`` (a marker may span lines)."""
    first = text.index(marker)
    return text.count('\n', 0, first + len(marker)) + 1


@pytest.mark.parametrize('case', sorted(BAD))
def test_each_bad_value_names_the_path_the_line_and_the_value(case):
    joint, actuator, path, marker, words = BAD[case]
    text = robot(ros1(joint, actuator))
    line = _line(text, marker)
    with pytest.raises(UrdfTransmissionError) as caught:
        parse_transmissions(text)
    error = caught.value
    assert (error.path, error.line) == (path, line), str(error)
    assert str(error).startswith(f'{path} (line {line}): ')
    for word in words:
        assert word in error.message, (word, error.message)
    with pytest.raises(UrdfTransmissionError):   # the loader raises the same
        load_robot_transmissions(text, warn=False)


@pytest.mark.parametrize('case', sorted(BAD))
def test_lenient_mode_warns_and_ignores_the_element(case):
    joint, actuator, path, marker, words = BAD[case]
    # a good element beside the bad one stays: lenient mode ignores the bad element only
    joint += '' if 'backlash' in joint else f'\n{BACKLASH}'
    text = robot(ros1(joint, actuator))
    parsed = parse_transmissions(text, lenient=True)
    (warning,) = parsed.warnings
    assert (warning.path, warning.line) == (path, _line(text, marker))
    assert warning.message.endswith('ignored (lenient mode)') and words[0] in warning.message
    end, = (parsed.transmissions[0].joints if path.startswith(J) else
            parsed.transmissions[0].actuators)
    element = path[len(J if path.startswith(J) else A) + 1:].split('/')[0].split('[')[0]
    assert getattr(end, element) is None
    assert not [k for k in end.origins if k.split(':')[0] == element], end.origins
    if 'backlash' not in joint.split(BACKLASH)[0]:
        assert parsed.transmissions[0].joints[0].backlash.width == 0.004
    robot_ = load_robot_transmissions(text, lenient=True, warn=False)
    assert [w.path for w in robot_.warnings] == [path]


def test_a_motor_on_a_joint_end_is_an_error_that_says_where_it_belongs():
    text = robot(ros1('<motor torque_constant="0.1"/>'))
    with pytest.raises(UrdfTransmissionError) as caught:
        load_robot_transmissions(text, warn=False)
    assert caught.value.path == f'{J}/motor'
    assert caught.value.line == line_of(text, '<motor')
    assert '<motor> belongs on an <actuator>, not on a <joint>' in caught.value.message
    lenient = load_robot_transmissions(text, lenient=True, warn=False)
    assert [w.path for w in lenient.warnings] == [f'{J}/motor']
    assert lenient.drivetrain.motors == [None]


def test_a_torque_speed_table_on_a_joint_is_unexpected():
    text = robot(ros1('<torque_speed speeds="0 1" torques="1 0"/>'))
    with pytest.raises(UrdfTransmissionError, match='unexpected element <torque_speed>'):
        load_robot_transmissions(text, warn=False)


def test_a_motor_in_a_ros2_control_joint_is_refused_too():
    text = robot(ros2_control('<motor torque_constant="0.1"/>'))
    with pytest.raises(UrdfTransmissionError, match='belongs on an <actuator>') as caught:
        load_robot_transmissions(text, warn=False)
    assert caught.value.path.endswith("transmission[@name='t']/joint[@name='j']/motor")


# ----------------------------------------------------------------------- duplicates
def test_exact_duplicates_with_drivetrain_elements_are_merged():
    body = ros1(FRICTION, MOTOR)
    text = robot(body, body.replace('EffortJointInterface', 'PositionJointInterface'))
    parsed = parse_transmissions(text)
    (info,) = parsed.transmissions
    assert info.joints[0].interfaces == ('hardware_interface/EffortJointInterface',
                                         'hardware_interface/PositionJointInterface')
    assert info.joints[0].friction == Friction(0.5, 0.1, 0.7, 0.2)
    assert 'declared 2 times with the same mapping; merged' in parsed.warnings[0]
    # the records of the two elements compare equal (where they were read does not count)
    first, second = (parse_transmissions(robot(b)).transmissions[0]
                     for b in (body, '\n\n' + ros1(FRICTION, MOTOR, name='t2')))
    assert first.joints[0].friction.where != second.joints[0].friction.where
    assert first.joints[0].friction == second.joints[0].friction
    assert first.actuators[0].motor == second.actuators[0].motor
    assert first.actuators[0].motor.thermal == second.actuators[0].motor.thermal
    robot_ = load_robot_transmissions(text, warn=False)
    assert robot_.drivetrain.joint_friction.coulomb.tolist() == [0.5]


def test_a_duplicate_under_another_name_is_merged_when_its_drivetrain_is_the_same():
    text = robot(ros1(FRICTION, MOTOR), ros1(FRICTION, MOTOR, name='t2'))
    robot_ = load_robot_transmissions(text, warn=False)
    assert [t.name for t in robot_.transmissions] == ['t']
    assert any('exact duplicate' in w for w in robot_.warnings)


def test_a_duplicate_with_other_drivetrain_elements_is_refused():
    text = robot(ros1(FRICTION), ros1(FRICTION.replace('0.5', '0.6'), name='t2'))
    with pytest.raises(BrokenReferenceError) as caught:
        load_robot_transmissions(text, warn=False)
    assert caught.value.path == "/robot[@name='r']/transmission[@name='t2']"
    assert 'other drivetrain elements' in caught.value.message
    lenient = load_robot_transmissions(text, lenient=True, warn=False)
    assert lenient.drivetrain.joint_friction.coulomb.tolist() == [0.5]   # the first one
    assert any('other drivetrain elements' in w for w in lenient.warnings)


def test_duplicates_whose_friction_differs_in_spelling_only_are_different_elements():
    # the parser compares the elements as written (like every other value)
    text = robot(ros1(FRICTION), ros1(FRICTION.replace('"0.5"', '"0.50"')))
    with pytest.raises(BrokenReferenceError, match='different mapping'):
        parse_transmissions(text)


# -------------------------------------------------------------------------- rewriting
def _change(parameter, end, value):
    return Change('t', None, 'ros1', 'SimpleTransmission', parameter, end, value)


def test_the_rewriter_writes_a_drivetrain_attribute_at_its_origin():
    text = robot(ros1(FRICTION, MOTOR_FRICTION + '\n' + MOTOR))
    out, skipped = rewrite_urdf(text, [_change('friction:coulomb', 'j', 0.45),
                                       _change('motor:torque_constant', 'm', 0.09)])
    assert skipped == []
    before, after = parse_transmissions(text).transmissions[0], \
        parse_transmissions(out).transmissions[0]
    assert after.joints[0].friction.coulomb == 0.45
    assert after.actuators[0].motor.torque_constant == 0.09
    # the same place: the attribute's path and line are unchanged, the rest of the text too
    assert after.joints[0].origins['friction:coulomb'] == before.joints[0].origins[
        'friction:coulomb']
    assert out.replace('coulomb="0.45"', 'coulomb="0.5"').replace(
        'torque_constant="0.09"', 'torque_constant="0.08"') == text


def test_the_rewriter_adds_a_missing_attribute_and_a_missing_element():
    text = robot(ros1(FRICTION.replace(' static="0.7" stribeck_velocity="0.2"', '')))
    out, skipped = rewrite_urdf(text, [_change('friction:static', 'j', 0.5),
                                       _change('backlash:width', 'j', 0.002),
                                       _change('friction:viscous', 'm', 0.001)])
    assert skipped == []
    info = parse_transmissions(out).transmissions[0]
    assert info.joints[0].friction == Friction(0.5, 0.1, 0.5)
    assert info.joints[0].backlash.width == 0.002
    assert info.actuators[0].friction == Friction(0.0, 0.001)
    assert info.joints[0].origins['backlash:width'].path == f'{J}/backlash/@width'
    assert '<backlash width="0.002"/>' in out
    load_robot_transmissions(out, warn=False)   # still a valid description


def test_the_rewriter_says_why_a_drivetrain_value_cannot_be_written():
    text = robot(ros1(FRICTION))
    out, skipped = rewrite_urdf(text, [_change('motor:torque_constant', 'j', 0.1),
                                       _change('friction:colomb', 'j', 0.1),
                                       _change('friction:coulomb', 'nobody', 0.1)])
    assert out.replace('<?xml version="1.0"?>\n', '') == text.replace(
        '<?xml version="1.0"?>\n', '')
    assert [s.split(' not written: ')[1] for s in skipped] == [
        "a <motor> belongs on an <actuator>, not on joint 'j'",
        "'friction:colomb' names no drivetrain number (they are element:attribute, e.g. "
        'friction:coulomb, backlash:width, motor:torque_constant)',
        "no element names 'nobody'"]
