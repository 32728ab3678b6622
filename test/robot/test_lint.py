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
``transmission_plugins lint`` and its checks (issue 27, item 3), one mistake per test.

Every finding names its kind, its element path and its line.  The project's fixtures carry
each listed mistake (``lint_mistakes.urdf``, ``lint_mixed_dialects.urdf``); the bundled robot,
the other fixtures and the shared corpus give the findings doc/cli.md explains, and no other.
"""

import collections
import json

import pytest

from tp_support import CORPUS
from tp_support import CORPUS_SKIP_REASON
from tp_support import FIXTURE_DIR
from tp_support import REPO
from transmission_plugins import load_robot_transmissions
from transmission_plugins.robot.lint_urdf import lint_urdf
from transmission_plugins.tools.cli import main

MISTAKES = FIXTURE_DIR / 'lint_mistakes.urdf'
MIXED = FIXTURE_DIR / 'lint_mixed_dialects.urdf'
BOT = "/robot[@name='lint_bot']"
ARM = "/robot[@name='two_faced_arm']/ros2_control[@name='ArmSystem']"

#: (kind, path, line, words of the message) of every finding of lint_mistakes.urdf
EXPECTED_MISTAKES = [
    ('unreachable-limit', f"{BOT}/joint[@name='joint1']/limit/@effort", 15,
     ['effort limit 80', 'reach only 50']),
    ('described-twice', f"{BOT}/transmission[@name='trans2']/actuator[@name='motor2']", 44,
     ['gear ratio 100', 'reduction is 100']),
    ('unknown-interface',
     f"{BOT}/transmission[@name='trans3']/joint[@name='joint3']/hardwareInterface", 53,
     ["'hardware_interface/EffortJoinInterface'",
      "did you mean 'hardware_interface/EffortJointInterface'"]),
    ('shared-actuator', f"{BOT}/transmission[@name='trans4']/actuator[@name='motor3']", 57,
     ["actuator 'motor3' also drives transmission 'trans3'", 'not coupled']),
    ('shared-actuator', f"{BOT}/transmission[@name='gripper_trans']/actuator[@name='motor3']",
     63, ["['finger_joint'] and ['joint3']"]),
    ('matrices-not-inverse', f"{BOT}/transmission[@name='wrist_trans']/joint_to_actuator", 74,
     ['B A - I is 0.005']),
    ('duplicate-name', f"{BOT}/transmission[@name='wheel_trans']", 82,
     ['(line 77)', 'strict mode rejects the robot', "loads this one as 'wheel_trans#2'"]),
]

#: findings outside the lint fixtures, each explained in doc/cli.md ("lint")
EXPECTED_ELSEWHERE = {
    'urdf/example_robot.urdf.xacro': {'unreachable-limit': 1},
    'test/fixtures/drake_actuators.urdf': {'unreachable-limit': 1},
    'test/fixtures/odd_materials.urdf': {'load-error': 1},
    'test/fixtures/ros1_vendor_types.urdf': {'load-error': 1},
}
EXPECTED_CORPUS = {
    'franka_panda.urdf': {'load-error': 1},
    'fixtures/ros2_control_test_assets_component_transmissions.urdf': {'duplicate-name': 2},
    'fixtures/ros2_control_test_assets_minimal_robot.urdf': {'reduction-mismatch': 1,
                                                             'load-error': 1},
    'fixtures/ros_control_parser_test_valid.urdf': {'load-error': 1},
    'fixtures/ros_control_transmission_interface_loader_bidirectional_valid.urdf': {
        'unknown-interface': 9},
}


def test_a_nonlinear_transmission_s_unreachable_effort_limit_is_found(tmp_path):
    # issue 34: lint checked linear transmissions only; an ankle declared more effort than its
    # two actuators reach anywhere in its range, and a knee behind a table as much
    text = (FIXTURE_DIR / 'humanoid_legs.urdf').read_text()
    pitch = '<limit lower="-0.8" upper="0.5" velocity="9.0" effort="60.0"/>'
    knee = '<limit lower="-0.6" upper="1.0" velocity="8.0" effort="150.0"/>'
    assert text.count(pitch) == 2 and text.count(knee) == 1
    path = tmp_path / 'legs.urdf'
    path.write_text(text.replace(pitch, pitch.replace('60.0', '150.0'), 1)
                    .replace(knee, knee.replace('150.0', '500.0')))
    found = [f for f in lint_urdf(str(path)) if f.kind == 'unreachable-limit']
    by_joint = {f.path.split("'")[3]: f for f in found}
    assert sorted(by_joint) == ['left_ankle_pitch_joint', 'left_knee_joint'], found
    ankle = by_joint['left_ankle_pitch_joint']
    assert ankle.line and 'effort limit 150 but the effort limits of its actuators reach ' \
        'only 115.858' in ankle.message
    assert 'at best, anywhere in its range' in ankle.message
    assert by_joint['left_knee_joint'].message.startswith(
        "joint 'left_knee_joint' has effort limit 500 but")


def kinds(findings):
    return dict(collections.Counter(f.kind for f in findings))


def test_each_listed_mistake_is_found_with_its_path_and_line():
    findings = lint_urdf(MISTAKES)
    assert [(f.kind, f.path, f.line) for f in findings] == [e[:3] for e in EXPECTED_MISTAKES]
    for finding, (kind, path, line, words) in zip(findings, EXPECTED_MISTAKES):
        for word in words:
            assert word in finding.message, (kind, finding.message)
        assert str(finding) == f'{path} (line {line}): {finding.message} [{kind}]'


def test_disagreements_across_dialects_are_found():
    findings = lint_urdf(MIXED)
    assert [(f.kind, f.path, f.line) for f in findings] == [
        ('reduction-mismatch', f"{ARM}/transmission[@name='shoulder_transmission']"
                               "/joint[@name='shoulder']", 35),
        ('described-twice', f"{ARM}/transmission[@name='shoulder_transmission']"
                            "/actuator[@name='shoulder_motor']", 36),
        ('reduction-mismatch', f"{ARM}/transmission[@name='elbow_transmission']"
                               "/joint[@name='elbow']", 42)]
    assert 'reduction -100 in its <ros2_control> block and 100 at robot level' in \
        findings[0].message and 'opposite signs' in findings[0].message
    assert 'given here (2e-05)' in findings[1].message
    assert 'sizes differ by a factor 0.1' in findings[2].message


def test_the_loader_warns_with_the_same_findings():
    robot = load_robot_transmissions(MISTAKES, lenient=True, warn=False)
    loaded = {(w.kind, w.path) for w in robot.warnings if hasattr(w, 'kind')}
    lint = {(f.kind, f.path) for f in lint_urdf(MISTAKES)}
    # the checks on a loaded robot; the limit check and the strict-only ones are lint's alone
    assert loaded == {k for k in lint if k[0] not in ('unreachable-limit',
                                                      'matrices-not-inverse')}


def test_a_mimic_joint_may_share_its_leaders_actuator():
    text = MISTAKES.read_text().replace(
        '<joint name="joint4" type="revolute"><parent link="l3"/><child link="l4"/>',
        '<joint name="joint4" type="revolute"><parent link="l3"/><child link="l4"/>'
        '<mimic joint="joint3"/>')
    shared = [f for f in lint_urdf(text) if f.kind == 'shared-actuator']
    assert [f.path.split('/')[2] for f in shared] == ["transmission[@name='gripper_trans']"]


def test_dynamixel_parameters_beside_a_transmission_are_described_twice():
    text = (FIXTURE_DIR / 'dynamixel_hardware.urdf').read_text().replace('</ros2_control>', """
      <transmission name="gripper_trans">
        <plugin>transmission_interface/SimpleTransmission</plugin>
        <joint name="gripper"><mechanical_reduction>-40</mechanical_reduction></joint>
        <actuator name="gripper_motor"/>
      </transmission>
    </ros2_control>""")
    (finding,) = lint_urdf(text)
    assert finding.kind == 'described-twice'
    assert finding.path.endswith("joint[@name='gripper']/param[@name='gear_ratio']")
    assert 'gear_ratio and offset parameters' in finding.message


def test_a_dynamixel_gear_ratio_of_the_other_sign_than_the_robot_level_reduction():
    text = (FIXTURE_DIR / 'dynamixel_hardware.urdf').read_text().replace('<ros2_control', """
      <transmission name="gripper_trans">
        <type>transmission_interface/SimpleTransmission</type>
        <joint name="gripper"/>
        <actuator name="gripper_motor"><mechanicalReduction>40</mechanicalReduction></actuator>
      </transmission>
      <ros2_control""")
    (finding,) = lint_urdf(text)
    assert finding.kind == 'reduction-mismatch'
    assert finding.path.endswith("ros2_control[@name='HeadSystem']/joint[@name='gripper']")
    assert 'reduction -40 in its <ros2_control> block and 40 at robot level' in finding.message


def test_robotis_matrices_that_are_not_inverses_are_found_not_only_refused():
    text = (FIXTURE_DIR / 'robotis_hardware.urdf').read_text().replace(
        '0, 1, -1\n', '0, 1, -0.9\n')
    findings = lint_urdf(text)
    assert [f.kind for f in findings] == ['matrices-not-inverse']
    assert findings[0].path.endswith("hardware/param[@name='joint_to_transmission_matrix']")


@pytest.mark.parametrize('name', sorted(
    str(p.relative_to(REPO)) for p in list(FIXTURE_DIR.rglob('*.urdf'))
    + list(FIXTURE_DIR.rglob('*.urdf.xacro')) + [REPO / 'urdf' / 'example_robot.urdf.xacro']
    if not p.name.startswith('lint_')))
def test_the_bundled_robot_and_the_fixtures_give_only_the_explained_findings(name):
    assert kinds(lint_urdf(REPO / name)) == EXPECTED_ELSEWHERE.get(name, {})


@pytest.mark.skipif(not CORPUS.is_dir(), reason=CORPUS_SKIP_REASON)
@pytest.mark.parametrize('name', sorted(
    str(p.relative_to(CORPUS)) for p in list(CORPUS.glob('*.urdf'))
    + list(CORPUS.glob('fixtures/*.urdf'))) if CORPUS.is_dir() else ['(no corpus)'])
def test_the_corpus_gives_only_the_explained_findings(name):
    assert kinds(lint_urdf(CORPUS / name)) == EXPECTED_CORPUS.get(name, {})


# -------------------------------------------------------------------------------- the verb
def test_lint_exit_status_and_text(capsys):
    assert main(['lint', str(FIXTURE_DIR / 'frost_biped.urdf')]) == 0
    assert capsys.readouterr().out == 'no findings\n'
    assert main(['lint', str(MISTAKES)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == '7 finding(s)'
    assert out[2].endswith('[unknown-interface]') and '(line 53)' in out[2]


def test_lint_json(capsys):
    assert main(['lint', str(MIXED), '--json']) == 1
    report = json.loads(capsys.readouterr().out)
    assert report['urdf'] == str(MIXED)
    assert [f['kind'] for f in report['findings']] == [
        'reduction-mismatch', 'described-twice', 'reduction-mismatch']
    assert set(report['findings'][0]) == {'kind', 'path', 'line', 'message'}
    assert report['findings'][0]['line'] == 35


def test_lint_of_a_missing_file_is_an_error(capsys, tmp_path):
    assert main(['lint', str(tmp_path / 'none.urdf')]) == 1
    err = capsys.readouterr().err
    assert 'transmission_plugins lint: error: cannot read' in err and 'none.urdf' in err
