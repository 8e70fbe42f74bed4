"""Safe exports of result tables: CSV, Excel, JSON Lines, Parquet, written atomically.

CSV and Excel cells (and column names) that a spreadsheet would read as a formula get a leading ``'``
by default, so opening an export never runs a formula someone typed into their data (OWASP "CSV
injection"): they start with ``=``, ``+``, ``-``, ``@``, tab, carriage return, NUL or the full-width
``＝ ＋ － ＠``, or reach one after spaces and invisible characters (no-break and zero-width spaces, a
BOM, direction marks). CSV follows OWASP for ``,`` readers and for readers that split on ``;``, tab or
``|`` (spreadsheets in German, French or Dutch use ``;``; a pasted or "text to columns" import splits on
tab or ``|`` whatever the quotes say): every text cell is quoted, and a ``;``, tab, ``|`` or line break
inside a cell that such a reader would take for a cell boundary before a formula character gets a ``'`` after it
(``x;=cmd|' /C calc'!A0`` -> ``"x;'=cmd|' /C calc'!A0"``; a line ``- item`` of a multi-line cell becomes
``'- item``: export Excel or JSON Lines, or pass ``neutralise=False``, for the text untouched). Excel
cells are always written as text cells, never formulas, whichever way ``neutralise`` is set.

Nothing is dropped: an index that is not the default 0..n-1 becomes columns; lists and dicts become
JSON text in CSV, Excel and (when Arrow cannot type them) Parquet; a lone UTF-16 surrogate, which
UTF-8 cannot encode, is written as the six characters ``\\udXXX`` (a real JSON escape in JSON Lines,
so it reads back exactly); control characters Excel refuses are written as ``\\xNN``, and a carriage
return in an Excel cell becomes the line break ``\\n`` (XML keeps no bare ``\\r``). A table Excel
cannot hold (too many rows or columns, a cell over 32,767 characters) raises ``ValueError`` naming the
row and column instead of being cut.
"""

from __future__ import annotations

import csv
import json
import math
import os
import re
import unicodedata
import zipfile
from collections.abc import Mapping
from datetime import date, datetime
from io import BytesIO
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from scoring.errors import InputError, InputTypeError
from scoring.io.atomic import atomic_write
from scoring.io.formats import EXPORTS

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = [
    "FORMATS",
    "FORMULA_PREFIXES",
    "atomic_write",
    "export_bytes",
    "neutralise_cell",
    "neutralise_csv_text",
    "starts_formula",
    "to_arrow_table",
    "to_csv_bytes",
    "to_excel_bytes",
    "to_jsonl_bytes",
    "to_parquet_bytes",
    "write_export",
]

#: Leading characters that make Excel, LibreOffice or Google Sheets treat a cell as a formula (the full-width
#: forms too: some spreadsheets fold them to ASCII).
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r", "\x00", "\uff1d", "\uff0b", "\uff0d", "\uff20")
#: Format name -> (file extension, MIME type): the table of formats' writable ones (scoring/io/formats.py).
FORMATS: dict[str, tuple[str, str]] = EXPORTS
EXCEL_MAX_ROWS = 1_048_576  # header included
EXCEL_MAX_COLUMNS = 16_384
EXCEL_MAX_CELL_CHARS = 32_767
_SURROGATE_RE = re.compile("[\ud800-\udfff]")
_CELL_BREAK = re.compile("(;|\t|[|]|\r\n|\r|\n)")  # where a ";", tab or "|" reader may start a new cell
_EXCEL_ILLEGAL_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f]")


def _skip_invisible(text: str, start: int = 0, extra: str = "") -> int:
    """The index of the first character from ``start`` that is not a space, an invisible format character
    (zero-width space, BOM, direction marks: category Cf) or one of ``extra``."""
    i = start
    while i < len(text) and (text[i].isspace() or text[i] in extra or unicodedata.category(text[i]) == "Cf"):
        i += 1
    return i


def starts_formula(text: str) -> bool:
    """Whether a spreadsheet may run ``text`` as a formula: a formula character first, or after spaces and
    invisible characters.

    >>> starts_formula("=1+1"), starts_formula("\u00a0=1+1"), starts_formula("\ufeff\uff1dcmd"), starts_formula("a=b")
    (True, True, True, False)
    """
    return text.startswith(FORMULA_PREFIXES) or text[_skip_invisible(text) :].startswith(FORMULA_PREFIXES)


