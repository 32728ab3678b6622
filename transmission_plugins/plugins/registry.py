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
The transmission plugin registry: entry points of group ``transmission_plugins.transmissions``.

Three separate stages, no global state:

1. :func:`find_transmission_plugins` lists the entry points of installed distributions (or of the
   distributions given) without importing anything;
2. :func:`load_transmission_class` imports only the plugin a URDF asks for, by its exact
   pluginlib lookup name (``transmission_interface/SimpleTransmission``), and checks that it is a
   :class:`~transmission_plugins.core.transmission.Transmission` subclass;
3. :func:`build_transmission` calls the class's ``from_info`` on one parsed record, and
   :func:`build_transmissions` does it for a whole robot and checks the wiring across
   transmissions (unknown joints, a joint driven twice, an actuator shared).

The built-in transmissions are registered in this package's ``setup.cfg`` through the same group,
so a third-party package adds a transmission by declaring an entry point only.
"""

from dataclasses import dataclass
import importlib.metadata
from typing import Any
from typing import Collection
from typing import Dict
from typing import Iterable
from typing import List
from typing import Mapping
from typing import NamedTuple
from typing import Optional
from typing import Sequence
from typing import Type
import warnings

import numpy as np

from transmission_plugins.core.exceptions import BadValueError
from transmission_plugins.core.exceptions import BrokenReferenceError
from transmission_plugins.core.exceptions import TransmissionError
from transmission_plugins.core.exceptions import TransmissionLoadError
from transmission_plugins.core.exceptions import TransmissionValueError
from transmission_plugins.core.exceptions import UnknownTransmissionTypeError
from transmission_plugins.core.info import TransmissionInfo
from transmission_plugins.core.info import TransmissionWiring
from transmission_plugins.core.transmission import Transmission

#: The entry-point group transmission plugins register under.
ENTRY_POINT_GROUP = 'transmission_plugins.transmissions'


class TransmissionPlugin(NamedTuple):
    """One registered (not yet imported) transmission plugin."""

    #: the lookup name written in URDFs, e.g. ``transmission_interface/SimpleTransmission``
    name: str
    #: the entry point's target, ``module:Class``
    value: str
    #: the distribution that registers it, and its version
    distribution: str
    version: str
    entry_point: Any


class BuiltTransmission(NamedTuple):
    """A parsed record and what its plugin built from it."""

    info: TransmissionInfo
    wiring: TransmissionWiring


@dataclass
class BuildResult:
    """What :func:`build_transmissions` built for a robot."""

    transmissions: List[BuiltTransmission]
    #: lenient-mode replacements and skipped transmissions, each naming the element path
    warnings: List[str]


def find_transmission_plugins(
        distributions: Optional[Iterable[Any]] = None) -> List[TransmissionPlugin]:
    """
    List the transmission plugins registered by installed distributions, without importing them.

    :param distributions: ``importlib.metadata.Distribution`` objects to search (default: all
        installed ones); a distribution found twice on the path is listed once
    :returns: plugins sorted by name, distribution, version and target
    """
    if distributions is None:
        distributions = importlib.metadata.distributions()
    seen = set()
    plugins = []
    for dist in distributions:
        try:
            dist_name = dist.metadata['Name'] or ''
            version = dist.version or ''
            entry_points = list(dist.entry_points)
        except Exception:  # broken metadata of an unrelated distribution: skip it
            continue
        for ep in entry_points:
            if ep.group != ENTRY_POINT_GROUP:
                continue
            key = (ep.name, ep.value, dist_name.lower().replace('-', '_'))
            if key in seen:
                continue
            seen.add(key)
            plugins.append(TransmissionPlugin(ep.name, ep.value, dist_name, version, ep))
    plugins.sort(key=lambda p: (p.name, p.distribution, p.version, p.value))
    return plugins


def load_transmission_class(type_name: str, *,
                            plugins: Optional[Sequence[TransmissionPlugin]] = None,
                            where: str = '',
                            aliases: Optional[Mapping[str, str]] = None) -> Type[Transmission]:
    """
    Import the plugin registered under ``type_name`` (exact match) and return its class.

    :param type_name: the pluginlib lookup name written in the URDF
    :param plugins: the registry to search (default: :func:`find_transmission_plugins`)
    :param where: the requesting transmission (name or element path), for messages
    :param aliases: opt-in renaming applied first, e.g.
        ``{'sr_mechanism_model/SimpleTransmission': 'transmission_interface/SimpleTransmission'}``
        for a vendor type whose map is the standard one
    :raises UnknownTransmissionTypeError: no plugin has that name; the message lists the known
    :raises TransmissionLoadError: the import failed (chained) or the target is not a
        Transmission subclass
    """
    if plugins is None:
        plugins = find_transmission_plugins()
    if aliases and type_name in aliases:
        where = f'{where}: {type_name!r} aliased to' if where else f'{type_name!r} aliased to'
        type_name = aliases[type_name]
    matches = [p for p in plugins if p.name == type_name]
    if not matches:
        raise UnknownTransmissionTypeError(type_name, sorted({p.name for p in plugins}), where)
    if len({p.value for p in matches}) > 1:
        raise TransmissionLoadError(
            type_name, 'registered more than once with different targets: ' + ', '.join(
                f'{p.value} ({p.distribution} {p.version})' for p in matches), where=where)
    plugin = matches[0]
    origin = f'{plugin.value} from {plugin.distribution} {plugin.version}'.strip()
    try:
        loaded = plugin.entry_point.load()
    except Exception as e:  # any import-time failure of the plugin module
        raise TransmissionLoadError(type_name, f'failed to load {origin}: {e!r}', e,
                                    where) from e
    if not (isinstance(loaded, type) and issubclass(loaded, Transmission)):
        raise TransmissionLoadError(type_name, f'{origin} is {loaded!r}, not a Transmission '
                                    'subclass', where=where)
    return loaded


def build_transmission(info: TransmissionInfo,
                       plugins: Optional[Sequence[TransmissionPlugin]] = None, *,
                       record: Optional[List[str]] = None,
                       aliases: Optional[Mapping[str, str]] = None) -> TransmissionWiring:
    """
    Build one transmission from its parsed record through the plugin of its type.

    :param info: the record (see :mod:`transmission_plugins.urdf.dialects`)
    :param plugins: the registry (default: :func:`find_transmission_plugins`)
    :param record: when given, the plugin's user warnings (lenient-mode replacements) are
        appended to it as strings instead of being issued
    :param aliases: see :func:`load_transmission_class`
    :returns: the transmission and its joint and actuator names in map order
    :raises UrdfTransmissionError: (a subclass) the plugin rejects the element; a constructor
        ``TransmissionValueError`` is re-raised as ``BadValueError`` naming ``info.path``
    :raises TransmissionLoadError: the plugin is unknown, fails to import or breaks the protocol
    """
    where = info.path or info.name
    cls = load_transmission_class(info.type, plugins=plugins, where=where, aliases=aliases)
    from_info = getattr(cls, 'from_info', None)
    if from_info is None:
        raise TransmissionLoadError(info.type, f'{cls.__module__}.{cls.__qualname__} has no '
                                    'from_info classmethod', where=where)
    try:
        if record is None:
            wiring = from_info(info)
        else:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter('always', UserWarning)
                try:
                    wiring = from_info(info)
                finally:
                    record.extend(str(w.message) for w in caught
                                  if issubclass(w.category, UserWarning))
    except TransmissionValueError as e:
        raise BadValueError(where, str(e), info.line) from e
    return _checked_wiring(info, cls, wiring)


def _checked_wiring(info: TransmissionInfo, cls: type, wiring: Any) -> TransmissionWiring:
    name = f'{cls.__module__}.{cls.__qualname__}.from_info'
    where = info.path or info.name
    if not isinstance(wiring, tuple) or len(wiring) < 3:
        raise TransmissionLoadError(info.type, f'{name} returned {wiring!r}, not a '
                                    'TransmissionWiring', where=where)
    transmission, joints, actuators = wiring[0], tuple(wiring[1]), tuple(wiring[2])
    if not isinstance(transmission, Transmission):
        raise TransmissionLoadError(info.type, f'{name} returned {transmission!r}, not a '
                                    'Transmission', where=where)
    if not all(isinstance(n, str) for n in joints + actuators):
        raise TransmissionLoadError(info.type, f'{name} returned non-string names {joints} / '
                                    f'{actuators}', where=where)
    if len(joints) != transmission.num_joints() or \
            len(actuators) != transmission.num_actuators():
        raise TransmissionLoadError(
            info.type, f'{name} returned {len(joints)} joint and {len(actuators)} actuator '
            f'names for a transmission of {transmission.num_joints()} joints and '
            f'{transmission.num_actuators()} actuators', where=where)
    for side, names in (('joint', joints), ('actuator', actuators)):
        if len(set(names)) != len(names):
            raise BrokenReferenceError(where, f'{side} names {list(names)} repeat a name',
                                       info.line)
    return TransmissionWiring(transmission, joints, actuators)


def _end_path(info: TransmissionInfo, name: str, side: str) -> str:
    for end in (info.joints if side == 'joint' else info.actuators):
        if end.name == name:
            return end.path
    return info.path or info.name


def _where(info: TransmissionInfo) -> str:
    return f'{info.name!r} ({info.path}' + (f', line {info.line})' if info.line else ')')


def same_map(a: Transmission, b: Transmission) -> bool:
    """Return True when two transmissions have the same type and the same maps."""
    if type(a) is not type(b):
        return False
    linear_map = getattr(a, 'linear_map', None)
    if a.is_linear() and linear_map is not None:
        return all(np.array_equal(x, y) for x, y in zip(linear_map(), b.linear_map()))
    return repr(a) == repr(b)


def _check_references(info: TransmissionInfo, wiring: TransmissionWiring,
                      known_joints: Optional[Collection[str]],
                      named: Dict[str, TransmissionInfo],
                      driven: Dict[str, TransmissionInfo],
                      used: Dict[str, BuiltTransmission]) -> Optional[str]:
    """Raise BrokenReferenceError on a wiring conflict; return a note for a shared actuator."""
    if info.name in named:
        raise BrokenReferenceError(info.path or info.name, f'transmission name {info.name!r} is '
                                   f'already used by {_where(named[info.name])}', info.line)
    for name in wiring.joint_names:
        path = _end_path(info, name, 'joint')
        if known_joints is not None and name not in known_joints:
            raise BrokenReferenceError(path, f'joint {name!r} is not a <joint> of the robot',
                                       info.line)
        if name in driven:
            raise BrokenReferenceError(path, f'joint {name!r} is already driven by transmission '
                                       f'{_where(driven[name])}', info.line)
    shared = [name for name in wiring.actuator_names if name in used]
    if not shared:
        return None
    owner = used[shared[0]]
    if owner.wiring.actuator_names == wiring.actuator_names and \
            same_map(owner.wiring.transmission, wiring.transmission):
        return (f'{info.path}: actuator(s) {shared} shared with transmission '
                f'{_where(owner.info)}, which has the same map')
    raise BrokenReferenceError(
        _end_path(info, shared[0], 'actuator'), f'actuator {shared[0]!r} is already used by '
        f'transmission {_where(owner.info)} with a different map; an actuator can only be '
        'shared by transmissions with identical maps (their joint-to-actuator maps would '
        'conflict)', info.line)


def build_transmissions(infos: Iterable[TransmissionInfo], *,
                        joint_names: Optional[Collection[str]] = None, lenient: bool = False,
                        plugins: Optional[Sequence[TransmissionPlugin]] = None,
                        aliases: Optional[Mapping[str, str]] = None) -> BuildResult:
    """
    Build every transmission of a robot and check the wiring across them.

    Checks, in record order: no two transmissions share a name (the parser merges exact
    duplicates), each joint a transmission drives is a ``<joint>`` of the robot (when
    ``joint_names`` is non-empty; actuator names are a separate namespace and are not checked),
    no joint is driven by two transmissions, and an actuator is shared only by transmissions
    with the same actuator list and identical maps (recorded as a note; the first one owns
    it).

    :param infos: the records, e.g. ``parse_transmissions(...).transmissions``
    :param joint_names: the robot's joints, e.g. ``ParseResult.joint_names``; empty or None
        skips the unknown-joint check (transmission-only test descriptions)
    :param lenient: skip a transmission that fails (unknown type, bad element, broken
        reference) with a warning instead of raising; the first one to claim a joint or an
        actuator keeps it
    :param plugins: the registry (default: :func:`find_transmission_plugins`, computed once)
    :param aliases: opt-in type renaming, see :func:`load_transmission_class`
    :raises TransmissionError: in strict mode, the first failure
    """
    if plugins is None:
        plugins = find_transmission_plugins()
    known = set(joint_names) if joint_names else None
    built: List[BuiltTransmission] = []
    notes: List[str] = []
    named: Dict[str, TransmissionInfo] = {}
    driven: Dict[str, TransmissionInfo] = {}
    used: Dict[str, BuiltTransmission] = {}
    for info in infos:
        try:
            wiring = build_transmission(info, plugins, record=notes, aliases=aliases)
            note = _check_references(info, wiring, known, named, driven, used)
        except TransmissionError as e:
            if not lenient:
                raise
            if isinstance(e, UnknownTransmissionTypeError):  # short: the list is in the error
                notes.append(f'skipped (lenient mode): {e.where}: no plugin is installed for '
                             f'type {e.plugin_name!r}')
            else:
                notes.append(f'skipped (lenient mode): {e}')
            continue
        if note:
            notes.append(note)
        named[info.name] = info
        for name in wiring.joint_names:
            driven[name] = info
        item = BuiltTransmission(info, wiring)
        for name in wiring.actuator_names:
            used.setdefault(name, item)
        built.append(item)
    return BuildResult(built, notes)
