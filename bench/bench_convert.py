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
Benchmark ``transmission_plugins convert`` on recorded data: rosbag2 bags and CSV files.

Generates, in a temporary folder:

* a bag of ``--messages`` ``sensor_msgs/JointState`` messages on ``/actuator_states`` (1 kHz,
  every actuator of the robot, position, velocity and effort inside the joint limits), written
  with ``rosbags`` in each storage (MCAP and SQLite3);
* an actuator CSV of ``--rows`` rows (``time`` and ``<actuator>/<interface>`` columns), and one
  of half as many rows, to show that memory does not grow with the file;

then runs the real command (``python -m transmission_plugins convert URDF IN OUT --to joint``)
on each in a child process and prints wall time, messages (rows) per second, the child's CPU
time (user + system, all threads) with the rate per CPU second (less sensitive to other load on
the machine than the wall time) and its peak resident memory (its ``VmHWM``).  With
``--compare CHECKOUT`` each input is also converted by the package of another checkout of the
repository (for example the commit before a change), so that before and after come from one
run on one machine.

Defaults work from a fresh clone (the bundled ``urdf/example_robot.urdf.xacro``); pass
``--urdf ../shared/urdf_corpus/pr2.urdf`` for the PR2 (32 actuators, 44 joints).  The full run
(1 M messages in both storages) takes several minutes and ~1.5 GB of disk; ``--messages 100000``
is a quick look.  Timings vary with the machine's load: run it on an otherwise idle machine.
"""

import argparse
import csv
import os
from pathlib import Path
import platform
import shutil
import subprocess
import sys
import tempfile
import time

from benchlib import add_log_option
from benchlib import logged
import numpy as np

REPO = Path(__file__).resolve().parents[1]
DEFAULT_URDF = REPO / 'urdf' / 'example_robot.urdf.xacro'
INTERFACES = ('position', 'velocity', 'effort')
DISTINCT = 2000  # distinct messages, cycled (serializing every message would dominate)


def valid_states(robot, count, seed=1):
    """Return actuator position, velocity and effort rows reached from joints inside limits."""
    rng = np.random.default_rng(seed)
    lower = np.where(np.isfinite(robot.joint_lower), robot.joint_lower, -np.pi)
    upper = np.where(np.isfinite(robot.joint_upper), robot.joint_upper, np.pi)
    q = rng.uniform(lower, upper, (count, len(robot.joint_names)))
    pos = np.ascontiguousarray(robot.joint_to_actuator_arrays({'position': q})['position'])
    na = len(robot.actuator_names)
    return pos, rng.uniform(-2, 2, (count, na)), rng.uniform(-1, 1, (count, na))


def make_bag(robot, path, storage, messages):
    """Write ``messages`` JointState messages of the robot's actuators at 1 kHz."""
    from rosbags.rosbag2 import StoragePlugin
    from rosbags.rosbag2 import Writer
    from rosbags.typesys import get_typestore
    from rosbags.typesys import Stores
    store = get_typestore(Stores.ROS2_KILTED)
    types = store.types
    js = 'sensor_msgs/msg/JointState'
    pos, vel, eff = valid_states(robot, DISTINCT)
    raw = []
    for k in range(DISTINCT):
        header = types['std_msgs/msg/Header'](
            stamp=types['builtin_interfaces/msg/Time'](sec=k // 1000, nanosec=k % 1000 * 10**6),
            frame_id='')
        msg = types[js](header=header, name=list(robot.actuator_names), position=pos[k],
                        velocity=vel[k], effort=eff[k])
        raw.append(bytes(store.serialize_cdr(msg, js)))
    plugin = StoragePlugin.MCAP if storage == 'mcap' else StoragePlugin.SQLITE3
    start = 1_700_000_000 * 10**9
    with Writer(path, version=9, storage_plugin=plugin) as w:
        conn = w.add_connection('/actuator_states', js, typestore=store)
        for k in range(messages):
            w.write(conn, start + k * 10**6, raw[k % DISTINCT])


def make_csv(robot, path, rows):
    """Write an actuator CSV of ``rows`` rows."""
    header = ['time'] + [f'{n}/{i}' for i in INTERFACES for n in robot.actuator_names]
    with open(path, 'w', newline='') as f:
        w = csv.writer(f)
        w.writerow(header)
        for start in range(0, rows, 10000):
            n = min(10000, rows - start)
            pos, vel, eff = valid_states(robot, n, seed=start)
            w.writerows([f'{(start + k) * 0.001:.3f}'] + row
                        for k, row in enumerate(np.hstack([pos, vel, eff]).tolist()))


def run_child(argv):
    """
    Run ``argv``; return (wall seconds, CPU seconds, peak RSS in MB) of the child.

    The peak is the child's own ``VmHWM``, read from ``/proc`` while it runs: its ``ru_maxrss``
    would count this process's memory too (Linux carries the peak of the memory a child starts
    with, this process's, over ``exec``).
    """
    t = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak = 0.0
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        peak = max(peak, _hwm(proc.pid))
        time.sleep(0.01)
    wall = time.perf_counter() - t
    err = proc.stderr.read().decode() if proc.stderr else ''
    proc.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f'bench_convert: {" ".join(argv)} failed:\n{err}')
    return wall, usage.ru_utime + usage.ru_stime, peak or usage.ru_maxrss / 1024.0


