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
Property-based fuzzing of URDF loading with mutated robot descriptions.

Elements of transmissions, ``<ros2_control>`` blocks and top-level joints are dropped,
duplicated, swapped, renamed, stripped of attributes or given garbage values; loading (strict
and lenient) must then succeed or raise a ``TransmissionError``, never anything else.  Bounded
(150 examples per document set, derandomised) so that it stays a few seconds.  The project's
own fixtures (``test/fixtures``) are fuzzed everywhere; the real robots of the shared corpus
when ``../shared/urdf_corpus`` is present (the test says so when it skips).
"""

import copy

from hypothesis import given
from hypothesis import HealthCheck
from hypothesis import settings
from hypothesis import strategies as st
from lxml import etree
import pytest

from tp_support import CORPUS
from tp_support import CORPUS_SKIP_REASON
from tp_support import FIXTURE_DIR
from transmission_plugins.core.exceptions import TransmissionError
from transmission_plugins.plugins import find_transmission_plugins
from transmission_plugins.robot.loading import load_robot_transmissions
from transmission_plugins.urdf.dialects import parse_transmissions
from transmission_plugins.urdf.elements import local_name


#: real robots and upstream fixtures of the shared corpus (``../shared/urdf_corpus``)
CORPUS_DOCUMENTS = (
    'pr2.urdf', 'pr2_cturtle_pr2_mechanism_model.urdf', 'franka_panda.urdf', 'husky.urdf',
    'tiago_humble.urdf', 'ros2_control_demos_example8_rrbot.urdf', 'shadow_hand_e.urdf',
    'fixtures/ros2_control_test_assets_minimal_robot.urdf',
    'fixtures/ros2_control_test_assets_diffbot.urdf',
    'fixtures/ros_control_differential_transmission_loader_full.urdf',
    'fixtures/ros_control_four_bar_linkage_transmission_loader_full.urdf',
)
GARBAGE = ('', ' ', 'nan', '-inf', '1e400', '1e-320', '0', '-0', '0.0', '50', '-1', 'fifty',
           '1,5', '0x10', '\u0663', ' 7 ', 'true', 'maybe', '<', 'joint1', 'joint2', 'actuator1',
           'actuator2', 'role1', 'j', 'transmission_interface/SimpleTransmission',
           'transmission_interface/DifferentialTransmission',
           'transmission_interface/FourBarLinkageTransmission',
           'pr2_mechanism_model/WristTransmission', 'PR2GripperTransmission', 'system',
           'actuator')
TAGS = ('joint', 'actuator', 'type', 'plugin', 'role', 'offset', 'mechanicalReduction',
        'mechanical_reduction', 'hardwareInterface', 'param', 'transmission', 'ros2_control',
        'gap_joint', 'passive_joint', 'flexJoint', 'rightActuator', 'simulated_actuated_joint',
        'compensator', 'foo', '{http://drake.mit.edu}rotor_inertia')
ATTRIBUTES = ('name', 'type', 'role', 'read_only', 'mechanicalReduction',
              'mechanical_reduction', 'value', 'screw_reduction', 'theta0', 'L0', 'r',
              'simulated_reduction', 'passive_actuated_joint', 'p', 'd')
OPERATIONS = ('drop', 'duplicate', 'swap', 'retype', 'drop_attribute', 'set_attribute',
              'set_text')

_PARSED = {}
_PLUGINS = []


@pytest.fixture(scope='module', params=['fixtures', 'corpus'])
def documents(request):
    """Return the paths of one document set: the project's fixtures or the shared corpus."""
    if request.param == 'fixtures':
        return sorted(FIXTURE_DIR.glob('*.urdf'))  # every plain .urdf file, xacro included
    if not CORPUS.is_dir():
        pytest.skip(CORPUS_SKIP_REASON)
    return [CORPUS / name for name in CORPUS_DOCUMENTS]


def _document(path):
    if path not in _PARSED:
        _PARSED[path] = etree.parse(str(path)).getroot()
    return copy.deepcopy(_PARSED[path])


def _plugins():
    if not _PLUGINS:
        _PLUGINS.extend(find_transmission_plugins())
    return _PLUGINS


def _candidates(root):
    """Return the root, top-level joints and everything inside transmissions and blocks."""
    found = [root]
    for child in root:
        tag = local_name(child)
        if tag == 'joint':
            found.append(child)
        elif tag in ('transmission', 'ros2_control'):
            found.extend(e for e in child.iter() if local_name(e))
    return found


def _mutate(root, operation, index, tag, attribute, value):
    elements = _candidates(root)
    element = elements[index % len(elements)]
    parent = element.getparent()
    if operation == 'drop' and parent is not None:
        parent.remove(element)
    elif operation == 'duplicate' and parent is not None:
        element.addnext(copy.deepcopy(element))
    elif operation == 'swap' and parent is not None and element.getnext() is not None:
        element.getnext().addnext(element)
    elif operation == 'retype':
        namespace = etree.QName(element).namespace
        element.tag = tag if tag.startswith('{') or not namespace else f'{{{namespace}}}{tag}'
    elif operation == 'drop_attribute' and element.attrib:
        del element.attrib[sorted(element.attrib)[index % len(element.attrib)]]
    elif operation == 'set_attribute':
        element.set(attribute, value)
    elif operation == 'set_text':
        element.text = value


MUTATION = st.tuples(st.sampled_from(OPERATIONS), st.integers(0, 10_000),
                     st.sampled_from(TAGS), st.sampled_from(ATTRIBUTES),
                     st.sampled_from(GARBAGE))
FUZZ = settings(max_examples=100, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _mutated(paths, index, mutations):
    root = _document(paths[index % len(paths)])
    for mutation in mutations:
        _mutate(root, *mutation)
    return etree.tostring(root, encoding='unicode')


@FUZZ
@given(st.integers(0, 10_000), st.lists(MUTATION, min_size=1, max_size=4), st.booleans())
def test_parse_and_load_every_transmission_raise_only_transmission_errors(documents, index,
                                                                          mutations, lenient):
    text = _mutated(documents, index, mutations)
    try:
        parse_transmissions(text, lenient=lenient, source='all')
        load_robot_transmissions(text, lenient=lenient, source='all', plugins=_plugins(),
                                 warn=False)
    except TransmissionError:
        pass


@settings(FUZZ, max_examples=50)
@given(st.integers(0, 10_000), st.lists(MUTATION, min_size=1, max_size=3), st.booleans())
def test_load_robot_transmissions_raises_only_transmission_errors(documents, index, mutations,
                                                                  lenient):
    text = _mutated(documents, index, mutations)
    try:
        load_robot_transmissions(text, lenient=lenient, plugins=_plugins(), warn=False)
    except TransmissionError:
        pass
