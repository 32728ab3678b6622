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
Write ``example_robot_states.mcap``: 4 s of the example robot's motors at 100 Hz.

The joints follow smooth motions inside their limits (the arm joints sinusoids, the gripper
opening and closing); the robot's own maps give the motor positions, velocities (finite
differences of the positions) and efforts, recorded as ``sensor_msgs/JointState`` on
``/actuator_states`` as ``ros2 bag record`` would.  Run from the repository root:
``python doc/examples/make_example_bag.py``.
"""

from pathlib import Path
import shutil
import tempfile

import numpy as np
from rosbags.rosbag2 import StoragePlugin
from rosbags.rosbag2 import Writer
from rosbags.typesys import get_typestore
from rosbags.typesys import Stores

from transmission_plugins.robot.loading import load_robot_transmissions

HERE = Path(__file__).resolve().parent
RATE = 100.0
SECONDS = 4.0
START = 1_767_225_600 * 10**9  # 2026-01-01T00:00:00Z


def main():
    """Write the bag next to this script (replacing it)."""
    robot = load_robot_transmissions(str(HERE.parents[1] / 'urdf' / 'example_robot.urdf.xacro'),
                                     warn=False)
    t = np.arange(0.0, SECONDS, 1.0 / RATE)
    q = np.zeros((len(t), len(robot.joint_names)))
    motion = {'pan_joint': 1.5 * np.sin(0.5 * np.pi * t),
              'shoulder_joint': 0.8 * np.sin(np.pi * t),
              'elbow_joint': 1.2 * np.sin(np.pi * t + 1.0),
              'wrist_pitch_joint': 1.0 * np.sin(1.5 * np.pi * t),
              'wrist_roll_joint': 2.5 * np.sin(0.5 * np.pi * t + 0.5),
              'gripper_joint': 0.045 + 0.035 * np.sin(np.pi * t)}
    for name, values in motion.items():
        q[:, robot.joint_index[name]] = values
    tau = np.zeros_like(q)
    tau[:, robot.joint_index['shoulder_joint']] = 20.0 * np.cos(np.pi * t)
    tau[:, robot.joint_index['gripper_joint']] = 30.0
    motors = robot.joint_to_actuator_arrays({'position': q, 'effort': tau})
    theta = motors['position']
    omega = np.gradient(theta, 1.0 / RATE, axis=0)
    out = HERE / 'example_robot_states.mcap'
    # received 0.15 ms after the stamp
    write_joint_states(out, t, [('/actuator_states', robot.actuator_names,
                                 {'position': theta, 'velocity': omega,
                                  'effort': motors['effort']}, 150_000)])
    print(f'wrote {out.relative_to(Path.cwd()) if out.is_relative_to(Path.cwd()) else out}')


def write_joint_states(path: Path, times: np.ndarray, topics: list) -> None:
    """
    Write the MCAP bag ``path``: ``sensor_msgs/JointState`` messages stamped ``START + times``.

    :param topics: ``(topic, names, fields, delay)`` each: ``fields`` maps ``position`` (and
        ``velocity``, ``effort`` where recorded) to arrays of one row per time; each message is
        received ``delay`` ns after its stamp
    """
    store = get_typestore(Stores.ROS2_KILTED)
    types = store.types
    js = 'sensor_msgs/msg/JointState'
    with tempfile.TemporaryDirectory() as tmp:
        bag = Path(tmp) / path.stem
        with Writer(bag, version=9, storage_plugin=StoragePlugin.MCAP) as w:
            conns = [w.add_connection(topic, js, typestore=store) for topic, *_ in topics]
            for k, seconds in enumerate(times):
                ns = START + int(round(seconds * 1e9))
                header = types['std_msgs/msg/Header'](
                    stamp=types['builtin_interfaces/msg/Time'](sec=ns // 10**9,
                                                               nanosec=ns % 10**9),
                    frame_id='')
                for conn, (_, names, fields, delay) in zip(conns, topics):
                    values = {f: np.ascontiguousarray(fields[f][k]) if f in fields
                              else np.zeros(0) for f in ('position', 'velocity', 'effort')}
                    msg = types[js](header=header, name=list(names), **values)
                    w.write(conn, ns + delay, store.serialize_cdr(msg, js))
        shutil.move(str(bag / f'{path.stem}.mcap'), path)


if __name__ == '__main__':
    main()
