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

Two physics (parameter ``physics``):

* ``rotors`` (default): each motor is an
  :class:`~transmission_plugins.runtime.simulator.ActuatorSimulator` rotor, Drake's PD actuator
  with the URDF's rotor inertia, gear ratio, gains and effort limit, and nothing behind it but
  the drivetrain's friction, torque-speed envelope and winding temperature (doc/physics.md);
* ``mujoco``: the whole robot in MuJoCo (:class:`~transmission_plugins.runtime.mujoco_physics.
  MujocoPhysics`): links with mass, gravity, joint limits and damping, the rotors' reflected
  inertia, the same actuator law mapped to joint torques through the transmissions; the
  real-time factor goes to ``/diagnostics``.  Needs the ``mujoco`` package.

The node publishes
``actuator_states`` (position, velocity, applied effort) at ``rate`` and obeys
``actuator_commands``.  Joints with a ``<calibration rising|falling>`` get a simulated reference
switch, published on ``reference_switches`` right after each ``actuator_states`` (position 1.0
on, 0.0 off; :class:`~transmission_plugins.runtime.simulator.ReferenceSwitches`); with
``incremental_encoders`` the actuators of those joints count from 0 at start, so that the
hardware interface must home them.  The mode of each actuator named by a command follows the
fields the message carries: **position** when it has positions, else **velocity** when it has
velocities, else **effort**; velocity and effort values beside positions are ignored.  An
actuator keeps its last command until a new one names it; at start every motor holds its
initial position.  An actuator that takes no command (a series-elastic transmission's
joint-side encoder, ``RobotTransmissions.commanded_actuators``) reads its link; a command
naming it is dropped for it (the rest of the message is obeyed), counted under
``ignored_commands.<actuator>`` in ``/diagnostics`` and logged once per actuator.

