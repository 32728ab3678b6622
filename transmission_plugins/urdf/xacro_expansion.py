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

"""The one place where xacro files are expanded (the loader, the launcher and the CLI)."""

from pathlib import Path
from typing import Mapping
from typing import Optional

from transmission_plugins.core.exceptions import BadValueError
from transmission_plugins.core.exceptions import TransmissionFileError


def expand_xacro(path: Path, mappings: Optional[Mapping[str, str]] = None) -> str:
    """
    Return the URDF text of a xacro file.

    :param mappings: xacro arguments (``name:=value`` on xacro's command line)
    :raises TransmissionFileError: the file cannot be read, or xacro is not installed
    :raises BadValueError: xacro fails (naming the file and xacro's message)
    """
    try:
        with open(path, 'rb'):  # the reasons xacro would give less clearly
            pass
    except OSError as e:
        raise TransmissionFileError.from_os_error(
            str(path), 'cannot read the xacro file', e) from e
    try:
        import xacro
    except ImportError as e:
        raise TransmissionFileError(str(path), f'cannot expand the xacro file: the xacro package '
                                    f'is not installed ({e})') from e
    try:
        document = xacro.process_file(str(path), mappings=dict(mappings or {}))
        return document.toxml()
    except Exception as e:  # xacro raises XacroException, NameError, expat errors...
        raise BadValueError(str(path), f'xacro cannot expand the file: {e}') from e
