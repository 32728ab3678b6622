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

It behaves like the launcher (:mod:`.launcher`), with ``ros2 launch``'s tools (doc/launch.md):
the same arguments and plan, a node that exits ends the launch, the parameters file in memory,
SIGINT sent to ``ros2 launch`` alone passed on to the nodes at once.  It changes nothing in how
``ros2 launch`` itself handles signals: a launch file included in a user's own launch must not
change Ctrl-C for the whole system.
"""

import os
import signal
from typing import Any
from typing import Callable
from typing import Mapping

from launch import LaunchContext
from launch import LaunchDescription
from launch.action import Action
from launch.actions import DeclareLaunchArgument
from launch.actions import EmitEvent
from launch.actions import LogInfo
from launch.actions import OpaqueFunction
from launch.actions import RegisterEventHandler
from launch.event_handlers import OnProcessExit
from launch.event_handlers import OnShutdown
from launch.events import Shutdown
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node
from transmission_plugins.core.exceptions import TransmissionError
from transmission_plugins.ros.executables import STOP_WITH_PARENT
from transmission_plugins.tools.launch.node_plan import LAUNCH_ARGUMENTS
from transmission_plugins.tools.launch.node_plan import NodePlan
from transmission_plugins.tools.launch.node_plan import NodeSpec
from transmission_plugins.tools.launch.node_plan import plan_nodes
from transmission_plugins.tools.launch.params_file import ParamsFile


class NodeExited(TransmissionError, RuntimeError):
    """A node of the set exited while the launch was running: ``ros2 launch`` exits 1."""


def generate_launch_description() -> LaunchDescription:
    """Declare :data:`~.node_plan.LAUNCH_ARGUMENTS` and the node set (:func:`node_set`)."""
    return declared(LAUNCH_ARGUMENTS, node_set)


def declared(arguments: Mapping[str, tuple[str, str]],
             plan: Callable[..., list[Action]]) -> LaunchDescription:
    """
    Return a launch description of ``arguments`` and the actions ``plan`` makes of their values.

    :param arguments: ``{name: (default, description)}``
    :param plan: called as an ``OpaqueFunction`` once the arguments are evaluated
    """
    declarations: list[Action] = [
        DeclareLaunchArgument(name, default_value=default, description=text)
        for name, (default, text) in arguments.items()]
    return LaunchDescription(declarations + [OpaqueFunction(function=plan)])


def node_set(context: LaunchContext, *args: Any, **kwargs: Any) -> list[Action]:
    """
    Turn the evaluated launch arguments into the node actions and their event handlers.

    :raises LaunchConfigError: a bad argument or file (``ros2 launch`` prints it, exits 1)
    """
    values = {name: LaunchConfiguration(name).perform(context) for name in LAUNCH_ARGUMENTS}
    plan = plan_nodes(values)
    params = ParamsFile(plan.specs)   # open until ros2 launch exits
    actions: list[Action] = [LogInfo(msg=f'{name} not started: {reason}')
                             for name, reason in plan.skipped]
    nodes = [package_node(spec, plan, params.path) for spec in plan.specs]
    for spec, node in zip(plan.specs, nodes):
        actions += [node, ends_the_launch(node, spec.name)]
    actions.append(interrupt_on_shutdown(nodes))
    return actions


def package_node(spec: NodeSpec, plan: NodePlan, params_path: str) -> Node:
    """Return the action that starts ``spec`` with the plan's namespace and log level."""
    return Node(package=spec.package, executable=spec.executable, name=spec.name,
                namespace=plan.namespace or None, parameters=[params_path],
                remappings=list(spec.remappings),
                ros_arguments=['--log-level', plan.log_level], output='screen',
                additional_env={STOP_WITH_PARENT: str(os.getpid())})


def ends_the_launch(node: Node, name: str) -> Action:
    """Return the handler that ends the launch when ``node`` exits while it runs."""
    return RegisterEventHandler(OnProcessExit(
        target_action=node, on_exit=lambda event, ctx: _on_exit(name, event, ctx)))


def interrupt_on_shutdown(nodes: list[Node]) -> Action:
    """Return the handler that passes a SIGINT sent to ``ros2 launch`` alone on to ``nodes``."""
    return RegisterEventHandler(OnShutdown(
        on_shutdown=lambda event, ctx: _interrupt(nodes, event)))


def _on_exit(name: str, event: Any, context: LaunchContext) -> list[Action] | None:
    """
    End the launch when a node exits while it runs: cleanly on exit code 0, else with an error.

    A node exits 0 by itself when it is shut down (``ros2 lifecycle set ... shutdown``: the
    lifecycle node is then *finalized*); the node set only works whole, so the launch ends.
    """
    if context.is_shutdown:
        return None
    if event.returncode == 0:
        return [EmitEvent(event=Shutdown(reason=f'{name} was shut down (finalized)'))]
    raise NodeExited(f'{name} exited with code {event.returncode} while the launch was '
                     'running; stopping the other nodes (the node set only works whole)')


def _interrupt(nodes: list[Node], event: Any) -> list[Action] | None:
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


__all__ = ['NodeExited', 'ends_the_launch', 'generate_launch_description',
           'interrupt_on_shutdown', 'node_set', 'package_node']
