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
Interface names and the map each goes through.

``position`` and ``absolute_position`` go through the position map, ``velocity`` through the
velocity map, ``effort``, ``torque`` and ``force`` through the effort map: joint-space quantities
carry units, they are not interchangeable vectors.
"""

#: Interface names every transmission understands.
POSITION = 'position'
VELOCITY = 'velocity'
EFFORT = 'effort'
TORQUE = 'torque'
FORCE = 'force'
ABSOLUTE_POSITION = 'absolute_position'

INTERFACES = (POSITION, VELOCITY, EFFORT, TORQUE, FORCE, ABSOLUTE_POSITION)

#: The map each interface goes through: position-like, velocity-like or effort-like.
INTERFACE_KIND = {
    POSITION: POSITION,
    ABSOLUTE_POSITION: POSITION,
    VELOCITY: VELOCITY,
    EFFORT: EFFORT,
    TORQUE: EFFORT,
    FORCE: EFFORT,
}
