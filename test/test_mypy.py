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

"""mypy over the package, with the settings of setup.cfg's [mypy] section."""

import subprocess
import sys

import pytest

from tp_support import REPO


@pytest.mark.mypy
@pytest.mark.linter
def test_mypy():
    result = subprocess.run(
        [sys.executable, '-m', 'mypy', '--config-file', str(REPO / 'setup.cfg'),
         '--cache-dir', '/dev/null', 'transmission_plugins'],
        cwd=REPO, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, f'mypy found type errors:\n{result.stdout}{result.stderr}'
    assert 'Success: no issues found' in result.stdout
