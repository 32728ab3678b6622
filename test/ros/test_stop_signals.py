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
from transmission_plugins.ros.stop_signals import StopSignals

pytestmark = pytest.mark.ros

#: a node as the executables start one: the handler first, then rclpy and the node
NODE = textwrap.dedent("""\
    import sys
    from transmission_plugins.ros.stop_signals import StopSignals
    StopSignals().install()
    from std_msgs.msg import String
    from rclpy.node import Node
    from transmission_plugins.ros.common import run_node, timer_callback

    def factory(args):
        node = Node('stop_signals_test')
        pub = node.create_publisher(String, 'stop_signals_chatter', 10)
        msg = String(data='x' * 1000)
        node.create_timer(0.001, timer_callback(lambda: pub.publish(msg)))
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


@pytest.mark.parametrize('way', ['ctrl_c_plus_forwarded', 'sigterm_then_sigint'])
def test_the_same_with_the_single_threaded_executor(way, env):
    _stop_and_check(_start(NODE, dict(env, TP_EXECUTOR='single')), way)


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
        from transmission_plugins.ros.stop_signals import StopSignals
        from transmission_plugins.ros.executables import stop_with_parent
        stop = StopSignals().install()
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
    StopSignals._current = None


def test_stop_signals_record_and_never_raise(saved_handlers):
    woken = []
    stop = StopSignals(on_stop=lambda: woken.append(True)).install()
    assert StopSignals.current() is stop and not stop.requested
    os.kill(os.getpid(), signal.SIGINT)
    os.kill(os.getpid(), signal.SIGTERM)
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(0.05)   # the handler runs on this thread between bytecodes
    assert stop.requested and woken == [True]
    assert stop.received == [signal.SIGINT, signal.SIGTERM, signal.SIGINT]
    stop.finish()
    # after a stop the process is on its way out: later signals are ignored
    assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_IGN
    assert StopSignals.current() is None


def test_without_a_request_finish_restores_the_handlers(saved_handlers):
    before = signal.getsignal(signal.SIGINT)
    stop = StopSignals().install()
    assert signal.getsignal(signal.SIGINT) != before
    stop.finish()
    assert signal.getsignal(signal.SIGINT) == before
    assert StopSignals.current() is None


#: a process whose main thread keeps waiting after the stop request (as if stuck in native code)
STUCK = textwrap.dedent("""\
    import sys, time
    from transmission_plugins.ros.stop_signals import StopSignals
    stop = StopSignals().install()
    assert stop.watch(float(sys.argv[1]))
    print('ready', flush=True)
    if sys.argv[2] == 'stuck':
        time.sleep(60)          # the handler runs, but nothing looks at the request
    else:
        while not stop.requested:
            time.sleep(0.01)
        stop.finish()
    sys.exit(0)
    """)


def _run_until_ready(mode, grace):
    proc = subprocess.Popen([sys.executable, '-c', STUCK, str(grace), mode],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == 'ready'
    return proc


def test_a_stop_that_hangs_ends_the_process_after_the_grace_period_with_the_stacks():
    proc = _run_until_ready('stuck', 0.5)
    start = time.monotonic()
    proc.send_signal(signal.SIGINT)
    proc.send_signal(signal.SIGTERM)   # ignored like any further signal: one deadline
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 1, err
    assert 0.5 <= time.monotonic() - start
    assert 'did not end within 0.5 s of the stop signal' in err
    assert 'File "<string>", line 7 in <module>' in err, err   # where the main thread waited


def test_a_clean_stop_is_not_touched_by_the_watcher():
    proc = _run_until_ready('clean', 0.5)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert 'did not end' not in err


#: a teardown blocked in native code that holds the GIL (ctypes.PyDLL keeps it), as a DDS
#: participant's deletion can under load
STUCK_WITH_THE_GIL = textwrap.dedent("""\
    import ctypes, sys, time
    from transmission_plugins.ros.stop_signals import StopSignals
    stop = StopSignals().install()
    assert stop.watch(float(sys.argv[1]))
    libc = ctypes.PyDLL(None)
    mutex = ctypes.create_string_buffer(64)     # zeroed: PTHREAD_MUTEX_INITIALIZER
    libc.pthread_mutex_lock(mutex)
    print('ready', flush=True)
    while not stop.requested:                   # the spin loop sees the request
        time.sleep(0.01)
    time.sleep(0.2)
    libc.pthread_mutex_lock(mutex)              # locked twice: waits forever, signals or not
    """)


def test_a_stop_stuck_in_native_code_holding_the_gil_still_ends_one_second_later():
    """The watcher thread cannot print; faulthandler's native thread ends the process."""
    proc = subprocess.Popen([sys.executable, '-c', STUCK_WITH_THE_GIL, '0.5'],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == 'ready'
        start = time.monotonic()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:   # never left behind, locked forever
            proc.kill()
            proc.wait()
    assert proc.returncode == 1, err
    assert 1.5 <= time.monotonic() - start
    assert 'Timeout (0:00:01.500000)!' in err, err
    assert 'File "<string>", line 12 in <module>' in err, err   # the native call's line


#: the first request's handler arms the backstop itself: here no signal ever reaches the
#: watcher's pipe (a request by code) and the main thread then blocks with the GIL at once
REQUEST_THEN_STUCK = textwrap.dedent("""\
    import ctypes, sys
    from transmission_plugins.ros.stop_signals import StopSignals
    stop = StopSignals().install()
    assert stop.watch(float(sys.argv[1]))
    libc = ctypes.PyDLL(None)
    mutex = ctypes.create_string_buffer(64)
    libc.pthread_mutex_lock(mutex)
    stop.request()
    libc.pthread_mutex_lock(mutex)
    """)


def test_the_first_request_arms_the_backstop_without_the_watcher_thread():
    proc = subprocess.Popen([sys.executable, '-c', REQUEST_THEN_STUCK, '0.5'],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:   # the old code: blocked for ever
            proc.kill()
            proc.wait()
    assert proc.returncode == 1, err
    assert 'Timeout (0:00:01.500000)!' in err, err
    assert 'File "<string>", line 9 in <module>' in err, err


#: what an executable leaves in its buffers and atexit handlers as it ends
ENDING = textwrap.dedent("""\
    import atexit, ctypes, sys
    from transmission_plugins.ros.executables import exit_process
    libc = ctypes.CDLL(None)
    atexit.register(lambda: print('atexit ran'))
    print('python buffered', end='')           # a pipe: block-buffered, no newline
    libc.printf(b'C buffered\\n')               # C stdio, block-buffered on a pipe
    exit_process(int(sys.argv[1]))
    """)


def test_an_executable_ends_with_its_code_and_nothing_left_in_a_buffer():
    """exit_process skips Python's finalization but loses no output and runs atexit."""
    for code in (0, 3):
        proc = subprocess.run([sys.executable, '-c', ENDING, str(code)], capture_output=True,
                              text=True, timeout=60)
        assert proc.returncode == code, proc.stderr
        assert 'python buffered' in proc.stdout and 'atexit ran' in proc.stdout, proc.stdout
        assert 'C buffered' in proc.stdout, proc.stdout


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


#: an object whose collection hangs with the GIL held, as a DDS participant's deletion can
HANGING_DELETION = textwrap.dedent("""\
    import ctypes, sys
    from transmission_plugins.ros import executables
    libc = ctypes.PyDLL(None)
    mutex = ctypes.create_string_buffer(64)

    class Participant:
        def __del__(self):
            libc.pthread_mutex_lock(mutex)
            libc.pthread_mutex_lock(mutex)      # never returns, GIL held

    p = Participant()
    p.cycle = p                                 # freed by gc.collect() only
    del p
    executables.EXIT_DEADLINE = 0.5
    print('stopped', end='')
    executables.exit_process(int(sys.argv[1]))
    """)


def test_a_deletion_that_hangs_after_a_clean_stop_still_ends_with_the_nodes_code():
    """The native timer ends the process with the node's exit code, output flushed."""
    for code in (0, 3):
        start = time.monotonic()
        proc = subprocess.run([sys.executable, '-c', HANGING_DELETION, str(code)],
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode == code, proc.stderr
        assert proc.stdout == 'stopped'
        assert 0.5 <= time.monotonic() - start


#: a node whose teardown hangs in native code with the GIL held, as DDS's has under load
HANGING_TEARDOWN = textwrap.dedent("""\
    import ctypes, sys
    from transmission_plugins.ros.stop_signals import StopSignals
    StopSignals().install().watch(4.0)
    from rclpy.node import Node
    from transmission_plugins.ros import stop_signals
    from transmission_plugins.ros.common import run_node
    libc = ctypes.PyDLL(None)
    mutex = ctypes.create_string_buffer(64)

    def hang(*args, **kwargs):
        libc.pthread_mutex_lock(mutex)
        libc.pthread_mutex_lock(mutex)          # never returns, GIL held

    def factory(args):
        node = Node('hanging_teardown_test')
        node.destroy_node = hang
        node.create_timer(0.2, lambda: print('spinning', flush=True))
        return node

    stop_signals.EXIT_DEADLINE = 0.5
    sys.exit(run_node(factory, sys.argv[:1]))
    """)


def test_a_teardown_that_hangs_after_a_clean_stop_ends_with_the_nodes_code(env):
    """Not the watcher's exit 1 at 4 + 1 s with stacks: the node's code 0 at 0.5 s."""
    p = _start(HANGING_TEARDOWN, env)
    try:
        assert p.stdout.readline().strip() == 'spinning'
        p.send_signal(signal.SIGINT)
        start = time.monotonic()
        assert p.wait(30) == 0
        elapsed = time.monotonic() - start
        out = p.stdout.read()
        assert 0.5 <= elapsed < 4.0, elapsed
        assert 'Timeout' not in out and 'stacks' not in out, out
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


#: a second signal landing on every line of the first one's handling, to any depth of two
NESTED_SIGNALS = textwrap.dedent("""\
    import signal, sys
    from transmission_plugins.ros.stop_signals import StopSignals
    stop = StopSignals()
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

    A CI run saw ``threading.Event.set`` in the handler interrupted by the second Ctrl-C, whose
    handler then waited forever for the lock the first one held (the old code hangs here).
    """
    proc = subprocess.run([sys.executable, '-c', NESTED_SIGNALS], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == 'requested True True'


def test_a_stopped_node_leaves_the_ros_graph_at_once(env, monkeypatch):
    """
    The executable deletes the node's DDS participant as it exits, frozen start-up objects too.

    ``run_node`` freezes what exists at start-up out of the garbage collector (the node among
    it); ``exit_process`` must unfreeze before collecting, or the participant is never deleted
    and the others see the node leave only when its lease expires (20 s with Fast DDS): a
    second node of the same name then appears twice in ``ros2 node list`` (bound here: 10 s).
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
