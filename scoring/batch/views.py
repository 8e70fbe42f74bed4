"""Pure helpers for viewing a batch result: worst rows first, filters, which columns to chart.

>>> import pandas as pd
>>> t = pd.DataFrame({"output": ["a", "b", "c"], "tone-scorer": [0.9, None, 0.2]})
>>> worst_first(t, "tone-scorer")["output"].tolist()
['c', 'a', 'b']
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

__all__ = [
    "LOWER_IS_BETTER",
    "filter_rows",
    "problem_lines",
    "row_list",
    "score_columns",
    "sentiment_column",
    "worst_first",
]

LOWER_IS_BETTER = frozenset({"toxicity-scorer"})
_SCORER_IDS = ("tone-scorer", "content-similarity-scorer", "toxicity-scorer")
_SENTIMENT = ("tone-scorer.responseSentiment", "tone-scorer.avgSentiment")


def score_columns(table: pd.DataFrame) -> list[str]:
    """Return the scorer-id columns present in ``table``, in the package's order."""
    return [c for c in _SCORER_IDS if c in table.columns]


def sentiment_column(table: pd.DataFrame) -> str | None:
    """Return the column holding each response's sentiment (comparison mode first), or None.

    In a run where some rows have a reference and some do not, the column with more values wins.
    """
    present = [c for c in _SENTIMENT if c in table.columns]
    if not present:
        return None
    return max(present, key=lambda c: int(pd.to_numeric(table[c], errors="coerce").notna().sum()))


def worst_first(table: pd.DataFrame, score: str) -> pd.DataFrame:
    """Return ``table`` sorted worst first on ``score`` (lowest, or highest for toxicity); no score last."""
    if score not in table.columns:
        raise ValueError(f"score column {score!r} is not in the table; found {list(table.columns)}.")
    values = pd.to_numeric(table[score], errors="coerce")
    order = values.sort_values(ascending=score not in LOWER_IS_BETTER, na_position="last", kind="stable").index
    return table.loc[order]


def filter_rows(
    table: pd.DataFrame,
    *,
    score: str | None = None,
    score_range: tuple[float, float] | None = None,
    group: str | None = None,
    groups: Sequence[object] | None = None,
    query: str = "",
    text_columns: Sequence[str] = (),
) -> pd.DataFrame:
    """Return the rows matching every filter given.

    Args:
        score, score_range: keep rows whose ``score`` lies in the closed range (rows without a score go).
        group, groups: keep rows whose ``group`` value is one of ``groups``.
        query, text_columns: keep rows where any of ``text_columns`` contains ``query`` (case-insensitive).
    """
    mask = pd.Series(True, index=table.index)
    if score is not None and score_range is not None:
        values = pd.to_numeric(table[score], errors="coerce")
        mask &= values.between(score_range[0], score_range[1])
    if group is not None and groups is not None:
        mask &= table[group].isin(list(groups))
    if query.strip() and text_columns:
        needle = query.strip().casefold()
        hit = pd.Series(False, index=table.index)
        for column in text_columns:
            hit |= table[column].astype("string").str.casefold().str.contains(needle, regex=False, na=False)
        mask &= hit
    return table[mask]


def row_list(rows: Sequence[object], *, limit: int = 12) -> str:
    """Return row numbers as "3, 7, 12 and 5 more".

    >>> row_list([3, 7, 12, 15], limit=2)
    '3, 7 and 2 more'
    """
    shown = ", ".join(str(r) for r in rows[:limit])
    return shown + (f" and {len(rows) - limit} more" if len(rows) > limit else "")


def problem_lines(skipped: pd.DataFrame, errors: pd.DataFrame, total_rows: int) -> list[str]:
    """Return one sentence per scorer with skipped rows or errors: how many, which rows (1-based), why.

    Args:
        skipped: rows not scored because text was missing (columns row, scorer, reason).
        errors: rows where a scorer failed (columns row, scorer, error).
        total_rows: the number of rows in the run.
    """
    lines = []
    by_rows: dict[tuple[str, tuple[object, ...]], list[str]] = {}
    for scorer, part in skipped.groupby("scorer", sort=False):
        reasons = "; ".join(dict.fromkeys(str(r).rstrip(".") for r in part["reason"]))
        by_rows.setdefault((reasons, tuple(part["row"].tolist())), []).append(str(scorer))
    for (reasons, rows), scorers in by_rows.items():
        lines.append(
            f"{', '.join(scorers)}: {len(rows)} of {total_rows} rows not scored ({reasons}): row {row_list(rows)}. "
            "They have no score and are left out of the means."
        )
    for scorer, part in errors.groupby("scorer", sort=False):
        first = str(part["error"].iloc[0]).rstrip(".")
        lines.append(
            f"{scorer}: {len(part)} of {total_rows} rows failed: row {row_list(part['row'].tolist())} "
            f"(first error: {first}). They have no score and are left out of the means."
        )
    return lines
