"""How well a run's scores agree with people's labels, and how well the people agree with each other.

Per measure with labels (:mod:`scoring.runs.labels`), each row's label is its raters' consensus: the
majority for yes/no (a tie leaves the row out, counted), the mean for ratings. Then, for the measure's
scorer (and any taught scorer of that measure in the run):

- yes/no labels: ROC AUC (the chance a random "yes" row scores above a random "no" row) with a bootstrap
  95% CI; the confusion table at the scorer's current threshold (a row is called "yes" when its score is
  at or above it, or above it for a lower-is-better scorer: the summary's failing share); and the
  threshold that best matches the labels (the highest Youden's J: recall of "yes" + recall of "no" - 1),
  with its bootstrap CI and the precision and recall it gives. That threshold is fitted on these labels:
  on new rows it will do somewhat worse.
- ratings: Spearman's rho with a bootstrap 95% CI.
- the rows where scorer and people disagree most first: by the gap between the label and the score's
  percentile rank (the label's own percentile rank for ratings).

With two or more raters on the same rows: Cohen's kappa (two raters, yes/no) or Krippendorff's alpha
(nominal for yes/no, interval for ratings) between them, and the scorer's kappa (at its current
threshold) or Spearman's rho with each rater on the same rows: people's agreement is the ceiling a
scorer can be held to. A taught scorer's rows it was taught on are left out (their agreement would
flatter it), and counted.

>>> import pandas as pd
>>> rows = pd.DataFrame({"row": [1, 2, 3, 4], "index": ["0", "1", "2", "3"], "output": list("abcd"),
...                      "tone-scorer": [0.9, 0.8, 0.3, 0.1]})
>>> labels = pd.DataFrame({"row": [1, 2, 3, 4], "measure": ["tone-scorer"] * 4, "rater": [""] * 4,
...                        "value": [1.0, 1.0, 0.0, 0.0]})
>>> found = agreement(rows, labels, thresholds={"tone-scorer": 0.5})[0].scorers[0]
>>> found.statistic, found.value, found.n, found.confusion
('ROC AUC', 1.0, 4, {'tp': 2, 'fp': 0, 'fn': 0, 'tn': 2})
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np
import pandas as pd
from scipy.stats import rankdata

from scoring.errors import InputError
from scoring.registry import find_scorer

__all__ = [
    "AGREEMENT_RESAMPLES",
    "MeasureAgreement",
    "RaterAgreement",
    "ScorerAgreement",
    "agreement",
    "agreement_html",
    "auc",
    "best_threshold",
    "chart_points",
    "format_agreement",
    "krippendorff_alpha",
    "text_hash",
]

AGREEMENT_RESAMPLES = 2000  # bootstrap resamples of AUC, rho and kappa
THRESHOLD_RESAMPLES = 1000  # of the best threshold (a sort per resample)
TOP_DISAGREEMENTS = 20


def text_hash(text: object) -> str:
    """The SHA-256 of a reply's text (how a taught scorer remembers its training rows without keeping them)."""
    return hashlib.sha256(str(text or "").encode("utf-8", "surrogatepass")).hexdigest()


def _f(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else float(value)


@dataclass(frozen=True)
class ScorerAgreement:
    """One scorer's agreement with the labels of one measure."""

    scorer: str
    kind: str  # "yes/no" or "rating"
    statistic: str  # "ROC AUC" or "Spearman rho"
    n: int
    value: float | None
    ci: tuple[float | None, float | None]
    n_yes: int = 0
    n_no: int = 0
    threshold: float | None = None
    confusion: dict[str, int] | None = None  # tp, fp, fn, tn at the current threshold ("yes" is positive)
    best: dict[str, float | None] | None = None  # threshold, ciLow, ciHigh, precision, recall, balancedAccuracy
    left_out: int = 0  # rows a taught scorer was taught on
    note: str = ""
    lower_is_better: bool = False
    disagreements: pd.DataFrame = field(default_factory=pd.DataFrame, repr=False)
    points: pd.DataFrame = field(default_factory=pd.DataFrame, repr=False)  # row, label, score: what was compared

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "scorer": self.scorer, "kind": self.kind, "statistic": self.statistic, "n": self.n,
            "value": _f(self.value), "ciLow": _f(self.ci[0]), "ciHigh": _f(self.ci[1]), "leftOut": self.left_out,
            "note": self.note,
        }  # fmt: skip
        if self.kind == "yes/no":
            out |= {"nYes": self.n_yes, "nNo": self.n_no, "threshold": _f(self.threshold), "confusion": self.confusion,
                    "bestThreshold": self.best}  # fmt: skip
        out["disagreements"] = [
            {k: (_f(v) if isinstance(v, float) else v) for k, v in r.items()}
            for r in self.disagreements.to_dict("records")
        ]
        return out


