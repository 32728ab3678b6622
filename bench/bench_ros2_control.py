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
Measure ros2_control in the loop: tracking, added latency, rates, stops, limit precedence.

The node set of ``ros2_control.launch.py`` (the same plan, :mod:`transmission_plugins.tools.
ros2_control_plan`) is started here as plain processes, at ``--rates`` (default 100 and 500 Hz,
the controller manager and the hardware interface alike), against two plants:

* ``transmissions``: controller manager -> TopicBasedSystem -> ``transmission/joint_commands``
  -> hardware interface -> ``actuator_commands`` -> mock actuators (rotors) -> back;
* ``joint space``: the same controller and topics on the same rotor simulator without
  transmissions (every commandable joint its own motor, reduction 1): the mock actuators remapped
  straight onto the block's topics, no hardware interface.

Reported per plant and rate: joint_trajectory_controller's tracking error (RMS and max over
``--duration`` s of a raised cosine on every joint, from its ``controller_state``); the delay from
a joint command (``transmission/joint_commands``) to the plant's joint state that follows it
(*command -> state*); the hardware interface's own lags, joint command to actuator command and
actuator state to joint state (the delay that best aligns the pan joint's values on the two
topics, arrival times taken here, so every queue between them counts); the achieved rates of the
controller manager's commands, of joint_state_broadcaster's ``joint_states`` and of the plant's
states.  ``--scenarios stop limits`` also: what each side does when the other stops, and which
joint-limit enforcement acts first.  Needs ``../shared/ros2_control/install.sh .venv`` (the
script re-runs itself under ``.venv/ros2_control/setup.bash``); ROS domain ``230 + pid % 3``
unless ``ROS_DOMAIN_ID`` is set.  Results on a shared machine vary: say so.
"""

import argparse
import json
import math
import os
from pathlib import Path
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SETUP = Path(sys.prefix) / 'ros2_control' / 'setup.bash'
EXAMPLE = REPO / 'urdf' / 'example_robot.urdf.xacro'


def _reexec() -> None:
    """Run again under ros2_control/setup.bash unless its libraries are there already."""
    if os.environ.get('TP_BENCH_R2C') == '1':
        return
    if not SETUP.is_file():
        sys.exit(f'{SETUP} missing: bash ../shared/ros2_control/install.sh {sys.prefix}')
    os.environ['TP_BENCH_R2C'] = '1'
    os.execvp('bash', ['bash', '-c', f'. "{SETUP}" && exec "$0" "$@"', sys.executable,
                       *sys.argv])


class Recorder:
    """Arrival times and messages of the topics the measurements read, in this process."""

    def __init__(self, node: Any, namespace: str) -> None:
        from control_msgs.msg import JointTrajectoryControllerState
        from diagnostic_msgs.msg import DiagnosticArray
        from rclpy.qos import qos_profile_sensor_data
        from sensor_msgs.msg import JointState
        self.lock = threading.Lock()
        self.arrivals: dict[str, list[float]] = {}
        self.messages: dict[str, list[Any]] = {}
        topics = {'transmission/joint_commands': JointState, 'actuator_commands': JointState,
                  'actuator_states': JointState, 'transmission/joint_states': JointState,
                  'joint_states': JointState,
                  'joint_trajectory_controller/controller_state':
                      JointTrajectoryControllerState}
        for topic, kind in topics.items():
            node.create_subscription(kind, f'{namespace}/{topic}',
                                     lambda m, t=topic: self._add(t, m), qos_profile_sensor_data)
        node.create_subscription(DiagnosticArray, '/diagnostics', self._diag, 10)
        self.diagnostics: dict[str, str] = {}

    def _add(self, topic: str, msg: Any) -> None:
        now = time.monotonic()
        with self.lock:
            self.arrivals.setdefault(topic, []).append(now)
            self.messages.setdefault(topic, []).append(msg)

    def _diag(self, msg: Any) -> None:
        for status in msg.status:
            values = {v.key: v.value for v in status.values}
            if 'clamped.joint_position' in values:   # the hardware interface's
                with self.lock:
                    self.diagnostics.update(values)
                    self.diagnostics['message'] = status.message

    def clear(self) -> None:
        with self.lock:
            self.arrivals.clear()
            self.messages.clear()

    def rate(self, topic: str) -> float:
        t = self.arrivals.get(topic, [])
        return (len(t) - 1) / (t[-1] - t[0]) if len(t) > 2 else 0.0

    def series(self, topic: str, name: str, scale: float = 1.0) -> list[Any]:
        """Return ``(arrival, position of name / scale)`` of ``topic``."""
        out = []
        for t, m in zip(self.arrivals.get(topic, []), self.messages.get(topic, [])):
            if name in m.name and m.position:
                out.append((t, m.position[list(m.name).index(name)] / scale))
        return out

    def lag(self, early: str, late: str, name_early: str, name_late: str,
            scale: float) -> float:
        """
        Return the delay (ms) that best aligns ``late`` on ``early`` (one joint's positions).

        The same moving value seen on two topics, e.g. a joint command and the actuator command
        it becomes: every queue and wait between them counts, not only the last hop.
        """
        import numpy as np
        a = np.array(self.series(early, name_early))
        b = np.array(self.series(late, name_late, scale))
        if len(a) < 10 or len(b) < 10:
            return float('nan')
        best, best_lag = float('inf'), float('nan')
        for lag in np.arange(0.0, 0.5, 0.0005):
            t = b[:, 0] - lag
            inside = (t > a[0, 0]) & (t < a[-1, 0])
            if inside.sum() < 10:
                break
            err = np.mean(np.abs(np.interp(t[inside], a[:, 0], a[:, 1]) - b[inside, 1]))
            if err < best:
                best, best_lag = err, lag
        return best_lag * 1e3


class Loop:
    """One node set as processes: controller manager, spawner, the package's nodes."""

    def __init__(self, rate: int, plant: str, description_file: Path, node: Any,
                 namespace: str, extra_cm: dict[str, Any] | None = None,
                 command_interfaces: str = 'position', config_file: str = '') -> None:
        from transmission_plugins.tools.launch.node_plan import installed_executable
        from transmission_plugins.tools.launch.params_file import write_params_file
        from transmission_plugins.tools.launch.ros2_control_plan import plan_ros2_control
        self.dir = tempfile.mkdtemp(prefix='tp_bench_r2c_')
        self.procs: dict[str, subprocess.Popen] = {}
        source = description_file if plant == 'transmissions' else self._identity(
            description_file)
        plan = plan_ros2_control({'description_file': str(source), 'update_rate': str(rate),
                                  'namespace': namespace,
                                  'command_interfaces': command_interfaces,
                                  'config_file': config_file},
                                 robot_state_publisher=False)
        control = plan.control_node._replace(
            parameters=dict(plan.control_node.parameters, **(extra_cm or {})))
        params = write_params_file(plan.nodes.specs + [control], self.dir, plan.controllers)
        self.plan = plan
        from rclpy.qos import DurabilityPolicy
        from rclpy.qos import QoSProfile
        from std_msgs.msg import String
        self.desc = node.create_publisher(String, f'/{namespace}/robot_description', QoSProfile(
            depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL))
        self.desc.publish(String(data=plan.description))
        ros = ['-r', f'__ns:=/{namespace}', '--log-level', 'info']
        for spec in plan.nodes.specs:
            remaps = list(spec.remappings)
            if plant == 'joint_space':
                if spec.name != 'mock_actuators':
                    continue   # no hardware interface: the mock meets the block's topics
                remaps = [('actuator_states', 'transmission/joint_states'),
                          ('actuator_commands', 'transmission/joint_commands')]
            args = [a for s, d in remaps for a in ('-r', f'{s}:={d}')]
            self._start(spec.name, [sys.executable, '-m', 'transmission_plugins.ros.executables',
                                    spec.executable, '--ros-args', '-r', f'__node:={spec.name}',
                                    '--params-file', params, *args, *ros])
        self._start('ros2_control_node', [installed_executable('controller_manager',
                                                               'ros2_control_node'),
                                          '--ros-args', '--params-file', params, *ros])
        # as the launch file does: the controllers once the plant publishes joint states
        ready = (('transmission_hardware_interface', ']: active') if plant == 'transmissions'
                 else ('mock_actuators', 'simulating'))
        deadline = time.monotonic() + 60.0
        while ready[1] not in self.log(ready[0]) and time.monotonic() < deadline:
            time.sleep(0.1)
        spawner = subprocess.run([installed_executable('controller_manager', 'spawner'),
                                  *plan.spawn, '--param-file', params, '-c',
                                  f'/{namespace}/controller_manager'],
                                 capture_output=True, text=True, timeout=180)
        if spawner.returncode != 0:
            self.stop()
            raise RuntimeError(f'spawner failed:\n{spawner.stdout}{spawner.stderr}')

    def _identity(self, description_file: Path) -> Path:
        """Write the robot with a reduction-1 motor named after each commandable joint."""
        from lxml import etree
        from transmission_plugins.robot.loading import load_robot_transmissions
        from transmission_plugins.tools.launch.node_plan import read_description
        from transmission_plugins.tools.launch.ros2_control_config import ros2_control_config
        text = read_description(description_file)
        joints = ros2_control_config(load_robot_transmissions(text, warn=False)).joints
        root = etree.fromstring(text.encode())
        for t in [e for e in root if e.tag == 'transmission']:
            root.remove(t)
        for j in joints:
            root.append(etree.fromstring(
                f'<transmission name="{j}_t"><type>transmission_interface/SimpleTransmission'
                f'</type><joint name="{j}"/><actuator name="{j}"><mechanicalReduction>1'
                '</mechanicalReduction></actuator></transmission>'))
        path = Path(self.dir, 'identity.urdf')
        path.write_bytes(etree.tostring(root))
        return path

    def _start(self, name: str, argv: list[str]) -> None:
        log = open(Path(self.dir, f'{name}.log'), 'w')
        self.procs[name] = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT,
                                            start_new_session=True)

    def log(self, name: str) -> str:
        """Return what process ``name`` printed so far."""
        return Path(self.dir, f'{name}.log').read_text(errors='replace')

    def signal(self, name: str, signum: int = signal.SIGINT) -> None:
        self.procs[name].send_signal(signum)

    def stop(self) -> None:
        for p in self.procs.values():
            if p.poll() is None:
                p.send_signal(signal.SIGINT)
        for p in self.procs.values():
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
        import shutil
        shutil.rmtree(self.dir, ignore_errors=True)


