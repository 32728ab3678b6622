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
Small helpers to read URDF XML strictly, shared by the parser and by plugins.

They work on ``xml.etree.ElementTree`` and ``lxml`` elements alike, match tags by namespace and
local name, skip comments, and raise :class:`~transmission_plugins.BadValueError` or
:class:`~transmission_plugins.IncompleteTransmissionError` naming the element path.
"""

import math
import re
from typing import Iterator
from typing import Mapping
from typing import Protocol

from transmission_plugins.core.exceptions import BadValueError
from transmission_plugins.core.exceptions import IncompleteTransmissionError


class XmlElement(Protocol):
    """
    What the URDF readers use of an XML element: ``xml.etree.ElementTree`` and lxml both fit.

    ``tag`` is a string for elements; lxml gives comments and processing instructions a
    non-string tag, which :func:`local_name` turns into ''.  lxml elements also carry
    ``sourceline`` (read with :func:`source_line`).
    """

    @property
    def tag(self) -> object:
        ...

    @property
    def text(self) -> str | None:
        ...

    @property
    def attrib(self) -> Mapping[str, str]:
        ...

    def get(self, key: str, default: None = None) -> str | None:
        ...

    def __iter__(self) -> Iterator['XmlElement']:
        ...


def local_name(element: XmlElement) -> str:
    """Return the tag without its ``{namespace}``; '' for comments and processing instructions."""
    tag = element.tag
    if not isinstance(tag, str):
        return ''
    return tag.rsplit('}', 1)[-1]


def namespace(element: XmlElement) -> str:
    """Return the ``{namespace}`` URI of the tag, or ''."""
    tag = element.tag
    if isinstance(tag, str) and tag.startswith('{'):
        return tag[1:tag.index('}')]
    return ''


def children(element: XmlElement, name: str | None = None) -> list[XmlElement]:
    """Return the child elements, comments skipped, optionally only those named ``name``."""
    return [c for c in element if local_name(c) and (name is None or local_name(c) == name)]


def quoted(name: str) -> str:
    """Return ``name`` in single quotes, or double quotes when it holds a single quote."""
    quote = "'" if "'" not in name else '"'
    return f'{quote}{name}{quote}'


def child_path(parent_path: str, element: XmlElement, index: int | None = None) -> str:
    """
    Return the path of ``element`` below ``parent_path``: the one element-path rule.

    ``parent/tag[@name='n']`` for a named element; for an unnamed one (or an empty name when
    ``index`` is given) ``parent/tag[i]`` with its 1-based ``index`` among its siblings, else
    ``parent/tag`` (``parent/tag[@name='']`` for an empty name).
    """
    name = element.get('name')
    tag = local_name(element)
    if name or (name is not None and index is None):
        return f'{parent_path}/{tag}[@name={quoted(name)}]'
    if index is not None:
        return f'{parent_path}/{tag}[{index}]'
    return f'{parent_path}/{tag}'


def source_line(element: XmlElement) -> int | None:
    """Return the element's source line (lxml only), or None when unknown."""
    return getattr(element, 'sourceline', None) or None


def child_text(element: XmlElement, name: str) -> str | None:
    """Return the stripped text of the first child with local ``name``, or None if absent."""
    found = children(element, name)
    if not found:
        return None
    return (found[0].text or '').strip()


#: The URDF number grammar: ASCII decimal digits with an optional sign, fraction and exponent
#: (what urdfdom's and xacro's parsers agree on), plus the special values inf, infinity and nan
#: in any case (recognised so that they can be rejected by name).  Python's ``float()`` also
#: accepts ``'1_000'``, non-ASCII digits (``'\u0661'``) and surrounding Unicode spaces; a URDF
#: number is none of these.
NUMBER = re.compile(r'[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?'
                    r'|(?i:inf|infinity|nan))')
#: What :func:`parse_number` strips around a number (ASCII white space only).
_BLANKS = ' \t\r\n'


def parse_number(text: str | None) -> float | None:
    """
    Return ``text`` as a float if it is a URDF number (:data:`NUMBER`), else None.

    ASCII white space around the number is ignored.  The result may be infinite or NaN (for
    ``inf``/``nan`` and for decimal values beyond the float range, e.g. ``1e400``); callers that
    need a finite number check it.
    """
    if text is None:
        return None
    raw = str(text).strip(_BLANKS)
    if not NUMBER.fullmatch(raw):
        return None
    return float(raw)


