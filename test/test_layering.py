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
The package's layers import one way, and the maths needs neither lxml nor rclpy.

Layers, lowest first: core, urdf, transmissions, plugins, robot, runtime, ros, tools.  A module
may import its own layer and the layers below; only ros/ and tools/ may import rclpy or ROS
message packages; core/ and transmissions/ import neither lxml nor rclpy, statically and at run
time (nor do the urdf/ modules transmissions import: the records, readers and vocabulary);
``import transmission_plugins`` imports neither.
"""

import ast
import subprocess
import sys
import textwrap

import pytest

from tp_support import PACKAGE_DIR

LAYERS = ('core', 'urdf', 'transmissions', 'plugins', 'robot', 'runtime', 'ros', 'tools')
#: top-level modules: the public names (lazy) and ``python -m transmission_plugins`` (a tool)
TOP_LEVEL = {'__init__': None, '__main__': 'tools'}
ROS_PACKAGES = ('rclpy', 'rcl_interfaces', 'sensor_msgs', 'std_msgs', 'diagnostic_msgs',
                'lifecycle_msgs', 'launch', 'launch_ros', 'ament_index_python',
                'builtin_interfaces')


def _modules():
    for path in sorted(PACKAGE_DIR.rglob('*.py')):
        parts = path.relative_to(PACKAGE_DIR).with_suffix('').parts
        layer = parts[0] if len(parts) > 1 else TOP_LEVEL[parts[0]]
        yield path, '.'.join(('transmission_plugins',) + parts), layer


MODULES = list(_modules())


def _imports(path):
    """Yield every module name imported anywhere in the file (functions included)."""
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            yield node.module
            for alias in node.names:  # ``from transmission_plugins.ros import common``
                yield f'{node.module}.{alias.name}'


def _layer_of(module):
    parts = module.split('.')
    if parts[0] != 'transmission_plugins' or len(parts) < 2:
        return None
    return parts[1] if parts[1] in LAYERS else None


def test_every_module_belongs_to_a_layer():
    assert {layer for _, _, layer in MODULES} - {None} == set(LAYERS)
    for path, name, layer in MODULES:
        assert layer in LAYERS or name == 'transmission_plugins.__init__', name


@pytest.mark.parametrize('path, name, layer', [m for m in MODULES if m[2] is not None],
                         ids=[m[1] for m in MODULES if m[2] is not None])
def test_imports_point_down(path, name, layer):
    rank = LAYERS.index(layer)
    upward = sorted({m for m in _imports(path)
                     if _layer_of(m) is not None and LAYERS.index(_layer_of(m)) > rank})
    assert not upward, f'{name} ({layer}) imports higher layers: {upward}'


@pytest.mark.parametrize('path, name, layer', MODULES, ids=[m[1] for m in MODULES])
def test_only_ros_and_tools_import_ros(path, name, layer):
    ros = sorted({m for m in _imports(path) if m.split('.')[0] in ROS_PACKAGES})
    if layer not in ('ros', 'tools'):
        assert not ros, f'{name} ({layer}) imports ROS packages: {ros}'


@pytest.mark.parametrize('path, name, layer',
                         [m for m in MODULES if m[2] in ('core', 'transmissions')],
                         ids=[m[1] for m in MODULES if m[2] in ('core', 'transmissions')])
def test_maths_imports_neither_lxml_nor_rclpy(path, name, layer):
    bad = sorted({m for m in _imports(path) if m.split('.')[0] in ('lxml', 'rclpy')})
    assert not bad, f'{name} imports {bad}'


def _run(code):
    return subprocess.run([sys.executable, '-c', textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=120)


def test_importing_the_maths_loads_neither_lxml_nor_rclpy_at_run_time():
    result = _run("""
        import sys
        import transmission_plugins
        from transmission_plugins import SimpleTransmission, PR2GripperTransmission
        import transmission_plugins.urdf.readers
        import transmission_plugins.transmissions
        t = SimpleTransmission(10.0)
        t.actuator_to_joint({'position': [1.0]})
        print(sorted(m for m in ('lxml', 'rclpy', 'urdf_parser_py', 'xacro') if m in sys.modules))
        """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == '[]'


def test_loading_a_robot_never_imports_rclpy():
    result = _run("""
        import sys
        from transmission_plugins import load_robot_transmissions
        robot = load_robot_transmissions(
            '<robot name="r"><link name="a"/><link name="b"/>'
            '<joint name="j" type="continuous"><parent link="a"/><child link="b"/></joint>'
            '<transmission name="t"><type>transmission_interface/SimpleTransmission</type>'
            '<joint name="j"/><actuator name="m"><mechanicalReduction>5</mechanicalReduction>'
            '</actuator></transmission></robot>')
        import transmission_plugins.runtime.hardware_interface
        import transmission_plugins.runtime.simulator
        print(robot.joint_names, 'rclpy' in sys.modules)
        """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "['j'] False"


#: what no package module may use (issue 24): private APIs of rclpy and CPython, garbage
#: collector and native-timer tricks, switches that pick an implementation
FORBIDDEN = ('_callback_type', '_run_exitfuncs', 'gc.freeze', 'gc.unfreeze', 'timer_create',
             'TP_COMPILED', 'TP_EXECUTOR', 'TP_STOP_GRACE', 'rclpy.experimental',
             '__signature__', 'faulthandler.dump_traceback_later')


@pytest.mark.parametrize('path, name, layer', MODULES, ids=[m[1] for m in MODULES])
def test_no_private_api_no_implementation_switch(path, name, layer):
    text = path.read_text()
    used = [word for word in FORBIDDEN if word in text]
    assert not used, f'{name} uses {used}'


def test_no_launch_description_changes_signal_handling():
    """A launch file included in a user's own must not change Ctrl-C for the whole system."""
    for path in [*sorted((PACKAGE_DIR / 'tools' / 'launch').glob('*_launch.py')),
                 PACKAGE_DIR / 'tools' / 'launch' / 'launch_description.py',
                 *sorted((PACKAGE_DIR.parent / 'launch').glob('*.py'))]:
        text = path.read_text()
        assert 'signal.signal(' not in text and 'set_wakeup_fd' not in text, path
