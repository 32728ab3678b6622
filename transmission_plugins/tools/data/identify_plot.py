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
The residual plot of ``transmission_plugins identify --plot OUT``: every fit, model and data.

One panel per transmission (a matplotlib subfigure titled with its name and type), one column
per fit (:attr:`~transmission_plugins.robot.drivetrain_identification.DrivetrainFit.series`:
``friction``, ``backlash``, ``spring``, ``joint_friction``...; a coupled transmission's per
joint or actuator): on top what was measured (grey) and what the fit models (colour) over
time, below their difference, the residual, with its RMS in the title.  A transmission
without a fit says why in its panel.  Long recordings are thinned to :data:`MAX_POINTS` points
per line (every k-th sample, lines broken where the fit skipped samples), so that an SVG stays
small.  Text stays text in an SVG.
"""

from typing import Any
from typing import Sequence

import numpy as np

from transmission_plugins.robot.drivetrain_identification import DrivetrainFit
from transmission_plugins.tools.data.plotting import save_figure

#: the most points drawn per line
MAX_POINTS = 300
#: the size of one fit's column and of one panel (inches)
COLUMN_WIDTH = 3.6
PANEL_HEIGHT = 3.4


def plot_identification(fits: Sequence[DrivetrainFit], path: str) -> Any:
    """
    Draw the fits of every transmission and save the figure to ``path`` (PNG, SVG, PDF).

    :returns: the matplotlib figure (closed; its subfigures, one per transmission, and their
        axes can be inspected)
    :raises TransmissionValueError: a file type matplotlib cannot write
    :raises TransmissionFileError: (also an ``OSError``) the file cannot be written
    """
    import matplotlib
    matplotlib.use('Agg')
    from matplotlib import pyplot as plt

    columns = max([len(fit.series) for fit in fits] + [1])
    fig = plt.figure(figsize=(COLUMN_WIDTH * columns, PANEL_HEIGHT * max(len(fits), 1)),
                     layout='constrained')
    panels = fig.subfigures(max(len(fits), 1), 1, squeeze=False)[:, 0]
    for panel, fit in zip(panels, fits):
        panel.suptitle(f'{fit.name} ({fit.type}), {fit.samples} samples', fontsize='medium')
        if not fit.series:
            ax = panel.subplots()
            ax.set_axis_off()
            ax.text(0.5, 0.5, 'nothing fitted: ' + ('; '.join(
                f'{key}: {why}' for key, why in fit.not_excited.items()) or 'no model'),
                ha='center', va='center', wrap=True, fontsize='small')
            continue
        axes = panel.subplots(2, len(fit.series), squeeze=False, sharex='col')
        for k, (name, s) in enumerate(fit.series.items()):
            top, bottom = axes[0, k], axes[1, k]
            residual = s.measured - s.model
            rms = float(np.sqrt(np.mean(residual * residual))) if len(residual) else 0.0
            t, (measured, model, rest) = _thinned(s.time, s.measured, s.model, residual)
            top.plot(t, measured, color='0.65', linewidth=2.0, label='measured')
            top.plot(t, model, color='C0', linewidth=0.8, label='model')
            top.set_title(f'{name}\n{s.quantity}', fontsize='x-small')
            bottom.plot(t, rest, color='C3', linewidth=0.6)
            bottom.axhline(0.0, color='0.3', linewidth=0.5)
            bottom.set_title(f'residual, RMS {rms:.3g}', fontsize='x-small')
            bottom.set_xlabel('time (s)', fontsize='x-small')
            for ax in (top, bottom):
                ax.tick_params(labelsize='x-small')
            if k == 0:
                top.legend(fontsize='x-small', loc='upper right')
    with matplotlib.rc_context({'svg.fonttype': 'none', 'svg.hashsalt': 'identify'}):
        save_figure(plt, fig, path, 'the residual plot of identify', tight=False)
    return fig


def _thinned(time: np.ndarray, *series: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
    """
    Return every k-th sample (at most :data:`MAX_POINTS`), NaN between stretches.

    A fit uses some samples only (the moving ones): a line is broken where the time between two
    samples drawn exceeds twice the typical one, instead of joining two stretches.
    """
    step = max(1, -(-len(time) // MAX_POINTS))
    t = time[::step]
    kept = [np.asarray(s, dtype=np.float64)[::step] for s in series]
    if len(t) < 3:
        return t, kept
    gaps = np.flatnonzero(np.diff(t) > 2.0 * float(np.median(np.diff(t)))) + 1
    return (np.insert(t, gaps, np.nan),
            [np.insert(s, gaps, np.nan) for s in kept])
