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
A robot's series-elastic transmissions as both physics of ``mock_actuators`` simulate them.

A :class:`~transmission_plugins.transmissions.series_elastic_transmission.
SeriesElasticTransmission` puts a spring between the gear and the joint: the motor
(actuator 1, reduction :math:`n`) turns a drive at :math:`\theta_m/n`, the spring's deflection
is :math:`\delta = \theta_m/n - \theta_e` and its torque :math:`\tau = s(\delta) +
d\dot\delta` turns the link, whose position the joint-side encoder (actuator 2) reads.  Both
physics simulate two bodies, the drive (the rotor) and the link, joined by the spring
(doc/physics.md, "The drivetrain"); the spring's torque is the transmission's own joint effort
map from the actuator positions and velocities (:meth:`SeriesSprings.torque`, the kernel), so
the package has one spring formula.

The link's inertia for the rotor physics (:func:`link_inertia`) is the URDF ``<inertial>`` of
the joint's child link about the joint axis (the links below it are left out: the rotors have
no kinematic tree), or :data:`DEFAULT_LINK_INERTIA` where the link has none.
"""

import math
from typing import Any

import numpy as np

from transmission_plugins.robot.robot_transmissions import RobotTransmissions
from transmission_plugins.transmissions.series_elastic_transmission import ENCODER
from transmission_plugins.transmissions.series_elastic_transmission import MOTOR
from transmission_plugins.transmissions.series_elastic_transmission import \
    SeriesElasticTransmission
from transmission_plugins.urdf.elements import local_name
from transmission_plugins.urdf.elements import parse_number
from transmission_plugins.urdf.text import parse_xml
from transmission_plugins.urdf.text import read_urdf_text

#: The link inertia (kg m^2, or kg for a prismatic joint) of a series-elastic joint whose child
#: link has no ``<inertial>``: a foot of a few hundred grams about its ankle.
DEFAULT_LINK_INERTIA = 2e-3


class SeriesSprings:
    """
    The series-elastic transmissions of a robot, as arrays in the order they are found.

    :param robot: the ``RobotTransmissions``
    """

    def __init__(self, robot: RobotTransmissions) -> None:
        self._robot = robot
        found = [b for b in list(robot.maps.linear) + list(robot.maps.nonlinear)
                 if b.owner and isinstance(b.transmission, SeriesElasticTransmission)]
        #: each spring's transmission
        self.transmissions: list[SeriesElasticTransmission] = [
            t for t in (b.transmission for b in found)
            if isinstance(t, SeriesElasticTransmission)]
        #: robot joint index of each spring's joint, and the joint names
        self.joints = np.array([int(b.joints[0]) for b in found], dtype=np.intp)
        self.names = [robot.joint_names[j] for j in self.joints]
        #: robot actuator index of each spring's motor and of its joint-side encoder
        self.motors = np.array([int(b.actuators[MOTOR]) for b in found], dtype=np.intp)
        self.encoders = np.array([int(b.actuators[ENCODER]) for b in found], dtype=np.intp)
        #: the motor's reduction :math:`n`, the linear stiffness (NaN for a table), the damping
        self.reduction = np.array([t.get_actuator_reduction()[MOTOR] for t in
                                   self.transmissions], dtype=np.float64)
        self.stiffness = np.array([math.nan if t.stiffness() is None else t.stiffness()
                                   for t in self.transmissions], dtype=np.float64)
        self.damping = np.array([t.damping() for t in self.transmissions], dtype=np.float64)
        #: which springs are measured tables (MuJoCo holds only linear joint springs)
        self.table = np.isnan(self.stiffness)

    def __len__(self) -> int:
        """Return the number of series-elastic transmissions."""
        return len(self.transmissions)

    def torque(self, actuator_position: np.ndarray,
               actuator_velocity: np.ndarray) -> np.ndarray:
        r"""
        Return each spring's torque :math:`\tau = s(\delta) + d\dot\delta` on its link.

        The robot's actuator-to-joint effort map from the actuator positions and velocities
        (the kernel's, ``src/kernel/series_elastic.c``), at the springs' joints.
        """
        out = self._robot.actuator_to_joint_arrays(
            {'position': actuator_position, 'velocity': actuator_velocity})['effort']
        return np.asarray(out, dtype=np.float64)[self.joints]

    def steepest(self) -> np.ndarray:
        """Return each spring's largest stiffness: :math:`k`, or a table's steepest segment."""
        out = self.stiffness.copy()
        for i, t in enumerate(self.transmissions):
            table = t.spring_table()
            if table is not None:
                out[i] = float(np.max(np.diff(table[1]) / np.diff(table[0])))
        return out

    def slope_at_zero(self) -> np.ndarray:
        r"""
        Return each spring's stiffness at no deflection: :math:`k`, or a table's slope at 0.

        For a table, the central difference of its torque over :math:`\pm 10^{-9}` rad of
        deflection (the kernel's interpolation): the mean of both segments' slopes where 0 is
        one of its points.
        """
        out = self.stiffness.copy()
        eps = 1e-9
        for i, t in enumerate(self.transmissions):
            if self.table[i]:
                n = self.reduction[i]
                effort = t.actuator_to_joint({'position': [[n * eps, 0.0], [-n * eps, 0.0]],
                                              'velocity': [[0.0, 0.0], [0.0, 0.0]]})['effort']
                out[i] = float((effort[0, 0] - effort[1, 0]) / (2.0 * eps))
        return out

    def describe(self, i: int) -> str:
        """Return the spring of ``i`` in words: its stiffness or table, and its damping."""
        t = self.transmissions[i]
        table = t.spring_table()
        spring = (f'stiffness {self.stiffness[i]:g}' if table is None else
                  'spring table (deflections ' + ' '.join(f'{x:g}' for x in table[0])
                  + ', torques ' + ' '.join(f'{y:g}' for y in table[1]) + ')')
        return f'{spring}, damping {self.damping[i]:g}'


def _rotation(rpy: list[float]) -> np.ndarray:
    """Return the URDF rotation of roll, pitch and yaw (fixed axes x, y, z)."""
    r, p, y = rpy
    rx = np.array([[1, 0, 0], [0, math.cos(r), -math.sin(r)], [0, math.sin(r), math.cos(r)]])
    ry = np.array([[math.cos(p), 0, math.sin(p)], [0, 1, 0], [-math.sin(p), 0, math.cos(p)]])
    rz = np.array([[math.cos(y), -math.sin(y), 0], [math.sin(y), math.cos(y), 0], [0, 0, 1]])
    return rz @ ry @ rx


class _NotANumber(ValueError):
    """A value of the ``<inertial>`` that is not a finite URDF number."""


def _floats(text: str | None, default: str) -> list[float]:
    values = [parse_number(v) for v in (text or default).split()]
    if not all(v is not None and math.isfinite(v) for v in values):
        raise _NotANumber(text)
    return [float(v) for v in values if v is not None]


def _float(text: str | None) -> float:
    return _floats(text, '0')[0] if text is None or text.strip() else 0.0


def link_inertia(description: str, joint: str) -> float:
    r"""
    Return the inertia of ``joint``'s child link about the joint's axis (its mass: prismatic).

    :math:`a^T R I R^T a + m\,|c \times a|^2` from the link's ``<inertial>`` (:math:`c` its
    centre of mass and :math:`R` its frame in the link frame, :math:`a` the unit axis), or
    :data:`DEFAULT_LINK_INERTIA` when the joint, its child or its ``<inertial>`` is missing or
    holds a value that is not a finite number (the URDF is not this mock's to refuse).
    """
    try:
        return _link_inertia(description, joint)
    except (ValueError, IndexError):   # a value that is no number, an axis of 2 or 0 numbers
        return DEFAULT_LINK_INERTIA


def _link_inertia(description: str, joint: str) -> float:
    root = parse_xml(read_urdf_text(description))
    element = next((e for e in root if local_name(e) == 'joint' and e.get('name') == joint),
                   None)
    child = None if element is None else next(
        (c.get('link') for c in element if local_name(c) == 'child'), None)
    link = next((e for e in root if local_name(e) == 'link' and e.get('name') == child), None)
    inertial = None if link is None else next(
        (c for c in link if local_name(c) == 'inertial'), None)
    if inertial is None:
        return DEFAULT_LINK_INERTIA
    parts = {local_name(c): c for c in inertial}
    mass = _float(parts['mass'].get('value')) if 'mass' in parts else 0.0
    if element is not None and element.get('type') == 'prismatic':
        return mass if mass > 0.0 else DEFAULT_LINK_INERTIA
    axis_element = next((c for c in element if local_name(c) == 'axis'), None) \
        if element is not None else None
    axis = np.array(_floats(None if axis_element is None else axis_element.get('xyz'),
                            '1 0 0'))
    norm = float(np.linalg.norm(axis))
    if not norm > 0.0 or axis.shape != (3,):
        raise _NotANumber(axis_element.get('xyz') if axis_element is not None else None)
    axis = axis / norm
    origin = parts.get('origin')
    c = np.array(_floats(None if origin is None else origin.get('xyz'), '0 0 0'))
    rotation = _rotation(_floats(None if origin is None else origin.get('rpy'), '0 0 0'))
    tensor = np.zeros((3, 3))
    if 'inertia' in parts:
        get: Any = parts['inertia'].get
        xx, yy, zz = (_float(get(k)) for k in ('ixx', 'iyy', 'izz'))
        xy, xz, yz = (_float(get(k)) for k in ('ixy', 'ixz', 'iyz'))
        tensor = np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])
    value = float(axis @ rotation @ tensor @ rotation.T @ axis
                  + mass * np.dot(np.cross(c, axis), np.cross(c, axis)))
    return value if value > 0.0 else DEFAULT_LINK_INERTIA
