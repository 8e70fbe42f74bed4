"""Score a table of responses: a score and metrics per row and scorer, a summary, skipped rows, errors.

``evaluate(df)`` is the whole thing in memory; the CLI and :mod:`scoring.distributed` stream chunks
through :func:`iter_scored` and add them up with :class:`SummaryBuilder`. Rows whose text is missing
are listed in ``skipped`` (never scored as empty); a scorer failing on a row is listed in ``errors``
and the other rows are still scored. The summary's ``mean`` is what Mastra's ``runEvals`` reports
as ``scores`` for the rows that were scored.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from scoring.batch_rows import (
    ERROR_COLUMNS,
    SCORER_IDS,
    SKIPPED_COLUMNS,
    BatchSpec,
    ChunkResult,
    make_spec,
    score_frame,
)
from scoring.loaders import ColumnMap

__all__ = [
    "SCORER_IDS",
    "BatchResult",
    "BatchSpec",
    "ChunkResult",
    "SummaryBuilder",
    "evaluate",
    "iter_scored",
    "make_spec",
    "score_frame",
]

LOWER_IS_BETTER = frozenset({"toxicity-scorer"})
DEFAULT_THRESHOLD = 0.5
Progress = Callable[[int, int], object]


@dataclass
class SummaryBuilder:
    """Adds up chunk results into the per-scorer summary (keeps 8 bytes per scored row, for the median)."""

    scorers: tuple[str, ...]
    scores: dict[str, list[np.ndarray]] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    rows: int = 0

    def add(self, chunk: ChunkResult) -> None:
        """Count one chunk's scores, skipped rows and errors."""
        self.rows += len(chunk.table)
        for scorer_id in self.scorers:
            values = chunk.table[scorer_id].to_numpy(dtype=float) if scorer_id in chunk.table else np.empty(0)
            self.scores.setdefault(scorer_id, []).append(values[~np.isnan(values)])
            self.skipped[scorer_id] = self.skipped.get(scorer_id, 0) + int((chunk.skipped["scorer"] == scorer_id).sum())
            self.errors[scorer_id] = self.errors.get(scorer_id, 0) + int((chunk.errors["scorer"] == scorer_id).sum())

    def summary(self, thresholds: Mapping[str, float] | None = None) -> pd.DataFrame:
        """Return one row per scorer: mean, median, min, max, threshold, share_under/over, count, skipped, errors.

        ``better`` says which end is good ("lower" for toxicity): read share_over as the failing share there.
        """
        records = []
        for scorer_id in self.scorers:
            values = np.concatenate(self.scores.get(scorer_id) or [np.empty(0)])
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
                "better": "lower" if scorer_id in LOWER_IS_BETTER else "higher",
            })  # fmt: skip
        return pd.DataFrame.from_records(records).set_index("scorer")


@dataclass(frozen=True, slots=True)
class BatchResult:
    """The whole run: ``table`` (input columns + results), ``summary``, ``skipped`` and ``errors``.

    ``table`` keeps every input column unchanged and adds, per scorer, a column named by its id with
    the score and ``<id>.<metric>`` columns. ``skipped`` lists (row, index, scorer, column, reason) for
    rows not scored because text was missing; ``errors`` lists (row, index, scorer, error). ``row``
    counts data rows from 1; ``index`` is the row's label in the input DataFrame.
    """

    table: pd.DataFrame
    summary: pd.DataFrame
    skipped: pd.DataFrame
    errors: pd.DataFrame

    @property
    def complete(self) -> bool:
        """True when every row was scored by every scorer."""
        return bool(self.skipped.empty and self.errors.empty)


def _score_chunk(args: tuple[pd.DataFrame, BatchSpec, int]) -> ChunkResult:
    df, spec, offset = args
    return score_frame(df, spec, row_offset=offset)


def iter_scored(
    chunks: Iterable[pd.DataFrame],
    spec: BatchSpec,
    *,
    workers: int = 1,
    on_progress: Progress | None = None,
    total: int = 0,
) -> Iterator[ChunkResult]:
    """Score chunks in order, in ``workers`` processes when > 1; ``on_progress(done_rows, total)``."""
    _check_workers(workers)
    done = 0
    jobs = _with_offsets(chunks, spec)
    if workers == 1:
        results: Iterator[ChunkResult] = map(_score_chunk, jobs)
    else:
        results = _in_pool(jobs, workers)
    for result in results:
        done += len(result.table)
        if on_progress is not None:
            on_progress(done, max(total, done))
        yield result


