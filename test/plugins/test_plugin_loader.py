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

"""The entry-point plugin registry, with throw-away third-party distributions in tmp_path."""

import importlib.metadata
import itertools
import sys
import textwrap

import numpy as np
import pytest

from transmission_plugins import DifferentialTransmission
from transmission_plugins import SimpleTransmission
from transmission_plugins.core.exceptions import BadValueError
from transmission_plugins.core.exceptions import TransmissionLoadError
from transmission_plugins.core.exceptions import UnknownTransmissionTypeError
from transmission_plugins.plugins import build_transmission
from transmission_plugins.plugins import ENTRY_POINT_GROUP
from transmission_plugins.plugins import find_transmission_plugins
from transmission_plugins.plugins import load_transmission_class
from transmission_plugins.plugins import TransmissionPlugin
from transmission_plugins.robot.loading import load_robot_transmissions
from transmission_plugins.urdf.dialects import parse_transmissions

BUILT_IN = (
    'transmission_interface/SimpleTransmission',
    'transmission_interface/DifferentialTransmission',
    'transmission_interface/FourBarLinkageTransmission',
    'pr2_mechanism_model/SimpleTransmission',
    'pr2_mechanism_model/WristTransmission',
    'pr2_mechanism_model/PR2GripperTransmission',
    'SimpleTransmission',
    'WristTransmission',
    'PR2GripperTransmission',
)

#: A third-party rack-and-pinion transmission: joint metres = pinion radius * actuator radians.
RACK_MODULE = '''
from transmission_plugins import SimpleTransmission
from transmission_plugins.urdf.elements import child_text
from transmission_plugins.urdf.records import TransmissionWiring
from transmission_plugins.urdf.vocabulary import UrdfVocabulary


class RackAndPinionTransmission(SimpleTransmission):
    """Drive a linear joint with a pinion on a rack."""

    URDF_VOCABULARY = UrdfVocabulary(extra_children=('pinion_radius',))

    @classmethod
    def from_info(cls, info):
        radius = float(child_text(info.element, 'pinion_radius'))
        return TransmissionWiring(cls(1.0 / radius), (info.joints[0].name,),
                                  (info.actuators[0].name,))


class NotATransmission:
    pass


class NoFromInfo(SimpleTransmission):
    from_info = None
'''

RACK_URDF = """
<robot name="r">
  <link name="base"/><link name="carriage"/>
  <joint name="slider" type="prismatic"><parent link="base"/><child link="carriage"/></joint>
  <transmission name="rack">
    <type>acme/RackAndPinionTransmission</type>
    <joint name="slider"/>
    <actuator name="motor"/>
    <pinion_radius>{radius}</pinion_radius>
  </transmission>
</robot>
"""

_counter = itertools.count()


def fake_distribution(root, entry_points, module_source='', name='acme_transmissions',
                      version='1.2.0'):
    """
    Write ``<name>-<version>.dist-info`` and a uniquely named module into ``root``.

    ``entry_points`` map lookup names to ``{module}:Attribute`` targets; ``{module}`` is
    replaced by the generated module name.  Returns the distribution and the module name.
    """
    module = f'acme_transmissions_{next(_counter)}'
    info = root / f'{name}-{version}.dist-info'
    info.mkdir()
    (info / 'METADATA').write_text(
        f'Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n')
    lines = [f'[{ENTRY_POINT_GROUP}]'] + [
        f'{k} = {v.format(module=module)}' for k, v in entry_points.items()]
    (info / 'entry_points.txt').write_text('\n'.join(lines) + '\n')
    (root / f'{module}.py').write_text(textwrap.dedent(module_source))
    return importlib.metadata.PathDistribution(info), module


