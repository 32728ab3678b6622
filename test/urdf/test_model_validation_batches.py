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
urdf_parser_py checks the links and joints in batches, saying what one document would say.

The reference is urdf_parser_py itself on the whole model as one document (its public
``URDF.from_xml_string``), with its warnings captured the way it reports them.
"""

import pytest

from transmission_plugins.core.exceptions import BadValueError
from transmission_plugins.urdf import joints as joints_module
from transmission_plugins.urdf.joints import read_robot_model

N = 3 * joints_module._BATCH + 7  # links over several batches


def _robot(links):
    chain = ''.join(f'<joint name="j{i}" type="fixed"><parent link="l{i}"/>'
                    f'<child link="l{i + 1}"/></joint>' for i in range(3))
    return f'<robot name="r">{"".join(links)}{chain}</robot>'


def _whole_document(text):
    """Return urdf_parser_py's error message (or None) and warnings for the whole model."""
    from urdf_parser_py import urdf as upp
    import urdf_parser_py.xml_reflection.core as core
    said = []
    previous = core.on_error
    core.on_error = said.append
    try:
        upp.URDF.from_xml_string(text)
        error = None
    except Exception as e:  # noqa: B902 - urdf_parser_py raises plain Exception subclasses
        error = str(e)
    finally:
        core.on_error = previous
    return error, said


def test_an_error_past_the_first_batches_names_the_same_element():
    links = [f'<link name="l{i}"/>' for i in range(N)]
    links[N - 5] = '<link/>'  # no name: urdf_parser_py names it by its index
    text = _robot(links)
    error, _ = _whole_document(text)
    assert error is not None and f'link[{N - 4}]' in error
    with pytest.raises(BadValueError) as e:
        read_robot_model(text)
    assert error in str(e.value)
    lenient = read_robot_model(text, lenient=True)
    assert any(error in str(w) for w in lenient.limit_warnings)


def test_warnings_of_every_batch_are_those_of_one_document():
    links = [f'<link name="l{i}"/>' for i in range(N)]
    for k in (3, joints_module._BATCH + 1, N - 2):
        links[k] = f'<link name="l{k}"><unknown_tag_{k}/></link>'
    text = _robot(links)
    error, said = _whole_document(text)
    assert error is None and len(said) == 3
    assert read_robot_model(text).warnings == said
