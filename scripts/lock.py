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

"""Print the installed distributions of the active venv as a pinned lock file."""

import importlib.metadata as md


def main():
    """Print ``name==version`` for every pip-installed distribution but pip and ourselves."""
    rows = set()
    for dist in md.distributions():
        name = dist.metadata['Name']
        if not name or name.lower().replace('_', '-') in ('transmission-plugins', 'pip'):
            continue
        if not any(str(f).endswith('INSTALLER') for f in (dist.files or [])):
            continue
        rows.add(f'{name}=={dist.version}')
    print('# Full pinned environment (generated from a working venv by scripts/lock.py).')
    for row in sorted(rows, key=str.lower):
        print(row)


if __name__ == '__main__':
    main()
