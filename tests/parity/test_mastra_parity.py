"""``engine="afinn", splitter="mastra"`` and the Dice scorer equal ``@mastra/evals`` on every field."""

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
        if ours["score"] != pytest.approx(theirs["score"], abs=1e-9, rel=0):
            mismatches.append((case, "score", ours["score"], theirs["score"]))
    assert not mismatches, f"{len(mismatches)} mismatches, first: {mismatches[:5]}"
