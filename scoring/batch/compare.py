"""A/B comparison of scores: group means with bootstrap CIs, an effect size, a permutation test, a verdict.

Rows are *paired* when both groups answered the same inputs (the pairing column is unique within each
group and most rows find their partner); then the test is a paired sign-flip permutation test on the
per-input differences and the effect size is ``d_z`` (mean difference / SD of the differences).
Otherwise the test permutes the group labels (difference in means) and the effect size is Cliff's delta.
Rows whose score is missing (skipped or failed) take no part. Everything is seeded, so a comparison
is reproducible.

>>> import pandas as pd
>>> df = pd.DataFrame({"g": ["A"] * 3 + ["B"] * 3, "s": [0.1, 0.2, 0.3, 0.6, 0.7, 0.8]})
>>> c = compare_groups(df, score="s", group="g")
>>> round(c.difference, 2), c.paired, c.effect_size
(0.5, False, 1.0)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats

from scoring.errors import InputError
from scoring.registry import find_measure, find_scorer

__all__ = [
    "MIN_ROWS",
    "Comparison",
    "GroupStat",
    "bootstrap_mean_ci",
    "cliffs_delta",
    "compare_groups",
    "comparisons_frame",
    "group_summary",
    "stack_files",
]

MIN_ROWS = 10  # below this many rows (or pairs) per group a comparison is flagged as too small to tell
#: Resampled values held in memory at once (bootstrap and permutation batches; ~16 MB of floats): a 100k-row
#: comparison stays flat instead of needing 2,000 (or 9,999) copies of its rows. The draws, and so every
#: number, are the same as in one batch.
RESAMPLE_CELLS = 2_000_000
PAIRED_SHARE = 0.8  # pair when at least this share of each group's rows has a partner


@dataclass(frozen=True, slots=True)
class GroupStat:
    """One group's scores: how many, their mean and its bootstrap CI."""

    name: str
    n: int
    mean: float
    ci_low: float
    ci_high: float


@dataclass(frozen=True, slots=True)
class Comparison:
    """B against A on one score column; ``difference`` is B minus A."""

    score: str
    a: GroupStat
    b: GroupStat
    paired: bool
    n_pairs: int
    difference: float
    diff_ci: tuple[float, float]
    test: str
    p_value: float
    effect_name: str
    effect_size: float
    verdict: str
    warnings: tuple[str, ...] = field(default=())

    @property
    def significant(self) -> bool:
        """Whether p < 0.05 (False when no test could run)."""
        return not math.isnan(self.p_value) and self.p_value < 0.05

    def to_dict(self) -> dict[str, object]:
        """Return the comparison as plain data (camelCase keys, as the rest of the package)."""
        return {
            "score": self.score,
            "groupA": self.a.name,
            "nA": self.a.n,
            "meanA": self.a.mean,
            "ciA": [self.a.ci_low, self.a.ci_high],
            "groupB": self.b.name,
            "nB": self.b.n,
            "meanB": self.b.mean,
            "ciB": [self.b.ci_low, self.b.ci_high],
            "paired": self.paired,
            "nPairs": self.n_pairs,
            "difference": self.difference,
            "differenceCi": list(self.diff_ci),
            "test": self.test,
            "pValue": self.p_value,
            "effectName": self.effect_name,
            "effectSize": self.effect_size,
            "verdict": self.verdict,
            "warnings": list(self.warnings),
        }


def bootstrap_mean_ci(
    values: Sequence[float] | np.ndarray, *, confidence: float = 0.95, n_resamples: int = 2000, seed: int = 0
) -> tuple[float, float]:
    """Return the percentile bootstrap CI of the mean of ``values`` (NaN, NaN for fewer than 2 values).

    >>> bootstrap_mean_ci([0.5, 0.5, 0.5])
    (0.5, 0.5)
    """
    if not 0 < confidence < 1:
        raise InputError(f"confidence must be between 0 and 1; got {confidence!r}.")
    x = np.asarray(values, dtype=float)
    if x.size < 2:
        return (math.nan, math.nan)
    rng = np.random.default_rng(seed)
    step = max(1, RESAMPLE_CELLS // x.size)
    means = np.concatenate([
        x[rng.integers(0, x.size, size=(min(step, n_resamples - start), x.size))].mean(axis=1)
        for start in range(0, n_resamples, step)
    ])  # fmt: skip
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail])
    return (float(low), float(high))


