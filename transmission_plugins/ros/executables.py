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
The nodes' executables (``ros2 run transmission_plugins <name>``, the launch file, the launcher).

Each installs the stop-signal handler (:class:`~.stop_signals.StopSignals`) *before* importing
rclpy, numpy and the node, so that a Ctrl-C during the second of start-up is a clean stop (exit
0) instead of a ``KeyboardInterrupt`` traceback.  ``python -m transmission_plugins.ros.executables
NAME [--ros-args ...]`` does the same for a name of :data:`NODES`.

When the environment variable ``TP_STOP_WITH_PARENT`` holds the pid of the process that started
the node (the launch file and the launcher set it), the node also stops, as on SIGTERM, when
that process dies: ``ros2 launch`` ends at once on SIGTERM (``docker stop``) or SIGKILL without
stopping its nodes, and they would otherwise run on, orphaned (Linux ``PR_SET_PDEATHSIG``).

``kill -USR1 PID`` makes a running node print the Python stack of each of its threads on stderr
(:func:`faulthandler.register`), to see where a node that seems stuck is.
"""

import atexit
import ctypes
import faulthandler
import gc
import importlib
import os
import signal
import sys
from typing import List
from typing import NoReturn
from typing import Optional

from transmission_plugins.ros.stop_signals import EXIT_DEADLINE
from transmission_plugins.ros.stop_signals import exit_later
from transmission_plugins.ros.stop_signals import StopSignals

#: executable name -> module whose ``main(args)`` runs the node
NODES = {
    'hardware_interface_node': 'transmission_plugins.ros.hardware_interface_node',
    'mock_actuators_node': 'transmission_plugins.ros.mock_actuators_node',
    'sim_interface_node': 'transmission_plugins.ros.sim_interface_node',
}


#: environment variable: the pid of the process whose death stops the node
STOP_WITH_PARENT = 'TP_STOP_WITH_PARENT'
_PR_SET_PDEATHSIG = 1


def stop_with_parent() -> bool:
    """
    Ask the kernel for SIGTERM when the starter named by ``TP_STOP_WITH_PARENT`` dies.

    The variable is removed from the environment (the node's own children do not inherit the
    rule).  When the starter is already gone, SIGTERM is sent at once.

    :returns: True when the rule is in place
    """
    parent = os.environ.pop(STOP_WITH_PARENT, '')
    if not parent or not sys.platform.startswith('linux'):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0) != 0:
            return False
    except (OSError, AttributeError):
        return False
    if str(os.getppid()) != parent.strip():   # it died before the rule was in place
        os.kill(os.getpid(), signal.SIGTERM)
    return True


def run(name: str, args: Optional[List[str]] = None) -> int:
    """Run the node executable ``name`` (a key of :data:`NODES`); return its exit code."""
    stop = StopSignals.current() or StopSignals().install()
    stop.watch()   # a stop that hangs ends the process within TP_STOP_GRACE seconds
    # ``kill -USR1 PID`` prints every thread's Python stack, even with the GIL held elsewhere
    faulthandler.register(signal.SIGUSR1, all_threads=True)
    stop_with_parent()
    module = importlib.import_module(NODES[name])
    if stop.requested:   # stopped while starting: nothing to shut down yet
        stop.finish()
        return 0
    return int(module.main(args))


def exit_process(code: int) -> NoReturn:
    """
    End the node's process with ``code`` once the node has stopped, without Python's finalization.

    The node, its executor and its context are already torn down; what remains is freeing
    objects.  The ones that hold ROS resources are collected here: the last node's DDS
    participant is deleted, so that the other participants see it leave at once instead of
    when its lease expires.  Then the ``atexit`` handlers run, the standard streams (Python's
    and C's) are flushed, and the process ends.  Python's finalization, which frees every module
    one by one, is skipped: on a loaded machine it took several seconds, past the stop watchdog
    and the SIGKILL of ``ros2 launch``.

    The participant's deletion itself has been seen to hang (about one stop in a hundred with
    several nodes on a loaded machine: Fast DDS joining one of its threads, with the GIL held, so
    no Python code can step in).  A native timer (:func:`~.stop_signals.exit_later`) therefore
    ends the process with ``code`` anyway :data:`~.stop_signals.EXIT_DEADLINE` seconds later
    (this module's ``EXIT_DEADLINE``, which tests may lower): the node itself had
    stopped cleanly.
    """
    _flush()
    exit_later(EXIT_DEADLINE, code)
    gc.unfreeze()   # run_node froze the start-up objects, the node's among them
    gc.collect()
    atexit._run_exitfuncs()
    _flush()
    os._exit(code)


def _flush() -> None:
    """Flush Python's standard streams and C's stdio buffers (rcutils logs through them)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    try:
        ctypes.CDLL(None).fflush(None)
    except (OSError, AttributeError):
        pass


def hardware_interface_node() -> NoReturn:
    """Console script ``hardware_interface_node``."""
    exit_process(run('hardware_interface_node'))


def mock_actuators_node() -> NoReturn:
    """Console script ``mock_actuators_node``."""
    exit_process(run('mock_actuators_node'))


def sim_interface_node() -> NoReturn:
    """Console script ``sim_interface_node``."""
    exit_process(run('sim_interface_node'))


def main(argv: Optional[List[str]] = None) -> int:
    """``python -m transmission_plugins.ros.executables NAME [--ros-args ...]``."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] not in NODES:
        print(f'usage: python -m {__name__} {{{",".join(NODES)}}} [--ros-args ...]',
              file=sys.stderr)
        return 2
    return run(argv[0], [sys.argv[0]] + argv[1:])


if __name__ == '__main__':
    exit_process(main())
