"""Small files that unfold before any check runs (issue 28): every one is built here, then read in a subprocess
whose address space is capped, so a regression fails instead of taking the machine down.

- CSV: one data row of a million commas (pandas took the extra fields as the index: 4.4 GB, 252 s), and a
  header of 100,000 columns padded down every row;
- .xlsx: cells A1 and XFD1 and one row far below (padded to 16,384 x 1,048,576 cells);
- Parquet: a 10 MB dictionary string reached through list, struct and string_view columns;
- the column guesser, which looked at every whole cell of a 45 MB one.
"""

from __future__ import annotations

import io
import json
import os
import resource
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from scoring.io.loaders import read_table
from tests.scoring.bad_files import _XLSX_PARTS

ROOT = Path(__file__).resolve().parents[3]
CAP = 1 << 30  # 1 GB of address space: the interpreter, pandas and pyarrow need ~600 MB of it

#: Every hostile file, read one after another in one capped subprocess (one interpreter start for all).
MAKERS = [("million_commas", ".csv"), ("wide_header", ".csv"), ("wide_workbook", ".xlsx"), ("list_bomb", ".parquet"),
          ("struct_bomb", ".parquet"), ("view_bomb", ".parquet")]  # fmt: skip

_MEASURE = """
import json, resource, sys
from tests.scoring.io import test_unfolding_files as t
from scoring.io.loaders import read_table
for maker, suffix in t.MAKERS:
    data = getattr(t, maker)()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    try:
        frame = read_table(data, filename="bomb" + suffix)
        message = f"read {frame.shape}"
    except (ValueError, MemoryError) as exc:
        message = f"{type(exc).__name__}: {exc}"
    del data
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"maker": maker, "message": message, "grew_mb": (after - before) / 1024}), flush=True)
"""
_RESULTS: dict[str, dict[str, object]] = {}


def _capped(*argv: str) -> subprocess.CompletedProcess[str]:
    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (CAP, CAP))

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, *argv], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
                          preexec_fn=cap)  # fmt: skip


def _measure(maker: str, suffix: str) -> dict[str, object]:
    """What reading ``maker``'s file said and how much the reader's peak memory grew (MB)."""
    if not _RESULTS:
        run = _capped("-c", _MEASURE)
        for line in run.stdout.splitlines():
            found = json.loads(line)
            _RESULTS[found["maker"]] = found
        assert maker in _RESULTS, run.stderr[-2000:]  # the subprocess died before it got there
    assert (maker, suffix) in MAKERS and maker in _RESULTS, _RESULTS
    return _RESULTS[maker]


# --- the hostile files ----------------------------------------------------------------------------------------


def million_commas() -> bytes:
    """A 1 MB CSV: a header of two columns, then one data row of a million commas."""
    return b"output,input\n" + b"," * 1_000_000 + b"\n"


def wide_header() -> bytes:
    """A header of 100,001 columns over 2,000 one-cell rows: pandas pads each to the header's width."""
    return b"output" + b"," * 100_000 + b"\n" + b"a\n" * 2_000


def wide_workbook() -> bytes:
    """A ~2 KB .xlsx with cells A1 and XFD1 (the last column) and one cell a million rows down."""
    sheet = (b'<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/'
             b'spreadsheetml/2006/main"><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c><c r="XFD1" t="s"><v>0</v>'
             b'</c></row><row r="1000000"><c r="A1000000" t="s"><v>0</v></c></row></sheetData></worksheet>'
             )  # fmt: skip
    strings = (b'<?xml version="1.0" encoding="UTF-8"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/'
               b'2006/main" count="1" uniqueCount="1"><si><t>output</t></si></sst>')  # fmt: skip
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, part in {**_XLSX_PARTS, "xl/worksheets/sheet1.xml": sheet, "xl/sharedStrings.xml": strings}.items():
            archive.writestr(name, part)
    return buffer.getvalue()


# --- CSV ------------------------------------------------------------------------------------------------------


def test_a_first_row_of_a_million_commas_is_refused_in_bounded_memory() -> None:
    result = _measure("million_commas", ".csv")
    assert str(result["message"]).startswith("InputError: bomb.csv: the first data row has more fields than the "
                                             "header's 2"), result  # fmt: skip
    assert float(str(result["grew_mb"])) < 100, result


def test_a_header_wider_than_the_column_limit_is_refused_in_bounded_memory() -> None:
    result = _measure("wide_header", ".csv")
    assert str(result["message"]).startswith("LimitError: bomb.csv: its header has more than 1,000 columns"), result
    assert "TONE_EXPLORER_MAX_COLUMNS" in str(result["message"])
    assert float(str(result["grew_mb"])) < 100, result


@pytest.mark.parametrize(
    ("data", "shape"),
    [
        (b'output,input\n"a,\r\nb",q\r\n"say ""x,y""",q2\n', (2, 2)),  # quoted delimiters, CRLF, doubled quotes
        (b"output,input\r\ra,b\r", (2, 2)),  # CR-only lines, a blank row kept
        (b'output,input\nhe said "hi, you",q\n', None),  # a quote inside a field is a character: 3 fields
        (b"output,input\na,b", (1, 2)),  # no line end at the end
    ],
)
def test_the_field_count_follows_quotes_and_line_ends_as_pandas_does(
    data: bytes, shape: tuple[int, int] | None
) -> None:
    if shape is None:
        with pytest.raises(ValueError, match="the first data row has more fields than the header's 2"):
            read_table(data, filename="q.csv")
    else:
        assert read_table(data, filename="q.csv").shape == shape


