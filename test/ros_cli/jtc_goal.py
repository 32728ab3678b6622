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
Send one ``FollowJointTrajectory`` goal to joint_trajectory_controller; exit 0 when it succeeds.

``python3 jtc_goal.py ACTION_NAME JOINT=POSITION,... SECONDS TOLERANCE``: a one-point trajectory
reaching the positions after SECONDS, with a goal tolerance of TOLERANCE on every joint (and
0.5 s of goal time tolerance).  The controller reports ``SUCCESSFUL`` only when every joint is
within the tolerance at the end; the script prints the goal's status and the result's error code
and string, and asks for the result again when a reply is lost.  Run in
the environment of ``ros2_control/setup.bash`` (control_msgs comes from there).
"""

import sys
import time

from action_msgs.msg import GoalStatus
from control_msgs.action import FollowJointTrajectory
from control_msgs.msg import JointTolerance
from rclpy.action import ActionClient
from rclpy.duration import Duration
import rclpy.node
from trajectory_msgs.msg import JointTrajectoryPoint


def main(argv):
    action, targets, seconds, tolerance = argv[1], argv[2], float(argv[3]), float(argv[4])
    joints = dict(t.split('=') for t in targets.split(','))
    rclpy.init()
    node = rclpy.node.Node('tp_jtc_goal')
    client = ActionClient(node, FollowJointTrajectory, action)
    try:
        if not client.wait_for_server(timeout_sec=60.0):
            print(f'no action server {action}')
            return 2
        goal = FollowJointTrajectory.Goal()
        goal.trajectory.joint_names = list(joints)
        goal.trajectory.points = [JointTrajectoryPoint(
            positions=[float(v) for v in joints.values()],
            time_from_start=Duration(seconds=seconds).to_msg())]
        goal.goal_tolerance = [JointTolerance(name=n, position=tolerance) for n in joints]
        goal.goal_time_tolerance = Duration(seconds=0.5).to_msg()
        sent = client.send_goal_async(goal)
        rclpy.spin_until_future_complete(node, sent, timeout_sec=30.0)
        handle = sent.result()
        if handle is None or not handle.accepted:
            print('goal rejected')
            return 1
        # a service response can be lost while DDS still matches the result service's endpoints
        # (the action server answered, the reply never arrived): ask again, the server keeps the
        # result of a finished goal for a while (rcl_action's result_timeout)
        deadline = time.monotonic() + seconds + 60.0
        done = handle.get_result_async()
        rclpy.spin_until_future_complete(node, done, timeout_sec=seconds + 3.0)
        while not done.done() and time.monotonic() < deadline:
            done = handle.get_result_async()
            rclpy.spin_until_future_complete(node, done, timeout_sec=2.0)
        if not done.done():
            print(f'no result from {action}')
            return 3
        response = done.result()
        result = response.result
        print(f'status {response.status} error_code {result.error_code} '
              f'{result.error_string!r}')
        # an expired result comes back as STATUS_UNKNOWN with a default (zero) error code
        succeeded = (response.status == GoalStatus.STATUS_SUCCEEDED
                     and result.error_code == FollowJointTrajectory.Result.SUCCESSFUL)
        return 0 if succeeded else 1
    finally:
        node.destroy_node()
        rclpy.shutdown()


if __name__ == '__main__':
    sys.exit(main(sys.argv))
