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
What ``transmission_plugins calibrate`` identifies from: actuator and joint positions of a bag.

Two ``sensor_msgs/JointState`` topics of a rosbag2 bag: the actuators' positions and
independent measurements of the joints (not the hardware interface's output, which is computed
from the URDF under test), paired and read as doc/calibration.md ("How it works") says, into one
:class:`~transmission_plugins.robot.identification.Samples` per transmission.  A long bag is read
in up to :data:`WINDOWS` time windows found through the storage's index.  The messages of each
topic are decoded together, :data:`BATCH` at a time
(:func:`~.joint_state_messages.decode_batch`: no Python step per message beyond the bag's own
reading); a message that is not a JointState is counted and left out.

``max_samples`` bounds the work and the memory whatever the bag holds: the windows are sized so
that neither topic has more than ``max_samples`` messages decoded (a dense actuator topic beside
sparse joint measurements was read in full), and reading stops at that count on either topic
whatever the bag's metadata declares (a message read counts, decodable or not).
"""

from typing import Any
from typing import Callable
from typing import NamedTuple
from typing import Sequence

import numpy as np

from transmission_plugins.core.exceptions import TransmissionInputError
from transmission_plugins.robot.identification import Samples
from transmission_plugins.robot.robot_transmissions import RobotTransmissions
from transmission_plugins.tools.data.bag_io import BagReader
from transmission_plugins.tools.data.bag_io import BagTopicError
from transmission_plugins.tools.data.bag_io import JOINT_STATE
from transmission_plugins.tools.data.bag_io import topic_matches
from transmission_plugins.tools.data.joint_state_messages import decode_batch
from transmission_plugins.tools.data.joint_state_messages import JointStateBatch

DEFAULT_ACTUATOR_TOPIC = 'actuator_states'
DEFAULT_JOINT_TOPIC = 'joint_states'
#: joint messages decoded at most by default
DEFAULT_MAX_SAMPLES = 20_000
#: the time windows of a long bag (at most; each holds at least :data:`PER_WINDOW` joint
#: messages)
WINDOWS = 100
PER_WINDOW = 50
#: no pair across a gap of more than this many actuator periods
MAX_GAP = 5.0
#: messages of a topic decoded together (:func:`~.decode_batch`; the memory of their bytes)
BATCH = 4096


class CalibrationSamples(NamedTuple):
    """The samples of a bag and what was read to make them."""

    #: transmission name -> its samples
    samples: dict[str, Samples]
    #: transmission name -> why it has none (not in the recording)
    missing: dict[str, str]
    #: what was read: the topics, the messages decoded and paired
    reading: 'PairedReading'


class _Topic:
    """
    The states of one topic, per message, in a robot's name order (NaN: not given).

    A row holds the positions, then the velocities, then the efforts (``3 * width`` columns; a
    field a message leaves empty is NaN).
    """

    def __init__(self, names: Sequence[str]) -> None:
        self.index = {n: i for i, n in enumerate(names)}
        self.width = len(names)
        self.times: list[np.ndarray] = []
        self.order: list[np.ndarray] = []
        self.rows: list[np.ndarray] = []
        self.seen: set[str] = set()
        self._plans: dict[tuple[str, ...], tuple[np.ndarray, np.ndarray]] = {}

    def add(self, received: np.ndarray, batch: JointStateBatch, order: np.ndarray) -> None:
        """
        Add a batch of decoded messages: times their stamps, else ``received`` (ns).

        :param order: the messages' places in the bag (ties in time keep it)
        """
        names = batch.names
        values = (batch.position, batch.velocity, batch.effort)
        if not names or all(v.shape[1] != len(names) for v in values):
            return
        plan = self._plans.get(names)
        if plan is None:
            keep = [k for k, n in enumerate(names) if n in self.index]
            plan = (np.array(keep, dtype=np.intp),
                    np.array([self.index[names[k]] for k in keep], dtype=np.intp))
            self._plans[names] = plan
            self.seen.update(names[k] for k in keep)
        rows = np.full((len(batch.places), 3 * self.width), np.nan)
        for k, v in enumerate(values):
            if v.shape[1] == len(names):
                rows[:, plan[1] + k * self.width] = v[:, plan[0]]
        stamps = batch.stamp
        self.times.append(np.where(stamps != 0, stamps, received[batch.places]))
        self.order.append(order[batch.places])
        self.rows.append(rows)

    def take(self) -> tuple[np.ndarray, np.ndarray]:
        """Return the times (s, sorted) and rows collected since the last call; forget them."""
        if not self.rows:
            return np.zeros(0), np.zeros((0, 3 * self.width))
        t = np.concatenate(self.times).astype(np.float64) * 1e-9
        rows = np.vstack(self.rows)
        order = np.lexsort((np.concatenate(self.order), t))
        self.times, self.order, self.rows = [], [], []
        return t[order], rows[order]


def interpolate(t: np.ndarray, times: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Return ``rows`` linearly interpolated at ``t`` (NaN outside, or across a long gap)."""
    out = np.full((len(t), rows.shape[1]), np.nan)
    if len(times) < 2 or not len(t):
        return out
    period = float(np.median(np.diff(times))) or 1e-9
    after = np.clip(np.searchsorted(times, t), 1, len(times) - 1)
    gap = times[after] - times[after - 1]
    ok = (t >= times[0]) & (t <= times[-1]) & (gap <= MAX_GAP * period + 1e-12)
    for col in range(rows.shape[1]):
        finite = np.isfinite(rows[:, col])
        if finite.sum() < 2:
            continue
        out[:, col] = np.interp(t, times[finite], rows[finite, col])
    out[~ok] = np.nan
    return out


