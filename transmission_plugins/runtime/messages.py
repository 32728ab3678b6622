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
Validation of incoming messages, shared by every node: fields, names, drop reasons and counts.

A message is a ``(names, position, velocity, effort)`` tuple like ``sensor_msgs/JointState``:
each field is empty (not given) or has one value per name.  A message that fails a check raises
:class:`InputRejected`, whose ``reason`` (one of :data:`DROP_REASONS`) is the key under which
the node counts the drop; buffers are left untouched.  Rejecting costs no more than accepting
(doc/nodes.md, "Hostile input"): a message naming more entries than the robot has is refused
before any field is read, every other check is linear in the message size.

:func:`read_partial_message` reads a simulator's ``joint_states``, which also names joints no
transmission drives (doc/simulation.md).
"""

from typing import Any
from typing import Callable
from typing import Hashable
from typing import Iterable
from typing import Sequence
from typing import TypeVar

import numpy as np

from transmission_plugins.core.checks import FloatArray
from transmission_plugins.core.exceptions import TransmissionInputError

_T = TypeVar('_T', bound=Hashable)

#: The value fields of a JointState message, in message order.
FIELDS = ('position', 'velocity', 'effort')

#: The fewest names a message that may name unknown entries is allowed (:meth:`NameIndex.select`
#: also accepts ten times the known names).
PARTIAL_NAMES = 10_000

#: Why a message is dropped (the counter keys of /diagnostics).
DROP_REASONS = ('empty', 'too_large', 'length_mismatch', 'unknown_names', 'duplicate_names',
                'non_finite', 'bad_type', 'not_commandable', 'uncalibrated')


class InputRejected(TransmissionInputError):
    """
    A message failed validation; ``reason`` is one of :data:`DROP_REASONS`.

    A :class:`~transmission_plugins.TransmissionInputError`, hence also a
    ``TransmissionError`` and a ``ValueError``.
    """

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f'{reason}: {detail}')
        self.reason = reason
        self.detail = detail


def all_true(mask: np.ndarray) -> bool:
    """Return ``mask.all()`` (count_nonzero: a fraction of ``ndarray.all``'s overhead)."""
    return bool(np.count_nonzero(mask) == mask.size)


def any_true(mask: np.ndarray) -> bool:
    """Return ``mask.any()``, the cheap way (see :func:`all_true`)."""
    return bool(np.count_nonzero(mask) != 0)


def repeated(items: Iterable[_T]) -> set[_T]:
    """Return the items that occur more than once, in linear time."""
    seen: set[_T] = set()
    twice: set[_T] = set()
    for x in items:
        if x in seen:
            twice.add(x)
        seen.add(x)
    return twice


def field_array(values: Any, count: int, field: str,
                select: np.ndarray | None = None) -> FloatArray | None:
    """
    Return one field of a message as float64, None when empty.

    :param count: the number of names in the message
    :param select: keep these entries only (None: all); the others are not checked for NaN
    :raises InputRejected: ``bad_type`` (not a sequence of numbers), ``length_mismatch``,
        ``non_finite`` (NaN or infinity)
    """
    try:
        n = len(values)
    except TypeError as e:
        raise InputRejected('bad_type', f'{field} is not a sequence') from e
    if n == 0:
        return None
    if n != count:
        raise InputRejected('length_mismatch', f'{count} names but {n} {field} values')
    try:
        x = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise InputRejected('bad_type', f'{field} values are not numbers') from e
    if select is not None:
        x = x[select]
    if not all_true(np.isfinite(x)):
        raise InputRejected('non_finite', f'{field} contains NaN or infinity')
    return x


def message_fields(names: Sequence[str], position: Any, velocity: Any,
                   effort: Any, select: np.ndarray | None = None) -> dict[str, FloatArray]:
    """
    Return the non-empty fields of a message, each validated by :func:`field_array`.

    :param select: keep these entries only (None: all)
    :raises InputRejected: a bad field, or ``empty`` when no field has values
    """
    n = len(names)
    out = {}
    for field, values in zip(FIELDS, (position, velocity, effort)):
        x = field_array(values, n, field, select)
        if x is not None:
            out[field] = x
    if not out:
        raise InputRejected('empty', 'no position, velocity or effort values')
    return out


class NameIndex:
    """
    Map the name lists of messages to index arrays, caching the last list.

    Messages of one sender repeat their names, so the last list is compared first (one list
    comparison per message), and so does a flood of bad messages: the last list refused is
    refused again for the same reason without checking it again.  A new list is checked for
    emptiness, duplicates and unknown names, in linear time.

    :meth:`select` is the lookup of messages that may name more than the known names (their
    other names are ignored); it has a cache of its own (:meth:`_cached`).

    :param names: the known names, in index order
    :param kind: ``'joint'`` or ``'actuator'``, for messages
    """

    def __init__(self, names: Sequence[str], kind: str) -> None:
        self.names = list(names)
        self.kind = kind
        self._pos = {n: i for i, n in enumerate(self.names)}
        #: per lookup: the last list accepted with its result, the last refused with its reason
        self._cache: dict[str, tuple[Any, Any]] = {}
        #: the most names :meth:`select` accepts in one message
        self.max_partial = max(PARTIAL_NAMES, 10 * len(self.names))

    def check_size(self, names: Sequence[str]) -> None:
        """
        Refuse a message that names more entries than there are, in constant time.

        :raises InputRejected: ``too_large`` (it must hold duplicates or unknown names)
        """
        if len(names) > len(self.names):
            raise InputRejected('too_large', f'{len(names)} names, more than the '
                                f'{len(self.names)} {self.kind}s there are')

    def lookup(self, names: Sequence[str]) -> np.ndarray:
        """
        Return the indices of ``names``.

        :raises InputRejected: ``too_large``, ``empty``, ``duplicate_names`` or
            ``unknown_names``
        """
        self.check_size(names)
        return self._cached('lookup', list(names), self._check)

    def _cached(self, kind: str, names: list[str], check: Callable[[list[str]], Any]) -> Any:
        """Return ``check(names)``, or again what it returned or raised for the last list."""
        accepted, refused = self._cache.get(kind, (None, None))
        if accepted is not None and names == accepted[0]:
            return accepted[1]
        if refused is not None and names == refused[0]:
            raise InputRejected(refused[1], refused[2])
        try:
            found = check(names)
        except InputRejected as e:
            self._cache[kind] = (accepted, (names, e.reason, e.detail))
            raise
        self._cache[kind] = ((names, found), refused)
        return found

    def _refuse_empty_or_repeated(self, names: list[str]) -> None:
        """Raise :class:`InputRejected` for a message without names or with a name twice."""
        if not names:
            raise InputRejected('empty', 'message has no names')
        duplicates = repeated(names)
        if duplicates:
            raise InputRejected('duplicate_names',
                                f'duplicate {self.kind} names {sorted(duplicates)[:5]}')

    def _check(self, names: list[str]) -> np.ndarray:
        self._refuse_empty_or_repeated(names)
        unknown = [n for n in names if n not in self._pos]
        if unknown:
            raise InputRejected('unknown_names', f'unknown {self.kind} names {unknown[:5]}; '
                                                 f'{self._expected()}')
        return np.array([self._pos[n] for n in names], dtype=np.intp)

    def select(self, names: Sequence[str]) -> tuple[np.ndarray, np.ndarray | None]:
        """
        Return the indices of the known names of ``names``, and where they are in ``names``.

        Unknown names are ignored.

        :returns: ``(indices, positions)``; positions is None when every name is known
        :raises InputRejected: ``too_large`` (more than :attr:`max_partial` names), ``empty``,
            ``duplicate_names``, or ``unknown_names`` when no name is known
        """
        if len(names) > self.max_partial:
            raise InputRejected('too_large', f'{len(names)} names, more than the '
                                f'{self.max_partial} a message may hold here')
        return self._cached('select', list(names), self._check_partial)

    def _check_partial(self, names: list[str]) -> tuple[np.ndarray, np.ndarray | None]:
        self._refuse_empty_or_repeated(names)
        pos = self._pos
        where = [k for k, n in enumerate(names) if n in pos]
        if not where:
            raise InputRejected('unknown_names', f'none of the {len(names)} names is a '
                                f'{self.kind} of the robot (first: {names[:5]}); '
                                f'{self._expected()}')
        idx = np.array([pos[names[k]] for k in where], dtype=np.intp)
        return idx, None if len(where) == len(names) else np.array(where, dtype=np.intp)

    def _expected(self) -> str:
        """Return the known names for a message, the first ten of them."""
        more = f' and {len(self.names) - 10} more' if len(self.names) > 10 else ''
        return f'expected: {self.names[:10]}{more}'

    def forget(self) -> None:
        """Forget the cached lists (the next lookup checks its names again)."""
        self._cache = {}


class DropCounts(dict[str, dict[str, int]]):
    """
    Dropped messages counted per topic and reason: ``counts[topic][reason]``.

    Also keeps, per topic, the drops not yet reported and the last rejection, for a log line
    written at most once per interval (:meth:`report`) instead of a logger call per message.
    """

    def __init__(self) -> None:
        super().__init__()
        #: topic -> (drops since the last report, the last rejection)
        self.unreported: dict[str, tuple[int, InputRejected]] = {}

    def count(self, topic: str, reason: str) -> None:
        """Count one dropped message."""
        counts = self.setdefault(topic, {})
        counts[reason] = counts.get(reason, 0) + 1

    def reject(self, topic: str, error: 'InputRejected') -> None:
        """Count ``error``'s message as dropped and keep it for the next :meth:`report`."""
        self.count(topic, error.reason)
        pending = self.unreported.get(topic)
        self.unreported[topic] = (1 if pending is None else pending[0] + 1, error)

    def total(self) -> int:
        """Return the number of dropped messages on every topic."""
        return sum(sum(c.values()) for c in self.values())

    def report(self) -> list[str]:
        """
        Return one line per topic with drops since the last report, and forget them.

        ``'dropped 3 messages on actuator_states since the last report (last: unknown_names:
        ...); 12 in all'``
        """
        lines = []
        for topic, (count, error) in sorted(self.unreported.items()):
            total = sum(self.get(topic, {}).values())
            noun = 'message' if count == 1 else 'messages'
            lines.append(f'dropped {count} {noun} on {topic} since the last report (last: '
                         f'{error}); {total} in all')
        self.unreported = {}
        return lines


def read_message(index: NameIndex, names: Sequence[str], position: Any, velocity: Any,
                 effort: Any) -> tuple[np.ndarray, dict[str, FloatArray]]:
    """
    Validate a whole message: its fields against its names, then its names against ``index``.

    The one order of checks every node uses, so that a message is dropped for the same reason
    everywhere: ``too_large`` (more names than ``index`` knows, in constant time), ``bad_type``,
    ``length_mismatch``, ``non_finite``, ``empty`` (no values), then ``empty`` (no names),
    ``duplicate_names``, ``unknown_names``.

    :returns: the names' indices and the non-empty fields
    :raises InputRejected: the first check that fails
    """
    index.check_size(names)
    values = message_fields(names, position, velocity, effort)
    return index.lookup(names), values


def read_partial_message(index: NameIndex, names: Sequence[str], position: Any, velocity: Any,
                         effort: Any) -> tuple[np.ndarray, dict[str, FloatArray]]:
    """
    Validate a message that may name more than ``index`` knows; keep the known entries.

    Checks, in order: the names (:meth:`NameIndex.select`: ``too_large``, ``empty``,
    ``duplicate_names``, ``unknown_names`` when none is known), then every field's type and
    length, then the known entries' values (``non_finite``), then ``empty`` (no values).

    :returns: the known names' indices and their values per non-empty field
    :raises InputRejected: the first check that fails
    """
    idx, where = index.select(names)
    return idx, message_fields(names, position, velocity, effort, where)
