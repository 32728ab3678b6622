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
sets ``incremental_encoders`` there and ``homing`` in the hardware interface's.  The targets
are :mod:`~.demo_script`'s, the verdict (a busy machine or a tracking error) :mod:`~.demo_load`'s.
"""

import argparse
import math
import os
import shutil
import sys
import tempfile
import time
from typing import Any
from typing import TextIO

from transmission_plugins.runtime.node_settings import cycle_settings
from transmission_plugins.runtime.node_settings import HARDWARE_INTERFACE
from transmission_plugins.runtime.settings import InvalidParameters
from transmission_plugins.tools.cli.common import positive_number
from transmission_plugins.tools.demo.demo_load import BUSY_EXIT
from transmission_plugins.tools.demo.demo_load import LoadMonitor
from transmission_plugins.tools.demo.demo_load import verdict
from transmission_plugins.tools.demo.demo_script import joint_windows
from transmission_plugins.tools.demo.demo_script import Script
import yaml

#: Tracking tolerance at the end of each hold: rad for revolute joints, m for the gripper gap.
TOLERANCE = {'revolute': 0.01, 'prismatic': 0.001}
COMMAND_RATE = 50.0
#: what the demo says of itself (``demo --help``)
DESCRIPTION = f"""\
Start the hardware interface and the mock actuators (the launcher's node set, in a namespace
and ROS domain of their own), command the robot's joints through a scripted sequence of
minimum-jerk moves and holds inside their soft limits and at speeds their velocity limits allow,
and print the commanded and measured joints and the motors behind them.

exit status: 0 every joint was on target at the end of every hold; 1 a joint missed its target
on a machine that kept up (a transmission, limit or gain error), or the nodes failed;
{BUSY_EXIT} the joints missed targets only while the machine was too busy (stale mock states,
missed cycles, physics behind real time): not a transmission error, run it again on an idle
machine.
"""


#: PD bandwidth (rad/s) of the mock's drives without URDF gains under ``--physics mujoco``: a PD
#: of bandwidth w holding its own payload against gravity sags by g / w^2 (2.5 mm at 10 Hz,
#: 0.6 mm at 20 Hz), so the demo's drives are twice as fast as the node's default.
MUJOCO_BANDWIDTH = 2.0 * math.pi * 20.0
#: ``--homing``: the search speed, a fraction of each joint's velocity limit
HOMING_SPEED = 0.3
#: ``--homing``: the hardware interface's ``homing_timeout`` (s) for each joint, unless
#: ``--homing-timeout`` says otherwise
HOMING_TIMEOUT = 20.0


def _homing_timeout(text: str) -> float:
    """Read ``--homing-timeout`` as the hardware interface reads its ``homing_timeout``."""
    try:
        return float(HARDWARE_INTERFACE['homing_timeout'].value_of(text))
    except InvalidParameters as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _homing_seconds(args: argparse.Namespace) -> float:
    """Return the homing timeout of each joint: ``--homing-timeout``, else the demo's."""
    return HOMING_TIMEOUT if args.homing_timeout is None else float(args.homing_timeout)


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
    parser.add_argument('--homing-timeout', type=_homing_timeout, default=None,
                        metavar='S',
                        help='with --homing: seconds each joint may take to find its switch, '
                             "the hardware interface's homing_timeout (default "
                             f'{HOMING_TIMEOUT:g})')
    parser.add_argument('--gravity-compensation', nargs='+', default=[], metavar='LINK',
                        help='with --physics mujoco: links that, with every link below them, '
                             'an ideal counterbalance makes weightless (the PR2 arms: '
                             'r_shoulder_lift_link l_shoulder_lift_link)')


def _format_table(rows: list[list[str]], out: TextIO) -> None:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        out.write('  '.join(c.rjust(w) if i >= 2 and i != 6 else c.ljust(w)
                            for i, (c, w) in enumerate(zip(r, widths))).rstrip() + '\n')