Bad input never stops the node (doc/nodes.md says what each kind does); every parameter is
read-only: the simulation is built once, and a bad value at start-up makes the node exit 1.
"""

import math
import time
from typing import Any
from typing import Sequence

from diagnostic_msgs.msg import DiagnosticArray
import numpy as np
from rclpy.exceptions import InvalidParameterValueException
from rclpy.node import Node
from rclpy.timer import Timer
from sensor_msgs.msg import JointState

from transmission_plugins.core.exceptions import TransmissionError
from transmission_plugins.core.exceptions import TransmissionValueError
from transmission_plugins.robot.loading import load_robot_transmissions
from transmission_plugins.robot.robot_transmissions import RobotTransmissions
from transmission_plugins.ros.common import diagnostic_status
from transmission_plugins.ros.common import parameter_value
from transmission_plugins.ros.common import reliable_qos
from transmission_plugins.ros.common import run_node
from transmission_plugins.ros.common import StartupFailed
from transmission_plugins.ros.common import subscribe_description
from transmission_plugins.ros.common import to_msg_array
from transmission_plugins.ros.node_parameters import CheckedParameters
from transmission_plugins.ros.node_parameters import declare_parameters
from transmission_plugins.ros.node_parameters import validate_parameters
from transmission_plugins.runtime.diagnostics import ERROR
from transmission_plugins.runtime.diagnostics import OK
from transmission_plugins.runtime.diagnostics import WARN
from transmission_plugins.runtime.messages import DROP_REASONS as MESSAGE_DROP_REASONS
from transmission_plugins.runtime.messages import DropCounts
from transmission_plugins.runtime.messages import FIELDS
from transmission_plugins.runtime.messages import InputRejected
from transmission_plugins.runtime.messages import NameIndex
from transmission_plugins.runtime.messages import read_message
from transmission_plugins.runtime.mujoco_model import import_mujoco
from transmission_plugins.runtime.mujoco_model import ModelOptions
from transmission_plugins.runtime.mujoco_physics import MujocoPhysics
from transmission_plugins.runtime.node_settings import MOCK_ACTUATORS
from transmission_plugins.runtime.node_settings import MUJOCO_ONLY
from transmission_plugins.runtime.reports import Reports
from transmission_plugins.runtime.series_springs import link_inertia
from transmission_plugins.runtime.series_springs import SeriesSprings
from transmission_plugins.runtime.simulator import ActuatorSimulator
from transmission_plugins.runtime.simulator import ReferenceSwitches
from transmission_plugins.runtime.simulator import unsimulated_backlash
from transmission_plugins.urdf.text import received_description

NODE_NAME = MOCK_ACTUATORS.node
#: the node's parameter contract (doc/nodes.md)
PARAMETERS = MOCK_ACTUATORS

#: Below this achieved real-time factor /diagnostics warns that the physics falls behind.
SLOW_REAL_TIME_FACTOR = 0.9

#: Why an ``actuator_commands`` message is dropped; ``dropped.actuator_commands.<reason>``.
#: the drop reasons /diagnostics always lists (the shared validation's, but for passive joints)
DROP_REASONS = tuple(r for r in MESSAGE_DROP_REASONS
                     if r not in ('not_commandable', 'uncalibrated'))


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


class MockActuatorsNode(CheckedParameters, Node):
    """Simulate the robot's actuators and close the loop for the hardware interface."""

    def __init__(self, node_name: str = NODE_NAME, **kwargs: Any) -> None:
        super().__init__(node_name, **kwargs)
        self.validator = validator = validate_parameters(self, PARAMETERS)
        try:
            declare_parameters(self, PARAMETERS)
        except InvalidParameterValueException as e:
            self.get_logger().error(f'invalid parameter: {validator.rejected or e}')
            raise StartupFailed(validator.rejected or str(e)) from e
        self.sim: ActuatorSimulator | MujocoPhysics | None = None
        self.robot: RobotTransmissions | None = None
        self._timer: Timer | None = None
        self._last = 0.0
        self._sub_description = None
        #: dropped ``actuator_commands`` messages per reason, and the log lines about them
        self.drops = DropCounts()
        self._reports = Reports()
        #: per actuator that takes no command, the command values dropped for it
        self.ignored_commands: dict[str, int] = {}
        self.rejected_descriptions = 0
        self.description_error = ''
        #: why the simulation was halted (it diverged), or ''
        self.halted = ''
        self._depth = max(1, int(self._p('qos_depth')))
        self._diag_pub = self.create_publisher(DiagnosticArray, '/diagnostics',
                                               reliable_qos(self._depth))
        period = float(self._p('diagnostic_period'))
        self._diag_timer = (self.create_timer(period, self._publish_diagnostics)
                            if period > 0.0 else None)
        self._physics = self._check_physics()
        self._rtf_mark = (0.0, time.monotonic())
        self._rtf = math.nan
        description = self._p('robot_description')
        if description:
            try:
                self._build(description)
            except Exception as e:  # noqa: B902 - reported, then a clean exit 1
                self.get_logger().error(
                    f'cannot simulate the robot_description parameter: {type(e).__name__}: {e}. '
                    'Exiting; fix it, or leave it empty to wait for the robot_description topic')
                raise StartupFailed(str(e)) from e
        else:
            self._sub_description = subscribe_description(self, self._on_description)

    def _p(self, name: str) -> Any:
        return parameter_value(self, name)

    def _check_physics(self) -> str:
        """Return the ``physics`` parameter; log and raise StartupFailed when it is unusable."""
        physics = self._p('physics')
        try:
            if physics == 'mujoco':
                import_mujoco()
                self._model_options()
            else:
                self._warn_unused_mujoco_parameters()
        except TransmissionError as e:
            self.get_logger().error(f'{e}. Exiting')
            raise StartupFailed(str(e)) from e
        return str(physics)

    def _warn_unused_mujoco_parameters(self) -> None:
        """Say which ``physics mujoco`` parameters were changed but have no effect on rotors."""
        unused = [name for name in MUJOCO_ONLY if self._p(name) != PARAMETERS[name].default]
        if unused:
            self.get_logger().warning(f'parameters {unused} apply to physics mujoco only; '
                                      f'physics is {self._p("physics")!r}: they are ignored')

    def _model_options(self) -> ModelOptions:
        """Return the MuJoCo model options from the parameters."""
        return ModelOptions(physics_step=float(self._p('physics_step')),
                            gravity=bool(self._p('gravity')),
                            contacts=bool(self._p('contacts')),
                            rotor_damping=float(self._p('damping')),
                            gravity_compensation=tuple(self._p('gravity_compensation')))

    def _on_description(self, description: str) -> None:
        """Build the simulation from a topic message; a bad one is logged, not fatal."""
        if self.sim is not None:
            self.get_logger().info('new robot_description ignored: the actuators are already '
                                   'simulated (restart the node to change the robot)')
            return
        try:
            self._build(description)
        except Exception as e:  # noqa: B902 - the mock survives every description, reported
            self.rejected_descriptions += 1
            self.description_error = f'{type(e).__name__}: {e}'
            self.get_logger().error(f'cannot simulate the robot_description received: '
                                    f'{self.description_error}; waiting for the next one')
            self._publish_diagnostics()
            return
        self.description_error = ''

    def _build(self, description: str) -> None:
        """
        Load the transmissions and start the simulation.

        Everything is validated before any publisher, subscription or timer is created, so a
        failure leaves the node as it was.

        :raises TransmissionError: the description or a parameter is unusable
        """
        description = received_description(description)
        robot = load_robot_transmissions(description, lenient=bool(self._p('lenient')),
                                         warn=False)
        if not robot.actuator_names:
            raise TransmissionValueError('robot_description', 'no actuators',
                                         'a URDF with at least one transmission')
        rate = float(self._p('rate'))
        models = [robot.actuator_models[n] for n in robot.actuator_names]
        q = initial_joint_positions(robot, self._p('initial_joint_names'),
                                    self._p('initial_joint_positions'))
        sim: ActuatorSimulator | MujocoPhysics
        if self._physics == 'mujoco':
            sim = MujocoPhysics(robot, description, self._model_options(), joint_position=q,
                                bandwidth=float(self._p('bandwidth')))
            for w in sim.built.warnings:
                self.get_logger().warning(f'physics mujoco: {w}')
            a0 = sim.state()['position']
        else:
            # min_inertia: let small rotors (the gripper's) keep their real inertia
            links = {n: link_inertia(description, n) for n in SeriesSprings(robot).names}
            sim = ActuatorSimulator(models, min_inertia=1e-7,
                                    damping=float(self._p('damping')),
                                    bandwidth=float(self._p('bandwidth')), robot=robot,
                                    link_inertia=links)
            unsimulated = unsimulated_backlash(robot)
            if unsimulated:
                self.get_logger().warning(unsimulated)
            a0 = np.asarray(robot.joint_to_actuator_arrays({'position': q})['position'])
            a0 = np.where(np.isfinite(a0), a0, 0.0)
            sim.reset(position=a0)
        sim.set_command('position', a0)
        switches = ReferenceSwitches(robot)
        self.robot, self.sim, self.switches = robot, sim, switches
        self._index = NameIndex(robot.actuator_names, 'actuator')
        self._names = list(robot.actuator_names)
        self._commanded = np.array(robot.commanded_actuators, dtype=bool)
        self.ignored_commands = {n: 0 for n, c in zip(self._names, self._commanded) if not c}
        #: subtracted from the true positions published (incremental encoders), added to
        #: position commands
        self._zero = np.zeros(len(self._names))
        if self._p('incremental_encoders'):
            for t in robot.transmissions:
                if set(t.joint_names) & set(switches.names):
                    for name in t.actuator_names:
                        i = self._names.index(name)
                        self._zero[i] = a0[i]
        self._pub = self.create_publisher(JointState, 'actuator_states',
                                          reliable_qos(self._depth))
        self._switch_pub = (self.create_publisher(JointState, 'reference_switches',
                                                  reliable_qos(self._depth))
                            if switches.names else None)
        self.create_subscription(JointState, 'actuator_commands', self._on_command,
                                 reliable_qos(self._depth))
        self._max_dt = 5.0 / rate
        self._rate = rate
        self._last = time.monotonic()
        self._timer = self.create_timer(1.0 / rate, self._step)
        self._rtf_mark = (0.0, time.monotonic())
        self.get_logger().info(f'simulating {len(models)} actuators ({self._physics} physics) '
                               f'at {rate:g} Hz: {", ".join(self._names)}')

    def _on_command(self, msg: JointState) -> None:
        """Obey a command: its first field (position, velocity, effort) sets the mode."""
        try:
            idx, values = read_message(self._index, msg.name, msg.position, msg.velocity,
                                       msg.effort)
        except InputRejected as e:
            self.drops.reject('actuator_commands', e)
            for line in self._reports.drops(self.drops):   # at most one summary a second
                self.get_logger().warning(line)
            return
        mode = next(f for f in FIELDS if f in values)
        full = np.full(len(self._names), np.nan)
        full[idx] = values[mode]
        if not self._commanded[idx].all():
            self._ignore(np.asarray(idx)[~self._commanded[idx]])
            full[~self._commanded] = np.nan
        if mode == 'position':
            full = full + self._zero
        if self.sim is not None:
            self.sim.set_command(mode, full)

    def _ignore(self, actuators: np.ndarray) -> None:
        """Count the command values dropped for ``actuators`` (they take none); log the first."""
        for a in actuators:
            name = self._names[int(a)]
            if not self.ignored_commands[name]:
                self.get_logger().warning(
                    f'actuator_commands: {name!r} takes no command (a joint-side encoder): its '
                    'values are dropped (counted under ignored_commands in /diagnostics)')
            self.ignored_commands[name] += 1

    def _step(self) -> None:
        sim = self.sim
        if sim is None or self.halted:
            return
        now = time.monotonic()
        dt = min(now - self._last, self._max_dt)
        self._last = now
        if dt > 0.0:
            sim.step(dt)
        s = sim.state()
        # rotors put an overflowing actuator back at rest (counted); MuJoCo resets the whole
        # robot to its initial pose, which would publish a made-up jump: halt instead
        if (isinstance(sim, MujocoPhysics) and sim.diverged) or \
                not all(np.isfinite(x).all() for x in s.values()):
            self._halt(sim.diverged)
            return
        msg = JointState()
        msg.header.stamp = self.get_clock().now().to_msg()
        msg.name = self._names
        msg.position = to_msg_array(s['position'] - self._zero)
        msg.velocity = to_msg_array(s['velocity'])
        msg.effort = to_msg_array(s['effort'])
        self._pub.publish(msg)
        if self._switch_pub is not None:
            switches = JointState()
            switches.header.stamp = msg.header.stamp
            switches.name = self.switches.names
            switches.position = to_msg_array(self.switches.levels(s['position']))
            self._switch_pub.publish(switches)

    def _halt(self, diverged: int) -> None:
        """Stop simulating for good: a diverged simulation must not publish what it makes up."""
        self.halted = (f'the simulation diverged ({diverged} unstable steps): it is halted and '
                       'publishes nothing; check the masses, inertias, reductions and gains of '
                       'the description, then restart the node')
        self.get_logger().error(self.halted)
        if self._timer is not None:
            self.destroy_timer(self._timer)
            self._timer = None
        self._publish_diagnostics()

    def _publish_diagnostics(self) -> None:
        """Publish the node's status: what it simulates, rejected descriptions, drop counters."""
        dropped = self.drops.total()
        counts = self.drops.get('actuator_commands', {})
        values = [('dropped_messages', str(dropped))]
        values += [(f'dropped.actuator_commands.{r}', str(counts.get(r, 0)))
                   for r in DROP_REASONS]
        values.append(('rejected_descriptions', str(self.rejected_descriptions)))
        if self.halted:
            level, message = ERROR, self.halted
        elif self.sim is not None:
            level, message = OK, f'simulating {len(self._names)} actuators'
            values += [('actuators', ', '.join(self._names)), ('rate', f'{self._rate:g}'),
                       ('physics', self._physics)]
            if isinstance(self.sim, ActuatorSimulator):
                values.append(('diverged_steps', str(self.sim.diverged)))
            values += [(f'temperature.{n}', f'{t:.2f}') for n, t in
                       zip(self._names, self.sim.control.temperature) if math.isfinite(t)]
            values += [(f'ignored_commands.{n}', str(c))
                       for n, c in self.ignored_commands.items()]
            if isinstance(self.sim, MujocoPhysics):
                level, message = self._physics_status(values, message)
        elif self.description_error:
            level = ERROR
            message = f'robot_description rejected, waiting for the next one: ' \
                      f'{self.description_error}'
            values.append(('description_error', self.description_error))
        else:
            level, message = WARN, 'waiting for robot_description'
        if self.sim is not None and dropped:
            message += f'; {dropped} bad actuator_commands dropped'
        msg = DiagnosticArray()
        msg.header.stamp = self.get_clock().now().to_msg()
        msg.status = [diagnostic_status(self.get_fully_qualified_name(), level, message,
                                        NODE_NAME, values)]
        self._diag_pub.publish(msg)

    def _physics_status(self, values: list[tuple[str, str]], message: str) -> tuple[int, str]:
        """Add the MuJoCo values (real-time factors); WARN when the physics falls behind."""
        sim = self.sim
        assert isinstance(sim, MujocoPhysics)
        now = time.monotonic()
        sim_time, wall = self._rtf_mark
        if now > wall:
            self._rtf = (sim.sim_time - sim_time) / (now - wall)
            self._rtf_mark = (sim.sim_time, now)
        values += [('physics_step', f'{sim.physics_step:g}'),
                   ('real_time_factor', f'{self._rtf:.3f}'),
                   ('compute_real_time_factor', f'{sim.real_time_factor():.2f}'),
                   ('simulated_time', f'{sim.sim_time:.3f}')]
        if self._rtf < SLOW_REAL_TIME_FACTOR:
            return WARN, (f'{message}; the physics falls behind real time (real-time factor '
                          f'{self._rtf:.2f})')
        return OK, message


def main(args: list[str] | None = None) -> int:
    """Run the node (``mock_actuators_node`` executable)."""
    return run_node(lambda a: MockActuatorsNode(), args)


if __name__ == '__main__':
    raise SystemExit(main())
