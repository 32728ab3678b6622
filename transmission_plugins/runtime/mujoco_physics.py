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
The rigid-body physics of ``mock_actuators``: the robot in MuJoCo, driven in actuator space.

Before every physics step of length :math:`h`:

.. math::

    \theta = \phi(q), \quad \dot\theta = K(q)\,\dot q, \quad
    u = \operatorname{clamp}(\text{PD, velocity or effort law}(\theta, \dot\theta),
                             -u_{max}, u_{max}), \quad
    \tau = K(q)^T u

where :math:`\phi` and :math:`K = \partial\theta/\partial q` are the transmissions'
joint-to-actuator position map and Jacobian at the simulated joint state :math:`q, \dot q`
(the PR2 gripper's nonlinear ones included), the law is
:class:`~transmission_plugins.runtime.actuator_control.ActuatorControl`'s (Drake's PD law in
position mode) and :math:`\tau` goes to MuJoCo as applied joint forces.  Actuator power equals
joint power, :math:`u^T\dot\theta = \tau^T\dot q`, by construction.  The rotors' inertia and
damping are in the model (:mod:`~.mujoco_model`); the published actuator state is
:math:`(\theta, \dot\theta, u)`.

Default gains (actuators without ``<drake:controller_gains>``) are critically damped at the
bandwidth :math:`\omega` for the inertia each actuator sees with the others held: the diagonal
of :math:`\Lambda = (K M_c^{-1} K^T)^{-1}`, measured at the initial state by applying a unit
effort per actuator (:math:`M_c^{-1}`: MuJoCo's response with its equality constraints, the
dead bands of backlash locked).
For a single joint of negligible link inertia :math:`\Lambda = \rho^2 I_r`, the rotor model's.

The drivetrain (doc/physics.md): the law limits the effort by the motors' envelopes and thermal
current limits and heats the windings every physics step; friction and backlash are in the
model (:mod:`~.mujoco_model`).

