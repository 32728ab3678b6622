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

"""Robots shared by the runtime tests: the bundled example robot and the corpus's PR2."""

import pytest
from tp_support import CORPUS_SKIP_REASON
from tp_support import PR2_URDF
from transmission_plugins.robot.loading import load_robot_transmissions
from transmission_plugins.tools.launch.node_plan import default_description_file
from transmission_plugins.tools.launch.node_plan import read_description


@pytest.fixture(scope='session')
def example_robot():
    """Load the bundled example robot, as the nodes do by default."""
    return load_robot_transmissions(read_description(default_description_file()))


@pytest.fixture(scope='session')
def pr2():
    """Load the PR2 of ``../shared/urdf_corpus`` (skip, with the reason, without it)."""
    if not PR2_URDF.exists():
        pytest.skip(CORPUS_SKIP_REASON)
    return load_robot_transmissions(PR2_URDF.read_text())
