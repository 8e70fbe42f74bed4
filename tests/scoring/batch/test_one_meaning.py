"""One meaning of a reference at every entry point: ``run``, ``run_evals``, ``evaluate`` and the CLI.

With a reference (a ground truth), tone compares each output's sentiment with it and similarity compares
the output with it; without one, tone measures stability and similarity compares the output with the
input (as Mastra). A reference tone text, when given, is tone's reference whatever the column says.
The Batch page's side is in tests/pages/test_batch_columns.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from scoring import create_content_similarity_scorer, create_tone_scorer, run_evals
from scoring.batch.runner import evaluate, make_spec
from scoring.io.columns import ColumnMap

ROOT = Path(__file__).resolve().parents[3]
PROMPTS = ["Where is my order?", "Can I get a refund?", "How do I reset my password?"]
ANSWERS = [
    "Your order ships tomorrow, thanks for waiting!",
    "Sorry, refunds are not possible. That is awful, I know.",
    "Click 'Forgot password' and follow the email. Good luck!",
]
EXPECTED = ["It ships tomorrow.", "Refunds take five business days; we are sorry.", "Use the Forgot password link."]
TONE_TEXT = "We are delighted to help you!"


def _table() -> pd.DataFrame:
    return pd.DataFrame(
        {"Ticket #": [101, 102, 103], "Prompt": PROMPTS, "Agent Answer": ANSWERS, "Expected Reply": EXPECTED}
    )


def _by_run(reference: bool, reference_tone: str | None = None) -> dict[str, list[float]]:
    """Each row scored by ``scorer.run`` directly: the meaning every other entry point must match."""
    tone, similarity = create_tone_scorer(reference_tone), create_content_similarity_scorer()
    truths = EXPECTED if reference else [None] * len(ANSWERS)
    return {
        "tone-scorer": [tone.run(output=o, ground_truth=g).score for o, g in zip(ANSWERS, truths, strict=True)],
        "content-similarity-scorer": [
            similarity.run(input=p, output=o, ground_truth=g).score
            for p, o, g in zip(PROMPTS, ANSWERS, truths, strict=True)
        ],
    }


def _by_run_evals(reference: bool, reference_tone: str | None = None) -> dict[str, list[float]]:
    items = [
        {"input": p, "output": o, **({"groundTruth": g} if reference else {})}
        for p, o, g in zip(PROMPTS, ANSWERS, EXPECTED, strict=True)
    ]
    result = run_evals(items, [create_tone_scorer(reference_tone), create_content_similarity_scorer()])
    ids = ("tone-scorer", "content-similarity-scorer")
    return {k: [item["scorerResults"][k]["score"] for item in result["items"]] for k in ids}  # type: ignore[index]


def _by_evaluate(reference: bool, reference_tone: str | None = None) -> dict[str, list[float]]:
    columns = None if reference else ColumnMap("Agent Answer", "Prompt")  # the reference column is guessed
    result = evaluate(_table(), scorers=["tone", "similarity"], columns=columns, reference_tone=reference_tone)
    return {k: result.table[k].tolist() for k in ("tone-scorer", "content-similarity-scorer")}


def _cli(tmp_path: Path, *flags: str) -> tuple[dict[str, list[float]], str]:
    source, out = tmp_path / "tickets.csv", tmp_path / "scored.jsonl"
    _table().to_csv(source, index=False)
    proc = subprocess.run(
        [sys.executable, "-m", "scoring", "evaluate", str(source), "--out", str(out), "--no-progress", *flags],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=300,
        check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    return {k: [r[k] for r in rows] for k in ("tone-scorer", "content-similarity-scorer")}, proc.stderr


@pytest.mark.parametrize("reference", [True, False], ids=["with a reference", "without"])
def test_run_run_evals_and_evaluate_agree(reference: bool) -> None:
    expected = _by_run(reference)
    assert _by_run_evals(reference) == expected
    assert _by_evaluate(reference) == expected


def test_the_reference_changes_both_scores_so_the_agreement_above_means_something() -> None:
    with_ref, without = _by_run(True), _by_run(False)
    for scorer_id in with_ref:
        assert all(a != b for a, b in zip(with_ref[scorer_id], without[scorer_id], strict=True)), scorer_id


def test_a_reference_tone_text_is_tone_s_reference_and_similarity_still_reads_the_column() -> None:
    expected = _by_run(True, TONE_TEXT)
    assert expected["tone-scorer"] == [create_tone_scorer(TONE_TEXT).run(output=o).score for o in ANSWERS]
    assert _by_run_evals(True, TONE_TEXT) == expected
    assert _by_evaluate(True, TONE_TEXT) == expected


def test_the_cli_scores_as_run_and_says_which_column_is_used_for_what(tmp_path: Path) -> None:
    got, err = _cli(tmp_path)
    assert got == _by_run(True)
    assert "columns: output='Agent Answer', input='Prompt', reference='Expected Reply'\n" in err
    assert (
        "compares: tone-scorer: output vs 'Expected Reply'; content-similarity-scorer: output vs 'Expected Reply'\n"
        in err
    )
    plain, err = _cli(tmp_path, "--no-reference")
    assert plain == _by_run(False)
    assert "columns: output='Agent Answer', input='Prompt', reference=None\n" in err
    assert "tone-scorer: stability across the output's sentences; content-similarity-scorer: output vs 'Prompt'" in err
    toned, err = _cli(tmp_path, "--reference-tone", TONE_TEXT)
    assert toned == _by_run(True, TONE_TEXT)
    assert (
        "tone-scorer: output vs the reference tone text; content-similarity-scorer: output vs 'Expected Reply'" in err
    )


@pytest.mark.parametrize(
    ("columns", "reference_tone", "expected"),
    [
        (ColumnMap("o", "i", "r"), None, {"tone-scorer": ("reference", "r"),
                                          "content-similarity-scorer": ("reference", "r")}),
        (ColumnMap("o", "i"), None, {"tone-scorer": ("", None), "content-similarity-scorer": ("input", "i")}),
        (ColumnMap("o", "i", "r"), "Happy!", {"tone-scorer": ("reference tone", None),
                                              "content-similarity-scorer": ("reference", "r")}),
        (ColumnMap("o", None, "r"), None, {"content-similarity-scorer": ("reference", "r"),
                                           "toxicity-scorer": ("", None)}),
        (ColumnMap("o", "i"), None, {"toxicity-scorer": ("context", "i")}),
    ],
)  # fmt: skip
def test_the_spec_is_the_one_place_that_says_what_each_scorer_compares(
    columns: ColumnMap, reference_tone: str | None, expected: dict[str, tuple[str, str | None]]
) -> None:
    spec = make_spec(["o", "i", "r"], scorers=list(expected), column_map=columns, reference_tone=reference_tone)
    assert {s: spec.compared_with(s) for s in spec.scorers} == expected
