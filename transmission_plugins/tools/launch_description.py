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
The launch description of ``launch/transmission_hardware.launch.py`` (``launch``, ``launch_ros``).

It behaves like the launcher (:mod:`.launcher`), with ``ros2 launch``'s tools:

* the arguments are :data:`~.node_plan.LAUNCH_ARGUMENTS` and the nodes those of
  :func:`~.node_plan.plan_nodes`; a skipped node is logged with the reason;
* a node that exits while the launch runs ends the launch with an error: ``ros2 launch`` stops
  the other nodes and exits 1 (a node set only works whole);
* the parameters file is an in-memory file of the ``ros2 launch`` process
  (:class:`~.params_file.ParamsFile`): nothing holding the URDF is left on disk, however the
  launch ends;
* SIGINT sent to ``ros2 launch`` alone (not from a terminal, which signals the nodes too) is
  passed on to the nodes at once: ``ros2 launch`` would otherwise assume the terminal did it,
  wait five seconds and escalate to SIGTERM;
* the nodes stop by themselves when ``ros2 launch`` dies without stopping them (SIGTERM,
  SIGKILL): ``TP_STOP_WITH_PARENT``, see :mod:`transmission_plugins.ros.executables`;
* once a node has started, SIGINT no longer raises ``KeyboardInterrupt`` in ``ros2 launch``
  (:func:`guard_sigint`): a second Ctrl-C can then no longer make ``ros2 launch`` lose track of
  a node that has just ended, escalate against it and never exit.
