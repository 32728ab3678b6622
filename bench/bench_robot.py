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
Benchmark robot-wide conversion of the PR2: fused arrays against a loop over its transmissions.

Run ``python bench/bench_robot.py [URDF]`` (default ``../shared/urdf_corpus/pr2.urdf``).  One
*cycle* converts position, velocity and effort of every actuator to joint space and then every
joint back to actuator space (both directions, all interfaces), as a hardware interface does
once per control period.  Three ways are timed:

* ``fused``: :meth:`RobotTransmissions.actuator_to_joint_arrays` and
  :meth:`~RobotTransmissions.joint_to_actuator_arrays` (one matrix product per interface kind
  for the 26 simple and 2 wrist transmissions, the 2 nonlinear grippers beside it);
* ``loop``: a plain Python loop over the 30 transmissions, each converted through its own
  functional API (``transmission.actuator_to_joint({...})``) on slices of the same arrays, the
  results scattered into the robot vectors;
* ``name-keyed``: the dict API (:meth:`RobotTransmissions.actuator_to_joint`), single sample only.

For single samples and batches of 1000 samples it prints the median microseconds per cycle over
several repeats and the loop/fused ratio, for the whole robot and again for its linear
transmissions alone (the part that is fused; the grippers' kernels cost the same either way).
Runtime is about 15 s.
"""

import platform
import statistics
import sys
import time

import numpy as np

from transmission_plugins.robot.loading import load_robot_transmissions
from transmission_plugins.robot.robot_transmissions import RobotTransmissions

DEFAULT_URDF = '../shared/urdf_corpus/pr2.urdf'
INTERFACES = ('position', 'velocity', 'effort')
REPEATS = 7
BATCH = 1000


def time_call(fn, budget=0.2, repeats=REPEATS):
    """
    Return the median time of one call to ``fn``, in seconds.

    :param fn: the function to time, called without arguments
    :param budget: approximate seconds per repeat; the call count is chosen from a trial call
    :param repeats: number of repeats the median is taken over
    """
    start = time.perf_counter()
    fn()
    calls = max(3, int(budget / max(time.perf_counter() - start, 1e-7)))
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        times.append((time.perf_counter() - start) / calls)
    return statistics.median(times)


def make_loop(robot):
    """Return a function doing one cycle with a Python loop over the transmissions."""
    parts = [(t.transmission,
              np.array([robot.actuator_index[n] for n in t.actuator_names]),
              np.array([robot.joint_index[n] for n in t.joint_names]))
             for t in robot.transmissions]
    nj, na = len(robot.joint_names), len(robot.actuator_names)

    def cycle(actuators):
        shape = actuators['position'].shape[:-1]
        joints = {i: np.empty(shape + (nj,)) for i in INTERFACES}
        for tr, a, j in parts:
            out = tr.actuator_to_joint({i: v[..., a] for i, v in actuators.items()})
            for i in INTERFACES:
                joints[i][..., j] = out[i]
        back = {i: np.empty(shape + (na,)) for i in INTERFACES}
        for tr, a, j in parts:
            out = tr.joint_to_actuator({i: v[..., j] for i, v in joints.items()})
            for i in INTERFACES:
                back[i][..., a] = out[i]
        return back

    return cycle


def make_fused(robot):
    """Return a function doing one cycle with the fused array maps."""
    def cycle(actuators):
        return robot.joint_to_actuator_arrays(robot.actuator_to_joint_arrays(actuators))
    return cycle


def make_named(robot):
    """Return a function doing one cycle with the name-keyed dict maps."""
    def cycle(actuators):
        return robot.joint_to_actuator(robot.actuator_to_joint(actuators))
    return cycle


def actuator_state(robot, shape, rng):
    """Return random actuator positions, velocities and efforts (grippers half open)."""
    values = {i: rng.uniform(-1.0, 1.0, shape + (len(robot.actuator_names),))
              for i in INTERFACES}
    for t in robot.transmissions:
        if t.transmission.requires_position_state():
            for n in t.actuator_names:
                values['position'][..., robot.actuator_index[n]] = rng.uniform(
                    100.0, 1300.0, shape)
    return values


def main(argv=None):
    """Run the benchmark and print a Markdown table in microseconds per cycle."""
    argv = sys.argv[1:] if argv is None else argv
    start = time.perf_counter()
    robot = load_robot_transmissions(argv[0] if argv else DEFAULT_URDF)
    linear = [t for t in robot.transmissions if t.transmission.is_linear()]
    linear_robot = RobotTransmissions(linear, robot.urdf_joints.values())
    rng = np.random.default_rng(1234)
    rows = []
    for what, r in (('whole robot', robot), (f'{len(linear)} linear only', linear_robot)):
        fused, loop, named = make_fused(r), make_loop(r), make_named(r)
        for label, shape in (('1 sample', ()), (f'batch of {BATCH}', (BATCH,))):
            state = actuator_state(r, shape, rng)
            reference = loop(state)
            result = fused(state)
            for i in INTERFACES:  # both ways compute the same thing
                np.testing.assert_allclose(result[i], reference[i], rtol=1e-12, atol=1e-12)
            t_fused = time_call(lambda: fused(state))
            t_loop = time_call(lambda: loop(state))
            t_named = None
            if not shape:
                by_name = {i: dict(zip(r.actuator_names, v.tolist())) for i, v in state.items()}
                t_named = time_call(lambda: named(by_name))
            rows.append((what, label, t_fused, t_loop, t_named))
    print(f'{robot.robot_name}: {len(robot.transmissions)} transmissions ({len(linear)} linear, '
          f'fused), {len(robot.joint_names)} joints, {len(robot.actuator_names)} actuators; '
          f'one cycle = actuator->joint->actuator for {", ".join(INTERFACES)}')
    print(f'Python {platform.python_version()}, numpy {np.__version__}, median of {REPEATS} '
          'repeats, microseconds per cycle')
    print()
    print('| transmissions | samples | fused arrays | loop over transmissions | loop / fused | '
          'name-keyed dicts |')
    print('|---|---|---:|---:|---:|---:|')
    for what, label, t_fused, t_loop, t_named in rows:
        named_text = f'{t_named * 1e6:.0f}' if t_named is not None else '-'
        print(f'| {what} | {label} | {t_fused * 1e6:.1f} | {t_loop * 1e6:.1f} | '
              f'{t_loop / t_fused:.1f}x | {named_text} |')
    batch = rows[1]
    print(f'\nwhole robot, per sample in a batch of {BATCH}: fused '
          f'{batch[2] * 1e6 / BATCH:.3f} us, loop {batch[3] * 1e6 / BATCH:.3f} us')
    print(f'(benchmark took {time.perf_counter() - start:.1f} s)')


if __name__ == '__main__':
    main()
