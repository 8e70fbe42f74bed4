"""Agreement between scores and labels: each statistic against a reference implementation, the threshold
direction, consensus of raters, the people-with-people ceiling, and a taught scorer's own rows left out."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import spearmanr
from sklearn.metrics import cohen_kappa_score, roc_auc_score

from scoring.runs.agreement import (
    _auc_rows,
    _kappa_rows,
    _spearman_rows,
    agreement,
    auc,
    best_threshold,
    format_agreement,
    krippendorff_alpha,
    text_hash,
)


def _rows(scores: dict[str, list[float]]) -> pd.DataFrame:
    n = len(next(iter(scores.values())))
    return pd.DataFrame({"row": range(1, n + 1), "index": [str(i) for i in range(n)],
                         "output": [f"reply {i}" for i in range(n)], **scores})  # fmt: skip


def _labels(measure: str, values: dict[int, float], rater: str = "") -> pd.DataFrame:
    return pd.DataFrame({"row": list(values), "measure": measure, "rater": rater, "value": list(values.values())})


def test_the_vectorised_statistics_match_scikit_learn_and_scipy() -> None:
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, size=(20, 40)).astype(float)
    s = np.round(rng.random((20, 40)), 1)  # ties included
    a = rng.integers(0, 2, size=(20, 40)).astype(float)
    assert np.allclose(_auc_rows(y, s), [roc_auc_score(y[i], s[i]) for i in range(20)])
    assert np.allclose(_spearman_rows(a + s, s), [spearmanr(a[i] + s[i], s[i]).statistic for i in range(20)])
    assert np.allclose(_kappa_rows(y, a), [cohen_kappa_score(y[i], a[i]) for i in range(20)])
    assert math.isnan(auc(np.ones(5), np.arange(5.0)))


def _alpha_by_pairs(units: list[list[float]], metric: str) -> float:
    """Krippendorff's alpha from its definition: every ordered pair of values within a unit, and over all units."""
    delta = (lambda a, b: float(a != b)) if metric == "nominal" else (lambda a, b: (a - b) ** 2)
    pairable = [u for u in units if len(u) >= 2]
    values = [v for u in pairable for v in u]
    n = len(values)
    observed = sum(sum(delta(a, b) for a, b in itertools.permutations(u, 2)) / (len(u) - 1) for u in pairable) / n
    expected = sum(delta(a, b) for a, b in itertools.permutations(values, 2)) / (n * (n - 1))
    return 1 - observed / expected


@pytest.mark.parametrize("metric", ["nominal", "interval"])
def test_krippendorffs_alpha_matches_its_definition(metric: str) -> None:
    units = [[1, 1, 2], [3, 3], [2, 3, 3], [1], [4, 4, 4], [1, 2], [5, 4]]
    assert krippendorff_alpha(units, metric=metric) == pytest.approx(_alpha_by_pairs(units, metric))


def test_yes_no_agreement_confusion_and_best_threshold() -> None:
    scores = [0.95, 0.9, 0.85, 0.6, 0.55, 0.5, 0.4, 0.3, 0.2, 0.1]
    labels = [1, 1, 1, 0, 1, 0, 0, 0, 0, 0]
    found = agreement(_rows({"tone-scorer": scores}), _labels("tone-scorer", dict(enumerate(labels, 1))),
                      thresholds={"tone-scorer": 0.5})[0]  # fmt: skip
    s = found.scorers[0]
    assert (found.kind, found.rows, s.n, s.n_yes, s.n_no) == ("yes/no", 10, 10, 4, 6)
    assert s.value == pytest.approx(roc_auc_score(labels, scores))
    assert s.ci[0] is not None and s.ci[0] <= s.value <= s.ci[1]
    assert s.confusion == {"tp": 4, "fp": 2, "fn": 0, "tn": 4}  # yes when score >= 0.5
    assert s.best is not None and s.best["threshold"] == 0.55 and s.best["recall"] == 1.0
    assert s.best["precision"] == pytest.approx(4 / 5)
    assert s.disagreements["row"].iloc[0] == 4  # the "no" with the highest score
    assert "ROC AUC 0.958" in format_agreement([found])


