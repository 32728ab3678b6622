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
Recorded data: rosbag2 and CSV files read, converted, calibrated from and plotted.

Bags (:mod:`~.bag_io`, :mod:`~.bag_convert`, :mod:`~.bag_export`, :mod:`~.bag_calibrate`,
:mod:`~.bag_plot`), CSV (:mod:`~.csv_io`, :mod:`~.csv_convert`), JointState messages and
batches (:mod:`~.joint_state_messages`, :mod:`~.joint_state_batch`), plots
(:mod:`~.plotting`), output files written whole (:mod:`~.output_file`) and progress bars
(:mod:`~.progress`).
"""
