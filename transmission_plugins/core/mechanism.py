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
:func:`newton`), with :math:`J = K^{-1}` at the solution and the reverse (doc/mechanisms.md,
"The rules").  Everything else is derived here, once, for every mechanism:

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
target positions and the Jacobian, computed once for every interface of the call.
"""

from typing import Any
from typing import Callable
from typing import NamedTuple

import numpy as np

from transmission_plugins.core import kernel
from transmission_plugins.core.checks import FloatArray
from transmission_plugins.core.exceptions import TransmissionInputError
from transmission_plugins.core.interfaces import POSITION
from transmission_plugins.core.transmission import Transmission

#: Newton's method stops when every residual is within this of its target (relative to
#: 1 + |target|), or after :data:`NEWTON_ITERATIONS` steps or :data:`NEWTON_EVALUATIONS`
#: evaluations of the map (a fixed, small budget: a reading outside the workspace costs little);
#: samples that have not converged (outside the workspace, at a singularity) are NaN
#: (:func:`newton`).  The compiled kernel's values, declared once in ``src/kernel/kernel.h``.
NEWTON_TOLERANCE = kernel.NEWTON_TOLERANCE
NEWTON_ITERATIONS = kernel.NEWTON_ITERATIONS
NEWTON_EVALUATIONS = kernel.NEWTON_EVALUATIONS
#: A step that leaves the domain of the residual is halved at most this many times.
NEWTON_HALVINGS = kernel.NEWTON_HALVINGS
#: A Jacobian whose condition number exceeds this counts as singular in
#: :meth:`Mechanism.workspace_problems`.
SINGULAR_CONDITION = 1e8
#: A linkage is at a dead point where the cosine of the angle between a rod and the motion of one
#: of its ends (relative to their lengths) is below this: where a loop is closed by a square
#: root, positions near a dead point are known to about :math:`10^{-8}` of it only.
DEAD_POINT = 1e-6


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


def newton(linearisation: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]],
           start: np.ndarray, scale: Any = 1.0,
           anchor: Any = None) -> tuple[np.ndarray, np.ndarray]:
    r"""
    Return :math:`x` with :math:`r(x) = 0` and :math:`\partial r/\partial x` there, over a batch.

    :math:`x_{k+1} = x_k - 2^{-h}(\partial r/\partial x)^{-1} r(x_k)` for every sample at once,
    with :math:`h = 0` unless the full step leaves the domain of :math:`r` (a residual that is
    not finite: a rod that cannot reach), then the least :math:`h \le` :data:`NEWTON_HALVINGS`
    that stays in it; a start outside the domain is moved toward ``anchor`` (a point inside it)
    likewise, :math:`x_0 = a + 2^{-h}(x_{start} - a)`.  A sample stops moving once
    :math:`|r| \le` :data:`NEWTON_TOLERANCE` :math:`\cdot(1 + |\mathrm{scale}|)`, so each sample
    of a batch takes the steps it would take alone.  A sample still outside after
    :data:`NEWTON_ITERATIONS` steps or :data:`NEWTON_EVALUATIONS` evaluations of the batch, or
    whose residual or Jacobian is not finite (a singular Jacobian), is NaN, its Jacobian too.

    :param linearisation: ``x (..., n) -> (r(x) (..., n), dr/dx (..., n, n))``
    :param start: the first guess ``(..., n)``
    :param scale: the magnitude the tolerance is relative to (the target of a map)
    :param anchor: a point of the domain ``(n,)``, or None
    :returns: ``(x, dr/dx at x)``
    """
    x = np.array(start, dtype=np.float64)
    limit = NEWTON_TOLERANCE * (1.0 + np.abs(scale))
    budget = NEWTON_EVALUATIONS - 1
    with np.errstate(all='ignore'):
        r, jac = linearisation(x)
        for _ in range(NEWTON_HALVINGS if anchor is not None else 0):
            if np.isfinite(r).all() or not budget:
                break
            outside = ~np.isfinite(r).all(axis=-1, keepdims=True)
            x = np.where(outside, anchor + 0.5 * (x - anchor), x)
            r, jac = linearisation(x)
            budget -= 1
        for _ in range(NEWTON_ITERATIONS):
            converged = (np.abs(r) <= limit).all(axis=-1, keepdims=True)
            if converged.all():
                return x, jac
            defined = _rows_finite(r)
            if (defined is not True and (converged | ~defined).all()) or not budget:
                break
            step = np.where(converged, 0.0, _solve(jac, r))
            for halving in range(NEWTON_HALVINGS + 1):
                r_next, jac_next = linearisation(x - step)
                budget -= 1
                left = _rows_finite(r_next)
                if left is True or halving == NEWTON_HALVINGS or not budget:
                    break
                left = defined & ~left
                if not left.any():
                    break
                step = np.where(left, 0.5 * step, step)
            x, r, jac = x - step, r_next, jac_next
    converged = (np.abs(r) <= limit).all(axis=-1, keepdims=True)
    return np.where(converged, x, np.nan), np.where(converged[..., None], jac, np.nan)


def _rows_finite(r: np.ndarray) -> Any:
    """Return True when every entry of ``r`` is finite, else which samples are ``(..., 1)``."""
    finite = np.isfinite(r)
    return True if finite.all() else finite.all(axis=-1, keepdims=True)


def _solve_matrices(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Return ``a^-1 b`` for ``b`` of shape ``(..., n, k)``; NaN where ``a`` is singular."""
    finite = np.isfinite(a)
    regular = bool(finite.all())
    if not regular:   # LAPACK calls a matrix of NaN singular: solve an identity there instead
        finite = finite.all(axis=(-2, -1))
        a = np.where(finite[..., None, None], a, np.eye(a.shape[-1]))
    try:
        x = np.linalg.solve(a, b)
    except np.linalg.LinAlgError:   # a singular sample: solve them one by one
        b = np.broadcast_to(b, a.shape[:-1] + b.shape[-1:])
        x = np.stack([_solve_one(m, v) for m, v in zip(
            a.reshape((-1,) + a.shape[-2:]), b.reshape((-1,) + b.shape[-2:]))]).reshape(b.shape)
    return x if regular else np.where(finite[..., None, None], x, np.nan)


