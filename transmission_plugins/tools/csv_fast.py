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
  standard-library reader, which converts it or reports the line.  Arrow parses up to two
  blocks ahead in a helper thread (:class:`Prefetch`).
* :func:`format_rows` writes the numbers with ``orjson`` (shortest round-trip digits, the same
  as ``repr`` from 1e-4 up) and the text cells with :class:`csv.writer`; the numbers that
  ``repr`` spells differently (below 1e-4 in magnitude: ``1e-05``, not ``0.00001``;
  infinities) are respelled from orjson's digits (:func:`_small_reprs`), so the output is the
  standard library's, byte for byte.  No Python code runs per cell: per block, a few numpy
  calls, one ``orjson.dumps``, one split and one join.

Both libraries are optional: :func:`available` is False without them, and the caller uses the
standard library alone.
"""

import contextlib
import csv
import io
import queue
import re
import threading
from types import TracebackType
from typing import Any
from typing import Generator
from typing import Iterator
from typing import List
from typing import Optional
from typing import Sequence
from typing import Tuple
from typing import Type
from typing import TypeVar

import numpy as np

_SENTINEL = '\x00'
_WIDTH = 24  # bytes of orjson's longest spelling of a small value
_COMMA, _CLOSE, _DOT, _E, _ZERO, _MINUS = b',].e0-'
#: splits orjson's text at its NaN cells (a regular expression finds them faster than split)
_NULL = re.compile(b'null')


class FastPathError(Exception):
    """Arrow rejected a block; the caller continues with the standard-library reader."""


_T = TypeVar('_T')
_END = object()


class Prefetch(Iterator[_T]):
    """
    Iterate ``items`` in a helper thread, up to ``depth`` items ahead, in order.

    Arrow parses a block without holding the GIL, so :func:`read_batches` parses the next
    blocks in this thread while the caller formats the previous one (on two cores the wall
    time drops by a quarter; the CPU time grows by a few percent).  An exception of ``items``
    is raised by ``next`` after the items before it.  Use it as a context manager: leaving it
    stops the thread and waits for it (before the file it reads is closed); at most
    ``depth + 1`` items exist at a time, so memory stays flat.  Arrow's own threads stay off
    (``use_threads``).
    """

    def __init__(self, items: Iterator[_T], depth: int = 2) -> None:
        self._items = items
        self._queue: 'queue.Queue[Any]' = queue.Queue(maxsize=depth)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name='csv-prefetch', daemon=True)
        self._thread.start()

    def _put(self, item: Any) -> bool:
        while not self._stop.is_set():
            try:
                self._queue.put(item, timeout=0.05)
                return True
            except queue.Full:
                continue
        return False

    def _run(self) -> None:
        try:
            for item in self._items:
                if not self._put((item, None)):
                    return
        except BaseException as e:  # handed to the caller, raised there  # noqa: B902
            self._put((_END, e))
            return
        self._put((_END, None))

    def __next__(self) -> _T:
        item, error = self._queue.get()
        if item is _END:
            self._queue.put((_END, error))  # next calls end the same way
            if error is not None:
                raise error
            raise StopIteration
        return item

    def close(self) -> None:
        """Stop the thread and wait for it (it ends after the block it is parsing)."""
        self._stop.set()
        self._thread.join()

    def __enter__(self) -> 'Prefetch[_T]':
        return self

    def __exit__(self, kind: Optional[Type[BaseException]], value: Optional[BaseException],
                 trace: Optional[TracebackType]) -> None:
        self.close()


def available() -> bool:
    """Return True when ``pyarrow`` and ``orjson`` can be imported."""
    try:
        import orjson  # noqa: F401
        import pyarrow.csv  # noqa: F401
    except ImportError:
        return False
    return True


def read_batches(stream: Any, width: int, numeric: Sequence[int], block_size: int = 1 << 20,
                 ahead: int = 2) -> Generator[Tuple[np.ndarray, List[List[str]]], None, None]:
    """
    Yield ``(numbers, texts)`` per block of the CSV data rows in binary ``stream``.

    ``stream`` is positioned after the header line.  ``numbers`` is ``(rows, len(numeric))``
    float64 (NaN for empty cells); ``texts`` holds the other columns' cells, one list per
    column, in column order.  Close the generator before ``stream`` (``contextlib.closing``):
    that stops the parsing thread.

    :param width: the number of columns (from the header)
    :param numeric: the columns parsed as numbers
    :param ahead: blocks Arrow parses ahead in a :class:`Prefetch` thread (0: no thread)
    :raises FastPathError: Arrow cannot parse a block (ragged row, a spelling it does not
        accept, a quoted line break); the rows of earlier blocks were yielded
    """
    import pyarrow as pa
    import pyarrow.csv as pacsv
    names = [f'c{k}' for k in range(width)]
    numeric_set = set(numeric)
    types = {n: (pa.float64() if k in numeric_set else pa.string()) for k, n in enumerate(names)}

    def parsed() -> Iterator[Any]:
        reader = pacsv.open_csv(
            stream,
            read_options=pacsv.ReadOptions(column_names=names, block_size=block_size,
                                           use_threads=False),
            convert_options=pacsv.ConvertOptions(column_types=types, null_values=[''],
                                                 strings_can_be_null=False,
                                                 quoted_strings_can_be_null=False))
        while True:
            try:
                yield reader.read_next_batch()
            except StopIteration:
                return

    text_columns = [k for k in range(width) if k not in numeric_set]
    with Prefetch(parsed(), ahead) if ahead else contextlib.nullcontext(parsed()) as batches:
        while True:
            try:
                batch = next(batches)
            except StopIteration:
                return
            except (pa.ArrowInvalid, pa.ArrowTypeError) as e:
                raise FastPathError(str(e)) from e
            # all the numeric columns in one column-major copy (a loop over them costs 7x)
            numbers = np.asarray(batch.select(numeric).to_tensor(null_to_nan=True,
                                                                 row_major=False))
            yield numbers, [batch.column(k).to_pylist() for k in text_columns]


def _small_reprs(values: np.ndarray) -> List[bytes]:
    """
    Return ``repr`` of each value (0 < |v| < 1e-4, or infinite) as bytes, vectorized.

    orjson writes the same shortest round-trip digits as ``repr`` but spells these values
    differently: ``0.0000D[DDD]`` from 1e-5 up (``repr``: ``D[.DDD]e-05``), a one-digit
    exponent below 1e-5 (``De-7``; ``repr``: ``De-07``) and ``null`` for infinities.  Each
    spelling is rewritten byte by byte in a ``(values, 26)`` array, so no Python runs per value.
    """
    import orjson
    count = values.size
    buf = np.frombuffer(orjson.dumps(values, option=orjson.OPT_SERIALIZE_NUMPY), np.uint8)
    ends = np.flatnonzero((buf == _COMMA) | (buf == _CLOSE))
    starts = np.concatenate(([1], ends[:-1] + 1))
    lengths = ends - starts
    cols = np.arange(_WIDTH)
    text = np.where(cols < lengths[:, None],
                    buf[np.minimum(starts[:, None] + cols, buf.size - 1)], 0).astype(np.uint8)
    out = np.zeros((count, _WIDTH + 2), np.uint8)
    finite = np.isfinite(values)
    neg = (values < 0).astype(np.intp)
    positional = finite & ~(text == _E).any(axis=1)
    p = np.flatnonzero(positional)
    if p.size:  # [-]0.0000D[DDD] -> [-]D[.DDD]e-05: the digits after D move 5 to the left
        rows = np.arange(p.size)
        src, sign = text[p], neg[p]
        sub = np.zeros((p.size, _WIDTH + 2), np.uint8)
        sub[:, 2:_WIDTH - 5] = src[:, 7:]
        sub[:, 0] = _MINUS  # overwritten by the first digit when positive
        sub[rows, sign] = src[rows, 6 + sign]
        sub[rows, sign + 1] = _DOT
        digits = lengths[p] - 6 - sign
        at = np.where(digits == 1, sign + 1, sign + 1 + digits)
        for j, char in enumerate(b'e-05'):
            sub[rows, at + j] = char
        out[p] = sub
    e = np.flatnonzero(finite & ~positional)
    if e.size:  # De-7 -> De-07 (longer exponents are the same)
        src, length = text[e], lengths[e]
        out[e, :_WIDTH] = src
        short = src[np.arange(e.size), length - 2] == _MINUS
        s, n = e[short], length[short]
        out[s, n] = src[short, n - 1]
        out[s, n - 1] = _ZERO
    result: List[bytes] = out.view(f'S{_WIDTH + 2}').ravel().tolist()
    for k in np.flatnonzero(~finite).tolist():
        result[k] = b'inf' if values[k] > 0 else b'-inf'
    return result


def format_rows(texts: Sequence[Sequence[str]], block: np.ndarray) -> str:
    r"""
    Return the CSV lines (``\n`` ended) of rows = text cells, then the numbers of ``block``.

    The result equals ``csv.writer(f, lineterminator='\n').writerows(...)`` of the same rows
    with NaN written as None (an empty cell) and numbers as floats.

    orjson writes the block, with a NaN column in front, as ``[[null,a,b],[null,c,d]]``; the
    cells it spells unlike ``repr`` (:func:`_small_reprs`) are NaN too.  The text is split
    once at ``null``: each row's leading ``null`` becomes the row's text cells (and the line
    break), the others an empty cell or the ``repr`` text.

    :param texts: the leading text columns, one sequence of cells per column
    :param block: ``(rows, n)`` float64
    """
    import orjson
    rows, n = block.shape
    if rows == 0:
        return ''
    if n == 0 or (not texts and n == 1 and np.isnan(block).any()):
        # no numbers, or lone cells csv writes as "" when empty: the standard library
        return _slow(texts, block, range(rows))
    if texts:
        buf = io.StringIO()
        csv.writer(buf, lineterminator='\n').writerows(zip(*texts, [_SENTINEL] * rows))
        heads = buf.getvalue().encode('utf-8').split(b',' + _SENTINEL.encode())
        if len(heads) != rows + 1:  # a text cell holds the sentinel: the slow way
            return _slow(texts, block, range(rows))
    else:
        heads = [b''] + [b'\n'] * rows
    marked = np.empty((rows, n + 1))
    marked[:, 0] = np.nan
    marked[:, 1:] = block
    null = np.empty((rows, n + 1), dtype=bool)
    null[:, 0] = True
    null[:, 1:] = np.isnan(block)  # not isnan(out=...): it misses NaNs in this view (numpy 2.4.6)
    with np.errstate(invalid='ignore'):
        magnitude = np.abs(block)
        fix = (magnitude < 1e-4) & (magnitude > 0) | (magnitude == np.inf)
    where = np.flatnonzero(null)  # every null of the text, in order
    if fix.any():
        fixes = _small_reprs(block[fix])
        marked[:, 1:][fix] = np.nan
        null[:, 1:] |= fix
        where = np.flatnonzero(null)
    pieces = _NULL.split(orjson.dumps(marked, option=orjson.OPT_SERIALIZE_NUMPY))
    # pieces[j] comes before null j; a row's last piece ends in "],[" (the last row "]]")
    starts = np.flatnonzero(where % (n + 1) == 0)
    cells = np.full(where.size, b'', dtype=object)
    cells[starts] = heads[:-1]
    if fix.any():
        flat = np.flatnonzero(fix.ravel())
        cells[np.searchsorted(where, flat + flat // n + 1)] = fixes
    pieces[0] = b''
    for j in starts[1:].tolist():
        pieces[j] = pieces[j][:-3]
    pieces[-1] = pieces[-1][:-2]
    if not texts:  # no text cells: the comma after the leading null goes too
        for j in (starts + 1).tolist():
            pieces[j] = pieces[j][1:]
    out: List[bytes] = [b''] * (2 * where.size + 1)
    out[0::2] = pieces
    out[1::2] = cells.tolist()
    out.append(heads[-1])
    return b''.join(out).decode('utf-8')


def _slow(texts: Sequence[Sequence[str]], block: np.ndarray, rows: Any) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator='\n')
    for k in rows:
        cells: List[Optional[Any]] = [column[k] for column in texts]
        cells += [None if v != v else v for v in block[k].tolist()]
        writer.writerow(cells)
    return buf.getvalue()
