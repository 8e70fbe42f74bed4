"""A/B comparison of scores: group means, one permutation test with the interval it implies, an effect size, a verdict.

Rows are *paired* when both groups answered the same inputs (the pairing column is unique within each
group and most rows find their partner); then the test is a paired sign-flip permutation test on the
per-input differences and the effect size is ``d_z`` (mean difference / SD of the differences).
Otherwise the test permutes the group labels (difference in means) and the effect size is Cliff's delta.
The 95% interval of the difference is the set of differences that same test does not reject (the test
inverted, on the same resamples), so the verdict, the p-value and the interval always agree: the
difference is significant (p < 0.05) exactly when 0 is outside the interval. Every difference is B minus
A (candidate minus baseline), and the verdict says how many pairs (or rows) it used and the two means it
is made of. Rows whose score is missing (skipped or failed) take no part, nor do rows whose score measured
nothing (a tone score "not measured": see :func:`scoring.batch.result.unmeasured_mask`; the table's warnings
column of that scorer says so); the verdict counts them. Everything is seeded, so a comparison is reproducible.

>>> import pandas as pd
>>> df = pd.DataFrame({"g": ["A"] * 3 + ["B"] * 3, "s": [0.1, 0.2, 0.3, 0.6, 0.7, 0.8]})
>>> c = compare_groups(df, score="s", group="g")
>>> round(c.difference, 2), c.paired, c.effect_size
(0.5, False, 1.0)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from scoring.batch.result import unmeasured_mask
from scoring.errors import InputError
from scoring.registry import find_measure, find_scorer

__all__ = [
    "ALPHA",
    "COLUMN_LABELS",
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
ALPHA = 0.05  # a difference is significant when p < ALPHA, i.e. when 0 is outside the (1 - ALPHA) interval
N_RESAMPLES = 9999  # random sign flips or permutations (plus the observed arrangement itself)
EXACT_PAIRS = 13  # up to this many pairs the sign-flip test enumerates all 2**n flips (8,192) instead


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
    """B against A on one score column; ``difference`` is B minus A.

    ``means`` are the two means the difference is made of: over the ``n_pairs`` pairs when paired (rows
    without a partner left out), else the two groups' means. ``diff_ci`` is the 95% interval of B minus A
    from the same test as ``p_value`` (infinite when too few pairs can ever reach p < 0.05).
    """

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
    means: tuple[float, float] = (math.nan, math.nan)
    #: rows of A and B whose score measured nothing (tone's "not measured"), left out of the means and the test
    unmeasured: int = 0

    @property
    def decided(self) -> bool:
        """Whether the test could tell anything: a p-value and a finite interval (else too few rows or pairs)."""
        return not math.isnan(self.p_value) and all(math.isfinite(v) for v in self.diff_ci)

    def detail(self) -> str:
        """The line under the verdict: the test, the effect size and each side's mean over all its scored rows;
        for a measure (warmth), what it is."""
        rows = "measured rows" if self.unmeasured else "scored rows"
        over = f"all {rows}, pairs or not" if self.paired else f"all {rows}"
        a, b = self.a, self.b
        measure = find_measure(self.score)
        what = f" · {measure.label}: {measure.about}" if measure is not None else ""
        return (f"{self.test} · effect size {self.effect_name} = {self.effect_size:+.2f} · means over {over}: "
                f"{a.name} {a.mean:.3f} (n={a.n}), {b.name} {b.mean:.3f} (n={b.n}){what}")  # fmt: skip

    @property
    def significant(self) -> bool:
        """Whether p < 0.05, i.e. 0 is outside ``diff_ci`` (False when no test could run)."""
        return not math.isnan(self.p_value) and self.p_value < ALPHA

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
            "meanAcompared": self.means[0],
            "meanBcompared": self.means[1],
            "difference": self.difference,
            "differenceCi": list(self.diff_ci),
            "test": self.test,
            "pValue": self.p_value,
            "effectName": self.effect_name,
            "effectSize": self.effect_size,
            "verdict": self.verdict,
            "warnings": list(self.warnings),
            "unmeasured": self.unmeasured,
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


@dataclass(frozen=True, slots=True)
class _Inverted:
    """One permutation test of "no difference" and the interval of shifts it does not reject (same resamples)."""

    difference: float
    ci: tuple[float, float]
    p: float


def _invert(m: float, e: np.ndarray, b: np.ndarray, *, exact: bool, scale: float) -> _Inverted:
    """Return the p-value of "difference 0" and the 95% interval of differences the same test does not reject.

    The test statistic for a hypothesised difference ``delta`` is ``m - delta``; resample ``i`` (a sign flip or a
    relabelling) gives ``e[i] - (delta - m) * b[i]``, where ``e[i]`` is its statistic at ``delta = m`` and
    ``|b[i]| <= 1`` how much of the shift it carries. A resample counts against ``delta`` when its statistic is
    at least as far from 0 as the observed one. Because ``|b[i]| <= 1`` that holds, on each side of ``m``, up to
    a distance ``u[i]`` from ``m`` and never beyond, so the p-value falls step by step away from ``m`` and the
    differences with ``p >= ALPHA`` form one interval whose ends are order statistics of ``u``. ``p(0)`` is read
    from the same ``u``, so 0 lies in the interval exactly when ``p >= ALPHA``: the verdict, the p-value and
    the interval cannot disagree.
    """
    tol = 1e-10 * max(1.0, scale)  # float noise in ties (e.g. 0/1 toxicity scores) counts as a tie
    whole = np.abs(b) >= 1.0  # the observed arrangement and its mirror: as extreme as observed at any delta
    ae = np.abs(e)
    with np.errstate(divide="ignore", invalid="ignore"):
        up = np.where(whole, np.inf, np.where(ae > 0, ae / (1.0 + np.sign(e) * b), 0.0))
        down = np.where(whole, np.inf, np.where(ae > 0, ae / (1.0 - np.sign(e) * b), 0.0))
    total = e.size if exact else e.size + 1  # Monte Carlo counts the observed arrangement once more
    extra = 0 if exact else 1
    # p(delta) >= ALPHA  <=>  (extra + count) >= ALPHA * total  <=>  count >= need
    need = max(0, math.ceil(ALPHA * total - 1e-9) - extra)
    side = down if m > 0 else up  # 0 lies below m when m > 0
    count = int(np.count_nonzero(side >= abs(m) - tol)) if m != 0 else e.size
    p = min(1.0, (extra + count) / total)

    def reach(u: np.ndarray) -> float:
        if need == 0:
            return math.inf
        return float(np.partition(u, u.size - need)[u.size - need]) + tol  # the need-th largest

    return _Inverted(m, (m - reach(down), m + reach(up)), p)


def _sign_flip(diffs: np.ndarray, seed: int) -> _Inverted:
    """The paired sign-flip test of "mean difference 0" and its inverted interval (``diffs`` are B - A)."""
    m = float(diffs.mean())
    centred = diffs - m
    n = diffs.size
    if n <= EXACT_PAIRS:
        signs = 1.0 - 2.0 * ((np.arange(2**n)[:, None] >> np.arange(n)) & 1)  # every flip, the observed first
        return _invert(
            m, (signs * centred).mean(axis=1), signs.mean(axis=1), exact=True, scale=float(np.abs(diffs).max())
        )
    rng = np.random.default_rng(seed)
    step = max(1, RESAMPLE_CELLS // n)
    e, b = [], []
    for start in range(0, N_RESAMPLES, step):
        signs = np.where(rng.random((min(step, N_RESAMPLES - start), n)) < 0.5, -1.0, 1.0)
        e.append((signs * centred).mean(axis=1))  # row by row: the same sums whatever the batch
        b.append(signs.mean(axis=1))
    return _invert(m, np.concatenate(e), np.concatenate(b), exact=False, scale=float(np.abs(diffs).max()))


def _relabel(x: np.ndarray, y: np.ndarray, seed: int) -> _Inverted:
    """The permutation test of "difference in means 0" (groups relabelled) and its inverted interval."""
    m = float(y.mean() - x.mean())
    pooled = np.concatenate([x, y - m])  # B shifted by m: the arrangement where the hypothesis holds exactly
    n_a, n_b = x.size, y.size
    rng = np.random.default_rng(seed)
    step = max(1, RESAMPLE_CELLS // pooled.size)
    e, b = [], []
    for start in range(0, N_RESAMPLES, step):
        order = rng.permuted(np.tile(np.arange(pooled.size), (min(step, N_RESAMPLES - start), 1)), axis=1)
        values = pooled[order]
        e.append(values[:, n_a:].mean(axis=1) - values[:, :n_a].mean(axis=1))
        from_b = np.count_nonzero(order[:, n_a:] >= n_a, axis=1)  # B's rows relabelled B: they carry the shift
        b.append(from_b / n_b - (n_b - from_b) / n_a)
    scale = float(max(np.abs(x).max(), np.abs(y).max()))
    return _invert(m, np.concatenate(e), np.concatenate(b), exact=False, scale=scale)


def _verdict(c: Comparison, small: bool) -> str:
    """The headline: who leads, then B minus A over the pairs used, as its two means, with its interval and p."""
    info = find_scorer(c.score) or find_measure(c.score)
    on = info.label.lower() if info is not None else c.score
    lower = info.lower_means if info is not None else ""  # said of B when B is lower ("B is curter than A")
    a, b, diff, (low, high), p = c.a.name, c.b.name, c.difference, c.diff_ci, c.p_value
    used = f"over {c.n_pairs:,} pairs" if c.paired else f"unpaired, over {c.b.n:,} and {c.a.n:,} rows"
    n, one = c.unmeasured, c.unmeasured == 1
    left_out = f" {n:,} {'row' if one else 'rows'} whose {on} was not measured {'was' if one else 'were'} left out."
    left_out = left_out if n else ""
    if math.isnan(p):
        return f"Not enough rows to compare {a} and {b} on {on} ({used}).{left_out}"
    made_of = f"{b} minus {a} {used} = {c.means[1]:.3f} - {c.means[0]:.3f}"
    if not c.decided:
        return (f"Too few {'pairs' if c.paired else 'rows'} to tell {a} and {b} apart on {on}: no difference could "
                f"reach p < 0.05 ({made_of} = {diff:+.3f}, p={p:.3g}).{left_out}")  # fmt: skip
    numbers = f"{made_of} = {diff:+.3f} (95% CI {low:+.3f} to {high:+.3f}), p={p:.3g}"
    if c.significant and diff < 0 and lower:
        text = f"{b} is {lower} than {a}: {numbers}."
    elif c.significant:
        label = info.higher_means if info is not None else f"higher on {c.score}"
        leader, other = (b, a) if diff > 0 else (a, b)
        text = f"{leader} is {label} than {other}: {numbers}."
    else:
        text = f"No clear difference between {a} and {b} on {on}: {numbers}."
    return text + left_out + (" The sample is too small to tell reliably." if small else "")


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
    values, left_out = _measured(df, score)
    unmeasured = int((left_out & df[group].astype(str).isin([a, b]).to_numpy()).sum())
    df = df.assign(**{score: values})
    x = pd.to_numeric(df.loc[df[group].astype(str) == a, score], errors="coerce").dropna().to_numpy(float)
    y = pd.to_numeric(df.loc[df[group].astype(str) == b, score], errors="coerce").dropna().to_numpy(float)
    keyed = df.assign(**{group: df[group].astype(str), score: pd.to_numeric(df[score], errors="coerce")})
    pairs = _pairs(keyed, score, group, a, b, pair_on)
    nan2 = (math.nan, math.nan)
    if pairs is not None:
        pa, pb = pairs["A"].to_numpy(), pairs["B"].to_numpy()
        diffs = pb - pa
        tested = _sign_flip(diffs, seed) if diffs.size >= 2 else _Inverted(float(diffs.mean()), nan2, math.nan)
        sd = float(diffs.std(ddof=1)) if diffs.size > 1 else math.nan
        effect = float(diffs.mean() / sd) if sd > 0 else (0.0 if diffs.size > 1 and not diffs.any() else math.nan)
        means = (float(pa.mean()), float(pb.mean()))
        n_pairs, test, effect_name = len(pairs), "paired permutation (sign-flip) on the mean difference", "d_z"
    else:
        if x.size >= 2 and y.size >= 2:
            tested = _relabel(x, y, seed)
        else:
            tested = _Inverted(float(y.mean() - x.mean()) if x.size and y.size else math.nan, nan2, math.nan)
        effect = cliffs_delta(x, y)
        means = (float(x.mean()) if x.size else math.nan, float(y.mean()) if y.size else math.nan)
        n_pairs, test, effect_name = 0, "permutation test on the difference in means", "Cliff's delta"
    warnings = _warnings(x.size, y.size, pairs, pair_on)
    measure = find_measure(score)
    if measure is not None and measure.name == score:  # warmth read one way in A and another in B (or both in one)
        frames = [df[df[group].astype(str) == g] for g in (a, b)]
        if note := measure.reading_note(frames, (a, b), noun="groups"):
            warnings.append(note[0].lower() + note[1:])
    small = any(w.startswith("too few") for w in warnings)
    found = Comparison(
        score, _group_stat(a, x, seed), _group_stat(b, y, seed), pairs is not None, n_pairs, tested.difference,
        tested.ci, test, tested.p, effect_name, effect, "", tuple(warnings), means, unmeasured,
    )  # fmt: skip
    return replace(found, verdict=_verdict(found, small))


def _measured(df: pd.DataFrame, score: str) -> tuple[pd.Series, np.ndarray]:
    """The column ``score`` as numbers without the scores that measured nothing (tone's "not measured", NaN
    instead), and the mask of the scored rows so left out."""
    values = pd.to_numeric(df[score], errors="coerce")
    if find_scorer(score) is None:  # a measure or another column: every score counts
        return values, np.zeros(len(df), dtype=bool)
    left_out = unmeasured_mask(df, score) & values.notna().to_numpy()
    return values.where(~left_out), left_out


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


#: The comparison table's columns as a person reads them (the keys of :meth:`Comparison.to_dict`).
COLUMN_LABELS = {
    "score": "Score", "groupA": "A", "nA": "A: scored rows", "meanA": "A: mean of all rows", "groupB": "B",
    "nB": "B: scored rows", "meanB": "B: mean of all rows", "paired": "Paired", "nPairs": "Pairs",
    "meanAcompared": "A: mean compared", "meanBcompared": "B: mean compared", "difference": "B − A",
    "differenceLow": "B − A: 95% CI low", "differenceHigh": "B − A: 95% CI high", "test": "Test", "pValue": "p",
    "effectName": "Effect size", "effectSize": "Effect", "verdict": "Verdict", "warnings": "Warnings",
    "unmeasured": "Rows not measured (left out)",
}  # fmt: skip


def comparisons_frame(comparisons: Sequence[Comparison], *, labels: bool = False) -> pd.DataFrame:
    """Return one row per comparison, for a table or an export (``labels``: columns and scores named for people)."""
    rows = []
    for c in comparisons:
        row = {k: v for k, v in c.to_dict().items() if k not in ("ciA", "ciB", "differenceCi")}
        low, high = c.diff_ci
        row = {**row, "differenceLow": low, "differenceHigh": high}
        if labels:
            info = find_scorer(c.score) or find_measure(c.score)
            row["score"] = info.label if info is not None else c.score
            row["warnings"] = " ".join(c.warnings)
        rows.append(row)
    frame = pd.DataFrame(rows)
    return frame.rename(columns=COLUMN_LABELS) if labels else frame


def group_summary(df: pd.DataFrame, scores: Sequence[str], group: str, *, seed: int = 0) -> pd.DataFrame:
    """Return per group and score column: n, mean and bootstrap 95% CI (columns group, score, n, mean, ...).

    As :func:`compare_groups`, scores that measured nothing (tone's "not measured") take no part.
    """
    rows = []
    for name, part in df.groupby(group, sort=False):
        for score in scores:
            values = _measured(part, score)[0].dropna().to_numpy(float)
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
