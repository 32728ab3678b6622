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
The actuator model after Drake's ``JointActuator``: effort limit, rotor inertia, gear ratio, gains.

An actuator here is the motor-side coordinate :math:`\theta` of a transmission.  The chain is

.. code-block:: text

    rotor --(gear ratio rho: a gearhead)--> actuator coordinate theta --(transmission)--> joint q

so the rotor of inertia :math:`I_r` has the inertia :math:`\rho^2 I_r` at the actuator
coordinate, in series with the transmission's reduction (doc/transmissions.md).

:func:`pd_effort` is Drake's PD actuator law, the one law every simulated actuator obeys:

.. math::

    u = \operatorname{clamp}(-K_p (q - q_d) - K_d (v - v_d) + u_{ff}, -u_{max}, u_{max})
"""

from dataclasses import dataclass
import math
from typing import Any

import numpy as np

from transmission_plugins.core.checks import real_number
from transmission_plugins.core.exceptions import BadValueError
from transmission_plugins.core.exceptions import TransmissionValueError


@dataclass(frozen=True)
class ActuatorModel:
    r"""
    Describe one actuator: effort limit, rotor inertia, gear ratio and optional PD gains.

    :param effort_limit: symmetric limit :math:`|u| \le u_{max}` in actuator units; > 0,
        ``inf`` (the default) for none
    :param rotor_inertia: :math:`I_r` of the rotor (kg m^2); finite, >= 0; 0 = not modelled
    :param gear_ratio: :math:`\rho` = rotor speed / actuator-coordinate speed (module
        docstring); finite, non-zero
    :param kp: proportional gain; None or finite and > 0 (Drake rejects :math:`K_p \le 0`)
    :param kd: derivative gain; None or finite and >= 0; defaults to 0 when ``kp`` is given,
        and cannot be given without ``kp``
    :raises TransmissionValueError: naming the parameter and the value
    """

    name: str
    effort_limit: float = math.inf
    rotor_inertia: float = 0.0
    gear_ratio: float = 1.0
    kp: float | None = None
    kd: float | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise TransmissionValueError('name', self.name, 'a non-empty string', 'ActuatorModel')
        where = f'actuator {self.name!r}'
        limit = real_number(self.effort_limit, 'effort_limit', where)
        if not limit > 0.0:
            raise TransmissionValueError('effort_limit', self.effort_limit,
                                         'a number > 0 (inf for no limit)', where)
        inertia = real_number(self.rotor_inertia, 'rotor_inertia', where)
        if not (math.isfinite(inertia) and inertia >= 0.0):
            raise TransmissionValueError('rotor_inertia', self.rotor_inertia,
                                         'a finite number >= 0', where)
        ratio = real_number(self.gear_ratio, 'gear_ratio', where)
        if not math.isfinite(ratio) or ratio == 0.0:
            raise TransmissionValueError('gear_ratio', self.gear_ratio,
                                         'a finite, non-zero number', where)
        if inertia > 0.0 and not math.isfinite(ratio * ratio * inertia):   # overflows
            raise TransmissionValueError('gear_ratio', self.gear_ratio, 'a gear ratio whose '
                                         f'square times the rotor inertia ({inertia!r}) is '
                                         'finite', where)
        kp, kd = check_gains(self.kp, self.kd, where)
        object.__setattr__(self, 'effort_limit', limit)
        object.__setattr__(self, 'rotor_inertia', inertia)
        object.__setattr__(self, 'gear_ratio', ratio)
        object.__setattr__(self, 'kp', kp)
        object.__setattr__(self, 'kd', kd)

    def reflected_inertia(self) -> float:
        r"""
        Return :math:`\rho^2 I_r`, the rotor inertia seen at the actuator coordinate (Drake's).

        A simple transmission of reduction :math:`n` reflects it as :math:`n^2\rho^2 I_r`.
        """
        if self.rotor_inertia == 0.0:   # not modelled (and rho^2 may overflow)
            return 0.0
        return self.gear_ratio ** 2 * self.rotor_inertia

    def has_pd_gains(self) -> bool:
        """Return True when PD gains are set."""
        return self.kp is not None


def check_gains(kp: Any, kd: Any, where: str = '') -> tuple[float | None, float | None]:
    r"""
    Validate PD gains as Drake does: :math:`K_p > 0`, :math:`K_d \ge 0`, both finite.

    :returns: ``(kp, kd)`` as floats, ``kd`` defaulting to 0.0 when only ``kp`` is given, or
        ``(None, None)``
    :raises TransmissionValueError: for invalid gains, or ``kd`` without ``kp``
    """
    if kp is None:
        if kd is not None:
            raise TransmissionValueError('kd', kd, 'no kd without kp (give both gains)', where)
        return None, None
    p = real_number(kp, 'kp', where)
    if not (math.isfinite(p) and p > 0.0):
        raise TransmissionValueError('kp', kp, 'a finite number > 0 (Drake rejects Kp <= 0)',
                                     where)
    d = 0.0 if kd is None else real_number(kd, 'kd', where)
    if not (math.isfinite(d) and d >= 0.0):
        raise TransmissionValueError('kd', kd, 'a finite number >= 0 (Drake rejects Kd < 0)',
                                     where)
    return p, d


def actuator_model_from_info(info: Any, *, effort_limit: float | None = None,
                             kp: float | None = None,
                             kd: float | None = None) -> ActuatorModel:
    """
    Build an :class:`ActuatorModel` from an :class:`ActuatorInfo`.

    Values present in ``info`` win; the keyword arguments are fallbacks (e.g. the joint effort
    limit mapped through the transmission, gains from node parameters).

    :raises BadValueError: naming ``info.path`` when a value is invalid
    """
    limit = info.effort_limit if info.effort_limit is not None else effort_limit
    gains = info.controller_gains if info.controller_gains is not None else (kp, kd)
    try:
        return ActuatorModel(
            name=info.name,
            effort_limit=math.inf if limit is None else limit,
            rotor_inertia=0.0 if info.rotor_inertia is None else info.rotor_inertia,
            gear_ratio=1.0 if info.gear_ratio is None else info.gear_ratio,
            kp=gains[0], kd=gains[1])
    except TransmissionValueError as e:
        raise BadValueError(info.path or info.name,
                            f'{e.parameter}: expected {e.expected}, got {e.value!r}',
                            getattr(info, 'line', None)) from e


# ---------------------------------------------------------------------------- PD actuator
def pd_effort(q: Any, v: Any, q_d: Any, v_d: Any, u_ff: Any, kp: Any, kd: Any,
              effort_limit: Any = math.inf) -> np.ndarray:
    r"""
    Return Drake's PD actuator effort, vectorised over any broadcastable shapes.

    .. math::

        u = \operatorname{clamp}(-K_p (q - q_d) - K_d (v - v_d) + u_{ff},
                                 -u_{max}, u_{max})

    NaN states or targets give NaN efforts.

    :param kp: :math:`K_p`, every entry finite and > 0
    :param kd: :math:`K_d`, every entry finite and >= 0
    :param effort_limit: :math:`u_{max}`, every entry > 0 (``inf`` for none)
    :raises TransmissionValueError: for gains or limits Drake would reject
    """
    p = np.asarray(kp, dtype=np.float64)
    d = np.asarray(kd, dtype=np.float64)
    lim = np.asarray(effort_limit, dtype=np.float64)
    if not np.all(np.isfinite(p) & (p > 0.0)):
        raise TransmissionValueError('kp', kp, 'finite gains > 0 (Drake rejects Kp <= 0)')
    if not np.all(np.isfinite(d) & (d >= 0.0)):
        raise TransmissionValueError('kd', kd, 'finite gains >= 0 (Drake rejects Kd < 0)')
    if not np.all(lim > 0.0):
        raise TransmissionValueError('effort_limit', effort_limit, 'limits > 0 (inf for none)')
    return np.clip(pd_law(np.asarray(q, dtype=np.float64), np.asarray(v, dtype=np.float64),
                          q_d, v_d, u_ff, p, d), -lim, lim)


def pd_law(q: Any, v: Any, q_d: Any, v_d: Any, u_ff: Any, kp: Any, kd: Any) -> Any:
    r"""
    Return :math:`-K_p (q - q_d) - K_d (v - v_d) + u_{ff}`, unclamped and unchecked.

    :func:`pd_effort` checks the gains and clamps; the rotor simulator calls this one with gains
    it validated once.
    """
    return -kp * (q - q_d) - kd * (v - v_d) + u_ff
