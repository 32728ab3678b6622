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
String parameters are bounded (issue 23, item 10), without ROS.

On e6277b7 a string parameter took any length: a ``frame_id`` of 5 MB was accepted and copied
into every ``joint_states`` message, which cut the output rate from 100 Hz to 26-65 Hz.
"""

import pytest
from transmission_plugins.runtime.settings import Declaration
from transmission_plugins.runtime.settings import InvalidParameters
from transmission_plugins.runtime.settings import Setting

FIVE_MB = 5_000_000


def test_a_5_mb_frame_id_is_refused_saying_how_long_it_may_be():
    frame_id = Setting('frame_id', '', 'header.frame_id')
    assert frame_id.check('x' * FIVE_MB) == (
        'frame_id must be at most 256 characters long, got 5000000')
    assert frame_id.check('x' * 257) == 'frame_id must be at most 256 characters long, got 257'
    for accepted in ('', 'base_link', 'x' * 256):
        assert frame_id.check(accepted) is None


def test_a_string_parameter_s_own_bound_and_string_arrays_are_checked_too():
    calibration_file = Setting('calibration_file', '', 'file', max_length=4096)
    assert calibration_file.check('x' * 4096) is None
    assert calibration_file.check('x' * FIVE_MB) == (
        'calibration_file must be at most 4096 characters long, got 5000000')
    joints = Setting('joints', [], 'joint order')
    assert joints.check(['a', 'x' * FIVE_MB]) == (
        'joints must hold strings of at most 256 characters, got 5000000')
    assert joints.check(['a', 'x' * 256]) is None


def test_configure_refuses_an_over_long_string_with_the_others_reasons():
    declaration = Declaration('n', [Setting('frame_id', '', 'header.frame_id'),
                                    Setting('rate', 100.0, 'Hz', low=1.0)])
    with pytest.raises(InvalidParameters) as error:
        declaration.require_valid({'frame_id': 'x' * FIVE_MB, 'rate': 0.5})
    message = str(error.value)
    assert 'frame_id must be at most 256 characters long, got 5000000' in message
    assert 'rate must be in [1, inf], got 0.5' in message
    assert len(message) < 200   # the refused value itself is never echoed back
