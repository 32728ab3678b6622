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

"""Install transmission_plugins as an ament_python package."""

from glob import glob
import os

from setuptools import find_packages
from setuptools import setup

package_name = 'transmission_plugins'


def _files(pattern):
    return sorted(f for f in glob(pattern) if os.path.isfile(f))


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
    install_requires=['setuptools', 'numpy', 'lxml', 'PyYAML'],
    extras_require={'test': ['pytest', 'hypothesis']},
    zip_safe=True,
    maintainer='transmission_plugins maintainers',
    maintainer_email='maintainers@transmission-plugins.invalid',
    description='URDF transmissions as ROS 2 plugins and a transmission hardware interface',
    license='Apache-2.0',
)
