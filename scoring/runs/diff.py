"""Compare two runs: per scorer, the A/B statistics of :mod:`scoring.batch.compare` with a regression verdict;
per row, the score deltas with the worst regressions first.

Both sides are run-shaped tables (:func:`scoring.runs.rows_frame`, :meth:`scoring.runs.RunStore.rows`).
Rows are paired on their input text when both runs answered the same inputs (each input once per run and
at least 80% matched, as the A/B comparison requires); otherwise the test is unpaired and the row
deltas match rows by number. A scorer *regressed* when the candidate is significantly worse (p < 0.05),
where worse means lower, or higher for a lower-is-better scorer (toxicity). Beside the scores, the measures
of :data:`scoring.registry.MEASURES` (warmth: the reply's own sentiment, with or without a reference) are
compared the same way, under their names, when both runs have values for them
(:meth:`scoring.registry.Measure.values`, which also reads runs saved before a measure read more columns).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from scoring.batch.compare import MIN_ROWS, Comparison, compare_groups
from scoring.batch.result import warnings_column
from scoring.errors import InputError
from scoring.registry import MEASURES, SCORER_INFO, find_measure, registered_scorers, scorer_info

__all__ = [
    "RunComparison",
    "ScorerVerdict",
    "compare_runs",
    "item_deltas",
    "measures_of",
    "paired_on_input",
    "scorers_of",
]

PAIRED_SHARE = 0.8
_STATUS_WORD = {"worse": "REGRESSION", "better": "improved", "same": "no significant change",
                "undecided": "not enough rows"}  # fmt: skip


@dataclass(frozen=True, slots=True)
class ScorerVerdict:
    """One scorer, candidate against baseline: the comparison and which way it went."""

    scorer: str
    comparison: Comparison
    lower_is_better: bool

    @property
    def status(self) -> str:
        """``worse``, ``better``, ``same`` (no significant difference) or ``undecided`` (too few rows to test)."""
        c = self.comparison
        if not c.decided:
            return "undecided"
        if not c.significant or c.difference == 0:
            return "same"
        return "worse" if (c.difference > 0) == self.lower_is_better else "better"

    @property
    def regressed(self) -> bool:
        """Whether the candidate is significantly worse on this scorer."""
        return self.status == "worse"

    def line(self) -> str:
        """One line for a terminal: the status, the scorer and the comparison's verdict (with its means)."""
        c = self.comparison
        better = "lower is better" if self.lower_is_better else "higher is better"
        empty = " (no scores on one side)" if not c.a.n or not c.b.n else ""
        return f"{_STATUS_WORD[self.status]}: {self.scorer} ({better}){empty}. {c.verdict}"


