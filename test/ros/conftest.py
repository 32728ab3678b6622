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
The fixtures the node test modules share: the bundled robot's description, an rclpy context.

A module that uses ``context`` names its ROS domain range, ``ROS_DOMAINS = (first, count)``
(see :func:`tp_support.ros_domain`).
"""

import pytest
from rclpy.context import Context
from tp_support import ros_domain
from transmission_plugins.tools.launch.node_plan import default_description_file
from transmission_plugins.tools.launch.node_plan import read_description


@pytest.fixture(scope='module')
def urdf():
    return read_description(default_description_file())


@pytest.fixture(scope='module')
def context(request):
    with ros_domain(*request.module.ROS_DOMAINS):
        context = Context()
        context.init([])
        yield context
        context.try_shutdown()
