"""Read tables of responses: CSV (sniffed delimiter and encoding), JSONL, Parquet and Excel.

CSV cells are read as text exactly as written ("007" stays "007"); only empty cells are missing.
A CSV that is not UTF-8 is read in the encoding its bytes show (GB18030, Shift-JIS, Windows-1251, ...),
and one mixing UTF-8 and legacy lines is decoded line by line (:mod:`scoring.io.encodings`); a NUL
character in a cell is kept and reported. Excel reads every sheet with the same header
(:mod:`scoring.io.excel`). What was done is in ``df.attrs["warnings"]`` (of the first chunk when
streaming): the encoding when it is not UTF-8, the lines, the cells, the sheets read. Excel and Parquet
files are read within the limits on unpacked bytes and characters (:mod:`scoring.io.budget`), JSON
values within :data:`MAX_JSON_DEPTH` levels. Duplicate header names get pandas' suffixes (``a``,
``a.1``). Every error names the file and what is accepted; nothing is dropped silently (a row with too
many fields is an error, one with too few is padded with missing cells, which the batch runner then
reports).
"""

from __future__ import annotations

import codecs
import csv
import io
import json
import os
import re
import stat
import sys
import unicodedata
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO

import pandas as pd

from scoring.errors import InputError, InputTypeError, error_name
from scoring.io.budget import FileRefused, ReadBudget
from scoring.io.encodings import decode_line, display_name, mixed_lines
from scoring.io.excel import read_workbook
from scoring.io.formats import ACCEPTED, FORMATS, REFUSED, REFUSED_MAGIC, format_of_suffix, sniff_magic
from scoring.io.parquet import iter_parquet, read_parquet
from scoring.limits import LimitError

__all__ = ["ACCEPTED", "MAX_JSON_DEPTH", "iter_table_chunks", "read_table", "require_rows"]

Source = str | os.PathLike[str] | bytes | bytearray | IO[bytes]


_DELIMITERS = (",", ";", "\t", "|")
_SAMPLE = 1 << 16
_KEEP = 12  # cells named in a message
#: Lists and objects nested deeper than this in a JSON value are refused (exports and scorers walk them).
MAX_JSON_DEPTH = 64


def _fail(name: str, problem: str) -> InputError:
    return InputError(f"{name}: {problem}. Accepted: {ACCEPTED}.")


def _sniff_format(name: str, head: bytes) -> str:
    """Return the format from the file's first bytes (magic numbers win over the extension)."""
    if (binary := sniff_magic(head)) is not None:
        return binary.name
    suffix = Path(name).suffix.lower()
    refused = REFUSED.get(suffix) or next((why for magic, why in REFUSED_MAGIC.items() if head.startswith(magic)), "")
    if refused:
        raise _fail(name, refused)
    by_suffix = format_of_suffix(suffix)
    if by_suffix is not None and any(f.name == by_suffix and f.magic for f in FORMATS):
        raise _fail(name, f"the file is not a valid {suffix} file: it does not start as one (was it renamed, or "
                    "saved in another format? Save it again from the program that made it)")  # fmt: skip
    starts = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if starts.startswith(b"{"):  # JSON objects, whatever the extension says (a CSV header never starts so)
        return "jsonl"
    if by_suffix is not None:
        return by_suffix
    return "jsonl" if starts.startswith(b"[") else "csv"


def detect_encoding(name: str, head: bytes, rest: Iterable[bytes] = ()) -> str | None:
    """Return a text file's Unicode encoding (a BOM, UTF-16 by its zero bytes, UTF-8), or None if it has none.

    ``head`` is the first block; ``rest`` yields the remaining blocks, read only to confirm UTF-8. None
    means a legacy encoding, which :func:`scoring.io.encodings.mixed_lines` finds from the lines.
    """
    if head.startswith(codecs.BOM_UTF8):
        return "utf-8-sig"
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"
    sample = head[:4096]
    if len(sample) >= 4 and b"\x00" in sample:  # a stray NUL is text with a NUL; many in step are UTF-16
        even, odd = sample[0::2].count(0), sample[1::2].count(0)
        if odd > len(sample) // 4 and even == 0:
            return "utf-16-le"
        if even > len(sample) // 4 and odd == 0:
            return "utf-16-be"
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        decoder.decode(head)
        for block in rest:
            decoder.decode(block)
        decoder.decode(b"", final=True)
        return "utf-8"
    except UnicodeDecodeError:
        return None


