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
The peers of an interface node's cycle topics that cannot match it: another type or a QoS.

rclpy says this through QoS event handlers that it creates with every publisher and
subscription (``incompatible_qos``, ``incompatible_type``).  Each handler is a waitable that the
executor gathers, enters and tests at every wake-up: at 1 kHz the 14 handlers of the hardware
interface's cycle topics cost more CPU than its conversion.  The interface nodes therefore create
their cycle topics without them (:func:`~.common.qos_overridable`) and ask the ROS graph at every
diagnostic period instead, with rclpy's own compatibility rule (``qos_check_compatible``).
"""

from typing import Any
from typing import Iterable
from typing import List
from typing import NamedTuple
from typing import Set
from typing import Tuple

from rclpy.qos import qos_check_compatible
from rclpy.qos import QoSCompatibility


def type_name(msg_type: Any) -> str:
    """Return a message class's ROS type name (``sensor_msgs/msg/JointState``)."""
    return f"{msg_type.__module__.split('.')[0]}/msg/{msg_type.__name__}"


#: the node name of an endpoint whose node the middleware has not discovered yet
UNKNOWN_NODE = '_NODE_NAME_UNKNOWN_'


class Mismatch(NamedTuple):
    """A peer that cannot match: the topic, the peer endpoint's GID, what to say."""

    topic: str
    gid: Tuple[int, ...]
    line: str


def endpoint_node(info: Any) -> str:
    """Return the fully qualified name of the node of a ``TopicEndpointInfo``."""
    if info.node_name == UNKNOWN_NODE:
        return 'a node not discovered yet'
    return f"{info.node_namespace.rstrip('/')}/{info.node_name}"


def reasons(text: str) -> str:
    """Return rclpy's compatibility reasons without their ``ERROR:`` / ``WARNING:`` words."""
    parts = (p.strip() for p in text.split(';'))
    return '; '.join(p.split(':', 1)[1].strip() if p.startswith(('ERROR:', 'WARNING:')) else p
                     for p in parts if p)


def graph_qos(node: Any, infos: List[Any], requested: Any) -> Any:
    """
    Return the QoS of ``node``'s own endpoint among ``infos``, as the ROS graph reports it.

    The profile an entity was created with may hold "system default" values that the
    middleware has since replaced; the graph's view of both sides is compared.  ``requested``
    until the graph lists the endpoint.
    """
    for info in infos:
        if info.node_name == node.get_name() and info.node_namespace == node.get_namespace():
            return info.qos_profile
    return requested


def mismatches(node: Any, publishers: Iterable[Any],
               subscriptions: Iterable[Any]) -> List[Mismatch]:
    """
    Return one mismatch per peer of these topics that cannot exchange messages with ``node``.

    A peer of another message type, or one whose QoS rclpy's rule calls incompatible (a
    best-effort publisher of a reliable subscription, a subscription asking for transient local
    from a volatile publisher...).  A peer whose compatibility is only uncertain (system
    default policies) is not one.
    """
    lines: List[Mismatch] = []

    def add(topic: str, info: Any, text: str) -> None:
        lines.append(Mismatch(topic, tuple(info.endpoint_gid), f'{topic}: {text}'))

    for pub in publishers:
        topic, ours = pub.topic_name, type_name(pub.msg_type)
        qos = graph_qos(node, node.get_publishers_info_by_topic(topic), pub.qos_profile)
        for info in node.get_subscriptions_info_by_topic(topic):
            peer = endpoint_node(info)
            if info.topic_type != ours:
                add(topic, info, f'{peer} subscribes {info.topic_type}, this node publishes '
                                 f'{ours}')
                continue
            verdict, reason = qos_check_compatible(qos, info.qos_profile)
            if verdict == QoSCompatibility.ERROR:
                add(topic, info, f"the subscription of {peer} cannot take this node's "
                                 f'messages: {reasons(reason)}')
    for sub in subscriptions:
        topic, ours = sub.topic_name, type_name(sub.msg_type)
        qos = graph_qos(node, node.get_subscriptions_info_by_topic(topic), sub.qos_profile)
        for info in node.get_publishers_info_by_topic(topic):
            peer = endpoint_node(info)
            if info.topic_type != ours:
                add(topic, info, f'{peer} publishes {info.topic_type}, this node subscribes '
                                 f'{ours}')
                continue
            verdict, reason = qos_check_compatible(info.qos_profile, qos)
            if verdict == QoSCompatibility.ERROR:
                add(topic, info, f'this node cannot take the messages of {peer}: '
                                 f'{reasons(reason)}')
    return lines


class TopicPeers:
    """
    The mismatched peers found at the last check, and which of them were already said.

    A peer is said once per endpoint (its GID: a restarted peer is a new one), however its
    node's name reads while discovery completes; the peers said are forgotten when they leave.
    """

    def __init__(self) -> None:
        #: the lines of the mismatches of the last check
        self.current: List[str] = []
        self._said: Set[Tuple[str, Tuple[int, ...]]] = set()

    def check(self, node: Any, publishers: Iterable[Any],
              subscriptions: Iterable[Any]) -> List[str]:
        """Refresh :attr:`current`; return the lines of the peers not said before."""
        found = mismatches(node, publishers, subscriptions)
        self.current = [m.line for m in found]
        keys = {(m.topic, m.gid) for m in found}
        new = [m.line for m in found if (m.topic, m.gid) not in self._said]
        self._said = keys
        return new


__all__ = ['Mismatch', 'TopicPeers', 'UNKNOWN_NODE', 'endpoint_node', 'graph_qos', 'mismatches',
           'reasons', 'type_name']
