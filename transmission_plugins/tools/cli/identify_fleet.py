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
``transmission_plugins identify URDF BAG...``: many bags, a fleet's, in parallel on the cores.

Each BAG is a bag (a directory with ``metadata.yaml``, a ``.mcap`` or ``.db3`` file) or a
folder searched for bags (:func:`find_bags`).  Every bag is one recording of one robot of the
URDF's model, identified on its own by :func:`identify_recording` in a pool of ``--jobs``
processes; the command prints one report per bag and a summary table (:func:`summary`), or with
``--json`` one object per bag (the one-bag object of DESIGN.md) under ``bags`` and the failures
under ``errors``.  A bag that cannot be identified is named with its error and the others are
still reported; the exit status is then 1.

:func:`identify_recording` is a plain top-level function of picklable arguments returning
plain data: Dask's ``client.map`` and Ray's ``ray.remote`` map it over a fleet's recordings as
it is (doc/identification.md, "Many bags, a fleet").
"""

import argparse
from concurrent.futures import ProcessPoolExecutor
import json
import multiprocessing
import os
from pathlib import Path
import sys
from typing import Any
from typing import Mapping
from typing import Sequence

from transmission_plugins.robot.drivetrain_identification import DrivetrainFit
from transmission_plugins.robot.drivetrain_identification import SPEED_THRESHOLD
from transmission_plugins.robot.loading import load_robot_transmissions
from transmission_plugins.tools.cli.common import describe
from transmission_plugins.tools.cli.common import error
from transmission_plugins.tools.cli.common import EXIT_ERROR
from transmission_plugins.tools.cli.common import EXIT_OK
from transmission_plugins.tools.cli.common import LOAD_ERRORS
from transmission_plugins.tools.cli.common import xacro_mappings
from transmission_plugins.tools.data.bag_calibrate import DEFAULT_ACTUATOR_TOPIC
from transmission_plugins.tools.data.bag_calibrate import DEFAULT_JOINT_TOPIC
from transmission_plugins.tools.data.bag_calibrate import DEFAULT_MAX_SAMPLES
from transmission_plugins.tools.data.bag_identify import DEFAULT_COMMAND_TOPIC
from transmission_plugins.tools.data.bag_identify import identify_bag
from transmission_plugins.tools.data.bag_identify import RecordedStates
from transmission_plugins.tools.data.bag_io import BagError
from transmission_plugins.tools.data.bag_io import STORAGE_OF_SUFFIX
from transmission_plugins.tools.data.progress import progress_bar
from transmission_plugins.urdf.text import read_urdf_text

COMMAND = 'identify'


def is_folder_of_bags(path: str) -> bool:
    """Return True when ``path`` is a directory that is not itself a bag (no metadata.yaml)."""
    return os.path.isdir(path) and not os.path.isfile(os.path.join(path, 'metadata.yaml'))


def find_bags(paths: Sequence[str]) -> list[str]:
    """
    Return the bags of ``paths`` in order: a bag as given, a folder's bags sorted by path.

    A folder is searched through its subfolders: a directory with ``metadata.yaml`` is a bag
    (not searched further), a ``.mcap`` or ``.db3`` file elsewhere is one.

    :raises BagError: a folder holds no bag
    """
    bags: list[str] = []
    for path in paths:
        if not is_folder_of_bags(path):
            bags.append(path)
            continue
        found = []
        for folder, subfolders, files in os.walk(path):
            subfolders.sort()
            for name in list(subfolders):
                if os.path.isfile(os.path.join(folder, name, 'metadata.yaml')):
                    found.append(os.path.join(folder, name))
                    subfolders.remove(name)
            found += [os.path.join(folder, f) for f in files
                      if Path(f).suffix in STORAGE_OF_SUFFIX]
        if not found:
            raise BagError(path, 'no rosbag2 bag in this folder (a directory with '
                                 'metadata.yaml, a .mcap or a .db3 file)')
        bags += sorted(found)
    return bags


def _identify(urdf: str, bag: str, options: Mapping[str, Any]
              ) -> tuple[list[DrivetrainFit], RecordedStates]:
    """Load the robot and identify its drivetrain from one bag."""
    robot = load_robot_transmissions(urdf, lenient=options.get('lenient', False),
                                     source=options.get('source', 'auto'),
                                     xacro_args=options.get('xacro_args'), warn=False)
    return identify_bag(robot, bag, options.get('actuator_topic', DEFAULT_ACTUATOR_TOPIC),
                        options.get('joint_topic', DEFAULT_JOINT_TOPIC),
                        options.get('max_samples', DEFAULT_MAX_SAMPLES),
                        options.get('speed_threshold', SPEED_THRESHOLD),
                        options.get('current', False), None,
                        options.get('command_topic', DEFAULT_COMMAND_TOPIC))


def identify_recording(urdf: str, bag: str, *,
                       actuator_topic: str = DEFAULT_ACTUATOR_TOPIC,
                       joint_topic: str = DEFAULT_JOINT_TOPIC,
                       command_topic: str | None = DEFAULT_COMMAND_TOPIC,
                       max_samples: int = DEFAULT_MAX_SAMPLES,
                       speed_threshold: float = SPEED_THRESHOLD, current: bool = False,
                       lenient: bool = False, source: str = 'auto',
                       xacro_args: Mapping[str, str] | None = None) -> dict[str, Any]:
    """
    Identify the drivetrain of one recording; return what ``identify URDF BAG --json`` prints.

    A plain function of picklable arguments returning plain data (JSON-ready: no NaN or
    infinity, ``null`` instead), so that a process pool, Dask's ``client.map`` or Ray's
    ``ray.remote`` runs it as it is on a fleet's recordings.

    :param urdf: URDF text, or the path of a ``.urdf`` or ``.xacro`` file (read where the
        function runs)
    :param bag: a bag directory, ``.mcap`` or ``.db3`` file (likewise)
    :param actuator_topic: and the other options, those of the command (doc/identification.md)
    :raises TransmissionError: the URDF cannot be loaded, the bag cannot be read or paired; the
        message names the file and the value
    """
    from transmission_plugins.tools.cli.identify import as_json   # it imports this module
    options = {'actuator_topic': actuator_topic, 'joint_topic': joint_topic,
               'command_topic': command_topic, 'max_samples': max_samples,
               'speed_threshold': speed_threshold, 'current': current, 'lenient': lenient,
               'source': source, 'xacro_args': xacro_args}
    fits, states = _identify(urdf, bag, options)
    return as_json(states, fits, {})


def _identify_for_command(urdf: str, bag: str, options: Mapping[str, Any],
                          args: argparse.Namespace) -> tuple[dict[str, Any], str] | str:
    """Return one bag's JSON object and text report, or its error in words (a pool's task)."""
    from transmission_plugins.tools.cli.identify import as_json
    from transmission_plugins.tools.cli.identify import report
    try:
        fits, states = _identify(urdf, bag, options)
    except LOAD_ERRORS as e:
        text = describe(e, args)
    except Exception as e:  # noqa: B902 - one bag's failure, whatever it is, is that bag's
        text = f'{type(e).__name__}: {e} (unexpected: please report it with the bag)'
    else:
        return as_json(states, fits, {}), report(states, fits, {})
    return text if bag in text else f'{bag}: {text}'


def default_jobs() -> int:
    """Return the cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:   # not on Linux
        return os.cpu_count() or 1


