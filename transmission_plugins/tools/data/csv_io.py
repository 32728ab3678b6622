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
CSV text to arrays and back, through Arrow (``pyarrow``): the tools' one CSV reader and writer.

Formatting and parsing numbers is where CSV conversion spends its time, so both happen in
Arrow's compiled code, a block at a time, with no Python per cell.  Numbers round-trip exactly
(correctly rounded parsing, shortest text); empty cells are NaN, and NaN and infinities are
written as empty cells.  Errors name the line (the header is line 1), the column and the value.
"""

import csv
import io
import re
from typing import Any
from typing import BinaryIO
from typing import Iterator
from typing import Sequence

import numpy as np

from transmission_plugins.core.exceptions import TransmissionInputError

#: Bytes Arrow parses at a time; a row (with its line break) must fit in one block.
BLOCK_SIZE = 1 << 20
_NEEDS_QUOTES = '[",\r\n]'
_ROW = re.compile(r'Row #(\d+)')
_COLUMN = re.compile(r'In CSV column #(\d+): Row #\d+: CSV conversion error to double: '
                     r"invalid value '(.*)'$", re.S)
_FIELDS = re.compile(r'Expected (\d+) columns, got (\d+)')


class CsvError(TransmissionInputError):
    """A CSV file cannot be read or converted: its message names the line, column and value."""


def _pyarrow() -> Any:
    try:
        import pyarrow
        import pyarrow.compute  # noqa: F401
        import pyarrow.csv  # noqa: F401
    except ImportError as e:  # pragma: no cover - pinned in requirements.txt
        raise CsvError(f'reading and writing CSV needs pyarrow ({e}); pip install pyarrow') from e
    return pyarrow


def _lines(stream: BinaryIO) -> Iterator[str]:
    """
    Yield the lines of the header, each at most :data:`BLOCK_SIZE` bytes.

    :raises csv.Error: a longer line (a stream of NULs has no line end: it would be read whole)
    """
    while True:
        line = stream.readline(BLOCK_SIZE + 1)
        if not line:
            return
        if len(line) > BLOCK_SIZE:
            raise csv.Error(f'a line longer than {BLOCK_SIZE >> 10} KiB without a line end')
        yield line.decode('utf-8')


class CsvReader:
    """
    The header and the data rows of a CSV stream (see the module doc).

    :param stream: a binary stream at the start of the CSV text (a file, or stdin's buffer)
    :raises CsvError: no header line, or a header that is not CSV text
    """

    def __init__(self, stream: BinaryIO) -> None:
        self.stream = stream
        reader = csv.reader(_lines(stream))
        try:
            self.header: list[str] = next(reader)
        except StopIteration:
            raise CsvError('the input is empty (no header line)') from None
        except (csv.Error, UnicodeDecodeError) as e:
            raise CsvError(f'line 1: the header is not CSV text: {e}') from None
        self.rows = 0

    def blocks(self, numeric: Sequence[int]) -> Iterator[tuple[np.ndarray, list[Any]]]:
        """
        Yield ``(numbers, texts)`` per block of data rows.

        :returns: ``numbers``, ``(rows, len(numeric))`` float64 with NaN for empty cells, and
            ``texts``, the other columns in order, each a ``pyarrow`` string array
        :raises CsvError: a cell of a numeric column is not a number, a row has more or fewer
            fields than the header, a row is longer than :data:`BLOCK_SIZE`, bad UTF-8
        """
        pa = _pyarrow()
        names = [f'c{k}' for k in range(len(self.header))]
        wanted = set(numeric)
        types = {n: pa.float64() if k in wanted else pa.string() for k, n in enumerate(names)}
        text_columns = [k for k in range(len(names)) if k not in wanted]
        try:
            read = pa.csv.ReadOptions(column_names=names, block_size=BLOCK_SIZE,
                                      use_threads=False)
            parse = pa.csv.ParseOptions(newlines_in_values=True)
            convert = pa.csv.ConvertOptions(column_types=types, null_values=[''],
                                            strings_can_be_null=False,
                                            quoted_strings_can_be_null=False)
            reader = pa.csv.open_csv(self.stream, read_options=read, parse_options=parse,
                                     convert_options=convert)
            for batch in reader:
                numbers = (np.asarray(batch.select(list(numeric)).to_tensor(
                    null_to_nan=True, row_major=False)) if numeric else
                    np.empty((batch.num_rows, 0)))
                self.rows += batch.num_rows
                yield numbers, [batch.column(k) for k in text_columns]
        except (pa.ArrowInvalid, pa.ArrowTypeError) as e:
            raise CsvError(self._describe(str(e))) from None

    def _describe(self, arrow: str) -> str:
        """Return Arrow's error text in the words of the module doc."""
        found = _COLUMN.search(arrow)
        if found:
            row = int(_ROW.search(arrow).group(1))  # type: ignore[union-attr]
            column = self.header[int(found.group(1))]
            return (f'line {row + 1}: column {column!r}: expected a number, got '
                    f'{found.group(2)!r}')
        row_found, fields = _ROW.search(arrow), _FIELDS.search(arrow)
        if row_found and fields:
            return (f'line {int(row_found.group(1)) + 1}: expected {fields.group(1)} fields (as '
                    f'in the header), got {fields.group(2)}')
        if 'straddl' in arrow:
            return (f'line {self.rows + 2}: a row longer than {BLOCK_SIZE >> 10} KiB; rows of '
                    'recorded data are far shorter (is this CSV?)')
        where = f'line {int(row_found.group(1)) + 1}: ' if row_found else ''
        return f'{where}cannot read the CSV: {arrow}'


class CsvWriter:
    """
    Write CSV rows to a binary stream: text columns first, then numbers (see the module doc).

    :param sink: a binary stream
    :param header: the column names, written first
    """

    def __init__(self, sink: BinaryIO, header: Sequence[str]) -> None:
        self.sink = sink
        self.width = len(header)
        self._pa = _pyarrow()
        text = io.StringIO()
        csv.writer(text, lineterminator='\n').writerow(header)
        sink.write(text.getvalue().encode('utf-8'))

    def write(self, texts: Sequence[Any], numbers: np.ndarray) -> None:
        """
        Write rows: ``texts`` (text columns: ``pyarrow`` arrays or lists of str), then numbers.

        :param numbers: ``(rows, columns)`` float64; NaN and infinities give empty cells
        """
        pa, pc = self._pa, self._pa.compute
        rows, count = numbers.shape
        if rows == 0:
            return
        lone = self.width == 1  # csv writes a lone empty cell as "" (a blank line is no row)
        columns = [self._quoted(pa.array(t, pa.string()) if isinstance(t, list) else t, lone)
                   for t in texts]
        if count:
            flat = np.ascontiguousarray(numbers.T).reshape(-1)
            cells = pc.cast(pa.array(flat, mask=~np.isfinite(flat)), pa.string())
            columns += [cells.slice(k * rows, rows) for k in range(count)]
        line = pc.binary_join_element_wise(*columns, ',', null_handling='replace',
                                           null_replacement='""' if lone else '')
        line = pc.binary_join_element_wise(line, '\n', '')
        _, offsets, data = line.buffers()
        ends = np.frombuffer(offsets, np.int32, rows + 1, line.offset * 4)
        self.sink.write(memoryview(data)[int(ends[0]):int(ends[-1])])

    def _quoted(self, column: Any, lone: bool) -> Any:
        pc = self._pa.compute
        needs = pc.match_substring_regex(column, _NEEDS_QUOTES)
        if lone:
            needs = pc.or_(needs, pc.equal(column, ''))
        if not pc.any(needs).as_py():
            return column
        quoted = pc.binary_join_element_wise('"', pc.replace_substring(column, '"', '""'), '"',
                                             '')
        return pc.if_else(needs, quoted, column)


def stream_size(stream: BinaryIO) -> int | None:
    """Return the position of ``stream`` (bytes read), or None when it cannot tell (a pipe)."""
    try:
        return stream.tell()
    except OSError:
        return None
