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
Micro-benchmark of the linear transmissions (run ``python bench/bench_transmissions.py``).

For one Simple, one Differential and one FourBarLinkage transmission it times the position map
in both directions: one sample through the functional API, one sample through configured
handles (ros2_control style), and a batch of 100 000 samples through the functional API.  Each
figure is the median of several repeats of ``time.perf_counter`` over a loop of calls.
"""

import argparse
import platform
import statistics
import sys
import time

import benchlib  # noqa: F401 - puts the package of a fresh clone on the path
from benchlib import add_log_option
from benchlib import logged
import numpy as np

from transmission_plugins import ActuatorHandle
from transmission_plugins import DifferentialTransmission
from transmission_plugins import FourBarLinkageTransmission
from transmission_plugins import JointHandle
from transmission_plugins import SimpleTransmission

BATCH = 100_000
REPEATS = 7
SINGLE_CALLS = 2000
BATCH_CALLS = 10


def time_call(fn, calls, repeats=REPEATS):
    """
    Return the median time of one call to ``fn``, in seconds.

    :param fn: the function to time, called without arguments
    :param calls: calls per repeat (the loop overhead is included, and small)
    :param repeats: number of repeats the median is taken over
    """
    fn()  # warm up caches and lazy imports
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        times.append((time.perf_counter() - start) / calls)
    return statistics.median(times)


def bench_one(name, trans):
    """Time one transmission; return a table row per direction."""
    rng = np.random.default_rng(1234)
    na, nj = trans.num_actuators(), trans.num_joints()
    joints = [JointHandle(f'j{i}', 'position', v) for i, v in enumerate(rng.uniform(-1, 1, nj))]
    acts = [ActuatorHandle(f'm{i}', 'position', v) for i, v in enumerate(rng.uniform(-1, 1, na))]
    trans.configure(joints, acts)
    one = {True: {'position': rng.uniform(-1.0, 1.0, na)},
           False: {'position': rng.uniform(-1.0, 1.0, nj)}}
    batch = {True: {'position': rng.uniform(-1.0, 1.0, (BATCH, na))},
             False: {'position': rng.uniform(-1.0, 1.0, (BATCH, nj))}}
    rows = []
    for to_joint in (True, False):
        fmap = trans.actuator_to_joint if to_joint else trans.joint_to_actuator
        functional = time_call(lambda: fmap(one[to_joint]), SINGLE_CALLS)
        handles = time_call(fmap, SINGLE_CALLS)
        per_batch = time_call(lambda: fmap(batch[to_joint]), BATCH_CALLS)
        rows.append((name, 'a->j' if to_joint else 'j->a', functional * 1e6, handles * 1e6,
                     per_batch * 1e6, per_batch * 1e6 / BATCH))
    return rows


def main(argv=None):
    """Run the benchmark and print a table in microseconds."""
    parser = argparse.ArgumentParser(
        description='Micro-benchmark of one Simple, Differential and FourBarLinkage '
                    'transmission: one sample (functional and handle API) and a batch.',
        epilog='Median of 7 repeats of a loop of calls; about 2 s.')
    parser.add_argument('--batch', type=int, default=BATCH, help=f'batch size (default {BATCH})')
    add_log_option(parser)
    args = parser.parse_args(argv)
    with logged(args, 'one transmission'):
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    """Measure and print (see the module docstring)."""
    global BATCH
    BATCH = args.batch
    start = time.perf_counter()
    transmissions = [
        ('Simple', SimpleTransmission(10.0, 0.5)),
        ('Differential', DifferentialTransmission([10.0, -20.0], [-2.0, 4.0], [0.1, 0.2])),
        ('FourBarLinkage', FourBarLinkageTransmission([10.0, -20.0], [-2.0, 4.0], [0.1, 0.2])),
    ]
    rows = []
    for name, trans in transmissions:
        rows.extend(bench_one(name, trans))
    print(f'Python {platform.python_version()}, numpy {np.__version__}, position interface, '
          f'median of {REPEATS} repeats, times in microseconds')
    header = ('transmission', 'dir', '1 sample functional', '1 sample handles',
              f'batch {BATCH}: per batch', 'per sample')
    print('| ' + ' | '.join(header) + ' |')
    print('|' + '|'.join(['---'] * 2 + ['---:'] * 4) + '|')
    for name, direction, functional, handles, per_batch, per_sample in rows:
        print(f'| {name} | {direction} | {functional:.2f} | {handles:.2f} | {per_batch:.0f} | '
              f'{per_sample:.4f} |')
    print(f'(benchmark took {time.perf_counter() - start:.1f} s)')
    return 0


if __name__ == '__main__':
    sys.exit(main())
