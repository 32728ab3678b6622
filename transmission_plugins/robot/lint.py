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
The checks of ``transmission_plugins lint``: mistakes that load without a word, as findings.

Each check returns :class:`~transmission_plugins.core.findings.Finding` records (kind, element
path, line, message).  The checks that hold for a loaded robot run in the loader too
(:func:`robot_findings`); those across dialects need the transmissions the loader leaves aside,
so only :func:`~transmission_plugins.robot.lint_urdf.lint_urdf` (a module above the loader)
runs them.  What each kind means and where it is found: doc/cli.md,
"lint".
"""

import difflib
import math
from typing import Any
from typing import Iterable
from typing import Mapping
from typing import Sequence
import warnings

import numpy as np

from transmission_plugins.core.drivetrain import TorqueSpeed
from transmission_plugins.core.exceptions import UrdfTransmissionError
from transmission_plugins.core.findings import BACKLASH_OVER_RANGE
from transmission_plugins.core.findings import CONTINUOUS_BELOW_FRICTION
from transmission_plugins.core.findings import DESCRIBED_TWICE
from transmission_plugins.core.findings import Finding
from transmission_plugins.core.findings import FRICTION_AT_LIMIT
from transmission_plugins.core.findings import MAX_SPEED_BELOW_LIMIT
from transmission_plugins.core.findings import NOT_INVERSE
from transmission_plugins.core.findings import PEAK_TORQUE_BELOW_LIMIT
from transmission_plugins.core.findings import REDUCTION_MISMATCH
from transmission_plugins.core.findings import SHARED_ACTUATOR
from transmission_plugins.core.findings import UNKNOWN_INTERFACE
from transmission_plugins.core.findings import UNREACHABLE_LIMIT
from transmission_plugins.robot.wiring import RobotTransmission
from transmission_plugins.transmissions.coupling_transmission import inverse_residual
from transmission_plugins.transmissions.coupling_transmission import INVERSE_TOLERANCE
from transmission_plugins.transmissions.simple_transmission import SimpleTransmission
from transmission_plugins.urdf.elements import local_name
from transmission_plugins.urdf.elements import quoted
from transmission_plugins.urdf.elements import source_line
from transmission_plugins.urdf.joints import UrdfJoint
from transmission_plugins.urdf.readers import ACTUATOR_TO_JOINT_TAG
from transmission_plugins.urdf.readers import JOINT_TO_ACTUATOR_TAG
from transmission_plugins.urdf.readers import read_coupling
from transmission_plugins.urdf.records import ActuatorInfo
from transmission_plugins.urdf.records import DIALECT_ROS2_CONTROL
from transmission_plugins.urdf.records import item_key
from transmission_plugins.urdf.records import JointInfo
from transmission_plugins.urdf.records import TransmissionInfo
from transmission_plugins.urdf.vocabulary import HARDWARE_INTERFACE_PREFIX
from transmission_plugins.urdf.vocabulary import HARDWARE_INTERFACE_TAG

#: The interfaces of ROS 1's ``hardware_interface`` package (after the ``hardware_interface/``
#: prefix, which the parser adds to bare names), and ros2_control's standard interface names.
#: Interfaces of other packages (``franka_hw/...``) are not checked.
HARDWARE_INTERFACES = (
    'JointStateInterface', 'PositionJointInterface', 'VelocityJointInterface',
    'EffortJointInterface', 'PosVelJointInterface', 'PosVelAccJointInterface',
    'JointCommandInterface', 'ActuatorStateInterface', 'PositionActuatorInterface',
    'VelocityActuatorInterface', 'EffortActuatorInterface', 'ImuSensorInterface',
    'ForceTorqueSensorInterface',
    'position', 'velocity', 'acceleration', 'effort', 'torque', 'force', 'absolute_position')
#: Relative margin before two reductions or an effort limit and its reach are said to differ.
TOLERANCE = 1e-9


# ---------------------------------------------------------------------- on a loaded robot
def _mimic_groups(joints: Mapping[str, UrdfJoint]) -> dict[str, str]:
    """Return each joint's group: joints joined by ``<mimic>`` share one (a representative)."""
    parent = {name: name for name in joints}

    def root(name: str) -> str:
        while parent.get(name, name) != name:
            name = parent[name]
        return name

    for joint in joints.values():
        if joint.mimic is not None and joint.mimic in parent:
            parent[root(joint.name)] = root(joint.mimic)
    return {name: root(name) for name in parent}


def _line(t: RobotTransmission) -> int | None:
    return t.info.line if t.info is not None else None


