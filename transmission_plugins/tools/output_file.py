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

:func:`output_file` writes to a temporary file beside the output (so that the final rename is
atomic) and renames it to the output only when the ``with`` block ends without an exception.
"""

import contextlib
import io
import os
import secrets
import sys
from typing import Any
from typing import BinaryIO
from typing import Iterator

from transmission_plugins.core.exceptions import TransmissionFileError


def cannot_write(path: str, what: str, error: OSError) -> TransmissionFileError:
    """
    Return the error for a failure to write ``path`` (the output the user named).

    :param what: what ``path`` is, e.g. ``'the CSV file'``
    """
    reason = error.strerror or str(error) or type(error).__name__
    return TransmissionFileError(path, f'cannot write {what}: {reason}')


class _Part(io.FileIO):
    """The temporary file: every failed write is an error about the output."""

    def __init__(self, fd: int, output: str, what: str) -> None:
        super().__init__(fd, 'wb')
        self.output = output
        self.what = what

    def write(self, data: Any) -> int:
        view = memoryview(data).cast('B')
        done = 0
        while done < len(view):  # a raw write may write less than it was given
            try:
                done += super().write(view[done:]) or 0
            except OSError as e:
                raise cannot_write(self.output, self.what, e) from e
        return done


@contextlib.contextmanager
def output_file(path: str, what: str = 'the file') -> Iterator[BinaryIO]:
    """
    Yield a binary stream that becomes the file ``path`` when the block succeeds.

    ``-`` yields standard output (written as it goes).  The file gets the usual permissions
    (``0o666`` less the umask).

    :param what: what the file is, for error messages (``'the CSV file'``, ``'the plot'``)

    :raises TransmissionFileError: the folder cannot be written, a write fails, or the rename
    """
    if path == '-':
        yield sys.stdout.buffer
        sys.stdout.buffer.flush()
        return
    folder = os.path.dirname(os.path.abspath(path))
    # the name is known before the file exists: a signal right after its creation (the CLI
    # raises on SIGTERM) still removes it below
    part = os.path.join(folder, f'.{os.path.basename(path)}.{secrets.token_hex(8)}.part')
    try:
        try:
            fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except OSError as e:
            part = ''
            raise cannot_write(path, what, e) from e
        with _Part(fd, path, what) as stream:
            yield stream
        umask = os.umask(0)
        os.umask(umask)
        try:
            os.chmod(part, 0o666 & ~umask)  # created private above
            os.replace(part, path)
        except OSError as e:
            raise cannot_write(path, what, e) from e
        part = ''
    finally:
        if part:
            with contextlib.suppress(OSError):
                os.remove(part)