def run_many(args: argparse.Namespace) -> int:
    """Identify every bag of ``args.bag`` in parallel; print the reports and the summary."""
    for option, given in (('--write-urdf', args.write_urdf),
                          ('--plot', getattr(args, 'plot', None))):
        if given:
            return error(COMMAND, f'{option} writes what one bag gives: give one bag, not '
                                  'several or a folder')
    try:
        bags = find_bags(args.bag)
        urdf = read_urdf_text(args.urdf, xacro_mappings(getattr(args, 'xacro_args', None)))
    except LOAD_ERRORS as e:
        return error(COMMAND, describe(e, args))
    options = {'actuator_topic': args.actuator_topic, 'joint_topic': args.joint_topic,
               'command_topic': args.command_topic, 'max_samples': args.max_samples,
               'speed_threshold': args.speed_threshold, 'current': args.current,
               'lenient': args.lenient, 'source': args.source}
    plain = argparse.Namespace(actuator_topic=args.actuator_topic,
                               joint_topic=args.joint_topic, lenient=args.lenient)
    jobs = max(1, min(args.jobs or default_jobs(), len(bags)))
    results: list[tuple[dict[str, Any], str] | str] = []
    with progress_bar(len(bags), 'bag', COMMAND) as bar:
        if jobs == 1:
            for bag in bags:
                results.append(_identify_for_command(urdf, bag, options, plain))
                bar.update(1)
        else:
            # spawned workers: a fork of a process with threads (DDS, tqdm) can deadlock
            pool = ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context('spawn'))
            try:
                futures = [pool.submit(_identify_for_command, urdf, bag, options, plain)
                           for bag in bags]
                for bag, future in zip(bags, futures):
                    try:
                        results.append(future.result())
                    except Exception as e:  # noqa: B902 - a worker lost (killed, out of memory)
                        results.append(f'{bag}: {type(e).__name__}: {e}')
                    bar.update(1)
            finally:
                pool.shutdown(wait=True, cancel_futures=True)
    done = {bag: r for bag, r in zip(bags, results) if not isinstance(r, str)}
    failed = {bag: r for bag, r in zip(bags, results) if isinstance(r, str)}
    for message in failed.values():
        error(COMMAND, message)
    if args.json:
        json.dump({'bags': {bag: r[0] for bag, r in done.items()}, 'errors': failed},
                  sys.stdout, indent=2)
        print()
    else:
        for bag, (_, text) in done.items():
            print(f'== {bag} ==\n{text}\n')
        print(summary(bags, {bag: r[0] for bag, r in done.items()}, failed))
    return EXIT_ERROR if failed else EXIT_OK


