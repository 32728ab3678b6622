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
The integrity watch through the real hardware interface node and DDS (issue 37, item 3).

The rig of ``test_misuse.py``.  A 10:1 joint whose single-turn motor lost seven turns over a
power cycle is re-zeroed at start from the stored calibration and a coarse joint encoder (the
joint then reads at the motor's precision); a slip of one motor turn injected into the motor's
states is caught, as an ERROR in ``/diagnostics`` and the motor stopped, within 0.1 s of the
first slipped state; the joint's commands are refused from then on; and the calibration file is
byte for byte what it was.
"""

import math
import time

from diagnostic_msgs.msg import DiagnosticArray
import pytest
from sensor_msgs.msg import JointState
from test_misuse import Rig
from transmission_plugins.runtime.calibration_file import write_calibration_file

pytestmark = pytest.mark.ros
#: this module's range of ROS domains (ros_domain, the conftest's context)
ROS_DOMAINS = (10, 5)
#: DiagnosticStatus.ERROR as the message holds it
ERROR = bytes([2])

URDF = ('<robot name="abs"><link name="a"/><link name="b"/>'
        '<joint name="j" type="revolute"><parent link="a"/><child link="b"/>'
        '<limit lower="-1" upper="1" velocity="2" effort="10"/></joint>'
        '<transmission name="t"><type>transmission_interface/SimpleTransmission</type>'
        '<joint name="j"><hardwareInterface>EffortJointInterface</hardwareInterface></joint>'
        '<actuator name="m"><mechanicalReduction>10</mechanicalReduction></actuator>'
        '</transmission></robot>')
TURN = 2.0 * math.pi
STORED = 41.7          # the motor's raw position at the joint's zero, in the file
Q = 0.25               # where the joint stands
RATE = 200.0           # the drivers' state and reading rate


@pytest.fixture
def rig(context, request):
    r = Rig(context, 'integrity' + str(id(request) % 1000))
    yield r
    r.close()


def _status(msg, suffix):
    return next((s for s in msg.status if s.name.endswith(suffix)), None)


def _stamp(msg):
    return msg.header.stamp.sec + 1e-9 * msg.header.stamp.nanosec


def test_a_slip_of_one_motor_turn_is_caught_within_a_tenth_of_a_second(rig, tmp_path):
    path = tmp_path / 'calibration.yaml'
    write_calibration_file(str(path), 'abs', {'m': STORED}, 'test')
    before = path.read_bytes()
    hw = rig.hardware(robot_description=URDF, update_rate=100.0, diagnostic_period=0.01,
                      command_timeout=0.0, calibration_file=str(path),
                      absolute_encoders=['j'], single_turn_motor_encoders=['m'])
    assert rig.spin(10.0, lambda: hw.lifecycle_state == 'active'), hw.configure_error
    states = rig.client.create_publisher(JointState, 'actuator_states', 10)
    readings = rig.client.create_publisher(JointState, 'absolute_positions', 10)
    commands = rig.client.create_publisher(JointState, 'joint_commands', 10)
    joints = rig.record('joint_states')
    sent = rig.record('actuator_commands')
    diagnostics = rig.record('/diagnostics', DiagnosticArray)
    slip = {'now': 0.0, 'first': None}

    def feed():
        if slip['now'] and slip['first'] is None:
            slip['first'] = time.time()       # node stamps are system time
        # after a power cycle the driver counts from its single-turn reading: 7 turns lost
        raw = 10.0 * Q + STORED - 7 * TURN + slip['now']
        states.publish(JointState(name=['m'], position=[raw], velocity=[0.0], effort=[0.0]))
        readings.publish(JointState(name=['j'], position=[Q + 0.002]))   # a coarse encoder
    rig.client.create_timer(1.0 / RATE, feed)

    assert rig.spin(10.0, lambda: any('j' in m.name for m in joints))
    got = next(m for m in joints if 'j' in m.name)
    assert got.position[0] == pytest.approx(Q, abs=1e-9)   # the motor's precision
    commands.publish(JointState(name=['j'], effort=[2.0]))
    assert rig.spin(5.0, lambda: any(m.effort and m.effort[0] == pytest.approx(0.2)
                                     for m in sent))

    diagnostics.clear()
    slip['now'] = TURN                        # the motor skips one turn against the joint

    def errors():
        return [m for m in diagnostics
                if (s := _status(m, ': t')) is not None and s.level == ERROR]

    def stopped():
        return [m for m in sent if m.velocity and m.velocity[0] == 0.0]
    assert rig.spin(5.0, lambda: errors() and stopped())
    msg = errors()[0]
    status = _status(msg, ': t')
    latency = _stamp(stopped()[0]) - slip['first'], _stamp(msg) - slip['first']
    print(f'\nslip of one motor turn: the motor stopped {1e3 * latency[0]:.1f} ms and '
          f'/diagnostics said so {1e3 * latency[1]:.1f} ms after the first slipped state')
    assert 0.0 < latency[0] < 0.1 and 0.0 < latency[1] < 0.1
    assert 'j reads 0.252, its motors map to 0.878319' in status.message

    # refused from then on, and left out of joint_states
    joints.clear()
    diagnostics.clear()
    commands.publish(JointState(name=['j'], effort=[2.0]))
    assert rig.spin(5.0, lambda: any(
        (s := _status(m, 'transmission_hardware_interface')) is not None and
        {v.key: v.value for v in s.values}.get('dropped.joint_commands.uncalibrated') == '1'
        for m in diagnostics))
    assert rig.spin(1.0) and not any('j' in m.name for m in joints)
    rig.close()
    assert path.read_bytes() == before
