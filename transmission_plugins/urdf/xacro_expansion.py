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
The one place where xacro is expanded: files a user names, in a bounded child process.

xacro runs code, so it only ever runs on a *file a user names*, never on description text
(refused with :data:`XACRO_TEXT_REFUSED`); even a trusted file can be a bomb, so each expansion
runs in a child Python process (``python -m transmission_plugins.urdf.xacro_expansion``) bounded
by :class:`XacroLimits` (doc/urdf.md, "xacro: files only, and bounded").

Line numbers survive the expansion.  xacro works on a ``minidom`` tree, which knows no source
lines, and serialises the result anew.  Before xacro reads a file (the main one and every
``<xacro:include>``), every element that is not a xacro instruction gets an attribute in a
private namespace holding its line in the main file (0 for elements of included files); xacro
copies it with the element, including into every macro expansion (which then points at the
macro's body).  When the loader parses the result (:func:`~.text.parse_xml`), it moves that line
into the element's ``sourceline`` and removes the attribute (:func:`apply_source_lines`).  Text
meant for other tools (the launch files' ``robot_description``) is expanded without the marks.
"""

import json
import os
from pathlib import Path
import re
import subprocess
import sys
from typing import Any
from typing import Mapping
from typing import NamedTuple

from lxml import etree

from transmission_plugins.core.exceptions import BadValueError
from transmission_plugins.core.exceptions import TransmissionFileError
from transmission_plugins.urdf.user_files import check_user_file

#: The namespaces xacro answers to (the second is the historical spelling).
XACRO_NAMESPACES = ('http://www.ros.org/wiki/xacro', 'http://ros.org/wiki/xacro')
#: The private namespace of the source-line attribute.
SOURCE_LINE_NAMESPACE = 'urn:transmission-plugins:source-line'
SOURCE_LINE_ATTRIBUTE = f'{{{SOURCE_LINE_NAMESPACE}}}line'

#: Why description text with xacro markup is refused (the remedy included).
XACRO_TEXT_REFUSED = (
    'the description holds xacro markup, and description text is never expanded (xacro runs '
    'code): expand the file when you launch (description_file:=robot.urdf.xacro, or '
    '-p robot_description:="$(xacro robot.urdf.xacro)"), or pass the file path instead of '
    'its text')

_PREFIX = re.compile(r'xmlns:([A-Za-z_][\w.-]*)\s*=\s*["\'](?:%s)["\']'
                     % '|'.join(re.escape(n) for n in XACRO_NAMESPACES))
#: exit code of the child for an expansion error (its message on stderr)
_FAILED = 2


class XacroLimits(NamedTuple):
    """
    The bounds of one xacro expansion.

    :param seconds: wall time before the child process is killed
    :param memory: address space of the child process, in bytes
    :param output: the longest text returned, in characters
    :param depth: the child's Python recursion limit (bounds macro nesting)
    """

    seconds: float = 30.0
    memory: int = 2 * 1024 ** 3
    output: int = 64 * 1024 * 1024
    depth: int = 1000


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


def expand_xacro(path: 'os.PathLike[str] | str', mappings: Mapping[str, str] | None = None,
                 *, source_lines: bool = True, limits: XacroLimits = XacroLimits()) -> str:
    """
    Return the URDF text of a xacro file a user named, expanded in a bounded child process.

    :param mappings: xacro arguments (``name:=value`` on xacro's command line)
    :param source_lines: mark elements with their source line for the loader (module docstring);
        False for text handed to other tools
    :raises TransmissionFileError: the file cannot be read, is not a regular file or larger
        than ``limits.output``, or xacro is not installed
    :raises BadValueError: xacro fails or a bound is reached (naming the file and the cause)
    """
    path = Path(os.fspath(path))
    try:  # the reasons xacro would give less clearly, or not at all (a FIFO blocks it)
        check_user_file(path, 'the xacro file', limits.output)
        with open(path, 'rb'):  # a regular file: opening it does not block
            pass
    except TransmissionFileError:
        raise
    except OSError as e:
        raise TransmissionFileError.from_os_error(
            str(path), 'cannot read the xacro file', e) from e
    request = {'path': str(path.resolve()), 'mappings': dict(mappings or {}),
               'source_lines': source_lines, 'limits': limits._asdict()}
    try:
        done = subprocess.run(
            [sys.executable, '-m', __name__], input=json.dumps(request).encode(),
            capture_output=True, timeout=limits.seconds, check=False)
    except subprocess.TimeoutExpired as e:
        raise BadValueError(str(path), f'xacro did not finish within {limits.seconds:g} s; '
                            'stopped (a recursive macro or an expression that grows without '
                            'bound?)') from e
    message = done.stderr.decode('utf-8', 'replace').strip()
    if done.returncode == _FAILED and message.startswith('ImportError'):
        raise TransmissionFileError(str(path), f'cannot expand xacro: the xacro package is not '
                                    f'installed ({message})')
    if done.returncode != 0:
        if not message:  # killed by a signal, or out of memory before it could say so
            message = f'the expansion ended with exit code {done.returncode}'
        raise BadValueError(str(path), f'xacro cannot expand the file: {message}')
    return done.stdout.decode('utf-8')


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


# ------------------------------------------------------------------------ the child process
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


def _mark_source_lines(xacro: Any, main: str) -> None:
    """Make ``xacro.parse`` mark the elements of every file it reads (this process only)."""
    original = xacro.parse

    def parse(inp: Any, filename: str | None = None) -> Any:
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


def _reason(error: BaseException, limits: XacroLimits) -> str:
    """Return why an expansion failed: a bound it reached, else xacro's message (shortened)."""
    seen: BaseException | None = error
    while seen is not None:  # xacro wraps errors (XacroException.exc) as it unwinds
        if isinstance(seen, MemoryError):
            return f'the expansion needs more than {limits.memory} bytes of memory'
        if isinstance(seen, RecursionError):
            return (f'the expansion nests deeper than {limits.depth} Python frames (a macro '
                    'calling itself without end?)')
        seen = getattr(seen, 'exc', None) or seen.__cause__ or seen.__context__
    message = str(error) or repr(error)
    return message if len(message) <= 2000 else message[:2000] + ' ...'


def _child() -> int:
    """Expand the file of the request on stdin, within its limits; the text on stdout."""
    import resource
    request = json.load(sys.stdin)
    limits = XacroLimits(**request['limits'])
    resource.setrlimit(resource.RLIMIT_AS, (limits.memory, limits.memory))
    sys.setrecursionlimit(limits.depth)
    try:
        import xacro
    except ImportError as e:
        print(f'ImportError: {e}', file=sys.stderr)
        return _FAILED
    if request['source_lines']:
        _mark_source_lines(xacro, request['path'])
    try:
        text = str(xacro.process_file(request['path'], mappings=request['mappings']).toxml())
    except Exception as e:  # noqa: B902 - xacro raises XacroException, NameError, expat errors
        print(_reason(e, limits), file=sys.stderr)
        return _FAILED
    if len(text) > limits.output:
        print(f'the expanded text is longer than {limits.output} characters ({len(text)})',
              file=sys.stderr)
        return _FAILED
    sys.stdout.buffer.write(text.encode('utf-8'))
    return 0


if __name__ == '__main__':
    sys.exit(_child())
