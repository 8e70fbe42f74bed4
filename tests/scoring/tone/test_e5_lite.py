"""The e5-lite tone engine: the same bits in run(), score_many, the CLI and Dask; heads; explanations."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from scoring import create_content_similarity_scorer, create_tone_scorer
from scoring.batch.distributed import dask_client, iter_scored_dask
from scoring.batch.runner import iter_scored, make_spec
from scoring.cli.main import main
from scoring.io.loaders import iter_table_chunks
from scoring.text.e5_lite import model
from scoring.tone.e5 import E5Head, load_head
from scoring.tone.e5_lite import HEAD_PATH, E5LiteEngine, lite_raw
from scoring.tone.engines import get_engine
from scoring.tone.explain import word_drivers

REPLIES = [
    "Thanks so much, happy to help!",
    "That is awful. Sorry!",
    "정말 최악이에요. 환불해 주세요.",
    "服务很好，谢谢！",
    "Fine. Whatever.",
]


def test_polarity_has_the_sign_a_reader_gives() -> None:
    engine = get_engine("e5-lite")
    good, bad = engine.polarities(["Thank you so much, your help was wonderful!", "This is a terrible, awful mess."])
    assert good > 0.1 and bad < -0.1
    korean_good, korean_bad = engine.polarities(["정말 재밌고 감동적인 영화였어요", "정말 최악의 영화, 돈 아까워요"])
    assert korean_good > korean_bad


def test_head_file_holds_its_training_scores() -> None:
    data = json.loads(HEAD_PATH.read_text(encoding="utf-8"))
    assert data["command"] == "python -m tools.train_e5_lite tone"
    assert set(data["scores"]) == {"tweets", "movies", "amazon", "nsmc", "nyt"}
    assert isinstance(load_head(HEAD_PATH), E5Head)


def test_lite_raw_is_the_heads_formula_on_lite_vectors() -> None:
    head = load_head(HEAD_PATH)
    texts = [*REPLIES, "Great!!! :)", "no sentiment words here", ""]
    expected = head.raw(model().vectors(texts).astype(np.float32), texts)  # e5's head code on e5-lite vectors
    assert lite_raw(head, texts) == pytest.approx(expected, abs=1e-5)  # float32 rounding of the vectors only


def test_same_bits_alone_in_any_batch_and_in_run_and_score_many() -> None:
    engine = E5LiteEngine()  # a fresh engine: nothing cached
    together = engine.polarities(REPLIES)
    for i, text in enumerate(REPLIES):
        fresh = E5LiteEngine()
        assert fresh.polarity(text) == together[i]
        assert fresh.polarities([REPLIES[-1 - i], text])[1] == together[i]
    scorer = create_tone_scorer(engine="e5-lite")
    many = scorer.score_many(outputs=REPLIES)
    assert many["score"] == [scorer.run(output=t).score for t in REPLIES]


def _file(tmp_path: Path) -> Path:
    rows = 40
    df = pd.DataFrame(
        {"input": [f"Question {i}?" for i in range(rows)], "output": [REPLIES[i % 5] + f" #{i}" for i in range(rows)]}
    )
    path = tmp_path / "replies.csv"
    df.to_csv(path, index=False)
    return path


def test_cli_and_dask_give_the_same_bytes_as_run(tmp_path: Path) -> None:
    path = _file(tmp_path)
    out = tmp_path / "cli.csv"
    assert main(["evaluate", str(path), "--scorers", "tone", "--engine", "e5-lite", "--chunksize", "7",
                 "--out", str(out)], out=io.StringIO(), err=io.StringIO()) == 0  # fmt: skip
    cli = pd.read_csv(out)
    scorer = create_tone_scorer(engine="e5-lite")
    source = pd.read_csv(path)
    assert cli["tone-scorer"].tolist() == [scorer.run(output=t).score for t in source["output"]]
    spec = make_spec(["input", "output"], scorers=["tone"], engine="e5-lite")
    local = pd.concat(c.table for c in iter_scored(iter_table_chunks(path, chunksize=9), spec))
    with dask_client(None, workers=2) as client:
        remote = pd.concat(c.table for c in iter_scored_dask(iter_table_chunks(path, chunksize=9), spec, client))
    pd.testing.assert_frame_equal(local, remote)


def test_explanations_name_the_sentiment_words() -> None:
    drivers = dict(get_engine("e5-lite").explain("The staff were wonderful and the room was filthy."))  # type: ignore[attr-defined]
    assert drivers["wonderful"] > 0 > drivers["filthy"]
    frame = word_drivers(["Thanks, that was wonderful."], "e5-lite")
    assert "wonderful" in frame["word"].tolist()


def test_similarity_algorithm_e5_lite() -> None:
    scorer = create_content_similarity_scorer(algorithm="e5-lite")
    same = scorer.run(input="Your refund has been processed.", output="Your refund has been processed.").score
    para = scorer.run(input="The refund was sent to your card.", output="We sent the money back to your card.").score
    other = scorer.run(input="The refund was sent to your card.", output="Penguins live in the Antarctic.").score
    assert same == 1.0 and para > other
    many = scorer.score_many(inputs=["a cat", "the refund"], outputs=["a dog", "the refund was sent"])
    assert many["score"] == [
        scorer.run(input=a, output=b).score for a, b in (("a cat", "a dog"), ("the refund", "the refund was sent"))
    ]
