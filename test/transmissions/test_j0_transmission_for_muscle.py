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
Tests of J0TransmissionForMuscle: J0Transmission's maths under the muscle hand's type name.

Its URDF reading is tested with J0Transmission's (``test_j0_transmission.py``, both types).
"""

import numpy as np
import pytest

from transmission_plugins import J0Transmission
from transmission_plugins import J0TransmissionForMuscle
from transmission_plugins.plugins import load_transmission_class


# ------------------------------------------------------------------------------ preconditions
def test_construction_and_registration():
    t = J0TransmissionForMuscle()
    assert isinstance(t, J0Transmission) and repr(t) == 'J0TransmissionForMuscle()'
    assert (t.num_actuators(), t.num_joints()) == (1, 2)
    assert load_transmission_class('sr_mechanism_model/J0TransmissionForMuscle') \
        is J0TransmissionForMuscle
    with pytest.raises(TypeError):
        J0TransmissionForMuscle(0.5)


# ------------------------------------------------------------------------------ white box
def test_white_box():
    # a muscle pair pulled 1.2 rad at 0.4 rad/s with 0.3 N m: each joint half, the whole effort
    out = J0TransmissionForMuscle().actuator_to_joint(
        {'position': [1.2], 'velocity': [0.4], 'effort': [0.3]})
    assert {k: v.tolist() for k, v in out.items()} == {
        'position': [0.6, 0.6], 'velocity': [0.2, 0.2], 'effort': [0.3, 0.3]}


# ------------------------------------------------------------------------------ black box
def test_black_box_same_maps_as_j0():
    rng = np.random.default_rng(1234)
    muscle, j0 = J0TransmissionForMuscle(), J0Transmission()
    a = {k: rng.uniform(-3.0, 3.0, size=(50, 1)) for k in ('position', 'velocity', 'effort')}
    j = {k: rng.uniform(-3.0, 3.0, size=(50, 2)) for k in a}
    for convert, values in (('actuator_to_joint', a), ('joint_to_actuator', j)):
        mine, theirs = getattr(muscle, convert)(values), getattr(j0, convert)(values)
        for k in values:
            np.testing.assert_array_equal(mine[k], theirs[k])
