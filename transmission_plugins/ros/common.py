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
Small rclpy helpers shared by the nodes: parameters, QoS profiles, message packing, the spin loop.

Parameter declaration and validation live in :mod:`~.node_parameters`.
"""

from array import array
import functools
import sys
import time
from typing import Any
from typing import Callable
from typing import Iterable

from diagnostic_msgs.msg import DiagnosticStatus
from diagnostic_msgs.msg import KeyValue

import numpy as np
import rclpy
from rclpy.event_handler import PublisherEventCallbacks
from rclpy.event_handler import SubscriptionEventCallbacks
from rclpy.exceptions import ParameterUninitializedException
from rclpy.executors import ExternalShutdownException
from rclpy.executors import SingleThreadedExecutor
from rclpy.lifecycle import TransitionCallbackReturn
from rclpy.qos import DurabilityPolicy
from rclpy.qos import HistoryPolicy
from rclpy.qos import QoSProfile
from rclpy.qos import ReliabilityPolicy
from rclpy.qos_overriding_options import QoSOverridingOptions
from rclpy.signals import SignalHandlerOptions
from std_msgs.msg import String

from transmission_plugins.core.exceptions import TransmissionError
from transmission_plugins.ros.stop_signals import StopRequest

#: seconds :func:`run_node` waits in one ``spin_once`` (the longest a stop request waits)
SPIN_TIMEOUT = 0.1
#: seconds a finished node keeps spinning before it tears down, so that the reply to the request
#: that finished it (``ros2 lifecycle set <node> shutdown``) reaches the caller
FINISH_LINGER = 1.0


def policy_name(kind: Any) -> str:
    """Return a QoS policy kind's name as ``ros2 topic info`` says it (``RELIABILITY``)."""
    return str(getattr(kind, 'name', kind)).removeprefix('RMW_QOS_POLICY_')


def qos_overridable(depth: int, reliable: bool = True, publisher: bool = False,
                    logger: Any = None, topic: str = '') -> dict[str, Any]:
    """
    Return the keyword arguments of a cycle topic: a QoS users may override, few event handlers.

    robot_state_publisher's style: read-only ``qos_overrides.<topic>.<publisher|subscription>.
    <history|depth|reliability>`` parameters, set at start-up (a parameters file or ``-p``).
    rclpy gives every publisher and subscription two QoS event handlers by default, and its
    executor tests each one at every wake-up.  Only a reliable subscription keeps one here:
    ``logger`` warns when a publisher's QoS cannot reach ``topic`` (a best-effort publisher).  A
    best-effort subscription takes every publisher, and the reliable, volatile publishers reach
    every usual subscription; a peer that does not match warns of it on its side too.
    """
    profile = reliable_qos(depth) if reliable else state_qos(depth)
    if publisher:
        events: Any = PublisherEventCallbacks(use_default_callbacks=False)
    elif reliable and logger is not None:
        events = SubscriptionEventCallbacks(
            incompatible_qos=lambda info: logger.warning(
                f'{topic}: a publisher offers a QoS that cannot reach this reliable subscription '
                f'(the incompatible policy: {policy_name(info.last_policy_kind)}); nothing it '
                'sends arrives (a best-effort publisher? ros2 topic info --verbose shows both '
                'sides)'),
            use_default_callbacks=False)
    else:
        events = SubscriptionEventCallbacks(use_default_callbacks=False)
    return {'qos_profile': profile,
            'qos_overriding_options': QoSOverridingOptions.with_default_policies(),
            'event_callbacks': events}


def steady_arrival(info: Any) -> float:
    """
    Return when a message arrived, on the steady clock (``time.monotonic``).

    ``info`` is rclpy's ``MessageInfo``: its ``received_timestamp`` is the middleware's
    reception time on the system clock (0 when unknown); the age it gives is subtracted from
    now.  Without it, or with a reception time in the future, the arrival is now.
    """
    now = time.monotonic()
    received = info.get('received_timestamp', 0) if isinstance(info, dict) else 0
    if not received:
        return now
    age = (time.time_ns() - received) * 1e-9
    return now - age if age > 0.0 else now


def subscribe_with_arrival(node: Any, msg_type: Any, topic: str,
                           callback: Callable[[Any, float], None], **qos: Any) -> Any:
    """
    Subscribe ``callback(msg, arrival)``, ``arrival`` from :func:`steady_arrival`.

    A callback of two arguments gets rclpy's ``MessageInfo`` with each message.
    """
    def on_message(msg: Any, info: Any) -> None:
        callback(msg, steady_arrival(info))

    return node.create_subscription(msg_type, topic, on_message, **qos)


def parameter_value(node: Any, name: str) -> Any:
    """Return a parameter's value; an uninitialised string array reads as ``[]``."""
    try:
        value = node.get_parameter(name).value
    except ParameterUninitializedException:
        return []
    return [] if value is None else value


def subscribe_description(node: Any, callback: Callable[[str], None]) -> Any:
    """
    Listen on the ``robot_description`` topic (transient local); return the subscription.

    For nodes whose ``robot_description`` parameter is empty: ``callback`` receives the URDF
    text of every message (the last one published before the node started included).
    """
    sub = node.create_subscription(String, 'robot_description',
                                   lambda msg: callback(msg.data), description_qos())
    node.get_logger().info('robot_description parameter empty: waiting for the '
                           'robot_description topic')
    return sub


