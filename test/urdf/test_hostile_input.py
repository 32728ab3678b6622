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
The loader under hostile input (issue 15, findings 5 and 6): only ``TransmissionError``s.

Each test failed before its fix: PR2 gripper coefficients whose linkage constants overflow
(``OverflowError``, ``ZeroDivisionError``), a lone surrogate (``UnicodeEncodeError``), an
unbounded file (``MemoryError`` on ``/dev/zero``) and a wrist reduction that gave NaN limits.
"""

import math
import os
import re

import numpy as np
import pytest

from transmission_plugins import BadValueError
from transmission_plugins import load_robot_transmissions
from transmission_plugins import TransmissionError
from transmission_plugins import TransmissionFileError
from transmission_plugins.urdf import text as urdf_text
from transmission_plugins.urdf.text import read_urdf_text

#: The PR2 gripper coefficients of pr2_description (r_gripper_trans).
GAP = {'screw_reduction': '0.004', 'gear_ratio': '40.095', 'theta0': '0.0628824676201037',
       'phi0': '0.5185181221457433', 't0': '-0.0001914', 'L0': '0.0375528', 'h': '0.0',
       'a': '0.0683698', 'b': '0.0433849', 'r': '0.0915', 'mechanical_reduction': '1.0'}


def _joint(name, kind='revolute', parent='base', limit='lower="-1" upper="1" effort="10" '
           'velocity="2"'):
    return (f'<link name="{name}_link"/><joint name="{name}" type="{kind}">'
            f'<parent link="{parent}"/><child link="{name}_link"/><limit {limit}/></joint>')


def robot_urdf(gap=None, wrist=('60.17', '60.17', '-1.0', '1.0'), diff='<mechanicalReduction>'
               '5</mechanicalReduction>'):
    """Return a robot with a PR2 gripper, a PR2 wrist and a differential transmission."""
    attrs = ' '.join(f'{k}="{v}"' for k, v in dict(GAP, **(gap or {})).items())
    gripper_limit = 'lower="0" upper="0.09" effort="1000" velocity="0.2"'
    fingers = ''.join(_joint(f'finger{i}', limit='lower="0" upper="0.55" effort="10" '
                             'velocity="0.5"') for i in range(2))
    return (
        '<robot name="hostile"><link name="base"/>'
        + _joint('gap', 'prismatic', limit=gripper_limit) + fingers
        + _joint('flex', limit='lower="-2.18" upper="0.0" effort="10" velocity="3"')
        + _joint('roll', 'continuous', limit='effort="10" velocity="2"')
        + _joint('d1') + _joint('d2')
        + '<transmission name="gripper_trans" type="pr2_mechanism_model/PR2GripperTransmission">'
        f'<actuator name="gripper_motor"/><gap_joint name="gap" {attrs}/>'
        '<passive_joint name="finger0"/><passive_joint name="finger1"/></transmission>'
        '<transmission name="wrist_trans" type="pr2_mechanism_model/WristTransmission">'
        f'<rightActuator name="wrist_r_motor" mechanicalReduction="{wrist[0]}"/>'
        f'<leftActuator name="wrist_l_motor" mechanicalReduction="{wrist[1]}"/>'
        f'<flexJoint name="flex" mechanicalReduction="{wrist[2]}"/>'
        f'<rollJoint name="roll" mechanicalReduction="{wrist[3]}"/></transmission>'
        '<transmission name="diff_trans"><type>transmission_interface/DifferentialTransmission'
        '</type><joint name="d1"><role>joint1</role></joint><joint name="d2"><role>joint2'
        f'</role></joint><actuator name="m1"><role>actuator1</role>{diff}</actuator>'
        f'<actuator name="m2"><role>actuator2</role>{diff}</actuator></transmission></robot>')


def _limits(robot):
    return {'actuator_lower': robot.actuator_lower, 'actuator_upper': robot.actuator_upper,
            'actuator_velocity_limit': robot.actuator_velocity_limit,
            'actuator_effort_limit': robot.actuator_effort_limit,
            'joint_effort_limit_from_actuators': robot.joint_effort_limit_from_actuators}


def _load_or_transmission_error(text):
    """Load ``text``; return the robot, or None after a TransmissionError (nothing else)."""
    try:
        return load_robot_transmissions(text, warn=False)
    except TransmissionError:
        return None


def test_the_reference_robot_loads():
    robot = load_robot_transmissions(robot_urdf(), warn=False)
    assert len(robot.transmissions) == 3
    for name, values in _limits(robot).items():
        assert not np.isnan(values).any(), name


# the findings of the issue: the linkage constants a^2 + b^2 - h^2, s/g, -L0 g/s, ... overflow
@pytest.mark.parametrize('coefficient, value', [
    ('a', '1e308'), ('a', '1e300'), ('b', '1e308'), ('b', '1e300'), ('h', '1e308'),
    ('h', '1e300'), ('screw_reduction', '1e308'), ('screw_reduction', '-1e308'),
    ('screw_reduction', '5e-324'), ('screw_reduction', '1e300'), ('gear_ratio', '1e-308'),
    ('gear_ratio', '-1e-308'), ('gear_ratio', '5e-324'), ('gear_ratio', '1e-300'),
    ('gear_ratio', '1e-160'),
])
def test_gripper_coefficients_whose_linkage_overflows_are_bad_values(coefficient, value):
    with pytest.raises(BadValueError) as info:
        load_robot_transmissions(robot_urdf({coefficient: value}), warn=False)
    text = str(info.value)
    assert "transmission[@name='gripper_trans']/gap_joint[@name='gap']" in text
    assert f'/@{coefficient}' in text or re.search(r'/@\w+', text)
    assert value in text or repr(float(value)) in text, text


ODD = ('1e308', '-1e308', '1e-308', '5e-324', '1e300', '1e-300', '1e200', '1e-160', '1e154',
       '-0', '1e8', '-1e8')


@pytest.mark.parametrize('coefficient', sorted(GAP))
def test_every_odd_gripper_coefficient_loads_or_raises_a_transmission_error(coefficient):
    """Each coefficient over odd magnitudes: a TransmissionError, or a robot without NaN limits."""
    for value in ODD:
        robot = _load_or_transmission_error(robot_urdf({coefficient: value}))
        if robot is not None:
            for name, values in _limits(robot).items():
                assert not np.isnan(values).any(), (coefficient, value, name)


@pytest.mark.parametrize('index', range(4))
def test_odd_wrist_reductions_never_give_nan_limits(index):
    """A flex reduction of 1e308 gave NaN actuator position limits (inf - inf)."""
    for value in ODD:
        wrist = ['60.17', '60.17', '-1.0', '1.0']
        wrist[index] = value
        robot = _load_or_transmission_error(robot_urdf(wrist=tuple(wrist)))
        if robot is not None:
            for name, values in _limits(robot).items():
                assert not np.isnan(values).any(), (index, value, name)


def test_a_huge_wrist_reduction_leaves_the_actuator_range_unbounded():
    robot = load_robot_transmissions(robot_urdf(wrist=('60.17', '60.17', '1e308', '1.0')),
                                     warn=False)
    wrist = [robot.actuator_names.index(n) for n in ('wrist_r_motor', 'wrist_l_motor')]
    assert np.all(robot.actuator_lower[wrist] == -math.inf)
    assert np.all(robot.actuator_upper[wrist] == math.inf)


@pytest.mark.parametrize('where', ['gripper', 'wrist', 'differential'])
@pytest.mark.parametrize('number', ['1_000', '\u0663', '\uff15', '0x10', '1,5', ' 1e', 'nan'])
def test_numbers_follow_the_urdf_grammar_in_every_transmission(where, number):
    """Python's float() accepts '1_000', Arabic-Indic and full-width digits; URDF does not."""
    text = {'gripper': lambda: robot_urdf({'gear_ratio': number}),
            'wrist': lambda: robot_urdf(wrist=('60.17', number, '-1.0', '1.0')),
            'differential': lambda: robot_urdf(diff=f'<mechanicalReduction>{number}'
                                                    '</mechanicalReduction>')}[where]()
    with pytest.raises(BadValueError) as info:
        load_robot_transmissions(text, warn=False)
    assert repr(number.strip(' ')) in str(info.value) or 'finite' in str(info.value)


