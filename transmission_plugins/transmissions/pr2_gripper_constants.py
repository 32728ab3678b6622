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
A constant of the PR2 gripper's closed forms, checked: finite (and non-zero where it divides).

Coefficients that are each finite, such as ``a = 1e308`` or ``gear_ratio = 5e-324``, can make
:math:`a^2 + b^2 - h^2` or :math:`s/g` infinite or zero.  :func:`checked_constant` then raises
a ``TransmissionValueError`` naming the coefficient of the most extreme magnitude (largest log-
magnitude) among those the constant uses.
"""

import math
from typing import Callable
from typing import Mapping
from typing import Tuple

from transmission_plugins.core.exceptions import TransmissionValueError


def checked_constant(formula: str, coefficients: Tuple[str, ...], values: Mapping[str, float],
                     compute: Callable[[], float], nonzero: bool = False) -> float:
    """
    Return ``compute()`` when it is finite (and non-zero with ``nonzero``).

    :param formula: the constant as written in the message (``'s/g'``)
    :param coefficients: the URDF names of the coefficients it uses
    :param values: URDF coefficient name -> value
    :raises TransmissionValueError: the constant overflows, is NaN or vanishes
    """
    try:
        value = compute()
    except ArithmeticError:  # float ** and / raise where numpy gives inf
        value = math.nan
    if math.isfinite(value) and not (nonzero and value == 0.0):
        return value

    def extremity(name: str) -> float:
        x = abs(values[name])
        return abs(math.log(x)) if x > 0.0 else 0.0

    culprit = max(coefficients, key=extremity)
    others = ', '.join(f'{c}={values[c]!r}' for c in coefficients if c != culprit)
    state = 'finite and non-zero' if nonzero else 'finite'
    raise TransmissionValueError(
        culprit, values[culprit], f'a magnitude for which the linkage constant {formula} is '
        f'{state}' + (f' (with {others})' if others else ''), 'PR2GripperTransmission')
