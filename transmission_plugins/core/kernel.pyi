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

"""The types of the compiled kernel (``src/kernel/module.c``)."""

from typing import Any
from typing import Sequence

NEWTON_TOLERANCE: float
NEWTON_ITERATIONS: int
NEWTON_HALVINGS: int
NEWTON_EVALUATIONS: int
WARM_EVALUATIONS: int
REACH_TOLERANCE: float
PARALLEL_ANKLE: int
SLIDER_CRANK: int
TABLE: int
PR2_GRIPPER: int
SERIES_ELASTIC: int


class Maps:
    """A flat description of a robot's maths, checked and copied once, and its conversion."""

    num_joints: int
    num_actuators: int
    num_mechanisms: int
    evaluations: int

    def __init__(self, num_joints: int, num_actuators: int,
                 rows: tuple[tuple[Any, Any, Any], ...], joint_offset: Any,
                 mechanisms: Sequence[tuple[int, Any, Any, Any, int, bool]]) -> None: ...

    def convert(self, to_joint: bool, batch: int, position: Any | None,
                velocity: Any | None, effort: Any | None, out_position: Any | None,
                out_velocity: Any | None, out_effort: Any | None, state: Any | None,
                unreachable: Any | None, jacobian: Any | None, warm: bool) -> None: ...

    def terms(self, index: int, to_joint: bool, position: Any) -> tuple[float, ...]: ...

    def forget(self) -> None: ...
