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

"""The package's public names: one list, importable by name, by ``*`` and listed by ``dir``."""

import importlib

import pytest

import transmission_plugins

#: names ../shared/DESIGN.md promises "importable from transmission_plugins"
PROMISED = ('SimpleTransmission', 'DifferentialTransmission', 'FourBarLinkageTransmission',
            'PR2GripperTransmission', 'JointHandle', 'ActuatorHandle', 'TransmissionError',
            'load_robot_transmissions', 'RobotTransmissions', 'lint_urdf')


def test_a_star_import_gives_every_public_name_and_only_those():
    names: dict = {}
    exec('from transmission_plugins import *', names)
    public = sorted(n for n in names if n != '__builtins__')
    assert public == sorted(transmission_plugins.__all__)
    assert set(PROMISED) <= set(public)
    for name in public:
        assert names[name] is getattr(transmission_plugins, name)
        if hasattr(names[name], '__module__'):   # a class or function, not a constant
            module = importlib.import_module(names[name].__module__)
            assert getattr(module, name) is names[name]   # the object of its defining module


def test_dir_lists_the_public_names():
    assert set(transmission_plugins.__all__) <= set(dir(transmission_plugins))
    assert '__version__' in dir(transmission_plugins)


def test_an_unknown_name_is_an_attribute_error_naming_it():
    with pytest.raises(AttributeError, match="has no attribute 'SimpleTransmision'"):
        transmission_plugins.SimpleTransmision  # noqa: B018
    with pytest.raises(ImportError):
        exec('from transmission_plugins import SimpleTransmision', {})
