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
What the benchmarks share: timing, the reference loop, robots and their states.

Timing (:func:`timed`): a trial call sizes a block of calls to about ``budget`` seconds, then
``repeats`` blocks are timed; the figure is the time of one call, as the minimum (the least
disturbed block: the machine's best) and the median over the blocks.  Each call's result is kept
until the next one returns, like a program that holds its latest values; minor page faults per
call are counted too (on a virtual machine a fault costs about a microsecond, so a pattern of
allocations that makes glibc return memory to the kernel can dominate a batch).

With ``--log`` (:func:`add_log_option`), :func:`logged` appends a run's output, dated with the
commit, to ``doc/benchmark_log.md``.
"""

import argparse
import contextlib
import datetime
import io
import os
from pathlib import Path
import platform
import resource
import statistics
import subprocess
import sys
import time
from typing import Any
from typing import Callable
from typing import Iterator
from typing import NamedTuple

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # a fresh clone: the package beside this folder
    sys.path.insert(1, str(ROOT))

from transmission_plugins.robot.robot_transmissions import RobotTransmissions  # noqa: E402

#: The bundled example robot (four transmissions: simple, four-bar, differential, PR2 gripper).
EXAMPLE_URDF = ROOT / 'urdf' / 'example_robot.urdf.xacro'
#: The PR2 of the shared corpus, when it is there (``--urdf`` points at it).
PR2_URDF = ROOT.parent / 'shared' / 'urdf_corpus' / 'pr2.urdf'
INTERFACES = ('position', 'velocity', 'effort')
#: The dated benchmark log (``--log`` appends each run's output to it).
LOG = ROOT / 'doc' / 'benchmark_log.md'


def add_log_option(parser: argparse.ArgumentParser) -> None:
    """Add ``--log [FILE]``: append this run's output to the dated benchmark log."""
    parser.add_argument('--log', nargs='?', const=str(LOG), default=None, metavar='FILE',
                        help='append the output, dated, to FILE (default '
                             f'{LOG.relative_to(ROOT)})')


class _Tee(io.TextIOBase):
    def __init__(self, *streams: Any) -> None:
        self.streams = streams

    def write(self, text: str) -> int:
        for s in self.streams:
            s.write(text)
        return len(text)

    def flush(self) -> None:
        for s in self.streams:
            s.flush()


@contextlib.contextmanager
def logged(args: argparse.Namespace, title: str) -> Iterator[None]:
    """
    Print as usual; with ``--log``, also append the output to the log as a dated entry.

    The entry's heading gives the date, the commit (``git describe``), the script's command line
    and ``title``; the body is the output in a code block.
    """
    if not getattr(args, 'log', None):
        yield
        return
    captured = io.StringIO()
    with contextlib.redirect_stdout(_Tee(sys.stdout, captured)):  # type: ignore[type-var]
        yield
    try:
        commit = subprocess.run(['git', 'describe', '--always', '--dirty'], cwd=ROOT,
                                capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        commit = 'unknown commit'
    command = ' '.join([os.path.basename(sys.argv[0])] + sys.argv[1:])
    entry = (f'\n## {datetime.date.today().isoformat()} {commit or "unknown commit"}: '
             f'{title}\n\n`{command}`\n\n```text\n{captured.getvalue().rstrip()}\n```\n')
    with open(args.log, 'a') as f:
        f.write(entry)


class Timing(NamedTuple):
    """Seconds per call: the minimum and the median over the repeats; page faults per call."""

    best: float
    median: float
    faults: float

    def us(self) -> str:
        """Return ``min / median`` in microseconds, for a table."""
        return f'{self.best * 1e6:.1f} / {self.median * 1e6:.1f}'


def timed(fn: Callable[[], Any], repeats: int = 7, budget: float = 0.1) -> Timing:
    """
    Time ``fn`` (no arguments): min and median seconds per call over ``repeats`` blocks.

    :param budget: about how many seconds one block takes (at least 1 call per block)
    """
    start = time.perf_counter()
    kept = fn()
    calls = max(1, int(budget / max(time.perf_counter() - start, 1e-7)))
    times: list[float] = []
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            kept = fn()
        times.append((time.perf_counter() - start) / calls)
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults
    del kept
    return Timing(min(times), statistics.median(times), faults / (repeats * calls))


def timed_together(fns: list[Callable[[], Any]], repeats: int = 7, budget: float = 0.1,
                   clock: Callable[[], float] = time.perf_counter) -> list[Timing]:
    """
    Time several functions in alternating blocks: one block of each, ``repeats`` times over.

    A ratio of their figures then compares calls made under the same load (a busy machine
    slows every function alike) rather than minutes apart.  Page faults are not counted.

    :param clock: what a block is measured on (``time.thread_time``: this thread's CPU)
    """
    calls, kept = [], []
    for fn in fns:
        start = clock()
        kept.append(fn())
        calls.append(max(1, int(budget / max(clock() - start, 1e-7))))
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(repeats):
        for k, fn in enumerate(fns):
            start = clock()
            for _ in range(calls[k]):
                kept[k] = fn()
            times[k].append((clock() - start) / calls[k])
    return [Timing(min(t), statistics.median(t), 0.0) for t in times]


def environment() -> str:
    """Return one line naming Python, numpy and the machine's load."""
    load = ''
    try:
        load = ', load average ' + open('/proc/loadavg').read().split()[0]
    except OSError:
        pass
    return (f'Python {platform.python_version()}, numpy {np.__version__}, '
            f'{platform.machine()}{load}')


def robot_state(robot: RobotTransmissions, shape: tuple, rng: np.random.Generator,
                to_joint: bool = True) -> dict[str, np.ndarray]:
    """Return random position, velocity and effort, nonlinear transmissions in their range."""
    names = robot.actuator_names if to_joint else robot.joint_names
    values = {i: rng.uniform(-1.0, 1.0, shape + (len(names),)) for i in INTERFACES}
    index = robot.actuator_index if to_joint else robot.joint_index
    for t in robot.transmissions:
        if t.transmission.requires_position_state():  # the PR2 gripper: half open, forwards
            for n in (t.actuator_names if to_joint else t.joint_names[:1]):
                sign = np.sign(getattr(t.transmission, 'get_actuator_reduction', lambda: 1)())
                values['position'][..., index[n]] = (
                    sign * rng.uniform(100.0, 1300.0, shape) if to_joint
                    else rng.uniform(0.01, 0.08, shape))
    return values


def make_loop(robot: RobotTransmissions) -> Callable[[dict[str, np.ndarray]], dict[str, Any]]:
    """
    Return the reference cycle: a plain Python loop over the transmissions.

    Each transmission converts its slice of the arrays through its own functional API
    (``transmission.actuator_to_joint({...})``), the results are scattered into the robot
    vectors, then back to the actuators the same way.
    """
    parts = [(t.transmission, np.array([robot.actuator_index[n] for n in t.actuator_names]),
              np.array([robot.joint_index[n] for n in t.joint_names]))
             for t in robot.transmissions]
    nj, na = len(robot.joint_names), len(robot.actuator_names)

    def cycle(actuators: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        shape = actuators['position'].shape[:-1]
        joints = {i: np.empty(shape + (nj,)) for i in actuators}
        for tr, a, j in parts:
            out = tr.actuator_to_joint({i: v[..., a] for i, v in actuators.items()})
            for i, v in out.items():
                joints[i][..., j] = v
        back = {i: np.empty(shape + (na,)) for i in actuators}
        for tr, a, j in parts:
            out = tr.joint_to_actuator({i: v[..., j] for i, v in joints.items()})
            for i, v in out.items():
                back[i][..., a] = v
        return back

    return cycle


def make_cycle(robot: RobotTransmissions) -> Callable[[dict[str, np.ndarray]], dict[str, Any]]:
    """Return one cycle through the array maps: actuators to joints and back."""
    def cycle(actuators: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        return robot.joint_to_actuator_arrays(robot.actuator_to_joint_arrays(actuators))
    return cycle


def make_cycle_into(robot: RobotTransmissions,
                    example: dict[str, np.ndarray]) -> Callable[[dict[str, np.ndarray]], Any]:
    """
    Return one cycle through the array maps into reused arrays (``out=``).

    The buffers are the arrays a first cycle of ``example`` returned, as a program that
    converts batch after batch of one size keeps them.
    """
    joints = robot.actuator_to_joint_arrays(example)
    actuators = robot.joint_to_actuator_arrays(joints)

    def cycle(values: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        return robot.joint_to_actuator_arrays(robot.actuator_to_joint_arrays(values, out=joints),
                                              out=actuators)
    return cycle


def make_named_cycle(robot: RobotTransmissions) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """Return one cycle through the name-keyed maps."""
    def cycle(actuators: dict[str, Any]) -> dict[str, Any]:
        return robot.joint_to_actuator(robot.actuator_to_joint(actuators))
    return cycle


def dense_matvec(robot: RobotTransmissions, rng: np.random.Generator) -> Callable[[], Any]:
    """
    Return the in-run anchor: one dense ``nj x na`` matrix-vector product of numpy.

    The cost of one numpy call of the robot's size (about 1 us for the PR2): a cycle of six
    such products (three interfaces, both ways) would be the floor of a dense design.
    """
    m = rng.normal(size=(len(robot.joint_names), len(robot.actuator_names)))
    x = rng.normal(size=len(robot.actuator_names))
    return lambda: m @ x


def table(header: list[str], rows: list[list[str]]) -> str:
    """Return the rows under the header as Markdown, numbers right-aligned."""
    lines = ['| ' + ' | '.join(header) + ' |',
             '|' + '|'.join(['---'] + ['---:'] * (len(header) - 1)) + '|']
    lines += ['| ' + ' | '.join(row) + ' |' for row in rows]
    return '\n'.join(lines)


# ---------------------------------------------------------------------- recordings
def serialized_joint_states(names: list[str], position: np.ndarray,
                            velocity: np.ndarray | None = None,
                            effort: np.ndarray | None = None) -> list[bytes]:
    """Return one CDR ``sensor_msgs/JointState`` per row of ``position`` (None: no field)."""
    from rosbags.typesys import get_typestore
    from rosbags.typesys import Stores
    store = get_typestore(Stores.ROS2_KILTED)
    types = store.types
    js = 'sensor_msgs/msg/JointState'
    header = types['std_msgs/msg/Header'](stamp=types['builtin_interfaces/msg/Time'](
        sec=0, nanosec=0), frame_id='')
    empty = np.zeros(0)

    def row(x: np.ndarray | None, k: int) -> np.ndarray:
        return empty if x is None else np.ascontiguousarray(x[k])
    return [bytes(store.serialize_cdr(types[js](
        header=header, name=list(names), position=row(position, k),
        velocity=row(velocity, k), effort=row(effort, k)), js)) for k in range(len(position))]


def write_state_bag(path: Path | str, raw: dict[str, list[bytes]], messages: int, rate: float,
                    storage: str = 'mcap') -> None:
    """
    Write ``messages`` JointState messages on each topic of ``raw`` at ``rate`` Hz.

    Each topic cycles through its serialized messages; the topics' messages share stamps.
    """
    from rosbags.rosbag2 import StoragePlugin
    from rosbags.rosbag2 import Writer
    from rosbags.typesys import get_typestore
    from rosbags.typesys import Stores
    store = get_typestore(Stores.ROS2_KILTED)
    plugin = StoragePlugin.MCAP if storage == 'mcap' else StoragePlugin.SQLITE3
    start = 1_700_000_000 * 10**9
    period = int(round(1e9 / rate))
    with Writer(path, version=9, storage_plugin=plugin) as w:
        topics = [(w.add_connection(topic, 'sensor_msgs/msg/JointState', typestore=store),
                   rows) for topic, rows in raw.items()]
        for k in range(messages):
            t = start + k * period
            for connection, rows in topics:
                w.write(connection, t, rows[k % len(rows)])


def first_messages(path: Path | str, topic: str, count: int) -> list[bytes]:
    """Return the first ``count`` serialized messages of ``topic`` in the bag (10 s at most)."""
    from transmission_plugins.tools.data.bag_io import BagReader
    raws: list[bytes] = []
    with BagReader(str(path)) as reader:
        start, _ = reader.time_span()
        for _, _, raw in reader.messages_between(reader.match(topic), start,
                                                 start + 10**10):
            raws.append(bytes(raw))
            if len(raws) == count:
                break
    return raws


def rclpy_decoding(raws: list[bytes], runs: int = 5) -> float:
    """
    Return rclpy's time to decode one of the JointState messages ``raws``, seconds (median).

    The anchor of the bag tools' decoding: what a message costs through rclpy's own
    deserializer, its values read as arrays.
    """
    from rclpy.serialization import deserialize_message
    from sensor_msgs.msg import JointState
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        for raw in raws:
            msg = deserialize_message(raw, JointState)
            for values in (msg.position, msg.velocity, msg.effort):
                np.frombuffer(values, np.float64)
        times.append((time.perf_counter() - t) / len(raws))
    return float(np.median(times))
