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

r"""
Plot a transmission's maps to an image file with matplotlib (Agg backend, no display needed).

* A nonlinear transmission with one actuator (the PR2 gripper, a pushrod, a measured map) is
  swept over its actuator position: panel 1 shows the first joint (the gap), panel 2 the other
  joints when there are any (finger angles; identical curves are drawn once, joints that stay at
  0 are left out), the last panel the effort ratio :math:`\tau_j / u` of the first joint (joint
  effort per unit actuator effort).
* A nonlinear transmission with several actuators (a parallel ankle) is swept over its joints,
  one row each, the others at the centre of their range: on the left the actuator positions, on
  the right its effort envelope, the largest effort each joint gets from the actuators' effort
  limits there (:func:`~transmission_plugins.robot.limits.envelope`; per unit actuator effort
  when they have none), with the joint's own effort limit dashed.
* A series-elastic transmission (its joint effort comes from the actuators' motion,
  :meth:`~transmission_plugins.core.transmission.Transmission.joint_effort_from_motion`) gets
  its spring's torque-deflection curve, static (no deflection rate), with the table's points when
  it has a table and the joint's effort limits dashed; the default sweep is the table with a
  fifth of its span on each side, or for a linear spring the deflection of the joint's effort
  limit (0.1 rad or m without one), on both sides.
* Any other transmission gets one panel per actuator: that actuator is swept with the others at
  0, and every joint position is drawn against it.

The default sweep is the actuator position range reached inside the joint limits (for the
joint sweeps: the joint limits), with unbounded joints limited to +-pi (rad) or +-1 (m).  Limits
and coinciding curves are drawn as doc/cli.md ("plot") shows.
"""

import math
import os
from typing import Any
from typing import Sequence

import numpy as np

from transmission_plugins.core.exceptions import TransmissionValueError
from transmission_plugins.robot.limits import actuator_position_range
from transmission_plugins.robot.limits import envelope
from transmission_plugins.robot.robot_transmissions import RobotTransmission
from transmission_plugins.robot.robot_transmissions import RobotTransmissions
from transmission_plugins.tools.data.output_file import output_file
from transmission_plugins.transmissions.series_elastic_transmission import (
    SeriesElasticTransmission)

#: Points per sweep.
POINTS = 400
#: Line styles cycled with the colours, so that curves that cross stay apart.
STYLES = ('-', '--', '-.', ':')
#: Units of actuator values per interface kind (rotary motors).
ACTUATOR_UNITS = {'position': 'rad', 'velocity': 'rad/s', 'effort': 'N m'}


def _unit(robot: RobotTransmissions, joint: str, effort: bool = False) -> str:
    j = robot.urdf_joints.get(joint)
    if j is None:
        return ''
    if j.type == 'prismatic':
        return 'N' if effort else 'm'
    return 'N m' if effort else 'rad'


def joint_unit(robot: RobotTransmissions, joint: str, field: str) -> str:
    """Return the unit of ``field`` (position, velocity, effort) of ``joint`` ('' unknown)."""
    unit = _unit(robot, joint, effort=field == 'effort')
    return f'{unit}/s' if unit and field == 'velocity' else unit


def draw_limits(ax: Any, robot: RobotTransmissions, joint: str, color: Any,
                label: bool) -> bool:
    """
    Draw the position limits of ``joint`` as dashed lines in ``color``.

    :param label: give the first line the legend entry ``joint limits``
    :returns: whether a line was drawn
    """
    k = robot.joint_index.get(joint)
    if k is None:
        return False
    drawn = False
    for value in (robot.joint_lower[k], robot.joint_upper[k]):
        if np.isfinite(value):
            ax.axhline(value, color=color, linestyle=(0, (4, 3)), linewidth=0.9, alpha=0.7,
                       label='joint limits' if label and not drawn else None)
            drawn = True
    return drawn


def joint_range(robot: RobotTransmissions,
                t: RobotTransmission) -> tuple[np.ndarray, np.ndarray]:
    """Return the joint limits of ``t``, unbounded ones +-pi (rad) or +-1 (m)."""
    idx = [robot.joint_index[n] for n in t.joint_names]
    lower, upper = robot.joint_lower[idx], robot.joint_upper[idx]
    span = np.array([1.0 if _unit(robot, n) == 'm' else math.pi for n in t.joint_names])
    return np.where(np.isfinite(lower), lower, -span), np.where(np.isfinite(upper), upper, span)


def default_range(robot: RobotTransmissions,
                  t: RobotTransmission) -> tuple[np.ndarray, np.ndarray]:
    """Return the actuator sweep ``(lo, hi)`` per actuator of ``t`` (see the module doc)."""
    lo, hi = actuator_position_range(t.transmission, *joint_range(robot, t))
    lo = np.where(np.isfinite(lo), lo, -math.pi)
    hi = np.where(np.isfinite(hi), hi, math.pi)
    hi = np.where(hi > lo, hi, lo + 1.0)
    return lo, hi


