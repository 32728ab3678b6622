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
Homing against a reference switch, as PR2's joint calibration controllers did it.

A joint with ``<calibration rising="R"/>`` has a switch that reads *on* above :math:`R`; with
``falling="F"`` one that reads *on* below :math:`F`.  Homing approaches the edge from the *off*
side in a fixed direction (positive for ``rising``, negative for ``falling``), so that it always
finds the same edge of a switch with hysteresis (doc/calibration.md lists the steps and how the
edge is taken).  The joints of a transmission are homed one after the other (the others held at
zero velocity); once all are found, the actuator offsets :math:`c` follow from the edges: each
gives :math:`q_j(\theta_e - c) = R_j`, with :math:`\theta_e` the measured actuator positions at
the edge.  For a linear map :math:`q = K\theta + q_0` that is the linear system
:math:`K_j c = K_j \theta_{e,j} + q_{0j} - R_j` (one row per switch; as many independent rows as
actuators are needed); a single-actuator nonlinear map gives :math:`c = \theta_e - g(R)`.
"""

from typing import Any
from typing import NamedTuple

import numpy as np

from transmission_plugins.core.exceptions import TransmissionValueError


#: what an edge needs (the end of a timeout message when it lacked it)
NEEDS_POSITION = 'actuator_states must carry positions, at least once every state_timeout'


class SwitchJoint(NamedTuple):
    """One joint to home: its index in the transmission, its edge and direction, its speed."""

    name: str
    local: int
    edge: float
    direction: float
    speed: float


class TransmissionHoming:
    """
    The homing of one transmission's joints, one joint after the other (module docstring).

    :param transmission: the transmission (its maps)
    :param joints: the joints to home, in order
    :param commandable: local indices of the transmission's commandable joints
    :param default_position: the transmission's joint positions used where a map needs them
    :param timeout: seconds each joint may take
    """

    def __init__(self, transmission: Any, joints: list[SwitchJoint], commandable: np.ndarray,
                 default_position: np.ndarray, timeout: float) -> None:
        self.transmission = transmission
        self.joints = joints
        self.commandable = commandable
        self.default_position = default_position
        self.timeout = timeout
        self.current = 0
        #: wait (for a reading), leave (the switch) or approach (its edge)
        self.phase = 'wait'
        self.started: float | None = None
        self._last_off: np.ndarray | None = None
        #: the actuator positions at each joint's edge
        self.edges: list[np.ndarray] = []
        #: why homing failed ('' while it has not)
        self.failure = ''
        #: switch readings that would have been an edge but came without a known position
        self.blind = 0

    @property
    def done(self) -> bool:
        """Return True once every joint's edge is found."""
        return len(self.edges) == len(self.joints)

    def joint(self) -> SwitchJoint:
        """Return the joint being homed."""
        return self.joints[self.current]

    def velocity(self, now: float, known: bool = True) -> np.ndarray | None:
        """
        Return this cycle's joint velocities (commandable joints of the transmission).

        None once done or failed; a joint that exceeds the timeout fails the transmission.

        :param known: whether the transmission's actuator positions are known and fresh; while
            they are not, the joints are held (zero velocity): an edge needs a position
        """
        if self.done or self.failure:
            return None
        if self.started is None:
            self.started = now
        j = self.joint()
        if now - self.started > self.timeout:
            what = {'wait': 'no reference_switches reading named it',
                    'leave': 'its switch never turned off',
                    'approach': 'its switch never turned on'}[self.phase]
            if not known:
                what = f'no known, fresh actuator position ({NEEDS_POSITION})'
            elif self.blind:
                what += (f' at a known actuator position ({self.blind} edges came without a '
                         f'known, fresh actuator position: {NEEDS_POSITION})')
            self.failure = (f'homing {j.name} timed out after {self.timeout:g} s: {what} (edge '
                            f'{j.edge:g}, search speed {j.speed:g})')
            return None
        v = np.zeros(len(self.commandable))
        if known and self.phase != 'wait':
            at = int(np.flatnonzero(self.commandable == j.local)[0])
            v[at] = (j.direction if self.phase == 'approach' else -j.direction) * j.speed
        return v

    def switch(self, on: bool, actuator_position: np.ndarray) -> bool:
        """
        Take a reading of the current joint's switch; return True when its edge was found.

        An edge is taken only at known positions: a reading in the approach without them
        forgets the last *off* position, and an *on* reading without them goes back to leaving
        the switch (the edge is approached again).

        :param actuator_position: the measured (raw) actuator positions of the transmission,
            NaN where not known (or not fresh)
        """
        if self.done or self.failure:
            return False
        if self.phase == 'wait' or (self.phase == 'leave' and not on):
            self.phase = 'leave' if on else 'approach'
        if self.phase == 'approach':
            if not np.isfinite(actuator_position).all():
                self._last_off = None
                if on:
                    self.blind += 1
                    self.phase = 'leave'
                return False
            if not on:
                self._last_off = actuator_position.copy()
                return False
            last = self._last_off if self._last_off is not None else actuator_position
            self.edges.append((last + actuator_position) / 2.0)
            self.current = min(self.current + 1, len(self.joints) - 1)
            self.phase, self.started, self._last_off, self.blind = 'wait', None, None, 0
            return True
        return False

    def offsets(self) -> np.ndarray:
        """Return the actuator offsets the edges give (module docstring)."""
        return solve_offsets(self.transmission, self.joints, self.edges, self.default_position)


def solve_offsets(transmission: Any, joints: list[SwitchJoint], edges: list[np.ndarray],
                  default_position: np.ndarray) -> np.ndarray:
    """Return the actuator offsets from each joint's edge (module docstring)."""
    tr = transmission
    if tr.is_linear():
        k, _, q0 = tr.linear_map()
        rows = np.array([k[j.local] for j in joints])
        rhs = np.array([k[j.local] @ e + q0[j.local] - j.edge for j, e in zip(joints, edges)])
        return np.linalg.lstsq(rows, rhs, rcond=None)[0]
    q = np.array(default_position, dtype=np.float64)
    q[joints[0].local] = joints[0].edge
    theta = np.asarray(tr.joint_to_actuator({'position': q})['position'], dtype=np.float64)
    return edges[0] - theta


def check_homeable(transmission: Any, name: str, joints: list[SwitchJoint]) -> None:
    """
    Check that the switches of ``joints`` determine every actuator offset of the transmission.

    :raises TransmissionValueError: too few switches, or switches whose rows are dependent
    """
    tr = transmission
    n = tr.num_actuators()
    names = [j.name for j in joints]
    if tr.is_linear():
        k = tr.linear_map()[0]
        rank = np.linalg.matrix_rank(np.array([k[j.local] for j in joints]).reshape(-1, n))
        if rank == n:
            return
    elif n == 1 and joints and joints[0].local in tr.joint_to_actuator_inputs():
        return
    raise TransmissionValueError(
        'homing_joints', names, f'switches that fix all {n} actuator offsets of transmission '
        f'{name!r}: a switch fixes one, so it needs {n} joints with a <calibration rising|'
        'falling> (or calibrate it from calibration_file or absolute_encoders)')
