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
Copyright and license: every source file, ``LICENSE`` and ``CONTRIBUTING.md``.

The real ``ament_copyright`` (what ``rosdep install`` gives ROS users; ``../shared/ros2_cli``
installs it into the test venv) runs when it is installed.  Without it, :func:`fallback_errors`
applies the same three rules: a copyright line and the Apache-2.0 header in every ``.py`` file
it would check; ``LICENSE`` is the Apache-2.0 text ament_copyright knows (the ``http://``
original: the ``https://`` variant some sites serve is "LICENSE: <unknown>" to it); and
``CONTRIBUTING.md`` holds ament's Apache-2.0 contribution clause.  When both are available the
tests below check that the fallback's references are ament_copyright's own templates, and that
both reject the ``https://`` LICENSE.
"""

import hashlib
import os
from pathlib import Path
import shutil

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: the Apache-2.0 text (ament_copyright's template), whitespace-normalised: SHA-256
LICENSE_SHA256 = '0ffddef9e48f8a09aed5caf2d44f7ba1c1be2d9b8e0a6f693b1635b2d5566645'
#: ament_copyright's Apache-2.0 CONTRIBUTING.md clause, whitespace-normalised: length, SHA-256
CONTRIBUTING_PREFIX = (613, '59383f5a3f6cea793153522940875f3793d233f63b70e921e4e3805f32b57450')
EXTENSIONS = ('.c', '.cc', '.cpp', '.cxx', '.h', '.hh', '.hpp', '.hxx', '.cmake', '.py')


def _ament_copyright():
    try:
        from ament_copyright.main import main
    except ImportError:
        return None
    return main


def _normalised(text):
    return ' '.join(text.split())


def _sha256(text):
    return hashlib.sha256(text.encode()).hexdigest()


def _sources(root):
    """Yield the files ament_copyright checks (its crawler's rules)."""
    for dirpath, dirnames, filenames in os.walk(root):
        if 'AMENT_IGNORE' in dirnames + filenames:
            dirnames[:] = []
            continue
        dirnames[:] = sorted(d for d in dirnames if d[0] not in '._')
        for f in sorted(filenames):
            if f == 'setup.py' and 'package.xml' in filenames:
                continue
            if f.endswith(EXTENSIONS):
                yield Path(dirpath) / f


def fallback_errors(root):
    """Return ament_copyright's complaints about ``root``, checked without it."""
    errors = []
    for path in _sources(root):
        head = path.read_text(encoding='utf-8')[:1500]
        if 'Copyright' not in head or 'Licensed under the Apache License, Version 2.0' not in head:
            errors.append(f'{path.relative_to(root)}: could not find copyright notice')
    license_file, contributing = Path(root, 'LICENSE'), Path(root, 'CONTRIBUTING.md')
    if not license_file.is_file():
        errors.append('LICENSE: file not found')
    elif _sha256(_normalised(license_file.read_text())) != LICENSE_SHA256:
        errors.append('LICENSE: <unknown>')
    length, digest = CONTRIBUTING_PREFIX
    if not contributing.is_file():
        errors.append('CONTRIBUTING.md: file not found')
    elif _sha256(_normalised(contributing.read_text())[:length]) != digest:
        errors.append('CONTRIBUTING.md: <unknown>')
    return errors


@pytest.mark.copyright
@pytest.mark.linter
def test_copyright():
    main = _ament_copyright()
    if main is not None:
        assert main(argv=[str(ROOT)]) == 0, 'Found errors'
    else:
        print('ament_copyright is not installed: checking its rules without it')
    assert list(_sources(ROOT)), 'no source files found'
    assert fallback_errors(ROOT) == []


def _package_copy(tmp_path, license_text):
    """Make a tiny repository root: one source file, CONTRIBUTING.md and ``license_text``."""
    root = tmp_path / 'pkg'
    (root / 'pkg').mkdir(parents=True)
    (root / '.git').write_text('gitdir: elsewhere\n')   # ament_copyright looks for a repo root
    shutil.copy(ROOT / 'test' / 'conftest.py', root / 'pkg' / 'module.py')
    shutil.copy(ROOT / 'CONTRIBUTING.md', root / 'CONTRIBUTING.md')
    (root / 'LICENSE').write_text(license_text)
    return root


def _https_variant():
    text = (ROOT / 'LICENSE').read_text()
    return text.replace('http://www.apache.org/licenses/', 'https://www.apache.org/licenses/')


def test_the_fallback_rejects_what_ament_copyright_rejects(tmp_path, capsys):
    good = _package_copy(tmp_path / 'good', (ROOT / 'LICENSE').read_text())
    bad = _package_copy(tmp_path / 'bad', _https_variant())
    (bad / 'pkg' / 'no_header.py').write_text('"""No header."""\n')
    (bad / 'CONTRIBUTING.md').write_text('Contributions welcome.\n')
    assert fallback_errors(good) == []
    assert fallback_errors(bad) == ['pkg/no_header.py: could not find copyright notice',
                                    'LICENSE: <unknown>', 'CONTRIBUTING.md: <unknown>']
    main = _ament_copyright()
    if main is None:
        print('ament_copyright is not installed: the fallback alone was checked')
        return
    assert main(argv=[str(good)]) == 0
    capsys.readouterr()
    assert main(argv=[str(bad)]) == 1
    report = capsys.readouterr().err
    for line in fallback_errors(bad):
        assert line.split(': ')[-1] in report
    assert 'LICENSE: <unknown>' in report and 'no_header.py' in report


def test_the_fallback_references_are_ament_copyrights_templates():
    try:
        import ament_copyright
    except ImportError:
        pytest.skip('ament_copyright is not installed (../shared/ros2_cli/install.sh adds it)')
    templates = Path(ament_copyright.__file__).parent / 'template'
    license_text = _normalised((templates / 'apache2_license.txt').read_text())
    contributing = _normalised((templates / 'apache2_contributing.txt').read_text())
    assert _sha256(license_text) == LICENSE_SHA256
    assert (len(contributing), _sha256(contributing)) == CONTRIBUTING_PREFIX