def shared_actuators(transmissions: Sequence[RobotTransmission],
                     joints: Mapping[str, UrdfJoint]) -> list[Finding]:
    """
    Find actuators shared by transmissions whose joints no ``<mimic>`` couples (doc/cli.md).

    :param transmissions: the transmissions kept by the wiring
    :param joints: the robot model's joints (their ``mimic``)
    """
    users: dict[str, list[RobotTransmission]] = {}
    for t in transmissions:
        for name in t.actuator_names:
            users.setdefault(name, []).append(t)
    group = _mimic_groups(joints)
    found = []
    for name, sharing in users.items():
        first = sharing[0]
        leaders = {group.get(j, j) for j in first.joint_names}
        for t in sharing[1:]:
            if {group.get(j, j) for j in t.joint_names} <= leaders:
                continue   # coupled to the first user's joints by <mimic>
            found.append(Finding(
                SHARED_ACTUATOR, t.end_path(name, 'actuator'), f'actuator {name!r} also drives '
                f'{first.describe()}, but joints {list(t.joint_names)} and '
                f'{list(first.joint_names)} are not coupled (no <mimic> joins them); give each '
                'its own actuator, or mark the follower joint with <mimic>', _line(t)))
    return found


def unknown_interfaces(infos: Iterable[TransmissionInfo]) -> list[Finding]:
    """Find ``<hardwareInterface>`` names outside :data:`HARDWARE_INTERFACES`, with the nearest."""
    found = []
    for info in infos:
        for end in tuple(info.joints) + tuple(info.actuators):
            for name in end.interfaces:
                if not name.startswith(HARDWARE_INTERFACE_PREFIX):
                    continue   # another package's vocabulary
                short = name[len(HARDWARE_INTERFACE_PREFIX):]
                if short in HARDWARE_INTERFACES:
                    continue
                near = difflib.get_close_matches(short, HARDWARE_INTERFACES, n=1)
                hint = (f'; did you mean {HARDWARE_INTERFACE_PREFIX + near[0]!r}?' if near else
                        f'; known: {", ".join(HARDWARE_INTERFACES[:13])}')
                found.append(Finding(
                    UNKNOWN_INTERFACE, f'{end.path}/{HARDWARE_INTERFACE_TAG}',
                    f'unknown hardware interface {name!r}{hint}',
                    origin.line if (origin := end.origins.get(item_key('interfaces', name)))
                    else end.line))
    return found


def _robot_path(robot_name: str) -> str:
    return f'/robot[@name={quoted(robot_name)}]' if robot_name else '/robot'


def unreachable_limits(robot: Any, limit_lines: Mapping[str, int] | None = None
                       ) -> list[Finding]:
    """
    Find joint effort limits larger than the actuators' effort limits can produce.

    The reach is ``robot.joint_effort_limit_from_actuators``: through a nonlinear transmission
    the largest anywhere in the joint's range, so a limit above it is reached nowhere.  The
    joints not checked are doc/cli.md's ("lint"): without actuator data, and the followers of a
    transmission (joints its joint-to-actuator map does not read, a PR2 gripper's fingers).

    :param robot: a :class:`~transmission_plugins.RobotTransmissions`
    :param limit_lines: joint name -> source line of its ``<limit>``
    """
    found = []
    for i, name in enumerate(robot.joint_names):
        limit = float(robot.joint_effort_limit[i])
        reach = float(robot.joint_effort_limit_from_actuators[i])
        t = robot.transmission_of_joint(name)
        linear = t.transmission.is_linear()
        if not (_above(limit, reach) and _driven(t, name)):
            continue   # within reach, no actuator data, or a passive joint
        where = '' if linear else ' (at best, anywhere in its range)'
        found.append(Finding(
            UNREACHABLE_LIMIT, f'{_robot_path(robot.robot_name)}/joint[@name={quoted(name)}]'
            '/limit/@effort', f'joint {name!r} has effort limit {limit:g} but the effort limits '
            f'of its actuators reach only {reach:g}{where} through {t.describe()}: the limit '
            'cannot be reached; lower it, or check the actuator effort limits and the '
            f'{"reduction" if linear else "geometry"}', (limit_lines or {}).get(name)))
    return found


def _driven(t: RobotTransmission, joint: str) -> bool:
    """Return False for a joint its transmission's joint-to-actuator map does not read."""
    tr = t.transmission
    return tr.is_linear() or list(t.joint_names).index(joint) in {
        int(k) for k in tr.joint_to_actuator_inputs()}


