"""Run history in the dashboard: the store, the runs table, the trend chart, comparing two runs, saving a Batch run.

Every number comes from scoring.runs (store, comparison) and scoring.charts; this module only lays it out.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

import ui
from scoring.charts import run_trend_figure
from scoring.errors import ScoringError
from scoring.registry import COURTESY, DEFAULT_TONE_ENGINE, TONE, TOXICITY, find_measure
from scoring.runs import (
    DB_ENV,
    JudgeCache,
    RunInfo,
    RunStore,
    compare_runs,
    default_url,
    item_deltas,
)
from scoring.runs.diff import RunComparison
from scoring.runs.teach import load_taught_columns
from scoring.text.display import one_line
from scoring.text.splitters import DEFAULT_SPLITTER
from ui.courtesy import show_courtesy_sentences
from ui.markdown import escape_markdown
from ui.widgets import measure_name, show_verdict


def store_url() -> str:
    """The store this dashboard uses: ``TONE_EXPLORER_DB``, else the default SQLite file."""
    return os.environ.get(DB_ENV) or default_url()


@st.cache_resource(show_spinner=False)
def _store(url: str) -> RunStore:
    return RunStore(url)


def store() -> RunStore:
    """The run store, one per URL for the whole server (its connections are shared safely between sessions)."""
    return _store(store_url())


def guard(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Call ``fn``; on a store problem or bad input show the message (no traceback) and return None."""
    try:
        return fn(*args, **kwargs)
    except ScoringError as exc:
        st.error(escape_markdown(str(exc)))
        return None


def judge_cache() -> JudgeCache | None:
    """The judge cache in the run store, or None (with a note) when the store cannot be used."""
    try:
        store().list_runs(limit=1)  # opens (or creates) the store now, not inside the judge's rows
        return JudgeCache(store())
    except ScoringError as exc:
        st.warning(f"The judge cache is off: {escape_markdown(str(exc))}", icon=":material/database:")
        return None


def cache_note(result: Any) -> None:
    """Say how many rows the judge cache answered (nothing when the run did not use the judge cache)."""
    if "cached" not in result.summary.columns or f"{TOXICITY.id}.cached" not in result.table.columns:
        return
    hits = int(result.summary["cached"].sum())
    asked = int(result.summary.loc[TOXICITY.id, "count"]) - hits
    st.caption(f":material/database: Judge cache: **{hits:,}** row(s) answered from the cache (no request), "
               f"{asked:,} asked the judge.")  # fmt: skip


# -- Batch page: save this run ----------------------------------------------------------------------------


def save_box(result: Any, source_name: str, source_sha256: str, run_key: str) -> None:
    """Offer "Save this run" (a name, a button); after saving, say which run it became."""
    saved: dict[str, str] = st.session_state.setdefault("batch.saved", {})
    if run_key in saved:
        st.success(f"Saved as **{escape_markdown(one_line(saved[run_key]))}**: see the **Runs** page.",
                   icon=":material/bookmark_added:")  # fmt: skip
        return
    name_col, button_col = st.columns([3, 1], vertical_alignment="bottom")
    st.session_state.setdefault("batch.save_name", one_line(Path(source_name).stem).replace(" ", "_") or "run")
    name = name_col.text_input("Run name", key="batch.save_name", help="Runs with the same name form a trend on the "
                               "Runs page; the newest one is what the name stands for.")  # fmt: skip
    if button_col.button("Save this run", key="batch.save", icon=":material/bookmark_add:", width="stretch"):
        info = guard(store().save, result, name=name, source_name=source_name, source_sha256=source_sha256)
        if info is not None:
            saved[run_key] = info.label
            st.session_state.setdefault("batch.saved_ids", {})[run_key] = info.id
            st.rerun()
    st.caption(f"Runs are kept in {store_url_label()}.")


def store_url_label() -> str:
    """Where the runs are kept, for a caption (the SQLite file, or the database URL without its password)."""
    try:
        return f"**{escape_markdown(store().location)}**"
    except ScoringError as exc:
        return f"an unusable store ({escape_markdown(str(exc))})"


