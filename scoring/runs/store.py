"""The run store: save a batch result as a run, list, find, read and delete runs, and follow a name's trend.

>>> import tempfile, pandas as pd
>>> from scoring.batch import evaluate
>>> folder = tempfile.mkdtemp()
>>> store = RunStore(f"sqlite:///{folder}/runs.sqlite")
>>> result = evaluate(pd.DataFrame({"input": ["Hi"], "output": ["Glad to help!"]}), scorers=["tone"])
>>> info = store.save(result, name="nightly", source_name="replies.csv", source_sha256="0" * 64)
>>> store.resolve("nightly").id == store.resolve("latest").id == info.id, info.row_count, info.complete
(True, 1, True)
>>> store.close()

A save is one transaction: an error or a killed process leaves no part of the run. Runs are named by id
(a number), by name (the newest run with that name) or ``latest``; so a name is never a number.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import UTC, datetime
from os import PathLike
from typing import IO, Any

import pandas as pd
import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from scoring.batch.result import BatchResult
from scoring.errors import InputError, InputTypeError, UnknownRunError
from scoring.registry import TONE
from scoring.runs.db import (
    display_url,
    ensure_schema,
    labels,
    make_engine,
    run_problems,
    run_rows,
    run_scorers,
    runs,
    transaction,
)
from scoring.runs.record import (
    ROW_COLUMNS,
    Run,
    RunInfo,
    check_name,
    clean_text,
    row_records,
    rows_frame,
    run_options,
    summary_records,
)

__all__ = ["INSERT_BATCH", "RunStore", "UnknownRunError", "file_sha256", "scored_nothing"]

INSERT_BATCH = 2000  # rows sent per INSERT statement (bounded parameter memory on 100k-row runs)
SUMMARY_COLUMNS = ["mean", "ci_low", "ci_high", "median", "min", "max", "threshold", "count", "skipped", "errors",
                   "warned", "lower_is_better"]  # fmt: skip
PROBLEM_COLUMNS = ["row", "scorer", "kind", "column", "message"]


def file_sha256(source: str | PathLike[str] | IO[bytes] | bytes) -> str:
    """Return the SHA-256 of a file (by path or open binary handle, read in 1 MiB pieces) or of bytes."""
    digest = hashlib.sha256()
    if isinstance(source, bytes):
        digest.update(source)
        return digest.hexdigest()
    if isinstance(source, (str, PathLike)):
        with open(source, "rb") as handle:
            return file_sha256(handle)
    for piece in iter(lambda: source.read(1 << 20), b""):
        digest.update(piece)
    return digest.hexdigest()


def scored_nothing(result: BatchResult) -> list[str]:
    """For each scorer of ``result`` that scored none of its rows: its id, how many rows failed and were skipped."""
    summary = result.summary
    if "count" not in summary.columns:
        return []
    return [
        f"{scorer_id} scored none of the {len(result.table):,} rows ({int(r['errors']):,} failed, "
        f"{int(r['skipped']):,} skipped)"
        for scorer_id, r in summary.iterrows()
        if not r["count"]
    ]


class RunStore:
    """Runs in a SQL database: ``url`` (default ``TONE_EXPLORER_DB``, else SQLite in the user-data folder).

    The schema is created, upgraded or refused on first use (:func:`scoring.runs.db.ensure_schema`).
    Safe to share between threads; several processes may use the same store at once.
    """

    def __init__(self, url: str | None = None, *, engine: Engine | None = None) -> None:
        self.engine = engine if engine is not None else make_engine(url)
        self._ready = False

    @property
    def location(self) -> str:
        """Where the runs are kept: the SQLite file's path, or the database URL without its password."""
        return display_url(self.engine)

    def __repr__(self) -> str:
        return f"RunStore({self.location!r})"

    def close(self) -> None:
        """Close the store's connections."""
        self.engine.dispose()

    def transaction(self, *, write: bool) -> Any:
        """One transaction on the store, created or upgraded first if needed (:func:`scoring.runs.db.transaction`)."""
        if not self._ready:
            ensure_schema(self.engine)
            self._ready = True
        return transaction(self.engine, write=write)

    # -- saving -----------------------------------------------------------------------------------------

    def save(
        self,
        result: BatchResult,
        *,
        name: str,
        source_name: str,
        source_sha256: str,
        created_at: datetime | None = None,
        allow_empty: bool = False,
    ) -> RunInfo:
        """Save ``result`` as a new run, in one transaction; return its facts (with the new id).

        ``source_name`` is the scored file's name (its folders are dropped) and ``source_sha256`` its
        SHA-256 (:func:`file_sha256`). Options are kept without any API key or URL credentials. A run in
        which a scorer scored no row is refused (as a baseline it would let every later run pass, or
        block it for good) unless ``allow_empty`` (the CLI's ``--save-empty``).
        """
        if not isinstance(result, BatchResult):
            raise InputTypeError(
                f"result must be a BatchResult from scoring.batch.evaluate; got {type(result).__name__}."
            )
        name = check_name(name)
        if not isinstance(source_name, str) or not source_name.strip():
            raise InputError(f"source_name must be the scored file's name; got {source_name!r}.")
        sha = str(source_sha256).lower()
        if len(sha) != 64 or any(c not in "0123456789abcdef" for c in sha):
            raise InputError(f"source_sha256 must be 64 hexadecimal digits; got {source_sha256!r}.")
        rows = rows_frame(result)
        scorers = tuple(result.spec.scorers) if result.spec is not None else ()
        if not allow_empty and (empty := scored_nothing(result)):
            raise InputError(f"not saved: {'; '.join(empty)}. A run that scored nothing cannot serve as a baseline; "
                             "save it anyway with allow_empty=True (the CLI's --save-empty).")  # fmt: skip
        records = row_records(rows, scorers)
        problems = _problem_records(result)
        skipped_rows = len(set(result.skipped["row"])) if not result.skipped.empty else 0
        failed_rows = len(set(result.errors["row"])) if not result.errors.empty else 0
        cached = result.summary["cached"] if "cached" in result.summary.columns else pd.Series(dtype=float)
        values = {
            "name": name, "created_at": created_at or datetime.now(UTC),
            "source_name": clean_text(source_name.replace("\\", "/").rsplit("/", 1)[-1]), "source_sha256": sha,
            "scorers": list(scorers), "options": run_options(result.spec), "row_count": len(rows),
            "skipped_rows": skipped_rows, "failed_rows": failed_rows, "complete": result.complete,
            "cache_hits": int(cached.fillna(0).sum()),
        }  # fmt: skip
        summary = summary_records(result, rows)
        with self.transaction(write=True) as conn:
            run_id = int(conn.execute(runs.insert().values(**values)).inserted_primary_key[0])
            if summary:
                conn.execute(run_scorers.insert(), [{"run_id": run_id, **r} for r in summary])
            for start in range(0, len(records), INSERT_BATCH):
                conn.execute(
                    run_rows.insert(), [{"run_id": run_id, **r} for r in records[start : start + INSERT_BATCH]]
                )
            if problems:
                conn.execute(run_problems.insert(), [{"run_id": run_id, **p} for p in problems])
        return _info({**values, "id": run_id})

    # -- finding ----------------------------------------------------------------------------------------

    def list_runs(
        self, *, name: str | None = None, source: str | None = None, limit: int | None = None
    ) -> list[RunInfo]:
        """Return runs newest first; ``name``/``source`` keep those whose name/file name contains the text."""
        query = sa.select(runs).order_by(runs.c.id.desc())
        for column, text in ((runs.c.name, name), (runs.c.source_name, source)):
            if text:
                query = query.where(sa.func.lower(column).contains(text.strip().lower(), autoescape=True))
        if limit is not None:
            query = query.limit(limit)
        with self.transaction(write=False) as conn:
            return [_info(r._mapping) for r in conn.execute(query)]

    def table(self, *, name: str | None = None, source: str | None = None) -> pd.DataFrame:
        """Return the runs as a table, newest first: id, name, created, source, rows, complete, a mean per scorer."""
        infos = self.list_runs(name=name, source=source)
        columns = ["id", "name", "created", "source", "sha256", "rows", "complete", "skipped", "failed"]
        if not infos:
            return pd.DataFrame(columns=columns)
        with self.transaction(write=False) as conn:
            query = sa.select(run_scorers.c.run_id, run_scorers.c.scorer, run_scorers.c.mean).where(
                run_scorers.c.run_id.in_([i.id for i in infos])
            )
            means = pd.DataFrame(conn.execute(query).all(), columns=["id", "scorer", "mean"])
        frame = pd.DataFrame([
            {"id": i.id, "name": i.name, "created": i.created_at, "source": i.source_name,
             "sha256": i.source_sha256[:12], "rows": i.row_count, "complete": i.complete,
             "skipped": i.skipped_rows, "failed": i.failed_rows}
            for i in infos
        ])  # fmt: skip
        if not means.empty:
            wide = means.pivot(index="id", columns="scorer", values="mean")
            order = list(dict.fromkeys(s for i in infos for s in i.scorers if s in wide.columns))
            wide = wide[order + [c for c in wide.columns if c not in order]]
            wide.columns = [f"{c} mean" for c in wide.columns]
            frame = frame.merge(wide, left_on="id", right_index=True, how="left")
        return frame

    def resolve(self, ref: str | int) -> RunInfo:
        """Return the run ``ref`` names: an id, a name (the newest run with it) or ``latest``."""
        text = str(ref).strip()
        query = sa.select(runs).order_by(runs.c.id.desc()).limit(1)
        if text == "latest":
            pass
        elif text.isascii() and text.isdigit():  # "²" and "٣" are digits to str.isdigit, not to int()
            query = query.where(runs.c.id == int(text))
        else:
            query = query.where(runs.c.name == text)
        with self.transaction(write=False) as conn:
            row = conn.execute(query).first()
        if row is None:
            what = "no runs yet" if text == "latest" else f"no run with id or name {text!r}"
            raise UnknownRunError(
                f"the run store {self.location} has {what}: give a run id, a run name or 'latest' "
                "(python -m scoring runs list shows them)."
            )
        return _info(row._mapping)

    def get(self, ref: str | int) -> Run:
        """Return the whole run ``ref`` names: facts, summary, rows and skipped/failed rows."""
        info = self.resolve(ref)
        with self.transaction(write=False) as conn:
            return Run(info, _summary(conn, info), _rows(conn, info), _problems(conn, info.id))

    def rows(self, ref: str | int) -> pd.DataFrame:
        """Return the rows of the run ``ref`` names (see :mod:`scoring.runs.record` for the columns)."""
        info = self.resolve(ref)
        with self.transaction(write=False) as conn:
            return _rows(conn, info)

    def trend(self, name: str) -> pd.DataFrame:
        """Return each scorer's mean and 95% CI in every run called ``name``, oldest first.

        Columns: run_id, name, created_at, scorer, mean, ci_low, ci_high, count, lower_is_better.
        """
        query = (
            sa.select(runs.c.id, runs.c.name, runs.c.created_at, run_scorers.c.scorer, run_scorers.c.mean,
                      run_scorers.c.ci_low, run_scorers.c.ci_high, run_scorers.c.count, run_scorers.c.lower_is_better)
            .join(run_scorers, run_scorers.c.run_id == runs.c.id)
            .where(runs.c.name == str(name).strip())
            .order_by(runs.c.id, run_scorers.c.scorer)
        )  # fmt: skip
        columns = ["run_id", "name", "created_at", "scorer", "mean", "ci_low", "ci_high", "count", "lower_is_better"]
        with self.transaction(write=False) as conn:
            frame = pd.DataFrame(conn.execute(query).all(), columns=columns)
        frame["created_at"] = [_utc(t) for t in frame["created_at"]]
        return frame

    def names(self) -> list[str]:
        """Return the run names in the store, most recently used first."""
        query = sa.select(runs.c.name, sa.func.max(runs.c.id).label("last")).group_by(runs.c.name)
        with self.transaction(write=False) as conn:
            return [r.name for r in sorted(conn.execute(query), key=lambda r: -r.last)]

    # -- renaming and deleting -------------------------------------------------------------------------

    def rename(self, ref: str | int, name: str) -> RunInfo:
        """Give the run ``ref`` names a new name (:func:`check_name`); return its facts under the new name."""
        new = check_name(name)
        info = self.resolve(ref)
        with self.transaction(write=True) as conn:
            if conn.execute(runs.update().where(runs.c.id == info.id).values(name=new)).rowcount == 0:
                raise UnknownRunError(f"run {info.id} was deleted meanwhile by another process.")
        return self.resolve(info.id)

    def delete(self, ref: str | int) -> RunInfo:
        """Delete the run ``ref`` names (its rows, summary, problems and labels too), in one transaction."""
        info = self.resolve(ref)
        with self.transaction(write=True) as conn:
            for table in (labels, run_problems, run_rows, run_scorers):
                conn.execute(table.delete().where(table.c.run_id == info.id))
            if conn.execute(runs.delete().where(runs.c.id == info.id)).rowcount == 0:
                raise UnknownRunError(f"run {info.id} was deleted meanwhile by another process.")
        return info


