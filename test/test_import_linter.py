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
The import layering, checked by import-linter (``lint-imports``) with the contracts of setup.cfg.

Layers, lowest first: core, urdf, transmissions, plugins, robot, runtime, ros, tools; a module
imports its own layer and the layers below (every import statement counts, those inside
functions too); only ros/ and tools/ import ROS packages; core/ and transmissions/ reach neither
lxml nor rclpy, directly or through the modules they import.  The second test proves that the
contracts bite: on a copy of the package with one mistake of each kind, every contract breaks.
What import-linter cannot see, imports at run time, ``test_layering.py`` checks.
"""

import configparser
import os
from pathlib import Path
import shutil
import subprocess
import sys

import pytest

from tp_support import PACKAGE_DIR
from tp_support import REPO

LINT_IMPORTS = Path(sys.executable).with_name('lint-imports')
#: the contracts of setup.cfg, by id: each must be there and kept
CONTRACTS = ('layers', 'ros', 'public-names', 'maths')


def _lint_imports(config: Path, cwd: Path) -> subprocess.CompletedProcess:
    """Run ``lint-imports`` on the package found in ``cwd``, without a cache on disk."""
    env = dict(os.environ, PYTHONPATH=str(cwd), COLUMNS='200')   # one line per contract
    return subprocess.run([str(LINT_IMPORTS), '--no-cache', '--no-logo', str(config)],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.linter
def test_the_import_contracts_are_kept():
    config = configparser.ConfigParser()
    config.read(REPO / 'setup.cfg')
    found = [s.split(':', 2)[2] for s in config.sections()
             if s.startswith('importlinter:contract:')]
    assert sorted(found) == sorted(CONTRACTS), found
    result = _lint_imports(REPO / 'setup.cfg', REPO)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f'Contracts: {len(CONTRACTS)} kept, 0 broken.' in result.stdout, result.stdout


#: one mistake of each kind: (module to append to, the line appended, the contract it breaks)
MISTAKES = (
    ('core/transmission.py', 'import transmission_plugins.robot.loading',
     'The layers import one way'),
    ('runtime/hardware_interface.py', 'import rclpy.node',
     'Only ros/ and tools/ import ROS packages'),
    ('__init__.py', 'import sensor_msgs.msg',
     "The package's own __init__ (the public names) imports no ROS package"),
    ('transmissions/simple_transmission.py', 'import lxml.etree',
     'The maths (core/ and transmissions/) needs neither lxml nor rclpy'),
)


@pytest.mark.linter
def test_each_contract_breaks_on_its_mistake(tmp_path):
    copy = tmp_path / 'transmission_plugins'
    shutil.copytree(PACKAGE_DIR, copy, ignore=shutil.ignore_patterns('__pycache__', '*.so'))
    for module, line, _ in MISTAKES:
        path = copy / module
        path.write_text(path.read_text() + f'\n\ndef _mistake():\n    {line}\n')
    (copy / 'extra').mkdir()                 # a subpackage placed in no layer
    (copy / 'extra' / '__init__.py').write_text('')
    result = _lint_imports(REPO / 'setup.cfg', tmp_path)
    assert result.returncode != 0, result.stdout
    broken = [line for line in result.stdout.splitlines() if line.endswith('BROKEN')]
    for _, _, contract in MISTAKES:
        assert any(line.startswith(contract) for line in broken), (contract, result.stdout)
    assert 'transmission_plugins.core.transmission -> transmission_plugins.robot.loading' \
        in result.stdout
    assert 'transmission_plugins.extra' in result.stdout   # exhaustive: every subpackage a layer
