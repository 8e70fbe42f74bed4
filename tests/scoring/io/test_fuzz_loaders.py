"""Fuzz and property tests of scoring.io.loaders: hostile bytes never raise anything but a ValueError naming the file.

Random bytes and mutated CSV/JSONL/Parquet/Excel files, under every extension the loaders accept (and
some they do not), either load as a table or fail with ``ValueError`` whose message names the file.
Round trips through our own exports must give back every cell exactly.
"""

from __future__ import annotations

import io
import json
import math
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from scoring.io.export import to_csv_bytes, to_excel_bytes, to_jsonl_bytes, to_parquet_bytes
from scoring.io.loaders import iter_table_chunks, read_table

NAMES = ["fuzz-Ω.csv", "fuzz-Ω.tsv", "fuzz-Ω.txt", "fuzz-Ω.jsonl", "fuzz-Ω.json", "fuzz-Ω.parquet",
         "fuzz-Ω.xlsx", "fuzz-Ω.xls", "fuzz-Ω.pdf", "fuzz-Ω"]  # fmt: skip
SEED = pd.DataFrame(
    {
        "input": ["Where is my order?", "Can I get a refund?", "Thanks", "=1+1 is two"],
        "output": ['It ships "today", sorry!', "No;\nnot after 30 days.", "", "Große Freude 😀 مرحبا"],
        "group": ["a", "b", "a", "b"],
    }
)
SEEDS = {
    "csv": to_csv_bytes(SEED, neutralise=False),
    "jsonl": to_jsonl_bytes(SEED),
    "parquet": to_parquet_bytes(SEED),
    "xlsx": to_excel_bytes(SEED, neutralise=False),
}
FUZZ = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _load_or_named_error(data: bytes, name: str) -> pd.DataFrame | None:
    try:
        df = read_table(data, filename=name)
    except ValueError as exc:
        assert name in str(exc), f"error does not name the file: {exc}"
        return None
    assert isinstance(df, pd.DataFrame)
    return df


@FUZZ
@given(data=st.binary(max_size=3000), name=st.sampled_from(NAMES))
@example(data=b"", name="fuzz-Ω.csv")
@example(data=b"\x00" * 64, name="fuzz-Ω.csv")
@example(data=b"PK\x03\x04broken zip", name="fuzz-Ω.csv")
@example(data=b"PAR1not parquet", name="fuzz-Ω.jsonl")
@example(data=b"\xd0\xcf\x11\xe0 old excel", name="fuzz-Ω.csv")
@example(data=b'{"output": "a"}\n[1, 2]\n', name="fuzz-Ω.jsonl")
@example(data=b'[{"output": "a"}, 3]', name="fuzz-Ω.json")
@example(data=b'[{"output": "a"}', name="fuzz-Ω.json")
@example(data=b"output\n\xff\xfe\x00", name="fuzz-Ω.csv")
@example(data=b'a,b\n"unclosed,1\n', name="fuzz-Ω.csv")
@example(data=b"a,a,a\n1,2,3\n", name="fuzz-Ω.csv")
@example(data=b"output\n", name="fuzz-Ω.csv")
@example(data=b"\n\n\n", name="fuzz-Ω.csv")
def test_random_bytes_load_or_fail_naming_the_file(data: bytes, name: str) -> None:
    _load_or_named_error(data, name)


MUTATION = st.tuples(st.sampled_from(["flip", "insert", "delete", "truncate", "duplicate"]), st.integers(0, 10**6),
                     st.binary(min_size=1, max_size=8))  # fmt: skip
SPECIAL = [b'"', b"\n", b"\r", b"\x00", b",", b";", b"\t", b"\xff", b"\xc3", b"{", b"}", b"\xef\xbb\xbf"]


def _mutate(data: bytes, ops: list[tuple[str, int, bytes]]) -> bytes:
    out = bytearray(data)
    for op, pos, payload in ops:
        at = pos % (len(out) + 1)
        if op == "flip" and out:
            out[at % len(out)] ^= payload[0] or 1
        elif op == "insert":
            out[at:at] = payload
        elif op == "delete":
            del out[at : at + len(payload)]
        elif op == "truncate":
            del out[at:]
        elif op == "duplicate":
            out[at:at] = out[at : at + 40]
    return bytes(out)


@FUZZ
@given(
    fmt=st.sampled_from(sorted(SEEDS)),
    ops=st.lists(
        st.one_of(MUTATION, st.tuples(st.just("insert"), st.integers(0, 10**6), st.sampled_from(SPECIAL))),
        min_size=1,
        max_size=6,
    ),
    rename=st.booleans(),
)
def test_mutated_files_load_or_fail_naming_the_file(fmt: str, ops: list[tuple[str, int, bytes]], rename: bool) -> None:
    name = f"mutated-Ω.{'csv' if rename else fmt}"  # also: a Parquet/Excel file renamed .csv
    _load_or_named_error(_mutate(SEEDS[fmt], ops), name)


