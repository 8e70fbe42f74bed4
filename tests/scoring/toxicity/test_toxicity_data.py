"""The labelled toxicity set, and floors on how the offline classifier does on it (bench/toxicity_eval.py reports)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from scoring.toxicity.classifier import classify
from scoring.toxicity.rules import KINDS, RULES, match_rules

DATA = Path(__file__).parent.parent / "data" / "toxicity_labelled.csv"
ROWS = list(csv.DictReader(DATA.open(encoding="utf-8")))
#: The defaults' development set: the second round of issue 24 wrote patterns from its misses.
DEFAULTS_DEV = list(csv.DictReader((DATA.parent / "toxicity_defaults_dev.csv").open(encoding="utf-8")))


def test_labelled_set_covers_the_rubric() -> None:
    assert len(ROWS) >= 100
    assert len({r["text"] for r in ROWS}) == len(ROWS)
    for kind in KINDS:
        assert sum(r["kind"] == kind for r in ROWS) >= 30, kind
    clean = [r for r in ROWS if r["kind"] == "clean"]
    assert {r["group"] for r in clean} >= {"polite_criticism", "agent_reply", "neutral_sensitive", "rubric_counter"}
    assert all(r["toxic"] == ("0" if r["kind"] == "clean" else "1") for r in ROWS)
    assert {r["split"] for r in ROWS} == {"dev", "heldout", "fresh"}
    assert all(r["split"] == "dev" for r in ROWS if r["source"] == "rubric")  # the patterns saw the rubric


def _recall_and_precision(split: str) -> tuple[float, float]:
    part = [r for r in ROWS if r["split"] == split]
    flagged = [v.toxic for v in classify([r["text"] for r in part])]
    tp = sum(f and r["toxic"] == "1" for f, r in zip(flagged, part, strict=True))
    fp = sum(f and r["toxic"] == "0" for f, r in zip(flagged, part, strict=True))
    return tp / sum(r["toxic"] == "1" for r in part), tp / (tp + fp)


@pytest.mark.parametrize(("split", "min_recall", "min_precision"), [("dev", 0.88, 0.95), ("heldout", 0.8, 0.95)])
def test_classifier_floors_on_labelled_splits(split: str, min_recall: float, min_precision: float) -> None:
    # Measured 0.91/0.98 (dev) and 0.85/1.00 (heldout); the 'fresh' split (0.23 recall) has no floor: it is the
    # honest estimate of what the patterns catch beyond what they were written for, reported by the bench.
    recall, precision = _recall_and_precision(split)
    assert recall >= min_recall and precision >= min_precision, (recall, precision)


def test_every_rule_has_a_known_kind_and_fires_on_some_labelled_sentence_of_that_kind() -> None:
    toxic = [r for r in ROWS + DEFAULTS_DEV if r["kind"] != "clean" and r["toxic"] == "1"]
    fired = {(t.kind, t.rule) for r in toxic for t in match_rules(r["text"]) if r["kind"] in (t.kind, "toxic")}
    for rule in RULES:
        assert rule.kind in KINDS and 0.5 <= rule.confidence <= 1.0
    unused = [r.name for r in RULES if (r.kind, r.name) not in fired]
    assert not unused, unused  # a pattern no labelled sentence exercises is untested


def test_the_documented_recall_is_what_the_classifier_measures_today() -> None:
    # The number the Toxicity page shows next to "No toxic opinion" comes from MEASURED_RECALL: recomputed
    # here on its split, so changing the patterns or the model without updating it fails.
    from scoring.toxicity.classifier import MEASURED_RECALL

    toxic = [r["text"] for r in ROWS if r["split"] == MEASURED_RECALL.split and r["toxic"] == "1"]
    assert MEASURED_RECALL.toxic == len(toxic)
    assert MEASURED_RECALL.flagged == sum(v.toxic for v in classify(toxic))
    assert MEASURED_RECALL.source.endswith(DATA.name)


@pytest.mark.parametrize(
    "sentence",
    ["Only an idiot would ask that.", "Only losers would buy that.", "Only a moron would deploy on a Friday."],
)
def test_only_an_idiot_would_is_a_personal_attack_not_hate(sentence: str) -> None:
    # An insult aimed at whoever would do it names no group: a personal attack, and the kind shown first.
    verdict = classify([sentence])[0]
    assert verdict.toxic and verdict.kinds[0] == "personal_attack" and "hate" not in verdict.kinds
    assert verdict.reason.startswith("Toxic (personal attack): ")
    assert "hate" not in {t.kind for t in match_rules(sentence)}
