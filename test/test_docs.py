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
The documentation still runs: code blocks, shown output and links of README.md and doc/*.md.

* ``python`` blocks run, a page's blocks in order in one interpreter (``doc_runner.py``).
* ``bash``/``sh``/``console`` blocks: commands starting with ``transmission_plugins``,
  ``python -m transmission_plugins`` or ``bash scripts/`` run and must exit 0 (the demo and the
  whole suite excepted); a block with any other command must carry
  ``<!-- doc-test: skip (reason) -->`` on the line before its fence and is reported as a skip.
* Output shown under a statement or a console command must match the real output: ``...``
  stands for anything and a number matches to the precision it is written with.
* Blocks that use ``../shared/urdf_corpus`` run when it is present and skip with a reason when not.
* ``xml`` and ``yaml`` blocks are well-formed; relative links and images resolve, anchors included.

Everything runs in a scratch directory that mirrors the repository root (symlinks, with ``doc/``
and the tour's ``out/`` copied), so relative paths work and written files stay out of the
repository.  Only what git tracks is mirrored (:func:`mirror`), so files a user left in the
repository (bags written by following the tour by hand) change nothing here.
"""

import contextlib
import hashlib
import io
import json
import os
from pathlib import Path
import re
import shlex
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest
from tp_support import CORPUS
from tp_support import doc_blocks
from tp_support import DOC_PAGES
from tp_support import doc_ros2_commands
from tp_support import REPO
from tp_support import SHARED
from tp_support import shell_commands
from transmission_plugins.tools.cli import main as cli_main
import yaml

SHELL = ('bash', 'sh', 'shell', 'console')
#: command prefixes that are run (after ``$ `` in a console block)
RUNNABLE = re.compile(r'^((transmission_plugins|python3? -m transmission_plugins)(\s|$)'
                      r'|bash scripts/\S)')
#: the package's own command line: run in this interpreter
_PREFIX = re.compile(r'^(transmission_plugins|python3? -m transmission_plugins)(\s|$)')
#: run by CI and by test/ros/test_demo.py, far too slow here
HEAVY = re.compile(r'^bash scripts/(demo|test)\.sh(\s|$)')
NEEDS_CORPUS = '../shared/'
TIMEOUT = 300
ALL_BLOCKS = [b for page in DOC_PAGES for b in doc_blocks(page)]


def _ids(blocks):
    return [f'{b.page}:{b.line}' for b in blocks]


# ------------------------------------------------------------------------- scratch directory
#: folders the documented commands write into: copied, not linked
WRITTEN = ('doc', 'out')


def _tracked(repo):
    """Return the files git tracks in ``repo`` (relative paths), or None when it cannot tell."""
    try:
        listed = subprocess.run(['git', 'ls-files', '-z'], cwd=repo, capture_output=True,
                                check=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return [Path(p) for p in listed.decode().split('\0') if p]


#: the files git tracks in this repository, read once (at collection: the tests that mirror the
#: repository then start no process of their own)
TRACKED = _tracked(REPO)


def mirror(repo, root, tracked=None):
    """
    Make ``root`` look like ``repo``: links to its tracked entries, copies of :data:`WRITTEN`.

    ``tracked``: the files git tracks there (default: ask git).  Without git (an unpacked
    archive) every entry but ``.git`` is mirrored.
    """
    if tracked is None:
        tracked = _tracked(repo)
    names = (sorted({p.parts[0] for p in tracked}) if tracked is not None else
             sorted(e.name for e in repo.iterdir() if e.name != '.git'))
    for name in set(names) | set(WRITTEN):
        if name not in WRITTEN:
            (root / name).symlink_to(repo / name)
            continue
        (root / name).mkdir()
        files = ([p for p in tracked if p.parts[0] == name] if tracked is not None else
                 [p.relative_to(repo) for p in (repo / name).rglob('*') if p.is_file()])
        for path in files:
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(repo / path, root / path)


@pytest.mark.process
def test_the_scratch_mirrors_only_what_git_tracks(tmp_path):
    """Bags a user left in the repository (issue 23: 'exists already') are not mirrored."""
    repo = tmp_path / 'repo'
    (repo / 'doc').mkdir(parents=True)
    (repo / 'out').mkdir()
    for name in ('README.md', 'doc/cli.md', 'out/README.md', 'joint_bag', 'out/joint_bag',
                 'doc/left.csv'):
        (repo / name).write_text(name)
    git = ['git', '-c', 'user.name=t', '-c', 'user.email=t@t.invalid']
    subprocess.run(['git', 'init', '-q'], cwd=repo, check=True)
    subprocess.run(git + ['add', 'README.md', 'doc/cli.md', 'out/README.md'], cwd=repo,
                   check=True)
    root = tmp_path / 'scratch'
    root.mkdir()
    mirror(repo, root)
    found = sorted(str(p.relative_to(root)) for p in root.rglob('*') if p.is_file())
    assert found == ['README.md', 'doc/cli.md', 'out/README.md']
    assert (root / 'README.md').is_symlink() and not (root / 'out').is_symlink()


@pytest.fixture(scope='module')
def scratch(tmp_path_factory):
    """Return a directory that looks like the repository root, with ``../shared`` beside it."""
    base = tmp_path_factory.mktemp('docs')
    root = base / 'repo'
    root.mkdir()
    mirror(REPO, root, TRACKED)
    if SHARED.exists():
        (base / 'shared').symlink_to(SHARED)
    shim = base / 'bin'
    shim.mkdir()
    (shim / 'transmission_plugins').write_text(
        f'#!/bin/sh\nexec "{sys.executable}" -m transmission_plugins "$@"\n')
    (shim / 'transmission_plugins').chmod(0o755)
    path = [os.path.dirname(sys.executable),
            os.path.join(sys.prefix, 'lib', 'transmission_plugins'), str(shim)]
    env = dict(os.environ, PATH=os.pathsep.join(path + [os.environ.get('PATH', '')]),
               PYTHONUNBUFFERED='1', PYTHONDONTWRITEBYTECODE='1', MPLBACKEND='Agg')
    return root, env


# ------------------------------------------------------------------------- matching output
_TOKEN = re.compile(r'\.\.\.|[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|\s+|.', re.S)
_NUMBER = re.compile(r'[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?')


def _pattern(shown):
    """Return a regex for shown output and the numbers it shows, in order."""
    parts, numbers = [], []
    for token in _TOKEN.findall(shown.strip()):
        if token == '...':
            parts.append('.*?')
        elif _NUMBER.fullmatch(token):
            parts.append(f'({_NUMBER.pattern})')
            numbers.append(token)
        elif not token.isspace():
            parts.append(re.escape(token))
    return r'\s*'.join(parts), numbers


def _close(shown, actual):
    """Whether ``actual`` equals the number ``shown`` to the precision it is written with."""
    mantissa, _, exponent = shown.lower().partition('e')
    decimals = len(mantissa.partition('.')[2])
    unit = 10.0 ** (int(exponent or 0) - decimals)
    return abs(float(actual) - float(shown)) <= unit + 1e-12 * abs(float(shown))


def _matches(shown, actual):
    pattern, numbers = _pattern(shown)
    m = re.fullmatch(pattern, actual.strip(), re.S)
    return bool(m) and all(_close(s, a) for s, a in zip(numbers, m.groups()))


def _console_matches(shown_lines, output):
    """Whether the shown lines appear in the output in order; ``...`` lines skip any lines."""
    actual = [line for line in output.splitlines() if line.strip()]
    position, gap = 0, False
    for shown in (line for line in shown_lines if line.strip()):
        if shown.strip() == '...':
            gap = True
            continue
        candidates = range(position, len(actual)) if gap else range(position, position + 1)
        found = next((i for i in candidates if i < len(actual) and _matches(shown, actual[i])),
                     None)
        if found is None:
            return False
        position, gap = found + 1, False
    return gap or position == len(actual)


def test_output_matching_rules():
    assert _matches("{'a': array([1.1])}", "{'a': array([1.10000001])}")
    assert not _matches("{'a': array([1.1])}", "{'a': array([1.3])}")
    assert _matches('(0.0738, 3553)', '(0.07379813, 3552.8354)')
    assert not _matches('0.0738', '0.0748')
    assert _matches("{'x': 1, ...}", "{'x': 1, 'y': 2}")
    assert not _matches("{'x': 1}", "{'x': 1, 'y': 2}")
    assert _console_matches(['a', '...', 'c'], 'a\nb\nc\n')
    assert not _console_matches(['a', 'c'], 'a\nb\nc\n')
    assert not _console_matches(['a', 'b'], 'a\nb\nc\n')
    assert _console_matches(['a', 'b', '...'], 'a\nb\nc\n')


# ------------------------------------------------------------------------- python blocks
PYTHON = [b for b in ALL_BLOCKS if b.lang == 'python']
_page_results = {}


def _run_page(page, scratch):
    """Run every runnable python block of ``page`` once; return ``{line: result}``."""
    if page not in _page_results:
        root, env = scratch
        blocks = [b for b in PYTHON if b.page == page and b.skip is None
                  and (NEEDS_CORPUS not in b.text or CORPUS.exists())]
        spec = root.parent / f'{page.replace("/", "_")}.json'
        out = spec.with_suffix('.out.json')
        spec.write_text(json.dumps([{'page': b.page, 'line': b.line, 'code': b.text}
                                    for b in blocks]))
        proc = subprocess.run([sys.executable, str(Path(__file__).with_name('doc_runner.py')),
                               str(spec), str(out)], cwd=root, env=env, capture_output=True,
                              text=True, timeout=TIMEOUT)
        assert proc.returncode == 0 and out.exists(), proc.stderr
        _page_results[page] = dict(zip((b.line for b in blocks), json.loads(out.read_text())))
        _page_results[page]['stdout'] = proc.stdout
    return _page_results[page]


#: blocks marked ``<!-- doc-test: skip (reason) -->`` are not collected as tests (a skip would
#: fail CI's no-skip gate); test_blocks_not_run_say_why lists them with their reasons
RUN_PYTHON = [b for b in PYTHON if b.skip is None]


@pytest.mark.process
@pytest.mark.parametrize('block', RUN_PYTHON, ids=_ids(RUN_PYTHON))
def test_python_block_runs(block, scratch):
    if NEEDS_CORPUS in block.text and not CORPUS.exists():
        pytest.skip(f'needs the shared corpus, absent here: {CORPUS}')
    result = _run_page(block.page, scratch)[block.line]
    assert result['error'] is None, result['error']
    for line, shown, actual in result['checks']:
        assert _matches(shown, actual), (
            f'{block.page}:{line}: the output shown in the page\n{shown}\nis not what the '
            f'statement prints\n{actual}')


# ------------------------------------------------------------------------- shell blocks
SHELL_BLOCKS = [b for b in ALL_BLOCKS if b.lang in SHELL]
#: shell blocks this test runs: unmarked, and not only the two heavy README commands
RUN_SHELL = [b for b in SHELL_BLOCKS if b.skip is None
             and not all(HEAVY.match(c) for _, c, _ in shell_commands(b))]


def test_blocks_not_run_say_why():
    """Every block left out is marked with a reason, or holds only the two heavy commands."""
    left_out = [b for b in PYTHON + SHELL_BLOCKS if b not in RUN_PYTHON + RUN_SHELL]
    for b in left_out:
        assert b.skip is None or b.skip.strip(), f'{b.page}:{b.line}: a skip mark needs a reason'
        if b.skip is None:
            commands = [c for _, c, _ in shell_commands(b)]
            assert commands and all(HEAVY.match(c) for c in commands), (b.page, b.line)
    print('\n'.join(f'not run: {b.page}:{b.line}: {b.skip or "demo.sh/test.sh run by CI"}'
                    for b in left_out))


def _in_process(command):
    """Whether ``command`` is the package's command line alone (no shell syntax, no script)."""
    return bool(_PREFIX.match(command)) and not any(c in command for c in '|&;<>$`()')


def _run_in_process(command, root, monkeypatch):
    """Run a ``transmission_plugins`` command line in this interpreter: (status, output)."""
    output = io.StringIO()
    monkeypatch.chdir(root)
    monkeypatch.setenv('MPLBACKEND', 'Agg')
    with contextlib.redirect_stdout(output), contextlib.redirect_stderr(output):
        try:
            status = cli_main(shlex.split(_PREFIX.sub('', command), comments=True))
        except SystemExit as e:   # argparse's errors and --help
            status = e.code if isinstance(e.code, int) else 1
    return status, output.getvalue()


def _shell_param(block):
    """Return a block as a parameter: in the process stage when a command needs a shell."""
    if all(_in_process(c) for _, c, _ in shell_commands(block) if not HEAVY.match(c)):
        return block
    return pytest.param(block, marks=pytest.mark.process)


@pytest.mark.parametrize('block', [_shell_param(b) for b in RUN_SHELL], ids=_ids(RUN_SHELL))
def test_shell_block_runs(block, scratch, monkeypatch):
    """
    Every documented command runs and prints what the page shows.

    The package's own command lines run in this interpreter (``cli_main``, as the console
    script does), in the scratch directory; anything else (``bash scripts/...``) in bash.
    """
    commands = shell_commands(block)
    assert commands, f'{block.page}:{block.line}: a {block.lang} block without a command'
    foreign = [c for _, c, _ in commands if not RUNNABLE.match(c)]
    assert not foreign, (
        f'{block.page}:{block.line}: {foreign} cannot run in this test; mark the block with '
        '<!-- doc-test: skip (reason) --> on the line before its fence')
    if NEEDS_CORPUS in block.text and not CORPUS.exists():
        pytest.skip(f'needs the shared corpus, absent here: {CORPUS}')
    runnable = [c for c in commands if not HEAVY.match(c[1])]
    root, env = scratch
    for line, command, shown in runnable:
        if _in_process(command):
            status, output = _run_in_process(command, root, monkeypatch)
        else:
            proc = subprocess.run(['bash', '-c', command], cwd=root, env=env, text=True,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  timeout=TIMEOUT)
            status, output = proc.returncode, proc.stdout
        assert status == 0, f'{block.page}:{line}: `{command}` exited {status}:\n{output}'
        if any(s.strip() for s in shown):
            assert _console_matches(shown, output), (
                f'{block.page}:{line}: the output shown in the page\n' + '\n'.join(shown)
                + f'\nis not what `{command}` prints:\n{output}')


# ------------------------------------------------------------------------- the tour's files
#: the tour a first-time user follows: its commands write bags, CSV files, plots and exports
TOUR = ('README.md', 'doc/bags.md', 'doc/cli.md')


def _listing(root):
    """Return ``{relative path: (sha256, mtime)}`` of the files under ``root``: any write shows."""
    return {p.relative_to(root).as_posix(): (hashlib.sha256(p.read_bytes()).hexdigest(),
                                             p.stat().st_mtime_ns)
            for p in root.rglob('*') if p.is_file()}


@pytest.mark.process
def test_the_tour_writes_only_into_out(tmp_path, monkeypatch, capsys):
    """
    The commands of the README, bags and command tours write nothing outside ``out/``.

    Issue 23: following the tour by hand wrote bags into the repository root, after which the
    doc tests failed with "exists already".  The tour runs here in a full copy of what git tracks
    (no links into the repository), its shell commands in this interpreter and its python blocks
    in one :mod:`doc_runner`; every file before and after is compared by content and time.
    """
    repo = tmp_path / 'repo'
    tracked = TRACKED
    if tracked is None:   # an unpacked archive: its files but the hidden ones
        tracked = [p.relative_to(REPO) for p in REPO.rglob('*') if p.is_file()
                   and not any(part.startswith('.') for part in p.relative_to(REPO).parts)]
    for path in tracked:
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / path, repo / path)
    if SHARED.exists():
        (tmp_path / 'shared').symlink_to(SHARED)
    before = _listing(repo)
    monkeypatch.chdir(repo)
    monkeypatch.setenv('MPLBACKEND', 'Agg')
    ran = []
    for block in RUN_SHELL:
        if block.page not in TOUR or (NEEDS_CORPUS in block.text and not CORPUS.exists()):
            continue
        for line, command, _ in shell_commands(block):
            if HEAVY.match(command) or not _PREFIX.match(command):
                continue
            status = cli_main(shlex.split(_PREFIX.sub('', command), comments=True))
            output = capsys.readouterr()
            assert status == 0, f'{block.page}:{line}: `{command}` exited {status}: {output}'
            ran.append(command)
    blocks = [b for b in RUN_PYTHON if b.page in TOUR
              and (NEEDS_CORPUS not in b.text or CORPUS.exists())]
    spec, results = tmp_path / 'tour.json', tmp_path / 'tour.out.json'
    spec.write_text(json.dumps([{'page': b.page, 'line': b.line, 'code': b.text}
                                for b in blocks]))
    proc = subprocess.run([sys.executable, str(Path(__file__).with_name('doc_runner.py')),
                           str(spec), str(results)], cwd=repo, capture_output=True, text=True,
                          env=dict(os.environ, MPLBACKEND='Agg', PYTHONDONTWRITEBYTECODE='1'),
                          timeout=TIMEOUT)
    assert proc.returncode == 0, proc.stderr
    assert len(ran) >= 10 and blocks
    after = _listing(repo)
    written = sorted(set(after) - set(before))
    outside = sorted(p for p in set(before) | set(after)
                     if before.get(p) != after.get(p) and not p.startswith('out/'))
    assert not outside, f'the tour wrote outside out/: {outside}'
    assert 'out/joint_bag/metadata.yaml' in written and 'out/from_python.mcap' in written


# ------------------------------------------------------------------------- other blocks
DATA = [b for b in ALL_BLOCKS if b.lang in ('xml', 'yaml')]


@pytest.mark.parametrize('block', DATA, ids=_ids(DATA))
def test_data_block_parses(block):
    if block.lang == 'xml':
        ET.fromstring(block.text)
    else:
        yaml.safe_load(block.text)


def test_ros2_commands_are_collected_and_marked():
    commands = doc_ros2_commands()
    assert commands, 'the pages show how to run the nodes with the ros2 tools'
    assert {page for page, _ in commands} <= {p.relative_to(REPO).as_posix() for p in DOC_PAGES}
    unmarked = [(b.page, b.line) for b in ALL_BLOCKS if b.skip is None
                and any(c.startswith('ros2 ') for _, c, _ in shell_commands(b))]
    assert not unmarked, f'ros2 commands in blocks without a doc-test mark: {unmarked}'


# ------------------------------------------------------------------------- links
_LINK = re.compile(r'!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)')


def _prose(path):
    """Return the page without fenced blocks and inline code spans."""
    text = re.sub(r'^(```+|~~~+).*?^\1[ \t]*$', '', path.read_text(encoding='utf-8'),
                  flags=re.S | re.M)
    return re.sub(r'`[^`\n]*`', '', text)


def _anchors(path):
    """Return the GitHub anchors of a page's headings (duplicates numbered -1, -2...)."""
    seen = {}
    anchors = set()
    text = re.sub(r'^(```+|~~~+).*?^\1[ \t]*$', '', path.read_text(encoding='utf-8'),
                  flags=re.S | re.M)
    for heading in re.findall(r'^#{1,6}\s+(.+?)\s*#*\s*$', text, re.M):
        slug = re.sub(r'[^\w\- ]', '', heading.strip().lower()).replace(' ', '-')
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        anchors.add(slug if count == 0 else f'{slug}-{count}')
    return anchors


LINKS = [(page, target) for page in DOC_PAGES for target in _LINK.findall(_prose(page))
         if not re.match(r'^[a-z]+:', target)]


@pytest.mark.parametrize('page, target', LINKS,
                         ids=[f'{p.relative_to(REPO).as_posix()}->{t}' for p, t in LINKS])
def test_relative_link_resolves(page, target):
    file_part, _, anchor = target.partition('#')
    path = (page.parent / file_part).resolve() if file_part else page
    assert path.exists(), f'{page.relative_to(REPO)}: {target} does not exist'
    if anchor:
        assert path.suffix == '.md', f'{target}: an anchor into a file that is not a page'
        assert anchor in _anchors(path), (
            f'{page.relative_to(REPO)}: no heading of {path.name} has the anchor #{anchor}; '
            f'known: {sorted(_anchors(path))}')


def test_every_page_is_linked_from_the_index():
    index = _prose(REPO / 'doc' / 'README.md') + _prose(REPO / 'README.md')
    for page in DOC_PAGES:
        if page.parent.name == 'doc' and page.name != 'README.md':
            assert page.name in index, f'{page.name} is linked from neither README'
