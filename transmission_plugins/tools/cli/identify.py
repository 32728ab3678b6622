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
``transmission_plugins identify URDF BAG``: the drivetrain of each transmission from a recording.

Several bags, or a folder of them, go to :mod:`~.identify_fleet` (in parallel).

Reads the actuator and joint states of a bag (:mod:`~transmission_plugins.tools.data.bag_identify`,
paired as ``calibrate`` pairs them), identifies friction, backlash and series-elastic springs
(:mod:`~transmission_plugins.robot.drivetrain_identification`) and writes a corrected URDF
(:mod:`~transmission_plugins.urdf.rewrite`).  doc/identification.md explains the method.
"""

import argparse
import json
import math
import sys
from typing import Any

import numpy as np

from transmission_plugins.robot.drivetrain_identification import DrivetrainFit
from transmission_plugins.robot.drivetrain_identification import SERIES_ELASTIC
from transmission_plugins.robot.drivetrain_identification import SPEED_THRESHOLD
from transmission_plugins.robot.robot_transmissions import RobotTransmissions
from transmission_plugins.robot.suspected_mistakes import shortest_within
from transmission_plugins.tools.cli.common import add_recording_arguments
from transmission_plugins.tools.cli.common import add_urdf_arguments
from transmission_plugins.tools.cli.common import describe
from transmission_plugins.tools.cli.common import error
from transmission_plugins.tools.cli.common import EXIT_OK
from transmission_plugins.tools.cli.common import interruptible
from transmission_plugins.tools.cli.common import LOAD_ERRORS
from transmission_plugins.tools.cli.common import load_or_report
from transmission_plugins.tools.cli.common import positive_number
from transmission_plugins.tools.cli.common import PROG
from transmission_plugins.tools.cli.common import refuse_outputs
from transmission_plugins.tools.cli.common import write_corrected_urdf
from transmission_plugins.tools.cli.identify_fleet import is_folder_of_bags
from transmission_plugins.tools.cli.identify_fleet import run_many
from transmission_plugins.tools.data.bag_identify import DEFAULT_COMMAND_TOPIC
from transmission_plugins.tools.data.bag_identify import identify_bag
from transmission_plugins.tools.data.bag_identify import RecordedStates
from transmission_plugins.tools.data.identify_plot import plot_identification
from transmission_plugins.tools.data.progress import progress_bar
from transmission_plugins.urdf.rewrite import Change

COMMAND = 'identify'
#: the keys of the report, in its order (doc/identification.md: units and sides)
KEYS = ('coulomb_friction', 'viscous_friction', 'joint_coulomb_friction',
        'joint_viscous_friction', 'motor_coulomb_friction', 'motor_viscous_friction', 'backlash',
        'stiffness', 'damping', 'torque_constant', 'delay')
#: a value is written when it differs from the URDF's by more than this many sigmas
WRITE_SIGMAS = 3.0


def add_parser(sub: Any) -> None:
    """Register the ``identify`` verb."""
    p = sub.add_parser(
        COMMAND, help='identify the drivetrain (friction, backlash, springs) from a recording',
        description='Identify, per transmission, the drivetrain on the joint side from a '
                    'rosbag2 bag (directory, .mcap or .db3) holding the actuator states '
                    '(position, velocity, effort: --actuator-topic) and the joint encoders '
                    '(--joint-topic, with joint efforts where a torque sensor gives them): '
                    'Coulomb and viscous friction, backlash, series-elastic stiffness and '
                    'damping, each with its standard uncertainty, and in words what the motion '
                    'did not excite. doc/identification.md explains the method.')
    add_urdf_arguments(p)
    add_recording_arguments(
        p, actuators='the actuator states',
        joints='the joint encoders (and joint torque sensors)',
        corrected='the identified drivetrain values', several=True)
    p.add_argument('--jobs', type=positive_number(int, 'an integer'), default=None, metavar='N',
                   help='bags identified at once, each in its own process, when several are '
                        'given (default: one per core)')
    p.add_argument('--command-topic', default=DEFAULT_COMMAND_TOPIC, metavar='T',
                   help='sensor_msgs/JointState topic of the actuator commands: when the bag '
                        'has it, the delay from command to state is identified (default '
                        f'{DEFAULT_COMMAND_TOPIC})')
    p.add_argument('--speed-threshold', type=positive_number(float, 'a number'),
                   default=SPEED_THRESHOLD, metavar='V',
                   help='joint speed (rad/s or m/s) above which a sample counts as moving '
                        f'(default {SPEED_THRESHOLD:g})')
    p.add_argument('--plot', metavar='OUT', default=None,
                   help='draw every fit, measured and modelled over time and their residual, '
                        'one panel per transmission, to OUT (.svg, .png, .pdf)')
    p.add_argument('--current', action='store_true',
                   help="the actuator states' effort fields are motor currents (A), as with the "
                        "hardware interface's actuator_effort_unit: current; the torque "
                        'constant is then identified against the joint torques measured, else '
                        "the URDF's <motor torque_constant> is used")
    p.set_defaults(func=run)


@interruptible
def run(args: argparse.Namespace) -> int:
    """Identify the drivetrain; print it; write the URDF asked for."""
    if len(args.bag) > 1 or is_folder_of_bags(args.bag[0]):
        return run_many(args)
    args.bag = args.bag[0]
    refused = refuse_outputs(COMMAND, [(args.write_urdf, 'the URDF'), (args.plot, 'the plot')],
                             [args.urdf, args.bag])
    if refused is not None:
        return refused
    robot = load_or_report(args, COMMAND)
    if robot is None:
        return 1
    try:
        with progress_bar(None, 'msg', COMMAND) as bar:
            fits, states = identify_bag(robot, args.bag, args.actuator_topic, args.joint_topic,
                                        args.max_samples, args.speed_threshold, args.current,
                                        bar.update, args.command_topic)
        written = write_urdf(args, robot, fits)
        if args.plot:
            plot_identification(fits, args.plot)
            written['plot'] = args.plot
    except LOAD_ERRORS as e:
        return error(COMMAND, describe(e, args))
    if args.json:
        json.dump(as_json(states, fits, written), sys.stdout, indent=2)
        print()
    else:
        print(report(states, fits, written))
    return EXIT_OK


def write_urdf(args: argparse.Namespace, robot: RobotTransmissions,
               fits: list[DrivetrainFit]) -> dict[str, Any]:
    """Write the corrected URDF when asked; return what was written."""
    if not args.write_urdf:
        return {}
    changes, not_written = urdf_changes(robot, fits)
    written = write_corrected_urdf(args, changes)
    written['not_written'] = not_written + written['not_written']
    return {'urdf': written}


def _seen_at_joint(tr: Any, coulomb: float, viscous: float) -> tuple[float, float]:
    """Return the first actuator's friction (its units) at a one-joint transmission's joint."""
    n = float(np.asarray(tr.joint_to_actuator({'velocity': np.ones((1, 1))})['velocity'])[0, 0])
    return abs(n) * coulomb, n * n * viscous


def urdf_changes(robot: RobotTransmissions,
                 fits: list[DrivetrainFit]) -> tuple[list[Change], list[str]]:
    """
    Return the values to write and, in words, those not written.

    Friction: split at a joint torque sensor, each side to its ``<friction>`` (the joint's in
    joint units, the actuator's in its units); else the lumped values less the URDF's
    motor-side friction seen at the joint go to the joint's ``<friction>`` (the motor side as
    the URDF gives it); a series-elastic
    transmission's friction is its motor's, written to the motor's ``<friction>`` in its units.
    Backlash to the joint's ``<backlash>``; a torque constant to the first actuator's
    ``<motor>``; a series-elastic spring's stiffness and damping to its ``<spring>`` (a
    measured table is left as is: the rewriter says so).
    """
    changes, not_written = [], []
    drive = robot.drivetrain
    for fit in fits:
        rt = robot.transmission(fit.name)
        info = rt.info
        tr = rt.transmission

        def change(parameter: str, end: str, value: float, sigma: float, urdf: float) -> None:
            written = shortest_within(value, sigma)
            # the URDF's value again, to the digits the fit supports: nothing to change
            if abs(value - urdf) <= WRITE_SIGMAS * sigma or written == urdf:
                return
            changes.append(Change(rt.name, info.line if info is not None else None,
                                  info.dialect if info is not None else '',
                                  type(tr).__name__, parameter, end, written))

        if 'torque_constant' in fit.values:
            first = rt.actuator_names[0]
            k = robot.actuator_index[first]
            change('motor:torque_constant', first, fit.values['torque_constant'],
                   fit.sigmas['torque_constant'],
                   float(drive.effort_per_current[k] / drive.gear_ratio[k]))
        if fit.type == SERIES_ELASTIC:
            motor = rt.actuator_names[0]
            i = robot.actuator_index[motor]
            sea: Any = tr   # a SeriesElasticTransmission
            n = float(sea.get_actuator_reduction()[0])
            for key, attribute, scale in (('coulomb_friction', 'coulomb', n),
                                          ('viscous_friction', 'viscous', n * n)):
                if key in fit.values:
                    change(f'friction:{attribute}', motor, fit.values[key] / scale,
                           fit.sigmas[key] / scale,
                           float(getattr(drive.actuator_friction, attribute)[i]))
            urdf = {'stiffness': sea.stiffness(), 'damping': sea.damping()}
            for key in ('stiffness', 'damping'):
                if key in fit.values:
                    # a table spring has no stiffness: the rewriter says it is left as is
                    change(f'spring:{key}', rt.joint_names[0], fit.values[key],
                           fit.sigmas[key], math.nan if urdf[key] is None else urdf[key])
            continue
        if fit.joints or fit.actuators:
            _coupled_changes(robot, rt, fit, change)
            continue
        if len(rt.joint_names) != 1 or len(rt.actuator_names) != 1:
            continue
        joint = rt.joint_names[0]
        j = robot.joint_index[joint]
        i = robot.actuator_index[rt.actuator_names[0]]
        # the lumped values of a linear map (a nonlinear one has each side's)
        seen = _seen_at_joint(tr, float(drive.actuator_friction.coulomb[i]),
                              float(drive.actuator_friction.viscous[i])) \
            if tr.is_linear() else (math.nan, math.nan)
        for k, attribute in enumerate(('coulomb', 'viscous')):
            key = f'{attribute}_friction'
            if f'joint_{key}' in fit.values:   # split at a joint torque sensor: each side
                change(f'friction:{attribute}', joint, max(fit.values[f'joint_{key}'], 0.0),
                       fit.sigmas[f'joint_{key}'],
                       float(getattr(drive.joint_friction, attribute)[j]))
            elif key in fit.values:
                change(f'friction:{attribute}', joint, max(fit.values[key] - seen[k], 0.0),
                       fit.sigmas[key],
                       float(getattr(drive.joint_friction, attribute)[j]))
            if f'motor_{key}' in fit.values:
                change(f'friction:{attribute}', rt.actuator_names[0],
                       max(fit.values[f'motor_{key}'], 0.0), fit.sigmas[f'motor_{key}'],
                       float(getattr(drive.actuator_friction, attribute)[i]))
        if 'backlash' in fit.values:
            if drive.actuator_backlash[i] > 0.0:
                not_written.append(f'{fit.name}: backlash {fit.values["backlash"]:.6g} (the '
                                   'URDF puts backlash on the actuator side too: edit by hand)')
            else:
                change('backlash:width', joint, fit.values['backlash'], fit.sigmas['backlash'],
                       float(drive.joint_backlash[j]))
    return changes, not_written


def _coupled_changes(robot: RobotTransmissions, rt: Any, fit: DrivetrainFit,
                     change: Any) -> None:
    r"""
    Add a coupled transmission's friction: each side's as split at a joint torque sensor.

    Else Coulomb per joint and per actuator as the coupling tells them apart, and viscous per
    joint, its lumped value less the URDF's motor side seen at it,
    :math:`(K^T \operatorname{diag}(b_i) K)_{jj}`.
    """
    drive = robot.drivetrain
    tr = rt.transmission
    n = len(rt.joint_names)
    k = np.asarray(tr.joint_to_actuator({'velocity': np.eye(n)})['velocity']).T   # K[i, j]
    b = np.array([drive.actuator_friction.viscous[robot.actuator_index[a]]
                  for a in rt.actuator_names])
    motor = np.diag(k.T @ np.diag(b) @ k)
    for j, joint in enumerate(rt.joint_names):
        found = fit.joints.get(joint, {})
        index = robot.joint_index[joint]
        for attribute, lumped in (('coulomb', 0.0), ('viscous', motor[j])):
            # split at a joint torque sensor: its joint side; else the coupling's
            key = next((k for k in (f'joint_{attribute}_friction', f'{attribute}_friction')
                        if k in found), None)
            if key is not None:
                less = 0.0 if key.startswith('joint_') else lumped
                change(f'friction:{attribute}', joint, max(found[key] - less, 0.0),
                       found[f'{key}_sigma'],
                       float(getattr(drive.joint_friction, attribute)[index]))
    for actuator in rt.actuator_names:
        found = fit.actuators.get(actuator, {})
        index = robot.actuator_index[actuator]
        for attribute in ('coulomb', 'viscous'):
            key = next((k for k in (f'motor_{attribute}_friction', f'{attribute}_friction')
                        if k in found), None)
            if key is not None:
                change(f'friction:{attribute}', actuator, max(found[key], 0.0),
                       found[f'{key}_sigma'],
                       float(getattr(drive.actuator_friction, attribute)[index]))


def _number(x: float) -> str:
    return f'{x:.6g}'


def report(states: RecordedStates, fits: list[DrivetrainFit], written: dict[str, Any]) -> str:
    """Return the text report."""
    r = states.reading
    lines = [r.summary(f'{PROG} {COMMAND}')]
    for fit in fits:
        residuals = ', '.join(f'{k} {_number(v)}' for k, v in fit.residual_rms.items())
        lines.append(f'{fit.name} ({fit.type}), {fit.samples} samples'
                     + (f'; residual RMS {residuals}' if residuals else ''))
        for key in KEYS:
            if key in fit.values:
                lines.append(f'    {key:<22} {_number(fit.values[key]):>11} +- '
                             f'{fit.sigmas[key]:.2g}')
        for end, found in {**fit.joints, **fit.actuators}.items():
            lines.append(f'    {end}: ' + ', '.join(
                f'{key} {_number(value)} +- {found[key + "_sigma"]:.2g}'
                for key, value in found.items() if not key.endswith('_sigma')))
        for key, why in fit.not_excited.items():
            lines.append(f'    {key:<22} not excited: {why}')
        lines += [f'    note: {note}' for note in fit.notes]
    lines += r.warnings()
    if 'urdf' in written:
        w = written['urdf']
        lines.append(f'wrote {w["path"]} ({w["changed"]} values changed)')
        lines += [f'  not written: {why}' for why in w['not_written']]
    if 'plot' in written:
        lines.append(f'plotted {written["plot"]}')
    return '\n'.join(lines)


def as_json(states: RecordedStates, fits: list[DrivetrainFit],
            written: dict[str, Any]) -> dict[str, Any]:
    """Return the result as a JSON-ready dict (the contract of DESIGN.md; ``null``: infinite)."""
    def number(x: float) -> Any:
        return x if math.isfinite(x) else None

    r = states.reading
    transmissions: dict[str, Any] = {}
    for fit in fits:
        entry: dict[str, Any] = {'type': fit.type, 'samples': fit.samples}
        for key in KEYS:
            if key in fit.values:
                entry[key] = number(fit.values[key])
                entry[f'{key}_sigma'] = number(fit.sigmas[key])
        if fit.joints or fit.actuators:
            entry['joints'] = {name: dict(found) for name, found in fit.joints.items()}
            entry['actuators'] = {name: dict(found) for name, found in fit.actuators.items()}
        entry['not_excited'] = list(fit.not_excited)
        entry['why_not_excited'] = dict(fit.not_excited)
        entry['residual_rms'] = {k: number(v) for k, v in fit.residual_rms.items()}
        entry['notes'] = list(fit.notes)
        transmissions[fit.name] = entry
    return {
        'topics': {'actuators': r.topics[0], 'joints': r.topics[1],
                   'commands': r.command_topic},
        'messages': r.message_counts(),
        'samples': r.pairs,
        'transmissions': transmissions,
        'written': written,
    }
