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

"""``transmission_plugins demo``: the node set on the bundled robot, with scripted commands."""

import argparse
from typing import Any

from transmission_plugins.tools.demo import demo


def add_parser(sub: Any) -> None:
    """Register the ``demo`` verb."""
    p = sub.add_parser('demo', help='run the hardware interface and mock actuators on the '
                                    'bundled example robot with scripted joint commands',
                       description=demo.DESCRIPTION,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    demo.add_arguments(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the demo (see :mod:`transmission_plugins.tools.demo.demo`)."""
    return int(demo.run(args))