def _utc(value: datetime) -> datetime:
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _info(m: Any) -> RunInfo:
    return RunInfo(
        id=int(m["id"]), name=m["name"], created_at=_utc(m["created_at"]), source_name=m["source_name"],
        source_sha256=m["source_sha256"], scorers=tuple(m["scorers"]), options=dict(m["options"]),
        row_count=int(m["row_count"]), skipped_rows=int(m["skipped_rows"]), failed_rows=int(m["failed_rows"]),
        complete=bool(m["complete"]), cache_hits=int(m["cache_hits"]),
    )  # fmt: skip


def _problem_records(result: BatchResult) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for kind, frame, text in (("skipped", result.skipped, "reason"), ("failed", result.errors, "error")):
        for r in frame.to_dict("records"):
            column = r.get("column")
            out.append({"row": int(r["row"]), "scorer": str(r["scorer"]), "kind": kind,
                        "column": None if column is None or column != column else clean_text(str(column)),
                        "message": clean_text(str(r[text]))})  # fmt: skip
    return out


def _summary(conn: Connection, info: RunInfo) -> pd.DataFrame:
    query = sa.select(run_scorers).where(run_scorers.c.run_id == info.id)
    frame = pd.DataFrame([dict(r._mapping) for r in conn.execute(query)], columns=["scorer", *SUMMARY_COLUMNS])
    frame = frame.set_index("scorer")
    return frame.loc[[s for s in info.scorers if s in frame.index] + [s for s in frame.index if s not in info.scorers]]