def test_the_column_limit_is_set_by_its_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    data = b",".join(b"c%d" % i for i in range(20)) + b"\n" + b",".join(b"v" for _ in range(20)) + b"\n"
    assert read_table(data, filename="w.csv").shape == (1, 20)
    monkeypatch.setenv("TONE_EXPLORER_MAX_COLUMNS", "10")
    with pytest.raises(ValueError, match="its header has more than 10 columns"):
        read_table(data, filename="w.csv")


# --- Excel ----------------------------------------------------------------------------------------------------


def test_a_workbook_with_a1_xfd1_and_a_far_row_is_refused_in_bounded_memory() -> None:
    assert len(wide_workbook()) < 3000
    result = _measure("wide_workbook", ".xlsx")
    assert str(result["message"]).startswith("LimitError: bomb.xlsx: its sheet 'Sheet1' (row 1) has more than 1,000 "
                                             "columns"), result  # fmt: skip
    assert float(str(result["grew_mb"])) < 150, result


def test_empty_cells_and_the_padding_count_against_the_table_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    import pandas as pd

    from tests.scoring.bad_files import workbook

    frame = pd.DataFrame({"output": ["a"] + [""] * 9, "x": [""] * 9 + ["b"]})
    data = workbook({"Sheet1": frame})
    assert read_table(data, filename="w.xlsx").shape == (10, 2)
    monkeypatch.setenv("TONE_EXPLORER_MAX_TABLE_CHARS", "25")  # 11 rows x 2 cells, each at least 1, + 1 a row
    with pytest.raises(ValueError, match="more than 25 characters of table"):
        read_table(data, filename="w.xlsx")


# --- Parquet --------------------------------------------------------------------------------------------------


def _nested_bomb(kind: str, rows: int = 1000, size: int = 1_000_000) -> bytes:
    """A file under 1 KB whose ``kind`` column (list, struct, string_view) points all rows at one 1 MB string."""
    import struct

    import pyarrow as pa
    import pyarrow.parquet as pq

    indices = pa.array([0] * rows, pa.int32())
    one = pa.DictionaryArray.from_arrays(indices, pa.array(["a" * size]))
    if kind == "list":
        column = pa.ListArray.from_arrays(pa.array(range(rows + 1), pa.int32()), one)
    elif kind == "struct":
        column = pa.StructArray.from_arrays([one], ["text"])
    else:  # every view points at the same bytes of one data buffer
        view = struct.pack("<i4sii", size, b"aaaa", 0, 0)
        column = pa.Array.from_buffers(pa.string_view(), rows, [None, pa.py_buffer(view * rows),
                                                                pa.py_buffer(b"a" * size)])  # fmt: skip
    buffer = io.BytesIO()
    pq.write_table(pa.table({"output": column}), buffer, compression="zstd", dictionary_pagesize_limit=1 << 30)
    return buffer.getvalue()


def list_bomb() -> bytes:
    return _nested_bomb("list")


def struct_bomb() -> bytes:
    return _nested_bomb("struct")


def view_bomb() -> bytes:
    return _nested_bomb("view")


@pytest.mark.parametrize("maker", ["list_bomb", "struct_bomb", "view_bomb"])
def test_a_nested_parquet_dictionary_bomb_is_refused_in_bounded_memory(maker: str) -> None:
    assert len(globals()[maker]()) < 1200
    result = _measure(maker, ".parquet")
    assert str(result["message"]).startswith("LimitError: bomb.parquet: it unfolds into more than 200,000,000 "
                                             "characters"), result  # fmt: skip
    assert float(str(result["grew_mb"])) < 150, result


def test_nested_and_view_columns_still_read_as_written() -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table({
        "output": pa.array(["hello", "world"], pa.string_view()),
        "tags": pa.array([["a", "b"], []], pa.list_(pa.string())),
        "meta": pa.array([{"k": "v"}, {"k": None}], pa.struct([("k", pa.string())])),
    })  # fmt: skip
    buffer = io.BytesIO()
    pq.write_table(table, buffer)
    frame = read_table(buffer.getvalue(), filename="n.parquet")
    assert frame["output"].tolist() == ["hello", "world"]
    assert [list(v) for v in frame["tags"]] == [["a", "b"], []]
    assert frame["meta"].tolist() == [{"k": "v"}, {"k": None}]


# --- the column guesser ---------------------------------------------------------------------------------------

_GUESS = """
import resource, sys
import pandas as pd
from scoring.io.columns import guess_columns
frame = pd.DataFrame({"output": ["word " * 9_000_000], "note": ["x"]})  # one 45 MB cell
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
guess = guess_columns(frame)
print(guess.mapping.output, guess.how, (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) // 1024)
"""


def test_the_column_guesser_looks_at_a_bounded_prefix_of_each_cell() -> None:
    """A 45 MB cell cost 1.4 GB of word lists; now the guess grows the process by a few MB."""
    run = _capped("-c", _GUESS)
    assert run.returncode == 0, run.stderr[-2000:]
    column, how, grew_mb = run.stdout.split()
    assert (column, how) == ("output", "name") and int(grew_mb) < 20, run.stdout


@pytest.mark.parametrize(
    ("values", "kind"),
    [(["1" * 2_000], "text"), (["T-" + "1" * 2_000], "text"), (["a " * 999 + "b"], "text"), (["12", "3.5"], "number")],
)
def test_a_long_cell_is_text_never_a_number_or_an_id(values: list[str], kind: str) -> None:
    import pandas as pd

    from scoring.io.columns import looks_like

    assert looks_like(pd.Series(values)) == kind
