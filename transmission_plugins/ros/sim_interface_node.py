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
Lifecycle node ``transmission_sim_interface``: a joint-space simulator, seen as motors.

The mirror of ``transmission_hardware_interface`` (:mod:`.hardware_interface_node`), for
testing motor-level software (drivers, actuator controllers, calibration) against a simulator
that simulates joints (Gazebo through gz_ros2_control, MuJoCo, Isaac, Drake).  Topics (all
relative, so namespaces and remapping apply):

* subscribes ``joint_states`` (``sensor_msgs/JointState`` from the simulator, best effort so
  that reliable and best-effort publishers both match; joints of no transmission are ignored),
  ``actuator_commands`` (``sensor_msgs/JointState``, any subset of actuators and fields), and
  ``robot_description`` (``std_msgs/String``, transient local) while the parameter is empty;
* publishes ``actuator_states`` and ``joint_commands`` (``sensor_msgs/JointState``, reliable;
  passive joints are never commanded) at ``update_rate`` while active (with ``event_driven``:
  when their inputs arrive, and at ``update_rate`` while the inputs are silent), with
  ``array_commands`` also ``<interface>_commands`` (``std_msgs/Float64MultiArray`` in ``joints``
  order, when every one of those joints is commanded), and ``/diagnostics`` every
  ``diagnostic_period`` seconds.

Lifecycle, watchdogs, QoS overrides, diagnostics and the event-driven mode are the hardware
interface's: this node is that node with its messages turned around (doc/simulation.md).
"""

import functools
from typing import Any
from typing import Callable

from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray

from transmission_plugins.ros.common import qos_overridable
from transmission_plugins.ros.common import run_node
from transmission_plugins.ros.common import subscribe_with_arrival
from transmission_plugins.ros.common import to_msg_array
from transmission_plugins.ros.hardware_interface_node import HardwareInterfaceNode
from transmission_plugins.runtime.commands import CommandOutput
from transmission_plugins.runtime.node_settings import cycle_settings
from transmission_plugins.runtime.node_settings import SIM_INTERFACE
from transmission_plugins.runtime.settings import Declaration
from transmission_plugins.runtime.sim_interface import SimInterface

NODE_NAME = SIM_INTERFACE.node
#: the node's parameter contract (doc/nodes.md, doc/simulation.md)
PARAMETERS = SIM_INTERFACE


class SimInterfaceNode(HardwareInterfaceNode):
    """Map joint states to actuator states and actuator commands to joint commands."""

    PARAMETERS: Declaration = SIM_INTERFACE
    STATE_INPUT = 'joint_states'
    STATE_INPUT_ARGUMENT = ''

    def __init__(self, node_name: str = NODE_NAME, **kwargs: Any) -> None:
        self._array_pubs: dict[str, Any] = {}
        super().__init__(node_name, **kwargs)

    def _make_core(self, robot: Any,  # type: ignore[override]
                   values: dict[str, Any]) -> SimInterface:
        """Return the ROS-free mirror cycle for ``robot`` with the checked ``values``."""
        return SimInterface(robot, cycle_settings(values),
                            command_joints=list(values['joints'] or []),
                            array_commands=list(values['array_commands'] or []))

    def _create_topics(self, depth: int) -> None:
        """Create the publishers and subscriptions of the configured node."""
        assert isinstance(self.core, SimInterface)
        self._state_pub = self.create_lifecycle_publisher(
            JointState, 'actuator_states', **qos_overridable(depth, publisher=True))
        self._command_pub = self.create_lifecycle_publisher(
            JointState, 'joint_commands', **qos_overridable(depth, publisher=True))
        self._array_pubs = {
            interface: self.create_lifecycle_publisher(
                Float64MultiArray, f'{interface}_commands',
                **qos_overridable(depth, publisher=True))
            for interface in self.core.array_commands}
        self._cycle_publishers = [self._state_pub, self._command_pub,
                                  *self._array_pubs.values()]
        self._entities = [
            subscribe_with_arrival(self, JointState, 'joint_states', functools.partial(
                self._on_message, 'state', 'set_joint_state'),
                **qos_overridable(depth, reliable=False)),
            subscribe_with_arrival(self, JointState, 'actuator_commands', functools.partial(
                self._on_message, 'command', 'set_actuator_command'),
                **qos_overridable(depth, logger=self.get_logger(), topic='actuator_commands'))]

    # ------------------------------------------------------------------ outputs
    def _outputs(self) -> tuple[Callable[[float], Any], Callable[[float], list[Any]], Any, Any]:
        """Return the state half, the command half and their publishers (the driver's)."""
        assert isinstance(self.core, SimInterface)
        return (self.core.actuator_states, self._joint_commands, self._state_pub,
                self._command_pub)

    def _joint_commands(self, now: float) -> list[CommandOutput]:
        """Return the joint command messages (the driver publishes them); publish the arrays."""
        assert isinstance(self.core, SimInterface)
        groups = self.core.joint_commands(now)
        for interface, values in self.core.array_outputs().items():
            pub = self._array_pubs.get(interface)
            if pub is not None:
                msg = Float64MultiArray()
                msg.data = to_msg_array(values)
                pub.publish(msg)
        return groups

    def _teardown(self) -> None:
        super()._teardown()
        self._array_pubs = {}


def main(args: list[str] | None = None) -> int:
    """Run the node (``sim_interface_node`` executable)."""
    return run_node(lambda a: SimInterfaceNode(), args)


__all__ = ['NODE_NAME', 'PARAMETERS', 'SimInterfaceNode', 'main']

if __name__ == '__main__':
    raise SystemExit(main())
