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
Read the ``<joint>`` and ``<actuator>`` children of a ``<transmission>``, in any dialect.

Both carry a name, an optional role (``role`` attribute or ``<role>`` element), a reduction
(``<mechanicalReduction>`` or ``<mechanical_reduction>``), an ``<offset>``, hardware interfaces
and ``read_only``; actuators may also carry Drake tags and ros2_control ``<param>`` data.
"""

from typing import Any
from typing import Dict
from typing import List
from typing import Optional
from typing import Sequence
from typing import Tuple

from transmission_plugins.core.exceptions import BadValueError
from transmission_plugins.core.exceptions import LoadWarning
from transmission_plugins.core.exceptions import UrdfTransmissionError
from transmission_plugins.urdf.actuator_tags import read_actuator_extensions
from transmission_plugins.urdf.context import element_text
from transmission_plugins.urdf.context import ParseContext
from transmission_plugins.urdf.context import read_number
from transmission_plugins.urdf.context import single_child
from transmission_plugins.urdf.context import single_child_of
from transmission_plugins.urdf.elements import local_name
from transmission_plugins.urdf.elements import require_attribute
from transmission_plugins.urdf.elements import source_line
from transmission_plugins.urdf.elements import XmlElement
from transmission_plugins.urdf.vocabulary import DEFAULT_OFFSET
from transmission_plugins.urdf.vocabulary import DEFAULT_REDUCTION
from transmission_plugins.urdf.vocabulary import HARDWARE_INTERFACE_PREFIX
from transmission_plugins.urdf.vocabulary import HARDWARE_INTERFACE_TAG
from transmission_plugins.urdf.vocabulary import OFFSET_TAG
from transmission_plugins.urdf.vocabulary import REDUCTION_TAGS
from transmission_plugins.urdf.vocabulary import ROLE_TAG


def read_role(ctx: ParseContext, element: XmlElement, path: str) -> Optional[str]:
    attribute = element.get('role')
    role_element = single_child(ctx, element, path, ROLE_TAG)
    if role_element is None:
        return attribute.strip() if attribute is not None else None
    text = element_text(role_element)
    if attribute is not None and attribute.strip() != text:
        raise BadValueError(f'{path}/{ROLE_TAG}', f'role attribute {attribute!r} and <role> '
                            f'element {text!r} disagree', source_line(role_element))
    return text


def read_bool(element: XmlElement, path: str, attribute: str) -> bool:
    value = element.get(attribute)
    if value is None:
        return False
    if value.strip().lower() in ('true', '1'):
        return True
    if value.strip().lower() in ('false', '0'):
        return False
    raise BadValueError(f'{path}/@{attribute}', f"expected 'true' or 'false', got {value!r}",
                        source_line(element))


def read_interfaces(ctx: ParseContext, element: XmlElement, path: str) -> Tuple[str, ...]:
    names: List[str] = []
    for child in ctx.children(element, HARDWARE_INTERFACE_TAG):
        text = element_text(child)
        if not text:
            if not ctx.lenient:
                raise BadValueError(f'{path}/{HARDWARE_INTERFACE_TAG}', 'the '
                                    '<hardwareInterface> element is empty', source_line(child))
            ctx.warn(f'{path}/{HARDWARE_INTERFACE_TAG}', 'empty <hardwareInterface> ignored '
                     '(lenient mode)', source_line(child))
            continue
        if '/' not in text:
            text = HARDWARE_INTERFACE_PREFIX + text
        if text not in names:
            names.append(text)
    return tuple(names)


def read_value(ctx: ParseContext, element: XmlElement, path: str, tags: Sequence[str], *,
               default: float, nonzero: bool) -> Optional[float]:
    child = single_child_of(ctx, element, path, tags)
    if child is None:
        return None
    return read_number(ctx, element_text(child), f'{path}/{local_name(child)}', source_line(child),
                       default=default, nonzero=nonzero)


def read_end(ctx: ParseContext, element: XmlElement, path: str) -> Dict[str, Any]:
    """Read what ``<joint>`` and ``<actuator>`` have in common."""
    return {
        'name': require_attribute(element, 'name', path),
        'role': read_role(ctx, element, path),
        'mechanical_reduction': read_value(ctx, element, path, REDUCTION_TAGS,
                                           default=DEFAULT_REDUCTION, nonzero=True),
        'offset': read_value(ctx, element, path, (OFFSET_TAG,), default=DEFAULT_OFFSET,
                             nonzero=False),
        'interfaces': read_interfaces(ctx, element, path),
        'read_only': read_bool(element, path, 'read_only'),
        'path': path,
        'line': source_line(element),
        'element': element,
    }


def read_actuator_data(ctx: ParseContext, element: XmlElement, path: str) -> Dict[str, Any]:
    """Read Drake tags and ros2_control ``<param>`` values of an actuator (lenient: warn)."""
    try:
        return read_actuator_extensions(element, path)
    except UrdfTransmissionError as e:
        if not ctx.lenient:
            raise
        ctx.warnings.append(LoadWarning(e.path, f'{e.message}; actuator data (rotor inertia, '
                                        'gear ratio, effort limit, gains) ignored (lenient mode)',
                                        e.line))
        return {}
