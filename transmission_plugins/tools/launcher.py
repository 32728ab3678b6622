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

r"""
The node set of ``transmission_hardware.launch.py``, and a launcher that runs it without ROS.

:func:`node_specs` computes what to start from the launch arguments (``description_file``,
``config_file``, ``use_mock_actuators``); the launch file turns the specs into ``launch_ros``
actions and ``transmission_hardware_launch`` (:func:`main`) starts them as subprocesses::

    transmission_hardware_launch description_file:=robot.urdf.xacro use_mock_actuators:=true \
        --ros-args -r __ns:=/robot1

Both write one parameters file per run (:func:`write_params_file`): the config YAML's sections
with ``robot_description`` added, keyed ``/**/<node_name>`` so that they also apply under a
namespace.  The file lives in a private temporary directory that is removed when the launcher
(or ``ros2 launch``, see :func:`temporary_params_file`) exits.  Everything after ``--ros-args``
is passed to every node.
"""

import argparse
import atexit
import os
from pathlib import Path
import shutil
import sys
import tempfile
from typing import Any
from typing import Dict
from typing import List
from typing import NamedTuple
from typing import Optional
from typing import Sequence
from typing import Tuple

from transmission_plugins.core.exceptions import BadValueError
from transmission_plugins.core.exceptions import TransmissionError
from transmission_plugins.tools.node_set import NodeSet
from transmission_plugins.urdf.xacro_expansion import expand_xacro
from transmission_plugins.urdf.xacro_expansion import uses_xacro
import yaml

PACKAGE = 'transmission_plugins'
HARDWARE_INTERFACE = 'transmission_hardware_interface'
MOCK_ACTUATORS = 'mock_actuators'
ROBOT_STATE_PUBLISHER = 'robot_state_publisher'

#: launch argument -> (default, description); shared with the launch file.
LAUNCH_ARGUMENTS = {
    'description_file': ('', 'URDF or xacro file of the robot; default: the bundled '
                             'urdf/example_robot.urdf.xacro'),
    'config_file': ('', 'ros2_control-style parameters YAML; default: the bundled '
                        'config/transmission_hardware.yaml'),
    'use_mock_actuators': ('true', 'start mock_actuators to simulate the motors'),
}


class LaunchConfigError(TransmissionError, ValueError):
    """A launch argument or the config file is unusable (a TransmissionError and a ValueError)."""


class NodeSpec(NamedTuple):
    """One node to start: what ``launch_ros.actions.Node`` or a subprocess needs."""

    name: str
    package: str
    executable: str
    #: ``python -m`` module for the launcher; None for non-Python executables
    module: Optional[str]
    parameters: Dict[str, Any]


def package_file(*parts: str) -> Path:
    """Return a file of the package's share directory, else of the source tree."""
    try:
        from ament_index_python.packages import get_package_share_directory
        path = Path(get_package_share_directory(PACKAGE)).joinpath(*parts)
        if path.exists():
            return path
    except Exception:  # noqa: B902 - not installed, or AMENT_PREFIX_PATH unset
        pass
    return Path(__file__).resolve().parents[2].joinpath(*parts)


def default_description_file() -> Path:
    """Return the bundled example robot."""
    return package_file('urdf', 'example_robot.urdf.xacro')


def default_config_file() -> Path:
    """Return the bundled parameters file: generic, it names no joint."""
    return package_file('config', 'transmission_hardware.yaml')


def example_config_file() -> Path:
    """Return the parameters of the bundled example robot (joint order, initial positions)."""
    return package_file('config', 'example_robot.yaml')


def read_description(path: 'os.PathLike[str] | str',
                     xacro_args: Optional[Dict[str, str]] = None) -> str:
    """
    Return the URDF text of ``path`` for the nodes' ``robot_description``.

    ``.xacro`` files, and files that hold xacro whatever their name, are expanded by the URDF
    layer (:func:`~transmission_plugins.urdf.xacro_expansion.expand_xacro`, without the loader's
    source-line marks: this text goes to other tools too).

    :param xacro_args: xacro arguments (``name:=value``)
    :raises LaunchConfigError: the file is missing or unreadable, or xacro fails
    """
    path = Path(path)
    if not path.is_file():
        raise LaunchConfigError(f'description_file {str(path)!r} does not exist')
    try:
        text = path.read_text()
        if path.suffix == '.xacro' or uses_xacro(text):
            return expand_xacro(path, xacro_args, source_lines=False)
    except BadValueError as e:
        raise LaunchConfigError(f'xacro failed on {str(path)!r}: {e.message}') from e
    except (OSError, UnicodeDecodeError, TransmissionError) as e:
        raise LaunchConfigError(f'cannot read description_file {str(path)!r}: {e}') from e
    return text


