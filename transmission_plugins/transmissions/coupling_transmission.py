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
CouplingTransmission: N actuators drive M joints through a constant coupling matrix.

Lookup name: ``transmission_plugins/CouplingTransmission``.  Tendon hands, synergies (one
actuator to k joints), cable-coupled shoulders and wrists: any linear map, given as a matrix.
"""

from typing import Any

import numpy as np

from transmission_plugins.core.checks import check_array
from transmission_plugins.core.checks import check_finite
from transmission_plugins.core.checks import check_sequence
from transmission_plugins.core.checks import FloatArray
from transmission_plugins.core.exceptions import BadValueError
from transmission_plugins.core.exceptions import TransmissionValueError
from transmission_plugins.core.linear import LinearTransmission
from transmission_plugins.urdf.readers import COUPLING_VOCABULARY
from transmission_plugins.urdf.readers import read_coupling
from transmission_plugins.urdf.records import Origin
from transmission_plugins.urdf.records import TransmissionInfo
from transmission_plugins.urdf.records import TransmissionWiring

#: The largest entry of :math:`BA - I` (:math:`M \ge N`) or :math:`AB - I` (:math:`M \le N`)
#: accepted for a given or derived joint-to-actuator matrix: round trips then hold to about this
#: much, relative.  Hand-rounded matrices (``0.333`` for 1/3) fail it: give more digits, or
#: leave :math:`B` to be derived.
INVERSE_TOLERANCE = 1e-9


def inverse_residual(a2j: np.ndarray, j2a: np.ndarray) -> float:
    r"""
    Return how far ``j2a`` is from an inverse of ``a2j``: the largest entry of the difference.

    :math:`\max|BA - I_N|` when :math:`M \ge N` (``a2j`` is ``M x N``: :math:`B` must undo
    :math:`A` on every actuator state), else :math:`\max|AB - I_M|` (on every joint state).
    """
    rows, cols = a2j.shape
    product = j2a @ a2j if rows >= cols else a2j @ j2a
    return float(np.max(np.abs(product - np.eye(product.shape[0]))))


class CouplingTransmission(LinearTransmission):
    r"""
    Implement a linear coupling of N actuators and M joints, given by its matrix.

    With :math:`A` (``M x N``) the actuator-to-joint matrix, :math:`B` (``N x M``) the
    joint-to-actuator matrix and :math:`q_0` the joint offsets:

    .. math::

        q = A\theta + q_0, \quad \dot q = A\dot\theta, \quad \tau = B^T u

        \theta = B(q - q_0), \quad \dot\theta = B\dot q, \quad u = A^T\tau

    :math:`B` is given and checked, or derived: :math:`A^{-1}` when square, else the
    pseudo-inverse :math:`A^{+}`.  It must undo :math:`A` on the smaller side: :math:`BA = I`
    when :math:`M \ge N`, :math:`AB = I` when :math:`M \le N`, each entry within
    :data:`INVERSE_TOLERANCE`; :math:`A` must have full rank :math:`\min(M, N)`.  Efforts map by
    power conservation, :math:`\tau^T\dot q = u^T\dot\theta`:

    * :math:`M = N`: exactly, both ways.
    * :math:`M > N` (synergies, tendons: the joints move together, e.g. one actuator to
      :math:`k` joints, :math:`A` a column): only joint states :math:`q - q_0` in the range of
      :math:`A` can be reached.  Positions and velocities are commandable through :math:`B`: a
      joint whose column of :math:`B` is zero is not read, and the actuators realise
      :math:`AB(q - q_0) + q_0`, the least-squares fit of the command when :math:`B = A^{+}`.
      :math:`\tau = B^T u` are the joint efforts the actuators apply; :math:`u = A^T\tau` is the
      actuator effort doing the same work as :math:`\tau` on every motion the mechanism can make
      (efforts it cannot make, such as opposite torques on two joints of one tendon, give
      :math:`u = 0`).  Power balances on every reachable motion.
    * :math:`M < N` (redundant actuators, e.g. antagonistic tendons): actuator states that
      differ by the null space of :math:`A` (co-contraction) give the same joints; :math:`\theta
      = B(q - q_0)` picks one (the smallest when :math:`B = A^{+}`).  :math:`\tau = B^T u` is the
      least-squares joint effort of :math:`u`: actuator efforts in the null space of :math:`A^T`
      (internal tension) give none.

    The joint-to-actuator maps read every joint (positions through :math:`B`, efforts through
    :math:`A^T`).  One actuator driving :math:`k` joints is the :math:`k \times 1` case.

    :param actuator_to_joint: :math:`A`, a sequence of M rows of N finite numbers
    :param joint_to_actuator: :math:`B`, N rows of M finite numbers, or None to derive it
    :param joint_offset: :math:`q_0`, M finite numbers, or None for zeros
    :raises TransmissionValueError: a matrix that is not finite, of the wrong shape or rank, or a
        :math:`B` that is not an inverse of :math:`A` (naming both and the residual)
    """

    URDF_VOCABULARY = COUPLING_VOCABULARY

    def __init__(self, actuator_to_joint: Any, joint_to_actuator: Any = None,
                 joint_offset: Any = None) -> None:
        super().__init__()
        w = type(self).__name__
        a2j = check_array(actuator_to_joint, (-1, -1), 'actuator_to_joint', w)
        rows, cols = a2j.shape
        rank = int(np.linalg.matrix_rank(a2j))
        if rank < min(rows, cols):
            raise TransmissionValueError(
                'actuator_to_joint', actuator_to_joint, f'a matrix of full rank {min(rows, cols)} '
                f'({rows} joints, {cols} actuators), not of rank {rank}: some motion would '
                'be neither reachable nor observable', w)
        if joint_to_actuator is None:
            j2a = np.linalg.inv(a2j) if rows == cols else np.linalg.pinv(a2j)
            given: Any = j2a.tolist()
        else:
            j2a = check_array(joint_to_actuator, (cols, rows), 'joint_to_actuator', w)
            given = joint_to_actuator
        residual = inverse_residual(a2j, j2a)
        if not residual <= INVERSE_TOLERANCE:
            which = 'B A' if rows >= cols else 'A B'
            source = 'its derived inverse' if joint_to_actuator is None else 'it'
            raise TransmissionValueError(
                'joint_to_actuator', given, f'an inverse of actuator_to_joint {a2j.tolist()} '
                f'({which} = I within {INVERSE_TOLERANCE:g}); the largest entry of |{which} - I| '
                f'is {residual:.3g} with {source}', w)
        offset = [0.0] * rows if joint_offset is None else [
            check_finite(v, f'joint_offset[{i}]', w)
            for i, v in enumerate(check_sequence(joint_offset, rows, 'joint_offset', w))]
        self.JOINT_ROLES = tuple(f'joint{i}' for i in range(1, rows + 1))
        self.ACTUATOR_ROLES = tuple(f'actuator{i}' for i in range(1, cols + 1))
        self._derived = joint_to_actuator is None
        self._set_linear_map(a2j, j2a, offset)

    @classmethod
    def from_info(cls, info: TransmissionInfo) -> TransmissionWiring:
        """Build from a ``<transmission>`` of any dialect; :func:`read_coupling` reads it."""
        r = read_coupling(info)
        try:
            transmission = cls(r.actuator_to_joint, r.joint_to_actuator, r.joint_offset)
        except TransmissionValueError as e:
            origin = r.origins.get(e.parameter, Origin(info.path, info.line))
            raise BadValueError(origin.path, f'expected {e.expected}, got {e.value!r}',
                                origin.line) from e
        return TransmissionWiring(transmission, r.joint_names, r.actuator_names)

    @classmethod
    def example(cls) -> tuple['CouplingTransmission', dict[str, FloatArray]]:
        """
        Return two tendons driving a three-joint finger and three actuator states.

        The joint-to-actuator matrix is derived (the pseudo-inverse).
        """
        states = {'position': [[0.4, -0.2], [1.5, 0.7], [-0.8, 0.3]],
                  'velocity': [[1.0, 0.5], [-2.0, 0.25], [0.3, -1.2]],
                  'effort': [[2.0, -1.0], [0.5, 3.0], [-1.5, 0.8]]}
        transmission = cls([[0.5, 0.1], [0.3, -0.4], [0.2, 0.3]], joint_offset=[0.1, 0.0, -0.2])
        return transmission, {k: np.array(v) for k, v in states.items()}

    def get_joint_offset(self) -> list[float]:
        """Return the joint offsets :math:`q_0`."""
        return self.linear_map().joint_offset.tolist()

    def joint_to_actuator_is_derived(self) -> bool:
        """Return True when :math:`B` was derived from :math:`A` rather than given."""
        return self._derived

    def _arguments(self) -> tuple[list[list[float]], list[list[float]] | None, list[float]]:
        a2j, j2a, offset = self.linear_map()
        return a2j.tolist(), None if self._derived else j2a.tolist(), offset.tolist()

    def __repr__(self) -> str:
        a2j, j2a, offset = self._arguments()
        return (f'{type(self).__name__}(actuator_to_joint={a2j!r}, joint_to_actuator={j2a!r}, '
                f'joint_offset={offset!r})')

    def __str__(self) -> str:
        a2j, j2a, offset = self.linear_map()
        rows, cols = a2j.shape
        given = 'derived' if self._derived else 'given'

        def fmt(m: np.ndarray) -> str:
            return '[' + '; '.join(' '.join(f'{x:g}' for x in row) for row in m) + ']'

        return (f'{type(self).__name__}: {cols} actuator(s) -> {rows} joint(s), actuator_to_joint '
                f'{fmt(a2j)}, joint_to_actuator {fmt(j2a)} ({given}), joint offsets '
                f'({", ".join(f"{x:g}" for x in offset)})')
