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
The MuJoCo physics with the extreme values of issue 23: reductions of 1e150, masses of 1e300.

On e6277b7 every reduction of the bundled robot at 1e150 gave NaN actuator states from the
first step, and masses of 1e300 made MuJoCo reset the robot again and again; nothing counted
either, so the mock node published them.  Now each step MuJoCo finds unstable is counted in
``diverged`` (the mock node halts on it and says so), and what is not counted is finite.
"""

import re

from mujoco_cases import BUNDLED
from mujoco_cases import loaded
from mujoco_cases import mujoco
import numpy as np
import pytest
from transmission_plugins.runtime.mujoco_model import ModelOptions
from transmission_plugins.runtime.mujoco_physics import MujocoPhysics
from transmission_plugins.tools.launch.node_plan import read_description


def _one_reduction(text):
    """Put a reduction of 1e150 on the pan joint's actuator (its only reduction of 2.0)."""
    return text.replace('<mechanicalReduction>2.0</mechanicalReduction>',
                        '<mechanicalReduction>1e150</mechanicalReduction>', 1)


def _every_reduction(text):
    """Put a reduction of 1e150 on every actuator and joint."""
    return re.sub(r'<mechanicalReduction>[^<]*</mechanicalReduction>',
                  '<mechanicalReduction>1e150</mechanicalReduction>', text)


def _every_mass(text):
    """Give every link a mass of 1e300 (its inertia follows: the xacro computes it)."""
    return re.sub(r' mass="[^"]*"', ' mass="1e300"', text)


@pytest.mark.parametrize('edit, mode, values', [
    (_one_reduction, 'position', 0.5),
    (_every_reduction, 'position', 0.5),
    (_every_reduction, 'effort', 1.0),
    (_every_mass, 'position', 0.5),
    (_every_mass, 'effort', 1.0),
], ids=['one_reduction_1e150', 'every_reduction_1e150-position', 'every_reduction_1e150-effort',
        'masses_1e300-position', 'masses_1e300-effort'])
def test_extreme_values_give_finite_states_or_a_counted_divergence(tmp_path, edit, mode, values):
    """Every state is finite while nothing diverged; a divergence is counted from its step on."""
    source = tmp_path / 'extreme.urdf.xacro'
    source.write_text(edit(BUNDLED.read_text()))
    text, robot = loaded(read_description(source))
    physics = MujocoPhysics(robot, text, ModelOptions())
    physics.set_command(mode, [values] * len(physics.names))
    for step in range(100):
        physics.step(0.01)
        state = physics.state()
        finite = all(np.isfinite(state[k]).all() for k in ('position', 'velocity', 'effort'))
        assert finite or physics.diverged > 0, (
            f'step {step}: {mode} {values}: states not finite and no divergence counted: {state}')
        if physics.diverged:
            break
    # MuJoCo's own warnings of unstable steps (NaN, inf or huge values): each is counted
    unstable = sum(int(physics.data.warning[w].number) for w in (
        mujoco.mjtWarning.mjWARN_BADQACC, mujoco.mjtWarning.mjWARN_BADQVEL,
        mujoco.mjtWarning.mjWARN_BADQPOS))
    assert physics.diverged == unstable
