"""Score the rows of one table chunk: the engine room of :mod:`scoring.batch.runner` (which documents it)."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

import numpy as np
import pandas as pd

from scoring.inputs import to_text
from scoring.io.loaders import ColumnMap, guess_columns
from scoring.limits import check_text_length, max_text_chars

__all__ = ["SCORER_IDS", "TOXICITY_OPTIONS", "BatchSpec", "ChunkResult", "make_spec", "score_frame", "uses_judge"]

#: Short names accepted for each scorer id.
SCORER_IDS = {"tone": "tone-scorer", "similarity": "content-similarity-scorer", "toxicity": "toxicity-scorer"}
SKIPPED_COLUMNS = ["row", "index", "scorer", "column", "reason"]
ERROR_COLUMNS = ["row", "index", "scorer", "error"]
#: The keyword options of ``create_toxicity_scorer`` a batch accepts in ``toxicity={...}``.
TOXICITY_OPTIONS = frozenset(
    {"engine", "threshold", "model", "base_url", "api_key", "timeout", "max_retries", "parse_retries", "backoff",
     "max_backoff"}
)  # fmt: skip
RowsDone = Callable[[int], object]


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


def uses_judge(spec: BatchSpec) -> bool:
    """Whether the run asks an LLM judge (network-bound: it runs in one process, requests in parallel)."""
    return "toxicity-scorer" in spec.scorers and dict(spec.toxicity).get("engine") == "judge"


def without_secrets(spec: BatchSpec) -> BatchSpec:
    """Return ``spec`` without the judge's API key (what a result may keep)."""
    return replace(spec, toxicity=tuple((k, v) for k, v in spec.toxicity if k != "api_key"))


def toxicity_options(options: object, scorer_ids: Sequence[str]) -> tuple[tuple[str, object], ...]:
    """Check ``toxicity={...}`` options by building the scorer once; return them as sorted pairs.

    The engine is always recorded (the default engine of this machine when none is given), so every worker
    uses the same one and the result says which it was.
    """
    if options is None:
        options = {} if "toxicity-scorer" in scorer_ids else None
    if options is None:
        return ()
    if not isinstance(options, Mapping):
        raise TypeError(f"toxicity must be a dict of create_toxicity_scorer options; got {type(options).__name__}.")
    if "toxicity-scorer" not in scorer_ids:
        raise ValueError("toxicity options apply only when scorers include 'toxicity'.")
    if unknown := sorted(str(k) for k in options if k not in TOXICITY_OPTIONS):
        raise ValueError(f"toxicity options must be among {sorted(TOXICITY_OPTIONS)}; got {unknown}.")
    factory = _toxicity_factory()
    assert factory is not None  # _scorer_id checked it
    scorer = factory(**options)  # checks every value; its messages never contain the key
    chosen = {"engine": getattr(scorer, "engine", None), **options} if "engine" not in options else dict(options)
    return tuple(sorted((str(k), v) for k, v in chosen.items()))


def _toxicity_factory() -> Callable[..., object] | None:
    import importlib

    try:
        toxicity = importlib.import_module("scoring.toxicity.scorer")
    except ImportError:
        return None
    factory = getattr(toxicity, "create_toxicity_scorer", None)
    return factory if callable(factory) else None


def _scorer_id(name: object) -> str:
    ids = set(SCORER_IDS.values())
    if isinstance(name, str) and (name in ids or name in SCORER_IDS):
        scorer_id = SCORER_IDS.get(name, name)
        if scorer_id == "toxicity-scorer" and _toxicity_factory() is None:
            raise ValueError("the toxicity scorer is not available in this installation (scoring.toxicity.scorer).")
        return scorer_id
    raise ValueError(f"scorers must be among {sorted(SCORER_IDS)} or their ids {sorted(ids)}; got {name!r}.")


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
    from scoring.tone.scorer import create_tone_scorer

    if isinstance(scorers, str) or not scorers:
        raise ValueError(f"scorers must be a non-empty list like ['tone', 'similarity']; got {scorers!r}.")
    ids = tuple(dict.fromkeys(_scorer_id(s) for s in scorers))
    names = [str(c) for c in columns]
    mapping = column_map or guess_columns(names)
    if mapping.output is None or mapping.output not in names:
        raise ValueError(
            f"output column {mapping.output!r} not found: choose the column with the responses; found {names}."
        )
    if "content-similarity-scorer" in ids and (mapping.input is None or mapping.input not in names):
        raise ValueError(f"similarity compares input and output: choose the input column; found {names}.")
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
    create_tone_scorer(reference_tone, engine=engine, splitter=splitter)  # checks engine and splitter
    checked = toxicity_options(toxicity, ids)
    return BatchSpec(ids, mapping.output, mapping.input, reference_tone, reference_column, engine, splitter, checked)


