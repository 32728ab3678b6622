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
The stop and limit scenarios of ``bench_ros2_control.py`` (the bundled robot, 100 Hz).

* :func:`stops`: the controller manager stops (SIGINT), then, in a new loop, the hardware
  interface stops; what the other side does, timed from here.
* :func:`limits`: a trajectory faster than pan_joint's velocity limit and beyond
  shoulder_joint's position limit, with the controller manager's ``enforce_command_limits``
  on (its default) and off: which side clamps.
"""

import math
import os
import time
from typing import Any
from typing import Callable


def _ns(what: str) -> str:
    return f'bench_{os.getpid()}_{what}'


def _goal(node: Any, executor: Any, ns: str, targets: dict[str, float], seconds: float,
          tolerance: float) -> str:
    """Send one FollowJointTrajectory goal with a goal tolerance; return its result."""
    from control_msgs.action import FollowJointTrajectory
    from control_msgs.msg import JointTolerance
    from rclpy.action import ActionClient
    from rclpy.duration import Duration
    from trajectory_msgs.msg import JointTrajectoryPoint
    client = ActionClient(node, FollowJointTrajectory,
                          f'/{ns}/joint_trajectory_controller/follow_joint_trajectory')
    if not client.wait_for_server(timeout_sec=30.0):
        return 'no action server'
    goal = FollowJointTrajectory.Goal()
    goal.trajectory.joint_names = list(targets)
    goal.trajectory.points = [JointTrajectoryPoint(
        positions=list(targets.values()), time_from_start=Duration(seconds=seconds).to_msg())]
    goal.goal_tolerance = [JointTolerance(name=n, position=tolerance) for n in targets]
    goal.goal_time_tolerance = Duration(seconds=0.5).to_msg()
    sent = client.send_goal_async(goal)
    executor.spin_until_future_complete(sent, timeout_sec=20.0)
    handle = sent.result()
    if handle is None or not handle.accepted:
        return 'rejected'
    done = handle.get_result_async()
    executor.spin_until_future_complete(done, timeout_sec=seconds + 20.0)
    result = done.result().result if done.result() else None
    client.destroy()
    return 'no result' if result is None else f'{result.error_code} {result.error_string!r}'


def stops(args: Any, node: Any, executor: Any, recorder: Callable[..., Any],
          loop_class: Callable[..., Any], spin: Callable[[Any, float], None],
          trajectory: Callable[..., Any]) -> dict[str, Any]:
    """Stop one side of a running loop after the other; return what was seen."""
    out: dict[str, Any] = {}
    ns = _ns('stop_cm')
    rec = recorder(node, f'/{ns}')
    loop = loop_class(100, 'transmissions', args.description_file, node, ns)
    try:
        spin(executor, 2.0)
        rec.clear()
        stopped = time.monotonic()
        loop.signal('ros2_control_node')
        spin(executor, 2.0)
        last = rec.arrivals.get('actuator_commands', [stopped])[-1]
        out['cm stopped: actuator_commands continue for (s)'] = round(last - stopped, 3)
        after = [t for t in rec.arrivals.get('actuator_states', []) if t > stopped + 1.0]
        out['cm stopped: mock actuator_states rate after 1 s (Hz)'] = round(len(after) / 1.0, 1)
        out['cm stopped: hardware interface diagnostics'] = rec.diagnostics.get('message', '')
        out['cm stopped: ros2_control_node exit code'] = loop.procs['ros2_control_node'].wait(10)
        hi_log = loop.log('transmission_hardware_interface')
        out['cm stopped: hardware interface log'] = [
            line.split(']: ', 1)[-1] for line in hi_log.splitlines()
            if 'WARN' in line or 'ERROR' in line][-2:]
    finally:
        loop.stop()
    ns = _ns('stop_hi')
    rec = recorder(node, f'/{ns}')
    loop = loop_class(100, 'transmissions', args.description_file, node, ns)
    try:
        spin(executor, 2.0)
        before = len(loop.log('ros2_control_node').splitlines())
        loop.signal('transmission_hardware_interface')
        spin(executor, 1.0)
        rec.clear()
        out['hardware interface stopped: goal with tolerance 0.01'] = _goal(
            node, executor, ns, {'pan_joint': 0.5}, 1.0, 0.01)
        positions = [m.position[list(m.name).index('pan_joint')]
                     for m in rec.messages.get('joint_states', []) if 'pan_joint' in m.name]
        out['hardware interface stopped: joint_states rate (Hz)'] = round(
            rec.rate('joint_states'), 1)
        out['hardware interface stopped: joint_states pan_joint spread'] = (
            max(positions) - min(positions) if positions else None)
        out['hardware interface stopped: controller manager lines'] = [
            line.split(']: ', 1)[-1] for line in loop.log('ros2_control_node').splitlines()[
                before:] if 'WARN' in line or 'ERROR' in line][:3]
    finally:
        loop.stop()
    return out


def limits(args: Any, node: Any, executor: Any, recorder: Callable[..., Any],
           loop_class: Callable[..., Any], spin: Callable[[Any, float], None],
           trajectory: Callable[..., Any]) -> dict[str, Any]:
    """Command beyond the URDF limits with ros2_control's enforcement on and off."""
    from trajectory_msgs.msg import JointTrajectory
    out: dict[str, Any] = {}
    for enforce in (True, False):
        ns = _ns(f'limits_{enforce}')
        rec = recorder(node, f'/{ns}')
        loop = loop_class(100, 'transmissions', args.description_file, node, ns,
                          extra_cm={'enforce_command_limits': enforce})
        try:
            spin(executor, 2.0)
            pub = node.create_publisher(JointTrajectory,
                                        f'/{ns}/joint_trajectory_controller/joint_trajectory',
                                        10)
            while pub.get_subscription_count() == 0:
                spin(executor, 0.1)
            # pan: 2.5 rad in 0.5 s (limit 2 rad/s); shoulder: to 2.0 (limit 1.6)
            msg = trajectory(['pan_joint', 'shoulder_joint'], {'pan_joint': 0.0,
                                                               'shoulder_joint': 0.0},
                             {'pan_joint': 2.5, 'shoulder_joint': 2.0}, 1.0, 0.5)
            for _ in range(3):   # a trajectory that arrives before the controller reads it
                rec.clear()
                pub.publish(msg)
                spin(executor, 3.0)
                moved = [v for _, v in rec.series('transmission/joint_commands',
                                                  'shoulder_joint') if math.isfinite(v)]
                if moved and max(moved) > 0.1:
                    break
            # slopes between the commands' own stamps (TopicBasedSystem stamps each write)
            pan = [(m.header.stamp.sec + m.header.stamp.nanosec * 1e-9,
                    m.position[list(m.name).index('pan_joint')])
                   for m in rec.messages.get('transmission/joint_commands', [])]
            nan = sum(not math.isfinite(v) for _, v in pan)
            pan = [(t, v) for t, v in pan if math.isfinite(v)]
            # over 5 commands (50 ms at 100 Hz), so that stamp jitter does not count
            slope = max((abs(b[1] - a[1]) / (b[0] - a[0]) for a, b in zip(pan, pan[5:])
                         if b[0] - a[0] > 1e-3), default=0.0)
            shoulder = [(t, v) for t, v in rec.series('transmission/joint_commands',
                                                      'shoulder_joint') if math.isfinite(v)]
            key = f'enforce_command_limits {str(enforce).lower()}'
            out[f'{key}: pan command max slope (rad/s, limit 2)'] = round(slope, 2)
            out[f'{key}: NaN pan commands'] = f'{nan} of {nan + len(pan)}'
            out[f'{key}: shoulder command max (rad, limit 1.6)'] = round(
                max(v for _, v in shoulder), 3)
            out[f'{key}: hardware interface clamps'] = {
                k: v for k, v in rec.diagnostics.items() if k.startswith('clamped.')
                and v != '0'}
        finally:
            loop.stop()
    return out


__all__ = ['limits', 'stops']
