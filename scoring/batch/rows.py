"""Score the rows of one table chunk: the engine room of :mod:`scoring.batch.runner` (which documents it)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

import numpy as np
import pandas as pd

from scoring.inputs import to_text
from scoring.io.columns import ColumnMap, guess_columns
from scoring.limits import check_text_length, max_text_chars
from scoring.registry import SCORER_INFO, TOXICITY, ScorerInfo, scorer_info
from scoring.result import BatchScorer, Columns, RowsDone

__all__ = [
    "TOXICITY_OPTIONS",
    "BatchSpec",
    "ChunkResult",
    "factory_options",
    "make_spec",
    "score_frame",
    "uses_judge",
]

SKIPPED_COLUMNS = ["row", "index", "scorer", "column", "reason"]
ERROR_COLUMNS = ["row", "index", "scorer", "error"]
_ROLES = {"input": "input", "reference": "ground_truth"}  # a column's name in messages -> its ScorerInfo field
#: The keyword options of ``create_toxicity_scorer`` a batch accepts in ``toxicity={...}``.
TOXICITY_OPTIONS = frozenset(
    {"engine", "threshold", "model", "base_url", "api_key", "timeout", "max_retries", "parse_retries", "backoff",
     "max_backoff"}
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class BatchSpec:
    """What to score and how: checked once by :func:`make_spec`, then sent to every worker."""

    scorers: tuple[str, ...]
    output: str
    input: str | None = None
    reference_tone: str | None = None
    reference_column: str | None = None
    engine: str = "vader"
    splitter: str = "smart"
    #: ``create_toxicity_scorer`` options as sorted (name, value) pairs; never shown (it may hold a key)
    toxicity: tuple[tuple[str, object], ...] = field(default=(), repr=False)


def factory_options(spec: BatchSpec, info: ScorerInfo) -> dict[str, object]:
    """The keyword arguments ``info``'s factory gets in this run: the spec's options the scorer reads.

    >>> factory_options(BatchSpec(("tone-scorer",), "output", engine="afinn"), scorer_info("tone"))
    {'reference_tone': None, 'engine': 'afinn', 'splitter': 'smart'}
    """
    options: dict[str, object] = {}
    for name in info.batch_options:
        value = getattr(spec, name)
        if isinstance(value, tuple):  # a keyword of options, as toxicity={...}: its (name, value) pairs
            options.update(value)
        else:
            options[name] = value
    return options


def uses_judge(spec: BatchSpec) -> bool:
    """Whether the run asks a remote engine, the LLM judge (network-bound: one process, requests in parallel)."""
    for scorer_id in spec.scorers:
        info = scorer_info(scorer_id)
        if factory_options(spec, info).get("engine", info.default_engine) in info.remote_engines:
            return True
    return False


def without_secrets(spec: BatchSpec) -> BatchSpec:
    """Return ``spec`` without the judge's API key (what a result may keep)."""
    return replace(spec, toxicity=tuple((k, v) for k, v in spec.toxicity if k != "api_key"))


def toxicity_options(options: object, scorer_ids: Sequence[str]) -> tuple[tuple[str, object], ...]:
    """Check ``toxicity={...}`` options by building the scorer once; return them as sorted pairs."""
    if options is None:
        return ()
    if not isinstance(options, Mapping):
        raise TypeError(f"toxicity must be a dict of create_toxicity_scorer options; got {type(options).__name__}.")
    if TOXICITY.id not in scorer_ids:
        raise ValueError(f"toxicity options apply only when scorers include {TOXICITY.short_name!r}.")
    if unknown := sorted(str(k) for k in options if k not in TOXICITY_OPTIONS):
        raise ValueError(f"toxicity options must be among {sorted(TOXICITY_OPTIONS)}; got {unknown}.")
    TOXICITY.factory(**options)  # checks every value; its messages never contain the key
    return tuple(sorted((str(k), v) for k, v in options.items()))


