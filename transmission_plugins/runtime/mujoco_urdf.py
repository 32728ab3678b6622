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
The copy of a robot description that MuJoCo's URDF importer is given (doc/physics.md).

Besides what the page lists, the ``<mimic>`` of joints whose transmission already says how they
move is dropped, and a joint with joint-side backlash of width :math:`w` is split in two
(:func:`split_for_backlash`): the joint itself, the transmission's drive, moves a massless link
``<joint>__drive``, and a joint ``<joint>__backlash`` of the same kind and axis, limited to
:math:`\pm w/2`, carries the original child link: the dead band between the drive and the link.
A joint of a series-elastic transmission is split the same way (:func:`split_for_spring`): the
joint moves the drive ``<joint>__drive`` and an unlimited joint ``<joint>__spring`` carries the
link; the model gives that joint the spring's stiffness and damping.
"""

import os
from pathlib import Path
from typing import Any
from typing import Iterable
from typing import Mapping

from lxml import etree

from transmission_plugins.core.exceptions import LoadWarning
from transmission_plugins.urdf.elements import namespace
from transmission_plugins.urdf.joints import plain_copy
from transmission_plugins.urdf.text import parse_xml
from transmission_plugins.urdf.text import read_urdf_text

#: Mesh formats MuJoCo reads.
MESH_FORMATS = ('.stl', '.obj', '.msh')
#: How many dropped mesh names the warning lists.
LISTED = 3


def _package_roots(package: str) -> list[Path]:
    roots = [Path(p, 'share', package)
             for p in os.environ.get('AMENT_PREFIX_PATH', '').split(os.pathsep) if p]
    roots += [Path(p, package)
              for p in os.environ.get('ROS_PACKAGE_PATH', '').split(os.pathsep) if p]
    return roots


def resolve_mesh(filename: str, base_dir: str | None = None) -> Path | None:
    """
    Return the file a URDF mesh ``filename`` names, or None when it cannot be found.

    ``package://pkg/path`` is looked up in ``<prefix>/share/pkg`` of ``AMENT_PREFIX_PATH`` and
    in ``<dir>/pkg`` of ``ROS_PACKAGE_PATH``; ``file://path`` and plain paths are taken as they
    are when absolute, else relative to ``base_dir`` (default: the working directory).
    """
    if filename.startswith('package://'):
        package, _, rest = filename[len('package://'):].partition('/')
        candidates = [root / rest for root in _package_roots(package)] if rest else []
    else:
        path = Path(filename[len('file://'):] if filename.startswith('file://') else filename)
        candidates = [path if path.is_absolute() else Path(base_dir or os.getcwd()) / path]
    return next((c.resolve() for c in candidates if c.is_file()), None)


def _meshes(links: Iterable[Any], base_dir: str | None) -> tuple[list[str], list[str]]:
    """Resolve every collision mesh in place; drop the others; return (missing, unreadable)."""
    missing: list[str] = []
    unreadable: list[str] = []
    for link in links:
        for collision in link.findall('collision'):
            mesh = collision.find('geometry/mesh')
            if mesh is None:
                continue
            filename = mesh.get('filename', '')
            path = resolve_mesh(filename, base_dir)
            if path is None:
                missing.append(filename)
            elif path.suffix.lower() not in MESH_FORMATS:
                unreadable.append(filename)
            else:
                mesh.set('filename', str(path))
                continue
            link.remove(collision)
    return missing, unreadable


def _listed(names: list[str]) -> str:
    more = f' and {len(names) - LISTED} more' if len(names) > LISTED else ''
    return ', '.join(repr(n) for n in names[:LISTED]) + more


def _compiler(options: Any) -> Any:
    mujoco = etree.Element('mujoco')
    etree.SubElement(mujoco, 'compiler', {
        'discardvisual': 'true', 'strippath': 'false', 'inertiafromgeom': 'false',
        'balanceinertia': 'true', 'boundmass': repr(float(options.bound_mass)),
        'boundinertia': repr(float(options.bound_inertia)), 'angle': 'radian'})
    return mujoco


#: the suffixes of the link and the joint a joint with backlash (a series spring) is split with
DRIVE_LINK = '__drive'
BACKLASH_JOINT = '__backlash'
SPRING_JOINT = '__spring'


def _split(joint: Any, suffix: str, joint_type: str) -> tuple[Any, Any]:
    """Move ``joint`` onto a new link ``<name>__drive``; return it and the joint to the child."""
    name = joint.get('name')
    child = joint.find('child')
    drive = f'{name}{DRIVE_LINK}'
    link = etree.Element('link', name=drive)
    second = etree.Element('joint', name=f'{name}{suffix}', type=joint_type)
    etree.SubElement(second, 'parent', link=drive)
    etree.SubElement(second, 'child', link=child.get('link'))
    axis = joint.find('axis')
    etree.SubElement(second, 'axis', xyz='1 0 0' if axis is None else axis.get('xyz', '1 0 0'))
    child.set('link', drive)
    return link, second


def split_for_spring(joint: Any) -> list[Any]:
    r"""
    Split the URDF ``joint`` (a copy, edited in place) at a series spring.

    ``joint`` now moves a new link ``<name>__drive`` (no inertial: MuJoCo's bounds give it one;
    the rotor's armature is on ``joint``); the returned link and joint ``<name>__spring``
    (prismatic like ``joint``, else continuous, same axis, unlimited) carry the original child
    link.  The spring joint's position is :math:`q - q_{drive} = -\delta`.
    """
    kind = 'prismatic' if joint.get('type') == 'prismatic' else 'continuous'
    return list(_split(joint, SPRING_JOINT, kind))


def split_for_backlash(joint: Any, width: float) -> list[Any]:
    r"""
    Split the URDF ``joint`` (a copy, edited in place) at a dead band of total ``width``.

    ``joint`` now moves a new link ``<name>__drive`` (no inertial: MuJoCo's bounds give it one);
    the returned link and joint ``<name>__backlash`` (revolute or prismatic like ``joint``,
    same axis, range :math:`\pm` ``width``/2) carry the original child link.
    """
    link, play = _split(joint, BACKLASH_JOINT,
                        'prismatic' if joint.get('type') == 'prismatic' else 'revolute')
    half = repr(0.5 * float(width))
    etree.SubElement(play, 'limit', lower=f'-{half}', upper=half, effort='0', velocity='0')
    return [link, play]


def mujoco_urdf(description: str, options: Any, followers: Iterable[str],
                base_dir: str | None = None,
                backlash: Mapping[str, float] | None = None,
                springs: Iterable[str] = ()) -> tuple[str, list[LoadWarning]]:
    """
    Return the URDF text for MuJoCo and the warnings (at most one, about meshes left out).

    :param options: a :class:`~.mujoco_model.ModelOptions` (``contacts``, ``bound_mass``,
        ``bound_inertia``)
    :param followers: joints whose ``<mimic>`` is dropped (their transmission moves them)
    :param base_dir: directory of relative mesh file names
    :param backlash: joint name -> the width of its joint-side backlash (> 0): the joint is
        split (:func:`split_for_backlash`)
    :param springs: joints of series-elastic transmissions: split (:func:`split_for_spring`)
    """
    backlash = dict(backlash or {})
    springs = set(springs)
    root = parse_xml(read_urdf_text(description))
    followers = set(followers)
    robot = etree.Element('robot', name=root.get('name', 'robot'))
    links = []
    for element in root:
        if not isinstance(element.tag, str) or namespace(element) \
                or element.tag not in ('link', 'joint'):
            continue
        element = plain_copy(element, namespaced=False)
        if element.tag == 'link':
            for visual in element.findall('visual'):
                element.remove(visual)
            if not options.contacts:
                for collision in element.findall('collision'):
                    element.remove(collision)
            links.append(element)
        elif element.get('name') in followers:
            for mimic in element.findall('mimic'):
                element.remove(mimic)
        robot.append(element)
        if element.tag == 'joint' and backlash.get(element.get('name'), 0.0) > 0.0 \
                and element.find('child') is not None:
            for added in split_for_backlash(element, backlash[element.get('name')]):
                robot.append(added)
        elif element.tag == 'joint' and element.get('name') in springs \
                and element.find('child') is not None:
            for added in split_for_spring(element):
                robot.append(added)
    missing, unreadable = _meshes(links, base_dir)
    warnings = []
    if missing or unreadable:
        parts = [f'{len(missing)} not found ({_listed(missing)})' if missing else '',
                 f'{len(unreadable)} in a format MuJoCo cannot read ({_listed(unreadable)}; it '
                 f'reads {", ".join(MESH_FORMATS)})' if unreadable else '']
        warnings.append(LoadWarning(
            '/robot', f'{len(missing) + len(unreadable)} collision meshes left out of the MuJoCo '
                      f'model: {"; ".join(p for p in parts if p)}; those links collide through '
                      'their other collision shapes only'))
    robot.append(_compiler(options))
    return etree.tostring(robot, encoding='unicode'), warnings
