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
Build one transmission from its parsed record: the third stage of the plugin layer.

Checks across transmissions (a joint driven twice, a shared actuator) are the robot's wiring
(:mod:`transmission_plugins.robot.wiring`).
"""

from typing import Mapping
from typing import Sequence
import warnings

from transmission_plugins.core.exceptions import BadValueError
from transmission_plugins.core.exceptions import LoadWarning
from transmission_plugins.core.exceptions import TransmissionLoadError
from transmission_plugins.core.exceptions import TransmissionValueError
from transmission_plugins.core.exceptions import TransmissionWarning
from transmission_plugins.core.transmission import Transmission
from transmission_plugins.plugins.registry import load_transmission_class
from transmission_plugins.plugins.registry import TransmissionPlugin
from transmission_plugins.urdf.records import TransmissionInfo
from transmission_plugins.urdf.records import TransmissionWiring
from transmission_plugins.urdf.strict import check_vocabulary
from transmission_plugins.urdf.vocabulary import STANDARD_VOCABULARY
from transmission_plugins.urdf.vocabulary import UrdfVocabulary


def build_transmission(info: TransmissionInfo,
                       plugins: Sequence[TransmissionPlugin] | None = None, *,
                       record: list[LoadWarning] | None = None,
                       aliases: Mapping[str, str] | None = None) -> TransmissionWiring:
    """
    Build one transmission from its parsed record through the plugin of its type.

    :param plugins: the registry (default: the installed entry points)
    :param record: when given, lenient-mode warnings are appended to it instead of being issued
    :param aliases: see :func:`~transmission_plugins.plugins.load_transmission_class`
    :raises UrdfTransmissionError: (a subclass) an element nobody reads, or the plugin rejects
        the element; a constructor ``TransmissionValueError`` or an ``ArithmeticError``
        (overflow, division by zero) is re-raised as ``BadValueError`` naming ``info.path``
    :raises TransmissionLoadError: the plugin is unknown, fails to import or breaks the protocol
    """
    # the element and its line, as every URDF error names them
    where = f'{info.path or info.name} (line {info.line})' if info.line else info.path or info.name
    cls = load_transmission_class(info.type, plugins=plugins, where=where, aliases=aliases)
    from_info = getattr(cls, 'from_info', None)
    if not callable(from_info):
        raise TransmissionLoadError(info.type, f'{cls.__module__}.{cls.__qualname__} has no '
                                    'from_info classmethod', where=where)
    vocabulary = getattr(cls, 'URDF_VOCABULARY', STANDARD_VOCABULARY)
    if not isinstance(vocabulary, UrdfVocabulary):
        raise TransmissionLoadError(info.type, f'{cls.__module__}.{cls.__qualname__}'
                                    '.URDF_VOCABULARY is not a UrdfVocabulary', where=where)
    notes = check_vocabulary(info, vocabulary)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter('always', UserWarning)
            try:
                wiring = from_info(info)
            finally:
                notes.extend(_as_record(info, w.message) for w in caught
                             if issubclass(w.category, UserWarning))
    except TransmissionValueError as e:
        raise BadValueError(where, str(e), info.line) from e
    except ArithmeticError as e:  # a plugin's maths overflowed on extreme values
        raise BadValueError(where, f'the values overflow the transmission maths '
                            f'({type(e).__name__}: {e})', info.line) from e
    except NotImplementedError as e:
        raise TransmissionLoadError(info.type, f'{cls.__module__}.{cls.__qualname__} does not '
                                    'implement from_info', e, where) from e
    if record is not None:
        record.extend(notes)
    else:
        for note in notes:
            warnings.warn(TransmissionWarning(note), stacklevel=2)
    return _checked_wiring(info, cls, wiring)


def _as_record(info: TransmissionInfo, message: Warning | str) -> LoadWarning:
    """Return a plugin's warning as a record (plain ``UserWarning`` text is kept as it is)."""
    if isinstance(message, TransmissionWarning) and message.record is not None:
        return message.record
    return LoadWarning(info.path or info.name, str(message), info.line, text=str(message))


def _checked_wiring(info: TransmissionInfo, cls: type, wiring: object) -> TransmissionWiring:
    """Return ``wiring`` when ``from_info`` kept the protocol (types only; counts are wiring)."""
    name = f'{cls.__module__}.{cls.__qualname__}.from_info'
    where = info.path or info.name
    if not isinstance(wiring, tuple) or len(wiring) < 3:
        raise TransmissionLoadError(info.type, f'{name} returned {wiring!r}, not a '
                                    'TransmissionWiring', where=where)
    transmission, joints, actuators = wiring[0], tuple(wiring[1]), tuple(wiring[2])
    if not isinstance(transmission, Transmission):
        raise TransmissionLoadError(info.type, f'{name} returned {transmission!r}, not a '
                                    'Transmission', where=where)
    if not all(isinstance(n, str) for n in joints + actuators):
        raise TransmissionLoadError(info.type, f'{name} returned non-string names {joints} / '
                                    f'{actuators}', where=where)
    return TransmissionWiring(transmission, joints, actuators)
