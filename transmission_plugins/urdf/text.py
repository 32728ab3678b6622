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
URDF text from what users hand in: XML text, bytes, a file, a ``.xacro`` file; parsed safely.

Input is bounded: a description larger than :data:`MAX_URDF_BYTES` is refused before it is read
whole, and a file must be a regular file (:mod:`~.user_files`: a FIFO would block, a device
never end).  A file whose text is not XML is refused naming the file.
"""

import os
from pathlib import Path
import re
from typing import Any
from typing import Union

from lxml import etree

from transmission_plugins.core.exceptions import BadValueError
from transmission_plugins.core.exceptions import TransmissionFileError
from transmission_plugins.urdf.user_files import check_user_file
from transmission_plugins.urdf.user_files import read_user_file
from transmission_plugins.urdf.xacro_expansion import apply_source_lines
from transmission_plugins.urdf.xacro_expansion import expand_xacro
from transmission_plugins.urdf.xacro_expansion import uses_xacro
from transmission_plugins.urdf.xacro_expansion import XACRO_TEXT_REFUSED


#: The largest URDF accepted, in bytes (text: characters).  The PR2's is 0.4 MB; real robots
#: with inlined meshes stay far below.  Reading ``/dev/zero`` stops here instead of exhausting
#: the memory.
MAX_URDF_BYTES = 64 * 1024 * 1024

_XML_DECLARATION_ENCODING = re.compile(
    r'^(<\?xml[^>]*?)\s+encoding\s*=\s*(["\'])[^"\']*\2', re.DOTALL)

_XML_DECLARATION_ENCODING_BYTES = re.compile(
    rb'^\s*<\?xml[^>]*?encoding\s*=\s*["\']([A-Za-z0-9._-]+)["\']', re.DOTALL)


# ---------------------------------------------------------------------------------- input
def read_urdf_text(urdf: Union[str, bytes, 'os.PathLike[str]'],
                   xacro_mappings: dict[str, str] | None = None) -> str:
    """
    Return the XML text of a URDF given as text, as a file path or as a ``.xacro`` file path.

    A ``str`` whose first non-blank character is ``<`` is XML text; ``bytes`` are decoded (BOM or
    XML declaration encoding, else UTF-8); anything else is a path.  A ``.xacro`` path, or a file
    holding xacro instructions whatever its name, is expanded (``xacro_mappings`` are its
    ``name:=value`` arguments); text and bytes never are (xacro runs code).

    :raises TransmissionFileError: (also an ``OSError``) the path is empty, the file is missing,
        unreadable, not a regular file (a directory, a FIFO, a device), too large or not XML,
        or the xacro package is not installed
    :raises BadValueError: the bytes cannot be decoded, text holds xacro markup, or xacro fails
    """
    if isinstance(urdf, bytes):
        _check_size(len(urdf), '<bytes>')
        return _plain_text(_decode(urdf, '<bytes>'))
    if isinstance(urdf, str) and urdf.lstrip('\ufeff \t\r\n').startswith('<'):
        _check_size(len(urdf), '<text>')
        return _plain_text(urdf)
    if isinstance(urdf, str) and not urdf.strip():
        raise TransmissionFileError(urdf, 'the URDF is empty: expected XML text (starting with '
                                    "'<') or a file path")
    path = Path(os.fspath(urdf))
    if path.suffix == '.xacro':
        try:
            check_user_file(path, 'the URDF', MAX_URDF_BYTES)
        except OSError as e:
            if isinstance(e, TransmissionFileError):
                raise
            # a missing file: expand_xacro says so
        return expand_xacro(path, xacro_mappings)
    text = _decode(_read_bounded(path), str(path))
    if uses_xacro(text):
        return expand_xacro(path, xacro_mappings)
    if not text.lstrip('\ufeff \t\r\n').startswith('<'):
        raise TransmissionFileError(str(path), 'not a URDF: expected XML (starting with '
                                    f"'<'), got {_start(text)}")
    return text


def _start(text: str) -> str:
    """Return the start of ``text`` for a message: its first 40 characters, or 'an empty file'."""
    if not text.strip():
        return 'an empty file'
    first = text.strip()[:40]
    return repr(first) + (' ...' if len(text.strip()) > 40 else '')


def _check_size(size: int, where: str) -> None:
    """Refuse a description above :data:`MAX_URDF_BYTES`."""
    if size > MAX_URDF_BYTES:
        raise TransmissionFileError(where, f'the URDF is larger than {MAX_URDF_BYTES} bytes '
                                    f'({size}); refusing to read it')


def _read_bounded(path: Path) -> bytes:
    """Read a regular file of at most :data:`MAX_URDF_BYTES` bytes (:mod:`~.user_files`)."""
    try:
        return read_user_file(path, 'the URDF', MAX_URDF_BYTES)
    except TransmissionFileError:
        raise
    except OSError as e:
        raise TransmissionFileError.from_os_error(str(path), 'cannot read the URDF file', e) from e


def _plain_text(text: str) -> str:
    """Return ``text``; text holding xacro markup is refused (:data:`XACRO_TEXT_REFUSED`)."""
    if uses_xacro(text):
        raise BadValueError('/', XACRO_TEXT_REFUSED)
    return text


def received_description(text: str, where: str = 'robot_description') -> str:
    """
    Return description text that arrived over ROS (a topic or a parameter): XML, never a path.

    :param where: how messages name the source (the topic or the parameter)
    :raises BadValueError: the text is not XML, or it holds xacro markup (naming the remedy)
    """
    if not text.lstrip('\ufeff \t\r\n').startswith('<'):
        raise BadValueError(where, "expected URDF XML text (starting with '<'), got "
                            f'{text[:40]!r}{"..." if len(text) > 40 else ""}: description text '
                            'received over ROS is never read as a file path; pass the file '
                            'at launch (description_file:=...)')
    _check_size(len(text), where)
    if uses_xacro(text):
        raise BadValueError(where, XACRO_TEXT_REFUSED)
    return text


def _decode(data: bytes, where: str) -> str:
    if data.startswith(b'\xef\xbb\xbf'):
        encoding = 'utf-8-sig'
    elif data.startswith((b'\xff\xfe', b'\xfe\xff')):
        encoding = 'utf-16'
    else:
        match = _XML_DECLARATION_ENCODING_BYTES.match(data)
        encoding = match.group(1).decode('ascii') if match else 'utf-8'
    try:
        return data.decode(encoding)
    except (LookupError, UnicodeDecodeError) as e:
        raise BadValueError(where, f'cannot decode the URDF as {encoding}: {e}') from e


def encode_utf8(text: str, where: str = '/') -> bytes:
    """
    Return ``text`` as UTF-8.

    :raises BadValueError: the text holds a lone surrogate (a code point from U+D800 to U+DFFF
        alone, which a ``str`` can hold and no encoding can write), naming its offset
    """
    try:
        return text.encode('utf-8')
    except UnicodeEncodeError as e:
        raise BadValueError(where, f'the URDF text cannot be encoded as UTF-8: '
                            f'{text[e.start:e.end]!r} at offset {e.start} is a lone surrogate, '
                            'not a character') from e


def parse_xml(xml_text: str | bytes) -> Any:
    """
    Parse URDF text into an lxml element, safely (no entity expansion, no network).

    A ``str`` may carry an XML declaration with an ``encoding`` (it is ignored: the text is
    already decoded); blanks before the declaration are tolerated.  Source-line marks of a xacro
    expansion become the elements' ``sourceline`` (:func:`~.xacro_expansion.apply_source_lines`).

    :raises BadValueError: the text is not well-formed XML
    """
    if isinstance(xml_text, str):
        text = _XML_DECLARATION_ENCODING.sub(r'\1', xml_text.lstrip('\ufeff \t\r\n'), count=1)
        data = encode_utf8(text)
    elif isinstance(xml_text, bytes):
        data = xml_text.lstrip()
    else:
        raise TypeError(f'expected URDF text (str or bytes), got {type(xml_text).__name__}')
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False,
                             huge_tree=False)
    try:
        root = etree.fromstring(data, parser)
    except etree.XMLSyntaxError as e:
        raise BadValueError('/', f'the URDF is not well-formed XML: {e}',
                            getattr(e, 'lineno', None)) from e
    apply_source_lines(root)
    return root
