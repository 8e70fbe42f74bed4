"""Score a table of responses: a score and metrics per row and scorer, a summary, skipped rows, errors.

``evaluate(df)`` is the whole thing in memory; the CLI and :mod:`scoring.batch.distributed` stream chunks
through :func:`iter_scored` and add them up with :class:`SummaryBuilder`. Rows whose text is missing
are listed in ``skipped`` (never scored as empty); a scorer failing on a row (the LLM judge timing out,
say) is listed in ``errors`` and the other rows are still scored; :func:`retry_errors` scores just
those rows again. A tone score on text in a language the engine does not cover gets its reason in
``tone-scorer.warnings``. The summary's ``mean`` is what Mastra's ``runEvals`` reports as ``scores``
for the rows that were scored.
"""

from __future__ import annotations

import dataclasses
import math
import os
import signal
import sys
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import TYPE_CHECKING, Any

import pandas as pd

from scoring.batch.ordered import in_order
from scoring.batch.result import DEFAULT_THRESHOLD, BatchResult, SummaryBuilder, combine
from scoring.batch.retry import retry_errors
from scoring.batch.rows import BatchSpec, ChunkResult, make_spec, one_reference, reports_rows, score_frame, uses_judge
from scoring.batch.watch import watched_submit
from scoring.errors import InputError, InputTypeError
from scoring.io.columns import ColumnMap, guess_columns
from scoring.registry import DEFAULT_TONE_ENGINE, runtime_scorer
from scoring.text.splitters import DEFAULT_SPLITTER

if TYPE_CHECKING:
    from scoring.result import VerdictCache

__all__ = [
    "DEFAULT_THRESHOLD",
    "POOL_ROWS",
    "BatchResult",
    "BatchSpec",
    "ChunkResult",
    "SummaryBuilder",
    "auto_workers",
    "combine",
    "evaluate",
    "iter_scored",
    "make_spec",
    "piece_rows",
    "retry_errors",
    "run_spec",
    "score_frame",
]

Progress = Callable[[int, int], object]
Job = tuple[pd.DataFrame, BatchSpec, int]  # a chunk, the spec, the number of rows before it


def _score_chunk(args: Job) -> ChunkResult:
    """Score a chunk in a worker; send back only the new columns (the parent has the input ones)."""
    df, spec, offset = args
    result = score_frame(df, spec, row_offset=offset)
    return dataclasses.replace(result, table=result.table.iloc[:, len(df.columns) :])


def _rows_reporter(progress: Progress, before: int, total: int) -> Callable[[int], None]:
    def report(rows: int) -> None:
        progress(before + rows, max(total, before + rows))

    return report


def _in_process(
    jobs: Iterator[Job], progress: Progress | None, total: int, judge_cache: VerdictCache | None = None
) -> Iterator[ChunkResult]:
    """Score jobs here; the judge's and the e5 engine's finished rows are reported as they come."""
    done = 0
    for df, spec, offset in jobs:
        if progress is None or not reports_rows(spec):
            result = score_frame(df, spec, row_offset=offset, judge_cache=judge_cache)
        else:
            on_rows = _rows_reporter(progress, done, total)
            result = score_frame(df, spec, row_offset=offset, on_rows=on_rows, judge_cache=judge_cache)
        done += len(result.table)
        yield result


def iter_scored(
    chunks: Iterable[pd.DataFrame],
    spec: BatchSpec,
    *,
    workers: int = 1,
    on_progress: Progress | None = None,
    total: int = 0,
    judge_cache: VerdictCache | None = None,
) -> Generator[ChunkResult, None, None]:
    """Score chunks in order, in ``workers`` processes when > 1; ``on_progress(done_rows, total)``.

    With the LLM judge the run stays in this process whatever ``workers`` says: the judge waits on the
    network, ``judge_concurrency`` requests at a time, and more processes would multiply that bound.
    ``judge_cache`` (:class:`scoring.runs.JudgeCache`) answers the rows the judge has seen before.
    """
    _check_workers(workers)
    done = 0
    jobs = with_offsets(chunks, spec)
    if workers == 1 or uses_judge(spec) or any(map(runtime_scorer, spec.scorers)):  # taught scorers: here only
        results: Iterator[ChunkResult] = _in_process(jobs, on_progress, total, judge_cache)
    else:
        results = _in_pool(jobs, workers)
    for result in results:
        done += len(result.table)
        if on_progress is not None:
            on_progress(done, max(total, done))
        yield result