@dataclass(frozen=True, slots=True)
class RunComparison:
    """The candidate run against the baseline, scorer by scorer."""

    baseline: str
    candidate: str
    verdicts: tuple[ScorerVerdict, ...]
    missing: tuple[str, ...] = ()  # scorers only one of the runs has

    def cannot_tell(self, *, min_rows: int = MIN_ROWS, only: Collection[str] | None = None) -> list[str]:
        """Why this comparison cannot show "no regression" (empty when it can), one reason per scorer.

        A gate passes only on evidence: every scorer in both runs, scored on both sides, on at least
        ``min_rows`` pairs (or rows in the smaller run when unpaired), with a test able to reach p < 0.05.
        ``only``: the gated scorers and measures (``--gate``); None: all of them.
        """
        reasons = [f"{s} is in only one of the runs" for s in self.missing if only is None or s in only]
        if not self.verdicts and not self.missing:
            reasons.append("the runs have no scorer in common")
        for v in self.verdicts:
            if only is not None and v.scorer not in only:
                continue
            c = v.comparison
            used = c.n_pairs if c.paired else min(c.a.n, c.b.n)
            unit = "pairs of rows both runs scored" if c.paired else "scored rows in the smaller run"
            if not c.a.n or not c.b.n:
                side = " and ".join(n for n, k in (("the baseline", c.a.n), ("the candidate", c.b.n)) if not k)
                reasons.append(f"{v.scorer}: {side} scored no row")
            elif used < min_rows:
                reasons.append(f"{v.scorer}: only {used:,} {unit} (at least {min_rows} are needed)")
            elif not c.decided:
                reasons.append(f"{v.scorer}: no test could run")
        return reasons

    @property
    def regressions(self) -> list[str]:
        """The scorers on which the candidate is significantly worse."""
        return [v.scorer for v in self.verdicts if v.regressed]

    def frame(self) -> pd.DataFrame:
        """One row per scorer: status, means, difference with its CI, p, effect size, paired, verdict."""
        rows = []
        for v in self.verdicts:
            c = v.comparison
            rows.append({
                "scorer": v.scorer, "status": v.status, "better": "lower" if v.lower_is_better else "higher",
                "baseline mean": c.a.mean, "candidate mean": c.b.mean, "difference": c.difference,
                "ci low": c.diff_ci[0], "ci high": c.diff_ci[1], "p": c.p_value, "effect": c.effect_size,
                "effect name": c.effect_name, "paired": c.paired, "n pairs": c.n_pairs, "verdict": c.verdict,
            })  # fmt: skip
        return pd.DataFrame(rows)


def scorers_of(rows: pd.DataFrame) -> list[str]:
    """The scorer ids whose score column ``rows`` has, in column order."""
    ids = {info.id for info in (*SCORER_INFO, *registered_scorers())}
    return [str(c) for c in rows.columns if str(c) in ids]


def measures_of(rows: pd.DataFrame) -> list[str]:
    """The names of the measures (:data:`scoring.registry.MEASURES`) whose column ``rows`` has with a value."""
    return [m.name for m in MEASURES if m.present(rows)]


def _with_score(frame: pd.DataFrame, scorer: str) -> pd.DataFrame:
    """``frame`` with a column named ``scorer``: a measure's values (:meth:`scoring.registry.Measure.values`)
    under its name; a scorer's own column as it is."""
    measure = find_measure(scorer)
    return frame.assign(**{scorer: measure.values(frame)}) if measure is not None else frame


def paired_on_input(baseline: pd.DataFrame, candidate: pd.DataFrame) -> bool:
    """Whether the two runs answered the same inputs: each input once per run, at least 80% matched."""
    sides = [
        frame["input"].dropna() if "input" in frame else pd.Series(dtype=object) for frame in (baseline, candidate)
    ]
    if any(side.empty or side.duplicated().any() for side in sides):
        return False
    shared = len(set(sides[0]) & set(sides[1]))
    return shared >= PAIRED_SHARE * max(len(sides[0]), len(sides[1]))


def compare_runs(
    baseline: pd.DataFrame,
    candidate: pd.DataFrame,
    *,
    labels: tuple[str, str] = ("baseline", "candidate"),
    scorers: Sequence[str] | None = None,
    seed: int = 0,
) -> RunComparison:
    """Compare ``candidate`` with ``baseline`` on each scorer both have (or ``scorers``)."""
    if labels[0] == labels[1]:
        raise InputError(f"labels must name the two runs apart; got {labels!r}.")
    both = [s for s in scorers_of(candidate) if s in scorers_of(baseline)]
    both += [m for m in measures_of(candidate) if m in measures_of(baseline)]
    wanted = list(scorers) if scorers is not None else both
    named = [*scorers_of(baseline), *scorers_of(candidate), *wanted]
    missing = tuple(s for s in dict.fromkeys(named) if s not in both)
    pair_on = "input" if paired_on_input(baseline, candidate) else None
    verdicts = []
    for scorer in (s for s in wanted if s in both):
        measure = find_measure(scorer)
        notes = warnings_column(scorer)  # tone's "not measured" rows are left out of the comparison
        kept = ["input", scorer] + ([notes] if notes in baseline.columns and notes in candidate.columns else [])
        stacked = pd.concat(
            [
                _with_score(frame, scorer)[kept].assign(run=label)
                for frame, label in ((baseline, labels[0]), (candidate, labels[1]))
            ],
            ignore_index=True,
        )
        comparison = compare_groups(
            stacked, score=scorer, group="run", a=labels[0], b=labels[1], pair_on=pair_on, seed=seed
        )
        lower = measure.lower_is_better if measure is not None else scorer_info(scorer).lower_is_better
        if measure is not None and (note := measure.reading_note((baseline, candidate), labels)):
            comparison = replace(comparison, verdict=f"{comparison.verdict} {note}")  # the CLI and the Runs page
        verdicts.append(ScorerVerdict(scorer, comparison, lower))
    return RunComparison(labels[0], labels[1], tuple(verdicts), missing)


