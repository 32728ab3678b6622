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
What ``transmission_plugins identify`` identifies from: actuator and joint states of a bag.

The bag is read and paired exactly as ``calibrate`` reads it
(:func:`~.bag_calibrate.read_paired`: windows of a long bag, ``max_samples``, progress); here
every field (position, velocity, effort) of every pair is kept, with its window, since the
drivetrain's fits need time series (velocities, their derivatives, reversals).  Memory is
bounded by ``max_samples`` pairs.
"""

from typing import Callable
from typing import NamedTuple

import numpy as np

from transmission_plugins.robot.drivetrain_identification import DrivetrainFit
from transmission_plugins.robot.drivetrain_identification import identify_drivetrain
from transmission_plugins.robot.drivetrain_identification import SPEED_THRESHOLD
from transmission_plugins.robot.robot_transmissions import RobotTransmissions
from transmission_plugins.tools.data.bag_calibrate import DEFAULT_ACTUATOR_TOPIC
from transmission_plugins.tools.data.bag_calibrate import DEFAULT_JOINT_TOPIC
from transmission_plugins.tools.data.bag_calibrate import DEFAULT_MAX_SAMPLES
from transmission_plugins.tools.data.bag_calibrate import PairedReading
from transmission_plugins.tools.data.bag_calibrate import PairedWindow
from transmission_plugins.tools.data.bag_calibrate import read_paired

FIELDS = ('position', 'velocity', 'effort')
#: the topic of the actuator commands whose delay is identified when the bag has it
DEFAULT_COMMAND_TOPIC = 'actuator_commands'


class RecordedStates(NamedTuple):
    """The paired states of a bag, as :func:`identify_drivetrain` takes them."""

    time: np.ndarray
    actuator: dict[str, np.ndarray]
    joint: dict[str, np.ndarray]
    #: the window of each sample
    segment: np.ndarray
    #: the actuator commands at the same times, like ``actuator`` (None: not in the bag)
    commands: dict[str, np.ndarray] | None
    reading: PairedReading


def read_states(robot: RobotTransmissions, path: str,
                actuator_topic: str = DEFAULT_ACTUATOR_TOPIC,
                joint_topic: str = DEFAULT_JOINT_TOPIC,
                max_samples: int = DEFAULT_MAX_SAMPLES,
                progress: Callable[[int], None] | None = None,
                command_topic: str | None = DEFAULT_COMMAND_TOPIC) -> RecordedStates:
    """
    Read a bag's actuator and joint states, paired at the joint messages' times (module doc).

    :raises BagError, BagTopicError, TransmissionInputError: as :func:`~.read_paired`
    """
    windows: list[PairedWindow] = []
    reading = read_paired(robot, path, actuator_topic, joint_topic, max_samples, progress,
                          windows.append, command_topic)
    time = np.concatenate([w.time for w in windows])
    segment = np.concatenate([np.full(len(w.time), w.window) for w in windows])
    actuator = {f: np.vstack([w.actuators[k] for w in windows]) for k, f in enumerate(FIELDS)}
    joint = {f: np.vstack([w.joints[k] for w in windows]) for k, f in enumerate(FIELDS)}
    commands = None
    if reading.command_topic is not None:
        commands = {f: np.vstack([w.commands[k] for w in windows if w.commands is not None])
                    for k, f in enumerate(FIELDS)}
    return RecordedStates(time, actuator, joint, segment, commands, reading)


def identify_bag(robot: RobotTransmissions, path: str,
                 actuator_topic: str = DEFAULT_ACTUATOR_TOPIC,
                 joint_topic: str = DEFAULT_JOINT_TOPIC,
                 max_samples: int = DEFAULT_MAX_SAMPLES,
                 speed_threshold: float = SPEED_THRESHOLD, current: bool = False,
                 progress: Callable[[int], None] | None = None,
                 command_topic: str | None = DEFAULT_COMMAND_TOPIC
                 ) -> tuple[list[DrivetrainFit], RecordedStates]:
    """
    Return every transmission's drivetrain identified from a bag, and what was read.

    :param command_topic: the actuator commands (their delay is identified when the bag has
        the topic; None: not read)
    """
    states = read_states(robot, path, actuator_topic, joint_topic, max_samples, progress,
                         command_topic)
    fits = identify_drivetrain(robot, states.time, states.actuator, states.joint,
                               states.segment, speed_threshold, current, states.commands)
    return fits, states
