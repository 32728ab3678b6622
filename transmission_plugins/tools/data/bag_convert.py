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
Convert the ``sensor_msgs/JointState`` topic of a rosbag2 bag into a new bag, streaming.

Every message of the input is copied unchanged; right after each message of the input topic
comes its conversion on the output topic (doc/bags.md).  Messages are read, decoded, converted
and written ``window`` at a time, so memory does not grow with the bag.
"""

from typing import Any
from typing import Callable
from typing import NamedTuple

from transmission_plugins.core.exceptions import TransmissionInputError
from transmission_plugins.robot.robot_transmissions import RobotTransmissions
from transmission_plugins.tools.data.bag_io import BagReader
from transmission_plugins.tools.data.bag_io import BagTopicError
from transmission_plugins.tools.data.bag_io import BagWriter
from transmission_plugins.tools.data.bag_io import output_topic
from transmission_plugins.tools.data.bag_io import storage_of_output
from transmission_plugins.tools.data.joint_state_batch import Converted
from transmission_plugins.tools.data.joint_state_batch import JointStateBatchConverter
from transmission_plugins.tools.data.joint_state_batch import Rejected
from transmission_plugins.tools.data.joint_state_batch import TO_JOINT
from transmission_plugins.tools.data.joint_state_messages import decode_each
from transmission_plugins.tools.data.joint_state_messages import encode
from transmission_plugins.tools.data.joint_state_messages import fields

#: Default input and output topics per direction (the nodes' topic names).
DEFAULT_TOPICS = {TO_JOINT: ('actuator_states', 'joint_states'),
                  'actuator': ('joint_commands', 'actuator_commands')}


class UnconvertibleMessageError(TransmissionInputError):
    """``strict``: a message of the input topic cannot be converted in full."""


class NothingConvertedError(TransmissionInputError):
    """The input topic has messages, and none of them could be converted (or exported)."""


class Rejection(NamedTuple):
    """The first message with something left out for a reason: where and why."""

    topic: str
    timestamp: int
    detail: str


class BagConvertStats(NamedTuple):
    """What :func:`convert_bag` did."""

    topics: dict[str, str]                  # input topic -> output topic
    converted: int                          # messages converted (in full or in part)
    copied: int                             # messages copied (every input message)
    rejected: dict[str, int]                # reason -> messages with something left out for it
    first_rejected: dict[str, Rejection]    # reason -> the first such message
    storage: str
    incomplete: int = 0                     # messages converted in part
    unconverted: int = 0                    # messages of the topic not converted at all


def plan_topics(reader: BagReader, topic: str, output: str) -> dict[int, str]:
    """
    Return ``{input connection id: output topic}`` for the topics ``topic`` matches.

    :raises BagTopicError: no match, wrong type, or an output topic that is already in the bag
        or produced twice
    """
    matched = reader.match(topic)
    existing = set(reader.topics())
    out: dict[int, str] = {}
    for c in matched:
        name = output_topic(c.topic, output, topic)
        if name in existing:
            raise BagTopicError(f'{reader.path}: the output topic {name} is already in the bag; '
                                'choose another with --output-topic')
        if name in out.values() and out.get(c.id) != name:
            others = sorted(x.topic for x in matched)
            raise BagTopicError(f'{reader.path}: topics {others} would all be written to {name}; '
                                'give a relative --output-topic')
        out[c.id] = name
    return out


def convert_bag(robot: RobotTransmissions, src: str, dst: str, to: str, *,
                topic: str | None = None, output: str | None = None,
                storage: str | None = None, strict: bool = False, window: int = 1000,
                progress: Callable[[int], None] | None = None) -> BagConvertStats:
    """
    Convert the JointState messages of ``topic`` in bag ``src`` into bag ``dst``.

    :param output: output topic, relative names in the input topic's namespace (default
        ``joint_states`` / ``actuator_commands``)
    :param storage: ``'mcap'`` or ``'sqlite3'`` (default: from ``dst``'s suffix, else the
        input's)
    :param progress: called with the number of messages read since the last call
    :raises BagError: ``src`` unreadable or corrupted, ``dst`` exists or cannot be written
    :raises BagTopicError: no such topic, wrong type, clashing output topic
    :raises UnconvertibleMessageError: ``strict`` and a message cannot be converted in full
    :raises NothingConvertedError: the topic has messages and none converts
    """
    topic = topic or DEFAULT_TOPICS[to][0]
    output = output or DEFAULT_TOPICS[to][1]
    converter = JointStateBatchConverter(robot, to)
    with BagReader(src) as reader:
        targets = plan_topics(reader, topic, output)
        kind = storage_of_output(dst, storage, reader.storage)
        names = {c.id: c.topic for c in reader.connections}
        writer = BagWriter(dst, kind)
        try:
            counts = _stream(reader, writer, converter, targets, strict, window, progress)
            counts.check(', '.join(names[i] for i in targets))
        except BaseException:
            writer.abort()
            raise
        writer.commit()
    return counts.stats({names[i]: o for i, o in targets.items()}, kind)


class MessageCounts:
    """Messages converted, copied and left out (by reason, with the first of each)."""

    def __init__(self, where: str = '') -> None:
        """
        Start at zero.

        :param where: the bag, which the errors name
        """
        self.where = f'{where}: ' if where else ''
        self.converted = 0
        self.copied = 0
        self.incomplete = 0
        self.unconverted = 0
        self.rejected: dict[str, int] = {}
        self.first: dict[str, Rejection] = {}

    def count(self, topic: str, timestamp: int, result: Converted | Rejected,
              strict: bool) -> None:
        """
        Count one message of the input topic.

        :raises UnconvertibleMessageError: ``strict`` and something was left out
        """
        left_out = [result] if isinstance(result, Rejected) else list(result.left_out)
        if left_out and strict:
            r = left_out[0]
            raise UnconvertibleMessageError(
                f'{self.where}{topic}: the message received at {format_time(timestamp)} cannot be '
                f'converted in full: {r.reason}: {r.detail} (--strict)')
        if isinstance(result, Rejected):
            self.unconverted += 1
        else:
            self.converted += 1
            self.incomplete += bool(left_out)
        for r in {r.reason: r for r in reversed(left_out)}.values():
            self.rejected[r.reason] = self.rejected.get(r.reason, 0) + 1
            self.first.setdefault(r.reason, Rejection(topic, timestamp, r.detail))

    def check(self, topics: str) -> None:
        """
        Raise when the topic had messages and none was converted.

        :raises NothingConvertedError: with the reasons and their first examples
        """
        if self.converted or not self.unconverted:
            return
        reasons = '; '.join(f'{reason}: {count} (first at {format_time(first.timestamp)}: '
                            f'{first.detail})' for reason, count in sorted(self.rejected.items())
                            for first in [self.first[reason]])
        raise NothingConvertedError(f'{self.where}{topics}: none of its {self.unconverted} '
                                    f'message(s) could be converted, nothing written: {reasons}')

    def stats(self, topics: dict[str, str], storage: str) -> BagConvertStats:
        """Return the counts as :class:`BagConvertStats`."""
        return BagConvertStats(topics, self.converted, self.copied, self.rejected, self.first,
                               storage, self.incomplete, self.unconverted)


def _stream(reader: BagReader, writer: BagWriter, converter: JointStateBatchConverter,
            targets: dict[int, str], strict: bool, window: int,
            progress: Callable[[int], None] | None) -> MessageCounts:
    conns = {}
    twins = {}
    for c in reader.connections:
        conns[c.id] = writer.add(c.topic, c)
        if c.id in targets:
            twins[c.id] = writer.add(targets[c.id], c)
    counts = MessageCounts(reader.path)
    batch: list[tuple[Any, int, Any]] = []
    for connection, timestamp, raw in reader.messages():
        batch.append((connection, timestamp, raw))
        if len(batch) >= window:
            _flush(batch, writer, converter, conns, twins, counts, strict)
            if progress is not None:
                progress(len(batch))
            batch = []
    _flush(batch, writer, converter, conns, twins, counts, strict)
    if progress is not None and batch:
        progress(len(batch))
    return counts


def _flush(batch: list[tuple[Any, int, Any]], writer: BagWriter,
           converter: JointStateBatchConverter, conns: dict[int, Any], twins: dict[int, Any],
           counts: MessageCounts, strict: bool) -> None:
    converted = [k for k, (c, _, _) in enumerate(batch) if c.id in twins]
    decoded = dict(zip(converted, decode_each([batch[k][2] for k in converted])))
    good = {k: m for k, m in decoded.items() if not isinstance(m, Rejected)}
    results: dict[int, Converted | Rejected] = dict(zip(good, converter.convert(
        [fields(m) for m in good.values()])))
    results.update((k, m) for k, m in decoded.items() if isinstance(m, Rejected))
    for k, (connection, timestamp, _) in enumerate(batch):
        if k in results:
            counts.count(connection.topic, timestamp, results[k], strict)
    for k, (connection, timestamp, raw) in enumerate(batch):
        writer.write(conns[connection.id], timestamp, raw)
        counts.copied += 1
        result, msg = results.get(k), good.get(k)
        if isinstance(result, Converted) and msg is not None:
            writer.write(twins[connection.id], timestamp,
                         encode(msg.stamp, msg.frame_id, result))


def format_time(ns: int) -> str:
    """Return nanoseconds as exact decimal seconds, e.g. ``1700000000.000000001``."""
    sign = '-' if ns < 0 else ''
    ns = abs(int(ns))
    return f'{sign}{ns // 1_000_000_000}.{ns % 1_000_000_000:09d}'