def _cell(entry: Mapping[str, Any], key: str) -> str:
    value, sigma = entry.get(key), entry.get(f'{key}_sigma')
    if value is None:
        return '-'
    return f'{value:.4g} +- {sigma:.2g}' if sigma is not None else f'{value:.4g}'


def summary(bags: Sequence[str], results: Mapping[str, Mapping[str, Any]],
            failed: Mapping[str, str]) -> str:
    """
    Return the summary table: one row per bag and transmission (a coupled one: per end).

    Columns: the bag, the transmission, every key identified somewhere (value +- sigma, ``-``
    where not identified) and the keys not excited.  A bag that failed has one row saying so.
    """
    rows: list[tuple[str, str, Mapping[str, Any], str]] = []
    for bag in bags:
        if bag in failed:
            rows.append((bag, 'failed (the error above)', {}, ''))
            continue
        for name, entry in results[bag]['transmissions'].items():
            rows.append((bag, name, entry, ', '.join(entry['not_excited'])))
            for side in ('joints', 'actuators'):
                rows += [(bag, f'{name}: {end}', found, '')
                         for end, found in entry.get(side, {}).items()]
    from transmission_plugins.tools.cli.identify import KEYS   # the report's order
    keys = [k for k in KEYS if any(k in entry for _, _, entry, _ in rows)]
    table = [['bag', 'transmission', *keys, 'not excited']]
    table += [[bag, name, *(_cell(entry, k) for k in keys), quiet]
              for bag, name, entry, quiet in rows]
    widths = [max(len(row[c]) for row in table) for c in range(len(table[0]))]
    lines = ['  '.join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip()
             for row in table]
    identified = len(bags) - len(failed)
    return '\n'.join([f'summary: {len(bags)} bags, {identified} identified, {len(failed)} '
                      'failed', *lines])
