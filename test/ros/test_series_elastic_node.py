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
A series-elastic transmission through the real hardware interface node and DDS (issue 36).

The rig of ``test_misuse.py``: the node in this process, a client node publishing
``actuator_states`` by hand (the knee deflected by a known amount) and an effort command, and
reading ``actuator_commands``, ``joint_deflections`` and ``/diagnostics``.  Expected numbers by
hand: the motor position target ``n (q + tau / k)``, the spring torque ``k delta + d rate``.
"""

from diagnostic_msgs.msg import DiagnosticArray
import pytest
from sea_leg import D
from sea_leg import K
from sea_leg import N
from sea_leg import ROBOT
from sea_leg import SPRING
from sensor_msgs.msg import JointState
from test_misuse import Rig

pytestmark = pytest.mark.ros
#: this module's range of ROS domains (ros_domain, the conftest's context)
ROS_DOMAINS = (100, 5)

URDF = ROBOT.format(spring=SPRING)
RATE = 100.0


@pytest.fixture
def rig(context, request):
    r = Rig(context, request.node.name.split('[')[0][-16:] + str(id(request) % 1000))
    yield r
    r.close()


def test_an_effort_command_becomes_a_motor_position_and_deflections_are_published(rig):
    hw = rig.hardware(robot_description=URDF, update_rate=RATE, diagnostic_period=0.1,
                      command_timeout=0.0, state_timeout=1.0)
    assert rig.spin(10.0, lambda: hw.lifecycle_state == 'active'), hw.configure_error
    states = rig.client.create_publisher(JointState, 'actuator_states', 10)
    commands = rig.client.create_publisher(JointState, 'joint_commands', 10)
    sent = rig.record('actuator_commands')
    deflections = rig.record('joint_deflections')
    joint_states = rig.record('joint_states')
    diagnostics = rig.record('/diagnostics', DiagnosticArray)
    q, delta, q_dot, rate = 0.2, 0.01, 0.4, 0.1

    def feed():   # the driver reports no effort field at all
        states.publish(JointState(name=['hip_motor', 'knee_motor', 'knee_encoder'],
                                  position=[0.0, N * (q + delta), q],
                                  velocity=[0.0, N * (q_dot + rate), q_dot]))
    rig.client.create_timer(1.0 / RATE, feed)
    assert rig.spin(5.0, lambda: len(deflections) > 3), len(joint_states)
    msg = deflections[-1]
    assert list(msg.name) == ['knee_joint']
    assert msg.position[0] == pytest.approx(delta)
    assert msg.velocity[0] == pytest.approx(rate)
    assert msg.effort[0] == pytest.approx(K * delta + D * rate)
    assert len(joint_states) >= len(deflections) - 1   # published with every joint_states

    tau = 6.0
    target = N * (q + tau / K)

    def targeted():
        return any(list(m.name) == ['knee_motor'] and len(m.position) == 1
                   and m.position[0] == pytest.approx(target) for m in sent[-5:])
    assert rig.spin(5.0, lambda: commands.publish(JointState(name=['knee_joint'],
                                                             effort=[tau])) or targeted()), \
        [(list(m.name), list(m.position), list(m.effort)) for m in sent[-5:]]
    assert all('knee_encoder' not in m.name for m in sent)
    assert all(len(m.effort) == 0 for m in sent if 'knee_motor' in m.name)

    def measured():   # 'unknown' while the states are stale: a loaded machine's pause
        return [values for m in diagnostics for s in m.status if s.name.endswith(': knee_sea')
                for values in [{v.key: v.value for v in s.values}]
                if values.get('knee_joint.deflection', 'unknown') != 'unknown']
    assert rig.spin(5.0, measured)
    values = measured()[-1]
    assert float(values['knee_joint.deflection']) == pytest.approx(delta)
    assert float(values['knee_joint.spring_torque']) == pytest.approx(K * delta + D * rate)


def test_help_names_the_deflection_topic():
    from transmission_plugins.ros.executables import node_help
    text = node_help('hardware_interface_node')
    assert 'joint_deflections' in text and 'spring torque' in text
