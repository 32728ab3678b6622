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

"""Paths every test module needs: the repository, the package and the optional shared corpus."""

from pathlib import Path

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