def _above(limit: float, reach: float) -> bool:
    """Return True when a finite ``limit`` is above a finite ``reach`` > 0 (beyond rounding)."""
    return (math.isfinite(limit) and math.isfinite(reach) and reach > 0.0
            and limit > reach * (1.0 + TOLERANCE))


# ------------------------------------------------------------------------ the drivetrain
def _origin(end: JointInfo, *keys: str) -> tuple[str, int | None]:
    """Return the path and line of the first of ``keys`` the end's text gives (else the end)."""
    for key in keys:
        origin = end.origins.get(key)
        if origin is not None:
            return origin.path, origin.line
    return end.path, end.line


def _breakaway_key(end: JointInfo) -> tuple[str, str]:
    """Return the origins key and the name of the breakaway friction: static, else Coulomb."""
    friction = end.friction
    if friction is not None and friction.static is not None \
            and friction.static > friction.coulomb:
        return 'friction:static', 'static'
    return 'friction:coulomb', 'Coulomb'


def friction_at_limits(robot: Any) -> list[Finding]:
    """
    Find a breakaway friction at or above the effort limit on its side (doc/cli.md).

    Joint side: the URDF joint effort limit; motor side: the actuator effort limit (actuator
    data, or the joint limit mapped through the transmission) or the motor's peak torque,
    whichever is smaller.
    """
    dt = robot.drivetrain
    found = []
    breakaway = dt.joint_friction.breakaway()
    for i, name in enumerate(robot.joint_names):
        end, limit = dt.joint_records[i], float(robot.joint_effort_limit[i])
        if end is None or end.friction is None or not math.isfinite(limit) or limit <= 0.0:
            continue
        if breakaway[i] < limit * (1.0 - TOLERANCE):
            continue
        key, which = _breakaway_key(end)
        path, line = _origin(end, key, 'friction')
        found.append(Finding(
            FRICTION_AT_LIMIT, path, f'joint {name!r}: its {which} friction on the joint side, '
            f'{breakaway[i]:g}, is at or above its URDF effort limit {limit:g}: no effort within '
            'the limit moves the joint; check the friction (joint-side units) and the limit',
            line))
    breakaway = dt.actuator_friction.breakaway()
    sources = {'data': 'its effort limit (actuator data)',
               'mapped': 'its effort limit (the joint effort limit through the transmission)'}
    for i, name in enumerate(robot.actuator_names):
        end = dt.actuator_records[i]
        if end is None or end.friction is None:
            continue
        limits = [(float(robot.actuator_effort_limit[i]),
                   sources.get(robot.actuator_effort_limit_source[i], 'its effort limit')),
                  (float(dt.peak_effort[i]), "its motor's peak torque at the actuator")]
        limit, what = min(limits, key=lambda x: x[0])
        if not math.isfinite(limit) or breakaway[i] < limit * (1.0 - TOLERANCE):
            continue
        key, which = _breakaway_key(end)
        path, line = _origin(end, key, 'friction')
        joints = [j for t in robot.transmissions if name in t.actuator_names
                  for j in t.joint_names]
        found.append(Finding(
            FRICTION_AT_LIMIT, path, f'actuator {name!r}: its {which} friction on the motor '
            f'side, {breakaway[i]:g}, is at or above {what}, {limit:g}: the motor cannot move '
            f'joints {joints}; check the friction (actuator-side units) and the limit', line))
    return found


def _envelope_actuator(robot: Any, t: RobotTransmission
                       ) -> tuple[int, ActuatorInfo, TorqueSpeed] | None:
    """Return the index, record and envelope of the first actuator of ``t`` with an envelope."""
    for name in t.actuator_names:
        i = robot.actuator_names.index(name)
        end = robot.drivetrain.actuator_records[i]
        if end is not None and end.motor is not None and end.motor.torque_speed is not None:
            return i, end, end.motor.torque_speed
    return None


