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
The parameters of ``transmission_hardware_interface``: the contract, and what applies when.

Every parameter has a range or choices (:class:`~transmission_plugins.runtime.parameters.
Constraint`), checked when it is set and again at configure; when each applies is doc/nodes.md's
("Parameters"): at once (:func:`apply_settings`), at the next configure (:data:`AT_CONFIGURE`)
or never (read-only).  ros2_control's joint_limits parameters are declared at configure, for the
joints of the robot loaded.
"""

from typing import Any
from typing import Callable
from typing import Iterable

from rcl_interfaces.msg import SetParametersResult
from rclpy.parameter import Parameter

from transmission_plugins.ros.common import ROBOT_DESCRIPTION_PARAMETER
from transmission_plugins.ros.node_parameters import MAX_QOS_DEPTH
from transmission_plugins.runtime.calibration import CalibrationSettings
from transmission_plugins.runtime.commands import TIMEOUT_ACTIONS
from transmission_plugins.runtime.cycle import InterfaceCycle
from transmission_plugins.runtime.parameters import Constraint
from transmission_plugins.runtime.parameters import Specs
from transmission_plugins.runtime.states import STALE_JOINT_POLICIES

#: name -> (default, description, constraint); the node's parameter contract (doc/nodes.md).
PARAMETERS: Specs = {
    'robot_description': ROBOT_DESCRIPTION_PARAMETER,
    'autostart': (True, 'configure and activate by itself at start-up',
                  Constraint(read_only=True)),
    'update_rate': (100.0, 'cycle rate in Hz of joint_states and actuator_commands (with '
                           'event_driven: the rate of the watchdogs, and of the outputs while '
                           'their inputs are silent)',
                    Constraint(low=0.1, high=10_000.0)),
    'event_driven': (False, 'publish joint_states when actuator_states arrive and '
                            'actuator_commands when joint commands arrive, instead of at '
                            'update_rate; the update_rate timer keeps the watchdogs'),
    'state_timeout': (0.1, 'seconds without actuator state after which joints are stale (see '
                           'stale_joints); 0 disables the watchdog',
                      Constraint(low=0.0, high=3600.0)),
    'command_timeout': (0.5, 'seconds after which a joint command expires; 0 disables',
                        Constraint(low=0.0, high=3600.0)),
    'command_timeout_action': ('stop', 'what expired joints send: stop (nothing), hold (the '
                                       'actuator position measured at expiry), zero_velocity '
                                       'or zero_effort', Constraint(choices=TIMEOUT_ACTIONS)),
    'enforce_limits': (True, 'clamp joint commands to the URDF limits and actuator commands to '
                             'the actuator limits (every clamp is counted)'),
    'stale_joints': ('last', 'what joint_states says about joints whose actuator state is stale: '
                             'last (their last values, so TF stays) or omit (left out)',
                     Constraint(choices=STALE_JOINT_POLICIES)),
    'frame_id': ('', 'header.frame_id of joint_states'),
    'lenient': (False, 'load the URDF in lenient mode (defaults replace ill-defined values)'),
    'qos_depth': (10, 'history depth of every topic (qos_overrides.<topic>.* override it)',
                  Constraint(low=1, high=MAX_QOS_DEPTH, read_only=True)),
    'joints': ([], 'joint order of the Float64MultiArray command topics; empty: every '
                   'commandable joint in URDF order', Constraint(unique=True)),
    'diagnostic_period': (1.0, 'seconds between /diagnostics messages',
                          Constraint(low=0.01, high=3600.0)),
}

#: The parameters of the hardware interface alone (soft limits and calibration: the simulation
#: interface has neither); doc/nodes.md and doc/calibration.md.
HARDWARE_ONLY: Specs = {
    'soft_limits': (True, 'with enforce_limits, also clamp joint commands to the soft limits of '
                          "the joints' <safety_controller> (doc/calibration.md)"),
    'calibration_file': ('', 'YAML file of actuator offsets: read at configure when it exists, '
                             'written after homing; empty: none',
                         Constraint(max_length=4096)),
    'homing': (False, 'at activation, home the joints with a reference switch (<calibration '
                      'rising|falling>) that the calibration file does not calibrate'),
    'homing_joints': ([], 'the joints to home; empty: every joint with a reference switch',
                      Constraint(unique=True)),
    'homing_speed': (0.1, "homing search speed, a fraction of each joint's velocity limit (of 1 "
                          'rad/s or m/s for a joint without one)',
                     Constraint(low=0.001, high=1.0)),
    'homing_timeout': (30.0, 'seconds each joint may take to find its switch',
                       Constraint(low=0.1, high=3600.0)),
    'absolute_encoders': ([], 'actuators or joints whose absolute positions on '
                              'absolute_positions calibrate their transmission at start',
                          Constraint(unique=True)),
    'single_turn_encoders': ([], 'entries of absolute_encoders that read one turn (2 pi) only: '
                                 'the turn is found from the joint range',
                             Constraint(unique=True)),
    'require_calibration': (True, 'refuse commands to joints not calibrated yet and leave them '
                                  'out of joint_states; false: use them with the offsets known '
                                  'so far'),
}
PARAMETERS.update(HARDWARE_ONLY)

#: Parameters read at configure only (a change is logged and waits for cleanup + configure).
AT_CONFIGURE = frozenset({'robot_description', 'lenient', 'joints'}
                         | (set(HARDWARE_ONLY) - {'soft_limits'}))

#: parameter -> (HardwareInterface attribute, conversion): the settings applied at once.
LIVE_SETTINGS: dict[str, tuple[str, Callable[[Any], Any]]] = {
    'state_timeout': ('state_timeout', float),
    'command_timeout': ('command_timeout', float),
    'command_timeout_action': ('timeout_action', str),
    'enforce_limits': ('enforce_limits', bool),
    'stale_joints': ('stale_joints', str),
    'update_rate': ('period', lambda rate: 1.0 / float(rate)),
}
#: the hardware interface's live settings (its own beside the shared ones)
HARDWARE_LIVE_SETTINGS = dict(LIVE_SETTINGS, soft_limits=('soft_limits', bool))


def core_settings(values: dict[str, Any]) -> dict[str, Any]:
    """Return the settings of the ROS-free cycle from the checked parameter ``values``."""
    return {'state_timeout': float(values['state_timeout']),
            'command_timeout': float(values['command_timeout']),
            'enforce_limits': bool(values['enforce_limits']),
            'command_joints': list(values['joints'] or []),
            'timeout_action': str(values['command_timeout_action']),
            'stale_joints': str(values['stale_joints'])}


def hardware_settings(values: dict[str, Any],
                      joint_limits: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Return the settings of the hardware interface alone (soft limits, calibration)."""
    return {'soft_limits': bool(values['soft_limits']), 'joint_limits': joint_limits,
            'calibration': CalibrationSettings(
                calibration_file=str(values['calibration_file']),
                homing=bool(values['homing']),
                homing_joints=list(values['homing_joints'] or []),
                homing_speed=float(values['homing_speed']),
                homing_timeout=float(values['homing_timeout']),
                absolute_encoders=list(values['absolute_encoders'] or []),
                single_turn_encoders=list(values['single_turn_encoders'] or []),
                require_calibration=bool(values['require_calibration']))}


def apply_settings(core: InterfaceCycle, names: Iterable[str], value: Callable[[str], Any],
                   live: dict[str, tuple[str, Callable[[Any], Any]]] | None = None) -> None:
    """
    Give ``core`` the new value (``value(name)``) of every live setting in ``names``.

    :param live: the live settings (default :data:`LIVE_SETTINGS`)
    """
    live = LIVE_SETTINGS if live is None else live
    for name in names:
        if name in live:
            attribute, cast = live[name]
            setattr(core, attribute, cast(value(name)))


def check_joints(core: InterfaceCycle | None,
                 parameters: list[Parameter[Any]]) -> SetParametersResult:
    """Once a robot is loaded, ``joints`` must name its commandable joints."""
    for p in parameters:
        if p.name == 'joints' and core is not None and p.value:
            allowed = set(core.commandable_joints())
            bad = [n for n in p.value if n not in allowed]
            if bad:
                return SetParametersResult(successful=False, reason=(
                    f'joints must name commandable joints of the robot, got {bad[:5]} '
                    f'(commandable: {sorted(allowed)[:20]})'))
    return SetParametersResult(successful=True)
