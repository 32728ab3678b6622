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
Benchmark two parallel ankles in a robot against the same robot with linear 2x2 ankles.

The robot: 30 simple transmissions and two ankles, the left one
``ParallelAnkleTransmission.example()`` and the right one its mirror image (two maps, two kernel
calls, as on a humanoid); the reference: the same robot with two differentials in place of the
ankles.  A *cycle* converts position, velocity and effort of every actuator to the joints and
back through the array maps, as a hardware interface does once per control period
(``bench_robot.py``'s cycle); each direction is also timed alone, and a batch of ``--batch``
samples.  The states are joint positions inside the ankles' workspace mapped to the actuators.

Each figure is the minimum / median microseconds per call over ``--repeats`` blocks, and the
ratio ankles / linear of the minima, both robots measured in the same run, their blocks
alternating (so both meet the same load).  The actuator-to-joint
maps of the ankles solve their loops by Newton's method from the linearisation at the neutral
pose, a few iterations per sample; nothing is cached between calls.  ``--log`` appends the table
to ``doc/benchmark_log.md``.
"""

import argparse
import sys
import time
from typing import Dict
from typing import List

from benchlib import add_log_option
from benchlib import environment
from benchlib import logged
from benchlib import table
from benchlib import timed_together
import numpy as np

from transmission_plugins import DifferentialTransmission
from transmission_plugins import ParallelAnkleTransmission
from transmission_plugins import RobotTransmission
from transmission_plugins import RobotTransmissions
from transmission_plugins import SimpleTransmission

SIMPLE = 30


def mirrored(ankle: ParallelAnkleTransmission) -> ParallelAnkleTransmission:
    """Return the ankle's mirror image in the sagittal plane (its legs swapped)."""
    flip = np.array([1.0, -1.0, 1.0])
    points = {k: (np.array(v) * flip)[::-1] for k, v in ankle.parameters().items()}
    return ParallelAnkleTransmission(**points)


def robot(ankles: bool) -> RobotTransmissions:
    """Return the robot of 30 simple transmissions and two ankles, parallel or linear."""
    rng = np.random.default_rng(1234)
    parts = [RobotTransmission(f's{k}', 'transmission_interface/SimpleTransmission',
                               SimpleTransmission(float(rng.uniform(5.0, 100.0))),
                               (f's{k}_joint',), (f's{k}_motor',)) for k in range(SIMPLE)]
    left = ParallelAnkleTransmission.example()[0]
    for side, ankle in (('left', left), ('right', mirrored(left))):
        kind = 'transmission_plugins/ParallelAnkleTransmission'
        if not ankles:
            kind = 'transmission_interface/DifferentialTransmission'
            ankle = DifferentialTransmission([1.0, 1.0], [1.0, 1.0])
        parts.append(RobotTransmission(f'{side}_ankle', kind, ankle,
                                       (f'{side}_pitch', f'{side}_roll'),
                                       (f'{side}_motor_a', f'{side}_motor_b')))
    return RobotTransmissions(parts)


def states(r: RobotTransmissions, shape: tuple, rng: np.random.Generator
           ) -> Dict[str, np.ndarray]:
    """Return actuator states of joint positions inside the ankles' workspace."""
    n = len(r.joint_names)
    joints = {'position': rng.uniform(-0.25, 0.25, shape + (n,)),
              'velocity': rng.normal(size=shape + (n,)), 'effort': rng.normal(size=shape + (n,))}
    return r.joint_to_actuator_arrays(joints)


def rows(batch: int, repeats: int) -> List[List[str]]:
    """Return the table rows: each conversion, both robots, and their ratio."""
    robots = {True: robot(True), False: robot(False)}
    out = []
    for shape, label in (((), '1 sample'), ((batch,), f'batch of {batch:,}')):
        rng = np.random.default_rng(25)
        data = {kind: states(r, shape, rng) for kind, r in robots.items()}
        joints = {kind: r.actuator_to_joint_arrays(data[kind]) for kind, r in robots.items()}
        for what, make in (
                ('cycle', lambda r, a, j: lambda: r.joint_to_actuator_arrays(
                    r.actuator_to_joint_arrays(a))),
                ('actuators -> joints', lambda r, a, j: lambda: r.actuator_to_joint_arrays(a)),
                ('joints -> actuators', lambda r, a, j: lambda: r.joint_to_actuator_arrays(j))):
            t = dict(zip(robots, timed_together(
                [make(r, data[kind], joints[kind]) for kind, r in robots.items()], repeats)))
            out.append([f'{what}, {label}', t[True].us(), t[False].us(),
                        f'{t[True].best / t[False].best:.2f}x'])
    return out


def main(argv: List[str] = None) -> int:
    """Parse the command line, run the benchmark and print (and log) the table."""
    parser = argparse.ArgumentParser(
        description=__doc__.split('\n\n')[0].strip(),
        epilog='Figures: min / median microseconds per call over --repeats blocks of calls; '
               'the ratio uses the minima. About 15 s.')
    parser.add_argument('--batch', type=int, default=1000, metavar='K',
                        help='samples of the batch rows (default 1000)')
    parser.add_argument('--repeats', type=int, default=7, help='timed blocks per figure')
    add_log_option(parser)
    args = parser.parse_args(argv)
    with logged(args, 'two parallel ankles against linear 2x2 ankles'):
        start = time.perf_counter()
        print(environment())
        text = table(['conversion', f'{SIMPLE} simple + 2 parallel ankles, us',
                      f'{SIMPLE} simple + 2 linear 2x2, us', 'ankles / linear'],
                     rows(args.batch, args.repeats))
        print(f'\n{text}\n\n(benchmark took {time.perf_counter() - start:.0f} s)')
    return 0


if __name__ == '__main__':
    sys.exit(main())
