"""The Batch page's results: status, cards, charts, worst rows with a drill-down, A/B, downloads."""

from __future__ import annotations

from functools import partial
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

import ui
from scoring.batch.compare import Comparison, compare_groups, comparisons_frame, group_summary
from scoring.batch.report import batch_report
from scoring.batch.result import warnings_column
from scoring.batch.rows import BatchSpec
from scoring.batch.views import (
    MAX_SCATTER_POINTS,
    filter_rows,
    group_columns,
    guess_group,
    problem_lines,
    result_figures,
    score_columns,
    with_measures,
    worst_first,
)
from scoring.charts import group_means_figure
from scoring.io.export import FORMATS, to_csv_bytes, to_excel_bytes, to_jsonl_bytes, to_parquet_bytes
from scoring.registry import COURTESY, TONE, display_name
from scoring.runs.review import with_run_labels
from ui.batch_input import NONE, Loaded, plan_text
from ui.courtesy import show_courtesy_sentences
from ui.markdown import escape_markdown
from ui.runs import guard, store
from ui.widgets import measure_name


def show_status(result: Any) -> list[str]:
    """Say first whether the run is complete; list skipped and failed rows, rows not in English, and rows whose
    score measured nothing (too little text for tone's stability).

    Returns the problem lines (for the report).
    """
    lines = problem_lines(result.skipped, result.errors, len(result.table))
    if result.spec is not None:  # which column was used for what, as said before the run
        st.caption(f"**Scored** {plan_text(result.spec)}")
    language, unmeasured = result.language_notice(), result.unmeasured_notices()  # each scans the table once
    if not lines and not (language or unmeasured):
        st.success(f"All {len(result.table):,} rows were scored by every scorer.", icon=":material/check_circle:")
    elif not lines:  # every row scored, but some scores do not mean what they seem: no green banner
        st.info(f"All {len(result.table):,} rows were scored by every scorer; read the notes below before the "
                "numbers.", icon=":material/info:")  # fmt: skip
    else:
        st.warning("**Partial results.** " + escape_markdown(" ".join(lines)), icon=":material/warning:")
        skipped_rows, failed_rows = (int(f["row"].nunique()) if len(f) else 0 for f in (result.skipped, result.errors))
        with st.expander(f"Rows not scored ({skipped_rows}) and rows with errors ({failed_rows}): one line per row "
                         "and scorer"):  # fmt: skip
            st.dataframe(result.skipped, hide_index=True, key="batch.skipped")
            st.dataframe(result.errors, hide_index=True, key="batch.errors")
    if notice := language:
        st.warning(escape_markdown(f"{notice} The column {warnings_column(TONE.id)} in the table says which language."),
                   icon=":material/translate:")  # fmt: skip
        lines = [*lines, notice]
    for notice in unmeasured:
        why = f"{notice} The column {warnings_column(TONE.id)} in the table says why, row by row."
        st.warning(f"**Not measured.** {escape_markdown(why)}", icon=":material/short_text:")
        lines = [*lines, notice]
    return lines


def show_cards(result: Any) -> None:
    """One card per scorer: the mean (Mastra's ``runEvals`` ``scores``), median, min, the failing share, coverage."""
    for col, (scorer, row) in zip(st.columns(len(result.summary)), result.summary.iterrows(), strict=True):
        name = display_name(scorer)
        if not row["count"]:  # no mean to show: "nan" would read as a number
            col.metric(f"{name} · mean", "–", border=True, help="No row was scored: see the message above.")
            col.caption(f"0 of {len(result.table):,} rows scored")
            continue
        partial = f" of {len(result.table):,}" if row["count"] < len(result.table) else ""
        col.metric(
            f"{name} · mean", f"{row['mean']:.3f}", border=True,
            help=f"Mean of {row['count']:,} scored rows ({row['better']} is better), as runEvals' scores.",
        )  # fmt: skip
        low = row["better"] == "lower"  # failing: above the threshold for toxicity, below it for the others
        failing = f"{row['share_over' if low else 'share_under']:.0%} failing ({'over' if low else 'under'} "
        col.caption(
            f"median {row['median']:.3f} · min {row['min']:.3f} · {failing}{row['threshold']:g}) · "
            f"{row['count']:,}{partial} rows"
        )
        if unmeasured := int(row.get("unmeasured", 0)):  # rows whose score measured nothing: the mean includes them
            measured = row["count"] - unmeasured
            rows = f"{unmeasured:,} {'row' if unmeasured == 1 else 'rows'}"
            mean = f"mean of the {measured:,} measured: {row['measured_mean']:.3f}" if measured else "none measured"
            col.caption(f"**includes {rows} that measure nothing** (not measured) · {mean}")


