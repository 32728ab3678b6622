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
What ``transmission_hardware.launch.py`` and the launcher start, computed from launch arguments.

:data:`LAUNCH_ARGUMENTS` are the arguments both accept (``name:=value``); :func:`plan_nodes`
reads them once (description file, xacro, config YAML, checks) and returns a :class:`NodePlan`:
the nodes to start with their parameters, the ones skipped with the reason, and the settings
that apply to every node (namespace, log level).  The launch file turns the plan into
``launch_ros`` actions (:mod:`.launch_description`), the launcher into subprocesses.

The node kinds are one table, :data:`NODE_KINDS`: one more kind is one more row with the modes
it belongs to (doc/launch.md) and the rule that decides whether it starts.
"""

import os
from pathlib import Path
import shlex
from typing import Any
from typing import Callable
from typing import Mapping
from typing import NamedTuple

from transmission_plugins.core.exceptions import BadValueError
from transmission_plugins.core.exceptions import TransmissionError
from transmission_plugins.core.exceptions import TransmissionFileError
from transmission_plugins.runtime.node_settings import DECLARATIONS
from transmission_plugins.runtime.node_settings import HARDWARE_INTERFACE_NODE
from transmission_plugins.runtime.node_settings import MOCK_ACTUATORS_NODE
from transmission_plugins.runtime.node_settings import SIM_INTERFACE_NODE
from transmission_plugins.runtime.settings import InvalidParameters
from transmission_plugins.urdf.text import MAX_URDF_BYTES
from transmission_plugins.urdf.user_files import read_user_file
from transmission_plugins.urdf.user_yaml import read_yaml_file
from transmission_plugins.urdf.xacro_expansion import expand_xacro
from transmission_plugins.urdf.xacro_expansion import uses_xacro

PACKAGE = 'transmission_plugins'
HARDWARE_INTERFACE = HARDWARE_INTERFACE_NODE
SIM_INTERFACE = SIM_INTERFACE_NODE
MOCK_ACTUATORS = MOCK_ACTUATORS_NODE
ROBOT_STATE_PUBLISHER = 'robot_state_publisher'

#: launch argument -> (default, description); the launch files and the launcher share it.
LAUNCH_ARGUMENTS = {
    'description_file': ('', 'URDF or xacro file of the robot; default: the bundled '
                             'urdf/example_robot.urdf.xacro'),
    'config_file': ('', 'ros2_control-style parameters YAML; default: the bundled '
                        'config/transmission_hardware.yaml'),
    'use_mock_actuators': ('true', 'start mock_actuators to simulate the motors (mode '
                                   'hardware)'),
    'mode': ('hardware', 'hardware: the hardware interface, motors to robot; simulation: the '
                         'simulation interface, a joint-space simulator to motor-level software'),
    'namespace': ('', 'namespace of every node, e.g. robot1; default: the root namespace'),
    'use_sim_time': ('false', 'every node takes its time from the /clock topic'),
    'log_level': ('info', 'log level of every node: debug, info, warn, error or fatal'),
    'update_rate': ('', "the interface's cycle rate in Hz; default: config_file's (100 Hz in "
                        'the bundled one)'),
    'xacro_args': ('', 'xacro arguments for description_file: name:=value pairs separated by '
                       'spaces'),
    'lenient': ('', 'load the description leniently (true) or strictly (false); default: '
                    "config_file's (strict in the bundled one)"),
    'actuator_states_topic': ('actuator_states', "the actuator states topic (a driver's name "
                                                 'for it, relative or absolute): every node of '
                                                 'the set is remapped to it'),
    'actuator_commands_topic': ('actuator_commands', 'the actuator commands topic (a '
                                                     "driver's name for it, relative or "
                                                     'absolute): every node of the set is '
                                                     'remapped to it'),
}
#: the launch arguments that rename a topic of the package's nodes: argument -> topic
TOPIC_ARGUMENTS = {'actuator_states_topic': 'actuator_states',
                   'actuator_commands_topic': 'actuator_commands'}

LOG_LEVELS = ('debug', 'info', 'warn', 'error', 'fatal')
#: the values of the ``mode`` argument
MODES = ('hardware', 'simulation')


class LaunchConfigError(TransmissionError, ValueError):
    """A launch argument or the config file is unusable (a TransmissionError and a ValueError)."""


class NodeSpec(NamedTuple):
    """One node to start: what ``launch_ros.actions.Node`` or a subprocess needs."""

    name: str
    package: str
    executable: str
    #: the node's Python module (run by the launcher); None for non-Python executables
    module: str | None
    parameters: dict[str, Any]
    #: topic remappings ``(from, to)`` (``ros2_control.launch.py`` moves the hardware
    #: interface's ``joint_states`` and ``joint_commands`` out of ros2_control's way)
    remappings: tuple[tuple[str, str], ...] = ()


class Settings(NamedTuple):
    """The launch arguments, read and checked."""

    description: str
    config: dict[str, dict[str, Any]]
    use_mock_actuators: bool
    #: one of :data:`MODES`
    mode: str
    namespace: str
    use_sim_time: bool
    log_level: str
    #: parameters set by launch arguments, for the node kinds that take them
    overrides: dict[str, Any]
    robot_state_publisher: bool
    #: the package's topics the launch arguments rename, ``(from, to)``
    remappings: tuple[tuple[str, str], ...] = ()


class NodeKind(NamedTuple):
    """A row of :data:`NODE_KINDS`."""

    name: str
    package: str
    executable: str
    module: str | None
    #: None when the node starts, else why it does not
    skip_reason: Callable[[Settings], str | None]
    #: which :attr:`Settings.overrides` it takes
    takes: tuple[str, ...] = ()
    #: the modes (:data:`MODES`) it belongs to
    modes: tuple[str, ...] = MODES


class NodePlan(NamedTuple):
    """The nodes to start, the nodes skipped and the settings every node gets."""

    specs: list[NodeSpec]
    #: (node name, why it is not started)
    skipped: list[tuple[str, str]]
    namespace: str
    log_level: str


def _mock_skip(s: Settings) -> str | None:
    if s.mode == 'simulation':
        return ('mode is simulation: the simulator stands in for the motors '
                f'({SIM_INTERFACE} publishes actuator_states)')
    return None if s.use_mock_actuators else 'use_mock_actuators is false'


def _rsp_skip(s: Settings) -> str | None:
    if s.robot_state_publisher:
        return None
    return ('not installed (no lib/robot_state_publisher/robot_state_publisher under '
            'AMENT_PREFIX_PATH), so this launch publishes no TF; install it with rosdep or '
            'ros-$ROS_DISTRO-robot-state-publisher')


#: every node the launch can start, in start order
NODE_KINDS = (
    NodeKind(HARDWARE_INTERFACE, PACKAGE, 'hardware_interface_node',
             'transmission_plugins.ros.hardware_interface_node', lambda s: None,
             takes=('update_rate', 'lenient'), modes=('hardware',)),
    NodeKind(SIM_INTERFACE, PACKAGE, 'sim_interface_node',
             'transmission_plugins.ros.sim_interface_node', lambda s: None,
             takes=('update_rate', 'lenient'), modes=('simulation',)),
    NodeKind(MOCK_ACTUATORS, PACKAGE, 'mock_actuators_node',
             'transmission_plugins.ros.mock_actuators_node', _mock_skip, takes=('lenient',)),
    NodeKind(ROBOT_STATE_PUBLISHER, ROBOT_STATE_PUBLISHER, ROBOT_STATE_PUBLISHER, None,
             _rsp_skip),
)


def package_file(*parts: str) -> Path:
    """Return a file of the package's share directory, else of the source tree."""
    try:
        from ament_index_python.packages import get_package_share_directory
        path = Path(get_package_share_directory(PACKAGE)).joinpath(*parts)
        if path.exists():
            return path
    except Exception:  # noqa: B902 - not installed, or AMENT_PREFIX_PATH unset
        pass
    return Path(__file__).resolve().parents[3].joinpath(*parts)