def _trajectory(joints: list[str], center: dict[str, float], amplitude: dict[str, float],
                period: float, duration: float) -> Any:
    """
    Return ``q = center + amplitude (1 - cos(2 pi t / period)) / 2`` sampled at 50 Hz.

    It starts at rest, and ends at rest when ``duration`` is a multiple of half the period
    (joint_trajectory_controller refuses a trajectory that ends moving unless
    ``allow_nonzero_velocity_at_trajectory_end``).
    """
    from builtin_interfaces.msg import Duration
    from trajectory_msgs.msg import JointTrajectory
    from trajectory_msgs.msg import JointTrajectoryPoint
    msg = JointTrajectory(joint_names=joints)
    w = 2 * math.pi / period
    for k in range(1, int(round(duration * 50)) + 1):
        t = k / 50.0
        msg.points.append(JointTrajectoryPoint(
            positions=[center[j] + amplitude[j] * (1 - math.cos(w * t)) / 2 for j in joints],
            velocities=[amplitude[j] * w * math.sin(w * t) / 2 for j in joints],
            time_from_start=Duration(sec=int(t), nanosec=int(round((t % 1) * 1e9)))))
    return msg


def _spin(executor: Any, seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        executor.spin_once(timeout_sec=0.01)


def tracking(args: argparse.Namespace, node: Any, executor: Any, rec: Recorder, rate: int,
             plant: str, ns: str) -> dict[str, Any]:
    """One sine on every joint; tracking error and rates of the loop."""
    from trajectory_msgs.msg import JointTrajectory
    loop = Loop(rate, plant, args.description_file, node, ns,
                command_interfaces=' '.join(args.command_interfaces),
                config_file=str(args.config_file or ''))
    try:
        _spin(executor, 2.0)
        jtc = loop.plan.controllers['joint_trajectory_controller']
        joints = list(jtc['joints'])
        center = {j: (0.045 if 'gripper' in j else 0.0) for j in joints}
        amplitude = {j: (0.04 if 'gripper' in j else 0.6) for j in joints}
        pub = node.create_publisher(JointTrajectory,
                                    f'/{ns}/joint_trajectory_controller/joint_trajectory', 10)
        msg = _trajectory(joints, center, amplitude, args.period, args.duration)
        deadline = time.monotonic() + 10.0
        while pub.get_subscription_count() == 0 and time.monotonic() < deadline:
            _spin(executor, 0.1)
        _spin(executor, 0.5)
        rec.clear()
        pub.publish(msg)
        _spin(executor, args.duration + 0.5)
        with rec.lock:
            states = list(rec.messages.get('joint_trajectory_controller/controller_state', []))
        errors = [list(s.error.positions) for s in states if len(s.error.positions) == len(
            joints)]
        nan_rows = sum(any(not math.isfinite(e) for e in row) for row in errors)
        errors = [row for row in errors if all(math.isfinite(e) for e in row)]
        err = [abs(e) for row in errors for e in row]
        moved = max((abs(p) for s in states for p in s.reference.positions), default=0.0)
        if moved < 0.5:
            raise RuntimeError(f'{plant} at {rate} Hz: the trajectory did not run '
                               f'({len(states)} controller states, reference up to {moved})')
        rms = math.sqrt(statistics.fmean(e * e for e in err)) if err else float('nan')
        per_joint = {j: max(abs(row[k]) for row in errors) for k, j in enumerate(joints)}
        result = {'plant': plant, 'rate': rate, 'commands': '+'.join(args.command_interfaces),
                  'tracking_rms': rms, 'max_by_joint': per_joint,
                  'controller_states': len(errors) + nan_rows, 'nan_states': nan_rows,
                  'tracking_max': max(err) if err else float('nan'),
                  'commands_hz': rec.rate('transmission/joint_commands'),
                  'joint_states_hz': rec.rate('joint_states'),
                  'hw_joint_states_hz': rec.rate('transmission/joint_states')}
        # pan_joint drives pan_motor through a reduction of 2 (the bundled robot)
        result['command_lag'] = rec.lag('transmission/joint_commands', 'actuator_commands'
                                        if plant == 'transmissions' else
                                        'transmission/joint_commands', 'pan_joint',
                                        'pan_motor' if plant == 'transmissions' else 'pan_joint',
                                        2.0 if plant == 'transmissions' else 1.0)
        result['loop_lag'] = rec.lag('transmission/joint_commands', 'transmission/joint_states',
                                     'pan_joint', 'pan_joint', 1.0)
        if plant == 'transmissions':
            result['state_lag'] = rec.lag('actuator_states', 'transmission/joint_states',
                                          'pan_motor', 'pan_joint', 0.5)
        return result
    finally:
        loop.stop()


def main(argv: list[str] | None = None) -> int:
    """Run the scenarios; print one table (and JSON with ``--json``)."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0].strip(),
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__.split('\n\n', 1)[1])
    parser.add_argument('--rates', type=int, nargs='+', default=[100, 500], metavar='HZ')
    parser.add_argument('--plants', nargs='+', default=['transmissions', 'joint_space'],
                        choices=['transmissions', 'joint_space'])
    parser.add_argument('--scenarios', nargs='+', default=['tracking'],
                        choices=['tracking', 'stop', 'limits'])
    parser.add_argument('--command-interfaces', nargs='+', default=['position'],
                        choices=['position', 'velocity', 'effort'])
    parser.add_argument('--duration', type=float, default=6.0, help='seconds of sine')
    parser.add_argument('--period', type=float, default=2.0, help='sine period, s')
    parser.add_argument('--description-file', type=Path, default=EXAMPLE)
    parser.add_argument('--config-file', type=Path, default=None,
                        help="the package's nodes' parameters (default: the bundled config)")
    parser.add_argument('--json', action='store_true')
    args = parser.parse_args(argv)
    _reexec()
    os.environ.setdefault('ROS_DOMAIN_ID', str(230 + os.getpid() % 3))
    os.environ.setdefault('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')
    import rclpy
    from rclpy.executors import SingleThreadedExecutor
    rclpy.init()
    node = rclpy.create_node('tp_bench_r2c')
    executor = SingleThreadedExecutor()
    executor.add_node(node)
    results: dict[str, Any] = {'tracking': [], 'stop': {}, 'limits': {}}
    try:
        for k, rate in enumerate(args.rates):
            for plant in args.plants if 'tracking' in args.scenarios else []:
                ns = f'bench_{os.getpid()}_{plant}_{rate}'
                rec = Recorder(node, f'/{ns}')
                results['tracking'].append(tracking(args, node, executor, rec, rate, plant, ns))
                print(json.dumps(results['tracking'][-1]), flush=True)
        if 'stop' in args.scenarios:
            from ros2_control_scenarios import stops
            results['stop'] = stops(args, node, executor, Recorder, Loop, _spin, _trajectory)
        if 'limits' in args.scenarios:
            from ros2_control_scenarios import limits
            results['limits'] = limits(args, node, executor, Recorder, Loop, _spin, _trajectory)
    finally:
        node.destroy_node()
        rclpy.shutdown()
    if args.json:
        print(json.dumps(results, indent=1))
    print('| plant | Hz | commands | tracking RMS / max rad | NaN states | command -> state ms | '
          'HI command / state lag ms | cm commands Hz | joint_states Hz | plant states Hz |')
    print('|---|---:|---|---:|---:|---:|---:|---:|---:|---:|')
    for r in results['tracking']:
        lags = (f'{r["command_lag"]:.1f} / {r["state_lag"]:.1f}' if 'state_lag' in r else '-')
        print(f'| {r["plant"]} | {r["rate"]} | {r["commands"]} | {r["tracking_rms"]:.4f} / '
              f'{r["tracking_max"]:.4f} | {r["nan_states"]} of {r["controller_states"]} | '
              f'{r["loop_lag"]:.1f} | {lags} | '
              f'{r["commands_hz"]:.1f} | {r["joint_states_hz"]:.1f} | '
              f'{r["hw_joint_states_hz"]:.1f} |')
    for name in ('stop', 'limits'):
        for key, value in results[name].items():
            print(f'{name}: {key}: {value}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