def _solve(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Return ``a^-1 b`` over a batch of vectors ``b``; NaN where ``a`` is singular."""
    return _solve_matrices(a, b[..., None])[..., 0]


def _solve_one(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    try:
        return np.asarray(np.linalg.solve(a, b))
    except np.linalg.LinAlgError:
        return np.full(b.shape, np.nan)


def _overrides(cls: type, name: str) -> bool:
    """Return True when ``cls`` defines its own ``name`` (not the :class:`Mechanism` one)."""
    return getattr(cls, name) is not getattr(Mechanism, name)


def _times(matrix: np.ndarray, vector: np.ndarray) -> np.ndarray:
    """Return ``matrix @ vector`` over a batch, term by term: a batch rounds as its samples."""
    return (matrix * vector[..., None, :]).sum(axis=-1)


def inverse(a: np.ndarray) -> np.ndarray:
    """Return the inverse of square matrices ``(..., n, n)``; NaN where one is singular."""
    a = np.asarray(a, dtype=np.float64)
    return _solve_matrices(a, np.eye(a.shape[-1]))


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

    A subclass defines :meth:`num_actuators`, :meth:`num_joints` and at least one direction:
    the pair (:meth:`joint_position`, :meth:`actuator_to_joint_jacobian`) or
    :meth:`joint_position_and_jacobian` alone (when the map and its Jacobian share terms), and
    likewise (:meth:`actuator_position`, :meth:`joint_to_actuator_jacobian`) or
    :meth:`actuator_position_and_jacobian`; a direction it does not define is derived from the
    other (square maps only).  It may override :meth:`newton_start` (the first guess of a
    derived direction), :meth:`named_problems` (its own words for :meth:`workspace_problems`)
    and :meth:`joint_to_actuator_inputs` (joints its joint-to-actuator maps ignore).

    :raises TypeError: a subclass defines no direction, or half of a pair
    """

    def __init__(self) -> None:
        super().__init__()
        cls = type(self)
        if not (self._defines(True) or self._defines(False)):
            raise TypeError(f'{cls.__name__} must define joint_position or actuator_position '
                            '(with its Jacobian): a mechanism is its position map')
        for pair in (('joint_position', 'actuator_to_joint_jacobian'),
                     ('actuator_position', 'joint_to_actuator_jacobian')):
            defined = [_overrides(cls, n) for n in pair]
            if defined[0] != defined[1] and not _overrides(cls, f'{pair[0]}_and_jacobian'):
                raise TypeError(f'{cls.__name__} defines {pair[defined.index(True)]} without '
                                f'{pair[defined.index(False)]}: a direction is a position map '
                                'and its Jacobian')
        #: the neutral linearisation of each derived direction (a constant of the parameters)
        self._neutral: dict[bool, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}

    def requires_position_state(self) -> bool:
        """Return True: velocity and effort maps depend on the position."""
        return True

    # ------------------------------------------------------------------ the definition
    def joint_position(self, actuator_position: np.ndarray) -> np.ndarray:
        r"""
        Return :math:`q = f(\theta)`, ``(..., N) -> (..., M)``.

        Default: :meth:`joint_position_and_jacobian` when the mechanism defines it, else solve
        :math:`g(q) = \theta` by Newton's method (square maps).
        """
        if _overrides(type(self), 'joint_position_and_jacobian'):
            return self.joint_position_and_jacobian(actuator_position)[0]
        return self._solved(True, actuator_position)[0]

    def actuator_position(self, joint_position: np.ndarray) -> np.ndarray:
        r"""
        Return :math:`\theta = g(q)`, ``(..., M) -> (..., N)``.

        Default: :meth:`actuator_position_and_jacobian` when the mechanism defines it, else solve
        :math:`f(\theta) = q` by Newton's method (square maps).
        """
        if _overrides(type(self), 'actuator_position_and_jacobian'):
            return self.actuator_position_and_jacobian(joint_position)[0]
        return self._solved(False, joint_position)[0]

    def actuator_to_joint_jacobian(self, actuator_position: Any = None) -> FloatArray:
        r"""
        Return :math:`J = \partial q/\partial\theta` at ``actuator_position``, ``(..., M, N)``.

        Default: the one of :meth:`joint_position_and_jacobian`.
        """
        return np.asarray(self.joint_position_and_jacobian(actuator_position)[1])

    def joint_to_actuator_jacobian(self, joint_position: Any = None) -> FloatArray:
        r"""
        Return :math:`K = \partial\theta/\partial q` at ``joint_position``, ``(..., N, M)``.

        Default: the one of :meth:`actuator_position_and_jacobian`.
        """
        return np.asarray(self.actuator_position_and_jacobian(joint_position)[1])

    def joint_position_and_jacobian(self, actuator_position: Any) -> tuple[np.ndarray, Any]:
        r"""
        Return :math:`q = f(\theta)` and :math:`J` there: what one conversion needs.

        Default: :meth:`joint_position` and :meth:`actuator_to_joint_jacobian` when the mechanism
        defines them, else one Newton solve giving both (:math:`J = K^{-1}` at the solution).
        Define it instead of the two when they share terms.
        """
        if _overrides(type(self), 'joint_position'):
            return (self.joint_position(actuator_position),
                    self.actuator_to_joint_jacobian(actuator_position))
        q, k = self._solved(True, actuator_position)
        return q, inverse(k)

    def actuator_position_and_jacobian(self, joint_position: Any) -> tuple[np.ndarray, Any]:
        r"""
        Return :math:`\theta = g(q)` and :math:`K` there: what one conversion needs.

        Default: :meth:`actuator_position` and :meth:`joint_to_actuator_jacobian` when the
        mechanism defines them, else one Newton solve giving both (:math:`K = J^{-1}` at the
        solution).  Define it instead of the two when they share terms: Newton's method on this
        direction calls it once per iteration.
        """
        if _overrides(type(self), 'actuator_position'):
            return (self.actuator_position(joint_position),
                    self.joint_to_actuator_jacobian(joint_position))
        theta, j = self._solved(False, joint_position)
        return theta, inverse(j)

    def newton_start(self, to_joint: bool, source: np.ndarray) -> np.ndarray:
        r"""
        Return the first guess of a direction solved by Newton's method.

        Default: the linearisation at the neutral pose, the defined direction's zero source
        :math:`x_0` and its image :math:`y_0`: :math:`y_0 + A(x - x_0)` with :math:`A` the
        derived direction's Jacobian there (e.g. :math:`q = K(0)^{-1}(\theta - g(0))`).  Zeros
        when that Jacobian is not finite.

        :param to_joint: the guess is joint positions (else actuator positions)
        :param source: the positions being mapped
        """
        if to_joint not in self._neutral:
            self._neutral[to_joint] = self._linearisation_at_zero(to_joint)
        base, slope, origin = self._neutral[to_joint]
        return base + _times(slope, source - origin)

    def _linearisation_at_zero(
            self, to_joint: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Return (target, slope, source) of the derived direction at the neutral pose."""
        size = self.num_actuators() if to_joint else self.num_joints()
        zero = np.zeros(self.num_joints() if to_joint else self.num_actuators())
        with np.errstate(all='ignore'):
            image, jacobian = (self.actuator_position_and_jacobian(zero) if to_joint
                               else self.joint_position_and_jacobian(zero))
            slope = inverse(np.asarray(jacobian, dtype=np.float64))
        if not (np.all(np.isfinite(image)) and np.all(np.isfinite(slope))):
            return np.zeros(zero.shape), np.zeros((zero.size, size)), np.zeros(size)
        return zero, slope, np.asarray(image, dtype=np.float64)

    def _solved(self, to_joint: bool, position: Any) -> tuple[np.ndarray, np.ndarray]:
        """Return the derived direction's target and the defined direction's Jacobian there."""
        what = 'joint_position' if to_joint else 'actuator_position'
        if self.num_actuators() != self.num_joints():
            raise NotImplementedError(
                f'{type(self).__name__} must define {what}: only square maps derive it by '
                "Newton's method")
        source = (self._position(position, 'actuator', self.num_actuators()) if to_joint
                  else self._position(position, 'joint', self.num_joints()))
        defined = (self.actuator_position_and_jacobian if to_joint
                   else self.joint_position_and_jacobian)

        def linearisation(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            image, jacobian = defined(x)
            return image - source, np.asarray(jacobian, dtype=np.float64)

        start = self.newton_start(to_joint, source)
        return newton(linearisation, start, source, self._neutral[to_joint][0])

    def _defines(self, to_joint: bool) -> bool:
        """Return True when the subclass defines the direction (not derived by Newton)."""
        name = 'joint_position' if to_joint else 'actuator_position'
        return _overrides(type(self), name) or _overrides(type(self), f'{name}_and_jacobian')

    # ------------------------------------------------------------------ workspace
    def workspace_problems(self, position: Any, to_joint: bool = False) -> list[str]:
        """
        Return why the map is undefined or singular at one position, in words; [] where regular.

        The mechanism's own words first (:meth:`named_problems`: a leg at its dead point, a
        rod that cannot reach), then the general ones: no position of the other side maps to
        it (outside the workspace, where the maps give NaN), or the Jacobian there is not finite
        or its condition number exceeds :data:`SINGULAR_CONDITION`.

        :param position: one joint position ``(M,)``, or one actuator position ``(N,)`` with
            ``to_joint``
        :param to_joint: ``position`` is an actuator position
        :raises TransmissionInputError: not one position of the right size
        """
        side, other = ('actuator', 'joint') if to_joint else ('joint', 'actuator')
        x = self._position(position, side, self.num_actuators() if to_joint
                           else self.num_joints())
        if x.ndim != 1:
            raise TransmissionInputError(
                f'{type(self).__name__}: workspace_problems takes one {side} position, got shape '
                f'{x.shape}')
        with np.errstate(all='ignore'):
            image, jacobian = (self.joint_position_and_jacobian(x) if to_joint
                               else self.actuator_position_and_jacobian(x))
            jacobian = np.asarray(jacobian, dtype=np.float64)
            problems = list(self.named_problems(x, to_joint))
            shown = np.array2string(x, precision=6, separator=', ')
            if not np.all(np.isfinite(image)):
                problems.append(f'no {other} position maps to {side} position {shown}: outside '
                                'the workspace')
            elif not np.all(np.isfinite(jacobian)):
                problems.append(f'the Jacobian at {side} position {shown} is not finite: a '
                                'singular position')
            else:
                condition = float(np.linalg.cond(jacobian))
                if not condition <= SINGULAR_CONDITION:
                    problems.append(f'the Jacobian at {side} position {shown} is singular '
                                    f'(condition number {condition:.3g})')
        return problems

    def named_problems(self, position: np.ndarray, to_joint: bool) -> list[str]:
        """
        Return the mechanism's own words for what is wrong at one position (default: none).

        :param position: one joint position ``(M,)``, or an actuator position with ``to_joint``
        """
        return []

    # ------------------------------------------------------------------ derived
    def _prepare_actuator_state(self, position: FloatArray) -> ActuatorSide:
        theta = self._position(position, 'actuator', self.num_actuators())
        q, jacobian = self.joint_position_and_jacobian(theta)
        return ActuatorSide(theta, q, np.asarray(jacobian))

    def _prepare_joint_state(self, position: FloatArray) -> JointSide:
        q = self._position(position, 'joint', self.num_joints())
        theta, jacobian = self.actuator_position_and_jacobian(q)
        return JointSide(q, theta, np.asarray(jacobian))

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
        return _times(self._actuator_state(position).jacobian, velocity)

    def _actuator_to_joint_effort(self, effort: FloatArray, position: Any) -> FloatArray:
        return transposed_inverse_times(self._actuator_state(position).jacobian, effort)

    def _joint_to_actuator_position(self, position: FloatArray) -> FloatArray:
        return self.actuator_position(position)

    def _joint_to_actuator_velocity(self, velocity: FloatArray, position: Any) -> FloatArray:
        inputs = self._inputs()
        return _times(self._joint_state(position).jacobian[..., inputs], velocity[..., inputs])

    def _joint_to_actuator_effort(self, effort: FloatArray, position: Any) -> FloatArray:
        inputs = self._inputs()
        return transposed_inverse_times(self._joint_state(position).jacobian[..., inputs],
                                        effort[..., inputs])

    def _inputs(self) -> Any:
        """Return the joints the joint-to-actuator maps read as an index (consecutive: a slice)."""
        inputs = self.joint_to_actuator_inputs()
        if inputs and inputs == tuple(range(inputs[0], inputs[0] + len(inputs))):
            return slice(inputs[0], inputs[0] + len(inputs))  # a view: nothing copied
        return list(inputs)

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


__all__ = ['ActuatorSide', 'DEAD_POINT', 'JointSide', 'Mechanism', 'NEWTON_EVALUATIONS',
           'NEWTON_HALVINGS', 'NEWTON_ITERATIONS', 'NEWTON_TOLERANCE', 'SINGULAR_CONDITION',
           'inverse', 'newton', 'transposed_inverse_times']
