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
The drivetrain of each transmission from recorded states (``transmission_plugins identify``).

doc/identification.md explains the method; in short, per transmission, on the joint side in
the joint's units:

- **Friction** (single-joint, single-actuator transmissions): least squares of the actuators'
  effort mapped to the joint, :math:`\tau = K^T u`, against
  :math:`[\operatorname{sign}(v), v, a, 1]` over the samples moving faster than
  ``speed_threshold`` (:math:`v` the joint velocity through the map of the actuator velocity,
  :math:`a` its time derivative; the inertia and a constant load are unknowns too).  The
  Coulomb and viscous values are the *lumped* ones, joint-side plus motor-side friction seen at
  the joint (:math:`F_{c,j} + n F_{c,m}`, :math:`b_j + n^2 b_m` for a reduction :math:`n`).
- **Friction of a nonlinear map** (one joint, one actuator): with the ratio
  :math:`r = d\theta/dq` at each sample, :math:`\tau = r u` against
  :math:`[\operatorname{sign}(v), v, r \operatorname{sign}(\dot\theta), r\dot\theta, r^2 a,
  r \dot r v, a_{joint}, 1]`: the joint side and the motor side (in its own units) apart, told
  so by the ratio varying over the motion (at least :data:`RATIO_SPREAD`).
- **Backlash**: :math:`e = q(\theta) - q_{enc}`, the joint position through the map of the
  actuator positions minus the joint encoder's; the width is the median of :math:`e` while
  moving forwards minus its median while moving backwards (the hysteresis).
- **Series-elastic spring** (``SeriesElasticTransmission``): the motor's effort through the
  gear, :math:`n u`, against :math:`[\delta, \dot\delta, a_m, \operatorname{sign}(v_m), v_m]`
  (:math:`\delta = \theta_m/n - \theta_e`, :math:`\dot\delta` from the measured
  velocities, drive velocity and acceleration :math:`v_m, a_m` in
  joint units) over every sample; or, where the joint states carry a torque (a joint torque
  sensor), that torque against :math:`[\delta, \dot\delta]`.  The friction terms of the first
  are the motor-side friction, in joint units.
- **Friction split at a joint torque sensor** (square, linear transmissions: one joint and one
  actuator, a differential), where the joint states carry a torque :math:`\tau_s` at the gear's
  output: the joint side is what the sensor sees against the link's motion,
  :math:`\tau_s = M \ddot q + F_j \operatorname{sign}(\dot q) + b_j \dot q + c` (the link's
  velocity from its encoder), the motor side the actuator effort less the sensor's torque
  through the gear, :math:`u - K^{-T}\tau_s = J \ddot\theta + F_m \operatorname{sign}(\dot\theta)
  + b_m \dot\theta + c`, in the actuator's units (:func:`split_friction`).

Every value has its standard uncertainty :math:`\sigma = \sqrt{s^2 (X^T X)^{-1}_{kk}}`,
:math:`s^2` the residual variance.  What the motion does not excite is named in words under
``not_excited`` instead of a value.
"""

import math
from typing import Any
from typing import Mapping
from typing import NamedTuple
from typing import Sequence

import numpy as np

from transmission_plugins.robot.robot_transmissions import RobotTransmissions

#: joint velocity (rad/s or m/s) above which a sample counts as moving (default)
SPEED_THRESHOLD = 0.05
#: samples needed beyond the unknowns of a fit
EXTRA_SAMPLES = 10
#: a value whose uncertainty exceeds this fraction of itself is not excited
RELATIVE_SIGMA = 0.5
SERIES_ELASTIC = 'SeriesElasticTransmission'
FIELDS = ('position', 'velocity', 'effort')
#: the longest delay looked for (s)
MAX_DELAY = 0.5
UNKNOWN_KT = ('efforts are currents and no torque constant is known (no joint torque measured, '
              'no <motor torque_constant> in the URDF)')


class Series(NamedTuple):
    """The samples one fit used: their times, what was measured and what the fit models."""

    time: np.ndarray
    measured: np.ndarray
    model: np.ndarray
    #: what ``measured`` is, in words with its unit (``joint effort (N m or N)``...)
    quantity: str


class DrivetrainFit(NamedTuple):
    """What one transmission's recording identifies."""

    name: str
    type: str  # noqa: A003
    #: key (doc) -> value, and its standard uncertainty
    values: dict[str, float]
    sigmas: dict[str, float]
    #: key -> why the motion does not identify it (words)
    not_excited: dict[str, str]
    #: residual RMS of each fit (``friction``, ``spring``, ``backlash``), joint units
    residual_rms: dict[str, float]
    notes: list[str]
    samples: int
    #: a coupled transmission's friction per joint (joint side, joint units) and per actuator
    #: (motor side, actuator units): name -> key -> value (``<key>_sigma`` its sigma); empty
    #: for the others (never changed: a shared default)
    joints: Mapping[str, Mapping[str, float]] = {}
    actuators: Mapping[str, Mapping[str, float]] = {}
    #: each fit's samples, named as in ``residual_rms`` (the delay's aside; a coupled
    #: transmission's per joint or actuator, ``friction diff_joint_1``): what ``identify
    #: --plot`` draws
    series: Mapping[str, Series] = {}


