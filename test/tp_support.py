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
Paths every test module needs, and the code blocks of the documentation.

The repository, the package and the optional shared corpus; the fenced code blocks of
``README.md`` and ``doc/*.md`` (:func:`doc_blocks`) and the ``ros2`` command lines among them
(:func:`doc_ros2_commands`), which the ROS-tools tests run.
"""

import contextlib
import os
from pathlib import Path
import re
import subprocess
import sys
from typing import Iterator
from typing import NamedTuple

#: the repository root (the package root of this ament_python package)
REPO = Path(__file__).resolve().parents[1]
#: the Python package
PACKAGE_DIR = REPO / 'transmission_plugins'
#: ``../shared`` beside the repository (present in CI, maybe absent in a fresh clone)
SHARED = REPO.parent / 'shared'
#: real robot descriptions and upstream fixtures (``../shared/urdf_corpus/INDEX.md``)
CORPUS = SHARED / 'urdf_corpus'
#: the PR2 description of the corpus
PR2_URDF = CORPUS / 'pr2.urdf'
#: the project's own small robot descriptions (``test/fixtures/INDEX.md``), present everywhere
FIXTURE_DIR = REPO / 'test' / 'fixtures'
#: the ``pytest.skip`` reason of tests that need the shared corpus (CI has it; a clone may not)
CORPUS_SKIP_REASON = (f'needs the real-robot corpus ../shared/urdf_corpus, not found at {CORPUS} '
                      '(it is not part of the repository; the same dialects are tested on '
                      'test/fixtures)')


#: the real ros2_control C++ stack and tx_probe (``../shared/ros2_control/README.md``)
ROS2_CONTROL_INSTALL = SHARED / 'ros2_control' / 'install.sh'
#: where ``install.sh VENV`` puts it
ROS2_CONTROL_SETUP = Path(sys.prefix) / 'ros2_control' / 'setup.bash'
#: the ``pytest.skip`` reason of tests that need it
ROS2_CONTROL_SKIP_REASON = (
    f'needs the real ros2_control stack ({ROS2_CONTROL_SETUP}, installed by '
    f'../shared/ros2_control/install.sh VENV, which scripts/test.sh runs); '
    f'{ROS2_CONTROL_INSTALL} was not found to install it')


def ros2_control_env() -> dict[str, str] | None:
    """
    Return the environment of ``ros2_control/setup.bash`` in this venv, or None without it.

    When it is missing and ``../shared/ros2_control/install.sh`` exists, it is installed into
    this venv first (seconds; scripts/test.sh does it beforehand).
    """
    if not ROS2_CONTROL_SETUP.is_file():
        if not ROS2_CONTROL_INSTALL.is_file() or sys.prefix == sys.base_prefix:
            return None
        result = subprocess.run(['bash', str(ROS2_CONTROL_INSTALL), sys.prefix],
                                capture_output=True, text=True, timeout=900)
        assert result.returncode == 0, (f'{ROS2_CONTROL_INSTALL} failed:\n{result.stdout}'
                                        f'{result.stderr}')
    out = subprocess.run(['bash', '-c', f'. "{ROS2_CONTROL_SETUP}" && env -0'],
                         capture_output=True, text=True, timeout=60, check=True).stdout
    return dict(item.split('=', 1) for item in out.split('\0') if '=' in item)


#: a user's own xacro robot: one simple transmission whose names take an optional ``prefix``
#: argument and whose reduction is the ``reduction`` argument (default 50)
PREFIXED_ARM_XACRO = """<?xml version="1.0"?>
<robot name="arm" xmlns:xacro="http://www.ros.org/wiki/xacro">
  <xacro:arg name="prefix" default=""/>
  <xacro:arg name="reduction" default="50"/>
  <link name="base"/><link name="$(arg prefix)link1"/>
  <joint name="$(arg prefix)joint1" type="revolute">
    <parent link="base"/><child link="$(arg prefix)link1"/><axis xyz="0 0 1"/>
    <limit lower="-1.5" upper="1.5" effort="10" velocity="2"/>
  </joint>
  <transmission name="$(arg prefix)trans1">
    <type>transmission_interface/SimpleTransmission</type>
    <joint name="$(arg prefix)joint1"><hardwareInterface>EffortJointInterface</hardwareInterface>
    </joint>
    <actuator name="$(arg prefix)motor1">
      <mechanicalReduction>$(arg reduction)</mechanicalReduction></actuator>
  </transmission>
</robot>
"""


#: the documentation: the front page and every page of ``doc/``
DOC_PAGES = [REPO / 'README.md'] + sorted((REPO / 'doc').glob('*.md'))
#: ``<!-- doc-test: skip (reason) -->`` on the line before a fence
_SKIP_MARK = re.compile(r'^\s*<!--\s*doc-test:\s*skip\s*\((?P<reason>.+)\)\s*-->\s*$')
_FENCE = re.compile(r'^(?P<indent>\s*)(?P<fence>```+|~~~+)\s*(?P<lang>[\w+-]*)')


class DocBlock(NamedTuple):
    """One fenced code block of a documentation page."""

    #: the page, relative to the repository root (``doc/cli.md``)
    page: str
    #: 1-based line number of the block's first line of code (the line after the fence)
    line: int
    #: the fence's language (``python``, ``bash``...; '' when none)
    lang: str
    #: the code, without the fences
    text: str
    #: the reason of a ``<!-- doc-test: skip (reason) -->`` mark, None when unmarked
    skip: str | None


def doc_blocks(path: Path) -> list[DocBlock]:
    """Return the fenced code blocks of a Markdown page, in order."""
    page = path.relative_to(REPO).as_posix()
    lines = path.read_text(encoding='utf-8').splitlines()
    blocks = []
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        mark = _SKIP_MARK.match(lines[i - 1]) if i > 0 else None
        fence, start = m.group('fence'), i + 1
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(fence):
            i += 1
        blocks.append(DocBlock(page, start + 1, m.group('lang').lower(),
                               '\n'.join(lines[start:i]) + '\n',
                               mark.group('reason').strip() if mark else None))
        i += 1
    return blocks


def shell_commands(block: DocBlock) -> list[tuple[int, str, list[str]]]:
    """
    Return the commands of a shell block as ``(line, command, shown output lines)``.

    In a ``console`` block a command starts with ``$ `` and the lines up to the next command are
    its output; in other blocks every line that is not blank or a comment is a command.  Lines
    ending with a backslash continue on the next line (joined with one space).
    """
    console = block.lang == 'console'
    commands: list[tuple[int, str, list[str]]] = []
    lines = block.text.splitlines()
    i = 0
    while i < len(lines):
        raw, number = lines[i], block.line + i
        i += 1
        if console:
            if not raw.startswith('$ '):
                if commands:
                    commands[-1][2].append(raw)
                continue
            raw = raw[2:]
        elif not raw.strip() or raw.lstrip().startswith('#'):
            continue
        parts = [raw.rstrip()]
        while parts[-1].endswith('\\') and i < len(lines):
            parts[-1] = parts[-1][:-1].rstrip()
            parts.append(lines[i].strip())
            i += 1
        commands.append((number, ' '.join(parts).strip(), []))
    return commands


def doc_ros2_commands() -> list[tuple[str, str]]:
    """
    Return every command line starting with ``ros2 `` in the documentation's code blocks.

    :returns: ``(page, command)`` pairs in page order, e.g. ``('doc/launch.md', 'ros2 launch
        transmission_plugins transmission_hardware.launch.py ...')``; continuation lines are
        joined and ``$ `` prompts removed, comments after the command are kept as written
    """
    found = []
    for path in DOC_PAGES:
        for block in doc_blocks(path):
            if block.lang in ('', 'bash', 'sh', 'shell', 'console', 'text'):
                found += [(block.page, command) for _, command, _ in shell_commands(block)
                          if command.startswith('ros2 ')]
    return found


@contextlib.contextmanager
def ros_domain(first: int, count: int) -> Iterator[dict[str, str]]:
    """
    Give the block a ROS domain of its own, on localhost only; yield the environment.

    ``ROS_DOMAIN_ID`` becomes ``first + pid % count`` (each test module has a range of its own:
    ``grep -rn ros_domain test/``; Fast DDS ends the process above 232), and both variables are
    put back as they were afterwards.
    """
    names = ('ROS_DOMAIN_ID', 'ROS_AUTOMATIC_DISCOVERY_RANGE')
    saved = {k: os.environ.get(k) for k in names}
    os.environ['ROS_DOMAIN_ID'] = str(first + os.getpid() % count)
    os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST'
    try:
        yield dict(os.environ)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
