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
:class:`Mechanism`: a transmission defined by its position map and its Jacobian.

A mechanism of :math:`N` actuators and :math:`M` joints defines its position map in one
direction, with that direction's Jacobian, or in both:

* actuator to joint: :meth:`Mechanism.joint_position` :math:`q = f(\theta)` and
  :meth:`~Mechanism.actuator_to_joint_jacobian` :math:`J = \partial q/\partial\theta`
  (``(..., M, N)``);
* joint to actuator: :meth:`Mechanism.actuator_position` :math:`\theta = g(q)` and
  :meth:`~Mechanism.joint_to_actuator_jacobian` :math:`K = \partial\theta/\partial q`
  (``(..., N, M)``).

A direction it leaves out is solved from the other by Newton's method (square maps,
:func:`newton`), with :math:`J = K^{-1}` at the solution and the reverse; a loop-closure
residual is one more such solve inside the direction a mechanism defines.  Everything else is
derived here, once, for every mechanism:

.. math::

    \dot q = J\dot\theta, \qquad \dot\theta = K\dot q, \qquad
    \tau = (J^{+})^T u, \qquad u = (K^{+})^T \tau

with :math:`J^{+}` the inverse of :math:`J` (square maps) or its pseudo-inverse, and the
joint-to-actuator maps reading only the joints :meth:`~Transmission.joint_to_actuator_inputs`
names (a follower's value never reaches an actuator).  Power is
conserved, :math:`\tau^T\dot q = u^T\dot\theta`, for every motion the mechanism can make; where
the map is not square (more joints than actuators: passive followers, sensor-read joints) the
effort of the joints is the least-squares one and a mechanism whose builder reports efforts
otherwise says so by overriding the effort maps (the PR2 gripper does, as its C++ does).  The
position state of one conversion (:meth:`Transmission.prepare_state`) holds the source, the
target positions and the Jacobian, computed once for every interface of the call; the robot-wide
maps, limits, reflected inertia, the nodes and the MuJoCo backend use only these maps.
"""

from typing import Any
from typing import Callable
from typing import NamedTuple

import numpy as np

from transmission_plugins.core.checks import FloatArray
from transmission_plugins.core.exceptions import TransmissionInputError
from transmission_plugins.core.interfaces import POSITION
from transmission_plugins.core.transmission import Transmission

#: Newton's method stops when every residual is within this of its target (relative to
#: 1 + |target|), or after :data:`NEWTON_ITERATIONS` steps; samples that have not converged
#: (outside the workspace, at a singularity) are NaN.
NEWTON_TOLERANCE = 1e-13
NEWTON_ITERATIONS = 50


class ActuatorSide(NamedTuple):
    """The state of one actuator-to-joint conversion: positions and the Jacobian there."""

    #: actuator positions ``(..., N)``
    actuator: np.ndarray
    #: joint positions ``(..., M)``
    joint: np.ndarray
    #: :math:`J = \partial q/\partial\theta` ``(..., M, N)``
    jacobian: np.ndarray


class JointSide(NamedTuple):
    """The state of one joint-to-actuator conversion: positions and the Jacobian there."""

    #: joint positions ``(..., M)``
    joint: np.ndarray
    #: actuator positions ``(..., N)``
    actuator: np.ndarray
    #: :math:`K = \partial\theta/\partial q` ``(..., N, M)``
    jacobian: np.ndarray


def newton(residual: Callable[[np.ndarray], np.ndarray],
           jacobian: Callable[[np.ndarray], np.ndarray], start: np.ndarray,
           scale: Any = 1.0) -> np.ndarray:
    r"""
    Return :math:`x` with :math:`r(x) = 0`, by Newton's method over any batch.

    :math:`x_{k+1} = x_k - (\partial r/\partial x)^{-1} r(x_k)` for every sample at once, until
    :math:`|r| \le` :data:`NEWTON_TOLERANCE` :math:`\cdot(1 + |\mathrm{scale}|)`; a sample still
    outside after :data:`NEWTON_ITERATIONS` steps, or whose Jacobian is singular, is NaN.  A
    sample stops moving once it has converged, so its result does not depend on the others in
    the batch.

    :param residual: ``(..., n) -> (..., n)``
    :param jacobian: ``(..., n) -> (..., n, n)``, the residual's
    :param start: the first guess ``(..., n)``
    :param scale: the magnitude the tolerance is relative to (the target of a map)
    """
    x = np.array(start, dtype=np.float64)
    limit = NEWTON_TOLERANCE * (1.0 + np.abs(scale))
    for _ in range(NEWTON_ITERATIONS):
        r = residual(x)
        done = np.all(np.abs(r) <= limit, axis=-1, keepdims=True)
        if np.all(done):
            return x
        with np.errstate(all='ignore'):
            step = _solve(jacobian(x), r)
        x = np.where(done, x, x - step)  # a converged sample stays: batches equal samples
    r = residual(x)
    return np.where(np.all(np.abs(r) <= limit, axis=-1, keepdims=True), x, np.nan)


def _solve(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Return ``a^-1 b`` over a batch; NaN where ``a`` is singular or not finite."""
    finite = np.all(np.isfinite(a), axis=(-2, -1)) & np.all(np.isfinite(b), axis=-1)
    safe = np.where(finite[..., None, None], a, np.eye(a.shape[-1]))
    try:
        x = np.linalg.solve(safe, np.where(finite[..., None], b, 0.0)[..., None])[..., 0]
    except np.linalg.LinAlgError:   # a singular sample: solve them one by one
        x = np.stack([_solve_one(m, v) for m, v in zip(
            safe.reshape((-1,) + a.shape[-2:]), b.reshape(-1, b.shape[-1]))]).reshape(b.shape)
    return np.where(finite[..., None], x, np.nan)


def _solve_one(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    try:
        return np.asarray(np.linalg.solve(a, b))
    except np.linalg.LinAlgError:
        return np.full(b.shape, np.nan)


def inverse(a: np.ndarray) -> np.ndarray:
    """Return the inverse of square matrices ``(..., n, n)``; NaN where one is singular."""
    a = np.asarray(a, dtype=np.float64)
    eye = np.broadcast_to(np.eye(a.shape[-1]), a.shape)
    return np.stack([_solve(a, eye[..., :, k]) for k in range(a.shape[-1])], axis=-1)


def transposed_inverse_times(jacobian: np.ndarray, values: np.ndarray) -> np.ndarray:
    r"""
    Return :math:`(A^{+})^T v` over a batch: :math:`A^{-T}v` for square :math:`A`.

    For a non-square :math:`A` the Moore-Penrose pseudo-inverse: the least-squares efforts that
    carry the same power.  NaN where :math:`A` is singular or not finite.
    """
    if jacobian.shape[-1] == jacobian.shape[-2]:
        return _solve(np.swapaxes(jacobian, -1, -2), values)
    finite = np.all(np.isfinite(jacobian), axis=(-2, -1))
    safe = np.where(finite[..., None, None], jacobian, 0.0)
    pinv = np.linalg.pinv(safe)
    out = np.einsum('...ij,...i->...j', pinv, values)
    return np.where(finite[..., None], out, np.nan)


class Mechanism(Transmission):
    r"""
    Base of the transmissions defined by a position map and its Jacobian (module docstring).

    A subclass defines :meth:`num_actuators`, :meth:`num_joints` and at least one of the pairs
    (:meth:`joint_position`, :meth:`actuator_to_joint_jacobian`) and
    (:meth:`actuator_position`, :meth:`joint_to_actuator_jacobian`); a pair it does not define
    is derived from the other (square maps only).  It may override
    :meth:`newton_start` (the first guess of a derived direction) and
    :meth:`joint_to_actuator_inputs` (joints its joint-to-actuator maps ignore).
    """

    def __init__(self) -> None:
        super().__init__()
        cls = type(self)
        if cls.joint_position is Mechanism.joint_position and \
                cls.actuator_position is Mechanism.actuator_position:
            raise TypeError(f'{cls.__name__} must define joint_position or actuator_position '
                            '(with its Jacobian): a mechanism is its position map')

    def requires_position_state(self) -> bool:
        """Return True: velocity and effort maps depend on the position."""
        return True

    # ------------------------------------------------------------------ the definition
    def joint_position(self, actuator_position: np.ndarray) -> np.ndarray:
        r"""
        Return :math:`q = f(\theta)`, ``(..., N) -> (..., M)``.

        Default: solve :math:`g(q) = \theta` by Newton's method (square maps).
        """
        self._require_square('joint_position')
        theta = np.asarray(actuator_position, dtype=np.float64)
        return newton(lambda q: self.actuator_position(q) - theta,
                      self.joint_to_actuator_jacobian, self.newton_start(True, theta), theta)

    def actuator_position(self, joint_position: np.ndarray) -> np.ndarray:
        r"""
        Return :math:`\theta = g(q)`, ``(..., M) -> (..., N)``.

        Default: solve :math:`f(\theta) = q` by Newton's method (square maps).
        """
        self._require_square('actuator_position')
        q = np.asarray(joint_position, dtype=np.float64)
        return newton(lambda theta: self.joint_position(theta) - q,
                      self.actuator_to_joint_jacobian, self.newton_start(False, q), q)

    def actuator_to_joint_jacobian(self, actuator_position: Any = None) -> FloatArray:
        r"""
        Return :math:`J = \partial q/\partial\theta` at ``actuator_position``, ``(..., M, N)``.

        Default: :math:`K^{-1}` at :math:`q = f(\theta)`.
        """
        theta = self._position(actuator_position, 'actuator', self.num_actuators())
        return inverse(self.joint_to_actuator_jacobian(self.joint_position(theta)))

    def joint_to_actuator_jacobian(self, joint_position: Any = None) -> FloatArray:
        r"""
        Return :math:`K = \partial\theta/\partial q` at ``joint_position``, ``(..., N, M)``.

        Default: :math:`J^{-1}` at :math:`\theta = g(q)`.
        """
        q = self._position(joint_position, 'joint', self.num_joints())
        return inverse(self.actuator_to_joint_jacobian(self.actuator_position(q)))

    def newton_start(self, to_joint: bool, source: np.ndarray) -> np.ndarray:
        """
        Return the first guess of a direction solved by Newton's method.

        :param to_joint: the guess is joint positions (else actuator positions)
        :param source: the positions being mapped
        :returns: zeros of the target's size (override with a closer guess)
        """
        size = self.num_joints() if to_joint else self.num_actuators()
        return np.zeros(np.shape(source)[:-1] + (size,))

    # ------------------------------------------------------------------ derived
    def _prepare_actuator_state(self, position: FloatArray) -> ActuatorSide:
        theta = self._position(position, 'actuator', self.num_actuators())
        return ActuatorSide(theta, self.joint_position(theta),
                            np.asarray(self.actuator_to_joint_jacobian(theta)))

    def _prepare_joint_state(self, position: FloatArray) -> JointSide:
        q = self._position(position, 'joint', self.num_joints())
        return JointSide(q, self.actuator_position(q),
                         np.asarray(self.joint_to_actuator_jacobian(q)))

    def apply_map(self, kind: str, to_joint: bool, values: FloatArray,
                  state: Any) -> FloatArray:
        """Apply one map (see :meth:`Transmission.apply_map`); positions reuse the state's."""
        if kind == POSITION and state is not None and state[0] is values:
            return state[1]
        return super().apply_map(kind, to_joint, values, state)

    def _actuator_state(self, state: Any) -> ActuatorSide:
        return state if isinstance(state, ActuatorSide) else self._prepare_actuator_state(state)

    def _joint_state(self, state: Any) -> JointSide:
        return state if isinstance(state, JointSide) else self._prepare_joint_state(state)

    def _actuator_to_joint_position(self, position: FloatArray) -> FloatArray:
        return self.joint_position(position)

    def _actuator_to_joint_velocity(self, velocity: FloatArray, position: Any) -> FloatArray:
        return np.einsum('...mn,...n->...m', self._actuator_state(position).jacobian, velocity)

    def _actuator_to_joint_effort(self, effort: FloatArray, position: Any) -> FloatArray:
        return transposed_inverse_times(self._actuator_state(position).jacobian, effort)

    def _joint_to_actuator_position(self, position: FloatArray) -> FloatArray:
        return self.actuator_position(position)

    def _joint_to_actuator_velocity(self, velocity: FloatArray, position: Any) -> FloatArray:
        inputs = self._inputs()
        return np.einsum('...nm,...m->...n',
                         self._joint_state(position).jacobian[..., inputs],
                         velocity[..., inputs])

    def _joint_to_actuator_effort(self, effort: FloatArray, position: Any) -> FloatArray:
        inputs = self._inputs()
        return transposed_inverse_times(self._joint_state(position).jacobian[..., inputs],
                                        effort[..., inputs])

    def _inputs(self) -> Any:
        """Return the joints the joint-to-actuator maps read, as an index (all: a slice)."""
        inputs = self.joint_to_actuator_inputs()
        return slice(None) if len(inputs) == self.num_joints() else list(inputs)

    # ------------------------------------------------------------------ helpers
    def _position(self, position: Any, side: str, size: int) -> np.ndarray:
        if position is None:
            raise TransmissionInputError(
                f'{type(self).__name__} is nonlinear: the {side} position is needed')
        x = np.asarray(position, dtype=np.float64)
        if x.ndim == 0 or x.shape[-1] != size:
            raise TransmissionInputError(
                f'{type(self).__name__}: {side} positions must have {size} entries on the last '
                f'axis, got shape {x.shape}')
        return x

    def _require_square(self, what: str) -> None:
        if self.num_actuators() != self.num_joints():
            raise NotImplementedError(
                f'{type(self).__name__} must define {what}: only square maps derive it by '
                "Newton's method")


__all__ = ['ActuatorSide', 'JointSide', 'Mechanism', 'NEWTON_ITERATIONS', 'NEWTON_TOLERANCE',
           'inverse', 'newton', 'transposed_inverse_times']