def load_config(path: 'os.PathLike[str] | str') -> Dict[str, Dict[str, Any]]:
    """
    Read a ros2_control-style YAML: ``{node_name: {ros__parameters: {...}}}``.

    :returns: node name (without namespace wildcards) to its parameters
    :raises LaunchConfigError: unreadable YAML or the wrong shape
    """
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text()) or {}
    except (OSError, yaml.YAMLError) as e:
        raise LaunchConfigError(f'cannot read config_file {str(path)!r}: {e}') from e
    if not isinstance(data, dict):
        raise LaunchConfigError(f'{path}: expected a mapping of node names, got '
                                f'{type(data).__name__}')
    out: Dict[str, Dict[str, Any]] = {}
    for key, section in data.items():
        if not isinstance(section, dict) or not isinstance(
                section.get('ros__parameters'), dict):
            raise LaunchConfigError(f'{path}: section {key!r} must hold a ros__parameters '
                                    'mapping')
        name = str(key).rsplit('/', 1)[-1]
        out.setdefault(name, {}).update(section['ros__parameters'])
    return out


def parse_bool(value: Any, name: str) -> bool:
    """Read a launch-style boolean (``true``/``false``, any case, or a bool)."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ('true', '1', 'yes', 'on'):
        return True
    if text in ('false', '0', 'no', 'off'):
        return False
    raise LaunchConfigError(f'{name} must be true or false, got {value!r}')


def robot_state_publisher_executable() -> Optional[str]:
    """Return the robot_state_publisher executable when installed (ament index), else None."""
    for prefix in os.environ.get('AMENT_PREFIX_PATH', '').split(os.pathsep):
        if not prefix:
            continue
        exe = Path(prefix, 'lib', ROBOT_STATE_PUBLISHER, ROBOT_STATE_PUBLISHER)
        if exe.is_file() and os.access(exe, os.X_OK):
            return str(exe)
    return None


def node_specs(description_file: Any = '', config_file: Any = '',
               use_mock_actuators: Any = True,
               robot_state_publisher: Optional[bool] = None) -> List[NodeSpec]:
    """
    Return the nodes the launch file starts, with their parameters.

    :param description_file: URDF/xacro path; empty: the bundled example robot
    :param config_file: parameters YAML; empty: the bundled config
    :param use_mock_actuators: also start ``mock_actuators`` (bool or ``'true'``/``'false'``)
    :param robot_state_publisher: start it; None: when it is installed
    :raises LaunchConfigError: missing files, bad YAML, bad arguments
    """
    description = read_description(description_file or default_description_file())
    config = load_config(config_file or default_config_file())
    mock = parse_bool(use_mock_actuators, 'use_mock_actuators')
    if robot_state_publisher is None:
        robot_state_publisher = robot_state_publisher_executable() is not None

    def params(name: str) -> Dict[str, Any]:
        p = dict(config.get(name, {}))
        p['robot_description'] = description
        return p

    specs = [NodeSpec(HARDWARE_INTERFACE, PACKAGE, 'hardware_interface_node',
                      'transmission_plugins.ros.hardware_interface_node',
                      params(HARDWARE_INTERFACE))]
    if mock:
        specs.append(NodeSpec(MOCK_ACTUATORS, PACKAGE, 'mock_actuators_node',
                              'transmission_plugins.ros.mock_actuators_node',
                              params(MOCK_ACTUATORS)))
    if robot_state_publisher:
        specs.append(NodeSpec(ROBOT_STATE_PUBLISHER, ROBOT_STATE_PUBLISHER,
                              ROBOT_STATE_PUBLISHER, None, params(ROBOT_STATE_PUBLISHER)))
    return specs


def params_document(specs: Sequence[NodeSpec]) -> Dict[str, Any]:
    """Return the parameters YAML document of ``specs``, keyed ``/**/<node_name>``."""
    return {f'/**/{s.name}': {'ros__parameters': s.parameters} for s in specs}


def write_params_file(specs: Sequence[NodeSpec], directory: Optional[str] = None) -> str:
    """Write :func:`params_document` to a file and return its path."""
    fd, path = tempfile.mkstemp(prefix='transmission_hardware_', suffix='.yaml', dir=directory)
    with os.fdopen(fd, 'w') as f:
        yaml.safe_dump(params_document(specs), f, default_flow_style=False, sort_keys=False)
    return path


def temporary_params_file(specs: Sequence[NodeSpec]) -> str:
    """
    Write :func:`params_document` in a new private directory removed when this process exits.

    For the launch file: ``ros2 launch`` gives no hook at the end of a launch, so the directory
    (it holds the whole URDF) is removed by an ``atexit`` handler.  The nodes read the file
    only when they start.
    """
    directory = tempfile.mkdtemp(prefix='transmission_hardware_')
    atexit.register(shutil.rmtree, directory, True)
    return write_params_file(specs, directory)


def command(spec: NodeSpec, params_file: str, ros_args: Sequence[str] = ()) -> List[str]:
    """Return the command line that starts ``spec`` with ``params_file`` and ``ros_args``."""
    if spec.module is not None:
        exe = [sys.executable, '-m', spec.module]
    else:
        found = robot_state_publisher_executable()
        if found is None:
            raise LaunchConfigError(f'{spec.executable} is not installed')
        exe = [found]
    return exe + ['--ros-args', '-r', f'__node:={spec.name}', '--params-file', params_file,
                  *ros_args]


def split_arguments(argv: Sequence[str]) -> Tuple[List[str], List[str]]:
    """Split ``argv`` at ``--ros-args``: (launcher arguments, ROS arguments)."""
    argv = list(argv)
    if '--ros-args' in argv:
        i = argv.index('--ros-args')
        return argv[:i], argv[i + 1:]
    return argv, []


def parse_arguments(argv: Sequence[str]) -> Tuple[Dict[str, str], List[str]]:
    """Parse ``name:=value`` launch arguments (or ``--name value``) and the ROS arguments."""
    own, ros_args = split_arguments(argv)
    parser = argparse.ArgumentParser(
        prog='transmission_hardware_launch',
        description='Start the transmission hardware interface node set without ros2 launch. '
                    'Arguments as in ros2 launch (name:=value); everything after --ros-args '
                    'goes to every node.')
    plain = []
    values: Dict[str, str] = {}
    for a in own:
        if ':=' in a and not a.startswith('-'):
            k, v = a.split(':=', 1)
            if k not in LAUNCH_ARGUMENTS:
                parser.error(f'unknown launch argument {k!r}; known: '
                             f'{", ".join(LAUNCH_ARGUMENTS)}')
            values[k] = v
        else:
            plain.append(a)
    for name, (default, text) in LAUNCH_ARGUMENTS.items():
        parser.add_argument('--' + name.replace('_', '-'), dest=name, default=None, help=text)
    ns = parser.parse_args(plain)
    for name, (default, _) in LAUNCH_ARGUMENTS.items():
        if getattr(ns, name) is not None:
            values[name] = getattr(ns, name)
        values.setdefault(name, default)
    return values, ros_args


def build_commands(values: Dict[str, str], ros_args: Sequence[str],
                   directory: Optional[str] = None) -> Tuple[List[Tuple[str, List[str]]], str]:
    """Return the (name, argv) list of the node set and the parameters file written."""
    specs = node_specs(values['description_file'], values['config_file'],
                       values['use_mock_actuators'])
    params_file = write_params_file(specs, directory)
    return [(s.name, command(s, params_file, ros_args)) for s in specs], params_file


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the node set until Ctrl-C; exit non-zero when a node dies or the arguments are bad."""
    argv = sys.argv[1:] if argv is None else list(argv)
    values, ros_args = parse_arguments(argv)
    # the parameters file holds the whole URDF: a private directory, removed however we exit
    with tempfile.TemporaryDirectory(prefix='transmission_hardware_') as directory:
        try:
            commands, _ = build_commands(values, ros_args, directory)
        except LaunchConfigError as e:
            print(f'transmission_hardware_launch: error: {e}', file=sys.stderr)
            return 2
        nodes = NodeSet(commands)
        for name, argv_ in commands:
            print(f'[launcher] starting {name}: {" ".join(argv_[:3])} ...', flush=True)
        nodes.start()
        return nodes.wait()


if __name__ == '__main__':
    sys.exit(main())
