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
Benchmark robot-wide conversion: array maps, name-keyed maps and batches, against anchors.

One *cycle* converts position, velocity and effort of every actuator to joint space and back,
as a hardware interface does once per control period.  For each robot it times:

* ``arrays, 1 sample``: :meth:`RobotTransmissions.actuator_to_joint_arrays` then
  :meth:`~RobotTransmissions.joint_to_actuator_arrays`, arrays of shape ``(n,)``;
* ``name-keyed, 1 sample``: :meth:`RobotTransmissions.actuator_to_joint` then
  :meth:`~RobotTransmissions.joint_to_actuator` with ``{interface: {name: value}}``;
* ``arrays, batch of K``: the array maps on ``(K, n)`` arrays (``--batch``), new output arrays
  each call; ``out=`` the same into the arrays of the previous call (``out=`` of
  :meth:`~RobotTransmissions.actuator_to_joint_arrays`: no new memory to fault in);
* ``batches of 1000 over K``: the K samples of the biggest batch converted 1000 at a time
  (``out=``), each batch new to the caches as in a stream of data: compare its time per sample
  with one batch of K (the biggest batch's data does not fit the caches either way).  A cycle
  of one big batch also sends all its joint values through main memory between the two
  directions, which batches of 1000 keep in the caches: the rows ``actuators -> joints`` and
  ``joints -> actuators`` compare one direction alone, one batch of K against batches of 1000.

Each figure is the minimum / median of repeated blocks of calls, and a ratio against anchors
measured in the same run: the plain loop over the transmissions (each through its own
functional API; the benchmark checks that both give the same numbers) and one dense numpy
matrix-vector product of the robot's size.

By default it runs the bundled example robot (``urdf/example_robot.urdf.xacro``) and a generated
robot of ``--synthetic`` mixed transmissions; ``--urdf`` benchmarks that description instead,
e.g. the PR2: ``python bench/bench_robot.py --urdf ../shared/urdf_corpus/pr2.urdf``.
"""

import argparse
import sys
import time
from typing import Any

from benchlib import add_log_option
from benchlib import dense_matvec
from benchlib import environment
from benchlib import EXAMPLE_URDF
from benchlib import logged
from benchlib import make_cycle
from benchlib import make_cycle_into
from benchlib import make_loop
from benchlib import make_named_cycle
from benchlib import robot_state
from benchlib import table
from benchlib import timed
import numpy as np
from synthetic_robots import synthetic_urdf

from transmission_plugins.robot.loading import load_robot_transmissions
from transmission_plugins.robot.robot_transmissions import RobotTransmissions


def bench(robot: RobotTransmissions, batches: list[int], repeats: int) -> list[list[str]]:
    """Return the table rows of one robot."""
    rng = np.random.default_rng(1234)
    cycle, loop, named = make_cycle(robot), make_loop(robot), make_named_cycle(robot)
    matvec = timed(dense_matvec(robot, rng), repeats)
    rows = []
    one = robot_state(robot, (), rng)
    by_name = {i: dict(zip(robot.actuator_names, v.tolist())) for i, v in one.items()}
    reference = loop(one)
    for i, v in cycle(one).items():  # the array maps and the loop compute the same thing
        np.testing.assert_allclose(v, reference[i], rtol=1e-9, atol=1e-9)
    t_cycle = timed(lambda: cycle(one), repeats)
    t_loop = timed(lambda: loop(one), repeats)
    t_named = timed(lambda: named(by_name), repeats)
    rows.append(['arrays, 1 sample', t_cycle.us(), f'{t_cycle.faults:.0f}', t_loop.us(),
                 f'{t_loop.best / t_cycle.best:.1f}x',
                 f'{t_cycle.best / matvec.best:.1f} matvecs', '-'])
    rows.append(['name-keyed, 1 sample', t_named.us(), f'{t_named.faults:.0f}', t_loop.us(),
                 f'{t_loop.best / t_named.best:.1f}x',
                 f'{t_named.best / matvec.best:.1f} matvecs',
                 f'{t_named.best / t_cycle.best:.1f}x arrays'])
    for k in batches:
        state = robot_state(robot, (k,), rng)
        t = timed(lambda: cycle(state), repeats, budget=0.3)
        t_ref = timed(lambda: loop(state), max(3, repeats // 2), budget=0.3)
        rows.append([f'arrays, batch of {k:,}', t.us(), f'{t.faults:.0f}', t_ref.us(),
                     f'{t_ref.best / t.best:.1f}x', '-', _rate(t.best, k)])
        into = make_cycle_into(robot, state)
        t = timed(lambda: into(state), repeats, budget=0.3)
        rows.append([f'arrays, batch of {k:,}, out=', t.us(), f'{t.faults:.0f}', t_ref.us(),
                     f'{t_ref.best / t.best:.1f}x', '-', _rate(t.best, k)])
    if batches and max(batches) > 1000:
        k = max(batches)
        state = robot_state(robot, (k,), rng)
        parts = [{i: v[s:s + 1000] for i, v in state.items()} for s in range(0, k, 1000)]
        into = make_cycle_into(robot, parts[0])

        def stream() -> None:
            for part in parts:
                into(part)

        t = timed(stream, max(3, repeats // 2), budget=0.3)
        rows.append([f'batches of 1000 over {k:,}, out=', t.us(), f'{t.faults:.0f}', '-', '-',
                     '-', _rate(t.best, k)])
        rows += _one_direction(robot, state, k, repeats)
    return rows


def _one_direction(robot: RobotTransmissions, state: dict[str, np.ndarray], k: int,
                   repeats: int) -> list[list[str]]:
    """Return rows timing each direction alone: one batch of ``k``, then batches of 1000."""
    rows = []
    joints = robot.actuator_to_joint_arrays(state)
    for label, convert, values in (
            ('actuators -> joints', robot.actuator_to_joint_arrays, state),
            ('joints -> actuators', robot.joint_to_actuator_arrays, joints)):
        whole = convert(values)
        parts = [{i: v[s:s + 1000] for i, v in values.items()} for s in range(0, k, 1000)]
        small = convert(parts[0])

        def one(convert: Any = convert, values: Any = values, whole: Any = whole) -> None:
            convert(values, out=whole)

        def stream(convert: Any = convert, parts: Any = parts, small: Any = small) -> None:
            for part in parts:
                convert(part, out=small)

        for name, fn in ((f'batch of {k:,}', one), (f'batches of 1000 over {k:,}', stream)):
            t = timed(fn, max(3, repeats // 2), budget=0.3)
            rows.append([f'{label}, {name}, out=', t.us(), f'{t.faults:.0f}', '-', '-', '-',
                         _rate(t.best, k)])
    return rows


def _rate(seconds: float, samples: int) -> str:
    """Return the time per sample and the samples per second of a batch."""
    return f'{seconds / samples * 1e9:.0f} ns/sample, {samples / seconds / 1e6:.2f} M/s'


def main(argv: list[str] = None) -> int:
    """Parse the command line, run the benchmark and print one table per robot."""
    parser = argparse.ArgumentParser(
        description=__doc__.split('\n\n')[0].strip(),
        epilog='Each figure: min / median microseconds per cycle over --repeats blocks of '
               'calls; ratios use the minimum. About 10 s per robot.')
    parser.add_argument('--urdf', help='robot description to benchmark (URDF or .xacro); '
                        'default: the bundled example robot and a generated one')
    parser.add_argument('--synthetic', type=int, default=100, metavar='N',
                        help='transmissions of the generated robot (default 100; 0: none)')
    parser.add_argument('--batch', type=int, nargs='*', default=[1000, 100000], metavar='K',
                        help='batch sizes (default 1000 100000)')
    parser.add_argument('--repeats', type=int, default=7, help='timed blocks per figure')
    add_log_option(parser)
    args = parser.parse_args(argv)
    with logged(args, 'robot maps: one sample, batches'):
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    """Measure and print (see the module docstring)."""
    robots = []
    if args.urdf:
        robots.append((args.urdf, args.urdf))
    else:
        robots.append((str(EXAMPLE_URDF.relative_to(EXAMPLE_URDF.parents[1])), EXAMPLE_URDF))
        if args.synthetic:
            robots.append((f'synthetic robot of {args.synthetic} transmissions',
                           synthetic_urdf(args.synthetic)))
    start = time.perf_counter()
    print(environment())
    for label, source in robots:
        robot = load_robot_transmissions(source, warn=False)
        nonlinear = sum(not t.transmission.is_linear() for t in robot.transmissions)
        print(f'\n{label}: {len(robot.transmissions)} transmissions ({nonlinear} nonlinear), '
              f'{len(robot.joint_names)} joints, {len(robot.actuator_names)} actuators; '
              'one cycle = position, velocity, effort, actuators -> joints -> actuators\n')
        rows = bench(robot, args.batch, args.repeats)
        print(table(['cycle', 'us min / median', 'faults', 'loop over transmissions (anchor)',
                     'loop / this', 'this / matvec (anchor)', 'other'], rows))
    print(f'\n(benchmark took {time.perf_counter() - start:.0f} s)')
    return 0


if __name__ == '__main__':
    sys.exit(main())
