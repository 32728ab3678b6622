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
Benchmark ``transmission_plugins calibrate`` on a long recording: by default one hour at 1 kHz.

Generates, in a temporary folder, a rosbag2 bag (MCAP, or ``--storage sqlite3``) holding
``--minutes`` of ``/actuator_states`` and ``/joint_states`` at ``--rate`` Hz each (the PR2 of
the shared corpus when it is there: 32 actuators, 44 joints; 7.2 M messages and about 9 GB for
an hour at 1 kHz): every joint moves smoothly inside its limits, the actuators are the URDF's map
of the joints, the joint topic is the URDF's map back (so that the URDF fits and nothing is
found).  ``--distinct`` samples are serialized once (rosbags) and cycled, with zero header stamps
so that the receive times order them.  Then it runs the real command
(``python -m transmission_plugins calibrate URDF BAG --json``) in a child process and prints its
wall time, CPU time and peak resident memory, how many messages it decoded, and what decoding
the whole bag with rclpy would cost (measured per message here).  Writing the bag takes a few
minutes; it is removed at the end unless ``--workdir`` is given.  Timings vary with the
machine's load: run it on an otherwise idle machine.
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
from benchlib import EXAMPLE_URDF
from benchlib import first_messages
from benchlib import logged
from benchlib import PR2_URDF
from benchlib import rclpy_decoding
from benchlib import serialized_joint_states
from benchlib import write_state_bag
import numpy as np


def joint_motion(robot, count, rate):
    """Return ``count`` joint positions at ``rate`` Hz, each joint on its own frequencies."""
    t = np.arange(count)[:, None] / rate
    lower = np.where(np.isfinite(robot.joint_lower), robot.joint_lower, -np.pi)
    upper = np.where(np.isfinite(robot.joint_upper), robot.joint_upper, np.pi)
    mid, half = (lower + upper) / 2, 0.4 * (upper - lower)
    k = np.arange(len(robot.joint_names))[None, :]
    return mid + half * (0.7 * np.sin(2 * np.pi * (0.11 + 0.013 * k) * t + k)
                         + 0.3 * np.sin(2 * np.pi * (0.37 + 0.017 * k) * t))


def make_bag(robot, path, storage, messages, rate, distinct):
    """Write ``messages`` actuator and as many joint messages (see the module docstring)."""
    q = joint_motion(robot, distinct, rate)
    theta = robot.joint_to_actuator_arrays({'position': q})['position']
    q = robot.actuator_to_joint_arrays({'position': theta})['position']
    raw = {'/actuator_states': serialized_joint_states(robot.actuator_names, theta),
           '/joint_states': serialized_joint_states(robot.joint_names, q)}
    write_state_bag(path, raw, messages, rate, storage)


def decode_cost(path, count=2000):
    """Return rclpy's decoding time of one joint message of the bag, in seconds (median)."""
    return rclpy_decoding(first_messages(path, '/joint_states', count))


def main(argv=None):
    """Generate the bag, run calibrate, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0],
                                     epilog='See the module docstring for what is measured.')
    default = PR2_URDF if PR2_URDF.is_file() else EXAMPLE_URDF
    parser.add_argument('--urdf', default=str(default),
                        help=f'robot description (default {default.name}: the PR2 of the '
                             'shared corpus when it is there, else the bundled example)')
    parser.add_argument('--minutes', type=float, default=60.0,
                        help='length of the recording (default 60)')
    parser.add_argument('--rate', type=float, default=1000.0,
                        help='messages per second on each topic (default 1000)')
    parser.add_argument('--storage', choices=('mcap', 'sqlite3'), default='mcap')
    parser.add_argument('--distinct', type=int, default=20000,
                        help='distinct samples serialized and cycled (default 20000)')
    parser.add_argument('--workdir', help='where to write the bag (kept; default: a temporary '
                                          'folder, removed at the end)')
    add_log_option(parser)
    args = parser.parse_args(argv)
    with logged(args, 'calibrate on a long recording'):
        return _run(args)


def _run(args):
    from transmission_plugins.robot.loading import load_robot_transmissions
    robot = load_robot_transmissions(args.urdf, warn=False)
    work = Path(args.workdir or tempfile.mkdtemp(prefix='bench_calibrate_'))
    work.mkdir(parents=True, exist_ok=True)
    bag = work / ('recording.mcap' if args.storage == 'mcap' else 'recording')
    messages = int(round(args.minutes * 60 * args.rate))
    print(f'robot {robot.robot_name!r}: {len(robot.transmissions)} transmissions; '
          f'{args.minutes:g} min at {args.rate:g} Hz: {2 * messages:,} messages ({args.storage}); '
          f'{os.cpu_count()} CPUs; {environment()}')
    try:
        t = time.perf_counter()
        if not bag.exists():
            make_bag(robot, bag, args.storage, messages, args.rate, args.distinct)
        made = time.perf_counter() - t
        size = sum(p.stat().st_size for p in ([bag] if bag.is_file() else bag.iterdir()))
        print(f'bag written in {made:.0f} s: {size / 1e9:.2f} GB')
        per_message = decode_cost(bag)
        out = work / 'result.json'
        command = [sys.executable, '-m', 'transmission_plugins', 'calibrate', args.urdf,
                   str(bag), '--json']
        with open(out, 'w') as f:
            wall, cpu, rss = run_child(command, stdout=f)
        result = json.loads(out.read_text())
    finally:
        if not args.workdir:
            shutil.rmtree(work, ignore_errors=True)
    decoded = result['messages']['actuators'] + result['messages']['joints']
    print(f'calibrate: {wall:.1f} s wall, {cpu:.1f} s CPU, peak RSS {rss:.0f} MB; decoded '
          f'{decoded:,} of {2 * messages:,} messages ({result["samples"]:,} samples), '
          f'{len(result["transmissions"])} transmissions identified, '
          f'{len(result["findings"])} suspected mistakes')
    print(f'rclpy decodes one joint message in {per_message * 1e6:.1f} us here: decoding the '
          f'whole bag would take {2 * messages * per_message:.0f} s')
    print(f'load average at the end {os.getloadavg()[0]:.2f} (other processes slow it down)')
    return 0 if wall < 60.0 else 1


if __name__ == '__main__':
    sys.exit(main())
