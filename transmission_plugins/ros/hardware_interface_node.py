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
  (``std_msgs/Float64MultiArray`` ordered by the ``joints`` parameter), ``robot_description``
  (``std_msgs/String``, transient local) while the parameter is empty, and for calibration
  (``doc/calibration.md``) ``reference_switches`` with ``homing`` and ``absolute_positions``
  with ``absolute_encoders`` (``sensor_msgs/JointState``, positions only, best effort);
* publishes ``joint_states`` and ``actuator_commands`` (``sensor_msgs/JointState``, reliable) at
  ``update_rate`` while active (with ``event_driven``: when their inputs arrive, and at
  ``update_rate`` while the inputs are silent), with a robot that has series-elastic
  transmissions also ``joint_deflections`` (``sensor_msgs/JointState``: per spring joint its
  deflection, deflection rate and spring torque) with every ``joint_states``, and ``/diagnostics``
  (``diagnostic_msgs/DiagnosticArray``) every ``diagnostic_period`` seconds in every lifecycle
  state.

Parameters are checked when set and again at configure (which apply at once: ``doc/nodes.md``).
The cycle is :class:`~..runtime.hardware_interface.HardwareInterface`, the timer and the
publishing :class:`~.cycle_driver.CycleDriver`; this module declares parameters, moves messages
and drives the lifecycle.  Shut down to *finalized*, the node ends its process (exit code 0).
"""

import functools
from typing import Any
from typing import Callable

from diagnostic_msgs.msg import DiagnosticArray
from rcl_interfaces.msg import ParameterDescriptor
from rcl_interfaces.msg import SetParametersResult
from rclpy.exceptions import InvalidParameterValueException
from rclpy.lifecycle import LifecycleNode
from rclpy.lifecycle import LifecyclePublisher
from rclpy.lifecycle import LifecycleState
from rclpy.lifecycle import TransitionCallbackReturn
from rclpy.parameter import Parameter
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray

from transmission_plugins.core.exceptions import TransmissionValueError
from transmission_plugins.core.exceptions import UrdfTransmissionError
from transmission_plugins.robot.loading import load_robot_transmissions
from transmission_plugins.ros.common import diagnostic_status
from transmission_plugins.ros.common import logged_transition
from transmission_plugins.ros.common import parameter_value
from transmission_plugins.ros.common import qos_overridable
from transmission_plugins.ros.common import reliable_qos
from transmission_plugins.ros.common import run_node
from transmission_plugins.ros.common import StartupFailed
from transmission_plugins.ros.common import subscribe_description
from transmission_plugins.ros.common import subscribe_with_arrival
from transmission_plugins.ros.cycle_driver import CycleDriver
from transmission_plugins.ros.node_parameters import CheckedParameters
from transmission_plugins.ros.node_parameters import declare_parameters
from transmission_plugins.ros.node_parameters import float_parameters
from transmission_plugins.ros.node_parameters import validate_parameters
from transmission_plugins.runtime.diagnostics import node_records
from transmission_plugins.runtime.hardware_interface import HardwareInterface
from transmission_plugins.runtime.messages import FIELDS
from transmission_plugins.runtime.messages import InputRejected
from transmission_plugins.runtime.node_settings import calibration_settings
from transmission_plugins.runtime.node_settings import cycle_settings
from transmission_plugins.runtime.node_settings import HARDWARE_INTERFACE
from transmission_plugins.runtime.reports import Reports
from transmission_plugins.runtime.settings import AT_CONFIGURE
from transmission_plugins.runtime.settings import Declaration
from transmission_plugins.runtime.soft_limits import JOINT_LIMIT_PARAMETERS
from transmission_plugins.urdf.text import received_description

NODE_NAME = HARDWARE_INTERFACE.node
#: the node's parameter contract (doc/nodes.md)
PARAMETERS = HARDWARE_INTERFACE


class HardwareInterfaceNode(CheckedParameters, LifecycleNode):
    """
    Map actuator states to joint states and joint commands to actuator commands.

    :class:`~.sim_interface_node.SimInterfaceNode` runs it the other way round: it overrides
    the parameters, :meth:`_make_core`, :meth:`_create_topics` and :meth:`_outputs`.
    """

    #: the parameter contract (each parameter's record says when a change applies)
    PARAMETERS: Declaration = HARDWARE_INTERFACE
    #: the state input topic (before remapping), and the launch argument that renames it
    STATE_INPUT = 'actuator_states'
    STATE_INPUT_ARGUMENT = 'actuator_states_topic'

    def __init__(self, node_name: str = NODE_NAME, **kwargs: Any) -> None:
        super().__init__(node_name, **kwargs)
        self.core: HardwareInterface | None = None
        self.validator = validate_parameters(self, self.PARAMETERS)
        try:
            declare_parameters(self, self.PARAMETERS)
        except InvalidParameterValueException as e:
            self.get_logger().error(f'invalid parameter: {self.validator.rejected or e}')
            raise StartupFailed(self.validator.rejected or str(e)) from e
        self.add_on_set_parameters_callback(self._check_joints)
        self.add_post_set_parameters_callback(self._apply_parameters)
        self.lifecycle_state = 'unconfigured'
        self.configure_error = ''
        #: True once shut down (finalized): run_node then ends the process
        self.finished = False
        self._topic_description: str | None = None
        self._description_sub = None
        self._entities: list[Any] = []
        #: the joints order filled in by configure (when ``joints`` was empty), else None
        self._filled_joints: list[str] | None = None
        self._filling = False
        #: the timer and the publishing while active (None otherwise)
        self.driver: CycleDriver | None = None
        self._state_pub: LifecyclePublisher[JointState] | None = None
        self._command_pub: LifecyclePublisher[JointState] | None = None
        #: ``joint_deflections``: only for a robot with series-elastic transmissions
        self._deflection_pub: LifecyclePublisher[JointState] | None = None
        self._cycle_publishers: list[Any] = []   # the configured node's, destroyed at cleanup
        #: the ``joint_limits.<joint>.<key>`` parameters declared at configure (undeclared at
        #: cleanup: the next robot has other joints)
        self._joint_limit_parameters: list[str] = []
        self._reports = Reports()
        self._diag_pub = self.create_publisher(DiagnosticArray, '/diagnostics',
                                               reliable_qos(int(self._param('qos_depth'))))
        self._diag_timer = self.create_timer(float(self._param('diagnostic_period')),
                                             self._publish_diagnostics)
        float_parameters(self, self.PARAMETERS)
        if not self._param('robot_description'):
            self._description_sub = subscribe_description(self, self._on_description)
        elif self._param('autostart'):
            self._autostart()

    # ------------------------------------------------------------------ start-up, parameters
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

    def _values(self) -> dict[str, Any]:
        """Return the value of every declared parameter."""
        return {name: self._param(name) for name in self.PARAMETERS}

    def _check_joints(self, parameters: list[Parameter[Any]]) -> SetParametersResult:
        """Once a robot is loaded, ``joints`` must name its commandable joints."""
        for p in parameters:
            if p.name == 'joints' and self.core is not None and p.value:
                allowed = set(self.core.commandable_joints())
                bad = [n for n in p.value if n not in allowed]
                if bad:
                    return SetParametersResult(successful=False, reason=(
                        f'joints must name commandable joints of the robot, got {bad[:5]} '
                        f'(commandable: {sorted(allowed)[:20]})'))
        return SetParametersResult(successful=True)

    def _apply_parameters(self, parameters: list[Parameter[Any]]) -> None:
        """Apply what can change at once (validated already); the rest waits for configure."""
        names = {p.name for p in parameters}
        if 'diagnostic_period' in names:
            self._diag_timer.timer_period_ns = int(float(self._param('diagnostic_period')) * 1e9)
        core = self.core
        if core is not None:
            core.apply(cycle_settings(self._values()))
        driver = self.driver
        if driver is not None:
            driver.frame_id = str(self._param('frame_id'))
            driver.retime()
        later = sorted(names & self.PARAMETERS.applied(AT_CONFIGURE))
        if later and not self._filling:
            self.get_logger().info(f'{", ".join(later)} changed: applied at the next configure '
                                   '(cleanup, then configure)')

    # ------------------------------------------------------------------ lifecycle
    def on_configure(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Load the transmissions, create the interfaces; fail with the loader's message."""
        try:
            self._configure()
        except Exception as e:  # noqa: B902 - any error fails the transition, logged
            self._teardown()
            self.configure_error = f'{type(e).__name__}: {e}'
            hint = ''
            if isinstance(e, UrdfTransmissionError) and not self._param('lenient'):
                hint = (' (lenient:=true loads what it can, with defaults for ill-defined '
                        'values and a warning for each; doc/urdf.md)')
            self.get_logger().error(f'cannot configure: {self.configure_error}{hint}')
            return TransitionCallbackReturn.FAILURE
        self.configure_error = ''
        self.lifecycle_state = 'inactive'
        return TransitionCallbackReturn.SUCCESS

    def _configure(self) -> None:
        description = self._param('robot_description') or self._topic_description
        if not description:
            raise TransmissionValueError('robot_description', '', 'a URDF: the parameter is '
                                         'empty and nothing arrived on the robot_description '
                                         'topic yet')
        values = self._values()
        if self._filled_joints is not None and list(values['joints']) == self._filled_joints:
            values['joints'] = []   # the order configure filled in for the previous robot
        self.PARAMETERS.require_valid(values)
        robot = load_robot_transmissions(received_description(description),
                                         lenient=bool(values['lenient']), warn=False)
        if not robot.joint_names:
            raise TransmissionValueError('robot_description', robot.robot_name, 'a robot with '
                                         'at least one <transmission>; this one has none')
        self._log_load_warnings(robot.warnings)
        core = self._make_core(robot, values)
        self.core = core
        self._create_topics(int(values['qos_depth']))
        self._fill_joints(values['joints'], core.command_joints)
        mode = 'event-driven, watchdogs at' if values['event_driven'] else 'timer at'
        self.get_logger().info(
            f'configured: {len(robot.transmissions)} transmissions, {len(robot.joint_names)} '
            f'joints, {len(robot.actuator_names)} actuators, {mode} '
            f'{values["update_rate"]:g} Hz')

    def _log_load_warnings(self, warnings: list[Any]) -> None:
        """Log what the loader worked around (lenient mode: defaults, skipped transmissions)."""
        shown = 20
        for w in warnings[:shown]:
            self.get_logger().warning(f'robot_description: {w}')
        if len(warnings) > shown:
            self.get_logger().warning(f'robot_description: {len(warnings) - shown} more '
                                      'warnings (transmission_plugins inspect FILE lists all)')

    def _fill_joints(self, given: list[str], order: list[str]) -> None:
        """Make ``ros2 param get <node> joints`` show the order of the array commands."""
        if given:
            self._filled_joints = None
            return
        self._filled_joints = list(order)
        self._filling = True
        try:
            self.set_parameters([Parameter('joints', value=list(order))])
        finally:
            self._filling = False

    def _make_core(self, robot: Any, values: dict[str, Any]) -> HardwareInterface:
        """Return the ROS-free cycle for ``robot`` with the checked parameter ``values``."""
        return HardwareInterface(robot, cycle_settings(values),
                                 command_joints=list(values['joints'] or []),
                                 joint_limits=self._joint_limits(robot),
                                 calibration=calibration_settings(values),
                                 effort_unit=str(values['actuator_effort_unit']))

    def _joint_limits(self, robot: Any) -> dict[str, dict[str, Any]]:
        """
        Declare and read ros2_control's ``joint_limits.<joint>.<key>`` for the robot's joints.

        As ros2_control does, every key of every joint is declared (default: no limit), so that
        a parameters file sets them and ``ros2 param list`` shows them.
        """
        out: dict[str, dict[str, Any]] = {}
        for joint in robot.joint_names:
            for key, default in JOINT_LIMIT_PARAMETERS.items():
                name = f'joint_limits.{joint}.{key}'
                if not self.has_parameter(name):
                    self.declare_parameter(name, default, ParameterDescriptor(
                        description=f'ros2_control joint_limits {key} of {joint} '
                                    '(doc/calibration.md)', dynamic_typing=True))
                    self._joint_limit_parameters.append(name)
                value = self.get_parameter(name).value
                if value != default:
                    out.setdefault(joint, {})[key] = value
        return out

    def _create_topics(self, depth: int) -> None:
        """Create the publishers and subscriptions of the configured node."""
        self._state_pub = self.create_lifecycle_publisher(
            JointState, 'joint_states', **qos_overridable(depth, publisher=True))
        self._command_pub = self.create_lifecycle_publisher(
            JointState, 'actuator_commands', **qos_overridable(depth, publisher=True))
        self._cycle_publishers = [self._state_pub, self._command_pub]
        assert isinstance(self.core, HardwareInterface)
        if self.core.has_springs:
            self._deflection_pub = self.create_lifecycle_publisher(
                JointState, 'joint_deflections', **qos_overridable(depth, publisher=True))
            self._cycle_publishers.append(self._deflection_pub)
        self._entities = [
            subscribe_with_arrival(self, JointState, 'actuator_states', functools.partial(
                self._on_message, 'state', 'set_actuator_state'),
                **qos_overridable(depth, reliable=False)),
            subscribe_with_arrival(self, JointState, 'joint_commands', functools.partial(
                self._on_message, 'command', 'set_joint_command'),
                **qos_overridable(depth, logger=self.get_logger(), topic='joint_commands'))]
        calibration = self.core.calibration
        if calibration.homing:
            self._entities.append(subscribe_with_arrival(
                self, JointState, 'reference_switches', functools.partial(
                    self._on_message, '', 'set_reference_switch'),
                **qos_overridable(depth, reliable=False)))
        if calibration.settings.absolute_encoders:
            self._entities.append(subscribe_with_arrival(
                self, JointState, 'absolute_positions', functools.partial(
                    self._on_message, '', 'set_absolute_positions'),
                **qos_overridable(depth, reliable=False)))
        for field in FIELDS:
            self._entities.append(subscribe_with_arrival(
                self, Float64MultiArray, f'{field}_commands',
                functools.partial(self._on_array_command, field),
                **qos_overridable(depth, logger=self.get_logger(), topic=f'{field}_commands')))

    def _outputs(self) -> tuple[Callable[[float], Any], Callable[[float], list[Any]], Any, Any]:
        """Return the state half, the command half and their publishers (the driver's)."""
        assert isinstance(self.core, HardwareInterface)
        return (self.core.joint_states, self.core.actuator_commands, self._state_pub,
                self._command_pub)

    def _extra_state(self) -> tuple[Callable[[float], Any], Any] | None:
        """Return what the driver publishes after each state output (``joint_deflections``)."""
        if self._deflection_pub is None or not isinstance(self.core, HardwareInterface):
            return None
        return self.core.joint_deflections, self._deflection_pub

    @logged_transition('activate')
    def on_activate(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Start the update timer; commands received while inactive are discarded."""
        core = self.core
        assert core is not None
        core.commands.reset()
        # the timer runs on the steady clock: the watchdogs act whatever /clock does
        self.driver = CycleDriver(
            self, core, *self._outputs(), str(self._param('frame_id')), self._reports,
            state_input=self._state_input_words, extra_state=self._extra_state())
        self.lifecycle_state = 'active'
        self.get_logger().info('active')
        return super().on_activate(state)

    def _state_input_words(self) -> str:
        """Say what is on the state input topic (the warning when no state ever came)."""
        topic = self._entities[0].topic_name if self._entities else self.STATE_INPUT
        publishers = self.count_publishers(topic)
        core = self.core
        dropped = sum(core.drops.get(self.STATE_INPUT, {}).values()) if core else 0
        if not publishers:
            found = f'nothing publishes on {topic}'
        elif dropped:
            found = (f'{topic} has {publishers} publisher(s), but all its {dropped} messages were '
                     'dropped (the drop lines say why)')
        else:
            found = (f'{topic} has {publishers} publisher(s), but no message arrived (a QoS '
                     'this node cannot match? it subscribes best effort)')
        rename = f'-r {self.STATE_INPUT}:=<topic>'
        if self.STATE_INPUT_ARGUMENT:
            rename += f', or the launch argument {self.STATE_INPUT_ARGUMENT}:=<topic>'
        return (f'{found}. Is the driver publishing on another topic, or in another namespace '
                f'(ros2 topic list)? Remap it: {rename}')

    @logged_transition('deactivate')
    def on_deactivate(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Stop publishing joint states and actuator commands."""
        self._stop_driver()
        self.lifecycle_state = 'inactive'
        self.get_logger().info('inactive')
        return super().on_deactivate(state)

    @logged_transition('cleanup')
    def on_cleanup(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Drop the transmissions and every interface; ready to configure again."""
        self._teardown()
        self.lifecycle_state = 'unconfigured'
        self.get_logger().info('cleaned up: unconfigured')
        return TransitionCallbackReturn.SUCCESS

    @logged_transition('shutdown')
    def on_shutdown(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Release everything; the process then ends (exit code 0)."""
        self._teardown()
        self.lifecycle_state = 'finalized'
        self.finished = True
        self.get_logger().info('shut down: finalized, exiting')
        return TransitionCallbackReturn.SUCCESS

    @logged_transition('error processing')
    def on_error(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Recover to unconfigured."""
        self._teardown()
        self.lifecycle_state = 'unconfigured'
        return TransitionCallbackReturn.SUCCESS

    def _stop_driver(self) -> None:
        if self.driver is not None:
            self.driver.destroy()
        self.driver = None

    def _teardown(self) -> None:
        self._stop_driver()
        for name in self._joint_limit_parameters:
            self.undeclare_parameter(name)
        self._joint_limit_parameters = []
        for sub in self._entities:
            self.destroy_subscription(sub)
        self._entities = []
        for pub in self._cycle_publishers:
            self.destroy_lifecycle_publisher(pub)
        self._cycle_publishers = []
        self._state_pub = self._command_pub = self._deflection_pub = None
        self.core = None

    # ------------------------------------------------------------------ inputs
    def _store(self, kind: str, store: str, *args: Any, arrival: float) -> None:
        """
        Hand a message to ``core.<store>``; tell the driver that a state or a command arrived.

        :param kind: ``'state'``, ``'command'`` (taken only while active) or ``''`` (calibration)
        """
        core = self.core
        if core is None or (kind == 'command' and self.driver is None):
            return
        try:
            getattr(core, store)(*args, received=arrival)
        except InputRejected:
            for line in self._reports.drops(core.drops):   # at most one summary a second
                self.get_logger().warning(line)
            return
        if kind == 'state' and self.driver is not None:
            self.driver.state_arrived()
        elif kind == 'command' and self.driver is not None:
            self.driver.command_arrived()

    def _on_message(self, kind: str, store: str, msg: JointState, arrival: float) -> None:
        self._store(kind, store, msg.name, msg.position, msg.velocity, msg.effort,
                    arrival=arrival)

    def _on_array_command(self, field: str, msg: Float64MultiArray, arrival: float) -> None:
        self._store('command', 'set_interface_command', field, msg.data, arrival=arrival)

    def _publish_diagnostics(self) -> None:
        core = self.core
        if core is not None:
            for line in self._reports.drops(core.drops):
                self.get_logger().warning(line)
        records = node_records(self.get_fully_qualified_name(), core, self.lifecycle_state,
                               self.configure_error)
        if core is not None:
            records[0].values.insert(1, ('event_driven', str(core.settings.event_driven).lower()))
        msg = DiagnosticArray()
        msg.header.stamp = self.get_clock().now().to_msg()
        msg.status = [diagnostic_status(r.name, r.level, r.message, r.hardware_id, r.values)
                      for r in records]
        self._diag_pub.publish(msg)


def main(args: list[str] | None = None) -> int:
    """Run the node (``hardware_interface_node`` executable)."""
    return run_node(lambda a: HardwareInterfaceNode(), args)


__all__ = ['HardwareInterfaceNode', 'NODE_NAME', 'PARAMETERS', 'main']

if __name__ == '__main__':
    raise SystemExit(main())
