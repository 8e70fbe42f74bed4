"""A batch run's result: the scored table, the per-scorer summary, and the rows skipped, failed or warned.

Documented from :mod:`scoring.batch.runner`, which re-exports everything here.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from scoring.batch.rows import ERROR_COLUMNS, SKIPPED_COLUMNS, BatchSpec, ChunkResult, without_secrets
from scoring.registry import TONE, scorer_info
from scoring.text.language import LEXICON_ENGINES

__all__ = [
    "DEFAULT_THRESHOLD",
    "BatchResult",
    "SummaryBuilder",
    "combine",
    "unmeasured_mask",
    "unmeasured_notice",
    "warned_mask",
    "warnings_column",
]

DEFAULT_THRESHOLD = 0.5


def warnings_column(scorer_id: str) -> str:
    """Return the name of a scorer's per-row warnings column (text, empty when the row has none)."""
    return f"{scorer_id}.warnings"


def _warnings_text(table: pd.DataFrame, scorer_id: str) -> pd.Series | None:
    column = warnings_column(scorer_id)
    return table[column].astype("string").fillna("") if column in table.columns else None


def warned_mask(table: pd.DataFrame, scorer_id: str) -> np.ndarray:
    """Return a boolean mask of the rows whose score for ``scorer_id`` comes with a warning that it may mislead
    (for tone: a language the engine does not cover), besides the note that it measured nothing
    (:func:`unmeasured_mask`).
    """
    values = _warnings_text(table, scorer_id)
    if values is None:
        return np.zeros(len(table), dtype=bool)
    warned = values.str.strip() != ""
    if note := scorer_info(scorer_id).silent_note:  # a cell holding that note alone has no other warning
        warned &= ~values.str.fullmatch(note)
    mask: np.ndarray = warned.to_numpy(dtype=bool)
    return mask


def unmeasured_mask(table: pd.DataFrame, scorer_id: str) -> np.ndarray:
    """Return a boolean mask of the rows whose ``scorer_id`` score measured nothing: for tone, stability mode on
    fewer than two sentences with words (a "perfect" 1.0, Mastra's number), or a lexicon engine on a language
    it cannot read; its warnings cell says so.
    """
    values, note = _warnings_text(table, scorer_id), scorer_info(scorer_id).unmeasured_note
    if values is None or not note:
        return np.zeros(len(table), dtype=bool)
    mask: np.ndarray = values.str.contains(note, regex=True).to_numpy(dtype=bool)
    return mask


def unmeasured_notice(summary: pd.DataFrame, scorer_id: str, rows: Sequence[int], total: int) -> str | None:
    """One text on the rows whose ``scorer_id`` score measured nothing (``rows``: the first of them, counted from
    1; ``total``: the rows of the run), with the summary's mean (Mastra's runEvals ``scores``) and the mean over
    the rows that could be measured; None when there are none.

    >>> summary = pd.DataFrame({"mean": [0.9], "count": [3], "unmeasured": [2], "measured_mean": [0.7]},
    ...                        index=["tone-scorer"])
    >>> print(unmeasured_notice(summary, "tone-scorer", [1, 3], 3))  # doctest: +NORMALIZE_WHITESPACE
    2 of 3 rows have a tone score that measures nothing, not measured: fewer than two sentences with words
    scored for stability (no reference; 1.0 for a single sentence, the formula's value), or text in a
    language the engine's English word list cannot read: row 1, 3. The tone mean 0.900 (as Mastra's
    runEvals computes it) includes them; over the 1 row that could be measured it is 0.700.
    """
    if "unmeasured" not in summary or scorer_id not in summary.index:  # a summary from before the column
        return None
    if not (count := int(summary.loc[scorer_id, "unmeasured"])):
        return None
    row = summary.loc[scorer_id]
    listed = ", ".join(map(str, rows)) + (f" and {count - len(rows):,} more" if count > len(rows) else "")
    have = "row has" if count == 1 else "rows have"
    label = scorer_info(scorer_id).short_name
    measured = int(row["count"]) - count
    after = (
        f"over the {measured:,} {'row' if measured == 1 else 'rows'} that could be measured it is "
        f"{row['measured_mean']:.3f}"
        if measured
        else "no row could be measured"
    )
    return (
        f"{count:,} of {total:,} {have} a {label} score that measures nothing, not measured: fewer than two "
        f"sentences with words scored for stability (no reference; 1.0 for a single sentence, the formula's value), "
        f"or text in a language the engine's English word list cannot read: row {listed}. "
        f"The {label} mean {row['mean']:.3f} (as Mastra's runEvals computes it) includes them; {after}."
    )