def identify_drivetrain(robot: RobotTransmissions, time: Any,
                        actuator: Mapping[str, Any], joint: Mapping[str, Any],
                        segment: Any = None, speed_threshold: float = SPEED_THRESHOLD,
                        current: bool = False,
                        commands: Mapping[str, Any] | None = None) -> list[DrivetrainFit]:
    """
    Identify every transmission's drivetrain from states sampled at ``time`` (module doc).

    :param time: sample times (s), increasing within a segment, ``(N,)``
    :param actuator: ``position``, ``velocity`` and ``effort`` of ``robot.actuator_names``,
        each ``(N, actuators)`` (NaN: not measured)
    :param joint: ``position`` and optionally ``velocity`` and ``effort`` (a torque sensor) of
        ``robot.joint_names``, each ``(N, joints)`` (NaN: not measured)
    :param segment: ``(N,)`` labels of contiguous stretches (windows of a long bag): no time
        derivative is taken across two of them; default one stretch
    :param current: the actuator efforts are motor currents (A): the torque constant is
        identified against a joint torque measurement, else the URDF's is used (module doc)
    :param commands: ``position``, ``velocity`` and/or ``effort`` commands of
        ``robot.actuator_names`` at the same times, each ``(N, actuators)`` (NaN: none): the
        delay from command to state is identified (:func:`command_delay`); None: not
    """
    t = np.asarray(time, dtype=np.float64).reshape(-1)
    n = len(t)
    seg = np.zeros(n, dtype=np.intp) if segment is None else np.asarray(segment).reshape(-1)
    act = {k: _columns(actuator.get(k), n, len(robot.actuator_names))
           for k in ('position', 'velocity', 'effort')}
    jnt = {k: _columns(joint.get(k), n, len(robot.joint_names))
           for k in ('position', 'velocity', 'effort')}
    sent = None if commands is None else {
        k: _columns(commands.get(k), n, len(robot.actuator_names)) for k in FIELDS}
    drive = robot.drivetrain
    fits = []
    for rt in robot.transmissions:
        a = [robot.actuator_index[x] for x in rt.actuator_names]
        j = [robot.joint_index[x] for x in rt.joint_names]
        ends = {k: v[:, a] for k, v in act.items()}
        kt = math.nan
        if current:
            # the effort of one ampere at a torque constant of 1: the gear ratio (drivetrain.md)
            ends['effort'] = ends['effort'] * drive.gear_ratio[a]
            kt = float(drive.effort_per_current[a[0]] / drive.gear_ratio[a[0]])
        fit = _identify_one(rt, t, seg, ends, {k: v[:, j] for k, v in jnt.items()},
                            speed_threshold, kt if current else None)
        if sent is not None:
            _delay(t, seg, {k: v[:, a] for k, v in sent.items()},
                   {k: v[:, a] for k, v in act.items()}, fit)
        fits.append(fit)
    return fits


def _columns(values: Any, n: int, width: int) -> np.ndarray:
    if values is None:
        return np.full((n, width), np.nan)
    out = np.asarray(values, dtype=np.float64)
    if out.shape != (n, width):
        raise ValueError(f'expected states of shape ({n}, {width}), got {out.shape}')
    return out


def derivative(t: np.ndarray, x: np.ndarray, seg: np.ndarray) -> np.ndarray:
    """
    Return ``dx/dt`` by backward differences within each segment (NaN where undefined).

    Backward: a driver's effort at a sample is the one it applied over the period that ended
    there, which changed the velocity from the previous sample's to this one's.
    """
    out = np.full(len(t), np.nan)
    with np.errstate(divide='ignore', invalid='ignore'):
        rate = np.diff(x) / np.diff(t)
    same = (np.diff(seg) == 0) & (np.diff(t) > 0)
    out[1:] = np.where(same, rate, np.nan)
    return out


def previous(x: np.ndarray, seg: np.ndarray) -> np.ndarray:
    """Return the previous sample's ``x`` within each segment (NaN at a segment's start)."""
    out = np.full(len(x), np.nan)
    out[1:] = np.where(np.diff(seg) == 0, x[:-1], np.nan)
    return out


class LeastSquares(NamedTuple):
    """A least-squares fit: the parameters, their standard uncertainties, the residual RMS."""

    value: np.ndarray
    sigma: np.ndarray
    rms: float
    #: each parameter's natural size, RMS(y) / RMS(its column): what an uncertainty is
    #: compared with when the value itself is near zero (a joint without friction)
    size: np.ndarray
    #: the model's value of each sample, ``x @ value``
    fitted: np.ndarray
    #: the parameters' covariance (``sigma`` its diagonal's square root)
    covariance: np.ndarray | None = None


def least_squares(x: np.ndarray, y: np.ndarray) -> LeastSquares | None:
    """Fit ``y ~ x @ p``; None when there are too few samples or the columns are dependent."""
    rows, cols = x.shape
    if rows < cols + EXTRA_SAMPLES:
        return None
    scale = np.linalg.norm(x, axis=0)
    if np.any(scale == 0.0):
        return None
    xs = x / scale
    if np.linalg.cond(xs) > 1e8:
        return None
    p, *_ = np.linalg.lstsq(xs, y, rcond=None)
    r = y - xs @ p
    s2 = float(r @ r) / (rows - cols)
    cov = s2 * np.linalg.inv(xs.T @ xs)
    return LeastSquares(p / scale, np.sqrt(np.diag(cov)) / scale,
                        float(np.sqrt(np.mean(r * r))), np.linalg.norm(y) / scale, xs @ p,
                        cov / np.outer(scale, scale))


