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
Node parameters on rclpy, from the nodes' declarations (:mod:`~..runtime.node_settings`).

Each :class:`~..runtime.settings.Setting` becomes a descriptor (type, description, range,
choices in ``additional_constraints``, ``read_only``); :class:`ParameterValidator` is the
set-parameters check, :meth:`~..runtime.settings.Setting.check` (the launch check's too).  So
that a refused value gets that check's message whichever way it comes (``-p``, a parameters
file, ``ros2 param set``), :func:`declare_parameters` checks a start-up value before rclpy's
range check, and :class:`CheckedParameters` checks a set before it.
"""

from typing import Any

from rcl_interfaces.msg import FloatingPointRange
from rcl_interfaces.msg import IntegerRange
from rcl_interfaces.msg import ParameterDescriptor
from rcl_interfaces.msg import ParameterType
from rcl_interfaces.msg import SetParametersResult
from rclpy.parameter import Parameter

from transmission_plugins.runtime.settings import Declaration
from transmission_plugins.runtime.settings import MAX_QOS_DEPTH
from transmission_plugins.runtime.settings import Setting

_TYPES = {
    'bool': ParameterType.PARAMETER_BOOL,
    'int': ParameterType.PARAMETER_INTEGER,
    'double': ParameterType.PARAMETER_NOT_SET,   # dynamic typing: integers accepted
    'string': ParameterType.PARAMETER_STRING,
    'string[]': ParameterType.PARAMETER_STRING_ARRAY,
    'double[]': ParameterType.PARAMETER_DOUBLE_ARRAY,
}
_BY_TYPE = {'string[]': Parameter.Type.STRING_ARRAY, 'double[]': Parameter.Type.DOUBLE_ARRAY}


def parameter_descriptor(setting: Setting, ranges: bool = True) -> ParameterDescriptor:
    """
    Return the descriptor of ``setting``: type, description, range, choices, read_only.

    :param ranges: with the range and ``read_only`` (False: the start-up descriptor of
        :func:`declare_parameters`)
    """
    # doubles accept integers too (``-p update_rate:=1000``): dynamic typing, checked by the
    # validator and cast on read
    descriptor = ParameterDescriptor(description=setting.description, type=_TYPES[setting.kind],
                                     dynamic_typing=setting.kind == 'double',
                                     read_only=ranges and setting.read_only,
                                     additional_constraints=setting.describe())
    low, high = setting.low, setting.high
    if ranges and low is not None and high is not None:
        if setting.off is not None:
            low = min(low, setting.off)
        if setting.kind == 'int':
            descriptor.integer_range = [IntegerRange(from_value=int(low), to_value=int(high),
                                                     step=0)]
        elif setting.kind == 'double':
            descriptor.floating_point_range = [FloatingPointRange(
                from_value=float(low), to_value=float(high), step=0.0)]
    return descriptor


def declare_parameters(node: Any, declaration: Declaration) -> None:
    """
    Declare the parameters of ``declaration`` on ``node``.

    Register :func:`validate_parameters` first, so that values from ``-p`` or a parameters
    file are checked too (a bad one makes ``declare_parameter`` raise).  A parameter with a
    range is declared without it, then given it (``set_descriptor``): the validator, not
    rclpy's range check, refuses a start-up value, with the launch check's words.
    """
    for setting in declaration.values():
        ranged = setting.low is not None and setting.high is not None
        descriptor = parameter_descriptor(setting, ranges=not ranged)
        if setting.kind in _BY_TYPE and not setting.default:
            # an empty list would be typed BYTE_ARRAY: declare the type, read None as []
            node.declare_parameter(setting.name, _BY_TYPE[setting.kind], descriptor)
        else:
            node.declare_parameter(setting.name, setting.default, descriptor)
        if ranged:
            node.set_descriptor(setting.name, parameter_descriptor(setting))


def validate_parameters(node: Any, declaration: Declaration) -> 'ParameterValidator':
    """Register a :class:`ParameterValidator` for ``declaration`` on ``node``; return it."""
    validator = ParameterValidator(declaration)
    node.add_on_set_parameters_callback(validator)
    return validator


#: What the ``qos_overrides.<topic>.<entity>.<policy>`` parameters accept.
QOS_OVERRIDES = {
    'depth': Setting('depth', 0, 'history depth', low=1, high=MAX_QOS_DEPTH),
    'reliability': Setting('reliability', '', 'reliability',
                           choices=('reliable', 'best_effort', 'system_default')),
    'history': Setting('history', '', 'history',
                       choices=('keep_last', 'keep_all', 'system_default')),
    'durability': Setting('durability', '', 'durability',
                          choices=('volatile', 'transient_local', 'system_default')),
}


def qos_override_reason(name: str, value: Any) -> str | None:
    """Return why a ``qos_overrides.*`` value is unusable, or None."""
    setting = QOS_OVERRIDES.get(name.rsplit('.', 1)[-1])
    if setting is None:
        return None
    reason = setting.check(value)
    return None if reason is None else name + reason[len(setting.name):]


class ParameterValidator:
    """
    The set-parameters callback of a node: check each value against its declaration.

    Unknown names pass (rclpy's ``use_sim_time``...), except ``qos_overrides.*``.
    ``rejected`` keeps the last reason, so that a node failing to start can log it (rclpy's
    exception repeats the value, a whole URDF for ``robot_description``).
    """

    def __init__(self, declaration: Declaration) -> None:
        self.declaration = declaration
        self.rejected = ''

    def reason(self, name: str, value: Any) -> str | None:
        """Return why ``value`` is not acceptable for ``name``, or None."""
        if name.startswith('qos_overrides.'):
            return qos_override_reason(name, value)
        return self.declaration.reason(name, value)

    def __call__(self, parameters: list[Parameter[Any]]) -> SetParametersResult:
        """Accept every parameter, or reject the whole set naming the first bad one."""
        for p in parameters:
            reason = self.reason(p.name, p.value)
            if reason is not None:
                self.rejected = reason
                return SetParametersResult(successful=False, reason=reason)
        return SetParametersResult(successful=True)

    def refusal(self, parameter: Parameter[Any]) -> SetParametersResult | None:
        """Return the refusal of a writable declared parameter's bad value, else None."""
        setting = self.declaration.get(parameter.name)
        if setting is None or setting.read_only:   # rclpy says read-only
            return None
        reason = setting.check(parameter.value)
        return None if reason is None else SetParametersResult(successful=False, reason=reason)


class CheckedParameters:
    """
    A node mix-in: every set is checked by the declaration's validator before rclpy's checks.

    rclpy applies a descriptor's range before the set-parameters callbacks, with its own words;
    this makes ``ros2 param set`` answer with :meth:`~..runtime.settings.Setting.check`'s.
    """

    validator: ParameterValidator

    def set_parameters(self, parameter_list: list[Parameter[Any]]
                       ) -> list[SetParametersResult]:
        """Set each parameter on its own (rclpy's), the validator first."""
        out = []
        for p in parameter_list:
            refusal = self.validator.refusal(p)
            out.append(refusal if refusal is not None else
                       super().set_parameters([p])[0])  # type: ignore[misc]
        return out

    def set_parameters_atomically(self, parameter_list: list[Parameter[Any]]
                                  ) -> SetParametersResult:
        """Set every parameter or none (rclpy's), the validator first."""
        for p in parameter_list:
            refusal = self.validator.refusal(p)
            if refusal is not None:
                return refusal
        return super().set_parameters_atomically(parameter_list)  # type: ignore[misc]


def float_parameters(node: Any, declaration: Declaration) -> None:
    """
    Keep the double parameters doubles when they are given integers.

    A pre-set callback turns an integer given later into a float, and a declared integer is set
    again as a float where writable, so that ``ros2 param get`` keeps answering with a double.
    """
    floats = {name for name, s in declaration.items() if s.kind == 'double'}

    def to_float(parameters: list[Parameter[Any]]) -> list[Parameter[Any]]:
        return [Parameter(p.name, value=float(p.value))
                if p.name in floats and type(p.value) is int else p for p in parameters]

    node.add_pre_set_parameters_callback(to_float)
    again = [Parameter(name, value=float(node.get_parameter(name).value)) for name in floats
             if type(node.get_parameter(name).value) is int
             and not declaration[name].read_only]
    if again:
        node.set_parameters(again)