def test_a_lower_is_better_scorer_calls_yes_above_its_threshold() -> None:
    scores = [0.9, 0.5, 0.2, 0.1]
    found = agreement(_rows({"toxicity-scorer": scores}), _labels("toxicity-scorer", {1: 1, 2: 0, 3: 0, 4: 0}),
                      thresholds={"toxicity-scorer": 0.5})[0].scorers[0]  # fmt: skip
    assert found.confusion == {"tp": 1, "fp": 0, "fn": 0, "tn": 3}  # 0.5 is not over 0.5: not toxic
    assert "yes when score > 0.5" in format_agreement(agreement(
        _rows({"toxicity-scorer": scores}), _labels("toxicity-scorer", {1: 1, 2: 0, 3: 0, 4: 0}),
        thresholds={"toxicity-scorer": 0.5}))  # fmt: skip


def test_ratings_use_spearman_and_one_answer_gives_no_auc() -> None:
    scores = [0.1, 0.4, 0.35, 0.8, 0.9, 0.7]
    ratings = {1: 1.0, 2: 2.0, 3: 3.0, 4: 4.0, 5: 5.0, 6: 3.0}
    found = agreement(_rows({"tone-scorer": scores}), _labels("tone-scorer", ratings))[0].scorers[0]
    assert found.statistic == "Spearman rho" and found.best is None
    assert found.value == pytest.approx(spearmanr(list(ratings.values()), scores).statistic)
    one = agreement(_rows({"tone-scorer": scores}), _labels("tone-scorer", dict.fromkeys(range(1, 7), 1.0)))
    assert one[0].scorers[0].value is None and "needs both yes and no labels; all 6 are yes" in one[0].scorers[0].note


def test_two_raters_give_kappa_the_consensus_drops_ties_and_the_scorer_is_compared_with_each() -> None:
    scores = [0.9, 0.8, 0.7, 0.3, 0.2, 0.1]
    ana = _labels("tone-scorer", {1: 1, 2: 1, 3: 1, 4: 0, 5: 0, 6: 0}, "ana")
    bo = _labels("tone-scorer", {1: 1, 2: 1, 3: 0, 4: 0, 5: 0, 6: 1}, "bo")
    found = agreement(_rows({"tone-scorer": scores}), pd.concat([ana, bo]), thresholds={"tone-scorer": 0.5})[0]
    assert found.ties == 2 and found.rows == 4 and found.raters == ("ana", "bo")
    people = found.people
    assert people is not None and people.statistic == "Cohen's kappa" and people.n == 6
    assert people.value == pytest.approx(cohen_kappa_score([1, 1, 1, 0, 0, 0], [1, 1, 0, 0, 0, 1]))
    with_ana = next(w for w in people.scorer_with_raters if w["rater"] == "ana")
    assert with_ana["value"] == pytest.approx(1.0)  # the scorer calls exactly ana's yes rows at 0.5
    text = format_agreement([found])
    assert "people with each other: Cohen's kappa 0.333" in text and "2 row(s) left out: the raters split" in text


def test_a_taught_scorer_is_not_judged_on_the_rows_it_was_taught_on() -> None:
    rows = _rows({"tone-scorer": [0.9, 0.8, 0.2, 0.1], "taught:x": [0.99, 0.01, 0.98, 0.02]})
    taught = {"taught:x": ("tone-scorer", frozenset({text_hash("reply 0"), text_hash("reply 1")}))}
    found = agreement(rows, _labels("tone-scorer", {1: 1, 2: 1, 3: 0, 4: 0}), taught=taught)[0]
    assert [s.scorer for s in found.scorers] == ["tone-scorer", "taught:x"]
    assert found.scorers[1].n == 2 and found.scorers[1].left_out == 2
    assert "left out: taught:x was taught on them" in found.scorers[1].note


def test_best_threshold_needs_both_answers() -> None:
    assert all(math.isnan(v) for v in best_threshold(np.zeros(4), np.arange(4.0)))


@pytest.mark.parametrize("metric", ["nominal", "interval"])
def test_alpha_resamples_are_alpha_of_the_resampled_rows(metric: str) -> None:
    from scoring.runs.agreement import _alpha_ci, _alpha_resamples

    rng = np.random.default_rng(5)
    units = [rng.integers(1, 4, size=int(rng.integers(2, 4))).astype(float) for _ in range(30)]
    picks = rng.integers(0, 30, size=(20, 30))
    slow = [krippendorff_alpha([units[i] for i in row], metric=metric) for row in picks]
    assert np.allclose(_alpha_resamples(units, metric, picks), slow)
    low, high = _alpha_ci(units, metric)
    assert low is not None and high is not None and low < krippendorff_alpha(units, metric=metric) < high