def parse_float(text: str | None, path: str, *, nonzero: bool = False,
                positive: bool = False, line: int | None = None) -> float:
    """
    Parse a URDF number strictly (:data:`NUMBER`): finite, optionally non-zero or positive.

    :param text: the text as written (stripped here)
    :param path: element path for the message, including the attribute or child name
    :param nonzero: reject 0 (reductions)
    :param positive: reject values <= 0
    :raises BadValueError: empty, non-numeric, NaN, infinite, zero or non-positive values
    """
    raw = '' if text is None else str(text).strip(_BLANKS)
    if raw == '':
        raise BadValueError(path, 'expected a number, got an empty value', line)
    x = parse_number(raw)
    if x is None:
        raise BadValueError(path, f'expected a number (ASCII digits, optional sign, fraction and '
                            f'exponent), got {raw!r}', line)
    if not math.isfinite(x):
        raise BadValueError(path, f'expected a finite number, got {raw!r}', line)
    if nonzero and x == 0.0:
        raise BadValueError(path, f'expected a non-zero number (a reduction ratio cannot be '
                                  f'zero), got {raw!r}', line)
    if positive and x <= 0.0:
        raise BadValueError(path, f'expected a number > 0, got {raw!r}', line)
    return x


def require_attribute(element: XmlElement, attribute: str, path: str) -> str:
    """
    Return a non-empty attribute value.

    :raises IncompleteTransmissionError: when it is missing or empty
    """
    value = element.get(attribute)
    if value is None or not value.strip():
        state = 'missing' if value is None else 'empty'
        raise IncompleteTransmissionError(
            path, f"attribute '{attribute}' is {state}", source_line(element))
    return value.strip()


def require_name(element: XmlElement, path: str, attribute: str = 'name') -> str:
    """
    Return a name attribute exactly as written: surrounding blanks are part of the name.

    urdfdom, urdf_parser_py and ros2_control's parser keep names as written, so a joint
    ``"j1 "`` is not ``"j1"``; stripping here made the generated ``<ros2_control>`` block and
    the exports name a joint the URDF does not have.

    :raises IncompleteTransmissionError: when it is missing, empty or only blanks
    """
    value = element.get(attribute)
    if value is None or not value.strip():
        state = 'missing' if value is None else 'empty'
        raise IncompleteTransmissionError(
            path, f"attribute '{attribute}' is {state}", source_line(element))
    return value


def parse_numbers(text: str | None, path: str, *,
                  line: int | None = None) -> list[float]:
    """
    Parse a list of URDF numbers separated by ASCII white space, each finite (a matrix's entries).

    :param text: the text as written
    :param path: element path for the message
    :raises BadValueError: naming the entry (1-based) and its text when one is not a finite
        number (:func:`parse_float`)
    """
    tokens = (text or '').split()
    values = []
    for i, token in enumerate(tokens, 1):
        try:
            values.append(parse_float(token, path, line=line))
        except BadValueError as e:
            raise BadValueError(path, f'entry {i} of {len(tokens)}: {e.message}', line) from None
    return values


def robot_joint_names(element: XmlElement) -> list[str] | None:
    """
    Return the names of the top-level ``<joint>`` elements of the document holding ``element``.

    Read from the document's root (lxml elements know their tree; the parser uses lxml), in the
    root's namespace, as the parser reads the robot's joints.

    :returns: the names, or None when the element does not know its document
    """
    tree = getattr(element, 'getroottree', None)
    if tree is None:
        return None
    root = tree().getroot()
    return [name for child in root
            if local_name(child) == 'joint' and namespace(child) == namespace(root)
            and (name := child.get('name'))]


def one_child(element: XmlElement, path: str, tag: str) -> XmlElement:
    """
    Return the single child named ``tag``.

    :raises IncompleteTransmissionError: when it is missing
    :raises BadValueError: when it is given more than once
    """
    found = children(element, tag)
    if not found:
        raise IncompleteTransmissionError(path, f'missing <{tag}> element', source_line(element))
    if len(found) > 1:
        raise BadValueError(child_path(path, found[1]), f'<{tag}> is given {len(found)} times; '
                            'expected exactly once', source_line(found[1]))
    return found[0]


def number(element: XmlElement, path: str, attribute: str, *, nonzero: bool = False,
           positive: bool = False) -> float:
    """Return a required numeric attribute, parsed strictly."""
    text = require_attribute(element, attribute, path)
    return parse_float(text, f'{path}/@{attribute}', nonzero=nonzero, positive=positive,
                       line=source_line(element))