"""

import os
import signal
import threading
from typing import Any
from typing import List
from typing import Optional

from launch import LaunchContext
from launch import LaunchDescription
from launch.action import Action
from launch.actions import DeclareLaunchArgument
from launch.actions import LogInfo
from launch.actions import OpaqueFunction
from launch.actions import RegisterEventHandler
from launch.event_handlers import OnProcessExit
from launch.event_handlers import OnProcessStart
from launch.event_handlers import OnShutdown
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node
from transmission_plugins.core.exceptions import TransmissionError
from transmission_plugins.tools.launcher import STOP_WITH_PARENT
from transmission_plugins.tools.node_plan import LAUNCH_ARGUMENTS
from transmission_plugins.tools.node_plan import plan_nodes
from transmission_plugins.tools.params_file import ParamsFile


class NodeExited(TransmissionError, RuntimeError):
    """A node of the set exited while the launch was running: ``ros2 launch`` exits 1."""


#: launches whose nodes have started, while :func:`guard_sigint`'s handler is installed
_guarded: List[LaunchContext] = []


def guard_sigint(context: LaunchContext) -> bool:
    """
    Keep SIGINT from raising ``KeyboardInterrupt`` in ``ros2 launch`` while ``context`` runs.

    ``launch`` (3.7) hears SIGINT through :func:`signal.set_wakeup_fd` and leaves Python's
    default handler in place, so every SIGINT also raises ``KeyboardInterrupt`` in its main
    thread, in whatever callback or task step is running; ``LaunchService.run`` catches it and
    goes on.  A second Ctrl-C while ``launch`` handles a node's exit kills the task that waits
    for the node between its line ``process has finished cleanly`` and its clean-up: the
    node's SIGTERM and SIGKILL timers then fire 5 and 15 s later against a process that has
    gone, and ``ros2 launch`` never exits.

    The handler installed here does nothing while a guarded launch runs (its event loop is
    set; the wakeup file descriptor still tells it of every SIGINT).  Once none runs, it puts
    Python's default handler back and raises ``KeyboardInterrupt`` as that would: whatever runs
    after the launch in the same process (a ``launch_testing`` test, say) sees no difference.
    Only Python's default handler is replaced, and only from the main thread.

    :returns: whether SIGINT is now guarded for ``context``
    """
    if threading.current_thread() is not threading.main_thread():
        return False
    current = signal.getsignal(signal.SIGINT)
    if current is not _guarded_sigint:
        if current is not signal.default_int_handler:
            return False   # a handler someone chose: leave it
        signal.signal(signal.SIGINT, _guarded_sigint)
    _prune()   # launches that have ended are not kept
    if context not in _guarded:
        _guarded.append(context)
    return True


def _prune() -> None:
    """Forget the guarded launches whose event loop has ended (``asyncio_loop`` unset)."""
    _guarded[:] = [c for c in _guarded if c.asyncio_loop is not None]


def _guarded_sigint(signum: int, frame: Any) -> None:
    """
    Ignore SIGINT while a guarded launch runs; afterwards, restore and act as the default.

    Also ignored while Python waits for its threads at exit (``threading._shutdown``), where
    ``KeyboardInterrupt`` would only print ``Exception ignored in: <module 'threading'>``.
    """
    _prune()
    if _guarded or _exiting(frame):
        return   # launch hears it through its wakeup file descriptor, or the process ends
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.default_int_handler(signum, frame)


def _exiting(frame: Any) -> bool:
    """Return whether ``frame`` runs in ``threading._shutdown`` (the interpreter's exit)."""
    shutdown = getattr(getattr(threading, '_shutdown', None), '__code__', None)
    while frame is not None:
        if frame.f_code is shutdown:
            return True
        frame = frame.f_back
    return False


def generate_launch_description() -> LaunchDescription:
    """
    Declare the arguments and the node set.

    :returns: arguments :data:`~.node_plan.LAUNCH_ARGUMENTS`, then an ``OpaqueFunction`` that
        plans the nodes from their values (:func:`node_set`)
    """
    arguments: List[Action] = [
        DeclareLaunchArgument(name, default_value=default, description=text)
        for name, (default, text) in LAUNCH_ARGUMENTS.items()]
    return LaunchDescription(arguments + [OpaqueFunction(function=node_set)])


def node_set(context: LaunchContext, *args: Any, **kwargs: Any) -> List[Action]:
    """
    Turn the evaluated launch arguments into the node actions and their event handlers.

    :raises LaunchConfigError: a bad argument or file (``ros2 launch`` prints it, exits 1)
    """
    values = {name: LaunchConfiguration(name).perform(context) for name in LAUNCH_ARGUMENTS}
    plan = plan_nodes(values)
    params = ParamsFile(plan.specs)   # open until ros2 launch exits
    actions: List[Action] = [LogInfo(msg=f'{name} not started: {reason}')
                             for name, reason in plan.skipped]
    nodes = []
    for spec in plan.specs:
        node = Node(package=spec.package, executable=spec.executable, name=spec.name,
                    namespace=plan.namespace or None, parameters=[params.path],
                    ros_arguments=['--log-level', plan.log_level], output='screen',
                    additional_env={STOP_WITH_PARENT: str(os.getpid())})
        nodes.append(node)
        actions += [node, RegisterEventHandler(OnProcessStart(
            target_action=node, on_start=lambda event, ctx: _on_start(ctx))),
            RegisterEventHandler(OnProcessExit(
                target_action=node,
                on_exit=lambda event, ctx, n=spec.name: _on_exit(n, event, ctx)))]
    actions.append(RegisterEventHandler(OnShutdown(
        on_shutdown=lambda event, ctx: _interrupt(nodes, event))))
    return actions


def _on_start(context: LaunchContext) -> None:
    """Guard SIGINT for the rest of the launch, now that a node has started."""
    guard_sigint(context)


def _on_exit(name: str, event: Any, context: LaunchContext) -> None:
    """Accept a node's exit while the launch shuts down; otherwise end the launch with it."""
    if context.is_shutdown:
        return None
    raise NodeExited(f'{name} exited with code {event.returncode} while the launch was '
                     'running; stopping the other nodes (the node set only works whole)')


def _interrupt(nodes: List[Node], event: Any) -> Optional[List[Action]]:
    """
    On a shutdown due to SIGINT, send SIGINT to every running node now.

    ``ros2 launch`` assumes the terminal has signalled the nodes already; when only
    ``ros2 launch`` got the signal, that costs five seconds and an escalation to SIGTERM.  A
    second SIGINT is harmless to these nodes (see :mod:`transmission_plugins.ros.stop_signals`).
    """
    if not getattr(event, 'due_to_sigint', False):
        return None   # ros2 launch signals the nodes itself
    for node in nodes:
        details = node.process_details
        if details is None or node.return_code is not None:
            continue   # not started yet, or exited already
        try:
            os.kill(details['pid'], signal.SIGINT)
        except ProcessLookupError:
            pass
    return None


__all__ = ['NodeExited', 'generate_launch_description', 'guard_sigint', 'node_set']
