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
xacro runs only on files a user names, and even there within bounds (issue 23).

Description *text* (the Python API, the ``robot_description`` topic and parameter) is data: text
with xacro markup is refused with the remedy, never expanded.  On e6277b7 the text was expanded,
``$(env ...)`` leaked the environment into the robot name, and the bombs below ran without end.
"""

import time

import pytest

from transmission_plugins import BadValueError
from transmission_plugins import load_robot_transmissions
from transmission_plugins.urdf.text import read_urdf_text
from transmission_plugins.urdf.text import received_description
from transmission_plugins.urdf.xacro_expansion import expand_xacro
from transmission_plugins.urdf.xacro_expansion import XacroLimits

#: xacro that reads the environment into the robot name and a file into a link name
LEAKING = """<robot name="$(env TP_TEST_SECRET)" xmlns:xacro="http://www.ros.org/wiki/xacro">
  <link name="${{xacro.load_yaml('{path}')}}"/>
</robot>
"""

#: xacro bombs: each one, sent as text on e6277b7, froze the loader
BOMBS = {
    'huge power': '<xacro:property name="x" value="${10**10**10}"/><link name="${x}"/>',
    'recursive macro': ('<xacro:macro name="m" params="n"><link name="l${n}"/>'
                        '<xacro:m n="${n+1}"/></xacro:macro><xacro:m n="0"/>'),
    'doubled property': ''.join(
        [f'<xacro:property name="p{i + 1}" value="${{p{i}+p{i}}}"/>' for i in range(39)]
        ).join(['<xacro:property name="p0" value="ab"/>', '<link name="${p39}"/>']),
}


def _xacro(body):
    return f'<robot name="b" xmlns:xacro="http://www.ros.org/wiki/xacro">{body}</robot>'


def test_xacro_in_text_is_refused_and_never_expanded(tmp_path, monkeypatch):
    monkeypatch.setenv('TP_TEST_SECRET', 'hunter2')
    (tmp_path / 'secret.yaml').write_text('hunter3\n')
    text = LEAKING.format(path=tmp_path / 'secret.yaml')
    for given in (text, text.encode()):
        with pytest.raises(BadValueError, match='never expanded') as info:
            load_robot_transmissions(given, warn=False)
        message = str(info.value)
        assert 'hunter' not in message and 'robot.urdf.xacro' in message  # says how instead
    path = tmp_path / 'leak.urdf.xacro'  # the same text in a file the user names: expanded
    path.write_text(text)
    assert 'hunter2' in read_urdf_text(path) and 'hunter3' in read_urdf_text(path)


@pytest.mark.parametrize('text, words', [
    ('/etc/passwd', ['never read as a file path', "'/etc/passwd'"]),
    ('robot.urdf.xacro', ['never read as a file path']),
    (_xacro('<link name="$(env HOME)"/>'), ['never expanded', 'xacro']),
])
def test_description_text_received_over_ros_is_xml_only(text, words):
    with pytest.raises(BadValueError) as info:
        received_description(text)
    assert 'robot_description' in str(info.value)
    for word in words:
        assert word in str(info.value)
    assert received_description('<robot name="r"/>') == '<robot name="r"/>'


@pytest.mark.parametrize('bomb', sorted(BOMBS))
def test_xacro_bombs_in_a_named_file_are_stopped_by_the_bounds(tmp_path, bomb):
    path = tmp_path / 'bomb.urdf.xacro'
    path.write_text(_xacro(BOMBS[bomb]))
    limits = XacroLimits(seconds=2.0, memory=512 * 1024 ** 2, output=1024 ** 2, depth=400)
    start = time.monotonic()
    with pytest.raises(BadValueError, match='xacro') as info:
        expand_xacro(path, limits=limits)
    assert time.monotonic() - start < limits.seconds + 10.0   # killed, not left running
    assert str(path) in str(info.value)
    assert any(w in str(info.value) for w in ('within 2 s', 'memory', 'deeper', 'longer than',
                                              'recursion'))


def test_a_xacro_error_names_the_file_and_xacro_message(tmp_path):
    path = tmp_path / 'bad.urdf.xacro'
    path.write_text(_xacro('<link name="${undefined_name}"/>'))
    with pytest.raises(BadValueError, match='undefined_name') as info:
        load_robot_transmissions(path, warn=False)
    assert str(path) in str(info.value)
