"""What a saved run holds, and how a batch result becomes one: texts, scores, summary, options without secrets.

A run's rows come back as one table in a fixed shape, whatever the scored file called its columns:
``row`` (from 1), ``index`` (the row's label, as text), ``input``, ``output``, ``reference``, then per
scorer its score column (named by its id), its ``<id>.<metric>`` columns and ``<id>.warnings``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import numpy as np
import pandas as pd

from scoring.batch.compare import bootstrap_mean_ci
from scoring.batch.result import BatchResult, warnings_column
from scoring.batch.rows import BatchSpec
from scoring.errors import InputError
from scoring.registry import MEASURES, find_scorer

__all__ = [
    "BOOTSTRAP_MAX_ROWS",
    "ROW_COLUMNS",
    "Run",
    "RunInfo",
    "check_name",
    "clean_text",
    "endpoint_of",
    "row_records",
    "rows_frame",
    "run_options",
    "summary_records",
]

ROW_COLUMNS = ["row", "index", "input", "output", "reference"]
#: Up to this many scores the mean's CI is the 2,000-resample bootstrap the A/B comparison uses; above it,
#: mean ± 1.96 standard errors (the same to three decimals at that size, without 2,000 × n numbers in memory).
BOOTSTRAP_MAX_ROWS = 5000
_TOXICITY_KEPT = ("engine", "threshold", "model", "base_url", "timeout", "max_retries", "parse_retries", "backoff",
                  "max_backoff")  # fmt: skip
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")  # NUL and lone surrogates: neither PostgreSQL nor UTF-8 takes them


@dataclass(frozen=True, slots=True)
class RunInfo:
    """A saved run's facts: who, when, on what, with which options, and how complete."""

    id: int
    name: str
    created_at: datetime
    source_name: str
    source_sha256: str
    scorers: tuple[str, ...]
    options: Mapping[str, object]
    row_count: int
    skipped_rows: int
    failed_rows: int
    complete: bool
    cache_hits: int = 0

    @property
    def label(self) -> str:
        """``run 7 (nightly)``: how messages and charts name the run."""
        return f"run {self.id} ({self.name})"

    def to_dict(self) -> dict[str, object]:
        """Return the facts as plain data (camelCase keys, as the rest of the package)."""
        return {
            "id": self.id, "name": self.name, "createdAt": self.created_at.isoformat(),
            "sourceName": self.source_name, "sourceSha256": self.source_sha256, "scorers": list(self.scorers),
            "options": dict(self.options), "rowCount": self.row_count, "skippedRows": self.skipped_rows,
            "failedRows": self.failed_rows, "complete": self.complete, "cacheHits": self.cache_hits,
        }  # fmt: skip


@dataclass(frozen=True)
class Run:
    """A saved run: its facts, its summary (one row per scorer), its rows and its skipped/failed rows."""

    info: RunInfo
    summary: pd.DataFrame = field(repr=False)
    rows: pd.DataFrame = field(repr=False)
    problems: pd.DataFrame = field(repr=False)


def check_name(name: object) -> str:
    """Return ``name`` stripped, or raise ValueError saying what a run name may be."""
    if not isinstance(name, str) or not name.strip():
        raise InputError(f"run name must be a non-empty text like 'nightly' or 'bot-v2'; got {name!r}.")
    text = name.strip()
    if len(text) > 200 or any(ord(c) < 32 for c in text):
        raise InputError(f"run name must be at most 200 characters on one line; got {text[:40]!r}.")
    if (text.isascii() and text.isdigit()) or text == "latest":
        raise InputError(f"run name must not be a number or 'latest' (those pick runs by id and by age); got {text!r}.")
    return clean_text(text)


def clean_text(text: str) -> str:
    """Return ``text`` with NUL characters and lone surrogates replaced by U+FFFD (no database stores them)."""
    return _UNSTORABLE.sub("\ufffd", text)


def endpoint_of(url: str) -> str:
    """Return ``scheme://host[:port]/path`` of ``url``: no user, password, query or fragment.

    >>> endpoint_of("https://user:secret@example.com:8443/v1?api-key=abc")
    'https://example.com:8443/v1'
    """
    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = host + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def run_options(spec: BatchSpec | None) -> dict[str, object]:
    """Return the run's options as plain data, without anything secret (API keys; credentials in a URL)."""
    if spec is None:
        return {}
    toxicity = dict(spec.toxicity)
    kept: dict[str, object] = {k: _cell(toxicity[k]) for k in _TOXICITY_KEPT if k in toxicity}
    if isinstance(kept.get("base_url"), str):
        kept["base_url"] = endpoint_of(str(kept["base_url"]))
    options: dict[str, object] = {  # the column of each role as "<role>_column", as saved runs have them
        "output_column": spec.output, "input_column": spec.input, "reference_tone": spec.reference_tone,
        "reference_column": spec.reference, "engine": spec.engine, "splitter": spec.splitter,
    }  # fmt: skip
    if kept:
        options["toxicity"] = kept
    if spec.courtesy:
        options["courtesy"] = dict(spec.courtesy)
    return {k: clean_text(v) if isinstance(v, str) else v for k, v in options.items()}


def _cell(value: object) -> Any:
    """A table cell as JSON-able data: NaN and missing -> None, numpy scalars -> Python, other objects -> text."""
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value) if math.isfinite(float(value)) else None
    if isinstance(value, str):
        return clean_text(value)
    return clean_text(str(value))


