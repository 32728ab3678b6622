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
The actuator model: effort limit, rotor inertia, gear ratio, PD gains, and a rotor simulator.

After Drake's ``JointActuator``.  An actuator here is the motor-side coordinate :math:`\theta`
of a transmission (what ``actuator_to_joint`` reads, e.g. the motor position the drive reports).
The chain modelled is

.. code-block:: text

    rotor --(gear ratio rho: a gearhead)--> actuator coordinate theta --(transmission)--> joint q

so the Drake gear ratio :math:`\rho` (``<drake:gear_ratio>``, rotor speed over actuator-coordinate
speed) is a stage **between the rotor and the actuator coordinate**, in series with (not instead
of) the transmission's reduction.  The rotor of inertia :math:`I_r` has the inertia
:math:`\rho^2 I_r` at the actuator coordinate (:meth:`ActuatorModel.reflected_inertia`), and a
transmission with :math:`J = \partial\theta/\partial q` (actuator positions over joint
positions) reflects the rotors into joint space as

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

Effort limits are symmetric
and map through the transmission's effort map (:func:`joint_to_actuator_effort_limit`,
:func:`actuator_to_joint_effort_limit`).  :func:`pd_effort` is Drake's PD actuator law and
:class:`ActuatorSimulator` integrates N rotors for the mock actuators node.
"""

from dataclasses import dataclass
import math
from typing import Any
from typing import Dict
from typing import List
from typing import Optional
from typing import Sequence
from typing import Tuple

import numpy as np

from transmission_plugins.core.elements import child_path
from transmission_plugins.core.elements import children
from transmission_plugins.core.elements import local_name
from transmission_plugins.core.elements import parse_float
from transmission_plugins.core.elements import require_attribute
from transmission_plugins.core.elements import source_line
from transmission_plugins.core.exceptions import BadValueError
from transmission_plugins.core.exceptions import TransmissionInputError
from transmission_plugins.core.exceptions import TransmissionValueError

#: Drake's URDF namespace (``xmlns:drake``); tags are matched by local name in any namespace.
DRAKE_NAMESPACE = 'http://drake.mit.edu'
#: The actuator modes of :class:`ActuatorSimulator`.
MODES = ('position', 'velocity', 'effort')


def _real(value: Any, parameter: str, where: str) -> float:
    if isinstance(value, bool):
        raise TransmissionValueError(parameter, value, 'a real number', where)
    try:
        return float(value)
    except (TypeError, ValueError):
        raise TransmissionValueError(parameter, value, 'a real number', where) from None


@dataclass(frozen=True)
class ActuatorModel:
    r"""
    Describe one actuator: effort limit, rotor inertia, gear ratio and optional PD gains.

    :param name: the actuator name; a non-empty string
    :param effort_limit: symmetric limit :math:`|u| \le u_{max}` in actuator units; > 0,
        ``inf`` (the default) for none
    :param rotor_inertia: :math:`I_r` of the rotor (kg m^2); finite, >= 0; 0 = not modelled
    :param gear_ratio: :math:`\rho` = rotor speed / actuator-coordinate speed, a gearhead
        between the rotor and the coordinate the transmission reads (in series with the
        transmission's reduction, see the module docstring); finite, non-zero
    :param kp: proportional gain; None or finite and > 0 (Drake rejects :math:`K_p \le 0`)
    :param kd: derivative gain; None or finite and >= 0; defaults to 0 when ``kp`` is given,
        and cannot be given without ``kp``
    :raises TransmissionValueError: naming the parameter and the value
    """

    name: str
    effort_limit: float = math.inf
    rotor_inertia: float = 0.0
    gear_ratio: float = 1.0
    kp: Optional[float] = None
    kd: Optional[float] = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise TransmissionValueError('name', self.name, 'a non-empty string', 'ActuatorModel')
        where = f'actuator {self.name!r}'
        limit = _real(self.effort_limit, 'effort_limit', where)
        if not limit > 0.0:
            raise TransmissionValueError('effort_limit', self.effort_limit,
                                         'a number > 0 (inf for no limit)', where)
        inertia = _real(self.rotor_inertia, 'rotor_inertia', where)
        if not (math.isfinite(inertia) and inertia >= 0.0):
            raise TransmissionValueError('rotor_inertia', self.rotor_inertia,
                                         'a finite number >= 0', where)
        ratio = _real(self.gear_ratio, 'gear_ratio', where)
        if not math.isfinite(ratio) or ratio == 0.0:
            raise TransmissionValueError('gear_ratio', self.gear_ratio,
                                         'a finite, non-zero number', where)
        kp, kd = check_gains(self.kp, self.kd, where)
        object.__setattr__(self, 'effort_limit', limit)
        object.__setattr__(self, 'rotor_inertia', inertia)
        object.__setattr__(self, 'gear_ratio', ratio)
        object.__setattr__(self, 'kp', kp)
        object.__setattr__(self, 'kd', kd)

    def reflected_inertia(self) -> float:
        r"""
        Return :math:`\rho^2 I_r`, the rotor inertia seen at the actuator coordinate.

        This is Drake's reflected inertia; the transmission then maps it to the joints
        (:func:`reflected_inertia`), so a simple transmission of reduction :math:`n` adds a
        factor :math:`n^2`.
        """
        return self.gear_ratio ** 2 * self.rotor_inertia

    def has_pd_gains(self) -> bool:
        """Return True when PD gains are set."""
        return self.kp is not None


def check_gains(kp: Any, kd: Any, where: str = '') -> Tuple[Optional[float], Optional[float]]:
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
    p = _real(kp, 'kp', where)
    if not (math.isfinite(p) and p > 0.0):
        raise TransmissionValueError('kp', kp, 'a finite number > 0 (Drake rejects Kp <= 0)',
                                     where)
    d = 0.0 if kd is None else _real(kd, 'kd', where)
    if not (math.isfinite(d) and d >= 0.0):
        raise TransmissionValueError('kd', kd, 'a finite number >= 0 (Drake rejects Kd < 0)',
                                     where)
    return p, d


# ---------------------------------------------------------------------------- URDF extensions
_VALUE_TAGS = {'rotor_inertia': 'rotor_inertia', 'gear_ratio': 'gear_ratio',
               'effort_limit': 'effort_limit'}
_PARAMS = ('rotor_inertia', 'gear_ratio', 'effort_limit', 'kp', 'kd')


def _check_extension(key: str, value: float, path: str, line: Optional[int]) -> float:
    if key == 'rotor_inertia' and value < 0.0:
        raise BadValueError(path, f'expected a rotor inertia >= 0, got {value!r}', line)
    if key == 'gear_ratio' and value == 0.0:
        raise BadValueError(path, 'expected a non-zero gear ratio, got 0', line)
    if key in ('effort_limit', 'kp') and value <= 0.0:
        raise BadValueError(path, f'expected a number > 0, got {value!r}', line)
    if key == 'kd' and value < 0.0:
        raise BadValueError(path, f'expected a number >= 0 (Drake rejects Kd < 0), got '
                                  f'{value!r}', line)
    return value


def read_actuator_extensions(element: Any, path: str) -> Dict[str, Any]:
    """
    Read the actuator data an ``<actuator>`` element of a ``<transmission>`` may carry.

    Recognised children (others are left to the caller):

    * Drake: ``<drake:rotor_inertia value>``, ``<drake:gear_ratio value>``,
      ``<drake:controller_gains p d>`` and ``<drake:effort_limit value>`` (matched by local
      name, whatever the namespace prefix);
    * ros2_control: ``<param name="rotor_inertia|gear_ratio|effort_limit|kp|kd">value</param>``.

    :param element: the ``<actuator>`` element (ElementTree or lxml)
    :param path: its element path, used in messages
    :returns: a dict with some of ``rotor_inertia``, ``gear_ratio``, ``effort_limit`` (floats)
        and ``controller_gains`` (``(p, d)``), ready for :class:`ActuatorInfo` fields
    :raises BadValueError: non-numeric or out-of-range values, duplicates, ``kd`` without ``kp``
    :raises IncompleteTransmissionError: missing ``value``, ``p``, ``d`` or ``name`` attributes
    """
    found: Dict[str, float] = {}
    where: Dict[str, str] = {}

    def put(key: str, value: float, at: str, line: Optional[int]) -> None:
        if key in found:
            raise BadValueError(at, f'{key} is given twice (first at {where[key]})', line)
        found[key] = _check_extension(key, value, at, line)
        where[key] = at

    for child in children(element):
        tag = local_name(child)
        at = child_path(path, child)
        line = source_line(child)
        if tag in _VALUE_TAGS:
            text = require_attribute(child, 'value', at)
            put(_VALUE_TAGS[tag], parse_float(text, f'{at}/@value', line=line), at, line)
        elif tag == 'controller_gains':
            for attribute, key in (('p', 'kp'), ('d', 'kd')):
                text = require_attribute(child, attribute, at)
                put(key, parse_float(text, f'{at}/@{attribute}', line=line), at, line)
        elif tag == 'param' and child.get('name') in _PARAMS:
            put(child.get('name'), parse_float(child.text, at, line=line), at, line)
    out: Dict[str, Any] = {k: found[k] for k in ('rotor_inertia', 'gear_ratio', 'effort_limit')
                           if k in found}
    if 'kd' in found and 'kp' not in found:
        raise BadValueError(where['kd'], 'kd is given without kp', None)
    if 'kp' in found:
        out['controller_gains'] = (found['kp'], found.get('kd', 0.0))
    return out


def actuator_model_from_info(info: Any, *, effort_limit: Optional[float] = None,
                             kp: Optional[float] = None,
                             kd: Optional[float] = None) -> ActuatorModel:
    """
    Build an :class:`ActuatorModel` from an :class:`ActuatorInfo`.

    Values present in ``info`` win; the keyword arguments are fallbacks (e.g. the joint effort
    limit mapped through the transmission, gains from node parameters).

    :param info: an ``ActuatorInfo`` (``name``, ``effort_limit``, ``rotor_inertia``,
        ``gear_ratio``, ``controller_gains``, ``path``)
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


# ---------------------------------------------------------------------------- transmissions
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


def _state_for(transmission: Any, position: Any, what: str) -> Any:
    if position is None and transmission.requires_position_state():
        raise TransmissionInputError(
            f'{type(transmission).__name__} is nonlinear: {what} needs the current position')
    return position


def duplicated_reduction(model: ActuatorModel, transmission: Any,
                         index: int) -> Optional[float]:
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
                                 where: str) -> Optional[str]:
    """Return the loader warning for :func:`duplicated_reduction`, or None."""
    n = duplicated_reduction(model, transmission, index)
    if n is None:
        return None
    rho = model.gear_ratio
    return (f'{where}: actuator {model.name!r} has gear ratio {rho:g} and its transmission '
            f'reduction is {n:g}: the same gearbox described twice? Both count, in series '
            f'(rotor -> gear ratio -> actuator coordinate -> reduction -> joint), so the rotor '
            f'inertia is reflected {(n * rho) ** 2:g} times (n^2 rho^2), not {rho ** 2:g}; set '
            'the one that does not describe a separate stage to 1')