def test_a_lone_surrogate_is_a_bad_value():
    text = robot_urdf().replace('<robot name="hostile">', '<robot name="host\udcfftile">')
    with pytest.raises(BadValueError, match='surrogate|UTF-8') as info:
        load_robot_transmissions(text, warn=False)
    assert 'offset' in str(info.value)


def test_a_lone_surrogate_in_a_comment_is_a_bad_value_too():
    text = robot_urdf().replace('<link name="base"/>', '<!-- \ud800 --><link name="base"/>')
    with pytest.raises(BadValueError):
        read_urdf_text(text) and load_robot_transmissions(text, warn=False)


@pytest.mark.skipif(not os.path.exists('/dev/zero'), reason='no /dev/zero on this system')
def test_dev_zero_is_refused_as_a_device_not_by_memory_error():
    # issue 34 (G-10): refused as a device, before reading it (it was: after 64 MiB of zeros)
    with pytest.raises(TransmissionFileError, match='it is a character device, not a regular '
                                                    'file') as info:
        load_robot_transmissions('/dev/zero', warn=False)
    assert '/dev/zero' in str(info.value)


def test_files_text_and_bytes_above_the_size_bound_are_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(urdf_text, 'MAX_URDF_BYTES', 1000)
    text = robot_urdf()
    assert len(text) > 1000
    path = tmp_path / 'big.urdf'
    path.write_text(text)
    for given in (str(path), path, text, text.encode()):
        with pytest.raises(TransmissionFileError, match='larger than 1000 bytes'):
            read_urdf_text(given)
    xacro = tmp_path / 'big.urdf.xacro'
    xacro.write_text(text)
    with pytest.raises(TransmissionFileError, match='larger than 1000 bytes'):
        read_urdf_text(xacro)
    small = tmp_path / 'small.urdf'
    small.write_text('<robot name="r"/>')
    assert read_urdf_text(small) == '<robot name="r"/>'


def test_a_description_without_transmissions_says_so():
    robot = load_robot_transmissions('<robot name="empty"><link name="a"/></robot>', warn=False)
    assert robot.joint_names == [] and robot.transmissions == []
