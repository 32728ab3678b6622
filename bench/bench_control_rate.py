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
Benchmark the control rate: conversions and the node's cycle against anchors of the same run.

Robots: a G1-like humanoid (25 simple transmissions and two parallel ankles,
``bench/synthetic_robots.py``) and its all-linear twin (differentials in place of the ankles),
and the PR2 of ``../shared/urdf_corpus`` (else the bundled example robot, said so).  Figures,
each the minimum / median over ``--repeats`` blocks of CPU time on this thread (the two sides
of a ratio timed in alternating blocks, so that both meet the same load):

* *array cycle*: actuator position, velocity and effort to the joints and back through
  ``actuator_to_joint_arrays`` / ``joint_to_actuator_arrays``, one sample (``(n,)`` arrays) and
  a batch of ``--batch`` samples, of a trajectory (a smooth motion sampled at 1 kHz, as a bag
  holds) and of random states in the joints' ranges;
* *calls*: the Python and C functions one one-sample array cycle calls (``sys.setprofile``);
* *runtime cycle*: the hardware interface's cycle without ROS, as the node runs it per message:
  store an actuator state, store a joint command, ``update()``, along the trajectory;
* *first conversion*: CPU time and memory a fresh process spends on its first conversion, over
  importing the package and loading the robot (a child process);
* anchors: one bare numpy ufunc call of the PR2's size (``np.add(x, y, out=z)``); each robot's
  twin; with ``--before DIR`` (a checkout of an earlier commit, e.g. ``git worktree add DIR
  e6277b7``), the PR2's batch and runtime cycle of that package, measured in child processes
  alternating with this package's.

