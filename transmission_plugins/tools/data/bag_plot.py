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
Plot a recorded JointState topic in both spaces: actuators on the left, joints on the right.

The topic is read from a bag and converted (:mod:`~.bag_export`); whether it holds actuators or
joints is read from its first message.  What the figure shows is doc/bags.md's; the joints shown
are ``joints`` (default: those of the first transmissions, at most :data:`DEFAULT_JOINTS`) and
the actuators are those of their transmissions.
"""

from typing import Any
from typing import NamedTuple
from typing import Sequence

import numpy as np

from transmission_plugins.core.exceptions import UnknownNameError
from transmission_plugins.robot.robot_transmissions import RobotTransmissions
from transmission_plugins.runtime.messages import FIELDS
from transmission_plugins.tools.data.bag_convert import MessageCounts
from transmission_plugins.tools.data.bag_export import read_rows
from transmission_plugins.tools.data.bag_export import single_topic
from transmission_plugins.tools.data.bag_io import BagReader
from transmission_plugins.tools.data.bag_io import BagTopicError
from transmission_plugins.tools.data.joint_state_batch import Converted
from transmission_plugins.tools.data.joint_state_batch import JointStateBatchConverter
from transmission_plugins.tools.data.joint_state_batch import Rejected
from transmission_plugins.tools.data.joint_state_batch import TO_ACTUATOR
from transmission_plugins.tools.data.joint_state_batch import TO_JOINT
from transmission_plugins.tools.data.joint_state_messages import decode_each
from transmission_plugins.tools.data.joint_state_messages import fields
from transmission_plugins.tools.data.joint_state_messages import JOINT_STATE_TYPE
from transmission_plugins.tools.data.plotting import ACTUATOR_UNITS
from transmission_plugins.tools.data.plotting import draw_limits
from transmission_plugins.tools.data.plotting import joint_unit
from transmission_plugins.tools.data.plotting import save_figure
from transmission_plugins.tools.data.plotting import STYLES

#: Joints shown when none are chosen.
DEFAULT_JOINTS = 6


class BagPlot(NamedTuple):
    """What :func:`plot_bag` drew."""

    topic: str
    to: str                     # the direction the topic was converted in
    joints: list[str]
    actuators: list[str]
    messages: int               # messages plotted
    rejected: dict[str, int]    # messages with something left out, by reason
    figure: Any                 # the matplotlib figure (closed; its axes can be inspected)


def choose_joints(robot: RobotTransmissions, joints: Sequence[str] | None) -> list[str]:
    """
    Return the joints to plot: ``joints`` checked, or the default (see the module doc).

    :raises UnknownNameError: a name that no transmission drives (the message lists them)
    """
    if joints:
        unknown = [j for j in joints if j not in robot.joint_index]
        if unknown:
            raise UnknownNameError(f'no transmission drives joint(s) {unknown}; joints: '
                                   + ', '.join(robot.joint_names))
        return list(dict.fromkeys(joints))
    chosen: list[str] = []
    for t in robot.transmissions:
        if chosen and len(chosen) + len(t.joint_names) > DEFAULT_JOINTS:
            break
        chosen += [j for j in t.joint_names if j not in chosen]
    return chosen


def _direction(reader: BagReader, connections: list[Any], robot: RobotTransmissions) -> str:
    seen = undecodable = 0
    for _, _, raw in reader.messages(connections):
        seen += 1
        msg = decode_each([raw])[0]
        if isinstance(msg, Rejected):
            undecodable += 1
            continue
        if not len(msg.name):
            continue
        return TO_JOINT if all(n in robot.actuator_index for n in msg.name) else TO_ACTUATOR
    if seen and undecodable == seen:
        raise BagTopicError(f'{reader.path}: none of the {seen} messages of '
                            f'{connections[0].topic} could be decoded: their bytes are not a '
                            f'{JOINT_STATE_TYPE} in CDR (a damaged bag?)')
    raise BagTopicError(f'{reader.path}: topic {connections[0].topic} has no message to plot')


class _Series:
    """Values of some names per interface, gathered batch by batch."""

    def __init__(self, names: list[str]) -> None:
        self.names = names
        self.index = {n: k for k, n in enumerate(names)}
        self.parts: dict[str, list[np.ndarray]] = {f: [] for f in FIELDS}
        self._places: dict[tuple[str, ...], tuple[np.ndarray, np.ndarray]] = {}

    def add(self, names: Sequence[str], values: list[np.ndarray | None]) -> None:
        key = tuple(names)
        place = self._places.get(key)
        if place is None:
            pairs = [(k, self.index[n]) for k, n in enumerate(key) if n in self.index]
            place = self._places[key] = (np.array([a for a, _ in pairs], dtype=np.intp),
                                         np.array([b for _, b in pairs], dtype=np.intp))
        for field, v in zip(FIELDS, values):
            row = np.full(len(self.names), np.nan)
            if v is not None:
                row[place[1]] = np.asarray(v, dtype=np.float64)[place[0]]
            self.parts[field].append(row)

    def arrays(self) -> dict[str, np.ndarray]:
        return {f: np.array(p) for f, p in self.parts.items()
                if p and not np.isnan(np.array(p)).all()}


def plot_bag(robot: RobotTransmissions, src: str, path: str, topic: str = 'actuator_states',
             joints: Sequence[str] | None = None) -> BagPlot:
    """
    Plot ``topic`` of bag ``src`` in both spaces and save the figure to ``path`` (PNG, SVG).

    :raises BagError: unreadable bag; :class:`~.bag_io.BagTopicError`: no such topic, or
        nothing to plot
    :raises UnknownNameError: a chosen joint no transmission drives
    :raises TransmissionFileError: the image cannot be written
    """
    chosen = choose_joints(robot, joints)
    actuators = [a for t in robot.transmissions if set(t.joint_names) & set(chosen)
                 for a in t.actuator_names]
    actuators = list(dict.fromkeys(actuators))
    with BagReader(src) as reader:
        found = single_topic(reader, topic)
        to = _direction(reader, found, robot)
        act, jnt = _Series(actuators), _Series(chosen)
        times: list[int] = []
        counts = MessageCounts(src)
        source, target = (act, jnt) if to == TO_JOINT else (jnt, act)
        for rows in read_rows(reader, found, JointStateBatchConverter(robot, to)):
            for t, _, msg, r in rows:
                counts.count(found[0].topic, t, r, strict=False)
                if isinstance(r, Converted):
                    times.append(t)
                    names, *values = fields(msg)
                    source.add(names, [v if len(v) else None for v in values])
                    target.add(r.names, [r.position, r.velocity, r.effort])
    if not times:
        raise BagTopicError(f'{src}: no message of {found[0].topic} could be converted '
                            f'({counts.rejected})')
    figure = _draw(robot, path, found[0].topic, np.array(times), act, jnt)
    return BagPlot(found[0].topic, to, chosen, actuators, len(times), counts.rejected, figure)


def _line(ax: Any, seconds: np.ndarray, values: np.ndarray, label: str, style: str) -> Any:
    """Plot one series over the samples that have it (NaN is a missing sample, not a gap)."""
    present = ~np.isnan(values)
    line, = ax.plot(seconds[present], values[present], label=label, linestyle=style)
    return line


def _draw(robot: RobotTransmissions, path: str, topic: str, times: np.ndarray, act: _Series,
          jnt: _Series) -> Any:
    import matplotlib
    matplotlib.use('Agg')
    from matplotlib import pyplot as plt

    a, j = act.arrays(), jnt.arrays()
    fields = [f for f in FIELDS if f in a or f in j]
    seconds = (times - times[0]) * 1e-9
    fig, axes = plt.subplots(len(fields), 2, figsize=(12, 3.2 * len(fields) + 0.8),
                             sharex=True, squeeze=False)
    for row, field in enumerate(fields):
        left, right = axes[row]
        for k, name in enumerate(act.names if field in a else ()):
            _line(left, seconds, a[field][:, k], name, STYLES[k % len(STYLES)])
        left.set_ylabel(f'actuator {field} [{ACTUATOR_UNITS[field]}]')
        lines = [(name, _line(right, seconds, j[field][:, k], name, STYLES[k % len(STYLES)]))
                 for k, name in enumerate(jnt.names if field in j else ())]
        if field == 'position':
            right.autoscale_view()
            view = right.get_ylim()  # the data's: limits far off stay off the panel
            labelled = False
            for name, line in lines:
                labelled |= draw_limits(right, robot, name, line.get_color(), not labelled)
            right.set_ylim(view)
        units = sorted({joint_unit(robot, n, field) for n in jnt.names} - {''})
        right.set_ylabel(f'joint {field}' + (f' [{", ".join(units)}]' if units else ''))
        for ax in (left, right):
            ax.grid(True, alpha=0.3)
    for ax, title in zip(axes[0], ('actuators', 'joints')):
        handles, labels = ax.get_legend_handles_labels()
        ax.legend(handles, labels, title=title, loc='lower center', bbox_to_anchor=(0.5, 1.0),
                  ncol=3, fontsize='small', frameon=False)
    for ax in axes[-1]:
        ax.set_xlabel('time [s] (receive time from the first message)')
    fig.suptitle(f'{topic}: {len(times)} messages')
    save_figure(plt, fig, path, f'plot of {topic}')
    return fig
