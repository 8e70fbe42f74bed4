"""The e5-lite toxicity engine: its head file, its facts, and the same bits in run(), score_many, the CLI, Dask."""

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
from scoring.io.loaders import iter_table_chunks
from scoring.toxicity import create_toxicity_scorer
from scoring.toxicity.e5_lite import (
    FACTS,
    HEAD_PATH,
    MEASURED_RECALL,
    classify_e5_lite,
    head,
    kind_probabilities,
    measured_note,
)

ROOT = Path(__file__).resolve().parents[3]
REPLIES = [
    "You are a worthless idiot.",
    "Thanks so much, happy to help!",
    "Nobody cares about your stupid opinion. Go away.",
    "你真是个废物。谢谢你的帮助。",
    "I will find where you live.",
    "The delivery is late; we are sorry.",
]


def test_the_head_file_is_package_data_and_records_its_training() -> None:
    data = json.loads(HEAD_PATH.read_text(encoding="utf-8"))
    assert data["command"] == "python -m tools.train_e5_lite toxicity"
    assert "e5-lite" in data["encoder"] and "e5_lite.npz" in data["encoder"]
    for rel, facts in data["data"].items():  # the data it was trained and tested on is the data in the repository
        assert hashlib.sha256((ROOT / rel).read_bytes()).hexdigest() == facts["sha256"], rel
    assert data["data"]["tests/scoring/data/toxicity_multilingual_fresh.csv"]["use"] == "test only"
    h = head()
    assert h.coef.shape == (5, 384) and h.threshold == data["threshold"]


def test_the_stated_facts_are_the_head_files_scores() -> None:
    data = json.loads(HEAD_PATH.read_text(encoding="utf-8"))
    fresh = data["fresh"]
    assert FACTS.threshold == data["threshold"] and not FACTS.slow and FACTS.measured_recall == MEASURED_RECALL
    assert MEASURED_RECALL.toxic == fresh["toxic"]
    assert MEASURED_RECALL.flagged == round(fresh["recall"] * fresh["toxic"])
    assert f"recall {fresh['recall']:.2f}" in FACTS.label
    gap = FACTS.known_gaps[0]
    assert f"({data['threshold']:g})" in gap and f"{MEASURED_RECALL.flagged} of {MEASURED_RECALL.toxic}" in gap
    best = data["freshBest"]
    assert best["precision"] >= 0.90 and f"at best {best['recall'] * 100:.0f}%" in gap
    assert best == max((c for c in fresh["curve"] if c["precision"] >= 0.90), key=lambda c: c["recall"])
    note = measured_note()
    assert f"recall {fresh['recall']:.2f} at precision {fresh['precision']:.2f}" in note and "not the default" in note


def test_verdicts_have_the_heads_probabilities_and_threshold() -> None:
    probs = kind_probabilities(REPLIES)
    verdicts = classify_e5_lite(REPLIES, 0.29)
    for row, v in zip(probs, verdicts, strict=True):
        assert v.probability == row.max() and v.toxic == (row.max() >= 0.29) and v.threshold == 0.29
        assert "e5-lite head" in v.reason
    assert verdicts[0].toxic and not verdicts[1].toxic  # an insult; thanks
    assert kind_probabilities([]).shape == (0, 5)


def test_a_sentences_probabilities_do_not_depend_on_the_batch() -> None:
    together = kind_probabilities(REPLIES)
    for i, text in enumerate(REPLIES):
        assert np.array_equal(kind_probabilities([text])[0], together[i])
        assert np.array_equal(kind_probabilities([REPLIES[-1], text, REPLIES[0]])[1], together[i])


def test_run_score_many_evaluate_cli_and_dask_agree(tmp_path: Path) -> None:
    scorer = create_toxicity_scorer(engine="e5-lite")
    assert scorer.threshold == FACTS.threshold
    outputs = [" ".join(REPLIES[i : i + 2]) + f" #{i}" for i in range(len(REPLIES))] * 4
    runs = [scorer.run(output=t) for t in outputs]
    assert runs[0].preprocess_step_result["engine"] == "e5-lite"
    scores = [r.score for r in runs]
    assert scorer.score_many(outputs=outputs)["score"] == scores
    assert any(scores) and not all(scores)
    df = pd.DataFrame({"input": [f"Question {i}?" for i in range(len(outputs))], "output": outputs})
    assert (
        evaluate(df, scorers=["toxicity"], toxicity={"engine": "e5-lite"}).table["toxicity-scorer"].tolist() == scores
    )
    path, out = tmp_path / "replies.csv", tmp_path / "cli.csv"
    df.to_csv(path, index=False)
    err = io.StringIO()
    assert main(["evaluate", str(path), "--scorers", "toxicity", "--toxicity-engine", "e5-lite", "--chunksize", "7",
                 "--out", str(out), "--no-progress"], out=io.StringIO(), err=err) == 0  # fmt: skip
    assert pd.read_csv(out)["toxicity-scorer"].tolist() == scores
    assert "toxicity engine: e5-lite" in err.getvalue()
    spec = make_spec(["input", "output"], scorers=["toxicity"], toxicity={"engine": "e5-lite"})
    local = pd.concat(c.table for c in iter_scored(iter_table_chunks(path, chunksize=9), spec))
    assert local["toxicity-scorer"].tolist() == scores
    with dask_client(None, workers=2) as client:
        remote = pd.concat(c.table for c in iter_scored_dask(iter_table_chunks(path, chunksize=9), spec, client))
    pd.testing.assert_frame_equal(local, remote)


def test_a_chosen_threshold_and_bad_options() -> None:
    strict = create_toxicity_scorer(engine="e5-lite", threshold=0.99)
    assert strict.run(output="You are a worthless idiot.").score == 0.0
    with pytest.raises(ValueError, match="only apply to engine='judge'"):
        create_toxicity_scorer(engine="e5-lite", model="gpt-4o-mini")