``--log`` appends the output to ``doc/benchmark_log.md``.  Targets (issue 33): the humanoid's
one-sample cycle at most 1.5x its twin's, its batch at most 6x; the PR2's one-sample cycle at
most 15 ufunc calls, its batch at most 0.7x and its runtime cycle at most 1.0x the earlier
package's; at most 60 calls per one-sample array cycle; the humanoid's runtime cycle at most
1.3x its twin's; the first conversion at most +0.1 s CPU and +10 MB.
"""

import argparse
import json
from pathlib import Path
import statistics
import subprocess
import sys
import time
from typing import Any
from typing import Callable

FIELDS = ('position', 'velocity', 'effort')
HERE = Path(__file__).resolve().parent
PR2 = HERE.parent.parent / 'shared' / 'urdf_corpus' / 'pr2.urdf'
EXAMPLE = HERE.parent / 'urdf' / 'example_robot.urdf.xacro'


# ---------------------------------------------------------------------- what is measured
# (these functions run in this process and in the --child processes of an earlier package:
# they import the package only when called)

def load(which: str) -> Any:
    """Return the robot ``which``: ``humanoid``, ``twin`` or ``pr2`` (a path otherwise)."""
    from transmission_plugins import load_robot_transmissions
    if which in ('humanoid', 'twin'):
        sys.path.insert(0, str(HERE))
        from synthetic_robots import humanoid_urdf
        return load_robot_transmissions(humanoid_urdf(which == 'humanoid'), warn=False)
    return load_robot_transmissions(which, warn=False)


def trajectory(robot: Any, samples: int, seed: int = 7) -> dict[str, Any]:
    """
    Return the actuator states of a smooth motion sampled at 1 kHz (a recording's samples).

    Each joint moves about the centre of its range by a sine of a quarter of the range's
    half-width (at most 0.5), a period between 1 and 3 s; joint velocities and efforts follow.
    """
    import numpy as np
    rng = np.random.default_rng(seed)
    nj = len(robot.joint_names)
    centre = robot.default_joint_position()
    half = np.minimum(0.5 * (robot.joint_upper - robot.joint_lower), 2.0)
    amplitude = np.where(np.isfinite(half), 0.25 * half, 0.5)
    omega = 2.0 * np.pi / rng.uniform(1.0, 3.0, nj)
    phase = rng.uniform(0.0, 2.0 * np.pi, nj)
    t = np.arange(samples)[:, None] * 1e-3
    q = centre + amplitude * np.sin(omega * t + phase)
    joints = {'position': q, 'velocity': amplitude * omega * np.cos(omega * t + phase),
              'effort': rng.uniform(-1.0, 1.0, (samples, nj))}
    return robot.joint_to_actuator_arrays(joints)


def shuffled(states: dict[str, Any], seed: int = 11) -> dict[str, Any]:
    """Return the same states in a random order: samples unrelated to their neighbours."""
    import numpy as np
    order = np.random.default_rng(seed).permutation(len(states['position']))
    return {k: np.ascontiguousarray(v[order]) for k, v in states.items()}


def array_cycle(robot: Any, states: dict[str, Any]) -> Callable[[], Any]:
    """Return one array cycle, actuators to joints and back, of ``states`` (any batch shape)."""
    def cycle() -> Any:
        return robot.joint_to_actuator_arrays(robot.actuator_to_joint_arrays(states))
    return cycle


def runtime_cycle(robot: Any, states: dict[str, Any]) -> Callable[[], Any]:
    """
    Return the hardware interface's cycle without ROS, one message each, along ``states``.

    Each call stores the next actuator state (position, velocity, effort: lists, as a message
    holds them), a position command for every commandable joint (the joint positions of a
    state 50 samples later) and runs ``update()``.
    """
    from transmission_plugins.runtime.hardware_interface import HardwareInterface
    hw = HardwareInterface(robot)
    names = list(robot.actuator_names)
    joints = hw.commandable_joints()
    index = [robot.joint_index[n] for n in joints]
    q = robot.actuator_to_joint_arrays({'position': states['position']})['position']
    rows = [(states['position'][k].tolist(), states['velocity'][k].tolist(),
             states['effort'][k].tolist(), q[(k + 50) % len(q), index].tolist())
            for k in range(len(q))]
    step = [0]

    def cycle() -> Any:
        position, velocity, effort, command = rows[step[0] % len(rows)]
        step[0] += 1
        hw.set_actuator_state(names, position, velocity, effort)
        hw.set_joint_command(joints, command)
        return hw.update()
    return cycle


def count_calls(fn: Callable[[], Any]) -> int:
    """Return the Python and C functions one call of ``fn`` calls (``sys.setprofile``)."""
    calls = [0]

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event in ('call', 'c_call'):
            calls[0] += 1
    fn()
    sys.setprofile(profile)
    fn()
    sys.setprofile(None)
    return calls[0] - 2   # the profiled function itself and setprofile(None)


def timed(fns: list[Callable[[], Any]], repeats: int, budget: float = 0.05
          ) -> list[tuple[float, float]]:
    """Return (min, median) seconds of CPU per call of each function, in alternating blocks."""
    from benchlib import timed_together
    return [(t.best, t.median)
            for t in timed_together(fns, repeats, budget, clock=time.thread_time)]


def child(what: str, urdf: str, batch: int, repeats: int) -> dict[str, float]:
    """Measure ``what`` (``batch`` or ``runtime``) of the PR2 in this process's package."""
    robot = load(urdf)
    states = trajectory(robot, max(batch, 2000))
    if what == 'batch':
        fn = array_cycle(robot, {k: v[:batch] for k, v in states.items()})
    else:
        fn = runtime_cycle(robot, states)
    best, median = timed([fn], repeats)[0]
    return {'best': best, 'median': median, 'calls': count_calls(fn)}


def first_conversion(urdf: str) -> dict[str, float]:
    """Return the CPU seconds and megabytes of a fresh process's first conversion."""
    import resource
    import transmission_plugins  # noqa: F401
    robot = load(urdf)

    def usage() -> tuple[float, float]:
        rss = int(open('/proc/self/statm').read().split()[1]) * resource.getpagesize()
        return time.process_time(), rss / 2**20

    import numpy as np
    state = {k: np.zeros(len(robot.actuator_names)) for k in FIELDS}
    cpu, memory = usage()
    robot.joint_to_actuator_arrays(robot.actuator_to_joint_arrays(state))
    cpu2, memory2 = usage()
    return {'cpu': cpu2 - cpu, 'memory': memory2 - memory}


# ---------------------------------------------------------------------- the report

def _run_child(root: Path, args: list[str]) -> dict[str, float]:
    """Run this script as a child with the package of ``root`` first on the path."""
    code = (f'import sys; sys.path.insert(0, {str(root)!r}); sys.path.insert(1, {str(HERE)!r});'
            f' import bench_control_rate as b, json; print(json.dumps(b.child_main({args!r})))')
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                         timeout=600, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def child_main(argv: list[str]) -> dict[str, float]:
    """Entry point of a child process: ``what urdf batch repeats``."""
    what, urdf, batch, repeats = argv
    if what == 'first':
        return first_conversion(urdf)
    return child(what, urdf, int(batch), int(repeats))


def ratio(a: tuple[float, float], b: tuple[float, float]) -> str:
    """Return ``a / b`` of the minima and of the medians."""
    return f'{a[0] / b[0]:.2f}x / {a[1] / b[1]:.2f}x'


def us(t: tuple[float, float]) -> str:
    """Return min / median in microseconds."""
    return f'{t[0] * 1e6:.1f} / {t[1] * 1e6:.1f}'


def main(argv: list[str] = None) -> int:
    """Run the benchmark (module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0].strip(), epilog=(
        'Figures: min / median over --repeats blocks of CPU time on this thread; ratios of '
        'the minima / of the medians. About 30 s, more with --before.'))
    parser.add_argument('--batch', type=int, default=1000, help='samples of a batch')
    parser.add_argument('--repeats', type=int, default=7, help='timed blocks per figure')
    parser.add_argument('--before', type=Path, default=None, metavar='DIR',
                        help='the root of an earlier checkout of the package (its PR2 batch '
                             'and runtime cycle run in alternating child processes)')
    parser.add_argument('--runs', type=int, default=3,
                        help='alternating child processes per side with --before')
    sys.path.insert(0, str(HERE))
    from benchlib import add_log_option
    from benchlib import environment
    from benchlib import logged
    from benchlib import table
    add_log_option(parser)
    args = parser.parse_args(argv)
    with logged(args, 'bench_control_rate: conversions and the runtime cycle'):
        return _report(args, environment, table)


def _report(args: argparse.Namespace, environment: Callable[[], str],
            table: Callable[[list[str], list[list[str]]], str]) -> int:
    import numpy as np
    pr2 = str(PR2) if PR2.is_file() else str(EXAMPLE)
    print(environment())
    if pr2 != str(PR2):
        print(f'(../shared/urdf_corpus/pr2.urdf not found: the "PR2" rows use {EXAMPLE.name})')
    robots = {'humanoid': load('humanoid'), 'twin': load('twin'), 'pr2': load(pr2)}
    traj = {k: trajectory(r, max(args.batch, 2000)) for k, r in robots.items()}
    one = {k: {f: np.ascontiguousarray(v[f][0]) for f in FIELDS} for k, v in traj.items()}
    batch = {k: {f: np.ascontiguousarray(v[f][:args.batch]) for f in FIELDS}
             for k, v in traj.items()}
    rand = {k: shuffled(v) for k, v in batch.items()}
    rows = []
    x, y, z = (np.zeros(len(robots['pr2'].joint_names)) for _ in range(3))
    anchor, = timed([lambda: np.add(x, y, out=z)], args.repeats)
    h1, t1, p1 = timed([array_cycle(robots[k], one[k]) for k in ('humanoid', 'twin', 'pr2')],
                       args.repeats)
    rows.append(['array cycle, 1 sample', us(h1), us(t1), ratio(h1, t1), us(p1),
                 f'{ratio(p1, anchor)} of one ufunc ({us(anchor)} us)'])
    for label, states in ((f'trajectory batch of {args.batch:,}', batch),
                          (f'random batch of {args.batch:,}', rand)):
        h, t, p = timed([array_cycle(robots[k], states[k]) for k in ('humanoid', 'twin', 'pr2')],
                        args.repeats)
        rows.append([f'array cycle, {label}', us(h), us(t), ratio(h, t), us(p), ''])
    calls = [count_calls(array_cycle(robots[k], one[k])) for k in ('humanoid', 'twin', 'pr2')]
    rows.append(['calls per 1-sample array cycle', str(calls[0]), str(calls[1]), '',
                 str(calls[2]), 'target <= 60'])
    h, t, p = timed([runtime_cycle(robots[k], traj[k]) for k in ('humanoid', 'twin', 'pr2')],
                    args.repeats)
    rows.append(['runtime cycle (state, command, update)', us(h), us(t), ratio(h, t), us(p),
                 ''])
    calls = [count_calls(runtime_cycle(robots[k], traj[k]))
             for k in ('humanoid', 'twin', 'pr2')]
    rows.append(['calls per runtime cycle', str(calls[0]), str(calls[1]), '', str(calls[2]),
                 ''])
    first = {k: _run_child(HERE.parent, ['first', v, '0', '0'])
             for k, v in (('humanoid', 'humanoid'), ('pr2', pr2))}
    rows.append(['first conversion, CPU s / MB', f"{first['humanoid']['cpu']:.3f} / "
                 f"{first['humanoid']['memory']:.1f}", '', '',
                 f"{first['pr2']['cpu']:.3f} / {first['pr2']['memory']:.1f}",
                 'over import and load; target <= 0.1 / 10'])
    print(table(['figure', 'humanoid, us', 'twin, us', 'humanoid / twin', 'PR2, us', 'PR2 note'],
                rows))
    if args.before is not None:
        print()
        print(_before(args, pr2, table))
    return 0


def _before(args: argparse.Namespace, pr2: str,
            table: Callable[[list[str], list[list[str]]], str]) -> str:
    """Return the PR2 figures of both packages, measured in alternating child processes."""
    rows = []
    for what, label in (('batch', f'PR2 array cycle, trajectory batch of {args.batch:,}'),
                        ('runtime', 'PR2 runtime cycle')):
        before, now = [], []
        for _ in range(args.runs):
            before.append(_run_child(args.before, [what, pr2, str(args.batch),
                                                   str(args.repeats)]))
            now.append(_run_child(HERE.parent, [what, pr2, str(args.batch),
                                                str(args.repeats)]))
        ratios = [n['best'] / b['best'] for n, b in zip(now, before)]
        rows.append([label, us((min(b['best'] for b in before),
                                statistics.median(b['median'] for b in before))),
                     us((min(n['best'] for n in now),
                         statistics.median(n['median'] for n in now))),
                     f'{min(ratios):.2f}x / {statistics.median(ratios):.2f}x',
                     f"{before[0]['calls']} / {now[0]['calls']}"])
    return table(['figure', f'{args.before.name}, us', 'now, us', 'now / before',
                  'calls before / now'], rows)


if __name__ == '__main__':
    sys.exit(main())