@dataclass
class SummaryBuilder:
    """Adds up chunk results into the per-scorer summary (keeps 8 bytes per scored row, for the median)."""

    scorers: tuple[str, ...]
    scores: dict[str, list[np.ndarray]] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    warned: dict[str, int] = field(default_factory=dict)
    unmeasured: dict[str, list[np.ndarray]] = field(default_factory=dict)  # per chunk, aligned with ``scores``
    cached: dict[str, int] = field(default_factory=dict)
    rows: int = 0

    def add(self, chunk: ChunkResult) -> None:
        """Count one chunk's scores, skipped rows, errors, warned rows and rows whose score measured nothing."""
        self.rows += len(chunk.table)
        for scorer_id in self.scorers:
            values = chunk.table[scorer_id].to_numpy(dtype=float) if scorer_id in chunk.table else np.empty(0)
            self.scores.setdefault(scorer_id, []).append(values[~np.isnan(values)])
            unmeasured = unmeasured_mask(chunk.table, scorer_id) if scorer_id in chunk.table else np.empty(0, bool)
            self.unmeasured.setdefault(scorer_id, []).append(unmeasured[~np.isnan(values)])
            self.skipped[scorer_id] = self.skipped.get(scorer_id, 0) + int((chunk.skipped["scorer"] == scorer_id).sum())
            self.errors[scorer_id] = self.errors.get(scorer_id, 0) + int((chunk.errors["scorer"] == scorer_id).sum())
            self.warned[scorer_id] = self.warned.get(scorer_id, 0) + int(warned_mask(chunk.table, scorer_id).sum())
            hits = chunk.table.get(f"{scorer_id}.cached")
            self.cached[scorer_id] = self.cached.get(scorer_id, 0) + (
                int(hits.fillna(0).sum()) if hits is not None else 0
            )

    def summary(self, thresholds: Mapping[str, float] | None = None) -> pd.DataFrame:
        """Return one row per scorer: mean, median, min, max, threshold, share_under/over, count, skipped, errors,
        warned (scored rows whose score comes with a warning, e.g. a language the engine does not cover),
        unmeasured (scored rows whose score measured nothing: tone's stability of fewer than two sentences with
        words, :func:`unmeasured_mask`), measured_mean (the mean over the other scored rows; NaN when none),
        cached (rows the LLM judge's verdicts came from the judge cache for, without a request).

        ``better`` says which end is good ("lower" for toxicity): read share_over as the failing share there.
        """
        records = []
        for scorer_id in self.scorers:
            values = np.concatenate(self.scores.get(scorer_id) or [np.empty(0)])
            unmeasured = np.concatenate(self.unmeasured.get(scorer_id) or [np.empty(0, bool)])
            measured = values[~unmeasured]
            threshold = float((thresholds or {}).get(scorer_id, DEFAULT_THRESHOLD))
            count = len(values)
            # mean: summed in row order, as runEvals does, so it equals Mastra's number exactly
            mean = float(np.cumsum(values)[-1] / count) if count else math.nan
            records.append({
                "scorer": scorer_id, "mean": mean, "median": float(np.median(values)) if count else math.nan,
                "min": float(values.min()) if count else math.nan, "max": float(values.max()) if count else math.nan,
                "threshold": threshold, "share_under": float((values < threshold).mean()) if count else math.nan,
                "share_over": float((values > threshold).mean()) if count else math.nan,
                "count": count, "skipped": self.skipped.get(scorer_id, 0), "errors": self.errors.get(scorer_id, 0),
                "warned": self.warned.get(scorer_id, 0), "unmeasured": int(unmeasured.sum()),
                "measured_mean": float(np.cumsum(measured)[-1] / len(measured)) if len(measured) else math.nan,
                "cached": self.cached.get(scorer_id, 0),
                "better": scorer_info(scorer_id).better,
            })  # fmt: skip
        return pd.DataFrame.from_records(records).set_index("scorer")


