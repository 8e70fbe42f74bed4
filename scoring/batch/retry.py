"""Score again only the rows a batch run failed on (the LLM judge timing out, say), and merge them in.

Documented from :mod:`scoring.batch.runner`, which re-exports :func:`retry_errors`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace

import pandas as pd

from scoring.batch.result import BatchResult, SummaryBuilder
from scoring.batch.rows import ERROR_COLUMNS, BatchSpec, ChunkResult, factory_options, score_frame, toxicity_options
from scoring.errors import InputError, InputTypeError
from scoring.registry import ScorerInfo, scorer_info

__all__ = ["retry_errors"]


def _kept(spec: BatchSpec, info: ScorerInfo) -> dict[str, object]:
    options = factory_options(spec, info)
    return {name: options.get(name) or default for name, default in info.retry_keeps.items()}


def _same_options(recorded: BatchSpec, given: BatchSpec, scorer_ids: Iterable[str]) -> None:
    """Refuse options that would fill one table with two engines or models (each scorer's ``retry_keeps``)."""
    for info in map(scorer_info, scorer_ids):
        if (was := _kept(recorded, info)) != (now := _kept(given, info)):
            raise InputError(
                f"retry with the run's {info.short_name} options {was}; got {now} (one table must not mix them)."
            )


def _retry_spec(result: BatchResult, toxicity: Mapping[str, object] | None) -> BatchSpec:
    if not isinstance(result, BatchResult):
        raise InputTypeError(f"result must be a BatchResult from evaluate(); got {type(result).__name__}.")
    if result.spec is None:
        raise InputError("this result does not record the options it was scored with: run evaluate() again.")
    if toxicity is None:
        return result.spec  # a judge key comes from OPENAI_API_KEY then, as at first
    spec = replace(result.spec, toxicity=toxicity_options(toxicity, result.spec.scorers))
    _same_options(result.spec, spec, result.errors["scorer"].unique())
    return spec


def _input_frame(result: BatchResult, df: pd.DataFrame | None) -> pd.DataFrame:
    """The scored input: ``df`` checked against the result, or the result's own input columns."""
    if df is None:
        spec = result.spec
        assert spec is not None
        mine = {str(c) for c in result.table.columns for i in spec.scorers if c == i or str(c).startswith(i + ".")}
        return result.table[[c for c in result.table.columns if str(c) not in mine]]
    if not isinstance(df, pd.DataFrame):
        raise InputTypeError(f"df must be the pandas DataFrame that was scored; got {type(df).__name__}.")
    if len(df) != len(result.table) or not df.index.equals(result.table.index):
        raise InputError(
            f"df must be the table that was scored ({len(result.table):,} rows, same index); got {len(df):,} rows."
        )
    return df


def _merge(table: pd.DataFrame, scored: pd.DataFrame, positions: list[int], scorer_id: str) -> None:
    """Write ``scored``'s columns of ``scorer_id`` into ``table`` at ``positions`` (adding missing metrics)."""
    mine = [c for c in scored.columns if c == scorer_id or str(c).startswith(scorer_id + ".")]
    for column in mine:
        if column not in table.columns:
            have = [i for i, c in enumerate(table.columns) if c == scorer_id or str(c).startswith(scorer_id + ".")]
            filler: object = "" if str(column).endswith(".warnings") else float("nan")
            table.insert(have[-1] + 1 if have else len(table.columns), column, filler)
        table.iloc[positions, table.columns.get_loc(column)] = scored[column].to_numpy()


def retry_errors(
    result: BatchResult,
    df: pd.DataFrame | None = None,
    *,
    toxicity: Mapping[str, object] | None = None,
    on_progress: Callable[[int, int], object] | None = None,
) -> BatchResult:
    """Score again only the rows listed in ``result.errors``, with the run's options; return the merged result.

    Rows that were scored keep their values; skipped rows (missing text) stay skipped. ``df`` is the table
    that was scored (default: ``result.table``'s input columns, which it keeps unchanged). ``toxicity``
    gives the judge's options again, e.g. with its ``api_key`` (a result never keeps the key); the engine
    and model must be the run's. Rows that fail again stay in ``errors``. ``on_progress(done, total)``
    counts the failed rows.
    """
    spec = _retry_spec(result, toxicity)
    source = _input_frame(result, df)
    if result.errors.empty:
        return result
    table, errors, done, total = result.table.copy(), result.errors, 0, len(result.errors)
    for scorer_id, part in result.errors.groupby("scorer", sort=False):
        positions = sorted(int(r) - 1 for r in part["row"])

        def rows_done(k: int, before: int = done) -> None:
            if on_progress is not None:
                on_progress(before + k, total)

        chunk = score_frame(source.iloc[positions], replace(spec, scorers=(str(scorer_id),)), on_rows=rows_done)
        _merge(table, chunk.table, positions, str(scorer_id))
        again = chunk.errors.assign(row=[positions[int(r) - 1] + 1 for r in chunk.errors["row"]])
        errors = pd.concat([errors[errors["scorer"] != scorer_id], again], ignore_index=True)
        done += len(positions)
        if on_progress is not None:
            on_progress(done, total)
    errors = errors.sort_values(["row", "scorer"], kind="stable").reset_index(drop=True)[ERROR_COLUMNS]
    builder = SummaryBuilder(spec.scorers)
    builder.add(ChunkResult(table, result.skipped, errors))
    return BatchResult(table, builder.summary(result.summary["threshold"].to_dict()), result.skipped, errors,
                       result.spec)  # fmt: skip