def _identify_one(rt: Any, t: np.ndarray, seg: np.ndarray, act: dict[str, np.ndarray],
                  jnt: dict[str, np.ndarray], threshold: float,
                  kt_urdf: float | None) -> DrivetrainFit:
    """
    Identify one transmission.

    :param kt_urdf: None: the efforts are efforts; else they are currents times the gear ratio,
        and this is the URDF's torque constant of the first actuator (NaN: none)
    """
    tr = rt.transmission
    kind = type(tr).__name__
    values: dict[str, float] = {}
    sigmas: dict[str, float] = {}
    why: dict[str, str] = {}
    rms: dict[str, float] = {}
    notes: list[str] = []
    series: dict[str, Series] = {}
    if kind == SERIES_ELASTIC:
        n = float(tr.get_actuator_reduction()[0])
        v = act['velocity'][:, 0] / n
        if kt_urdf is not None:
            kt = _torque_constant(n * act['effort'][:, 0], jnt['effort'][:, 0], v,
                                  derivative(t, v, seg), threshold, kt_urdf, values, sigmas,
                                  why, rms, notes, t, series)
            act = dict(act, effort=act['effort'] * kt)
            if not math.isfinite(kt):
                why['stiffness'] = why['damping'] = UNKNOWN_KT
                return DrivetrainFit(rt.name, kind, values, sigmas, why, rms, notes, len(t),
                                     series=series)
        _spring(tr, t, seg, act, jnt, threshold, values, sigmas, why, rms, notes, series)
        return DrivetrainFit(rt.name, kind, values, sigmas, why, rms, notes, len(t),
                             series=series)
    if tr.num_joints() != 1 or tr.num_actuators() != 1:
        ends: dict[str, dict[str, float]] = {}
        if tr.num_joints() == tr.num_actuators() and tr.is_linear() and kt_urdf is None:
            _coupled(rt, t, seg, act, jnt, threshold, ends, why, rms, notes, series)
            if _measured(jnt['effort']):
                split = split_friction(tr, t, seg, act, jnt, threshold, rms, notes, series,
                                       (rt.joint_names, rt.actuator_names))
                labels = [(f'j{m}', name) for m, name in enumerate(rt.joint_names)]
                labels += [(f'a{m}', name) for m, name in enumerate(rt.actuator_names)]
                for label, name in labels:
                    ends.setdefault(name, {}).update(
                        {**split.values[label],
                         **{f'{k}_sigma': v for k, v in split.sigmas[label].items()}})
                    why.update({f'{name}.{k}': text
                                for k, text in split.not_excited[label].items()})
        else:
            notes.append(f'{kind} ({tr.num_actuators()} actuators, {tr.num_joints()} joints): '
                         'this version identifies the friction of coupled transmissions that '
                         'are linear and square, with efforts (not currents)')
        return DrivetrainFit(rt.name, kind, values, sigmas, why, rms, notes, len(t),
                             {n: ends[n] for n in rt.joint_names if n in ends},
                             {n: ends[n] for n in rt.actuator_names if n in ends}, series)
    mapped = tr.actuator_to_joint({'position': act['position'], 'velocity': act['velocity'],
                                   'effort': act['effort']})
    q = np.asarray(mapped['position'])[:, 0]
    v = np.asarray(mapped['velocity'])[:, 0]
    tau = np.asarray(mapped['effort'])[:, 0]
    a = derivative(t, v, seg)
    scale = 1.0
    if kt_urdf is not None:
        scale = _torque_constant(tau, jnt['effort'][:, 0], v, a, threshold, kt_urdf, values,
                                 sigmas, why, rms, notes, t, series)
        tau = tau * scale
        if not np.isfinite(tau).any():
            why['coulomb_friction'] = why['viscous_friction'] = UNKNOWN_KT
    # the joint's own acceleration where its encoder gives a velocity: across a dead band the
    # link's inertia is not the drive's (it moves on its own until the play is taken up)
    link = derivative(t, jnt['velocity'][:, 0], seg)
    if np.isfinite(link).sum() < 0.9 * np.isfinite(a).sum():
        link = np.zeros(len(t))
    ok = np.isfinite(tau) & np.isfinite(v) & np.isfinite(a) & np.isfinite(link)
    _backlash(t, q, v, jnt['position'][:, 0], threshold, values, sigmas, why, rms, series)
    speed = v
    if 'backlash' in values and values['backlash'] > 3.0 * sigmas['backlash']:
        # a dead band (not the rounding of a joint without one): the joint-side friction
        # brakes the link; it reaches the motor only while the gear pushes the link, on the
        # end of the play ahead of the motion; fitted against the link's own velocity there
        e = q - jnt['position'][:, 0]
        low, high = float(np.nanpercentile(e, 1)), float(np.nanpercentile(e, 99))
        near = 0.1 * (high - low)
        speed = jnt['velocity'][:, 0]
        ok &= np.isfinite(speed) & (((v > 0.0) & (e >= high - near))
                                    | ((v < 0.0) & (e <= low + near)))
    motor = None
    if not tr.is_linear():
        # the ratio d theta / d q at each sample: the motor side's friction seen at the joint
        # varies with it, the joint side's does not (module doc)
        ratio = np.asarray(tr.joint_to_actuator_jacobian(
            np.where(np.isfinite(q), q, 0.0)[:, None]), dtype=np.float64).reshape(len(t))
        w = act['velocity'][:, 0]
        dr = derivative(t, ratio, seg)
        ok &= np.isfinite(ratio) & np.isfinite(w) & np.isfinite(dr)
        motor = (ratio[ok], w[ok], a[ok], dr[ok])
        drive = np.zeros(int(ok.sum()))   # the drive's inertia is the motor column's
    else:
        drive = a[ok]
    if 'coulomb_friction' not in why:
        _friction(t[ok], speed[ok], np.column_stack([drive, link[ok]]), tau[ok], threshold,
                  values, sigmas, why, rms, series, motor)
    if motor is not None and any(k.startswith(('joint_', 'motor_')) for k in values):
        notes.append('a nonlinear map: joint side and motor side told apart by the ratio '
                     'd theta/d q varying over the motion (the motor side in its own units); '
                     'coulomb_friction and viscous_friction are both sides at the joint at the '
                     'median ratio of the moving samples, '
                     f'{float(np.median(np.abs(motor[0][np.abs(speed[ok]) > threshold]))):.4g}')
    elif 'coulomb_friction' in values or 'viscous_friction' in values:
        notes.append('friction fitted on the motor effort: the values are the lumped ones '
                     '(joint side plus motor side seen at the joint)')
    if tr.is_linear() and _measured(jnt['effort']) and math.isfinite(scale):
        # the actuator effort in its units (currents at the torque constant found)
        split = split_friction(tr, t, seg, dict(act, effort=act['effort'] * scale), jnt,
                               threshold, rms, notes, series, (rt.joint_names, rt.actuator_names))
        for end in ('j0', 'a0'):
            values.update(split.values[end])
            sigmas.update(split.sigmas[end])
            why.update(split.not_excited[end])
    return DrivetrainFit(rt.name, kind, values, sigmas, why, rms, notes, len(t), series=series)


