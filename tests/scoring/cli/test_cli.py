"""``python -m scoring evaluate``: columns, exit codes, thresholds, chunking, atomic output."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import scoring.batch.runner
from scoring import create_tone_scorer
from scoring.batch.runner import evaluate
from scoring.cli.main import main
from scoring.text.embeddings import encoder_available

ROOT = Path(__file__).resolve().parents[3]
REPLIES = [
    "Thanks for reaching out! Your order ships tomorrow.",
    "I'm sorry about that. We will refund you today.",
    "That is a terrible idea, honestly. Do better.",
    "Great question! The answer is 42.",
    "We appreciate your patience. Have a lovely day!",
]


def _write(tmp_path: Path, rows: int = 25, name: str = "replies.csv") -> Path:
    df = pd.DataFrame(
        {
            "id": [f"{i:03d}" for i in range(rows)],
            "question": [f"Question number {i}?" for i in range(rows)],
            "answer": [REPLIES[i % len(REPLIES)] + f" Ticket {i}." for i in range(rows)],
            "note": ["=1+1" if i == 0 else "-" for i in range(rows)],
        }
    )
    df.loc[3, "answer"] = None
    path = tmp_path / name
    df.to_csv(path, index=False)
    return path


def _run(*argv: object) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main([str(a) for a in argv], out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def test_cli_writes_input_columns_unchanged_plus_result_columns(tmp_path: Path) -> None:
    src = _write(tmp_path)
    code, out, err = _run("evaluate", src, "--out", tmp_path / "r.jsonl", "--scorers", "tone,similarity")
    assert code == 0, err
    got = pd.read_json(tmp_path / "r.jsonl", lines=True, dtype=False)
    original = pd.read_csv(src, dtype=str, keep_default_na=False, na_values=[""])
    assert (
        got[list(original.columns)]
        .astype(object)
        .where(got.notna(), None)
        .equals(original.astype(object).where(original.notna(), None))
    )
    expected = evaluate(original, scorers=["tone", "similarity"]).table
    for column in ["tone-scorer", "tone-scorer.avgSentiment", "content-similarity-scorer"]:
        pd.testing.assert_series_equal(got[column], expected[column], check_names=False)
    assert "25 rows" in out and "tone-scorer" in out and "wrote 25 rows" in out
    assert "row 4: tone-scorer: output column 'answer' is empty" in err


def test_cli_csv_neutralises_formulas_unless_raw(tmp_path: Path) -> None:
    src = _write(tmp_path, rows=6)
    assert _run("evaluate", src, "--scorers", "tone", "--out", tmp_path / "r.csv")[0] == 0
    assert pd.read_csv(tmp_path / "r.csv", dtype=str)["note"][0] == "'=1+1"
    assert _run("evaluate", src, "--scorers", "tone", "--out", tmp_path / "raw.csv", "--raw-csv")[0] == 0
    assert pd.read_csv(tmp_path / "raw.csv", dtype=str)["note"][0] == "=1+1"


@pytest.mark.parametrize("suffix", ["csv", "jsonl", "parquet"])
def test_cli_chunking_and_workers_give_identical_output(tmp_path: Path, suffix: str) -> None:
    src = _write(tmp_path, rows=40)
    outputs = []
    for i, extra in enumerate([["--chunksize", "1000"], ["--chunksize", "3"], ["--chunksize", "7", "--workers", "2"]]):
        target = tmp_path / f"r{i}.{suffix}"
        code, out, _ = _run("evaluate", src, "--scorers", "tone,similarity", "--out", target, *extra)
        assert code == 0
        outputs.append((target.read_bytes() if suffix != "parquet" else pd.read_parquet(target), out))
    if suffix == "parquet":
        pd.testing.assert_frame_equal(outputs[0][0], outputs[1][0])
        pd.testing.assert_frame_equal(outputs[0][0], outputs[2][0])
    else:
        assert outputs[0][0] == outputs[1][0] == outputs[2][0]
    assert outputs[0][1] == outputs[1][1].replace("r1.", "r0.") == outputs[2][1].replace("r2.", "r0.")


def test_cli_toxicity_engine_and_threshold_reach_the_scorer_and_are_named(tmp_path: Path) -> None:
    from scoring.toxicity.scorer import create_toxicity_scorer

    src = _write(tmp_path)
    target = tmp_path / "out.csv"
    code, _, err = _run("evaluate", src, "--scorers", "toxicity", "--toxicity-engine", "classifier",
                        "--toxicity-threshold", "0.9", "--out", target)  # fmt: skip
    assert code == 0 and "toxicity engine: classifier (threshold 0.9)" in err
    scored = pd.read_csv(target).dropna(subset=["toxicity-scorer"])  # rows without text are skipped
    expected = create_toxicity_scorer(engine="classifier", threshold=0.9).score_many(outputs=scored["answer"].tolist())
    assert len(scored) >= 20 and scored["toxicity-scorer"].tolist() == expected["score"]
    code, _, err = _run("evaluate", src, "--scorers", "toxicity")  # a file: the single-text default (issue 24)
    engine = "e5" if encoder_available() else "classifier"
    assert (
        code == 0 and f"toxicity engine: {engine} (its " in err and "the default for files as for single texts" in err
    )


def test_cli_fail_under_and_fail_over_set_the_exit_code(tmp_path: Path) -> None:
    src = _write(tmp_path)
    code, out, _ = _run("evaluate", src, "--scorers", "tone", "--fail-under", "tone-scorer=0.1")
    assert code == 0 and "ok: tone-scorer mean" in out
    code, out, _ = _run("evaluate", src, "--scorers", "tone,similarity", "--fail-under", "similarity=0.99")
    assert code == 1 and "FAIL: content-similarity-scorer mean" in out and "(required >= 0.99)" in out
    code, out, _ = _run("evaluate", src, "--scorers", "toxicity", "--fail-over", "toxicity=-1")
    assert code == 1 and "FAIL: toxicity-scorer mean" in out and "(required <= -1)" in out
    code, out, _ = _run("evaluate", src, "--scorers", "toxicity", "--fail-over", "toxicity-scorer=1")
    assert code == 0


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--scorers", "sentiment"], "scorers must be among"),
        (["--output-column", "nope"], "output column 'nope' not found"),
        (["--reference-column", "nope"], "reference column 'nope' not found"),
        (["--out", "r.xlsx"], "--out must end in .csv, .jsonl, .parquet"),
        (["--out", "{tmp}/missing-folder/r.csv"], "does not exist"),  # a folder this test knows is absent
        (["--scorers", "tone", "--fail-under", "similarity=0.5"], "which --scorers does not run"),
    ],
)
def test_cli_bad_options_exit_2_with_a_message(tmp_path: Path, argv: list[str], message: str) -> None:
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    code, _, err = _run("evaluate", _write(tmp_path), *argv)
    assert code == 2 and message in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "the file is empty"),
        (b"answer,question\n", "no data rows"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(200), "the file is binary"),
        (
            b"id,body\n1,hello\n",
            "none holds text (numbers, IDs or short labels only). Choose one. Columns: ['id', "
            "'body']. Name it with --output-column.",
        ),
    ],
)
def test_cli_bad_files_exit_2(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "bad.csv"
    path.write_bytes(content)
    code, _, err = _run("evaluate", path, "--scorers", "tone")
    assert code == 2 and message in err
    assert _run("evaluate", tmp_path / "missing.csv")[0] == 2


def test_cli_argument_errors_exit_2(tmp_path: Path) -> None:
    for argv in (["--workers", "0"], ["--fail-under", "tone-scorer"], ["--engine", "textblob"]):
        with pytest.raises(SystemExit) as exc:
            main(["evaluate", str(_write(tmp_path)), *argv])
        assert exc.value.code == 2


def test_cli_interrupted_run_leaves_no_output(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = _write(tmp_path, rows=30)
    target = tmp_path / "r.csv"
    target.write_text("previous results\n")
    real = scoring.batch.runner.score_frame
    calls = []

    def interrupt_second_chunk(*args: object, **kwargs: object) -> object:
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(scoring.batch.runner, "score_frame", interrupt_second_chunk)
    code, _, err = _run("evaluate", src, "--scorers", "tone", "--chunksize", "10", "--out", target)
    assert code == 130 and "no output file was written" in err
    assert target.read_text() == "previous results\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".r.csv")] == []


def test_cli_help_documents_every_option() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "scoring", "evaluate", "--help"], cwd=ROOT, capture_output=True, text=True, check=True
    )
    for option in ["--scorers", "--reference-tone", "--reference-column", "--engine", "--splitter", "--out",
                   "--fail-under", "--fail-over", "--workers", "--chunksize", "--dask", "--output-column",
                   "--input-column", "--toxicity-engine", "--toxicity-threshold", "--judge-model", "--judge-base-url",
                   "OPENAI_API_KEY",
                   "exit codes"]:  # fmt: skip
        assert option in proc.stdout


def test_cli_has_no_row_limit_whatever_the_dashboard_limit_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """TONE_EXPLORER_MAX_ROWS caps a dashboard run; the CLI streams any number of rows."""
    monkeypatch.setenv("TONE_EXPLORER_MAX_ROWS", "5")
    target = tmp_path / "r.jsonl"
    code, out, err = _run(
        "evaluate", _write(tmp_path, rows=25), "--scorers", "tone", "--chunksize", "4", "--out", target
    )
    assert code == 0 and "25 rows" in out, err
    assert len(pd.read_json(target, lines=True)) == 25


def test_cli_counts_and_lists_rows_not_in_english(tmp_path: Path) -> None:
    path = tmp_path / "mixed.csv"
    texts = ["Thanks, happy to help!", "Das ist wirklich großartig, vielen Dank!", "Great, see you soon."] * 5
    pd.DataFrame({"output": texts}).to_csv(path, index=False)
    code, out, err = _run("evaluate", path, "--scorers", "tone", "--chunksize", "4", "--no-progress")
    header, tone = out.splitlines()[1], out.splitlines()[2]
    assert code == 0 and header.split()[-1] == "warned" and tone.split()[-1] == "5"
    assert "warning: tone-scorer: 5 rows are not English" in err and "row 2, 5, 8, 11, 14." in err


def test_cli_says_a_file_of_one_sentence_replies_measures_no_stability(tmp_path: Path) -> None:
    path = tmp_path / "short.csv"
    pd.DataFrame({"output": ["Thanks for reaching out!", "Your order has shipped.", "Sorry about that."] * 5}).to_csv(
        path, index=False
    )
    code, out, err = _run("evaluate", path, "--scorers", "tone", "--chunksize", "4", "--no-progress", "--out",
                          tmp_path / "r.csv")  # fmt: skip
    assert code == 0 and out.splitlines()[2].split()[1] == "1.0000"  # the mean stays Mastra's
    assert "not English" not in err  # no row is warned as a language the engine lacks
    assert (
        "warning: tone-scorer: 15 of 15 rows have a tone score that measures nothing, not measured: fewer than two "
        "sentences with words scored for stability (no reference; 1.0 for a single sentence, the formula's value), "
        "or text in a language the engine's English word list cannot read: row 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 "
        "and 3 more. The tone mean 1.000 (as Mastra's runEvals computes it) includes them; no row could be measured. "
        "See tone-scorer.warnings.\n"
    ) in err
    written = pd.read_csv(tmp_path / "r.csv")["tone-scorer.warnings"]
    assert written.str.startswith("output has only 1 sentence with words: ").all()


def test_cli_lists_short_rows_and_rows_not_in_english_apart(tmp_path: Path) -> None:
    path = tmp_path / "mixed.csv"
    texts = ["Thanks, happy to help!", "Das ist wirklich großartig. Vielen Dank!", "Sorry. That was terrible!"]
    pd.DataFrame({"output": texts * 3}).to_csv(path, index=False)
    code, out, err = _run("evaluate", path, "--scorers", "tone", "--chunksize", "2", "--no-progress")
    tone = create_tone_scorer()
    measured = tone.run(output=texts[2]).score  # the German rows measure nothing under VADER (not only warned)
    assert code == 0 and out.splitlines()[2].split()[-1] == "3", out  # warned: the German rows only
    assert "warning: tone-scorer: 3 rows are not English" in err and "row 2, 5, 8.\n" in err
    assert "6 of 9 rows have a tone score that measures nothing" in err and "read: row 1, 2, 4, 5, 7, 8. " in err
    assert f"over the 3 rows that could be measured it is {measured:.3f}. See tone-scorer.warnings." in err


def _judge_reply(body: dict) -> object:
    from tests.scoring.fake_openai import Reply, error_body

    prompt = body["messages"][-1]["content"]
    if "FAIL" in prompt:
        return Reply(status=400, body=error_body("cannot judge this"))
    opinions = json.loads(prompt.split("Opinions (a JSON list of strings from the assistant's reply):\n", 1)[1])
    return Reply(
        json.dumps({"verdicts": [{"verdict": "yes" if "idiot" in o else "no", "reason": "r"} for o in opinions]})
    )


def test_cli_toxicity_judge_with_the_key_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.scoring.fake_openai import serve

    monkeypatch.setenv("OPENAI_API_KEY", "sk-cli-secret-7")
    path = tmp_path / "r.csv"
    pd.DataFrame({"input": ["q"] * 4, "output": ["Fine.", "You idiot. Fine.", "FAIL here.", "Thanks!"]}).to_csv(path)
    target = tmp_path / "o.jsonl"
    with serve(_judge_reply) as fake:
        code, out, err = _run("evaluate", path, "--scorers", "toxicity", "--toxicity-engine", "judge", "--judge-model",
                              "m", "--judge-base-url", fake.base_url, "--out", target, "--workers", "2")  # fmt: skip
    assert code == 0, err
    assert pd.read_json(target, lines=True)["toxicity-scorer"].tolist()[:2] == [0.0, 0.5]
    assert "row 3: toxicity-scorer: the judge at" in err and "HTTP 400" in err
    assert "note: the LLM judge runs in this process" in err
    assert {r["headers"]["authorization"] for r in fake.requests} == {"Bearer sk-cli-secret-7"}
    assert "sk-cli-secret-7" not in out + err + target.read_text()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--scorers", "toxicity", "--judge-model", "m"], "--judge-model and --judge-base-url need --toxicity-engine"),
        (["--scorers", "tone", "--toxicity-engine", "judge"], "toxicity options apply only when scorers include"),
        (["--scorers", "toxicity", "--toxicity-engine", "judge", "--judge-base-url", "http://127.0.0.1:9/v1",
          "--dask"], "--dask does not run the LLM judge"),
        (["--scorers", "toxicity", "--toxicity-engine", "judge", "--judge-base-url", "ftp://x"], "base_url must be"),
        (["--scorers", "toxicity", "--toxicity-engine", "judge", "--toxicity-threshold", "0.5"],
         "--toxicity-threshold applies to the offline engines"),
        (["--scorers", "toxicity", "--toxicity-threshold", "0"], "threshold must be a number in (0, 1]"),
    ],
)  # fmt: skip
def test_cli_judge_option_errors_exit_2(tmp_path: Path, argv: list[str], message: str) -> None:
    code, _, err = _run("evaluate", _write(tmp_path), *argv)
    assert code == 2 and message in err, err
