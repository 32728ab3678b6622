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
The parameters of ``mock_actuators``: every one has a range or choices and is read-only.

The simulation is built once, from the parameters as they are at start-up (or when the first
usable ``robot_description`` message arrives), so no parameter can change while the node runs.
"""

import math

from transmission_plugins.ros.common import ROBOT_DESCRIPTION_PARAMETER
from transmission_plugins.ros.node_parameters import MAX_QOS_DEPTH
from transmission_plugins.runtime.parameters import Constraint
from transmission_plugins.runtime.parameters import Specs

#: The values of the ``physics`` parameter.
PHYSICS = ('rotors', 'mujoco')

#: name -> (default, description[, constraint]); the node's parameter contract (doc/nodes.md).
PARAMETERS: Specs = {
    'robot_description': ROBOT_DESCRIPTION_PARAMETER,
    'lenient': (False, 'load the URDF in lenient mode', Constraint(read_only=True)),
    'rate': (200.0, "actuator_states rate in Hz (and the rotors' simulation step)",
             Constraint(low=1.0, high=10_000.0, read_only=True)),
    'physics': ('rotors', "rotors: one decoupled rotor per actuator; mujoco: the robot's rigid "
                          'bodies in MuJoCo (needs the mujoco package)',
                Constraint(choices=PHYSICS, read_only=True)),
    'physics_step': (0.001, 'physics mujoco: seconds per physics step',
                     Constraint(low=1e-6, high=1.0, read_only=True)),
    'gravity': (True, 'physics mujoco: gravity on (9.81 m/s^2 along -z)',
                Constraint(read_only=True)),
    'contacts': (False, 'physics mujoco: contacts between collision geometries',
                 Constraint(read_only=True)),
    'gravity_compensation': ([], 'physics mujoco: links that, with every link below them, are '
                                 'weightless (an ideal counterbalance, e.g. the PR2 arms)',
                             Constraint(unique=True, read_only=True)),
    'damping': (0.0, 'viscous damping of every rotor, N m s/rad at the actuator',
                Constraint(low=0.0, high=1e6, read_only=True)),
    'bandwidth': (2.0 * math.pi * 10.0, 'rad/s; PD gains for actuators without '
                                        'drake:controller_gains are critically damped at it',
                  Constraint(low=1e-3, high=1e6, read_only=True)),
    'qos_depth': (10, 'history depth of every topic',
                  Constraint(low=1, high=MAX_QOS_DEPTH, read_only=True)),
    'initial_joint_names': ([], 'joints given an initial position (others start at the centre '
                                'of their range)', Constraint(unique=True, read_only=True)),
    'diagnostic_period': (1.0, 'seconds between /diagnostics messages; 0 disables them',
                          Constraint(low=0.01, high=3600.0, off=0.0, read_only=True)),
    'incremental_encoders': (False, 'the actuators of transmissions with a reference switch '
                                    'count from 0 at start, as incremental encoders do (the '
                                    'hardware interface must home them)',
                             Constraint(read_only=True)),
}
#: what the set-parameters check knows beyond PARAMETERS (declared by type, a float array)
CHECKED = dict(PARAMETERS, initial_joint_positions=(
    [0.0], 'initial positions of initial_joint_names (rad or m), same order',
    Constraint(read_only=True)))
#: parameters that only the MuJoCo physics reads
MUJOCO_ONLY = ('physics_step', 'gravity', 'contacts', 'gravity_compensation')
