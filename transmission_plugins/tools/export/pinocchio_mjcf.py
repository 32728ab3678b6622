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
``export --to pinocchio``: an MJCF that ``pinocchio.buildModelFromMJCF`` reads with the armature.

Pinocchio's URDF parser reads no rotor data; its MJCF parser reads each joint's ``armature``
into ``model.armature`` and ``actuatorfrcrange`` into ``model.effortLimit``, so the export is
the MuJoCo model of the description (:func:`~.runtime.mujoco_model.build_spec`, the same
links and joints as ``--to mujoco``) with

* each actuated joint's ``armature`` the :math:`G^2 I_r` of its joint actuator
  (:mod:`~.joint_actuators`: the diagonal of the package's reflected inertia
  :math:`K^T\operatorname{diag}(\rho^2 I_r)K`, exact for one-to-one transmissions, the cross
  terms of coupled ones left out with a warning) and ``actuatorfrcrange`` its effort limit;
* every body's inertia, no tendons or equalities, and the trees in one body named like the
  URDF's root link, as doc/cli.md ("Why MJCF for Pinocchio") says;
* each joint's ``frictionloss`` (``model.friction``) and ``damping`` (``model.damping``): its
  joint-side friction and, for a one-to-one pair, the motor side's reflected through the
  reduction (:mod:`~.joint_actuators`); no dead-band joint for backlash and no spring joint for
  a series-elastic transmission (either would add a degree of freedom): backlash, series
  springs and the rest are named in one warning each.
"""


from lxml import etree
import numpy as np

from transmission_plugins.core.exceptions import BadValueError
from transmission_plugins.robot.robot_transmissions import RobotTransmissions
from transmission_plugins.runtime.mujoco_model import build_spec
from transmission_plugins.runtime.mujoco_model import import_mujoco
from transmission_plugins.tools.export.joint_actuators import drivetrain_warnings
from transmission_plugins.tools.export.joint_actuators import joint_actuators
from transmission_plugins.tools.export.mujoco_mjcf import EXPORT_OPTIONS
from transmission_plugins.tools.export.mujoco_mjcf import to_xml
from transmission_plugins.urdf.elements import local_name
from transmission_plugins.urdf.text import parse_xml


def pinocchio_mjcf(robot: RobotTransmissions, description: str,
                   base_dir: str | None = None) -> tuple[str, list[str]]:
    """
    Return the MJCF text for Pinocchio and the export's warnings.

    :param description: the URDF text
    :param base_dir: directory of relative mesh file names
    :raises TransmissionError: MuJoCo rejects the description or a transmission cannot be
        represented (named by its URDF element path)
    """
    mujoco = import_mujoco()
    actuators, _, warnings = joint_actuators(robot, 'Pinocchio')
    warnings += drivetrain_warnings(robot, 'Pinocchio')
    built = build_spec(robot, description,
                       EXPORT_OPTIONS._replace(backlash=False, springs=False), base_dir=base_dir)
    spec = built.spec
    try:
        model = spec.compile()
    except ValueError as e:
        raise BadValueError('/robot', f'MuJoCo cannot compile the description: {e}') from e
    for body in list(spec.bodies)[1:]:   # the world has none
        i = int(mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, body.name))
        body.explicitinertial = True
        body.mass = float(model.body_mass[i])
        body.ipos = model.body_ipos[i]
        body.iquat = model.body_iquat[i]
        body.inertia = model.body_inertia[i]
        body.fullinertia = [float('nan')] * 6   # the diagonal form only
    for element in list(spec.tendons) + list(spec.equalities):
        spec.delete(element)
    dropped = robot.mimic_joints + list(built.locked)
    if dropped:
        warnings.append('joints ' + ', '.join(dropped) + ' mimic another joint or are locked '
                        'for want of a motor: Pinocchio reads no equality, they are free there')
    joint_friction = robot.drivetrain.joint_friction
    for actuator in actuators:
        joint = spec.joint(actuator.joint)
        joint.armature = actuator.armature()
        # build_spec put the joint side there: add the motor side reflected
        j = robot.joint_index[actuator.joint]
        joint.frictionloss = float(joint.frictionloss) + actuator.coulomb \
            - float(joint_friction.coulomb[j])
        damping = np.array(joint.damping, dtype=np.float64)
        damping.reshape(-1)[0] += actuator.viscous - float(joint_friction.viscous[j])
        joint.damping = damping
        if actuator.effort_limit < float('inf'):
            joint.actfrclimited = mujoco.mjtLimited.mjLIMITED_TRUE
            joint.actfrcrange = [-actuator.effort_limit, actuator.effort_limit]
    text = _one_tree(to_xml(spec), _root_link(description))
    return text, [str(w) for w in built.warnings] + warnings


def _root_link(description: str) -> str:
    """Return the name of the URDF's root link (a link no joint has as its child)."""
    root = parse_xml(description)
    links = [e.get('name') for e in root if local_name(e) == 'link']
    children = {c.get('link') for e in root if local_name(e) == 'joint'
                for c in e if local_name(c) == 'child'}
    return next((name for name in links if name not in children), 'root') or 'root'


def _one_tree(text: str, name: str) -> str:
    """Return the MJCF with the bodies of ``<worldbody>`` inside one body ``name``."""
    root = etree.fromstring(text.encode())
    world = root.find('worldbody')
    bodies = [] if world is None else [e for e in world if e.tag == 'body']
    if len(bodies) < 2:
        return text
    taken = {e.get('name') for e in root.iter('body')}
    while name in taken:
        name += '_root'
    tree = etree.Element('body', name=name)
    # fixed to the world: its inertia is in no joint's (MuJoCo's bounds, for the parser)
    bound = (EXPORT_OPTIONS.bound_mass, EXPORT_OPTIONS.bound_inertia)
    etree.SubElement(tree, 'inertial', pos='0 0 0', mass=repr(bound[0]),
                     diaginertia=' '.join([repr(bound[1])] * 3))
    world.insert(list(world).index(bodies[0]), tree)
    for body in bodies:
        tree.append(body)
    etree.indent(root, space='  ')
    return etree.tostring(root, encoding='unicode') + '\n'
