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
Starting the nodes: the launch files' descriptions, the package's own launcher, ros2_control.

What the launch files start (:mod:`~.node_plan`, :mod:`~.launch_description`), the launcher
without ROS's tools (:mod:`~.launcher`, :mod:`~.node_set`, :mod:`~.params_file`), and
ros2_control in front of the hardware interface (:mod:`~.ros2_control_config`,
:mod:`~.ros2_control_plan`, :mod:`~.ros2_control_launch`).
"""
