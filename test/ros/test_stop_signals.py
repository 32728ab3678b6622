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
How node processes stop: SIGINT and SIGTERM, once or repeatedly, at any moment.

A node process publishing at 1 kHz (a publish is always close when a signal lands) is signalled
in each way a terminal, ``ros2 launch`` or a supervisor does; it must exit 0 without a FATAL
line, a traceback or an abort.  The real tools (``ros2 launch``, pseudo-terminal Ctrl-C) are
in ``test/ros_cli``.
"""

import os
import re
import signal
import subprocess
import sys
import textwrap
import time

import pytest
from transmission_plugins.ros.stop_signals import StopRequest

pytestmark = pytest.mark.ros

#: a node as the executables start one: the handler first, then rclpy and the node
NODE = textwrap.dedent("""\
    import sys
    from transmission_plugins.ros.stop_signals import StopRequest
    StopRequest().install()
    from std_msgs.msg import String
    from rclpy.node import Node
    from transmission_plugins.ros.common import run_node

    def factory(args):
        node = Node('stop_signals_test')
        pub = node.create_publisher(String, 'stop_signals_chatter', 10)
        msg = String(data='x' * 1000)
        node.create_timer(0.001, lambda: pub.publish(msg))
        node.create_timer(0.2, lambda: print('spinning', flush=True))
        return node

    sys.exit(run_node(factory, sys.argv[:1]))
    """)

#: signals (number, seconds to wait before sending it) for each way of stopping
WAYS = {
    'ctrl_c': [(signal.SIGINT, 0.0)],
    'ctrl_c_plus_forwarded': [(signal.SIGINT, 0.0), (signal.SIGINT, 0.002)],
    'ctrl_c_twice': [(signal.SIGINT, 0.0), (signal.SIGINT, 0.1)],
    'sigterm': [(signal.SIGTERM, 0.0)],
    'sigterm_then_sigint': [(signal.SIGTERM, 0.0), (signal.SIGINT, 0.05)],
    'five_signals': [(signal.SIGINT, 0.0)] + [(signal.SIGTERM, 0.03)] * 4,
}


@pytest.fixture
def env():
    """Use a domain range of this module's own, 80-89 (see grep ROS_DOMAIN_ID test/)."""
    return dict(os.environ, ROS_DOMAIN_ID=str(os.getpid() % 10 + 80),
                ROS_AUTOMATIC_DISCOVERY_RANGE='LOCALHOST', PYTHONUNBUFFERED='1')


def _clean(output):
    bad = ('Traceback', 'FATAL', 'KeyboardInterrupt', 'terminate called', 'Error')
    return [line for line in output.splitlines() if any(b in line for b in bad)]


def _start(code, env):
    return subprocess.Popen([sys.executable, '-c', code], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)


@pytest.mark.parametrize('way', list(WAYS))
def test_a_spinning_node_stops_cleanly(way, env):
    for _ in range(2):
        p = _start(NODE, env)
        _stop_and_check(p, way)


def _stop_and_check(p, way):
    """Signal the spinning node ``way``; it must exit 0 without an unclean line."""
    try:
        assert p.stdout.readline().strip() == 'spinning'
        for signum, delay in WAYS[way]:
            time.sleep(delay)
            p.send_signal(signum)
        out = p.communicate(timeout=20)[0]
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert p.returncode == 0, out
    assert _clean(out) == []


def test_a_signal_while_the_node_is_still_importing_is_a_clean_stop(env, tmp_path):
    """What ``ros2 launch`` does when Ctrl-C comes within the first second."""
    (tmp_path / 'slow_node.py').write_text(textwrap.dedent("""\
        import time
        print('importing', flush=True)
        time.sleep(2.0)
        import rclpy

        def main(args=None):
            print('main was called', flush=True)
            return 3
        """))
    code = textwrap.dedent("""\
        import sys
        from transmission_plugins.ros import executables
        executables.NODES['slow_node'] = 'slow_node'
        sys.exit(executables.run('slow_node'))
        """)
    p = _start(code, dict(env, PYTHONPATH=f'{tmp_path}{os.pathsep}{env.get("PYTHONPATH", "")}'))
    assert p.stdout.readline().strip() == 'importing'
    p.send_signal(signal.SIGINT)
    p.send_signal(signal.SIGINT)
    out = p.communicate(timeout=20)[0]
    assert p.returncode == 0, out
    assert 'main was called' not in out and _clean(out) == []