def _sniff_delimiter(text: str) -> str:
    """Return the delimiter that splits the sample's rows into the most, most consistent fields."""
    lines = text.splitlines(keepends=True)
    if len(lines) > 1 and len(text) >= _SAMPLE - 16:
        lines = lines[:-1]  # the last line of a cut sample may be incomplete
    sample = "".join(lines[:200])
    best, best_key = ",", (0.0, 0)
    for delimiter in _DELIMITERS:
        try:
            counts = [len(row) for row in csv.reader(io.StringIO(sample), delimiter=delimiter) if row]
        except csv.Error:
            continue
        if not counts or counts[0] < 2:
            continue
        consistent = sum(c == counts[0] for c in counts) / len(counts)
        key = (consistent, counts[0])
        if key > best_key:
            best, best_key = delimiter, key
    return best


def _first_widths(stream: IO[bytes], encoding: str, delimiter: str, most: int) -> list[int]:
    """Fields in the first two records (the header and the first row), read in blocks as pandas' C reader splits them.

    A record stops being counted past ``most`` fields (the header's limit, then the header's width), so a
    line of a million delimiters costs a few blocks: pandas would take a first row's extra fields as the
    index and build it before any check (1 MB of commas: 4.4 GB, 252 s). Quotes open only at a field's start;
    ``""`` inside quotes is a quote; CR, LF and CRLF end a record.
    """
    decoder = codecs.getincrementaldecoder(encoding)(errors="replace")
    token = re.compile('["\r\n]|' + re.escape(delimiter))
    widths: list[int] = []
    fields, start, base, last_cr, quoted, closing = 1, 0, 0, -2, False, -2
    while len(widths) < 2:
        block = stream.read(1 << 16)
        text = decoder.decode(block, final=not block)
        for match in token.finditer(text):
            pos, char = base + match.start(), match.group()
            if quoted:
                if closing < 0:  # inside quotes: only a quote matters, and it may close them
                    closing = pos if char == '"' else closing
                    continue
                if closing == pos - 1 and char == '"':  # "" inside quotes
                    closing = -2
                    continue
                quoted, closing = False, -2  # the quote closed at ``closing``: this token is outside quotes
            if char == '"':
                quoted = pos == start
            elif char == delimiter:
                fields, start = fields + 1, pos + 1
                if fields > (most if not widths else widths[0]):
                    widths.append(fields)
                    fields = 1
            elif char == "\n" and last_cr == pos - 1:
                start = pos + 1
            else:
                last_cr = pos if char == "\r" else last_cr
                widths.append(fields)
                fields, start = 1, pos + 1
            if len(widths) == 2 or (widths and widths[0] > most):
                return widths
        base += len(text)
        if not block:
            break
    if base > start and len(widths) < 2:  # the last record has no line end
        widths.append(fields)
    return widths


def _check_widths(name: str, stream: IO[bytes], encoding: str, delimiter: str) -> None:
    """Refuse a header over ``TONE_EXPLORER_MAX_COLUMNS`` or a first row longer than the header, before pandas."""
    budget = ReadBudget()
    widths = _first_widths(stream, encoding, delimiter, budget.max_columns)
    try:
        budget.check_columns(widths[0] if widths else 0, "header")
    except FileRefused as exc:
        raise LimitError(str(_fail(name, str(exc))), f"{name}: {exc.user_message}.") from exc
    if len(widths) == 2 and widths[1] > widths[0]:
        raise _fail(name, f"the first data row has more fields than the header's {widths[0]:,} (a row with too many "
                          "fields is refused, not cut)")  # fmt: skip