def _check_workers(workers: object) -> None:
    if not isinstance(workers, int) or isinstance(workers, bool) or workers < 1:
        raise InputError(f"workers must be a positive integer; got {workers!r}.")


def with_offsets(chunks: Iterable[pd.DataFrame], spec: BatchSpec) -> Iterator[Job]:
    """Each chunk as a job: the chunk, ``spec`` and the number of rows before it."""
    offset = 0
    for chunk in chunks:
        yield chunk, spec, offset
        offset += len(chunk)


def scored_elsewhere(
    submit: Callable[[Callable[[Job], ChunkResult], Job], Any], jobs: Iterable[Job], in_flight: int
) -> Iterator[ChunkResult]:
    """Score jobs in other processes, ``in_flight`` at a time, yielding results in order.

    ``submit(fn, job)`` runs ``fn(job)`` elsewhere and returns a future (a process pool's or a Dask client's
    submit). Only the score columns travel back; the input columns are put back here.
    """
    sent: deque[pd.DataFrame] = deque()  # the chunks in flight

    def send(job: Job) -> Any:
        sent.append(job[0])
        return submit(_score_chunk, job)

    for result in in_order(send, jobs, in_flight):
        yield dataclasses.replace(result, table=pd.concat([sent.popleft(), result.table], axis=1))


def _in_pool(jobs: Iterator[Job], workers: int) -> Iterator[ChunkResult]:
    """Run jobs in a process pool, at most 2 per worker in flight (memory stays flat), results in order."""
    pool = worker_pool(workers)
    try:
        yield from scored_elsewhere(watched_submit(pool), jobs, 2 * workers)  # a worker killed mid-send too
    finally:  # also on Ctrl-C, an error or an early close: drop what has not started, let the rest finish
        pool.shutdown(wait=True, cancel_futures=True)


def worker_pool(workers: int) -> ProcessPoolExecutor:
    """A process pool of ``workers`` whose workers take their signals from :func:`_worker_signals`."""
    import multiprocessing
    import threading

    from scoring.batch.tracker import install

    install()  # a resource tracker killed mid-run comes back knowing the pool's semaphores, without tracebacks
    # fork is fast and needs no `if __name__ == "__main__"` guard, but is unsafe in a threaded process
    # (Streamlit, Dask): there the fork server starts clean workers.
    method = "fork" if threading.active_count() == 1 and sys.platform == "linux" else "forkserver"
    context = multiprocessing.get_context(method if method in multiprocessing.get_all_start_methods() else "spawn")
    return ProcessPoolExecutor(
        max_workers=workers, mp_context=context, initializer=_worker_signals, initargs=(os.getpid(),)
    )