class Demo:
    """The client node: commands, measurements and the table."""

    def __init__(self, robot: Any, joints: list[str], out: TextIO,
                 load: LoadMonitor) -> None:
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
        self.joint_pos: dict[str, float] = {}
        self.motor_pos: dict[str, float] = {}
        self.motor_effort: dict[str, float] = {}
        #: largest |effort| each motor applied
        self.peak_effort: dict[str, float] = {}
        #: the signs of a busy machine
        self.load = load
        #: each transmission's calibration as the hardware interface last reported it
        self.calibration: dict[str, str] = {}
        self.node.create_subscription(JointState, 'joint_states', self._on_joints, 10)
        self.node.create_subscription(JointState, 'actuator_states', self._on_motors, 10)
        from diagnostic_msgs.msg import DiagnosticArray
        self.node.create_subscription(DiagnosticArray, '/diagnostics', self._on_diagnostics, 10)
        #: the scripted targets, made once the robot's positions are known (:meth:`begin`)
        self.script: Script | None = None
        #: when the script started (steady clock)
        self.started = math.nan
        kinds = {j: getattr(robot.urdf_joints.get(j), 'type', 'revolute') for j in joints}
        self.tolerance = {j: TOLERANCE['prismatic' if kinds[j] == 'prismatic' else 'revolute']
                          for j in joints}
        self.checks: list[dict[str, float]] = []
        #: each checked hold's segment, from the start of its move to the check (steady clock)
        self.windows: list[tuple[float, float]] = []
        self.commanded = [0.0] * len(joints)

    def begin(self, now: float) -> None:
        """Make the script from the robot's limits and its measured positions; start it."""
        robot = self.robot
        idx = [robot.joint_names.index(j) for j in self.joints]
        windows = joint_windows(robot.joint_lower[idx], robot.joint_upper[idx],
                                robot.joint_soft_limits[idx])
        self.script = Script(self.joints, windows, robot.joint_velocity_limit[idx],
                             [self.joint_pos.get(j, math.nan) for j in self.joints])
        self.started = now
        self.load.start(now)

    def _on_joints(self, msg: Any) -> None:
        self.load.joint_states(time.monotonic())
        self.joint_pos.update(zip(msg.name, msg.position))

    def _on_motors(self, msg: Any) -> None:
        self.load.actuator_states(time.monotonic())
        self.motor_pos.update(zip(msg.name, msg.position))
        if len(msg.effort) == len(msg.name):
            self.motor_effort.update(zip(msg.name, msg.effort))
            for name, effort in zip(msg.name, msg.effort):
                self.peak_effort[name] = max(self.peak_effort.get(name, 0.0), abs(effort))

    def _on_diagnostics(self, msg: Any) -> None:
        namespace = self.node.get_namespace()
        now = time.monotonic()
        for status in msg.status:
            prefix, _, transmission = status.name.partition(': ')
            values = {kv.key: kv.value for kv in status.values}
            if prefix == f'{namespace}/transmission_hardware_interface':
                if transmission and 'calibration' in values:
                    self.calibration[transmission] = values['calibration']
                if not transmission and values.get('overruns', '').isdigit():
                    self.load.overruns(int(values['overruns']), now)
            if status.name == f'{namespace}/mock_actuators' and 'real_time_factor' in values:
                try:
                    self.load.physics(float(values['real_time_factor']), now)
                except ValueError:
                    continue

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
        assert self.script is not None
        self.commanded = self.script.target(t)
        msg = self.JointState()
        msg.header.stamp = self.node.get_clock().now().to_msg()
        msg.name = list(self.joints)
        msg.position = [float(x) for x in self.commanded]
        self.pub.publish(msg)

    def check(self, k: int, now: float) -> dict[str, float]:
        """Record the tracking errors now (the end of segment ``k``'s hold)."""
        assert self.script is not None
        errors = {j: abs(self.joint_pos.get(j, math.inf) - c)
                  for j, c in zip(self.joints, self.commanded)}
        self.checks.append(errors)
        self.windows.append((self.started + self.script.segment_start(k), now))
        return errors

    def verdict(self) -> Any:
        """Return the exit status and closing lines (:func:`~.demo_load.verdict`)."""
        return verdict(self.checks, self.windows, self.tolerance, self.load)

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


def _summary(demo: 'Demo', out: TextIO) -> int:
    """Write the summary and the verdict; return the exit status."""
    judged = demo.verdict()
    if not demo.checks:
        out.write(''.join(f'{line}\n' for line in judged.lines))
        return int(judged.code)
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
    out.write(''.join(f'{line}\n' for line in judged.lines))
    return int(judged.code)