def neutralise_cell(value: object) -> object:
    """Return ``value`` with a ``'`` in front if it is a string a spreadsheet would run as a formula.

    >>> neutralise_cell("=HYPERLINK(\\"http://x\\")")
    '\\'=HYPERLINK("http://x")'
    >>> neutralise_cell("-1"), neutralise_cell(-1), neutralise_cell("fine"), neutralise_cell(" @SUM(A1)")
    ("'-1", -1, 'fine', "' @SUM(A1)")
    """
    if isinstance(value, str) and starts_formula(value):
        return "'" + value
    return value


def neutralise_csv_text(text: str) -> str:
    """:func:`neutralise_cell`, and a ``'`` after each ``;``, tab, ``|`` or line break that a reader splitting on
    it would take for a cell boundary before a formula (quotes, spaces and invisible characters skipped, as it
    may): ``x<TAB>=cmd|' /C calc'!A0`` is two cells to a tab reader, the second a formula.

    Such a reader (a spreadsheet in a German, French or Dutch locale opening a ``,`` file) does not know
    the ``,`` file's quotes, so ``"x;=cmd()"`` is two cells to it, the second a formula; so is a quoted
    cell's second line.

    >>> neutralise_csv_text("x;=cmd|' /C calc'!A0"), neutralise_csv_text("a;b"), neutralise_csv_text("1\\n-2")
    ("x;'=cmd|' /C calc'!A0", 'a;b', "1\\n'-2")
    >>> print(neutralise_csv_text('a; "+1"'))
    a;' "+1"
    >>> neutralise_csv_text("x\\t=cmd|' /C calc'!A0"), neutralise_csv_text("x|@SUM(A1)"), neutralise_csv_text("a|b")
    ("x\\t'=cmd|' /C calc'!A0", "x|'@SUM(A1)", 'a|b')
    """
    text = str(neutralise_cell(text))
    if not _CELL_BREAK.search(text):
        return text
    parts = _CELL_BREAK.split(text)  # text, break, text, break, ...
    for i in range(2, len(parts), 2):
        if parts[i][_skip_invisible(parts[i], extra='"') :].startswith(FORMULA_PREFIXES):
            parts[i] = "'" + parts[i]
    return "".join(parts)


def _is_missing(value: object) -> bool:
    if value is None or value is pd.NaT or value is pd.NA:
        return True
    return isinstance(value, float) and math.isnan(value)


def _escape_surrogates(text: str) -> str:
    return _SURROGATE_RE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _json_default(value: object) -> object:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (datetime, date, pd.Timestamp)):
        return value.isoformat()
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=repr)
    if isinstance(value, bytes):
        return value.decode("utf-8", "backslashreplace")
    return str(value)


def _plain(value: object) -> object:
    """Return ``value`` as JSON-ready Python data (NaN and NA -> None, numpy -> Python)."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return [_plain(v) for v in value.tolist()]
    if _is_missing(value):
        return None
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None if math.isnan(value) else str(value)
    return value


def _json_text(value: object) -> str:
    return json.dumps(_plain(value), ensure_ascii=False, default=_json_default)


def _flat(df: pd.DataFrame) -> pd.DataFrame:
    """Check ``df`` and keep a meaningful index as columns; column names become strings."""
    if not isinstance(df, pd.DataFrame):
        raise InputTypeError(f"df must be a pandas DataFrame; got {type(df).__name__}.")
    if not isinstance(df.index, pd.RangeIndex) or df.index.start != 0 or df.index.step != 1:
        df = df.reset_index()
    out = df.copy()
    out.columns = [str(c) for c in out.columns]
    return out


def _no_duplicates(df: pd.DataFrame, fmt: str) -> None:
    duplicated = sorted(set(df.columns[df.columns.duplicated()]))
    if duplicated:
        raise InputError(f"{fmt} export needs unique column names; {duplicated} appear more than once. Rename them.")


def _text_cell(value: object, neutralise: bool, csv_text: bool = False) -> object:
    if isinstance(value, (Mapping, list, tuple, set, frozenset, np.ndarray)):
        value = _json_text(value)
    if isinstance(value, str):
        value = _escape_surrogates(value)
        if not neutralise:
            return value
        return neutralise_csv_text(value) if csv_text else neutralise_cell(value)
    return value


def _sheet_frame(df: pd.DataFrame, neutralise: bool, csv_text: bool = False) -> pd.DataFrame:
    """Return a copy fit for a spreadsheet: nested values as JSON text, formulas neutralised."""
    out = _flat(df)
    for i in range(out.shape[1]):
        column = out.iloc[:, i]
        if not (pd.api.types.is_numeric_dtype(column) or pd.api.types.is_datetime64_any_dtype(column)):
            out.isetitem(i, column.astype(object).map(lambda v: _text_cell(v, neutralise, csv_text)))
    out.columns = [_text_cell(c, neutralise, csv_text) for c in out.columns]
    return out


def to_csv_bytes(df: pd.DataFrame, *, neutralise: bool = True) -> bytes:
    """Return ``df`` as UTF-8 CSV, text cells quoted; formula-like cells get a ``'`` unless ``neutralise=False``."""
    buffer = BytesIO()
    # Quoting every text cell (OWASP) keeps a cell holding "," or ";" whole in a reader splitting on either.
    # CRLF line ends make the writer quote any field holding a lone "\r", which readers take for a line end.
    frame = _sheet_frame(df, neutralise, csv_text=True)
    frame.to_csv(buffer, index=False, encoding="utf-8", lineterminator="\r\n", quoting=csv.QUOTE_NONNUMERIC)
    return buffer.getvalue()


