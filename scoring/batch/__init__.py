"""Batch evaluation of tables of responses: specs, the runner, results, retries, Dask, A/B statistics, views, report.

Scorers are reached through :mod:`scoring.registry` only, and scoring rows never names a scorer; only the checks
of ``toxicity={...}`` options and the tone language notice are about one scorer.
"""

from scoring.batch.result import DEFAULT_THRESHOLD, BatchResult, SummaryBuilder, combine
from scoring.batch.retry import retry_errors
from scoring.batch.rows import BatchSpec, ChunkResult, make_spec, score_frame, with_toxicity
from scoring.batch.runner import evaluate, iter_scored, run_spec

__all__ = [
    "DEFAULT_THRESHOLD",
    "BatchResult",
    "BatchSpec",
    "ChunkResult",
    "SummaryBuilder",
    "combine",
    "evaluate",
    "iter_scored",
    "make_spec",
    "retry_errors",
    "run_spec",
    "score_frame",
    "with_toxicity",
]
