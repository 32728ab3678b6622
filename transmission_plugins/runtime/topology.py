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

r"""
Which joints and actuators belong together: per-transmission index groups and incidence matrices.

A cycle must decide per transmission (is every actuator of a joint fresh? is a command complete
for a transmission?) without a Python loop over transmissions, so the groups are also stored as
0/1 incidence matrices: one matrix product answers the question for every transmission at once.
Joints that the joint-to-actuator map ignores (the PR2 gripper's passive fingers: a zero column
of :math:`\partial\theta/\partial q`) are not *commandable*.
"""

from typing import Any
from typing import List
from typing import NamedTuple
from typing import Sequence

import numpy as np


class Group(NamedTuple):
    """One transmission with the robot-wide indices of its joints and actuators."""

    transmission: Any
    joints: np.ndarray
    actuators: np.ndarray
    #: the joints a command may name (the others are passive)
    active: np.ndarray


class Topology:
    """
    The transmissions of a robot as index groups and incidence matrices.

    :param robot: a ``RobotTransmissions`` (its ``transmissions``, joint and actuator names)
    """

    def __init__(self, robot: Any) -> None:
        joint_names: Sequence[str] = robot.joint_names
        actuator_names: Sequence[str] = robot.actuator_names
        pos = {n: i for i, n in enumerate(joint_names)}
        apos = {n: i for i, n in enumerate(actuator_names)}
        default = getattr(robot, 'default_joint_position', None)
        q0 = np.asarray(default()) if default is not None else np.zeros(len(pos))
        self.groups: List[Group] = []
        commandable = np.zeros(len(joint_names), dtype=bool)
        for t in robot.transmissions:
            joints = np.array([pos[n] for n in t.joint_names], dtype=np.intp)
            actuators = np.array([apos[n] for n in t.actuator_names], dtype=np.intp)
            # joints the joint-to-actuator map ignores (PR2 gripper passive joints) have a zero
            # column in d(actuator)/d(joint): they cannot be commanded
            jac = np.asarray(t.transmission.joint_to_actuator_jacobian(q0[joints]))
            used = np.any(jac.reshape(len(actuators), len(joints)) != 0.0, axis=0)
            active = joints[used]
            commandable[active] = True
            self.groups.append(Group(t, joints, actuators, active))
        #: joints a command may name
        self.commandable = commandable
        nj, na, nt = len(joint_names), len(actuator_names), len(self.groups)
        #: joint j <- the actuators of its transmission
        self.joint_actuators = np.zeros((nj, na))
        #: transmission -> its commandable joints
        self.tr_active = np.zeros((nt, nj))
        #: transmission -> its actuators
        self.tr_actuators = np.zeros((nt, na))
        for k, g in enumerate(self.groups):
            self.joint_actuators[np.ix_(g.joints, g.actuators)] = 1.0
            self.tr_active[k, g.active] = 1.0
            self.tr_actuators[k, g.actuators] = 1.0
        #: commandable joint -> its transmission
        self.joint_tr = self.tr_active.T.copy()
        #: actuator -> its transmissions
        self.actuator_tr = (self.tr_actuators.T > 0).astype(float)
        #: transmissions with at least one commandable joint
        self.tr_has_active = self.tr_active.sum(axis=1) > 0


def limit_array(robot: Any, attribute: str, size: int, default: float) -> np.ndarray:
    """Return ``robot.<attribute>`` as a float64 vector (NaN and absence: ``default``)."""
    x = getattr(robot, attribute, None)
    if x is None:
        return np.full(size, default)
    x = np.array(x, dtype=np.float64).reshape(-1)
    return np.where(np.isnan(x), default, x)