def reflected_inertia(transmission: Any, rotor_inertias: Any,
                      joint_position: Any = None) -> np.ndarray:
    r"""
    Return the rotors' inertia in joint space, :math:`J^T \operatorname{diag}(I) J`.

    :math:`J = \partial\theta/\partial q` is the transmission's joint-to-actuator Jacobian and
    :math:`I` the inertias at the actuator coordinates; with :class:`ActuatorModel` s that is
    :math:`\rho^2 I_r`, so a simple transmission of reduction :math:`n` gives
    :math:`n^2\rho^2 I_r` (the gear ratio is a stage before the transmission, see the module
    docstring).

    :param transmission: any :class:`~transmission_plugins.core.transmission.Transmission`
    :param rotor_inertias: inertias at the actuator coordinates, ``(..., N)``, i.e.
        :math:`\rho^2 I_r`; or a sequence of N :class:`ActuatorModel` (their
        :meth:`~ActuatorModel.reflected_inertia` is used)
    :param joint_position: joint positions ``(..., M)``; required by nonlinear transmissions
    :returns: ``(..., M, M)`` symmetric positive semi-definite matrix
    :raises TransmissionInputError: wrong shapes, negative inertias, missing position
    """
    jac = np.asarray(transmission.joint_to_actuator_jacobian(
        _state_for(transmission, joint_position, 'reflected inertia')))
    inertia = _inertias(rotor_inertias, transmission.num_actuators())
    return np.einsum('...nm,...n,...nk->...mk', jac, inertia, jac)


