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
Findings from loading real robot descriptions the tests had not seen (issue 14), one per test.

Each test failed before its fix (checked by running them on the sources of the commit before
the fix): lenient loading survives what is outside the transmissions (1), xacro errors name the
source line (2), xacro saved as ``.urdf`` is expanded (3), and a missing limit has one rule in
both modes (4; the rule's details are in test_robot_transmissions.py).  The project's fixtures
``odd_materials.urdf`` and ``xacro_saved_as.urdf`` carry findings 1 and 3 too.
"""

import math
import textwrap

import pytest

from transmission_plugins import BadValueError
from transmission_plugins import load_robot_transmissions
from transmission_plugins.urdf.text import read_urdf_text
from transmission_plugins.urdf.xacro_expansion import uses_xacro

#: Drake's acrobot shape: a visual <material> without a name, which urdf_parser_py rejects.
ACROBOT = textwrap.dedent("""\
    <robot name="acrobot">
      <link name="base"/>
      <link name="Link1">
        <visual><geometry><box size="0.1 0.1 1"/></geometry>
          <material><color rgba="1 0 0 1"/></material></visual>
      </link>
      <joint name="elbow" type="continuous"><parent link="base"/><child link="Link1"/></joint>
      <transmission name="elbow_trans">
        <type>transmission_interface/SimpleTransmission</type>
        <joint name="elbow"/>
        <actuator name="elbow_motor"><mechanicalReduction>1</mechanicalReduction></actuator>
      </transmission>
    </robot>
    """)


def test_lenient_loading_survives_a_visual_the_robot_model_rejects():
    with pytest.warns(UserWarning, match='material'):
        robot = load_robot_transmissions(ACROBOT, lenient=True)
    assert robot.joint_names == ['elbow'] and robot.actuator_names == ['elbow_motor']
    assert len(robot.warnings) == 1
    warning = robot.warnings[0]
    assert "link[@name='Link1']/visual[1]/material" in warning
    assert 'ignored (lenient mode)' in warning and 'outside the transmissions' in warning


def test_strict_loading_says_the_model_error_is_outside_the_transmissions():
    with pytest.raises(BadValueError) as e:
        load_robot_transmissions(ACROBOT)
    message = str(e.value)
    assert 'visual[1]/material' in message and 'name' in message
    assert 'outside the transmissions' in message and 'load leniently' in message


def test_a_joint_type_that_matters_is_checked_strictly_even_in_lenient_mode():
    text = ACROBOT.replace('type="continuous"', 'type="spinning"')
    for lenient in (False, True):
        with pytest.raises(BadValueError) as e:
            load_robot_transmissions(text, lenient=lenient, warn=False)
        assert e.value.path == "/robot[@name='acrobot']/joint[@name='elbow']/@type"
        assert "'spinning'" in str(e.value) and 'continuous' in str(e.value)


XACRO = textwrap.dedent("""\
    <?xml version="1.0"?>
    <robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro">
      <xacro:macro name="trans" params="joint reduction">
        <transmission name="${joint}_trans">
          <type>transmission_interface/SimpleTransmission</type>
          <joint name="${joint}"/>
          <actuator name="${joint}_motor">
            <mechanicalReduction>${reduction}</mechanicalReduction>
          </actuator>
        </transmission>
      </xacro:macro>
      <link name="a"/><link name="b"/><link name="c"/>
      <joint name="j1" type="continuous"><parent link="a"/><child link="b"/></joint>
      <joint name="j2" type="continuous"><parent link="a"/><child link="c"/></joint>
      <xacro:if value="true">
        <xacro:trans joint="j1" reduction="10"/>
      </xacro:if>
      <transmission name="literal">
        <type>transmission_interface/SimpleTransmission</type>
        <joint name="j2"/>
        <actuator name="m2">
          <mechanicalReduction>@REDUCTION@</mechanicalReduction>
        </actuator>
      </transmission>
    </robot>
    """)


@pytest.mark.parametrize('suffix', ['.urdf.xacro', '.urdf'])
def test_xacro_errors_name_the_line_of_the_source_file(tmp_path, suffix):
    path = tmp_path / f'robot{suffix}'
    path.write_text(XACRO.replace('@REDUCTION@', 'zero'))
    with pytest.raises(BadValueError) as e:
        load_robot_transmissions(path)
    assert e.value.path.endswith("actuator[@name='m2']/mechanicalReduction")
    assert e.value.line == 22  # the <mechanicalReduction> of the literal transmission


@pytest.mark.parametrize('suffix', ['.xacro', '.urdf'])
def test_xacro_errors_inside_a_macro_name_the_line_of_the_macro_body(tmp_path, suffix):
    # as .urdf this also needs finding 3: read as plain XML, the macro was never expanded
    path = tmp_path / f'robot{suffix}'
    text = XACRO.replace('@REDUCTION@', '20').replace('reduction="10"', 'reduction="ten"')
    path.write_text(text)
    with pytest.raises(BadValueError) as e:
        load_robot_transmissions(path)
    assert "transmission[@name='j1_trans']" in e.value.path
    assert e.value.line == 8  # the <mechanicalReduction> of the macro's body


def test_elements_of_included_files_get_no_line_rather_than_a_wrong_one(tmp_path):
    macro = XACRO.split('<xacro:macro', 1)[1].split('</xacro:macro>', 1)[0]
    (tmp_path / 'macros.xacro').write_text(
        '<robot xmlns:xacro="http://www.ros.org/wiki/xacro">\n<xacro:macro' + macro
        + '</xacro:macro>\n</robot>\n')
    main = XACRO.replace('@REDUCTION@', '20').replace('reduction="10"', 'reduction="ten"')
    main = main.split('<xacro:macro', 1)[0] + '<xacro:include filename="macros.xacro"/>' + \
        main.split('</xacro:macro>', 1)[1]
    (tmp_path / 'robot.urdf.xacro').write_text(main)
    with pytest.raises(BadValueError) as e:
        load_robot_transmissions(tmp_path / 'robot.urdf.xacro')
    assert "transmission[@name='j1_trans']" in e.value.path
    assert e.value.line is None and '(line' not in str(e.value)


def test_xacro_saved_as_urdf_is_expanded(tmp_path):
    path = tmp_path / 'robot.urdf'
    path.write_text(XACRO.replace('@REDUCTION@', '20'))
    robot = load_robot_transmissions(path)
    assert [t.name for t in robot.transmissions] == ['j1_trans', 'literal']
    assert robot.transmission('j1_trans').transmission.get_actuator_reduction() == 10.0
    text = read_urdf_text(path)
    assert 'xacro:' not in text and uses_xacro(XACRO)
    with pytest.raises(BadValueError, match='never expanded'):  # text is never expanded
        load_robot_transmissions(XACRO.replace('@REDUCTION@', '20'))


def test_an_expanded_urdf_that_keeps_the_xacro_namespace_is_not_xacro():
    expanded = ACROBOT.replace('<robot name="acrobot">',
                               '<robot name="acrobot" xmlns:xacro="http://ros.org/wiki/xacro">')
    assert not uses_xacro(expanded) and read_urdf_text(expanded) == expanded


#: a driven revolute joint whose <limit> is {limit}
LIMITS = textwrap.dedent("""\
    <robot name="r">
      <link name="a"/><link name="b"/>
      <joint name="j" type="revolute"><parent link="a"/><child link="b"/>{limit}</joint>
      <transmission name="t">
        <type>transmission_interface/SimpleTransmission</type>
        <joint name="j"/>
        <actuator name="m"><mechanicalReduction>10</mechanicalReduction></actuator>
      </transmission>
    </robot>
    """)


@pytest.mark.parametrize('limit, missing', [
    ('', ('<limit>',)),
    ('<limit lower="-1" upper="1" velocity="2"/>', ('effort',)),
    ('<limit lower="-1" upper="1"/>', ('velocity', 'effort')),
])
def test_a_missing_limit_is_no_limit_with_a_warning_in_both_modes(limit, missing):
    text = LIMITS.format(limit=limit)
    outcomes = []
    for lenient in (False, True):
        robot = load_robot_transmissions(text, lenient=lenient, warn=False)
        notes = [str(w) for w in robot.warnings]
        assert len(notes) == len(missing)
        for what, note in zip(missing, notes):
            assert f'{what} is missing' in note or f'no {what}' in note, note
            assert 'lenient' not in note  # the same rule in strict mode
        outcomes.append((robot.joint_velocity_limit.tolist(), robot.joint_effort_limit.tolist(),
                         notes))
    assert outcomes[0] == outcomes[1]
    velocity, effort, _ = outcomes[0]
    assert effort == [math.inf]
    assert velocity == ([math.inf] if limit == '' or 'velocity' in missing else [2.0])
