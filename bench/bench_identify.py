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
Benchmark ``transmission_plugins identify`` on a long 1 kHz recording of a humanoid.

Writes (or, with ``--workdir``, reuses) a rosbag2 MCAP bag of ``--duration`` seconds of
``/actuator_states`` and ``/joint_states`` at ``--rate`` Hz each, of the G1-like humanoid of
bench/synthetic_robots.py (29 joints, 29 actuators; its parallel ankles, or with ``--urdf
humanoid-twin`` their linear twin, or any URDF): every joint moves on sines inside its limits
with a known friction (joint side, :data:`COULOMB` and :data:`VISCOUS`) and inertia, the
actuators are the URDF's map of the joints (positions, velocities, the joint torques mapped to
the motors).  ``--distinct`` samples (one period of the motion) are serialized once and cycled,
with zero header stamps so that the receive times order them.

Then it runs the real command (``python -m transmission_plugins identify URDF BAG --json``,
``--max-samples`` passed on) in a child process and prints its wall time, CPU time and peak
resident memory and the messages it decoded per second of wall time.  By default identify reads
at most ``--max-samples`` (20,000) messages per topic, in windows spread over the recording, so
the 60 s bag and the hour read as many; ``--every-message`` raises ``--max-samples`` to the
recording's length, and the time for one hour is then extrapolated linearly (an hour read whole
holds every pair in memory: several GB for the humanoid).  ``--compare CHECKOUT`` runs the
package of another checkout on the same bag (before and after in one run); ``--bags N``
identifies a folder of N links to the bag with ``--jobs 1`` and with the default (a process per
core) and compares the times and the results.