def envelope_below_limits(robot: Any) -> list[Finding]:
    """
    Find joint effort and velocity limits the motors' torque-speed envelopes cannot give.

    The envelope's peak torque and maximum speed, at the actuators, through the transmission
    (:meth:`~.RobotTransmissions.joint_effort_bound`, ``joint_velocity_bound``: linear
    transmissions only for the speed) against the URDF ``<limit effort velocity>``.
    """
    dt = robot.drivetrain
    if not dt.has_envelope.any():
        return []
    effort = robot.joint_effort_bound(dt.peak_effort)
    speed = robot.joint_velocity_bound(dt.max_speed)
    found = []
    for j, name in enumerate(robot.joint_names):
        t = robot.transmission_of_joint(name)
        first = _envelope_actuator(robot, t)
        if first is None or not _driven(t, name):
            continue
        i, end, envelope = first
        actuator = robot.actuator_names[i]
        rho = float(dt.gear_ratio[i])
        ratio = f', gear ratio {rho:g}' if rho != 1.0 else ''
        limit = float(robot.joint_effort_limit[j])
        if _above(limit, float(effort[j])):
            path, line = _origin(end, 'motor:peak_torque', 'motor:torque_speed:torques', 'motor')
            found.append(Finding(
                PEAK_TORQUE_BELOW_LIMIT, path, f'joint {name!r} has effort limit {limit:g} but '
                f'the peak torque of its motor ({actuator!r}: {envelope.peak_torque:g} '
                f'at the rotor{ratio}) gives only {effort[j]:g} through {t.describe()}: the URDF '
                'promises an effort the motor cannot give; lower the limit, or check the peak '
                'torque and the reduction', line))
        limit = float(robot.joint_velocity_limit[j])
        if _above(limit, float(speed[j])):
            path, line = _origin(end, 'motor:max_speed', 'motor:torque_speed:speeds', 'motor')
            found.append(Finding(
                MAX_SPEED_BELOW_LIMIT, path, f'joint {name!r} has velocity limit {limit:g} but '
                f'the maximum speed of its motor ({actuator!r}: {envelope.max_speed:g} '
                f'at the rotor{ratio}) gives only {speed[j]:g} through {t.describe()}: the URDF '
                'promises a speed the motor cannot reach; lower the limit, or check the maximum '
                'speed and the reduction', line))
    return found


def continuous_below_friction(robot: Any) -> list[Finding]:
    """Find a thermal model whose continuous torque cannot overcome the motor-side friction."""
    dt = robot.drivetrain
    found = []
    for i, name in enumerate(robot.actuator_names):
        end = dt.actuator_records[i]
        if not dt.has_thermal[i] or end is None or end.friction is None:
            continue
        coulomb = float(dt.actuator_friction.coulomb[i])
        continuous = float(dt.continuous_effort[i])
        if continuous >= coulomb:
            continue
        motor = end.motor
        path, line = _origin(end, 'motor')
        friction_path, friction_line = _origin(end, 'friction:coulomb')
        found.append(Finding(
            CONTINUOUS_BELOW_FRICTION, path, f'actuator {name!r}: the continuous torque of its '
            f'thermal model, {continuous:g} at the actuator (continuous current '
            f'{dt.continuous_current[i]:g} A times torque constant {motor.torque_constant:g} N '
            f'm/A), is below its motor-side Coulomb friction {coulomb:g} ({friction_path}, line '
            f'{friction_line}): the motor overheats just turning against friction; check the '
            'thermal data, the torque constant and the friction', line))
    return found


def backlash_over_range(robot: Any) -> list[Finding]:
    """Find a backlash wider than the position range on its side (joint, or actuator)."""
    dt = robot.drivetrain
    found = []
    sides = (('joint', robot.joint_names, dt.joint_records, dt.joint_backlash,
              robot.joint_lower, robot.joint_upper),
             ('actuator', robot.actuator_names, dt.actuator_records, dt.actuator_backlash,
              robot.actuator_lower, robot.actuator_upper))
    for side, names, records, widths, lower, upper in sides:
        for i, name in enumerate(names):
            end = records[i]
            span = float(upper[i] - lower[i])
            if end is None or end.backlash is None or not math.isfinite(span) \
                    or widths[i] <= span:
                continue
            path, line = _origin(end, 'backlash:width', 'backlash')
            what = ('its URDF position range' if side == 'joint' else
                    'its position range (the joint range through the transmission)')
            found.append(Finding(
                BACKLASH_OVER_RANGE, path, f'{side} {name!r}: its backlash width {widths[i]:g} '
                f'is larger than {what}, {span:g} (from {lower[i]:g} to {upper[i]:g}): the play '
                f'would swallow the whole motion; check the width ({side}-side units)', line))
    return found


def drivetrain_findings(robot: Any) -> list[Finding]:
    """Return the findings of the drivetrain's values that load but cannot be right."""
    return (friction_at_limits(robot) + envelope_below_limits(robot)
            + continuous_below_friction(robot) + backlash_over_range(robot))


