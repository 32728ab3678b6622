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
``transmission_plugins calibrate URDF BAG``: the URDF's transmission parameters from a recording.

Reads actuator positions and independent joint measurements from a bag
(:mod:`~transmission_plugins.tools.data.bag_calibrate`), identifies each transmission's parameters
(:mod:`~transmission_plugins.robot.identification`), names suspected mistakes in words
(:mod:`~transmission_plugins.robot.suspected_mistakes`) and writes a corrected URDF
(:mod:`~transmission_plugins.urdf.rewrite`) and/or a calibration file
(:mod:`~transmission_plugins.runtime.calibration_file`).
"""

import argparse
import json
import math
import sys
from typing import Any

from transmission_plugins.robot.identification import identify
from transmission_plugins.robot.identification import NotExcitedError
from transmission_plugins.robot.identification import TransmissionFit
from transmission_plugins.robot.robot_transmissions import RobotTransmissions
from transmission_plugins.runtime.calibration_file import write_calibration_file
from transmission_plugins.tools.cli.common import add_recording_arguments
from transmission_plugins.tools.cli.common import add_urdf_arguments
from transmission_plugins.tools.cli.common import describe
from transmission_plugins.tools.cli.common import error
from transmission_plugins.tools.cli.common import EXIT_OK
from transmission_plugins.tools.cli.common import interruptible
from transmission_plugins.tools.cli.common import LOAD_ERRORS
from transmission_plugins.tools.cli.common import load_or_report
from transmission_plugins.tools.cli.common import PROG
from transmission_plugins.tools.cli.common import refuse_outputs
from transmission_plugins.tools.cli.common import write_corrected_urdf
from transmission_plugins.tools.data.bag_calibrate import CalibrationSamples
from transmission_plugins.tools.data.bag_calibrate import read_samples
from transmission_plugins.tools.data.progress import progress_bar
from transmission_plugins.urdf.rewrite import Change

COMMAND = 'calibrate'


def add_parser(sub: Any) -> None:
    """Register the ``calibrate`` verb."""
    p = sub.add_parser(
        COMMAND, help="identify the URDF's transmission parameters from a recording",
        description='Identify, per transmission, the reductions and offsets the URDF declares '
                    'from a rosbag2 bag (directory, .mcap or .db3) holding the actuator '
                    'positions (--actuator-topic) and independent measurements of the joints '
                    '(--joint-topic); report them with residuals and uncertainties, name '
                    'suspected mistakes (a flipped sign, a reduction off by a simple factor, an '
                    'offset near a full turn) and write a corrected URDF and/or a calibration '
                    'file. doc/calibration.md explains the method.')
    add_urdf_arguments(p)
    add_recording_arguments(
        p, actuators='the actuator positions, with or without namespace',
        joints='the measured joint positions (joint encoders, motion capture, a simulator)',
        corrected='the identified reductions and offsets')
    p.add_argument('--write-calibration', metavar='OUT',
                   help='write a calibration file: actuator offsets for the URDF as given (its '
                        'offsets unchanged), the file the hardware interface reads '
                        '(calibration_file)')
    p.set_defaults(func=run)


@interruptible
def run(args: argparse.Namespace) -> int:
    """Identify the parameters; print them; write the outputs asked for."""
    refused = refuse_outputs(COMMAND, [(args.write_urdf, 'the URDF'),
                                       (args.write_calibration, 'the calibration file')],
                             [args.urdf, args.bag])
    if refused is not None:
        return refused
    robot = load_or_report(args, COMMAND)
    if robot is None:
        return 1
    try:
        with progress_bar(None, 'msg', COMMAND) as bar:
            data = read_samples(robot, args.bag, args.actuator_topic, args.joint_topic,
                                args.max_samples, bar.update)
        fits = identify_all(robot, data)
        written = write_outputs(args, robot, fits)
    except LOAD_ERRORS as e:
        return error(COMMAND, describe(e, args))
    if args.json:
        json.dump(as_json(data, fits, written), sys.stdout, indent=2)
        print()
    else:
        print(report(data, fits, written))
    return EXIT_OK


def identify_all(robot: RobotTransmissions, data: CalibrationSamples) -> list[TransmissionFit]:
    """
    Identify every transmission with samples.

    :raises NotExcitedError: naming every transmission whose motion identifies nothing
    """
    fits, problems = [], []
    for t in robot.transmissions:
        s = data.samples.get(t.name)
        if s is None or not s.count or t.name in data.missing:
            continue
        try:
            fits.append(identify(t, s))
        except NotExcitedError as e:
            problems.append(str(e))
    if problems:
        raise NotExcitedError('; '.join(problems))
    if not fits:
        raise NotExcitedError(f'no transmission of {robot.robot_name!r} has both its actuators '
                              'and its joints in the recording: '
                              + '; '.join(f'{k}: {v}' for k, v in data.missing.items()))
    return fits


def write_outputs(args: argparse.Namespace, robot: RobotTransmissions,
                  fits: list[TransmissionFit]) -> dict[str, Any]:
    """Write the corrected URDF and the calibration file asked for; return what was written."""
    written: dict[str, Any] = {}
    if args.write_urdf:
        written['urdf'] = write_corrected_urdf(args, urdf_changes(robot, fits))
    if args.write_calibration:
        offsets = {a: float(f'{c:.12g}') for fit in fits for a, c in fit.actuator_offsets.items()}
        write_calibration_file(args.write_calibration, robot.robot_name, offsets,
                               f'written by {PROG} {COMMAND} from {args.bag}')
        written['calibration'] = {'path': args.write_calibration, 'actuators': len(offsets)}
    return written


def urdf_changes(robot: RobotTransmissions, fits: list[TransmissionFit]) -> list[Change]:
    """Return the values to write: every changed reduction and offset, rounded."""
    changes = []
    for fit in fits:
        t = robot.transmission(fit.name)
        info = t.info
        for p in fit.parameters:
            if not p.changed or p.name == 'actuator_offset':
                continue
            changes.append(Change(t.name, info.line if info is not None else None,
                                  info.dialect if info is not None else '',
                                  type(t.transmission).__name__, p.name, p.end, p.corrected))
    return changes


def _number(x: float) -> str:
    return f'{x:.6g}'


def report(data: CalibrationSamples, fits: list[TransmissionFit],
           written: dict[str, Any]) -> str:
    """Return the text report."""
    lines = [data.reading.summary(f'{PROG} {COMMAND}')]
    findings = []
    for fit in fits:
        before = max(fit.rms_before.values())
        after = max(fit.rms_after.values())
        lines.append(f'{fit.name} ({fit.type}), {fit.samples} samples; residual RMS (joint '
                     f'units) {_number(before)} with the URDF, {_number(after)} identified')
        for p in fit.parameters:
            mark = '  *' if p.changed else '   '
            kept = not p.changed and p.value != p.urdf
            lines.append(f'{mark} {p.name:<19} {p.end:<24} URDF {_number(p.urdf):>10}   '
                         f'recording {_number(p.value):>11} +- {p.uncertainty:.2g}'
                         + (f'   -> {p.corrected:g}' if p.changed else '')
                         + ('   (within its uncertainty: left as it is)' if kept else ''))
            if p.finding:
                findings.append(f'  {fit.name}: {p.finding}')
        lines += [f'    note: {note}' for note in fit.notes]
    for name, why in data.missing.items():
        lines.append(f'{name}: not identified, {why}')
    lines.append(f'suspected mistakes ({len(findings)}):' if findings
                 else 'suspected mistakes: none')
    lines += findings
    lines += data.reading.warnings()
    if 'urdf' in written:
        w = written['urdf']
        lines.append(f'wrote {w["path"]} ({w["changed"]} values changed)')
        lines += [f'  {why}' for why in w['not_written']]
    if 'calibration' in written:
        w = written['calibration']
        lines.append(f'wrote {w["path"]} (offsets of {w["actuators"]} actuators, for the URDF '
                     'as given)')
        if any(p.changed and p.name.endswith('reduction') for f in fits for p in f.parameters):
            lines.append('  a calibration file holds offsets only: the reductions found wrong '
                         'need the corrected URDF (--write-urdf); its offsets are for the URDF '
                         'with those reductions corrected')
    return '\n'.join(lines)


def as_json(data: CalibrationSamples, fits: list[TransmissionFit],
            written: dict[str, Any]) -> dict[str, Any]:
    """Return the result as a JSON-ready dict (``null`` for infinite uncertainties)."""
    def number(x: float) -> Any:
        return x if math.isfinite(x) else None

    return {
        'topics': {'actuators': data.reading.topics[0], 'joints': data.reading.topics[1]},
        'messages': data.reading.message_counts(),
        'samples': data.reading.pairs,
        'transmissions': [{
            'name': f.name, 'type': f.type, 'samples': f.samples,
            'parameters': [{'name': p.name, 'index': p.slot, 'of': p.end, 'urdf': p.urdf,
                            'value': p.value, 'uncertainty': number(p.uncertainty),
                            'changed': p.changed, 'finding': p.finding,
                            'corrected': p.corrected}
                           for p in f.parameters],
            'residual_rms': {'urdf': f.rms_before, 'identified': f.rms_after,
                             'free_fit': f.rms_free},
            'actuator_offsets': f.actuator_offsets, 'notes': f.notes} for f in fits],
        'not_identified': data.missing,
        'findings': [p.finding for f in fits for p in f.parameters if p.finding],
        'written': written,
    }