In-run anchors: the CPU time of a child that only loads the robot and imports the tools (the
start-up every run pays), the identified friction of the simple transmissions against the
generator's (their ratio: 1.00 when the fit recovers it), and the time to decode one joint
message of the bag with rclpy (per message, the way before) against
:func:`~transmission_plugins.tools.data.joint_state_messages.decode_batch`.  An hour is 10.4 GB;
the bag is removed at the end unless ``--workdir`` is given.  Timings vary with the machine's
load: run it on an otherwise idle machine.
"""

import argparse
import json
import os
from pathlib import Path
import shutil
import sys
import tempfile
import time

from bench_convert import run_child
from benchlib import add_log_option
from benchlib import environment
from benchlib import first_messages
from benchlib import logged
from benchlib import rclpy_decoding
from benchlib import serialized_joint_states
from benchlib import write_state_bag
import numpy as np

#: the generator's joint-side friction: Coulomb (N m) and viscous (N m s/rad), and inertia
COULOMB = 0.6
VISCOUS = 0.3
INERTIA = 0.05


def motion(robot, count, rate, period):
    """
    Return joint positions, velocities and accelerations of ``count`` samples at ``rate`` Hz.

    Every joint on two sines inside its limits, periodic over ``period`` samples (so that
    cycling them is seamless); the frequencies are multiples of ``rate / period``.
    """
    t = np.arange(count)[:, None] / rate
    lower = np.where(np.isfinite(robot.joint_lower), robot.joint_lower, -np.pi)
    upper = np.where(np.isfinite(robot.joint_upper), robot.joint_upper, np.pi)
    mid, half = (lower + upper) / 2, 0.4 * (upper - lower)
    k = np.arange(len(robot.joint_names))[None, :]
    base = rate / period
    w1 = 2 * np.pi * base * np.round((0.3 + 0.02 * k) / base)
    w2 = 2 * np.pi * base * np.round((1.1 + 0.03 * k) / base)
    q = mid + half * (0.7 * np.sin(w1 * t + k) + 0.3 * np.sin(w2 * t))
    v = half * (0.7 * w1 * np.cos(w1 * t + k) + 0.3 * w2 * np.cos(w2 * t))
    a = -half * (0.7 * w1 ** 2 * np.sin(w1 * t + k) + 0.3 * w2 ** 2 * np.sin(w2 * t))
    return q, v, a


def make_bag(robot, path, messages, rate, distinct):
    """Write ``messages`` actuator and as many joint messages (see the module docstring)."""
    q, v, a = motion(robot, distinct, rate, distinct)
    tau = INERTIA * a + VISCOUS * v + COULOMB * np.sign(v)
    act = robot.joint_to_actuator_arrays({'position': q, 'velocity': v, 'effort': tau})
    noise = np.random.default_rng(0)   # the joint encoders' (motor and link are one body)
    raw = {'/actuator_states': serialized_joint_states(robot.actuator_names, act['position'],
                                                       act['velocity'], act['effort']),
           '/joint_states': serialized_joint_states(robot.joint_names,
                                                    q + noise.normal(0.0, 1e-5, q.shape),
                                                    v + noise.normal(0.0, 1e-3, v.shape))}
    write_state_bag(path, raw, messages, rate)


def decode_costs(path, count=4000):
    """Return the time to decode one joint message of the bag: rclpy's, decode_batch's (s)."""
    from transmission_plugins.tools.data.joint_state_messages import decode_batch
    raws = first_messages(path, '/joint_states', count)
    runs = []
    for _ in range(5):
        t = time.perf_counter()
        decode_batch(raws)
        runs.append((time.perf_counter() - t) / len(raws))
    return rclpy_decoding(raws), float(np.median(runs))


def urdf_file(choice, work):
    """Return the path of the URDF to identify (the humanoids are written into ``work``)."""
    if choice not in ('humanoid', 'humanoid-twin'):
        return Path(choice)
    from synthetic_robots import humanoid_urdf
    path = work / f'{choice}.urdf'
    if not path.exists():
        path.write_text(humanoid_urdf(choice == 'humanoid'))
    return path


def main(argv=None):
    """Write the bag, run identify, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0],
                                     epilog='See the module docstring for what is measured.')
    parser.add_argument('--urdf', default='humanoid',
                        help='robot description, or "humanoid" (default: the G1-like humanoid '
                             'with parallel ankles) or "humanoid-twin" (linear ankles)')
    parser.add_argument('--duration', type=float, default=60.0,
                        help='seconds recorded (default 60; 3600 for the hour, 10.4 GB)')
    parser.add_argument('--rate', type=float, default=1000.0,
                        help='messages per second on each topic (default 1000)')
    parser.add_argument('--distinct', type=int, default=20000,
                        help='distinct samples serialized and cycled (default 20000)')
    parser.add_argument('--max-samples', type=int, default=None,
                        help="passed to identify (default: identify's own)")
    parser.add_argument('--every-message', action='store_true',
                        help='pass --max-samples as large as the recording: every message is '
                             'read, and the time extrapolates linearly to the hour')
    parser.add_argument('--bags', type=int, default=0, metavar='N',
                        help='also identify a folder of N links to the bag, with --jobs 1 and '
                             'with the default (one process per core)')
    parser.add_argument('--compare', metavar='CHECKOUT',
                        help='also run identify with the package of this checkout of the '
                             'repository (before and after in one run)')
    parser.add_argument('--workdir', help='where to write the bag (kept and reused when it is '
                                          'there; default: a temporary folder, removed)')
    add_log_option(parser)
    args = parser.parse_args(argv)
    with logged(args, 'identify on a long humanoid recording'):
        return _run(args)


