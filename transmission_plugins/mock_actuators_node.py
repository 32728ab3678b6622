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
Node ``mock_actuators``: one simulated motor per actuator of the robot's transmissions.

Each motor is an :class:`~transmission_plugins.actuator.ActuatorSimulator` rotor: Drake's PD
actuator with the URDF's rotor inertia, gear ratio, gains and effort limit.  The node publishes
``actuator_states`` (position, velocity, applied effort) at ``rate`` and obeys
``actuator_commands``.  The mode of each actuator named by a command follows the fields the
message carries: **position** when it has positions, else **velocity** when it has velocities,
else **effort**; velocity and effort values beside positions are ignored.  An actuator keeps
its last command until a new one names it; at start every motor holds its initial position.
"""

import math
import time
from typing import Any
from typing import List
from typing import Optional
from typing import Sequence

import numpy as np
from rcl_interfaces.msg import ParameterDescriptor
from rclpy.node import Node
from rclpy.parameter import Parameter
from sensor_msgs.msg import JointState

from transmission_plugins.exceptions import TransmissionValueError
from transmission_plugins.ros_common import declare_parameters
from transmission_plugins.ros_common import parameter_value
from transmission_plugins.ros_common import reliable_qos
from transmission_plugins.ros_common import ROBOT_DESCRIPTION_PARAMETER
from transmission_plugins.ros_common import run_node
from transmission_plugins.ros_common import subscribe_description
from transmission_plugins.ros_common import timer_callback
from transmission_plugins.ros_common import to_msg_array

NODE_NAME = 'mock_actuators'

#: name -> (default, description); the node's parameter contract (README table).
PARAMETERS = {
    'robot_description': ROBOT_DESCRIPTION_PARAMETER,
    'lenient': (False, 'load the URDF in lenient mode'),
    'rate': (200.0, 'simulation and actuator_states rate in Hz'),
    'damping': (0.0, 'viscous damping of every rotor, N m s/rad at the actuator'),
    'bandwidth': (2.0 * math.pi * 10.0, 'rad/s; PD gains for actuators without '
                                        'drake:controller_gains are critically damped at it'),
    'qos_depth': (10, 'history depth of both topics'),
    'initial_joint_names': ([], 'joints given an initial position (others start at the centre '
                                'of their range)'),
}


def initial_joint_positions(robot: Any, names: Sequence[str],
                            values: Sequence[float]) -> np.ndarray:
    """
    Return the motors' initial joint positions, aligned with ``robot.joint_names``.

    Joints start at the centre of their range, except ``names``, which start at ``values``.

    :raises TransmissionValueError: the lengths differ, or a name is not a transmission joint
    """
    q = robot.default_joint_position()
    names, values = list(names), list(values)
    if len(values) != len(names):
        raise TransmissionValueError(
            'initial_joint_positions', values,
            f'one value per initial_joint_names entry ({len(names)})')
    for n, v in zip(names, values):
        if n not in robot.joint_names:
            raise TransmissionValueError('initial_joint_names', n,
                                         f'one of the transmission joints {robot.joint_names}')
        q[robot.joint_names.index(n)] = v
    return q


class MockActuatorsNode(Node):
    """Simulate the robot's actuators and close the loop for the hardware interface."""

    def __init__(self, node_name: str = NODE_NAME, **kwargs: Any) -> None:
        super().__init__(node_name, **kwargs)
        declare_parameters(self, PARAMETERS)
        self.declare_parameter(
            'initial_joint_positions', Parameter.Type.DOUBLE_ARRAY,
            ParameterDescriptor(description='initial positions of initial_joint_names (rad or '
                                            'm), same order'))
        self.sim = None
        self.robot = None
        self._timer = None
        self._last = 0.0
        self._sub_description = None
        description = self._p('robot_description')
        if description:
            self._build(description)
        else:
            self._sub_description = subscribe_description(self, self._build)

    def _p(self, name: str) -> Any:
        return parameter_value(self, name)

    def _build(self, description: str) -> None:
        if self.sim is not None:
            return
        from transmission_plugins.actuator import ActuatorSimulator
        from transmission_plugins.robot_transmissions import load_robot_transmissions
        robot = load_robot_transmissions(description,
                                         lenient=bool(self._p('lenient')))
        models = [robot.actuator_models[n] for n in robot.actuator_names]
        # min_inertia: let small rotors (the gripper's) keep their real inertia
        sim = ActuatorSimulator(models, min_inertia=1e-7,
                                damping=float(self._p('damping')),
                                bandwidth=float(self._p('bandwidth')))
        q = initial_joint_positions(robot, self._p('initial_joint_names'),
                                    self._p('initial_joint_positions'))
        a0 = np.asarray(robot.joint_to_actuator_arrays({'position': q})['position'])
        a0 = np.where(np.isfinite(a0), a0, 0.0)
        sim.reset(position=a0)
        sim.set_command('position', a0)
        self.robot, self.sim = robot, sim
        self._index = {n: i for i, n in enumerate(robot.actuator_names)}
        self._names = list(robot.actuator_names)
        depth = max(1, int(self._p('qos_depth')))
        self._pub = self.create_publisher(JointState, 'actuator_states', reliable_qos(depth))
        self.create_subscription(JointState, 'actuator_commands', self._on_command,
                                 reliable_qos(depth))
        rate = float(self._p('rate'))
        if not rate > 0.0:
            raise TransmissionValueError('rate', rate, 'a rate > 0 Hz')
        self._max_dt = 5.0 / rate
        self._last = time.monotonic()
        self._timer = self.create_timer(1.0 / rate, timer_callback(self._step))
        self.get_logger().info(f'simulating {len(models)} actuators at {rate:g} Hz: '
                               f'{", ".join(self._names)}')

    def _on_command(self, msg: JointState) -> None:
        n = len(msg.name)
        try:
            idx = [self._index[name] for name in msg.name]
        except KeyError as e:
            self.get_logger().warning(f'actuator_commands: unknown actuator {e}',
                                      throttle_duration_sec=1.0)
            return
        for mode, values in (('position', msg.position), ('velocity', msg.velocity),
                             ('effort', msg.effort)):
            if len(values):
                break
        else:
            return
        target = np.asarray(values, dtype=np.float64)
        if len(target) != n or len(set(idx)) != n or not np.isfinite(target).all():
            self.get_logger().warning('actuator_commands: malformed command ignored',
                                      throttle_duration_sec=1.0)
            return
        full = np.full(len(self._names), np.nan)
        full[idx] = target
        self.sim.set_command(mode, full)

    def _step(self) -> None:
        now = time.monotonic()
        dt = min(now - self._last, self._max_dt)
        self._last = now
        if dt > 0.0:
            self.sim.step(dt)
        s = self.sim.state()
        msg = JointState()
        msg.header.stamp = self.get_clock().now().to_msg()
        msg.name = self._names
        msg.position = to_msg_array(s['position'])
        msg.velocity = to_msg_array(s['velocity'])
        msg.effort = to_msg_array(s['effort'])
        self._pub.publish(msg)


def main(args: Optional[List[str]] = None) -> int:
    """Run the node (``mock_actuators_node`` executable)."""
    return run_node(lambda a: MockActuatorsNode(), args)


if __name__ == '__main__':
    raise SystemExit(main())
