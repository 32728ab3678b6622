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
Copyright and license headers on every source file.

``ament_copyright`` is used when it is installed (a ROS 2 workspace); the PyPI-only environment
has no wheel for it, so the same rule is checked here directly: every Python file, the launch
files included, starts with an Apache-2.0 notice.
"""

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SKIP_DIRS = {'.venv', 'venv', 'build', 'install', 'log', '.git', '__pycache__', '.hypothesis',
             '.pytest_cache'}


def _sources():
    for dirpath, dirnames, filenames in os.walk(ROOT):
        dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS and not d.endswith('.egg-info')]
        for f in filenames:
            if f.endswith('.py'):
                yield Path(dirpath) / f


@pytest.mark.copyright
@pytest.mark.linter
def test_copyright():
    try:
        from ament_copyright.main import main
    except ImportError:
        main = None
    if main is not None:
        assert main(argv=['.', 'test']) == 0, 'Found errors'
    missing = []
    for path in _sources():
        head = path.read_text(encoding='utf-8')[:1200]
        if 'Copyright' not in head or 'Licensed under the Apache License, Version 2.0' not in head:
            missing.append(str(path.relative_to(ROOT)))
    assert list(_sources()), 'no source files found'
    assert not missing, 'files without an Apache-2.0 copyright header: ' + ', '.join(missing)
