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

"""The plugin layer: find entry points, load the class a URDF asks for, build one transmission."""

from transmission_plugins.plugins.build import build_transmission
from transmission_plugins.plugins.registry import ENTRY_POINT_GROUP
from transmission_plugins.plugins.registry import find_transmission_plugins
from transmission_plugins.plugins.registry import load_transmission_class
from transmission_plugins.plugins.registry import TransmissionPlugin

__all__ = [
    'ENTRY_POINT_GROUP',
    'TransmissionPlugin',
    'build_transmission',
    'find_transmission_plugins',
    'load_transmission_class',
]
