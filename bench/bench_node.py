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
Benchmark the hardware interface node on the PR2 at 1 kHz against a bare rclpy relay.

Run ``python bench/bench_node.py [--seconds 10] [--executor single|events]``.  Each contender
runs in its own process, one after the other, fed by this process with PR2 ``actuator_states``
(32 actuators, position + velocity + effort) at ``--state-rate`` Hz:

* ``bare relay``: subscribes ``actuator_states``, restamps and republishes the message on
  ``joint_states``, no maths (the floor of what rclpy costs per message);
* ``hardware interface``: ``transmission_hardware_interface`` with ``update_rate`` 1000 Hz,
  converting the latest state of the 30 PR2 transmissions (44 joints) every cycle.

Reported per contender: achieved ``joint_states`` rate, CPU of the node process (user + system,
from ``/proc``) per published message and in percent of one core, and the latency from sending
a state to the ``joint_states`` message that first carries it: ``send->pub`` uses the published
stamp (one DDS hop plus the wait for the next cycle), ``send->recv`` the arrival back here (two
hops).  For the hardware interface the node's own cycle time and overruns come from
``/diagnostics``.
"""

import argparse
import json
import os
from pathlib import Path
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
PR2 = ROOT.parent / 'shared' / 'urdf_corpus' / 'pr2.urdf'
SEQ_JOINT = 'r_shoulder_pan_joint'
SEQ_ACTUATOR = 'r_shoulder_pan_motor'


def relay_main() -> int:
    """Run the bare relay node (``--relay``)."""
    sys.path.insert(0, str(ROOT))
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


def percentiles(values, qs=(50, 99)):
    if not values:
        return [float('nan')] * len(qs)
    return [float(np.percentile(values, q)) for q in qs]


class Feeder:
    """Publish PR2 actuator states with a sequence number and record what comes back."""

    def __init__(self, robot, node_mode: bool) -> None:
        from diagnostic_msgs.msg import DiagnosticArray
        from rclpy.node import Node
        from sensor_msgs.msg import JointState
        from transmission_plugins.ros.common import reliable_qos
        self.JointState = JointState
        self.node = Node('bench_feeder')
        self.pub = self.node.create_publisher(JointState, 'actuator_states', reliable_qos(10))
        self.node.create_subscription(JointState, 'joint_states', self.on_joint_states,
                                      reliable_qos(100))
        self.node.create_subscription(DiagnosticArray, '/diagnostics', self.on_diag, 10)
        self.names = list(robot.actuator_names)
        q = robot.default_joint_position()
        self.base = np.asarray(robot.joint_to_actuator_arrays({'position': q})['position'])
        self.base = np.where(np.isfinite(self.base), self.base, 0.0)
        self.k = self.names.index(SEQ_ACTUATOR)
        self.step = 1e-3
        # joint position of SEQ_JOINT as a function of the sequence number (simple transmission)
        a = {'position': dict(zip(self.names, self.base))}
        q0 = robot.actuator_to_joint(a)['position'][SEQ_JOINT]
        a['position'][SEQ_ACTUATOR] += self.step
        self.dq = robot.actuator_to_joint(a)['position'][SEQ_JOINT] - q0
        self.q0 = q0
        self.node_mode = node_mode
        self.seq = 0
        self.sent = {}
        self.first = {}
        self.received = []
        self.diag = None

    def publish(self) -> None:
        msg = self.JointState()
        x = self.base.copy()
        x[self.k] += self.seq * self.step
        msg.header.stamp = self.node.get_clock().now().to_msg()
        msg.name = self.names
        msg.position = x.tolist()
        msg.velocity = [0.0] * len(x)
        msg.effort = [0.0] * len(x)
        self.sent[self.seq] = (time.time(), time.monotonic())
        self.pub.publish(msg)
        self.seq += 1

    def on_joint_states(self, msg) -> None:
        now = time.monotonic()
        self.received.append(now)
        if self.node_mode:
            try:
                q = msg.position[msg.name.index(SEQ_JOINT)]
            except ValueError:
                return
            seq = int(round((q - self.q0) / self.dq))
        else:
            seq = int(round((msg.position[self.k] - self.base[self.k]) / self.step))
        if seq not in self.first:
            stamp = msg.header.stamp.sec + msg.header.stamp.nanosec * 1e-9
            self.first[seq] = (stamp, now)

    def on_diag(self, msg) -> None:
        for s in msg.status:
            if s.name.endswith('transmission_hardware_interface'):
                self.diag = {kv.key: kv.value for kv in s.values}


def run_contender(label: str, argv, env, robot, node_mode: bool, args) -> dict:
    import rclpy
    from rclpy.executors import SingleThreadedExecutor
    log = tempfile.TemporaryFile()
    proc = subprocess.Popen(argv, env=env, stdout=log, stderr=subprocess.STDOUT)
    feeder = None
    try:  # from here on the contender is stopped whatever happens
        rclpy.init()
        feeder = Feeder(robot, node_mode)
        executor = SingleThreadedExecutor()
        executor.add_node(feeder.node)
        period = 1.0 / args.state_rate
        # wait for the contender to answer
        deadline = time.monotonic() + 30.0
        while not feeder.received and time.monotonic() < deadline:
            feeder.publish()
            executor.spin_once(timeout_sec=0.01)
        if not feeder.received:
            log.seek(0)
            raise RuntimeError(f'{label} never answered:\n{log.read().decode()}')
        phases = [('warmup', args.warmup), ('measure', args.seconds)]
        result = {}
        for phase, seconds in phases:
            start = time.monotonic()
            cpu0 = cpu_seconds(proc.pid)
            n_recv0 = len(feeder.received)
            seq0 = feeder.seq
            next_t = start
            while True:
                now = time.monotonic()
                if now - start >= seconds:
                    break
                if now >= next_t:
                    feeder.publish()
                    next_t += period
                    if next_t < now - 0.01:
                        next_t = now + period
                executor.spin_once(timeout_sec=max(0.0, next_t - time.monotonic()))
            elapsed = time.monotonic() - start
            cpu = cpu_seconds(proc.pid) - cpu0
            n = len(feeder.received) - n_recv0
            seq1 = feeder.seq
            if phase == 'measure':
                pub_lat = []
                rtt = []
                for s in range(seq0, seq1):
                    if s in feeder.first:
                        stamp, recv = feeder.first[s]
                        wall, mono = feeder.sent[s]
                        pub_lat.append(stamp - wall)
                        rtt.append(recv - mono)
                p50, p99 = percentiles(pub_lat)
                r50, r99 = percentiles(rtt)
                result = {
                    'contender': label,
                    'states_sent_hz': (seq1 - seq0) / elapsed,
                    'rate_hz': n / elapsed,
                    'cpu_percent': 100.0 * cpu / elapsed,
                    'cpu_per_msg_us': 1e6 * cpu / max(n, 1),
                    'send_to_pub_ms': (1e3 * p50, 1e3 * p99),
                    'send_to_recv_ms': (1e3 * r50, 1e3 * r99),
                    'states_reflected': len(pub_lat) / max(seq1 - seq0, 1),
                }
        if node_mode:
            t = time.monotonic()
            while time.monotonic() - t < 1.5:
                executor.spin_once(timeout_sec=0.05)
            if feeder.diag:
                result['node_cycle_mean_ms'] = float(feeder.diag['cycle_time_mean_ms'])
                result['node_cycle_p99_ms'] = float(feeder.diag['cycle_time_p99_ms'])
                result['node_overruns'] = int(feeder.diag['overruns'])
                result['node_cycles'] = int(feeder.diag['cycles'])
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--relay', action='store_true', help=argparse.SUPPRESS)
    parser.add_argument('--urdf', default=str(PR2))
    parser.add_argument('--seconds', type=float, default=10.0)
    parser.add_argument('--warmup', type=float, default=2.0)
    parser.add_argument('--state-rate', type=float, default=1000.0)
    parser.add_argument('--update-rate', type=float, default=1000.0)
    parser.add_argument('--executor', choices=('single', 'events'), default='events',
                        help='executor of both contenders (TP_EXECUTOR)')
    parser.add_argument('--json', help='also write the results to this file')
    parser.add_argument('--profile', help='cProfile the hardware interface into this file')
    args = parser.parse_args()
    if args.relay:
        return relay_main()
    sys.path.insert(0, str(ROOT))
    import yaml
    from transmission_plugins.robot.loading import load_robot_transmissions
    urdf = Path(args.urdf).read_text()
    robot = load_robot_transmissions(urdf)
    env = dict(os.environ)
    env.setdefault('ROS_DOMAIN_ID', str(os.getpid() % 90 + 130))
    env.setdefault('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')
    env['TP_EXECUTOR'] = args.executor
    env['PYTHONPATH'] = str(ROOT) + os.pathsep + env.get('PYTHONPATH', '')
    os.environ.update({k: env[k] for k in ('ROS_DOMAIN_ID', 'ROS_AUTOMATIC_DISCOVERY_RANGE')})
    with tempfile.TemporaryDirectory() as tmp:
        params = Path(tmp, 'params.yaml')
        params.write_text(yaml.safe_dump({'/**/transmission_hardware_interface': {
            'ros__parameters': {'robot_description': urdf, 'update_rate': args.update_rate,
                                'state_timeout': 0.1, 'diagnostic_period': 1.0}}}))
        profile = ['-m', 'cProfile', '-o', args.profile] if args.profile else []
        node = [sys.executable] + profile + [
            '-m', 'transmission_plugins.ros.hardware_interface_node', '--ros-args',
            '--params-file', str(params)]
        contenders = [
            ('bare relay', [sys.executable, str(Path(__file__).resolve()), '--relay'], False),
            ('hardware interface', node, True),
        ]
        results = [run_contender(label, argv, env, robot, node_mode, args)
                   for label, argv, node_mode in contenders]
    print(f'PR2 ({len(robot.transmissions)} transmissions, {len(robot.joint_names)} joints, '
          f'{len(robot.actuator_names)} actuators), states at {args.state_rate:g} Hz, '
          f'update_rate {args.update_rate:g} Hz, {args.executor} executor, '
          f'{args.seconds:g} s measured, {os.cpu_count()} cores')
    header = (f'{"contender":20s} {"rate Hz":>9s} {"CPU %":>7s} {"CPU us/msg":>11s} '
              f'{"send->pub p50/p99 ms":>21s} {"send->recv p50/p99 ms":>22s}')
    print(header)
    for r in results:
        print(f'{r["contender"]:20s} {r["rate_hz"]:9.1f} {r["cpu_percent"]:7.1f} '
              f'{r["cpu_per_msg_us"]:11.1f} {r["send_to_pub_ms"][0]:10.3f}/'
              f'{r["send_to_pub_ms"][1]:<10.3f} {r["send_to_recv_ms"][0]:10.3f}/'
              f'{r["send_to_recv_ms"][1]:<10.3f}')
    node = results[1]
    relay = results[0]
    if 'node_cycle_mean_ms' in node:
        print(f'hardware interface cycles: mean {node["node_cycle_mean_ms"]:.3f} ms, '
              f'p99 {node["node_cycle_p99_ms"]:.3f} ms, overruns {node["node_overruns"]} of '
              f'{node["node_cycles"]}')
    ratio = node['cpu_per_msg_us'] / relay['cpu_per_msg_us']
    print(f'rate: {100.0 * node["rate_hz"] / args.update_rate:.1f} % of {args.update_rate:g} '
          f'Hz (target >= 99 %); CPU per cycle: {ratio:.2f}x the bare relay (target <= 2x)')
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == '__main__':
    sys.exit(main())