@lru_cache(maxsize=32)
def _scorer(scorer_id: str, spec: BatchSpec) -> object:
    """Build a scorer once per process (engines and classifiers load once)."""
    from scoring.similarity.scorer import create_content_similarity_scorer
    from scoring.tone.scorer import create_tone_scorer

    if scorer_id == "tone-scorer":
        return create_tone_scorer(spec.reference_tone, engine=spec.engine, splitter=spec.splitter)
    if scorer_id == "content-similarity-scorer":
        return create_content_similarity_scorer()
    factory = _toxicity_factory()
    assert factory is not None  # make_spec checked it
    return factory(**dict(spec.toxicity))


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

    ``on_rows(n)`` is called, in the calling thread, as the LLM judge finishes rows of this chunk.
    """
    labels = {str(c): c for c in df.columns}  # the spec names columns as text; a label may be a number

    def texts(name: str | None, role: str) -> tuple[list[str | None], dict[int, str]]:
        return _texts(df[labels[name]], role, name) if name else ([None] * len(df), {})

    outputs, out_why = texts(spec.output, "output")
    inputs, in_why = texts(spec.input, "input")
    refs, ref_why = texts(spec.reference_column, "reference")
    needs = {"tone-scorer": (refs, ref_why, spec.reference_column), "toxicity-scorer": (inputs, {}, spec.input)}
    rows, index = np.arange(len(df)) + row_offset + 1, list(df.index)
    skipped: list[tuple[object, ...]] = []
    errors: list[tuple[object, ...]] = []
    columns: dict[str, list[object]] = {}
    for scorer_id in spec.scorers:
        others, other_why, other_column = needs.get(scorer_id, (inputs, in_why, spec.input))
        why = {**other_why, **out_why}
        skipped.extend(
            (int(rows[i]), index[i], scorer_id, spec.output if i in out_why else other_column, why[i])
            for i in sorted(why)
        )
        todo = [i for i in range(len(df)) if i not in why]
        result, failed = _run_scorer(
            scorer_id, spec, [outputs[i] or "" for i in todo], [others[i] for i in todo], on_rows
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
    scorer_id: str, spec: BatchSpec, outputs: list[str], others: list[str | None], on_rows: RowsDone | None
) -> tuple[dict[str, list[Any]], dict[int, str]]:
    """Return the score and metric columns for these rows, and error messages by position."""
    scorer: Any = _scorer(scorer_id, spec)
    if scorer_id == "content-similarity-scorer":
        return scorer.score_many([o or "" for o in others], outputs), {}
    if scorer_id == "tone-scorer":
        refs = others if spec.reference_column else None
        return {**scorer.score_many(outputs, refs), "warnings": _tone_warnings(outputs, refs, spec)}, {}
    try:  # toxicity: {"score", <metrics>..., "error"}; a row's error leaves its score NaN
        if uses_judge(spec):
            from scoring.toxicity.judge.batch import judge_many

            result = judge_many(scorer, outputs, others if spec.input else None, on_row=on_rows)
        else:
            result = dict(scorer.score_many(outputs, others if spec.input else None))
    except Exception as exc:  # the model or judge failing as a whole: every row gets the error
        message = f"{type(exc).__name__}: {exc}"
        return {"score": [math.nan] * len(outputs)}, dict.fromkeys(range(len(outputs)), message)
    messages = result.pop("error", None) or [None] * len(outputs)
    failed = {k: str(m) for k, m in enumerate(messages) if m}
    numbers = {key: [_number(v) for v in values] for key, values in result.items()}
    return numbers, failed


def _tone_warnings(outputs: list[str], refs: Sequence[str | None] | None, spec: BatchSpec) -> list[str]:
    """Each row's tone warnings (a language the engine does not cover), joined; "" when none.

    The reference tone is checked once; each distinct (output, reference) pair once.
    """
    from scoring.tone.scorer import tone_warnings

    found: dict[tuple[str, str | None], str] = {}
    texts = refs if refs is not None else [spec.reference_tone] * len(outputs)
    for pair in zip(outputs, texts, strict=True):
        if pair not in found:
            found[pair] = " ".join(tone_warnings(pair[0], pair[1] or None, spec.engine))
    return [found[pair] for pair in zip(outputs, texts, strict=True)]


def _number(value: object) -> float:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return math.nan
