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
``calibrate --write-urdf``'s rewrite, byte for byte as before the records kept their origins.

The expected files (``test/fixtures/rewrite/<robot>.diff``: the unified diff of the input and
the rewritten text, which with the input fixes the output byte for byte) were written once by
the rewriter that searched the XML for each value (commit 05c3be0, branch ``house``), for
every parameter of every Simple, Differential, FourBarLinkage and PR2 wrist transmission of
robots of each dialect (ros2_control, ROS 1, PR2 with its transmission-level reductions and
its wrist; the Shadow hand's sr_mechanism_model transmissions for what the old rewriter did
with them), values added where missing included.  Regenerate with
``python test/urdf/test_rewrite_reference.py`` only when the output is meant to change.
"""

import difflib
from pathlib import Path
import sys

import pytest
from tp_support import CORPUS
from tp_support import CORPUS_SKIP_REASON
from tp_support import FIXTURE_DIR
from tp_support import REPO

from transmission_plugins.robot.loading import load_robot_transmissions
from transmission_plugins.urdf.rewrite import Change
from transmission_plugins.urdf.rewrite import rewrite_urdf
from transmission_plugins.urdf.text import read_urdf_text

EXPECTED_DIR = FIXTURE_DIR / 'rewrite'
#: robot -> its description (the corpus ones skip without ../shared/urdf_corpus)
ROBOTS = {
    'ros2_control_blocks': FIXTURE_DIR / 'ros2_control_blocks.urdf',
    'example8_rrbot': CORPUS / 'ros2_control_demos_example8_rrbot.urdf',
    'rrbot_ros1': CORPUS / 'rrbot_gazebo_ros_demos.urdf',
    'ros1_hardware_interfaces': FIXTURE_DIR / 'ros1_hardware_interfaces.urdf',
    'pr2_mechanism': FIXTURE_DIR / 'pr2_mechanism.urdf',
    'pr2': CORPUS / 'pr2.urdf',
    'shadow_hand_e': CORPUS / 'shadow_hand_e.urdf',
    'example_robot_mistakes': REPO / 'doc' / 'examples' / 'example_robot_mistakes.urdf',
}
_LINEAR = ('SimpleTransmission', 'DifferentialTransmission', 'FourBarLinkageTransmission',
           'WristTransmission', 'ShadowSimpleTransmission', 'J0Transmission')


def changes_for(text):
    """Return a change of every parameter of every linear transmission, distinct values."""
    robot = load_robot_transmissions(text, lenient=True, warn=False)
    changes = []
    for t in robot.transmissions:
        kind = type(t.transmission).__name__
        if kind not in _LINEAR or t.info is None:
            continue
        ends = [('actuator_reduction', a) for a in t.actuator_names]
        if kind not in ('SimpleTransmission', 'ShadowSimpleTransmission', 'J0Transmission'):
            ends += [('joint_reduction', j) for j in t.joint_names]
        ends += [('joint_offset', j) for j in t.joint_names]
        for parameter, end in ends:
            value = -1.25 - 0.5 * len(changes)
            changes.append(Change(t.name, t.info.line, t.info.dialect, kind, parameter, end,
                                  value))
    return changes


def rewritten_diff(name, rewrite=rewrite_urdf):
    """Return the diff of the robot's text and its rewrite, and the changes not written."""
    text = read_urdf_text(ROBOTS[name])
    new, skipped = rewrite(text, changes_for(text))
    diff = ''.join(difflib.unified_diff(text.splitlines(keepends=True),
                                        new.splitlines(keepends=True), 'before', 'after', n=1))
    return diff + ''.join(f'# not written: {why}\n' for why in skipped)


@pytest.mark.parametrize('name', sorted(ROBOTS))
def test_the_rewrite_is_byte_identical_to_the_reference(name):
    if not ROBOTS[name].exists():
        pytest.skip(CORPUS_SKIP_REASON)
    expected = (EXPECTED_DIR / f'{name}.diff').read_text()
    assert rewritten_diff(name) == expected


def test_the_reference_changes_every_kind_of_value():
    # the references are worth something only if they write each kind of value somewhere
    expected = ''.join((EXPECTED_DIR / f'{n}.diff').read_text() for n in ROBOTS)
    for written in ('<mechanical_reduction>-', '<mechanicalReduction>-', '<offset>-',
                    'mechanicalReduction="-', 'the PR2 wrist has no offset element'):
        assert written in expected, written


def _write_references(rewrite):
    EXPECTED_DIR.mkdir(exist_ok=True)
    for name in ROBOTS:
        Path(EXPECTED_DIR / f'{name}.diff').write_text(rewritten_diff(name, rewrite))


if __name__ == '__main__':
    _write_references(rewrite_urdf)
    sys.exit(0)
