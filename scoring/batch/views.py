"""Pure helpers for viewing a batch result: worst rows first, filters, the charts, which column names groups.

>>> import pandas as pd
>>> t = pd.DataFrame({"output": ["a", "b", "c"], "tone-scorer": [0.9, None, 0.2]})
>>> worst_first(t, "tone-scorer")["output"].tolist()
['c', 'a', 'b']
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import plotly.graph_objects as go

from scoring.charts import score_histogram_figure, sentiment_similarity_figure
from scoring.errors import InputError
from scoring.registry import MEASURES, SCORER_INFO, SIMILARITY, TONE, display_name, find_scorer, registered_scorers

__all__ = [
    "GROUP_NAMES",
    "MAX_SCATTER_POINTS",
    "filter_rows",
    "group_columns",
    "guess_group",
    "problem_lines",
    "result_figures",
    "row_list",
    "score_columns",
    "sentiment_column",
    "with_measures",
    "worst_first",
]

_SENTIMENT = (f"{TONE.id}.responseSentiment", f"{TONE.id}.avgSentiment")
#: The scatter of sentiment against similarity draws a seeded random sample of this many rows at most.
MAX_SCATTER_POINTS = 5_000
#: Column names that usually name the versions to compare, in order of preference.
GROUP_NAMES = ("model", "version", "variant", "prompt")


def score_columns(table: pd.DataFrame) -> list[str]:
    """Return the scorer-id columns present in ``table``, in the package's order (then taught scorers')."""
    return [info.id for info in (*SCORER_INFO, *registered_scorers()) if info.id in table.columns]


def with_measures(table: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """Return ``table`` with each measure (:data:`scoring.registry.MEASURES`: warmth) that has values as a column
    under its name (:meth:`scoring.registry.Measure.values`), and the columns to compare: the scores, then those
    measures. Warmth is there with or without a reference column (the reply's own sentiment in either mode).

    >>> t = pd.DataFrame({"tone-scorer": [0.9], "tone-scorer.avgSentiment": [0.4]})
    >>> with_measures(t)[1]
    ['tone-scorer', 'warmth']
    >>> t = pd.DataFrame({"tone-scorer": [0.9], "tone-scorer.responseSentiment": [-0.3]})
    >>> with_measures(t)[0]["warmth"].tolist()
    [-0.3]
    """
    found = {m.name: m.values(table) for m in MEASURES if m.name not in table.columns}
    present = {name: values for name, values in found.items() if values.notna().any()}
    extended = table.assign(**present) if present else table
    return extended, [*score_columns(table), *present]


def sentiment_column(table: pd.DataFrame) -> str | None:
    """Return the column holding each response's sentiment (comparison mode first), or None.

    In a run where some rows have a reference and some do not, the column with more values wins.
    """
    present = [c for c in _SENTIMENT if c in table.columns]
    if not present:
        return None
    return max(present, key=lambda c: int(pd.to_numeric(table[c], errors="coerce").notna().sum()))


def worst_first(table: pd.DataFrame, score: str, *then: str) -> pd.DataFrame:
    """Return ``table`` sorted worst first on ``score`` (lowest, or highest for a lower-is-better score such as
    toxicity), ties broken by the scores ``then`` (each its own way); rows without a score last.
    """
    names = [score, *then]
    for name in names:
        if name not in table.columns:
            raise InputError(f"score column {name!r} is not in the table; found {list(table.columns)}.")
    keys = pd.DataFrame({i: pd.to_numeric(table[n], errors="coerce").to_numpy() for i, n in enumerate(names)})
    ascending = [not (info is not None and info.lower_is_better) for info in map(find_scorer, names)]
    order = keys.sort_values(list(keys.columns), ascending=ascending, na_position="last", kind="stable").index
    return table.iloc[order]


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


def group_columns(table: pd.DataFrame) -> list[str]:
    """Return the columns that could name groups to compare: 2 to 50 distinct values, and not a score."""
    scores = score_columns(table)
    return [str(c) for c in table.columns if 2 <= table[c].nunique() <= 50 and c not in scores]


def guess_group(columns: Sequence[str]) -> str | None:
    """Return the first of ``columns`` named like a version column (:data:`GROUP_NAMES`), or None.

    >>> guess_group(["category", "version", "model"])
    'model'
    """
    return next((c for c in GROUP_NAMES if c in columns), None)


def result_figures(table: pd.DataFrame, *, group: str | None = None, label: str | None = None) -> list[go.Figure]:
    """Return a histogram of each score and the sentiment-vs-similarity scatter (when the run has both).

    The scatter draws a seeded random :data:`MAX_SCATTER_POINTS` rows of a larger table; ``label`` names the
    text column shown when hovering a point; ``group`` colours the groups.
    """
    figures = [
        score_histogram_figure(table, column=s, group=group, title=display_name(s)) for s in score_columns(table)
    ]
    x = sentiment_column(table)
    if x is not None and SIMILARITY.id in table.columns:
        points = table.sample(MAX_SCATTER_POINTS, random_state=0) if len(table) > MAX_SCATTER_POINTS else table
        titles = (display_name(x), display_name(SIMILARITY.id))
        figures.append(
            sentiment_similarity_figure(points, x=x, y=SIMILARITY.id, group=group, label=label, titles=titles)
        )
    return figures


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
