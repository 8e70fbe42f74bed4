"""Comparing two runs: per-scorer verdicts with direction from lower-is-better, per-row deltas worst first."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from scoring.batch.compare import compare_groups
from scoring.runs import compare_runs, item_deltas
from scoring.runs.diff import paired_on_input


def _rows(scores: list[float], *, inputs: list[str] | None = None, scorer: str = "tone-scorer") -> pd.DataFrame:
    n = len(scores)
    return pd.DataFrame({
        "row": range(1, n + 1), "index": [str(i) for i in range(n)],
        "input": inputs if inputs is not None else [f"q{i}" for i in range(n)],
        "output": [f"reply {i} {s:.2f}" for i, s in enumerate(scores)], "reference": [None] * n, scorer: scores,
    })  # fmt: skip


def test_a_significantly_lower_tone_is_a_regression() -> None:
    rng = np.random.default_rng(0)
    base = rng.uniform(0.7, 1.0, 40)
    comparison = compare_runs(_rows(list(base)), _rows(list(base - 0.2)), labels=("run 1 (a)", "run 2 (b)"))
    (verdict,) = comparison.verdicts
    assert verdict.status == "worse" and verdict.regressed and comparison.regressions == ["tone-scorer"]
    assert verdict.comparison.paired and verdict.comparison.n_pairs == 40
    assert verdict.comparison.difference == pytest.approx(-0.2)
    assert verdict.line().startswith("REGRESSION: tone-scorer ") and "(higher is better)" in verdict.line()


def test_higher_toxicity_is_a_regression_and_lower_an_improvement() -> None:
    base = [0.0] * 20 + [0.1] * 20
    worse = compare_runs(
        _rows(base, scorer="toxicity-scorer"), _rows([x + 0.3 for x in base], scorer="toxicity-scorer")
    )
    better = compare_runs(
        _rows([x + 0.3 for x in base], scorer="toxicity-scorer"), _rows(base, scorer="toxicity-scorer")
    )
    assert worse.verdicts[0].status == "worse" and worse.verdicts[0].lower_is_better
    assert better.verdicts[0].status == "better" and better.regressions == []
    assert "(lower is better)" in worse.verdicts[0].line()


def test_no_difference_and_too_few_rows() -> None:
    same = compare_runs(_rows([0.5, 0.6] * 10), _rows([0.5, 0.6] * 10))
    assert same.verdicts[0].status == "same" and not same.regressions
    few = compare_runs(_rows([0.5]), _rows([0.1]))
    assert few.verdicts[0].status == "undecided" and not few.regressions
    assert few.verdicts[0].line().startswith("not enough rows: tone-scorer")


def test_the_verdict_is_the_ab_comparison_of_the_batch_page() -> None:
    rng = np.random.default_rng(1)
    a, b = list(rng.uniform(0, 1, 30)), list(rng.uniform(0.2, 1, 30))
    verdict = compare_runs(_rows(a), _rows(b), labels=("A", "B")).verdicts[0]
    stacked = pd.DataFrame({"run": ["A"] * 30 + ["B"] * 30, "input": [f"q{i}" for i in range(30)] * 2, "s": a + b})
    expected = compare_groups(stacked, score="s", group="run", a="A", b="B", pair_on="input")
    assert verdict.comparison.p_value == expected.p_value and verdict.comparison.diff_ci == expected.diff_ci
    assert verdict.comparison.effect_size == expected.effect_size


def test_unpaired_when_the_inputs_differ() -> None:
    base = _rows([0.9] * 15 + [0.8] * 15)
    other = _rows([0.5] * 15 + [0.4] * 15, inputs=[f"other {i}" for i in range(30)])
    assert not paired_on_input(base, other)
    verdict = compare_runs(base, other).verdicts[0]
    assert not verdict.comparison.paired and verdict.comparison.effect_name == "Cliff's delta" and verdict.regressed


def test_duplicated_inputs_are_not_paired() -> None:
    assert not paired_on_input(
        _rows([0.5] * 4, inputs=["a", "a", "b", "c"]), _rows([0.5] * 4, inputs=["a", "b", "c", "d"])
    )
    assert paired_on_input(_rows([0.5] * 5), _rows([0.5] * 4))  # 4 of 5 matched: 80%


def test_scorers_in_only_one_run_are_listed_not_compared() -> None:
    base = _rows([0.5] * 12).assign(**{"toxicity-scorer": 0.0})
    comparison = compare_runs(base, _rows([0.5] * 12))
    assert [v.scorer for v in comparison.verdicts] == ["tone-scorer"] and comparison.missing == ("toxicity-scorer",)
    with pytest.raises(ValueError, match="labels must name the two runs apart"):
        compare_runs(base, base, labels=("x", "x"))


def test_item_deltas_match_on_input_and_put_the_worst_regressions_first() -> None:
    base = _rows([0.9, 0.8, 0.7, 0.6], inputs=["a", "b", "c", "d"])
    cand = _rows([0.6, 0.7, 0.9, 0.7], inputs=["d", "c", "b", "a"])  # same inputs, another order
    cand.loc[1, "output"] = base.loc[2, "output"]  # input c: same text and score in both runs
    deltas = item_deltas(base, cand, "tone-scorer")
    assert deltas.attrs["matched_on"] == "input"
    assert deltas["input"].tolist() == ["a", "d", "c", "b"]  # ties: in the candidate's row order
    assert deltas["delta"].round(6).tolist() == [-0.2, 0.0, 0.0, 0.1]
    assert deltas["regression"].round(6).tolist() == [0.2, 0.0, 0.0, -0.1]
    # a row changed when its score did: d kept its score with another reply (it once counted as changed)
    assert deltas["changed"].tolist() == [True, False, False, True]
    assert deltas["reply_changed"].tolist() == [True, True, False, True]
    assert deltas[["row_a", "row_b"]].iloc[0].tolist() == [1, 4]


def test_item_deltas_for_lower_is_better_and_rows_missing_on_one_side() -> None:
    base = _rows([0.0, 0.5, 0.2, 0.1, 0.1], inputs=["a", "b", "c", "d", "e"], scorer="toxicity-scorer")
    cand = _rows([0.5, 0.0, math.nan, 0.1, 0.1, 0.1], inputs=["a", "b", "c", "d", "e", "new"], scorer="toxicity-scorer")
    deltas = item_deltas(base, cand, "toxicity-scorer")
    assert deltas.attrs["matched_on"] == "input"
    assert deltas["input"].tolist()[0] == "a" and deltas["regression"].tolist()[0] == 0.5
    assert deltas.set_index("input").loc["b", "regression"] == -0.5
    last = deltas.set_index("input").loc[["c", "new"]]
    assert last["regression"].isna().all() and last["changed"].all()
    assert pd.isna(last.loc["new", "row_a"]) and last.loc["new", "row_b"] == 6
    assert not deltas.set_index("input").loc["d", "changed"]


def test_item_deltas_by_row_number_when_not_paired() -> None:
    base = _rows([0.9, 0.8], inputs=["a", "a"])
    cand = _rows([0.1, 0.8, 0.5], inputs=["x", "y", "z"])
    deltas = item_deltas(base, cand, "tone-scorer")
    assert deltas.attrs["matched_on"] == "row"
    assert deltas["row_a"].tolist()[:2] == [1, 2] and deltas["regression"].round(6).tolist()[0] == 0.8
    assert deltas["input"].tolist()[0] == "a"
    with pytest.raises(ValueError, match="the baseline run has no 'toxicity-scorer' scores; it has"):
        item_deltas(base, cand, "toxicity-scorer")
    with pytest.raises(ValueError, match="the candidate run has no 'toxicity-scorer' scores"):
        item_deltas(base.assign(**{"toxicity-scorer": 0.0}), cand, "toxicity-scorer")


def test_warmth_is_compared_beside_the_scores_and_a_colder_run_is_a_regression() -> None:
    rng = np.random.default_rng(1)
    tone = list(rng.uniform(0.8, 1.0, 20))
    warmth = rng.uniform(0.2, 0.6, 20)
    base = _rows(tone).assign(**{"tone-scorer.avgSentiment": warmth})
    colder = _rows(tone).assign(**{"tone-scorer.avgSentiment": warmth - 0.3})
    comparison = compare_runs(base, colder, labels=("v1", "v2"))
    assert [v.scorer for v in comparison.verdicts] == ["tone-scorer", "warmth"]
    assert comparison.regressions == ["warmth"]
    verdict = comparison.verdicts[1].comparison.verdict
    assert verdict.startswith("v2 is colder than v1: v2 minus v1 over 20 pairs = 0.116 - 0.416 = -0.300")
    # a run with neither sentiment column (avgSentiment, responseSentiment) compares no warmth
    assert [v.scorer for v in compare_runs(_rows(tone), colder, labels=("v1", "v2")).verdicts] == ["tone-scorer"]


def test_a_less_courteous_run_is_called_curter_in_words() -> None:
    base = [0.8 + 0.01 * i for i in range(15)]
    comparison = compare_runs(
        _rows(base, scorer="courtesy-scorer"), _rows([x - 0.5 for x in base], scorer="courtesy-scorer"),
        labels=("v1", "v2"),
    )  # fmt: skip
    assert comparison.regressions == ["courtesy-scorer"]
    assert comparison.verdicts[0].comparison.verdict.startswith("v2 is curter (less courteous) than v1: v2 minus v1")


def test_row_deltas_of_warmth_read_the_tone_scorers_average_sentiment() -> None:
    base = _rows([0.9, 0.9, 0.9]).assign(**{"tone-scorer.avgSentiment": [0.5, 0.4, 0.3]})
    colder = _rows([0.9, 0.9, 0.9]).assign(**{"tone-scorer.avgSentiment": [0.5, -0.4, 0.3]})
    deltas = item_deltas(base, colder, "warmth")
    assert deltas["row_b"].iloc[0] == 2 and deltas["regression"].iloc[0] == pytest.approx(0.8)


def test_rows_whose_tone_was_not_measured_take_no_part_in_runs_compare() -> None:
    from scoring.batch.result import warnings_column

    note = (
        "output has only 1 sentence with words: stability compares sentences with each other, so there is not "
        "enough text to measure it (its perfect score is the formula's value, not a finding)."
    )
    base, cand = _rows([0.8] * 12), _rows([0.6] * 10 + [1.0, 1.0])  # the two 1.0s measured nothing
    base[warnings_column("tone-scorer")] = ""
    cand[warnings_column("tone-scorer")] = [""] * 10 + [note] * 2
    (verdict,) = compare_runs(base, cand).verdicts
    c = verdict.comparison
    assert (c.n_pairs, c.unmeasured, c.means) == (10, 2, pytest.approx((0.8, 0.6), abs=1e-12))
    assert "2 rows whose tone was not measured were left out." in c.verdict


def _compared_with_a_reference(response: list[float], *, reference: float = 0.9) -> pd.DataFrame:
    """Rows as a run scored with a reference column saves them: the reply's and the reference's sentiment."""
    return _rows([1.0 - abs(r - reference) for r in response]).assign(**{
        "tone-scorer.responseSentiment": response, "tone-scorer.referenceSentiment": reference,
        "tone-scorer.difference": [abs(r - reference) for r in response],
    })  # fmt: skip


def test_warmth_with_a_reference_column_is_the_replys_sentiment_and_a_colder_run_regresses() -> None:
    rng = np.random.default_rng(2)
    warm = rng.uniform(0.4, 0.8, 20)
    comparison = compare_runs(
        _compared_with_a_reference(list(warm)), _compared_with_a_reference(list(warm - 0.5)), labels=("v1", "v2")
    )
    assert [v.scorer for v in comparison.verdicts] == ["tone-scorer", "warmth"]
    assert "warmth" in comparison.regressions
    verdict = comparison.verdicts[1].comparison
    assert verdict.verdict.startswith("v2 is colder than v1: v2 minus v1 over 20 pairs")
    assert verdict.means == pytest.approx((warm.mean(), warm.mean() - 0.5))  # never the reference's 0.9


def test_warmth_reads_each_row_in_its_own_mode_and_leaves_out_replies_the_engine_cannot_read() -> None:
    from scoring.batch.result import warnings_column

    unread = (
        "output looks like Korean (ko, confidence 1.00); the vader engine's lexicon is English, so this sentiment "
        "score is not meaningful for it. The e5 engine was validated on Korean."
    )
    base = _rows([0.9] * 12).assign(**{
        "tone-scorer.avgSentiment": [0.5] * 6 + [None] * 6, "tone-scorer.responseSentiment": [None] * 6 + [0.8] * 6,
        warnings_column("tone-scorer"): [""] * 12,
    })  # fmt: skip
    cand = base.assign(**{
        "tone-scorer.avgSentiment": [-0.1] * 6 + [None] * 6, "tone-scorer.responseSentiment": [None] * 6 + [0.0] * 6,
        warnings_column("tone-scorer"): [""] * 11 + [unread],
    })  # fmt: skip
    (_, warmth) = compare_runs(base, cand, labels=("v1", "v2")).verdicts
    assert warmth.comparison.n_pairs == 11  # row 12's reply is Korean: VADER's 0.0 is no warmth
    assert warmth.comparison.means == pytest.approx(((0.5 * 6 + 0.8 * 5) / 11, (-0.1 * 6) / 11))
    deltas = item_deltas(base, cand, "warmth")
    assert deltas["row_b"].iloc[0] == 7 and deltas["regression"].iloc[:5].tolist() == pytest.approx([0.8] * 5)
    assert deltas["score_b"].isna().sum() == 1


def test_a_run_saved_in_stability_mode_compares_its_warmth_with_one_scored_with_a_reference() -> None:
    warm = [0.5 + 0.01 * i for i in range(15)]
    before = _rows([0.9] * 15).assign(**{"tone-scorer.avgSentiment": warm})  # a run saved before this change
    after = _compared_with_a_reference([w - 0.4 for w in warm])
    comparison = compare_runs(before, after, labels=("v1", "v2"))
    assert comparison.regressions == ["tone-scorer", "warmth"]
    assert comparison.verdicts[1].comparison.verdict.endswith(
        "The two runs' warmth is not read the same way: v1 has the average sentence sentiment (scored without a "
        "reference), v2 the whole reply's sentiment (scored with a reference); these differ for the same reply, so "
        "part of this difference may be how the runs were scored."
    )
    assert comparison.frame()[["scorer", "better"]].values.tolist() == [["tone-scorer", "higher"], ["warmth", "higher"]]
    # runs read the same way carry no such note
    same = compare_runs(before, before.assign(**{"tone-scorer.avgSentiment": [w - 0.4 for w in warm]}))
    assert "not read the same way" not in same.verdicts[1].comparison.verdict
    assert item_deltas(before, after, "warmth")["regression"].round(6).tolist() == [0.4] * 15
    with pytest.raises(ValueError, match="the baseline run has no 'warmth' scores; it has \\['tone-scorer'\\]"):
        item_deltas(_rows([0.9] * 15), after, "warmth")
