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
Node parameters without ROS: what each accepts, and one check used everywhere.

A node declares its parameters as ``name -> (default, description[, Constraint])``; the ROS
layer calls :func:`check_parameter` from the set-parameters callback and again at configure.
The type is the default's: a float parameter accepts integers but no text, no bool and no NaN or
infinity (doc/nodes.md, "Parameters").
"""

import math
from typing import Any
from typing import NamedTuple
from typing import Sequence

from transmission_plugins.core.exceptions import TransmissionError
from transmission_plugins.runtime.messages import repeated


class InvalidParameters(TransmissionError, ValueError):
    """Parameters break their constraints; the message gives every reason."""


#: The most entries an array parameter accepts.
MAX_ITEMS = 100_000
#: The longest string a parameter (or an entry of a string array) accepts unless its constraint
#: says otherwise (``robot_description``: the loader's bound): names and frame ids are short, and
#: a 5 MB ``frame_id`` copied into every message cut the output rate by half.
MAX_STRING = 256


class Constraint(NamedTuple):
    """
    What a parameter accepts beyond its type.

    :param off: one more number accepted outside ``[low, high]``, meaning "disabled" (e.g. a
        diagnostic period of 0)
    :param choices: the strings accepted (empty: any); of a string array, its entries
    :param read_only: the value is fixed once the node runs (set it at start-up)
    :param note: the rule in words, when the bounds do not say it all
    """

    low: float | None = None
    high: float | None = None
    off: float | None = None
    choices: tuple[str, ...] = ()
    read_only: bool = False
    unique: bool = False
    note: str = ''
    max_length: int = MAX_STRING

    def describe(self) -> str:
        """Return the rule in words (the descriptor's ``additional_constraints``)."""
        parts = []
        if self.low is not None or self.high is not None:
            lo = '-inf' if self.low is None else f'{self.low:g}'
            hi = 'inf' if self.high is None else f'{self.high:g}'
            parts.append(f'in [{lo}, {hi}]')
        if self.off is not None:
            parts.append(f'or {self.off:g} (disabled)')
        if self.choices:
            parts.append('one of ' + ', '.join(self.choices))
        if self.unique:
            parts.append('no duplicates')
        if self.note:
            parts.append(self.note)
        if self.read_only:
            parts.append('read-only: set it at start-up')
        return '; '.join(parts)


#: name -> (default, description) or (default, description, Constraint)
Specs = dict[str, tuple[Any, ...]]


def constraint_of(spec: tuple[Any, ...]) -> Constraint:
    """Return the constraint of a parameter spec (none given: no constraint)."""
    return spec[2] if len(spec) > 2 and spec[2] is not None else Constraint()


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def check_parameter(name: str, value: Any, default: Any,
                    constraint: Constraint = Constraint()) -> str | None:
    """
    Return why ``value`` is not acceptable for parameter ``name``, or None when it is.

    :param default: the declared default; its type is the parameter's (a float accepts ints; an
        empty list stands for a string array, a list of floats for a float array)
    """
    if isinstance(default, bool):
        if not isinstance(value, bool):
            return f'{name} must be true or false, got {value!r}'
        return None
    if isinstance(default, (int, float)):
        return _check_number(name, value, isinstance(default, float), constraint)
    if isinstance(default, str):
        if not isinstance(value, str):
            return f'{name} must be a string, got {value!r}'
        if len(value) > constraint.max_length:
            return (f'{name} must be at most {constraint.max_length} characters long, got '
                    f'{len(value)}')
        if constraint.choices and value not in constraint.choices:
            return f'{name} must be one of {", ".join(constraint.choices)}, got {value!r}'
        return None
    if isinstance(default, (list, tuple)):
        return _check_array(name, value, default, constraint)
    return None


def _check_number(name: str, value: Any, is_float: bool, c: Constraint) -> str | None:
    kind = 'a number' if is_float else 'an integer'
    if not _is_number(value) or (not is_float and not isinstance(value, int)):
        return f'{name} must be {kind}, got {value!r}'
    if is_float and not math.isfinite(value):
        return f'{name} must be a finite number, got {value!r}'
    if c.off is not None and value == c.off:
        return None
    if (c.low is not None and value < c.low) or (c.high is not None and value > c.high):
        return f'{name} must be {c.describe()}, got {value!r}'
    return None


def _check_array(name: str, value: Any, default: Sequence[Any], c: Constraint) -> str | None:
    if value is None:   # an array parameter declared by type only, not set
        return None
    if not isinstance(value, (list, tuple)):
        return f'{name} must be an array, got {value!r}'
    if len(value) > MAX_ITEMS:
        return f'{name} must have at most {MAX_ITEMS} entries, got {len(value)}'
    floats = bool(default) and all(_is_number(x) for x in default)
    for x in value:
        if floats:
            if not _is_number(x) or not math.isfinite(x):
                return f'{name} must hold finite numbers, got {x!r}'
        elif not isinstance(x, str):
            return f'{name} must hold strings, got {x!r}'
        elif len(x) > c.max_length:
            return f'{name} must hold strings of at most {c.max_length} characters, got {len(x)}'
        elif c.choices and x not in c.choices:
            return f'{name} must hold entries among {", ".join(c.choices)}, got {x!r}'
    if c.unique:
        twice = repeated(value)
        if twice:
            return f'{name} must not repeat entries, got {sorted(twice)[:5]} more than once'
    return None


def check_parameters(specs: Specs, values: dict[str, Any]) -> list[str]:
    """Return the reasons why any of ``values`` (name -> value) breaks ``specs`` (none: [])."""
    reasons = []
    for name, value in values.items():
        spec = specs.get(name)
        if spec is not None:
            reason = check_parameter(name, value, spec[0], constraint_of(spec))
            if reason is not None:
                reasons.append(reason)
    return reasons


def require_valid(specs: Specs, values: dict[str, Any]) -> None:
    """
    Check ``values`` against ``specs`` (what a node does again when it configures).

    :raises InvalidParameters: naming every bad parameter and why
    """
    reasons = check_parameters(specs, values)
    if reasons:
        raise InvalidParameters('; '.join(reasons))
