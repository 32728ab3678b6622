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
``transmission_plugins demo``: the hardware interface driving simulated motors, live.

What it starts, sends, prints and exits with is doc/launch.md's ("The demo").  ``--physics``
reaches ``mock_actuators`` through the config file's ``mock_actuators`` section; ``--homing``
sets ``incremental_encoders`` there and ``homing`` in the hardware interface's.
"""

import argparse
import math
import os
import shutil
import sys
import tempfile
import time
from typing import Any
from typing import Dict
from typing import List
from typing import Optional
from typing import TextIO

from transmission_plugins.tools.cli.common import positive_number
import yaml

#: Tracking tolerance at the end of each hold: rad for revolute joints, m for the gripper gap.
TOLERANCE = {'revolute': 0.01, 'prismatic': 0.001}
MOVE_TIME = 1.5
HOLD_TIME = 1.0
COMMAND_RATE = 50.0
#: Targets as fractions of each joint's range (0 = lower limit, 1 = upper limit).
WAYPOINTS = [
    [0.50, 0.50, 0.50, 0.50, 0.50, 0.50],
    [0.70, 0.35, 0.75, 0.60, 0.30, 0.90],
    [0.30, 0.60, 0.30, 0.35, 0.80, 0.20],
    [0.55, 0.45, 0.65, 0.70, 0.50, 0.60],
    [0.40, 0.55, 0.40, 0.45, 0.20, 0.05],
]


#: PD bandwidth (rad/s) of the mock's drives without URDF gains under ``--physics mujoco``: a PD
#: of bandwidth w holding its own payload against gravity sags by g / w^2 (2.5 mm at 10 Hz,
#: 0.6 mm at 20 Hz), so the demo's drives are twice as fast as the node's default.
MUJOCO_BANDWIDTH = 2.0 * math.pi * 20.0
#: ``--homing``: the search speed, a fraction of each joint's velocity limit
HOMING_SPEED = 0.3
#: ``--homing``: the hardware interface's ``homing_timeout`` (s) for each joint
HOMING_TIMEOUT = 20.0
#: Range of the targets of a joint without position limits (a continuous joint), rad.
UNBOUNDED_RANGE = (-1.0, 1.0)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the demo's options to ``parser``."""
    parser.add_argument('--duration', type=positive_number(float, 'a number of seconds'),
                        default=None, metavar='S',
                        help='seconds to run the command sequence, > 0 (default: until Ctrl-C '
                             'on a terminal, 15 s otherwise)')
    parser.add_argument('--description-file', default='', metavar='URDF',
                        help='robot description (default: the bundled example robot)')
    parser.add_argument('--physics', choices=('rotors', 'mujoco'), default='rotors',
                        help="mock_actuators' physics: decoupled rotors (default) or the robot "
                             'in MuJoCo, with gravity (needs the mujoco package)')
    parser.add_argument('--homing', action='store_true',
                        help="the mock's switch motors count from 0 at start (incremental "
                             'encoders) and the hardware interface homes them against the '
                             "URDF's reference switches first (doc/calibration.md)")
    parser.add_argument('--gravity-compensation', nargs='+', default=[], metavar='LINK',
                        help='with --physics mujoco: links that, with every link below them, '
                             'an ideal counterbalance makes weightless (the PR2 arms: '
                             'r_shoulder_lift_link l_shoulder_lift_link)')


def _smooth(s: float) -> float:
    """Return the minimum-jerk blend of ``s`` in [0, 1]."""
    s = min(max(s, 0.0), 1.0)
    return s * s * s * (10.0 - 15.0 * s + 6.0 * s * s)


