"""``engine="afinn", splitter="mastra"`` and the Dice scorer equal ``@mastra/evals`` on every field.

preprocessStepResult field by field, analyzeStepResult (Mastra has none: each of our fields must equal
the number Mastra keeps elsewhere), our extra ``sentences`` (they give Mastra's mean and variance), score.
"""

from __future__ import annotations

import pytest

from scoring import create_content_similarity_scorer, create_tone_scorer
from tests.parity.corpus import build_cases
from tests.parity.oracle import require_oracle, run_oracle

pytestmark = pytest.mark.parity
CASES = build_cases()


def _ours(case: dict) -> dict:
    messages = [{"role": "assistant", "content": t} for t in case["output"]]
    if case["kind"] == "tone":
        scorer = create_tone_scorer(case.get("referenceTone"), engine="afinn", splitter="mastra")
        return scorer.run(output=messages).to_dict()
    scorer = create_content_similarity_scorer(
        ignore_case=case["ignoreCase"], ignore_whitespace=case["ignoreWhitespace"]
    )
    inputs = [{"role": "user", "content": t} for t in case["input"]]
    return scorer.run(input=inputs, output=messages).to_dict()


@pytest.fixture(scope="module")
def oracle_results() -> list[dict]:
    require_oracle()
    return run_oracle(CASES)


def test_corpus_is_large_and_varied() -> None:
    assert len(CASES) >= 200
    assert {c["kind"] for c in CASES} == {"tone", "similarity"}
    assert sum("referenceTone" in c for c in CASES) >= 50


def _analyze_mismatches(case: dict, ours: dict, theirs: dict) -> list[tuple[object, ...]]:
    """Our analyzeStepResult against where Mastra keeps the same numbers.

    Mastra's tone and similarity scorers have no analyze step (``analyzeStepResult`` is null): tone's
    metrics are in its preprocessStepResult and the similarity is the score. Ours repeats them there, so
    each of our fields must equal Mastra's number, and no field may be missing or extra.
    """
    if theirs["analyzeStepResult"] is not None:  # a new Mastra version with an analyze step: compare it too
        return [(case, "analyzeStepResult", ours["analyzeStepResult"], theirs["analyzeStepResult"])]
    if case["kind"] == "tone":
        expected = {k: v for k, v in theirs["preprocessStepResult"].items() if k != "score"}
    else:
        expected = {"similarity": theirs["score"]}
    got = ours["analyzeStepResult"]
    if set(got) != set(expected):
        return [(case, "analyze fields", sorted(got), sorted(expected))]
    return [
        (case, f"analyze {key}", got[key], value)
        for key, value in expected.items()
        if got[key] != pytest.approx(value, abs=1e-9, rel=0)
    ]


def _sentence_mismatches(case: dict, ours: dict) -> list[tuple[object, ...]]:
    """Our extra preprocess field ``sentences``: in stability mode, their sentiments give Mastra's mean and variance."""
    pre = ours["preprocessStepResult"]
    if case["kind"] != "tone" or "avgSentiment" not in pre:
        return []
    values = [s["sentiment"] for s in pre["sentences"]]
    mean = sum(values) / len(values)
    variance = sum((v - mean) ** 2 for v in values) / len(values)
    found = []
    for key, value in (("avgSentiment", mean), ("sentimentVariance", variance)):
        if value != pytest.approx(pre[key], abs=1e-9, rel=0):
            found.append((case, f"sentences -> {key}", value, pre[key]))
    return found


def test_every_field_matches_mastra(oracle_results: list[dict]) -> None:
    mismatches = []
    for case, theirs in zip(CASES, oracle_results, strict=True):
        ours = _ours(case)
        expected = theirs["preprocessStepResult"]
        got = {k: v for k, v in ours["preprocessStepResult"].items() if k != "sentences"}
        if set(got) != set(expected):
            mismatches.append((case, "fields", sorted(got), sorted(expected)))
            continue
        for key, value in expected.items():
            if isinstance(value, str) or value is None:
                ok = got[key] == value
            else:
                ok = got[key] == pytest.approx(value, abs=1e-9, rel=0)
            if not ok:
                mismatches.append((case, key, got[key], value))
        mismatches += _analyze_mismatches(case, ours, theirs)
        mismatches += _sentence_mismatches(case, ours)
        if ours["score"] != pytest.approx(theirs["score"], abs=1e-9, rel=0):
            mismatches.append((case, "score", ours["score"], theirs["score"]))
    assert not mismatches, f"{len(mismatches)} mismatches, first: {mismatches[:5]}"
