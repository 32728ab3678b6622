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

r"""
``transmission_hardware_launch``: the launch file's node set without ``ros2 launch``.

The same arguments (:data:`~.node_plan.LAUNCH_ARGUMENTS`, ``name:=value`` or ``--name value``)
and the same plan (:func:`~.node_plan.plan_nodes`) as ``transmission_hardware.launch.py``; the
nodes run as subprocesses (:class:`~.node_set.NodeSet`)::

    transmission_hardware_launch description_file:=robot.urdf.xacro namespace:=robot1 \
        xacro_args:='prefix:=left_' --ros-args -r joint_states:=/joint_states

Everything after ``--ros-args`` goes to every node.  The parameters file and the exit status
are doc/launch.md's ("Without ros2 launch").
"""

import argparse
import os
import signal
import sys
import threading
from typing import Any
from typing import Sequence

from transmission_plugins.ros.executables import STOP_WITH_PARENT
from transmission_plugins.tools.launch.node_plan import LAUNCH_ARGUMENTS
from transmission_plugins.tools.launch.node_plan import LaunchConfigError
from transmission_plugins.tools.launch.node_plan import NodePlan
from transmission_plugins.tools.launch.node_plan import NodeSpec
from transmission_plugins.tools.launch.node_plan import plan_nodes
from transmission_plugins.tools.launch.node_plan import robot_state_publisher_executable
from transmission_plugins.tools.launch.node_set import NodeSet
from transmission_plugins.tools.launch.params_file import ParamsFile

PROG = 'transmission_hardware_launch'
#: runs a node executable with its stop-signal handling in place from the first instant
EXECUTABLES_MODULE = 'transmission_plugins.ros.executables'


def command(spec: NodeSpec, params_file: str, ros_args: Sequence[str] = ()) -> list[str]:
    """Return the command line that starts ``spec`` with ``params_file`` and ``ros_args``."""
    if spec.module is not None:
        exe = [sys.executable, '-m', EXECUTABLES_MODULE, spec.executable]
    else:
        found = robot_state_publisher_executable()
        if found is None:
            raise LaunchConfigError(f'{spec.executable} is not installed')
        exe = [found]
    remaps = [arg for src, dst in spec.remappings for arg in ('-r', f'{src}:={dst}')]
    return exe + ['--ros-args', '-r', f'__node:={spec.name}', '--params-file', params_file,
                  *remaps, *ros_args]


def plan_ros_arguments(plan: NodePlan) -> list[str]:
    """Return the ROS arguments every node of ``plan`` gets (namespace, log level)."""
    args = ['--log-level', plan.log_level]
    if plan.namespace:
        ns = plan.namespace if plan.namespace.startswith('/') else '/' + plan.namespace
        args += ['-r', f'__ns:={ns}']
    return args


def split_arguments(argv: Sequence[str]) -> tuple[list[str], list[str]]:
    """Split ``argv`` at ``--ros-args``: (launcher arguments, ROS arguments)."""
    argv = list(argv)
    if '--ros-args' in argv:
        i = argv.index('--ros-args')
        return argv[:i], argv[i + 1:]
    return argv, []


def parse_arguments(argv: Sequence[str]) -> tuple[dict[str, str], list[str]]:
    """Parse ``name:=value`` launch arguments (or ``--name value``) and the ROS arguments."""
    own, ros_args = split_arguments(argv)
    parser = argparse.ArgumentParser(
        prog=PROG,
        description='Start the transmission hardware interface node set without ros2 launch. '
                    'Arguments as in ros2 launch (name:=value); everything after --ros-args '
                    'goes to every node.')
    plain = []
    values: dict[str, str] = {}
    for a in own:
        if ':=' in a and not a.startswith('-'):
            k, v = a.split(':=', 1)
            if k not in LAUNCH_ARGUMENTS:
                parser.error(f'unknown launch argument {k!r}; known: '
                             f'{", ".join(LAUNCH_ARGUMENTS)}')
            values[k] = v
        else:
            plain.append(a)
    for name, (default, text) in LAUNCH_ARGUMENTS.items():
        parser.add_argument('--' + name.replace('_', '-'), dest=name, default=None,
                            help=f'{text} (default: {default!r})')
    ns = parser.parse_args(plain)
    for name, (default, _) in LAUNCH_ARGUMENTS.items():
        if getattr(ns, name) is not None:
            values[name] = getattr(ns, name)
        values.setdefault(name, default)
    return values, ros_args


def node_commands(plan: NodePlan, params_file: str,
                  ros_args: Sequence[str] = ()) -> list[tuple[str, list[str]]]:
    """Return the (name, argv) list that starts the nodes of ``plan`` with ``params_file``."""
    args = plan_ros_arguments(plan) + list(ros_args)
    return [(s.name, command(s, params_file, args)) for s in plan.specs]


def _leave(signum: int, frame: Any) -> None:
    """Before the nodes run, Ctrl-C or SIGTERM just ends the launcher (no traceback)."""
    raise SystemExit(128 + signum)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the node set until Ctrl-C; exit non-zero when a node dies or the arguments are bad."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if threading.current_thread() is threading.main_thread():
        for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(s, _leave)
    values, ros_args = parse_arguments(argv)
    try:
        plan = plan_nodes(values)
    except LaunchConfigError as e:
        print(f'{PROG}: error: {e}', file=sys.stderr)
        return 2
    for name, reason in plan.skipped:
        print(f'[launcher] {name} not started: {reason}', flush=True)
    with ParamsFile(plan.specs) as params:
        commands = node_commands(plan, params.path, ros_args)
        nodes = NodeSet(commands, env=dict(os.environ, **{STOP_WITH_PARENT: str(os.getpid())}))
        for name, argv_ in commands:
            print(f'[launcher] starting {name}: {" ".join(argv_[:4])} ...', flush=True)
        nodes.start()
        # once stopped, late signals are ignored until the launcher has exited
        return nodes.wait(after=signal.SIG_IGN)


__all__ = ['command', 'main', 'node_commands', 'parse_arguments', 'plan_ros_arguments',
           'split_arguments']

if __name__ == '__main__':
    sys.exit(main())