def limit_lines(root: Any) -> dict[str, int]:
    """Return joint name -> source line of its ``<limit>`` (or of the joint), from the XML root."""
    lines = {}
    for joint in (root if root is not None and not isinstance(root, (str, bytes)) else ()):
        if local_name(joint) != 'joint' or not joint.get('name'):
            continue
        limits = [c for c in joint if local_name(c) == 'limit']
        line = source_line(limits[0] if limits else joint)
        if line:
            lines[joint.get('name')] = line
    return lines


def robot_findings(robot: Any) -> list[Finding]:
    """Return the findings the loader issues: shared actuators, unknown interfaces."""
    infos = [t.info for t in robot.transmissions if t.info is not None]
    return shared_actuators(robot.transmissions, robot.urdf_joints) + unknown_interfaces(infos)


# ---------------------------------------------------------------------- across dialects
def inverse_pairs(infos: Iterable[TransmissionInfo]) -> list[Finding]:
    """Find coupling matrices given both ways that are not inverses (CouplingTransmission's)."""
    found = []
    for info in infos:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            try:
                reading = read_coupling(info)
            except UrdfTransmissionError:
                continue
        if reading.joint_to_actuator is None:
            continue
        a2j = np.array(reading.actuator_to_joint, dtype=np.float64)
        residual = inverse_residual(a2j, np.array(reading.joint_to_actuator, dtype=np.float64))
        if residual <= INVERSE_TOLERANCE:
            continue
        path, line, _ = reading.origins[JOINT_TO_ACTUATOR_TAG]
        first = reading.origins[ACTUATOR_TO_JOINT_TAG].path
        which = 'B A - I' if a2j.shape[0] >= a2j.shape[1] else 'A B - I'
        found.append(Finding(
            NOT_INVERSE, path, f'this matrix (B) is not an inverse of the '
            f'{ACTUATOR_TO_JOINT_TAG} matrix (A) at {first}: '
            f'the largest entry of {which} is {residual:.3g}, more than {INVERSE_TOLERANCE:g}; '
            'round trips would drift (give more digits, or leave B out to derive it)', line))
    return found


def _in_block(info: TransmissionInfo) -> bool:
    return info.block is not None or info.dialect == DIALECT_ROS2_CONTROL


def reductions_across_sources(built: Sequence[tuple[TransmissionInfo, Any]]) -> list[Finding]:
    """
    Find joints whose robot-level and ``<ros2_control>`` SimpleTransmissions disagree.

    :param built: ``(record, transmission)`` of every transmission of the file (source 'all')
    """
    sides: dict[bool, dict[str, tuple[TransmissionInfo, float]]] = {False: {}, True: {}}
    for info, transmission in built:
        if isinstance(transmission, SimpleTransmission) and info.joints:
            sides[_in_block(info)].setdefault(info.joints[0].name,
                                              (info, transmission.get_actuator_reduction()))
    found = []
    for joint, (block_info, n) in sides[True].items():
        if joint not in sides[False]:
            continue
        robot_info, m = sides[False][joint]
        if math.isclose(n, m, rel_tol=TOLERANCE):
            continue
        why = ('opposite signs: one of them turns the joint the wrong way' if n * m < 0 else
               f'sizes differ by a factor {abs(n / m):g}')
        where = robot_info.path + (f' (line {robot_info.line})' if robot_info.line else '')
        found.append(Finding(
            REDUCTION_MISMATCH, block_info.joints[0].path or block_info.path,
            f'joint {joint!r} has reduction {n:g} in its <ros2_control> block and {m:g} at '
            f'robot level ({where}): {why}; ros2_control reads the block, ROS 1 and Gazebo the '
            'robot level', block_info.joints[0].line or block_info.line))
    return found


def actuator_data_twice(infos: Iterable[TransmissionInfo]) -> list[Finding]:
    """Find a rotor inertia or gear ratio given for one actuator in two transmissions."""
    seen: dict[tuple[str, str], tuple[str, float]] = {}
    found = []
    for info in infos:
        for actuator in info.actuators:
            for field in ('rotor_inertia', 'gear_ratio'):
                value = getattr(actuator, field)
                if value is None:
                    continue
                key = (actuator.name, field)
                if key not in seen:
                    seen[key] = (actuator.path, value)
                    continue
                first_path, first = seen[key]
                found.append(Finding(
                    DESCRIBED_TWICE, actuator.path, f'the {field.replace("_", " ")} of actuator '
                    f'{actuator.name!r} is given here ({value:g}) and at {first_path} '
                    f'({first:g}): the same rotor or gearbox described twice, which a consumer '
                    'that reads both counts twice', actuator.line))
    return found
