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

"""``transmission_plugins --version`` and ``--xacro-arg NAME:=VALUE``; one version everywhere."""

import json
import re

import pytest
from tp_support import PREFIXED_ARM_XACRO
from tp_support import REPO
from transmission_plugins.tools.cli import main
from transmission_plugins.tools.cli.common import package_version


def _versions():
    """Return the version written in package.xml, setup.py and CHANGELOG.rst."""
    package = re.search(r'<version>([^<]+)</version>', (REPO / 'package.xml').read_text())
    setup = re.search(r"version='([^']+)'", (REPO / 'setup.py').read_text())
    changelog = re.search(r'^(\d+\.\d+\.\d+) \(\d{4}-\d\d-\d\d\)$',
                          (REPO / 'CHANGELOG.rst').read_text(), re.M)
    return package.group(1), setup.group(1), changelog.group(1)


def test_one_version_everywhere():
    package, setup, changelog = _versions()
    assert package == setup == changelog


def test_version_option(capsys):
    assert main(['--version']) == 0
    assert capsys.readouterr().out.strip() == f'transmission_plugins {_versions()[0]}'
    assert package_version() == _versions()[0]


def test_xacro_arguments_reach_the_robot(tmp_path, capsys):
    path = tmp_path / 'arm.urdf.xacro'
    path.write_text(PREFIXED_ARM_XACRO)
    assert main(['inspect', str(path), '--json', '--xacro-arg', 'prefix:=left_',
                 '--xacro-arg', 'reduction:=-20', '--xacro-arg', 'prefix:=right_']) == 0
    (trans,) = json.loads(capsys.readouterr().out)['transmissions']
    assert (trans['name'], trans['joints'], trans['actuators']) == (
        'right_trans1', ['right_joint1'], ['right_motor1'])   # a later pair wins
    assert trans['map']['actuator_reduction'] == -20.0
    assert trans['map']['jacobian'] == [[pytest.approx(-1 / 20)]]
    assert main(['inspect', str(path), '--json']) == 0   # the defaults
    (trans,) = json.loads(capsys.readouterr().out)['transmissions']
    assert (trans['joints'], trans['map']['actuator_reduction']) == (['joint1'], 50.0)


@pytest.mark.parametrize('bad', ['prefix', ':=x', 'prefix=x'])
def test_a_malformed_xacro_argument_is_a_usage_error(tmp_path, capsys, bad):
    path = tmp_path / 'arm.urdf.xacro'
    path.write_text(PREFIXED_ARM_XACRO)
    assert main(['inspect', str(path), '--xacro-arg', bad]) == 2
    err = capsys.readouterr().err
    assert f"argument --xacro-arg: expected NAME:=VALUE, got '{bad}'" in err


def _verbs():
    from transmission_plugins.tools.cli import build_parser
    parser = build_parser()
    (sub,) = [a for a in parser._actions if a.dest == 'command']
    return sorted(sub.choices)


@pytest.mark.parametrize('verb', _verbs())
def test_every_verb_is_documented(verb):
    # issue 34: doc/cli.md lacked ros2-control, the README calibrate
    cli = (REPO / 'doc' / 'cli.md').read_text()
    synopsis = cli.split('```')[1]
    assert f'transmission_plugins {verb}' in synopsis, f'{verb} is not in the synopsis'
    if verb != 'demo':   # doc/launch.md's ("The demo")
        assert f'\n## {verb}\n' in cli, f'doc/cli.md has no section "## {verb}"'
    readme = (REPO / 'README.md').read_text()
    tool = readme[readme.index('a command-line tool ('):].split(')', 1)[0]
    assert f'`{verb}`' in tool, f"the README's list of verbs lacks {verb}"
