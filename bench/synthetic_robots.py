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
Synthetic robots of N mixed transmissions, for the benchmarks and the tests of scale.

Transmission ``k`` is a :class:`~transmission_plugins.SimpleTransmission` (``k % 3 == 0``), a
:class:`~transmission_plugins.DifferentialTransmission` (``1``) or a
:class:`~transmission_plugins.FourBarLinkageTransmission` (``2``) with seeded random reductions
and offsets, so N transmissions drive about ``5 N / 3`` joints with as many actuators.  The same
parameters come as a URDF (:func:`synthetic_urdf`, to measure loading) or as hand-built
:class:`~transmission_plugins.RobotTransmission` records (:func:`synthetic_transmissions`).  Every
joint is a revolute child of ``base_link`` with position, velocity and effort limits.
"""

from typing import Iterator
from typing import NamedTuple

import numpy as np

from transmission_plugins import DifferentialTransmission
from transmission_plugins import FourBarLinkageTransmission
from transmission_plugins import RobotTransmission
from transmission_plugins import SimpleTransmission

#: The URDF types of the three kinds, in the order transmissions cycle through them.
KINDS = ('transmission_interface/SimpleTransmission',
         'transmission_interface/DifferentialTransmission',
         'transmission_interface/FourBarLinkageTransmission')


class SyntheticTransmission(NamedTuple):
    """One generated transmission: its type, names and parameters."""

    name: str
    type: str  # noqa: A003
    joints: tuple[str, ...]
    actuators: tuple[str, ...]
    actuator_reduction: tuple[float, ...]
    joint_reduction: tuple[float, ...]
    joint_offset: tuple[float, ...]


def _reduction(rng: np.random.Generator) -> float:
    """Return a reduction of either sign, |n| in [1, 100) (never zero)."""
    return float(rng.choice((-1.0, 1.0)) * rng.uniform(1.0, 100.0))


def synthetic_parameters(n: int, seed: int = 0) -> Iterator[SyntheticTransmission]:
    """
    Yield the ``n`` transmissions of the synthetic robot ``seed``.

    :param n: number of transmissions (>= 0)
    :param seed: seed of :func:`numpy.random.default_rng`
    """
    rng = np.random.default_rng(seed)
    for k in range(n):
        kind = k % 3
        width = 1 if kind == 0 else 2
        joints = tuple(f't{k}_joint{i + 1}' for i in range(width))
        actuators = tuple(f't{k}_motor{i + 1}' for i in range(width))
        yield SyntheticTransmission(
            f't{k}_trans', KINDS[kind], joints, actuators,
            tuple(_reduction(rng) for _ in range(width)),
            tuple(_reduction(rng) / 50.0 for _ in range(width)) if width == 2 else (),
            tuple(float(rng.uniform(-0.5, 0.5)) for _ in range(width)))


def synthetic_transmissions(n: int, seed: int = 0) -> list[RobotTransmission]:
    """Return the synthetic robot as hand-built records (no URDF parsing, for fast tests)."""
    out = []
    for t in synthetic_parameters(n, seed):
        if t.type == KINDS[0]:
            tr: object = SimpleTransmission(t.actuator_reduction[0], t.joint_offset[0])
        elif t.type == KINDS[1]:
            tr = DifferentialTransmission(t.actuator_reduction, t.joint_reduction, t.joint_offset)
        else:
            tr = FourBarLinkageTransmission(t.actuator_reduction, t.joint_reduction,
                                            t.joint_offset)
        out.append(RobotTransmission(t.name, t.type, tr, t.joints,  # type: ignore[arg-type]
                                     t.actuators))
    return out


def synthetic_urdf(n: int, seed: int = 0) -> str:
    """
    Return the URDF text of the synthetic robot: links, joints with limits, transmissions.

    Transmissions are written in the ROS 1 style (``<type>`` child, ``<mechanicalReduction>``
    on the actuators, ``<role>``, ``<mechanicalReduction>`` and ``<offset>`` on the joints of
    coupled transmissions), as most real URDFs write them.
    """
    parts = [f'<?xml version="1.0"?>\n<robot name="synthetic_{n}">\n  <link name="base_link"/>']
    for t in synthetic_parameters(n, seed):
        for j in t.joints:
            parts.append(
                f'  <link name="{j}_link"/>\n'
                f'  <joint name="{j}" type="revolute"><parent link="base_link"/>'
                f'<child link="{j}_link"/><axis xyz="0 0 1"/>'
                '<limit lower="-3.0" upper="3.0" velocity="2.0" effort="50.0"/></joint>')
        parts.append(f'  <transmission name="{t.name}">\n    <type>{t.type}</type>')
        coupled = len(t.joints) == 2
        for i, a in enumerate(t.actuators):
            role = f'<role>actuator{i + 1}</role>' if coupled else ''
            parts.append(f'    <actuator name="{a}">{role}<mechanicalReduction>'
                         f'{t.actuator_reduction[i]!r}</mechanicalReduction></actuator>')
        for i, j in enumerate(t.joints):
            extra = ''
            if coupled:
                extra = (f'<role>joint{i + 1}</role><mechanicalReduction>'
                         f'{t.joint_reduction[i]!r}</mechanicalReduction>')
            parts.append(f'    <joint name="{j}">{extra}<offset>{t.joint_offset[i]!r}</offset>'
                         '<hardwareInterface>hardware_interface/EffortJointInterface'
                         '</hardwareInterface></joint>')
        parts.append('  </transmission>')
    parts.append('</robot>\n')
    return '\n'.join(parts)


#: The joints of the G1-like humanoid driven by simple transmissions (25), leg by leg, then
#: the waist and the arms; each ankle adds a pitch and a roll joint (29 joints in all, as the
#: Unitree G1's 29-DoF variant).
HUMANOID_SIMPLE = tuple(
    [f'{side}_{j}_joint' for side in ('left', 'right')
     for j in ('hip_pitch', 'hip_roll', 'hip_yaw', 'knee')]
    + ['waist_yaw_joint', 'waist_roll_joint', 'waist_pitch_joint']
    + [f'{side}_{j}_joint' for side in ('left', 'right')
       for j in ('shoulder_pitch', 'shoulder_roll', 'shoulder_yaw', 'elbow', 'wrist_roll',
                 'wrist_pitch', 'wrist_yaw')])
#: One ankle's legs (crank pivot, crank tip, rod end), ParallelAnkleTransmission.example()'s;
#: the right ankle is its mirror image.
ANKLE_LEGS = (((0.0, 0.025, 0.22), (-0.045, 0.025, 0.22), (-0.05, 0.03, -0.02)),
              ((0.0, -0.025, 0.15), (-0.045, -0.025, 0.15), (-0.05, -0.03, -0.02)))


def humanoid_urdf(parallel_ankles: bool = True) -> str:
    """
    Return the URDF of a G1-like humanoid: 25 simple transmissions and two ankles.

    With ``parallel_ankles`` each ankle is a ``ParallelAnkleTransmission`` (two crank motors on
    the shank, rods to the foot); without, its all-linear twin: a ``DifferentialTransmission``
    of the same joints and motors.  Joint limits follow the G1's (ankle pitch -0.6..0.4 rad,
    roll +-0.25 rad).
    """
    def joint(name: str, lower: float, upper: float, effort: float) -> str:
        return (f'  <link name="{name}_link"/>\n'
                f'  <joint name="{name}" type="revolute"><parent link="base_link"/>'
                f'<child link="{name}_link"/><axis xyz="0 1 0"/>'
                f'<limit lower="{lower!r}" upper="{upper!r}" velocity="20.0" '
                f'effort="{effort!r}"/></joint>')

    kind = 'parallel' if parallel_ankles else 'linear'
    parts = [f'<?xml version="1.0"?>\n<robot name="g1_like_{kind}_ankles">\n'
             '  <link name="base_link"/>']
    for k, name in enumerate(HUMANOID_SIMPLE):
        parts.append(joint(name, -2.5, 2.5, 88.0))
        parts.append(f'  <transmission name="{name}_trans">\n'
                     '    <type>transmission_interface/SimpleTransmission</type>\n'
                     f'    <joint name="{name}"><hardwareInterface>hardware_interface/'
                     'EffortJointInterface</hardwareInterface></joint>\n'
                     f'    <actuator name="{name[:-6]}_motor"><mechanicalReduction>'
                     f'{10.0 + k!r}</mechanicalReduction></actuator>\n  </transmission>')
    for side, flip in (('left', 1.0), ('right', -1.0)):
        pitch, roll = f'{side}_ankle_pitch_joint', f'{side}_ankle_roll_joint'
        parts += [joint(pitch, -0.6, 0.4, 50.0), joint(roll, -0.25, 0.25, 50.0)]
        motors = (f'{side}_ankle_motor_a', f'{side}_ankle_motor_b')
        if parallel_ankles:
            legs = ANKLE_LEGS if flip > 0 else ANKLE_LEGS[::-1]
            body = []
            for i, (motor, leg) in enumerate(zip(motors, legs)):
                points = ''.join(
                    f'<{tag} xyz="{p[0]!r} {flip * p[1]!r} {p[2]!r}"/>'
                    for tag, p in zip(('crank_pivot', 'crank_tip', 'rod_end'), leg))
                body.append(f'    <actuator name="{motor}"><role>actuator{i + 1}</role>'
                            f'{points}</actuator>')
            parts.append(f'  <transmission name="{side}_ankle_trans">\n    <type>'
                         'transmission_plugins/ParallelAnkleTransmission</type>\n'
                         f'    <joint name="{pitch}"><role>pitch</role></joint>\n'
                         f'    <joint name="{roll}"><role>roll</role></joint>\n'
                         + '\n'.join(body) + '\n  </transmission>')
        else:
            parts.append(f'  <transmission name="{side}_ankle_trans">\n    <type>'
                         'transmission_interface/DifferentialTransmission</type>\n'
                         + ''.join(f'    <actuator name="{m}"><role>actuator{i + 1}</role>'
                                   '<mechanicalReduction>1.0</mechanicalReduction></actuator>\n'
                                   for i, m in enumerate(motors))
                         + ''.join(f'    <joint name="{j}"><role>joint{i + 1}</role>'
                                   '<mechanicalReduction>1.0</mechanicalReduction></joint>\n'
                                   for i, j in enumerate((pitch, roll)))
                         + '  </transmission>')
    parts.append('</robot>\n')
    return '\n'.join(parts)
