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
Write an output file whole or not at all, and name it (never a temporary file) in every error.

:func:`output_file` is :func:`~transmission_plugins.urdf.user_files.replaced_file` (a temporary
file beside the output, renamed to it when the ``with`` block ends without an exception; only a
new path or a regular file is replaced, never a FIFO, a device or an input), plus ``-`` for
standard output.
"""

import contextlib
import sys
from typing import BinaryIO
from typing import Iterator
from typing import Sequence

from transmission_plugins.urdf.user_files import replaced_file

__all__ = ['output_file']


@contextlib.contextmanager
def output_file(path: str, what: str = 'the file',
                inputs: Sequence[str] = ()) -> Iterator[BinaryIO]:
    """
    Yield a binary stream that becomes the file ``path`` when the block succeeds.

    ``-`` yields standard output (written as it goes).  The file gets the usual permissions
    (``0o666`` less the umask).

    :param what: what the file is, for error messages (``'the CSV file'``, ``'the plot'``)
    :param inputs: the command's input files, which the output must not replace
    :raises TransmissionFileError: the output is a FIFO, a device, a directory or an input; the
        folder cannot be written, a write fails, or the rename
    """
    if path == '-':
        yield sys.stdout.buffer
        sys.stdout.buffer.flush()
        return
    with replaced_file(path, what, inputs) as stream:
        yield stream
