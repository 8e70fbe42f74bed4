"""Run history: batch runs kept in a database, compared with each other, trended, and gating CI.

:class:`RunStore` saves a :class:`~scoring.batch.BatchResult` as a run and reads runs back;
:func:`compare_runs` compares two runs scorer by scorer (the A/B statistics of :mod:`scoring.batch.compare`)
and row by row; :class:`JudgeCache` keeps LLM-judge verdicts so the same rows are never paid for twice.
"""

from scoring.runs.cache import PROMPT_VERSION, JudgeCache, cache_key
from scoring.runs.db import DB_ENV, SCHEMA_VERSION, RunStoreError, default_url
from scoring.runs.diff import RunComparison, ScorerVerdict, compare_runs, item_deltas
from scoring.runs.record import Run, RunInfo, rows_frame
from scoring.runs.store import RunStore, UnknownRunError, file_sha256, scored_nothing

__all__ = [
    "DB_ENV",
    "PROMPT_VERSION",
    "SCHEMA_VERSION",
    "JudgeCache",
    "Run",
    "RunComparison",
    "RunInfo",
    "RunStore",
    "RunStoreError",
    "ScorerVerdict",
    "UnknownRunError",
    "cache_key",
    "compare_runs",
    "default_url",
    "file_sha256",
    "item_deltas",
    "rows_frame",
    "scored_nothing",
]