class PairedWindow(NamedTuple):
    """The joint messages of one window and the actuator states at their times."""

    #: the window's number (no time derivative across two windows)
    window: int
    #: joint message times (s), sorted
    time: np.ndarray
    #: ``(position, velocity, effort)`` of ``robot.actuator_names`` at those times, each
    #: ``(N, actuators)``, linearly interpolated (NaN: not measured, or across a gap)
    actuators: tuple[np.ndarray, np.ndarray, np.ndarray]
    #: ``(position, velocity, effort)`` of ``robot.joint_names`` (NaN: not in the message)
    joints: tuple[np.ndarray, np.ndarray, np.ndarray]
    #: the actuator commands at those times, like ``actuators`` (None: no command topic read)
    commands: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None


class PairedReading(NamedTuple):
    """What :func:`read_paired` read."""

    topics: tuple[str, str]
    actuator_messages: int
    joint_messages: int
    joint_messages_in_bag: int
    pairs: int
    undecodable: int
    actuators_seen: set[str]
    joints_seen: set[str]
    #: the command topic read (None: none asked for, or not in the bag)
    command_topic: str | None = None

    def summary(self, command: str) -> str:
        """Return the report's first line: the messages read and paired (``calibrate``...)."""
        return (f'{command}: {self.joint_messages} joint messages ({self.topics[1]}, of '
                f'{self.joint_messages_in_bag} in the bag) paired with '
                f'{self.actuator_messages} actuator messages ({self.topics[0]}): {self.pairs} '
                'samples')

    def warnings(self) -> list[str]:
        """Return the report's warning lines about what was left out."""
        if not self.undecodable:
            return []
        return [f'warning: {self.undecodable} messages are not a JointState (left out)']

    def message_counts(self) -> dict[str, int]:
        """Return the ``messages`` entry of the ``--json`` output."""
        return {'actuators': self.actuator_messages, 'joints': self.joint_messages,
                'joints_in_bag': self.joint_messages_in_bag, 'undecodable': self.undecodable}


