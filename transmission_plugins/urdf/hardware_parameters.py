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
Transmissions kept in ros2_control hardware parameters, read into records like any other.

Two ros2_control hardware interfaces for Dynamixel servos hold the transmission in their own
``<param>`` values instead of ``<transmission>`` elements (ROBOTIS
``dynamixel_hardware_interface/DynamixelHardware`` and dynamixel-community's
``dynamixel_hardware/DynamixelHardware``); what each gives is doc/urdf.md's dialect table.  A
joint that a ``<transmission>`` of the block drives keeps that one: its Dynamixel parameters
are not read (``transmission_plugins lint`` reports the two descriptions).
"""

from typing import Sequence

from transmission_plugins.core.exceptions import BadValueError
from transmission_plugins.core.exceptions import LoadWarning
from transmission_plugins.core.findings import DESCRIBED_TWICE
from transmission_plugins.core.findings import Finding
from transmission_plugins.urdf.elements import child_path
from transmission_plugins.urdf.elements import children
from transmission_plugins.urdf.elements import parse_float
from transmission_plugins.urdf.elements import source_line
from transmission_plugins.urdf.elements import XmlElement
from transmission_plugins.urdf.records import ActuatorInfo
from transmission_plugins.urdf.records import DIALECT_ROS2_CONTROL
from transmission_plugins.urdf.records import item_key
from transmission_plugins.urdf.records import JointInfo
from transmission_plugins.urdf.records import Origin
from transmission_plugins.urdf.records import TransmissionInfo
from transmission_plugins.urdf.vocabulary import DEFAULT_OFFSET
from transmission_plugins.urdf.vocabulary import DEFAULT_REDUCTION

ROBOTIS_PLUGIN = 'dynamixel_hardware_interface/DynamixelHardware'
DYNAMIXEL_PLUGIN = 'dynamixel_hardware/DynamixelHardware'
#: ROBOTIS hardware parameter -> the CouplingTransmission matrix it is
ROBOTIS_MATRICES = {'transmission_to_joint_matrix': 'actuator_to_joint',
                    'joint_to_transmission_matrix': 'joint_to_actuator'}
#: ROBOTIS hardware parameters that count the joints and the servos
ROBOTIS_COUNTS = {'number_of_joints': 'joint', 'number_of_transmissions': 'servo'}
#: the ``<joint>`` parameters of dynamixel_hardware that make a transmission
DYNAMIXEL_PARAMS = ('id', 'offset', 'gear_ratio')
COUPLING_TYPE = 'transmission_plugins/CouplingTransmission'
SIMPLE_TYPE = 'transmission_interface/SimpleTransmission'

#: a ``<param>``: its text, element path and line
_Param = tuple[str, str, int | None]


def _params(element: XmlElement, path: str) -> dict[str, _Param]:
    return {name: ((p.text or '').strip(), f"{path}/param[@name='{name}']", source_line(p))
            for p in children(element, 'param') if (name := p.get('name'))}


def _hardware(block: XmlElement) -> XmlElement | None:
    found = children(block, 'hardware')
    return found[0] if found else None


def hardware_plugin(block: XmlElement) -> str:
    """Return the ``<hardware><plugin>`` of a ``<ros2_control>`` block ('' when none)."""
    hardware = _hardware(block)
    plugins = children(hardware, 'plugin') if hardware is not None else []
    return (plugins[0].text or '').strip() if plugins else ''


def has_hardware_transmissions(block: XmlElement) -> bool:
    """Return True when the block keeps transmissions in hardware parameters (module doc)."""
    plugin = hardware_plugin(block)
    hardware = _hardware(block)
    if plugin == ROBOTIS_PLUGIN and hardware is not None:
        return 'transmission_to_joint_matrix' in _params(hardware, '')
    if plugin == DYNAMIXEL_PLUGIN:
        return any(set(_params(j, '')) & set(DYNAMIXEL_PARAMS) for j in children(block, 'joint'))
    return False


def read_hardware_transmissions(block: XmlElement, block_path: str, driven: Sequence[str], *,
                                lenient: bool = False,
                                findings: list[LoadWarning] | None = None
                                ) -> list[TransmissionInfo]:
    """
    Read the transmissions a ``<ros2_control>`` block keeps in hardware parameters.

    :param driven: joints driven by the block's ``<transmission>`` elements (they keep them)
    :param findings: receives a ``described-twice`` finding for each such joint that also has
        Dynamixel ``offset`` or ``gear_ratio`` parameters
    :raises UrdfTransmissionError: (a subclass) naming the parameter and the bad value
    """
    plugin = hardware_plugin(block)
    if plugin == ROBOTIS_PLUGIN:
        return _robotis(block, block_path, driven, lenient)
    if plugin == DYNAMIXEL_PLUGIN:
        return _dynamixel(block, block_path, driven, lenient,
                          findings if findings is not None else [])
    return []


def _robotis(block: XmlElement, block_path: str, driven: Sequence[str],
             lenient: bool) -> list[TransmissionInfo]:
    hardware = _hardware(block)
    if hardware is None:
        return []
    hardware_path = f'{block_path}/hardware'
    params = _params(hardware, hardware_path)
    if 'transmission_to_joint_matrix' not in params:
        return []
    joints = [(j, child_path(block_path, j, i)) for i, j in enumerate(children(block, 'joint'), 1)]
    servos = [(g, child_path(block_path, g, i)) for i, g in enumerate(children(block, 'gpio'), 1)
              if _params(g, '').get('type', ('',))[0] == 'dxl']
    for name, side in ROBOTIS_COUNTS.items():
        if name not in params:
            continue
        text, path, line = params[name]
        have = len(joints) if side == 'joint' else len(servos)
        what = ('<joint> elements in the block' if side == 'joint' else
                '<gpio> servos (<param name="type">dxl</param>) in the block')
        if text != str(have):
            raise BadValueError(path, f'{name} is {text!r} but there are {have} {what}; '
                                f'the matrices are read with {have}', line)
    for joint, path in joints:
        if joint.get('name') in driven:
            raise BadValueError(path, f"joint {joint.get('name')!r} is driven by a <transmission> "
                                'of the block and by the transmission_to_joint_matrix of its '
                                'hardware; describe it once', source_line(joint))
    name = block.get('name') or 'dynamixel_hardware_interface'
    return [TransmissionInfo(
        name=name, type=COUPLING_TYPE,
        joints=tuple(JointInfo(name=j.get('name') or '', path=p, line=source_line(j))
                     for j, p in joints),
        actuators=tuple(ActuatorInfo(name=g.get('name') or '', path=p, line=source_line(g),
                                     implicit=True) for g, p in servos),
        dialect=DIALECT_ROS2_CONTROL,
        params={ROBOTIS_MATRICES[k]: params[k][0].replace(',', ' ')
                for k in ROBOTIS_MATRICES if k in params},
        origins={item_key('params', ROBOTIS_MATRICES[k]): Origin(*params[k][1:])
                 for k in ROBOTIS_MATRICES if k in params},
        path=hardware_path, line=source_line(hardware), lenient=lenient, block=block.get('name'),
        block_type=block.get('type'))]


def _dynamixel(block: XmlElement, block_path: str, driven: Sequence[str], lenient: bool,
               findings: list[LoadWarning]) -> list[TransmissionInfo]:
    block_name = block.get('name') or 'dynamixel_hardware'
    infos = []
    for i, joint in enumerate(children(block, 'joint'), 1):
        joint_path = child_path(block_path, joint, i)
        params = _params(joint, joint_path)
        name = joint.get('name') or ''
        given = [p for p in ('gear_ratio', 'offset') if p in params]
        if name in driven and given:
            _, path, line = params[given[0]]
            findings.append(Finding(
                DESCRIBED_TWICE, path, f'joint {name!r} is driven by a <transmission> of its '
                f'block and has Dynamixel {" and ".join(given)} parameters, which '
                f'{DYNAMIXEL_PLUGIN} applies itself: the same gearbox described twice (this '
                'package reads the <transmission>)', line))
        if not set(params) & set(DYNAMIXEL_PARAMS) or name in driven:
            continue
        gear_ratio = DEFAULT_REDUCTION
        origins: dict[str, Origin] = {}
        if 'gear_ratio' in params:
            text, path, line = params['gear_ratio']
            gear_ratio = parse_float(text, path, nonzero=True, line=line)
            origins['mechanical_reduction'] = Origin(path, line)
        offset = DEFAULT_OFFSET
        if 'offset' in params:
            text, path, line = params['offset']
            offset = parse_float(text, path, line=line)
            origins['offset'] = Origin(path, line)
        servo = f"dxl{params['id'][0]}" if 'id' in params else name
        line = source_line(joint)
        infos.append(TransmissionInfo(
            name=f'{block_name}/{name}', type=SIMPLE_TYPE,
            # (servo - offset) / gear_ratio = servo / gear_ratio + joint offset
            joints=(JointInfo(name=name, mechanical_reduction=gear_ratio,
                              offset=-offset / gear_ratio + 0.0, path=joint_path, line=line,
                              origins=origins),),
            actuators=(ActuatorInfo(name=f'{block_name}/{servo}', path=joint_path, line=line,
                                    implicit=True),),
            dialect=DIALECT_ROS2_CONTROL, path=joint_path, line=line, lenient=lenient,
            block=block.get('name'), block_type=block.get('type')))
    return infos
