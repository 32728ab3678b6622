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
Lifecycle node ``transmission_hardware_interface``: motors in actuator space, robot in joint space.

Topics (all relative, so namespaces and remapping apply):

* subscribes ``actuator_states`` (``sensor_msgs/JointState``, best effort so that reliable and
  best-effort drivers both match), ``joint_commands`` (``sensor_msgs/JointState``, any subset of
  joints and fields), ``position_commands``, ``velocity_commands`` and ``effort_commands``
  (``std_msgs/Float64MultiArray`` ordered by the ``joints`` parameter), and ``robot_description``
  (``std_msgs/String``, transient local) while the parameter is empty;
* publishes ``joint_states`` and ``actuator_commands`` (``sensor_msgs/JointState``, reliable) at
  ``update_rate`` while active, and ``/diagnostics`` (``diagnostic_msgs/DiagnosticArray``) every
  ``diagnostic_period`` seconds once configured.

The per-cycle logic lives in :class:`~..runtime.hardware_interface.HardwareInterface`;
this module only declares parameters, moves messages and drives the lifecycle.
"""

import time
from typing import Any
from typing import List
from typing import Optional

from diagnostic_msgs.msg import DiagnosticArray
from diagnostic_msgs.msg import KeyValue
from rclpy.lifecycle import LifecycleNode
from rclpy.lifecycle import LifecyclePublisher
from rclpy.lifecycle import LifecycleState
from rclpy.lifecycle import TransitionCallbackReturn
from rclpy.publisher import Publisher
from rclpy.timer import Timer
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray

from transmission_plugins.core.exceptions import TransmissionValueError
from transmission_plugins.robot.loading import load_robot_transmissions
from transmission_plugins.ros.common import declare_parameters
from transmission_plugins.ros.common import diagnostic_status
from transmission_plugins.ros.common import parameter_value
from transmission_plugins.ros.common import reliable_qos
from transmission_plugins.ros.common import ROBOT_DESCRIPTION_PARAMETER
from transmission_plugins.ros.common import run_node
from transmission_plugins.ros.common import state_qos
from transmission_plugins.ros.common import subscribe_description
from transmission_plugins.ros.common import timer_callback
from transmission_plugins.ros.common import to_msg_array
from transmission_plugins.ros.joint_state_serializer import JointStateSerializer
from transmission_plugins.runtime.hardware_interface import FIELDS
from transmission_plugins.runtime.hardware_interface import HardwareInterface
from transmission_plugins.runtime.hardware_interface import InputRejected
from transmission_plugins.runtime.hardware_interface import TIMEOUT_ACTIONS

NODE_NAME = 'transmission_hardware_interface'

#: name -> (default, description); the node's parameter contract (README table).
PARAMETERS = {
    'robot_description': ROBOT_DESCRIPTION_PARAMETER,
    'autostart': (True, 'configure and activate by itself at start-up'),
    'update_rate': (100.0, 'cycle rate in Hz of joint_states and actuator_commands'),
    'state_timeout': (0.1, 'seconds without actuator state after which joints are stale and '
                           'left out of joint_states; <= 0 disables'),
    'command_timeout': (0.5, 'seconds after which a joint command expires; <= 0 disables'),
    'command_timeout_action': ('stop', 'what expired joints send: stop (nothing), hold (the '
                                       'actuator position measured at expiry), zero_velocity '
                                       'or zero_effort'),
    'enforce_limits': (True, 'clamp joint commands to the URDF limits and actuator efforts to '
                             'the actuator effort limits (every clamp is counted)'),
    'lenient': (False, 'load the URDF in lenient mode (defaults replace ill-defined values)'),
    'qos_depth': (10, 'history depth of every topic'),
    'joints': ([], 'joint order of the Float64MultiArray command topics; empty: every '
                   'commandable joint in URDF order'),
    'diagnostic_period': (1.0, 'seconds between /diagnostics messages'),
}


class HardwareInterfaceNode(LifecycleNode):
    """Map actuator states to joint states and joint commands to actuator commands."""

    def __init__(self, node_name: str = NODE_NAME, **kwargs: Any) -> None:
        super().__init__(node_name, **kwargs)
        declare_parameters(self, PARAMETERS)
        self.core: Optional[HardwareInterface] = None
        self._topic_description: Optional[str] = None
        self._description_sub = None
        self._entities: List[Any] = []
        self._timer: Optional[Timer] = None
        self._diag_timer: Optional[Timer] = None
        self._active = False
        self._joint_pub: Optional[LifecyclePublisher[JointState]] = None
        self._command_pub: Optional[LifecyclePublisher[JointState]] = None
        self._diag_pub: Optional[Publisher[DiagnosticArray]] = None
        self._last_cycle_start = 0.0
        if not self._param('robot_description'):
            self._description_sub = subscribe_description(self, self._on_description)
        elif self._param('autostart'):
            self._autostart()

    # ------------------------------------------------------------------ start-up
    def _autostart(self) -> None:
        if self.trigger_configure() == TransitionCallbackReturn.SUCCESS:
            self.trigger_activate()

    def _on_description(self, description: str) -> None:
        """Keep the latest description; with ``autostart``, start on it while unconfigured."""
        self._topic_description = description
        if self.core is not None:
            self.get_logger().info('new robot_description received; it is used at the next '
                                   'configure (cleanup, then configure)')
        elif self._param('autostart'):
            # every description while unconfigured: a corrected one follows a rejected one
            self.get_logger().info('robot_description received while unconfigured: '
                                   'configuring and activating (autostart)')
            self._autostart()

    def _param(self, name: str) -> Any:
        return parameter_value(self, name)

    # ------------------------------------------------------------------ lifecycle
    def on_configure(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Load the transmissions, create the interfaces; fail with the loader's message."""
        log = self.get_logger()
        description = self._param('robot_description') or self._topic_description
        if not description:
            log.error('cannot configure: robot_description is empty and nothing arrived on '
                      'the robot_description topic yet')
            return TransitionCallbackReturn.FAILURE
        try:
            robot = load_robot_transmissions(description, lenient=bool(self._param('lenient')),
                                             warn=False)
            rate = float(self._param('update_rate'))
            if not rate > 0.0:
                raise TransmissionValueError('update_rate', rate, 'a rate > 0 Hz')
            core = HardwareInterface(
                robot,
                state_timeout=float(self._param('state_timeout')),
                command_timeout=float(self._param('command_timeout')),
                enforce_limits=bool(self._param('enforce_limits')),
                command_joints=list(self._param('joints') or []),
                timeout_action=str(self._param('command_timeout_action')))
        except Exception as e:  # noqa: B902 - any loader error fails the transition only
            log.error(f'cannot configure: {type(e).__name__}: {e}')
            return TransitionCallbackReturn.FAILURE
        if not robot.joint_names:
            log.error('cannot configure: the robot description has no transmissions')
            return TransitionCallbackReturn.FAILURE
        core.period = 1.0 / rate
        self.core = core
        self._period = 1.0 / rate
        depth = max(1, int(self._param('qos_depth')))
        self._joint_msg = JointState()   # reused every cycle: publish() serialises at once
        self._joint_bytes = JointStateSerializer()  # joint_states from a template, as bytes
        self._joint_pub = self.create_lifecycle_publisher(JointState, 'joint_states',
                                                          reliable_qos(depth))
        self._command_pub = self.create_lifecycle_publisher(JointState, 'actuator_commands',
                                                            reliable_qos(depth))
        self._diag_pub = self.create_publisher(DiagnosticArray, '/diagnostics',
                                               reliable_qos(depth))
        self._entities = [
            self.create_subscription(JointState, 'actuator_states', self._on_state,
                                     state_qos(depth)),
            self.create_subscription(JointState, 'joint_commands', self._on_command,
                                     reliable_qos(depth)),
        ]
        for field in FIELDS:
            self._entities.append(self.create_subscription(
                Float64MultiArray, f'{field}_commands',
                lambda msg, f=field: self._on_array_command(f, msg), reliable_qos(depth)))
        period = float(self._param('diagnostic_period'))
        if period > 0.0:
            self._diag_timer = self.create_timer(period, timer_callback(self._publish_diagnostics))
        log.info(f'configured: {len(robot.transmissions)} transmissions, '
                 f'{len(robot.joint_names)} joints, {len(robot.actuator_names)} actuators, '
                 f'{rate:g} Hz')
        return TransitionCallbackReturn.SUCCESS

    def on_activate(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Start the update timer; commands received while inactive are discarded."""
        assert self.core is not None
        self.core.reset_commands()
        self._timer = self.create_timer(self._period, timer_callback(self._update))
        self._active = True
        self.get_logger().info('active')
        return super().on_activate(state)

    def on_deactivate(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Stop publishing joint states and actuator commands."""
        self._active = False
        if self._timer is not None:
            self.destroy_timer(self._timer)
            self._timer = None
        self.get_logger().info('inactive')
        return super().on_deactivate(state)

    def on_cleanup(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Drop the transmissions and every interface; ready to configure again."""
        self._teardown()
        return TransitionCallbackReturn.SUCCESS

    def on_shutdown(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Release everything."""
        self._teardown()
        return TransitionCallbackReturn.SUCCESS

    def on_error(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Recover to unconfigured."""
        self._teardown()
        return TransitionCallbackReturn.SUCCESS

    def _teardown(self) -> None:
        self._active = False
        for timer in (self._timer, self._diag_timer):
            if timer is not None:
                self.destroy_timer(timer)
        self._timer = self._diag_timer = None
        for sub in self._entities:
            self.destroy_subscription(sub)
        self._entities = []
        for pub in (self._joint_pub, self._command_pub):
            if pub is not None:
                self.destroy_lifecycle_publisher(pub)
        if self._diag_pub is not None:
            self.destroy_publisher(self._diag_pub)
        self._joint_pub = self._command_pub = self._diag_pub = None
        self.core = None

    # ------------------------------------------------------------------ inputs
    def _reject(self, topic: str, error: InputRejected) -> None:
        self.get_logger().warning(f'dropped a message on {topic}: {error}',
                                  throttle_duration_sec=1.0)

    def _on_state(self, msg: JointState) -> None:
        core = self.core
        if core is None:
            return
        try:
            core.set_actuator_state(msg.name, msg.position, msg.velocity, msg.effort)
        except InputRejected as e:
            self._reject('actuator_states', e)

    def _on_command(self, msg: JointState) -> None:
        if self.core is None or not self._active:
            return
        try:
            self.core.set_joint_command(msg.name, msg.position, msg.velocity, msg.effort)
        except InputRejected as e:
            self._reject('joint_commands', e)

    def _on_array_command(self, field: str, msg: Float64MultiArray) -> None:
        if self.core is None or not self._active:
            return
        try:
            self.core.set_interface_command(field, msg.data)
        except InputRejected as e:
            self._reject(f'{field}_commands', e)

    # ------------------------------------------------------------------ cycle
    def _update(self) -> None:
        core = self.core
        joint_pub, command_pub = self._joint_pub, self._command_pub
        if core is None or not self._active or joint_pub is None or command_pub is None:
            return
        start = time.monotonic()
        try:
            out = core.update()
        except Exception as e:  # noqa: B902 - a cycle must never take the node down
            self.get_logger().error(f'cycle failed: {type(e).__name__}: {e}',
                                    throttle_duration_sec=1.0)
            core.record_cycle(start, time.monotonic())
            return
        now = self.get_clock().now()
        js = out.joint_states
        if js is not None:
            data = self._joint_bytes(js.names, js.position, js.velocity, js.effort,
                                     now.nanoseconds)
            joint_pub.publish(data if data is not None
                              else self._fill(self._joint_msg, js, now.to_msg()))
        if out.actuator_commands:
            stamp = now.to_msg()
            for group in out.actuator_commands:
                command_pub.publish(self._fill(JointState(), group, stamp))
        core.record_cycle(start, time.monotonic())

    @staticmethod
    def _fill(msg: JointState, values: Any, stamp: Any) -> JointState:
        """Write names and fields into ``msg`` (names only when they changed)."""
        msg.header.stamp = stamp
        if msg.name is not values.names:
            msg.name = values.names
        msg.position = to_msg_array(values.position)
        msg.velocity = to_msg_array(values.velocity)
        msg.effort = to_msg_array(values.effort)
        return msg

    def _publish_diagnostics(self) -> None:
        core = self.core
        if core is None or self._diag_pub is None:
            return
        msg = DiagnosticArray()
        msg.header.stamp = self.get_clock().now().to_msg()
        name = self.get_fully_qualified_name()
        for rec in core.diagnostics(name):
            status = diagnostic_status(rec.name, rec.level, rec.message, rec.hardware_id,
                                       rec.values)
            if not self._active:
                status.values.append(KeyValue(key='lifecycle', value='inactive'))
            msg.status.append(status)
        self._diag_pub.publish(msg)


def main(args: Optional[List[str]] = None) -> int:
    """Run the node (``hardware_interface_node`` executable)."""
    return run_node(lambda a: HardwareInterfaceNode(), args)


__all__ = ['HardwareInterfaceNode', 'NODE_NAME', 'PARAMETERS', 'TIMEOUT_ACTIONS', 'main']

if __name__ == '__main__':
    raise SystemExit(main())
