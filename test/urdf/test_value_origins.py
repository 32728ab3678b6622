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

"""A record keeps where each value was read, and the rewriter writes there (issue 35)."""

import re

import pytest
from tp_support import FIXTURE_DIR

from transmission_plugins.core.exceptions import BadValueError
from transmission_plugins.robot.loading import load_robot_transmissions
from transmission_plugins.urdf.dialects import parse_transmissions
from transmission_plugins.urdf.readers import simple_reduction_source
from transmission_plugins.urdf.records import item_key
from transmission_plugins.urdf.rewrite import Change
from transmission_plugins.urdf.rewrite import rewrite_urdf
from transmission_plugins.urdf.text import read_urdf_text

#: one robot per dialect: ros2_control (joint/actuator <param>s), ROS 1, PR2, FROST, Drake,
#: and the two Dynamixel hardware-parameter dialects
DIALECT_FIXTURES = ('ros2_control_blocks.urdf', 'ros1_hardware_interfaces.urdf',
                    'pr2_mechanism.urdf', 'frost_biped.urdf', 'drake_actuators.urdf',
                    'dynamixel_hardware.urdf', 'robotis_hardware.urdf')
_NUMERIC = ('mechanical_reduction', 'offset', 'rotor_inertia', 'gear_ratio', 'effort_limit')


def _records(name):
    text = read_urdf_text(FIXTURE_DIR / name)
    parsed = parse_transmissions(text, source='all', lenient=True)
    for info in parsed.transmissions:
        yield text, info, info
        for end in info.joints + info.actuators:
            yield text, info, end


def _number_at(text, origin):
    """Return the number written at ``origin`` in the text (its line), read independently."""
    line = text.splitlines()[origin.line - 1]
    tag = origin.tag
    if tag.startswith('@'):
        found = re.search(rf'\b{tag[1:]}="([^"]*)"', line)
    elif tag == 'param':
        name = re.search(r"\[@name='([^']*)'\]$", origin.path).group(1)
        found = re.search(rf'<param name="{name}">([^<]*)</param>', line)
    else:
        found = re.search(rf'<(?:\w+:)?{tag}\b[^>]*?(?:value="([^"]*)"[^>]*/>|>([^<]*)</)', line)
    assert found, (origin, line)
    return float(next(g for g in found.groups() if g is not None))


@pytest.mark.parametrize('name', DIALECT_FIXTURES)
def test_each_value_of_a_record_names_the_line_and_element_it_was_read_from(name):
    checked = 0
    for text, info, record in _records(name):
        for field, origin in record.origins.items():
            assert origin.given and origin.line is not None
            assert origin.path.startswith(info.path.split('/hardware')[0]), origin
            if info.element is None:   # hardware parameters: converted from <param>s
                assert f'name="{origin.path.rsplit("=", 1)[-1][1:-2]}"' in text.splitlines()[
                    origin.line - 1], origin
            elif field in _NUMERIC:
                assert _number_at(text, origin) == getattr(record, field), (field, origin)
            checked += 1
        for field in _NUMERIC:
            if getattr(record, field, None) is None:
                assert field not in record.origins   # no origin for a value not given
    assert checked > 0


def test_origins_of_roles_params_and_interfaces():
    text = read_urdf_text(FIXTURE_DIR / 'ros2_control_blocks.urdf')
    infos = {i.name: i for i in parse_transmissions(text).transmissions}
    wrist = infos['wrist_trans']
    motor = next(a for a in wrist.actuators if a.name == 'wrist_motor_2')
    assert motor.origins['role'].path == f'{motor.path}/@role'
    assert 'role="actuator2"' in text.splitlines()[motor.origins['role'].line - 1]
    torso = infos['torso_trans'].actuators[0]
    assert torso.origins['gear_ratio'].path.endswith("/param[@name='gear_ratio']")
    ros1 = parse_transmissions(read_urdf_text(
        FIXTURE_DIR / 'ros1_hardware_interfaces.urdf')).transmissions
    end = next(e for i in ros1 for e in i.joints if e.interfaces)
    origin = end.origins[item_key('interfaces', end.interfaces[0])]
    line = read_urdf_text(FIXTURE_DIR / 'ros1_hardware_interfaces.urdf').splitlines()[
        origin.line - 1]
    assert '<hardwareInterface>' in line and end.interfaces[0].rsplit('/', 1)[-1] in line


def test_an_error_names_the_spelling_and_line_the_value_was_read_from():
    text = read_urdf_text(FIXTURE_DIR / 'ros1_hardware_interfaces.urdf')
    # a ROS 1 SimpleTransmission does not read a joint-side reduction, in either spelling
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if '<joint name=' in line
              and i > next(k for k, x in enumerate(lines) if '<transmission' in x))
    lines.insert(at + 1, '      <mechanical_reduction>7</mechanical_reduction>')
    with pytest.raises(BadValueError) as caught:
        load_robot_transmissions('\n'.join(lines), warn=False)
    assert caught.value.path.endswith('/mechanical_reduction')
    assert '7.0' in str(caught.value)


@pytest.mark.parametrize('name', ('ros2_control_blocks.urdf', 'ros1_hardware_interfaces.urdf',
                                  'pr2_mechanism.urdf', 'frost_biped.urdf'))
def test_the_rewriter_writes_where_the_reader_read(name):
    text = read_urdf_text(FIXTURE_DIR / name)
    robot = load_robot_transmissions(text, lenient=True, warn=False)
    simple = [t for t in robot.transmissions if type(t.transmission).__name__ ==
              'SimpleTransmission' and t.info is not None and t.info.element is not None]
    assert simple
    for t in simple:
        holder, origin = simple_reduction_source(t.info)
        unchanged, _ = rewrite_urdf(text, [])   # the text as lxml writes it back
        new, skipped = rewrite_urdf(text, [Change(
            t.name, t.info.line, t.info.dialect, 'SimpleTransmission', 'actuator_reduction',
            t.actuator_names[0], 123.5)])
        assert skipped == []
        again = load_robot_transmissions(new, lenient=True, warn=False).transmission(t.name)
        assert again.transmission.get_actuator_reduction() == 123.5   # the reader reads it
        pairs = zip(unchanged.splitlines(), new.splitlines())
        changed = [i + 1 for i, (a, b) in enumerate(pairs) if a != b]
        if origin.given:   # in place: only the recorded line changes (lines of ``unchanged``)
            record = next(i for i in parse_transmissions(unchanged, source='all',
                                                         lenient=True).transmissions
                          if i.name == t.name)
            assert changed == [simple_reduction_source(record)[1].line], (t.name, origin)
        else:              # added under the element the reader reads it from
            again_holder, again_origin = simple_reduction_source(again.info)
            assert again_origin.given and again_origin.path == origin.path