def _run(args):
    from transmission_plugins.robot.loading import load_robot_transmissions
    work = Path(args.workdir or tempfile.mkdtemp(prefix='bench_identify_'))
    work.mkdir(parents=True, exist_ok=True)
    urdf = urdf_file(args.urdf, work)
    robot = load_robot_transmissions(str(urdf), warn=False)
    messages = int(round(args.duration * args.rate))
    bag = work / f'{urdf.stem}_{args.duration:g}s_{args.rate:g}hz.mcap'
    print(f'robot {robot.robot_name!r}: {len(robot.transmissions)} transmissions, '
          f'{len(robot.joint_names)} joints, {len(robot.actuator_names)} actuators; '
          f'{args.duration:g} s at {args.rate:g} Hz: {2 * messages:,} messages (mcap); '
          f'{os.cpu_count()} CPUs; {environment()}')
    try:
        t = time.perf_counter()
        reused = bag.exists()
        if not reused:
            make_bag(robot, bag, messages, args.rate, args.distinct)
        size = sum(p.stat().st_size for p in ([bag] if bag.is_file() else bag.iterdir()))
        print(f'bag {"reused" if reused else "written"} in {time.perf_counter() - t:.0f} s: '
              f'{size / 1e9:.2f} GB')
        rclpy_cost, batch_cost = decode_costs(bag)
        _, start_cpu, _ = run_child([sys.executable, '-c', (
            'import sys; from transmission_plugins.tools.cli import identify; '
            'from transmission_plugins import load_robot_transmissions; '
            'load_robot_transmissions(sys.argv[1])'), str(urdf)])
        runs = [('this checkout', [sys.executable, '-m', 'transmission_plugins'])]
        if args.compare:
            code = ('import runpy, sys; sys.path.insert(0, sys.argv.pop(1)); '
                    "runpy.run_module('transmission_plugins', run_name='__main__')")
            runs.append((f'compared ({args.compare})',
                         [sys.executable, '-c', code, str(Path(args.compare).resolve())]))
        options = ['--json']
        if args.every_message or args.max_samples:
            options += ['--max-samples', str(messages + 1 if args.every_message
                                             else args.max_samples)]
        fleet = []
        if args.bags:
            folder = work / 'fleet'
            folder.mkdir(exist_ok=True)
            for k in range(args.bags):
                link = folder / f'robot_{k}'
                if not link.exists():
                    link.symlink_to(bag.resolve())
            for jobs in (1, None):
                out = work / f'fleet_{jobs}.json'
                with open(out, 'w') as f:
                    wall, cpu, _ = run_child(
                        runs[0][1] + ['identify', str(urdf), str(folder)] + options
                        + (['--jobs', str(jobs)] if jobs else []), stdout=f)
                fleet.append((jobs, wall, cpu, json.loads(out.read_text())))
        figures = []
        for name, prefix in runs:
            out = work / 'result.json'
            with open(out, 'w') as f:
                wall, cpu, rss = run_child(prefix + ['identify', str(urdf), str(bag)] + options,
                                           stdout=f)
            result = json.loads(out.read_text())
            figures.append((name, wall, cpu, rss, result))
    finally:
        if not args.workdir:
            shutil.rmtree(work, ignore_errors=True)
    for name, wall, cpu, rss, result in figures:
        decoded = result['messages']['actuators'] + result['messages']['joints']
        per_message = max(cpu - start_cpu, 1e-9) / decoded
        print(f'identify, {name}: {wall:.2f} s wall, {cpu:.2f} s CPU ({start_cpu:.2f} s of it '
              f'the start-up: Python, the imports, the URDF), peak RSS {rss:.0f} MB; decoded '
              f'{decoded:,} of {2 * messages:,} messages ({result["samples"]:,} samples): '
              f'{decoded / wall:,.0f} messages/s of wall time, {1e6 * per_message:.1f} us CPU '
              'per message')
        if decoded >= 2 * messages - 1:
            hour = 3600.0 * 2 * args.rate
            scale = 3600.0 / args.duration   # the start-up once, the rest in proportion
            print(f'    one hour at {args.rate:g} Hz, every message read, extrapolated '
                  f'linearly from {args.duration:g} s (the start-up once): '
                  f'{start_cpu + (wall - start_cpu) * scale:.1f} s wall, '
                  f'{start_cpu + per_message * hour:.1f} s CPU')
        else:
            print(f'    {decoded:,} of {2 * messages:,} messages read (--max-samples, in '
                  'windows, whatever the length: --duration 3600 measures the hour, '
                  '--every-message reads all)')
    if len(figures) == 2:
        print(f'this checkout / compared: {figures[0][1] / figures[1][1]:.2f}x the wall time, '
              f'{(figures[0][2] - start_cpu) / (figures[1][2] - start_cpu):.2f}x the CPU time '
              'after the start-up')
    if fleet:
        (_, serial, _, one), (_, parallel, _, many) = fleet
        print(f'a folder of {args.bags} such bags: {serial:.2f} s wall with --jobs 1, '
              f'{parallel:.2f} s with the default (one per core): {serial / parallel:.2f}x; the '
              f'same results: {one == many}, {len(many["errors"])} errors')
    result = figures[0][4]
    ratios = [entry['coulomb_friction'] / COULOMB
              for entry in result['transmissions'].values()
              if entry['type'] == 'SimpleTransmission' and 'coulomb_friction' in entry]
    if ratios:
        print(f"Coulomb friction of {len(ratios)} simple transmissions / the generator's: "
              f'{min(ratios):.3f} to {max(ratios):.3f}')
    print(f'one joint message decoded: rclpy {rclpy_cost * 1e6:.1f} us, decode_batch '
          f'{batch_cost * 1e6:.2f} us ({rclpy_cost / batch_cost:.0f}x)')
    print(f'load average at the end {os.getloadavg()[0]:.2f} (other processes slow it down)')
    return 0


if __name__ == '__main__':
    sys.exit(main())
