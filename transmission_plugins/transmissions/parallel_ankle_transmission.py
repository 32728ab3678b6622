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
ParallelAnkleTransmission: two motors, two cranks and two rods move a pitch-roll ankle.

Lookup name: ``transmission_plugins/ParallelAnkleTransmission``.  The humanoid ankle of
atom01, hurodes, the Unitree G1 and TienKung: both motors sit on the shank, each turns a crank
whose tip pushes a rod, and the two rods hold the foot, which turns about a pitch and a roll
axis through one point.  The URDF reading lives in
:mod:`transmission_plugins.urdf.mechanism_elements`.
"""

from typing import Any

import numpy as np

from transmission_plugins.core import kernel
from transmission_plugins.core.checks import check_array
from transmission_plugins.core.compiled_transmission import CompiledTransmission
from transmission_plugins.core.exceptions import TransmissionValueError
from transmission_plugins.core.mechanism import DEAD_POINT
from transmission_plugins.core.mechanism import Mechanism
from transmission_plugins.core.mechanism import SINGULAR_CONDITION
from transmission_plugins.core.transmission import KernelRecord
from transmission_plugins.urdf.mechanism_elements import ankle_from_info
from transmission_plugins.urdf.mechanism_elements import ANKLE_VOCABULARY
from transmission_plugins.urdf.records import TransmissionInfo
from transmission_plugins.urdf.records import TransmissionWiring

_WHERE = 'ParallelAnkleTransmission'


class ParallelAnkleTransmission(CompiledTransmission, Mechanism):
    r"""
    Implement a two-motor parallel ankle: cranks and rods to a pitch-roll joint pair.

    Geometry, in the shank frame at the neutral pose (both joints at 0): origin at the ankle
    centre where the pitch and roll axes meet, :math:`x` forward (the roll axis), :math:`y`
    left (the pitch axis), :math:`z` up; lengths in metres.  Leg :math:`i` (actuator :math:`i`)
    is three points: ``crank_pivot`` :math:`c_i`, any point of its crank's axis, which is
    parallel to :math:`y`; ``crank_tip`` :math:`b_i^0`, where the rod hangs on the crank; and
    ``rod_end`` :math:`p_i`, where the rod holds the foot (in the foot frame, which is the
    shank frame at the neutral pose).  Derived: the crank circle's centre
    :math:`c'_i = (c_{ix}, b^0_{iy}, c_{iz})`, the crank length :math:`r_i = |b_i^0 - c'_i|`,
    the rod length :math:`l_i = |p_i - b_i^0|` and the crank's neutral angle :math:`\phi_{0i}`.

    The foot turns by :math:`R(q) = R_y(q_p) R_x(q_r)` (the pitch joint carries the roll joint);
    crank :math:`i` turns about :math:`+y` by the actuator position :math:`\theta_i` from its
    neutral angle, so its tip is :math:`b_i = c'_i + r_i(\cos\phi_i, 0, -\sin\phi_i)` with
    :math:`\phi_i = \phi_{0i} + \theta_i`, and every actuator reads 0 at the neutral pose.
    The loop of leg :math:`i` closes when its rod fits, :math:`|R(q)p_i - b_i|= l_i`.  With
    :math:`a = R(q)p_i` and :math:`d = a - c'_i` that is

    .. math::

        d_x\cos\phi - d_z\sin\phi = E = \frac{|d|^2 + r^2 - l^2}{2r}, \qquad
        w = s\sqrt{\rho^2 - E^2}, \quad \rho^2 = d_x^2 + d_z^2

        \cos\phi = \frac{E d_x + w d_z}{\rho^2}, \quad \sin\phi = \frac{w d_x - E d_z}{\rho^2},
        \quad \theta = \operatorname{atan2}(\sin(\phi - \phi_0), \cos(\phi - \phi_0))

    (the joint-to-actuator map in closed form, :math:`\theta \in (-\pi, \pi]`), where the sign
    :math:`s = \pm 1` of each leg is its assembly mode, the one of the neutral pose.  Implicit
    differentiation of the loop gives the Jacobian :math:`K = \partial\theta/\partial q`:

    .. math::

        K_{i,p} = \frac{b\cdot(\hat y \times a)}{r w}, \qquad
        K_{i,r} = \frac{b\cdot(u \times a)}{r w}, \quad u = R_y(q_p)\hat x

    The actuator-to-joint map solves :math:`\theta(q) = \theta` by Newton's method from the
    linearisation at the neutral pose (:class:`~transmission_plugins.core.mechanism.Mechanism`),
    with :math:`J = K^{-1}`; velocities and efforts follow:
    :math:`\dot q = J\dot\theta`, :math:`\tau = K^T u`, :math:`u = J^T\tau` (power is conserved).

    Workspace and singularities: leg :math:`i` *cannot reach* where :math:`\rho^2 < E^2` (its
    rod is longer than the farthest, or shorter than the nearest, crank position), and is *at
    its dead point* where :math:`w = 0` (crank and rod in line: :math:`K` is infinite there and
    the crank cannot move the foot); the two legs together are singular where :math:`K` is (with
    both cranks held the foot can still move).  The maps give NaN outside the workspace (and
    where Newton's method does not converge); :meth:`workspace_problems` names the leg and the
    reason at one position.

    :param crank_pivot: :math:`c_i`, ``(2, 3)``: a point of each crank's axis (m)
    :param crank_tip: :math:`b^0_i`, ``(2, 3)``: each rod's crank end at the neutral pose (m)
    :param rod_end: :math:`p_i`, ``(2, 3)``: each rod's foot end at the neutral pose (m)
    :raises TransmissionValueError: a shape or number that is not finite, a crank or rod of
        length 0, or a neutral pose at a dead point or singular
    """

    JOINT_ROLES = ('pitch', 'roll')
    ACTUATOR_ROLES = ('actuator1', 'actuator2')
    URDF_VOCABULARY = ANKLE_VOCABULARY

    def __init__(self, crank_pivot: Any, crank_tip: Any, rod_end: Any) -> None:
        super().__init__()
        self._pivot = check_array(crank_pivot, (2, 3), 'crank_pivot', _WHERE)
        self._tip = check_array(crank_tip, (2, 3), 'crank_tip', _WHERE)
        self._end = check_array(rod_end, (2, 3), 'rod_end', _WHERE)
        centre = self._pivot.copy()
        centre[:, 1] = self._tip[:, 1]
        crank = self._tip - centre
        self._r = np.linalg.norm(crank, axis=1)
        self._l = np.linalg.norm(self._end - self._tip, axis=1)
        for i in range(2):
            if not self._r[i] > 0.0:
                raise TransmissionValueError(
                    f'crank_tip[{i}]', self._tip[i].tolist(), 'a point off the crank axis '
                    '(the crank has length 0)', _WHERE)
            if not self._l[i] > 0.0:
                raise TransmissionValueError(
                    f'rod_end[{i}]', self._end[i].tolist(), 'a point away from the crank tip '
                    '(the rod has length 0)', _WHERE)
        phi0 = np.arctan2(-crank[:, 2], crank[:, 0])
        e0 = (np.sum(self._end ** 2, axis=1) + np.sum(centre ** 2, axis=1)
              + self._r ** 2 - self._l ** 2) / (2.0 * self._r)
        # the assembly mode: the sign of w at the neutral pose
        d = self._end - centre
        w0 = d[:, 0] * np.sin(phi0) + d[:, 2] * np.cos(phi0)
        rho0 = np.hypot(d[:, 0], d[:, 2])
        for i in range(2):
            if not abs(w0[i]) > rho0[i] * DEAD_POINT:
                raise TransmissionValueError(
                    f'crank_tip[{i}]', self._tip[i].tolist(), f'a crank not in line with its rod '
                    f'at the neutral pose (leg {i + 1} is at its dead point there)', _WHERE)
        # the kernel's parameters (src/kernel/parallel_ankle.c); the sign of det K at the
        # neutral pose is the last, 0 (no workspace check) until it is known
        self._parameters = np.concatenate(
            [centre.T.ravel(), (centre / self._r[:, None]).T.ravel(), self._end.T.ravel(), e0,
             np.sign(w0), np.cos(phi0), np.sin(phi0), self._r, self._l, [0.0]])
        k0 = self.joint_to_actuator_jacobian(np.zeros(2))
        self._parameters[-1] = np.sign(k0[0, 0] * k0[1, 1] - k0[0, 1] * k0[1, 0])
        self.__dict__.pop('_flat_description')
        condition = float(np.linalg.cond(k0))
        if not condition <= SINGULAR_CONDITION:
            raise TransmissionValueError(
                'rod_end', self._end.tolist(), 'rods that hold the foot at the neutral pose (the '
                f'mechanism is singular there: condition number of K {condition:.3g})', _WHERE)

    def kernel_record(self) -> KernelRecord:
        """Return the ankle's record in the compiled kernel (``src/kernel/parallel_ankle.c``)."""
        return KernelRecord(kernel.PARALLEL_ANKLE, self._parameters)

    # ------------------------------------------------------------------ queries
    def num_actuators(self) -> int:
        """Return 2: the two crank motors."""
        return 2

    def num_joints(self) -> int:
        """Return 2: pitch, then roll."""
        return 2

    def parameters(self) -> dict[str, list[list[float]]]:
        """Return the three points of each leg by keyword name (the constructor's)."""
        return {'crank_pivot': self._pivot.tolist(), 'crank_tip': self._tip.tolist(),
                'rod_end': self._end.tolist()}

    def crank_length(self) -> np.ndarray:
        """Return :math:`r_i`, each crank's length (m)."""
        return self._r.copy()

    def rod_length(self) -> np.ndarray:
        """Return :math:`l_i`, each rod's length (m)."""
        return self._l.copy()

    # ------------------------------------------------------------------ workspace
    def named_problems(self, position: np.ndarray, to_joint: bool) -> list[str]:
        """
        Name the legs that cannot reach or are at their dead point, or the two legs' singularity.

        At an actuator position (``to_joint``): a leg whose rod end, which stays
        :math:`|p_i|` from the ankle centre, can be nowhere :math:`l_i` from its crank tip.
        """
        terms = self.kernel_terms(position, to_joint)
        if to_joint:
            return self._actuator_problems(terms)
        rho2, e, w, det, k = terms[0:2], terms[2:4], terms[4:6], terms[6], terms[7:]
        problems = []
        for i in range(2):
            if not rho2[i] >= e[i] * e[i]:
                d2 = 2.0 * self._r[i] * e[i] + self._l[i] ** 2 - self._r[i] ** 2  # |d|^2
                rho = np.sqrt(rho2[i])
                near = np.sqrt(max(d2 + self._r[i] ** 2 - 2.0 * self._r[i] * rho, 0.0))
                far = np.sqrt(d2 + self._r[i] ** 2 + 2.0 * self._r[i] * rho)
                why = (f'longer than the farthest crank position ({far:.6g} m)'
                       if self._l[i] > far else
                       f'shorter than the nearest crank position ({near:.6g} m)')
                problems.append(f'leg {i + 1} (actuator{i + 1}) cannot reach: its rod '
                                f'({self._l[i]:.6g} m) is {why}')
            elif not abs(w[i]) > np.sqrt(rho2[i]) * DEAD_POINT:
                problems.append(f'leg {i + 1} (actuator{i + 1}) is at its dead point: its crank '
                                f'and rod are in line (sine of their angle '
                                f'{abs(w[i]) / np.sqrt(rho2[i]):.3g})')
        if not problems:
            if det * self._parameters[-1] < 0.0:
                problems.append('the legs are beyond a singularity together: det K has changed '
                                'sign from the neutral pose (with both cranks held the foot can '
                                'move where it vanishes)')
            elif not np.linalg.cond(np.reshape(k, (2, 2))) <= SINGULAR_CONDITION:
                problems.append('the legs are at a singularity together: with both cranks held '
                                'the foot can move (K is singular)')
        return problems

    def _actuator_problems(self, terms: tuple[float, ...]) -> list[str]:
        problems = []
        for i in range(2):
            reach, foot = terms[i], terms[2 + i]
            if not abs(reach - foot) <= self._l[i] <= reach + foot:
                problems.append(
                    f'leg {i + 1} (actuator{i + 1}) cannot reach: its rod end stays {foot:.6g} m '
                    f'from the ankle centre, its crank tip is {reach:.6g} m from it, and the rod '
                    f'is {self._l[i]:.6g} m long')
        return problems

    # ------------------------------------------------------------------ URDF, contract, reports
    @classmethod
    def from_info(cls, info: TransmissionInfo) -> TransmissionWiring:
        """Build from a ``<transmission>`` record; :func:`ankle_from_info` reads it."""
        return ankle_from_info(cls, info)

    @classmethod
    def example(cls) -> tuple['ParallelAnkleTransmission', dict[str, np.ndarray]]:
        """Return an ankle (cranks of 4.5 cm, rods of 24 and 17 cm) and five states inside it."""
        t = cls(crank_pivot=[[0.0, 0.025, 0.22], [0.0, -0.025, 0.15]],
                crank_tip=[[-0.045, 0.025, 0.22], [-0.045, -0.025, 0.15]],
                rod_end=[[-0.05, 0.03, -0.02], [-0.05, -0.03, -0.02]])
        rng = np.random.default_rng(25)
        q = rng.uniform([-0.6, -0.25], [0.4, 0.25], (5, 2))
        return t, {'position': t.actuator_position(q), 'velocity': rng.uniform(-3.0, 3.0, (5, 2)),
                   'effort': rng.uniform(-40.0, 40.0, (5, 2))}

    def __repr__(self) -> str:
        p = self.parameters()
        return (f"ParallelAnkleTransmission(crank_pivot={p['crank_pivot']!r}, "
                f"crank_tip={p['crank_tip']!r}, rod_end={p['rod_end']!r})")

    def __str__(self) -> str:
        r, lengths = self._r, self._l
        return (f'ParallelAnkleTransmission: 2 actuators -> pitch, roll; cranks {r[0]:g}, '
                f'{r[1]:g} m, rods {lengths[0]:g}, {lengths[1]:g} m')
