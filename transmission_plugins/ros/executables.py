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
The nodes' executables (``ros2 run transmission_plugins <name>``, the launch files, the launcher).

Each installs the stop handler (:class:`~.stop_signals.StopRequest`) *before* importing rclpy,
numpy and the node, so that a Ctrl-C during the second of start-up is a clean stop (exit 0).
``NAME --help`` prints the node's topics and parameters and exits; ``TP_STOP_WITH_PARENT`` and
``kill -USR1 PID`` (the threads' stacks) are doc/launch.md's.
"""

import ctypes
import faulthandler
import functools
import importlib
import os
import re
import signal
import sys
import textwrap

from transmission_plugins.ros.stop_signals import StopRequest

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
    rule).  When the starter is already gone, SIGTERM is sent at once.  Return True when the
    rule is in place.
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


def wants_help(args: list[str]) -> bool:
    """Return True when ``-h`` or ``--help`` comes before any ``--ros-args``."""
    for word in args[1:]:
        if word == '--ros-args':
            return False
        if word in ('-h', '--help'):
            return True
    return False


#: the width of the ``--help`` text
HELP_WIDTH = 95


def _role(match: 're.Match[str]') -> str:
    """Return the text of a Sphinx role: its label, else its target (``~``: the last part)."""
    body = ' '.join(match.group(1).split()).replace('. ', '.')
    labelled = re.fullmatch(r'(.*?)\s*<.*>', body)
    if labelled:
        return labelled.group(1)
    short = body.startswith('~')
    body = body.lstrip('~').lstrip('.')
    return body.rpartition('.')[2] if short else body


def plain_text(text: str) -> str:
    """
    Return a docstring's reStructuredText as plain text for a terminal, paragraphs re-wrapped.

    Roles become their label or target name, inline literals and emphasis their text; each
    paragraph and ``*`` list item is filled to :data:`HELP_WIDTH` columns.
    """
    text = re.sub(r':[a-z:]+:`([^`]*)`', _role, text)
    text = re.sub(r'``([^`]*)``', r'\1', text)
    text = re.sub(r'\*\*([^*]+)\*\*', r'\1', text)
    text = re.sub(r'(?<![\w*])\*([^*\s][^*]*?)\*(?![\w*])', r'\1', text)
    text = re.sub(r'::$', ':', text, flags=re.M)
    out: list[str] = []
    for block in re.split(r'\n\s*\n', text.strip()):
        items = re.split(r'\n(?=\* )', block)
        for item in items:
            bullet = item.startswith('* ')
            words = ' '.join(item[2:].split() if bullet else item.split())
            out += textwrap.wrap(words, HELP_WIDTH, initial_indent='* ' if bullet else '',
                                 subsequent_indent='  ' if bullet else '',
                                 break_on_hyphens=False)
        out.append('')
    return '\n'.join(out).rstrip()


def node_help(name: str) -> str:
    """Return the ``--help`` text of executable ``name``: what it does, topics, parameters."""
    module = importlib.import_module(NODES[name])
    lines = [f'usage: ros2 run transmission_plugins {name} [--ros-args ...]', '']
    lines += plain_text(module.__doc__ or '').splitlines()
    lines += ['', 'parameters (ros2 run ... --ros-args -p NAME:=VALUE, or --params-file FILE):']
    for param, setting in module.PARAMETERS.items():
        facts = [f'default {setting.default!r}', setting.kind, setting.accepted(),
                 f'applied {setting.applies}']
        lines.append(f'  {param} ({"; ".join(f for f in facts if f)})')
        lines += textwrap.wrap(plain_text(setting.description), HELP_WIDTH,
                               initial_indent='      ', subsequent_indent='      ',
                               break_on_hyphens=False)
    lines += ['', 'doc/nodes.md has the whole contract (topics, watchdogs, lifecycle, QoS).']
    return '\n'.join(lines)


def run(name: str, args: list[str] | None = None) -> int:
    """Run the node executable ``name`` (a key of :data:`NODES`); return its exit code."""
    stop = StopRequest.installed() or StopRequest().install()
    argv = list(sys.argv if args is None else args)
    if wants_help(argv):
        print(node_help(name))
        return 0
    # ``kill -USR1 PID`` prints every thread's Python stack, even with the GIL held elsewhere
    faulthandler.register(signal.SIGUSR1, all_threads=True)
    stop_with_parent()
    module = importlib.import_module(NODES[name])
    if stop.requested:   # stopped while starting: nothing to shut down yet
        stop.finish()
        return 0
    return int(module.main(args))


#: the console scripts of setup.cfg
hardware_interface_node = functools.partial(run, 'hardware_interface_node')
mock_actuators_node = functools.partial(run, 'mock_actuators_node')
sim_interface_node = functools.partial(run, 'sim_interface_node')


def main(argv: list[str] | None = None) -> int:
    """``python -m transmission_plugins.ros.executables NAME [--ros-args ...]``."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] not in NODES:
        print(f'usage: python -m {__name__} {{{",".join(NODES)}}} [--ros-args ...]',
              file=sys.stderr)
        return 2
    return run(argv[0], [sys.argv[0]] + argv[1:])


if __name__ == '__main__':
    sys.exit(main())
