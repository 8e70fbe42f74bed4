"""Hostile files (issue 10) through the loaders and the CLI: bombs, deep JSON, hidden sheets, legacy encodings.

Each case either reads with the expected rows and a warning saying what the reader did, or is refused with
a ValueError naming the file (CLI: ``error: ...``, exit 2, no traceback). Memory bounds are measured in a
subprocess (peak RSS, and an address-space cap so a regression fails instead of exhausting the machine).
"""

from __future__ import annotations

import io
import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from scoring.cli.main import main
from scoring.io.loaders import iter_table_chunks, read_table
from tests.scoring.bad_files import (
    HOSTILE_CASES,
    LEGACY_TEXTS,
    HostileCase,
    _legacy,
    english_with_accents,
    parquet_plain,
    workbook,
)

ROOT = Path(__file__).resolve().parents[3]
IDS = [c.case for c in HOSTILE_CASES]


def _cli(*argv: object) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main([str(a) for a in argv], out=out, err=err)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("case", HOSTILE_CASES, ids=IDS)
def test_loader_reads_with_a_warning_or_refuses_naming_the_file(case: HostileCase) -> None:
    if case.loads is None:
        with pytest.raises(ValueError, match=r"^" + case.filename.replace(".", r"\.") + ": ") as info:
            read_table(case.data, filename=case.filename)
        assert case.message in str(info.value) and "Accepted:" in str(info.value), str(info.value)
    else:
        df = read_table(case.data, filename=case.filename)
        assert len(df) == case.loads
        assert any(case.warning in w for w in df.attrs.get("warnings", [])), df.attrs


@pytest.mark.parametrize("case", HOSTILE_CASES, ids=IDS)
def test_cli_exits_2_with_one_line_or_scores_every_row_and_warns(case: HostileCase, tmp_path: Path) -> None:
    path = tmp_path / case.filename
    path.write_bytes(case.data)
    out_file = tmp_path / "out.jsonl"
    code, out, err = _cli("evaluate", path, "--scorers", "tone", "--out", out_file, "--no-progress")
    assert "Traceback" not in out + err
    if case.loads is None:
        assert code == 2 and err.startswith(f"error: {path}: ") and case.message in err, err
        assert err.count("\n") == 1 and not out_file.exists()
    else:
        assert code == 0, err
        assert f"warning: {path}" in err and case.warning in err, err
        assert len(pd.read_json(out_file, lines=True)) == case.loads


@pytest.mark.parametrize(("encoding", "shown", "text"), LEGACY_TEXTS, ids=[t[0] for t in LEGACY_TEXTS])
def test_legacy_encodings_are_read_as_written(encoding: str, shown: str, text: str) -> None:
    df = read_table(_legacy(encoding, text), filename="x.csv")
    expected = [line.split(",", 1) for line in text.splitlines()]
    assert df.values.tolist() == expected
    assert df.attrs["warnings"] == [f"x.csv is not UTF-8: it was read as {_named(shown)} (detected from its bytes); "
                                    "check the text."]  # fmt: skip


def _named(shown: str) -> str:
    """EUC-KR and Shift-JIS are read as their Windows supersets, which decode the same bytes the same way."""
    return {"EUC-KR": "EUC-KR (CP949)", "Shift-JIS": "Shift-JIS (CP932)"}.get(shown, shown)


def test_a_mixed_file_reads_its_other_lines_in_their_detected_encoding() -> None:
    """Mostly UTF-8, two lines of Windows-1251: line by line, the Cyrillic lines named (no 'Ã' mojibake)."""
    data = "input,output\nq,café\nq2,naïve\nq3,über\n".encode() + "q4,Спасибо за помощь!\nq5,Доставка завтра.\n".encode(
        "cp1251"
    )
    df = read_table(data, filename="m.csv")
    assert df["output"].tolist() == ["café", "naïve", "über", "Спасибо за помощь!", "Доставка завтра."]
    assert df.attrs["warnings"] == [
        "m.csv mixes text encodings: 2 line(s) are not UTF-8 and were read as Windows-1251 (the other lines are "
        "UTF-8): line 5, 6. Check the accents on those lines."
    ]


def test_a_nul_in_a_streamed_file_is_named_in_the_first_chunk(tmp_path: Path) -> None:
    path = tmp_path / "nul.csv"
    path.write_bytes(b"output\n" + b"fine\n" * 30 + b"bro\x00ken\n" + b"fine\n" * 5)
    chunks = list(iter_table_chunks(path, chunksize=10))
    assert pd.concat(chunks)["output"].tolist()[30] == "bro\x00ken"
    assert "1 cell(s), kept as they are: row 31, column 'output'" in chunks[0].attrs["warnings"][0]