class StartupFailed(TransmissionError):
    """A node cannot start; it has logged why.  :func:`run_node` exits 1 without a traceback."""


def diagnostic_status(name: str, level: int, message: str, hardware_id: str,
                      values: Iterable[tuple[str, str]]) -> DiagnosticStatus:
    """Return a ``diagnostic_msgs/DiagnosticStatus`` (``level``: 0 OK ... 3 STALE)."""
    status = DiagnosticStatus(level=bytes([level]), name=name, message=message,
                              hardware_id=hardware_id)
    status.values = [KeyValue(key=k, value=v) for k, v in values]
    return status


def description_qos() -> QoSProfile:
    """Return the ``robot_description`` QoS (reliable, transient local, depth 1)."""
    return QoSProfile(depth=1, history=HistoryPolicy.KEEP_LAST,
                      reliability=ReliabilityPolicy.RELIABLE,
                      durability=DurabilityPolicy.TRANSIENT_LOCAL)


def state_qos(depth: int) -> QoSProfile:
    """Return a best-effort subscription QoS: it matches reliable and best-effort publishers."""
    return QoSProfile(depth=depth, history=HistoryPolicy.KEEP_LAST,
                      reliability=ReliabilityPolicy.BEST_EFFORT,
                      durability=DurabilityPolicy.VOLATILE)


def reliable_qos(depth: int) -> QoSProfile:
    """Return a reliable, volatile QoS (matches reliable and best-effort subscribers)."""
    return QoSProfile(depth=depth, history=HistoryPolicy.KEEP_LAST,
                      reliability=ReliabilityPolicy.RELIABLE,
                      durability=DurabilityPolicy.VOLATILE)


def to_msg_array(x: np.ndarray | None) -> Any:
    """Return ``x`` as ``array('d')``, the fast path of rosidl float64 sequences."""
    if x is None:
        return array('d')
    return array('d', np.ascontiguousarray(x, dtype=np.float64).tobytes())


def fill_joint_state(msg: Any, values: Any, stamp: Any, frame_id: str = '') -> Any:
    """Write a stamp, ``frame_id``, names and fields into a ``JointState`` (names if changed)."""
    msg.header.stamp = stamp
    msg.header.frame_id = frame_id
    if msg.name is not values.names:
        msg.name = values.names
    msg.position = to_msg_array(values.position)
    msg.velocity = to_msg_array(values.velocity)
    msg.effort = to_msg_array(values.effort)
    return msg


def logged_transition(transition: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """
    Decorate a lifecycle callback: log any exception with its cause, and return ERROR.

    rclpy turns an exception in a transition callback into ERROR without a word.
    """
    def decorate(method: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(method)
        def wrapper(node: Any, state: Any) -> Any:
            try:
                return method(node, state)
            except Exception as e:  # noqa: B902 - reported, then the transition fails
                node.get_logger().error(f'{transition} failed: {type(e).__name__}: {e}')
                return TransitionCallbackReturn.ERROR
        return wrapper
    return decorate


def run_node(factory: Callable[[list[str] | None], Any],
             args: list[str] | None = None) -> int:
    """
    Run ``factory(args)``'s node until SIGINT, SIGTERM or an external shutdown; return exit code.

    Signals only request the stop (:class:`~.stop_signals.StopRequest`); the loop sees it within
    :data:`SPIN_TIMEOUT` and tears down on this thread, in order: the executor, the node, the
    context.  A node whose ``finished`` attribute turns true (shut down to *finalized*) ends the
    loop too, after :data:`FINISH_LINGER` more seconds of serving requests.  Exit codes: 0 a
    requested stop or a finished node, 1 the node could not start or a callback failed (logged
    as FATAL).

    :param factory: builds the node; called after ``rclpy.init``
    """
    stop = StopRequest.installed() or StopRequest().install()
    try:
        rclpy.init(args=args, signal_handler_options=SignalHandlerOptions.NO)
    except Exception as e:  # noqa: B902 - e.g. a malformed --ros-args rule (rcl logged it)
        print(f'error: cannot start: {e}', file=sys.stderr, flush=True)
        stop.finish()
        return 1
    node = executor = None
    code = 0
    try:
        node = factory(args)
        executor = SingleThreadedExecutor()
        executor.add_node(node)
        while not stop.requested and rclpy.ok() and not getattr(node, 'finished', False):
            executor.spin_once(timeout_sec=SPIN_TIMEOUT)
        # tearing down right after the reply once left ``ros2 lifecycle set`` waiting forever
        end = time.monotonic() + FINISH_LINGER
        while getattr(node, 'finished', False) and not stop.requested and rclpy.ok() and (
                time.monotonic() < end):
            executor.spin_once(timeout_sec=SPIN_TIMEOUT)
    except ExternalShutdownException:
        pass
    except StartupFailed:
        code = 1
    except Exception as e:  # noqa: B902 - report, then exit non-zero instead of a traceback
        if node is not None and not rclpy.ok():
            pass   # the context was shut down from outside while a callback was publishing
        elif node is not None:
            node.get_logger().fatal(f'{type(e).__name__}: {e}')
            code = 1
        else:
            print(f'error: {type(e).__name__}: {e}', file=sys.stderr, flush=True)
            code = 1
    finally:
        if executor is not None:
            executor.shutdown()
        if node is not None:
            node.destroy_node()
        rclpy.try_shutdown()
        stop.finish()
    return code
