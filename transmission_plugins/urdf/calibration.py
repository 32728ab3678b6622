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
A joint's ``<calibration rising falling>``: where its reference switch changes state.

As in ROS 1's URDF and PR2's calibration controllers (doc/calibration.md): the switch reads on
above ``rising``, below ``falling``.  A joint may give one of them; both only for a continuous
joint (then ``rising`` is used, as the PR2 did).  ``reference_position`` (an older attribute PR2
stopped using) is not a switch position.  Values are read with the rules of :mod:`~.limits`.
"""

from typing import Any
from typing import NamedTuple

from transmission_plugins.urdf.limits import LimitReader

CALIBRATION_TAG = 'calibration'


class ReferenceSwitch(NamedTuple):
    """The switch positions of one joint (None: not given)."""

    rising: float | None
    falling: float | None

    def edge(self) -> float:
        """Return the position homing finds: ``rising`` when given, else ``falling``."""
        value = self.rising if self.rising is not None else self.falling
        assert value is not None
        return value

    def direction(self) -> float:
        """Return the direction of the final approach: +1 for ``rising``, -1 for ``falling``."""
        return 1.0 if self.rising is not None else -1.0


def read_calibration(reader: LimitReader, element: Any) -> ReferenceSwitch | None:
    """
    Return the joint's reference switch, or None when ``element`` is None or gives no edge.

    :param reader: the joint's limit reader (its policy: strict, lenient or quiet)
    :raises BadValueError: a driven joint in strict mode with a bad value, or both edges on a
        joint that is not continuous (path, value)
    """
    if element is None:
        return None
    r = reader.child(element, CALIBRATION_TAG)
    edges = {}
    for attribute in ('rising', 'falling'):
        if element.get(attribute) is None:
            continue
        x = r.number(attribute)
        if x is None:
            return None
        edges[attribute] = x
    if not edges:
        return None
    if len(edges) == 2 and r.type != 'continuous':
        r.problem(r.path, f'a {r.type} joint gives both rising and falling: homing would not '
                  'know which edge to find (only a continuous joint may give both; give one)')
        return None
    return ReferenceSwitch(edges.get('rising'), edges.get('falling'))