def read_paired(robot: RobotTransmissions, path: str, actuator_topic: str, joint_topic: str,
                max_samples: int, progress: Callable[[int], None] | None,
                consume: Callable[[PairedWindow], None],
                command_topic: str | None = None) -> PairedReading:
    """
    Read a bag's actuator and joint states in windows, paired as the module doc says.

    ``consume`` receives every window's pairs; :func:`read_samples` (``calibrate``) and
    ``identify`` (:mod:`~.bag_identify`) differ only in what they keep of them.  With
    ``command_topic`` (when the bag has it), the actuator commands are read in the same windows
    and interpolated at the same times; its messages count towards ``max_samples`` too.

    :raises BagError: the bag cannot be read
    :raises BagTopicError: a topic is missing (the message lists the bag's topics), has another
        type, or matches several namespaces
    :raises TransmissionInputError: the topics name none of the robot's actuators or joints, or
        no joint message falls among actuator messages
    """
    with BagReader(path) as reader:
        act = _one_topic(reader, actuator_topic, '--actuator-topic')
        joint = _one_topic(reader, joint_topic, '--joint-topic')
        command = None
        if command_topic is not None:
            found = [c for c in reader.connections if topic_matches(c.topic, command_topic)
                     and c.msgtype == JOINT_STATE]
            command = found[0] if len(found) == 1 else None
        read = [act, joint] + ([command] if command is not None else [])
        if act.topic == joint.topic:
            raise BagTopicError(f'{path}: the actuator and joint topics are both {act.topic}; '
                                'the joints must be measured independently of the actuators')
        total = int(joint.msgcount)
        busiest = max(total, int(act.msgcount), int(command.msgcount) if command else 0)
        start, end = reader.time_span()
        windows: list[tuple[int, int]] = []   # none: the whole bag
        if busiest > max_samples and end > start:
            count = max(1, min(WINDOWS, max_samples // PER_WINDOW))
            length = (end - start) * max_samples / busiest / count
            step = (end - start) / count
            windows = [(int(start + (k + 0.5) * step - length / 2),
                        int(start + (k + 0.5) * step + length / 2) + 1) for k in range(count)]
        actuators = _Topic(robot.actuator_names)
        joints = _Topic(robot.joint_names)
        commands = _Topic(robot.actuator_names) if command is not None else None
        counts = {'act': 0, 'joint': 0, 'pairs': 0, 'undecodable': 0, 'commands': 0}
        topics = {act.id: (actuators, 'act'), joint.id: (joints, 'joint')}
        if commands is not None and command is not None:
            topics[command.id] = (commands, 'commands')
        read_count = dict.fromkeys(topics, 0)
        # per topic, the messages read and not yet decoded: bytes, receive time, place in the bag
        pending: dict[int, tuple[list[Any], list[int], list[int]]] = {
            c: ([], [], []) for c in topics}
        seen = 0

        def flush(connection: int) -> None:
            """Decode the messages of a topic read since the last call (module doc)."""
            raws, received, places = pending[connection]
            if not raws:
                return
            topic, key = topics[connection]
            batches, rejected = decode_batch(raws)
            counts['undecodable'] += len(rejected)
            counts[key] += len(raws) - len(rejected)
            times = np.array(received, dtype=np.int64)
            order = np.array(places, dtype=np.int64)
            for batch in batches:
                topic.add(times, batch, order)
            pending[connection] = ([], [], [])

        full = False
        for index, window in enumerate(windows or [(start, end)]):
            if full:
                break
            messages = (reader.messages_between(read, *window) if windows
                        else reader.messages(read))
            done = 0
            for connection, received, raw in messages:
                if full:
                    break   # the cap, whatever the metadata said (module doc)
                cid = connection.id
                read_count[cid] += 1
                full = read_count[cid] >= max_samples
                done += 1
                if progress is not None and done % 1000 == 0:
                    progress(1000)
                raws, times, places = pending[cid]
                raws.append(raw)
                times.append(received)
                places.append(seen)
                seen += 1
                if len(raws) >= BATCH:
                    flush(cid)
            for cid in topics:
                flush(cid)
            if progress is not None:
                progress(done % 1000)
            counts['pairs'] += _pair(index, actuators, joints, commands, consume)
    if not actuators.seen or not joints.seen:
        side = 'actuator' if not actuators.seen else 'joint'
        topic = act.topic if not actuators.seen else joint.topic
        raise TransmissionInputError(f"{path}: {topic} names none of the robot's {side}s "
                                     f'(is it the {side} topic? --{side}-topic chooses it)')
    if not counts['pairs']:
        raise TransmissionInputError(f'{path}: no message of {joint.topic} falls among the '
                                     f'messages of {act.topic}: nothing to pair (are the '
                                     'stamps of both topics on one clock?)')
    return PairedReading((act.topic, joint.topic), counts['act'], counts['joint'], total,
                         counts['pairs'], counts['undecodable'], actuators.seen, joints.seen,
                         command.topic if command is not None else None)


def read_samples(robot: RobotTransmissions, path: str,
                 actuator_topic: str = DEFAULT_ACTUATOR_TOPIC,
                 joint_topic: str = DEFAULT_JOINT_TOPIC,
                 max_samples: int = DEFAULT_MAX_SAMPLES,
                 progress: Callable[[int], None] | None = None) -> CalibrationSamples:
    """
    Read a bag's actuator and joint positions into per-transmission samples (module doc).

    :param progress: called with the number of messages read since the last call
    :raises BagError: the bag cannot be read
    :raises BagTopicError: a topic is missing (the message lists the bag's topics), has another
        type, or matches several namespaces
    :raises TransmissionInputError: the topics name none of the robot's actuators or joints, or
        no joint message falls among actuator messages
    """
    samples: dict[str, Samples] = {}
    ends = _transmission_ends(robot)

    def add(window: PairedWindow) -> None:
        theta, q = window.actuators[0], window.joints[0]
        for name, (a, j, linear) in ends.items():
            s = samples.get(name)
            if s is None:
                s = samples[name] = Samples(len(a), len(j), raw=not linear)
            s.add(theta[:, a], q[:, j])

    read = read_paired(robot, path, actuator_topic, joint_topic, max_samples, progress, add)
    missing = {name: why for name, (a, j, _) in ends.items()
               for why in [_why_missing(robot, a, j, read.actuators_seen, read.joints_seen)]
               if why}
    return CalibrationSamples(samples, missing, read)


def _one_topic(reader: BagReader, topic: str, option: str) -> Any:
    found = reader.match(topic)
    if len(found) > 1:
        raise BagTopicError(f'{reader.path}: {topic!r} matches '
                            f'{sorted(c.topic for c in found)}: give the full name with '
                            f'{option}')
    return found[0]


def _transmission_ends(robot: RobotTransmissions
                       ) -> dict[str, tuple[np.ndarray, np.ndarray, bool]]:
    """Return per transmission: its actuator indices, measured joint indices, linearity."""
    out = {}
    for t in robot.transmissions:
        tr = t.transmission
        names = (list(t.joint_names) if tr.is_linear()
                 else [t.joint_names[k] for k in tr.joint_to_actuator_inputs()])
        out[t.name] = (np.array([robot.actuator_index[n] for n in t.actuator_names]),
                       np.array([robot.joint_index[n] for n in names]), tr.is_linear())
    return out


def _pair(index: int, actuators: _Topic, joints: _Topic, commands: _Topic | None,
          consume: Callable[[PairedWindow], None]) -> int:
    """Pair the messages collected (one window); hand them to ``consume``; return the pairs."""
    t_act, a_rows = actuators.take()
    t_joint, j_rows = joints.take()
    theta = interpolate(t_joint, t_act, a_rows)
    a, j = actuators.width, joints.width
    sent = None
    if commands is not None:
        c_rows = interpolate(t_joint, *commands.take())
        sent = (c_rows[:, :a], c_rows[:, a:2 * a], c_rows[:, 2 * a:])
    consume(PairedWindow(index, t_joint, (theta[:, :a], theta[:, a:2 * a], theta[:, 2 * a:]),
                         (j_rows[:, :j], j_rows[:, j:2 * j], j_rows[:, 2 * j:]), sent))
    return int(np.count_nonzero(np.isfinite(theta[:, :a]).any(axis=1)))


def _why_missing(robot: RobotTransmissions, a: np.ndarray, j: np.ndarray, seen_a: set[str],
                 seen_j: set[str]) -> str:
    lost = [robot.actuator_names[i] for i in a if robot.actuator_names[i] not in seen_a]
    lost += [robot.joint_names[i] for i in j if robot.joint_names[i] not in seen_j]
    return f'not in the recording: {", ".join(lost)}' if lost else ''
