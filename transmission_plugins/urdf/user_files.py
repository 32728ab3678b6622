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
Files users name: read with bounds, written whole or not at all, never onto what is not a file.

**Reading** (:func:`read_user_file`): a file a user names (a URDF or xacro argument, a
calibration file, a config or controllers file) is read only when it is a regular file, and at
most ``limit`` bytes of it.  A FIFO would block the reader until someone writes to it,
``/dev/zero`` never ends, a directory has no text: each is refused at once with an error naming
the file and what it is.  The check is made on the opened file (``fstat``), opened without
blocking, so that nothing can swap the file between the check and the read.

Errors are :class:`~transmission_plugins.core.exceptions.TransmissionFileError`: the message
says what could not be done (``cannot read the calibration file: ...``), ``strerror`` only why,
as for the system's errors.

**Writing** (:func:`replaced_file`): an output goes to a temporary file beside it (so that the
final rename is atomic), renamed over the output only when it was written in full; a failure
leaves the old file as it was and no temporary file behind.  An output is a new path or an
existing regular file: a FIFO, a device, a socket or a directory is refused (renaming over it
would replace it with a regular file), and so is one of the command's own inputs.  Every error
names the output, never the temporary file.
"""

import contextlib
import errno
import io
import os
import secrets
import stat
from typing import Any
from typing import BinaryIO
from typing import Iterator
from typing import Sequence

from transmission_plugins.core.exceptions import TransmissionFileError

#: what a file that is not a regular file is, in words (``stat.S_IFMT`` of its mode)
KINDS = {stat.S_IFIFO: 'a FIFO (named pipe)', stat.S_IFCHR: 'a character device',
         stat.S_IFBLK: 'a block device', stat.S_IFDIR: 'a directory', stat.S_IFSOCK: 'a socket'}


def kind_of(mode: int) -> str:
    """Return what a file of mode ``mode`` is, in words (``'a regular file'``...)."""
    if stat.S_ISREG(mode):
        return 'a regular file'
    return KINDS.get(stat.S_IFMT(mode), 'not a regular file')


def _not_regular(path: str, what: str, mode: int, verb: str) -> OSError:
    """Return the error for a file that is not a regular file (a directory: the system's)."""
    if stat.S_ISDIR(mode) and verb == 'read':
        return IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
    reason = f'it is {kind_of(mode)}, not a regular file'
    return TransmissionFileError(path, f'cannot {verb} {what}: {reason}', None, reason)


def _too_large(path: str, what: str, limit: int) -> TransmissionFileError:
    reason = f'it is larger than {limit} bytes; refusing to read it'
    return TransmissionFileError(path, f'cannot read {what}: {reason}', None, reason)


def check_user_file(path: 'os.PathLike[str] | str', what: str, limit: int) -> None:
    """
    Check, without opening it, a file that another program will read (xacro's input).

    :raises OSError: it cannot be found (as ``os.stat`` raises it), or is a directory
        (``IsADirectoryError``, as ``open`` would say)
    :raises TransmissionFileError: not a regular file, or larger than ``limit`` bytes
    """
    name = os.fspath(path)
    status = os.stat(name)
    if not stat.S_ISREG(status.st_mode):
        raise _not_regular(name, what, status.st_mode, 'read')
    if status.st_size > limit:
        raise _too_large(name, what, limit)


def open_user_file(path: 'os.PathLike[str] | str', what: str) -> BinaryIO:
    """
    Open a regular file a user named, for a reader that streams it (and bounds its memory).

    :param what: what the file is, for messages (``'the CSV file'``)
    :raises OSError: it cannot be opened, or is a directory (as ``open`` raises it)
    :raises TransmissionFileError: it is not a regular file (a FIFO, a device, a socket)
    """
    name = os.fspath(path)
    # O_NONBLOCK: opening a FIFO without a writer returns at once (fstat below refuses it);
    # it changes nothing for a regular file
    fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | getattr(os, 'O_CLOEXEC', 0))
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise _not_regular(name, what, status.st_mode, 'read')
        return io.BufferedReader(io.FileIO(fd, 'rb'))
    except BaseException:
        os.close(fd)
        raise


def read_user_file(path: 'os.PathLike[str] | str', what: str, limit: int) -> bytes:
    """
    Return the bytes of a regular file of at most ``limit`` bytes that a user named.

    :param what: what the file is, for messages (``'the calibration file'``)
    :raises OSError: it cannot be opened or read, or is a directory (as ``open`` raises it: the
        caller says what the file was for)
    :raises TransmissionFileError: it is not a regular file (a FIFO, a device, a socket), or it
        is larger than ``limit`` bytes
    """
    name = os.fspath(path)
    with open_user_file(name, what) as f:
        size = os.fstat(f.fileno()).st_size
        if size > limit:
            raise _too_large(name, what, limit)
        # a buffer of the file's size (read(limit) would take the whole limit at once); a byte
        # more, and the rest up to the limit only when the file has grown since
        data = f.read(size + 1)
        if len(data) > size:
            data += f.read(limit + 1 - len(data))
    if len(data) > limit:
        raise _too_large(name, what, limit)
    return data


def cannot_write(path: str, what: str, error: OSError) -> TransmissionFileError:
    """
    Return the error for a failure to write ``path`` (the output the user named).

    :param what: what ``path`` is, e.g. ``'the CSV file'``
    """
    reason = error.strerror or str(error) or type(error).__name__
    return TransmissionFileError(path, f'cannot write {what}: {reason}')


def check_output(path: str, what: str, inputs: Sequence[str] = ()) -> None:
    """
    Refuse an output that is not a new path or an existing regular file, or that is an input.

    :param inputs: the files the command reads (an output onto one would replace its source)
    :raises TransmissionFileError: naming the output and what it is
    """
    try:
        status = os.stat(path)
    except FileNotFoundError:
        return
    except OSError as e:
        raise cannot_write(path, what, e) from e
    if not stat.S_ISREG(status.st_mode):
        raise _not_regular(path, what, status.st_mode, 'write')
    for given in inputs:
        try:
            source = os.stat(given)
        except (OSError, ValueError):
            continue
        if (source.st_dev, source.st_ino) == (status.st_dev, status.st_ino):
            raise TransmissionFileError(path, f'cannot write {what}: it is the input {given} '
                                              '(the output would replace its own source); '
                                              'write to another file')


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
def replaced_file(path: str, what: str = 'the file',
                  inputs: Sequence[str] = ()) -> Iterator[BinaryIO]:
    """
    Yield a binary stream that becomes the file ``path`` when the block succeeds.

    The file gets the usual permissions (``0o666`` less the umask).  See the module doc.

    :param what: what the file is, for error messages (``'the CSV file'``, ``'the plot'``)
    :param inputs: the command's input files, which the output must not be
    :raises TransmissionFileError: the output is not a regular file or new path, or is an
        input; the folder cannot be written, a write fails, or the rename
    """
    check_output(path, what, inputs)
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
            check_output(path, what, inputs)  # what it is may have changed meanwhile
            os.replace(part, path)
        except OSError as e:
            if isinstance(e, TransmissionFileError):
                raise
            raise cannot_write(path, what, e) from e
        part = ''
    finally:
        if part:
            with contextlib.suppress(OSError):
                os.remove(part)
