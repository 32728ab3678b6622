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

"""The pluginlib-style description (transmission_plugins.xml) mirrors the entry points exactly."""

import configparser
import importlib
import xml.etree.ElementTree as ET

import pytest

from tp_support import REPO
from transmission_plugins.core.transmission import Transmission
from transmission_plugins.plugins.registry import ENTRY_POINT_GROUP

ROOT = REPO
DESCRIPTION = 'transmission_plugins.xml'


def _entry_points():
    """Return {lookup name: 'module.Class'} from setup.cfg."""
    config = configparser.ConfigParser(interpolation=None, delimiters=('=',))
    config.optionxform = str  # keep the case of the names
    config.read(ROOT / 'setup.cfg')
    lines = config['options.entry_points'][ENTRY_POINT_GROUP].strip().splitlines()
    pairs = [line.split('=', 1) for line in lines if line.strip()]
    return {name.strip(): target.strip().replace(':', '.') for name, target in pairs}


def _described():
    """Return {class name: type} from the plugin description XML."""
    root = ET.parse(ROOT / DESCRIPTION).getroot()
    assert root.tag == 'library'
    classes = root.findall('class')
    for c in classes:
        assert c.get('base_class_type') == 'transmission_plugins.core.transmission.Transmission'
        assert (c.findtext('description') or '').strip(), c.get('name')
    names = [c.get('name') for c in classes]
    assert len(names) == len(set(names)), 'a class name is described twice'
    return {c.get('name'): c.get('type') for c in classes}


def test_every_entry_point_is_described_and_vice_versa():
    entry_points = _entry_points()
    described = _described()
    assert sorted(entry_points) == sorted(described)
    assert entry_points == described


def test_package_xml_exports_the_description():
    export = ET.parse(ROOT / 'package.xml').getroot().find('export')
    plugin = export.find('transmission_plugins')
    assert plugin is not None and plugin.get('plugin') == '${prefix}/' + DESCRIPTION


def test_description_is_installed_and_indexed():
    setup_py = (ROOT / 'setup.py').read_text()
    assert f"'{DESCRIPTION}'" in setup_py
    marker = ROOT / 'resource' / 'transmission_plugins__pluginlib__plugin' / 'transmission_plugins'
    assert marker.read_text().strip() == f'share/transmission_plugins/{DESCRIPTION}'
    assert 'transmission_plugins__pluginlib__plugin' in setup_py


@pytest.mark.parametrize('name, target', sorted(_entry_points().items()))
def test_entry_point_targets_are_transmissions(name, target):
    module, _, attribute = target.rpartition('.')
    cls = getattr(importlib.import_module(module), attribute)
    assert isinstance(cls, type) and issubclass(cls, Transmission)
    assert callable(getattr(cls, 'from_info', None)), f'{name}: no from_info'
