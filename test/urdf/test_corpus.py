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
The shared URDF corpus (``../shared/urdf_corpus``, see its INDEX.md): robots, fixtures, malformed.

The corpus lives outside the repository (CI has it); without it these tests skip with a reason
naming it, and ``test_fixtures.py`` checks the same dialects on the project's own fixtures.

Real robots load with the transmission counts of INDEX.md (leniently where they carry vendor
types); every fixture loads; every malformed description is rejected with a message naming the
element path and the bad value, or handled as documented in the README (section
"Strict and lenient").
"""

from collections import Counter
import copy

from lxml import etree
import pytest

from tp_support import CORPUS
from tp_support import CORPUS_SKIP_REASON
from transmission_plugins.core.exceptions import BadValueError
from transmission_plugins.core.exceptions import BrokenReferenceError
from transmission_plugins.core.exceptions import IncompleteTransmissionError
from transmission_plugins.core.exceptions import UnknownTransmissionTypeError
from transmission_plugins.plugins import find_transmission_plugins
from transmission_plugins.robot.loading import load_robot_transmissions
from transmission_plugins.urdf.dialects import parse_transmissions
from transmission_plugins.urdf.elements import local_name
from transmission_plugins.urdf.text import read_urdf_text


pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason=CORPUS_SKIP_REASON)
PLUGINS = find_transmission_plugins()
SHADOW_ALIASES = {'sr_mechanism_model/SimpleTransmission':
                  'transmission_interface/SimpleTransmission'}

#: file: (<transmission> elements per INDEX.md, lenient needed, transmissions built,
#:        distinct joints and actuators of the built ones, or None when not compared)
ROBOTS = {
    'pr2.urdf': (30, False, 30, None),
    'pr2_cturtle_pr2_mechanism_model.urdf': (30, False, 30, None),
    'baxter.urdf': (19, False, 19, (19, 19)),
    'ur5e.urdf': (6, False, 6, (6, 6)),
    # 3 copies of each arm transmission merged, franka_hw pseudo-transmissions skipped, no
    # mechanicalReduction anywhere (ROS 1 requires one): 7 arm + 2 finger transmissions
    'franka_panda.urdf': (25, True, 9, (9, 9)),
    'kinova_j2n6s300.urdf': (12, False, 12, (12, 12)),
    'robotiq_2f_85.urdf': (1, False, 1, (1, 1)),
    # 16 sr_mechanism_model/SimpleTransmission and 4 J0Transmission (two joints each), natively
    'shadow_hand_e.urdf': (20, False, 20, (24, 20)),
    'rrbot_gazebo_ros_demos.urdf': (2, False, 2, (2, 2)),
    'rrbot_gazebo_ros_demos_legacy_xml.urdf': (2, False, 2, (2, 2)),
    'husky.urdf': (4, False, 4, (4, 4)),
    # the 14 <ros2_control> ones; the 33 robot-level Hey5Reducers are ignored (auto source)
    'tiago_humble.urdf': (47, False, 14, (15, 15)),
    'ros2_control_demos_example8_rrbot.urdf': (2, False, 2, (2, 2)),
    'open_manipulator_x.urdf': (6, False, 6, (6, 6)),
}

#: file: (lenient needed, transmissions built, error in strict mode when lenient is needed)
FIXTURES = {
    # three 'transmission1' in three blocks, two with misspelled plugin names, all on joint1
    'ros2_control_test_assets_component_transmissions.urdf': (True, 1, BrokenReferenceError),
    'ros2_control_test_assets_diffbot.urdf': (False, 2, None),
    # Differential and FourBarLinkage drive the same joint2/joint3: the first one wins
    'ros2_control_test_assets_minimal_robot.urdf': (True, 2, BrokenReferenceError),
    'ros2_control_test_differential_no_reduction_no_offset.urdf': (False, 1, None),
    'ros2_control_test_four_bar_linkage_no_reduction_no_offset.urdf': (False, 1, None),
    'ros2_control_test_simple_no_reduction_no_offset.urdf': (False, 1, None),
    'ros_control_differential_transmission_loader_full.urdf': (False, 1, None),
    'ros_control_differential_transmission_loader_minimal.urdf': (False, 1, None),
    'ros_control_four_bar_linkage_transmission_loader_full.urdf': (False, 1, None),
    'ros_control_four_bar_linkage_transmission_loader_minimal.urdf': (False, 1, None),
    # a parser fixture: roles role1/role2 (the ROS 1 Differential loader rejects them too)
    'ros_control_parser_test_valid.urdf': (True, 2, BadValueError),
    'ros_control_simple_transmission_loader_full.urdf': (False, 1, None),
    'ros_control_simple_transmission_loader_minimal.urdf': (False, 1, None),
    'ros_control_transmission_interface_loader_bidirectional_valid.urdf': (False, 2, None),
    'ros_control_transmission_interface_loader_hw_iface_permutation.urdf': (False, 1, None),
    'ros_control_transmission_interface_loader_valid.urdf': (False, 2, None),
}

I, B = IncompleteTransmissionError, BadValueError
JOINT, ACT = "joint[@name='bar_joint']", "actuator[@name='foo_actuator']"
_COUPLED = [
    (I, f'{JOINT}/role', "'bar_joint' has no role"),
    (B, f'{JOINT}/role', "'invalid_role'"),
    (B, f'{JOINT}/role', 'empty role'),
    (I, f'{ACT}/role', "'foo_actuator' has no role"),
    (B, f'{ACT}/role', "'invalid_role'"),
    (B, f'{ACT}/role', 'empty role'),
    (B, "joint[@name='foo_joint']/role", "'joint1' is given to more than one"),
    (B, "actuator[@name='bar_actuator']/role", "'actuator1' is given to more than one"),
    (I, ACT, 'no <mechanicalReduction>'),
    (B, f'{ACT}/mechanicalReduction', "'fifty'"),
]

#: ROS 1 negative tests, one expectation per <transmission> (each one a separate case):
#: (error class, element path suffix, offending value or reason), or None when accepted.
ROS1_MALFORMED = {
    'ros_control_parser_test_invalid.urdf': [
        (I, 'transmission[1]', "'name' is missing"),
        (I, 'transmission[1]', "'name' is missing"),
        (I, "transmission[@name='simple_trans']", 'missing <type>'),
        (I, "transmission[@name='simple_trans']/type", 'empty'),
        None,  # no <hardwareInterface>: accepted (PR2, ros2_control and 2013 rrbot have none)
        (B, "joint[@name='baz_joint']/hardwareInterface", 'empty'),
        (I, 'actuator[1]', "'name' is missing"),
        (I, 'actuator[1]', "'name' is empty"),
        (I, 'joint[1]', "'name' is missing"),
        (I, 'joint[1]', "'name' is empty"),
    ],
    'ros_control_simple_transmission_loader_invalid.urdf': [
        (I, ACT, 'no <mechanicalReduction>'),
        (B, f'{ACT}/mechanicalReduction', "'fifty'"),
        (B, "joint[@name='foo_joint']/offset", "'zero'"),
        (B, f'{ACT}/mechanicalReduction', "'0'"),
    ],
    'ros_control_differential_transmission_loader_invalid.urdf': _COUPLED + [
        (B, f'{JOINT}/mechanicalReduction', "'zero'"),
        (B, f'{JOINT}/mechanicalReduction', "'0'"),
        (B, f'{JOINT}/offset', "'zero'"),
    ],
    'ros_control_four_bar_linkage_transmission_loader_invalid.urdf': _COUPLED + [
        (B, f'{JOINT}/offset', "'zero'"),
        (B, f'{JOINT}/mechanicalReduction', "'zero'"),
        (B, f'{JOINT}/mechanicalReduction', "'0'"),
        (B, f'{ACT}/mechanicalReduction', "'0'"),
    ],
    'ros_control_transmission_interface_loader_unsupported.urdf': [
        (B, JOINT, 'different hardware interfaces'),
        (B, JOINT, 'different hardware interfaces'),
    ],
}

RC = "/robot[@name='MinimalRobot']/ros2_control"
#: ros2_control negative tests: (error class, path part, offending value, lenient outcome):
#: the lenient outcome is what is built with ros2_control's own fallbacks (1.0 and 0.0):
#: (reduction, offset) of a Simple, (actuator reductions, joint reductions, joint offsets) of a
#: 2x2 transmission, or None when the transmission is skipped.
ROS2_MALFORMED = {
    'ros2_control_test_assets_simple_transmission_too_many_joints.urdf':
        (B, f"{RC}[@name='ActuatorModularJoint1']/transmission[@name='transmission1']",
         'exactly one joint', None),
    'ros2_control_test_assets_transmission_joint_mismatch.urdf':
        (BrokenReferenceError, "transmission[@name='transmission1']/joint[@name='joint31415']",
         'joint31415', None),
    'ros2_control_test_simple_mech_red_invalid_value.urdf':
        (B, "joint[@name='joint3']/mechanical_reduction", "'0'", (1.0, 0.0)),
    'ros2_control_test_simple_mechanical_reduction_not_a_number.urdf':
        (B, "joint[@name='joint2']/mechanical_reduction", "'fifty'", (1.0, 0.0)),
    'ros2_control_test_simple_offset_ill_defined.urdf':
        (B, "joint[@name='joint3']/offset", "'three'", (50.0, 0.0)),
    'ros2_control_test_differential_mech_red_invalid_value.urdf':
        (B, "actuator[@name='joint1_motor']/mechanical_reduction", "'0'",
         ([1.0, 1.0], [1.0, 1.0], [2.0, 3.0])),
    'ros2_control_test_differential_mechanical_reduction_not_a_number.urdf':
        (B, "actuator[@name='joint1_motor']/mechanical_reduction", "'one'",
         ([1.0, 1.0], [1.0, 1.0], [0.0, 0.0])),
    'ros2_control_test_differential_offset_ill_defined.urdf':
        (B, "joint[@name='joint1']/offset", "'two'", ([50.0, -50.0], [2.0, -2.0], [0.0, 0.0])),
    'ros2_control_test_four_bar_linkage_mech_red_invalid_value.urdf':
        (B, "actuator[@name='joint1_motor']/mechanical_reduction", "'0'",
         ([1.0, 1.0], [1.0, 1.0], [2.0, 3.0])),
    'ros2_control_test_four_bar_linkage_mechanical_reduction_not_a_number.urdf':
        (B, "actuator[@name='joint1_motor']/mechanical_reduction", "'one'",
         ([1.0, 1.0], [1.0, 1.0], [0.0, 0.0])),
    'ros2_control_test_four_bar_linkage_offset_ill_defined.urdf':
        (B, "joint[@name='joint1']/offset", "'two'", ([50.0, -50.0], [2.0, -2.0], [0.0, 0.0])),
}


def load(text, lenient=False, source='auto', aliases=None):
    """Return the parse and the robot loaded through the production path."""
    parsed = parse_transmissions(text, lenient=lenient, source=source)
    robot = load_robot_transmissions(text, lenient=lenient, source=source, plugins=PLUGINS,
                                     aliases=aliases, warn=False)
    return parsed, robot


def one_transmission_each(text):
    """Yield one document per top-level <transmission>, the others removed."""
    root = etree.fromstring(text.encode('utf-8'))
    count = sum(1 for c in root if local_name(c) == 'transmission')
    for keep in range(count):
        copied = copy.deepcopy(root)
        transmissions = [c for c in copied if local_name(c) == 'transmission']
        for i, t in enumerate(transmissions):
            if i != keep:
                copied.remove(t)
        yield etree.tostring(copied, encoding='unicode')


def _files(folder, pattern='*.urdf'):
    return sorted(p.name for p in (CORPUS / folder).glob(pattern))


def test_the_tables_cover_the_corpus():
    assert _files('.') == sorted(ROBOTS)
    assert _files('fixtures') == sorted(FIXTURES)
    assert _files('malformed') == sorted(list(ROS1_MALFORMED) + list(ROS2_MALFORMED) +
                                         ['ros_control_transmission_interface_loader_'
                                          'duplicate.urdf'])


# ------------------------------------------------------------------------------ real robots
@pytest.mark.parametrize('name', sorted(ROBOTS))
def test_robot(name):
    elements, lenient, count, names = ROBOTS[name]
    text = read_urdf_text(CORPUS / name)
    parsed, built = load(text, lenient=lenient)
    assert parsed.element_count == elements
    assert len(built.transmissions) == count, built.warnings
    if names is not None:
        joints = {j for b in built.transmissions for j in b.wiring.joint_names}
        actuators = {a for b in built.transmissions for a in b.wiring.actuator_names}
        assert (len(joints), len(actuators)) == names
    if lenient:
        with pytest.raises((IncompleteTransmissionError, UnknownTransmissionTypeError)):
            load(text)
    else:
        assert not any('lenient' in w for w in parsed.warnings + built.warnings)


def test_franka_duplicates_are_merged_with_their_interfaces():
    parsed, built = load(read_urdf_text(CORPUS / 'franka_panda.urdf'), lenient=True)
    assert len(parsed.transmissions) == 11
    info = next(t for t in parsed.transmissions if t.name == 'panda_joint1_transmission')
    assert set(info.joints[0].interfaces) == {
        'hardware_interface/PositionJointInterface', 'hardware_interface/VelocityJointInterface',
        'hardware_interface/EffortJointInterface'}
    assert sum('declared 3 times' in w for w in parsed.warnings) == 7
    skipped = [w for w in built.warnings if w.startswith('skipped')]
    assert len(skipped) == 2 and all('franka_hw/' in w for w in skipped)


def test_shadow_hand_loads_20_of_20_strictly():
    # no alias: sr_mechanism_model's SimpleTransmission and J0Transmission are built in, the
    # J0s' second joints named by sr_mechanism_model's rule
    parsed, built = load(read_urdf_text(CORPUS / 'shadow_hand_e.urdf'))
    assert len(built.transmissions) == 20 and built.warnings == []
    assert built.untransmitted_joints == []
    assert Counter(type(b.transmission).__name__ for b in built.transmissions) == {
        'ShadowSimpleTransmission': 16, 'J0Transmission': 4}
    wiring = next(b.wiring for b in built.transmissions if b.info.name == 'rh_wrist_transmission')
    assert wiring.joint_names == wiring.actuator_names  # actuators are named after joints
    j0 = {b.info.name: b.wiring for b in built.transmissions
          if b.type == 'sr_mechanism_model/J0Transmission'}
    assert {n: (w.joint_names, w.actuator_names) for n, w in j0.items()} == {
        f'rh_{f.lower()}middle_transmission': ((f'rh_{f}J1', f'rh_{f}J2'), (f'rh_{f}J0',))
        for f in ('FF', 'MF', 'RF', 'LF')}
    out = built.actuator_to_joint({'position': {'rh_LFJ0': 2.0, 'rh_WRJ2': -0.3},
                                   'velocity': {'rh_LFJ0': 1.0, 'rh_WRJ2': 0.2}})
    assert out == {'position': {'rh_LFJ1': 1.0, 'rh_LFJ2': 1.0, 'rh_WRJ2': -0.3},
                   'velocity': {'rh_LFJ1': 0.5, 'rh_LFJ2': 0.5, 'rh_WRJ2': 0.2}}


def test_shadow_hand_an_alias_still_renames_a_built_in_type():
    # aliases apply before the lookup, so the documented opt-in still works where a native
    # plugin exists: the 16 simple transmissions become standard ones, with the same maps
    text = read_urdf_text(CORPUS / 'shadow_hand_e.urdf')
    _, native = load(text)
    _, aliased = load(text, aliases=SHADOW_ALIASES)
    assert aliased.warnings == [] and len(aliased.transmissions) == 20
    assert Counter(type(b.transmission).__name__ for b in aliased.transmissions) == {
        'SimpleTransmission': 16, 'J0Transmission': 4}
    for a, n in zip(aliased.transmissions, native.transmissions):
        assert a.joint_names == n.joint_names and a.actuator_names == n.actuator_names
        assert [m.tolist() for m in a.transmission.linear_map()] == \
            [m.tolist() for m in n.transmission.linear_map()]


def test_tiago_humble_both_sources():
    text = read_urdf_text(CORPUS / 'tiago_humble.urdf')
    parsed, built = load(text, lenient=True, source='all')
    assert len(parsed.transmissions) == 47
    assert len(built.transmissions) == 14
    assert sum('hey5_transmissions/Hey5Reducer' in w for w in built.warnings) == 33
    wrist = next(b for b in built.transmissions if b.info.name == 'arm_6_arm_7_wrist_trans')
    assert wrist.wiring.transmission.get_actuator_reduction() == [-1.0, 1.0]
    assert wrist.wiring.transmission.get_joint_reduction() == [1.0, -1.0]


def test_husky_type_element_wins():
    parsed, _ = load(read_urdf_text(CORPUS / 'husky.urdf'))
    assert {t.type for t in parsed.transmissions} == {'transmission_interface/SimpleTransmission'}
    assert sum('disagree' in w for w in parsed.warnings) == 4


def test_pr2_negative_reductions_and_gazebo_joint():
    parsed, built = load(read_urdf_text(CORPUS / 'pr2_cturtle_pr2_mechanism_model.urdf'))
    assert 'r_gripper_joint' in parsed.joint_names
    assert parsed.joint_names.count('r_gripper_joint') == 1  # not the <joint:slider> too
    caster = next(b for b in built.transmissions if b.info.name == 'fl_caster_rotation_trans')
    assert caster.wiring.transmission.get_actuator_reduction() < 0


def test_example8_roles_and_offsets():
    parsed, built = load(read_urdf_text(CORPUS / 'ros2_control_demos_example8_rrbot.urdf'))
    by_name = {b.info.name: b.wiring for b in built.transmissions}
    assert by_name['transmission2'].joint_names == ('joint2',)
    assert parsed.transmissions[0].block == 'RRBotTransmissionsSystemPositionOnly'


# ------------------------------------------------------------------------------ fixtures
@pytest.mark.parametrize('name', sorted(FIXTURES))
def test_fixture(name):
    lenient, count, strict_error = FIXTURES[name]
    text = read_urdf_text(CORPUS / 'fixtures' / name)
    parsed, built = load(text, lenient=lenient)
    assert len(built.transmissions) == count, built.warnings
    if strict_error is not None:
        with pytest.raises(strict_error):
            load(text)


def test_minimal_robot_robot_level_transmissions():
    text = read_urdf_text(CORPUS / 'fixtures' / 'ros2_control_test_assets_minimal_robot.urdf')
    parsed, built = load(text, source='robot')
    assert [b.info.name for b in built.transmissions] == ['minimal_transmission1',
                                                          'minimal_transmission2']
    parsed, built = load(text, lenient=True)
    simple = built.transmissions[0]
    assert simple.wiring.actuator_names == ('TestActuatorHardware',)  # implicit actuator1
    assert simple.info.actuators[0].implicit


def test_differential_fixture_orders_by_role():
    # joint2 (bar_joint) is listed before joint1 (foo_joint)
    text = read_urdf_text(
        CORPUS / 'fixtures' / 'ros_control_differential_transmission_loader_full.urdf')
    _, built = load(text)
    wiring = built.transmissions[0].wiring
    assert wiring.joint_names == ('foo_joint', 'bar_joint')
    assert wiring.transmission.get_joint_reduction() == [2.0, -2.0]
    assert wiring.transmission.get_joint_offset() == [0.5, -0.5]


@pytest.mark.parametrize('name', [f'ros2_control_test_{kind}_no_reduction_no_offset.urdf'
                                  for kind in ('simple', 'differential', 'four_bar_linkage')])
def test_ros2_control_defaults(name):
    _, built = load(read_urdf_text(CORPUS / 'fixtures' / name))
    transmission = built.transmissions[0].wiring.transmission
    reductions = transmission.get_actuator_reduction()
    assert reductions in (1.0, [1.0, 1.0])


# ------------------------------------------------------------------------------ malformed
@pytest.mark.parametrize('name', sorted(ROS1_MALFORMED))
def test_ros1_malformed(name):
    documents = list(one_transmission_each(read_urdf_text(CORPUS / 'malformed' / name)))
    expected = ROS1_MALFORMED[name]
    assert len(documents) == len(expected)
    for i, (document, expectation) in enumerate(zip(documents, expected), 1):
        if expectation is None:
            load(document)
            continue
        error, path, value = expectation
        with pytest.raises(error) as e:
            load(document)
        message = str(e.value)
        assert path in message and value in message, f'block {i}: {message}'
        assert e.value.path.startswith("/robot[@name='robot']/transmission")


@pytest.mark.parametrize('name', sorted(ROS2_MALFORMED))
def test_ros2_control_malformed(name):
    error, path, value, lenient_outcome = ROS2_MALFORMED[name]
    text = read_urdf_text(CORPUS / 'malformed' / name)
    with pytest.raises(error) as e:
        load(text)
    assert path in str(e.value) and value in str(e.value), str(e.value)
    parsed, built = load(text, lenient=True)
    if lenient_outcome is None:
        assert not built.transmissions
        assert any('skipped' in w for w in parsed.warnings + built.warnings)
        return
    transmission = built.transmissions[0].wiring.transmission
    if len(lenient_outcome) == 2:
        reduction, offset = lenient_outcome
        assert transmission.get_actuator_reduction() == reduction
    else:
        actuator_reduction, joint_reduction, offset = lenient_outcome
        assert transmission.get_actuator_reduction() == actuator_reduction
        assert transmission.get_joint_reduction() == joint_reduction
    assert transmission.get_joint_offset() == offset
    assert any('lenient mode' in w for w in parsed.warnings)


def test_exact_duplicate_is_merged_not_rejected():
    # ROS 1 rejects the second copy; we keep one and warn (Franka needs that)
    text = read_urdf_text(
        CORPUS / 'malformed' / 'ros_control_transmission_interface_loader_duplicate.urdf')
    parsed, built = load(text)
    assert parsed.element_count == 2
    assert len(built.transmissions) == 1
    assert any("'simple_trans' is declared 2 times" in w for w in parsed.warnings)
