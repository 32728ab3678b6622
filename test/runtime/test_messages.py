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
    known = [f'n{i}' for i in range(30_002)]
    index = NameIndex(known, 'joint')
    with pytest.raises(InputRejected) as e:
        index.lookup(known[:29_998] + ['n7', 'n9'])
    assert e.value.reason == 'duplicate_names'
    assert "['n7', 'n9']" in str(e.value) and len(str(e.value)) < 200


class CountingNames(list):
    """A name list that counts how many elements are read (iteration and indexing)."""

    reads = 0

    def __iter__(self):
        for x in super().__iter__():
            CountingNames.reads += 1
            yield x

    def __getitem__(self, i):
        CountingNames.reads += 1
        return super().__getitem__(i)


def test_more_names_than_known_are_refused_without_reading_them():
    """30,000 names (duplicates included) used to stall the node for seconds."""
    CountingNames.reads = 0
    names = CountingNames(['a', 'b'] * 15_000)
    index = NameIndex(NAMES, 'actuator')
    for check in (index.lookup, lambda n: read_message(index, n, [0.0] * len(n), [], [])):
        with pytest.raises(InputRejected) as e:
            check(names)
        assert e.value.reason == 'too_large'
        assert '30000 names, more than the 3 actuators' in str(e.value)
    assert CountingNames.reads == 0


class CountingName(str):
    """A name that counts the hashes and comparisons made with it."""

    operations = 0

    def __hash__(self):
        CountingName.operations += 1
        return super().__hash__()

    def __eq__(self, other):
        CountingName.operations += 1
        return super().__eq__(other)


@pytest.mark.parametrize('size', [100, 1_000, 10_000])
def test_name_checks_are_linear_in_the_message_size(size):
    """Hashes and comparisons per name stay bounded: duplicate detection is not quadratic."""
    known = [f'n{i}' for i in range(size)]
    index = NameIndex(known, 'joint')
    for message in (known[:-1] + [known[0]], known[:-1] + ['ghost'], known[::-1]):
        CountingName.operations = 0
        try:
            index.lookup([CountingName(n) for n in message])
        except InputRejected:
            pass
        assert CountingName.operations <= 8 * size, CountingName.operations
    index.forget()


def test_an_unknown_names_drop_lists_the_names_expected():
    # issue 34: a driver naming its motors differently saw only its own names in the drop line
    with pytest.raises(InputRejected) as e:
        NameIndex(NAMES, 'actuator').lookup(['a', 'motor_z'])
    assert e.value.detail == "unknown actuator names ['motor_z']; expected: ['a', 'b', 'c']"
    many = [f'motor_{k}' for k in range(30)]
    with pytest.raises(InputRejected) as e:
        NameIndex(many, 'joint').select(['x'])
    assert e.value.detail.endswith("expected: ['motor_0', 'motor_1', 'motor_2', 'motor_3', "
                                   "'motor_4', 'motor_5', 'motor_6', 'motor_7', 'motor_8', "
                                   "'motor_9'] and 20 more")


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


def test_drop_reports_summarise_each_topic_once_and_then_forget():
    drops = DropCounts()
    for reason in ('empty', 'too_large', 'too_large'):
        drops.reject('states', InputRejected(reason, 'detail'))
    drops.reject('commands', InputRejected('non_finite', 'position contains NaN'))
    lines = drops.report()
    assert lines == [
        'dropped 1 message on commands since the last report (last: non_finite: position '
        'contains NaN); 1 in all',
        'dropped 3 messages on states since the last report (last: too_large: detail); 3 in all']
    assert drops.report() == []
    drops.reject('states', InputRejected('empty', 'no names'))
    assert drops.report() == ['dropped 1 message on states since the last report (last: empty: '
                              'no names); 4 in all']
    assert drops == {'states': {'empty': 2, 'too_large': 2}, 'commands': {'non_finite': 1}}


def test_a_refused_list_is_refused_again_without_checking_its_names():
    index = NameIndex(NAMES, 'actuator')
    bad = [CountingName('a'), CountingName('z')]
    for _ in range(2):
        with pytest.raises(InputRejected) as e:
            index.lookup(bad)
        assert e.value.reason == 'unknown_names' and "['z']" in str(e.value)
    CountingName.operations = 0
    for _ in range(100):
        with pytest.raises(InputRejected):
            index.lookup(bad)
    assert CountingName.operations <= 2 * 100 * 2   # one list comparison per message
    with pytest.raises(InputRejected) as e:
        index.lookup(['a', 'a'])
    assert e.value.reason == 'duplicate_names'
    assert index.lookup(['a', 'c']).tolist() == [0, 2]
