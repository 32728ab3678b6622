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
The one exception tree of transmission_plugins.

Each class keeps the structured facts (path, parameter, value) as attributes and builds its
message from them::

    TransmissionError
    |-- TransmissionValueError          (also a ValueError) a bad numeric parameter
    |-- TransmissionInputError          (also a ValueError) bad arrays/mappings given to a map
    |-- TransmissionConfigurationError  handles that cannot be wired to a transmission
    |-- TransmissionFileError           (also an OSError) a file cannot be read or written
    |-- UnknownNameError                (also a KeyError) no transmission/joint of that name
    |-- UrdfTransmissionError           a URDF element is wrong (carries ``path``)
    |   |-- IncompleteTransmissionError a required element or attribute is missing
    |   |-- BadValueError               a value cannot be used (not a number, zero, ...)
    |   `-- BrokenReferenceError        a name refers to nothing, or to something used twice
    `-- TransmissionLoadError           a plugin could not be found or imported
        `-- UnknownTransmissionTypeError

Warnings are :class:`LoadWarning` records, issued under :class:`TransmissionWarning`
(doc/robot_api.md).
"""

from typing import Iterable
from typing import Optional


class TransmissionError(Exception):
    """Root of every error raised by transmission_plugins."""


def _located(path: str, line: int | None, message: str) -> str:
    """Return ``path (line N): message``, or ``path: message`` when the line is unknown."""
    return f'{path} (line {line}): {message}' if line else f'{path}: {message}'


class TransmissionWarning(UserWarning):
    """
    The category of every warning transmission_plugins issues (see :class:`LoadWarning`).

    Issued with the :class:`LoadWarning` as its only argument, available as :attr:`record`.
    """

    @property
    def record(self) -> Optional['LoadWarning']:
        """Return the structured warning this one carries, or None."""
        first = self.args[0] if self.args else None
        return first if isinstance(first, LoadWarning) else None


class LoadWarning(str):
    """
    One loader warning: its text, plus the element path, source line and message as fields.

    A ``str``, so it prints and compares like a plain-text warning.

    :param text: the full text, when it is not ``path (line N): message``
    """

    path: str
    line: int | None
    message: str

    def __new__(cls, path: str, message: str, line: int | None = None, *,
                text: str | None = None) -> 'LoadWarning':
        """Build the warning; see the class docstring."""
        self = super().__new__(cls, text if text is not None else _located(path, line, message))
        self.path = path
        self.line = line
        self.message = message
        return self


class TransmissionValueError(TransmissionError, ValueError):
    """
    A numeric parameter of a transmission is unusable.

    :param parameter: name of the parameter, e.g. ``'actuator_reduction[1]'``
    :param value: the offending value, reported with ``repr``
    :param expected: what a valid value looks like, e.g. ``'a finite, non-zero number'``
    :param where: optional owner of the parameter (a transmission name or URDF element path)
    """

    def __init__(self, parameter: str, value: object, expected: str, where: str = '') -> None:
        self.parameter = parameter
        self.value = value
        self.expected = expected
        self.where = where
        super().__init__((f'{where}: ' if where else '')
                         + f'{parameter}: expected {expected}, got {value!r}')


class TransmissionInputError(TransmissionError, ValueError):
    """Values handed to a conversion have the wrong interface name, shape or type."""


class TransmissionConfigurationError(TransmissionError):
    """Joint or actuator handles cannot be wired to a transmission."""


class TransmissionFileError(TransmissionError, OSError):
    """
    A file cannot be read or written: a URDF or xacro file, a plot.

    Also an :class:`OSError` with ``filename``, ``errno`` (None when no system call failed) and
    ``strerror`` (default: ``message``).
    """

    def __init__(self, filename: str, message: str, errno: int | None = None,
                 strerror: str | None = None) -> None:
        super().__init__(filename, message)
        self.filename = filename
        self.message = message
        self.errno = errno
        self.strerror = strerror if strerror is not None else message

    def __str__(self) -> str:
        name = self.filename if str(self.filename).strip() else repr(self.filename)
        return f'{name}: {self.message}'

    @classmethod
    def from_os_error(cls, filename: str, what: str, error: OSError) -> 'TransmissionFileError':
        """
        Return the error for ``error`` raised while reading ``filename``.

        :param what: what failed, e.g. ``'cannot read the URDF file'``
        """
        reason = error.strerror or str(error)
        hint = (" (a URDF given as text must start with '<')"
                if isinstance(error, FileNotFoundError) and not filename.endswith('.xacro')
                else '')
        return cls(filename, f'{what}: {reason}{hint}', error.errno, error.strerror)


class UnknownNameError(TransmissionError, KeyError):
    """
    No transmission, joint or actuator has the requested name.

    Also a :class:`KeyError` (lookups by name raised one before); the message lists the known
    names.
    """

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(message)

    def __str__(self) -> str:
        return self.message


class UrdfTransmissionError(TransmissionError):
    """
    A URDF element describing a transmission is wrong.

    :param path: element path, e.g. ``/robot[@name='r']/transmission[@name='t']/actuator``
    :param message: what is wrong and what was expected
    :param line: source line of the element, when known
    """

    def __init__(self, path: str, message: str, line: int | None = None) -> None:
        self.path = path
        self.message = message
        self.line = line
        super().__init__(_located(path, line, message))


class IncompleteTransmissionError(UrdfTransmissionError):
    """A required element or attribute is missing or empty."""


class BadValueError(UrdfTransmissionError):
    """A value in the URDF cannot be used (not a number, NaN, infinite, zero, unknown role)."""


class BrokenReferenceError(UrdfTransmissionError):
    """A name refers to no joint, or a joint or actuator is claimed twice inconsistently."""


class TransmissionLoadError(TransmissionError):
    """
    The plugin a URDF asked for could not be found or loaded.

    :param plugin_name: the requested type, e.g. ``transmission_interface/SimpleTransmission``
    :param reason: what went wrong
    :param original_exception: the exception that caused it, if any
    :param where: the transmission (name or element path) that requested the plugin
    """

    def __init__(self, plugin_name: str, reason: str,
                 original_exception: BaseException | None = None, where: str = '') -> None:
        self.plugin_name = plugin_name
        self.reason = reason
        self.original_exception = original_exception
        self.where = where
        super().__init__((f'{where}: ' if where else '')
                         + f"cannot load transmission plugin '{plugin_name}': {reason}")


class UnknownTransmissionTypeError(TransmissionLoadError):
    """
    No installed plugin is registered under the requested type name.

    :param suggestions: the known names closest to the requested one (``did you mean``)
    """

    def __init__(self, plugin_name: str, known: Iterable[str], where: str = '',
                 suggestions: Iterable[str] = ()) -> None:
        self.known = sorted(known)
        self.suggestions = list(suggestions)
        guess = (' (did you mean ' + ' or '.join(repr(s) for s in self.suggestions) + '?)'
                 if self.suggestions else '')
        super().__init__(plugin_name, f'no such plugin is installed{guess}; known types: '
                         + ', '.join(self.known), where=where)