def test_parquet_row_groups_over_the_unpacked_limit_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TONE_EXPLORER_MAX_UNPACKED_MB", "1")
    data = parquet_plain(rows=4, size=500_000)  # 2 MB of text in a few KB
    assert len(data) < 50_000
    with pytest.raises(ValueError, match=r"its row groups declare 1\.9 MB unpacked; at most 1 MB are read \(set "
                                         r"TONE_EXPLORER_MAX_UNPACKED_MB"):  # fmt: skip
        read_table(data, filename="big.parquet")


def test_xlsx_over_the_unpacked_limit_is_refused_before_openpyxl(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TONE_EXPLORER_MAX_UNPACKED_MB", "1")
    data = workbook({"A": pd.DataFrame({"output": [f"reply number {i} " * 20 for i in range(5000)]})})
    with pytest.raises(ValueError, match=r"its zip declares [\d.]+ MB unpacked; at most 1 MB"):
        read_table(data, filename="big.xlsx")


def test_a_limit_error_has_a_page_message_without_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    from scoring.limits import LimitError, user_message

    monkeypatch.setenv("TONE_EXPLORER_MAX_TABLE_CHARS", "20")
    with pytest.raises(LimitError) as info:
        read_table(workbook({"A": pd.DataFrame({"output": ["a reply long enough to pass twenty"]})}), filename="w.xlsx")
    assert "set TONE_EXPLORER_MAX_TABLE_CHARS" in str(info.value)
    assert user_message(info.value) == (
        "w.xlsx: it unfolds into more than 20 characters of table (each cell counts as at least one), more than is "
        "read at once: split the file, or save its rows as CSV."
    )


def test_a_directory_and_a_fifo_are_reported_as_such(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)  # opening it would wait for a writer: the check must not open it
    code, _, err = _cli("evaluate", tmp_path, "--no-progress")
    assert code == 2 and err == f"error: {tmp_path}: is a directory, not a file: name a file in it. Accepted: " + (
        "CSV/TSV (.csv, .tsv, .txt, .tab), JSON Lines (.jsonl, .ndjson, .json), Parquet (.parquet, .pq) or Excel "
        "(.xlsx, .xlsm).\n"
    )
    code, _, err = _cli("evaluate", fifo, "--no-progress")
    assert code == 2 and err.startswith(f"error: {fifo}: is a named pipe (FIFO), not a regular file"), err


_MEASURE = """
import json, resource, sys
from scoring.io.loaders import read_table
from tests.scoring import bad_files
data = getattr(bad_files, sys.argv[1])()
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
try:
    read_table(data, filename="bomb" + sys.argv[2])
    message = "read"
except (ValueError, MemoryError) as exc:
    message = f"{type(exc).__name__}: {exc}"
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"message": message, "grew_mb": (after - before) / 1024}))
"""
BOMBS = [("shared_string_bomb", ".xlsx"), ("parquet_dictionary_bomb", ".parquet")]


def _capped(*argv: str) -> subprocess.CompletedProcess[str]:
    """Run Python in a subprocess whose address space is capped at 2 GB: a regression fails, the machine lives."""

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (2 * 2**30, 2 * 2**30))

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, *argv], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
                          preexec_fn=cap)  # fmt: skip


@pytest.mark.parametrize(("maker", "suffix"), BOMBS)
def test_a_bomb_is_refused_in_bounded_memory(maker: str, suffix: str) -> None:
    """1,000 rows x 10 MB: read in full it took over 20 GB; refused, the reader's peak grows by < 150 MB."""
    run = _capped("-c", _MEASURE, maker, suffix)
    assert run.returncode == 0, run.stderr[-2000:]
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert result["message"].startswith(f"LimitError: bomb{suffix}: it unfolds into more than 200,000,000 characters")
    assert "TONE_EXPLORER_MAX_TABLE_CHARS" in result["message"]
    assert result["grew_mb"] < 150, result


@pytest.mark.parametrize(("maker", "suffix"), BOMBS)
def test_the_cli_refuses_a_bomb_with_exit_2(maker: str, suffix: str, tmp_path: Path) -> None:
    from tests.scoring import bad_files

    path = tmp_path / f"bomb{suffix}"
    path.write_bytes(getattr(bad_files, maker)())
    run = _capped("-m", "scoring", "evaluate", str(path), "--no-progress", "--out", str(tmp_path / "o.csv"))
    assert run.returncode == 2, run.stderr[-2000:]
    assert run.stderr.startswith(f"error: {path}: it unfolds into more than 200,000,000 characters"), run.stderr
    assert run.stderr.count("\n") == 1 and not (tmp_path / "o.csv").exists()


def test_english_with_a_few_accents_is_read_as_windows_1252() -> None:
    data = english_with_accents()
    df = read_table(data, filename="west.csv")
    assert df["output"].tolist() == [
        line.split(",", 1)[1].strip('"') for line in data.decode("cp1252").splitlines()[1:]
    ]
    assert df.attrs["warnings"] == [
        "west.csv is not UTF-8: it was read as Windows-1252 (detected from its bytes); check the text."
    ]