@dataclass(frozen=True, slots=True)
class BatchResult:
    """The whole run: ``table`` (input columns + results), ``summary``, ``skipped`` and ``errors``.

    ``table`` keeps every input column unchanged and adds, per scorer, a column named by its id with
    the score and ``<id>.<metric>`` columns (the tone scorer also ``tone-scorer.warnings``: text, empty
    when the row has none). ``skipped`` lists (row, index, scorer, column, reason) for rows not scored
    because text was missing; ``errors`` lists (row, index, scorer, error). ``row`` counts data rows
    from 1; ``index`` is the row's label in the input DataFrame. ``spec`` records the run's options
    (without any API key) for :func:`~scoring.batch.runner.retry_errors`.
    """

    table: pd.DataFrame
    summary: pd.DataFrame
    skipped: pd.DataFrame
    errors: pd.DataFrame
    spec: BatchSpec | None = field(default=None, repr=False, compare=False)

    @property
    def complete(self) -> bool:
        """True when every row was scored by every scorer."""
        return bool(self.skipped.empty and self.errors.empty)

    def warned_rows(self, scorer_id: str = TONE.id) -> list[int]:
        """Return the rows (counted from 1) whose ``scorer_id`` score came with a warning."""
        return [int(i) + 1 for i in np.flatnonzero(warned_mask(self.table, scorer_id))]

    def unmeasured_rows(self, scorer_id: str = TONE.id) -> list[int]:
        """Return the rows (counted from 1) whose ``scorer_id`` score measured nothing (:func:`unmeasured_mask`)."""
        return [int(i) + 1 for i in np.flatnonzero(unmeasured_mask(self.table, scorer_id))]

    def unmeasured_notices(self, *, shown: int = 12) -> list[str]:
        """For each scorer with rows whose score measured nothing, the :func:`unmeasured_notice`."""
        found = (
            unmeasured_notice(self.summary, str(s), self.unmeasured_rows(str(s))[:shown], len(self.table))
            for s in self.summary.index
        )
        return [n for n in found if n]

    def language_notice(self, *, shown: int = 12) -> str | None:
        """One sentence on the rows whose tone score is on a language the engine does not cover, or None.

        >>> t = pd.DataFrame({"tone-scorer": [0.9, 1.0], "tone-scorer.warnings": ["", "output looks like German"]})
        >>> BatchResult(t, pd.DataFrame(), pd.DataFrame(), pd.DataFrame()).language_notice()
        '1 of 2 rows is not English (the response or its reference), so its tone score is not meaningful: row 2.'
        """
        rows = self.warned_rows()
        if not rows:
            return None
        listed = ", ".join(map(str, rows[:shown])) + (f" and {len(rows) - shown:,} more" if len(rows) > shown else "")
        is_, its = ("rows is", "its tone score is") if len(rows) == 1 else ("rows are", "their tone scores are")
        if self.spec is not None and self.spec.engine not in LEXICON_ENGINES:  # learned: a few languages validated
            what, verdict = f"{is_} in a language the {self.spec.engine} engine was not validated on", "unvalidated"
        else:
            what, verdict = f"{is_} not English", "not meaningful"
        return (
            f"{len(rows):,} of {len(self.table):,} {what} (the response or its reference), so {its} {verdict}: "
            f"row {listed}."
        )


def combine(
    chunks: Sequence[ChunkResult], spec: BatchSpec, thresholds: Mapping[str, float] | None = None
) -> BatchResult:
    """Join chunk results into one :class:`BatchResult`."""
    builder = SummaryBuilder(spec.scorers)
    for chunk in chunks:
        builder.add(chunk)
    table = pd.concat([c.table for c in chunks]) if chunks else pd.DataFrame()
    skipped = (
        pd.concat([c.skipped for c in chunks], ignore_index=True) if chunks else pd.DataFrame(columns=SKIPPED_COLUMNS)
    )
    errors = pd.concat([c.errors for c in chunks], ignore_index=True) if chunks else pd.DataFrame(columns=ERROR_COLUMNS)
    return BatchResult(table, builder.summary(thresholds), skipped, errors, without_secrets(spec))