def _effort_matrix(transmission: Any, to_actuator: bool, position: Any) -> np.ndarray:
    """Return the effort map's matrix, ``(..., dst, src)``, by mapping unit efforts."""
    src = transmission.num_joints() if to_actuator else transmission.num_actuators()
    unit = np.eye(src)
    values: Dict[str, Any] = {'effort': unit}
    if transmission.requires_position_state():
        pos = np.asarray(position, dtype=np.float64)
        if pos.ndim == 0 or pos.shape[-1] != src:
            raise TransmissionInputError(
                f'expected positions with {src} entries on the last axis, got shape {pos.shape}')
        values = {'effort': np.broadcast_to(unit, pos.shape[:-1] + (src, src)),
                  'position': np.broadcast_to(pos[..., None, :], pos.shape[:-1] + (src, src))}
    convert = transmission.joint_to_actuator if to_actuator else transmission.actuator_to_joint
    return np.swapaxes(convert(values)['effort'], -1, -2)


def _box(matrix: np.ndarray, limits: Any, count: int) -> np.ndarray:
    lim = np.asarray(limits, dtype=np.float64)
    if lim.ndim == 0:
        lim = np.full(count, float(lim))
    if lim.shape[-1] != count or np.any(np.isnan(lim)) or np.any(lim < 0.0):
        raise TransmissionInputError(
            f'expected {count} effort limits >= 0 (inf for none), got {limits!r}')
    with np.errstate(invalid='ignore'):
        terms = np.where(matrix == 0.0, 0.0, np.abs(matrix) * lim[..., None, :])
    return terms.sum(axis=-1)


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
    state = _state_for(transmission, joint_position, 'mapping effort limits')
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
    state = _state_for(transmission, actuator_position, 'mapping effort limits')
    matrix = _effort_matrix(transmission, False, state)
    return _box(matrix, actuator_effort_limit, transmission.num_actuators())


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
    u = (-p * (np.asarray(q, dtype=np.float64) - q_d)
         - d * (np.asarray(v, dtype=np.float64) - v_d) + u_ff)
    return np.clip(u, -lim, lim)


