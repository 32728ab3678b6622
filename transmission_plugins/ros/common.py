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

``EventsExecutor.spin()`` hangs with the PyPI wheels, so :func:`run_node` spins with
``spin_once(timeout_sec)`` in a loop, which works with every executor.  How signals stop that
loop cleanly is explained in :mod:`.stop_signals`.
"""

from array import array
import inspect
import os
import sys
from typing import Any
from typing import Callable
from typing import Dict
from typing import Iterable
from typing import List
from typing import Optional
from typing import Tuple

from diagnostic_msgs.msg import DiagnosticStatus
from diagnostic_msgs.msg import KeyValue

import numpy as np
from rcl_interfaces.msg import ParameterDescriptor
from rcl_interfaces.msg import ParameterType
import rclpy
from rclpy.exceptions import ParameterUninitializedException
from rclpy.executors import ExternalShutdownException
from rclpy.executors import SingleThreadedExecutor
from rclpy.parameter import Parameter
from rclpy.qos import DurabilityPolicy
from rclpy.qos import HistoryPolicy
from rclpy.qos import QoSProfile
from rclpy.qos import ReliabilityPolicy
from rclpy.signals import SignalHandlerOptions
from std_msgs.msg import String

from transmission_plugins.core.exceptions import TransmissionError
from transmission_plugins.ros.stop_signals import StopSignals

#: The ``robot_description`` parameter of both nodes: (default, description).
ROBOT_DESCRIPTION_PARAMETER = ('', 'URDF (XML text); when empty, listen on the '
                                   'robot_description topic (transient local)')

_TYPES = {
    bool: ParameterType.PARAMETER_BOOL,
    int: ParameterType.PARAMETER_INTEGER,
    float: ParameterType.PARAMETER_DOUBLE,
    str: ParameterType.PARAMETER_STRING,
    list: ParameterType.PARAMETER_STRING_ARRAY,
}


def declare_parameters(node: Any, parameters: Dict[str, Tuple[Any, str]]) -> None:
    """Declare ``parameters`` (name -> (default, description)) with descriptors."""
    for name, (default, text) in parameters.items():
        kind = type(default)
        # doubles accept integers too (``-p update_rate:=1000``): dynamic typing, cast on read
        descriptor = ParameterDescriptor(description=text, type=_TYPES[kind],
                                         dynamic_typing=kind is float)
        if kind is float:
            descriptor.type = ParameterType.PARAMETER_NOT_SET
        if kind is list and not default:
            # an empty list would be typed BYTE_ARRAY: declare the type, read None as []
            node.declare_parameter(name, Parameter.Type.STRING_ARRAY, descriptor)
        else:
            node.declare_parameter(name, default, descriptor)


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
                      values: Iterable[Tuple[str, str]]) -> DiagnosticStatus:
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


def to_msg_array(x: Optional[np.ndarray]) -> Any:
    """Return ``x`` as ``array('d')``, the fast path of rosidl float64 sequences."""
    if x is None:
        return array('d')
    return array('d', np.ascontiguousarray(x, dtype=np.float64).tobytes())


def timer_callback(function: Callable[[], None]) -> Callable[[], None]:
    """
    Wrap ``function`` for ``create_timer`` so rclpy does not re-inspect it on every tick.

    rclpy's executors call ``inspect.signature`` on a timer callback at every tick (to pass
    ``TimerInfo`` to callbacks that ask for it); for a bound method that costs tens of
    microseconds, a lot at 1 kHz.  A function with a precomputed ``__signature__`` is answered
    at once.
    """
    def callback() -> None:
        function()

    callback.__signature__ = inspect.Signature()  # type: ignore[attr-defined]
    return callback


def make_executor() -> Any:
    """
    Return the executor the nodes spin with.

    rclpy's EventsExecutor by default: at 1 kHz it needs a third of the CPU of the
    SingleThreadedExecutor and keeps the rate (its ``spin()`` hangs with the PyPI wheels, so it is
    only ever spun with ``spin_once``).  ``TP_EXECUTOR=single`` selects the
    SingleThreadedExecutor.
    """
    if os.environ.get('TP_EXECUTOR', 'events').lower() != 'single':
        try:
            from rclpy.experimental import EventsExecutor
        except ImportError:  # rclpy older than Jazzy
            return SingleThreadedExecutor()
        return EventsExecutor()
    return SingleThreadedExecutor()


def run_node(factory: Callable[[Optional[List[str]]], Any],
             args: Optional[List[str]] = None) -> int:
    """
    Run ``factory(args)``'s node until SIGINT, SIGTERM or an external shutdown; return exit code.

    Signals only request the stop (:class:`~.stop_signals.StopSignals`, installed here unless
    the executable installed one first); rclpy's own signal handlers are not installed.  The
    loop then leaves ``spin_once`` within 0.1 s and tears down on this thread, in order: the
    node (its timers stop), the executor, the context.  No callback runs once the context is
    shut down, so none can fail on it.  Exit codes: 0 a requested stop, 1 the node could not
    start or a callback failed (logged as FATAL).

    :param factory: builds the node; called after ``rclpy.init``
    :param args: command line (``--ros-args`` included); default ``sys.argv``
    """
    stop = StopSignals.current()
    if stop is None or stop.requested:   # a request left from an earlier run does not count
        stop = StopSignals().install()
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
        executor = make_executor()
        executor.add_node(node)
        while not stop.requested and rclpy.ok():
            executor.spin_once(timeout_sec=0.1)
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
        stop.finish()   # after a stop request: later signals are ignored until the exit
    return code
