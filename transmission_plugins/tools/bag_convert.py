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

Every message of the input is copied unchanged (same topic, type, definition, QoS, receive
time); right after each message of the input topic comes its conversion on the output topic,
with the same receive time and header (stamp and ``frame_id``).  Messages are read, converted
(:class:`~transmission_plugins.tools.joint_state_batch.JointStateBatchConverter`, one array call
per batch) and written ``window`` at a time, so memory does not grow with the bag.

A message that cannot be converted is still copied, gets no converted twin, and is counted by
reason in :class:`BagConvertStats` (``undecodable`` for bytes that are no JointState); with
``strict`` the first one is an error and nothing is written.
"""

from typing import Any
from typing import Callable
from typing import Dict
from typing import List
from typing import NamedTuple
from typing import Optional
from typing import Tuple
from typing import Union

from transmission_plugins.core.exceptions import TransmissionInputError
from transmission_plugins.robot.robot_transmissions import RobotTransmissions
from transmission_plugins.tools.bag_io import BagReader
from transmission_plugins.tools.bag_io import BagTopicError
from transmission_plugins.tools.bag_io import BagWriter
from transmission_plugins.tools.bag_io import output_topic
from transmission_plugins.tools.bag_io import storage_of_output
from transmission_plugins.tools.bag_io import typestore
from transmission_plugins.tools.joint_state_batch import Converted
from transmission_plugins.tools.joint_state_batch import JointStateBatchConverter
from transmission_plugins.tools.joint_state_batch import Rejected
from transmission_plugins.tools.joint_state_batch import TO_JOINT
from transmission_plugins.tools.joint_state_cdr import JointStateCodec
from transmission_plugins.tools.joint_state_cdr import JointStateMessage

#: Default input and output topics per direction (the nodes' topic names).
DEFAULT_TOPICS = {TO_JOINT: ('actuator_states', 'joint_states'),
                  'actuator': ('joint_commands', 'actuator_commands')}


class UnconvertibleMessageError(TransmissionInputError):
    """``strict``: a message of the input topic cannot be converted."""


class Rejection(NamedTuple):
    """The first message rejected for a reason: where and why."""

    topic: str
    timestamp: int
    detail: str


class BagConvertStats(NamedTuple):
    """What :func:`convert_bag` did."""

    topics: Dict[str, str]                  # input topic -> output topic
    converted: int                          # messages converted
    copied: int                             # messages copied (every input message)
    rejected: Dict[str, int]                # reason -> count
    first_rejected: Dict[str, Rejection]    # reason -> the first message rejected for it
    storage: str


def new_codec() -> JointStateCodec:
    """Return a JointState codec on the ROS 2 Kilted type store (one per conversion)."""
    return JointStateCodec(typestore())


def decode(codec: JointStateCodec, raw: Any) -> Union[JointStateMessage, Rejected]:
    """Return the JointState in ``raw`` (CDR), or a :class:`Rejected` ``undecodable``."""
    try:
        return codec.decode(raw)
    except Exception as e:  # noqa: B902 - any failure of the decoder means bad bytes
        return Rejected('undecodable', f'not a JointState in CDR ({type(e).__name__}: {e})')


def as_message(msg: Any) -> Tuple[Any, Any, Any, Any]:
    """Return ``(names, position, velocity, effort)`` of a decoded JointState."""
    return msg.name, msg.position, msg.velocity, msg.effort


def encode(codec: JointStateCodec, msg: JointStateMessage, converted: Converted) -> bytes:
    """Serialize a converted message with the input's header (stamp and ``frame_id``)."""
    return codec.encode(msg.sec, msg.nanosec, msg.frame_id, converted.names,
                        converted.position, converted.velocity, converted.effort)


