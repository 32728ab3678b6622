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
The ``<limit>`` of a joint, read from the raw XML with one rule for what is missing.

**Missing means no limit; malformed is an error**, for the joints driven by transmissions, as
doc/robot_api.md ("Joint limits") and doc/urdf.md ("Strict and lenient") state: a missing
``<limit>``, ``effort`` or ``velocity`` is unlimited with a warning, a bad value raises
:class:`~transmission_plugins.BadValueError` (lenient: that limit is absent), and 0 means no
limit.  Limits of other joints are read the same way, but problems are only noted (in the
model's ``warnings``) and the limit taken as absent.
"""

import math
from typing import Any

from transmission_plugins.core.exceptions import BadValueError
from transmission_plugins.core.exceptions import LoadWarning
from transmission_plugins.core.exceptions import UrdfTransmissionError
from transmission_plugins.urdf.elements import parse_number
from transmission_plugins.urdf.elements import source_line

#: joint types whose ``<limit lower upper>`` are position limits, and for which the URDF spec
#: requires a ``<limit>``
POSITION_LIMITED = ('revolute', 'prismatic')
LIMIT_TAG = 'limit'

#: (lower, upper, velocity, effort)
Limits = tuple[float, float, float, float]
UNLIMITED: Limits = (-math.inf, math.inf, math.inf, math.inf)


class LimitReader:
    """
    Read the limits of one joint: strictly (driven, strict mode), leniently, or quietly.

    :param driven: the joint is driven by a transmission (its problems matter)
    :param lenient: take a bad limit of a driven joint as absent, with a warning
    :param notes: receives the warnings of driven joints
    :param quiet_notes: receives the problems of joints no transmission drives
    """

    def __init__(self, joint: Any, joint_type: str, path: str, *, driven: bool,
                 lenient: bool, notes: list[LoadWarning], quiet_notes: list[LoadWarning]) -> None:
        self.joint = joint
        self.type = joint_type
        self.joint_path = path
        self.path = path
        self.driven = driven
        self.lenient = lenient
        self.notes = notes
        self.quiet_notes = quiet_notes
        self.limit: Any = None
        self.line: int | None = source_line(joint)

    def child(self, element: Any, tag: str) -> 'LimitReader':
        """
        Return a reader of another child element of the joint, with this one's policy.

        :mod:`~.safety_controller` and :mod:`~.calibration` read ``<safety_controller>`` and
        ``<calibration>`` with the rules of this module (problems of driven joints raise in
        strict mode, are warnings in lenient mode, are noted quietly for other joints).
        """
        reader = LimitReader(self.joint, self.type, self.joint_path, driven=self.driven,
                             lenient=self.lenient, notes=self.notes,
                             quiet_notes=self.quiet_notes)
        reader.limit = element
        reader.path = f'{self.joint_path}/{tag}'
        reader.line = source_line(element)
        return reader

    def read(self, limit: Any) -> Limits:
        """Return ``(lower, upper, velocity, effort)``, ``-inf``/``inf`` where there is none."""
        if limit is None:
            if self.driven and self.type in POSITION_LIMITED:
                self.note(self.path, f'no <{LIMIT_TAG}>: the {self.type} joint is unlimited in '
                          'position, velocity and effort (the URDF spec requires <limit> for '
                          'revolute and prismatic joints)')
            return UNLIMITED
        self.limit = limit
        self.path = f'{self.path}/{LIMIT_TAG}'
        self.line = source_line(limit)
        lower, upper = (self.position() if self.type in POSITION_LIMITED
                        else (-math.inf, math.inf))
        return lower, upper, self.rate('velocity'), self.rate('effort')

    def note(self, where: str, message: str) -> None:
        """Record a warning about a driven joint (nothing for other joints)."""
        if self.driven:
            self.notes.append(LoadWarning(where, message, self.line))

    def problem(self, where: str, message: str,
                error: type[UrdfTransmissionError] = BadValueError) -> None:
        """Raise (driven, strict) or record that a limit is unusable and taken as absent."""
        if self.driven and not self.lenient:
            raise error(where, message, self.line)
        if self.driven:
            self.notes.append(LoadWarning(where, f'{message}; taken as no limit (lenient mode)',
                                          self.line))
        else:
            self.quiet_notes.append(LoadWarning(where, f'{message}; taken as no limit',
                                                self.line))

    def number(self, attribute: str) -> float | None:
        """Return the finite value of ``attribute``, or None (problem recorded) when unusable."""
        raw = self.limit.get(attribute)
        x = parse_number(raw)
        if x is None or not math.isfinite(x):
            expected = ('a finite number >= 0 (0 = no limit)'
                        if attribute in ('effort', 'velocity') else 'a finite number')
            self.problem(f'{self.path}/@{attribute}', f'expected {expected}, got {raw!r}')
            return None
        return x

    def rate(self, attribute: str) -> float:
        """Return an effort or velocity limit: finite and > 0, or ``inf`` for none."""
        where = f'{self.path}/@{attribute}'
        raw = self.limit.get(attribute)
        if raw is None:
            self.note(where, f"attribute '{attribute}' is missing: no {attribute} limit (the "
                      'URDF spec requires effort and velocity in <limit>)')
            return math.inf
        x = self.number(attribute)
        if x is None:
            return math.inf
        if x < 0.0:
            self.problem(where, f'expected a finite number >= 0 (0 = no limit), got {raw!r}')
            return math.inf
        if x == 0.0:
            self.note(where, f'{attribute} 0 read as no limit (the URDF requires the attribute, 0 '
                      'is its placeholder; ros2_control would clamp to 0)')
            return math.inf
        return x

    def position(self) -> tuple[float, float]:
        """Return ``(lower, upper)``; 0 for an absent bound, ``-inf``/``inf`` for a bad one."""
        bounds = []
        for attribute, none in (('lower', -math.inf), ('upper', math.inf)):
            if self.limit.get(attribute) is None:
                bounds.append(0.0)
                continue
            x = self.number(attribute)
            bounds.append(none if x is None else x)
        lower, upper = bounds
        if lower > upper:
            self.problem(self.path, f'expected lower <= upper, got lower='
                         f'{self.limit.get("lower", "0")!r} and upper='
                         f'{self.limit.get("upper", "0")!r}')
            return -math.inf, math.inf
        return lower, upper
