"""Run history: batch runs kept in a database, compared with each other, trended, and gating CI.

:class:`RunStore` saves a :class:`~scoring.batch.BatchResult` as a run and reads runs back;
:func:`compare_runs` compares two runs scorer by scorer (the A/B statistics of :mod:`scoring.batch.compare`)
and row by row; :class:`JudgeCache` keeps LLM-judge verdicts so the same rows are never paid for twice.
People's labels of a run's rows (:func:`add_labels`), their agreement with the scores (:func:`run_agreement`)
and scorers taught on them (:func:`teach`, :func:`load_taught`): docs/labels.md.
"""

from scoring.runs.cache import PROMPT_VERSION, JudgeCache, cache_key
from scoring.runs.db import DB_ENV, SCHEMA_VERSION, RunStoreError, default_url
from scoring.runs.diff import RunComparison, ScorerVerdict, compare_runs, item_deltas
from scoring.runs.labels import add_labels, labels_frame
from scoring.runs.record import Run, RunInfo, rows_frame
from scoring.runs.review import run_agreement
from scoring.runs.store import RunStore, UnknownRunError, file_sha256, scored_nothing
from scoring.runs.teach import TeachError, load_taught, teach

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
    "TeachError",
    "UnknownRunError",
    "add_labels",
    "cache_key",
    "compare_runs",
    "default_url",
    "file_sha256",
    "item_deltas",
    "labels_frame",
    "load_taught",
    "rows_frame",
    "run_agreement",
    "scored_nothing",
    "teach",
]
