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
The drivetrain through the real hardware interface node and DDS (issue 36).

The rig of ``test_misuse.py``: the node in this process, a client node feeding it
``actuator_states`` and ``joint_commands`` and reading ``actuator_commands`` and
``/diagnostics``.  With ``urdf/drivetrain_robot.urdf``, a constant effort heats the hip motor as
the first-order model predicts (closed form, by hand), and an effort command beyond the
torque-speed line at half the maximum speed is limited to the line and counted.
"""

import math
import time

from diagnostic_msgs.msg import DiagnosticArray
import pytest
from sensor_msgs.msg import JointState
from test_misuse import Rig
from tp_support import REPO

pytestmark = pytest.mark.ros
#: this module's range of ROS domains (ros_domain, the conftest's context)
ROS_DOMAINS = (85, 5)

URDF = (REPO / 'urdf' / 'drivetrain_robot.urdf').read_text()
ACTUATORS = ['hip_motor', 'knee_motor']
#: the hip's values in urdf/drivetrain_robot.urdf
REDUCTION, K_T, PEAK, MAX_SPEED = 40.0, 0.05, 0.5, 500.0
R, R_TH, TAU, T_A = 0.6, 4.0, 20.0, 25.0
RATE = 100.0


@pytest.fixture
def rig(context, request):
    r = Rig(context, request.node.name.split('[')[0][-16:] + str(id(request) % 1000))
    yield r
    r.close()


def _values(msg, name):
    status = next((s for s in msg.status if s.name.endswith(name)), None)
    return None if status is None else {v.key: v.value for v in status.values}


def test_the_node_heats_its_motor_model_and_limits_efforts_to_the_envelope(rig):
    # a state_timeout that a loaded machine's pauses do not reach: a stale velocity is unknown,
    # and the envelope then allows the peak torque (test/runtime/test_drivetrain_cycle.py)
    hw = rig.hardware(robot_description=URDF, update_rate=RATE, diagnostic_period=0.1,
                      command_timeout=0.0, state_timeout=1.0)
    assert rig.spin(10.0, lambda: hw.lifecycle_state == 'active'), hw.configure_error
    states = rig.client.create_publisher(JointState, 'actuator_states', 10)
    commands = rig.client.create_publisher(JointState, 'joint_commands', 10)
    sent = rig.record('actuator_commands')
    diagnostics = rig.record('/diagnostics', DiagnosticArray)
    effort = 0.3                      # N m at the hip motor: 6 A
    speed = [0.0]

    def feed():
        states.publish(JointState(name=ACTUATORS, position=[0.0, 0.0], velocity=[speed[0], 0.0],
                                  effort=[effort, 0.0]))
    rig.client.create_timer(1.0 / RATE, feed)
    # the same effort commanded (12 N m at the joint): heated alike if a state comes late
    commands.publish(JointState(name=['hip_joint'], effort=[effort * REDUCTION]))
    core = hw.core
    assert rig.spin(5.0, lambda: core.states.state_time[0] > -math.inf)
    # the first update after the first state heats from the update before it: 0 to 1 period
    start = core.states.state_time[0] - 0.5 / RATE
    wall = time.time() - time.monotonic()   # node stamps (system time) to the steady clock
    assert rig.spin(2.5, lambda: time.monotonic() - start > 2.0)
    diagnostics.clear()
    assert rig.spin(5.0, lambda: any(_values(m, ': hip_trans') for m in diagnostics))
    msg = next(m for m in diagnostics if _values(m, ': hip_trans'))
    stamp = msg.header.stamp.sec + 1e-9 * msg.header.stamp.nanosec - wall
    elapsed = stamp - start
    steady = T_A + R_TH * R * (effort / K_T) ** 2
    expected = steady + (T_A - steady) * math.exp(-elapsed / TAU)
    reported = float(_values(msg, ': hip_trans')['hip_motor.temperature'])
    print(f'\nhip_motor after {elapsed:.3f} s at 6 A: {reported:.3f} C, closed form '
          f'{expected:.3f} C')
    assert reported - T_A == pytest.approx(expected - T_A, rel=0.02)

    # half the maximum speed: the line allows half the peak torque
    speed[0] = 0.5 * MAX_SPEED
    commands.publish(JointState(name=['hip_joint'], effort=[15.0]))   # 0.375 N m at the motor
    line = PEAK * (1.0 - 0.5)

    def limited():
        return any(list(m.name) == ['hip_motor'] and math.isclose(m.effort[0], line, rel_tol=1e-9)
                   for m in sent[-5:])
    assert rig.spin(5.0, limited), [list(m.effort) for m in sent[-5:]]
    sent.clear()
    diagnostics.clear()

    def counted():
        return any((_values(m, 'transmission_hardware_interface') or {}).get(
            'clamped.actuator_torque_speed', '0') != '0' for m in diagnostics)
    assert rig.spin(5.0, counted)
    assert sent and all(m.effort[0] == pytest.approx(line, rel=1e-9) for m in sent)
    hip = _values(diagnostics[-1], ': hip_trans')
    assert int(hip['clamped.hip_motor.torque_speed']) >= 1
    assert hip['hip_joint.effort_reach'] == f'{line * REDUCTION:.6g}'