def test_a_node_stops_when_the_process_that_started_it_dies(env, tmp_path):
    """``ros2 launch`` ends at once on SIGTERM or SIGKILL; its nodes must not run on."""
    log = tmp_path / 'child.log'
    child = textwrap.dedent(f"""\
        import sys, time
        from transmission_plugins.ros.executables import stop_with_parent
        from transmission_plugins.ros.stop_signals import StopRequest
        stop = StopRequest().install()
        with open({str(log)!r}, 'w', buffering=1) as out:
            out.write(f'armed {{stop_with_parent()}}\\n')
            deadline = time.monotonic() + 30
            while not stop.requested and time.monotonic() < deadline:
                time.sleep(0.01)
            out.write(f'stopped {{stop.received}}\\n')
        """)
    parent = textwrap.dedent("""\
        import os, subprocess, sys, time
        env = dict(os.environ, TP_STOP_WITH_PARENT=str(os.getpid()))
        child = subprocess.Popen([sys.executable, '-c', sys.argv[1]], env=env)
        print(child.pid, flush=True)
        time.sleep(60)
        """)
    p = subprocess.Popen([sys.executable, '-c', parent, child], env=env, stdout=subprocess.PIPE,
                         text=True)
    child_pid = int(p.stdout.readline())
    deadline = time.monotonic() + 20
    while not (log.exists() and 'armed' in log.read_text()) and time.monotonic() < deadline:
        time.sleep(0.05)
    p.kill()
    p.wait()
    while 'stopped' not in log.read_text() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert log.read_text().splitlines() == ['armed True', f'stopped [{int(signal.SIGTERM)}]']
    with pytest.raises(ProcessLookupError):
        for _ in range(100):   # the child exits right after writing
            os.kill(child_pid, 0)
            time.sleep(0.05)


def test_without_the_variable_a_node_outlives_its_parent_as_usual(monkeypatch):
    from transmission_plugins.ros.executables import stop_with_parent
    monkeypatch.delenv('TP_STOP_WITH_PARENT', raising=False)
    assert stop_with_parent() is False


@pytest.fixture
def saved_handlers():
    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    yield
    for s, h in saved.items():
        signal.signal(s, h)
    StopRequest._installed = None


def test_stop_requests_record_and_never_raise(saved_handlers):
    stop = StopRequest().install()
    assert StopRequest.installed() is stop and not stop.requested
    os.kill(os.getpid(), signal.SIGINT)
    os.kill(os.getpid(), signal.SIGTERM)
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(0.05)   # the handler runs on this thread between bytecodes
    assert stop.requested
    assert stop.received == [signal.SIGINT, signal.SIGTERM, signal.SIGINT]
    stop.finish()
    # after a stop the process is on its way out: later signals are ignored
    assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_IGN
    assert StopRequest.installed() is None


def test_without_a_request_finish_restores_the_defaults(saved_handlers):
    stop = StopRequest().install()
    assert signal.getsignal(signal.SIGINT) == stop._handler
    stop.finish()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
    assert StopRequest.installed() is None


def test_sigusr1_prints_the_stacks_of_a_running_executable_which_runs_on(env, tmp_path):
    """``kill -USR1`` shows where a node is without stopping it."""
    (tmp_path / 'busy_node.py').write_text(textwrap.dedent("""\
        import time

        def main(args=None):
            print('running', flush=True)
            for _ in range(100):
                time.sleep(0.05)
            print('finished', flush=True)
            return 0
        """))
    code = textwrap.dedent("""\
        import sys
        from transmission_plugins.ros import executables
        executables.NODES['busy_node'] = 'busy_node'
        sys.exit(executables.run('busy_node'))
        """)
    p = _start(code, dict(env, PYTHONPATH=f'{tmp_path}{os.pathsep}{env.get("PYTHONPATH", "")}'))
    assert p.stdout.readline().strip() == 'running'
    p.send_signal(signal.SIGUSR1)
    out = p.communicate(timeout=30)[0]
    assert p.returncode == 0, out
    assert 'most recent call first' in out, out
    assert re.search(r'busy_node\.py", line [46] in main', out), out   # print or sleep
    assert 'finished' in out


#: a second signal landing on every line of the first one's handling, to any depth of two
NESTED_SIGNALS = textwrap.dedent("""\
    import signal, sys
    from transmission_plugins.ros.stop_signals import StopRequest
    stop = StopRequest()
    depth = [0]

    def tracer(frame, event, arg):
        if event == 'line' and depth[0] < 2:
            depth[0] += 1
            stop._handler(signal.SIGINT, None)
            depth[0] -= 1
        return tracer

    sys.settrace(lambda frame, event, arg: tracer)
    stop._handler(signal.SIGINT, None)
    sys.settrace(None)
    print('requested', stop.requested, len(stop.received) > 1)
    """)