def _excel_value(value: object, row: int, column: str) -> object:
    if _is_missing(value):
        return None
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, pd.Timestamp):
        value = value.to_pydatetime()
    if isinstance(value, datetime) and value.tzinfo is not None:
        value = value.isoformat()  # Excel has no time zones; keep the offset as text
    if isinstance(value, float) and not math.isfinite(value):
        value = str(value)
    if isinstance(value, (str, bool, int, float, datetime, date)) is False:
        value = str(value)
    if isinstance(value, str):
        value = _EXCEL_ILLEGAL_RE.sub(lambda m: f"\\x{ord(m.group()):02x}", value)
        value = value.replace("\r\n", "\n").replace("\r", "\n")  # XML would do it anyway; Excel breaks on \n
        if len(value) > EXCEL_MAX_CELL_CHARS:
            raise InputError(
                f"row {row}, column {column!r} holds {len(value):,} characters; an Excel cell holds at most "
                f"{EXCEL_MAX_CELL_CHARS:,}. Export CSV, JSON Lines or Parquet instead."
            )
    return value


def to_excel_bytes(df: pd.DataFrame, *, neutralise: bool = True, sheet_name: str = "results") -> bytes:
    """Return ``df`` as an .xlsx workbook of plain values; strings are text cells, never formulas."""
    from openpyxl import Workbook
    from openpyxl.cell import WriteOnlyCell

    frame = _sheet_frame(df, neutralise)
    if frame.shape[0] + 1 > EXCEL_MAX_ROWS or frame.shape[1] > EXCEL_MAX_COLUMNS:
        raise InputError(
            f"Excel holds at most {EXCEL_MAX_ROWS - 1:,} rows and {EXCEL_MAX_COLUMNS:,} columns; this table has "
            f"{frame.shape[0]:,} rows and {frame.shape[1]:,} columns. Export CSV, JSON Lines or Parquet instead."
        )
    book = Workbook(write_only=True)
    sheet = book.create_sheet(sheet_name)
    names = [str(c) for c in frame.columns]

    def cell(value: object, row: int, column: str) -> object:
        value = _excel_value(value, row, column)
        if not isinstance(value, str):
            return value
        text = WriteOnlyCell(sheet, value=value)
        text.data_type = "s"  # openpyxl would make "=..." a formula
        return text

    rows = [[cell(name, 0, name) for name in names]]  # all checked before the sheet's writer starts
    for row, values in enumerate(frame.itertuples(index=False, name=None), start=1):
        rows.append([cell(v, row, name) for v, name in zip(values, names, strict=True)])
    for cells in rows:
        sheet.append(cells)
    buffer = BytesIO()
    book.save(buffer)
    return _without_timestamps(buffer.getvalue())


_ZIP_EPOCH = (1980, 1, 1, 0, 0, 0)
_DOC_DATES = re.compile(rb"<dcterms:(created|modified)\b[^>]*>[^<]*</dcterms:\1>")


