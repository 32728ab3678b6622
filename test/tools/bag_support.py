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

"""Bags written and read with ``rosbags`` directly (an independent reader and writer)."""

from pathlib import Path

import numpy as np
from rosbags.interfaces import Qos
from rosbags.interfaces import QosDurability
from rosbags.interfaces import QosHistory
from rosbags.interfaces import QosLiveliness
from rosbags.interfaces import QosReliability
from rosbags.interfaces import QosTime
from rosbags.rosbag2 import Reader
from rosbags.rosbag2 import StoragePlugin
from rosbags.rosbag2 import Writer
from rosbags.typesys import get_typestore
from rosbags.typesys import Stores

from tp_support import REPO

STORE = get_typestore(Stores.ROS2_KILTED)
JS = 'sensor_msgs/msg/JointState'
STRING = 'std_msgs/msg/String'
EXAMPLE_URDF = REPO / 'urdf' / 'example_robot.urdf.xacro'
#: the QoS robot_state_publisher's joint_states subscription would match (reliable, volatile)
QOS = Qos(QosHistory.KEEP_LAST, 10, QosReliability.RELIABLE, QosDurability.VOLATILE,
          QosTime(0, 0), QosTime(0, 0), QosLiveliness.AUTOMATIC, QosTime(0, 0), False)


def joint_state(names, position=(), velocity=(), effort=(), stamp=(0, 0), frame_id=''):
    """Return a rosbags JointState message."""
    types = STORE.types
    header = types['std_msgs/msg/Header'](
        stamp=types['builtin_interfaces/msg/Time'](sec=stamp[0], nanosec=stamp[1]),
        frame_id=frame_id)
    return types[JS](header=header, name=list(names),
                     position=np.ascontiguousarray(position, dtype=np.float64),
                     velocity=np.ascontiguousarray(velocity, dtype=np.float64),
                     effort=np.ascontiguousarray(effort, dtype=np.float64))


def write_bag(path, storage, topics, messages):
    """
    Write a bag with ``rosbags``.

    :param topics: ``{topic: message type}``
    :param messages: ``[(topic, receive time ns, message object)]``
    """
    plugin = StoragePlugin.MCAP if storage == 'mcap' else StoragePlugin.SQLITE3
    with Writer(Path(path), version=9, storage_plugin=plugin) as w:
        conns = {t: w.add_connection(t, m, typestore=STORE, offered_qos_profiles=[QOS])
                 for t, m in topics.items()}
        for topic, t, msg in messages:
            w.write(conns[topic], t, STORE.serialize_cdr(msg, topics[topic]))
    return str(path)


def read_bag(path):
    """Return ``(connections by topic, [(topic, receive time, raw bytes)])`` via ``rosbags``."""
    with Reader(Path(path)) as r:
        conns = {c.topic: c for c in r.connections}
        return conns, [(c.topic, t, bytes(raw)) for c, t, raw in r.messages()]


def decode(raw, msgtype=JS):
    """Deserialize CDR bytes with the rosbags type store."""
    return STORE.deserialize_cdr(raw, msgtype)


def storage_file(bag):
    """Return the storage file of a bag directory."""
    files = [p for p in Path(bag).iterdir() if p.suffix in ('.mcap', '.db3')]
    assert len(files) == 1, files
    return files[0]