def default_description_file() -> Path:
    """Return the bundled example robot."""
    return package_file('urdf', 'example_robot.urdf.xacro')


def default_config_file() -> Path:
    """Return the bundled parameters file: generic, it names no joint."""
    return package_file('config', 'transmission_hardware.yaml')


def example_config_file() -> Path:
    """Return the parameters of the bundled example robot (joint order, initial positions)."""
    return package_file('config', 'example_robot.yaml')


def parse_xacro_args(text: Any) -> dict[str, str]:
    """
    Read ``xacro_args``: ``name:=value`` pairs separated by spaces (shell quoting allowed).

    :raises LaunchConfigError: a word that is not ``name:=value``
    """
    try:
        words = shlex.split(str(text or ''))
    except ValueError as e:
        raise LaunchConfigError(f'xacro_args {text!r}: {e}') from e
    out: dict[str, str] = {}
    for word in words:
        name, sep, value = word.partition(':=')
        if not sep or not name:
            raise LaunchConfigError(f'xacro_args: expected name:=value pairs separated by '
                                    f'spaces, got {word!r}')
        out[name] = value
    return out


def read_description(path: 'os.PathLike[str] | str',
                     xacro_args: Mapping[str, str] | None = None) -> str:
    """
    Return the URDF text of ``path`` for the nodes' ``robot_description``.

    ``.xacro`` files, and files that hold xacro whatever their name, are expanded by the URDF
    layer (:func:`~transmission_plugins.urdf.xacro_expansion.expand_xacro`, without the loader's
    source-line marks: this text goes to other tools too).

    :param xacro_args: xacro arguments (``name:=value``)
    :raises LaunchConfigError: the file is missing or unreadable, or xacro fails
    """
    path = Path(path)
    if not path.exists():
        raise LaunchConfigError(f'description_file {str(path)!r} does not exist')
    try:
        text = read_user_file(path, 'description_file', MAX_URDF_BYTES).decode()
        if path.suffix == '.xacro' or uses_xacro(text):
            return expand_xacro(path, dict(xacro_args or {}), source_lines=False)
    except BadValueError as e:
        raise LaunchConfigError(f'xacro failed on {str(path)!r}: {e.message}') from e
    except TransmissionFileError as e:   # not a regular file, or too large
        raise LaunchConfigError(str(e)) from e
    except (OSError, UnicodeDecodeError, TransmissionError) as e:
        raise LaunchConfigError(f'cannot read description_file {str(path)!r}: {e}') from e
    return text