class Script:
    """The scripted joint targets: move smoothly to each waypoint, then hold it."""

    def __init__(self, joints: List[str], lower: Any, upper: Any) -> None:
        self.joints = joints
        self.points = []
        bounds = [(lo, hi) if math.isfinite(lo) and math.isfinite(hi) else UNBOUNDED_RANGE
                  for lo, hi in zip(lower, upper)]
        for fractions in WAYPOINTS:
            # every joint gets a target; joints past the sixth reuse the fractions in turn
            self.points.append([lo + fractions[i % len(fractions)] * (hi - lo)
                                for i, (lo, hi) in enumerate(bounds)])
        self.segment = MOVE_TIME + HOLD_TIME

    def target(self, t: float) -> List[float]:
        """Return the commanded positions at ``t`` seconds into the script (it loops)."""
        k = int(t // self.segment)
        a = self.points[k % len(self.points)]
        b = self.points[(k + 1) % len(self.points)]
        s = _smooth((t - k * self.segment) / MOVE_TIME)
        return [x + s * (y - x) for x, y in zip(a, b)]

    def hold_end(self, k: int) -> float:
        """Return the time at which the hold of segment ``k`` ends."""
        return (k + 1) * self.segment


#: a real-time factor of the mock's physics below this is reported in the summary
SLOW_PHYSICS = 0.9


def _format_table(rows: List[List[str]], out: TextIO) -> None:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        out.write('  '.join(c.rjust(w) if i >= 2 and i != 6 else c.ljust(w)
                            for i, (c, w) in enumerate(zip(r, widths))).rstrip() + '\n')


class Demo:
    """The client node: commands, measurements and the table."""

    def __init__(self, robot: Any, joints: List[str], out: TextIO) -> None:
        import rclpy
        from rclpy.node import Node
        from sensor_msgs.msg import JointState
        self.rclpy = rclpy
        self.JointState = JointState
        self.robot = robot
        self.joints = joints
        self.out = out
        self.node = Node('transmission_demo')
        self.pub = self.node.create_publisher(JointState, 'joint_commands', 10)
        self.joint_pos: Dict[str, float] = {}
        self.motor_pos: Dict[str, float] = {}
        self.motor_effort: Dict[str, float] = {}
        #: largest |effort| each motor applied
        self.peak_effort: Dict[str, float] = {}
        #: the lowest real-time factor the mock's physics reported (1.0: none reported)
        self.slowest_physics = 1.0
        #: each transmission's calibration as the hardware interface last reported it
        self.calibration: Dict[str, str] = {}
        self.node.create_subscription(JointState, 'joint_states', self._on_joints, 10)
        self.node.create_subscription(JointState, 'actuator_states', self._on_motors, 10)
        from diagnostic_msgs.msg import DiagnosticArray
        self.node.create_subscription(DiagnosticArray, '/diagnostics', self._on_diagnostics, 10)
        idx = [robot.joint_names.index(j) for j in joints]
        self.script = Script(joints, [robot.joint_lower[i] for i in idx],
                             [robot.joint_upper[i] for i in idx])
        kinds = {j: getattr(robot.urdf_joints.get(j), 'type', 'revolute') for j in joints}
        self.tolerance = {j: TOLERANCE['prismatic' if kinds[j] == 'prismatic' else 'revolute']
                          for j in joints}
        self.checks: List[Dict[str, float]] = []
        self.commanded = [0.0] * len(joints)

    def _on_joints(self, msg: Any) -> None:
        self.joint_pos.update(zip(msg.name, msg.position))

    def _on_motors(self, msg: Any) -> None:
        self.motor_pos.update(zip(msg.name, msg.position))
        if len(msg.effort) == len(msg.name):
            self.motor_effort.update(zip(msg.name, msg.effort))
            for name, effort in zip(msg.name, msg.effort):
                self.peak_effort[name] = max(self.peak_effort.get(name, 0.0), abs(effort))

    def _on_diagnostics(self, msg: Any) -> None:
        namespace = self.node.get_namespace()
        for status in msg.status:
            prefix, _, transmission = status.name.partition(': ')
            if prefix == f'{namespace}/transmission_hardware_interface' and transmission:
                for kv in status.values:
                    if kv.key == 'calibration':
                        self.calibration[transmission] = kv.value
            if status.name == f'{namespace}/mock_actuators':
                for kv in status.values:
                    if kv.key == 'real_time_factor':
                        try:
                            factor = float(kv.value)
                        except ValueError:
                            continue
                        if math.isfinite(factor):
                            self.slowest_physics = min(self.slowest_physics, factor)

    def spin(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while True:
            left = end - time.monotonic()
            if left <= 0.0:
                break
            self.rclpy.spin_once(self.node, timeout_sec=min(left, 0.01))

    def wait_ready(self, timeout: float, alive: Any) -> bool:
        end = time.monotonic() + timeout
        while time.monotonic() < end and alive():
            self.spin(0.05)
            if all(j in self.joint_pos for j in self.joints):
                return True
        return False

    def homing_failed(self) -> bool:
        return any(words.startswith('not calibrated: failed')
                   for words in self.calibration.values())

    def send(self, t: float) -> None:
        self.commanded = self.script.target(t)
        msg = self.JointState()
        msg.header.stamp = self.node.get_clock().now().to_msg()
        msg.name = list(self.joints)
        msg.position = [float(x) for x in self.commanded]
        self.pub.publish(msg)

    def check(self) -> Dict[str, float]:
        """Record the tracking errors now (end of a hold)."""
        errors = {j: abs(self.joint_pos.get(j, math.inf) - c)
                  for j, c in zip(self.joints, self.commanded)}
        self.checks.append(errors)
        return errors

    def passed(self) -> bool:
        return bool(self.checks) and all(
            e[j] <= self.tolerance[j] for e in self.checks for j in self.joints)

    def table(self, t: float, clear: bool) -> None:
        rows = [['transmission', 'joint', 'command', 'measured', 'error', '|', 'motor',
                 'position', 'effort']]
        commanded = dict(zip(self.joints, self.commanded))
        for tr in self.robot.transmissions:
            joints = [j for j in tr.joint_names if j in commanded]
            motors = list(tr.actuator_names)
            for i in range(max(len(joints), len(motors))):
                row = [tr.name if i == 0 else '']
                if i < len(joints):
                    j = joints[i]
                    m = self.joint_pos.get(j, math.nan)
                    row += [j, f'{commanded[j]:+.4f}', f'{m:+.4f}', f'{m - commanded[j]:+.4f}']
                else:
                    row += ['', '', '', '']
                row.append('|')
                if i < len(motors):
                    row += [motors[i], f'{self.motor_pos.get(motors[i], math.nan):+10.3f}',
                            f'{self.motor_effort.get(motors[i], math.nan):+9.4f}']
                else:
                    row += ['', '', '']
                rows.append(row)
        if clear:
            self.out.write('\x1b[H\x1b[2J')
        self.out.write(f'transmission_plugins demo  t = {t:5.1f} s   (rad, m; motors: rad and '
                       'N m at the gearhead output)\n')
        _format_table(rows, self.out)
        self.out.write('\n')
        self.out.flush()


def _calibration_words(demo: 'Demo') -> str:
    """Return what /diagnostics said of each transmission that needs calibration."""
    return ', '.join(f'{name} {words}' for name, words in demo.calibration.items()
                     if words != 'not needed')


def _summary(demo: 'Demo', out: TextIO) -> None:
    if not demo.checks:
        out.write('demo: no hold completed, nothing to judge\n')
        return
    worst = {j: max(e[j] for e in demo.checks) for j in demo.joints}
    out.write(f'demo: {len(demo.checks)} holds checked; worst error at the end of a hold:\n')
    for j in demo.joints:
        ok = 'ok' if worst[j] <= demo.tolerance[j] else 'NOT TRACKED'
        out.write(f'  {j:20s} {worst[j]:.2e} (tolerance {demo.tolerance[j]:g})  {ok}\n')
    limits = dict(zip(demo.robot.actuator_names, demo.robot.actuator_effort_limit))
    if demo.peak_effort:
        out.write('demo: peak motor effort (N m, share of the effort limit):\n')
        saturated = False
        for name, peak in demo.peak_effort.items():
            limit = limits.get(name, math.inf)
            share = f'{peak / limit:4.0%}' if math.isfinite(limit) else '   -'
            saturated = saturated or (math.isfinite(limit) and peak >= 0.99 * limit)
            out.write(f'  {name:20s} {peak:9.4f}  {share}\n')
        if saturated:
            out.write('  (100 %: the motor hit its effort limit for a moment where a move '
                      'starts:\n'
                      '   the mock clamps its PD law there, as a real drive does; the holds\n'
                      '   above are what the demo judges)\n')
    if _calibration_words(demo):
        out.write(f'demo: calibration on /diagnostics: {_calibration_words(demo)}\n')
    if demo.slowest_physics < SLOW_PHYSICS:
        out.write(f'demo: the physics fell behind real time (real-time factor down to '
                  f'{demo.slowest_physics:.2f}): the machine is too busy for this simulation, '
                  'so the joints lag their targets; that is not a transmission error\n')
    out.write('demo: joints tracked the targets\n' if demo.passed()
              else 'demo: joints did NOT track the targets\n')


def run(args: argparse.Namespace, out: Optional[TextIO] = None) -> int:
    """Run the demo; return 0 when the joints tracked every target."""
    out = out or sys.stdout
    if args.gravity_compensation and args.physics != 'mujoco':
        print('demo: error: --gravity-compensation needs --physics mujoco', file=sys.stderr)
        return 2
    tty = out.isatty()
    duration = args.duration if args.duration is not None else (None if tty else 15.0)
    os.environ.setdefault('ROS_DOMAIN_ID', str(os.getpid() % 100 + 101))
    os.environ.setdefault('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')
    namespace = f'/transmission_demo_{os.getpid()}'
    from transmission_plugins.tools.launcher import node_commands
    from transmission_plugins.tools.node_plan import LaunchConfigError
    from transmission_plugins.tools.node_plan import plan_nodes
    from transmission_plugins.tools.node_set import NodeSet
    from transmission_plugins.tools.node_plan import read_description
    from transmission_plugins.tools.node_plan import default_description_file
    from transmission_plugins.tools.node_plan import example_config_file
    from transmission_plugins.robot.loading import load_robot_transmissions
    from transmission_plugins.tools.node_plan import default_config_file
    from transmission_plugins.tools.params_file import ParamsFile
    workdir = tempfile.mkdtemp(prefix='transmission_demo_')
    # the bundled robot runs with its own parameters; any other with the generic defaults
    config = default_config_file() if args.description_file else example_config_file()
    try:
        if args.physics == 'mujoco':
            from transmission_plugins.runtime.mujoco_model import import_mujoco
            import_mujoco()
        values = {'description_file': args.description_file,
                  'config_file': _config_file(config, args, workdir),
                  'use_mock_actuators': 'true'}
        plan = plan_nodes(values)
        robot = load_robot_transmissions(
            read_description(args.description_file or default_description_file()), warn=False)
    except (LaunchConfigError, Exception) as e:  # noqa: B902 - report any loading error
        shutil.rmtree(workdir, ignore_errors=True)
        out.write(f'demo: error: {e}\n')
        return 1
    params = ParamsFile(plan.specs)   # in memory: the URDF leaves no trace on disk
    commands = node_commands(plan, params.path, ['-r', f'__ns:={namespace}'])
    log_path = os.path.join(workdir, 'nodes.log')
    log = open(log_path, 'w')
    nodes = NodeSet(commands, log=log)
    nodes.start()
    import rclpy
    from rclpy.executors import ExternalShutdownException
    rclpy.init(args=['--ros-args', '-r', f'__ns:={namespace}'])
    demo = None
    code = 1
    try:
        from transmission_plugins.runtime.hardware_interface import HardwareInterface
        joints = HardwareInterface(robot).commandable_joints()
        demo = Demo(robot, joints, out)
        until = 'until Ctrl-C' if duration is None else f'for {duration:g} s (or until Ctrl-C)'
        out.write(f'demo: starting {", ".join(n for n, _ in commands)} ('
                  f'{args.physics} physics, ROS_DOMAIN_ID='
                  f'{os.environ["ROS_DOMAIN_ID"]}, namespace {namespace}, logs in {log_path}, '
                  f'kept if the demo fails); it runs {until}\n')
        out.flush()
        homing = args.homing
        if homing:
            out.write('demo: homing the joints with a reference switch first\n')
            out.flush()
        waited = time.monotonic()
        # a transmission homes its joints one after the other
        if not demo.wait_ready(30.0 + (2 * HOMING_TIMEOUT if homing else 0.0),
                               lambda: not nodes.dead() and not demo.homing_failed()):
            if demo.homing_failed():
                out.write(f'demo: homing failed: {_calibration_words(demo)}; see {log_path}\n')
            else:
                out.write(f'demo: the nodes did not come up; see {log_path}\n')
            return 1
        if homing:
            out.write(f'demo: every joint calibrated {time.monotonic() - waited:.1f} s after '
                      'the start (joint_states names a joint once it is)\n')
        start = time.monotonic()
        last_table = -math.inf
        next_check = 0
        period = 1.0 / COMMAND_RATE
        table_period = 0.2 if tty else 2.5
        while duration is None or time.monotonic() - start < duration:
            t = time.monotonic() - start
            if t >= demo.script.hold_end(next_check) - period:
                demo.check()
                next_check += 1
            demo.send(t)
            if t - last_table >= table_period:
                demo.table(t, clear=tty)
                last_table = t
            if nodes.dead():
                out.write(f'demo: a node died: {nodes.dead()}; see {log_path}\n')
                return 1
            demo.spin(period)
        demo.table(time.monotonic() - start, clear=False)
        code = 0 if demo.passed() else 1
    except (KeyboardInterrupt, ExternalShutdownException):
        code = 0 if demo is not None and demo.passed() else 1
    finally:
        if demo is not None:
            _summary(demo, out)
            demo.node.destroy_node()
        rclpy.try_shutdown()
        nodes.stop()
        params.close()
        log.close()
        _clean_up(workdir, keep_log=code != 0, out=out)
    return code


def _config_file(config: Any, args: argparse.Namespace, workdir: str) -> str:
    """Write ``config`` with the demo's ``mock_actuators`` parameters added; return its path."""
    from transmission_plugins.tools.node_plan import load_config
    sections = load_config(config)
    mock = sections.setdefault('mock_actuators', {})
    mock['physics'] = args.physics
    if mock['physics'] == 'mujoco':
        mock['bandwidth'] = MUJOCO_BANDWIDTH
    if args.gravity_compensation:
        mock['gravity_compensation'] = list(args.gravity_compensation)
    if args.homing:
        mock['incremental_encoders'] = True
        hardware = sections.setdefault('transmission_hardware_interface', {})
        hardware.update(homing=True, homing_speed=HOMING_SPEED, homing_timeout=HOMING_TIMEOUT)
    path = os.path.join(workdir, 'demo_config.yaml')
    with open(path, 'w') as f:
        yaml.safe_dump({name: {'ros__parameters': p} for name, p in sections.items()}, f,
                       default_flow_style=False, sort_keys=False)
    return path


def _clean_up(workdir: str, keep_log: bool, out: TextIO) -> None:
    """Remove the run's directory (its parameters file holds the URDF); keep a failed run's log."""
    if not keep_log:
        shutil.rmtree(workdir, ignore_errors=True)
        return
    for name in os.listdir(workdir):
        if name != 'nodes.log':
            os.unlink(os.path.join(workdir, name))
    out.write(f'demo: node logs kept in {os.path.join(workdir, "nodes.log")}\n')
