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
YAML that users hand in (a calibration file, a config or controllers file), read safely.

PyYAML's ``SafeLoader`` builds no objects, but it does expand aliases: a few hundred bytes of
nested anchors (``&a [x, x, ...]``, ``&b [*a, *a, ...]``...) become billions of items, and the
first ``str()`` or walk of them exhausts the memory.  No parameter file needs them (ROS 2's own
parameter parser, ``rcl_yaml_param_parser``, refuses aliases), so :func:`load_yaml` refuses
every anchor and alias, and any nesting deeper than :data:`MAX_DEPTH` (PyYAML composes
recursively: deep nesting would be a ``RecursionError``).  Every error is one line naming the
file, the cause and its line and column.
"""

import os
from typing import Any

from transmission_plugins.core.exceptions import TransmissionFileError
from transmission_plugins.urdf.user_files import read_user_file
import yaml

#: the largest YAML file read, in bytes (parameter files are kilobytes)
MAX_YAML_BYTES = 16 * 1024 * 1024
#: the deepest nesting of sequences and mappings accepted
MAX_DEPTH = 64


class RefusedYamlError(yaml.MarkedYAMLError):
    """Well-formed YAML that is refused: an anchor, an alias, or nesting too deep."""


class _Loader(yaml.SafeLoader):
    """PyYAML's safe loader, without anchors and aliases, with a bound on the nesting."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent) or getattr(event, 'anchor', None) is not None:
            raise RefusedYamlError(
                None, None, 'YAML anchors and aliases (&name, *name) are not accepted in this '
                'file (a few hundred bytes of them expand to billions of items)',
                event.start_mark)
        self.depth += 1
        try:
            if self.depth > MAX_DEPTH:
                raise RefusedYamlError(None, None, f'nested deeper than {MAX_DEPTH} levels',
                                       event.start_mark)
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1


def _reason(error: yaml.YAMLError) -> str:
    """Return a YAML error as one line: the problem, then its line and column."""
    if isinstance(error, yaml.MarkedYAMLError):
        mark = error.problem_mark or error.context_mark
        text = ' '.join(filter(None, (error.context, error.problem))) or type(error).__name__
        if mark is not None:
            text += f' (line {mark.line + 1}, column {mark.column + 1})'
    else:
        text = ' '.join(str(error).split()) or type(error).__name__
    return text if isinstance(error, RefusedYamlError) else f'not YAML: {text}'


def yaml_text(data: bytes, where: str) -> str:
    """
    Return the text of YAML bytes (UTF-8, as YAML 1.2 and ROS 2 read it; a BOM is dropped).

    :raises TransmissionFileError: the bytes are not UTF-8 (naming the offset)
    """
    try:
        return data.decode('utf-8-sig')
    except UnicodeDecodeError as e:
        raise TransmissionFileError(where, f'not UTF-8 text (byte {e.start})') from e


def compose_yaml(text: str, where: str) -> yaml.Node | None:
    """
    Return the node tree of YAML text (None: an empty document), refusing aliases (module doc).

    :param where: the file, for messages
    :raises TransmissionFileError: not YAML, several documents, anchors, aliases, deep nesting
    """
    loader = _Loader(text)
    try:
        return loader.get_single_node()
    except yaml.YAMLError as e:
        raise TransmissionFileError(where, _reason(e)) from e
    finally:
        loader.dispose()


def load_yaml(text: str, where: str) -> Any:
    """
    Return the data of YAML text (safe types only), refusing aliases (module doc).

    :param where: the file, for messages
    :raises TransmissionFileError: as :func:`compose_yaml`, or a value that cannot be built
    """
    loader = _Loader(text)
    try:
        return loader.get_single_data()
    except yaml.YAMLError as e:
        raise TransmissionFileError(where, _reason(e)) from e
    finally:
        loader.dispose()


def read_yaml_file(path: 'os.PathLike[str] | str', what: str,
                   limit: int = MAX_YAML_BYTES) -> Any:
    """
    Return the data of a YAML file a user named, read with bounds (:mod:`~.user_files`).

    :param what: what the file is, for messages (``'the controllers file'``)
    :raises OSError: the file cannot be opened
    :raises TransmissionFileError: not a regular file, too large, not UTF-8, not YAML, or YAML
        this module refuses
    """
    name = os.fspath(path)
    return load_yaml(yaml_text(read_user_file(name, what, limit), name), name)