def make_spec(
    columns: Sequence[object],
    *,
    scorers: Sequence[str] = ("tone", "similarity"),
    column_map: ColumnMap | None = None,
    reference_tone: str | None = None,
    reference_column: str | None = None,
    engine: str = "vader",
    splitter: str = "smart",
    toxicity: Mapping[str, object] | None = None,
) -> BatchSpec:
    """Check the options against the table's ``columns`` and return the spec; raise ValueError naming the problem.

    ``toxicity`` holds options of ``create_toxicity_scorer`` (e.g. ``{"engine": "judge", "model": ...}``).
    """
    if isinstance(scorers, str) or not scorers:
        raise ValueError(f"scorers must be a non-empty list like ['tone', 'similarity']; got {scorers!r}.")
    ids = tuple(dict.fromkeys(scorer_info(s).id for s in scorers))
    names = [str(c) for c in columns]
    mapping = column_map or guess_columns(names)
    if mapping.output is None or mapping.output not in names:
        raise ValueError(
            f"output column {mapping.output!r} not found: choose the column with the responses; found {names}."
        )
    for info in map(scorer_info, ids):
        for role, column in (("input", mapping.input), ("reference", reference_column)):
            if getattr(info, _ROLES[role]) == "required" and (column is None or column not in names):
                raise ValueError(f"{info.short_name} needs the {role} column: choose the {role} column; found {names}.")
    chosen = [c for c in (mapping.output, mapping.input, reference_column) if c is not None]
    if twice := sorted({c for c in chosen if names.count(c) > 1}):
        raise ValueError(f"column(s) {twice} appear more than once in the table; rename them apart first.")
    if reference_tone is not None and reference_column is not None:
        raise ValueError("give either reference_tone (one text for all rows) or reference_column, not both.")
    if reference_column is not None and reference_column not in names:
        raise ValueError(f"reference column {reference_column!r} not found; found {names}.")
    if reference_tone is not None and (not isinstance(reference_tone, str) or not reference_tone.strip()):
        raise ValueError(f"reference_tone must be a non-empty text; got {reference_tone!r}.")
    if clash := sorted({c for c in names for i in ids if c == i or c.startswith(i + ".")}):
        raise ValueError(f"the table already has result column(s) {clash}: drop or rename them before scoring again.")
    checked = toxicity_options(toxicity, ids)
    spec = BatchSpec(ids, mapping.output, mapping.input, reference_tone, reference_column, engine, splitter, checked)
    for info in SCORER_INFO:  # every option given is checked (engine, splitter, ...), chosen scorer or not
        _scorer(info.id, spec)
    return spec


@lru_cache(maxsize=32)
def _scorer(scorer_id: str, spec: BatchSpec) -> BatchScorer:
    """Build a scorer once per process (engines and classifiers load once)."""
    info = scorer_info(scorer_id)
    return info.factory(**factory_options(spec, info))


def _is_missing(value: object) -> bool:
    return value is None or value is pd.NA or value is pd.NaT or (isinstance(value, float) and math.isnan(value))


def _texts(values: Iterable[object], role: str, column: str) -> tuple[list[str | None], dict[int, str]]:
    """Return each value as text (None where unusable) and, by position, why it is unusable."""
    texts: list[str | None] = []
    reasons: dict[int, str] = {}
    limit = max_text_chars()  # to_text checks it too, but str cells skip to_text
    for i, value in enumerate(values):
        try:
            text = value if isinstance(value, str) else None if _is_missing(value) else to_text(value, role)
            if text is not None and len(text) > limit:
                check_text_length(text, role)
        except (TypeError, ValueError) as exc:
            text, reasons[i] = None, f"{role} column {column!r}: {exc}"
        if text is None and i not in reasons:
            reasons[i] = f"{role} column {column!r} is empty"
        elif text is not None and not text.strip():
            text, reasons[i] = None, f"{role} column {column!r} is blank (only whitespace)"
        texts.append(text)
    return texts, reasons


@dataclass(frozen=True, slots=True)
class ChunkResult:
    """One chunk scored: its table (input columns + results) and the rows skipped or failed."""

    table: pd.DataFrame
    skipped: pd.DataFrame
    errors: pd.DataFrame


