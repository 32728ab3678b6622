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
Reports on a :class:`~transmission_plugins.robot.robot_transmissions.RobotTransmissions`.

:func:`report_dict` gives the facts as plain data (for ``--json``; unbounded limits are
``None``), :func:`text_report` the same as aligned text tables.
"""

import math
from typing import Any
from typing import Sequence

import numpy as np

#: Seed accessors shown as the transmission's map parameters, when the class has them.
ACCESSORS = ('get_actuator_reduction', 'get_joint_reduction', 'get_joint_offset')


def _plain(value: Any) -> Any:
    """Return ``value`` as JSON-ready data: floats, lists, ``None`` for non-finite numbers."""
    if isinstance(value, np.ndarray):
        return _plain(value.tolist())
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (float, np.floating)):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, np.integer):
        return int(value)
    return value


def map_parameters(tr: Any) -> dict[str, Any]:
    """
    Return a transmission's map parameters by name.

    The seed accessors (``actuator_reduction``, ``joint_reduction``, ``joint_offset``) where the
    class has them, ``parameters()`` of nonlinear ones, and for linear ones the matrices of
    ``linear_map()`` (``jacobian`` = dq/dtheta, ``joint_offset`` if no accessor gave it).
    """
    out: dict[str, Any] = {}
    for name in ACCESSORS:
        fn = getattr(tr, name, None)
        if callable(fn):
            out[name[len('get_'):]] = fn()
    params = getattr(tr, 'parameters', None)
    if callable(params):
        out['parameters'] = params()
    if tr.is_linear() and hasattr(tr, 'linear_map'):
        jac, _, q0 = tr.linear_map()
        out['jacobian'] = jac.tolist()
        out.setdefault('joint_offset', q0.tolist())
    return out


def _fmt(x: Any) -> str:
    if isinstance(x, (list, tuple)):
        return '(' + ', '.join(_fmt(v) for v in x) + ')'
    if isinstance(x, (float, int, np.floating, np.integer)) and not isinstance(x, bool):
        return f'{float(x):.6g}'
    return str(x)


def describe_map(tr: Any) -> str:
    """Return the map parameters in one short line (``jacobian`` and ``parameters`` left out)."""
    params = map_parameters(tr)
    parts = [f'{k.replace("_", " ")} {_fmt(v)}' for k, v in params.items()
             if k in ('actuator_reduction', 'joint_reduction', 'joint_offset')]
    if not tr.is_linear():
        parts.insert(0, 'nonlinear')
    elif not any(k in params for k in ('actuator_reduction', 'joint_reduction')):
        parts.insert(0, f'J {_fmt(params["jacobian"])}')
    return ', '.join(parts)


def report_dict(robot: Any) -> dict[str, Any]:
    """Return everything :func:`text_report` shows, as JSON-ready data."""
    diag = np.diag(robot.reflected_inertia())
    by_joint = {j: t.name for t in robot.transmissions for j in t.joint_names}
    transmissions = []
    for t in robot.transmissions:
        transmissions.append({
            'name': t.name, 'type': t.type, 'class': type(t.transmission).__name__,
            'path': t.path, 'linear': bool(t.transmission.is_linear()),
            'actuators': list(t.actuator_names), 'joints': list(t.joint_names),
            'map': map_parameters(t.transmission), 'description': str(t.transmission)})
    joints = []
    for i, name in enumerate(robot.joint_names):
        urdf = robot.urdf_joints.get(name)
        joints.append({
            'name': name, 'transmission': by_joint[name],
            'type': urdf.type if urdf is not None else None,
            'lower': robot.joint_lower[i], 'upper': robot.joint_upper[i],
            'velocity_limit': robot.joint_velocity_limit[i],
            'effort_limit': robot.joint_effort_limit[i],
            'effort_limit_from_actuators': robot.joint_effort_limit_from_actuators[i],
            'reflected_inertia': diag[i]})
        behind = robot.spring_side_inertia().get(name)
        if behind is not None:   # a series-elastic joint: the rotor loads the drive
            joints[-1]['spring_side_inertia'] = behind
    actuators = []
    for i, name in enumerate(robot.actuator_names):
        model = robot.actuator_models[name]
        owner = next(t.name for t in robot.transmissions if name in t.actuator_names)
        actuators.append({
            'name': name, 'transmission': owner,
            'lower': robot.actuator_lower[i], 'upper': robot.actuator_upper[i],
            'velocity_limit': robot.actuator_velocity_limit[i],
            'effort_limit': robot.actuator_effort_limit[i],
            'effort_limit_source': robot.actuator_effort_limit_source[i],
            'rotor_inertia': model.rotor_inertia, 'gear_ratio': model.gear_ratio,
            'kp': model.kp, 'kd': model.kd})
    out = {
        'robot': robot.robot_name, 'transmissions': transmissions, 'joints': joints,
        'actuators': actuators, 'untransmitted_joints': list(robot.untransmitted_joints),
        'mimic_joints': list(robot.mimic_joints), 'warnings': list(robot.warnings)}
    drivetrain = drivetrain_dict(robot)
    if drivetrain is not None:
        out['drivetrain'] = drivetrain
    return _plain(out)


def _friction(friction: Any) -> dict[str, Any] | None:
    if friction is None:
        return None
    return {'coulomb': friction.coulomb, 'viscous': friction.viscous, 'static': friction.static,
            'stribeck_velocity': friction.stribeck_velocity}


def drivetrain_dict(robot: Any) -> dict[str, Any] | None:
    """
    Return the robot's drivetrain as plain data, or None when it models none (doc/cli.md).

    Per joint: its friction and backlash (joint side) and, through its transmission, the
    largest effort of the motors' peak torques and thermal continuous torques and the largest
    speed of their maximum speeds (linear transmissions only); per actuator: its friction and
    backlash (motor side), torque constant, the envelope's peak torque and maximum speed and
    the thermal model's continuous current and torque at the actuator, and its maximum
    temperature.  ``None`` (null) where there is nothing, or no bound.
    """
    dt = robot.drivetrain
    if not dt.models_anything:
        return None
    peak = robot.joint_effort_bound(dt.peak_effort)
    speed = robot.joint_velocity_bound(dt.max_speed)
    continuous = robot.joint_effort_bound(dt.continuous_effort)
    joints = []
    for j, name in enumerate(robot.joint_names):
        end = dt.joint_records[j]
        joints.append({
            'name': name, 'friction': _friction(getattr(end, 'friction', None)),
            'backlash': dt.joint_backlash[j] if getattr(end, 'backlash', None) else None,
            'peak_effort': peak[j], 'max_speed': speed[j], 'continuous_effort': continuous[j]})
    actuators = []
    for i, name in enumerate(robot.actuator_names):
        end = dt.actuator_records[i]
        motor = dt.motors[i]
        thermal = dt.has_thermal[i]
        actuators.append({
            'name': name, 'friction': _friction(getattr(end, 'friction', None)),
            'backlash': dt.actuator_backlash[i] if getattr(end, 'backlash', None) else None,
            'torque_constant': None if motor is None else motor.torque_constant,
            'gear_ratio': dt.gear_ratio[i],
            'peak_torque': dt.peak_effort[i], 'max_speed': dt.max_speed[i],
            'continuous_current': dt.continuous_current[i] if thermal else None,
            'continuous_torque': dt.continuous_effort[i] if thermal else None,
            'max_temperature': dt.max_temperature[i] if thermal else None})
    return {'joints': joints, 'actuators': actuators}


def table(headers: Sequence[str], rows: Sequence[Sequence[str]], indent: str = '  ') -> str:
    """Return rows as left-aligned text columns under ``headers``."""
    widths = [len(h) for h in headers]
    for row in rows:
        widths = [max(w, len(c)) for w, c in zip(widths, row)]
    lines = []
    for row in [list(headers)] + [list(r) for r in rows]:
        cells = [c.ljust(w) for c, w in zip(row, widths)]
        lines.append((indent + '  '.join(cells)).rstrip())
    return '\n'.join(lines)


def _n(x: Any) -> str:
    if x is None:
        return '-'
    return f'{x:.4g}' if isinstance(x, float) else str(x)


def _names(items: Sequence[str], limit: int = 3) -> str:
    if len(items) <= limit:
        return ', '.join(items)
    return ', '.join(items[:limit]) + f' +{len(items) - limit}'


def mechanism_lines(robot: Any) -> list[str]:
    """
    Return the section of the nonlinear transmissions: each one's description and parameters.

    The description is the transmission's ``str()`` (a mechanism's geometry in words: crank and
    rod lengths...), the parameters its ``parameters()``, one per line; none without any.
    """
    lines = []
    for t in robot.transmissions:
        tr = t.transmission
        if tr.is_linear():
            continue
        lines.append(f'  {t.name}  {tr}')
        params = getattr(tr, 'parameters', None)
        if callable(params):
            lines += [f'    {name} {_fmt(_plain(value))}' for name, value in params().items()]
    if not lines:
        return []
    return ['', 'mechanisms (nonlinear maps; lengths in m, angles in rad):'] + lines


def drivetrain_lines(data: dict[str, Any] | None) -> list[str]:
    """Return the drivetrain section of :func:`text_report` (none without a drivetrain)."""
    if data is None:
        return []

    def friction(end: dict[str, Any]) -> list[str]:
        f = end['friction'] or {}
        return [_n(f.get(k)) for k in ('coulomb', 'static', 'viscous', 'stribeck_velocity')]

    out = ['', "drivetrain, joint side (the <joint>'s friction and backlash; the motors through "
           'the transmission; - = none):']
    out.append(table(
        ('JOINT', 'COULOMB', 'STATIC', 'VISCOUS', 'STRIBECK V', 'BACKLASH', 'PEAK EFFORT',
         'MAX SPEED', 'CONT. EFFORT'),
        [(j['name'], *friction(j), _n(j['backlash']), _n(j['peak_effort']),
          _n(j['max_speed']), _n(j['continuous_effort'])) for j in data['joints']]))
    out += ['', "drivetrain, motor side (the <actuator>'s friction and backlash; the motor at the "
            'actuator: rotor values times the gear ratio; degrees C):']
    out.append(table(
        ('ACTUATOR', 'COULOMB', 'STATIC', 'VISCOUS', 'STRIBECK V', 'BACKLASH', 'K_T',
         'PEAK TORQUE', 'MAX SPEED', 'CONT. CURRENT', 'CONT. TORQUE', 'MAX TEMP.'),
        [(a['name'], *friction(a), _n(a['backlash']), _n(a['torque_constant']),
          _n(a['peak_torque']), _n(a['max_speed']), _n(a['continuous_current']),
          _n(a['continuous_torque']), _n(a['max_temperature'])) for a in data['actuators']]))
    return out


def text_report(robot: Any) -> str:
    """Return the transmissions, joints and actuators of a robot as text tables."""
    data = report_dict(robot)
    out: list[str] = [
        f"robot '{data['robot']}': {len(data['transmissions'])} transmissions, "
        f"{len(data['joints'])} joints, {len(data['actuators'])} actuators", '',
        'transmissions:']
    out.append(table(
        ('NAME', 'TYPE', 'ACTUATORS', 'JOINTS', 'MAP'),
        [(t['name'], t['type'], _names(t['actuators']), _names(t['joints']),
          describe_map(robot.transmission(t['name']).transmission))
         for t in data['transmissions']]))
    out += mechanism_lines(robot)
    out += ['', 'joints (limits from the URDF; - = none):']
    out.append(table(
        ('JOINT', 'TRANSMISSION', 'LOWER', 'UPPER', 'VELOCITY', 'EFFORT', 'REFL. INERTIA'),
        [(j['name'], j['transmission'], _n(j['lower']), _n(j['upper']),
          _n(j['velocity_limit']), _n(j['effort_limit']), _n(j['reflected_inertia']))
         for j in data['joints']]))
    out += [f"  {j['name']}: series-elastic, reflected inertia 0 at the joint: the rotors' "
            f"{j['spring_side_inertia']:g} (n^2 rho^2 I_r) load the drive behind the spring"
            for j in data['joints'] if 'spring_side_inertia' in j]
    out += ['', 'actuators (limits mapped from the joints unless the source is "data"):']
    out.append(table(
        ('ACTUATOR', 'LOWER', 'UPPER', 'VELOCITY', 'EFFORT', 'SOURCE', 'ROTOR INERTIA'),
        [(a['name'], _n(a['lower']), _n(a['upper']), _n(a['velocity_limit']),
          _n(a['effort_limit']), a['effort_limit_source'], _n(a['rotor_inertia']))
         for a in data['actuators']]))
    out += drivetrain_lines(data.get('drivetrain'))
    for key, title in (('untransmitted_joints', 'untransmitted joints'),
                       ('mimic_joints', 'mimic joints without a transmission'),
                       ('warnings', 'warnings')):
        items = data[key]
        out += ['', f'{title} ({len(items)}):' + ('' if items else ' none')]
        out += [f'  {x}' for x in items]
    return '\n'.join(out)
