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
The parallel ankle and the slider-crank against the same linkages solved by MuJoCo.

Each mechanism is built from its dimensions alone as a closed chain of MuJoCo bodies: the
ankle's pitch and roll hinges carrying the foot, each motor's crank on a hinge about y and its
rod on a ball joint at the crank tip, the rod's far end tied to the foot by an ``equality
connect``; the pushrod's lever on a hinge, the crank (hinge) or slider (slide joint) and the rod
(hinge) tied to the lever likewise.  A joint equality holds each actuator at the position the
transmission gives for a grid point of the joint space; MuJoCo (no gravity, damped joints,
stiff constraints, a tight solver tolerance) settles the loops, and the joints it reads must be
the grid point to 1e-6 rad.  Each grid point starts from the settled state of a neighbour
(a breadth-first walk of the grid from the neutral pose), as a robot moving its motors would
get there: started far away, the relaxation may cross a singularity into the other assembly
mode.  The grids cover every point of the boxes where the maps are defined, the pushrod's up to
1 degree from its dead points, where the settling stalls.
"""

import collections

from mujoco_cases import mujoco
import numpy as np
import pytest

from transmission_plugins import ParallelAnkleTransmission
from transmission_plugins import SliderCrankTransmission

#: The settled joints agree with the grid point to this (rad).
TOLERANCE = 1e-6
INERTIA = 'mass="0.05" diaginertia="1e-5 1e-5 1e-5"'
OPTIONS = """
  <option timestep="0.001" gravity="0 0 0" integrator="implicitfast" solver="Newton"
          tolerance="1e-15" iterations="200"/>
  <default><equality solref="0.004 1" solimp="0.99 0.999 0.001 0.5 2"/></default>"""


def _vector(values):
    return ' '.join(repr(float(v)) for v in values)


def ankle_model(ankle):
    """Return the MJCF of an ankle as a closed chain (module docstring), from its points."""
    p = {k: np.array(v) for k, v in ankle.parameters().items()}
    legs, equalities = [], []
    for i in range(2):
        centre = np.array([p['crank_pivot'][i][0], p['crank_tip'][i][1],
                           p['crank_pivot'][i][2]])   # on the crank axis, in the tip's plane
        rod = p['rod_end'][i] - p['crank_tip'][i]
        legs.append(f"""
    <body name="crank{i}" pos="{_vector(centre)}">
      <joint name="drive{i}" type="hinge" axis="0 1 0"/>
      <inertial pos="0 0 0" {INERTIA}/>
      <body name="rod{i}" pos="{_vector(p['crank_tip'][i] - centre)}">
        <joint type="ball" damping="0.01"/>
        <inertial pos="{_vector(rod / 2.0)}" {INERTIA}/>
      </body>
    </body>""")
        equalities.append(f"""
    <connect body1="rod{i}" body2="foot" anchor="{_vector(rod)}"/>
    <joint name="drive{i}" joint1="drive{i}" polycoef="0 0 0 0 0"/>""")
    return f"""<mujoco>{OPTIONS}
  <worldbody>
    <body name="ankle">
      <joint name="joint0" type="hinge" axis="0 1 0" damping="0.05"/>
      <inertial pos="0 0 0" {INERTIA}/>
      <body name="foot">
        <joint name="joint1" type="hinge" axis="1 0 0" damping="0.05"/>
        <inertial pos="0 0 -0.02" mass="0.5" diaginertia="1e-3 1e-3 1e-3"/>
      </body>
    </body>{''.join(legs)}
  </worldbody>
  <equality>{''.join(equalities)}
  </equality>
</mujoco>"""


def pushrod_model(pushrod):
    """Return the MJCF of a slider-crank as a closed chain, from its points (in the xy plane)."""
    p = {k: np.array(v + [0.0]) for k, v in pushrod.parameters().items()}
    if pushrod.is_rotary():
        base, tip = p['crank_pivot'], p['crank_tip']
        drive = '<joint name="drive0" type="hinge" axis="0 0 1"/>'
    else:
        base = tip = p['slider_tip']
        axis = p['slider_axis'] / np.linalg.norm(p['slider_axis'])
        drive = f'<joint name="drive0" type="slide" axis="{_vector(axis)}"/>'
    return f"""<mujoco>{OPTIONS}
  <worldbody>
    <body name="lever">
      <joint name="joint0" type="hinge" axis="0 0 1" damping="0.05"/>
      <inertial pos="0 0 0" {INERTIA}/>
    </body>
    <body name="actuator" pos="{_vector(base)}">
      {drive}
      <inertial pos="0 0 0" {INERTIA}/>
      <body name="rod" pos="{_vector(tip - base)}">
        <joint type="hinge" axis="0 0 1" damping="0.01"/>
        <inertial pos="0 0 0" {INERTIA}/>
      </body>
    </body>
  </worldbody>
  <equality>
    <connect body1="rod" body2="lever" anchor="{_vector(p['lever_tip'] - tip)}"/>
    <joint name="drive0" joint1="drive0" polycoef="0 0 0 0 0"/>
  </equality>