def _problems(conn: Connection, run_id: int) -> pd.DataFrame:
    query = sa.select(*[run_problems.c[c] for c in PROBLEM_COLUMNS]).where(run_problems.c.run_id == run_id)
    return pd.DataFrame(conn.execute(query.order_by(run_problems.c.id)).all(), columns=PROBLEM_COLUMNS)


def _rows(conn: Connection, info: RunInfo) -> pd.DataFrame:
    query = sa.select(run_rows).where(run_rows.c.run_id == info.id).order_by(run_rows.c.row)
    base: dict[str, list[object]] = {c: [] for c in ROW_COLUMNS}
    scores: list[dict[str, object]] = []
    warnings: list[dict[str, str]] = []
    for r in conn.execute(query):
        for column, value in zip(ROW_COLUMNS, (r.row, r.label, r.input_text, r.output_text, r.reference_text),
                                 strict=True):  # fmt: skip
            base[column].append(value)
        scores.append(r.scores)
        warnings.append(r.warnings)
    frame = pd.DataFrame(base)
    values = pd.DataFrame.from_records(scores, index=frame.index) if scores else pd.DataFrame(index=frame.index)
    ordered = _score_order(values.columns, info.scorers)
    values = values.reindex(columns=ordered)
    for column in values.columns:
        converted = pd.to_numeric(values[column], errors="coerce")
        if converted.notna().sum() == values[column].notna().sum():  # numbers (None -> NaN), else keep as text
            values[column] = converted.astype(float)
    warned = pd.DataFrame({f"{s}.warnings": [w.get(s, "") for w in warnings] for s in info.scorers if s != ""},
                          index=frame.index)  # fmt: skip
    warned = warned[[c for c in warned.columns if c.split(".warnings")[0] in _warned_scorers(warnings, info.scorers)]]
    return pd.concat([frame, values, warned], axis=1)


def _warned_scorers(warnings: Sequence[dict[str, str]], scorers: Sequence[str]) -> set[str]:
    """Scorers with a warnings column: tone always (as in a batch table), others when a row has one."""
    return {s for s in scorers if s == TONE.id or any(s in w for w in warnings)}


def _score_order(columns: Sequence[object], scorers: Sequence[str]) -> list[str]:
    names = [str(c) for c in columns]
    ordered = [c for s in scorers for c in [s, *[n for n in names if n.startswith(s + ".")]] if c in names]
    return ordered + [n for n in names if n not in ordered]