def ab_settings(table: pd.DataFrame, loaded: Loaded, spec: BatchSpec) -> tuple[str | None, str, str, str | None]:
    """Group column, groups A and B, and the column that pairs rows; (None, ...) when no grouping."""
    candidates = group_columns(table)
    default = loaded.group or guess_group(candidates) or NONE
    if st.session_state.get("batch.ab.for") != loaded.digest:
        st.session_state["batch.ab.group"] = default
        st.session_state["batch.ab.pair"] = spec.columns.input or NONE
        st.session_state["batch.ab.for"] = loaded.digest
    cols = st.columns(4)
    group = cols[0].selectbox("Compare groups in column", [NONE, *candidates], key="batch.ab.group")
    if group == NONE or group not in table.columns:
        return None, "", "", None
    names = [str(v) for v in pd.unique(table[group].dropna())]
    a = cols[1].selectbox("A (baseline)", names, index=0, key=f"batch.ab.a.{group}")
    b = cols[2].selectbox("B (candidate)", names, index=min(1, len(names) - 1), key=f"batch.ab.b.{group}")
    pair = cols[3].selectbox(
        "Pair rows on", [NONE, *map(str, table.columns)], key="batch.ab.pair",
        help="Rows of A and B with the same value here answer the same question: the test is then paired.",
    )  # fmt: skip
    return group, a, b, None if pair == NONE else pair


@st.cache_data(max_entries=32, show_spinner="Comparing…")
def comparisons(
    run_key: str, group: str, a: str, b: str, pair_on: str | None, _table: pd.DataFrame
) -> tuple[list[Comparison], pd.DataFrame]:
    """A/B comparison per score column, and every group's means with CIs (cached per run and settings)."""
    table, compared = with_measures(_table.assign(**{group: _table[group].astype("string")}))
    found = [compare_groups(table, score=s, group=group, a=a, b=b, pair_on=pair_on) for s in compared]
    return found, group_summary(table, compared, group)


def show_comparisons(found: list[Comparison], summary: pd.DataFrame) -> go.Figure:
    """The verdicts in plain language, the group means chart, then the numbers; returns the chart."""
    for c in found:  # the measure's name for people, then the verdict (group names come from the file: escaped)
        (st.success if c.significant else st.info)(f"**{measure_name(c.score)}** · {escape_markdown(c.verdict)}")
        st.caption(escape_markdown(c.detail()))
    for warning in dict.fromkeys(w for c in found for w in c.warnings):
        st.warning(escape_markdown(warning[0].upper() + warning[1:]), icon=":material/info:")
    fig = group_means_figure(summary.assign(score=summary["score"].map(measure_name)))
    st.plotly_chart(fig, key="batch.ab.means")
    st.dataframe(comparisons_frame(found, labels=True), hide_index=True, key="batch.ab.table")
    return fig


def figures(table: pd.DataFrame, spec: BatchSpec, group: str | None) -> list[Any]:
    """Histograms of each score and the sentiment-vs-similarity scatter (a seeded sample of a large run)."""
    return result_figures(table, group=group, label=spec.columns.output)


def show_figures(figs: list[Any], rows: int) -> None:
    """Two charts per line."""
    for start in range(0, len(figs), 2):
        for col, fig in zip(st.columns(2), figs[start : start + 2], strict=False):
            col.plotly_chart(fig, key=f"batch.fig.{start}.{fig.layout.title.text}")
    if rows > MAX_SCATTER_POINTS:
        st.caption(f"The scatter shows a random {MAX_SCATTER_POINTS:,} of {rows:,} rows; histograms show all.")


def _row_filters(table: pd.DataFrame, group: str | None, spec: BatchSpec) -> pd.DataFrame:
    scores = score_columns(table)
    cols = st.columns([2, 3, 2, 3])
    by = cols[0].selectbox("Worst first by", scores, key="batch.sort")
    top = max(1.0, float(pd.to_numeric(table[by], errors="coerce").max(skipna=True) or 1.0))
    low, high = cols[1].slider("Score range", 0.0, top, (0.0, top), step=0.01, key=f"batch.range.{by}")
    groups = None
    if group is not None:
        values = [str(v) for v in pd.unique(table[group].dropna())]
        groups = cols[2].multiselect("Groups", values, default=values, key=f"batch.groups.{group}")
    query = cols[3].text_input("Text contains", key="batch.query", placeholder="e.g. refund")
    text_columns = [c for c in (spec.columns.output, spec.columns.input) if c]
    ranged = (low, high) if (low, high) != (0.0, top) else None
    shown = table.assign(**{group: table[group].astype(str)}) if group else table
    return filter_rows(worst_first(shown, by), score=by, score_range=ranged, group=group, groups=groups,
                       query=query, text_columns=text_columns)  # fmt: skip


