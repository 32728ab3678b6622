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
Every string parameter of the three nodes is bounded (issue 23, item 10), from their tables.

The tables are what the nodes check a value against when it is set and at configure; no node
is started here.  On e6277b7 no string parameter had a bound: a 5 MB ``frame_id`` was taken.
"""

import pytest
from transmission_plugins.runtime.node_settings import DECLARATIONS

pytestmark = pytest.mark.ros

FIVE_MB = 5_000_000
TABLES = DECLARATIONS


def _strings(table):
    """Yield ``(name, is_array, max_length)`` of the string and string-array parameters."""
    for name, setting in sorted(table.items()):
        if setting.kind in ('string', 'string[]'):
            yield name, setting.kind == 'string[]', setting.max_length


@pytest.mark.parametrize('node', sorted(TABLES))
def test_every_string_parameter_refuses_an_over_long_value_saying_why(node):
    table = TABLES[node]
    strings = list(_strings(table))
    assert 'frame_id' in [name for name, _, _ in strings] or node == 'mock_actuators'
    for name, is_array, bound in strings:
        if name != 'robot_description':   # the loader's own bound (64 MiB)
            assert bound <= 4096, name
        lengths = {bound + 1} | ({FIVE_MB} if bound < FIVE_MB else set())
        for length in sorted(lengths):
            text = 'x' * length
            [reason] = table.reasons({name: [text] if is_array else text})
            assert reason.startswith(f'{name} must ') and f'at most {bound} characters' in reason
            assert reason.endswith(f'got {length}')
        at_bound = 'x' * min(bound, FIVE_MB)
        reasons = table.reasons({name: [at_bound] if is_array else at_bound})
        assert not any('characters' in r for r in reasons), reasons
