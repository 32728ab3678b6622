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
Parse-wide state and the small strict readers the dialect parser is built from.

A :class:`ParseContext` carries the lenient flag, the URDF namespace and the warnings gathered
while parsing; lenient mode replaces an ill-defined number by its default with a warning.
"""

from typing import List
from typing import Optional
from typing import Sequence

from transmission_plugins.core.exceptions import BadValueError
from transmission_plugins.core.exceptions import LoadWarning
from transmission_plugins.urdf.elements import local_name
from transmission_plugins.urdf.elements import namespace
from transmission_plugins.urdf.elements import parse_float
from transmission_plugins.urdf.elements import source_line
from transmission_plugins.urdf.elements import XmlElement


class ParseContext:
    """Parse-wide state: lenient flag, warnings, the URDF namespace."""

    def __init__(self, lenient: bool, urdf_namespace: str) -> None:
        self.lenient = lenient
        self.ns = urdf_namespace
        self.warnings: List[LoadWarning] = []

    def warn(self, path: str, message: str, line: Optional[int] = None) -> None:
        """Record a warning about the element at ``path``."""
        self.warnings.append(LoadWarning(path, message, line))

    def children(self, element: XmlElement, name: Optional[str] = None) -> List[XmlElement]:
        """Return the URDF-namespace child elements, optionally only those named ``name``."""
        return [c for c in element if local_name(c) and namespace(c) == self.ns
                and (name is None or local_name(c) == name)]


def single_child(ctx: ParseContext, element: XmlElement, path: str,
                 tag: str) -> Optional[XmlElement]:
    """Return the only child named ``tag``, None when absent; raise when given twice."""
    found = ctx.children(element, tag)
    if len(found) > 1:
        raise BadValueError(f'{path}/{tag}', f'<{tag}> is given {len(found)} times; expected '
                            'at most once', source_line(found[1]))
    return found[0] if found else None


def single_child_of(ctx: ParseContext, element: XmlElement, path: str,
                    tags: Sequence[str]) -> Optional[XmlElement]:
    """Return the only child named one of ``tags`` (spellings of one value)."""
    found = [c for c in ctx.children(element) if local_name(c) in tags]
    if len(found) > 1:
        spelled = ', '.join(f'<{local_name(c)}>' for c in found)
        raise BadValueError(f'{path}/{local_name(found[1])}', f'the value is given '
                            f'{len(found)} times ({spelled}); expected at most once',
                            source_line(found[1]))
    return found[0] if found else None


def element_text(element: XmlElement) -> str:
    return (element.text or '').strip()


def read_number(ctx: ParseContext, text: str, path: str, line: Optional[int], *, default: float,
                nonzero: bool = False) -> float:
    """Parse strictly; in lenient mode fall back to ``default`` with a warning."""
    try:
        return parse_float(text, path, nonzero=nonzero, line=line)
    except BadValueError as e:
        if not ctx.lenient:
            raise
        ctx.warn(e.path, f'{e.message}; using the default {default!r} (lenient mode)', line)
        return default