def score_frame(
    df: pd.DataFrame, spec: BatchSpec, *, row_offset: int = 0, on_rows: RowsDone | None = None
) -> ChunkResult:
    """Score every row of ``df``; ``row_offset`` is the number of rows before it in the file.

    ``on_rows(n)`` is called, in the calling thread, as a scorer finishes rows of this chunk (the LLM judge row
    by row).
    """
    labels = {str(c): c for c in df.columns}  # the spec names columns as text; a label may be a number

    def texts(name: str | None, role: str) -> tuple[list[str | None], dict[int, str]]:
        return _texts(df[labels[name]], role, name) if name else ([None] * len(df), {})

    outputs, out_why = texts(spec.output, "output")
    given = {_ROLES[role]: (column, *texts(column, role))
             for role, column in (("input", spec.input), ("reference", spec.reference_column))}  # fmt: skip
    rows, index = np.arange(len(df)) + row_offset + 1, list(df.index)
    skipped: list[tuple[object, ...]] = []
    errors: list[tuple[object, ...]] = []
    columns: dict[str, list[object]] = {}
    for scorer_id in spec.scorers:
        info = scorer_info(scorer_id)
        uses = {role: getattr(info, role) for role in given}
        why: dict[int, tuple[str | None, str]] = {i: (spec.output, reason) for i, reason in out_why.items()}
        for role, (column, _, reasons) in given.items():
            if uses[role] in ("required", "optional"):  # a row whose cell is empty is not scored
                for i, reason in reasons.items():
                    why.setdefault(i, (column, reason))
        skipped.extend((int(rows[i]), index[i], scorer_id, *why[i]) for i in sorted(why))
        todo = [i for i in range(len(df)) if i not in why]
        sides = {
            role: [values[i] for i in todo] if column is not None and uses[role] != "unused" else None
            for role, (column, values, _) in given.items()
        }
        result, failed = _run_scorer(
            scorer_id, spec, [outputs[i] or "" for i in todo], sides["input"], sides["ground_truth"], on_rows
        )
        errors.extend((int(rows[todo[k]]), index[todo[k]], scorer_id, message) for k, message in failed.items())
        for key, values in result.items():
            columns[scorer_id if key == "score" else f"{scorer_id}.{key}"] = _spread(values, todo, len(df), key)
    table = pd.concat([df, pd.DataFrame(columns, index=df.index)], axis=1)
    skipped_df = pd.DataFrame(skipped, columns=SKIPPED_COLUMNS).sort_values(["row", "scorer"], kind="stable")
    return ChunkResult(table, skipped_df.reset_index(drop=True), pd.DataFrame(errors, columns=ERROR_COLUMNS))


def _spread(values: Sequence[object], todo: list[int], n: int, key: str) -> list[object]:
    out: list[object] = ["" if key == "warnings" else math.nan] * n  # a row not scored has no warning either
    for i, value in zip(todo, values, strict=True):
        out[i] = value
    return out


def _run_scorer(
    scorer_id: str,
    spec: BatchSpec,
    outputs: list[str],
    inputs: list[str | None] | None,
    ground_truths: list[str | None] | None,
    on_rows: RowsDone | None,
) -> tuple[Columns, dict[int, str]]:
    """Return the score and metric columns for these rows, and error messages by position.

    A row's error (the judge failing on it) leaves its score NaN; the scorer failing as a whole (its
    model or endpoint) gives every row the error.
    """
    scorer = _scorer(scorer_id, spec)
    try:
        result = dict(scorer.score_many(outputs=outputs, inputs=inputs, ground_truths=ground_truths, on_row=on_rows))
    except Exception as exc:
        message = f"{type(exc).__name__}: {exc}"
        return {"score": [math.nan] * len(outputs)}, dict.fromkeys(range(len(outputs)), message)
    messages = result.pop("error", None) or [None] * len(outputs)
    failed = {k: str(m) for k, m in enumerate(messages) if m}
    return {key: values if key == "warnings" else _numbers(values) for key, values in result.items()}, failed


def _numbers(values: list[Any]) -> list[Any]:
    """The values as floats; a missing or non-numeric value (a failed row's count) is NaN."""
    return values if all(type(v) is float for v in values) else [_number(v) for v in values]


def _number(value: object) -> float:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return math.nan