@dataclass(frozen=True)
class RaterAgreement:
    """People's agreement with each other on the rows two or more of them labelled, beside the scorer's."""

    raters: tuple[str, ...]
    n: int  # rows with two or more labels
    statistic: str  # "Cohen's kappa" or "Krippendorff's alpha (nominal|interval)"
    value: float | None
    ci: tuple[float | None, float | None]
    pairs: list[dict[str, object]]  # per pair of raters: raters, n, value (kappa or rho)
    scorer_with_raters: list[dict[str, object]]  # per scorer and rater: the scorer's kappa or rho with that rater

    def to_dict(self) -> dict[str, object]:
        return {"raters": list(self.raters), "n": self.n, "statistic": self.statistic, "value": _f(self.value),
                "ciLow": _f(self.ci[0]), "ciHigh": _f(self.ci[1]), "pairs": self.pairs,
                "scorerWithRaters": self.scorer_with_raters}  # fmt: skip


@dataclass(frozen=True)
class MeasureAgreement:
    """Everything about one labelled measure: its labels, each scorer's agreement, the raters' agreement."""

    measure: str
    kind: str
    labels: int  # labels given (all raters)
    rows: int  # rows with a consensus label
    raters: tuple[str, ...]
    ties: int  # yes/no rows whose raters split evenly (left out)
    scorers: list[ScorerAgreement]
    people: RaterAgreement | None

    def to_dict(self) -> dict[str, object]:
        return {"measure": self.measure, "kind": self.kind, "labels": self.labels, "rows": self.rows,
                "raters": [r or "(unnamed)" for r in self.raters], "ties": self.ties,
                "scorers": [s.to_dict() for s in self.scorers],
                "people": self.people.to_dict() if self.people else None}  # fmt: skip


# -- statistics -----------------------------------------------------------------------------------------


def auc(labels: np.ndarray, scores: np.ndarray) -> float:
    """ROC AUC of ``scores`` for binary ``labels`` (ties count half); NaN without both classes.

    >>> auc(np.array([1, 0, 1, 0]), np.array([0.9, 0.1, 0.5, 0.5]))
    0.875
    """
    y = np.asarray(labels, dtype=float)
    return float(_auc_rows(y[None, :], np.asarray(scores, dtype=float)[None, :])[0])


def _auc_rows(y: np.ndarray, s: np.ndarray) -> np.ndarray:
    """AUC of each row of (labels, scores) matrices, from ranks (Mann-Whitney U)."""
    ranks = rankdata(s, axis=1)
    n1 = y.sum(axis=1)
    n0 = y.shape[1] - n1
    with np.errstate(invalid="ignore", divide="ignore"):
        u = (ranks * y).sum(axis=1) - n1 * (n1 + 1) / 2
        return np.where((n1 > 0) & (n0 > 0), u / (n1 * n0), np.nan)


