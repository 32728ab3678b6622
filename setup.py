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
Install transmission_plugins as an ament_python package.

The console scripts go to ``<prefix>/lib/transmission_plugins`` (setup.cfg), where ``ros2 run``
finds them; the two user commands (:data:`PATH_SCRIPTS`) are also written to ``<prefix>/bin``,
which is on ``PATH`` in a venv (``pip install -e .``) and after ``. install/setup.bash`` in a
colcon workspace.
"""

from glob import glob
import os
import shutil
import sysconfig

from setuptools import Extension
from setuptools import find_packages
from setuptools import setup
from setuptools.command.build_ext import build_ext
from setuptools.command.develop import develop
from setuptools.command.install_scripts import install_scripts

package_name = 'transmission_plugins'
#: the commands a user types; the node executables stay in lib/ for ``ros2 run``
PATH_SCRIPTS = ('transmission_plugins', 'transmission_hardware_launch')


def _files(pattern):
    return sorted(f for f in glob(pattern) if os.path.isfile(f))


def _bin_dir(script_dir):
    """Return ``<prefix>/bin`` for the script directory ``<prefix>/lib/<package>``, else None."""
    path = os.path.normpath(script_dir or '')
    lib, package = os.path.split(path)
    if package != package_name or os.path.basename(lib) != 'lib':
        return None
    return os.path.join(os.path.dirname(lib), 'bin')


#: the compiled conversion of the built-in transmissions (src/kernel, doc/performance.md): C99,
#: no dependency beyond the Python headers, warnings as errors, no floating-point contraction
#: (a fused multiply-add would round differently from the numpy references of the tests)
#: where the sources are: beside this file, wherever it runs from (colcon --symlink-install
#: runs it through a symlink in its build directory, which holds no src/)
HERE = os.path.dirname(os.path.realpath(__file__))
KERNEL_SOURCES = sorted(glob(os.path.join(HERE, 'src', 'kernel', '*.c')))
if not KERNEL_SOURCES:
    raise SystemExit(f'transmission_plugins: the kernel sources are missing ({HERE}/src/kernel)')
KERNEL = Extension(
    'transmission_plugins.core.kernel',
    sources=KERNEL_SOURCES,
    depends=sorted(glob(os.path.join(HERE, 'src', 'kernel', '*.h'))),
    include_dirs=[os.path.join(HERE, 'src', 'kernel')],
    extra_compile_args=['-std=c99', '-O2', '-ffp-contract=off', '-fno-math-errno',
                        '-fno-strict-aliasing', '-Wall', '-Wextra', '-Werror', '-Wshadow', '-Wvla',
                        '-Wno-missing-field-initializers'],
    libraries=['m'],
)


class BuildKernel(build_ext):
    """Build the kernel; without a C compiler or the Python headers, say what to install."""

    def build_extensions(self):
        compiler = getattr(self.compiler, 'compiler_so', None) or ['cc']
        headers = os.path.join(sysconfig.get_paths()['include'], 'Python.h')
        missing = [what for what, there in (
            (f'a C compiler ({compiler[0]})', shutil.which(compiler[0])),
            (f'the Python headers ({headers})', os.path.isfile(headers))) if not there]
        if missing:
            raise SystemExit(
                'transmission_plugins: its compiled kernel (src/kernel) needs '
                + ' and '.join(missing) + ' to build; install what is missing (Debian/Ubuntu: '
                'sudo apt install gcc python3-dev; Fedora: sudo dnf install gcc python3-devel) '
                'and build again')
        super().build_extensions()


class Develop(develop):
    """``setup.py develop`` (pip -e, colcon --symlink-install): user commands on PATH too."""

    def write_script(self, script_name, contents, mode='t', blockers=()):
        super().write_script(script_name, contents, mode, blockers)
        bin_dir = _bin_dir(self.script_dir)
        if script_name in PATH_SCRIPTS and bin_dir:
            lib_dir, self.script_dir = self.script_dir, bin_dir
            try:
                super().write_script(script_name, contents, mode, blockers)
            finally:
                self.script_dir = lib_dir


class InstallScripts(install_scripts):
    """``setup.py install`` (colcon without --symlink-install): user commands on PATH too."""

    def write_script(self, script_name, contents, mode='t', *ignored):
        super().write_script(script_name, contents, mode, *ignored)
        bin_dir = _bin_dir(self.install_dir)
        if script_name in PATH_SCRIPTS and bin_dir:
            lib_dir, self.install_dir = self.install_dir, bin_dir
            try:
                super().write_script(script_name, contents, mode, *ignored)
            finally:
                self.install_dir = lib_dir


setup(
    name=package_name,
    version='0.1.0',
    packages=find_packages(exclude=['test', 'test.*', 'bench']),
    data_files=[
        ('share/ament_index/resource_index/packages', ['resource/' + package_name]),
        ('share/ament_index/resource_index/transmission_plugins__pluginlib__plugin',
         ['resource/transmission_plugins__pluginlib__plugin/' + package_name]),
        ('share/' + package_name, ['package.xml', 'transmission_plugins.xml']),
        ('share/' + package_name + '/launch', _files('launch/*.launch.*')),
        ('share/' + package_name + '/config', _files('config/*.yaml')),
        ('share/' + package_name + '/urdf', _files('urdf/*')),
    ],
    python_requires='>=3.10',
    install_requires=['setuptools', 'numpy', 'lxml', 'PyYAML'],
    extras_require={'test': ['pytest', 'hypothesis']},
    zip_safe=False,
    ext_modules=[KERNEL],
    cmdclass={'build_ext': BuildKernel, 'develop': Develop, 'install_scripts': InstallScripts},
    maintainer='transmission_plugins maintainers',
    maintainer_email='maintainers@transmission-plugins.invalid',
    description='URDF transmissions as ROS 2 plugins and a transmission hardware interface',
    license='Apache-2.0',
)
