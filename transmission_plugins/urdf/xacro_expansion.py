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
The one place where xacro is expanded: ``.xacro`` files, and xacro found in other files or text.

Line numbers survive the expansion.  xacro works on a ``minidom`` tree, which knows no source
lines, and serialises the result anew, so the expanded text's line numbers say nothing about the
file a user wrote.  Before xacro reads a file (the main one and every ``<xacro:include>``), every
element that is not a xacro instruction gets an attribute in a private namespace holding its
line in the main file (0 for elements of included files); xacro copies it with the element,
including into every macro expansion (which then points at the macro's body).  When the loader
parses the result (:func:`transmission_plugins.urdf.text.parse_xml`), it moves that line into
the element's ``sourceline`` and removes the attribute, and elements xacro generated
(``<xacro:element>``) or took from included files get no line instead of a wrong one.  Text meant
for other tools (the launcher's ``robot_description``) is expanded without the attribute.

xacro keeps module-level state while it runs (file stack, search root), so expansions are
serialised with a lock.
"""

import os
from pathlib import Path
import re
import threading
from typing import Any
from typing import Mapping
from typing import Optional

from lxml import etree

from transmission_plugins.core.exceptions import BadValueError
from transmission_plugins.core.exceptions import TransmissionFileError

#: The namespaces xacro answers to (the second is the historical spelling).
XACRO_NAMESPACES = ('http://www.ros.org/wiki/xacro', 'http://ros.org/wiki/xacro')
#: The private namespace of the source-line attribute.
SOURCE_LINE_NAMESPACE = 'urn:transmission-plugins:source-line'
SOURCE_LINE_ATTRIBUTE = f'{{{SOURCE_LINE_NAMESPACE}}}line'

_PREFIX = re.compile(r'xmlns:([A-Za-z_][\w.-]*)\s*=\s*["\'](?:%s)["\']'
                     % '|'.join(re.escape(n) for n in XACRO_NAMESPACES))
_LOCK = threading.Lock()


def uses_xacro(text: str) -> bool:
    """
    Return True when ``text`` holds xacro instructions (a ``.urdf`` file that is really xacro).

    True when a prefix bound to the xacro namespace starts an element (``<xacro:if>``,
    ``<xacro:my_macro>``), or when the namespace is declared and ``${...}`` / ``$(...)``
    substitutions appear.  An expanded URDF that merely keeps the ``xmlns:xacro`` declaration is
    not xacro.
    """
    prefixes = set(_PREFIX.findall(text))
    if not prefixes:
        return False
    if any(re.search(rf'<\s*{re.escape(p)}:', text) for p in prefixes):
        return True
    return '${' in text or '$(' in text


def expand_xacro(path: 'os.PathLike[str] | str', mappings: Optional[Mapping[str, str]] = None,
                 *, source_lines: bool = True) -> str:
    """
    Return the URDF text of a xacro file.

    :param mappings: xacro arguments (``name:=value`` on xacro's command line)
    :param source_lines: mark elements with their source line for the loader (module docstring);
        False for text handed to other tools
    :raises TransmissionFileError: the file cannot be read, or xacro is not installed
    :raises BadValueError: xacro fails (naming the file and xacro's message)
    """
    path = Path(os.fspath(path))
    try:
        with open(path, 'rb'):  # the reasons xacro would give less clearly
            pass
    except OSError as e:
        raise TransmissionFileError.from_os_error(
            str(path), 'cannot read the xacro file', e) from e
    xacro = _import_xacro(str(path))
    with _LOCK, _annotating(xacro, str(path.resolve()) if source_lines else None):
        try:
            document = xacro.process_file(str(path), mappings=dict(mappings or {}))
            return str(document.toxml())
        except Exception as e:  # xacro raises XacroException, NameError, expat errors...
            raise BadValueError(str(path), f'xacro cannot expand the file: {e}') from e


def expand_xacro_text(text: str, mappings: Optional[Mapping[str, str]] = None, *,
                      source_lines: bool = True, where: str = '<text>') -> str:
    """
    Return the URDF text of xacro given as text (includes resolve from the working directory).

    :param where: how messages name the text
    :raises BadValueError: xacro fails
    """
    xacro = _import_xacro(where)
    with _LOCK:
        try:
            xacro.init_stacks(None)
            document = xacro.parse(_annotate(text, True) if source_lines else text)
            xacro.process_doc(document, mappings=dict(mappings or {}))
            return str(document.toxml())
        except Exception as e:  # noqa: B902 - xacro raises many types
            raise BadValueError(where, f'xacro cannot expand the text: {e}') from e


def apply_source_lines(root: Any) -> None:
    """
    Move the source-line marks of an expanded document into ``sourceline`` (0: unknown).

    Does nothing to a document without marks (plain URDF).
    """
    if root.get(SOURCE_LINE_ATTRIBUTE) is None:
        return
    for element in root.iter(tag=etree.Element):
        mark = element.attrib.pop(SOURCE_LINE_ATTRIBUTE, None)
        element.sourceline = int(mark) if mark and mark.isdigit() else 0
    etree.cleanup_namespaces(root)


def _import_xacro(where: str) -> Any:
    try:
        import xacro
    except ImportError as e:
        raise TransmissionFileError(where, f'cannot expand xacro: the xacro package is not '
                                    f'installed ({e})') from e
    return xacro


def _annotate(text: str, main: bool) -> str:
    """Return ``text`` with every non-xacro element marked with its line (0 unless ``main``)."""
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
    try:
        root = etree.fromstring(text.encode('utf-8'), parser)
    except (etree.XMLSyntaxError, ValueError):
        return text  # xacro reports the syntax error itself
    for element in root.iter(tag=etree.Element):
        if etree.QName(element).namespace not in XACRO_NAMESPACES:
            element.set(SOURCE_LINE_ATTRIBUTE, str(element.sourceline or 0) if main else '0')
    return str(etree.tostring(root, encoding='unicode'))


class _annotating:  # noqa: N801 - used as a context manager, like contextlib's
    """Make ``xacro.parse`` mark the elements of every file it reads, for one expansion."""

    def __init__(self, xacro: Any, main: Optional[str]) -> None:
        self.xacro = xacro
        self.main = main
        self.original = xacro.parse

    def __enter__(self) -> None:
        if self.main is None:
            return
        original, xacro, main = self.original, self.xacro, self.main

        def parse(inp: Any, filename: Optional[str] = None) -> Any:
            if inp is None and filename is not None:
                full = os.path.join(getattr(xacro, 'root_dir', ''), filename)
                try:
                    with open(full, encoding='utf-8') as f:
                        text = f.read()
                except (OSError, UnicodeDecodeError):
                    return original(inp, filename)  # xacro's own error and file stack
                return original(_annotate(text, os.path.realpath(full) == main), filename)
            return original(inp, filename)

        xacro.parse = parse

    def __exit__(self, *exc: Any) -> None:
        self.xacro.parse = self.original