def _worker_signals(parent: int | None = None) -> None:
    """Workers leave Ctrl-C to the parent, which stops the pool in order, die on SIGTERM, and die with the parent.

    A worker that dies mid-write (Ctrl-C reaches the whole process group) leaves the pool's queues
    half-written and the parent waiting forever; a finishing chunk costs a moment. SIGTERM is set back to
    its default: the pool's own terminate() of a broken pool sends it, and a forked worker would otherwise
    keep the CLI's handler (SIGTERM raising an exception), survive mid-chunk, take the next chunk and block
    writing its result to a queue nobody reads while the pool waits for it to end. A worker also ends when
    ``parent`` (the process that made the pool) ends: a parent killed outright (SIGKILL, the kernel's
    out-of-memory killer) runs no cleanup, and its workers would wait on the pool's queue forever, keeping
    the fork server alive too (its children hold the server's lifeline).
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if parent is not None:
        _die_with(parent)


def _die_with(parent: int) -> None:
    """End this process as soon as process ``parent`` ends (Linux: a pidfd watched by a daemon thread)."""
    import select
    import threading

    try:
        handle = os.pidfd_open(parent)
    except ProcessLookupError:  # the parent died while this worker was being made: nobody will send it work
        os._exit(1)
    except (AttributeError, OSError):  # not Linux, or a kernel before 5.3: the pool's own checks remain
        return

    def watch() -> None:
        select.select([handle], [], [])  # readable once the process has ended
        os._exit(1)

    threading.Thread(target=watch, name="die-with-parent", daemon=True).start()


def _guessed(df: pd.DataFrame, reference: str | None) -> ColumnMap:
    """The columns of ``df`` by :func:`~scoring.io.columns.guess_columns`; a ValueError when a role is unclear.

    A ``reference`` column given by the caller replaces the guessed reference (and its ambiguity).
    """
    guess = guess_columns(df)
    roles = ["output", "input"] + (["reference"] if reference is None else [])
    if unclear := [guess.role(r).note for r in roles if not guess.settled(r)]:
        raise InputError(f"{' '.join(unclear)} Found {[str(c) for c in df.columns]}: name the columns with "
                         "columns=ColumnMap(output=..., input=..., reference=...).")  # fmt: skip
    return ColumnMap(guess.output.column, guess.input.column, reference or guess.reference.column)


#: Rows per piece of a slow engine's run (e5) in a process pool: a pool reports progress per piece, so a piece of
#: e5 rows (seconds per sentence on a busy machine) is kept small; each process still embeds a sentence once.
SLOW_PIECE_ROWS = 128


#: A run with a slow engine (e5: the default toxicity engine, courtesy, the e5 tone engine) of more rows than this
#: may use both CPUs when no --workers is given (docs/toxicity.md, "Speed").
POOL_ROWS = 500


def auto_workers(spec: BatchSpec, rows: int, cpus: int, load: float) -> int:
    """Processes for a run when none were asked for: 2 (at most ``cpus``) for a slow engine's run of more than
    ``POOL_ROWS`` rows on a busy machine (1-minute ``load`` average at least ``cpus``), else 1.

    Measured on 10,000 three-sentence rows with the default toxicity engine (docs/toxicity.md, "Speed"): at a load
    average of 10 on 2 CPUs two processes scored 36.0 rows/s against 26.0 on one (1.6x in an earlier run at 11 to
    13); on the quiet machine (load about 2, the run itself) one process already keeps both CPUs busy in the
    encoder's batches, and two were no faster (129.3 and 129.4 rows/s; 88.4 and 107.9 in another pair) and hold a
    second model in memory. Fast engines stay in one process (their rows take microseconds); the LLM judge and
    taught scorers run in this process whatever the count.

    >>> fast = make_spec(["output"], scorers=["tone", "toxicity"], toxicity={"engine": "classifier"})
    >>> auto_workers(fast, 10_000, 2, 10.0)
    1
    """
    busy = load >= cpus
    if not busy or rows <= POOL_ROWS or uses_judge(spec) or any(map(runtime_scorer, spec.scorers)):
        return 1
    return max(1, min(2, cpus)) if reports_rows(spec) else 1


def piece_rows(rows: int, workers: int, spec: BatchSpec) -> int:
    """Rows per piece of ``evaluate``: 500 to 5,000 (four pieces per process), fewer for a slow engine in a pool.

    >>> fast = make_spec(["output"], scorers=["toxicity"], toxicity={"engine": "classifier"})
    >>> piece_rows(10_000, 2, fast), piece_rows(100_000, 1, fast), piece_rows(100, 1, fast)
    (1250, 5000, 500)
    """
    size = max(500, min(5000, math.ceil(rows / (4 * workers))))
    if workers > 1 and reports_rows(spec) and not uses_judge(spec):
        return min(size, SLOW_PIECE_ROWS)
    return size


def evaluate(
    df: pd.DataFrame,
    *,
    scorers: Sequence[str] = ("tone", "similarity"),
    columns: ColumnMap | None = None,
    reference_tone: str | None = None,
    reference: str | None = None,
    engine: str = DEFAULT_TONE_ENGINE,
    splitter: str = DEFAULT_SPLITTER,
    on_progress: Progress | None = None,
    workers: int = 1,
    thresholds: Mapping[str, float] | None = None,
    toxicity: Mapping[str, object] | None = None,
    judge_cache: VerdictCache | None = None,
    reference_column: str | None = None,
    courtesy: Mapping[str, object] | None = None,
) -> BatchResult:
    """Score every row of ``df`` with each scorer ("tone", "similarity", "toxicity" or their ids).

    ``columns`` names the output, input and reference columns (default: guessed from ``df`` by
    :func:`~scoring.io.columns.guess_columns`; a ValueError when the output column is not clear);
    ``reference`` is another way to name the reference column (``reference_column``, its old name, still
    works). What each scorer compares is :meth:`BatchSpec.compared_with`: with a reference, tone compares
    each output's sentiment with it and similarity compares the output with it; without one, tone measures
    stability across sentences and similarity compares with the input. ``reference_tone`` (one text for all
    rows) sets tone's reference whatever the column says. ``thresholds`` ({scorer id: value}, default 0.5) sets the
    summary's ``share_under``. ``workers`` > 1 scores in that many processes (worth it from a few
    thousand rows). ``on_progress(done_rows, total_rows)`` is called after each piece (and, with the
    judge or e5, as its rows finish). ``toxicity`` passes options to ``create_toxicity_scorer``, e.g.
    ``{"engine": "e5"}`` or ``{"engine": "judge", "model": "gpt-4o-mini", "base_url": ..., "api_key": ...}``;
    without an engine a batch uses the single-text default (e5 with its measured defaults where its wheel loads).
    Judge requests run ``judge_concurrency`` at a time in this process, and a row the judge fails on is an
    error, not a score. ``judge_cache`` (:class:`scoring.runs.JudgeCache`) answers rows the judge has seen
    before, for free; the summary's ``cached`` counts them. ``courtesy={"engine": "e5-lite"}`` scores courtesy
    with the fast e5-lite head instead of e5's (weaker: docs/engines.md).

    >>> import pandas as pd
    >>> df = pd.DataFrame({"input": ["Hi", "Hey"], "output": ["Great, thanks!", None]})
    >>> result = evaluate(df, scorers=["similarity"])
    >>> result.table["content-similarity-scorer"].round(3).tolist(), result.skipped["reason"].tolist()
    ([0.0, nan], ["output column 'output' is empty"])
    """
    if not isinstance(df, pd.DataFrame):
        raise InputTypeError(f"df must be a pandas DataFrame; got {type(df).__name__}.")
    reference = one_reference(reference, reference_column)
    if columns is None:
        columns = _guessed(df, reference)
    spec = make_spec(
        list(df.columns), scorers=scorers, column_map=columns, reference_tone=reference_tone,
        reference=reference, engine=engine, splitter=splitter, toxicity=toxicity, courtesy=courtesy,
    )  # fmt: skip
    return run_spec(df, spec, on_progress=on_progress, workers=workers, thresholds=thresholds, judge_cache=judge_cache)


def run_spec(
    df: pd.DataFrame,
    spec: BatchSpec,
    *,
    on_progress: Progress | None = None,
    workers: int = 1,
    thresholds: Mapping[str, float] | None = None,
    judge_cache: VerdictCache | None = None,
) -> BatchResult:
    """Score every row of ``df`` as ``spec`` (from :func:`make_spec`) says: :func:`evaluate` once its options are
    checked. A caller that already holds the spec (the Batch page, which shows it before the click) hands it on
    instead of its options, so the run, its report and the run store read the spec that was shown.

    >>> import pandas as pd
    >>> df = pd.DataFrame({"input": ["Hi"], "output": ["Great, thanks!"]})
    >>> spec = make_spec(list(df.columns), scorers=["similarity"])
    >>> run_spec(df, spec).table["content-similarity-scorer"].tolist() == evaluate(df, scorers=["similarity"]).table[
    ...     "content-similarity-scorer"].tolist()
    True
    """
    if not isinstance(df, pd.DataFrame):
        raise InputTypeError(f"df must be a pandas DataFrame; got {type(df).__name__}.")
    if not isinstance(spec, BatchSpec):
        raise InputTypeError(f"spec must be a BatchSpec from make_spec(); got {type(spec).__name__}.")
    names = [str(c) for c in df.columns]
    if missing := [c for c in (spec.output, spec.input, spec.reference) if c is not None and c not in names]:
        raise InputError(f"the spec's column(s) {missing} are not in the table; found {names}.")
    _check_workers(workers)
    size = piece_rows(len(df), workers, spec)
    pieces = [df.iloc[start : start + size] for start in range(0, len(df), size)] or [df]
    scored = iter_scored(pieces, spec, workers=workers, on_progress=on_progress, total=len(df), judge_cache=judge_cache)
    return combine(list(scored), spec, thresholds)
