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

"""What a cycle counts for /diagnostics: clamps, incomplete commands, outputs left out."""


import numpy as np

#: The limits a command can be clamped to: the hard limits of both sides, then the joints' soft
#: limits (``<safety_controller>``) and rate limits (ros2_control's joint_limits parameters).
CLAMP_KINDS = ('joint_position', 'joint_velocity', 'joint_effort', 'actuator_position',
               'actuator_velocity', 'actuator_effort', 'joint_soft_position',
               'joint_soft_velocity', 'joint_soft_effort', 'joint_acceleration',
               'joint_deceleration', 'joint_jerk')
#: The kinds per side (the ``<side>_<limit>`` entries of :data:`CLAMP_KINDS`, prefix removed).
SIDE_KINDS = {side: tuple(k[len(side) + 1:] for k in CLAMP_KINDS if k.startswith(side + '_'))
              for side in ('joint', 'actuator')}


class Counters:
    """
    Counters shared by the state and command sides of a cycle.

    :param num_joints: joints of the robot (per-joint clamp counts)
    :param num_actuators: actuators of the robot (per-actuator clamp counts)
    """

    def __init__(self, num_joints: int, num_actuators: int) -> None:
        #: clamps per :data:`CLAMP_KINDS` entry
        self.clamps: dict[str, int] = dict.fromkeys(CLAMP_KINDS, 0)
        self.joint_clamps = np.zeros(num_joints, dtype=np.int64)
        self.actuator_clamps = np.zeros(num_actuators, dtype=np.int64)
        #: per side, clamps by entry and kind (``(entries, len(SIDE_KINDS[side]))``)
        self.kind_clamps = {'joint': np.zeros((num_joints, len(SIDE_KINDS['joint'])), np.int64),
                            'actuator': np.zeros((num_actuators, len(SIDE_KINDS['actuator'])),
                                                 np.int64)}
        #: transmissions commanded for some of their joints only (nothing sent for them)
        self.incomplete_commands = 0
        #: joint or actuator values that came out NaN or infinite (left out of the output)
        self.non_finite_outputs = 0
        #: actuator values of joint positions outside their mechanism's range (left out:
        #: ``RobotTransmissions.unreachable_actuators``)
        self.unreachable_outputs = 0

    def count_clamps(self, side: str, kind: str, clamped: np.ndarray) -> None:
        """
        Count the clamps of one kind: in all, per entry and per entry and kind.

        :param side: ``'joint'`` or ``'actuator'``
        :param kind: the limit, e.g. ``'position'`` or ``'soft_velocity'`` (:data:`SIDE_KINDS`)
        :param clamped: boolean mask of the entries clamped
        """
        count = int(np.count_nonzero(clamped))
        if not count:
            return
        self.clamps[f'{side}_{kind}'] += count
        getattr(self, f'{side}_clamps')[:] += clamped
        self.kind_clamps[side][:, SIDE_KINDS[side].index(kind)] += clamped
