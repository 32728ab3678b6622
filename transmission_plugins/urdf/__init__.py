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
The URDF layer: text and xacro, every transmission dialect, joints and limits, actuator tags.

Depends on core only; turns a robot description into records for the plugins, and holds what
the plugins read them with: the records (:mod:`~.records`), the standard vocabulary
(:mod:`~.vocabulary`), the element helpers and path rule (:mod:`~.elements`), the built-in
plugins' readers (:mod:`~.readers`, :mod:`~.pr2_elements`).  Those modules import no lxml, so
the transmissions that use them stay free of it; text, xacro and joints use lxml.
"""
