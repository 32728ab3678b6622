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
Effort limits through a transmission's effort map, in both directions (symmetric limits).

Both functions build the effort map's matrix by mapping unit efforts, so they hold for every
transmission, nonlinear ones at a given position included.
"""

from typing import Any

import numpy as np

from transmission_plugins.core.exceptions import TransmissionInputError
from transmission_plugins.core.transmission import position_state


def _effort_matrix(transmission: Any, to_actuator: bool, position: Any) -> np.ndarray:
    """Return the effort map's matrix, ``(..., dst, src)``, by mapping unit efforts."""
    src = transmission.num_joints() if to_actuator else transmission.num_actuators()
    unit = np.eye(src)
    values: dict[str, Any] = {'effort': unit}
    if transmission.requires_position_state():
        pos = np.asarray(position, dtype=np.float64)
        if pos.ndim == 0 or pos.shape[-1] != src:
            raise TransmissionInputError(
                f'expected positions with {src} entries on the last axis, got shape {pos.shape}')
        values = {'effort': np.broadcast_to(unit, pos.shape[:-1] + (src, src)),
                  'position': np.broadcast_to(pos[..., None, :], pos.shape[:-1] + (src, src))}
    convert = transmission.joint_to_actuator if to_actuator else transmission.actuator_to_joint
    return np.swapaxes(convert(values)['effort'], -1, -2)


def box_bound(matrix: np.ndarray, limits: np.ndarray) -> np.ndarray:
    r"""
    Return :math:`\sum_j |A_{ij}|\,\bar x_j`, the largest :math:`|y_i|` over a box of inputs.

    :math:`y = A x` with :math:`|x_j| \le \bar x_j` is largest at a corner of the box.  A zero
    coefficient contributes nothing even when the bound is infinite (:math:`0 \cdot \infty = 0`
    here).  ``matrix`` is ``(..., dst, src)``, ``limits`` ``(..., src)``.
    """
    with np.errstate(invalid='ignore'):
        terms = np.where(matrix == 0.0, 0.0, np.abs(matrix) * limits[..., None, :])
    return terms.sum(axis=-1)


def _box(matrix: np.ndarray, limits: Any, count: int) -> np.ndarray:
    lim = np.asarray(limits, dtype=np.float64)
    if lim.ndim == 0:
        lim = np.full(count, float(lim))
    if lim.shape[-1] != count or np.any(np.isnan(lim)) or np.any(lim < 0.0):
        raise TransmissionInputError(
            f'expected {count} effort limits >= 0 (inf for none), got {limits!r}')
    return box_bound(matrix, lim)


def joint_to_actuator_effort_limit(transmission: Any, joint_effort_limit: Any,
                                   joint_position: Any = None) -> np.ndarray:
    r"""
    Return the actuator effort limits that let the actuators produce any joint effort in the box.

    :math:`u_{max,i} = \sum_j |A_{ij}|\,\tau_{max,j}` with :math:`A` the joint-to-actuator
    effort map (:math:`J^T` for linear transmissions): :math:`\tau_{max}/|n|` for a simple one.
    Joints the effort map ignores (PR2 gripper passive joints) do not count; ``inf`` stays
    ``inf`` except where the map coefficient is 0.

    :param joint_effort_limit: ``(M,)`` limits >= 0 (or a scalar for all joints)
    :param joint_position: ``(..., M)``; required by nonlinear transmissions, whose limits
        depend on the state (pass a batch to sample a range, then take the min or max)
    :returns: ``(..., N)`` actuator effort limits
    """
    state = position_state(transmission, joint_position, 'mapping effort limits')
    matrix = _effort_matrix(transmission, True, state)
    return _box(matrix, joint_effort_limit, transmission.num_joints())


def actuator_to_joint_effort_limit(transmission: Any, actuator_effort_limit: Any,
                                   actuator_position: Any = None) -> np.ndarray:
    r"""
    Return the largest joint efforts the actuators can produce within their limits.

    :math:`\tau_{max,j} = \sum_i |B_{ji}|\,u_{max,i}` with :math:`B` the actuator-to-joint
    effort map: :math:`|n|\,u_{max}` for a simple transmission.  For coupled transmissions this
    is the bounding box, not the inverse of :func:`joint_to_actuator_effort_limit`.

    :param actuator_effort_limit: ``(N,)`` limits >= 0 (or a scalar)
    :param actuator_position: ``(..., N)``; required by nonlinear transmissions
    :returns: ``(..., M)`` joint effort limits
    """
    state = position_state(transmission, actuator_position, 'mapping effort limits')
    matrix = _effort_matrix(transmission, False, state)
    return _box(matrix, actuator_effort_limit, transmission.num_actuators())
