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

"""rosbag2 in convert, export-csv and plot: bags written and read back by rosbags and mcap."""

import csv
from pathlib import Path

from bag_support import decode
from bag_support import EXAMPLE_URDF
from bag_support import joint_state
from bag_support import JS
from bag_support import read_bag
from bag_support import storage_file
from bag_support import STORE
from bag_support import STRING
from bag_support import write_bag
import numpy as np
import pytest

from tp_support import PR2_URDF
from transmission_plugins.robot.loading import load_robot_transmissions
from transmission_plugins.tools.cli import main

STORAGES = ('mcap', 'sqlite3')
INTERFACES = ('position', 'velocity', 'effort')


def _robot_param():
    params = [pytest.param(EXAMPLE_URDF, id='example_robot')]
    if PR2_URDF.is_file():
        params.append(pytest.param(PR2_URDF, id='pr2'))
    else:
        print(f'test_bags: PR2 cases skipped: the URDF corpus is not at {PR2_URDF}')
        params.append(pytest.param(PR2_URDF, id='pr2', marks=pytest.mark.skip(
            reason=f'URDF corpus not found at {PR2_URDF}')))
    return params


ROBOTS = _robot_param()
_LOADED = {}


def robot_of(urdf):
    if urdf not in _LOADED:
        _LOADED[urdf] = load_robot_transmissions(str(urdf), warn=False)
    return _LOADED[urdf]


def actuator_samples(robot, count, seed=7):
    """Return valid actuator states: joint positions inside the limits mapped to actuators."""
    rng = np.random.default_rng(seed)
    lower = np.where(np.isfinite(robot.joint_lower), robot.joint_lower, -np.pi)
    upper = np.where(np.isfinite(robot.joint_upper), robot.joint_upper, np.pi)
    q = rng.uniform(lower + 0.05 * (upper - lower), upper - 0.05 * (upper - lower),
                    (count, len(robot.joint_names)))
    theta = robot.joint_to_actuator_arrays({'position': q})['position']
    na = len(robot.actuator_names)
    return theta, rng.uniform(-3, 3, (count, na)), rng.uniform(-2, 2, (count, na))