</mujoco>"""


class ClosedChain:
    """A MuJoCo closed chain: hold the actuators, let the loops settle, read the joints."""

    def __init__(self, xml, joints):
        self.model = mujoco.MjModel.from_xml_string(xml)
        self.data = mujoco.MjData(self.model)

        def find(kind, name):
            return mujoco.mj_name2id(self.model, kind, name)

        self.joints = [self.model.jnt_qposadr[find(mujoco.mjtObj.mjOBJ_JOINT, f'joint{k}')]
                       for k in range(joints)]
        self.drives = [find(mujoco.mjtObj.mjOBJ_EQUALITY, f'drive{k}') for k in range(joints)]

    def settle(self, actuator_position, start=None, steps=20000):
        """Hold the actuators at ``actuator_position``; return the settled joints and state."""
        m, d = self.model, self.data
        mujoco.mj_resetData(m, d)
        if start is not None:
            d.qpos[:] = start
        m.eq_data[self.drives, 0] = actuator_position
        last = None
        for k in range(steps):
            mujoco.mj_step(m, d)
            if k % 20 == 0:
                q = d.qpos[self.joints].copy()
                if last is not None and np.max(np.abs(q - last)) < 1e-14 and \
                        np.max(np.abs(d.qvel)) < 1e-12:
                    break
                last = q
        return d.qpos[self.joints].copy(), d.qpos.copy()


def walk(inside, start):
    """Yield ``(node, parent)`` of a breadth-first walk over the ``inside`` cells of a grid."""
    parent = {start: None}
    queue = collections.deque([start])
    while queue:
        node = queue.popleft()
        yield node, parent[node]
        for step in np.eye(inside.ndim, dtype=int).tolist() + (-np.eye(
                inside.ndim, dtype=int)).tolist():
            near = tuple(np.add(node, step))
            if all(0 <= n < s for n, s in zip(near, inside.shape)) and inside[near] and \
                    near not in parent:
                parent[near] = node
                queue.append(near)


def compare(transmission, chain, grid):
    """Settle the chain at every grid point where the maps are defined; return the errors."""
    theta = transmission.actuator_position(grid)
    inside = np.all(np.isfinite(theta), axis=-1)
    distance = np.where(inside, np.abs(grid).sum(axis=-1), np.inf)   # from the neutral pose
    start = np.unravel_index(np.argmin(distance), inside.shape)
    states, errors = {}, {}
    for node, parent in walk(inside, start):
        joints, states[node] = chain.settle(theta[node], states.get(parent))
        errors[node] = np.max(np.abs(joints - grid[node]))
    assert len(errors) == inside.sum(), 'the workspace in the box is not connected'
    return errors


ANKLES = {
    'example': ParallelAnkleTransmission.example()[0],
    'tilted rods, unequal cranks': ParallelAnkleTransmission(
        crank_pivot=[[0.01, 0.03, 0.26], [-0.01, -0.02, 0.18]],
        crank_tip=[[-0.04, 0.035, 0.25], [-0.06, -0.02, 0.19]],
        rod_end=[[-0.045, 0.045, -0.015], [-0.07, -0.035, -0.025]]),
}


@pytest.mark.parametrize('name', sorted(ANKLES))
def test_the_ankle_closes_its_loops_where_mujoco_does(name):
    """Pitch -69 to +46 degrees, roll +-40 degrees: every point where the ankle's maps are."""
    ankle = ANKLES[name]
    chain = ClosedChain(ankle_model(ankle), 2)
    pitch, roll = np.meshgrid(np.linspace(-1.2, 0.8, 17), np.linspace(-0.7, 0.7, 17),
                              indexing='ij')
    errors = compare(ankle, chain, np.stack([pitch, roll], axis=-1))
    print(f'{name}: {len(errors)} grid points, largest difference from MuJoCo '
          f'{max(errors.values()):.2e} rad')
    assert len(errors) > 200
    assert max(errors.values()) < TOLERANCE


PUSHRODS = {
    'linear actuator (example)': SliderCrankTransmission.example()[0],
    'rotary crank': SliderCrankTransmission(lever_tip=[0.04, 0.01], crank_pivot=[0.1, 0.2],
                                            crank_tip=[0.05, 0.21]),
}


@pytest.mark.parametrize('name', sorted(PUSHRODS))
def test_the_pushrod_closes_its_loop_where_mujoco_does(name):
    """A joint grid of 0.02 rad over its whole range, up to 1 degree from its dead points."""
    pushrod = PUSHRODS[name]
    chain = ClosedChain(pushrod_model(pushrod), 1)
    q = np.arange(-np.pi, np.pi, 0.02)[:, None]
    margin = np.radians(1.0)
    defined = np.isfinite(pushrod.actuator_position(np.stack([q - margin, q, q + margin])))
    grid = np.where(np.all(defined, axis=0), q, np.nan)    # NaN: left out of the walk
    errors = compare(pushrod, chain, grid)
    covered = q[np.isfinite(grid)]
    print(f'{name}: {len(errors)} grid points from {covered.min():.3f} to {covered.max():.3f} '
          f'rad, largest difference from MuJoCo {max(errors.values()):.2e} rad')
    assert covered.max() - covered.min() > 2.0
    assert max(errors.values()) < TOLERANCE
