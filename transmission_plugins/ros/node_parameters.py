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
Node parameters on rclpy: descriptors with ranges and choices, and the set-parameters check.

The descriptor states the range, the choices (``additional_constraints``) and ``read_only``;
:func:`validate_parameters` rejects a bad value with a reason, as robot_state_publisher does.
"""

from typing import Any

from rcl_interfaces.msg import FloatingPointRange
from rcl_interfaces.msg import IntegerRange
from rcl_interfaces.msg import ParameterDescriptor
from rcl_interfaces.msg import ParameterType
from rcl_interfaces.msg import SetParametersResult
from rclpy.parameter import Parameter

from transmission_plugins.runtime.parameters import check_parameter
from transmission_plugins.runtime.parameters import check_parameters
from transmission_plugins.runtime.parameters import Constraint
from transmission_plugins.runtime.parameters import constraint_of

_TYPES = {
    bool: ParameterType.PARAMETER_BOOL,
    int: ParameterType.PARAMETER_INTEGER,
    float: ParameterType.PARAMETER_DOUBLE,
    str: ParameterType.PARAMETER_STRING,
    list: ParameterType.PARAMETER_STRING_ARRAY,
}


def parameter_descriptor(default: Any, text: str,
                         constraint: Constraint = Constraint()) -> ParameterDescriptor:
    """Return the descriptor of a parameter: type, description, range, read_only, rules."""
    kind = type(default)
    # doubles accept integers too (``-p update_rate:=1000``): dynamic typing, checked by
    # validate_parameters and cast on read
    descriptor = ParameterDescriptor(description=text, type=_TYPES[kind],
                                     dynamic_typing=kind is float, read_only=constraint.read_only,
                                     additional_constraints=constraint.describe())
    if kind is float:
        descriptor.type = ParameterType.PARAMETER_NOT_SET
    low, high = constraint.low, constraint.high
    if low is not None and high is not None:
        if constraint.off is not None:
            low = min(low, constraint.off)
        if kind is int:
            descriptor.integer_range = [IntegerRange(from_value=int(low), to_value=int(high),
                                                     step=0)]
        elif kind is float:
            descriptor.floating_point_range = [FloatingPointRange(
                from_value=float(low), to_value=float(high), step=0.0)]
    return descriptor


def declare_parameters(node: Any, parameters: dict[str, tuple[Any, ...]]) -> None:
    """
    Declare ``parameters`` (name -> (default, description[, Constraint])) with descriptors.

    Register :func:`validate_parameters` first, so that values from a parameters file are
    checked too (a bad one makes ``declare_parameter`` raise).
    """
    for name, spec in parameters.items():
        default, text = spec[0], spec[1]
        descriptor = parameter_descriptor(default, text, constraint_of(spec))
        if isinstance(default, list) and not default:
            # an empty list would be typed BYTE_ARRAY: declare the type, read None as []
            node.declare_parameter(name, Parameter.Type.STRING_ARRAY, descriptor)
        else:
            node.declare_parameter(name, default, descriptor)


#: What the ``qos_overrides.<topic>.<entity>.<policy>`` parameters accept.
QOS_POLICY_VALUES = {'reliability': ('reliable', 'best_effort', 'system_default'),
                     'history': ('keep_last', 'keep_all', 'system_default'),
                     'durability': ('volatile', 'transient_local', 'system_default')}
#: The deepest history accepted (``qos_depth`` and ``qos_overrides.*.depth``).
MAX_QOS_DEPTH = 10_000


def qos_override_reason(name: str, value: Any) -> str | None:
    """Return why a ``qos_overrides.*`` value is unusable, or None."""
    policy = name.rsplit('.', 1)[-1]
    if policy == 'depth':
        return check_parameter(name, value, 0, Constraint(low=1, high=MAX_QOS_DEPTH))
    choices = QOS_POLICY_VALUES.get(policy)
    if choices is not None:
        return check_parameter(name, value, '', Constraint(choices=choices))
    return None


class ParameterValidator:
    """
    The set-parameters callback of a node: check each value against its spec.

    Unknown names pass (rclpy's ``use_sim_time``...), except ``qos_overrides.*``.
    ``rejected`` keeps the last reason, so that a node failing to start can log it (rclpy's
    exception repeats the value, a whole URDF for ``robot_description``).
    """

    def __init__(self, specs: dict[str, tuple[Any, ...]]) -> None:
        self.specs = specs
        self.rejected = ''

    def reason(self, name: str, value: Any) -> str | None:
        """Return why ``value`` is not acceptable for ``name``, or None."""
        if name.startswith('qos_overrides.'):
            return qos_override_reason(name, value)
        return next(iter(check_parameters(self.specs, {name: value})), None)

    def __call__(self, parameters: list[Parameter[Any]]) -> SetParametersResult:
        """Accept every parameter, or reject the whole set naming the first bad one."""
        for p in parameters:
            reason = self.reason(p.name, p.value)
            if reason is not None:
                self.rejected = reason
                return SetParametersResult(successful=False, reason=reason)
        return SetParametersResult(successful=True)


def float_parameters(node: Any, specs: dict[str, tuple[Any, ...]]) -> None:
    """
    Keep the float parameters of ``specs`` floats when they are given integers.

    A pre-set callback turns an integer given later into a float, and a declared integer is set
    again as a float where writable, so that ``ros2 param get`` keeps answering with a double.
    """
    floats = {name for name, spec in specs.items()
              if isinstance(spec[0], float)}

    def to_float(parameters: list[Parameter[Any]]) -> list[Parameter[Any]]:
        return [Parameter(p.name, value=float(p.value))
                if p.name in floats and type(p.value) is int else p for p in parameters]

    node.add_pre_set_parameters_callback(to_float)
    again = [Parameter(name, value=float(node.get_parameter(name).value)) for name in floats
             if type(node.get_parameter(name).value) is int
             and not constraint_of(specs[name]).read_only]
    if again:
        node.set_parameters(again)


def validate_parameters(node: Any, specs: dict[str, tuple[Any, ...]]) -> ParameterValidator:
    """Register a :class:`ParameterValidator` for ``specs`` on ``node``; return it."""
    validator = ParameterValidator(specs)
    node.add_on_set_parameters_callback(validator)
    return validator
