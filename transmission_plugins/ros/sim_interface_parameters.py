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
The parameters of ``transmission_sim_interface``: the hardware interface's, read the other way.

Every parameter of :mod:`.hardware_interface_parameters` but those of soft limits and
calibration (which act on the hardware's joints), and ``array_commands``; the differences are
doc/simulation.md's table ("Parameters").
"""

from typing import Any

from transmission_plugins.ros import hardware_interface_parameters as hw
from transmission_plugins.runtime.messages import FIELDS
from transmission_plugins.runtime.parameters import Constraint
from transmission_plugins.runtime.parameters import Specs


def _mirror(name: str, description: str, default: Any | None = None) -> tuple[Any, ...]:
    """Return the hardware interface's spec of ``name`` with this node's description."""
    spec = hw.PARAMETERS[name]
    return (spec[0] if default is None else default, description) + tuple(spec[2:])


#: Descriptions (and the one default) that differ from the hardware interface's.
_MIRRORED = {
    'update_rate': _mirror('update_rate', 'cycle rate in Hz of actuator_states and '
                                          'joint_commands (with event_driven: the rate of the '
                                          'watchdogs, and of the outputs while their inputs '
                                          'are silent)'),
    'event_driven': _mirror('event_driven', 'publish actuator_states when joint_states arrive '
                                            'and joint_commands when actuator_commands arrive, '
                                            'instead of at update_rate; the update_rate timer '
                                            'keeps the watchdogs'),
    'state_timeout': _mirror('state_timeout', 'seconds without joint state after which the '
                                              'actuators of those joints are stale (see '
                                              'stale_joints); 0 disables the watchdog'),
    'command_timeout': _mirror('command_timeout', 'seconds after which an actuator command '
                                                  'expires; 0 disables'),
    'command_timeout_action': _mirror(
        'command_timeout_action', 'what joints of expired actuators receive: stop (nothing), '
                                  'hold (the joint positions measured at expiry), '
                                  'zero_velocity or zero_effort'),
    'enforce_limits': _mirror('enforce_limits', 'clamp actuator commands to the actuator limits '
                                                'and joint commands to the URDF limits (every '
                                                'clamp is counted)'),
    'stale_joints': _mirror('stale_joints', 'what actuator_states says about actuators of stale '
                                            'joints: omit (left out) or last (their last '
                                            'values)', default='omit'),
    'frame_id': _mirror('frame_id', 'header.frame_id of actuator_states and joint_commands'),
    'joints': _mirror('joints', 'joint order of the Float64MultiArray topics of '
                                'array_commands; empty: every commandable joint in URDF order'),
}

#: name -> (default, description, constraint); the node's parameter contract (doc/nodes.md).
PARAMETERS: Specs = {}
for _name, _spec in hw.PARAMETERS.items():
    if _name in hw.HARDWARE_ONLY:
        continue
    PARAMETERS[_name] = _MIRRORED.get(_name, _spec)
    if _name == 'joints':
        PARAMETERS['array_commands'] = (
            [], 'interfaces also published as <interface>_commands (std_msgs/'
                'Float64MultiArray in joints order), e.g. [position]; empty: none',
            Constraint(choices=FIELDS, unique=True))

#: Parameters read at configure only: the hardware interface's, and ``array_commands`` (its
#: publishers are created at configure).  The live settings are the hardware interface's.
AT_CONFIGURE = (hw.AT_CONFIGURE - set(hw.HARDWARE_ONLY)) | {'array_commands'}
LIVE_SETTINGS = hw.LIVE_SETTINGS

__all__ = ['AT_CONFIGURE', 'LIVE_SETTINGS', 'PARAMETERS']
