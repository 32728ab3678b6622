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
The modules one ``mechanical_reduction`` and one ``update_rate`` pass through (issue 35).

Run ``python bench/value_path.py`` (``--value`` one of them).

``mechanical_reduction``, from the URDF text to the maths.  Method: a URDF whose one
SimpleTransmission has the reduction ``37.123456789`` (a value nothing else holds) is loaded with
:func:`~transmission_plugins.load_robot_transmissions` under :func:`sys.settrace`.  At every
call, line and return event of a frame of a ``transmission_plugins`` module, the frame's local
variables (and the returned value) are searched for the value: the float itself, its text (the
string ``'37.123456789'``, blanks stripped), or a tuple, list, dict, dataclass or named tuple
holding one of those up to three levels down (a ``TransmissionInfo`` holds it in a
``JointInfo`` in its ``joints``).  A module counts once when any of its frames holds the value:
it read, converted, checked, stored or passed it.  The count stops when the plugin's
``from_info`` returns (the number is then in the ``Transmission``, the maths); what the maths
does with it afterwards (the flat description of the compiled kernel) is the same for every
way of reading it and is not counted.  Also printed: the fields of the parsed records that hold
the float (stored copies) and every record field (dataclass or named tuple) seen holding it on
the way (a reader's result too).

``update_rate``, from the launch argument a user writes to where the node uses it.  Method: the
same search, for the rate ``123.456`` (float or text), its period ``1 / 123.456`` s and that
period in nanoseconds, over two runs under :func:`sys.settrace`: the launch check
(:func:`~transmission_plugins.tools.launch.node_plan.plan_nodes` with the argument
``update_rate:=123.456``), then the hardware interface node built in this process with the
parameters that plan gives it (the bundled robot, autostart, ``diagnostic_period`` 0.05 s) and
spun for 0.3 s in its own rclpy context (``ROS_DOMAIN_ID`` as set, else 117): configured,
activated, cycling on its timer, publishing ``/diagnostics``.  A module also counts when it
passes the value to a function outside the package (the period to rclpy's ``create_timer``).
What happens between the two (``ros2 launch`` handing the parameters to the node) is ROS's,
not counted.
"""

import argparse
import dataclasses
import sys
from types import FrameType
from typing import Any
from typing import Callable

import benchlib  # noqa: F401 - puts the package of a fresh clone on the path

VALUE = 37.123456789
TEXT = '37.123456789'
RATE = 123.456
RATE_TEXT = '123.456'
DIALECTS = {
    'ros1': f"""<robot name="r">
  <link name="a"/><link name="b"/>
  <joint name="j" type="revolute"><parent link="a"/><child link="b"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
  <transmission name="t">
    <type>transmission_interface/SimpleTransmission</type>
    <joint name="j"><hardwareInterface>EffortJointInterface</hardwareInterface></joint>
    <actuator name="m"><mechanicalReduction>{TEXT}</mechanicalReduction></actuator>
  </transmission>
</robot>
""",
    'ros2_control': f"""<robot name="r">
  <link name="a"/><link name="b"/>
  <joint name="j" type="revolute"><parent link="a"/><child link="b"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
  <ros2_control name="s" type="system">
    <hardware><plugin>x/Y</plugin></hardware>
    <joint name="j"><command_interface name="position"/></joint>
    <transmission name="t">
      <plugin>transmission_interface/SimpleTransmission</plugin>
      <actuator name="m" role="actuator1"/>
      <joint name="j" role="joint1"><mechanical_reduction>{TEXT}</mechanical_reduction></joint>
    </transmission>
  </ros2_control>
</robot>
"""}


def _search(value: Any, leaf: Callable[[Any], bool | None], depth: int = 3) -> bool:
    """
    Return whether ``value`` holds what ``leaf`` looks for, itself or up to ``depth`` levels down.

    ``leaf`` says True or False of a value it judges (a number, a text), None of any other; a
    tuple, list, dict or dataclass is searched through.
    """
    judged = leaf(value)
    if judged is not None:
        return judged
    if depth == 0 or value is None or isinstance(value, bytes):
        return False
    if isinstance(value, dict):
        return any(_search(v, leaf, depth - 1) for v in value.values())
    if isinstance(value, (tuple, list)):
        return any(_search(v, leaf, depth - 1) for v in value[:64])
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return any(_search(getattr(value, f.name, None), leaf, depth - 1)
                   for f in dataclasses.fields(value))
    return False


def _reduction(value: Any) -> bool | None:
    """Judge a leaf: the reduction, or its text."""
    if isinstance(value, float):
        return value == VALUE
    if isinstance(value, str):
        return value.strip() == TEXT
    if isinstance(value, int):
        return False
    return None


def _holds(value: Any) -> bool:
    return _search(value, _reduction)


def stored_copies(value: Any, seen: set[int] | None = None) -> list[str]:
    """Return ``Class.field`` for each record field holding the float, reachable from value."""
    seen = set() if seen is None else seen
    if id(value) in seen or isinstance(value, (str, bytes, int, float)) or value is None:
        return []
    seen.add(id(value))
    found: list[str] = []
    items: list[tuple[str, Any]] = []
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        items = [(f.name, getattr(value, f.name, None)) for f in dataclasses.fields(value)]
    elif isinstance(value, tuple) and hasattr(value, '_fields'):
        items = list(zip(value._fields, value))
    elif isinstance(value, (tuple, list)):
        return [c for v in value for c in stored_copies(v, seen)]
    elif isinstance(value, dict):
        return [c for v in value.values() for c in stored_copies(v, seen)]
    for name, field_value in items:
        if isinstance(field_value, float) and field_value == VALUE:
            found.append(f'{type(value).__name__}.{name}')
        else:
            found += stored_copies(field_value, seen)
    return found


def trace(dialect: str) -> tuple[list[str], list[str], list[str]]:
    """
    Return the modules the value passes through and the record fields holding it.

    :returns: the modules, the record fields that hold it in the records handed to the plugin
        (stored copies), and every record field seen holding it while it is read (stored and
        transient copies, e.g. a reader's result)
    """
    from transmission_plugins.plugins import build as build_module
    from transmission_plugins.robot.loading import load_robot_transmissions

    modules: list[str] = []
    records: list[Any] = []
    copies: list[str] = []
    done = [False]
    original = build_module.build_transmission

    def build(info: Any, *args: Any, **kwargs: Any) -> Any:
        records.append(info)
        wiring = original(info, *args, **kwargs)
        done[0] = True
        return wiring

    def tracer(frame: FrameType, event: str, arg: Any) -> Any:
        if done[0]:
            return None
        module = frame.f_globals.get('__name__', '')
        if not module.startswith('transmission_plugins'):
            return tracer
        values = list(frame.f_locals.values()) + ([arg] if event == 'return' else [])
        if module not in modules and any(_holds(v) for v in values):
            modules.append(module)
        for value in values:
            if isinstance(value, tuple) and hasattr(value, '_fields') or (
                    dataclasses.is_dataclass(value) and not isinstance(value, type)):
                for copy in stored_copies(value):
                    if copy not in copies:
                        copies.append(copy)
        return tracer

    loading = sys.modules['transmission_plugins.robot.loading']
    loading.build_transmission = build  # type: ignore[attr-defined]
    sys.settrace(tracer)
    try:
        load_robot_transmissions(DIALECTS[dialect], warn=False)
    finally:
        sys.settrace(None)
        loading.build_transmission = original  # type: ignore[attr-defined]
    return modules, stored_copies(records), copies


def _rate(value: Any) -> bool | None:
    """Judge a leaf: the rate, its text or its period (s or ns)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, float):
        return value in (RATE, 1.0 / RATE)
    if isinstance(value, int):
        return value == round(1e9 / RATE)
    if isinstance(value, str):
        return value.strip() == RATE_TEXT
    return None


def _holds_rate(value: Any) -> bool:
    return _search(value, _rate)


def trace_update_rate() -> tuple[list[str], list[str]]:
    """Return the modules the rate passes through: in the launch check, and in the node."""
    import os
    import time

    import rclpy
    from rclpy.executors import SingleThreadedExecutor
    from rclpy.parameter import Parameter

    from transmission_plugins.ros.hardware_interface_node import HardwareInterfaceNode
    from transmission_plugins.tools.launch.node_plan import plan_nodes

    found: list[str] = []

    def tracer(frame: FrameType, event: str, arg: Any) -> Any:
        module = frame.f_globals.get('__name__') or ''
        if not module.startswith('transmission_plugins'):
            # a call out of the package (rclpy's create_timer): its caller passed the value
            caller = frame.f_back
            name = (caller.f_globals.get('__name__') or '') if caller is not None else ''
            if (event == 'call' and name.startswith('transmission_plugins') and name not in found
                    and any(_holds_rate(v) for v in frame.f_locals.values())):
                found.append(name)
            return None
        values = list(frame.f_locals.values()) + ([arg] if event == 'return' else [])
        if module not in found and any(_holds_rate(v) for v in values):
            found.append(module)
        return tracer

    sys.settrace(tracer)
    try:
        plan = plan_nodes({'update_rate': RATE_TEXT}, robot_state_publisher=False)
    finally:
        sys.settrace(None)
    launch = list(found)
    found.clear()
    spec = next(s for s in plan.specs if s.name == 'transmission_hardware_interface')
    values = dict(spec.parameters, diagnostic_period=0.05, autostart=True)
    overrides = [Parameter(k, value=v) for k, v in values.items() if v != []]
    context = rclpy.Context()
    rclpy.init(context=context, domain_id=int(os.environ.get('ROS_DOMAIN_ID') or 117))
    sys.settrace(tracer)
    try:
        node = HardwareInterfaceNode(parameter_overrides=overrides, context=context)
        executor = SingleThreadedExecutor(context=context)
        executor.add_node(node)
        end = time.monotonic() + 0.3
        while time.monotonic() < end:
            executor.spin_once(timeout_sec=0.01)
    finally:
        sys.settrace(None)
    state = node.lifecycle_state
    executor.shutdown()
    node.destroy_node()
    rclpy.shutdown(context=context)
    if state != 'active':
        raise SystemExit(f'the node did not become active ({state}): nothing measured')
    return launch, found


def main(argv: list[str] | None = None) -> None:
    """Print the modules (and for the reduction the stored copies) of each value."""
    parser = argparse.ArgumentParser(description=__doc__.strip().split('\n\n')[0], epilog=(
        'Method: the module docstring (python -c "import value_path; help(value_path)" in '
        'bench/).'))
    parser.add_argument('--value', choices=('mechanical_reduction', 'update_rate'),
                        help='trace only this value (default: both)')
    args = parser.parse_args(argv)
    if args.value in (None, 'mechanical_reduction'):
        for dialect in DIALECTS:
            modules, stored, copies = trace(dialect)
            print(f'mechanical_reduction, {dialect}: {len(modules)} modules')
            for module in modules:
                print(f'  {module}')
            print(f'  stored in the records: {len(stored)} ({", ".join(stored)})')
            print(f'  record fields holding it on the way: {len(copies)} ({", ".join(copies)})')
    if args.value in (None, 'update_rate'):
        launch, node = trace_update_rate()
        modules = launch + [m for m in node if m not in launch]
        print(f'update_rate, launch argument to node: {len(modules)} modules')
        for module in modules:
            where = ' and '.join(w for w, ms in (('launch', launch), ('node', node))
                                 if module in ms)
            print(f'  {module} ({where})')


if __name__ == '__main__':
    main()