def _check_workers(workers: object) -> None:
    if not isinstance(workers, int) or isinstance(workers, bool) or workers < 1:
        raise ValueError(f"workers must be a positive integer; got {workers!r}.")


def _with_offsets(chunks: Iterable[pd.DataFrame], spec: BatchSpec) -> Iterator[tuple[pd.DataFrame, BatchSpec, int]]:
    offset = 0
    for chunk in chunks:
        yield chunk, spec, offset
        offset += len(chunk)


def _in_pool(jobs: Iterator[tuple[pd.DataFrame, BatchSpec, int]], workers: int) -> Iterator[ChunkResult]:
    """Run jobs in a process pool, at most 2 per worker in flight (memory stays flat), results in order."""
    import multiprocessing
    import threading

    # fork is fast and needs no `if __name__ == "__main__"` guard, but is unsafe in a threaded process
    # (Streamlit, Dask): there the fork server starts clean workers.
    method = "fork" if threading.active_count() == 1 and sys.platform == "linux" else "forkserver"
    context = multiprocessing.get_context(method if method in multiprocessing.get_all_start_methods() else "spawn")
    pending: list[Future[ChunkResult]] = []
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        try:
            for job in jobs:
                pending.append(pool.submit(_score_chunk, job))
                if len(pending) >= 2 * workers:
                    yield pending.pop(0).result()
            while pending:
                yield pending.pop(0).result()
        finally:
            for future in pending:
                future.cancel()


def combine(chunks: Sequence[ChunkResult], spec: BatchSpec, thresholds: Mapping[str, float] | None) -> BatchResult:
    """Join chunk results into one :class:`BatchResult`."""
    builder = SummaryBuilder(spec.scorers)
    for chunk in chunks:
        builder.add(chunk)
    frames = [c for c in chunks]
    table = pd.concat([c.table for c in frames]) if frames else pd.DataFrame()
    skipped = (
        pd.concat([c.skipped for c in frames], ignore_index=True) if frames else pd.DataFrame(columns=SKIPPED_COLUMNS)
    )
    errors = pd.concat([c.errors for c in frames], ignore_index=True) if frames else pd.DataFrame(columns=ERROR_COLUMNS)
    return BatchResult(table, builder.summary(thresholds), skipped, errors)


def evaluate(
    df: pd.DataFrame,
    *,
    scorers: Sequence[str] = ("tone", "similarity"),
    columns: ColumnMap | None = None,
    reference_tone: str | None = None,
    reference_column: str | None = None,
    engine: str = "vader",
    splitter: str = "smart",
    on_progress: Progress | None = None,
    workers: int = 1,
    thresholds: Mapping[str, float] | None = None,
) -> BatchResult:
    """Score every row of ``df`` with each scorer ("tone", "similarity", "toxicity" or their ids).

    ``columns`` picks the output/input columns (default: :func:`~scoring.loaders.guess_columns`).
    The tone reference is ``reference_tone`` for all rows or ``reference_column`` per row; with neither,
    tone measures stability across sentences. ``thresholds`` ({scorer id: value}, default 0.5) sets the
    summary's ``share_under``. ``workers`` > 1 scores in that many processes (worth it from a few
    thousand rows). ``on_progress(done_rows, total_rows)`` is called after each piece.

    >>> import pandas as pd
    >>> df = pd.DataFrame({"input": ["Hi", "Hey"], "output": ["Great, thanks!", None]})
    >>> result = evaluate(df, scorers=["similarity"])
    >>> result.table["content-similarity-scorer"].round(3).tolist(), result.skipped["reason"].tolist()
    ([0.0, nan], ["output column 'output' is empty"])
    """
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"df must be a pandas DataFrame; got {type(df).__name__}.")
    spec = make_spec(
        list(df.columns), scorers=scorers, column_map=columns, reference_tone=reference_tone,
        reference_column=reference_column, engine=engine, splitter=splitter,
    )  # fmt: skip
    _check_workers(workers)
    size = max(500, min(5000, math.ceil(len(df) / (4 * workers))))
    pieces = [df.iloc[start : start + size] for start in range(0, len(df), size)] or [df]
    return combine(
        list(iter_scored(pieces, spec, workers=workers, on_progress=on_progress, total=len(df))), spec, thresholds
    )