def _record(series: dict[str, Series], name: str, labels: Sequence[str],
            times: list[np.ndarray], measured: list[np.ndarray], fit: LeastSquares,
            quantity: str) -> None:
    """Put the samples of a fit stacked over several ends into ``series``, one per end."""
    start = 0
    for label, time, y in zip(labels, times, measured):
        key = name if len(labels) == 1 else f'{name} {label}'
        series[key] = Series(time, y, fit.fitted[start:start + len(y)], quantity)
        start += len(y)


def _measured(effort: np.ndarray) -> bool:
    """Return whether every joint has a measured torque on enough samples."""
    return bool((np.isfinite(effort).sum(axis=0) > 2 * EXTRA_SAMPLES).all())


#: the keys of the split friction: the joint side's, in joint units, and the motor side's, in
#: the actuator's units (doc/identification.md)
JOINT_SIDE = ('joint_coulomb_friction', 'joint_viscous_friction')
MOTOR_SIDE = ('motor_coulomb_friction', 'motor_viscous_friction')


class SplitFriction(NamedTuple):
    """The friction of :func:`split_friction`, per end: ``'j0'``... (joints), ``'a0'``..."""

    values: dict[str, dict[str, float]]
    sigmas: dict[str, dict[str, float]]
    #: key -> why the motion does not identify it
    not_excited: dict[str, dict[str, str]]


def split_friction(tr: Any, t: np.ndarray, seg: np.ndarray, act: dict[str, np.ndarray],
                   jnt: dict[str, np.ndarray], threshold: float, rms: dict[str, float],
                   notes: list[str], series: dict[str, Series],
                   names: tuple[Sequence[str], Sequence[str]]) -> SplitFriction:
    r"""
    Split a square, linear transmission's friction into its joint side and motor side.

    The joint torque sensor :math:`\tau_s` (``jnt['effort']``) sits between the gear and the
    links.  Joint side, each joint :math:`j` over its moving samples:
    :math:`\tau_{s,j} = \sum_k M_{jk} \ddot q_k + F_j \operatorname{sign}(\dot q_j) +
    b_j \dot q_j + c_j`, :math:`\dot q` the links' velocities (the joint encoders'; else the
    actuators' through the map), :math:`M` symmetric.  Motor side, each actuator :math:`i`,
    in its units: :math:`u_i - (K^{-T}\tau_s)_i = \sum_k J_{ik} \ddot\theta_k +
    F_i \operatorname{sign}(\dot\theta_i) + b_i \dot\theta_i + c_i`, :math:`K^{-T}\tau_s` the
    sensor's torque through the map (``joint_to_actuator``), over the samples where the actuator
    turns faster than the speed threshold seen through the gear.  One least squares per side.

    :param series: gets each equation's samples, ``joint_friction`` and ``motor_friction``
        (one joint and one actuator), else per end, ``joint_friction <joint name>``...
    :param names: the joints' and the actuators' names
    :returns: per joint ``'j<index>'``, ``joint_coulomb_friction`` and
        ``joint_viscous_friction``; per actuator ``'a<index>'``, the ``motor_`` keys
    """
    nj = tr.num_joints()
    k = np.asarray(tr.joint_to_actuator({'velocity': np.eye(nj)})['velocity']).T   # K[i, j]
    mapped = np.asarray(tr.actuator_to_joint({'velocity': act['velocity']})['velocity'])
    link = np.where(np.isfinite(jnt['velocity']), jnt['velocity'], mapped)
    sensor = jnt['effort']
    through = np.asarray(tr.joint_to_actuator({'effort': sensor})['effort'])
    sides = (
        ('j', JOINT_SIDE, link, sensor, np.full(nj, threshold), 'joint_friction', names[0],
         'joint torque measured (joint units)'),
        ('a', MOTOR_SIDE, act['velocity'], act['effort'] - through,
         threshold * np.abs(k).max(axis=1), 'motor_friction', names[1],
         'effort less the torque measured (actuator units)'))
    out = SplitFriction({}, {}, {})
    for prefix, keys, v, y, fast, residual, labels, quantity in sides:
        n = v.shape[1]
        a = np.column_stack([derivative(t, v[:, m], seg) for m in range(n)])
        pairs = [(p, q) for p in range(n) for q in range(p, n)]
        unknowns = len(pairs) + 3 * n
        rows = []
        times: list[np.ndarray] = []
        for m in range(n):
            ok = (np.isfinite(y[:, m]) & np.isfinite(a).all(axis=1) & np.isfinite(v).all(axis=1)
                  & (np.abs(v[:, m]) > fast[m]))
            x = np.zeros((int(ok.sum()), unknowns))
            for col, (p, q) in enumerate(pairs):
                if m in (p, q):
                    x[:, col] = a[ok, q if p == m else p]
            x[:, len(pairs) + m] = np.sign(v[ok, m])
            x[:, len(pairs) + n + m] = v[ok, m]
            x[:, len(pairs) + 2 * n + m] = 1.0
            rows.append((x, y[ok, m]))
            times.append(t[ok])
        count = min(len(r[1]) for r in rows)
        fit = least_squares(np.vstack([x for x, _ in rows]),
                            np.concatenate([r for _, r in rows])) \
            if count >= unknowns + EXTRA_SAMPLES else None
        for m in range(n):
            end = f'{prefix}{m}'
            found: dict[str, float] = {}
            sigmas: dict[str, float] = {}
            local: dict[str, str] = {}
            if fit is None:
                text = (f'never moved faster than {threshold:g} (joint units/s) long enough'
                        if count < unknowns + EXTRA_SAMPLES else
                        'the motion does not separate it from inertia and load')
                local = {key: text + ': the split of the friction not identifiable'
                         for key in keys}
            else:
                _put(keys[0], fit, len(pairs) + m, found, sigmas, local)
                _put(keys[1], fit, len(pairs) + n + m, found, sigmas, local)
            out.values[end], out.sigmas[end], out.not_excited[end] = found, sigmas, local
        if fit is not None:
            rms[residual] = fit.rms
            _record(series, residual, labels, times, [r for _, r in rows], fit, quantity)
    notes.append('a joint torque measured: friction split into the joint side (the torque '
                 "measured against the link's motion, joint units) and the motor side (the "
                 "actuator effort less the torque measured through the gear, the actuator's "
                 'units)')
    return out