def plan_topics(reader: BagReader, topic: str, output: str) -> Dict[int, str]:
    """
    Return ``{input connection id: output topic}`` for the topics ``topic`` matches.

    :raises BagTopicError: no match, wrong type, or an output topic that is already in the bag
        or produced twice
    """
    matched = reader.match(topic)
    existing = set(reader.topics())
    out: Dict[int, str] = {}
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
                topic: Optional[str] = None, output: Optional[str] = None,
                storage: Optional[str] = None, strict: bool = False, window: int = 1000,
                progress: Optional[Callable[[int], None]] = None) -> BagConvertStats:
    """
    Convert the JointState messages of ``topic`` in bag ``src`` into bag ``dst``.

    :param to: ``'joint'`` (the topic names actuators) or ``'actuator'``
    :param topic: input topic, with or without namespace (default ``actuator_states`` /
        ``joint_commands``)
    :param output: output topic, relative names in the input topic's namespace (default
        ``joint_states`` / ``actuator_commands``)
    :param storage: ``'mcap'`` or ``'sqlite3'`` (default: from ``dst``'s suffix, else the
        input's)
    :param strict: a message that cannot be converted is an error
    :param window: messages read, converted and written at a time
    :param progress: called with the number of messages read since the last call
    :returns: counts (converted, copied, rejected by reason with the first example)
    :raises BagError: ``src`` unreadable or corrupted, ``dst`` exists or cannot be written
    :raises BagTopicError: no such topic, wrong type, clashing output topic
    :raises UnconvertibleMessageError: ``strict`` and a message cannot be converted
    """
    topic = topic or DEFAULT_TOPICS[to][0]
    output = output or DEFAULT_TOPICS[to][1]
    converter = JointStateBatchConverter(robot, to)
    with BagReader(src) as reader:
        targets = plan_topics(reader, topic, output)
        kind = storage_of_output(dst, storage, reader.storage)
        writer = BagWriter(dst, kind)
        try:
            stats = _stream(reader, writer, converter, targets, strict, window, progress)
        except BaseException:
            writer.abort()
            raise
        writer.commit()
        names = {c.id: c.topic for c in reader.connections}
    return stats._replace(topics={names[i]: o for i, o in targets.items()}, storage=kind)


class MessageCounts:
    """Messages converted, copied and rejected (by reason, with the first of each)."""

    def __init__(self) -> None:
        self.converted = 0
        self.copied = 0
        self.rejected: Dict[str, int] = {}
        self.first: Dict[str, Rejection] = {}

    def reject(self, topic: str, timestamp: int, r: Rejected, strict: bool) -> None:
        """Count a rejected message; raise :class:`UnconvertibleMessageError` if ``strict``."""
        if strict:
            raise UnconvertibleMessageError(
                f'{topic}: the message received at {format_time(timestamp)} cannot be '
                f'converted: {r.reason}: {r.detail} (--strict)')
        self.rejected[r.reason] = self.rejected.get(r.reason, 0) + 1
        self.first.setdefault(r.reason, Rejection(topic, timestamp, r.detail))


def _stream(reader: BagReader, writer: BagWriter, converter: JointStateBatchConverter,
            targets: Dict[int, str], strict: bool, window: int,
            progress: Optional[Callable[[int], None]]) -> BagConvertStats:
    conns = {}
    twins = {}
    for c in reader.connections:
        conns[c.id] = writer.add(c.topic, c)
        if c.id in targets:
            twins[c.id] = writer.add(targets[c.id], c)
    counts = MessageCounts()
    codec = new_codec()
    batch: List[Tuple[Any, int, Any]] = []
    for connection, timestamp, raw in reader.messages():
        batch.append((connection, timestamp, raw))
        if len(batch) >= window:
            _flush(batch, writer, converter, codec, conns, twins, counts, strict)
            if progress is not None:
                progress(len(batch))
            batch = []
    _flush(batch, writer, converter, codec, conns, twins, counts, strict)
    if progress is not None and batch:
        progress(len(batch))
    return BagConvertStats({}, counts.converted, counts.copied, counts.rejected, counts.first,
                           writer.storage)


def _flush(batch: List[Tuple[Any, int, Any]], writer: BagWriter,
           converter: JointStateBatchConverter, codec: JointStateCodec, conns: Dict[int, Any],
           twins: Dict[int, Any], counts: MessageCounts, strict: bool) -> None:
    decoded = {k: decode(codec, raw) for k, (c, _, raw) in enumerate(batch) if c.id in twins}
    good = [k for k, m in decoded.items() if not isinstance(m, Rejected)]
    results = dict(zip(good, converter.convert([as_message(decoded[k]) for k in good])))
    for k, (connection, timestamp, raw) in enumerate(batch):
        result = results.get(k, decoded.get(k))
        if isinstance(result, Rejected):
            counts.reject(connection.topic, timestamp, result, strict)
    for k, (connection, timestamp, raw) in enumerate(batch):
        writer.write(conns[connection.id], timestamp, raw)
        counts.copied += 1
        result = results.get(k)
        if isinstance(result, Converted):
            msg = decoded[k]
            assert isinstance(msg, JointStateMessage)
            writer.write(twins[connection.id], timestamp, encode(codec, msg, result))
            counts.converted += 1


def format_time(ns: int) -> str:
    """Return nanoseconds as exact decimal seconds, e.g. ``1700000000.000000001``."""
    sign = '-' if ns < 0 else ''
    ns = abs(int(ns))
    return f'{sign}{ns // 1_000_000_000}.{ns % 1_000_000_000:09d}'