def cliffs_delta(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray) -> float:
    """Return Cliff's delta, P(b > a) - P(b < a), in [-1, 1]; positive when B tends to score higher.

    >>> cliffs_delta([1, 2], [3, 4])
    1.0
    """
    x, y = np.sort(np.asarray(a, dtype=float)), np.asarray(b, dtype=float)
    if x.size == 0 or y.size == 0:
        return math.nan
    below = np.searchsorted(x, y, side="left")  # a-values below each b
    above = x.size - np.searchsorted(x, y, side="right")  # a-values above each b
    return float((below.sum() - above.sum()) / (x.size * y.size))


def _group_stat(name: str, values: np.ndarray, seed: int) -> GroupStat:
    low, high = bootstrap_mean_ci(values, seed=seed)
    return GroupStat(name, int(values.size), float(values.mean()) if values.size else math.nan, low, high)


def _pairs(df: pd.DataFrame, score: str, group: str, a: str, b: str, pair_on: str | None) -> pd.DataFrame | None:
    """Return rows matched on ``pair_on`` (columns A, B), or None when the groups are not paired."""
    if pair_on is None or pair_on not in df.columns:
        return None
    sides = [df.loc[df[group] == name, [pair_on, score]].dropna() for name in (a, b)]
    if any(side.empty or side[pair_on].duplicated().any() for side in sides):
        return None
    merged = sides[0].merge(sides[1], on=pair_on, suffixes=("_a", "_b"))
    if len(merged) < PAIRED_SHARE * max(len(sides[0]), len(sides[1])):
        return None
    return pd.DataFrame({"A": merged[f"{score}_a"].to_numpy(float), "B": merged[f"{score}_b"].to_numpy(float)})


