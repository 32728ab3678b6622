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
Benchmark how loading and conversion scale with the number of transmissions.

For each size N (``--sizes``, default 1 10 100 1000 10000) a generated robot of N mixed
transmissions (``bench/synthetic_robots.py``: simple, differential and four-bar in
turn, about 5N/3 joints and as many actuators) is written as a URDF file and measured in a
fresh process:

* ``load``: :func:`load_robot_transmissions` of the file (parse, plugins, joints, wiring,
  flat description, limits), and the process's peak resident memory (``ru_maxrss``) before and
  after the first load;
* ``a->j (n,)``, ``a->j (1, n)``: one conversion of one sample (position, velocity, effort;
  actuators to joints) given as arrays of shape ``(n,)`` and ``(1, n)``;
* ``cycle``: one sample both ways (arrays), and the same through the name-keyed maps;
* anchors of the same run: the plain loop over the transmissions, and one dense numpy
  matrix-vector product of the robot's size (not above N = 1000: the matrix alone would take
  2.2 GB at N = 10,000).

Each time is the minimum / median of repeated blocks (the load: of ``--load-repeats`` loads).
Run ``python bench/bench_scale.py`` (about 2 minutes; ``--sizes 1 10 100 1000`` for 20 s).
"""

import argparse
import json
import os
from pathlib import Path
import resource
import subprocess
import sys
import tempfile
import time
from typing import Any

from benchlib import add_log_option
from benchlib import dense_matvec
from benchlib import environment
from benchlib import logged
from benchlib import make_cycle
from benchlib import make_loop
from benchlib import make_named_cycle
from benchlib import robot_state
from benchlib import table
from benchlib import timed
import numpy as np


def measure(n: int, path: Path, load_repeats: int, repeats: int) -> dict[str, Any]:
    """Measure one size in this process (the child side of :func:`main`)."""
    from transmission_plugins.robot.loading import load_robot_transmissions

    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    loads = []
    for k in range(load_repeats):
        robot = None  # the previous robot is freed first
        start = time.perf_counter()
        robot = load_robot_transmissions(path, warn=False)
        loads.append(time.perf_counter() - start)
        if k == 0:
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    rng = np.random.default_rng(1234)
    one = robot_state(robot, (), rng)
    row = {i: v[None, :] for i, v in one.items()}
    by_name = {i: dict(zip(robot.actuator_names, v.tolist())) for i, v in one.items()}
    cycle, named = make_cycle(robot), make_named_cycle(robot)
    out: dict[str, Any] = {
        'n': n, 'joints': len(robot.joint_names), 'actuators': len(robot.actuator_names),
        'load': [min(loads), sorted(loads)[len(loads) // 2]],
        'rss_before_mb': before / 1024, 'rss_peak_mb': peak / 1024,
        'maps_mb': robot.maps.nbytes() / 2**20}
    for key, fn in (('a2j', lambda: robot.actuator_to_joint_arrays(one)),
                    ('a2j_row', lambda: robot.actuator_to_joint_arrays(row)),
                    ('cycle', lambda: cycle(one)), ('named', lambda: named(by_name))):
        t = timed(fn, repeats)
        out[key] = [t.best, t.median]
    loop = make_loop(robot)
    t = timed(lambda: loop(one), max(3, repeats // 2), budget=0.05)
    out['loop'] = [t.best, t.median]
    if n <= 1000:
        t = timed(dense_matvec(robot, rng), repeats)
        out['matvec'] = [t.best, t.median]
    return out


def _us(pair: list[float]) -> str:
    return f'{pair[0] * 1e6:.1f} / {pair[1] * 1e6:.1f}'


def main(argv: list[str] = None) -> int:
    """Run every size in a child process and print the tables."""
    parser = argparse.ArgumentParser(
        description=__doc__.split('\n\n')[0].strip(),
        epilog='Times: min / median; each size runs in its own process so that its memory '
               'is its own.')
    parser.add_argument('--sizes', type=int, nargs='*', default=[1, 10, 100, 1000, 10000],
                        metavar='N', help='numbers of transmissions')
    parser.add_argument('--repeats', type=int, default=7, help='timed blocks per figure')
    parser.add_argument('--load-repeats', type=int, default=3, help='loads per size')
    parser.add_argument('--child', nargs=2, help=argparse.SUPPRESS)
    add_log_option(parser)
    args = parser.parse_args(argv)
    with logged(args, '1 to 10,000 transmissions'):
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    """Measure and print (see the module docstring)."""
    if args.child is not None:
        n, path = args.child
        print(json.dumps(measure(int(n), Path(path), args.load_repeats, args.repeats)))
        return 0
    from synthetic_robots import synthetic_urdf

    start = time.perf_counter()
    print(environment())
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.sizes:
            path = Path(tmp) / f'synthetic_{n}.urdf'
            path.write_text(synthetic_urdf(n))  # here: the child's memory is the load's
            command = [sys.executable, __file__, '--child', str(n), str(path), '--repeats',
                       str(args.repeats), '--load-repeats', str(args.load_repeats)]
            done = subprocess.run(command, capture_output=True, text=True, check=True,
                                  env=dict(os.environ, PYTHONWARNINGS='ignore'))
            results.append(json.loads(done.stdout.strip().splitlines()[-1]))
    print('\nLoading (URDF file to RobotTransmissions) and memory\n')
    print(table(['transmissions', 'joints', 'load s min / median', 'peak RSS MB (before load)',
                 'flat description MB'],
                [[f'{r["n"]:,}', f'{r["joints"]:,}', f'{r["load"][0]:.3f} / {r["load"][1]:.3f}',
                  f'{r["rss_peak_mb"]:.0f} ({r["rss_before_mb"]:.0f})',
                  f'{r["maps_mb"]:.2f}']
                 for r in results]))
    print('\nOne sample, microseconds min / median (a->j: one conversion of position, velocity '
          'and effort; cycle: both ways)\n')
    rows = []
    for r in results:
        matvec = r.get('matvec')
        rows.append([f'{r["n"]:,}', _us(r['a2j']), _us(r['a2j_row']), _us(r['cycle']),
                     _us(r['named']), _us(r['loop']),
                     f'{r["loop"][0] / r["cycle"][0]:.0f}x',
                     _us(matvec) if matvec else '-',
                     f'{r["cycle"][0] / matvec[0]:.2g}x' if matvec else '-'])
    print(table(['transmissions', 'a->j (n,)', 'a->j (1, n)', 'cycle', 'name-keyed cycle',
                 'loop cycle (anchor)', 'loop / cycle', 'one dense matvec (anchor)',
                 'cycle / matvec'], rows))
    print(f'\n(benchmark took {time.perf_counter() - start:.0f} s)')
    return 0


if __name__ == '__main__':
    sys.exit(main())
