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

"""flake8 with the ament configuration (99 columns, google import order, docstrings)."""

import subprocess
import sys

import pytest

from tp_support import REPO

#: ament_flake8 in a fresh interpreter: flake8 lints in a pool of *forked* workers, and forking
#: this pytest process once the ROS tests have started DDS threads can deadlock the workers
#: (seen: the whole suite hung in this test, two forked children waiting forever).
LINT = ('import sys\n'
        'from ament_flake8.main import main_with_errors\n'
        'rc, errors = main_with_errors(argv=[])\n'
        "print('\\n'.join(errors))\n"
        'sys.exit(rc)\n')


@pytest.mark.flake8
@pytest.mark.linter
def test_flake8():
    result = subprocess.run([sys.executable, '-c', LINT], cwd=REPO, capture_output=True,
                            text=True, timeout=600)
    assert result.returncode == 0, \
        'Found code style errors / warnings:\n' + result.stdout + result.stderr
