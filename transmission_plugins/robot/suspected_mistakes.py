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

r"""
Suspected URDF mistakes in words: flipped signs, reductions off by a factor, offsets off a turn.

A reduction whose identified value is the URDF's times :math:`-1` is a *flipped sign*; times a
simple factor (:data:`SIMPLE_FACTORS` or its inverse, either sign) it is *off by that factor*;
anything else is said as the ratio.  An offset that differs by about a whole number of turns
(of the joint, :math:`2\pi`, or of its actuator behind a reduction :math:`n`,
:math:`2\pi/|n|`) is said to be *near a full turn*; a match is within three standard
deviations and :data:`RELATIVE` of the value, and near a turn is within :data:`NEAR_TURN` of it.
"""

import math
from typing import Sequence

#: the factors a reduction is recognised to be off by (and their inverses)
SIMPLE_FACTORS = (2.0, 3.0, 4.0, 5.0, 10.0, 1.5, 2.5, 100.0, 1000.0)
#: the relative tolerance of a match, besides three standard deviations
RELATIVE = 0.005
#: how close to a whole turn an offset difference is "near a full turn" (fraction of a turn)
NEAR_TURN = 0.1
#: an offset change below this (rad or m) is rounding, not a finding
TINY = 1e-9


def simple_factor(ratio: float, sigma: float) -> tuple[float, str] | None:
    """Return ``(factor, words)`` for a ratio that is a simple factor, else None."""
    tolerance = max(3.0 * sigma, RELATIVE)
    candidates = [(f, f'{f:g}') for f in SIMPLE_FACTORS]
    candidates += [(1.0 / f, f'1/{f:g}') for f in SIMPLE_FACTORS]
    for factor, words in sorted(candidates, key=lambda c: abs(abs(ratio) - c[0])):
        if abs(abs(ratio) / factor - 1.0) <= tolerance:
            return math.copysign(factor, ratio), words
    return None


def reduction_finding(name: str, end: str, urdf: float, value: float, sigma: float,
                      alternatives: Sequence[tuple[str, int, str]] = ()) -> str:
    """Return the words for a reduction whose identified value differs from the URDF's."""
    what = f"{name.replace('_', ' ')} of {end}"
    ratio = value / urdf
    rel = abs(sigma / value) if value else math.inf
    numbers = f'(URDF {urdf:g}, recording {value:.6g} +- {sigma:.2g})'
    if abs(ratio + 1.0) <= max(3.0 * rel, RELATIVE):
        words = f'{what}: flipped sign {numbers}'
    else:
        found = simple_factor(ratio, rel)
        if found is None:
            words = f'{what} differs by a factor of {ratio:.6g} {numbers}'
        else:
            size = abs(found[0])
            factor = f'{size:g}' if size >= 1.0 else f'{1.0 / size:g}'
            how = 'too small' if size > 1.0 else 'too large'
            sign = ' and its sign flipped' if found[0] < 0 else ''
            words = (f"{what}: off by a factor of {factor} (the URDF's is {factor} times "
                     f'{how}{sign}) {numbers}')
    if alternatives:
        others = ', '.join(f"{n.replace('_', ' ')} of {e}" for n, _, e in alternatives)
        words += f'; the recording fits {others} as well (it cannot tell them apart)'
    return words


def offset_finding(joint: str, urdf: float, value: float, sigma: float,
                   reduction: float | None = None) -> str:
    """Return the words for a joint offset that differs from the URDF's ('' when it does not)."""
    change = value - urdf
    if abs(change) <= max(3.0 * sigma, TINY):
        return ''
    words = f'offset of {joint} differs by {change:+.6g} (URDF {urdf:g}, recording ' \
            f'{value:.6g} +- {sigma:.2g})'
    turns: list[tuple[float, str]] = [(2.0 * math.pi, 'the joint')]
    if reduction is not None and abs(reduction) != 1.0:
        turns.append((2.0 * math.pi / abs(reduction), 'its actuator'))
    for turn, whose in turns:
        count = round(change / turn)
        rest = change - count * turn
        if count and abs(rest) <= NEAR_TURN * turn:
            plural = 's' if abs(count) > 1 else ''
            words += (f': near {abs(count)} full turn{plural} of {whose} ({count * turn:+.6g}'
                      f'{"" if abs(rest) <= max(3 * sigma, TINY) else f", then {rest:+.3g}"}); '
                      'a position counted a turn off?')
            break
    return words


def corrected_value(urdf: float, value: float, sigma: float, reduction: bool) -> float:
    """
    Return the value to write into the URDF for an identified one.

    A reduction off by a simple factor (or a flipped sign) is the URDF's value times that
    factor exactly; other values are written to the digits the recording supports: the decimal
    with the fewest significant digits within one standard deviation of the value (``4e-06 +-
    1.1e-05`` is 0, ``0.83141 +- 2e-4`` is 0.8314), not the noise in its last digits.
    """
    if reduction and value:
        found = simple_factor(value / urdf, abs(sigma / value))
        if found is not None or abs(value / urdf + 1.0) <= max(3 * abs(sigma / value), RELATIVE):
            return urdf * (found[0] if found is not None else -1.0)
    return shortest_within(value, sigma)


def shortest_within(value: float, sigma: float) -> float:
    """Return the decimal with the fewest significant digits within ``sigma`` of ``value``."""
    if not sigma > 0.0 or not math.isfinite(sigma) or not math.isfinite(value):
        return float(f'{value:.12g}')
    if abs(value) <= sigma:
        return 0.0
    for digits in range(1, 13):
        candidate = float(f'{value:.{digits}g}')
        if abs(candidate - value) <= sigma:
            return candidate
    return float(f'{value:.12g}')