# -- Runs page --------------------------------------------------------------------------------------------


def runs_table() -> list[RunInfo] | None:
    """The runs, newest first, filtered by name and source file; returns the runs shown (None: the store could
    not be read, and the page has said why)."""
    name_col, source_col = st.columns(2)
    name = name_col.text_input("Name contains", key="runs.filter_name", placeholder="e.g. nightly")
    source = source_col.text_input("Source file contains", key="runs.filter_source", placeholder="e.g. replies")
    got = guard(_filtered, name, source)
    if got is None:
        return None
    infos, table = got
    if not infos:
        return []
    # For people: no file hash, no "complete" box (unticked for a run that only skipped empty rows): the counts.
    table = table.drop(columns=["sha256", "complete"], errors="ignore")
    # A line feed or carriage return in a file or run name is shown as \n / \r, as the CLI shows it.
    table = table.assign(**{c: table[c].map(one_line) for c in ("name", "source") if c in table})
    config = {
        c: st.column_config.NumberColumn(f"{measure_name(str(c)[: -len(' mean')])}: mean", format="%.3f")
        for c in table.columns
        if str(c).endswith(" mean")
    }
    config["created"] = st.column_config.DatetimeColumn("created (UTC)", format="YYYY-MM-DD HH:mm")
    config["skipped"] = st.column_config.NumberColumn("rows skipped", help="Rows with no text to score (not scored).")
    config["failed"] = st.column_config.NumberColumn("rows failed", help="Rows a scorer failed on (e.g. the judge).")
    st.dataframe(table, hide_index=True, column_config=config, key="runs.table")
    return list(infos)


def manage_section(infos: list[RunInfo]) -> None:
    """Rename or delete one run (as ``python -m scoring runs rename|delete`` does)."""
    by_id = {i.id: i for i in infos}
    pick_col, name_col, rename_col = st.columns([3, 3, 1], vertical_alignment="bottom")
    run_id = pick_col.selectbox("Run", list(by_id), format_func=lambda i: _label(by_id[i]), key="runs.manage")
    info = by_id[run_id]
    new_name = name_col.text_input("New name", key=f"runs.new_name.{run_id}", placeholder=info.name)
    if rename_col.button("Rename", key="runs.rename", width="stretch", disabled=not new_name.strip()):
        renamed = guard(store().rename, run_id, new_name)
        if renamed is not None:
            _done(f"Renamed {one_line(info.label)} to {one_line(renamed.label)}.")
    label = one_line(info.label)
    sure = st.checkbox(f"Delete {label} with its {info.row_count:,} rows, for good", key=f"runs.sure.{run_id}")
    if st.button("Delete", key="runs.delete", type="primary", disabled=not sure, icon=":material/delete:"):
        deleted = guard(store().delete, run_id)
        if deleted is not None:
            source = one_line(deleted.source_name)
            _done(f"Deleted {one_line(deleted.label)} ({deleted.row_count:,} rows from {source}).")
    if note := st.session_state.pop("runs.done", None):
        st.success(escape_markdown(note), icon=":material/check:")


def _done(note: str) -> None:
    """After a rename or delete: forget the cached comparisons (labels changed) and show the page afresh."""
    _compared.clear()
    st.session_state["runs.done"] = note
    st.rerun()


def _filtered(name: str, source: str) -> tuple[list[RunInfo], pd.DataFrame]:
    infos = store().list_runs(name=name or None, source=source or None)
    return (infos, store().table(name=name or None, source=source or None)) if infos else ([], pd.DataFrame())


