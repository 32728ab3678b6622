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
``export --to drake``: the URDF with one Drake ``SimpleTransmission`` per actuated joint.

Drake's URDF parser reads a ``<transmission>`` of type ``SimpleTransmission`` as a
``JointActuator`` on its joint: ``<drake:rotor_inertia value>`` :math:`I_r` and
``<drake:gear_ratio value>`` :math:`G` inside the ``<actuator>`` (reflected inertia
:math:`G^2 I_r`), ``<drake:controller_gains p d>``, and the effort limit from the joint's
``<limit effort>``; it ignores ``<mechanicalReduction>``.  The export writes these tags, the
ones this package reads (:mod:`transmission_plugins.urdf.actuator_tags`), from the joint
actuators of :mod:`~.joint_actuators`:

* every ``<transmission>`` of the description (robot-level or in ``<ros2_control>`` blocks)
  and every ``<ros2_control>`` block is replaced by one transmission per actuated joint,
  ``<mechanicalReduction>1</mechanicalReduction>`` (Drake's models write it so: the whole
  reduction is in :math:`G`, as Drake's actuation input :math:`u` is the joint effort), so
  Drake and this package read the same :math:`G^2 I_r`;
* a transmission with one actuator and several joints drives one joint, the others ``<mimic>``
  it (:func:`~.joint_actuators.joint_actuators` with ``mimic``; Drake's coupler constraints);
* each actuated joint's ``<limit effort>`` is its joint actuator's effort limit (doc/cli.md),
  the motor's peak torque through the reduction included;
* the joint's viscous friction (joint side, and the motor side's reflected for one-to-one
  pairs: :mod:`~.joint_actuators`) is added to ``<dynamics damping>``, the one friction
  Drake's parser reads (it warns about a non-zero ``friction`` and ignores it): Coulomb and
  static friction, backlash, the envelope beyond its peak, the thermal model and the torque
  constant are left out, one warning each.
"""

from typing import Any

from lxml import etree

from transmission_plugins.robot.robot_transmissions import RobotTransmissions
from transmission_plugins.tools.export.joint_actuators import drivetrain_warnings
from transmission_plugins.tools.export.joint_actuators import joint_actuators
from transmission_plugins.tools.export.joint_actuators import JointActuator
from transmission_plugins.tools.export.joint_actuators import Mimic
from transmission_plugins.urdf.elements import local_name
from transmission_plugins.urdf.elements import namespace
from transmission_plugins.urdf.text import parse_xml

#: Drake's XML namespace (``xmlns:drake``).
DRAKE_NAMESPACE = 'http://drake.mit.edu'
#: The elements the export replaces.
REPLACED = ('transmission', 'ros2_control')


def drake_urdf(robot: RobotTransmissions, description: str) -> tuple[str, list[str]]:
    """
    Return the URDF text for Drake and the export's warnings.

    :param description: the URDF text the transmissions were loaded from
    :raises TransmissionError: a transmission cannot be represented (named by its path) or the
        text is not XML
    """
    actuators, mimics, warnings = joint_actuators(robot, 'Drake', mimic=True)
    warnings += drivetrain_warnings(robot, 'Drake', friction=False)
    root = _with_drake_namespace(parse_xml(description))
    for element in [e for e in root.iter() if local_name(e) in REPLACED]:
        parent = element.getparent()
        if parent is not None:
            parent.remove(element)
    ns = namespace(root)
    joints = {e.get('name'): e for e in root if local_name(e) == 'joint'}
    for actuator in actuators:
        _set_effort_limit(joints.get(actuator.joint), actuator, ns)
        _add_damping(joints.get(actuator.joint), actuator.viscous, ns)
        root.append(_transmission(actuator, ns))
    for mimic in mimics:
        _set_mimic(joints.get(mimic.joint), mimic, ns)
    etree.indent(root, space='  ')
    text = etree.tostring(root, encoding='unicode')
    return '<?xml version="1.0"?>\n' + text + '\n', warnings


def _with_drake_namespace(root: Any) -> Any:
    """Return ``root``, or a copy declaring ``xmlns:drake`` when it does not."""
    if root.nsmap.get('drake') == DRAKE_NAMESPACE:
        return root
    nsmap = {k: v for k, v in root.nsmap.items() if k != 'drake'}
    nsmap['drake'] = DRAKE_NAMESPACE
    copy = etree.Element(root.tag, attrib=dict(root.attrib), nsmap=nsmap)
    copy.text = root.text
    for child in list(root):
        copy.append(child)
    return copy


def _tag(ns: str, name: str) -> str:
    return f'{{{ns}}}{name}' if ns else name


def _number(value: float) -> str:
    return repr(float(value))


def _set_effort_limit(joint: Any, actuator: JointActuator, ns: str) -> None:
    if joint is None or not actuator.effort_limit < float('inf'):
        return
    limit = next((c for c in joint if local_name(c) == 'limit'), None)
    if limit is None:
        limit = etree.SubElement(joint, _tag(ns, 'limit'))
    limit.set('effort', _number(actuator.effort_limit))


def _add_damping(joint: Any, viscous: float, ns: str) -> None:
    """Add ``viscous`` to the joint's ``<dynamics damping>`` (the URDF's own kept)."""
    if joint is None or not viscous > 0.0:
        return
    dynamics = next((c for c in joint if local_name(c) == 'dynamics'), None)
    if dynamics is None:
        dynamics = etree.SubElement(joint, _tag(ns, 'dynamics'))
    dynamics.set('damping', _number(float(dynamics.get('damping', '0') or 0.0) + viscous))


def _set_mimic(joint: Any, mimic: Mimic, ns: str) -> None:
    if joint is None:
        return
    for old in [c for c in joint if local_name(c) == 'mimic']:
        joint.remove(old)
    etree.SubElement(joint, _tag(ns, 'mimic'), joint=mimic.driver,
                     multiplier=_number(mimic.multiplier), offset=_number(mimic.offset))


def _transmission(actuator: JointActuator, ns: str) -> Any:
    """Return ``<transmission>`` of one joint actuator (module docstring)."""
    element = etree.Element(_tag(ns, 'transmission'), name=f'{actuator.joint}_drake')
    etree.SubElement(element, _tag(ns, 'type')).text = 'transmission_interface/SimpleTransmission'
    joint = etree.SubElement(element, _tag(ns, 'joint'), name=actuator.joint)
    etree.SubElement(joint, _tag(ns, 'hardwareInterface')).text = 'EffortJointInterface'
    motor = etree.SubElement(element, _tag(ns, 'actuator'), name=actuator.name)
    etree.SubElement(motor, _tag(ns, 'hardwareInterface')).text = 'EffortJointInterface'
    etree.SubElement(motor, _tag(ns, 'mechanicalReduction')).text = '1'
    drake = f'{{{DRAKE_NAMESPACE}}}'
    etree.SubElement(motor, drake + 'rotor_inertia', value=_number(actuator.rotor_inertia))
    etree.SubElement(motor, drake + 'gear_ratio', value=_number(actuator.gear_ratio))
    if actuator.kp is not None:
        etree.SubElement(motor, drake + 'controller_gains', p=_number(actuator.kp),
                         d=_number(actuator.kd or 0.0))
    return element