@pytest.fixture
def acme(tmp_path, monkeypatch):
    """Install a fake third-party distribution with the rack plugin on sys.path."""
    dist, module = fake_distribution(tmp_path, {
        'acme/RackAndPinionTransmission': '{module}:RackAndPinionTransmission',
        'acme/NotATransmission': '{module}:NotATransmission',
        'acme/NoFromInfo': '{module}:NoFromInfo',
        'acme/Missing': 'acme_no_such_module:Missing',
    }, RACK_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield dist, module
    sys.modules.pop(module, None)


# ------------------------------------------------------------------------------ discovery
def test_built_in_plugins_are_registered_under_their_pluginlib_names():
    plugins = find_transmission_plugins()
    names = [p.name for p in plugins]
    assert set(BUILT_IN) <= set(names)
    assert plugins == sorted(plugins, key=lambda p: (p.name, p.distribution, p.version, p.value))
    simple = next(p for p in plugins if p.name == 'transmission_interface/SimpleTransmission')
    assert isinstance(simple, TransmissionPlugin)
    assert simple.distribution.replace('-', '_') == 'transmission_plugins'
    assert simple.value == ('transmission_plugins.transmissions.simple_transmission:'
                            'SimpleTransmission')


def test_discovery_does_not_import_plugins(acme):
    dist, module = acme
    plugins = find_transmission_plugins([dist])
    assert [p.name for p in plugins] == sorted(
        ['acme/RackAndPinionTransmission', 'acme/NotATransmission', 'acme/NoFromInfo',
         'acme/Missing'])
    assert {(p.distribution, p.version) for p in plugins} == {('acme_transmissions', '1.2.0')}
    assert module not in sys.modules


def test_installed_distribution_is_found_by_default(acme):
    dist, module = acme
    names = [p.name for p in find_transmission_plugins()]
    assert 'acme/RackAndPinionTransmission' in names
    assert 'transmission_interface/SimpleTransmission' in names


def test_a_distribution_found_twice_is_listed_once(acme):
    dist, _ = acme
    assert find_transmission_plugins([dist, dist]) == find_transmission_plugins([dist])


# ------------------------------------------------------------------------------ loading
def test_load_imports_only_the_requested_plugin(tmp_path, monkeypatch):
    first, first_module = fake_distribution(
        tmp_path, {'acme/A': '{module}:A'},
        'from transmission_plugins import SimpleTransmission as A\n')
    other = tmp_path / 'other'
    other.mkdir()
    second, second_module = fake_distribution(
        other, {'acme/B': '{module}:B'}, 'raise RuntimeError("must not be imported")\n',
        name='acme_other')
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.syspath_prepend(str(other))
    plugins = find_transmission_plugins([first, second])
    try:
        assert load_transmission_class('acme/A', plugins=plugins) is SimpleTransmission
        assert first_module in sys.modules
        assert second_module not in sys.modules
    finally:
        sys.modules.pop(first_module, None)


def test_load_built_in_class():
    cls = load_transmission_class('transmission_interface/DifferentialTransmission')
    assert cls is DifferentialTransmission


def test_unknown_transmission_type_lists_the_known_ones():
    with pytest.raises(UnknownTransmissionTypeError) as e:
        load_transmission_class('hey5_transmissions/Hey5Reducer', where='hand_trans')
    message = str(e.value)
    assert message.startswith('hand_trans: cannot load transmission plugin '
                              "'hey5_transmissions/Hey5Reducer'")
    for name in BUILT_IN:
        assert name in message


def test_a_misspelt_type_gets_did_you_mean_and_its_line():
    # issue 34: a typo got the list of every known type, no suggestion and no line
    text = ('<robot name="r">\n<link name="a"/><link name="b"/>\n'
            '<joint name="j" type="revolute"><parent link="a"/><child link="b"/>'
            '<limit lower="-1" upper="1" effort="1" velocity="1"/></joint>\n'
            '<transmission name="t">\n'
            '  <type>transmission_interface/SimpleTransmision</type>\n'
            '  <joint name="j"><hardwareInterface>hardware_interface/EffortJointInterface'
            '</hardwareInterface></joint>\n'
            '  <actuator name="m"><mechanicalReduction>10</mechanicalReduction></actuator>\n'
            '</transmission></robot>')
    with pytest.raises(UnknownTransmissionTypeError) as e:
        load_robot_transmissions(text, warn=False)
    message = str(e.value)
    assert message.startswith("/robot[@name='r']/transmission[@name='t'] (line 4): cannot load "
                              "transmission plugin 'transmission_interface/SimpleTransmision'")
    assert "did you mean 'transmission_interface/SimpleTransmission'?" in message
    # a vendor package's name for a standard class: the registered ones of that class
    with pytest.raises(UnknownTransmissionTypeError) as e:
        load_transmission_class('acme_control/DifferentialTransmission')
    assert "did you mean 'transmission_interface/DifferentialTransmission'?" in str(e.value)
    with pytest.raises(UnknownTransmissionTypeError) as e:
        load_transmission_class('hey5_transmissions/Hey5Reducer')
    assert 'did you mean' not in str(e.value)


def test_bare_name_is_not_an_alias():
    # opt-in aliasing only: 'DifferentialTransmission' is not registered
    with pytest.raises(UnknownTransmissionTypeError):
        load_transmission_class('DifferentialTransmission')


def test_import_failure_is_chained(acme):
    dist, _ = acme
    with pytest.raises(TransmissionLoadError) as e:
        load_transmission_class('acme/Missing', plugins=find_transmission_plugins([dist]),
                                where='t')
    assert isinstance(e.value.__cause__, ModuleNotFoundError)
    assert e.value.original_exception is e.value.__cause__
    assert 'acme_no_such_module:Missing from acme_transmissions 1.2.0' in str(e.value)


def test_target_that_is_not_a_transmission(acme):
    dist, _ = acme
    with pytest.raises(TransmissionLoadError, match='not a Transmission subclass'):
        load_transmission_class('acme/NotATransmission',
                                plugins=find_transmission_plugins([dist]))


def test_plugin_without_from_info(acme):
    dist, _ = acme
    info = parse_transmissions(RACK_URDF.format(radius='0.02').replace(
        'RackAndPinionTransmission', 'NoFromInfo')).transmissions[0]
    with pytest.raises(TransmissionLoadError, match='no from_info'):
        build_transmission(info, find_transmission_plugins([dist]))


def test_same_name_with_two_targets_is_ambiguous(tmp_path):
    a, _ = fake_distribution(tmp_path, {'acme/X': '{module}:X'})
    other = tmp_path / 'other'
    other.mkdir()
    b, _ = fake_distribution(other, {'acme/X': '{module}:Y'}, name='acme_other')
    with pytest.raises(TransmissionLoadError, match='more than once'):
        load_transmission_class('acme/X', plugins=find_transmission_plugins([a, b]))


# ------------------------------------------------------------------------------ third party
def test_third_party_plugin_loads_from_a_urdf(acme):
    robot = load_robot_transmissions(RACK_URDF.format(radius='0.02'), warn=False)
    assert [w.path for w in robot.warnings] == ["/robot[@name='r']/joint[@name='slider']"]
    wiring = robot.transmissions[0].wiring
    assert type(wiring.transmission).__name__ == 'RackAndPinionTransmission'
    assert (wiring.joint_names, wiring.actuator_names) == (('slider',), ('motor',))
    out = wiring.transmission.actuator_to_joint({'position': [1.0]})
    np.testing.assert_allclose(out['position'], [0.02])


def test_third_party_plugin_rejects_what_it_does_not_read(acme):
    text = RACK_URDF.format(radius='0.02').replace('</transmission>',
                                                   '<gear>3</gear></transmission>')
    with pytest.raises(BadValueError, match="transmission\\[@name='rack'\\]/gear"):
        load_robot_transmissions(text)


def test_constructor_value_error_becomes_bad_value_error_with_path(acme):
    # radius 1e400 overflows to inf, so the plugin hands SimpleTransmission a zero reduction
    parsed = parse_transmissions(RACK_URDF.format(radius='1e400'))
    with pytest.raises(BadValueError) as e:
        build_transmission(parsed.transmissions[0])
    assert "/robot[@name='r']/transmission[@name='rack']" in str(e.value)
    assert 'cannot be zero' in str(e.value)


def test_plugin_warnings_are_recorded():
    parsed = parse_transmissions(
        '<robot name="r"><joint name="j"/><transmission name="t"><type>'
        'transmission_interface/SimpleTransmission</type><joint name="j"/><actuator name="m"/>'
        '</transmission></robot>', lenient=True)
    notes = []
    wiring = build_transmission(parsed.transmissions[0], record=notes)
    assert wiring.transmission.get_actuator_reduction() == 1.0
    assert len(notes) == 1 and 'default 1.0' in notes[0]
