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
The node set's parameters file (it holds the whole URDF), and where it lives.

:class:`ParamsFile` keeps the YAML in an anonymous in-memory file (Linux ``memfd_create``) of
the process that starts the nodes, which open it through ``/proc/<pid>/fd/<fd>`` (doc/launch.md
says why).  Without ``memfd_create`` the file goes to a private temporary directory (mode 0700)
removed by :meth:`ParamsFile.close` or at exit.
"""

import atexit
import os
import shutil
import tempfile
from typing import Any
from typing import Mapping

from transmission_plugins.tools.launch.node_plan import NodeSpec
from transmission_plugins.tools.launch.node_plan import params_document
import yaml


def params_yaml(specs: list[NodeSpec],
                extra: Mapping[str, Mapping[str, Any]] | None = None) -> str:
    """Return :func:`~.node_plan.params_document` of ``specs`` (and ``extra``) as YAML text."""
    document: dict[str, Any] = params_document(specs, extra)
    return yaml.safe_dump(document, default_flow_style=False, sort_keys=False)


def write_params_file(specs: list[NodeSpec], directory: str | None = None,
                      extra: Mapping[str, Mapping[str, Any]] | None = None) -> str:
    """Write :func:`params_yaml` to a new file in ``directory`` and return its path."""
    fd, path = tempfile.mkstemp(prefix='transmission_hardware_', suffix='.yaml', dir=directory)
    with os.fdopen(fd, 'w') as f:
        f.write(params_yaml(specs, extra))
    return path


class ParamsFile:
    """
    The parameters of ``specs``, readable at :attr:`path` while this process lives.

    :param specs: the nodes (their parameters)
    :param in_memory: use ``memfd_create`` when available (False: always the directory)
    :param extra: more sections, node name to parameters (ros2_control's controllers)
    """

    def __init__(self, specs: list[NodeSpec], in_memory: bool = True,
                 extra: Mapping[str, Mapping[str, Any]] | None = None) -> None:
        self._fd: int | None = None
        self._directory: str | None = None
        data = params_yaml(specs, extra).encode()
        if in_memory and hasattr(os, 'memfd_create'):
            try:
                self.path = self._memfd(data)
                return
            except OSError:
                self.close()
        self._directory = tempfile.mkdtemp(prefix='transmission_hardware_')
        atexit.register(shutil.rmtree, self._directory, True)
        self.path = write_params_file(specs, self._directory, extra)

    def _memfd(self, data: bytes) -> str:
        self._fd = os.memfd_create('transmission_hardware_params.yaml', os.MFD_CLOEXEC)
        view = memoryview(data)
        while view:
            view = view[os.write(self._fd, view):]
        path = f'/proc/{os.getpid()}/fd/{self._fd}'
        with open(path, 'rb') as f:   # what a node does; fails where /proc is not usable
            if f.read() != data:
                raise OSError(f'{path} does not read back')
        return path

    @property
    def in_memory(self) -> bool:
        """Tell whether the file is an in-memory one (no trace on disk)."""
        return self._fd is not None

    def close(self) -> None:
        """Remove the file now (the nodes that already started are not affected)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        if self._directory is not None:
            shutil.rmtree(self._directory, ignore_errors=True)
            self._directory = None

    def __enter__(self) -> 'ParamsFile':
        """Return self."""
        return self

    def __exit__(self, *exc: Any) -> None:
        """Remove the file."""
        self.close()


__all__ = ['ParamsFile', 'params_yaml', 'write_params_file']