def _groups(robot: RobotTransmissions, names: Sequence[str], curves: np.ndarray,
            drop_zero: bool = True) -> list[tuple[str, np.ndarray]]:
    """
    Return (label, curve) with identical curves merged and all-zero curves dropped.

    Curves merge only when their joints' limits are equal too: each joint's limit lines take
    the colour of its own line (the two joints of a differential move alike under one motor,
    but have limits of their own).
    """
    out: list[tuple[list[str], np.ndarray, tuple[float, float]]] = []
    for k, name in enumerate(names):
        y = curves[:, k]
        if drop_zero and not np.any(y):
            continue
        index = robot.joint_index.get(name)
        limits = ((float(robot.joint_lower[index]), float(robot.joint_upper[index]))
                  if index is not None else (math.nan, math.nan))
        for labels, other, other_limits in out:
            if np.array_equal(y, other, equal_nan=True) and np.array_equal(
                    limits, other_limits, equal_nan=True):
                labels.append(name)
                break
        else:
            out.append(([name], y, limits))
    return [(labels[0] if len(labels) == 1 else ' = '.join(labels) if len(labels) == 2
             else f'{labels[0]} (and {len(labels) - 1} more, identical)', y)
            for labels, y, _ in out]


def plot_transmission(robot: RobotTransmissions, name: str, path: str,
                      value_range: tuple[float, float] | None = None) -> Any:
    """
    Draw the maps of transmission ``name`` and save the figure to ``path`` (PNG, SVG, PDF).

    :returns: the matplotlib figure (closed; its axes and lines can be inspected)
    :param value_range: actuator position sweep ``(lo, hi)`` (joint positions for the joint
        sweeps); default :func:`default_range` (:func:`joint_range`)
    :raises UnknownNameError: (also a ``KeyError``) no such transmission
    :raises TransmissionValueError: ``lo >= hi`` or not numbers, or a file type matplotlib
        cannot write
    :raises TransmissionFileError: (also an ``OSError``) the file cannot be written
    """
    import matplotlib
    matplotlib.use('Agg')
    from matplotlib import pyplot as plt

    t = robot.transmission(name)
    tr = t.transmission
    if isinstance(tr, SeriesElasticTransmission):
        fig = _plot_spring(plt, robot, t, _checked_range(value_range, t))
        fig.suptitle(f'{t.name} ({t.type})')
        save_figure(plt, fig, path, f'plot of {t.path}')
        return fig
    n = tr.num_actuators() if tr.is_linear() or tr.num_actuators() == 1 else tr.num_joints()
    if value_range is not None:
        try:
            lo, hi = np.full(n, float(value_range[0])), np.full(n, float(value_range[1]))
        except (TypeError, ValueError, IndexError):
            lo = hi = np.full(n, math.nan)
        if not (np.isfinite(lo).all() and np.isfinite(hi).all() and lo[0] < hi[0]):
            raise TransmissionValueError('value_range', value_range,
                                         'two finite numbers (lo, hi) with lo < hi',
                                         f'plot of {t.path}')
    elif tr.is_linear() or tr.num_actuators() == 1:
        lo, hi = default_range(robot, t)
    else:
        lo, hi = joint_range(robot, t)
    title = f'{t.name} ({t.type})'
    if not tr.is_linear() and tr.num_actuators() == 1:
        fig = _plot_nonlinear(plt, robot, t, np.linspace(lo[0], hi[0], POINTS))
    elif not tr.is_linear():
        fig = _plot_joint_sweeps(plt, robot, t, lo, hi)
    else:
        fig = _plot_sweeps(plt, robot, t, lo, hi)
    fig.suptitle(title)
    save_figure(plt, fig, path, f'plot of {t.path}')
    return fig


def _checked_range(value_range: tuple[float, float] | None,
                   t: RobotTransmission) -> tuple[float, float] | None:
    """Return ``value_range`` as two finite floats ``lo < hi`` (None: the default)."""
    if value_range is None:
        return None
    try:
        lo, hi = float(value_range[0]), float(value_range[1])
    except (TypeError, ValueError, IndexError):
        lo = hi = math.nan
    if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
        raise TransmissionValueError('value_range', value_range,
                                     'two finite numbers (lo, hi) with lo < hi',
                                     f'plot of {t.path}')
    return lo, hi


