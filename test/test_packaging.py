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
Packaging: package.xml (every import declared with its rosdep key, the URLs), commands on PATH.

``rosdep install --from-paths src`` installs what package.xml declares and nothing else, so an
undeclared import is a ``ModuleNotFoundError`` for the next ROS user.  Each key below exists in
rosdistro (Kilted ``distribution.yaml`` for ROS packages, ``rosdep/python.yaml`` for the rest).
"""

import ast
import os
from pathlib import Path
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

import pytest
from tp_support import REPO

#: imported module -> rosdep key
ROSDEP_KEYS = {
    'rclpy': 'rclpy', 'rcl_interfaces': 'rcl_interfaces', 'sensor_msgs': 'sensor_msgs',
    'std_msgs': 'std_msgs', 'diagnostic_msgs': 'diagnostic_msgs',
    'lifecycle_msgs': 'lifecycle_msgs', 'builtin_interfaces': 'builtin_interfaces',
    'rosgraph_msgs': 'rosgraph_msgs', 'ament_index_python': 'ament_index_python',
    'launch': 'launch', 'launch_ros': 'launch_ros', 'launch_xml': 'launch_xml',
    'urdf_parser_py': 'urdfdom_py', 'xacro': 'xacro', 'lxml': 'python3-lxml',
    'numpy': 'python3-numpy', 'yaml': 'python3-yaml', 'matplotlib': 'python3-matplotlib',
    'pytest': 'python3-pytest', 'hypothesis': 'python3-hypothesis',
    'ament_copyright': 'ament_copyright', 'ament_flake8': 'ament_flake8',
    'ament_pep257': 'ament_pep257', 'catkin_pkg': 'python3-catkin-pkg',
    'psutil': 'python3-psutil', 'tqdm': 'python3-tqdm',
    'control_msgs': 'control_msgs', 'trajectory_msgs': 'trajectory_msgs',
    'action_msgs': 'action_msgs',
    # no Debian package: rosdep installs them with pip (keys of rosdistro's python.yaml)
    'mujoco': 'python3-mujoco-pip', 'rosbags': 'python3-rosbags-pip',
}
#: optional imports without any rosdep key, each guarded where it is used (ImportError)
OPTIONAL = {
    'pyarrow': 'CSV reading and writing (tools/csv_io), installed with pip; without it the CSV '
               'verbs fail with a message saying so',
    'apsw': "rosbags' faster SQLite for .db3 bags (tools/bag_io); sqlite3 otherwise",
    'mcap': 'a test reads written .mcap bags with the mcap library too, when installed',
    'pydrake': "test_export loads the Drake export with Drake's parser (pip install drake); "
               'it skips saying so without it',
    'pinocchio': "test_export loads the Pinocchio export with Pinocchio's MJCF parser (pip "
                 'install pin); it skips saying so without it',
}
#: test helper modules (any test/**/*.py, and bench/*.py: test/conftest.py puts bench/ on the
#: path for the synthetic robots) and the package itself are not dependencies
NOT_DEPENDENCIES = {'transmission_plugins', 'setuptools'} | {
    p.stem for p in (REPO / 'test').rglob('*.py')} | {
    p.stem for p in (REPO / 'bench').glob('*.py')}
#: what is used without an import: the ros2 command of test/ros_cli, mypy of test_mypy.py,
#: pytest-xdist of scripts/test.sh
TOOLS = {'ros2cli', 'ros2run', 'ros2topic', 'ros2param', 'ros2lifecycle', 'ros2node',
         'python3-mypy', 'python3-pytest-xdist'}


def _dependencies(*tags):
    root = ElementTree.parse(REPO / 'package.xml').getroot()
    return {e.text.strip() for tag in tags for e in root.findall(tag)}


def _imports(paths):
    found = {}
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = [node.module]
            for name in names:
                top = name.split('.')[0]
                if top not in sys.stdlib_module_names and top not in NOT_DEPENDENCIES:
                    found.setdefault(top, str(path.relative_to(REPO)))
    return found


def _python_files(*folders):
    return [p for f in folders for p in sorted(Path(REPO, f).rglob('*.py'))]


def test_every_runtime_import_is_an_exec_depend():
    declared = _dependencies('exec_depend', 'depend')
    imports = _imports(_python_files('transmission_plugins', 'launch'))
    unknown = {m: where for m, where in imports.items()
               if m not in ROSDEP_KEYS and m not in OPTIONAL}
    assert unknown == {}, f'imports without a known rosdep key: {unknown}'
    missing = {ROSDEP_KEYS[m]: where for m, where in imports.items()
               if m in ROSDEP_KEYS and ROSDEP_KEYS[m] not in declared}
    assert missing == {}, f'imports not declared as exec_depend in package.xml: {missing}'


def test_every_test_import_is_declared():
    declared = _dependencies('exec_depend', 'depend', 'test_depend')
    imports = _imports(_python_files('test'))
    unknown = {m: where for m, where in imports.items()
               if m not in ROSDEP_KEYS and m not in OPTIONAL}
    assert unknown == {}, f'imports without a known rosdep key: {unknown}'
    missing = {ROSDEP_KEYS[m]: where for m, where in imports.items()
               if m in ROSDEP_KEYS and ROSDEP_KEYS[m] not in declared}
    assert missing == {}, f'test imports not declared in package.xml: {missing}'
    assert TOOLS <= _dependencies('test_depend')


def test_the_launch_files_dependencies():
    """The .launch.py needs launch and launch_ros, the .launch.xml launch_xml, both ros2launch."""
    declared = _dependencies('exec_depend')
    assert {'launch', 'launch_ros', 'launch_xml', 'ros2launch',
            'robot_state_publisher'} <= declared
    # ros2_control.launch.py: ros2_control_node and the spawner, TopicBasedSystem, controllers
    assert {'controller_manager', 'topic_based_ros2_control', 'joint_state_broadcaster',
            'joint_trajectory_controller'} <= declared


def test_urls_for_the_ros_index_and_bloom():
    root = ElementTree.parse(REPO / 'package.xml').getroot()
    urls = {u.get('type'): u.text for u in root.findall('url')}
    assert set(urls) == {'website', 'repository', 'bugtracker'}
    assert all(u.startswith('https://') for u in urls.values())


def test_package_xml_is_valid_for_catkin_pkg():
    from catkin_pkg.package import parse_package
    package = parse_package(str(REPO / 'package.xml'))
    package.validate()
    assert package.name == 'transmission_plugins'
    assert package.get_build_type() == 'ament_python'


@pytest.mark.process
def test_user_commands_are_on_path_and_nodes_where_ros2_run_looks():
    """In the venv of scripts/setup_env.sh (pip install -e): bin/ and lib/transmission_plugins/."""
    lib = Path(sys.prefix, 'lib', 'transmission_plugins')
    if not lib.is_dir():
        pytest.skip(f'the package is not installed into {sys.prefix} (scripts/setup_env.sh does '
                    'that); test/ros_cli checks a colcon workspace')
    assert sorted(p.name for p in lib.iterdir()) == [
        'hardware_interface_node', 'mock_actuators_node', 'sim_interface_node',
        'transmission_hardware_launch', 'transmission_plugins']
    for name in ('transmission_plugins', 'transmission_hardware_launch'):
        exe = Path(sys.prefix, 'bin', name)
        assert exe.is_file(), f'{name} is not on PATH in the venv'
        out = subprocess.run([str(exe), '--help'], capture_output=True, text=True, timeout=60)
        assert out.returncode == 0 and name in out.stdout
    # the node executables are not commands a user types: not on PATH
    for node in ('hardware_interface_node', 'mock_actuators_node', 'sim_interface_node'):
        assert not Path(sys.prefix, 'bin', node).exists()


def test_optional_imports_are_guarded():
    """A module importing a package without rosdep key handles its absence (ImportError)."""
    for path in _python_files('transmission_plugins'):
        found = _imports([path])
        optional = sorted(set(found) & set(OPTIONAL))
        if optional:
            handlers = [ast.unparse(h.type) for h in ast.walk(ast.parse(path.read_text()))
                        if isinstance(h, ast.ExceptHandler) and h.type is not None]
            assert any('ImportError' in h for h in handlers), (
                f'{path.relative_to(REPO)} imports {optional} without handling ImportError')


@pytest.mark.process
def test_a_machine_without_a_c_compiler_is_told_what_to_install(tmp_path):
    """The kernel's build says what is missing in one message, before it compiles anything."""
    env = dict(os.environ, CC=str(tmp_path / 'no-such-compiler'))
    out = subprocess.run([sys.executable, 'setup.py', 'build_ext', '--build-temp',
                          str(tmp_path / 'temp'), '--build-lib', str(tmp_path / 'lib')],
                         cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode != 0
    message = out.stderr.strip().splitlines()[-1]
    assert 'needs a C compiler' in message and 'no-such-compiler' in message
    assert 'apt install gcc python3-dev' in message
    assert not (tmp_path / 'temp').exists()   # nothing was compiled


@pytest.mark.process
def test_the_kernel_builds_through_a_symlinked_setup_py(tmp_path):
    """The kernel builds as colcon --symlink-install runs setup.py: a symlink, and no src/."""
    for name in ('setup.py', 'setup.cfg', 'transmission_plugins'):
        (tmp_path / name).symlink_to(REPO / name)
    out = subprocess.run([sys.executable, 'setup.py', 'build_ext', '--build-temp',
                          str(tmp_path / 'temp'), '--build-lib', str(tmp_path / 'lib')],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    (built,) = (tmp_path / 'lib' / 'transmission_plugins' / 'core').glob('kernel*.so')
    assert b'PyInit_kernel' in built.read_bytes()   # the module, not an empty library
    assert sorted(p.name for p in (tmp_path / 'temp').rglob('*.o')) == sorted(
        p.with_suffix('.o').name for p in (REPO / 'src' / 'kernel').glob('*.c'))