def test_a_signal_inside_the_handling_of_another_never_deadlocks():
    """
    The handler may run again inside itself; it must take no lock.

    A CI run once saw ``threading.Event.set`` in a handler interrupted by the second Ctrl-C,
    whose handler then waited forever for the lock the first one held.
    """
    proc = subprocess.run([sys.executable, '-c', NESTED_SIGNALS], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == 'requested True True'


def test_a_stopped_node_leaves_the_ros_graph_at_once(env, monkeypatch):
    """
    The node's DDS participant is deleted as it exits.

    Otherwise the others see the node leave only when its lease expires (20 s with Fast DDS):
    a second node of the same name then appears twice in ``ros2 node list`` (bound: 10 s).
    """
    import rclpy
    from rclpy.context import Context
    monkeypatch.setenv('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')
    monkeypatch.setenv('ROS_DOMAIN_ID', env['ROS_DOMAIN_ID'])
    proc = subprocess.Popen([sys.executable, '-m', 'transmission_plugins.ros.executables',
                             'hardware_interface_node', '--ros-args', '-r', '__ns:=/leaving'],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    context = Context()
    rclpy.init(context=context)
    observer = rclpy.create_node('graph_observer', context=context)

    def present():
        return ('transmission_hardware_interface', '/leaving') in \
            observer.get_node_names_and_namespaces()

    try:
        deadline = time.monotonic() + 120
        while not present():
            assert time.monotonic() < deadline and proc.poll() is None, 'the node never appeared'
            time.sleep(0.1)
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=60)
        assert proc.returncode == 0, out
        left = time.monotonic()
        while present():
            assert time.monotonic() - left < 10.0, 'the node stayed in the graph after its exit'
            time.sleep(0.05)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        observer.destroy_node()
        rclpy.shutdown(context=context)


def test_a_flooded_node_keeps_its_memory_and_stops_as_promptly_as_an_idle_one(env, monkeypatch):
    """
    On e6277b7 (EventsExecutor) a flood left a backlog of events whose messages were gone.

    Memory grew by tens of MB and stayed, a core stayed busy, and SIGINT was not honoured for
    seconds.  The SingleThreadedExecutor takes what the middleware still holds (its queue depth).
    """
    import psutil
    import rclpy
    from rclpy.context import Context
    from rclpy.serialization import serialize_message
    from sensor_msgs.msg import JointState
    from transmission_plugins.tools.launch.node_plan import default_description_file
    from transmission_plugins.tools.launch.node_plan import read_description
    monkeypatch.setenv('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')
    monkeypatch.setenv('ROS_DOMAIN_ID', env['ROS_DOMAIN_ID'])
    ns = f'/flood_{os.getpid()}'
    urdf = read_description(default_description_file())
    proc = subprocess.Popen([sys.executable, '-m', 'transmission_plugins.ros.executables',
                             'hardware_interface_node', '--ros-args', '-r', f'__ns:={ns}',
                             '-p', f'robot_description:={urdf}'],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    context = Context()
    rclpy.init(context=context)
    client = rclpy.create_node('flooder', namespace=ns, context=context)
    pub = client.create_publisher(JointState, 'actuator_states', 1000)
    try:
        deadline = time.monotonic() + 120
        while pub.get_subscription_count() == 0:
            assert time.monotonic() < deadline and proc.poll() is None, 'the node never came up'
            time.sleep(0.1)
        node = psutil.Process(proc.pid)
        time.sleep(1.0)
        before = node.memory_info().rss
        good = serialize_message(JointState(name=['pan_motor'], position=[0.1]))
        bad = serialize_message(JointState(name=['ghost'], position=[0.1]))
        start = time.monotonic()
        sent = 0   # 3 s of flood, and at least 60,000 messages (a busy machine publishes slower)
        while time.monotonic() < start + 3.0 or (sent < 60_000 and time.monotonic() < start + 20):
            pub.publish(bad if sent % 2 else good)
            sent += 1
        time.sleep(1.0)   # what the middleware held is taken by now
        grown = (node.memory_info().rss - before) / 1e6
        start = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=30)
        stopped = time.monotonic() - start
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        client.destroy_node()
        rclpy.shutdown(context=context)
    assert proc.returncode == 0, out
    assert sent > 50_000, sent
    assert grown < 10.0, f'{grown:.1f} MB more after a flood of {sent} messages'
    assert stopped < 2.0, f'stopped {stopped:.2f} s after SIGINT'
    assert _clean(out) == []