def _check_text(name: str, text: str) -> None:
    # Count control characters only: ZWNJ in Persian, ZWJ in emoji, and emoji newer than Python's
    # Unicode tables are not printable() either, yet they are text. A stray NUL is one of a few.
    if sum(unicodedata.category(c) == "Cc" and not c.isspace() for c in text[:4096]) > max(8, len(text[:4096]) // 50):
        raise _fail(name, "the file is binary, not text (it holds many control characters)")


class _Blocks:
    """The rest of a file in 1 MB blocks, noting whether one holds a NUL byte and whether all were read."""

    def __init__(self, handle: IO[bytes], head: bytes) -> None:
        self.handle, self.nul, self.done = handle, b"\x00" in head, False

    def __iter__(self) -> Iterator[bytes]:
        while block := self.handle.read(1 << 20):
            self.nul |= b"\x00" in block
            yield block
        self.done = True

    def has_nul(self) -> bool:
        """Whether the file holds a NUL byte (read again from its start if the blocks were not all read)."""
        if not self.done:
            self.handle.seek(0)
            self.nul = any(b"\x00" in block for block in iter(lambda: self.handle.read(1 << 20), b""))
            self.handle.seek(0)
        return self.nul


def _nul_cells(frames: Iterable[pd.DataFrame]) -> tuple[int, list[str]]:
    """How many cells hold a NUL character, and the first few as "row R, column 'C'" (rows from 1)."""
    count, shown = 0, list[str]()
    for frame in frames:
        for j, column in enumerate(frame.columns):
            values = frame.iloc[:, j]
            hits = values.astype("string").str.contains("\x00", regex=False).fillna(False).to_numpy(dtype=bool)
            for i in hits.nonzero()[0]:
                count += 1
                if len(shown) < _KEEP:
                    shown.append(f"row {int(frame.index[i]) + 1}, column {str(column)!r}")
    return count, shown


def _nul_warning(name: str, count: int, shown: list[str]) -> str:
    more = f" and {count - len(shown):,} more" if count > len(shown) else ""
    return (
        f"{name} holds the NUL character (\\x00) in {count:,} cell(s), kept as they are: {'; '.join(shown)}{more}. "
        "Check where it came from."
    )


def _csv_frames(
    name: str, stream: IO[bytes], encoding: str, delimiter: str, chunksize: int | None
) -> Iterator[pd.DataFrame]:
    try:
        # Blank lines stay rows (reported as missing text later): pandas would drop them silently, and
        # with them a one-column row holding only spaces.
        reader = pd.read_csv(
            stream, sep=delimiter, encoding=encoding, dtype=str, keep_default_na=False,
            na_values=[""], skip_blank_lines=False, chunksize=chunksize, engine="c",
        )  # fmt: skip
        offset = 0
        for frame in [reader] if isinstance(reader, pd.DataFrame) else reader:
            if not isinstance(frame.index, pd.RangeIndex):  # pandas took a longer first row's extra field as index
                raise _fail(name, "the first data row has more fields than the header")
            frame.index = pd.RangeIndex(offset, offset + len(frame))
            offset += len(frame)
            yield frame
    except pd.errors.EmptyDataError as exc:
        raise _fail(name, "the file is empty (expected a header row naming the columns)") from exc
    except (pd.errors.ParserError, UnicodeDecodeError, csv.Error) as exc:
        raise _fail(name, _parse_problem(str(exc), delimiter)) from exc


_TOO_MANY_FIELDS = re.compile(r"Expected (\d+) fields in line (\d+), saw (\d+)")


def _parse_problem(message: str, delimiter: str) -> str:
    """Say what the CSV parser found in words a person can act on (not "C error: Expected 2 fields ...")."""
    shown = "a tab" if delimiter == "\t" else repr(delimiter)
    if found := _TOO_MANY_FIELDS.search(message):
        want, line, saw = found.groups()
        return (f"line {line} has {saw} fields where the header names {want} (fields separated by {shown}): a "
                f"text holding {shown} needs double quotes around it, or the header lacks a column name")  # fmt: skip
    if "EOF inside string" in message or "unexpected end of data" in message:
        return ("a double quote opened a text that is never closed (the file ends inside it): close the quote, "
                "or write a quote inside a text as two (\"\")")  # fmt: skip
    detail = message.strip().removeprefix("Error tokenizing data. C error: ")
    return f"cannot parse it as CSV with fields separated by {shown}: {detail}"


def _read_csv(name: str, handle: IO[bytes], chunksize: int | None) -> Iterator[pd.DataFrame]:
    head = handle.read(_SAMPLE)
    if not head.strip(b" \t\r\n\xef\xbb\xbf\xff\xfe\x00"):
        raise _fail(name, "the file is empty (expected a header row naming the columns)")
    blocks = _Blocks(handle, head)  # a UTF-8 file is read to its end once, and its NUL bytes noted meanwhile
    encoding = detect_encoding(name, head, blocks)
    handle.seek(0)
    warnings: list[str] = []
    if encoding is None:  # a legacy encoding, maybe mixed with UTF-8 lines
        stream, encoding, warnings, legacy = mixed_lines(name, handle)
        lines = head.splitlines(keepends=True)
        if encoding == "utf-8":  # decoded line by line
            text = "".join(decode_line(line, legacy) for line in lines)
        else:
            text = head.decode(encoding, errors="replace")
    else:
        stream, text = handle, head.decode(encoding, errors="replace")
        if encoding.startswith("utf-16"):
            how = "its byte-order mark" if encoding == "utf-16" else "its zero bytes"
            warnings.append(f"{name} is not UTF-8: it was read as {display_name(encoding)} (from {how}).")
    _check_text(name, text)
    delimiter = _sniff_delimiter(text)
    _check_widths(name, stream, encoding, delimiter)
    handle.seek(0)
    if stream is not handle:  # the line-by-line transcoder reads on from where it stopped: start a new one
        stream = mixed_lines(name, handle)[0]
    nul = encoding.startswith("utf-16") or blocks.has_nul()
    if nul and chunksize is not None:  # a first pass finds the cells, so the first chunk can name them
        count, shown = _nul_cells(_csv_frames(name, stream, encoding, delimiter, chunksize))
        handle.seek(0)
        stream = mixed_lines(name, handle)[0] if stream is not handle else handle
        if count:
            warnings.append(_nul_warning(name, count, shown))
    for frame in _csv_frames(name, stream, encoding, delimiter, chunksize):
        if nul and chunksize is None and (found := _nul_cells([frame]))[0]:
            warnings.append(_nul_warning(name, *found))
        if warnings:  # the first frame carries the file's warnings
            frame.attrs["warnings"], warnings = warnings, []
        yield frame


def _depth(value: object) -> int:
    """How deeply lists and objects nest in a parsed JSON value (a scalar is 0), counted without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, (list, dict)):
            deepest = max(deepest, level)
            if level <= MAX_JSON_DEPTH:
                stack.extend((v, level + 1) for v in (item.values() if isinstance(item, dict) else item))
    return deepest


def _too_deep(name: str, where: str) -> InputError:
    return _fail(name, f"{where} nests lists or objects more than {MAX_JSON_DEPTH} levels deep; a table cell holds "
                       f"at most {MAX_JSON_DEPTH}")  # fmt: skip


class _DuplicateKey(ValueError):
    """A JSON object names the same key twice (Python's reader would keep the last value silently)."""


def _unique_keys(pairs: list[tuple[str, object]]) -> dict[str, object]:
    record = dict(pairs)
    if len(record) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return record


def _loads(name: str, where: str, text: str) -> object:
    """``json.loads`` with every way it fails said in the file's words, naming ``where`` (e.g. "line 3")."""
    try:
        return json.loads(text, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as exc:
        raise _fail(name, f"{where} is not valid JSON ({exc.msg})") from exc
    except RecursionError as exc:  # Python's JSON reader gives up near 1,000 levels
        raise _too_deep(name, where) from exc
    except _DuplicateKey as exc:
        raise _fail(name, f"{where} names the key {exc.args[0]!r} more than once in one object; each key must be "
                          "given once (which value counts would be a guess)") from None  # fmt: skip
    except ValueError as exc:  # Python refuses integers of more than 4,300 digits ("int_max_str_digits")
        if "digits" not in str(exc):
            raise
        raise _fail(name, f"{where} holds an integer of more than {sys.get_int_max_str_digits():,} digits; write "
                          "such a number as a string") from None  # fmt: skip


def _json_object(name: str, number: int, raw: bytes) -> dict[str, object] | None:
    try:
        line = raw.decode("utf-8-sig" if number == 1 else "utf-8").strip()
    except UnicodeDecodeError as exc:
        raise _fail(name, f"line {number} is not UTF-8 text (JSON Lines must be UTF-8)") from exc
    record = _loads(name, f"line {number}", line) if line else None
    if record is not None and not isinstance(record, dict):
        raise _fail(name, f"line {number} must be a JSON object like {{'output': ...}}; got {type(record).__name__}")
    if record and _depth(record) > MAX_JSON_DEPTH:
        raise _too_deep(name, f"line {number}")
    return record


def _read_jsonl(name: str, handle: IO[bytes], chunksize: int | None) -> Iterator[pd.DataFrame]:
    head = handle.read(_SAMPLE).lstrip(b"\xef\xbb\xbf \t\r\n")
    handle.seek(0)
    if not head:
        raise _fail(name, "the file is empty (expected one JSON object per line)")
    if head.startswith(b"["):  # a JSON array of objects (.json)
        try:
            text = handle.read().decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise _fail(name, f"not a valid JSON array of objects ({exc})") from exc
        records = _loads(name, "the JSON array", text)
        if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
            raise _fail(name, "a JSON array must hold objects like {'output': ...}")
        if any(_depth(r) > MAX_JSON_DEPTH - 1 for r in records):  # the array is one level itself
            raise _too_deep(name, "the JSON array")
        yield from _slices(_records_frame(name, records), chunksize)
        return
    keys: dict[str, None] = {}  # every chunk gets every column of the file, in first-seen order
    for number, raw in enumerate(handle, start=1):
        keys.update(dict.fromkeys(_json_object(name, number, raw) or ()))
    handle.seek(0)
    batch: list[dict[str, object]] = []
    for number, raw in enumerate(handle, start=1):
        if (record := _json_object(name, number, raw)) is not None:
            batch.append(record)
        if chunksize is not None and len(batch) == chunksize:
            yield _records_frame(name, batch, list(keys))
            batch = []
    if batch or chunksize is None:
        yield _records_frame(name, batch, list(keys))


def _records_frame(name: str, records: list[dict[str, object]], columns: list[str] | None = None) -> pd.DataFrame:
    try:
        return pd.DataFrame.from_records(records, columns=columns)
    except UnicodeEncodeError as exc:  # a JSON escape such as "\ud800": half a UTF-16 pair, not a character
        bad = f"\\u{ord(str(exc.object)[exc.start]):04x}"
        raise _fail(name, f"it holds the JSON escape {bad}, a lone UTF-16 surrogate that is not text") from exc


def _read_binary(name: str, fmt: str, handle: IO[bytes], chunksize: int | None) -> Iterator[pd.DataFrame]:
    try:
        if fmt == "excel":
            frame, warnings = read_workbook(name, handle, ReadBudget())
            frame.attrs["warnings"] = warnings
        elif chunksize is None:
            frame = read_parquet(handle, ReadBudget())
        else:
            yield from iter_parquet(handle, chunksize, ReadBudget)
            return
    except FileRefused as exc:
        error = _fail(name, str(exc))
        if exc.user_message != str(exc):  # a limit: the page's message leaves out the variable
            error = LimitError(str(error), f"{name}: {exc.user_message}.")
        raise error from exc
    except Exception as exc:  # pyarrow, zipfile and openpyxl raise their own types for corrupt files
        raise _fail(name, f"cannot read it as {fmt} ({error_name(exc)}: {exc})") from exc
    yield from _slices(frame, chunksize)


def _slices(frame: pd.DataFrame, chunksize: int | None) -> Iterator[pd.DataFrame]:
    step = chunksize or max(len(frame), 1)
    for start in range(0, max(len(frame), 1), step):
        yield frame.iloc[start : start + step]


def _frames(name: str, handle: IO[bytes], chunksize: int | None) -> Iterator[pd.DataFrame]:
    fmt = _sniff_format(name, handle.read(_SAMPLE))
    handle.seek(0)
    if fmt in {"parquet", "excel"}:
        return _read_binary(name, fmt, handle, chunksize)
    return _read_jsonl(name, handle, chunksize) if fmt == "jsonl" else _read_csv(name, handle, chunksize)


def read_table(source: Source, *, filename: str | None = None) -> pd.DataFrame:
    """Read a whole table from a path, bytes or a binary file object.

    ``filename`` names the data in messages and gives its extension when ``source`` is bytes;
    the format is taken from magic bytes, then the extension, then the content.

    Raises:
        ValueError: the file is empty, binary, or cannot be parsed (the message names the file).
        FileNotFoundError: ``source`` is a path that does not exist.
    """
    if isinstance(source, (str, os.PathLike)):
        path = _existing(source)
        with path.open("rb") as f:
            return next(_frames(filename or str(path), f, None))
    if isinstance(source, (bytes, bytearray)):
        return next(_frames(filename or "uploaded file", io.BytesIO(bytes(source)), None))
    read = getattr(source, "read", None)
    if not callable(read):
        raise InputTypeError(f"source must be a path, bytes or a binary file object; got {type(source).__name__}.")
    data = read()
    data = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    return next(_frames(filename or str(getattr(source, "name", "uploaded file")), io.BytesIO(data), None))


def require_rows(rows: int, source: str) -> None:
    """Raise a ValueError naming ``source`` when it has no data rows (else a run "scores" nothing and looks done).

    >>> require_rows(0, "replies.csv")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    scoring.errors.InputError: replies.csv has no data rows to score (only a header?): add rows of ... below the header.
    """
    if rows == 0:
        raise InputError(
            f"{source} has no data rows to score (only a header?): add rows of responses below the header."
        )


def _existing(path: str | os.PathLike[str]) -> Path:
    """``path`` if it is a regular file (checked without opening it: opening a FIFO waits for a writer)."""
    file = Path(path)
    try:
        mode = file.stat().st_mode
    except FileNotFoundError:
        raise FileNotFoundError(f"{file}: no such file. Accepted: {ACCEPTED}.") from None
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(f"{file}: is a directory, not a file: name a file in it. Accepted: {ACCEPTED}.")
    if not stat.S_ISREG(mode):
        kind = "a named pipe (FIFO)" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode) else "a device"
        raise _fail(str(file), f"is {kind}, not a regular file: the reader needs a file it can read twice (save the "
                               "data to a file first)")  # fmt: skip
    return file


def iter_table_chunks(path: str | os.PathLike[str], chunksize: int = 50_000) -> Iterator[pd.DataFrame]:
    """Yield a file's rows as DataFrames of at most ``chunksize`` rows, keeping memory flat.

    CSV, JSONL and Parquet are streamed; Excel (at most ~1M rows) is read whole, then sliced.
    The index runs on across chunks (0, 1, ... over the whole file). Errors are as :func:`read_table`'s.
    """
    if not isinstance(chunksize, int) or isinstance(chunksize, bool) or chunksize < 1:
        raise InputError(f"chunksize must be a positive integer; got {chunksize!r}.")
    file = _existing(path)
    offset = 0
    with file.open("rb") as f:
        for chunk in _frames(str(file), f, chunksize):
            chunk.index = pd.RangeIndex(offset, offset + len(chunk))
            offset += len(chunk)
            yield chunk
