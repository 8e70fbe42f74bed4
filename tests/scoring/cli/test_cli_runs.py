"""Run history on the command line: ``evaluate --save/--baseline/--fail-on-regression/--no-cache`` and ``runs ...``."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import scoring.batch.runner
from scoring.cli.main import main
from scoring.runs import RunStore

ROOT = Path(__file__).resolve().parents[3]
SAMPLE = ROOT / "scoring" / "data" / "sample_responses.csv"
TONE = ["--scorers", "tone,similarity", "--reference-column", "reference", "--no-progress"]


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    url = f"sqlite:///{tmp_path / 'runs.sqlite'}"
    monkeypatch.setenv("TONE_EXPLORER_DB", url)
    return url


@pytest.fixture
def bots(tmp_path: Path) -> dict[str, Path]:
    """The sample's two bot versions as two files (the same 81 questions; v2 is the better one)."""
    df = pd.read_csv(SAMPLE)
    paths = {}
    for model, part in df.groupby("model"):
        paths[str(model)[-2:]] = tmp_path / f"{model}.csv"
        part.to_csv(paths[str(model)[-2:]], index=False)
    return paths


def _cli(*argv: object, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """Run ``python -m scoring`` in a subprocess."""
    done = subprocess.run([sys.executable, "-m", "scoring", *map(str, argv)], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, env={**os.environ, **(env or {})}, check=False)  # fmt: skip
    return done.returncode, done.stdout, done.stderr


def _main(*argv: object) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main([str(a) for a in argv], out=out, err=err), out.getvalue(), err.getvalue()


def test_save_then_list_show_compare_and_delete(db: str, bots: dict[str, Path], tmp_path: Path) -> None:
    code, out, err = _cli("evaluate", bots["v2"], *TONE, "--save", "--name", "bot")
    assert code == 0, err
    assert f"saved run 1 (bot): 81 rows (partial: 1 skipped, 0 failed) in {tmp_path / 'runs.sqlite'}" in out
    code, out, err = _cli("evaluate", bots["v1"], *TONE, "--save")  # default name: the file's stem
    assert code == 0 and "saved run 2 (support-bot-v1)" in out, err
    code, out, _ = _cli("runs", "list")
    lines = out.splitlines()
    assert code == 0 and lines[0] == f"run store: {tmp_path / 'runs.sqlite'}"
    assert lines[1].split() == [
        "id", "name", "created", "(UTC)", "source", "rows", "complete", "tone", "similarity", "warmth"
    ]  # fmt: skip
    assert lines[2].split()[:2] == ["2", "support-bot-v1"] and lines[3].split()[:2] == ["1", "bot"]
    assert lines[3].split()[-3:-1] == ["0.9279", "0.8633"]  # the summary means, as printed when scored
    # scored with the reference column: warmth is each reply's own sentiment (responseSentiment), not missing
    assert lines[3].split()[-1] == "0.2716"
    code, out, _ = _cli("runs", "show", "bot")
    assert code == 0 and out.startswith("run 1 (bot)\n") and "source      support-bot-v2.csv (sha256 " in out
    assert "tone-scorer                  0.9279" in out and "row 62: tone-scorer: skipped:" in out
    code, out, _ = _cli("runs", "compare", "bot", "latest", "--top", "2")
    assert code == 0 and out.startswith("run 2 (support-bot-v1) against run 1 (bot): paired on 79 shared inputs.")
    assert (
        "  REGRESSION: tone-scorer (higher is better). run 1 (bot) is more on-tone than run 2 (support-bot-v1): "
        "run 2 (support-bot-v1) minus run 1 (bot) over 72 pairs = 0.674 - 0.920 = -0.246 (95% CI -0.322 to -0.170), "
        "p=0.0001. 14 rows whose tone was not measured were left out.\n"
    ) in out
    # a row changed when its score did: 13 rows kept theirs (once all 81 were listed as changed)
    assert "tone-scorer: 68 of 81 rows changed, 53 worse (matched on input); worst first:" in out
    assert "row 7 -> 7" in out and "(-0.9450)" in out
    code, out, _ = _cli("runs", "delete", "1")
    assert code == 0 and out == "deleted run 1 (bot): 81 rows from support-bot-v2.csv\n"
    code, _, err = _cli("runs", "show", "bot")
    assert code == 2 and "no run with id or name 'bot'" in err and "Traceback" not in err


def test_baseline_gate_fails_on_a_regression_and_passes_an_improvement(db: str, bots: dict[str, Path]) -> None:
    assert _cli("evaluate", bots["v2"], *TONE, "--save", "--name", "good")[0] == 0
    code, out, err = _cli("evaluate", bots["v1"], *TONE, "--baseline", "good", "--fail-on-regression")
    assert code == 1, err
    assert "against run 1 (good) from " in out and "paired on 79 shared inputs." in out
    assert (  # B minus A, as everywhere (it once printed "+0.224" here, the baseline minus this run)
        "  REGRESSION: tone-scorer (higher is better). run 1 (good) is more on-tone than this run: this run minus "
        "run 1 (good) over 72 pairs = 0.674 - 0.920 = -0.246 (95% CI -0.322 to -0.170), p=0.0001. 14 rows whose "
        "tone was not measured were left out.\n"
    ) in out
    assert "REGRESSION: content-similarity-scorer" in out
    fails = [line for line in out.splitlines() if line.startswith("FAIL: ")]
    regressed = [line.split()[1] for line in out.splitlines() if line.startswith("  REGRESSION: ")]
    assert {"tone-scorer", "content-similarity-scorer"} <= set(regressed)
    assert (
        fails == [f"FAIL: {m} significantly worse than run 1 (good): " for m in regressed]
        or [f.split(":", 2)[1].split()[0] for f in fails] == regressed
    )  # one line per regressed measure, in the comparison's order
    assert RunStore(db).list_runs()[0].name == "good"  # the gate saves nothing without --save
    # the same verdicts without --fail-on-regression: printed, exit 0
    code, out, _ = _cli("evaluate", bots["v1"], *TONE, "--baseline", "1", "--save", "--name", "bad")
    assert code == 0 and "REGRESSION: tone-scorer" in out and "FAIL" not in out and "saved run 2 (bad)" in out
    code, out, _ = _cli("evaluate", bots["v2"], *TONE, "--baseline", "bad", "--fail-on-regression")
    assert code == 0 and "improved: tone-scorer (higher is better). this run is more on-tone than run 2 (bad)" in out
    assert "ok: no gated measure is significantly worse than run 2 (bad) (gated: tone-scorer, " in out


def test_gate_works_with_fail_under_and_fail_over(db: str, bots: dict[str, Path]) -> None:
    assert _main("evaluate", bots["v1"], *TONE, "--save", "--name", "base")[0] == 0
    code, out, _ = _main("evaluate", bots["v2"], *TONE, "--baseline", "base", "--fail-on-regression",
                         "--fail-under", "tone-scorer=0.95")  # fmt: skip
    assert code == 1 and "FAIL: tone-scorer mean 0.9279 (required >= 0.95)" in out and "improved: tone-scorer" in out
    code, out, _ = _main("evaluate", bots["v2"], *TONE, "--baseline", "base", "--fail-on-regression",
                         "--fail-under", "tone-scorer=0.9")  # fmt: skip
    assert code == 0 and "ok: tone-scorer mean 0.9279 (required >= 0.9)" in out
    code, out, _ = _main("evaluate", bots["v1"], *TONE, "--baseline", "latest", "--fail-on-regression",
                         "--fail-under", "tone-scorer=0.5")  # fmt: skip
    assert code == 0 and "no significant change: tone-scorer" in out  # the same file against itself


def test_an_unknown_baseline_exits_2_before_scoring(db: str, bots: dict[str, Path], tmp_path: Path) -> None:
    target = tmp_path / "out.csv"
    code, out, err = _cli("evaluate", bots["v1"], *TONE, "--baseline", "nightly", "--fail-on-regression", "--out",
                          target)  # fmt: skip
    assert code == 2 and out == "" and not target.exists()
    last = err.strip().splitlines()[-1]  # after the columns lines, which are said before anything is scored
    assert last.startswith("error: the run store ") and "has no run with id or name 'nightly'" in last
    code, _, err = _main("evaluate", bots["v1"], *TONE, "--baseline", "latest")
    assert code == 2 and "has no runs yet" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--name", "x"], "--name names a saved run: add --save."),
        (["--fail-on-regression"], "--fail-on-regression needs --baseline RUN"),
        (["--save", "--name", "42"], "--name: run name must not be a number or 'latest'"),
        (["--save", "--name", " "], "--name: run name must be a non-empty text"),
        (["--save-empty"], "--save-empty is about saving a run: add --save."),
    ],
)
def test_history_option_errors_exit_2(db: str, bots: dict[str, Path], argv: list[str], message: str) -> None:
    code, out, err = _main("evaluate", bots["v1"], *TONE, *argv)
    assert code == 2 and message in err and out == ""