class ActuatorSimulator:
    r"""
    Simulate N actuator rotors, each in position, velocity or effort mode.

    Each rotor obeys :math:`I \dot v = u - c\,v` with :math:`I = \max(\rho^2 I_r, I_{min})`
    (a rotor with no modelled inertia still needs a finite mass to integrate), :math:`c` the
    viscous ``damping`` and :math:`u` clamped to the model's effort limit:

    * ``position``: :math:`u = \operatorname{clamp}(-K_p(q - q_d) - K_d v)` (:func:`pd_effort`);
    * ``velocity``: :math:`u = \operatorname{clamp}(K_v (v_d - v) + c\,v_d)`;
    * ``effort``: :math:`u = \operatorname{clamp}(u_d)`.

    :math:`K_p, K_d` come from the model, else :math:`K_p = I\omega^2, K_d = 2I\omega`
    (critically damped at ``bandwidth`` rad/s); :math:`K_v = K_d`.  :meth:`step` integrates with
    semi-implicit Euler (velocity first, then position with the new velocity), split into
    sub-steps short enough for the stiffest actuator (at most ``max_substeps``).  All actuators
    start at rest in effort mode with a zero command.

    :param models: the :class:`ActuatorModel` of each actuator, in state order
    :param position: initial positions ``(N,)``, default 0
    :param damping: viscous damping :math:`c` >= 0, scalar or ``(N,)``
    :param min_inertia: :math:`I_{min}` > 0
    :param bandwidth: :math:`\omega` > 0 for default gains
    :param max_substeps: bound on sub-steps per :meth:`step`
    """

    def __init__(self, models: Sequence[ActuatorModel], *, position: Any = None,
                 damping: Any = 0.0, min_inertia: float = 1e-4,
                 bandwidth: float = 2.0 * math.pi * 10.0, max_substeps: int = 1000) -> None:
        self._models = list(models)
        if not all(isinstance(m, ActuatorModel) for m in self._models):
            raise TransmissionValueError('models', models, 'a sequence of ActuatorModel',
                                         'ActuatorSimulator')
        n = len(self._models)
        for name, value in (('min_inertia', min_inertia), ('bandwidth', bandwidth)):
            if not (math.isfinite(_real(value, name, 'ActuatorSimulator')) and value > 0.0):
                raise TransmissionValueError(name, value, 'a finite number > 0',
                                             'ActuatorSimulator')
        self._damping = np.broadcast_to(np.asarray(damping, dtype=np.float64), (n,)).copy()
        if not np.all(np.isfinite(self._damping) & (self._damping >= 0.0)):
            raise TransmissionValueError('damping', damping, 'finite values >= 0',
                                         'ActuatorSimulator')
        self._max_substeps = int(max_substeps)
        self._inertia = np.array([max(m.reflected_inertia(), min_inertia)
                                  for m in self._models])
        self._kp = np.array([m.kp if m.kp is not None else i * bandwidth ** 2
                             for m, i in zip(self._models, self._inertia)])
        self._kd = np.array([m.kd if m.kp is not None else 2.0 * i * bandwidth
                             for m, i in zip(self._models, self._inertia)])
        self._kv = np.where(self._kd > 0.0, self._kd, 2.0 * self._inertia * bandwidth)
        self._limit = np.array([m.effort_limit for m in self._models])
        # fastest closed-loop rate of any actuator in any mode, for the sub-step size
        self._rate = float(np.max(np.sqrt(self._kp / self._inertia)
                                  + (self._kd + self._kv + self._damping) / self._inertia,
                                  initial=0.0))
        self._mode = np.full(n, MODES.index('effort'))
        self._target = np.zeros(n)
        self._q = np.zeros(n)
        self._v = np.zeros(n)
        self._u = np.zeros(n)
        self.reset(position)

    @property
    def names(self) -> List[str]:
        """Return the actuator names, in state order."""
        return [m.name for m in self._models]

    @property
    def modes(self) -> List[str]:
        """Return each actuator's current mode."""
        return [MODES[i] for i in self._mode]

    def reset(self, position: Any = None, velocity: Any = None) -> None:
        """Set the state (default: zero) and clear the efforts; modes and commands are kept."""
        n = len(self._models)
        self._q = self._vector(0.0 if position is None else position, 'position', n)
        self._v = self._vector(0.0 if velocity is None else velocity, 'velocity', n)
        self._u = np.zeros(n)

    def set_command(self, modes: Any, values: Any) -> None:
        """
        Set the mode and the target of each actuator.

        :param modes: one mode name for all, or N names (None keeps that actuator's command)
        :param values: N targets (position, velocity or effort by mode); NaN keeps that
            actuator's previous mode and target
        :raises TransmissionValueError: unknown mode names or wrong sizes
        """
        n = len(self._models)
        target = np.asarray(values, dtype=np.float64).reshape(-1)
        if target.shape != (n,):
            raise TransmissionValueError('values', values, f'{n} numbers',
                                         'ActuatorSimulator.set_command')
        names = [modes] * n if isinstance(modes, str) or modes is None else list(modes)
        if len(names) != n or any(m is not None and m not in MODES for m in names):
            raise TransmissionValueError('modes', modes, f'one of {MODES} or {n} of them',
                                         'ActuatorSimulator.set_command')
        update = ~np.isnan(target) & np.array([m is not None for m in names])
        new_mode = np.array([MODES.index(m) if m is not None else -1 for m in names])
        self._mode = np.where(update, new_mode, self._mode)
        self._target = np.where(update, target, self._target)

    def step(self, dt: float) -> None:
        """Advance the rotors by ``dt`` seconds (> 0)."""
        if not (math.isfinite(dt) and dt > 0.0):
            raise TransmissionValueError('dt', dt, 'a finite number > 0', 'ActuatorSimulator')
        count = int(min(max(math.ceil(dt * self._rate / 0.2), 1), self._max_substeps))
        h = dt / count
        for _ in range(count):
            self._u = self._effort()
            self._v = self._v + h * (self._u - self._damping * self._v) / self._inertia
            self._q = self._q + h * self._v

    def state(self) -> Dict[str, np.ndarray]:
        """Return copies of ``position``, ``velocity`` and applied ``effort``, each ``(N,)``."""
        return {'position': self._q.copy(), 'velocity': self._v.copy(),
                'effort': self._u.copy()}

    def _effort(self) -> np.ndarray:
        position_mode = self._mode == 0
        velocity_mode = self._mode == 1
        target = self._target
        q_d = np.where(position_mode, target, self._q)
        u_pd = -self._kp * (self._q - q_d) - self._kd * self._v
        u_vel = self._kv * (target - self._v) + self._damping * target
        u = np.where(position_mode, u_pd, np.where(velocity_mode, u_vel, target))
        return np.clip(u, -self._limit, self._limit)

    @staticmethod
    def _vector(value: Any, name: str, n: int) -> np.ndarray:
        try:
            x = np.broadcast_to(np.asarray(value, dtype=np.float64), (n,)).copy()
        except (TypeError, ValueError):
            raise TransmissionValueError(name, value, f'{n} finite numbers',
                                         'ActuatorSimulator') from None
        if not np.all(np.isfinite(x)):
            raise TransmissionValueError(name, value, f'{n} finite numbers', 'ActuatorSimulator')
        return x