def _delay(t: np.ndarray, seg: np.ndarray, sent: dict[str, np.ndarray],
           state: dict[str, np.ndarray], fit: DrivetrainFit) -> None:
    """Identify the delay of the transmission's first commanded actuator into ``fit``."""
    for field in ('effort', 'velocity', 'position'):
        for k in range(sent[field].shape[1]):
            c, y = sent[field][:, k], state[field][:, k]
            if np.isfinite(c).sum() > 2 * EXTRA_SAMPLES and np.isfinite(y).sum() > EXTRA_SAMPLES:
                found = command_delay(t, seg, c, y)
                if isinstance(found, str):
                    fit.not_excited['delay'] = found
                    return
                fit.values['delay'], fit.sigmas['delay'], fit.residual_rms['delay'] = found
                if field != 'effort':
                    fit.notes.append(f'delay from {field} commands: it includes the lag of the '
                                     "driver's control loop, not only the transport delay")
                return
    fit.not_excited['delay'] = 'no actuator of it has commands and states of one field'


def command_delay(t: np.ndarray, seg: np.ndarray, command: np.ndarray,
                  state: np.ndarray) -> tuple[float, float, float] | str:
    r"""
    Return the delay ``(d, sigma, residual RMS)`` from ``command`` to ``state``, or why not.

    The whole-sample lag of the largest normalized cross-correlation (up to :data:`MAX_DELAY`),
    refined by Gauss-Newton on :math:`y(t) = g\,c(t - d) + o` (:math:`c` linearly
    interpolated within each segment); :math:`\sigma` from the covariance scaled by the
    residual variance.
    """
    ok = np.isfinite(command) & np.isfinite(state)
    if np.nanstd(command[ok]) <= 1e-12 if ok.any() else True:
        return 'the commands never changed: no delay'
    period = float(np.median(np.diff(t)))
    if not period > 0.0:
        return 'the samples have no time step'
    c = np.where(ok, command - np.mean(command[ok]), 0.0)
    y = np.where(ok, state - np.mean(state[ok]), 0.0)
    same = np.r_[True, np.diff(seg) == 0]
    best, lag = -np.inf, 0
    for shift in range(0, min(int(MAX_DELAY / period), len(t) // 4) + 1):
        pair = ok[shift:] & ok[:len(t) - shift] & same[shift:]
        if pair.sum() <= EXTRA_SAMPLES:
            break
        a, b = y[shift:][pair], c[:len(t) - shift][pair]
        score = float(a @ b) / (float(np.linalg.norm(a) * np.linalg.norm(b)) or 1.0)
        if score > best:
            best, lag = score, shift
    d, gain, offset = lag * period, 1.0, 0.0
    shifted = np.full(len(t), np.nan)
    slope = np.full(len(t), np.nan)
    fit: LeastSquares | None = None
    for _ in range(5):
        for label in np.unique(seg):
            k = np.flatnonzero((seg == label) & np.isfinite(command))
            if len(k) < 2:
                continue
            shifted[k] = np.interp(t[k] - d, t[k], command[k], left=np.nan, right=np.nan)
            slope[k] = np.interp(t[k] - d, t[k], np.gradient(command[k], t[k]), left=np.nan,
                                 right=np.nan)
        use = ok & np.isfinite(shifted) & np.isfinite(slope)
        r = state[use] - (gain * shifted[use] + offset)
        fit = least_squares(np.column_stack([shifted[use], np.ones(int(use.sum())),
                                             -gain * slope[use]]), r)
        if fit is None:
            return 'the commands do not excite the state enough'
        gain, offset, d = gain + fit.value[0], offset + fit.value[1], d + fit.value[2]
    assert fit is not None
    return float(d), float(fit.sigma[2]), fit.rms


def _coupled(rt: Any, t: np.ndarray, seg: np.ndarray, act: dict[str, np.ndarray],
             jnt: dict[str, np.ndarray], threshold: float, ends: dict[str, dict[str, float]],
             why: dict[str, str], rms: dict[str, float], notes: list[str],
             series: dict[str, Series]) -> None:
    r"""
    Identify a square, linear coupled transmission's friction per joint and per actuator.

    With :math:`\dot\theta = K\dot q` and :math:`\tau = K^T u`, each joint's equation is
    :math:`\tau_j = \sum_k M_{jk} a_k + F_j \operatorname{sign}(v_j) + b_j v_j +
    \sum_i K_{ij} (F_i \operatorname{sign}(\dot\theta_i) + b_i \dot\theta_i) + c_j`: one least
    squares over the moving samples of every joint's equation, the inertia matrix :math:`M`
    (symmetric) and the loads :math:`c` unknown too.  The coupling tells the joint side from the
    motor side, as long as the joints move independently.
    """
    tr = rt.transmission
    n = tr.num_joints()
    mapped = tr.actuator_to_joint({'position': act['position'], 'velocity': act['velocity'],
                                   'effort': act['effort']})
    v = np.asarray(mapped['velocity'])
    tau = np.asarray(mapped['effort'])
    k = np.asarray(tr.joint_to_actuator({'velocity': np.eye(n)})['velocity']).T   # K[i, j]
    a = np.column_stack([derivative(t, v[:, j], seg) for j in range(n)])
    dtheta = act['velocity']
    ok = np.isfinite(tau).all(axis=1) & np.isfinite(v).all(axis=1) & np.isfinite(a).all(axis=1)
    ok &= np.isfinite(dtheta).all(axis=1)
    # every joint and every motor moving: friction near rest is not sign(v)
    moving = ok & (np.abs(v) > threshold).all(axis=1) & (np.abs(dtheta) > threshold).all(axis=1)
    count = int(moving.sum())
    inertia = [(p, q) for p in range(n) for q in range(p, n)]
    pairs = len(inertia)
    # columns: M entries, B entries, joint Coulomb, motor Coulomb, loads
    unknowns = 2 * pairs + 3 * n
    if count < unknowns + EXTRA_SAMPLES:
        for end in list(rt.joint_names) + list(rt.actuator_names):
            why[f'{end}.coulomb_friction'] = why[f'{end}.viscous_friction'] = (
                f'never moved faster than {threshold:g} (joint units/s) long enough: friction '
                'not identifiable')
        return
    rows = []
    for j in range(n):
        x = np.zeros((count, unknowns))
        for col, (p, q) in enumerate(inertia):
            if j in (p, q):
                other = q if p == j else p
                x[:, col] = a[moving, other]
                x[:, pairs + col] = v[moving, other]
        x[:, 2 * pairs + j] = np.sign(v[moving, j])
        for i in range(n):
            x[:, 2 * pairs + n + i] = k[i, j] * np.sign(dtheta[moving, i])
        x[:, 2 * pairs + 2 * n + j] = 1.0
        rows.append((x, tau[moving, j]))
    fit = least_squares(np.vstack([x for x, _ in rows]), np.concatenate([y for _, y in rows]))
    if fit is None:
        why['friction'] = ('the joints did not move independently enough to tell the joint '
                           'side from the motor side')
        return
    rms['friction'] = fit.rms
    _record(series, 'friction', rt.joint_names, [t[moving]] * n, [y for _, y in rows], fit,
            'effort through the map (joint units)')
    columns = [(name, {'coulomb_friction': 2 * pairs + j,
                       'viscous_friction': pairs + inertia.index((j, j))})
               for j, name in enumerate(rt.joint_names)]
    columns += [(name, {'coulomb_friction': 2 * pairs + n + i})
                for i, name in enumerate(rt.actuator_names)]
    for name, keys in columns:
        values: dict[str, float] = {}
        sigmas: dict[str, float] = {}
        local: dict[str, str] = {}
        for key, col in keys.items():
            _put(key, fit, col, values, sigmas, local)
        ends[name] = {**values, **{f'{key}_sigma': sig for key, sig in sigmas.items()}}
        why.update({f'{name}.{key}': text for key, text in local.items()})
    notes.append('a coupled transmission: Coulomb friction per joint (joint side, joint units) '
                 'and per actuator (motor side, actuator units), told apart by the coupling; '
                 'viscous friction per joint, joint and motor side lumped')


def _torque_constant(unit: np.ndarray, reference: np.ndarray, v: np.ndarray, a: np.ndarray,
                     threshold: float, kt_urdf: float, values: dict[str, float],
                     sigmas: dict[str, float], why: dict[str, str], rms: dict[str, float],
                     notes: list[str], t: np.ndarray, series: dict[str, Series]) -> float:
    r"""
    Return the torque constant: identified against a joint torque, else the URDF's (NaN: none).

    The motor's torque through the gear is :math:`k_t m` (``unit``: the joint effort of the
    currents times the gear ratio); a joint torque :math:`\tau_s` measured behind it balances
    it less the drive's inertia and friction, :math:`\tau_s = k_t m - J a - F_c
    \operatorname{sign}(v) - b v - c`: least squares over the moving samples.
    """
    measured = np.isfinite(unit) & np.isfinite(reference) & np.isfinite(v) & np.isfinite(a)
    # moving samples only: friction near rest is what balances the rest, not sign(v)
    ok = measured & (np.abs(v) > threshold)
    if measured.sum() <= EXTRA_SAMPLES:
        why['torque_constant'] = ('no joint torque measured: the torque constant is not '
                                  'identifiable from currents alone'
                                  + (f" (the URDF's {kt_urdf:g} N m/A is used)"
                                     if math.isfinite(kt_urdf) else ''))
        return kt_urdf
    fit = least_squares(np.column_stack([unit[ok], a[ok], np.sign(v[ok]), v[ok],
                                         np.ones(int(ok.sum()))]), reference[ok])
    if fit is None or not abs(fit.sigma[0]) < RELATIVE_SIGMA * abs(fit.value[0]):
        why['torque_constant'] = 'the motion does not excite the motor enough'
        return kt_urdf
    values['torque_constant'], sigmas['torque_constant'] = float(fit.value[0]), \
        float(fit.sigma[0])
    rms['torque_constant'] = fit.rms
    series['torque_constant'] = Series(t[ok], reference[ok], fit.fitted,
                                       'joint torque measured (joint units)')
    notes.append('efforts are currents: the torque constant is fitted against the joint torque '
                 'measured, and the friction is in N m at that torque constant')
    return float(fit.value[0])


#: the least relative spread (10th to 90th percentile over the median) of a nonlinear map's
#: ratio that tells its joint-side friction from its motor side's
RATIO_SPREAD = 0.05


def _friction(t: np.ndarray, v: np.ndarray, a: np.ndarray, tau: np.ndarray, threshold: float,
              values: dict[str, float], sigmas: dict[str, float], why: dict[str, str],
              rms: dict[str, float], series: dict[str, Series],
              motor: tuple[np.ndarray, ...] | None = None) -> None:
    r"""
    Fit the friction of one joint: ``tau`` against ``[sign(v), v, 1, a...]`` (module doc).

    :param motor: of a nonlinear map, per sample the ratio :math:`r = d\theta/dq`, the motor
        velocity :math:`\dot\theta`, the joint acceleration through the map :math:`a` and
        :math:`\dot r`: the columns :math:`r \operatorname{sign}(\dot\theta)`,
        :math:`r\dot\theta`, :math:`r^2 a` and :math:`r \dot r v` join the fit (the drive's
        inertia in the last two, in place of ``a``'s), and the values are each side's
        (``joint_`` and ``motor_`` keys)
    """
    c_key, v_key = ('joint_coulomb_friction', 'joint_viscous_friction') if motor is not None \
        else ('coulomb_friction', 'viscous_friction')
    side_keys = [c_key, v_key] + (['motor_coulomb_friction', 'motor_viscous_friction']
                                  if motor is not None else [])
    moving = np.abs(v) > threshold
    forwards, backwards = int(np.sum(v > threshold)), int(np.sum(v < -threshold))
    if moving.sum() < 2 * len(side_keys) + EXTRA_SAMPLES:
        for key in side_keys:
            why[key] = (f'never moved faster than {threshold:g} (joint units/s) for '
                        f'{2 * len(side_keys) + EXTRA_SAMPLES} samples: friction not '
                        'identifiable')
        return
    if min(forwards, backwards) < EXTRA_SAMPLES:
        for key in side_keys[::2]:
            why[key] = (f'never reversed ({forwards} samples forwards, {backwards} '
                        'backwards): Coulomb friction not told from a load')
    speed = np.abs(v[moving])
    spread = float(np.percentile(speed, 90) - np.percentile(speed, 10))
    if spread < 4 * threshold:
        for key in side_keys[1::2]:
            why[key] = (f'speeds within {spread:.3g} (joint units/s): viscous '
                        'friction not identifiable')
    columns = [np.sign(v[moving]), v[moving]]
    if motor is not None:
        r, w, acc, dr = (x[moving] for x in motor)
        ratio = np.abs(r)
        varies = float(np.percentile(ratio, 90) - np.percentile(ratio, 10)) \
            / max(float(np.median(ratio)), 1e-300)
        if varies < RATIO_SPREAD:
            for key in side_keys:
                why[key] = (f'the ratio d theta/d q varied by {100 * varies:.2g} % over the '
                            'motion: joint side and motor side not told apart')
            return
        # the drive's inertia: r theta'' = r^2 q'' + r r' q', each its own column (a model
        # whose ratio is fixed over a step, as a simulator's tendon, has no second term)
        columns += [r * np.sign(w), r * w, r * r * acc, r * dr * v[moving]]
    columns += [np.ones(int(moving.sum()))]
    columns += [c for c in a[moving].T if np.any(c != 0.0)]
    keys = side_keys + [None] * (len(columns) - len(side_keys))
    keep = [k for k, key in enumerate(keys) if key is None or key not in why]
    fit = least_squares(np.column_stack([columns[k] for k in keep]), tau[moving])
    if fit is None:
        for key in side_keys:
            why.setdefault(key, 'the motion does not separate it from inertia and load')
        return
    rms['friction'] = fit.rms
    series['friction'] = Series(t[moving], tau[moving], fit.fitted,
                                'effort through the map (joint units)')
    if motor is None and 'viscous_friction' in why and 'coulomb_friction' in keys and 0 in keep:
        # one speed: sign(v) carries the friction at that speed, Coulomb and viscous together
        why['coulomb_friction'] = (
            f'one speed only ({float(np.median(speed)):.3g} joint units/s): Coulomb and viscous '
            f'friction not told apart (the friction there is {float(fit.value[0]):.3g} +- '
            f'{float(fit.sigma[0]):.2g})')
        return
    for col, k in enumerate(keep):
        name = keys[k]
        if name is not None:
            _put(name, fit, col, values, sigmas, why)
    if motor is not None:
        _lumped(fit, [keys[k] for k in keep], float(np.median(ratio)), values, sigmas)


def _lumped(fit: LeastSquares, keys: list[str | None], ratio: float, values: dict[str, float],
            sigmas: dict[str, float]) -> None:
    """
    Add a nonlinear map's lumped friction at the joint, at its median ``ratio`` :math:`r`.

    :math:`F_j + r F_m` and :math:`b_j + r^2 b_m`, with the uncertainty of the sum (the
    covariance of the two sides included), where both sides are identified.
    """
    assert fit.covariance is not None
    for kind, scale in (('coulomb', ratio), ('viscous', ratio * ratio)):
        joint, motor = f'joint_{kind}_friction', f'motor_{kind}_friction'
        if joint not in values or motor not in values:
            continue
        i, m = keys.index(joint), keys.index(motor)
        c = fit.covariance
        values[f'{kind}_friction'] = values[joint] + scale * values[motor]
        sigmas[f'{kind}_friction'] = math.sqrt(max(
            c[i, i] + scale * scale * c[m, m] + 2.0 * scale * c[i, m], 0.0))


def _put(key: str, fit: LeastSquares, col: int, values: dict[str, float],
         sigmas: dict[str, float], why: dict[str, str]) -> None:
    """
    Put parameter ``col`` of ``fit`` under ``key``, or say why it is not excited.

    Not excited: its uncertainty exceeds :data:`RELATIVE_SIGMA` of the larger of its value and
    its natural size (:attr:`LeastSquares.size`), so that a value near zero with a small
    uncertainty (a joint without friction) is an identified zero, not a guess.
    """
    value, sigma = float(fit.value[col]), float(fit.sigma[col])
    if not np.isfinite(value) or sigma > RELATIVE_SIGMA * max(abs(value), fit.size[col]):
        why[key] = (f'uncertain ({value:.3g} +- {sigma:.2g}): the motion does not excite it '
                    'enough')
        return
    values[key] = value
    sigmas[key] = sigma


def _backlash(t: np.ndarray, q: np.ndarray, v: np.ndarray, encoder: np.ndarray,
              threshold: float, values: dict[str, float], sigmas: dict[str, float],
              why: dict[str, str], rms: dict[str, float], series: dict[str, Series]) -> None:
    r"""
    Identify the backlash (module doc).

    In a dead band :math:`e = q(\theta) - q_{enc}` stays between the band's two ends: at one
    of them while the gear drives, crossing to the other after a reversal (or while the joint's
    inertia carries it ahead of a decelerating motor, or, without friction behind the band, a
    link floating at constant speed).  The width is the range of :math:`e` over the moving
    samples, from its 1st to its 99th percentile (robust to the few samples of an impact that
    press into an end).
    """
    e = q - encoder
    ok = np.isfinite(e) & np.isfinite(v)
    if not ok.any():
        why['backlash'] = 'no joint encoder position recorded: backlash not identifiable'
        return
    if min(np.sum(ok & (v > threshold)), np.sum(ok & (v < -threshold))) < EXTRA_SAMPLES:
        why['backlash'] = 'never reversed: no backlash'
        return
    used = ok & (np.abs(v) > threshold)
    moving = e[used]
    low, low5, high5, high = np.percentile(moving, [1, 5, 95, 99])
    width = float(high - low)
    ends = (moving <= low5) | (moving >= high5)
    near = moving[ends] - np.where(moving[ends] >= high5, high, low)
    # how sharply the ends are defined: the 1 %..99 % range against the 5 %..95 % one (zero
    # when the gear sits on the ends), and the scatter of the samples at the ends
    sigma = max(float(width - (high5 - low5)),
                1.2533 * float(np.std(near)) / np.sqrt(max(len(near), 1)))
    nearest = np.minimum(np.abs(moving - low), np.abs(moving - high))
    rms['backlash'] = float(np.sqrt(np.mean(nearest * nearest)))
    # the model of a sample: the end of the band it is nearest
    series['backlash'] = Series(t[used], moving,
                                np.where(np.abs(moving - low) < np.abs(moving - high), low, high),
                                'position through the map less the encoder (joint units)')
    values['backlash'] = width
    sigmas['backlash'] = sigma


def _spring(tr: Any, t: np.ndarray, seg: np.ndarray, act: dict[str, np.ndarray],
            jnt: dict[str, np.ndarray], threshold: float, values: dict[str, float],
            sigmas: dict[str, float], why: dict[str, str], rms: dict[str, float],
            notes: list[str], series: dict[str, Series]) -> None:
    n = float(tr.get_actuator_reduction()[0])
    delta = np.asarray(tr.deflection(act['position']))[:, 0]
    # the deflection's rate from the measured velocities, else the positions' derivative
    rate = np.asarray(tr.deflection(act['velocity']))[:, 0]
    rate = np.where(np.isfinite(rate), rate, derivative(t, delta, seg))
    v = act['velocity'][:, 0] / n
    a = derivative(t, v, seg)
    sensor = jnt['effort'][:, 0]
    spread = float(np.nanstd(delta)) if np.isfinite(delta).any() else 0.0
    if not spread > 1e-7:
        why['stiffness'] = why['damping'] = ('the spring never deflected: stiffness and '
                                             'damping not identifiable')
        return
    if np.isfinite(sensor).sum() > 2 + EXTRA_SAMPLES:
        ok = np.isfinite(sensor) & np.isfinite(delta) & np.isfinite(rate)
        columns, keys = [delta[ok], rate[ok]], ['stiffness', 'damping']
        y = sensor[ok]
        quantity = 'joint torque measured (joint units)'
        notes.append('spring fitted on the joint torque measured (joint effort)')
    else:
        tau = n * act['effort'][:, 0]
        # the effort applied over a period acts against the spring of its start (the previous
        # sample), as the acceleration is the backward difference (derivative)
        delta, rate = previous(delta, seg), previous(rate, seg)
        ok = np.isfinite(tau) & np.isfinite(delta) & np.isfinite(rate) & np.isfinite(a) \
            & np.isfinite(v)
        columns = [delta[ok], rate[ok], a[ok], np.sign(v[ok]) * (np.abs(v[ok]) > threshold),
                   v[ok]]
        keys = ['stiffness', 'damping', '', 'coulomb_friction', 'viscous_friction']
        y = tau[ok]
        quantity = 'motor effort through the gear (joint units)'
        notes.append('spring fitted on the motor effort through the gear (no joint torque '
                     'measured); the friction values are the motor side seen at the joint')
    fit = least_squares(np.column_stack(columns), y)
    if fit is None:
        for key in keys:
            if key:
                why[key] = 'the motion does not separate it from the other terms'
        return
    rms['spring'] = fit.rms
    series['spring'] = Series(t[ok], y, fit.fitted, quantity)
    for col, key in enumerate(keys):
        if key:
            _put(key, fit, col, values, sigmas, why)
