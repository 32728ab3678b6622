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

Parameter declaration and validation live in :mod:`~.node_parameters` (re-exported here).

``EventsExecutor.spin()`` hangs with the PyPI wheels, so :func:`run_node` spins with
``spin_once(timeout_sec)`` in a loop, which works with every executor; that loop also runs the
steady-clock timers of :class:`LoopTimers`.  How signals stop the loop cleanly is explained in
:mod:`.stop_signals`.
"""

from array import array
import functools
import gc
import inspect
import math
import os
import sys
import time
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
import rclpy
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
from rclpy.subscription import Subscription
from std_msgs.msg import String

from transmission_plugins.core.exceptions import TransmissionError
from transmission_plugins.ros import stop_signals
from transmission_plugins.ros.node_parameters import declare_parameters  # noqa: F401
from transmission_plugins.ros.node_parameters import MAX_QOS_DEPTH  # noqa: F401
from transmission_plugins.ros.node_parameters import validate_parameters  # noqa: F401
from transmission_plugins.ros.stop_signals import cancel_exit
from transmission_plugins.ros.stop_signals import exit_later
from transmission_plugins.ros.stop_signals import StopSignals

#: The ``robot_description`` parameter of both nodes: (default, description).
ROBOT_DESCRIPTION_PARAMETER = ('', 'URDF (XML text); when empty, listen on the '
                                   'robot_description topic (transient local)')


def qos_overridable(depth: int, reliable: bool = True) -> Dict[str, Any]:
    """
    Return the QoS keyword arguments of a topic whose QoS users may override.

    robot_state_publisher's style: read-only ``qos_overrides.<topic>.<publisher|subscription>.
    <history|depth|reliability>`` parameters, set at start-up (a parameters file or ``-p``).
    """
    profile = reliable_qos(depth) if reliable else state_qos(depth)
    return {'qos_profile': profile,
            'qos_overriding_options': QoSOverridingOptions.with_default_policies()}


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

    rclpy passes ``MessageInfo`` to callbacks that take two arguments; the EventsExecutor of
    rclpy 9 (Kilted) hands the ``(msg, info)`` pair as one argument instead, so the wrapper
    accepts both forms (and a message alone, arrival = now).
    """
    def on_message(msg: Any, info: Any = None) -> None:
        if info is None and isinstance(msg, tuple) and len(msg) == 2:
            msg, info = msg
        callback(msg, steady_arrival(info))

    sub = node.create_subscription(msg_type, topic, on_message, **qos)
    callback_type = getattr(Subscription, 'CallbackType', None)
    if callback_type is not None and hasattr(sub, '_callback_type'):
        # the signature also binds one argument, which rclpy reads as "message only"
        sub._callback_type = callback_type.WithMessageInfo
    return sub


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


class LoopTimer:
    """A periodic callback of :class:`LoopTimers` (``cancel()`` stops it)."""

    def __init__(self, owner: 'LoopTimers', period: float, callback: Callable[[], None],
                 start: float) -> None:
        self.owner = owner
        self.period = float(period)
        self.callback = callback
        #: steady time of the next tick
        self.next = start + self.period

    @property
    def timer_period_ns(self) -> int:
        """Return the period in nanoseconds (as ``rclpy.timer.Timer`` does)."""
        return int(round(self.period * 1e9))

    def cancel(self) -> None:
        """Stop ticking."""
        self.owner.remove(self)


class LoopTimers:
    """
    Steady-clock periodic callbacks run by :func:`run_node`'s spin loop between two events.

    With the EventsExecutor, an rclpy timer tick costs a helper thread's wake-up and three
    trips through the executor's event queue: about 40 to 60 us of CPU per tick on the
    development machine, a large part of a 1 kHz cycle.  Here a tick is the spin loop's timed
    wait running out (``spin_once(timeout_sec=time to the next tick)``), then a plain call.  A
    tick that is late by more than a period is not repeated: the next one keeps the phase.
    Only for steady-clock periods (under simulated time the node clock's rclpy timers apply),
    and only while :func:`run_node` spins (:func:`loop_timers` says whether it does).

    :param clock: steady clock in seconds
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.timers: List[LoopTimer] = []

    def add(self, period: float, callback: Callable[[], None]) -> LoopTimer:
        """Call ``callback()`` every ``period`` seconds from now on; return the timer."""
        timer = LoopTimer(self, period, callback, self.clock())
        self.timers.append(timer)
        return timer

    def remove(self, timer: LoopTimer) -> None:
        """Stop ``timer`` (no error when it was stopped already)."""
        if timer in self.timers:
            self.timers.remove(timer)

    def wait(self, limit: float) -> float:
        """Return the seconds until the next tick is due, at most ``limit`` (0: due now)."""
        if not self.timers:
            return limit
        due = min(t.next for t in self.timers) - self.clock()
        return min(limit, max(0.0, due))

    def run_due(self) -> None:
        """Run every timer whose tick is due, once each."""
        for timer in list(self.timers):
            now = self.clock()
            if now >= timer.next and timer in self.timers:
                late = now - timer.next
                timer.next += timer.period * (1 + math.floor(late / timer.period))
                timer.callback()


#: The timers of the running :func:`run_node` loop (None while no such loop runs).
_LOOP_TIMERS: Optional[LoopTimers] = None


def loop_timers() -> Optional[LoopTimers]:
    """Return the :class:`LoopTimers` of the :func:`run_node` loop of this process, if any."""
    return _LOOP_TIMERS


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
    start or a callback failed (logged as FATAL).  In a node's own process (the stop watcher
    armed), a teardown that hangs in native code ends the process with that code
    :data:`~.stop_signals.EXIT_DEADLINE` seconds after it began.

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
    global _LOOP_TIMERS
    timers = _LOOP_TIMERS = LoopTimers()
    try:
        node = factory(args)
        executor = make_executor()
        executor.add_node(node)
        # what exists now (modules, rclpy, the node and its maps) lives for the whole run: out of
        # the collector's scans, a full collection takes microseconds instead of ~9 ms (PR2
        # node), a pause that held up every message arriving meanwhile (tail latency)
        gc.freeze()
        while not stop.requested and rclpy.ok():
            executor.spin_once(timeout_sec=timers.wait(0.1))
            timers.run_due()
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
        _LOOP_TIMERS = None
        # a teardown hanging in DDS with the GIL held (seen in destroy_node under load): the
        # node's process ends with its code anyway, as exit_process does, before any escalation
        deadline = exit_later(stop_signals.EXIT_DEADLINE, code) if stop.watching else None
        if executor is not None:
            executor.shutdown()
        if node is not None:
            node.destroy_node()
        rclpy.try_shutdown()
        cancel_exit(deadline)
        stop.finish()   # after a stop request: later signals are ignored until the exit
    return code
