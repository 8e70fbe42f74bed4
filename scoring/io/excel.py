"""Read an .xlsx workbook: every sheet with the same header as one table, within the read budget.

An .xlsx is a zip. Before openpyxl builds anything, the archive must hold a workbook and unpack to at most
``TONE_EXPLORER_MAX_UNPACKED_MB``: the sizes its directory declares, then the bytes it really unpacks to
(streamed, so a lying directory is caught too). Cells are then read one row at a time, counting their
characters against ``TONE_EXPLORER_MAX_TABLE_CHARS`` (a shared string counts once per cell that uses it),
and converted as pandas' ``read_excel`` does (header row, dtypes, ``a``/``a.1`` for duplicate names).

Every sheet is read: sheets with the first one's header become one table, in order; an empty sheet is
skipped; a sheet with another header refuses the workbook with the list of headers (a second sheet of
rows must never be dropped silently). The warning always says which sheets were read and their rows.
"""

from __future__ import annotations

import math
import zipfile
from dataclasses import dataclass
from typing import IO, Any

import pandas as pd

from scoring.io.budget import FileRefused, ReadBudget

__all__ = ["EXCEL_MAX_ROWS", "check_archive", "read_workbook"]

EXCEL_MAX_ROWS = 1_048_576  # a worksheet holds no more, header included
_SHOWN = 8  # archive members named in a message


def check_archive(handle: IO[bytes], budget: ReadBudget) -> None:
    """Check that ``handle`` is a zip holding an Excel workbook that unpacks within the budget.

    Raises:
        FileRefused: not a zip, a zip of something else, or more unpacked bytes than allowed.
    """
    try:
        archive = zipfile.ZipFile(handle)
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise FileRefused(f"it starts like a zip archive (.xlsx) but is not a valid one ({exc})") from exc
    with archive:
        members = archive.infolist()
        names = [m.filename for m in members]
        if "[Content_Types].xml" not in names or not any(n.startswith("xl/") for n in names):
            shown = ", ".join(repr(n) for n in names[:_SHOWN]) + (" ..." if len(names) > _SHOWN else "")
            raise FileRefused(
                f"it is a zip archive, not an Excel workbook (it holds {shown or 'nothing'}): unzip it and give "
                "the table inside, or save the workbook as .xlsx"
            )
        budget.check_unpacked(sum(m.file_size for m in members), "its zip declares")
        unpacked = 0
        for member in members:  # the real sizes: zipfile stops at the declared size, and checks the CRC
            with archive.open(member) as part:
                while block := part.read(1 << 20):
                    unpacked += len(block)
                    budget.check_unpacked(unpacked, "it unpacks to more than")


def _convert(cell: Any) -> object:
    """A cell's value as pandas' openpyxl reader gives it ("" for empty, NaN for #N/A, 3.0 -> 3)."""
    value = cell.value
    if value is None:
        return ""
    if cell.data_type == "e":
        return float("nan")
    if cell.data_type == "n" and isinstance(value, (int, float)) and math.isfinite(value):
        return int(value) if int(value) == value else float(value)
    return value


def _size(value: object) -> int:
    """What a cell costs against the budget: its characters, and at least 1 (an empty cell is still a cell)."""
    return max(len(value), 1) if isinstance(value, str) else 1


def _sheet_rows(sheet: Any, budget: ReadBudget, title: str) -> list[list[object]]:
    """The sheet's rows as lists of values, trailing empty cells and rows cut, counted against the budget.

    A row wider than ``TONE_EXPLORER_MAX_COLUMNS`` is refused as it is read, and the empty cells that pad the
    shorter rows to the widest are counted before they are made: cells A1 and XFD1 and one row a million
    rows down would otherwise pad a 2 KB file to 16,384 x 1,048,576 cells.
    """
    sheet.reset_dimensions()  # the declared dimensions may be wrong: read what is there
    data: list[list[object]] = []
    last, width, spent = -1, 0, 0
    for number, row in enumerate(sheet.rows):
        if number >= EXCEL_MAX_ROWS:
            raise FileRefused(f"sheet {title!r} has more than {EXCEL_MAX_ROWS:,} rows, more than Excel allows")
        values = [_convert(cell) for cell in row]
        while values and values[-1] == "":
            values.pop()
        budget.check_columns(len(values), f"sheet {title!r} (row {number + 1:,})")
        budget.spend(1 + sum(map(_size, values)))
        spent += len(values)
        if values:
            last = number
        width = max(width, len(values))
        data.append(values)
    data = data[: last + 1]
    budget.spend(max(width * len(data) - spent, 0))  # the padding, before it is made
    return [row + [""] * (width - len(row)) for row in data]


def _frame(data: list[list[object]]) -> pd.DataFrame:
    """Rows -> DataFrame, the first row naming the columns, as ``pd.read_excel`` parses them."""
    from pandas.io.parsers import TextParser

    try:
        with TextParser(data, header=0, skip_blank_lines=False) as parser:
            return parser.read()
    except pd.errors.EmptyDataError:
        return pd.DataFrame()


@dataclass(frozen=True)
class _Sheet:
    title: str
    hidden: bool
    rows: list[list[object]]

    @property
    def header(self) -> list[str]:
        return [str(v) for v in self.rows[0]] if self.rows else []

    def label(self) -> str:
        return repr(self.title) + (" (hidden)" if self.hidden else "")


def _combine(name: str, sheets: list[_Sheet]) -> tuple[pd.DataFrame, str]:
    """One table of the sheets that have rows, and the message saying which were read."""
    used = [s for s in sheets if s.rows]
    empty = [s for s in sheets if not s.rows]
    if not used:
        return pd.DataFrame(), f"{name}: every sheet is empty ({', '.join(s.label() for s in sheets)})."
    if others := [s for s in used if s.header != used[0].header]:
        listed = "; ".join(f"sheet {s.label()} has {s.header}" for s in [used[0], *others])
        raise FileRefused(
            f"its sheets have different headers, so they cannot be read as one table: {listed}. Keep the rows "
            "to score in one sheet, or give every sheet the same header"
        )
    frames = [_frame(s.rows) for s in used]
    table = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    parts, start = [], 1
    for sheet, frame in zip(used, frames, strict=True):
        span = {0: "no rows", 1: f"row {start:,}"}.get(len(frame), f"rows {start:,}-{start + len(frame) - 1:,}")
        parts.append(f"{sheet.title!r} ({'hidden, ' if sheet.hidden else ''}{span})")
        start += len(frame)
    if len(sheets) == 1:
        message = f"{name}: read sheet {parts[0]}, the workbook's only sheet."
    else:
        message = f"{name}: read {len(used)} of {len(sheets)} sheets as one table: {', '.join(parts)}"
        message += f"; skipped the empty sheet(s) {', '.join(s.label() for s in empty)}." if empty else "."
    return table, message


def read_workbook(name: str, handle: IO[bytes], budget: ReadBudget) -> tuple[pd.DataFrame, list[str]]:
    """Return the workbook's table and the warning naming the sheets read; ``name`` names the file.

    Raises:
        FileRefused: see :func:`check_archive`, :class:`ReadBudget` and the module's sheet rules.
    """
    check_archive(handle, budget)
    handle.seek(0)
    from openpyxl import load_workbook

    book = load_workbook(handle, read_only=True, data_only=True, keep_links=False)
    try:
        sheets = [
            _Sheet(ws.title, ws.sheet_state != "visible", _sheet_rows(ws, budget, ws.title)) for ws in book.worksheets
        ]
    finally:
        book.close()
    table, message = _combine(name, sheets)
    return table, [message]
