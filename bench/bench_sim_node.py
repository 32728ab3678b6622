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
The simulation interface node's CPU per cycle next to the hardware interface's, one run.

Run ``python bench/bench_sim_node.py [--urdf PR2] [--seconds 10] [--rate 1000]``.  Three
contenders, one after the other, each in its own process, fed by this process at ``--rate`` Hz
with the message it converts (position, velocity and effort of every entry):

* ``bare relay``: subscribes ``actuator_states`` and republishes each message restamped on
  ``joint_states`` (what rclpy costs per message, without maths: the anchor);
* ``hardware interface``: ``actuator_states`` in, ``joint_states`` out, ``update_rate`` =
  ``--rate``;
* ``sim interface``: a simulator's ``joint_states`` (every joint of a transmission) in,
  ``actuator_states`` out, ``update_rate`` = ``--rate``.

Reported: the output rate, CPU of the node process (user + system, ``/proc``) in percent of one
core and per published message, the ratio to the relay, and the node's own cycle work time
(mean and p99, from its ``/diagnostics``).  The default robot is the PR2 of
``../shared/urdf_corpus`` when present, else the bundled example robot.
"""

import argparse
import os
from pathlib import Path
import subprocess
import sys
import tempfile
import time

from benchlib import add_log_option
from benchlib import logged
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
PR2 = ROOT.parent / 'shared' / 'urdf_corpus' / 'pr2.urdf'
EXAMPLE = ROOT / 'urdf' / 'example_robot.urdf.xacro'


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


def measure(label, argv, env, names, values, topics, node_name, args):
    """Feed ``values`` under ``names`` on ``topics[0]``, count ``topics[1]``; return figures."""
    import rclpy
    from diagnostic_msgs.msg import DiagnosticArray
    from rclpy.executors import SingleThreadedExecutor
    from sensor_msgs.msg import JointState
    from transmission_plugins.ros.common import reliable_qos
    log = tempfile.TemporaryFile()
    proc = subprocess.Popen(argv, env=env, stdout=log, stderr=subprocess.STDOUT)
    received = []
    diag = {}

    def on_diag(msg):
        for s in msg.status:
            if node_name and s.name.endswith(node_name):
                diag.update({kv.key: kv.value for kv in s.values})
    rclpy.init()
    node = rclpy.create_node('bench_sim_feeder')
    try:
        pub = node.create_publisher(JointState, topics[0], reliable_qos(10))
        node.create_subscription(JointState, topics[1], lambda m: received.append(1),
                                 reliable_qos(100))
        node.create_subscription(DiagnosticArray, '/diagnostics', on_diag, 10)
        executor = SingleThreadedExecutor()
        executor.add_node(node)
        msg = JointState(name=list(names), position=values[0].tolist(),
                         velocity=values[1].tolist(), effort=values[2].tolist())

        def run(seconds):
            start = next_t = time.monotonic()
            while time.monotonic() - start < seconds:
                if time.monotonic() >= next_t:
                    msg.header.stamp = node.get_clock().now().to_msg()
                    pub.publish(msg)
                    next_t += 1.0 / args.rate
                    if next_t < time.monotonic() - 0.01:
                        next_t = time.monotonic() + 1.0 / args.rate
                executor.spin_once(timeout_sec=max(0.0, next_t - time.monotonic()))
            return time.monotonic() - start
        deadline = time.monotonic() + 30.0
        while not received and time.monotonic() < deadline:
            run(0.05)
        if not received:
            log.seek(0)
            raise RuntimeError(f'{label} never answered:\n{log.read().decode()}')
        run(args.warmup)
        cpu0, n0 = cpu_seconds(proc.pid), len(received)
        elapsed = run(args.seconds)
        cpu, n = cpu_seconds(proc.pid) - cpu0, len(received) - n0
        run(1.5)   # the diagnostics of the measured cycles
        return {'contender': label, 'rate_hz': n / elapsed, 'cpu_percent': 100 * cpu / elapsed,
                'cpu_per_msg_us': 1e6 * cpu / max(n, 1),
                'cycle_mean_ms': float(diag.get('cycle_time_mean_ms', 'nan')),
                'cycle_p99_ms': float(diag.get('cycle_time_p99_ms', 'nan'))}
    finally:
        node.destroy_node()
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
    parser.add_argument('--urdf', default=str(PR2 if PR2.is_file() else EXAMPLE),
                        help='robot description (default: the PR2 of ../shared, else the '
                             'bundled example robot)')
    parser.add_argument('--seconds', type=float, default=10.0, help='measured seconds')
    parser.add_argument('--warmup', type=float, default=2.0, help='seconds before measuring')
    parser.add_argument('--rate', type=float, default=1000.0,
                        help='input rate and update_rate, Hz')
    add_log_option(parser)
    args = parser.parse_args()
    with logged(args, 'the simulation interface node'):
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    """Measure and print (see the module docstring)."""
    sys.path.insert(0, str(ROOT))
    if args.relay:
        return relay_main()
    import yaml
    from transmission_plugins.robot.loading import load_robot_transmissions
    from transmission_plugins.tools.launch.node_plan import read_description
    urdf = read_description(args.urdf)
    robot = load_robot_transmissions(urdf, warn=False)
    q = robot.default_joint_position()
    rng = np.random.default_rng(0)
    joints = [q, rng.uniform(-0.1, 0.1, len(q)), rng.uniform(-1, 1, len(q))]
    joints = list(robot.actuator_to_joint_arrays(robot.joint_to_actuator_arrays(
        dict(zip(('position', 'velocity', 'effort'), joints)))).values())
    motors = list(robot.joint_to_actuator_arrays(
        dict(zip(('position', 'velocity', 'effort'), joints))).values())
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get('PYTHONPATH', ''))
    env.setdefault('ROS_DOMAIN_ID', str(os.getpid() % 90 + 130))
    env.setdefault('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')
    os.environ.update({k: env[k] for k in ('ROS_DOMAIN_ID', 'ROS_AUTOMATIC_DISCOVERY_RANGE')})
    settings = {'robot_description': urdf, 'update_rate': args.rate, 'state_timeout': 0.1}
    with tempfile.TemporaryDirectory() as tmp:
        params = Path(tmp, 'params.yaml')
        params.write_text(yaml.safe_dump({
            f'/**/{name}': {'ros__parameters': dict(settings)}
            for name in ('transmission_hardware_interface', 'transmission_sim_interface')}))

        def node(exe):
            return [sys.executable, '-m', 'transmission_plugins.ros.executables', exe,
                    '--ros-args', '--params-file', str(params)]
        results = [
            measure('bare relay', [sys.executable, __file__, '--relay'], env,
                    robot.actuator_names, motors, ('actuator_states', 'joint_states'), '', args),
            measure('hardware interface', node('hardware_interface_node'), env,
                    robot.actuator_names, motors, ('actuator_states', 'joint_states'),
                    'transmission_hardware_interface', args),
            measure('sim interface', node('sim_interface_node'), env, robot.joint_names,
                    joints, ('joint_states', 'actuator_states'), 'transmission_sim_interface',
                    args)]
    print(f'{robot.robot_name}: {len(robot.transmissions)} transmissions, '
          f'{len(robot.joint_names)} joints, {len(robot.actuator_names)} actuators; input and '
          f'update_rate {args.rate:g} Hz, {args.seconds:g} s measured, {os.cpu_count()} cores')
    print(f'{"contender":20s} {"rate Hz":>8s} {"CPU %":>6s} {"CPU us/msg":>10s} '
          f'{"x relay":>7s} {"cycle mean/p99 ms":>18s}')
    relay = results[0]['cpu_per_msg_us']
    for r in results:
        print(f'{r["contender"]:20s} {r["rate_hz"]:8.1f} {r["cpu_percent"]:6.1f} '
              f'{r["cpu_per_msg_us"]:10.1f} {r["cpu_per_msg_us"] / relay:7.2f} '
              f'{r["cycle_mean_ms"]:8.3f}/{r["cycle_p99_ms"]:<8.3f}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