def run(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """Run the demo; return 0 when the joints tracked every target."""
    out = out or sys.stdout
    if args.gravity_compensation and args.physics != 'mujoco':
        print('demo: error: --gravity-compensation needs --physics mujoco', file=sys.stderr)
        return 2
    if args.homing_timeout is not None and not args.homing:
        print('demo: error: --homing-timeout needs --homing', file=sys.stderr)
        return 2
    tty = out.isatty()
    duration = args.duration if args.duration is not None else (None if tty else 15.0)
    os.environ.setdefault('ROS_DOMAIN_ID', str(os.getpid() % 100 + 101))
    os.environ.setdefault('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')
    namespace = f'/transmission_demo_{os.getpid()}'
    from transmission_plugins.robot.loading import load_robot_transmissions
    from transmission_plugins.tools.launch.launcher import node_commands
    from transmission_plugins.tools.launch.node_plan import default_config_file
    from transmission_plugins.tools.launch.node_plan import default_description_file
    from transmission_plugins.tools.launch.node_plan import example_config_file
    from transmission_plugins.tools.launch.node_plan import LaunchConfigError
    from transmission_plugins.tools.launch.node_plan import plan_nodes
    from transmission_plugins.tools.launch.node_plan import read_description
    from transmission_plugins.tools.launch.node_set import NodeSet
    from transmission_plugins.tools.launch.params_file import ParamsFile
    workdir = tempfile.mkdtemp(prefix='transmission_demo_')
    # the bundled robot runs with its own parameters; any other with the generic defaults
    config = default_config_file() if args.description_file else example_config_file()
    try:
        if args.physics == 'mujoco':
            from transmission_plugins.runtime.mujoco_model import import_mujoco
            import_mujoco()
        config_path, sections = _config_file(config, args, workdir)
        values = {'description_file': args.description_file, 'config_file': config_path,
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
    finished = False
    hardware = sections.get('transmission_hardware_interface', {})
    load = LoadMonitor(cycle_settings(dict(HARDWARE_INTERFACE.defaults(), **hardware)),
                       1.0 / COMMAND_RATE)
    try:
        from transmission_plugins.runtime.hardware_interface import HardwareInterface
        joints = HardwareInterface(robot).commandable_joints()
        demo = Demo(robot, joints, out, load)
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
        if not demo.wait_ready(30.0 + (2 * _homing_seconds(args) if homing else 0.0),
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
        demo.begin(start)
        assert demo.script is not None
        last_table = -math.inf
        next_check = 0
        period = 1.0 / COMMAND_RATE
        table_period = 0.2 if tty else 2.5
        while duration is None or time.monotonic() - start < duration:
            now = time.monotonic()
            load.loop(now)
            t = now - start
            if t >= demo.script.hold_end(next_check) - period:
                demo.check(next_check, now)
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
        finished = True
    except (KeyboardInterrupt, ExternalShutdownException):
        finished = demo is not None
    finally:
        if demo is not None:
            judged = _summary(demo, out)
            code = judged if finished else code
            demo.node.destroy_node()
        rclpy.try_shutdown()
        nodes.stop()
        params.close()
        log.close()
        _clean_up(workdir, keep_log=code != 0, out=out)
    return code


def _config_file(config: Any, args: argparse.Namespace,
                 workdir: str) -> tuple[str, dict[str, dict[str, Any]]]:
    """Write ``config`` with the demo's ``mock_actuators`` parameters added; return it."""
    from transmission_plugins.tools.launch.node_plan import load_config
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
        hardware.update(homing=True, homing_speed=HOMING_SPEED,
                        homing_timeout=_homing_seconds(args))
    path = os.path.join(workdir, 'demo_config.yaml')
    with open(path, 'w') as f:
        yaml.safe_dump({name: {'ros__parameters': p} for name, p in sections.items()}, f,
                       default_flow_style=False, sort_keys=False)
    return path, sections


def _clean_up(workdir: str, keep_log: bool, out: TextIO) -> None:
    """Remove the run's directory (its parameters file holds the URDF); keep a failed run's log."""
    if not keep_log:
        shutil.rmtree(workdir, ignore_errors=True)
        return
    for name in os.listdir(workdir):
        if name != 'nodes.log':
            os.unlink(os.path.join(workdir, name))
    out.write(f'demo: node logs kept in {os.path.join(workdir, "nodes.log")}\n')
