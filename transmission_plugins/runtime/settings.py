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
Node parameters without ROS: one declared record per parameter, and its one validator.

A :class:`Setting` says everything about a parameter: name, type (its default's), default,
range or choices, unit, when a change applies (:data:`APPLIES`) and description.  A node's
parameters are a :class:`Declaration`.  Everything that declares, checks or documents a
parameter reads that record: the ROS layer's descriptors and set-parameters check, the launch
check of launch arguments and config files, ``--help`` and doc/nodes.md's tables (checked by
``test/runtime/test_settings_docs.py``).  :meth:`Setting.check` is the only validator: the launch
check and the node accept and refuse the same values with the same message.  A float
parameter accepts integers but no text, no bool and no NaN or infinity.
"""

from dataclasses import dataclass
import math
from typing import Any
from typing import Iterable
from typing import Iterator
from typing import Mapping
from typing import Sequence

from transmission_plugins.core.exceptions import TransmissionError
from transmission_plugins.runtime.messages import repeated


class InvalidParameters(TransmissionError, ValueError):
    """Parameters break their declaration; the message gives every reason."""


#: The most entries an array parameter accepts.
MAX_ITEMS = 100_000
#: The longest string a parameter (or an entry of a string array) accepts unless its record
#: says otherwise (``robot_description``: the loader's bound): names and frame ids are short, and
#: a 5 MB ``frame_id`` copied into every message cut the output rate by half.
MAX_STRING = 256
#: The deepest history accepted (``qos_depth`` and ``qos_overrides.*.depth``).
MAX_QOS_DEPTH = 10_000

#: When a change applies: at once, at the next configure, when the node starts (it is read
#: once, a later change is ignored), or never (read-only: set it at start-up).
AT_ONCE = 'at once'
AT_CONFIGURE = 'next configure'
AT_START = 'at start-up'
READ_ONLY = 'read-only'
APPLIES = (AT_ONCE, AT_CONFIGURE, AT_START, READ_ONLY)

#: the types of a parameter, as doc/nodes.md names them
TYPES = ('bool', 'int', 'double', 'string', 'string[]', 'double[]')


@dataclass(frozen=True)
class Setting:
    """
    One parameter of a node: the record everything about it is read from (module docstring).

    :param kind: one of :data:`TYPES`; default: the default's (an empty list: ``string[]``)
    :param off: one more number accepted outside ``[low, high]``, meaning "disabled" (e.g. a
        diagnostic period of 0)
    :param choices: the strings accepted (empty: any); of a string array, its entries
    :param note: the rule in words, when the bounds do not say it all
    """

    name: str
    default: Any
    description: str
    unit: str = ''
    applies: str = AT_ONCE
    low: float | None = None
    high: float | None = None
    off: float | None = None
    choices: tuple[str, ...] = ()
    unique: bool = False
    note: str = ''
    max_length: int = MAX_STRING
    kind: str = ''

    def __post_init__(self) -> None:
        if self.applies not in APPLIES:
            raise ValueError(f'{self.name}: applies must be one of {APPLIES}')
        if not self.kind:
            object.__setattr__(self, 'kind', _kind_of(self.default))

    @property
    def read_only(self) -> bool:
        """Return True when the value is fixed once the node runs."""
        return self.applies == READ_ONLY

    def accepted(self) -> str:
        """Return what the parameter accepts beyond its type, in words ('' when anything)."""
        parts = []
        unit = f' {self.unit}' if self.unit else ''
        if self.low is not None or self.high is not None:
            lo = '-inf' if self.low is None else f'{self.low:g}'
            hi = 'inf' if self.high is None else f'{self.high:g}'
            parts.append(f'in [{lo}, {hi}]{unit}')
        if self.off is not None:
            parts.append(f'or {self.off:g} (disabled)')
        if self.choices:
            parts.append('one of ' + ', '.join(self.choices))
        if self.unique:
            parts.append('no duplicates')
        if self.kind.startswith('string') and self.max_length != MAX_STRING:
            parts.append(f'at most {self.max_length} characters')
        if self.note:
            parts.append(self.note)
        return '; '.join(parts)

    def describe(self) -> str:
        """Return the rule in words with when it applies (a descriptor's constraints)."""
        parts = [self.accepted()] if self.accepted() else []
        if self.read_only:
            parts.append('read-only: set it at start-up')
        return '; '.join(parts)

    def check(self, value: Any) -> str | None:
        """Return why ``value`` is not acceptable, or None when it is (the one validator)."""
        name = self.name
        if self.kind == 'bool':
            return None if isinstance(value, bool) else (
                f'{name} must be true or false, got {value!r}')
        if self.kind in ('int', 'double'):
            return self._check_number(value)
        if self.kind == 'string':
            if not isinstance(value, str):
                return f'{name} must be a string, got {value!r}'
            if len(value) > self.max_length:
                return (f'{name} must be at most {self.max_length} characters long, got '
                        f'{len(value)}')
            if self.choices and value not in self.choices:
                return f'{name} must be one of {", ".join(self.choices)}, got {value!r}'
            return None
        return self._check_array(value)

    def _check_number(self, value: Any) -> str | None:
        is_float = self.kind == 'double'
        kind = 'a number' if is_float else 'an integer'
        if not _is_number(value) or (not is_float and not isinstance(value, int)):
            return f'{self.name} must be {kind}, got {value!r}'
        if is_float and not math.isfinite(value):
            return f'{self.name} must be a finite number, got {value!r}'
        if self.off is not None and value == self.off:
            return None
        if (self.low is not None and value < self.low) or (
                self.high is not None and value > self.high):
            return f'{self.name} must be {self.accepted()}, got {value!r}'
        return None

    def _check_array(self, value: Any) -> str | None:
        name = self.name
        if value is None:   # an array parameter declared by type only, not set
            return None
        if not isinstance(value, (list, tuple)):
            return f'{name} must be an array, got {value!r}'
        if len(value) > MAX_ITEMS:
            return f'{name} must have at most {MAX_ITEMS} entries, got {len(value)}'
        for x in value:
            if self.kind == 'double[]':
                if not _is_number(x) or not math.isfinite(x):
                    return f'{name} must hold finite numbers, got {x!r}'
            elif not isinstance(x, str):
                return f'{name} must hold strings, got {x!r}'
            elif len(x) > self.max_length:
                return (f'{name} must hold strings of at most {self.max_length} characters, '
                        f'got {len(x)}')
            elif self.choices and x not in self.choices:
                return f'{name} must hold entries among {", ".join(self.choices)}, got {x!r}'
        if self.unique:
            twice = repeated(value)
            if twice:
                return f'{name} must not repeat entries, got {sorted(twice)[:5]} more than once'
        return None

    def value_of(self, text: Any) -> Any:
        """
        Return the checked value of ``text`` as ``-p NAME:=TEXT`` gives it (a launch argument).

        The text is read as ROS reads a command-line value (a whole number, a number, ``true``
        or ``false``, else a string) and checked by :meth:`check`; a double is returned as a
        float.

        :raises InvalidParameters: the value is refused, with :meth:`check`'s message
        """
        value = _read_text(text) if isinstance(text, str) else text
        reason = self.check(value)
        if reason is not None:
            raise InvalidParameters(reason)
        return float(value) if self.kind == 'double' else value


def _kind_of(default: Any) -> str:
    if isinstance(default, bool):
        return 'bool'
    if isinstance(default, int):
        return 'int'
    if isinstance(default, float):
        return 'double'
    if isinstance(default, str):
        return 'string'
    if isinstance(default, (list, tuple)) and default and all(_is_number(x) for x in default):
        return 'double[]'
    return 'string[]'


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _read_text(text: str) -> Any:
    """Read a command-line value: an integer, a number, a bool, else the text itself."""
    stripped = text.strip()
    for read in (int, float):
        try:
            return read(stripped)
        except ValueError:
            pass
    return {'true': True, 'false': False}.get(stripped.lower(), text)


class Declaration(Mapping[str, Setting]):
    """
    The parameters of one node, in declaration order: name -> :class:`Setting`.

    :param node: the node's name (messages, doc/nodes.md's table headings)
    """

    def __init__(self, node: str, settings: Iterable[Setting]) -> None:
        self.node = node
        self._settings = {s.name: s for s in settings}

    def __getitem__(self, name: str) -> Setting:
        return self._settings[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._settings)

    def __len__(self) -> int:
        return len(self._settings)

    def defaults(self) -> dict[str, Any]:
        """Return every parameter's default value."""
        return {n: s.default for n, s in self._settings.items()}

    def applied(self, applies: str) -> frozenset[str]:
        """Return the names of the parameters whose changes apply ``applies``."""
        return frozenset(n for n, s in self._settings.items() if s.applies == applies)

    def reason(self, name: str, value: Any) -> str | None:
        """Return why ``value`` is refused for ``name`` (None: accepted, or not declared)."""
        setting = self._settings.get(name)
        return None if setting is None else setting.check(value)

    def reasons(self, values: Mapping[str, Any]) -> list[str]:
        """Return the reasons why any of ``values`` (name -> value) is refused (none: [])."""
        return [r for r in (self.reason(n, v) for n, v in values.items()) if r is not None]

    def require_valid(self, values: Mapping[str, Any]) -> None:
        """
        Check ``values`` (what a node does again when it configures).

        :raises InvalidParameters: naming every bad parameter and why
        """
        reasons = self.reasons(values)
        if reasons:
            raise InvalidParameters('; '.join(reasons))

    def derived(self, node: str, changes: Mapping[str, Mapping[str, Any]],
                drop: Sequence[str] = (),
                add: Mapping[str, Sequence[Setting]] | None = None
                ) -> 'Declaration':
        """
        Return another node's declaration made from this one.

        :param changes: name -> the fields of its record that differ (description, default...)
        :param drop: the parameters the other node does not have
        :param add: name -> the records declared right after it
        """
        out: list[Setting] = []
        extra = dict(add or {})
        for name, setting in self._settings.items():
            if name in drop:
                continue
            fields = dict(vars(setting), **changes.get(name, {}))
            if 'default' in changes.get(name, {}):
                fields['kind'] = ''
            out.append(Setting(**fields))
            out += extra.get(name, ())
        return Declaration(node, out)