def load_config(path: 'os.PathLike[str] | str') -> dict[str, dict[str, Any]]:
    """Read the ``config_file``: node name to its parameters, each section checked."""
    return load_sections(path, 'config_file', 'node', check_section)


def load_sections(path: 'os.PathLike[str] | str', argument: str, names: str,
                  check: Callable[[Path, str, Mapping[str, Any]], None] | None = None
                  ) -> dict[str, dict[str, Any]]:
    """
    Read a ros2_control-style YAML: ``<name>`` or ``/**/<name>`` to ``{ros__parameters: ...}``.

    :param argument: the launch argument that names the file, for messages (``config_file``)
    :param names: what the sections name, for messages (``node``)
    :param check: called with the path, the name and the parameters of each section
    :returns: name (without namespace wildcards) to its parameters
    :raises LaunchConfigError: unreadable YAML or the wrong shape
    """
    path = Path(path)
    try:   # bounded, and without aliases (transmission_plugins.urdf.user_yaml)
        data = read_yaml_file(path, argument) or {}
    except OSError as e:
        raise LaunchConfigError(f'cannot read {argument} {str(path)!r}: {e.strerror or e}') from e
    if not isinstance(data, dict):
        raise LaunchConfigError(f'{path}: expected a mapping of {names} names, got '
                                f'{type(data).__name__}')
    out: dict[str, dict[str, Any]] = {}
    for key, section in data.items():
        if not isinstance(section, dict) or not isinstance(
                section.get('ros__parameters'), dict):
            raise LaunchConfigError(f'{path}: section {key!r} must hold a ros__parameters '
                                    'mapping')
        name = str(key).rsplit('/', 1)[-1]
        if check is not None:
            check(path, name, section['ros__parameters'])
        out.setdefault(name, {}).update(section['ros__parameters'])
    return out


def node_parameters() -> dict[str, tuple[str, ...]]:
    """Return the parameter names each of the package's nodes declares (rclpy's included)."""
    common = ('use_sim_time', 'start_type_description_service')
    return {node: tuple(declaration) + common for node, declaration in DECLARATIONS.items()}