def _without_timestamps(workbook: bytes) -> bytes:
    """Return the workbook with no clock time in it: the same table always gives the same bytes.

    openpyxl stamps the save time into docProps/core.xml and every zip entry; the dates are optional
    in the format, so they are dropped, and the entries get the zip epoch (as reproducible builds do).
    """
    out = BytesIO()
    with zipfile.ZipFile(BytesIO(workbook)) as source, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            body = source.read(info)
            if info.filename == "docProps/core.xml":
                body = _DOC_DATES.sub(b"", body)
            entry = zipfile.ZipInfo(info.filename, date_time=_ZIP_EPOCH)
            entry.compress_type, entry.external_attr = info.compress_type, info.external_attr
            target.writestr(entry, body)
    return out.getvalue()


def to_jsonl_bytes(df: pd.DataFrame) -> bytes:
    """Return ``df`` as JSON Lines, one object per row (NaN -> null, nested values kept as JSON)."""
    frame = _flat(df)
    _no_duplicates(frame, "JSON Lines")
    names = list(frame.columns)
    lines = (
        json.dumps({n: _plain(v) for n, v in zip(names, row, strict=True)}, ensure_ascii=False, default=_json_default)
        for row in frame.itertuples(index=False, name=None)
    )
    # A lone surrogate becomes the JSON escape \udXXX, which reads back as the same string.
    return "".join(line + "\n" for line in lines).encode("utf-8", "backslashreplace")


def _arrow_column(column: pd.Series) -> pd.Series:
    import pyarrow as pa

    if pd.api.types.is_numeric_dtype(column) or pd.api.types.is_datetime64_any_dtype(column):
        return column
    column = column.astype(object).map(lambda v: _escape_surrogates(v) if isinstance(v, str) else v)
    try:
        pa.array(column, from_pandas=True)
        return column
    except (pa.ArrowException, TypeError, ValueError):  # mixed or nested values: keep them as JSON text
        return column.map(lambda v: None if _is_missing(v) else v if isinstance(v, str) else _json_text(v))


def to_arrow_table(df: pd.DataFrame) -> pa.Table:
    """Return ``df`` as the Arrow table :func:`to_parquet_bytes` writes (what pandas' ``to_parquet`` would write:
    its schema metadata, and ``df.attrs`` as ``PANDAS_ATTRS``); columns Arrow cannot type become JSON text.
    """
    import pyarrow as pa

    frame = _flat(df)
    _no_duplicates(frame, "Parquet")
    for i in range(frame.shape[1]):
        frame.isetitem(i, _arrow_column(frame.iloc[:, i]))
    table = pa.Table.from_pandas(frame, preserve_index=False)
    if frame.attrs:
        table = table.replace_schema_metadata({**table.schema.metadata, "PANDAS_ATTRS": json.dumps(frame.attrs)})
    return table


def to_parquet_bytes(df: pd.DataFrame) -> bytes:
    """Return ``df`` as Parquet; columns Arrow cannot type (mixed or nested values) are stored as JSON text."""
    import pyarrow.parquet as pq

    buffer = BytesIO()
    pq.write_table(to_arrow_table(df), buffer, compression="snappy")
    return buffer.getvalue()


def export_bytes(df: pd.DataFrame, fmt: str, *, neutralise: bool = True) -> bytes:
    """Return ``df`` in format ``fmt`` (a key of :data:`FORMATS`)."""
    if fmt == "csv":
        return to_csv_bytes(df, neutralise=neutralise)
    if fmt == "xlsx":
        return to_excel_bytes(df, neutralise=neutralise)
    if fmt == "jsonl":
        return to_jsonl_bytes(df)
    if fmt == "parquet":
        return to_parquet_bytes(df)
    raise InputError(f"format must be one of {sorted(FORMATS)}; got {fmt!r}.")


def write_export(
    df: pd.DataFrame, path: str | os.PathLike[str], *, fmt: str | None = None, neutralise: bool = True
) -> Path:
    """Export ``df`` to ``path`` atomically; ``fmt`` defaults to the one named by the extension."""
    target = Path(path)
    if fmt is None:
        by_suffix = {ext: name for name, (ext, _) in FORMATS.items()}
        fmt = by_suffix.get(target.suffix.lower())
        if fmt is None:
            raise InputError(f"cannot tell the export format of {str(target)!r}: use one of {sorted(by_suffix)}.")
    return atomic_write(target, export_bytes(df, fmt, neutralise=neutralise))
