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

"""The nodes' spin loop (``ros_common.run_node``) and its exit codes."""

import os
import time

import pytest
import rclpy
from rclpy.node import Node
from transmission_plugins.ros.common import run_node

pytestmark = pytest.mark.ros


@pytest.fixture(autouse=True)
def private_domain(monkeypatch):
    # a domain of this module's own; Fast DDS ends the process above 232
    monkeypatch.setenv('ROS_DOMAIN_ID', str(os.getpid() % 30 + 170))
    monkeypatch.setenv('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')


def _node_whose_timer(action):
    def factory(args):
        node = Node('run_node_test')
        node.create_timer(0.01, action)
        return node
    return factory


def test_a_callback_failing_because_ctrl_c_shut_the_context_down_exits_zero():
    """Ctrl-C racing a publish: the publish fails on the dead context; that is a clean stop."""
    def publish_after_shutdown():
        rclpy.try_shutdown()
        raise RuntimeError("Failed to publish: publisher's context is invalid")

    assert run_node(_node_whose_timer(publish_after_shutdown), []) == 0


def test_a_callback_failing_while_running_exits_one():
    def fail():
        raise RuntimeError('boom')

    assert run_node(_node_whose_timer(fail), []) == 1


def test_a_node_that_finishes_ends_the_loop_with_exit_zero():
    """A lifecycle node shut down to finalized sets ``finished``: its process then ends."""
    def factory(args):
        node = Node('run_node_finished')
        node.finished = False

        def finish():
            node.finished = True
        node.create_timer(0.01, finish)
        return node

    start = time.monotonic()
    assert run_node(factory, []) == 0
    assert time.monotonic() - start < 10.0
