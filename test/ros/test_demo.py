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

"""The README's main command: ``transmission_plugins demo`` tracks its scripted targets."""

import os
import re
import subprocess
import sys

import pytest

pytestmark = pytest.mark.ros


def test_demo_tracks_the_targets_and_exits_zero():
    env = dict(os.environ)
    # a domain of this module's own; Fast DDS ends the process above 232
    env['ROS_DOMAIN_ID'] = str(os.getpid() % 30 + 200)
    env['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST'
    proc = subprocess.run([sys.executable, '-m', 'transmission_plugins', 'demo', '--duration',
                           '6'], env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    assert 'demo: joints tracked the targets' in out
    for name in ('pan_joint', 'wrist_roll_joint', 'gripper_joint', 'gripper_motor',
                 'shoulder_motor'):
        assert name in out
    # a successful run leaves nothing behind (its parameters file holds the whole URDF)
    log = re.search(r'logs in (\S+)/nodes\.log', out)
    assert log, out
    assert not os.path.exists(log.group(1))