def _hwm(pid):
    """Return the peak resident memory of process ``pid`` so far, in MB (0: unknown)."""
    try:
        with open(f'/proc/{pid}/status') as f:
            for line in f:
                if line.startswith('VmHWM:'):
                    return int(line.split()[1]) / 1024.0
    except (OSError, ValueError):
        pass
    return 0.0


def main(argv=None):
    """Generate the inputs, run the conversions, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0],
                                     epilog='See the module docstring for what is measured.')
    parser.add_argument('--urdf', default=str(DEFAULT_URDF),
                        help='robot description (default: the bundled example robot)')
    parser.add_argument('--messages', type=int, default=1_000_000,
                        help='messages per bag (default 1000000)')
    parser.add_argument('--rows', type=int, default=200_000,
                        help='CSV rows (default 200000)')
    parser.add_argument('--storages', nargs='+', default=['mcap', 'sqlite3'],
                        choices=('mcap', 'sqlite3'))
    parser.add_argument('--skip-bags', action='store_true', help='CSV only')
    parser.add_argument('--skip-csv', action='store_true', help='bags only')
    parser.add_argument('--compare', metavar='CHECKOUT',
                        help='also convert each input with the package of this checkout of the '
                             'repository (before and after in one run)')
    parser.add_argument('--workdir', help='where to write the inputs (default: a temporary '
                                          'folder, removed at the end)')
    add_log_option(parser)
    args = parser.parse_args(argv)
    with logged(args, 'convert of CSV files and bags'):
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    """Measure and print (see the module docstring)."""
    from transmission_plugins.robot.loading import load_robot_transmissions
    robot = load_robot_transmissions(args.urdf, warn=False)
    work = Path(args.workdir or tempfile.mkdtemp(prefix='bench_convert_'))
    work.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, '-m', 'transmission_plugins', 'convert', args.urdf]
    runs = [('', cmd)]
    if args.compare:
        code = ('import runpy, sys; sys.path.insert(0, sys.argv.pop(1)); '
                "runpy.run_module('transmission_plugins', run_name='__main__')")
        runs.append((' (compared)', [sys.executable, '-c', code,
                                     str(Path(args.compare).resolve()), 'convert', args.urdf]))
    print(f'robot {robot.robot_name!r}: {len(robot.actuator_names)} actuators, '
          f'{len(robot.joint_names)} joints, {len(robot.transmissions)} transmissions; '
          f'Python {platform.python_version()}, {os.cpu_count()} CPUs, load average '
          f'{os.getloadavg()[0]:.2f}')
    results = []
    try:
        if not args.skip_bags:
            for storage in args.storages:
                bag = work / f'in_{storage}'
                t = time.perf_counter()
                make_bag(robot, bag, storage, args.messages)
                made = time.perf_counter() - t
                out = str(work / f'out_{storage}')
                for label, command in runs:
                    wall, cpu, rss = run_child(command + [str(bag), out, '--to', 'joint'])
                    results.append((f'bag {storage}{label}', args.messages, 'msg', wall, cpu,
                                    rss, f'written in {made:.0f} s'))
                    shutil.rmtree(out)
                shutil.rmtree(bag)
        if not args.skip_csv:
            for rows in (args.rows // 2, args.rows):
                src = work / f'in_{rows}.csv'
                make_csv(robot, src, rows)
                size = src.stat().st_size / 1e6
                out = str(work / 'out.csv')
                for label, command in runs:
                    wall, cpu, rss = run_child(command + [str(src), out, '--to', 'joint'])
                    results.append((f'csv{label}', rows, 'row', wall, cpu, rss,
                                    f'{size:.0f} MB in'))
                src.unlink()
    finally:
        if not args.workdir:
            shutil.rmtree(work, ignore_errors=True)
    print(f'\n{"input":<24}{"count":>10}{"wall s":>8}{"per s":>9}{"CPU s":>8}{"per CPU s":>11}'
          f'{"peak RSS MB":>13}  note')
    for name, count, unit, wall, cpu, rss, note in results:
        print(f'{name:<24}{count:>10}{wall:>8.1f}{count / wall:>9,.0f}{cpu:>8.1f}'
              f'{count / cpu:>11,.0f}{rss:>13.0f}  {unit}s, {note}')
    print(f'\nload average at the end {os.getloadavg()[0]:.2f} (other processes slow it down)')


if __name__ == '__main__':
    main()