def check_section(path: Path, node: str, parameters: Mapping[str, Any]) -> None:
    """
    Refuse a section for no node of the set, a parameter its node lacks, a value it refuses.

    A value is checked by the node's own check, with its message.  A misspelt name would
    otherwise be ignored without a word (rclpy keeps overrides of undeclared parameters to
    itself); ``qos_overrides.*`` and ``robot_state_publisher``'s own parameters are that node's
    business.  The hardware interface's ``joint_limits`` (nested, or
    ``joint_limits.<joint>.<key>``) are checked key by key; the joints are checked at configure.

    :raises LaunchConfigError: naming the section or parameter and the closest known name
    """
    known = node_parameters()
    if node == ROBOT_STATE_PUBLISHER:
        return
    if node not in known:
        raise LaunchConfigError(f'{path}: section {node!r} names no node of this launch '
                                f'({", ".join(sorted(known) + [ROBOT_STATE_PUBLISHER])})'
                                f'{_closest(node, list(known))}')
    for name in parameters:
        if str(name).startswith('qos_overrides.') or name in known[node]:
            reason = DECLARATIONS[node].reason(str(name), parameters[name])
            if reason is not None:
                raise LaunchConfigError(f'{path}: {node}: {reason}')
            continue
        if node == HARDWARE_INTERFACE and str(name).split('.')[0] == 'joint_limits':
            _check_joint_limits(path, str(name), parameters[name])
            continue
        raise LaunchConfigError(f'{path}: {node} has no parameter {name!r}'
                                f'{_closest(str(name), list(known[node]))} (doc/nodes.md lists '
                                'them; ros2 run transmission_plugins <executable> --help too)')


def _check_joint_limits(path: Path, name: str, value: Any) -> None:
    """Refuse a ``joint_limits`` entry that is not ``joint_limits.<joint>.<known key>``."""
    from transmission_plugins.runtime.soft_limits import JOINT_LIMIT_PARAMETERS
    entries: dict[str, Any] = {}
    parts = name.split('.')
    if len(parts) == 3:
        entries[name] = value
    elif len(parts) == 2 and isinstance(value, dict):
        entries.update((f'{name}.{k}', v) for k, v in value.items())
    elif len(parts) == 1 and isinstance(value, dict):
        for joint, keys in value.items():
            if not isinstance(keys, dict):
                raise LaunchConfigError(f'{path}: joint_limits.{joint} must map keys to values')
            entries.update((f'joint_limits.{joint}.{k}', v) for k, v in keys.items())
    else:
        raise LaunchConfigError(f'{path}: {name} must be joint_limits.<joint>.<key>')
    for full in entries:
        key = full.split('.', 2)[2]
        if key not in JOINT_LIMIT_PARAMETERS:
            raise LaunchConfigError(f'{path}: {HARDWARE_INTERFACE} has no parameter {full!r} '
                                    f'(the joint_limits keys: '
                                    f'{", ".join(JOINT_LIMIT_PARAMETERS)})')


def _closest(name: str, names: list[str]) -> str:
    """Return ``; did you mean 'x'?`` for the closest of ``names``, or ''."""
    import difflib
    close = difflib.get_close_matches(name, names, n=1)
    return f'; did you mean {close[0]!r}?' if close else ''


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


def parse_log_level(value: Any) -> str:
    """Read ``log_level`` (any case; ``warning`` is ``warn``)."""
    text = str(value).strip().lower()
    text = 'warn' if text == 'warning' else text
    if text not in LOG_LEVELS:
        raise LaunchConfigError(f'log_level must be one of {", ".join(LOG_LEVELS)}, got '
                                f'{value!r}')
    return text


def parse_mode(value: Any) -> str:
    """Read ``mode``: ``hardware`` or ``simulation`` (any case)."""
    text = str(value).strip().lower()
    if text not in MODES:
        raise LaunchConfigError(f'mode must be one of {", ".join(MODES)}, got {value!r}')
    return text


def parse_topic(value: Any, name: str) -> str:
    """
    Read a topic name argument (relative, absolute or ``~/``), as ``ros2 run -r`` would take it.

    :raises LaunchConfigError: not a valid ROS topic name (rclpy's rules), naming the argument
    """
    from rclpy.exceptions import InvalidTopicNameException
    from rclpy.validate_topic_name import validate_topic_name
    text = str(value).strip()
    try:
        validate_topic_name(text)
    except InvalidTopicNameException as e:
        reason = str(e).splitlines()[0]
        raise LaunchConfigError(f'{name}: {text!r} is not a valid topic name ({reason})') from None
    return text


def parse_parameter(name: str, value: Any) -> Any:
    """
    Read a launch argument that sets the interface's parameter ``name`` (``update_rate``).

    The text is read as ``-p name:=value`` gives it the node and checked by the parameter's
    declared record (:meth:`~transmission_plugins.runtime.settings.Setting.value_of`): the
    launch refuses what the node would refuse, with the node's message.

    :raises LaunchConfigError: the node's reason
    """
    try:
        return DECLARATIONS[HARDWARE_INTERFACE][name].value_of(value)
    except InvalidParameters as e:
        raise LaunchConfigError(str(e)) from None


