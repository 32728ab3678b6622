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
What ``transmission_plugins lint`` reports: :class:`Finding`, a loader warning with a kind.

The checks live in :mod:`transmission_plugins.robot.lint` (and, for duplicate names, in the
parser that meets them); the loader issues the findings of the checks that hold for the robot
it loaded among its warnings, and ``lint`` reports those and the ones across dialects.
"""

from typing import Any
from typing import cast

from transmission_plugins.core.exceptions import LoadWarning

#: an actuator shared by transmissions whose joints are not coupled by ``<mimic>``
SHARED_ACTUATOR = 'shared-actuator'
#: a ``<hardwareInterface>`` outside the known vocabulary
UNKNOWN_INTERFACE = 'unknown-interface'
#: two transmissions with one name and different mappings
DUPLICATE_NAME = 'duplicate-name'
#: a joint-to-actuator matrix that is not an inverse of its actuator-to-joint matrix
NOT_INVERSE = 'matrices-not-inverse'
#: one gearbox or one rotor inertia described twice
DESCRIBED_TWICE = 'described-twice'
#: a reduction whose sign or size differs between robot level and ``<ros2_control>``
REDUCTION_MISMATCH = 'reduction-mismatch'
#: a joint limit the actuators' limits cannot reach
UNREACHABLE_LIMIT = 'unreachable-limit'
#: a breakaway friction (static, or Coulomb) at or above the effort limit on its side
FRICTION_AT_LIMIT = 'friction-at-limit'
#: a motor's peak torque, through the transmission, below the joint's URDF effort limit
PEAK_TORQUE_BELOW_LIMIT = 'peak-torque-below-limit'
#: a motor's maximum speed, through the transmission, below the joint's URDF velocity limit
MAX_SPEED_BELOW_LIMIT = 'max-speed-below-limit'
#: a thermal model's continuous torque below the motor-side Coulomb friction
CONTINUOUS_BELOW_FRICTION = 'continuous-below-friction'
#: a backlash wider than the position range on its side
BACKLASH_OVER_RANGE = 'backlash-over-range'
#: the description does not load in strict mode
LOAD_ERROR = 'load-error'


class Finding(LoadWarning):
    """One finding, ``path (line N): message [kind]``: a warning's fields and ``kind``."""

    kind: str

    def __new__(cls, kind: str, path: str, message: str,
                line: int | None = None) -> 'Finding':
        """Build the finding."""
        where = f' (line {line})' if line else ''
        self = cast('Finding', super().__new__(cls, path, message, line,
                                               text=f'{path}{where}: {message} [{kind}]'))
        self.kind = kind
        return self

    def as_dict(self) -> dict[str, Any]:
        """Return the finding as JSON-ready fields: kind, path, line, message."""
        return {'kind': self.kind, 'path': self.path, 'line': self.line, 'message': self.message}