@settings(max_examples=25, deadline=None)
@given(data=st.binary(max_size=2000), suffix=st.sampled_from([".csv", ".jsonl", ".parquet", ".xlsx"]))
def test_chunked_reading_of_random_files_fails_only_with_named_value_errors(
    tmp_path_factory: pytest.TempPathFactory, data: bytes, suffix: str
) -> None:
    path = tmp_path_factory.mktemp("fuzz") / f"chunk-Ω{suffix}"
    path.write_bytes(data)
    try:
        for chunk in iter_table_chunks(path, chunksize=3):
            assert isinstance(chunk, pd.DataFrame) and len(chunk) <= 3
    except ValueError as exc:
        assert str(path) in str(exc), exc


# Any text but lone surrogates (UTF-8 cannot hold them) and control characters other than tab and line
# ends: the CSV loader takes a file with NUL bytes or many control characters for a binary file and
# refuses it (with a named ValueError, which the fuzz tests above accept).
ANY_STRING = st.text(alphabet=st.characters(codec=None, exclude_categories=()), max_size=20)


RECORD = st.dictionaries(ANY_STRING, st.one_of(ANY_STRING, st.integers(), st.none()), min_size=1, max_size=3)


@settings(max_examples=60, deadline=None)
@given(records=st.lists(RECORD, min_size=1, max_size=4), array=st.booleans())
def test_json_of_any_strings_loads_or_fails_naming_the_file(records: list[dict[str, object]], array: bool) -> None:
    """JSON escapes can spell any string, lone surrogates included (not text: refused with a named error).

    (A file holding only ``{}`` objects reads as an empty table: those rows have no field at all.)
    """
    text = json.dumps(records) if array else "".join(json.dumps(r) + "\n" for r in records)
    df = _load_or_named_error(text.encode("ascii"), "escapes-Ω.json" if array else "escapes-Ω.jsonl")
    if df is not None:
        assert len(df) == len(records)


CELL = st.text(alphabet=st.characters(exclude_categories=["Cs", "Cc"], include_characters="\t\n\r"), max_size=30)


def _frame(rows: list[tuple[str, str]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["input", "output"], dtype=object)


def _cells(df: pd.DataFrame) -> list[list[str]]:
    return [["" if (isinstance(v, float) and math.isnan(v)) or v is None else v for v in row] for row in df.to_numpy()]


@settings(max_examples=80, deadline=None)
@given(rows=st.lists(st.tuples(CELL, CELL), min_size=1, max_size=8))
@example(rows=[("\r", "a\rb"), ('"', ",;\t|")])
@example(rows=[("007", "1e5"), ("NA", "null")])
def test_csv_export_reads_back_cell_for_cell(rows: list[tuple[str, str]]) -> None:
    """What we export as CSV (neutralisation off) the loader reads back exactly; empty cells become missing."""
    df = read_table(to_csv_bytes(_frame(rows), neutralise=False), filename="round.csv")
    assert list(df.columns) == ["input", "output"]
    assert _cells(df) == [list(r) for r in rows]


@settings(max_examples=40, deadline=None)
@given(rows=st.lists(st.tuples(CELL, CELL), min_size=1, max_size=8), fmt=st.sampled_from(["jsonl", "parquet"]))
def test_jsonl_and_parquet_exports_read_back_exactly(rows: list[tuple[str, str]], fmt: str) -> None:
    data = to_jsonl_bytes(_frame(rows)) if fmt == "jsonl" else to_parquet_bytes(_frame(rows))
    assert _cells(read_table(data, filename=f"round.{fmt}")) == [list(r) for r in rows]


@pytest.mark.parametrize("fmt", sorted(SEEDS))
def test_seed_files_load_whole(fmt: str, tmp_path: Path) -> None:
    """The unmutated seeds load with every row, so the fuzz tests above start from valid files."""
    df = read_table(io.BytesIO(SEEDS[fmt]), filename=f"seed.{fmt}")
    assert len(df) == len(SEED) and list(df.columns) == list(SEED.columns)
    path = tmp_path / f"seed.{fmt}"
    path.write_bytes(SEEDS[fmt])
    assert sum(len(c) for c in iter_table_chunks(path, chunksize=3)) == len(SEED)


@pytest.mark.parametrize(
    "text",
    [
        "می‌خواهم این را ببینم و می‌دانم که می‌توانم",  # Persian: zero-width non-joiners (Cf)
        "Family time 👨‍👩‍👧‍👦 and 👩‍💻 at work",  # emoji joined by ZWJ (Cf)
        "New emoji \U0001fae8\U0001faf8 and private use \ue000",  # not in Python 3.11's tables / Co
    ],
)
def test_text_with_format_characters_is_not_taken_for_binary(text: str) -> None:
    data = ("output\n" + f"{text}\n" * 30).encode("utf-8")
    assert read_table(data, filename="script.csv")["output"].tolist() == [text] * 30