def actuator_bag(path, storage, robot, count=60, topic='/actuator_states', extra=True):
    pos, vel, eff = actuator_samples(robot, count)
    topics = {topic: JS}
    messages = []
    for k in range(count):
        msg = joint_state(robot.actuator_names, pos[k], vel[k], eff[k], stamp=(100 + k, 17 * k),
                          frame_id='base_link')
        messages.append((topic, 1_700_000_000_000_000_000 + k * 1_000_000, msg))
    if extra:
        topics['/chatter'] = STRING
        messages += [('/chatter', 1_700_000_000_000_000_000 + k * 5_000_000 + 3,
                      STORE.types[STRING](data=f'note {k}')) for k in range(count // 5)]
        messages.sort(key=lambda m: m[1])
    return write_bag(path, storage, topics, messages), (pos, vel, eff)


# ---------------------------------------------------------------------------- round trip
@pytest.mark.parametrize('storage', STORAGES)
@pytest.mark.parametrize('urdf', ROBOTS)
def test_round_trip_bag_joint_actuator(urdf, storage, tmp_path, capsys):
    robot = robot_of(urdf)
    src, (pos, vel, eff) = actuator_bag(tmp_path / 'in', storage, robot)
    joint_bag = str(tmp_path / 'joint')
    assert main(['convert', str(urdf), src, joint_bag, '--to', 'joint']) == 0
    err = capsys.readouterr().err
    assert '60 messages converted (/actuator_states -> /joint_states), 72 messages copied' in err
    conns, messages = read_bag(joint_bag)
    assert set(conns) == {'/actuator_states', '/chatter', '/joint_states'}
    assert conns['/joint_states'].msgtype == JS
    assert conns['/joint_states'].digest == STORE.hash_rihs01(JS)
    assert conns['/joint_states'].ext.offered_qos_profiles == \
        conns['/actuator_states'].ext.offered_qos_profiles
    # every input message copied unchanged, in order, with its receive time
    _, original = read_bag(src)
    assert [m for m in messages if m[0] != '/joint_states'] == original
    states = [(t, decode(raw)) for topic, t, raw in messages if topic == '/joint_states']
    assert [t for t, _ in states] == [t for topic, t, _ in original if topic == '/actuator_states']
    first = states[0][1]
    assert first.name == robot.joint_names
    assert (first.header.stamp.sec, first.header.stamp.nanosec) == (100, 0)
    assert states[5][1].header.stamp.nanosec == 85 and states[5][1].header.frame_id == 'base_link'
    # an independent path: the name-keyed API, message by message
    for k in (0, 31, 59):
        ref = robot.actuator_to_joint({
            i: dict(zip(robot.actuator_names, v[k])) for i, v in zip(INTERFACES,
                                                                     (pos, vel, eff))})
        for i in INTERFACES:
            got = dict(zip(states[k][1].name, getattr(states[k][1], i)))
            assert got == pytest.approx(ref[i], rel=1e-12, abs=1e-12)
    back = str(tmp_path / 'back.mcap')
    assert main(['convert', str(urdf), joint_bag, back, '--to', 'actuator', '--topic',
                 'joint_states', '--output-topic', 'round_trip']) == 0
    conns, messages = read_bag(back)
    assert conns['/round_trip'].msgtype == JS
    out = [decode(raw) for topic, _, raw in messages if topic == '/round_trip']
    assert len(out) == 60 and out[0].name == robot.actuator_names
    for i, ref in zip(INTERFACES, (pos, vel, eff)):
        got = np.array([getattr(m, i) for m in out])
        np.testing.assert_allclose(got, ref, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize('urdf', ROBOTS)
def test_mcap_output_opens_with_the_mcap_library(urdf, tmp_path):
    from mcap.reader import make_reader
    robot = robot_of(urdf)
    src, (pos, _, _) = actuator_bag(tmp_path / 'in', 'mcap', robot, count=20)
    out = tmp_path / 'out.mcap'
    assert main(['convert', str(urdf), src, str(out), '--to', 'joint']) == 0
    with open(out, 'rb') as f:
        reader = make_reader(f)
        summary = reader.get_summary()
        assert summary.statistics.message_count == 20 + 4 + 20
        channels = {c.topic: c for c in summary.channels.values()}
        assert set(channels) == {'/actuator_states', '/chatter', '/joint_states'}
        schema = summary.schemas[channels['/joint_states'].schema_id]
        assert (schema.name, schema.encoding) == (JS, 'ros2msg')
        assert 'string[] name' in schema.data.decode()
        assert channels['/joint_states'].message_encoding == 'cdr'
        got = [(m.log_time, decode(m.data)) for _, c, m in reader.iter_messages()
               if c.topic == '/joint_states']
    assert len(got) == 20
    ref = robot.actuator_to_joint_arrays({'position': pos})['position']
    np.testing.assert_allclose([m.position for _, m in got], ref, rtol=1e-12, atol=1e-12)
    assert [t for t, _ in got] == [1_700_000_000_000_000_000 + k * 1_000_000 for k in range(20)]


@pytest.mark.parametrize('storage', STORAGES)
def test_storage_option_and_single_file_outputs(storage, tmp_path, capsys):
    robot = robot_of(EXAMPLE_URDF)
    src, _ = actuator_bag(tmp_path / 'in', storage, robot, count=5)
    other = 'sqlite3' if storage == 'mcap' else 'mcap'
    out = tmp_path / 'other'
    assert main(['convert', str(EXAMPLE_URDF), src, str(out), '--to', 'joint', '--storage',
                 other]) == 0
    assert storage_file(out).suffix == ('.mcap' if other == 'mcap' else '.db3')
    assert len([m for m in read_bag(out)[1] if m[0] == '/joint_states']) == 5
    # a storage file alone as input (--format bag), and as output
    single = tmp_path / 'single.db3'
    assert main(['convert', str(EXAMPLE_URDF), str(storage_file(src)), str(single), '--to',
                 'joint', '--format', 'bag']) == 0
    assert single.is_file() and len(read_bag(single)[1]) == 5 + 1 + 5
    capsys.readouterr()
    assert main(['convert', str(EXAMPLE_URDF), src, str(tmp_path / 'x.db3'), '--to', 'joint',
                 '--storage', 'mcap']) == 1
    assert 'a .db3 file is sqlite3 storage, not --storage mcap' in capsys.readouterr().err
    assert not (tmp_path / 'x.db3').exists()


# ---------------------------------------------------------------------------- topics
def test_namespaced_topics(tmp_path, capsys):
    robot = robot_of(EXAMPLE_URDF)
    pos, vel, eff = actuator_samples(robot, 4)
    messages = []
    for k in range(4):
        for ns in ('/robot1', '/robot2'):
            messages.append((f'{ns}/actuator_states', 1000 + 10 * k + (ns == '/robot2'),
                             joint_state(robot.actuator_names, pos[k])))
    src = write_bag(tmp_path / 'in', 'mcap', {'/robot1/actuator_states': JS,
                                              '/robot2/actuator_states': JS}, messages)
    out = tmp_path / 'out'
    assert main(['convert', str(EXAMPLE_URDF), src, str(out), '--to', 'joint']) == 0
    conns, got = read_bag(out)
    assert {'/robot1/joint_states', '/robot2/joint_states'} <= set(conns)
    assert sum(t == '/robot2/joint_states' for t, _, _ in got) == 4
    # an absolute --topic matches one namespace only
    out = tmp_path / 'one'
    assert main(['convert', str(EXAMPLE_URDF), src, str(out), '--to', 'joint', '--topic',
                 '/robot1/actuator_states']) == 0
    assert '/robot2/joint_states' not in read_bag(out)[0]
    # two inputs cannot share one absolute output topic
    assert main(['convert', str(EXAMPLE_URDF), src, str(tmp_path / 'x'), '--to', 'joint',
                 '--output-topic', '/joint_states']) == 1
    assert 'would all be written to /joint_states' in capsys.readouterr().err
    assert not (tmp_path / 'x').exists()


def test_missing_topic_lists_the_topics(tmp_path, capsys):
    src = write_bag(tmp_path / 'in', 'sqlite3', {'/chatter': STRING},
                    [('/chatter', 5, STORE.types[STRING](data='x'))])
    assert main(['convert', str(EXAMPLE_URDF), src, str(tmp_path / 'o'), '--to', 'joint']) == 1
    err = capsys.readouterr().err
    assert f"{src}: no topic 'actuator_states'" in err
    assert 'topics in the bag: /chatter (std_msgs/msg/String)' in err
    # issue 34: the hint is how to name the topic, not --lenient (nothing to do with the URDF)
    assert '--lenient' not in err and '(choose the topic with --topic)' in err
    assert not (tmp_path / 'o').exists()
    assert main(['convert', str(EXAMPLE_URDF), src, str(tmp_path / 'o'), '--to', 'joint',
                 '--topic', 'chatter']) == 1
    assert "topic '/chatter' has type std_msgs/msg/String, expected sensor_msgs/msg/JointState" \
        in capsys.readouterr().err


def test_output_topic_already_in_the_bag(tmp_path, capsys):
    robot = robot_of(EXAMPLE_URDF)
    src = write_bag(tmp_path / 'in', 'mcap', {'/actuator_states': JS, '/joint_states': JS},
                    [('/actuator_states', 1, joint_state(robot.actuator_names,
                                                         np.zeros(6)))])
    assert main(['convert', str(EXAMPLE_URDF), src, str(tmp_path / 'o'), '--to', 'joint']) == 1
    assert 'the output topic /joint_states is already in the bag' in capsys.readouterr().err


# ---------------------------------------------------------------------------- broken bags
@pytest.mark.parametrize('storage', STORAGES)
def test_truncated_bag_names_the_file(storage, tmp_path, capsys):
    robot = robot_of(EXAMPLE_URDF)
    src, _ = actuator_bag(tmp_path / 'in', storage, robot, count=400)
    data = storage_file(src)
    data.write_bytes(data.read_bytes()[:len(data.read_bytes()) // 2])
    assert main(['convert', str(EXAMPLE_URDF), src, str(tmp_path / 'o'), '--to', 'joint']) == 1
    err = capsys.readouterr().err
    assert err.startswith('transmission_plugins convert: error: ')
    assert 'cannot read the bag' in err and 'in' in err
    assert str(src) in err or str(data) in err
    assert not (tmp_path / 'o').exists()
    assert [p.name for p in tmp_path.iterdir()] == ['in']  # no temporary left behind


@pytest.mark.parametrize('suffix', ['.mcap', '.db3'])
def test_garbage_file_names_the_file(suffix, tmp_path, capsys):
    bad = tmp_path / f'bad{suffix}'
    bad.write_bytes(b'\x89MCAP0\r\n' + bytes(range(256)) * 4)
    assert main(['convert', str(EXAMPLE_URDF), str(bad), str(tmp_path / 'o'), '--to',
                 'joint']) == 1
    err = capsys.readouterr().err
    assert f'{bad}: cannot read the bag' in err
    assert main(['export-csv', str(bad), str(tmp_path / 'o.csv'), '--topic', 'x']) == 1
    assert f'{bad}: cannot read the bag' in capsys.readouterr().err
    assert main(['convert', str(EXAMPLE_URDF), str(tmp_path / 'nope.mcap'), str(tmp_path / 'o'),
                 '--to', 'joint']) == 1
    assert f"cannot read {tmp_path / 'nope.mcap'}: No such file" in capsys.readouterr().err


@pytest.mark.parametrize('storage', STORAGES)
def test_empty_bags(storage, tmp_path, capsys):
    empty = write_bag(tmp_path / 'empty', storage, {}, [])
    assert main(['convert', str(EXAMPLE_URDF), empty, str(tmp_path / 'o'), '--to', 'joint']) == 1
    assert 'the bag has no topics' in capsys.readouterr().err
    quiet = write_bag(tmp_path / 'quiet', storage, {'/actuator_states': JS}, [])
    out = tmp_path / 'o2'
    assert main(['convert', str(EXAMPLE_URDF), quiet, str(out), '--to', 'joint']) == 0
    assert '0 messages converted' in capsys.readouterr().err
    conns, messages = read_bag(out)
    assert set(conns) == {'/actuator_states', '/joint_states'} and messages == []


def test_existing_output_is_not_overwritten(tmp_path, capsys):
    robot = robot_of(EXAMPLE_URDF)
    src, _ = actuator_bag(tmp_path / 'in', 'mcap', robot, count=3)
    (tmp_path / 'o').mkdir()
    assert main(['convert', str(EXAMPLE_URDF), src, str(tmp_path / 'o'), '--to', 'joint']) == 1
    assert 'exists already; bags are not overwritten' in capsys.readouterr().err


# ---------------------------------------------------------------------------- bad messages
def _bad_messages_bag(tmp_path, robot):
    names = robot.actuator_names
    good = actuator_samples(robot, 1)[0][0]
    nan = good.copy()
    nan[0] = np.nan
    partial = [n for n in names if n != 'wrist_right_motor']
    msgs = [joint_state(names, good),
            joint_state(names + ['ghost_motor'], list(good) + [1.0]),  # unknown_names
            joint_state(names, nan),                                   # non_finite
            joint_state(partial, [good[names.index(n)] for n in partial]),  # partial
            joint_state(names, good[:3]),                              # length_mismatch
            joint_state(names, (), velocity=np.ones(6)),               # no_position (gripper)
            joint_state(names[:1], good[:1])]                          # fine: pan alone
    return write_bag(tmp_path / 'in', 'mcap', {'/actuator_states': JS},
                     [('/actuator_states', 10 + k, m) for k, m in enumerate(msgs)])


def test_every_complete_transmission_of_a_message_converts(tmp_path, capsys):
    # issue 23: a message was dropped whole when one transmission in it was partial, one name
    # unknown or one value NaN; now the rest converts and what is left out is reported
    robot = robot_of(EXAMPLE_URDF)
    src = _bad_messages_bag(tmp_path, robot)
    out = tmp_path / 'out'
    assert main(['convert', str(EXAMPLE_URDF), src, str(out), '--to', 'joint']) == 0
    err = capsys.readouterr().err
    assert '6 messages converted' in err and '7 messages copied' in err
    assert ('warning: 5 message(s) could not be converted in full (4 in part, 1 not at all); '
            'left out, by reason:') in err
    for reason in ('unknown_names: 1', 'non_finite: 1', 'partial_transmission: 1',
                   'length_mismatch: 1', 'no_position: 1'):
        assert reason in err
    assert "unknown actuator names ['ghost_motor']" in err
    assert "transmission 'wrist_trans' lacks actuators ['wrist_right_motor']" in err
    assert "transmission 'pan_trans': a value is NaN or infinite" in err
    _, messages = read_bag(out)
    converted = {t: decode(raw) for topic, t, raw in messages if topic == '/joint_states'}
    assert sorted(converted) == [10, 11, 12, 13, 15, 16]
    everything = converted[10].name
    assert converted[11].name == everything                      # the ghost is ignored
    assert converted[12].name == [n for n in everything if n != 'pan_joint']
    assert 'wrist_pitch_joint' not in converted[13].name and 'pan_joint' in converted[13].name
    assert not any(n.startswith('gripper') for n in converted[15].name)  # needs positions
    assert list(converted[15].velocity) and not list(converted[15].position)
    assert converted[16].name == ['pan_joint']
    # the values are those of the name-keyed map, transmission by transmission
    good = dict(zip(robot.actuator_names, actuator_samples(robot, 1)[0][0]))
    ref = robot.actuator_to_joint({'position': good})['position']
    for t in (11, 12, 13):
        got = dict(zip(converted[t].name, converted[t].position))
        assert got == pytest.approx({n: ref[n] for n in got}, rel=1e-12, abs=1e-12)
    assert main(['convert', str(EXAMPLE_URDF), src, str(tmp_path / 's'), '--to', 'joint',
                 '--strict']) == 1
    err = capsys.readouterr().err
    assert '/actuator_states: the message received at 0.000000011 cannot be converted in ' \
           "full: unknown_names: unknown actuator names ['ghost_motor'] (--strict)" in err
    assert not (tmp_path / 's').exists()


@pytest.mark.parametrize('storage', STORAGES)
def test_a_topic_of_which_nothing_converts_is_an_error(storage, tmp_path, capsys):
    # issue 23: a run that converted nothing exited 0
    robot = robot_of(EXAMPLE_URDF)
    msgs = [joint_state(['ghost_motor'], [1.0]), joint_state(robot.actuator_names,
                                                             np.full(6, np.nan))]
    src = write_bag(tmp_path / 'in', storage, {'/actuator_states': JS},
                    [('/actuator_states', 10 + k, m) for k, m in enumerate(msgs)])
    for out in (tmp_path / 'out', tmp_path / 'out.csv'):
        assert main(['convert', str(EXAMPLE_URDF), src, str(out), '--to', 'joint']) == 1
        err = capsys.readouterr().err
        assert err.startswith(f'transmission_plugins convert: error: {src}: /actuator_states: '
                              'none of its 2 message(s) could be converted, nothing written: ')
        assert "unknown_names: 1 (first at 0.000000010: unknown actuator names ['ghost_motor'])"\
            in err and 'non_finite: 1' in err
        assert sorted(p.name for p in tmp_path.iterdir()) == ['in']


# ---------------------------------------------------------------------------- CSV and plots
@pytest.mark.parametrize('storage', STORAGES)
def test_export_csv_and_convert_to_csv(storage, tmp_path, capsys):
    robot = robot_of(EXAMPLE_URDF)
    src, (pos, vel, eff) = actuator_bag(tmp_path / 'in', storage, robot, count=12)
    out = tmp_path / 'a.csv'
    assert main(['export-csv', src, str(out), '--topic', 'actuator_states']) == 0
    assert capsys.readouterr().err == ('transmission_plugins export-csv: 12 messages of '
                                       f'/actuator_states exported; wrote {out}\n')
    with open(out, newline='') as f:
        rows = list(csv.reader(f))
    assert rows[0] == ['time', 'stamp'] + [f'{n}/{i}' for i in INTERFACES
                                           for n in robot.actuator_names]
    assert rows[1][:2] == ['1700000000.000000000', '100.000000000']
    assert rows[3][1] == '102.000000034'
    values = np.array([[float(x) for x in r[2:]] for r in rows[1:]])
    np.testing.assert_array_equal(values, np.hstack([pos, vel, eff]))  # exact: repr digits
    # the CSV converts like any recorded CSV, and equals convert bag -> CSV
    joints = tmp_path / 'j.csv'
    assert main(['convert', str(EXAMPLE_URDF), str(out), str(joints), '--to', 'joint']) == 0
    direct = tmp_path / 'direct.csv'
    assert main(['convert', str(EXAMPLE_URDF), src, str(direct), '--to', 'joint']) == 0
    assert joints.read_text() == direct.read_text()


def test_export_csv_union_of_names_and_missing_cells(tmp_path):
    msgs = [('/joint_states', 1, joint_state(['a', 'b'], [1.0, 2.0])),
            ('/joint_states', 2, joint_state(['c'], [3.0], effort=[0.5])),
            ('/joint_states', 3, joint_state(['b', 'a'], [4.0, 5.0]))]
    src = write_bag(tmp_path / 'in', 'mcap', {'/joint_states': JS}, msgs)
    out = tmp_path / 'o.csv'
    assert main(['export-csv', src, str(out), '--topic', 'joint_states']) == 0
    assert out.read_text().splitlines() == [
        'time,stamp,a/position,b/position,c/position,a/effort,b/effort,c/effort',
        '0.000000001,0.000000000,1,2,,,,',
        '0.000000002,0.000000000,,,3,,,0.5',
        '0.000000003,0.000000000,5,4,,,,']


@pytest.mark.parametrize('suffix', ['.png', '.svg'])
@pytest.mark.parametrize('urdf', ROBOTS)
def test_plot_bag(urdf, suffix, tmp_path, capsys):
    robot = robot_of(urdf)
    src, _ = actuator_bag(tmp_path / 'in', 'mcap', robot, count=30)
    out = tmp_path / f'plot{suffix}'
    joint = robot.joint_names[-1]
    assert main(['plot', str(urdf), src, str(out), '--joints', robot.joint_names[0], joint]) == 0
    printed = capsys.readouterr().out
    assert f'wrote {out} (/actuator_states, 30 messages' in printed
    data = Path(out).read_bytes()
    assert data[:8] == b'\x89PNG\r\n\x1a\n' if suffix == '.png' else b'<svg' in data[:400]
    if suffix == '.svg':
        text = data.decode()
        assert robot.actuator_names[0] in text and joint in text and 'joint limits' in text
    assert main(['plot', str(urdf), src, str(out), '--joints', 'nope']) == 1
    assert "no transmission drives joint(s) ['nope']" in capsys.readouterr().err


def test_progress_bar_on_a_terminal_only(tmp_path, monkeypatch, capsys):
    import sys
    robot = robot_of(EXAMPLE_URDF)
    src, _ = actuator_bag(tmp_path / 'in', 'mcap', robot, count=10)
    assert main(['convert', str(EXAMPLE_URDF), src, str(tmp_path / 'a'), '--to', 'joint']) == 0
    assert '|' not in capsys.readouterr().err
    monkeypatch.setattr(sys.stderr, 'isatty', lambda: True, raising=False)
    assert main(['convert', str(EXAMPLE_URDF), src, str(tmp_path / 'b'), '--to', 'joint']) == 0
    err = capsys.readouterr().err
    assert 'convert: 100%' in err and '12/12' in err  # tqdm's bar over the bag's messages


def test_plot_of_partial_messages_draws_whole_lines_scaled_to_the_data(tmp_path):
    # issue 23: partial messages made solid lines look dashed, joint panels were scaled to the
    # limits (small motions flattened), and each joint's limits must take its line's colour
    from transmission_plugins.tools.data.bag_plot import plot_bag
    robot = robot_of(EXAMPLE_URDF)
    names = robot.actuator_names
    theta = robot.joint_to_actuator_arrays({'position': np.zeros((1, len(robot.joint_names)))})[
        'position'][0]
    messages = []
    for k in range(60):
        small = theta + 0.01 * np.sin(k / 5.0)  # small motions around the zero pose
        keep = [n for j, n in enumerate(names) if not (k % 3 == 1 and n == 'pan_motor')]
        messages.append(('/actuator_states', 1000 + k * 10_000_000,
                         joint_state(keep, [small[names.index(n)] for n in keep])))
    src = write_bag(tmp_path / 'in', 'mcap', {'/actuator_states': JS}, messages)
    drawn = plot_bag(robot, src, str(tmp_path / 'p.png'),
                     joints=['pan_joint', 'wrist_pitch_joint', 'wrist_roll_joint'])
    assert drawn.messages == 60 and drawn.rejected == {}
    left, right = drawn.figure.axes[:2]
    for ax in (left, right):
        for line in ax.get_lines():
            assert not np.isnan(np.asarray(line.get_ydata(), dtype=float)).any(), \
                line.get_label()
    pan = next(line for line in right.get_lines() if line.get_label() == 'pan_joint')
    assert len(pan.get_xdata()) == 40  # the 20 messages without pan_motor leave no gap
    low, high = right.get_ylim()
    values = np.concatenate([line.get_ydata() for line in right.get_lines()
                             if not line.get_label().startswith(('_', 'joint limits'))])
    assert high - low < 0.2 and low <= values.min() and values.max() <= high  # not +-3.1
    colours = {line.get_label(): line.get_color() for line in right.get_lines()}
    for line in right.get_lines():
        if line.get_label().startswith(('_', 'joint limits')):
            y = line.get_ydata()[0]
            owner = [j for j in ('pan_joint', 'wrist_pitch_joint', 'wrist_roll_joint')
                     if y in (robot.joint_lower[robot.joint_index[j]],
                              robot.joint_upper[robot.joint_index[j]])]
            assert line.get_color() in [colours[j] for j in owner]


def test_a_bag_gap_outside_the_gripper_range_is_left_out_as_out_of_range():
    """A joint_commands message with a gap of -1 m: the gripper motor is left out, pan stays."""
    from transmission_plugins.robot.loading import load_robot_transmissions
    from transmission_plugins.tools.data.joint_state_batch import Converted
    from transmission_plugins.tools.data.joint_state_batch import JointStateBatchConverter
    robot = load_robot_transmissions(str(EXAMPLE_URDF), warn=False)
    converter = JointStateBatchConverter(robot, 'actuator')
    out, good = converter.convert([(['gripper_joint', 'pan_joint'], [-1.0, 0.1], [], []),
                                   (['gripper_joint', 'pan_joint'], [0.04, 0.1], [], [])])
    assert isinstance(out, Converted) and out.names == ['pan_motor']
    assert [r.reason for r in out.left_out] == ['out_of_range']
    assert isinstance(good, Converted) and set(good.names) == {'pan_motor', 'gripper_motor'}
