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

"""A spy in place of a flat description's compiled kernel: which conversions reach it."""

from typing import Any
from typing import NamedTuple


class KernelCall(NamedTuple):
    """One conversion the kernel made."""

    to_joint: bool
    batch: int
    #: which of position, velocity and effort it converted
    kinds: tuple[bool, bool, bool]


class KernelSpy:
    """
    Record every conversion of ``flat``'s kernel, then make it (``monkeypatch`` puts it there).

    :param flat: a :class:`~transmission_plugins.core.flat_description.FlatDescription`
    """

    def __init__(self, flat: Any, monkeypatch: Any) -> None:
        self.real = flat.kernel
        self.calls: list[KernelCall] = []
        monkeypatch.setattr(flat, 'kernel', self)

    def convert(self, to_joint: bool, batch: int, *args: Any) -> None:
        """Record the call (its samples; -1: those of its first source) and convert."""
        samples = batch
        if batch == -1:
            size = self.real.num_actuators if to_joint else self.real.num_joints
            first = next(a for a in args[:3] + (args[6],) if a is not None)
            samples = first.size // size
        self.calls.append(KernelCall(bool(to_joint), samples,
                                     tuple(a is not None for a in args[:3])))
        self.real.convert(to_joint, batch, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)