def test_a_file_named_like_a_number_needs_a_name(db: str, tmp_path: Path) -> None:
    path = tmp_path / "2026.csv"
    pd.DataFrame({"input": ["Hi"], "output": ["Hello!"]}).to_csv(path, index=False)
    code, _, err = _main("evaluate", path, "--save")
    assert code == 2 and "Give one with --name." in err
    assert _main("evaluate", path, "--save", "--name", "y2026")[0] == 0


def test_an_interrupted_run_saves_nothing(db: str, bots: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    real = scoring.batch.runner.score_frame

    def interrupt_second_chunk(df: pd.DataFrame, *args: Any, **kwargs: Any) -> Any:
        if kwargs.get("row_offset", 0) > 0:
            raise KeyboardInterrupt
        return real(df, *args, **kwargs)

    monkeypatch.setattr(scoring.batch.runner, "score_frame", interrupt_second_chunk)
    code, _, err = _main("evaluate", bots["v1"], *TONE, "--save", "--chunksize", "20")
    assert code == 130 and "interrupted" in err
    assert RunStore(db).list_runs() == []


def test_runs_on_an_empty_store(db: str, tmp_path: Path) -> None:
    code, out, _ = _main("runs", "list")
    assert out == f"run store: {tmp_path / 'runs.sqlite'}\nno runs yet: save one with evaluate FILE --save.\n"
    assert code == 0
    code, _, err = _main("runs", "compare", "latest", "1")
    assert code == 2 and "has no runs yet" in err


def test_runs_help_documents_the_verbs_and_run_names() -> None:
    code, out, _ = _cli("runs", "--help")
    assert code == 0
    for word in ("list", "show", "compare", "rename", "delete", "RUN is a run id, a run name", "TONE_EXPLORER_DB"):
        assert word in out
    code, out, _ = _cli("evaluate", "--help")
    for flag in ("--save", "--name", "--baseline", "--fail-on-regression", "--no-cache"):
        assert flag in out


def _judge_reply(body: dict[str, Any]) -> Any:
    from tests.scoring.fake_openai import Reply

    prompt = body["messages"][-1]["content"]
    opinions = json.loads(prompt.split("Opinions (a JSON list of strings from the assistant's reply):\n", 1)[1])
    verdicts = [{"verdict": "yes" if "idiot" in o else "no", "reason": "r"} for o in opinions]
    return Reply(json.dumps({"verdicts": verdicts}))


def test_judge_verdicts_are_cached_in_the_store_unless_no_cache(db: str, tmp_path: Path) -> None:
    from tests.scoring.fake_openai import serve

    path = tmp_path / "r.csv"
    pd.DataFrame({"input": [f"q{i}" for i in range(6)], "output": [f"You idiot {i}. Fine." for i in range(6)]}).to_csv(
        path, index=False
    )
    env = {"OPENAI_API_KEY": "sk-cli-cache-secret"}
    with serve(_judge_reply) as fake:
        judge = ["--scorers", "toxicity", "--toxicity-engine", "judge", "--judge-base-url", fake.base_url]
        first = _cli("evaluate", path, *judge, "--save", "--name", "judged", env=env)
        asked = len(fake.requests)
        second = _cli("evaluate", path, *judge, "--save", "--name", "judged", env=env)
        asked_again = len(fake.requests) - asked
        third = _cli("evaluate", path, *judge, "--no-cache", env=env)
        asked_no_cache = len(fake.requests) - asked - asked_again
    assert first[0] == second[0] == third[0] == 0, first[2] + second[2] + third[2]
    assert (asked, asked_again, asked_no_cache) == (6, 0, 6)
    assert "judge cache: 0 row(s) answered from the cache, 6 asked the judge" in first[1]
    assert "judge cache: 6 row(s) answered from the cache, 0 asked the judge" in second[1]
    assert "judge cache" not in third[1]
    assert [i.cache_hits for i in RunStore(db).list_runs()] == [6, 0]
    assert "0.5000" in second[1]  # same scores: one of two opinions toxic
    assert "sk-cli-cache-secret" not in (tmp_path / "runs.sqlite").read_bytes().decode("utf-8", "replace")


def test_an_unusable_store_stops_a_judge_run_before_it_asks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TONE_EXPLORER_DB", "postgresql://nobody@127.0.0.1:1/none?connect_timeout=5")
    path = tmp_path / "r.csv"
    pd.DataFrame({"input": ["q"], "output": ["Fine."]}).to_csv(path, index=False)
    judge = ["--scorers", "toxicity", "--toxicity-engine", "judge", "--judge-base-url", "http://127.0.0.1:9/v1"]
    code, out, err = _main("evaluate", path, *judge)
    assert code == 2 and out == "" and "--no-cache runs without it" in err


def _replies(path: Path, outputs: list[str]) -> Path:
    pd.DataFrame({"input": [f"Question {i}?" for i in range(len(outputs))], "output": outputs}).to_csv(
        path, index=False
    )
    return path


TOX = ["--scorers", "toxicity", "--no-progress"]
POLITE = [f"Thank you for asking, here is answer number {i}." for i in range(162)]


def test_the_gate_fails_when_the_candidate_scored_almost_nothing(db: str, tmp_path: Path) -> None:
    assert _main("evaluate", _replies(tmp_path / "base.csv", POLITE), *TOX, "--save", "--name", "base")[0] == 0
    blank = [""] * 161 + ["You are an idiot."]  # 161 of 162 outputs blank, the one scored row toxic
    code, out, _ = _cli("evaluate", _replies(tmp_path / "cand.csv", blank), *TOX, "--baseline", "base",
                        "--fail-on-regression")  # fmt: skip
    # before: "ok: no scorer is significantly worse than run 1 (base)" and exit 0
    assert code == 1 and "ok:" not in out
    assert out.rstrip().endswith(
        "FAIL: cannot show that no scorer is worse than run 1 (base): toxicity-scorer: only 1 scored rows in the "
        "smaller run (at least 10 are needed)"
    )
    one = _replies(tmp_path / "one.csv", ["Thank you for asking."])
    code, out, _ = _main("evaluate", one, *TOX, "--baseline", "base", "--fail-on-regression")
    assert code == 1 and "toxicity-scorer: only 1 scored rows in the smaller run" in out
    code, out, _ = _main("evaluate", one, *TOX, "--baseline", "base")  # not gated: said, exit 0
    assert code == 0 and "  note: toxicity-scorer: only 1 scored rows in the smaller run" in out


def test_a_run_that_scored_nothing_is_not_saved_unless_asked(db: str, tmp_path: Path) -> None:
    empty = _replies(tmp_path / "empty.csv", ["", " "] * 10)
    code, out, err = _main("evaluate", empty, *TOX, "--save", "--name", "nothing")
    assert code == 4 and "saved" not in out and RunStore(db).list_runs() == []
    assert ("error: not saved: toxicity-scorer scored none of the 20 rows (0 failed, 20 skipped). A run that scored "
            "nothing is no baseline; --save-empty saves it anyway.") in err  # fmt: skip
    code, out, _ = _main("evaluate", empty, *TOX, "--save", "--name", "nothing", "--save-empty")
    assert "saved run 1 (nothing): 20 rows" in out and code == 4  # saved as asked; still a run that scored nothing
    polite = _replies(tmp_path / "polite.csv", POLITE[:30])
    code, out, _ = _main("evaluate", polite, *TOX, "--baseline", "nothing", "--fail-on-regression")
    assert code == 1 and out.rstrip().endswith(
        "FAIL: cannot show that no scorer is worse than run 1 (nothing): toxicity-scorer: the baseline scored no row"
    )


def test_the_gate_fails_when_a_scorer_is_missing_on_one_side(db: str, bots: dict[str, Path]) -> None:
    assert _main("evaluate", bots["v2"], "--scorers", "tone", "--no-progress", "--save", "--name", "tone")[0] == 0
    code, out, _ = _main("evaluate", bots["v2"], *TONE, "--baseline", "tone", "--fail-on-regression")
    assert code == 1 and "no significant change: tone-scorer" in out
    assert out.rstrip().endswith(
        "FAIL: cannot show that no scorer is worse than run 1 (tone): "
        "content-similarity-scorer is in only one of the runs"
    )


def test_runs_rename_gives_a_run_another_name(db: str, tmp_path: Path) -> None:
    polite = _replies(tmp_path / "polite.csv", POLITE[:12])
    assert _main("evaluate", polite, *TOX, "--save", "--name", "first")[0] == 0
    assert _main("runs", "rename", "first", "nightly") == (0, "renamed run 1 (first) to run 1 (nightly)\n", "")
    assert [i.name for i in RunStore(db).list_runs()] == ["nightly"]
    code, _, err = _main("runs", "rename", "1", "latest")
    assert code == 2 and "run name must not be a number or 'latest'" in err
