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

"""Validation helpers for numeric transmission parameters."""

import math
import numbers
from typing import Any
from typing import Collection
from typing import Mapping
from typing import Sequence

import numpy as np
import numpy.typing as npt

from transmission_plugins.core.exceptions import TransmissionInputError
from transmission_plugins.core.exceptions import TransmissionValueError

#: float64 arrays, the currency of every map
FloatArray = npt.NDArray[np.float64]
#: the dtype of every array the maps convert
FLOAT64 = np.dtype(np.float64)
#: interface name to values, what the functional maps take and return
ArrayMap = dict[str, FloatArray]


def real_number(value: Any, parameter: str, where: str = '') -> float:
    """
    Return ``value`` as a float (NaN and infinities included), rejecting booleans and text.

    :raises TransmissionValueError: naming ``parameter`` and the value
    """
    if isinstance(value, bool):
        raise TransmissionValueError(parameter, value, 'a real number', where)
    try:
        return float(value)
    except (TypeError, ValueError):
        raise TransmissionValueError(parameter, value, 'a real number', where) from None


def check_finite(value: Any, parameter: str, where: str = '') -> float:
    """
    Return ``value`` as a float, rejecting non-numbers, booleans, NaN and infinities.

    :raises TransmissionValueError: naming ``parameter`` and the value
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TransmissionValueError(parameter, value, 'a real number', where)
    x = float(value)
    if not math.isfinite(x):
        raise TransmissionValueError(parameter, value, 'a finite number', where)
    return x


def check_reduction(value: Any, parameter: str, where: str = '') -> float:
    """
    Return a reduction ratio as a float: finite and non-zero (negative flips the direction).

    :raises TransmissionValueError: for zero, NaN, infinite or non-numeric values
    """
    x = check_finite(value, parameter, where)
    if x == 0.0:
        raise TransmissionValueError(
            parameter, value, 'a non-zero number (a transmission reduction ratio cannot be zero)',
            where)
    return x


def check_positive(value: Any, parameter: str, where: str = '') -> float:
    """Return ``value`` as a float that is finite and strictly positive."""
    x = check_finite(value, parameter, where)
    if x <= 0.0:
        raise TransmissionValueError(parameter, value, 'a finite number > 0', where)
    return x


def check_sequence(value: Any, length: int, parameter: str, where: str = '') -> list[Any]:
    """
    Return ``value`` as a list of exactly ``length`` items.

    :raises TransmissionValueError: for scalars, strings and sequences of another length
    """
    if isinstance(value, (str, bytes)) or not isinstance(value, (Sequence, np.ndarray)):
        raise TransmissionValueError(parameter, value, f'a sequence of {length} numbers', where)
    items = list(value)
    if len(items) != length:
        raise TransmissionValueError(
            parameter, value, f'a sequence of exactly {length} values', where)
    return items


def check_array(value: Any, shape: Sequence[int], parameter: str,
                where: str = '') -> FloatArray:
    """
    Return ``value`` as a read-only float64 array of ``shape`` with finite entries.

    A ``-1`` in ``shape`` accepts any length of at least one on that axis (``(-1, -1)``: any
    non-empty matrix).

    :raises TransmissionValueError: not numbers (booleans and text included), ragged rows,
        another shape (named), or NaN and infinities
    """
    expected = ' x '.join('n' if n < 0 else str(n) for n in shape)
    try:
        x = np.array(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise TransmissionValueError(parameter, value, f'{expected} real numbers (rows of equal '
                                     'length)', where) from None
    if isinstance(value, (str, bytes)) or np.asarray(value).dtype.kind == 'b':
        raise TransmissionValueError(parameter, value, f'{expected} real numbers', where)
    if x.ndim != len(shape) or any(m != n if n >= 0 else m < 1 for m, n in zip(x.shape, shape)):
        got = ' x '.join(map(str, x.shape)) or 'a single number'
        raise TransmissionValueError(parameter, value, f'{expected} real numbers, not {got}',
                                     where)
    if not np.all(np.isfinite(x)):
        raise TransmissionValueError(parameter, value, f'{expected} finite numbers', where)
    x.setflags(write=False)
    return x


def check_value_arrays(values: Any, size: int, side: str, interfaces: Collection[str],
                       owner: str) -> ArrayMap:
    """
    Validate a mapping of interface name to values and return float64 arrays.

    Each array must hold real numbers (integer or float dtype: strings, booleans, None and
    objects are rejected) with ``size`` entries on its last axis; leading axes are a batch.

    :param values: mapping from interface name to array-like
    :param size: number of joints or actuators on the last axis
    :param side: ``'joint'`` or ``'actuator'``, for messages
    :param interfaces: the interface names accepted
    :param owner: who is converting (a transmission or robot name), for messages
    :raises TransmissionInputError: not a mapping, unknown interface, non-numbers, wrong shape
    """
    if type(values) is not dict and not isinstance(values, Mapping):
        raise TransmissionInputError(
            f'{owner}: expected a mapping from interface name to array, got '
            f'{type(values).__name__}')
    arrays: ArrayMap = {}
    for name, raw in values.items():
        if name not in interfaces:
            raise TransmissionInputError(
                f'{owner}: unknown interface {name!r}; expected one of {", ".join(interfaces)}')
        try:
            x = raw if type(raw) is np.ndarray else np.asarray(raw)
            if x.dtype is not FLOAT64:
                if x.dtype.kind not in 'iuf':
                    raise TypeError(f'dtype {x.dtype} is not a real number type')
                x = x.astype(np.float64)
        except (TypeError, ValueError) as e:
            raise TransmissionInputError(
                f'{owner}: {side} {name!r} values are not numbers: {e}') from e
        shape = x.shape
        if not shape or shape[-1] != size:
            raise TransmissionInputError(
                f'{owner}: {side} {name!r} values must have {size} entries on the last axis, '
                f'got shape {shape}')
        arrays[name] = x
    return arrays
