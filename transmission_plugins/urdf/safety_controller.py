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
A joint's ``<safety_controller>``: its soft limits, read with the rules of :mod:`~.limits`.

``<safety_controller soft_lower_limit soft_upper_limit k_position k_velocity/>`` (URDF spec:
``k_velocity`` required, the others 0 when absent, as urdfdom reads them).  A value that is not
a finite number, a negative gain, or ``soft_lower_limit > soft_upper_limit`` is a problem
(strict: :class:`~transmission_plugins.BadValueError` for a joint driven by a transmission;
lenient: a warning and no soft limits); a missing ``k_velocity`` is a warning (no effort soft
limit).  What the gains do to commands is in :mod:`transmission_plugins.runtime.soft_limits`.
"""

import math
from typing import Any
from typing import NamedTuple

from transmission_plugins.urdf.limits import LimitReader

SAFETY_CONTROLLER_TAG = 'safety_controller'
#: the attributes and their defaults (URDF spec, urdfdom); ``k_velocity`` is required
_DEFAULTS = (('soft_lower_limit', 0.0), ('soft_upper_limit', 0.0), ('k_position', 0.0))


class SafetyController(NamedTuple):
    """The soft limits of one joint (NaN: ``k_velocity`` not given)."""

    soft_lower: float
    soft_upper: float
    k_position: float
    k_velocity: float


def read_safety_controller(reader: LimitReader, element: Any) -> SafetyController | None:
    """
    Return the joint's soft limits, or None when ``element`` is None or unusable (noted).

    :param reader: the joint's limit reader (its policy: strict, lenient or quiet)
    :raises BadValueError: a driven joint in strict mode with a bad value (path, value)
    """
    if element is None:
        return None
    r = reader.child(element, SAFETY_CONTROLLER_TAG)
    values = {}
    for attribute, default in _DEFAULTS + (('k_velocity', math.nan),):
        if element.get(attribute) is None:
            if attribute == 'k_velocity':
                r.note(f'{r.path}/@k_velocity', "attribute 'k_velocity' is missing (the URDF "
                       'spec requires it): no soft effort limit')
            values[attribute] = default
            continue
        x = r.number(attribute)
        if x is None:
            return None
        if attribute.startswith('k_') and x < 0.0:
            r.problem(f'{r.path}/@{attribute}', f'expected a gain >= 0, got '
                      f'{element.get(attribute)!r}')
            return None
        values[attribute] = x
    if values['soft_lower_limit'] > values['soft_upper_limit']:
        r.problem(r.path, f'expected soft_lower_limit <= soft_upper_limit, got '
                  f'{element.get("soft_lower_limit")!r} and {element.get("soft_upper_limit")!r}')
        return None
    return SafetyController(values['soft_lower_limit'], values['soft_upper_limit'],
                            values['k_position'], values['k_velocity'])