def _text(value: object) -> str | None:
    """A text cell: None when missing; a message list as the text the scorers read."""
    cell = value
    if not isinstance(value, str) and not _missing(value):
        from scoring.inputs import to_text

        try:
            cell = to_text(value, "cell", required=False)
        except (TypeError, ValueError):
            cell = str(value)
    return None if _missing(cell) else clean_text(str(cell))


def _missing(value: object) -> bool:
    return value is None or value is pd.NA or value is pd.NaT or (isinstance(value, float) and math.isnan(value))


def _result_columns(table: pd.DataFrame, scorers: Sequence[str]) -> tuple[list[str], dict[str, str]]:
    """The score and metric columns of ``scorers`` in table order, and each scorer's warnings column."""
    names = [str(c) for c in table.columns]
    warned = {s: warnings_column(s) for s in scorers if warnings_column(s) in names}
    values = [c for c in names if any(c == s or c.startswith(s + ".") for s in scorers) and c not in warned.values()]
    return values, warned


def rows_frame(result: BatchResult) -> pd.DataFrame:
    """Return a batch result's rows in the run shape (see the module doc), without saving them."""
    spec = result.spec
    if spec is None:
        raise InputError("result has no spec (its options): pass a result made by scoring.batch.evaluate.")
    table = result.table.reset_index(drop=False)
    index_column = table.columns[0]
    table.columns = [index_column, *[str(c) for c in result.table.columns]]
    values, warned = _result_columns(result.table, spec.scorers)

    def texts(column: str | None) -> list[str | None]:
        return [_text(v) for v in table[column]] if column else [None] * len(table)

    out = pd.DataFrame({
        "row": np.arange(1, len(table) + 1), "index": [clean_text(str(v)) for v in table[index_column]],
        "input": texts(spec.input), "output": texts(spec.output), "reference": texts(spec.reference),
    })  # fmt: skip
    extra = {c: pd.to_numeric(table[c], errors="coerce") if _numeric(table[c]) else table[c] for c in values}
    extra |= {column: table[column].fillna("").astype(str) for column in warned.values()}
    return pd.concat([out, pd.DataFrame(extra, index=out.index)], axis=1)


def _numeric(column: pd.Series) -> bool:
    return bool(pd.api.types.is_numeric_dtype(column) or pd.api.types.is_bool_dtype(column))


def row_records(rows: pd.DataFrame, scorers: Sequence[str]) -> list[dict[str, object]]:
    """The ``tone_run_rows`` records of a run-shaped table (without ``run_id``)."""
    values, warned = _result_columns(rows, scorers)
    records = []
    for record in rows.to_dict("records"):
        records.append({
            "row": int(record["row"]), "label": record["index"], "input_text": _text(record["input"]),
            "output_text": _text(record["output"]), "reference_text": _text(record["reference"]),
            "scores": {c: _cell(record[c]) for c in values},
            "warnings": {s: clean_text(str(record[c])) for s, c in warned.items() if record[c]},
        })  # fmt: skip
    return records


def summary_records(result: BatchResult, rows: pd.DataFrame) -> list[dict[str, object]]:
    """The ``tone_run_scorers`` records: the batch summary per scorer plus the 95% CI of its mean."""
    records = []
    for scorer_id, r in result.summary.iterrows():
        scores = pd.to_numeric(rows[scorer_id], errors="coerce").dropna().to_numpy(float) if scorer_id in rows else []
        low, high = _mean_ci(np.asarray(scores, dtype=float))
        records.append({
            "scorer": str(scorer_id), "lower_is_better": _lower_is_better(scorer_id),
            **{k: _cell(r.get(k)) for k in ("mean", "median", "min", "max", "threshold")},
            "ci_low": low, "ci_high": high,
            **{k: int(r.get(k, 0) or 0) for k in ("count", "skipped", "errors", "warned")},
        })  # fmt: skip
    for measure in MEASURES:  # warmth: kept beside the scores, so a name's trend shows it too
        if measure.scorer not in result.summary.index:
            continue
        values = measure.values(rows).dropna().to_numpy(float)
        if not values.size:
            continue
        low, high = _mean_ci(values)
        stats = {"mean": values.mean(), "median": np.median(values), "min": values.min(), "max": values.max()}
        records.append({
            "scorer": measure.name, "lower_is_better": measure.lower_is_better,
            **{k: _cell(float(v)) for k, v in stats.items()}, "threshold": None, "ci_low": low, "ci_high": high,
            "count": int(values.size), "skipped": 0, "errors": 0, "warned": 0,
        })  # fmt: skip
    return records


def _mean_ci(scores: np.ndarray) -> tuple[float | None, float | None]:
    if scores.size < 2:
        return None, None
    if scores.size <= BOOTSTRAP_MAX_ROWS:
        low, high = bootstrap_mean_ci(scores)
    else:
        half = 1.96 * float(scores.std(ddof=1)) / math.sqrt(scores.size)
        low, high = float(scores.mean()) - half, float(scores.mean()) + half
    return _cell(low), _cell(high)


def _lower_is_better(scorer_id: object) -> bool:
    """The scorer's lower-is-better fact (False for a column no scorer of the table owns)."""
    info = find_scorer(scorer_id)
    return info is not None and info.lower_is_better
