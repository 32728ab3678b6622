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

The built-in transmissions are registered in ``setup.cfg`` through the same group, so a
third-party package adds a transmission by declaring an entry point only.
"""

import difflib
import importlib.metadata
from typing import Iterable
from typing import Mapping
from typing import NamedTuple
from typing import Sequence

from transmission_plugins.core.exceptions import TransmissionLoadError
from transmission_plugins.core.exceptions import UnknownTransmissionTypeError
from transmission_plugins.core.transmission import Transmission

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
    entry_point: importlib.metadata.EntryPoint


def find_transmission_plugins(
        distributions: Iterable[importlib.metadata.Distribution] | None = None
) -> list[TransmissionPlugin]:
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
            # entry points first: parsing every distribution's METADATA is the slow part
            entry_points = [ep for ep in dist.entry_points if ep.group == ENTRY_POINT_GROUP]
            if not entry_points:
                continue
            dist_name = dist.metadata['Name'] or ''
            version = dist.version or ''
        except Exception:  # broken metadata of an unrelated distribution: skip it
            continue
        for ep in entry_points:
            key = (ep.name, ep.value, dist_name.lower().replace('-', '_'))
            if key in seen:
                continue
            seen.add(key)
            plugins.append(TransmissionPlugin(ep.name, ep.value, dist_name, version, ep))
    plugins.sort(key=lambda p: (p.name, p.distribution, p.version, p.value))
    return plugins


def closest_names(type_name: str, known: Sequence[str], count: int = 3) -> list[str]:
    """
    Return the registered names a mistyped ``type_name`` most likely meant, best first.

    The names ``difflib`` finds closest (a typo), then those of the same class under another
    package (``acme_control/DifferentialTransmission``: ``transmission_interface/...``).
    """
    ratio = {n: difflib.SequenceMatcher(None, type_name, n).ratio() for n in known}
    best = max(ratio.values(), default=0.0)
    close = sorted((n for n in known if ratio[n] >= max(0.8, best - 0.02)),
                   key=lambda n: -ratio[n])
    cls = type_name.rpartition('/')[2]
    same = [n for n in known if n.rpartition('/')[2] == cls and '/' in n and n != type_name]
    return list(dict.fromkeys(close + same))[:count]


def load_transmission_class(type_name: str, *,
                            plugins: Sequence[TransmissionPlugin] | None = None,
                            where: str = '',
                            aliases: Mapping[str, str] | None = None) -> type[Transmission]:
    """
    Import the plugin registered under ``type_name`` (exact match) and return its class.

    :param plugins: the registry to search (default: :func:`find_transmission_plugins`)
    :param where: the requesting transmission (name or element path), for messages
    :param aliases: opt-in renaming applied first (it also replaces a built-in plugin), e.g.
        ``{'acme_model/SimpleTransmission': 'transmission_interface/SimpleTransmission'}`` for a
        vendor type whose map is the standard one
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
        known = sorted({p.name for p in plugins})
        raise UnknownTransmissionTypeError(type_name, known, where,
                                           closest_names(type_name, known))
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
