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

"""The helpers both nodes share (``ros_common``), without starting rclpy."""

import ast

from rcl_interfaces.msg import ParameterType
from rclpy.exceptions import ParameterUninitializedException
from rclpy.parameter import Parameter
from tp_support import PACKAGE_DIR
from transmission_plugins.ros import common as ros_common
from transmission_plugins.ros import hardware_interface_node
from transmission_plugins.ros import mock_actuators_node
from transmission_plugins.ros import node_parameters
from transmission_plugins.runtime.node_settings import DECLARATIONS
from transmission_plugins.runtime.settings import Declaration
from transmission_plugins.runtime.settings import Setting
from transmission_plugins.urdf.text import MAX_URDF_BYTES


class FakeNode:
    """Records ``declare_parameter`` calls; answers ``get_parameter``."""

    def __init__(self, values=None) -> None:
        self.declared = {}
        self.values = values or {}

    def declare_parameter(self, name, value, descriptor):
        self.declared[name] = (value, descriptor)

    def get_parameter(self, name):
        value = self.values[name]
        if isinstance(value, Exception):
            raise value
        return Parameter(name, value=value)


def test_declare_parameters_types_and_descriptions():
    node = FakeNode()
    node_parameters.declare_parameters(node, Declaration('n', [
        Setting('rate', 1.0, 'Hz'), Setting('names', [], 'joints'), Setting('on', True, 'switch'),
        Setting('n', 3, 'count')]))
    value, d = node.declared['rate']
    assert value == 1.0 and d.dynamic_typing and d.type == ParameterType.PARAMETER_NOT_SET
    value, d = node.declared['names']
    assert value == Parameter.Type.STRING_ARRAY and d.description == 'joints'
    assert node.declared['on'][1].type == ParameterType.PARAMETER_BOOL
    assert node.declared['n'][1].type == ParameterType.PARAMETER_INTEGER


def test_parameter_value_reads_unset_arrays_as_empty():
    node = FakeNode({'a': None, 'b': ParameterUninitializedException('b'), 'c': 2.5})
    assert ros_common.parameter_value(node, 'a') == []
    assert ros_common.parameter_value(node, 'b') == []
    assert ros_common.parameter_value(node, 'c') == 2.5


def test_nodes_share_the_helpers_through_ros_common():
    """The mock does not borrow helpers from the hardware interface node."""
    tree = ast.parse((PACKAGE_DIR / 'ros' / 'mock_actuators_node.py').read_text())
    modules = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert 'transmission_plugins.ros.hardware_interface_node' not in modules
    for module in (hardware_interface_node, mock_actuators_node):
        assert module.PARAMETERS['robot_description'].check('x' * (MAX_URDF_BYTES + 1))
        assert module.PARAMETERS is DECLARATIONS[module.NODE_NAME]
        assert 'declare_parameters' not in vars(module) or \
            module.declare_parameters is node_parameters.declare_parameters


def test_stale_and_calibration_lines_change_severity_at_one_place():
    """
    Stale states (warning), fresh again (info), homing (info, error) are logged; nothing raises.

    The demo's hardware interface died of a stale line after its homing lines.
    """
    from rclpy.logging import get_logger
    from transmission_plugins.ros.cycle_driver import log_at
    logger = get_logger('tp_test_log_at')
    for level in ('info', 'warning', 'info', 'error', 'warning', 'info', 'error'):
        log_at(logger, level, f'a {level} line')
