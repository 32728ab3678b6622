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
A deterministic recording of a robot of known drivetrain, from the mock's MuJoCo physics.

:func:`record` runs :class:`~transmission_plugins.runtime.mujoco_physics.MujocoPhysics` (the
simulator of ``mock_actuators`` with ``physics: mujoco``) on ``fixtures/identify_robot.urdf``
(:data:`TRUE` holds its parameters): every actuator follows a chirp (one per joint, ramped in
over half a second) that reverses and varies its speed, and the recording samples, at
:data:`RATE`, the actuator states (``MujocoPhysics.state``), the joint encoders (the links,
through the backlash's dead band: ``MujocoPhysics.play``) and, on request, joint torque sensors,
motor currents instead of efforts, and delayed effort commands (:func:`record`).  One second
takes about 0.1 s.
"""

from pathlib import Path
from typing import Any
from typing import NamedTuple

import mujoco
import numpy as np

from transmission_plugins import load_robot_transmissions
from transmission_plugins.robot.robot_transmissions import RobotTransmissions
from transmission_plugins.runtime.mujoco_model import ModelOptions
from transmission_plugins.runtime.mujoco_physics import MujocoPhysics

URDF = Path(__file__).parent / 'fixtures' / 'identify_robot.urdf'
#: samples per second
RATE = 1000.0
#: the drivetrain of URDF, joint side, in joint units (friction lumped: joint side plus the
#: motor side seen at the joint, n Fc_m and n^2 b_m; the spring's: its motor side)
TRUE: dict[str, dict[str, Any]] = {
    'geared_trans': {'coulomb_friction': 0.6 + 20 * 0.01, 'viscous_friction': 0.3 + 400 * 2e-4,
                     'backlash': 0.02},
    'sea_trans': {'stiffness': 200.0, 'damping': 1.5,
                  'coulomb_friction': 50 * 0.003, 'viscous_friction': 2500 * 1e-5},
    # per end: Coulomb friction on its side, viscous per joint lumped, the diagonal of
    # diag(b_j) + K^T diag(b_m) K with K = [[10, 10], [10, -10]] (theta = K q)
    'diff_trans': {'diff_joint_1': {'coulomb_friction': 0.3,
                                    'viscous_friction': 0.1 + 100 * (0.0005 + 0.0003)},
                   'diff_joint_2': {'coulomb_friction': 0.0,
                                    'viscous_friction': 100 * (0.0005 + 0.0003)},
                   'diff_motor_1': {'coulomb_friction': 0.02},
                   'diff_motor_2': {'coulomb_friction': 0.03}},
}
#: the friction of each side, where a joint torque sensor splits it (record(torque_sensor=True)):
#: the joint side in joint units, the motor side in the actuator's (the URDF's <friction>)
SPLIT: dict[str, dict[str, Any]] = {
    'geared_trans': {'joint_coulomb_friction': 0.6, 'joint_viscous_friction': 0.3,
                     'motor_coulomb_friction': 0.01, 'motor_viscous_friction': 2e-4},
    'diff_trans': {'diff_joint_1': {'joint_coulomb_friction': 0.3,
                                    'joint_viscous_friction': 0.1},
                   'diff_joint_2': {'joint_coulomb_friction': 0.0,
                                    'joint_viscous_friction': 0.0},
                   'diff_motor_1': {'motor_coulomb_friction': 0.02,
                                    'motor_viscous_friction': 5e-4},
                   'diff_motor_2': {'motor_coulomb_friction': 0.03,
                                    'motor_viscous_friction': 3e-4}},
}
#: the PD gains of the effort commands of record(delay=...): a tenth of the fixture's, so that
#: the loop stays stable with a delay of a few periods (the series-elastic motor's rotor is light)
DELAYED_GAINS = (0.05, 0.0006)
#: the motors' torque constants (N m/A; gear ratio 1)
TORQUE_CONSTANT = {'geared_motor': 0.05, 'sea_motor': 0.08}


class Recording(NamedTuple):
    """Sampled states of :func:`record`."""

    robot: RobotTransmissions
    time: np.ndarray
    #: position, velocity, effort of robot.actuator_names, (N, actuators)
    actuator: dict[str, np.ndarray]
    #: position, velocity of robot.joint_names (the links); effort NaN (the torque sensor's)
    joint: dict[str, np.ndarray]
    #: the effort commands sent at the start of each period, (N, actuators) (NaN: none)
    commands: np.ndarray | None = None


def _gear_torque(mujoco, model, data, joint, dof):
    """
    Return the torque the gear's flanks put on the link: the dead band's limit force.

    Only the limit rows of the backlash hinge: the link's own friction (a tendon over both
    hinges) is a constraint force too, and a torque sensor at the gear's output does not read it.
    """
    rows = [r for r in range(data.nefc)
            if data.efc_type[r] == mujoco.mjtConstraint.mjCNSTR_LIMIT_JOINT
            and data.efc_id[r] == joint]
    if not rows:
        return 0.0
    if mujoco.mj_isSparse(model):
        jac = np.zeros((data.nefc, model.nv))
        mujoco.mju_sparse2dense(jac, data.efc_J, data.efc_J_rownnz, data.efc_J_rowadr,
                                data.efc_J_colind)
    else:
        jac = data.efc_J.reshape(data.nefc, model.nv)
    return float(sum(jac[r, dof] * data.efc_force[r] for r in rows))


def _transmitted_torque(mujoco, model, data, dofs):
    """
    Return the torque a rigid transmission puts on its links at ``dofs``: a joint torque sensor.

    The applied joint forces :math:`K^T u` less what the rotors keep of them: each rotor
    tendon's inertia (its armature times its acceleration), damping and friction (the
    friction-loss rows of the tendon), mapped by the tendon's coefficients.  The rest moves the
    links against the joint-side friction, which the sensor does not read.  The values are of
    the step just taken (MuJoCo's forces and accelerations of its start, Euler's integrator,
    the damping folded into the armature: :func:`~.mujoco_model.folded_armature`).
    """
    out = np.array(data.qfrc_applied[dofs], dtype=np.float64)
    for t in range(model.ntendon):
        name = mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_TENDON, t) or ''
        if not name.endswith('__rotor'):
            continue
        adr, num = model.tendon_adr[t], model.tendon_num[t]
        moment = np.zeros(model.nv)
        for w in range(adr, adr + num):
            moment[model.jnt_dofadr[model.wrap_objid[w]]] += model.wrap_prm[w]
        if not np.any(moment[dofs]):
            continue
        friction = sum(data.efc_force[r] for r in range(data.nefc)
                       if data.efc_type[r] == mujoco.mjtConstraint.mjCNSTR_FRICTION_TENDON
                       and data.efc_id[r] == t)
        force = (friction - model.tendon_damping[t] * data.ten_velocity[t]
                 - model.tendon_armature[t] * float(moment @ data.qacc))
        out += moment[dofs] * force
    return out


def record(duration: float = 10.0, amplitude: float = 0.8, torque_sensor: bool = False,
           current: bool = False, delay: int = 0, triangle: bool = False) -> Recording:
    """
    Simulate ``duration`` s of a chirp of ``amplitude`` (rad) on every joint; sample it.

    :param torque_sensor: give the joint efforts a torque sensor at the gear's output reads:
        the series-elastic joint's spring torque, the geared joint's torque on its link (the
        force of the dead band's ends, ``qfrc_constraint`` of MuJoCo's backlash joint), the
        differential's torque on each of its links (:func:`_transmitted_torque`)
    :param current: give the actuator efforts as motor currents (:data:`TORQUE_CONSTANT`)
    :param triangle: a triangle wave of period 2 s instead of the chirp (one speed, reversing)
    :param delay: > 0: the motors take effort commands, from a PD law (:data:`DELAYED_GAINS`)
        at each sample, that reach them ``delay`` samples later; the commands are recorded as
        sent (``Recording.commands``)
    """
    robot = load_robot_transmissions(str(URDF))
    sim = MujocoPhysics(robot, URDF.read_text(), ModelOptions(physics_step=1e-3))
    dt = 1.0 / RATE
    count = int(round(duration * RATE))
    rows: dict[str, list[np.ndarray]] = {k: [] for k in ('ap', 'av', 'ae', 'jp', 'jv', 'je')}
    geared = robot.joint_index['geared_joint']
    model = sim.model
    play_joint = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, 'geared_joint__backlash')
    play = model.jnt_dofadr[play_joint]
    sea = robot.joint_index['sea_joint']
    diff = [robot.joint_index[n] for n in ('diff_joint_1', 'diff_joint_2')]
    diff_dofs = sim.built.dof[diff]
    kt = np.array([TORQUE_CONSTANT.get(n, np.inf) for n in robot.actuator_names])
    commanded = np.array(robot.commanded_actuators, dtype=bool)
    # every joint its own chirp (a differential's motors then move independently)
    rates = 0.3 + 0.11 * np.arange(len(robot.joint_names))
    phases = 0.7 * np.arange(len(robot.joint_names))
    queue = [np.where(commanded, 0.0, np.nan)] * delay
    sent = []
    for k in range(count):
        t = k * dt
        if triangle:
            q = amplitude * (2.0 / np.pi) * np.arcsin(np.sin(np.pi * t + phases))
        else:
            q = amplitude * min(t / 0.5, 1.0) * np.sin(2 * np.pi * (rates * t + 0.05 * t * t)
                                                       + phases)
        theta = robot.joint_to_actuator_arrays({'position': q})['position']
        if delay:
            now = sim.state()
            kp, kd = DELAYED_GAINS
            u = kp * (theta - now['position']) - kd * now['velocity']
            queue.append(np.where(commanded, u, np.nan))
            sent.append(queue[-1])
            sim.set_command('effort', queue.pop(0))
        else:
            sim.set_command('position', theta)
        sim.step(dt)
        s, j = sim.state(), sim.joint_state()
        link = np.array(j['position'], dtype=np.float64)
        link[geared] += sim.play()['geared_joint']
        speed = np.array(j['velocity'], dtype=np.float64)
        speed[geared] += sim.data.qvel[play]
        effort = np.full(len(robot.joint_names), np.nan)
        if torque_sensor:
            effort[sea] = j['effort'][sea]
            effort[geared] = _gear_torque(mujoco, model, sim.data, play_joint, play)
            effort[diff] = _transmitted_torque(mujoco, model, sim.data, diff_dofs)
        applied = np.array(s['effort'], dtype=np.float64)
        if current:
            applied = applied / kt
        for key, value in (('ap', s['position']), ('av', s['velocity']), ('ae', applied),
                           ('jp', link), ('jv', speed), ('je', effort)):
            rows[key].append(np.array(value, dtype=np.float64))
    assert sim.diverged == 0
    stack = {k: np.vstack(v) for k, v in rows.items()}
    # a command sent at the start of a period is stamped with its start
    return Recording(robot, np.arange(1, count + 1) * dt,
                     {'position': stack['ap'], 'velocity': stack['av'], 'effort': stack['ae']},
                     {'position': stack['jp'], 'velocity': stack['jv'], 'effort': stack['je']},
                     np.vstack(sent) if sent else None)
