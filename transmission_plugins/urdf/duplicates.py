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
Transmissions declared more than once under one name.

Exact duplicates (same type, dialect, element content and actuators: Franka declares each
transmission once per hardware interface) are merged with their hardware interfaces combined and
a warning; a name reused with a different mapping is an error (lenient mode keeps both and the
robot's wiring keeps the first that builds).
"""

from dataclasses import replace
from typing import Any
from typing import Dict
from typing import List
from typing import Sequence
from typing import Tuple

from transmission_plugins.core.exceptions import BrokenReferenceError
from transmission_plugins.core.exceptions import LoadWarning
from transmission_plugins.urdf.context import ParseContext
from transmission_plugins.urdf.elements import local_name
from transmission_plugins.urdf.elements import XmlElement
from transmission_plugins.urdf.records import TransmissionInfo
from transmission_plugins.urdf.vocabulary import HARDWARE_INTERFACE_TAG


# ---------------------------------------------------------------------------------- duplicates
def _canonical(element: XmlElement) -> Tuple[Any, ...]:
    """Return a comparable form of an element, ignoring comments and hardwareInterface."""
    kids = tuple(_canonical(c) for c in element
                 if local_name(c) and local_name(c) != HARDWARE_INTERFACE_TAG)
    return (element.tag, tuple(sorted(element.attrib.items())), (element.text or '').strip(),
            kids)


def mapping_key(info: TransmissionInfo) -> Tuple[Any, ...]:
    """Return what must be equal for two records with one name to be the same transmission."""
    element = _canonical(info.element) if info.element is not None else None
    return (info.type, info.dialect, element, tuple(a.name for a in info.actuators),
            info.block_type)


def _merge_ends(first: Sequence[Any], other: Sequence[Any]) -> Tuple[Any, ...]:
    merged = []
    for a, b in zip(first, other):
        extra = tuple(i for i in b.interfaces if i not in a.interfaces)
        merged.append(replace(a, interfaces=a.interfaces + extra) if extra else a)
    return tuple(merged)


def merge_duplicates(infos: List[TransmissionInfo], ctx: ParseContext) -> List[TransmissionInfo]:
    out: List[TransmissionInfo] = []
    index: Dict[str, int] = {}
    merged: Dict[str, List[str]] = {}
    for info in infos:
        if info.name not in index:
            index[info.name] = len(out)
            out.append(info)
            continue
        first = out[index[info.name]]
        where = f'{first.path}' + (f' (line {first.line})' if first.line else '')
        if mapping_key(first) != mapping_key(info):
            if not ctx.lenient:
                raise BrokenReferenceError(
                    info.path, f'transmission name {info.name!r} is already used by {where} '
                    'with a different mapping', info.line)
            # lenient: keep both; the robot wiring keeps the first one that builds
            out.append(info)
            continue
        out[index[info.name]] = replace(first, joints=_merge_ends(first.joints, info.joints),
                                        actuators=_merge_ends(first.actuators, info.actuators))
        merged.setdefault(info.name, [where]).append(
            info.path + (f' (line {info.line})' if info.line else ''))
    for name, places in merged.items():
        text = (f'transmission {name!r} is declared {len(places)} times with the same mapping; '
                'merged (hardware interfaces combined): ' + ', '.join(places))
        first = out[index[name]]
        ctx.warnings.append(LoadWarning(first.path, text, first.line, text=text))
    return out
