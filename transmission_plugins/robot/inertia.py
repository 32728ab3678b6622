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
Rotor inertia reflected through a transmission into joint space.

A transmission with :math:`J = \partial\theta/\partial q` (actuator positions over joint
positions) reflects the rotors, of inertia :math:`\rho_i^2 I_{r,i}` at the actuator coordinates
(:meth:`~transmission_plugins.robot.actuators.ActuatorModel.reflected_inertia`), as

.. math::

    M_r(q) = J^T \operatorname{diag}(\rho_i^2 I_{r,i}) J

(:func:`reflected_inertia`): a full matrix for coupled transmissions, gap-dependent for the PR2
gripper.  For a simple transmission of reduction :math:`n` it is :math:`n^2 \rho^2 I_r`, hence

* a Drake-style URDF (the gear in ``<drake:gear_ratio value="rho">``, reduction 1: Drake's own
  models write ``<mechanicalReduction>1</mechanicalReduction>``, Drake ignores the element) gets
  exactly Drake's :math:`\rho^2 I_r`;
* a ROS-style URDF (``<mechanicalReduction>n</mechanicalReduction>``, no gear ratio) gets
  :math:`n^2 I_r`;
* a URDF that gives the same gearbox both ways (:math:`|\rho| = |n| \ne 1`) would count it
  squared, :math:`n^4 I_r`; the loader warns about it (:func:`duplicated_reduction`).
"""

import math
from typing import Any
from typing import Sequence

import numpy as np

from transmission_plugins.core.exceptions import TransmissionInputError
from transmission_plugins.core.findings import DESCRIBED_TWICE
from transmission_plugins.core.findings import Finding
from transmission_plugins.core.transmission import position_state
from transmission_plugins.robot.actuators import ActuatorModel


def _inertias(rotor_inertias: Any, count: int) -> np.ndarray:
    if isinstance(rotor_inertias, Sequence) and rotor_inertias \
            and all(isinstance(m, ActuatorModel) for m in rotor_inertias):
        values = np.array([m.reflected_inertia() for m in rotor_inertias])
    else:
        values = np.asarray(rotor_inertias, dtype=np.float64)
    if values.ndim == 0 or values.shape[-1] != count:
        raise TransmissionInputError(
            f'expected {count} rotor inertias on the last axis, got shape {values.shape}')
    if not np.all(np.isfinite(values) & (values >= 0.0)):
        raise TransmissionInputError(f'rotor inertias must be finite and >= 0, got {values}')
    return values


def duplicated_reduction(model: ActuatorModel, transmission: Any,
                         index: int) -> float | None:
    r"""
    Return the transmission's reduction of actuator ``index`` if it looks like the gear ratio.

    A gear ratio :math:`|\rho| \ne 1` equal in magnitude to the transmission's actuator
    reduction :math:`n` (``get_actuator_reduction()``, per actuator for coupled transmissions)
    is most likely the same gearbox described twice (Drake's ``<drake:gear_ratio>`` and ROS's
    ``<mechanicalReduction>``), which the model counts in series: :math:`n^2\rho^2 I_r`.

    :returns: the reduction :math:`n`, or None when there is no such coincidence
    """
    if math.isclose(abs(model.gear_ratio), 1.0):
        return None
    getter = getattr(transmission, 'get_actuator_reduction', None)
    if getter is None:
        return None
    try:
        reductions = np.atleast_1d(np.asarray(getter(), dtype=np.float64))
    except (TypeError, ValueError):
        return None
    if reductions.ndim != 1 or not reductions.size:
        return None
    n = float(reductions[0] if reductions.size == 1 else
              reductions[index] if index < reductions.size else math.nan)
    return n if math.isclose(abs(n), abs(model.gear_ratio), rel_tol=1e-9) else None


def duplicated_reduction_warning(model: ActuatorModel, transmission: Any, index: int,
                                 where: str, line: int | None = None) -> Finding | None:
    """Return the ``described-twice`` finding for :func:`duplicated_reduction`, or None."""
    n = duplicated_reduction(model, transmission, index)
    if n is None:
        return None
    rho = model.gear_ratio
    return Finding(DESCRIBED_TWICE, where, (
        f'actuator {model.name!r} has gear ratio {rho:g} and its transmission '
        f'reduction is {n:g}: the same gearbox described twice? Both count, in series '
        f'(rotor -> gear ratio -> actuator coordinate -> reduction -> joint), so the rotor '
        f'inertia is reflected {(n * rho) ** 2:g} times (n^2 rho^2), not {rho ** 2:g}; set '
        'the one that does not describe a separate stage to 1'), line)


def reflected_inertia(transmission: Any, rotor_inertias: Any,
                      joint_position: Any = None) -> np.ndarray:
    r"""
    Return the rotors' inertia in joint space, :math:`J^T \operatorname{diag}(I) J`.

    :math:`J = \partial\theta/\partial q` is the transmission's joint-to-actuator Jacobian and
    :math:`I` the inertias at the actuator coordinates: :math:`n^2\rho^2 I_r` for a simple
    transmission of reduction :math:`n`.

    :param rotor_inertias: inertias at the actuator coordinates, ``(..., N)``, i.e.
        :math:`\rho^2 I_r`; or a sequence of N :class:`ActuatorModel`
    :param joint_position: joint positions ``(..., M)``; required by nonlinear transmissions
    :returns: ``(..., M, M)`` symmetric positive semi-definite matrix
    :raises TransmissionInputError: wrong shapes, negative inertias, missing position
    """
    jac = np.asarray(transmission.joint_to_actuator_jacobian(
        position_state(transmission, joint_position, 'reflected inertia')))
    inertia = _inertias(rotor_inertias, transmission.num_actuators())
    return np.einsum('...nm,...n,...nk->...mk', jac, inertia, jac)
