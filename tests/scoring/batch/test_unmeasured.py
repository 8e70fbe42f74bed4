"""Rows whose tone score measured nothing (stability of fewer than two sentences with words): counted, listed,
and a mean without them next to Mastra's; the language notice counts only rows not in English."""

from __future__ import annotations

import math
from statistics import fmean

import pandas as pd
import pytest

from scoring import create_tone_scorer, run_evals
from scoring.batch.result import SummaryBuilder, unmeasured_mask, warned_mask
from scoring.batch.runner import evaluate, iter_scored, make_spec
from scoring.io.columns import ColumnMap

ONE_SENTENCE = ["Thanks for reaching out!", "Your order has shipped.", "Sorry about that.", "We refunded you.", "?!"]
MIXED = [
    "Thanks for reaching out!",  # 1: one sentence
    "Your order shipped late. I am so sorry. This is terrible and we will fix it!",
    "Das ist wirklich großartig, vielen Dank!",  # 3: one sentence, German
    "Great news: it works. Unfortunately, the refund failed.",
    "Das Paket ist da. Es ist leider kaputt!",  # 5: German, two sentences
    "Sorry about that.",  # 6: one sentence
]
MEASURED = [2, 4]  # rows (from 1) of MIXED with two sentences or more, in English (VADER reads English only)


def _mastra_mean(texts: list[str]) -> float:
    return float(run_evals([{"output": t} for t in texts], [create_tone_scorer()])["scores"]["tone-scorer"])


def test_a_file_of_one_sentence_replies_says_its_mean_measures_nothing() -> None:
    result = evaluate(pd.DataFrame({"reply": ONE_SENTENCE}), scorers=["tone"])
    row = result.summary.loc["tone-scorer"]
    assert row["mean"] == _mastra_mean(ONE_SENTENCE) == 1.0  # Mastra's number is kept
    assert row["unmeasured"] == 5 and math.isnan(row["measured_mean"]) and row["warned"] == 0
    assert result.unmeasured_rows() == [1, 2, 3, 4, 5] and result.warned_rows() == []
    assert result.language_notice() is None  # English replies: no "not English"
    assert result.unmeasured_notices() == [
        "5 of 5 rows have a tone score that measures nothing, not measured: fewer than two sentences with words "
        "scored for stability (no reference; 1.0 for a single sentence, the formula's value), or text in a language "
        "the engine's English word list cannot read: row 1, 2, 3, 4, 5. The tone mean 1.000 (as Mastra's runEvals "
        "computes it) includes them; no row could be measured."
    ]
    assert all("not enough text to measure it" in w for w in result.table["tone-scorer.warnings"])


def test_a_mixed_file_gives_the_mean_of_the_measured_rows_and_lists_each_kind_of_row_apart() -> None:
    result = evaluate(pd.DataFrame({"reply": MIXED}), scorers=["tone"])
    row = result.summary.loc["tone-scorer"]
    scorer = create_tone_scorer()
    measured = fmean(scorer.run(output=MIXED[i - 1]).score for i in MEASURED)
    assert row["mean"] == _mastra_mean(MIXED) and row["measured_mean"] == pytest.approx(measured, abs=1e-12)
    assert row["measured_mean"] < row["mean"]  # the three one-sentence 1.0s lifted the mean
    # the German rows: VADER read none of their words; row 5 (two sentences) was counted as measured before
    assert result.unmeasured_rows() == [1, 3, 5, 6] and row["unmeasured"] == 4
    assert result.warned_rows() == [3, 5] and row["warned"] == 2  # German only, with or without the note
    assert result.language_notice() == (
        "2 of 6 rows are not English (the response or its reference), so their tone scores are not meaningful: "
        "row 3, 5."
    )
    (notice,) = result.unmeasured_notices()
    assert notice.startswith("4 of 6 rows have a tone score that measures nothing") and ": row 1, 3, 5, 6. " in notice
    assert notice.endswith(
        f"The tone mean {row['mean']:.3f} (as Mastra's runEvals computes it) includes them; over the 2 rows that "
        f"could be measured it is {measured:.3f}."
    )


def test_the_summary_adds_up_the_same_in_chunks() -> None:
    df = pd.DataFrame({"reply": MIXED * 3})
    spec = make_spec(list(df.columns), scorers=["tone"], column_map=ColumnMap("reply"))
    builder = SummaryBuilder(spec.scorers)
    for chunk in iter_scored((df.iloc[i : i + 4] for i in range(0, len(df), 4)), spec):
        builder.add(chunk)
    whole = evaluate(df, scorers=["tone"]).summary.loc["tone-scorer"]
    chunked = builder.summary().loc["tone-scorer"]
    assert (chunked["unmeasured"], chunked["warned"]) == (whole["unmeasured"], whole["warned"]) == (12, 6)
    assert chunked["measured_mean"] == whole["measured_mean"] and chunked["mean"] == whole["mean"]


def test_with_a_reference_no_row_is_unmeasured() -> None:
    df = pd.DataFrame({"reply": ONE_SENTENCE, "expected": ["Happy to help!"] * 5})
    result = evaluate(df, scorers=["tone"], columns=ColumnMap("reply", None, "expected"))
    row = result.summary.loc["tone-scorer"]
    assert row["unmeasured"] == 0 and row["measured_mean"] == row["mean"] and result.unmeasured_notices() == []
    assert not unmeasured_mask(result.table, "tone-scorer").any() and not warned_mask(result.table, "tone-scorer").any()


def test_other_scorers_have_no_unmeasured_rows() -> None:
    df = pd.DataFrame({"reply": ONE_SENTENCE, "prompt": ["Where is my order?"] * 5})
    result = evaluate(df, scorers=["tone", "similarity"], columns=ColumnMap("reply", "prompt"))
    similarity = result.summary.loc["content-similarity-scorer"]
    assert similarity["unmeasured"] == 0 and similarity["measured_mean"] == similarity["mean"]
    assert len(result.unmeasured_notices()) == 1  # tone's only