def trend_section() -> None:
    """A name's runs over time: each scorer's mean with its 95% CI."""
    names = guard(store().names)
    if not names:
        return
    name = st.selectbox("Run name", names, key="runs.trend_name")
    trend = guard(store().trend, name)
    if trend is None or trend.empty:
        return
    shown = trend.assign(scorer=trend["scorer"].map(measure_name))  # "Tone", not "tone-scorer", in the legend
    st.plotly_chart(run_trend_figure(shown), key="runs.trend_chart")
    if trend["run_id"].nunique() == 1:
        st.caption("One run with this name so far: save more runs under it to see a trend.")


def _label(info: RunInfo) -> str:
    return f"{one_line(info.label)} · {info.created_at:%Y-%m-%d %H:%M} · {one_line(info.source_name)}"


def run_choice(info: RunInfo) -> str:
    """A run in a list to choose from: its label and source file, each on one line."""
    return f"{one_line(info.label)} · {one_line(info.source_name)}"


@st.cache_data(max_entries=16, show_spinner="Comparing the runs…")
def _compared(url: str, id_a: int, id_b: int) -> tuple[RunComparison, pd.DataFrame, pd.DataFrame]:
    """Both runs' rows and their comparison (runs never change once saved, so their ids key the cache)."""
    runs = _store(url)
    a, b = runs.resolve(id_a), runs.resolve(id_b)
    rows_a, rows_b = runs.rows(a.id), runs.rows(b.id)
    load_taught_columns(runs, [*rows_a.columns, *rows_b.columns])  # taught scorers in both runs are compared too
    return compare_runs(rows_a, rows_b, labels=(a.label, b.label)), rows_a, rows_b


def compare_section(infos: list[RunInfo]) -> None:
    """Pick two runs; per scorer the verdict, then the per-row deltas (worst first) and a row's drill-down."""
    if len(infos) < 2:
        st.info("Save at least two runs to compare them.", icon=":material/compare_arrows:")
        return
    by_id = {i.id: i for i in infos}
    ids = list(by_id)
    left, right = st.columns(2)
    id_a = left.selectbox("Run A (baseline)", ids, index=1, format_func=lambda i: _label(by_id[i]), key="runs.a")
    id_b = right.selectbox("Run B (candidate)", ids, index=0, format_func=lambda i: _label(by_id[i]), key="runs.b")
    if id_a == id_b:
        st.info("Pick two different runs.", icon=":material/compare_arrows:")
        return
    got = guard(_compared, store_url(), id_a, id_b)
    if got is None:
        return
    comparison, rows_a, rows_b = got
    for verdict in comparison.verdicts:
        show_verdict(verdict)
        st.caption(escape_markdown(verdict.comparison.detail()))
    for scorer in comparison.missing:
        st.caption(f"{measure_name(scorer)} is not in both runs, so it is not compared.")
    for reason in comparison.cannot_tell():
        st.warning(
            f"This comparison cannot show that B is no worse: {escape_markdown(reason)}.", icon=":material/info:"
        )
    if not comparison.verdicts:
        return
    _deltas(comparison, rows_a, rows_b, by_id[id_a], by_id[id_b])


def _deltas(comparison: RunComparison, rows_a: pd.DataFrame, rows_b: pd.DataFrame, a: RunInfo, b: RunInfo) -> None:
    scorer_col, changed_col = st.columns([2, 1], vertical_alignment="bottom")
    scorer = scorer_col.selectbox("Score", [v.scorer for v in comparison.verdicts], key="runs.delta_scorer",
                                  format_func=measure_name)  # fmt: skip
    changed_only = changed_col.toggle("Changed only", value=True, key="runs.changed_only")
    deltas = item_deltas(rows_a, rows_b, scorer)
    shown = deltas[deltas["changed"]] if changed_only else deltas
    worse = int((deltas["regression"] > 0).sum())
    st.caption(f"{len(shown):,} of {len(deltas):,} rows shown · {worse:,} worse in B · matched on "
               f"{escape_markdown(str(deltas.attrs['matched_on']))} · worst regressions first")  # fmt: skip
    config = {
        "score_a": st.column_config.NumberColumn("A", format="%.3f"),
        "score_b": st.column_config.NumberColumn("B", format="%.3f"),
        "delta": st.column_config.NumberColumn("B − A", format="%+.3f"),
        "regression": st.column_config.NumberColumn("worse by", format="%+.3f"),
    }
    columns = ["row_a", "row_b", "input", "score_a", "score_b", "delta", "regression", "output_a", "output_b"]
    st.dataframe(shown[columns], hide_index=True, column_config=config, key="runs.deltas", height=320)
    if shown.empty:
        return
    pick = st.selectbox("Row to inspect", list(range(len(shown))), key=f"runs.drill.{scorer}.{changed_only}",
                        format_func=lambda i: _row_label(shown.iloc[i]))  # fmt: skip
    drill_down(shown.iloc[pick], scorer, rows_a, rows_b, a, b)


