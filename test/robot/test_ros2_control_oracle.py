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
ros2_control's own transmission_interface as the oracle: ``tx_probe`` against this package.

``tx_probe`` (``../shared/ros2_control``) parses a URDF's ``<ros2_control>`` blocks with
ros2_control's component parser, loads each transmission through its pluginlib loader (Simple,
Differential, FourBarLinkage) and converts the inputs of a spec file in both directions on every
interface the transmission supports.  One call per URDF, all cases in one spec: the project's
fixture, the corpus files with ``<ros2_control>`` transmissions, and random transmissions
(:func:`random_urdf`).  Every value both produce is equal to 1e-12 (relative beyond 1).

Differences by design are pinned (``doc/urdf.md`` states them):

* order: ros2_control takes the reductions and offsets of a 2x2 transmission in XML order and
  reads the roles without honouring them (ros-controls/ros2_control#3382), and it orders the
  handles by name (#1745); this package orders by role.  :func:`ros2_control_model` restates
  that, tx_probe must equal it everywhere, and this package must equal tx_probe exactly where
  roles, XML order and name order agree;
* interfaces ros2_control leaves unwritten (:data:`UNWRITTEN`);
* values ros2_control silently replaces (a non-numeric reduction or offset): an error in strict
  mode here, the same default in lenient mode, then equal; a zero reduction, which ros2_control
  refuses to load, is an error here;
* the implicit actuator of a ``type="actuator"`` block: ``actuator1`` there, named after the
  block here;
* elements ros2_control ignores (a Simple's actuator reduction, actuator offsets): errors here;
* descriptions ros2_control's parser rejects are rejected here too.
"""

import json
import subprocess

import numpy as np
import pytest
from tp_support import CORPUS
from tp_support import FIXTURE_DIR
from tp_support import ros2_control_env
from tp_support import ROS2_CONTROL_SKIP_REASON
from transmission_plugins import DifferentialTransmission
from transmission_plugins import FourBarLinkageTransmission
from transmission_plugins import SimpleTransmission
from transmission_plugins.core.exceptions import TransmissionError
from transmission_plugins.core.interfaces import INTERFACES
from transmission_plugins.plugins.build import build_transmission
from transmission_plugins.urdf.dialects import parse_transmissions
from transmission_plugins.urdf.elements import local_name

# ros2_control's tx_probe runs as a child process (test/stages.py)
pytestmark = pytest.mark.process

TOLERANCE = 1e-12
CLASSES = {'SimpleTransmission': SimpleTransmission,
           'DifferentialTransmission': DifferentialTransmission,
           'FourBarLinkageTransmission': FourBarLinkageTransmission}
#: (class, direction, interface) ros2_control does not convert (its output slot stays NaN)
UNWRITTEN = {('SimpleTransmission', 'joint_to_actuator', 'absolute_position'),
             ('DifferentialTransmission', 'joint_to_actuator', 'absolute_position')}
#: (file, lenient): the valid descriptions, compared value by value
VALID = [(FIXTURE_DIR / 'ros2_control_blocks.urdf', False),
         (CORPUS / 'tiago_humble.urdf', False),
         (CORPUS / 'ros2_control_demos_example8_rrbot.urdf', False),
         (CORPUS / 'fixtures' / 'ros2_control_test_assets_minimal_robot.urdf', False),
         *[(CORPUS / 'fixtures' / f'ros2_control_test_{k}_no_reduction_no_offset.urdf', False)
           for k in ('simple', 'differential', 'four_bar_linkage')],
         # ros2_control's silent defaults, which lenient mode applies too
         *[(CORPUS / 'malformed' / f'ros2_control_test_{k}_{what}.urdf', True)
           for k in ('simple', 'differential', 'four_bar_linkage')
           for what in ('mechanical_reduction_not_a_number', 'offset_ill_defined')]]
CASES = 4


@pytest.fixture(scope='module')
def env():
    found = ros2_control_env()
    if found is None:
        pytest.skip(ROS2_CONTROL_SKIP_REASON)
    return found


def _spec(infos, rng):
    """
    Return ``CASES`` cases with every interface of every joint and actuator of ``infos``.

    The implicit actuator of a ``type="actuator"`` block is ``actuator1`` for ros2_control.
    """
    cases = []
    for k in range(CASES):
        def values(names):
            return {n: {i: float(rng.uniform(-3.0, 3.0)) for i in INTERFACES} for n in names}
        actuators = values(sorted({a.name for t in infos for a in t.actuators}))
        for t in infos:
            if _implicit_actuator(t):
                actuators['actuator1'] = actuators[t.actuators[0].name]
        cases.append({'id': f'random{k}', 'actuator': actuators,
                      'joint': values(sorted({j.name for t in infos for j in t.joints}))})
    return {'cases': cases}


def tx_probe(env, path, spec):
    """Run ``tx_probe`` once on ``path`` with ``spec``; return its JSON."""
    result = subprocess.run(['tx_probe', str(path), '--spec', '-', '--compact'], env=env,
                            input=json.dumps(spec), capture_output=True, text=True, timeout=60)
    assert result.returncode in (0, 2), result.stderr
    return json.loads(result.stdout)


def ros2_control_model(probed):
    """
    Return ros2_control's map of a loaded transmission, restated with this package's classes.

    The numbers in XML order (what the loaders read), the handles in name order (``get_names``
    collects them in a ``std::set``): ``(transmission, joint names, actuator names)``.
    """
    cls = CLASSES[probed['type'].rsplit('/', 1)[-1]]
    joints, actuators = probed['joints'], probed['actuators']
    if cls is SimpleTransmission:   # the joint's numbers only
        model = cls(joints[0]['mechanical_reduction'], joints[0]['offset'])
    else:
        model = cls([a['mechanical_reduction'] for a in actuators],
                    [j['mechanical_reduction'] for j in joints], [j['offset'] for j in joints])
    return (model, sorted(j['name'] for j in joints), sorted(a['name'] for a in actuators))


def _convert(transmission, joint_names, actuator_names, direction, inputs):
    """Convert ``inputs`` (name to interface values) with ``transmission``; name-keyed out."""
    to_joint = direction == 'actuator_to_joint'
    names_in, names_out = (actuator_names, joint_names) if to_joint else (joint_names,
                                                                          actuator_names)
    given = next(iter(inputs.values()))
    values = {i: np.array([inputs[n][i] for n in names_in]) for i in INTERFACES if i in given}
    out = getattr(transmission, direction)(values)
    return {n: {i: float(out[i][k]) for i in out} for k, n in enumerate(names_out)}


def _close(a, b):
    return abs(a - b) <= TOLERANCE * max(1.0, abs(b))


def compare(probed, transmission, joint_names, actuator_names, rename=None):
    """
    Compare tx_probe's outputs with ``transmission``'s; return the values compared.

    :param rename: tx_probe's name to this package's, where they differ (the implicit actuator
        of a ``type="actuator"`` block: ``actuator1`` there, named after the block here)

    :raises AssertionError: a value differs, or ros2_control leaves unwritten what
        :data:`UNWRITTEN` does not list
    """
    kind = probed['type'].rsplit('/', 1)[-1]
    compared = 0
    for case in probed['cases']:
        for direction in ('actuator_to_joint', 'joint_to_actuator'):
            result = case[direction]
            assert result['error'] is None, (probed['name'], result['error'])
            (side, inputs), = result['input'].items()
            rename = rename or {}
            inputs = {rename.get(n, n): v for n, v in inputs.items()}
            ours = _convert(transmission, joint_names, actuator_names, direction, inputs)
            for name, values in result['output'][
                    'joint' if side == 'actuator' else 'actuator'].items():
                name = rename.get(name, name)
                for interface, value in values.items():
                    if value is None:
                        assert (kind, direction, interface) in UNWRITTEN, (
                            probed['name'], direction, interface)
                        continue
                    assert _close(ours[name][interface], value), (
                        probed['name'], case['id'], direction, name, interface,
                        ours[name][interface], value)
                    compared += 1
    return compared


def _ordered(probed):
    """Tell whether roles, XML order and name order agree (then ros2_control honours roles)."""
    if len(probed['joints']) == 1:
        return True
    for side, prefix in (('joints', 'joint'), ('actuators', 'actuator')):
        names = [e['name'] for e in probed[side]]
        roles = [e['role'] for e in probed[side]]
        if names != sorted(names) or roles != [f'{prefix}{k + 1}' for k in range(len(roles))]:
            return False
    return True


def check_file(env, path, lenient, rng):
    """Compare every transmission of ``path``; return (transmissions, values compared)."""
    infos = [t for t in parse_transmissions(path.read_text(), lenient=lenient,
                                            source='ros2_control').transmissions
             if t.type.rsplit('/', 1)[-1] in CLASSES]
    probe = tx_probe(env, path, _spec(infos, rng))
    probed = {t['name']: t for t in probe['transmissions'] if t['loaded']}
    assert set(probed) == {t.name for t in infos}, path
    counted = 0
    for info in infos:
        wiring = build_transmission(info, record=[])
        tx = probed[info.name]
        rename = {}
        if _implicit_actuator(info):   # pinned: named after the block here
            rename = {tx['actuators'][0]['name']: wiring.actuator_names[0]}
        model, joints, actuators = ros2_control_model(tx)
        counted += compare(tx, model, joints, [rename.get(a, a) for a in actuators], rename)
        if _ordered(tx):
            counted += compare(tx, wiring.transmission, wiring.joint_names,
                               wiring.actuator_names, rename)
        else:   # pinned: roles honoured here, XML and name order there
            with pytest.raises(AssertionError):
                compare(tx, wiring.transmission, wiring.joint_names, wiring.actuator_names)
    return len(infos), counted


def _implicit_actuator(info):
    return not any(local_name(c) == 'actuator' for c in info.element)


@pytest.mark.parametrize('path, lenient', VALID, ids=[p.name for p, _ in VALID])
def test_the_descriptions(env, path, lenient):
    if not path.is_file():
        pytest.skip(f'{path} not found (../shared/urdf_corpus)')
    transmissions, compared = check_file(env, path, lenient, np.random.default_rng(1234))
    assert transmissions >= 1 and compared > 0
    if lenient:   # ros2_control's silent default is an error in strict mode here
        with pytest.raises(TransmissionError, match='expected a number'):
            parse_transmissions(path.read_text(), source='ros2_control')


def random_urdf(rng, count):
    """
    Return a URDF with ``count`` random transmissions of each kind inside one block.

    The 2x2 ones come in two forms: roles, XML order and name order agreeing (``*_in_order``),
    and joints and actuators listed opposite to their roles (``*_reversed``).
    """
    def number(low, high):
        return float(rng.choice([-1.0, 1.0]) * rng.uniform(low, high))

    joints, elements = [], []
    for kind in CLASSES:
        for k in range(count):
            name = f'{kind[:4].lower()}{k:02d}'
            n = 1 if kind == 'SimpleTransmission' else 2
            orders = [('in_order', range(n))] if n == 1 else [('in_order', range(n)),
                                                              ('reversed', range(n - 1, -1, -1))]
            for form, order in orders:
                prefix = f'{name}_{form}'
                ends = []
                for i in order:
                    joints.append(f'{prefix}_j{i + 1}')
                    ends.append(f'<actuator name="{prefix}_a{i + 1}" role="actuator{i + 1}">'
                                + ('' if n == 1 else
                                   f'<mechanical_reduction>{number(0.1, 100)!r}'
                                   '</mechanical_reduction>') + '</actuator>')
                for i in order:
                    ends.append(f'<joint name="{prefix}_j{i + 1}" role="joint{i + 1}">'
                                f'<mechanical_reduction>{number(0.1, 100)!r}'
                                f'</mechanical_reduction><offset>{rng.uniform(-1, 1)!r}'
                                '</offset></joint>')
                elements.append(f'<transmission name="{prefix}"><plugin>transmission_interface/'
                                f'{kind}</plugin>{"".join(ends)}</transmission>')
    links = ''.join(f'<link name="l{i}"/>' for i in range(len(joints) + 1))
    urdf_joints = ''.join(f'<joint name="{j}" type="continuous"><parent link="l{i}"/>'
                          f'<child link="l{i + 1}"/></joint>' for i, j in enumerate(joints))
    block_joints = ''.join(f'<joint name="{j}"/>' for j in joints)
    return (f'<robot name="random">{links}{urdf_joints}<ros2_control name="random" '
            'type="system"><hardware><plugin>mock_components/GenericSystem</plugin></hardware>'
            f'{block_joints}{"".join(elements)}</ros2_control></robot>')


def test_random_transmissions(env, tmp_path):
    rng = np.random.default_rng(20260)
    path = tmp_path / 'random.urdf'
    path.write_text(random_urdf(rng, 10))
    transmissions, compared = check_file(env, path, False, rng)
    assert transmissions == 50   # 10 Simple, 20 Differential, 20 FourBarLinkage
    assert compared > 2000


def test_zero_reduction_is_refused_by_both(env):
    """ros2_control's loaders return null (nothing loaded); this package raises."""
    for k in ('simple', 'differential', 'four_bar_linkage'):
        path = CORPUS / 'malformed' / f'ros2_control_test_{k}_mech_red_invalid_value.urdf'
        if not path.is_file():
            pytest.skip(f'{path} not found (../shared/urdf_corpus)')
        probe = tx_probe(env, path, {'cases': []})
        assert [t['loaded'] for t in probe['transmissions']] == [False]
        with pytest.raises(TransmissionError, match='zero|non-zero'):
            for info in parse_transmissions(path.read_text(), source='ros2_control').transmissions:
                build_transmission(info, record=[])


def test_descriptions_the_parser_rejects(env):
    for name in ('simple_transmission_too_many_joints', 'transmission_joint_mismatch'):
        path = CORPUS / 'malformed' / f'ros2_control_test_assets_{name}.urdf'
        if not path.is_file():
            pytest.skip(f'{path} not found (../shared/urdf_corpus)')
        assert 'parse_control_resources_from_urdf' in tx_probe(env, path, {'cases': []})['error']
        with pytest.raises(TransmissionError):
            parse_transmissions(path.read_text(), source='ros2_control')


IGNORED = """<robot name="ignored"><link name="a"/><link name="b"/>
<joint name="j1" type="continuous"><parent link="a"/><child link="b"/></joint>
<ros2_control name="s" type="system"><hardware><plugin>mock_components/GenericSystem</plugin>
</hardware><joint name="j1"/><transmission name="t"><plugin>transmission_interface/{kind}
</plugin><actuator name="m1" role="actuator1">{actuator}</actuator><joint name="j1"
role="joint1"><mechanical_reduction>4</mechanical_reduction></joint></transmission>
</ros2_control></robot>"""


@pytest.mark.parametrize('actuator', ['<mechanical_reduction>3</mechanical_reduction>',
                                      '<offset>0.5</offset>'])
def test_elements_ros2_control_ignores_are_errors_here(env, tmp_path, actuator):
    path = tmp_path / 'ignored.urdf'
    path.write_text(IGNORED.format(kind='SimpleTransmission', actuator=actuator))
    probed, = tx_probe(env, path, {'cases': []})['transmissions']
    # the joint's reduction only, no offset: the actuator element is ignored
    assert probed['loaded'] and probed['introspection']['actuator_reduction'] == [4.0]
    assert probed['introspection']['joint_offset'] == [0.0]
    with pytest.raises(TransmissionError, match='actuator'):
        for info in parse_transmissions(path.read_text(), source='ros2_control').transmissions:
            build_transmission(info, record=[])