def show_rows(table: pd.DataFrame, group: str | None, spec: BatchSpec) -> None:
    """The worst rows first, filterable; selecting one shows its sentences."""
    view = _row_filters(table, group, spec)
    st.caption(f"{len(view):,} of {len(table):,} rows · click a column header to sort · select a row for details")
    shown = view.set_axis(view.index + 1) if pd.api.types.is_integer_dtype(view.index) else view
    scores = score_columns(table)
    config: dict[str, Any] = {
        s: st.column_config.ProgressColumn(s, min_value=0.0, max_value=1.0, format="%.3f") for s in scores
    }
    warned = [c for c in (warnings_column(TONE.id),) if c in table.columns]
    config |= {c: st.column_config.TextColumn(c, width="medium") for c in warned}
    output = spec.columns.output
    if output:
        config[output] = st.column_config.TextColumn(output, width="large")
    # The reply first (after the row number), then its scores; columns empty in every row are left out.
    first = [c for c in (output, *scores, *warned, group, spec.columns.input) if c]
    by_name = {str(c): c for c in table.columns}
    order = [c for c in dict.fromkeys([*first, *by_name]) if c in by_name and not empty_column(table[by_name[c]])]
    event = st.dataframe(shown.rename_axis("row"), column_config=config, column_order=order, on_select="rerun",
                         selection_mode="single-row", key="batch.rows", height=360)  # fmt: skip
    if event.selection.rows:
        position = int(event.selection.rows[0])
        drill_down(view.iloc[position], str(shown.index[position]), spec)


def empty_column(values: pd.Series) -> bool:
    """Whether a column has nothing in any row (missing, or blank text): the rows table leaves it out."""
    return bool((values.isna() | values.astype("string").str.strip().eq("")).all())


def drill_down(row: pd.Series, name: str, spec: BatchSpec) -> None:
    """One row (``name``: its label in the table): its text, its scores, and its per-sentence sentiment chart."""
    st.subheader(f"Row {escape_markdown(name)}")
    output = row.get(spec.columns.output)
    if not isinstance(output, str) or not output.strip():
        st.info("This row has no response text, so it was not scored.", icon=":material/block:")
        return
    st.text(output)
    shown, measures = with_measures(row.to_frame().T)  # warmth beside the scores, as the A/B compares it
    ui.metric_row({measure_name(s): float(shown[s].iloc[0]) for s in measures if pd.notna(shown[s].iloc[0])})
    reference = spec.reference_tone  # as the run: one reference tone wins over the column
    if reference is None and spec.reference and isinstance(row.get(spec.reference), str):
        reference = str(row[spec.reference]) or None
    if TONE.short_name in spec.scorers or TONE.id in spec.scorers:
        result = ui.attempt(ui.tone_result, output, reference, spec.engine, spec.splitter)
        if result is not None:
            ui.show_warnings(result)
            ui.tone_chart(output, reference, spec.engine, spec.splitter, key=f"batch.drill.{name}",
                          title=f"Row {name}: sentiment per sentence")  # fmt: skip
    if COURTESY.short_name in spec.scorers or COURTESY.id in spec.scorers:
        show_courtesy_sentences(output, reference, spec.engine, spec.splitter, key=f"batch.drill.courtesy.{name}")


def show_downloads(
    result: Any,
    loaded: Loaded,
    figs: list[go.Figure],
    found: list[Comparison],
    problems: list[str],
    saved_id: int | None = None,
) -> None:
    """Results as CSV, Excel, JSONL and Parquet, and the HTML report; partial runs say so in the file name.

    Once the run is saved (``saved_id``), they carry its labels as ``label.<measure>[@rater]`` columns, as the
    Runs page's downloads and ``runs export`` do.
    """
    stem = loaded.name.rsplit(".", 1)[0].replace(" ", "_") + ("-scored" if result.complete else "-scored-PARTIAL")
    table = result.table
    if saved_id is not None and (labelled := guard(with_run_labels, store(), saved_id, table)) is not None:
        table = labelled
    report = partial(batch_report, result, file=loaded.name, figures=figs, comparisons=found, problems=problems,
                     table=table)  # fmt: skip
    files = [
        ("CSV", partial(to_csv_bytes, table), f"{stem}.csv", "text/csv"),
        ("Excel", partial(to_excel_bytes, table), f"{stem}.xlsx", FORMATS["xlsx"][1]),
        ("JSONL", partial(to_jsonl_bytes, table), f"{stem}.jsonl", "application/x-ndjson"),
        ("Parquet", partial(to_parquet_bytes, table), f"{stem}.parquet", "application/vnd.apache.parquet"),
        ("HTML report", report, f"{stem}-report.html", "text/html"),
    ]
    for col, (label, data, file_name, mime) in zip(st.columns(len(files)), files, strict=True):
        col.download_button(label, data, file_name=file_name, mime=mime, key=f"batch.dl.{label}", on_click="ignore",
                            icon=":material/download:", width="stretch")  # fmt: skip
    st.caption("CSV cells starting with = + - @ (formula triggers) get a leading ' so a spreadsheet shows them as "
               "text; Excel cells are plain text, never formulas. The report is one HTML file with interactive "
               "charts; it needs no internet.")  # fmt: skip