Series-elastic transmissions: the robot's joint is the drive (the motor's position and
velocity are its map), the link sits behind a spring joint (:mod:`~.mujoco_model`), and the
joint-side encoder reads the link, :math:`q = q_{drive} + q_{spring}`.  The encoder takes no
command and applies nothing (its published effort is 0); a measured spring table's torque,
:meth:`~.series_springs.SeriesSprings.torque` at zero velocity, is applied to the spring joint
before every step (its damping is MuJoCo's).  :meth:`MujocoPhysics.joint_state` gives the link
and the spring's torque.
"""

import math
import time
from typing import Any
from typing import NamedTuple

import numpy as np

from transmission_plugins.core.exceptions import TransmissionValueError
from transmission_plugins.robot.robot_transmissions import RobotTransmissions
from transmission_plugins.runtime.actuator_control import ActuatorControl
from transmission_plugins.runtime.actuator_control import DEFAULT_BANDWIDTH
from transmission_plugins.runtime.mujoco_model import ActuatorJacobian
from transmission_plugins.runtime.mujoco_model import blocks
from transmission_plugins.runtime.mujoco_model import build_model
from transmission_plugins.runtime.mujoco_model import folded_armature
from transmission_plugins.runtime.mujoco_model import held_on_image
from transmission_plugins.runtime.mujoco_model import import_mujoco
from transmission_plugins.runtime.mujoco_model import manifold_constraint
from transmission_plugins.runtime.mujoco_model import ModelOptions
from transmission_plugins.runtime.mujoco_model import MujocoModel
from transmission_plugins.runtime.mujoco_model import Passive

_WHERE = "physics 'mujoco'"
#: Physics steps between updates of the passive joints' inertia seen by their actuators.
PASSIVE_INERTIA_PERIOD = 10


class MujocoPhysics:
    r"""
    Simulate the robot of ``description`` in MuJoCo behind its actuators.

    The same interface as :class:`~transmission_plugins.runtime.simulator.ActuatorSimulator`
    (``names``, ``modes``, ``set_command``, ``step``, ``state``), plus the joint state, the
    applied joint efforts and the real-time factor.  Starts at rest at ``joint_position`` with
    every actuator in effort mode and a zero command.

    ``robot``, ``description``, ``options`` and ``base_dir`` are
    :func:`~.mujoco_model.build_model`'s.

    :param joint_position: initial positions of ``robot.joint_names`` (as :meth:`reset` puts
        them); default ``robot.default_joint_position()``
    :param bandwidth: :math:`\omega` > 0 for default gains
    :raises MujocoUnavailableError: mujoco is not installed
    :raises TransmissionError: bad options, or a description MuJoCo cannot simulate
    """

    def __init__(self, robot: RobotTransmissions, description: str,
                 options: ModelOptions = ModelOptions(), *, joint_position: Any = None,
                 bandwidth: float = DEFAULT_BANDWIDTH,
                 base_dir: str | None = None) -> None:
        self._mj = import_mujoco()
        q0 = self._initial(robot, joint_position)
        self.built: MujocoModel = build_model(robot, description, options, base_dir=base_dir,
                                              joint_position=q0)
        self.robot = robot
        self.model = self.built.model
        self._varying = [held for held in self.built.manifolds if held.varying]
        self.data = self._mj.MjData(self.model)
        self.physics_step = float(self.model.opt.timestep)
        self._qpos, self._dof = self.built.qpos, self.built.dof
        #: the series-elastic transmissions behind a spring joint (None: none)
        self.springs = self.built.springs
        self._tables = (np.flatnonzero(self.springs.table) if self.springs is not None
                        else np.zeros(0, dtype=int))
        self._jacobian = ActuatorJacobian(robot)
        self._models = [robot.actuator_models[n] for n in robot.actuator_names]
        self._u = np.zeros(len(self._models))
        self._tau = np.zeros(len(robot.joint_names))
        self._passive = _passive_groups(self.built.passive)
        self.reset(q0)
        diagonal = self._inertia_diagonal()[self._dof]
        self._passive = [g._replace(diagonal=diagonal[g.joints]) for g in self._passive]
        self.reset(q0)
        # an actuator that moves nothing has no inertia behind it; its gains do not matter
        inertia = np.nan_to_num(self.actuator_inertia(), nan=1.0)
        drivetrain = robot.drivetrain if robot.drivetrain.models_anything else None
        self._control = ActuatorControl(self._models, inertia, damping=options.rotor_damping,
                                        bandwidth=bandwidth, where=_WHERE,
                                        drivetrain=drivetrain,
                                        commanded=robot.commanded_actuators)
        #: physics steps MuJoCo found unstable (NaN, inf or huge values) and reset
        self.diverged = 0
        #: simulated seconds, and wall-clock seconds spent computing them
        self.sim_time = 0.0
        self.compute_time = 0.0
        self._carry = 0.0
        self._count = 0

    @staticmethod
    def _initial(robot: RobotTransmissions, joint_position: Any) -> np.ndarray:
        n = len(robot.joint_names)
        q = (robot.default_joint_position() if joint_position is None
             else np.asarray(joint_position, dtype=np.float64).reshape(-1))
        if q.shape != (n,) or not np.all(np.isfinite(q[_inputs(robot)])):
            raise TransmissionValueError('joint_position', joint_position,
                                         f'{n} finite numbers (robot.joint_names order)', _WHERE)
        return q

    # ------------------------------------------------------------------ the actuator interface
    @property
    def names(self) -> list[str]:
        """Return the actuator names, in state order."""
        return list(self.robot.actuator_names)

    @property
    def modes(self) -> list[str]:
        """Return each actuator's current mode."""
        return self._control.modes

    @property
    def control(self) -> ActuatorControl:
        """Return the actuators' control law (gains, limits, modes)."""
        return self._control

    def set_command(self, modes: Any, values: Any) -> None:
        """Set each actuator's mode and target (see :meth:`ActuatorControl.set_command`)."""
        self._control.set_command(modes, values)

    def reset(self, joint_position: Any = None) -> None:
        r"""
        Put the robot at rest at ``joint_position`` (default: the centre of each joint's range).

        Passive joints are set from their driving joint through the transmission; the joints
        of a transmission held on its image (more joints than actuators) are put on it through
        its maps, :math:`q \leftarrow f(g(q))` (the box centre of a synergy is not on it, in
        general); joints without a transmission keep their locked position; efforts are
        cleared.
        """
        m, d = self.model, self.data
        q = self._initial(self.robot, joint_position)
        theta = self.robot.joint_to_actuator_arrays({'position': q})['position']
        # the joints of a transmission held on its image start there: q = f(g(q))
        image = self.robot.actuator_to_joint_arrays({'position': theta})['position']
        for b in blocks(self.robot):
            if held_on_image(b):
                q[b.joints] = np.where(np.isfinite(image[b.joints]), image[b.joints],
                                       q[b.joints])
        self._mj.mj_resetData(m, d)
        self._set_passive(theta)
        for g in self._passive:
            q[g.joints] = m.eq_data[g.equalities, 0] + g.refs
        d.qpos[self._qpos] = np.nan_to_num(q)
        for name, value in self.built.locked.items():
            d.qpos[m.jnt_qposadr[self._mj.mj_name2id(m, self._mj.mjtObj.mjOBJ_JOINT, name)]] \
                = value
        self._u[:] = 0.0
        self._tau[:] = 0.0
        self._set_tendons(q)
        self._mj.mj_forward(m, d)

    def step(self, dt: float) -> None:
        """
        Advance the simulation by ``dt`` seconds (> 0) in whole physics steps.

        The remainder of ``dt`` that does not fill a physics step is carried to the next call,
        so the simulated time follows the sum of the ``dt`` given.  Steps MuJoCo finds unstable
        (it resets the state) are counted in :attr:`diverged`.
        """
        if not (isinstance(dt, (int, float)) and math.isfinite(dt) and dt > 0.0):
            raise TransmissionValueError('dt', dt, 'a finite number > 0', _WHERE)
        start = time.perf_counter()
        self._carry += dt
        count = int(math.floor(self._carry / self.physics_step + 1e-9))
        self._carry -= count * self.physics_step
        bad = [self._mj.mjtWarning.mjWARN_BADQACC, self._mj.mjtWarning.mjWARN_BADQVEL,
               self._mj.mjtWarning.mjWARN_BADQPOS]
        before = sum(int(self.data.warning[w].number) for w in bad)
        for _ in range(count):
            self._physics_step()
        # MuJoCo resets the state of an unstable step (and warns on stderr): count them
        self.diverged += sum(int(self.data.warning[w].number) for w in bad) - before
        self.sim_time += count * self.physics_step
        self.compute_time += time.perf_counter() - start

    def state(self) -> dict[str, np.ndarray]:
        """
        Return the actuators' ``position``, ``velocity`` and applied ``effort``.

        A series-elastic transmission's motor is its drive's, its encoder its link's (effort 0).
        """
        q, v = self.data.qpos[self._qpos], self.data.qvel[self._dof]
        out = self.robot.joint_to_actuator_arrays({'position': q, 'velocity': v})
        if self.springs is not None:
            out = self._read_links(out)
        return {'position': out['position'], 'velocity': out['velocity'],
                'effort': self._u.copy()}

    def joint_state(self) -> dict[str, np.ndarray]:
        """
        Return ``position``, ``velocity`` and applied ``effort`` of ``robot.joint_names``.

        A series-elastic joint is its link (drive and spring joint), its effort the spring's
        torque.
        """
        q, v = self._link_state()
        effort = self._tau.copy()
        if self.springs is not None:
            s = self.state()
            effort[self.springs.joints] = self.springs.torque(s['position'], s['velocity'])
        return {'position': q, 'velocity': v, 'effort': effort}

    def _link_state(self) -> tuple[np.ndarray, np.ndarray]:
        """Return the joints' positions and velocities, a series-elastic joint's its link's."""
        q, v = self.data.qpos[self._qpos].copy(), self.data.qvel[self._dof].copy()
        if self.springs is not None:
            q[self.springs.joints] += self.data.qpos[self.built.spring_qpos]
            v[self.springs.joints] += self.data.qvel[self.built.spring_dof]
        return q, v

    def _read_links(self, out: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Put the joint-side encoders' position and velocity, the links', into ``out``."""
        assert self.springs is not None
        q, v = self._link_state()
        link = self.robot.joint_to_actuator_arrays({'position': q, 'velocity': v})
        encoders = self.springs.encoders
        for field in ('position', 'velocity'):
            if field in out:
                out[field] = np.array(out[field], dtype=np.float64)
                out[field][encoders] = np.asarray(link[field])[encoders]
        return out

    def play(self) -> dict[str, float]:
        """Return each joint's position in its dead band (the link's, seen from the drive)."""
        return {name: float(self.data.qpos[adr]) for name, (adr, _) in self.built.play.items()}

    def real_time_factor(self) -> float:
        """Return simulated time over the wall-clock time spent computing it (inf before any)."""
        return self.sim_time / self.compute_time if self.compute_time > 0.0 else math.inf

    # ------------------------------------------------------------------ internals
    def _physics_step(self) -> None:
        d = self.data
        q, v = d.qpos[self._qpos], d.qvel[self._dof]
        k = self._set_tendons(q)
        theta = self.robot.joint_to_actuator_arrays({'position': q})['position']
        self._u = self._control.effort(theta, k @ v)
        self._tau = k.T @ self._u
        d.qfrc_applied[self._dof] = self._tau
        if self._tables.size:
            self._apply_tables(theta)
        self._count += 1
        self._set_passive(theta, self._count % PASSIVE_INERTIA_PERIOD == 0)
        self._mj.mj_step(self.model, d)
        self._control.advance(self._u, self.physics_step)

    def _apply_tables(self, theta: np.ndarray) -> None:
        """Apply each spring table's torque at its deflection to its spring joint."""
        springs = self.springs
        assert springs is not None
        position = self._read_links({'position': theta})['position']
        torque = springs.torque(position, np.zeros_like(position))[self._tables]
        self.data.qfrc_applied[self.built.spring_dof[self._tables]] = torque

    def _set_passive(self, theta: np.ndarray, inertia: bool = True) -> None:
        """
        Move the passive joints' references to their transmission's map of ``theta``.

        With ``inertia``, also update their inertia seen from the actuators in the rotor
        tendons (it varies slowly: every :data:`PASSIVE_INERTIA_PERIOD` steps).
        """
        model = self.model
        for g in self._passive:
            tr, theta_g = g.transmission, theta[g.actuators]
            target = tr.apply_map('position', True, theta_g, None)[:, g.local]
            model.eq_data[g.equalities, 0] = np.where(np.isfinite(target), target,
                                                      0.0) - g.refs
            if inertia:
                jac = tr.actuator_to_joint_jacobian(theta_g)[:, g.local, :]
                added = np.where(np.isfinite(jac), jac, 0.0) ** 2 * g.diagonal[:, :, None]
                model.tendon_armature[g.tendons] = g.rotor_inertia + added.sum(axis=1)

    def _set_tendons(self, q: np.ndarray) -> np.ndarray:
        """
        Return :math:`K(q)`; write its position-dependent rows into the rotor tendons.

        Also move the position-dependent constraints holding joints on their transmission's
        image (:func:`~.mujoco_model.manifold_constraint` at ``q``; kept where not finite).
        """
        k = self._jacobian(q)
        model = self.model
        for wraps, a, joints in self.built.varying_tendons:
            model.wrap_prm[wraps] = k[a, joints]
        for held in self._varying:
            rows, target = manifold_constraint(held.block.transmission, q[held.block.joints],
                                               len(held.equalities))
            if np.all(np.isfinite(rows)):
                model.wrap_prm[held.wraps] = rows
                model.eq_data[held.equalities, 0] = target - held.length0
        return k

    def _inertia_diagonal(self) -> np.ndarray:
        """Return the diagonal of the joint-space inertia matrix (no folded damping) now."""
        full = np.zeros((self.model.nv, self.model.nv))
        self._mj.mj_fullM(self.model, self.data, full)
        return np.diag(full) - folded_armature(self.model)[0]

    def actuator_inertia(self) -> np.ndarray:
        r"""
        Return the inertia each actuator sees with the others held: :math:`\Lambda_{ii}`.

        :math:`A = K M_c^{-1} K^T` is measured column by column (the actuator accelerations
        caused by a unit effort of one actuator, gravity and velocity terms subtracted), then
        :math:`\Lambda = A^{-1}`; NaN for an actuator that moves nothing.  The state is left as
        it was.
        """
        m, d = self.model, self.data
        mj = self._mj
        k = self._set_tendons(d.qpos[self._qpos].copy())
        k[~self.robot.commanded_actuators] = 0.0   # sensor channels drive nothing
        saved = d.qfrc_applied.copy()
        armature = m.dof_armature.copy(), m.tendon_armature.copy()
        folded = folded_armature(m)   # damping, not inertia
        m.dof_armature[:] -= folded[0]
        m.tendon_armature[:] -= folded[1]
        d.qfrc_applied[:] = 0.0
        locks = [eq for _, eq in self.built.play.values()]
        d.eq_active[locks] = 1   # the links behind a dead band count, as when engaged
        mj.mj_forward(m, d)
        base = d.qacc[self._dof].copy()
        n = k.shape[0]
        a = np.zeros((n, n))
        for i in range(n):
            d.qfrc_applied[self._dof] = k[i]
            mj.mj_forward(m, d)
            a[:, i] = k @ (d.qacc[self._dof] - base)
        d.qfrc_applied[:] = saved
        d.eq_active[locks] = 0
        m.dof_armature[:], m.tendon_armature[:] = armature
        mj.mj_forward(m, d)
        moves = np.abs(np.diag(a)) > 0.0
        out = np.full(n, np.nan)
        sub = a[np.ix_(moves, moves)]
        try:
            out[moves] = np.diag(np.linalg.inv(0.5 * (sub + sub.T)))
        except np.linalg.LinAlgError:
            out[moves] = 1.0 / np.diag(sub)
        return np.where(out > 0.0, out, np.nan)


class _Group(NamedTuple):
    """Passive joints of identical transmissions, stacked: one map call serves them all."""

    transmission: Any
    local: np.ndarray
    #: (G, N) actuator indices, (G, P) robot joints, equalities and references
    actuators: np.ndarray
    joints: np.ndarray
    equalities: np.ndarray
    refs: np.ndarray
    #: (G, N) rotor tendons and rotor inertias; (G, P) passive joints' inertia diagonal
    tendons: np.ndarray
    rotor_inertia: np.ndarray
    diagonal: np.ndarray


def _passive_groups(passive: list[Passive]) -> list[_Group]:
    """Return the passive joints of a model grouped by transmission map (diagonal 0)."""
    groups: dict[Any, list[Passive]] = {}
    for p in passive:
        groups.setdefault((p.block.transmission.map_key(), tuple(p.local)), []).append(p)
    return [_Group(
        g[0].block.transmission, g[0].local, np.array([p.block.actuators for p in g]),
        np.array([p.joints for p in g]), np.array([p.equalities for p in g]),
        np.array([p.refs for p in g]), np.array([p.tendons for p in g]),
        np.array([p.rotor_inertia for p in g]), np.zeros((len(g), g[0].local.size)))
        for g in groups.values()]


def _inputs(robot: RobotTransmissions) -> np.ndarray:
    """Return the robot joint indices the joint-to-actuator maps read (not passive joints)."""
    out = []
    for b in blocks(robot):
        out += [int(b.joints[i]) for i in b.transmission.joint_to_actuator_inputs()]
    return np.array(sorted(out), dtype=int)
