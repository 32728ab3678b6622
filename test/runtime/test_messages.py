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

"""The message validation every node shares: one order of checks, linear in the message size."""

import math

import numpy as np
import pytest

from transmission_plugins.runtime.messages import DropCounts
from transmission_plugins.runtime.messages import InputRejected
from transmission_plugins.runtime.messages import NameIndex
from transmission_plugins.runtime.messages import read_message

NAMES = ['a', 'b', 'c']


@pytest.mark.parametrize('names, position, velocity, reason', [
    ([], [1.0], [], 'length_mismatch'),           # values but no names: the values are wrong
    ([], [], [], 'empty'),
    (['a'], [], [], 'empty'),
    (['a', 'b'], [1.0], [], 'length_mismatch'),
    (['a'], ['x'], [], 'bad_type'),
    (['a'], 5, [], 'bad_type'),
    (['a'], [math.nan], [], 'non_finite'),
    (['a'], [1.0], [math.inf], 'non_finite'),     # every field is checked, not only the first
    (['a', 'a'], [1.0, 2.0], [], 'duplicate_names'),
    (['a', 'z'], [1.0, 2.0], [], 'unknown_names'),
])
def test_each_bad_message_has_one_reason(names, position, velocity, reason):
    with pytest.raises(InputRejected) as e:
        read_message(NameIndex(NAMES, 'actuator'), names, position, velocity, [])
    assert e.value.reason == reason


def test_a_good_message_gives_indices_and_fields():
    idx, values = read_message(NameIndex(NAMES, 'actuator'), ['c', 'a'], [1.0, 2.0], [], [3, 4])
    assert idx.tolist() == [2, 0] and sorted(values) == ['effort', 'position']
    assert values['effort'].dtype == np.float64


def test_duplicates_in_a_huge_message_are_found_and_the_message_stays_short():
    names = [f'n{i}' for i in range(30_000)] + ['n7', 'n9']
    index = NameIndex(names[:30_000], 'joint')
    with pytest.raises(InputRejected) as e:
        index.lookup(names)
    assert e.value.reason == 'duplicate_names'
    assert "['n7', 'n9']" in str(e.value) and len(str(e.value)) < 200


def test_the_cached_name_list_is_checked_again_after_forget():
    index = NameIndex(NAMES, 'actuator')
    first = index.lookup(['b'])
    assert index.lookup(['b']) is first       # cached
    index.forget()
    assert index.lookup(['b']) is not first and index.lookup(['b']).tolist() == [1]


def test_drop_counts_per_topic_and_reason():
    drops = DropCounts()
    drops.count('states', 'empty')
    drops.count('states', 'empty')
    drops.count('commands', 'non_finite')
    assert drops == {'states': {'empty': 2}, 'commands': {'non_finite': 1}}
    assert drops.total() == 3