def _plot_spring(plt: Any, robot: RobotTransmissions, t: RobotTransmission,
                 value_range: tuple[float, float] | None) -> Any:
    """Draw a series-elastic spring's static torque against its deflection (module docstring)."""
    tr = t.transmission
    assert isinstance(tr, SeriesElasticTransmission)
    joint = t.joint_names[0]
    k = robot.joint_index[joint]
    limit = float(robot.joint_effort_limit[k])
    table = tr.spring_table()
    if value_range is not None:
        lo, hi = value_range
    elif table is not None:
        span = table[0][-1] - table[0][0]
        lo, hi = table[0][0] - 0.2 * span, table[0][-1] + 0.2 * span
    else:
        hi = (float(tr.deflection_for_torque([limit])[0])
              if math.isfinite(limit) and limit > 0.0 else 0.1)
        lo = -hi
    deflection = np.linspace(lo, hi, POINTS)
    # the actuator positions of each deflection with the encoder at 0, no deflection rate
    theta = np.stack([tr.get_actuator_reduction()[0] * deflection, np.zeros(POINTS)], axis=-1)
    with np.errstate(all='ignore'):
        torque = tr.actuator_to_joint({'position': theta,
                                       'velocity': np.zeros_like(theta)})['effort'][:, 0]
    fig, ax = plt.subplots(1, 1, figsize=(7, 4.5))
    ax.plot(tr.deflection(theta)[:, 0], torque, color='tab:red', label='spring torque')
    if table is not None:
        ax.plot(table[0], table[1], 'o', color='tab:red', markersize=4, label='table points')
    if math.isfinite(limit):
        for value in (-limit, limit):
            ax.axhline(value, color='tab:red', linestyle=(0, (4, 3)), linewidth=0.9, alpha=0.7,
                       label='joint effort limits' if value < 0 else None)
    effort_unit, position_unit = _unit(robot, joint, effort=True), _unit(robot, joint)
    ax.set_ylabel(f'{joint} effort' + (f' [{effort_unit}]' if effort_unit else ''))
    ax.set_xlabel('deflection (motor / reduction - encoder)'
                  + (f' [{position_unit}]' if position_unit else ''))
    ax.set_title(f'damping {tr.damping():g} (not drawn: static curve)', fontsize='small')
    ax.legend(fontsize='small', loc='best')
    ax.grid(True, alpha=0.3)
    return fig


def save_figure(plt: Any, fig: Any, path: str, what: str, tight: bool = True) -> None:
    """
    Save ``fig`` to ``path`` (type from the suffix, PNG without one) and close it.

    ``tight``: lay it out tightly first (False: a figure with its own layout, subfigures).

    The file is written whole or not at all (:func:`~.output_file.output_file`).

    :raises TransmissionFileError: the file cannot be written
    :raises TransmissionValueError: a file type matplotlib cannot write
    """
    if tight:
        fig.tight_layout()
    kind = os.path.splitext(path)[1][1:].lower() or None
    # the same figure makes the same file: no date, fixed SVG ids
    metadata = {'svg': {'Date': None}, 'pdf': {'CreationDate': None}}.get(kind or '')
    try:
        with output_file(path, 'the plot') as stream, plt.rc_context(
                {'svg.hashsalt': 'transmission_plugins'}):
            fig.savefig(stream, dpi=100, format=kind, metadata=metadata)
    except ValueError as e:  # matplotlib: unsupported file type
        raise TransmissionValueError('path', str(path), f'a file type matplotlib can write '
                                     f'({e})', what) from e
    finally:
        plt.close(fig)


def _plot_nonlinear(plt: Any, robot: RobotTransmissions, t: RobotTransmission,
                    theta: np.ndarray) -> Any:
    tr = t.transmission
    a = theta[:, None]
    with np.errstate(all='ignore'):
        out = tr.actuator_to_joint({'position': a, 'effort': np.ones_like(a)})
    q, ratio = out['position'], out['effort']
    motor = t.actuator_names[0]
    others = len(t.joint_names) > 1
    fig, axes = plt.subplots(3 if others else 2, 1, figsize=(7, 8.5 if others else 6),
                             sharex=True)
    first = t.joint_names[0]
    axes[0].plot(theta, q[:, 0], color='tab:blue', label=first)
    draw_limits(axes[0], robot, first, 'tab:blue', True)
    axes[0].set_ylabel(f'{first} [{_unit(robot, first)}]')
    axes[0].legend(fontsize='small', loc='best')
    axes[0].grid(True, alpha=0.3)
    if others:
        groups = _groups(robot, t.joint_names[1:], q[:, 1:])
        labelled = False
        for k, (label, y) in enumerate(groups):
            line, = axes[1].plot(theta, y, label=label, linestyle=STYLES[k % len(STYLES)])
            labelled |= draw_limits(axes[1], robot, label.split(' ')[0], line.get_color(),
                                    not labelled)
        unit = _unit(robot, t.joint_names[1])
        axes[1].set_ylabel(f'other joints [{unit}]' if unit else 'other joints')
        if groups:
            axes[1].legend(fontsize='small', loc='best')
        axes[1].grid(True, alpha=0.3)
    axes[-1].plot(theta, ratio[:, 0], color='tab:red')
    unit = _unit(robot, first, effort=True)
    ratio_unit = f' [{unit} / N m]' if unit else ''
    axes[-1].set_ylabel(f'{first} effort\nper unit {motor} effort{ratio_unit}')
    axes[-1].grid(True, alpha=0.3)
    axes[-1].set_xlabel(f'{motor} position [{ACTUATOR_UNITS["position"]}]')
    return fig


