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
Every way a node set is stopped, with ``ros2 launch``, the package's launcher and ``ros2 run``.

Ctrl-C on a pseudo-terminal (the terminal signals the whole foreground process group: the tool
and, for ``ros2 launch`` and ``ros2 run``, its nodes), twice in quick succession, a signal to
the tool's process only, SIGTERM.  Each way runs ``TP_ROS_CLI_REPEATS`` times (default 1;
``scripts/stress_ros.sh`` repeats them on a loaded machine), ``TP_ROS_CLI_PARALLEL`` node sets
at once (default 5; 1 runs them one after the other), in namespaces of their own.  Every
time: the tool exits within 10 s with the expected code, no line shows an unclean stop (FATAL,
traceback, abort, a node that died or had to be escalated; for ``ros2 launch``, in its
``launch.log`` too, which must report every node 'finished cleanly'), and no process it started
is left.

Expected exit codes of the tools themselves: 0, except ``ros2 launch`` and ``ros2 run`` on
SIGTERM, which upstream leave to the default action (killed, -15); their nodes then stop by
themselves (SIGTERM from the terminal's process group, or the death of ``ros2 launch``), and
``ros2 launch`` and ``ros2 run`` on a second Ctrl-C that comes after their nodes have ended
(killed, -2; every node having stopped cleanly).
"""

import itertools
import os
import signal
import time
from typing import Callable
from typing import NamedTuple

import doc_commands as doc
import pytest
from ros_cli_support import BAD_LINES
from ros_cli_support import Command
from ros_cli_support import READY
from ros_cli_support import run
from tp_support import REPO

pytestmark = pytest.mark.ros

REPEATS = int(os.environ.get('TP_ROS_CLI_REPEATS', '1'))
#: node sets started at once (more repetitions run in batches; 1: one after the other)
PARALLEL = int(os.environ.get('TP_ROS_CLI_PARALLEL', '5'))
_names = itertools.count()


class Way(NamedTuple):
    """One way of stopping: what is done to the command, and the exit code it must give."""

    act: Callable[[Command], None]
    code: int
    #: another code the tool itself may give (upstream), when its output shows its node clean
    also: int | None = None


def _twice(cmd: Command) -> None:
    cmd.ctrl_c()
    time.sleep(0.05)
    cmd.ctrl_c()


WAYS = {
    'ctrl_c': Way(lambda c: c.ctrl_c(), 0),
    'ctrl_c_twice': Way(_twice, 0),
    'sigint_to_the_tool': Way(lambda c: c.signal(signal.SIGINT), 0),
    'sigterm_to_the_tool': Way(lambda c: c.signal(signal.SIGTERM), 0),
    'sigterm_to_the_group': Way(lambda c: c.signal(signal.SIGTERM, group=True), 0),
}

LAUNCH_WAYS = {name: WAYS[name] for name in ('ctrl_c', 'ctrl_c_twice', 'sigint_to_the_tool')}
# The nodes end within about 0.2 s of the first Ctrl-C, each 'finished cleanly'.  When the
# second comes after that, ``ros2 launch`` is past its own handling of Ctrl-C and upstream dies
# of it (-2), as ``ros2 run`` does (below); the nodes' clean ends are still checked.
LAUNCH_WAYS['ctrl_c_twice'] = Way(_twice, 0, also=-signal.SIGINT)
LAUNCH_WAYS['sigterm_to_the_tool'] = Way(WAYS['sigterm_to_the_tool'].act, -signal.SIGTERM)
LAUNCH_WAYS['sigterm_to_the_group'] = Way(WAYS['sigterm_to_the_group'].act, -signal.SIGTERM)
LAUNCHER_WAYS = {name: WAYS[name] for name in ('ctrl_c', 'ctrl_c_twice', 'sigint_to_the_tool',
                                               'sigterm_to_the_tool')}
RUN_WAYS = {name: WAYS[name] for name in ('ctrl_c',)}
# The node ends within about 0.2 s of the first Ctrl-C.  When the second comes after that,
# ``ros2 run`` itself is past its wait for the node (which it reports when not 0, with a line
# '[ros2run]: ...') and upstream does not catch it there: it dies of it (-2).
RUN_WAYS['ctrl_c_twice'] = Way(_twice, 0, also=-signal.SIGINT)
RUN_WAYS['sigterm_to_the_group'] = Way(WAYS['sigterm_to_the_group'].act, -signal.SIGTERM)


def _sigterm_to_the_node(cmd: Command) -> None:
    """SIGTERM to the node only: the process ``ros2 run`` started."""
    import psutil
    node, = [p for p in psutil.Process(cmd.proc.pid).children()
             if 'lib/transmission_plugins/' in ' '.join(p.cmdline())]
    node.send_signal(signal.SIGTERM)


RUN_WAYS['sigterm_to_the_node'] = Way(_sigterm_to_the_node, 0)


def _stop_all(user, lines, way: Way, ready=READY, nodes: int | None = None):
    """Start ``lines`` at once, stop them ``way``, check each; return the outputs."""
    cmds = [Command(line, user.env, str(user.path)) for line in lines]
    try:
        for cmd in cmds:
            cmd.wait_for(ready, 120)
        for cmd in cmds:
            cmd.family()
        for cmd in cmds:
            way.act(cmd)
        for cmd in cmds:
            code = cmd.wait(10)
            upstream = way.also is not None and code == way.also and '[ros2run]' not in cmd.output
            assert code == way.code or upstream, f'{cmd.line!r}: exit code {code}:\n{cmd.output}'
            assert cmd.bad_lines() == [], cmd.output
            assert cmd.wait_gone(10) == [], cmd.output
            if nodes is not None and way.code == 0:   # ros2 launch reports every node (also -2)
                log = cmd.launch_log()
                assert log.count('process has finished cleanly') == nodes, log
                assert not BAD_LINES.search(log), log
    finally:
        for cmd in cmds:
            cmd.kill()
    return [cmd.output for cmd in cmds]


def _batches():
    done = 0
    while done < REPEATS:
        n = min(PARALLEL, REPEATS - done)
        yield [f'tp_stop_{os.getpid()}_{next(_names)}' for _ in range(n)]
        done += n


@pytest.mark.parametrize('way', list(LAUNCH_WAYS))
def test_ros2_launch(user, way):
    for names in _batches():
        _stop_all(user, [f'{doc.LAUNCH} namespace:={n}' for n in names], LAUNCH_WAYS[way],
                  nodes=2)


@pytest.mark.parametrize('way', list(LAUNCHER_WAYS))
def test_the_launcher(user, way):
    for names in _batches():
        outputs = _stop_all(user, [f'transmission_hardware_launch namespace:={n}'
                                   for n in names], LAUNCHER_WAYS[way])
        for out in outputs:
            assert 'stopped with exit code' not in out


@pytest.fixture
def params_file(user):
    """Write the parameters file of ``ros2 run`` (the bundled robot) as doc/launch.md does."""
    from test_run_cli import WRITE_PARAMS_FILE
    import shutil
    shutil.copy(REPO / 'urdf' / 'example_robot.urdf.xacro', user.path / 'robot.urdf.xacro')
    run(WRITE_PARAMS_FILE, user.env, str(user.path))


@pytest.mark.parametrize('executable, ready', [('hardware_interface_node', (']: active',)),
                                               ('mock_actuators_node', ('simulating',)),
                                               ('sim_interface_node', (']: active',))])
@pytest.mark.parametrize('way', list(RUN_WAYS))
def test_ros2_run(user, params_file, way, executable, ready):
    line = (f'ros2 run transmission_plugins {executable} --ros-args '
            '--params-file robot_description.yaml')
    for names in _batches():
        _stop_all(user, [f'{line} -r __ns:=/{n}' for n in names], RUN_WAYS[way], ready=ready)