def installed_executable(package: str, executable: str) -> str | None:
    """Return ``lib/<package>/<executable>`` of the first ament prefix that has it, else None."""
    for prefix in os.environ.get('AMENT_PREFIX_PATH', '').split(os.pathsep):
        if not prefix:
            continue
        exe = Path(prefix, 'lib', package, executable)
        if exe.is_file() and os.access(exe, os.X_OK):
            return str(exe)
    return None


def robot_state_publisher_executable() -> str | None:
    """Return the robot_state_publisher executable when installed (ament index), else None."""
    return installed_executable(ROBOT_STATE_PUBLISHER, ROBOT_STATE_PUBLISHER)


def read_settings(values: Mapping[str, Any],
                  robot_state_publisher: bool | None = None) -> Settings:
    """
    Read and check the launch arguments (missing ones take their defaults).

    :param robot_state_publisher: start it; None: when it is installed
    :raises LaunchConfigError: missing files, bad YAML, bad arguments
    """
    def value(name: str) -> Any:
        v = values.get(name)
        return LAUNCH_ARGUMENTS[name][0] if v is None else v

    xacro_args = parse_xacro_args(value('xacro_args'))
    description = read_description(value('description_file') or default_description_file(),
                                   xacro_args)
    config = load_config(value('config_file') or default_config_file())
    overrides: dict[str, Any] = {}
    if str(value('update_rate')).strip():
        overrides['update_rate'] = parse_parameter('update_rate', value('update_rate'))
    if str(value('lenient')).strip():
        overrides['lenient'] = parse_bool(value('lenient'), 'lenient')
    if robot_state_publisher is None:
        robot_state_publisher = robot_state_publisher_executable() is not None
    remappings = tuple((topic, parse_topic(value(name), name))
                       for name, topic in TOPIC_ARGUMENTS.items())
    return Settings(description=description, config=config,
                    use_mock_actuators=parse_bool(value('use_mock_actuators'),
                                                  'use_mock_actuators'),
                    mode=parse_mode(value('mode')),
                    namespace=str(value('namespace')).strip(),
                    use_sim_time=parse_bool(value('use_sim_time'), 'use_sim_time'),
                    log_level=parse_log_level(value('log_level')),
                    overrides=overrides,
                    robot_state_publisher=robot_state_publisher,
                    remappings=tuple(r for r in remappings if r[0] != r[1]))


def plan_nodes(values: Mapping[str, Any],
               robot_state_publisher: bool | None = None) -> NodePlan:
    """
    Return what to start for the launch arguments ``values`` (see :func:`read_settings`).

    Every node gets its section of the config file, ``robot_description`` and
    ``use_sim_time``; a kind that takes an argument-set parameter (``update_rate``) gets it over
    the config file's value.  Kinds of another ``mode`` are left out, not listed as skipped.
    """
    s = read_settings(values, robot_state_publisher)
    specs: list[NodeSpec] = []
    skipped: list[tuple[str, str]] = []
    for kind in NODE_KINDS:
        if s.mode not in kind.modes:
            continue
        reason = kind.skip_reason(s)
        if reason is not None:
            skipped.append((kind.name, reason))
            continue
        params = dict(s.config.get(kind.name, {}))
        params['robot_description'] = s.description
        params['use_sim_time'] = s.use_sim_time
        params.update({k: v for k, v in s.overrides.items() if k in kind.takes})
        remappings = s.remappings if kind.package == PACKAGE else ()
        specs.append(NodeSpec(kind.name, kind.package, kind.executable, kind.module, params,
                              remappings))
    return NodePlan(specs, skipped, s.namespace, s.log_level)


def params_document(specs: list[NodeSpec],
                    extra: Mapping[str, Mapping[str, Any]] | None = None) -> dict[str, Any]:
    """
    Return the parameters YAML document of ``specs``, keyed ``/**/<node_name>``.

    :param extra: more sections, node name to parameters (ros2_control's controllers)
    """
    document = {f'/**/{s.name}': {'ros__parameters': s.parameters} for s in specs}
    for name, parameters in (extra or {}).items():
        document[f'/**/{name}'] = {'ros__parameters': dict(parameters)}
    return document
