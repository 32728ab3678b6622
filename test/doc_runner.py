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
Run the python blocks of one documentation page in order, in this interpreter (a script).

Usage: ``python doc_runner.py BLOCKS.json RESULTS.json``.  BLOCKS.json is a list of
``{"line": first line of the block in the page, "code": ..., "page": ...}``.  The blocks run
statement by statement in the namespace of ``__main__``, so a block sees what the blocks before it
defined and an entry point may name ``__main__:SomeClass``.  A statement followed directly by
comment lines (no blank line) is a shown output when it is a ``print(...)`` call, another bare
expression (its ``repr``) or a ``for`` loop: what it prints is recorded beside the comment text
for test_docs.py to compare.  After a failing statement the remaining blocks are not run.

RESULTS.json gets one ``{"error": traceback or null, "checks": [[line, shown, actual], ...]}``
per block (``"error": "not run: ..."`` after a failure).
"""

import ast
import contextlib
import io
import json
import sys
import traceback


def _shown_output(lines, end):
    """Return the comment lines right after line index ``end`` (0-based, exclusive), joined."""
    shown = []
    for text in lines[end:]:
        stripped = text.strip()
        if not stripped.startswith('#'):
            break
        shown.append(stripped[1:][1:] if stripped[1:2] == ' ' else stripped[1:])
    return '\n'.join(shown) if shown else None


def _is_print(statement):
    return (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)
            and isinstance(statement.value.func, ast.Name) and statement.value.func.id == 'print')


def _run_block(block, namespace):
    """Run one block; return its checks (raises what the block raises)."""
    code, first = block['code'], block['line']
    filename = f"{block['page']}:{first}"
    tree = ast.parse(code, filename)
    ast.increment_lineno(tree, first - 1)
    lines = code.splitlines()
    checks = []
    for statement in tree.body:
        shown = _shown_output(lines, statement.end_lineno - first + 1)
        compared = shown is not None and isinstance(statement, (ast.Expr, ast.For))
        if compared and isinstance(statement, ast.Expr) and not _is_print(statement):
            value = eval(compile(ast.Expression(statement.value), filename, 'eval'), namespace)
            checks.append([statement.lineno, shown, '' if value is None else repr(value)])
            continue
        compiled = compile(ast.Module([statement], type_ignores=[]), filename, 'exec')
        if not compared:
            exec(compiled, namespace)
            continue
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer):
            exec(compiled, namespace)
        checks.append([statement.lineno, shown, buffer.getvalue()])
    return checks


def main(argv):
    """Run the blocks of ``argv[1]`` and write the results to ``argv[2]``."""
    with open(argv[1], encoding='utf-8') as f:
        blocks = json.load(f)
    namespace = sys.modules['__main__'].__dict__
    results = []
    failed = None
    for block in blocks:
        if failed is not None:
            results.append({'error': f'not run: the block at line {failed} failed', 'checks': []})
            continue
        try:
            results.append({'error': None, 'checks': _run_block(block, namespace)})
        except BaseException:  # report anything, SystemExit included, as the block's failure
            results.append({'error': traceback.format_exc(), 'checks': []})
            failed = block['line']
    with open(argv[2], 'w', encoding='utf-8') as f:
        json.dump(results, f)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
