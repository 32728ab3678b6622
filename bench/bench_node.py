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
Benchmark the hardware interface node at 1 kHz against a bare rclpy relay, side by side.

Each contender runs in its own process, one after the other within a *run*, fed by this process
with ``actuator_states`` of the robot (every actuator, position + velocity + effort; every
position moves, so a mechanism converts a new state each time) at ``--state-rate`` Hz;
``--runs`` runs are made:

* ``bare relay`` (the in-run anchor): subscribes ``actuator_states``, restamps the message and
  republishes it on ``joint_states``, no maths: what rclpy costs per message;
* ``timer mode``: ``transmission_hardware_interface`` with ``update_rate`` ``--update-rate``
  (default 1000 Hz): every tick converts the latest state and publishes ``joint_states``;
* ``event-driven``: the same node with ``event_driven: true`` and ``update_rate``
  ``--watchdog-rate`` (default 100 Hz, the watchdogs' rate): each state is converted and
  published in its own callback.

Reported per contender: the ``joint_states`` rate received here, the CPU of the contender's
process (user + system, from ``/proc``) per state sent, and the latency from sending a state to
receiving the first ``joint_states`` that carries it (*send->recv*: two DDS hops plus the wait
for a tick in timer mode) and to that message's stamp (*send->stamp*: one hop plus the wait).
Each figure is given as the minimum / median over the runs, and the CPU also as a ratio to the
relay of the same run (min / median over the runs); the targets are doc/performance.md's.
Every contender spins rclpy's ``SingleThreadedExecutor``, as the nodes do.

By default the bundled example robot (``urdf/example_robot.urdf.xacro``); the PR2 with
``--urdf ../shared/urdf_corpus/pr2.urdf``; the G1-like humanoid with parallel ankles and its
all-linear twin with ``--urdf humanoid`` and ``--urdf humanoid-twin``.  ``--before DIR`` adds
the timer mode of another copy of the package (e.g. ``git archive <commit> | tar -x -C DIR``)
to every run, for before/after tables measured side by side.  The machine's other load shifts
every figure: run it on an idle machine, or say that it was shared.
"""

import argparse
import json
import os
from pathlib import Path
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any
from typing import Sequence

from benchlib import add_log_option
from benchlib import environment
from benchlib import EXAMPLE_URDF
from benchlib import logged
from benchlib import table
import numpy as np

from transmission_plugins.robot.robot_transmissions import RobotTransmissions

CONTENDERS = ('relay', 'before', 'timer', 'event')
LABELS = {'relay': 'bare relay', 'before': 'timer mode, before', 'timer': 'timer mode',
          'event': 'event-driven'}
#: How far apart two state values are: states carry their sequence number in one actuator.
STEP = 1e-4
WRAP = 100_000
#: every other actuator moves around its start by this much (rad or m), over MOTION states, so
#: that mechanisms convert a new state every time (Newton's method for a parallel ankle)
WIGGLE = 1e-3
MOTION = 250


def relay_main() -> int:
    """Run the bare relay node (``--relay``)."""
    from rclpy.node import Node
    from sensor_msgs.msg import JointState
    from transmission_plugins.ros.common import reliable_qos
    from transmission_plugins.ros.common import run_node
    from transmission_plugins.ros.common import state_qos

    class Relay(Node):
        def __init__(self) -> None:
            super().__init__('bare_relay')
            self.pub = self.create_publisher(JointState, 'joint_states', reliable_qos(10))
            self.create_subscription(JointState, 'actuator_states', self.relay, state_qos(10))

        def relay(self, msg: JointState) -> None:
            msg.header.stamp = self.get_clock().now().to_msg()
            self.pub.publish(msg)

    return run_node(lambda a: Relay(), sys.argv[:1] + ['--ros-args'])


def cpu_seconds(pid: int) -> float:
    """Return user + system CPU seconds of ``pid`` (Linux ``/proc``)."""
    fields = Path(f'/proc/{pid}/stat').read_text().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')


def sequence_channel(robot: RobotTransmissions) -> tuple[str, str]:
    """Return the actuator and joint of a one-to-one linear transmission (they carry the seq)."""
    for t in robot.transmissions:
        tr = t.transmission
        if len(t.actuator_names) == 1 and len(t.joint_names) == 1 and \
                not tr.requires_position_state():
            return t.actuator_names[0], t.joint_names[0]
    raise SystemExit('the robot needs a transmission of one actuator and one joint')


class Feeder:
    """Publish states carrying a sequence number; record when each comes back."""

    def __init__(self, robot: RobotTransmissions, node_mode: bool) -> None:
        from diagnostic_msgs.msg import DiagnosticArray
        from rclpy.node import Node
        from sensor_msgs.msg import JointState
        from transmission_plugins.ros.common import reliable_qos
        self.msg_type = JointState
        self.node = Node('bench_feeder')
        self.pub = self.node.create_publisher(JointState, 'actuator_states', reliable_qos(10))
        self.node.create_subscription(JointState, 'joint_states', self.on_joint_states,
                                      reliable_qos(100))
        self.node.create_subscription(DiagnosticArray, '/diagnostics', self.on_diag, 10)
        self.names = list(robot.actuator_names)
        actuator, joint = sequence_channel(robot)
        q = robot.default_joint_position()
        base = np.asarray(robot.joint_to_actuator_arrays({'position': q})['position'])
        self.base = np.where(np.isfinite(base), base, 0.0)
        self.k = self.names.index(actuator)
        state = {'position': dict(zip(self.names, self.base))}
        self.q0 = robot.actuator_to_joint(state)['position'][joint]
        state['position'][actuator] += STEP
        self.dq = robot.actuator_to_joint(state)['position'][joint] - self.q0
        self.joint = joint
        self.node_mode = node_mode
        self.zeros = [0.0] * len(self.names)
        phases = np.linspace(0.0, 2.0 * np.pi, len(self.names), endpoint=False)
        self.motion = [self.base + WIGGLE * np.sin(2.0 * np.pi * i / MOTION + phases)
                       for i in range(MOTION)]
        self.seq = 0
        self.sent: dict[int, tuple[float, float]] = {}
        self.first: dict[int, tuple[float, float]] = {}
        self.received: list[float] = []
        self.diag: dict[str, str] | None = None

    def publish(self) -> None:
        msg = self.msg_type()
        x = self.motion[self.seq % MOTION].copy()
        x[self.k] = self.base[self.k] + (self.seq % WRAP) * STEP
        msg.header.stamp = self.node.get_clock().now().to_msg()
        msg.name = self.names
        msg.position = x.tolist()
        msg.velocity = self.zeros
        msg.effort = self.zeros
        self.sent[self.seq] = (time.time(), time.monotonic())
        self.pub.publish(msg)
        self.seq += 1

    def on_joint_states(self, msg: Any) -> None:
        now = time.monotonic()
        self.received.append(now)
        if self.node_mode:
            try:
                q = msg.position[msg.name.index(self.joint)]
            except (ValueError, IndexError):
                return
            step = (q - self.q0) / self.dq
        else:
            step = (msg.position[self.k] - self.base[self.k]) / STEP
        seq = int(round(step)) + (self.seq - 1) // WRAP * WRAP
        if seq > self.seq - 1:
            seq -= WRAP
        if seq not in self.first:
            stamp = msg.header.stamp.sec + msg.header.stamp.nanosec * 1e-9
            self.first[seq] = (stamp, now)

    def on_diag(self, msg: Any) -> None:
        for s in msg.status:
            if s.name.endswith('transmission_hardware_interface'):
                self.diag = {kv.key: kv.value for kv in s.values}


def measure(label: str, argv: list[str], env: dict[str, str], robot: RobotTransmissions,
            node_mode: bool, args: argparse.Namespace) -> dict[str, Any]:
    """Run one contender process, feed it for warm-up + ``--seconds``; return its figures."""
    import rclpy
    from rclpy.executors import SingleThreadedExecutor
    log = tempfile.TemporaryFile()
    # not from this directory: ``python -m`` puts the working directory first on the path, and
    # from the repository's root that is this package, not the --before copy
    proc = subprocess.Popen(argv, env=env, stdout=log, stderr=subprocess.STDOUT,
                            cwd=tempfile.gettempdir())
    feeder = None
    try:  # from here on the contender is stopped whatever happens
        rclpy.init()
        feeder = Feeder(robot, node_mode)
        executor = SingleThreadedExecutor()
        executor.add_node(feeder.node)
        deadline = time.monotonic() + 90.0   # start-up on a loaded machine takes its time
        while not feeder.received and time.monotonic() < deadline:
            feeder.publish()
            executor.spin_once(timeout_sec=0.01)
        if not feeder.received:
            log.seek(0)
            raise RuntimeError(f'{label} never answered within 90 s (still running: '
                               f'{proc.poll() is None}):\n{log.read().decode()}')
        result: dict[str, Any] = {}
        for phase, seconds in (('warmup', args.warmup), ('measure', args.seconds)):
            start = time.monotonic()
            cpu0 = cpu_seconds(proc.pid)
            received0, seq0 = len(feeder.received), feeder.seq
            feed(feeder, executor, start, seconds, 1.0 / args.state_rate)
            elapsed = time.monotonic() - start
            cpu = cpu_seconds(proc.pid) - cpu0
            sent = feeder.seq - seq0
            recv, stamp = [], []
            for s in range(seq0, feeder.seq):
                if s in feeder.first:
                    stamp_s, back = feeder.first[s]
                    wall, mono = feeder.sent[s]
                    recv.append(back - mono)
                    stamp.append(stamp_s - wall)
            result = {
                'rate_hz': (len(feeder.received) - received0) / elapsed,
                'states_hz': sent / elapsed,
                'cpu_percent': 100.0 * cpu / elapsed,
                'cpu_us': 1e6 * cpu / max(sent, 1),
                'recv_ms': [1e3 * float(np.percentile(recv, q)) if recv else float('nan')
                            for q in (50, 99)],
                'stamp_ms': [1e3 * float(np.percentile(stamp, q)) if stamp else float('nan')
                             for q in (50, 99)],
                'reflected': len(recv) / max(sent, 1),
            }
        if node_mode:
            end = time.monotonic() + 1.5
            while time.monotonic() < end:
                executor.spin_once(timeout_sec=0.05)
            if feeder.diag:
                result['diag'] = {k: feeder.diag.get(k) for k in (
                    'cycles', 'cycle_time_mean_ms', 'cycle_time_p99_ms', 'overruns')}
        return result
    finally:
        if feeder is not None:
            feeder.node.destroy_node()
        rclpy.try_shutdown()
        proc.send_signal(2)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


def feed(feeder: Feeder, executor: Any, start: float, seconds: float, period: float) -> None:
    """Publish a state every ``period`` seconds (no catching up after a stall) and spin."""
    next_t = start
    while True:
        now = time.monotonic()
        if now - start >= seconds:
            return
        if now >= next_t:
            feeder.publish()
            next_t += period
            if next_t < now - 0.01:
                next_t = now + period
        executor.spin_once(timeout_sec=max(0.0, next_t - time.monotonic()))


def min_median(values: Sequence[float], fmt: str = '{:.1f}') -> str:
    """Return ``min / median`` of ``values`` formatted."""
    values = [v for v in values if v == v]
    if not values:
        return '-'
    return f'{fmt.format(min(values))} / {fmt.format(statistics.median(values))}'


def report(runs: list[dict[str, dict[str, Any]]], contenders: Sequence[str],
           args: argparse.Namespace) -> str:
    """Return the Markdown table of the runs: figures and CPU ratios, min / median."""
    rows = []
    for c in contenders:
        rs = [run[c] for run in runs]
        ratio = ([run[c]['cpu_us'] / run['relay']['cpu_us'] for run in runs]
                 if 'relay' in runs[0] else [])
        diag = [r.get('diag') or {} for r in rs]
        cycle = [float(d['cycle_time_mean_ms']) * 1e3 for d in diag if d.get('cycles')]
        rows.append([
            LABELS[c], min_median([r['rate_hz'] for r in rs]),
            min_median([r['cpu_us'] for r in rs]),
            min_median(ratio, '{:.2f}x') if ratio else '-',
            min_median([r['recv_ms'][0] for r in rs], '{:.2f}'),
            min_median([r['recv_ms'][1] for r in rs], '{:.2f}'),
            min_median([r['stamp_ms'][0] for r in rs], '{:.2f}'),
            min_median([r['stamp_ms'][1] for r in rs], '{:.2f}'),
            min_median(cycle) if cycle else '-'])
    return table(['contender', 'joint_states Hz', 'CPU us per state', 'CPU / relay',
                  'send->recv p50 ms', 'p99 ms', 'send->stamp p50 ms', 'p99 ms',
                  'node update us'], rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split('\n\n')[0],
        epilog='Each run takes about (warm-up + seconds + 5) s per contender.')
    parser.add_argument('--relay', action='store_true', help=argparse.SUPPRESS)
    parser.add_argument('--urdf', default=str(EXAMPLE_URDF),
                        help='robot description (URDF or .xacro), or "humanoid" / '
                             '"humanoid-twin": the G1-like humanoid of bench/synthetic_robots.py '
                             'with parallel ankles / its all-linear twin; default: the example '
                             'robot')
    parser.add_argument('--contenders', nargs='+', choices=CONTENDERS,
                        default=['relay', 'timer', 'event'],
                        help='what to run in each run (the relay is the anchor of the ratios)')
    parser.add_argument('--before', metavar='DIR',
                        help='a copy of the package (its root folder) whose timer mode runs too')
    parser.add_argument('--runs', type=int, default=3, help='runs of all contenders')
    parser.add_argument('--seconds', type=float, default=5.0, help='measured seconds each')
    parser.add_argument('--warmup', type=float, default=1.0, help='seconds before measuring')
    parser.add_argument('--state-rate', type=float, default=1000.0,
                        help='actuator_states sent per second')
    parser.add_argument('--update-rate', type=float, default=1000.0,
                        help='update_rate of timer mode, Hz')
    parser.add_argument('--watchdog-rate', type=float, default=100.0,
                        help='update_rate of event-driven mode (its watchdogs), Hz')
    parser.add_argument('--json', help='also write every run to this file')
    parser.add_argument('--profile', metavar='DIR',
                        help='run the node contenders under cProfile, one <contender>.prof in DIR '
                             'per contender (of the last run); this slows them down')
    add_log_option(parser)
    args = parser.parse_args(argv)
    with logged(args, 'the hardware interface node at 1 kHz against a bare rclpy relay'):
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    """Measure and print (see the module docstring)."""
    if args.relay:
        return relay_main()
    from transmission_plugins.robot.loading import load_robot_transmissions
    from transmission_plugins.tools.launch.node_plan import read_description
    import yaml
    if args.urdf in ('humanoid', 'humanoid-twin'):
        from synthetic_robots import humanoid_urdf
        urdf = humanoid_urdf(args.urdf == 'humanoid')
    else:
        urdf = read_description(Path(args.urdf))
    robot = load_robot_transmissions(urdf)
    env = dict(os.environ)
    # a domain range of this benchmark's own (230-232; the tests use others, 233+ fails)
    env.setdefault('ROS_DOMAIN_ID', str(os.getpid() % 3 + 230))
    env.setdefault('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')
    root = str(Path(__file__).resolve().parent.parent)
    env['PYTHONPATH'] = root + os.pathsep + env.get('PYTHONPATH', '')
    os.environ.update({k: env[k] for k in ('ROS_DOMAIN_ID', 'ROS_AUTOMATIC_DISCOVERY_RANGE')})
    contenders = [c for c in CONTENDERS if c in args.contenders or (c == 'before' and args.before)]
    envs = {c: env for c in contenders}
    if args.before:
        before = str(Path(args.before).resolve())
        envs['before'] = dict(env, PYTHONPATH=before + os.pathsep + env.get('PYTHONPATH', ''))
    runs: list[dict[str, dict[str, Any]]] = []
    with tempfile.TemporaryDirectory() as tmp:
        argvs = {'relay': [sys.executable, str(Path(__file__).resolve()), '--relay']}
        for mode, rate, event in (('timer', args.update_rate, False),
                                  ('event', args.watchdog_rate, True),
                                  ('before', args.update_rate, False)):
            params = Path(tmp, f'{mode}.yaml')
            params.write_text(yaml.safe_dump({'/**/transmission_hardware_interface': {
                'ros__parameters': {'robot_description': urdf, 'update_rate': rate,
                                    'event_driven': event, 'state_timeout': 0.1,
                                    'diagnostic_period': 1.0}}}))
            profile = ['-m', 'cProfile', '-o', str(Path(args.profile, f'{mode}.prof'))] \
                if args.profile else []
            argvs[mode] = [sys.executable, *profile, '-m',
                           'transmission_plugins.ros.hardware_interface_node',
                           '--ros-args', '--params-file', str(params)]
        for i in range(args.runs):
            run = {c: measure(LABELS[c], argvs[c], envs[c], robot, c != 'relay', args)
                   for c in contenders}
            runs.append(run)
            print(f'run {i + 1}/{args.runs}: ' + ', '.join(
                f'{LABELS[c]} {r["cpu_us"]:.0f} us/state, {r["rate_hz"]:.0f} Hz'
                for c, r in run.items()), flush=True)
    print(f'\n{robot.robot_name}: {len(robot.transmissions)} transmissions, '
          f'{len(robot.joint_names)} joints, {len(robot.actuator_names)} actuators; states at '
          f'{args.state_rate:g} Hz; timer mode at {args.update_rate:g} Hz, event-driven with '
          f'watchdogs at {args.watchdog_rate:g} Hz; {args.runs} runs '
          f'of {args.seconds:g} s; {os.cpu_count()} cores; {environment()}\n')
    print(report(runs, contenders, args))
    if args.json:
        Path(args.json).write_text(json.dumps(runs, indent=2))
    return 0


if __name__ == '__main__':
    sys.exit(main())
