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
SeriesElasticTransmission: a motor and gear drive the joint through a spring.

Lookup name: ``transmission_plugins/SeriesElasticTransmission``.  A series elastic actuator
(Pratt and Williamson, "Series elastic actuators", IROS 1995): the gear's output turns the joint
through a spring, and a joint-side encoder reads the joint, so the spring's deflection measures
the joint torque (HEBI's X-series, Cassie's knee and heel springs).  The URDF reading lives in
:mod:`transmission_plugins.urdf.mechanism_elements`.
"""

from typing import Any
from typing import Mapping

import numpy as np

from transmission_plugins.core import kernel
from transmission_plugins.core.checks import check_array
from transmission_plugins.core.checks import check_finite
from transmission_plugins.core.checks import check_positive
from transmission_plugins.core.checks import check_reduction
from transmission_plugins.core.checks import FloatArray
from transmission_plugins.core.compiled_transmission import CompiledTransmission
from transmission_plugins.core.exceptions import TransmissionValueError
from transmission_plugins.core.interfaces import POSITION
from transmission_plugins.core.mechanism import Mechanism
from transmission_plugins.core.transmission import KernelRecord
from transmission_plugins.urdf.mechanism_elements import series_elastic_from_info
from transmission_plugins.urdf.mechanism_elements import SERIES_ELASTIC_VOCABULARY
from transmission_plugins.urdf.records import TransmissionInfo
from transmission_plugins.urdf.records import TransmissionWiring

_WHERE = 'SeriesElasticTransmission'
#: The actuators in map order: the motor, then the joint-side encoder channel.
MOTOR, ENCODER = 0, 1


class SeriesElasticTransmission(CompiledTransmission, Mechanism):
    r"""
    Implement a series elastic actuator: motor, gear, spring, joint; a joint-side encoder.

    Actuator 1 is the motor (position :math:`\theta_m`, velocity, effort :math:`u_m`), actuator
    2 the joint-side encoder channel a driver reports beside it (position :math:`\theta_e`,
    velocity).  With :math:`n` the motor's reduction and :math:`q_0` the joint offset, the
    spring's deflection is :math:`\delta = \theta_m/n - \theta_e`, and

    .. math::

        q = \theta_e + q_0, \qquad \dot q = \dot\theta_e, \qquad
        \tau = s(\delta) + d\,\dot\delta

        \theta_m = n (q - q_0), \quad \theta_e = q - q_0, \quad \dot\theta_m = n\dot q,
        \quad \dot\theta_e = \dot q, \quad u_m = \tau / n, \quad u_e = 0

    where :math:`s(\delta) = k\delta` (a linear spring, ``stiffness`` :math:`k`) or the
    piecewise-linear interpolation of a measured table of ``deflections`` and ``torques`` (both
    strictly increasing; beyond the table its end segments are extended), and :math:`d` is the
    ``damping``.  The joint effort is the spring's: it comes from the actuator *positions and
    velocities*, not from the actuator efforts (:meth:`joint_effort_from_motion`); it is NaN
    where a position or a velocity is missing or NaN.  An actuator-to-joint conversion of
    ``position`` and ``velocity`` therefore gives ``effort`` too.

    The joint-to-actuator maps command the unloaded pose: a position command asks for no
    deflection, and :math:`u_m = \tau/n` is the motor torque that holds the spring at
    :math:`\tau` statically.  Turning an effort command into a deflection target is the node's
    job (:meth:`motor_position_target`: :math:`\theta_m = n(q - q_0 + s^{-1}(\tau))`).  The
    encoder takes no command: its position and velocity commands are the joint's (a driver
    ignores them) and its effort command is 0, so a transmission's commands stay finite and go
    out (the runtime drops a transmission's commands when any of them is NaN).

    Power is not conserved from actuators to joint (the spring stores energy, the damper
    dissipates it); from joint to actuators :math:`u\cdot\dot\theta = \tau\dot q`.  Units: the
    joint's (N m, rad; N, m for a prismatic joint): ``stiffness`` in N m/rad (N/m),
    ``damping`` in N m s/rad (N s/m), ``deflections`` in rad (m), ``torques`` in N m (N).

    :param reduction: :math:`n`, the motor's reduction (finite, non-zero)
    :param stiffness: :math:`k` (finite, > 0), or None with a table
    :param damping: :math:`d` (finite, >= 0)
    :param deflections: the table's deflections (2 or more, finite, strictly increasing)
    :param torques: the table's torques at them (finite, strictly increasing)
    :param joint_offset: :math:`q_0` (finite)
    :raises TransmissionValueError: naming the parameter, the value and what was expected
    """

    JOINT_ROLES = ('joint1',)
    ACTUATOR_ROLES = ('actuator1', 'actuator2')
    URDF_VOCABULARY = SERIES_ELASTIC_VOCABULARY

    def __init__(self, reduction: Any, stiffness: Any = None, damping: Any = 0.0,
                 deflections: Any = None, torques: Any = None, joint_offset: Any = 0.0) -> None:
        super().__init__()
        self._n = check_reduction(reduction, 'reduction', _WHERE)
        self._q0 = check_finite(joint_offset, 'joint_offset', _WHERE)
        self._d = check_finite(damping, 'damping', _WHERE)
        if self._d < 0.0:
            raise TransmissionValueError('damping', damping, 'a finite number >= 0', _WHERE)
        table = deflections is not None or torques is not None
        if table == (stiffness is not None):
            raise TransmissionValueError(
                'stiffness', stiffness, 'a stiffness (a linear spring) or deflections and '
                'torques (a measured table), not both', _WHERE)
        self._k: float | None = None
        self._x = self._t = np.zeros(0)
        if table:
            self._x, self._t = self._table(deflections, torques)
        else:
            self._k = check_positive(stiffness, 'stiffness', _WHERE)
        # the kernel's parameters (src/kernel/series_elastic.c)
        self._parameters = np.concatenate(
            [[self._n, self._q0, self._d, self._k or 0.0, float(self._x.size)], self._x,
             self._t])

    @staticmethod
    def _table(deflections: Any, torques: Any) -> tuple[np.ndarray, np.ndarray]:
        """Return the checked table: both strictly increasing, slopes finite both ways."""
        for name, value in (('deflections', deflections), ('torques', torques)):
            if value is None:
                raise TransmissionValueError(
                    name, value, 'deflections and torques together (a measured table)', _WHERE)
        x = check_array(deflections, (-1,), 'deflections', _WHERE)
        t = check_array(torques, (-1,), 'torques', _WHERE)
        if x.size < 2:
            raise TransmissionValueError('deflections', deflections, 'at least 2 points',
                                         _WHERE)
        if t.size != x.size:
            raise TransmissionValueError('torques', torques, f'{x.size} values, one per '
                                         'deflection', _WHERE)
        with np.errstate(all='ignore'):   # differences of extreme numbers: refused here
            for name, values in (('deflections', x), ('torques', t)):
                for k in range(1, values.size):
                    step = values[k] - values[k - 1]
                    if not (step > 0.0 and np.isfinite(step)):
                        raise TransmissionValueError(
                            f'{name}[{k}]', float(values[k]), f'{name} strictly increasing '
                            f'(after {float(values[k - 1])!r}), by finite steps', _WHERE)
            slopes = np.diff(t) / np.diff(x)
            bad = np.flatnonzero(~(np.isfinite(slopes) & np.isfinite(1.0 / slopes)
                                   & (slopes > 0.0)))
        if bad.size:
            k = int(bad[0]) + 1
            raise TransmissionValueError(
                f'torques[{k}]', float(t[k]), 'a table whose segments have finite, non-zero '
                f'stiffness both ways (segment {k} has {float(slopes[k - 1])!r})', _WHERE)
        return x, t

    def kernel_record(self) -> KernelRecord:
        """Return the spring's record in the compiled kernel (``src/kernel/series_elastic.c``)."""
        return KernelRecord(kernel.SERIES_ELASTIC, self._parameters)

    def joint_effort_from_motion(self) -> bool:
        """Return True: the joint effort is the spring's, from positions and velocities."""
        return True

    # ------------------------------------------------------------------ queries
    def commanded_actuators(self) -> tuple[bool, ...]:
        """Return (True, False): the motor takes commands, the joint-side encoder none."""
        return (True, False)

    def num_actuators(self) -> int:
        """Return 2: the motor and the joint-side encoder."""
        return 2

    def num_joints(self) -> int:
        """Return 1."""
        return 1

    def get_actuator_reduction(self) -> list[float]:
        """Return the reductions of the motor (:math:`n`) and of the encoder (1)."""
        return [self._n, 1.0]

    def get_joint_offset(self) -> list[float]:
        """Return :math:`q_0`, the joint offset."""
        return [self._q0]

    def stiffness(self) -> float | None:
        """Return :math:`k` of a linear spring (None for a table)."""
        return self._k

    def damping(self) -> float:
        """Return :math:`d`."""
        return self._d

    def spring_table(self) -> tuple[list[float], list[float]] | None:
        """Return the table's deflections and torques (None for a linear spring)."""
        return (self._x.tolist(), self._t.tolist()) if self._k is None else None

    def parameters(self) -> dict[str, Any]:
        """Return the constructor's arguments by keyword name."""
        spring: dict[str, Any] = ({'stiffness': self._k} if self._k is not None else
                                  {'deflections': self._x.tolist(),
                                   'torques': self._t.tolist()})
        return {'reduction': self._n, **spring, 'damping': self._d, 'joint_offset': self._q0}

    # ------------------------------------------------------------------ the spring
    def _spring_term(self, values: Any, to_joint: bool) -> FloatArray:
        """
        Return the kernel's first spring term at each sample, ``(..., 1)``.

        ``src/kernel/series_elastic.c``, ``terms``: the deflection at actuator positions
        (``to_joint``), else the deflection of a joint torque; one kernel call per sample.
        """
        source = self._source(values, to_joint)
        flat = self.description()
        block = flat.compiled[0]
        rows = source.reshape(-1, source.shape[-1])
        out = np.fromiter((flat.terms(block, to_joint, row)[0] for row in rows),
                          dtype=np.float64, count=rows.shape[0])
        return out.reshape(source.shape[:-1] + (1,))

    def deflection(self, actuator_state: Any) -> FloatArray:
        r"""
        Return the deflection :math:`\delta = \theta_m/n - \theta_e`, ``(..., 2) -> (..., 1)``.

        :param actuator_state: actuator positions ``(..., 2)``, or a mapping with them under
            ``'position'`` (an actuator state)
        """
        if isinstance(actuator_state, Mapping):
            actuator_state = actuator_state[POSITION]
        return self._spring_term(actuator_state, True)

    def deflection_for_torque(self, joint_effort: Any) -> FloatArray:
        r"""
        Return :math:`s^{-1}(\tau)`, the deflection at which the spring gives ``joint_effort``.

        The inverse of the linear spring, or of the table's piecewise-linear interpolation (its
        end segments extended), computed by the kernel; ``(..., 1) -> (..., 1)``.
        """
        return self._spring_term(joint_effort, False)

    def motor_position_target(self, joint_position: Any, joint_effort: Any) -> FloatArray:
        r"""
        Return the motor position that holds joint effort :math:`\tau` at :math:`q`, ``(..., 1)``.

        :math:`\theta_m = n(q - q_0 + s^{-1}(\tau))`: the joint-to-actuator position map at
        :math:`q + s^{-1}(\tau)`, the static deflection target of an effort command.

        :param joint_position: ``(..., 1)``
        :param joint_effort: ``(..., 1)``, of the same shape
        """
        q = self._source(joint_position, False)
        loaded = q + self.deflection_for_torque(np.broadcast_to(joint_effort, q.shape))
        return self.actuator_position(loaded)[..., MOTOR:MOTOR + 1]

    # ------------------------------------------------------------------ URDF, contract, reports
    @classmethod
    def from_info(cls, info: TransmissionInfo) -> TransmissionWiring:
        """Build from a ``<transmission>`` record; :func:`series_elastic_from_info` reads it."""
        return series_elastic_from_info(cls, info)

    @classmethod
    def example(cls) -> tuple['SeriesElasticTransmission', dict[str, np.ndarray]]:
        """Return Cassie's knee spring (1500 N m/rad) behind a 50:1 gear, and five states."""
        t = cls(reduction=50.0, stiffness=1500.0, damping=5.0)
        rng = np.random.default_rng(36)
        joint = rng.uniform(-1.0, 1.0, 5)
        deflection = rng.uniform(-0.02, 0.02, 5)
        joint_velocity = rng.uniform(-2.0, 2.0, 5)
        deflection_rate = rng.uniform(-0.1, 0.1, 5)
        return t, {
            'position': np.stack([50.0 * (joint + deflection), joint], axis=-1),
            'velocity': np.stack([50.0 * (joint_velocity + deflection_rate), joint_velocity],
                                 axis=-1),
            'effort': np.stack([rng.uniform(-1.0, 1.0, 5), np.zeros(5)], axis=-1)}

    def __repr__(self) -> str:
        args = ', '.join(f'{k}={v!r}' for k, v in self.parameters().items())
        return f'SeriesElasticTransmission({args})'

    def __str__(self) -> str:
        if self._k is not None:
            spring = f'stiffness {self._k:g}'
        else:
            spring = (f'spring table of {self._x.size} points, deflection '
                      f'[{self._x[0]:g}, {self._x[-1]:g}] -> torque '
                      f'[{self._t[0]:g}, {self._t[-1]:g}]')
        offset = f', offset {self._q0:g}' if self._q0 else ''
        return (f'SeriesElasticTransmission: 2 actuators (motor, reduction {self._n:g}; '
                f'joint encoder) -> 1 joint{offset}, {spring}, damping {self._d:g}')