def _plot_joint_sweeps(plt: Any, robot: RobotTransmissions, t: RobotTransmission,
                       lo: np.ndarray, hi: np.ndarray) -> Any:
    """Sweep each joint (module docstring): actuator positions left, effort envelope right."""
    tr = t.transmission
    joints = [robot.joint_index[n] for n in t.joint_names]
    limit = robot.actuator_effort_limit[[robot.actuator_index[n] for n in t.actuator_names]]
    per_unit = not np.all(np.isfinite(limit))
    centre = (np.asarray(joint_range(robot, t)[0]) + joint_range(robot, t)[1]) / 2.0
    colours = plt.rcParams['axes.prop_cycle'].by_key()['color']
    fig, axes = plt.subplots(len(joints), 2, figsize=(11, 3.4 * len(joints) + 0.6),
                             squeeze=False)
    for row, name in enumerate(t.joint_names):
        sweep = np.linspace(lo[row], hi[row], POINTS)
        q = np.repeat(centre[None, :], POINTS, axis=0)
        q[:, row] = sweep
        bounds = envelope(tr, q, actuator_effort=np.ones_like(limit) if per_unit else limit)
        held = ', '.join(f'{other} {centre[k]:.3g}' for k, other in enumerate(t.joint_names)
                         if k != row)
        left, right = axes[row]
        for k, motor in enumerate(t.actuator_names):
            left.plot(sweep, bounds.actuator_position[:, k], label=motor,
                      linestyle=STYLES[k % len(STYLES)])
        left.set_ylabel(f'actuator position [{ACTUATOR_UNITS["position"]}]')
        for k, joint in enumerate(t.joint_names):
            colour = colours[k % len(colours)]
            right.plot(sweep, np.asarray(bounds.joint_effort)[:, k], color=colour,
                       linestyle=STYLES[k % len(STYLES)], label=f'{joint}, largest')
            own = robot.joint_effort_limit[joints[k]]
            if not per_unit and np.isfinite(own):
                right.axhline(own, color=colour, linestyle=(0, (4, 3)), linewidth=0.9,
                              alpha=0.7, label=f'{joint} effort limit')
        unit = _unit(robot, name, effort=True) or 'N m'
        right.set_ylabel('joint effort per unit\nactuator effort' if per_unit else
                         f"joint effort from the actuators' limits [{unit}]")
        for ax in (left, right):
            for value in (robot.joint_lower[joints[row]], robot.joint_upper[joints[row]]):
                if np.isfinite(value):
                    ax.axvline(value, color='0.5', linestyle=(0, (4, 3)), linewidth=0.9)
            ax.set_xlabel(f'{name} position [{_unit(robot, name) or "rad"}]' +
                          (f' ({held})' if held else ''))
            ax.legend(fontsize='small')
            ax.grid(True, alpha=0.3)
    return fig


def _plot_sweeps(plt: Any, robot: RobotTransmissions, t: RobotTransmission, lo: np.ndarray,
                 hi: np.ndarray) -> Any:
    tr = t.transmission
    n = tr.num_actuators()
    fig, axes = plt.subplots(n, 1, figsize=(7, 3.2 * n + 0.6), squeeze=False)
    for k, motor in enumerate(t.actuator_names):
        sweep = np.linspace(lo[k], hi[k], POINTS)
        a = np.zeros((POINTS, n))
        a[:, k] = sweep
        with np.errstate(all='ignore'):
            q = tr.actuator_to_joint({'position': a})['position']
        ax = axes[k, 0]
        labelled = False
        for j, (label, y) in enumerate(_groups(robot, t.joint_names, q, drop_zero=False)):
            line, = ax.plot(sweep, y, label=label, linestyle=STYLES[j % len(STYLES)])
            for joint in label.split(' = '):
                labelled |= draw_limits(ax, robot, joint, line.get_color(), not labelled)
        ax.set_xlabel(f'{motor} position [{ACTUATOR_UNITS["position"]}] (other actuators at 0)')
        units = sorted({_unit(robot, joint) for joint in t.joint_names} - {''})
        ax.set_ylabel(f'joint position [{", ".join(units)}]' if units else 'joint position')
        ax.legend(fontsize='small')
        ax.grid(True, alpha=0.3)
    return fig