def item_deltas(baseline: pd.DataFrame, candidate: pd.DataFrame, scorer: str) -> pd.DataFrame:
    """Row by row, ``scorer`` in both runs, the worst regressions first.

    Rows match on their input when :func:`paired_on_input`, else by row number. Columns: row_a, row_b,
    input, output_a, output_b, score_a, score_b, delta (b - a), regression (how much worse b is: the
    delta, negated when higher is better; NaN when a side has no score), changed (the score differs, or
    only one side has one: ``0.0 -> 0.0`` is no change, even for another reply), reply_changed (the output
    text differs, or a side is missing).
    """
    measure = find_measure(scorer)
    for side, frame in (("baseline", baseline), ("candidate", candidate)):
        if scorer not in (measures_of(frame) if measure is not None else frame.columns):
            found = [*scorers_of(frame), *measures_of(frame)]
            raise InputError(f"the {side} run has no {scorer!r} scores; it has {found}.")
    key = "input" if paired_on_input(baseline, candidate) else "row"
    keep = ["row", "input", "output", scorer]
    renamed = {side: {"row": f"row_{side}", "output": f"output_{side}", scorer: f"score_{side}"} for side in "ab"}
    left = _with_score(baseline, scorer)[keep].rename(columns=renamed["a"])
    right = _with_score(candidate, scorer)[keep].rename(columns=renamed["b"])
    if key == "input":
        left, right = left.dropna(subset=["input"]), right.dropna(subset=["input"])
        merged = left.merge(right, on="input", how="outer")
    else:
        merged = left.merge(right.drop(columns="input"), left_on="row_a", right_on="row_b", how="outer")
        merged["input"] = merged["input"].where(merged["input"].notna(), None)
    a = pd.to_numeric(merged["score_a"], errors="coerce")
    b = pd.to_numeric(merged["score_b"], errors="coerce")
    merged["delta"] = b - a
    lower_is_better = measure.lower_is_better if measure is not None else scorer_info(scorer).lower_is_better
    merged["regression"] = merged["delta"] if lower_is_better else -merged["delta"]
    same_output = merged["output_a"].fillna("\0none") == merged["output_b"].fillna("\0none")
    same_score = np.isclose(a.fillna(-1.0), b.fillna(-1.0), rtol=0.0, atol=1e-12) & (a.isna() == b.isna())
    merged["changed"] = ~same_score  # a row changed when its score did (a score on one side only counts)
    merged["reply_changed"] = ~same_output
    columns = [
        "row_a",
        "row_b",
        "input",
        "output_a",
        "output_b",
        "score_a",
        "score_b",
        "delta",
        "regression",
        "changed",
        "reply_changed",
    ]
    out = merged[columns].sort_values(
        ["regression", "row_b", "row_a"], ascending=[False, True, True], na_position="last"
    )
    for column in ("row_a", "row_b"):
        out[column] = out[column].astype("Int64")
    out.attrs["matched_on"] = key
    return out.reset_index(drop=True)