def _spearman_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    rx, ry = rankdata(x, axis=1), rankdata(y, axis=1)
    rx -= rx.mean(axis=1, keepdims=True)
    ry -= ry.mean(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray((rx * ry).sum(axis=1) / np.sqrt((rx**2).sum(axis=1) * (ry**2).sum(axis=1)))


def _kappa_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cohen's kappa of binary ratings, per row of two matrices."""
    po = (a == b).mean(axis=1)
    pa, pb = a.mean(axis=1), b.mean(axis=1)
    pe = pa * pb + (1 - pa) * (1 - pb)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(pe < 1, (po - pe) / (1 - pe), np.nan)


def _bootstrap(stat: object, arrays: Sequence[np.ndarray], seed: int = 0) -> tuple[float | None, float | None]:
    """Percentile 95% CI of ``stat`` (a function of row-stacked resamples) over AGREEMENT_RESAMPLES resamples."""
    n = arrays[0].size
    if n < 3:
        return None, None
    rng = np.random.default_rng(seed)
    values: list[np.ndarray] = []
    step = max(1, 400_000 // n)
    for start in range(0, AGREEMENT_RESAMPLES, step):
        picks = rng.integers(0, n, size=(min(step, AGREEMENT_RESAMPLES - start), n))
        values.append(stat(*[a[picks] for a in arrays]))  # type: ignore[operator]
    found = np.concatenate(values)
    found = found[np.isfinite(found)]
    if found.size < AGREEMENT_RESAMPLES // 2:  # most resamples undefined (one class): no honest interval
        return None, None
    low, high = np.percentile(found, [2.5, 97.5])
    return float(low), float(high)


def best_threshold(labels: np.ndarray, scores: np.ndarray) -> tuple[float, float, float, float]:
    """The score threshold (call "yes" at or above it) with the highest Youden's J; returns threshold, precision,
    recall and balanced accuracy. NaNs without both classes.

    >>> best_threshold(np.array([0, 0, 1, 1, 1]), np.array([0.1, 0.4, 0.35, 0.8, 0.6]))
    (0.6, 1.0, 0.6666666666666666, 0.8333333333333333)
    """
    y = np.asarray(labels, dtype=float)
    s = np.asarray(scores, dtype=float)
    n1 = y.sum()
    n0 = y.size - n1
    if n1 == 0 or n0 == 0:
        return (math.nan,) * 4
    order = np.argsort(-s, kind="stable")
    s_sorted, y_sorted = s[order], y[order]
    tp = np.cumsum(y_sorted)
    fp = np.cumsum(1 - y_sorted)
    last = np.r_[np.flatnonzero(np.diff(s_sorted) != 0), s.size - 1]  # the last row of each distinct score
    j = tp[last] / n1 - fp[last] / n0
    k = int(last[int(np.argmax(j))])
    precision = tp[k] / (tp[k] + fp[k])
    recall = tp[k] / n1
    balanced = (recall + 1 - fp[k] / n0) / 2
    return float(s_sorted[k]), float(precision), float(recall), float(balanced)


def _threshold_ci(y: np.ndarray, s: np.ndarray, seed: int = 0) -> tuple[float | None, float | None]:
    if y.size < 3:
        return None, None
    rng = np.random.default_rng(seed)
    found = []
    for _ in range(THRESHOLD_RESAMPLES):
        pick = rng.integers(0, y.size, size=y.size)
        found.append(best_threshold(y[pick], s[pick])[0])
    values = np.asarray(found)
    values = values[np.isfinite(values)]
    if values.size < THRESHOLD_RESAMPLES // 2:
        return None, None
    low, high = np.percentile(values, [2.5, 97.5])
    return float(low), float(high)


def krippendorff_alpha(units: Sequence[Sequence[float]], *, metric: str = "nominal") -> float:
    """Krippendorff's alpha of ``units`` (each the values people gave one row; rows with fewer than two are
    not pairable); ``metric`` nominal (categories) or interval (ratings). NaN when undefined.

    >>> round(krippendorff_alpha([[1, 1], [0, 0], [1, 0], [0, 0]]), 4)
    0.5333
    """
    if metric not in ("nominal", "interval"):
        raise InputError(f"metric must be 'nominal' or 'interval'; got {metric!r}.")
    pairable = [np.asarray(u, dtype=float) for u in units if len(u) >= 2]
    if not pairable:
        return math.nan
    values = np.concatenate(pairable)
    n = values.size
    observed = 0.0
    for u in pairable:
        if metric == "nominal":
            _, counts = np.unique(u, return_counts=True)
            within = u.size**2 - float((counts**2).sum())
        else:
            within = 2 * u.size * float((u**2).sum()) - 2 * float(u.sum()) ** 2
        observed += within / (u.size - 1)
    observed /= n
    if metric == "nominal":
        _, counts = np.unique(values, return_counts=True)
        expected = (n**2 - float((counts**2).sum())) / (n * (n - 1))
    else:
        expected = (2 * n * float((values**2).sum()) - 2 * float(values.sum()) ** 2) / (n * (n - 1))
    return math.nan if expected == 0 else 1 - observed / expected


# -- the report -----------------------------------------------------------------------------------------


def _calls_yes(scores: np.ndarray, threshold: float, lower_is_better: bool) -> np.ndarray:
    return scores > threshold if lower_is_better else scores >= threshold


def _percentile_rank(values: np.ndarray) -> np.ndarray:
    return np.asarray((rankdata(values) - 0.5) / values.size) if values.size else values


def agreement(
    rows: pd.DataFrame,
    labels: pd.DataFrame,
    *,
    thresholds: Mapping[str, float] | None = None,
    taught: Mapping[str, tuple[str, frozenset[str]]] | None = None,
    top: int = TOP_DISAGREEMENTS,
    measure: str | None = None,
    lower_is_better: Mapping[str, bool] | None = None,
) -> list[MeasureAgreement]:
    """Agreement per labelled measure, for a run's ``rows`` (:meth:`RunStore.rows`) and ``labels``
    (:func:`scoring.runs.labels.labels_frame`). ``thresholds`` are the scorers' current thresholds (the run's
    summary); ``taught`` maps a taught scorer's column to (its measure, the hashes of the replies it was taught
    on). ``measure`` keeps one measure. ``lower_is_better`` says which scorers are (default: the registry).
    """
    thresholds = thresholds or {}
    lower = {str(k): bool(v) for k, v in (lower_is_better or {}).items()}
    taught = taught or {}
    out: list[MeasureAgreement] = []
    for name, group in labels.groupby("measure", sort=False):
        if measure is not None and name != measure:
            continue
        out.append(_measure(str(name), group, rows, thresholds, taught, top, lower))
    return out


def _consensus(group: pd.DataFrame, kind: str) -> tuple[pd.Series, int]:
    means = group.groupby("row")["value"].mean()
    if kind != "yes/no":
        return means, 0
    ties = means[means == 0.5]
    return (means[means != 0.5] > 0.5).astype(float), len(ties)


def _measure(
    measure: str,
    group: pd.DataFrame,
    rows: pd.DataFrame,
    thresholds: Mapping[str, float],
    taught: Mapping[str, tuple[str, frozenset[str]]],
    top: int,
    lower: Mapping[str, bool],
) -> MeasureAgreement:
    from scoring.runs.labels import label_kind

    kind = label_kind(group["value"].to_numpy(float))
    consensus, ties = _consensus(group, kind)
    raters = tuple(sorted(group["rater"].unique()))
    scorer_ids = [measure] if measure in rows.columns else []
    scorer_ids += [c for c, (m, _) in taught.items() if m == measure and c in rows.columns and c != measure]
    lower = {s: lower.get(s, _lower(s)) for s in scorer_ids}
    scorers = [_scorer(s, kind, consensus, rows, thresholds, taught.get(s), top, lower[s]) for s in scorer_ids]
    people = _people(group, kind, rows, scorer_ids, thresholds, lower) if len(raters) > 1 else None
    return MeasureAgreement(measure, kind, len(group), len(consensus), raters, ties, scorers, people)


def _scorer(
    scorer_id: str,
    kind: str,
    consensus: pd.Series,
    rows: pd.DataFrame,
    thresholds: Mapping[str, float],
    trained: tuple[str, frozenset[str]] | None,
    top: int,
    lower: bool,
) -> ScorerAgreement:
    by_row = rows.set_index("row")
    frame = pd.DataFrame({"label": consensus})
    frame["score"] = pd.to_numeric(by_row[scorer_id], errors="coerce").reindex(frame.index)
    frame["output"] = by_row["output"].reindex(frame.index)
    frame["index"] = by_row["index"].reindex(frame.index)
    left_out = 0
    if trained is not None:
        seen = frame["output"].map(text_hash).isin(trained[1])
        left_out = int(seen.sum())
        frame = frame[~seen]
    unscored = int(frame["score"].isna().sum())
    frame = frame.dropna(subset=["score"])
    y, s = frame["label"].to_numpy(float), frame["score"].to_numpy(float)
    notes = [f"{unscored:,} labelled row(s) have no score (skipped or failed)"] if unscored else []
    if left_out:
        notes.append(f"{left_out:,} labelled row(s) left out: {scorer_id} was taught on them")
    if kind == "yes/no":
        value = auc(y, s)
        n_yes = int(y.sum())
        if n_yes in (0, y.size):
            notes.append("ROC AUC needs both yes and no labels" + (f"; all {y.size} are {'yes' if n_yes else 'no'}"
                                                                     if y.size else ""))  # fmt: skip
        ci = _bootstrap(_auc_rows, [y, s]) if math.isfinite(value) else (None, None)
        threshold = thresholds.get(scorer_id)
        confusion = None
        if threshold is not None and math.isfinite(threshold):
            called = _calls_yes(s, float(threshold), lower)
            confusion = {"tp": int((called & (y == 1)).sum()), "fp": int((called & (y == 0)).sum()),
                         "fn": int((~called & (y == 1)).sum()), "tn": int((~called & (y == 0)).sum())}  # fmt: skip
        cut, precision, recall, balanced = best_threshold(y, s)
        low, high = _threshold_ci(y, s) if math.isfinite(cut) else (None, None)
        best = {"threshold": _f(cut), "ciLow": low, "ciHigh": high, "precision": _f(precision), "recall": _f(recall),
                "balancedAccuracy": _f(balanced)}  # fmt: skip
        label_rank = y
        result = dict(statistic="ROC AUC", n_yes=n_yes, n_no=int(y.size - n_yes), threshold=threshold,
                      confusion=confusion, best=best)  # fmt: skip
    else:
        value = float(_spearman_rows(y[None, :], s[None, :])[0]) if y.size >= 3 else math.nan
        if y.size < 3:
            notes.append("Spearman's rho needs at least 3 labelled rows")
        ci = _bootstrap(_spearman_rows, [y, s]) if math.isfinite(value) else (None, None)
        label_rank = _percentile_rank(y)
        result = dict(statistic="Spearman rho")
    gap = np.abs(label_rank - _percentile_rank(s)) if s.size else np.array([])
    worst = frame.assign(disagreement=gap).sort_values("disagreement", ascending=False, kind="stable").head(top)
    if not math.isfinite(value):  # no statistic (one answer, too few rows): no ordering of disagreement either
        worst = worst.iloc[:0]
    worst = worst.reset_index()[["row", "index", "label", "score", "disagreement", "output"]]
    return ScorerAgreement(scorer_id, kind, n=int(y.size), value=_f(value), ci=ci, left_out=left_out,
                           note="; ".join(notes), disagreements=worst, lower_is_better=lower,
                           points=frame.reset_index()[["row", "label", "score"]], **result)  # type: ignore[arg-type]  # fmt: skip


def _people(
    group: pd.DataFrame,
    kind: str,
    rows: pd.DataFrame,
    scorer_ids: list[str],
    thresholds: Mapping[str, float],
    lower_map: Mapping[str, bool],
) -> RaterAgreement | None:
    wide = group.pivot_table(index="row", columns="rater", values="value", aggfunc="mean")
    shared = wide[wide.notna().sum(axis=1) >= 2]
    raters = tuple(str(r) for r in wide.columns)
    if shared.empty:
        return RaterAgreement(raters, 0, "", None, (None, None), [], [])
    units = [r.dropna().to_numpy(float) for _, r in shared.iterrows()]
    pairs: list[dict[str, object]] = []
    for a, b in combinations(raters, 2):
        both = wide[[a, b]].dropna()
        x, y = both[a].to_numpy(float), both[b].to_numpy(float)
        value = _pair_value(kind, x, y)
        pairs.append({"raters": [a or "(unnamed)", b or "(unnamed)"], "n": len(both), "value": _f(value)})
    if kind == "yes/no" and len(raters) == 2:
        both = wide.dropna()
        x, y = both[raters[0]].to_numpy(float), both[raters[1]].to_numpy(float)
        statistic, value = "Cohen's kappa", _pair_value(kind, x, y)
        ci = _bootstrap(_kappa_rows, [x, y]) if math.isfinite(value) else (None, None)
    else:
        metric = "nominal" if kind == "yes/no" else "interval"
        statistic, value = f"Krippendorff's alpha ({metric})", krippendorff_alpha(units, metric=metric)
        ci = _alpha_ci(units, metric)
    with_raters: list[dict[str, object]] = []
    by_row = rows.set_index("row")
    for scorer_id in scorer_ids:
        lower = lower_map[scorer_id]
        threshold = thresholds.get(scorer_id)
        for rater in raters:
            mine = wide[rater].dropna()
            scores = pd.to_numeric(by_row[scorer_id], errors="coerce").reindex(mine.index)
            keep = scores.notna()
            x, s = mine[keep].to_numpy(float), scores[keep].to_numpy(float)
            if kind == "yes/no":
                if threshold is None or not math.isfinite(threshold):
                    continue
                called = _calls_yes(s, float(threshold), lower).astype(float)
                found = _pair_value(kind, x, called)
            else:
                found = _pair_value(kind, x, s)
            with_raters.append({"scorer": scorer_id, "rater": rater or "(unnamed)", "n": int(x.size),
                                "value": _f(found)})  # fmt: skip
    return RaterAgreement(raters, len(shared), statistic, _f(value), ci, pairs, with_raters)


def _pair_value(kind: str, x: np.ndarray, y: np.ndarray) -> float:
    if x.size < 2:
        return math.nan
    if kind == "yes/no":
        return float(_kappa_rows(x[None, :], y[None, :])[0])
    return float(_spearman_rows(x[None, :], y[None, :])[0]) if x.size >= 3 else math.nan


def _alpha_resamples(pairable: list[np.ndarray], metric: str, picks: np.ndarray) -> np.ndarray:
    """Krippendorff's alpha of each resample of units (each row of ``picks`` lists units by position): each
    unit's share of the observed and expected disagreement is computed once, so a resample is a weighted sum."""
    m = np.array([u.size for u in pairable], dtype=float)
    if metric == "nominal":
        categories = np.unique(np.concatenate(pairable))
        counts = np.array([[np.count_nonzero(u == c) for c in categories] for u in pairable], dtype=float)
        within = m**2 - (counts**2).sum(axis=1)
    else:
        s1 = np.array([u.sum() for u in pairable])
        s2 = np.array([(u**2).sum() for u in pairable])
        within = 2 * m * s2 - 2 * s1**2
    contrib = within / (m - 1)
    w = np.stack([np.bincount(row, minlength=len(pairable)) for row in picks]).astype(float)
    n = w @ m
    observed = (w @ contrib) / n
    if metric == "nominal":
        expected = (n**2 - ((w @ counts) ** 2).sum(axis=1)) / (n * (n - 1))
    else:
        expected = (2 * n * (w @ s2) - 2 * (w @ s1) ** 2) / (n * (n - 1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(np.where(expected > 0, 1 - observed / expected, np.nan))


def _alpha_ci(units: list[np.ndarray], metric: str, seed: int = 0) -> tuple[float | None, float | None]:
    """Bootstrap 95% CI of Krippendorff's alpha over rows (1,000 resamples, 100 at a time)."""
    pairable = [u for u in units if u.size >= 2]
    if len(pairable) < 3:
        return None, None
    rng = np.random.default_rng(seed)
    found = [
        _alpha_resamples(pairable, metric, rng.integers(0, len(pairable), size=(min(100, THRESHOLD_RESAMPLES - start),
                                                                                 len(pairable))))
        for start in range(0, THRESHOLD_RESAMPLES, 100)
    ]  # fmt: skip
    values = np.concatenate(found)
    values = values[np.isfinite(values)]
    if values.size < THRESHOLD_RESAMPLES // 2:
        return None, None
    low, high = np.percentile(values, [2.5, 97.5])
    return float(low), float(high)


# -- for a terminal -------------------------------------------------------------------------------------


def _n(value: object, digits: int = 3) -> str:
    return "n/a" if value is None or (isinstance(value, float) and not math.isfinite(value)) else f"{value:.{digits}f}"


def _ci(ci: tuple[float | None, float | None] | Sequence[object]) -> str:
    low, high = ci[0], ci[1]
    return "95% CI n/a" if low is None or high is None else f"95% CI {_n(low)} to {_n(high)}"


def _short(text: object, width: int = 70) -> str:
    value = "" if text is None or (isinstance(text, float) and math.isnan(text)) else " ".join(str(text).split())
    return value if len(value) <= width else value[: width - 1] + "…"


def format_agreement(found: Sequence[MeasureAgreement], *, top: int = 5) -> str:
    """The agreement report as plain text (what ``python -m scoring runs agreement RUN`` prints)."""
    if not found:
        return "no labels yet: add them with evaluate FILE --label-column COL or runs label RUN --file labels.csv."
    lines: list[str] = []
    for m in found:
        info = find_scorer(m.measure)
        question = f" (yes = {info.higher_means})" if info is not None and m.kind == "yes/no" else ""
        raters = ", ".join(r or "(unnamed)" for r in m.raters)
        ties = f"; {m.ties:,} row(s) left out: the raters split evenly" if m.ties else ""
        lines.append(f"{m.measure}: {m.labels:,} {m.kind} label(s){question} on {m.rows:,} row(s) by {raters}{ties}")
        for s in m.scorers:
            lines.append(f"  {s.scorer}: {s.statistic} {_n(s.value)} ({_ci(s.ci)}), n={s.n:,}"
                         + (f" ({s.n_yes:,} yes, {s.n_no:,} no)" if s.kind == "yes/no" else ""))  # fmt: skip
            if s.note:
                lines.append(f"    note: {s.note}")
            if s.confusion is not None:
                c = s.confusion
                rule = ">" if s.lower_is_better else ">="
                lines.append(f"    at the current threshold (yes when score {rule} {s.threshold:g}):")
                lines.append(f"      {'':<12}{'people yes':>12}{'people no':>12}")
                lines.append(f"      {'scorer yes':<12}{c['tp']:>12,}{c['fp']:>12,}")
                lines.append(f"      {'scorer no':<12}{c['fn']:>12,}{c['tn']:>12,}")
            if s.best is not None and s.best.get("threshold") is not None and (s.best["balancedAccuracy"] or 0) <= 0.5:
                lines.append("    best-matching threshold: none; no threshold does better than calling every row "
                             "the same")  # fmt: skip
            elif s.best is not None and s.best.get("threshold") is not None:
                b = s.best
                lines.append(f"    best-matching threshold: yes when score >= {_n(b['threshold'], 4)} "
                             f"({_ci((b['ciLow'], b['ciHigh']))}): precision {_n(b['precision'])}, recall "
                             f"{_n(b['recall'])}, balanced accuracy {_n(b['balancedAccuracy'])} (fitted on these "
                             "labels)")  # fmt: skip
            if not s.disagreements.empty and top > 0:
                lines.append("    most disagreeing rows first:")
                for r in s.disagreements.head(top).to_dict("records"):
                    lines.append(f"      row {r['row']:>5}: label {r['label']:g}, score {r['score']:.4f}  "
                                 f"{_short(r['output'])}")  # fmt: skip
        if m.people is not None:
            p = m.people
            if p.n == 0:
                lines.append("  people: no row was labelled by two raters")
            else:
                lines.append(f"  people with each other: {p.statistic} {_n(p.value)} ({_ci(p.ci)}) on {p.n:,} "
                             "row(s) labelled by two or more: the ceiling for a scorer")  # fmt: skip
                what = "kappa at the current threshold" if m.kind == "yes/no" else "Spearman rho"
                for w in p.scorer_with_raters:
                    lines.append(f"    {w['scorer']} with {w['rater']}: {what} {_n(w['value'])} (n={w['n']:,})")
    return "\n".join(lines)


def _lower(scorer_id: str) -> bool:
    info = find_scorer(scorer_id)
    return info is not None and info.lower_is_better


def chart_points(found: MeasureAgreement) -> pd.DataFrame:
    """The labelled rows each scorer of ``found`` was compared on: scorer, row, label, score (for the chart)."""
    frames = [s.points.assign(scorer=s.scorer) for s in found.scorers if not s.points.empty]
    if not frames:
        return pd.DataFrame(columns=["scorer", "row", "label", "score"])
    return pd.concat(frames, ignore_index=True)[["scorer", "row", "label", "score"]]


def agreement_html(found: Sequence[MeasureAgreement], *, top: int = 10) -> str:
    """The agreement report as an HTML fragment (for the run's HTML report): text escaped, numbers as printed."""
    import html

    if not found:
        return "<p>No labels yet.</p>"
    text = format_agreement(found, top=top)
    return f'<pre class="agreement">{html.escape(text)}</pre>'
