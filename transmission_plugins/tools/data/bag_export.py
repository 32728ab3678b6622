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
A JointState topic of a bag as CSV (optionally converted), and as arrays for plots.

The columns (doc/bags.md) are found by a first pass over the topic; a topic of more than
:data:`MAX_COLUMNS` columns is refused there (a spreadsheet's limit).  Rows are written at most
``window`` messages and :data:`MAX_CELLS` cells at a time, so memory does not grow with the bag.
"""

from typing import Any
from typing import BinaryIO
from typing import Callable
from typing import Iterator
from typing import NamedTuple

import numpy as np

from transmission_plugins.core.exceptions import TransmissionInputError
from transmission_plugins.runtime.messages import FIELDS
from transmission_plugins.tools.data.bag_convert import BagConvertStats
from transmission_plugins.tools.data.bag_convert import format_time
from transmission_plugins.tools.data.bag_convert import MessageCounts
from transmission_plugins.tools.data.bag_io import BagReader
from transmission_plugins.tools.data.bag_io import BagTopicError
from transmission_plugins.tools.data.csv_io import CsvWriter
from transmission_plugins.tools.data.joint_state_batch import Converted
from transmission_plugins.tools.data.joint_state_batch import JointStateBatchConverter
from transmission_plugins.tools.data.joint_state_batch import Rejected
from transmission_plugins.tools.data.joint_state_messages import decode_each
from transmission_plugins.tools.data.joint_state_messages import fields

#: The most value columns an export writes (the column limit of common spreadsheets).
MAX_COLUMNS = 16384
#: The most cells converted and written at a time.
MAX_CELLS = 1 << 20

#: One message: receive time, header stamp (ns), the decoded message (or why not), the conversion
#: or the rejection.
Row = tuple[int, int, Any, Converted | Rejected]


class TooManyColumnsError(TransmissionInputError):
    """The topic carries more distinct names than a CSV table can hold (:data:`MAX_COLUMNS`)."""


class Columns(NamedTuple):
    """The value columns of an export: names, interfaces, CSV header."""

    names: list[str]
    fields: list[str]
    header: list[str]


def single_topic(reader: BagReader, topic: str) -> Any:
    """
    Return the one connection ``topic`` matches.

    :raises BagTopicError: none, or several (namespaces): the message lists them
    """
    found = reader.match(topic)
    if len({c.topic for c in found}) > 1:
        raise BagTopicError(f'{reader.path}: {topic!r} matches several topics '
                            f'{sorted({c.topic for c in found})}; give the full name')
    return found


def read_rows(reader: BagReader, connections: list[Any],
              converter: JointStateBatchConverter | None, window: int = 1000,
              progress: Callable[[int], None] | None = None) -> Iterator[list[Row]]:
    """Yield the topic's messages ``window`` at a time, decoded and (optionally) converted."""
    batch: list[tuple[int, Any]] = []

    def flush() -> list[Row]:
        decoded = decode_each([raw for _, raw in batch])
        good = [m for m in decoded if not isinstance(m, Rejected)]
        if converter is not None:
            results = iter(converter.convert([fields(m) for m in good]))
        else:
            results = iter(_as_is(m) for m in good)
        rows: list[Row] = [(t, 0, m, m) if isinstance(m, Rejected)
                           else (t, m.stamp, m, next(results))
                           for (t, _), m in zip(batch, decoded)]
        if progress is not None:
            progress(len(batch))
        return rows

    for _, timestamp, raw in reader.messages(connections):
        batch.append((timestamp, raw))
        if len(batch) >= window:
            yield flush()
            batch = []
    if batch:
        yield flush()


def _as_is(msg: Any) -> Converted | Rejected:
    """Return a decoded message unconverted, or rejected for its lengths."""
    names, *values = fields(msg)
    n = len(names)
    for field, v in zip(FIELDS, values):
        if len(v) not in (0, n):
            return Rejected('length_mismatch', f'{n} names but {len(v)} {field} values')
    if len(set(names)) != n:
        return Rejected('duplicate_names', 'a name appears twice')
    arrays = [v if len(v) else None for v in values]
    return Converted(list(names), arrays[0], arrays[1], arrays[2])


def columns(batches: Iterator[list[Row]], converter: JointStateBatchConverter | None,
            where: str) -> Columns:
    """
    Return the columns of the export (the first pass over the topic).

    :param where: the bag and topic, for the error message
    :raises TooManyColumnsError: more than :data:`MAX_COLUMNS` columns (raised as soon as seen)
    """
    names: dict[str, None] = {}
    used: set[str] = set()
    for rows in batches:
        for *_, r in rows:
            if isinstance(r, Converted):
                names.update(dict.fromkeys(r.names))
                used.update(f for f in FIELDS if getattr(r, f) is not None)
        if len(names) * max(1, len(used)) > MAX_COLUMNS:
            raise TooManyColumnsError(
                f'{where}: the topic carries {len(names)} or more distinct names, more than '
                f'{MAX_COLUMNS} columns with {len(used)} interface(s): too many for a CSV table '
                '(export a topic of fewer names)')
    ordered = list(names)
    if converter is not None:
        rank = {n: k for k, n in enumerate(converter.dst_names)}
        ordered.sort(key=rank.__getitem__)
    kept = [f for f in FIELDS if f in used]
    header = ['time', 'stamp'] + [f'{n}/{f}' for f in kept for n in ordered]
    return Columns(ordered, kept, header)


def export_csv(src: str, dst: BinaryIO, topic: str, *,
               converter: JointStateBatchConverter | None = None, strict: bool = False,
               window: int = 1000, progress: Callable[[int], None] | None = None
               ) -> BagConvertStats:
    """
    Write the JointState topic ``topic`` of bag ``src`` as CSV (converted with ``converter``).

    :param strict: a message that cannot be converted (or decoded) in full is an error;
        otherwise what cannot is left out of the CSV and counted
    :param progress: called with the number of messages read (both passes)
    :raises BagError: unreadable bag; :class:`~.bag_io.BagTopicError`: no (single) such topic
    :raises TooManyColumnsError: more than :data:`MAX_COLUMNS` columns
    :raises NothingConvertedError: the topic has messages and none could be exported
    """
    with BagReader(src) as reader:
        found = single_topic(reader, topic)
        name = found[0].topic
        cols = columns(read_rows(reader, found, converter, window, progress), converter,
                       f'{src}: {name}')
        index = {n: k for k, n in enumerate(cols.names)}
        width = len(cols.names)
        writer = CsvWriter(dst, cols.header)
        counts = MessageCounts(src)
        places: dict[tuple[str, ...], np.ndarray] = {}
        step = max(1, MAX_CELLS // max(1, width * len(cols.fields)))
        for rows in read_rows(reader, found, converter, window, progress):
            kept = []
            for t, when, _, r in rows:
                counts.count(name, t, r, strict)
                if isinstance(r, Converted):
                    kept.append((t, when, r))
            for start in range(0, len(kept), step):
                part = kept[start:start + step]
                block = np.full((len(part), width * len(cols.fields)), np.nan)
                for k, (_, _, r) in enumerate(part):
                    key = tuple(r.names)
                    place = places.get(key)
                    if place is None:
                        if len(places) >= 4096:  # ever-changing name lists: bound the cache
                            places.clear()
                        place = places[key] = np.array([index[n] for n in key], dtype=np.intp)
                    for f, field in enumerate(cols.fields):
                        values = getattr(r, field)
                        if values is not None:
                            block[k, place + f * width] = values
                writer.write([[format_time(t) for t, _, _ in part],
                              [format_time(s) for _, s, _ in part]], block)
        counts.check(name)
        return counts.stats({name: ''}, reader.storage)