def _mean_diff(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.mean(y, axis=axis) - np.mean(x, axis=axis)  # type: ignore[no-any-return]


def _paired_test(pairs: pd.DataFrame, seed: int) -> tuple[float, tuple[float, float], float, float]:
    diffs = pairs["B"].to_numpy() - pairs["A"].to_numpy()
    ci = bootstrap_mean_ci(diffs, seed=seed)
    sd = float(diffs.std(ddof=1)) if diffs.size > 1 else math.nan
    d_z = float(diffs.mean() / sd) if sd > 0 else (0.0 if diffs.size > 1 and not diffs.any() else math.nan)
    p = math.nan
    if diffs.size >= 2:
        if not diffs.any():
            p = 1.0
        else:
            res = stats.permutation_test(
                (pairs["A"].to_numpy(), pairs["B"].to_numpy()),
                _mean_diff,
                permutation_type="samples",
                vectorized=True,
                n_resamples=9999,
                batch=max(1, RESAMPLE_CELLS // diffs.size),
                rng=np.random.default_rng(seed),
            )
            p = float(res.pvalue)
    return float(diffs.mean()), ci, d_z, p


def _unpaired_test(x: np.ndarray, y: np.ndarray, seed: int) -> tuple[float, tuple[float, float], float, float]:
    if x.size == 0 or y.size == 0:
        return math.nan, (math.nan, math.nan), math.nan, math.nan
    rng = np.random.default_rng(seed)
    boot = [
        float(y[rng.integers(0, y.size, y.size)].mean() - x[rng.integers(0, x.size, x.size)].mean())
        for _ in range(2000)
    ]
    ci = (float(np.percentile(boot, 2.5)), float(np.percentile(boot, 97.5)))
    p = math.nan
    if x.size >= 2 and y.size >= 2:
        res = stats.permutation_test(
            (x, y),
            _mean_diff,
            permutation_type="independent",
            vectorized=True,
            n_resamples=9999,
            rng=rng,
            batch=max(1, RESAMPLE_CELLS // (x.size + y.size)),
        )
        p = float(res.pvalue)
    return float(y.mean() - x.mean()), ci, cliffs_delta(x, y), p


def _verdict(score: str, a: str, b: str, diff: float, ci: tuple[float, float], p: float, small: bool) -> str:
    info = find_scorer(score) or find_measure(score)
    label = info.higher_means if info is not None else f"higher on {score}"
    lower = info.lower_means if info is not None else ""  # said of B when B is lower ("B is curter than A")
    numbers = f"{diff:+.3f} (95% CI {ci[0]:+.3f} to {ci[1]:+.3f}), p={p:.3g}"
    if math.isnan(p):
        return f"Not enough rows to compare {a} and {b} on {score}."
    if p < 0.05 and diff < 0 and lower:
        text = f"{b} is {lower} than {a}: {b} minus {a} = {numbers}."
    elif p < 0.05:
        leader, other = (b, a) if diff > 0 else (a, b)
        shown = numbers if diff > 0 else f"{-diff:+.3f} (95% CI {-ci[1]:+.3f} to {-ci[0]:+.3f}), p={p:.3g}"
        text = f"{leader} is {label} than {other}: {shown}."
    else:
        text = f"No clear difference between {a} and {b} on {score}: {b} minus {a} = {numbers}."
    return text + (" The sample is too small to tell reliably." if small else "")


def compare_groups(
    df: pd.DataFrame,
    *,
    score: str,
    group: str,
    a: str | None = None,
    b: str | None = None,
    pair_on: str | None = None,
    seed: int = 0,
) -> Comparison:
    """Compare group ``b`` against group ``a`` on column ``score`` (the first two groups when not named)."""
    for name, col in (("score", score), ("group", group)):
        if col not in df.columns:
            raise InputError(f"{name} column {col!r} is not in the table; found {list(df.columns)}.")
    names = [str(g) for g in pd.unique(df[group].dropna())]
    a, b = a if a is not None else (names[0] if names else None), b if b is not None else next(iter(names[1:]), None)
    if a is None or b is None or a == b or a not in names or b not in names:
        raise InputError(f"group {group!r} must hold two distinct groups to compare; got {names} (a={a!r}, b={b!r}).")
    x = pd.to_numeric(df.loc[df[group].astype(str) == a, score], errors="coerce").dropna().to_numpy(float)
    y = pd.to_numeric(df.loc[df[group].astype(str) == b, score], errors="coerce").dropna().to_numpy(float)
    keyed = df.assign(**{group: df[group].astype(str), score: pd.to_numeric(df[score], errors="coerce")})
    pairs = _pairs(keyed, score, group, a, b, pair_on)
    if pairs is not None:
        diff, ci, effect, p = _paired_test(pairs, seed)
        n_pairs, test, effect_name = len(pairs), "paired permutation (sign-flip) on the mean difference", "d_z"
    else:
        diff, ci, effect, p = _unpaired_test(x, y, seed)
        n_pairs, test, effect_name = 0, "permutation test on the difference in means", "Cliff's delta"
    warnings = _warnings(x.size, y.size, pairs, pair_on)
    small = any(w.startswith("too few") for w in warnings)
    return Comparison(
        score, _group_stat(a, x, seed), _group_stat(b, y, seed), pairs is not None, n_pairs, diff, ci, test, p,
        effect_name, effect, _verdict(score, a, b, diff, ci, p, small), tuple(warnings),
    )  # fmt: skip


def _warnings(n_a: int, n_b: int, pairs: pd.DataFrame | None, pair_on: str | None) -> list[str]:
    out = []
    n = len(pairs) if pairs is not None else min(n_a, n_b)
    if n < MIN_ROWS:
        unit = "pairs" if pairs is not None else "rows in the smaller group"
        out.append(f"too few {unit} ({n} < {MIN_ROWS}) to tell a difference reliably.")
    if pairs is None and pair_on is not None:
        out.append(f"rows could not be paired on {pair_on!r} (not unique per group or too few matches): unpaired test.")
    if pairs is not None and (unmatched := n_a + n_b - 2 * len(pairs)):
        out.append(f"{unmatched} row(s) without a partner in the other group were left out of the paired test.")
    return out


def comparisons_frame(comparisons: Sequence[Comparison]) -> pd.DataFrame:
    """Return one row per comparison, for a table or an export."""
    rows = [{k: v for k, v in c.to_dict().items() if k not in ("ciA", "ciB", "differenceCi")} for c in comparisons]
    return pd.DataFrame(rows)


def group_summary(df: pd.DataFrame, scores: Sequence[str], group: str, *, seed: int = 0) -> pd.DataFrame:
    """Return per group and score column: n, mean and bootstrap 95% CI (columns group, score, n, mean, ...)."""
    rows = []
    for name, part in df.groupby(group, sort=False):
        for score in scores:
            values = pd.to_numeric(part[score], errors="coerce").dropna().to_numpy(float)
            stat = _group_stat(str(name), values, seed)
            rows.append({"group": stat.name, "score": score, "n": stat.n, "mean": stat.mean,
                         "ci_low": stat.ci_low, "ci_high": stat.ci_high})  # fmt: skip
    return pd.DataFrame(rows, columns=["group", "score", "n", "mean", "ci_low", "ci_high"])


def stack_files(
    first: pd.DataFrame, second: pd.DataFrame, names: tuple[str, str], *, column: str = "source"
) -> pd.DataFrame:
    """Stack two files' rows into one table with a ``column`` naming the file each row came from."""
    if names[0] == names[1]:
        names = (f"A: {names[0]}", f"B: {names[1]}")
    while column in first.columns or column in second.columns:
        column = f"_{column}"
    parts = [frame.assign(**{column: name}) for frame, name in zip((first, second), names, strict=True)]
    return pd.concat(parts, ignore_index=True)