def _row_label(row: pd.Series) -> str:
    delta = row["delta"]
    shown = "n/a" if delta is None or (isinstance(delta, float) and math.isnan(delta)) else f"{float(delta):+.3f}"
    text = str(row["input"]) if isinstance(row["input"], str) else f"row {row['row_b']}"
    return f"{text[:70]} (B − A {shown})"


def _side(rows: pd.DataFrame, number: object) -> pd.Series | None:
    if number is None or number is pd.NA or (isinstance(number, float) and math.isnan(number)):
        return None
    found = rows[rows["row"] == int(str(number))]
    return found.iloc[0] if len(found) else None


def drill_down(row: pd.Series, scorer: str, rows_a: pd.DataFrame, rows_b: pd.DataFrame, a: RunInfo, b: RunInfo) -> None:
    """One compared row: the input, both replies with their scores, and (tone) each reply's sentences."""
    if isinstance(row["input"], str):
        st.caption("Input")
        st.text(row["input"])
    for col, info, side, number in zip(st.columns(2), (a, b), (rows_a, rows_b), (row["row_a"], row["row_b"]),
                                       strict=True):  # fmt: skip
        with col:
            found = _side(side, number)
            st.markdown(
                f"**{'A' if info is a else 'B'}: {escape_markdown(one_line(info.label))}**"
                + (f" · row {number}" if found is not None else "")
            )
            if found is None or not isinstance(found["output"], str):
                st.info("No reply in this run.", icon=":material/block:")
                continue
            st.text(found["output"])
            measure = find_measure(scorer)  # warmth: the reply's sentiment, with or without a reference
            value = measure.value(found) if measure is not None else found.get(scorer)
            scores = {measure_name(scorer): float(value)} if value is not None and pd.notna(value) else {}
            if scores:
                ui.metric_row(scores)
            if scorer == TONE.id or measure is not None:
                _tone_chart(found, info, key=f"runs.drill.chart.{'a' if info is a else 'b'}")
            elif scorer == COURTESY.id:  # the sentences that pull it down, beside their sentiment
                _courtesy_chart(found, info, key=f"runs.drill.courtesy.{'a' if info is a else 'b'}")


def _chart_options(found: pd.Series, info: RunInfo) -> tuple[str | None, str, str]:
    """The reference, tone engine and splitter the run scored this row with."""
    engine = str(info.options.get("engine") or DEFAULT_TONE_ENGINE)
    reference = (
        found.get("reference") if isinstance(found.get("reference"), str) else info.options.get("reference_tone")
    )
    return reference or None, engine, str(info.options.get("splitter") or DEFAULT_SPLITTER)


def _tone_chart(found: pd.Series, info: RunInfo, *, key: str) -> None:
    reference, engine, splitter = _chart_options(found, info)
    result = ui.attempt(ui.tone_result, found["output"], reference, engine, splitter)
    if result is not None:
        ui.tone_chart(found["output"], reference, engine, splitter, key=key, title="Sentiment per sentence")


def _courtesy_chart(found: pd.Series, info: RunInfo, *, key: str) -> None:
    reference, engine, splitter = _chart_options(found, info)
    show_courtesy_sentences(found["output"], reference, engine, splitter, key=key)
