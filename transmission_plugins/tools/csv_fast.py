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
Fast CSV parsing (``pyarrow``) and number formatting (``orjson``), byte-identical to ``csv``.

Parsing and formatting text costs far more than the transmission maps: with the standard
library, ``float(text)`` and ``repr(x)`` take a few hundred nanoseconds per cell, so a PR2-width
row (96 numbers in, 132 out) costs ~60 us.  Here both happen in compiled code:

* :func:`read_batches` parses blocks of the file with Arrow's CSV reader (converted columns as
  float64, correctly rounded like ``float``; empty cells null = NaN; every other column as the
  exact text of the cell).  Arrow accepts a subset of the spellings ``float`` accepts (not
  ``1_000``): a block it rejects raises :class:`FastPathError` and the caller goes on with the
  standard-library reader, which converts it or reports the line.
* :func:`format_rows` writes the numbers with ``orjson`` (shortest round-trip digits, the same
  as ``repr`` from 1e-4 up) and the text cells with :class:`csv.writer`; the numbers that
  ``repr`` spells differently (below 1e-4 in magnitude: ``1e-05``, not ``0.00001``;
  infinities) are spelled by ``repr``, so the output is the standard library's, byte for
  byte.

Both libraries are optional: :func:`available` is False without them, and the caller uses the
standard library alone.
"""

import csv
import io
from typing import Any
from typing import Iterator
from typing import List
from typing import Optional
from typing import Sequence
from typing import Tuple

import numpy as np

_SENTINEL = '\x00'
#: stands in for the cells orjson spells unlike ``repr`` (a value no sensor produces)
_MARK = 7.7e+307
_MARK_TEXT = '7.7e+307'


class FastPathError(Exception):
    """Arrow rejected a block; the caller continues with the standard-library reader."""


def available() -> bool:
    """Return True when ``pyarrow`` and ``orjson`` can be imported."""
    try:
        import orjson  # noqa: F401
        import pyarrow.csv  # noqa: F401
    except ImportError:
        return False
    return True


def read_batches(stream: Any, width: int, numeric: Sequence[int], block_size: int = 1 << 20
                 ) -> Iterator[Tuple[np.ndarray, List[List[str]]]]:
    """
    Yield ``(numbers, texts)`` per block of the CSV data rows in binary ``stream``.

    ``stream`` is positioned after the header line.  ``numbers`` is ``(rows, len(numeric))``
    float64 (NaN for empty cells); ``texts`` holds the other columns' cells, one list per
    column, in column order.

    :param width: the number of columns (from the header)
    :param numeric: the columns parsed as numbers
    :raises FastPathError: Arrow cannot parse a block (ragged row, a spelling it does not
        accept, a quoted line break); the rows of earlier blocks were yielded
    """
    import pyarrow as pa
    import pyarrow.csv as pacsv
    names = [f'c{k}' for k in range(width)]
    numeric_set = set(numeric)
    types = {n: (pa.float64() if k in numeric_set else pa.string()) for k, n in enumerate(names)}
    try:
        reader = pacsv.open_csv(
            stream,
            read_options=pacsv.ReadOptions(column_names=names, block_size=block_size,
                                           use_threads=False),
            convert_options=pacsv.ConvertOptions(column_types=types, null_values=[''],
                                                 strings_can_be_null=False,
                                                 quoted_strings_can_be_null=False))
    except (pa.ArrowInvalid, pa.ArrowTypeError) as e:
        raise FastPathError(str(e)) from e
    text_columns = [k for k in range(width) if k not in numeric_set]
    while True:
        try:
            batch = reader.read_next_batch()
        except StopIteration:
            return
        except (pa.ArrowInvalid, pa.ArrowTypeError) as e:
            raise FastPathError(str(e)) from e
        numbers = np.empty((batch.num_rows, len(numeric)))
        for j, k in enumerate(numeric):
            numbers[:, j] = batch.column(k).to_numpy(zero_copy_only=False)
        yield numbers, [batch.column(k).to_pylist() for k in text_columns]


def _numbers_rows(block: np.ndarray) -> List[str]:
    """
    Return the numbers of ``block``, one line per row, as ``csv`` writes them (NaN empty).

    orjson writes the
    shortest round-trip digits like ``repr``, except below 1e-4 in magnitude (``0.00001`` where
    ``repr`` writes ``1e-05``) and for infinities (``null``).  Those cells are set to a marker
    value first; the text is split at the marker and joined again with ``repr`` of the true
    values in between, so the work stays in compiled code.
    """
    import orjson
    block = np.ascontiguousarray(block)
    with np.errstate(invalid='ignore'):
        magnitude = np.abs(block)
        fix = (magnitude < 1e-4) & (magnitude > 0) | np.isinf(block)
    fixes: List[str] = []
    if fix.any():
        if (magnitude == _MARK).any():  # the marker is a value: respell row by row
            lines = _numbers_rows(np.where(fix, 0.0, block))
            for k in np.flatnonzero(fix.any(axis=1)).tolist():
                lines[k] = _slow((), block, [k])[:-1]
            return lines
        fixes = [repr(v) for v in block[fix].tolist()]  # row-major, as orjson writes
        block = np.where(fix, _MARK, block)
    text = orjson.dumps(block, option=orjson.OPT_SERIALIZE_NUMPY).decode('ascii')
    if fixes:
        parts = text.split(_MARK_TEXT)
        pieces: List[str] = [''] * (2 * len(parts) - 1)
        pieces[::2] = parts
        pieces[1::2] = fixes
        text = ''.join(pieces)
    if np.isnan(block).any():
        text = text.replace('null', '')
    rows = text.split('],[')
    rows[0] = rows[0][2:]
    rows[-1] = rows[-1][:-2]
    return rows


def format_rows(texts: Sequence[Sequence[str]], block: np.ndarray) -> str:
    r"""
    Return the CSV lines (``\n`` ended) of rows = text cells, then the numbers of ``block``.

    The result equals ``csv.writer(f, lineterminator='\n').writerows(...)`` of the same rows
    with NaN written as None (an empty cell) and numbers as floats.

    :param texts: the leading text columns, one sequence of cells per column
    :param block: ``(rows, n)`` float64
    """
    rows, n = block.shape
    if rows == 0:
        return ''
    if n == 0 or (not texts and n == 1 and np.isnan(block).any()):
        # no numbers, or lone cells csv writes as "" when empty: the standard library
        return _slow(texts, block, range(rows))
    numbers = _numbers_rows(block)
    if not texts:
        return '\n'.join(numbers) + '\n'
    buf = io.StringIO()
    csv.writer(buf, lineterminator='\n').writerows(zip(*texts, [_SENTINEL] * rows))
    heads = buf.getvalue().split(_SENTINEL + '\n')
    if len(heads) != rows + 1:  # a text cell holds the sentinel: the slow way
        return _slow(texts, block, range(rows))
    heads[-1] = ''
    numbers.append('')
    return '\n'.join(map(str.__add__, heads, numbers))


def _slow(texts: Sequence[Sequence[str]], block: np.ndarray, rows: Any) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator='\n')
    for k in rows:
        cells: List[Optional[Any]] = [column[k] for column in texts]
        cells += [None if v != v else v for v in block[k].tolist()]
        writer.writerow(cells)
    return buf.getvalue()
