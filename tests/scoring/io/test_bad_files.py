"""Table-driven bad files (tests/scoring/bad_files.py) through the loaders and the CLI.

Each case either reads with the expected number of rows (nothing dropped) or fails with a ValueError
naming the file; the CLI turns every failure into ``error: ...`` and exit code 2, with no traceback.
"""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd
import pytest

from scoring.cli.main import main
from scoring.io.loaders import read_table
from tests.scoring.bad_files import FILE_CASES, MIXED_ENCODINGS, FileCase

IDS = [c.case for c in FILE_CASES]


def _cli(*argv: object) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main([str(a) for a in argv], out=out, err=err)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("case", FILE_CASES, ids=IDS)
def test_loader_reads_every_row_or_names_the_file(case: FileCase) -> None:
    if case.loads is None:
        with pytest.raises(ValueError, match=r"^" + case.filename.replace(".", r"\.") + ": ") as info:
            read_table(case.data, filename=case.filename)
        assert case.message in str(info.value) and "Accepted:" in str(info.value)
    else:
        assert len(read_table(case.data, filename=case.filename)) == case.loads


@pytest.mark.parametrize("case", FILE_CASES, ids=IDS)
def test_cli_exits_2_with_a_named_message_or_scores_every_row(case: FileCase, tmp_path: Path) -> None:
    path = tmp_path / case.filename
    path.write_bytes(case.data)
    out_file = tmp_path / "out.jsonl"
    code, out, err = _cli("evaluate", path, "--scorers", "tone", "--out", out_file, "--no-progress")
    assert "Traceback" not in out + err
    if case.loads is None:
        assert code == 2 and err.startswith(f"error: {path}: ") and case.message in err, err
    elif case.loads == 0:
        assert code == 2 and "has no data rows to score (only a header?)" in err, err
    elif case.case == "no usable text column":
        assert code == 2 and "none holds text" in err and "Columns: ['id', 'score']" in err, err
    elif case.case == "duplicate column names":  # neither copy of 'output' is taken on its own
        assert code == 2 and "'output' or 'output.1' (the file names the same column more than once)" in err, err
    else:
        assert code == 0, err
        assert len(pd.read_json(out_file, lines=True)) == case.loads  # every row is in the output
        assert f"{case.loads:,} rows" in out
    if code == 2:
        assert not out_file.exists()


def test_cli_reports_rows_it_could_not_score(tmp_path: Path) -> None:
    path = tmp_path / "short.csv"
    path.write_bytes(b"input,output\nq,Thanks!\nq2\nq3,\n")
    code, out, err = _cli("evaluate", path, "--scorers", "tone", "--no-progress")
    assert code == 0 and "3 rows" in out
    assert "row 2: tone-scorer: output column 'output' is empty" in err
    assert "row 3: tone-scorer: output column 'output' is empty" in err


def test_cli_skips_a_text_over_the_length_limit_and_scores_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "long.csv"
    long_reply = ("Fine. " * 200_000)[:1_000_001]  # the default limit is there for memory: a million characters
    pd.DataFrame({"output": ["Fine, thanks.", long_reply, "Great!", long_reply[:300_000]]}).to_csv(path, index=False)
    code, out, err = _cli("evaluate", path, "--scorers", "tone", "--no-progress")
    assert code == 0 and "4 rows" in out, err
    assert "row 2: tone-scorer: output column 'output' is too long: 1,000,001 characters, limit 1,000,000" in err
    assert "row 4" not in err  # 300,000 characters are scored


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--out", "x.xlsx"], "--out must end in .csv, .jsonl, .parquet"),
        (["--output-column", "nope"], "output column 'nope' not found"),
        (["--scorers", "tone,nope"], "scorers must be among"),
        (["--reference-column", "nope"], "reference column 'nope' not found"),
        (["--fail-under", "toxicity-scorer=0.5"], "which --scorers does not run"),
    ],
)
def test_cli_bad_options_exit_2_naming_the_option(argv: list[str], message: str, tmp_path: Path) -> None:
    path = tmp_path / "ok.csv"
    path.write_bytes(b"input,output\nq,Thanks!\n")
    scorers = [] if "--scorers" in argv else ["--scorers", "tone"]
    code, _, err = _cli("evaluate", path, *scorers, *argv)
    assert code == 2 and message in err, err


def test_cli_missing_file_exits_2(tmp_path: Path) -> None:
    code, _, err = _cli("evaluate", tmp_path / "nope.csv")
    assert code == 2 and "nope.csv: no such file" in err


def test_mixed_encodings_are_read_line_by_line() -> None:
    df = read_table(MIXED_ENCODINGS, filename="mixed.csv")  # read line by line (it is not refused)
    assert df["output"].tolist() == ["café ok", "naïve"]
    assert df.attrs["warnings"] == [
        "mixed.csv mixes text encodings: 1 line(s) are not UTF-8 and were read as Windows-1252 (the other lines are "
        "UTF-8): line 3. Check the accents on those lines."
    ]


def test_cli_prints_the_mixed_encoding_warning_on_stderr(tmp_path: Path) -> None:
    path = tmp_path / "mixed.csv"
    path.write_bytes(MIXED_ENCODINGS)
    code, out, err = _cli("evaluate", path, "--scorers", "tone", "--out", tmp_path / "o.jsonl", "--no-progress")
    assert code == 0 and "2 rows" in out
    assert f"warning: {path} mixes text encodings: 1 line(s) are not UTF-8" in err and "line 3." in err
    assert pd.read_json(tmp_path / "o.jsonl", lines=True)["output"].tolist() == ["café ok", "naïve"]
