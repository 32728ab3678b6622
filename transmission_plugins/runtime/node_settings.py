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
The declared parameters of the package's three nodes, and the settings the cycle takes from them.

:data:`HARDWARE_INTERFACE`, :data:`SIM_INTERFACE` and :data:`MOCK_ACTUATORS` are the nodes'
parameter contracts (:class:`~.settings.Declaration`; doc/nodes.md's tables are checked against
them).  :func:`cycle_settings` turns the checked parameter values of an interface node into the
:class:`~.cycle.CycleSettings` its cycle receives whole (``update_rate`` becomes the period
there, once).  ros2_control's joint_limits parameters are declared at configure, for the joints
of the robot loaded (:data:`~.soft_limits.JOINT_LIMIT_PARAMETERS`).
"""

import math
from typing import Any
from typing import Mapping

from transmission_plugins.runtime.calibration import CalibrationSettings
from transmission_plugins.runtime.commands import TIMEOUT_ACTIONS
from transmission_plugins.runtime.cycle import CycleSettings
from transmission_plugins.runtime.drivetrain import EFFORT_UNITS
from transmission_plugins.runtime.integrity import JOINT_RESOLUTION
from transmission_plugins.runtime.integrity import MOTOR_RESOLUTION
from transmission_plugins.runtime.messages import FIELDS
from transmission_plugins.runtime.settings import AT_CONFIGURE
from transmission_plugins.runtime.settings import AT_START
from transmission_plugins.runtime.settings import Declaration
from transmission_plugins.runtime.settings import MAX_QOS_DEPTH
from transmission_plugins.runtime.settings import READ_ONLY
from transmission_plugins.runtime.settings import Setting
from transmission_plugins.runtime.states import STALE_JOINT_POLICIES
from transmission_plugins.urdf.text import MAX_URDF_BYTES

#: the package's node names
HARDWARE_INTERFACE_NODE = 'transmission_hardware_interface'
SIM_INTERFACE_NODE = 'transmission_sim_interface'
MOCK_ACTUATORS_NODE = 'mock_actuators'

#: what every node's ``robot_description`` is (read when the node configures or starts)
ROBOT_DESCRIPTION = Setting(
    'robot_description', '', 'URDF (XML text, already expanded: xacro and file paths are '
    'refused); when empty, listen on the robot_description topic (transient local)',
    applies=AT_CONFIGURE, max_length=MAX_URDF_BYTES)

#: ``transmission_hardware_interface`` (doc/nodes.md, "Parameters")
HARDWARE_INTERFACE = Declaration(HARDWARE_INTERFACE_NODE, [
    ROBOT_DESCRIPTION,
    Setting('autostart', True, 'configure and activate by itself at start-up',
            applies=READ_ONLY),
    Setting('update_rate', 100.0, 'cycle rate in Hz of joint_states and actuator_commands (with '
            'event_driven: the rate of the watchdogs, and of the outputs while their inputs '
            'are silent)', unit='Hz', low=0.1, high=10_000.0),
    Setting('event_driven', False, 'publish joint_states when actuator_states arrive and '
            'actuator_commands when joint commands arrive, instead of at update_rate; the '
            'update_rate timer keeps the watchdogs'),
    Setting('state_timeout', 0.1, 'seconds without actuator state after which joints are stale '
            '(see stale_joints); 0 disables the watchdog', unit='s', low=0.0, high=3600.0,
            note='0 disables'),
    Setting('command_timeout', 0.5, 'seconds after which a joint command expires; 0 disables',
            unit='s', low=0.0, high=3600.0, note='0 disables'),
    Setting('command_timeout_action', 'stop', 'what expired joints send: stop (nothing), hold '
            '(the actuator position measured at expiry), zero_velocity or zero_effort',
            choices=TIMEOUT_ACTIONS),
    Setting('enforce_limits', True, 'clamp joint commands to the URDF limits and actuator '
            'commands to the actuator limits (every clamp is counted)'),
    Setting('stale_joints', 'last', 'what joint_states says about joints whose actuator state '
            'is stale: last (their last values, so TF stays) or omit (left out)',
            choices=STALE_JOINT_POLICIES),
    Setting('frame_id', '', 'header.frame_id of joint_states'),
    Setting('lenient', False, 'load the URDF in lenient mode (defaults replace ill-defined '
            'values)', applies=AT_CONFIGURE),
    Setting('qos_depth', 10, 'history depth of every topic (qos_overrides.<topic>.* override '
            'it)', low=1, high=MAX_QOS_DEPTH, applies=READ_ONLY),
    Setting('joints', [], 'joint order of the Float64MultiArray command topics; empty: every '
            'commandable joint in URDF order', unique=True, applies=AT_CONFIGURE,
            note='commandable joints of the robot'),
    Setting('diagnostic_period', 1.0, 'seconds between /diagnostics messages', unit='s',
            low=0.01, high=3600.0),
    # the hardware interface's alone (soft limits and calibration: doc/calibration.md)
    Setting('soft_limits', True, 'with enforce_limits, also clamp joint commands to the soft '
            "limits of the joints' <safety_controller> (doc/calibration.md)"),
    Setting('calibration_file', '', 'YAML file of actuator offsets: read at configure when it '
            'exists, written after homing; empty: none', max_length=4096,
            applies=AT_CONFIGURE),
    Setting('homing', False, 'at activation, home the joints with a reference switch '
            '(<calibration rising|falling>) that the calibration file does not calibrate',
            applies=AT_CONFIGURE),
    Setting('homing_joints', [], 'the joints to home; empty: every joint with a reference '
            'switch', unique=True, applies=AT_CONFIGURE, note='joints with a reference switch'),
    Setting('homing_speed', 0.1, "homing search speed, a fraction of each joint's velocity "
            'limit (of 1 rad/s or m/s for a joint without one)', low=0.001, high=1.0,
            applies=AT_CONFIGURE),
    Setting('homing_timeout', 30.0, 'seconds each joint may take to find its switch', unit='s',
            low=0.1, high=3600.0, applies=AT_CONFIGURE),
    Setting('absolute_encoders', [], 'actuators or joints whose absolute positions on '
            'absolute_positions calibrate their transmission at start; joint readings are '
            'then compared with the motors at every reading (a slip: ERROR, commands refused)',
            unique=True, applies=AT_CONFIGURE,
            note='actuators or joints, a whole transmission each'),
    Setting('single_turn_encoders', [], 'entries of absolute_encoders that read one turn (2 pi) '
            'only: the turn is found from the joint range', unique=True, applies=AT_CONFIGURE,
            note='entries of absolute_encoders'),
    Setting('require_calibration', True, 'refuse commands to joints not calibrated yet and '
            'leave them out of joint_states; false: use them with the offsets known so far',
            applies=AT_CONFIGURE),
    # motor and joint encoders (runtime/integrity.py, doc/calibration.md)
    Setting('single_turn_motor_encoders', [], 'motors whose drivers report a single-turn '
            'absolute position (right up to whole turns after a power cycle): at start their '
            'calibration file offsets are kept and the turn is picked by the joint readings',
            unique=True, applies=AT_CONFIGURE,
            note='every motor of transmissions whose joints are in absolute_encoders'),
    Setting('integrity_tolerance', 0.0, 'how far a joint reading on absolute_positions may be '
            'from the joint position its motors give before the transmission is taken to have '
            'slipped; 0: 4 counts of joint_encoder_resolution (plus, always, the motor '
            'resolution, the backlash and the joint speed times the time between the two)',
            unit='rad or m', low=0.0, high=1e3, applies=AT_CONFIGURE),
    Setting('joint_encoder_resolution', JOINT_RESOLUTION, 'one count of the joint encoders '
            'read on absolute_positions (default 12 bits per turn)', unit='rad or m',
            low=1e-12, high=1.0, applies=AT_CONFIGURE),
    Setting('motor_encoder_resolution', MOTOR_RESOLUTION, "one count of the motors' encoders "
            '(default 14 bits per turn)', unit='rad or m', low=1e-12, high=1.0,
            applies=AT_CONFIGURE),
    # the drivetrain (<motor>, <friction>: doc/drivetrain.md)
    Setting('actuator_effort_unit', 'torque', 'what the effort fields of actuator_states and '
            'actuator_commands hold: torque (N m or N at the actuator) or current (A; turned '
            "into efforts with each motor's gear ratio times torque constant, which every "
            'actuator must then have)', choices=EFFORT_UNITS, applies=AT_CONFIGURE),
    Setting('friction_compensation', False, 'add the modelled friction (<friction>) to effort '
            'commands: the joint side at the commanded joint velocity (else the measured one), '
            'the motor side at the actuator velocity; nothing at rest; every limit still '
            'applies'),
])

#: the hardware interface's parameters that the simulation interface does not have
HARDWARE_ONLY = ('soft_limits', 'calibration_file', 'homing', 'homing_joints', 'homing_speed',
                 'homing_timeout', 'absolute_encoders', 'single_turn_encoders',
                 'require_calibration', 'single_turn_motor_encoders', 'integrity_tolerance',
                 'joint_encoder_resolution', 'motor_encoder_resolution', 'actuator_effort_unit',
                 'friction_compensation')

#: ``transmission_sim_interface``: the hardware interface's, read the other way (doc/simulation.md)
SIM_INTERFACE = HARDWARE_INTERFACE.derived(SIM_INTERFACE_NODE, {
    'update_rate': {'description': 'cycle rate in Hz of actuator_states and joint_commands (with '
                                   'event_driven: the rate of the watchdogs, and of the outputs '
                                   'while their inputs are silent)'},
    'event_driven': {'description': 'publish actuator_states when joint_states arrive and '
                                    'joint_commands when actuator_commands arrive, instead of '
                                    'at update_rate; the update_rate timer keeps the watchdogs'},
    'state_timeout': {'description': 'seconds without joint state after which the actuators of '
                                     'those joints are stale (see stale_joints); 0 disables the '
                                     'watchdog'},
    'command_timeout': {'description': 'seconds after which an actuator command expires; 0 '
                                       'disables'},
    'command_timeout_action': {'description': 'what joints of expired actuators receive: stop '
                                              '(nothing), hold (the joint positions measured at '
                                              'expiry), zero_velocity or zero_effort'},
    'enforce_limits': {'description': 'clamp actuator commands to the actuator limits and joint '
                                      'commands to the URDF limits (every clamp is counted)'},
    'stale_joints': {'description': 'what actuator_states says about actuators of stale joints: '
                                    'omit (left out) or last (their last values)',
                     'default': 'omit'},
    'frame_id': {'description': 'header.frame_id of actuator_states and joint_commands'},
    'joints': {'description': 'joint order of the Float64MultiArray topics of array_commands; '
                              'empty: every commandable joint in URDF order'},
}, drop=HARDWARE_ONLY, add={'joints': [Setting(
    'array_commands', [], 'interfaces also published as <interface>_commands (std_msgs/'
    'Float64MultiArray in joints order), e.g. [position]; empty: none', choices=FIELDS,
    unique=True, applies=AT_CONFIGURE)]})

#: The values of mock_actuators' ``physics`` parameter.
PHYSICS = ('rotors', 'mujoco')

#: ``mock_actuators``: the simulation is built once, from the parameters as they are at start-up
#: (or when the first usable ``robot_description`` message arrives), so every one is read-only
MOCK_ACTUATORS = Declaration(MOCK_ACTUATORS_NODE, [
    Setting(**dict(vars(ROBOT_DESCRIPTION), applies=AT_START)),
    Setting('lenient', False, 'load the URDF in lenient mode', applies=READ_ONLY),
    Setting('rate', 200.0, "actuator_states rate in Hz (and the rotors' simulation step)",
            unit='Hz', low=1.0, high=10_000.0, applies=READ_ONLY),
    Setting('physics', 'rotors', "rotors: one decoupled rotor per actuator; mujoco: the robot's "
            'rigid bodies in MuJoCo (needs the mujoco package)', choices=PHYSICS,
            applies=READ_ONLY),
    Setting('physics_step', 0.001, 'physics mujoco: seconds per physics step', unit='s',
            low=1e-6, high=1.0, applies=READ_ONLY),
    Setting('gravity', True, 'physics mujoco: gravity on (9.81 m/s^2 along -z)',
            applies=READ_ONLY),
    Setting('contacts', False, 'physics mujoco: contacts between collision geometries',
            applies=READ_ONLY),
    Setting('gravity_compensation', [], 'physics mujoco: links that, with every link below them, '
            'are weightless (an ideal counterbalance, e.g. the PR2 arms)', unique=True,
            applies=READ_ONLY),
    Setting('damping', 0.0, 'viscous damping of every rotor, N m s/rad at the actuator',
            unit='N m s/rad', low=0.0, high=1e6, applies=READ_ONLY),
    Setting('bandwidth', 2.0 * math.pi * 10.0, 'rad/s; PD gains for actuators without '
            'drake:controller_gains are critically damped at it', unit='rad/s', low=1e-3,
            high=1e6, applies=READ_ONLY),
    Setting('qos_depth', 10, 'history depth of every topic', low=1, high=MAX_QOS_DEPTH,
            applies=READ_ONLY),
    Setting('initial_joint_names', [], 'joints given an initial position (others start at the '
            'centre of their range)', unique=True, applies=READ_ONLY),
    Setting('initial_joint_positions', [], 'initial positions of initial_joint_names (rad or m), '
            'same order', kind='double[]', applies=READ_ONLY),
    Setting('diagnostic_period', 1.0, 'seconds between /diagnostics messages; 0 disables them',
            unit='s', low=0.01, high=3600.0, off=0.0, applies=READ_ONLY),
    Setting('incremental_encoders', False, 'the actuators of transmissions with a reference '
            'switch count from 0 at start, as incremental encoders do (the hardware interface '
            'must home them)', applies=READ_ONLY),
])
#: parameters that only the MuJoCo physics reads
MUJOCO_ONLY = ('physics_step', 'gravity', 'contacts', 'gravity_compensation')

#: node name -> its declaration
DECLARATIONS = {d.node: d for d in (HARDWARE_INTERFACE, SIM_INTERFACE, MOCK_ACTUATORS)}


def cycle_settings(values: Mapping[str, Any]) -> CycleSettings:
    """Return the settings of an interface's cycle from its checked parameter ``values``."""
    return CycleSettings(update_rate=float(values['update_rate']),
                         state_timeout=float(values['state_timeout']),
                         command_timeout=float(values['command_timeout']),
                         enforce_limits=bool(values['enforce_limits']),
                         timeout_action=str(values['command_timeout_action']),
                         stale_joints=str(values['stale_joints']),
                         event_driven=bool(values['event_driven']),
                         soft_limits=bool(values.get('soft_limits', True)),
                         friction_compensation=bool(values.get('friction_compensation', False)))


def calibration_settings(values: Mapping[str, Any]) -> CalibrationSettings:
    """Return the hardware interface's calibration settings from its checked ``values``."""
    return CalibrationSettings(
        calibration_file=str(values['calibration_file']), homing=bool(values['homing']),
        homing_joints=list(values['homing_joints'] or []),
        homing_speed=float(values['homing_speed']),
        homing_timeout=float(values['homing_timeout']),
        absolute_encoders=list(values['absolute_encoders'] or []),
        single_turn_encoders=list(values['single_turn_encoders'] or []),
        require_calibration=bool(values['require_calibration']),
        single_turn_motor_encoders=list(values['single_turn_motor_encoders'] or []),
        integrity_tolerance=float(values['integrity_tolerance']),
        joint_encoder_resolution=float(values['joint_encoder_resolution']),
        motor_encoder_resolution=float(values['motor_encoder_resolution']))
