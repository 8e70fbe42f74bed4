"""Labels from people in the dashboard: label a saved run's rows, read the agreement, teach a scorer.

Every number comes from scoring.runs (labels, agreement, teach) and every chart from scoring.charts; this module
collects input and lays it out.
"""

from __future__ import annotations

import math

import pandas as pd
import streamlit as st

from scoring.charts import agreement_figure
from scoring.registry import find_scorer
from scoring.runs.agreement import chart_points, format_agreement
from scoring.runs.labels import add_labels, labels_frame, parse_label
from scoring.runs.review import export_frame, run_agreement, run_report
from scoring.runs.teach import TAUGHT_PREFIX, delete_taught, format_cv, list_taught, load_taught, teach
from ui.markdown import escape_markdown
from ui.runs import guard, store

__all__ = ["agreement_section", "downloads", "label_editor", "taught_choices", "teach_section"]

HELP = ("Type **y** or **n** (also 1/0, good/bad, true/false, or a rating such as 4) and press Enter: the label is "
        "saved and the next row is selected. Arrow keys move between rows; Delete clears a label.")  # fmt: skip


def _measures(scorers: tuple[str, ...]) -> list[str]:
    return [s for s in scorers if find_scorer(s) is not None and not s.startswith(TAUGHT_PREFIX)]


def _question(measure: str) -> str:
    info = find_scorer(measure)
    return f"{info.label}: yes = {info.higher_means}" if info is not None else measure


def _shown(value: float | None) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return {1.0: "yes", 0.0: "no"}.get(value, f"{value:g}")


def label_editor(run_id: int, *, key: str) -> None:
    """Label the rows of run ``run_id``: an editable column beside the scores, saved as you go."""
    info = guard(store().resolve, run_id)
    if info is None:
        return
    measures = _measures(info.scorers)
    if not measures:
        st.info("This run has no scorer to label.", icon=":material/label_off:")
        return
    who_col, what_col = st.columns(2)
    rater = who_col.text_input("Your name (optional)", key="labels.rater", help="Typed once per session; labels by "
                               "two people on the same rows give their agreement: a scorer's ceiling.")  # fmt: skip
    measure = what_col.selectbox("Label for", measures, key=f"{key}.measure", format_func=_question)
    who = rater.strip()
    state_key = f"{key}.table.{run_id}.{measure}.{who}"
    if state_key not in st.session_state:  # built once per run, measure and rater: the editor keeps its place
        rows = guard(store().rows, run_id)
        labels = guard(labels_frame, store(), run_id)
        if rows is None or labels is None:
            return
        mine = labels[(labels["measure"] == measure) & (labels["rater"] == who)]
        current = dict(zip(mine["row"], mine["value"], strict=True))
        table = pd.DataFrame({"row": rows["row"], "score": rows[measure], "output": rows["output"],
                              "label": [_shown(current.get(r)) for r in rows["row"]]})  # fmt: skip
        st.session_state[state_key] = (table, {int(r): _shown(v) for r, v in current.items()})
    table, saved = st.session_state[state_key]
    st.caption(HELP)
    edited = st.data_editor(
        table, hide_index=True, disabled=["row", "score", "output"], key=f"{key}.editor.{run_id}.{measure}.{who}",
        column_config={
            "row": st.column_config.NumberColumn("row", width="small"),
            "score": st.column_config.NumberColumn(find_scorer(measure).short_name, format="%.3f", width="small"),  # type: ignore[union-attr]
            "output": st.column_config.TextColumn("reply", width="large"),
            "label": st.column_config.TextColumn("label", width="small", help="y / n, or a rating"),
        },
        height=min(420, 36 * (len(table) + 1) + 3), width="stretch",
    )  # fmt: skip
    changes: dict[int, float | None] = {}
    bad: list[str] = []
    for row, text in zip(edited["row"], edited["label"], strict=True):
        cell = "" if text is None or (isinstance(text, float) and math.isnan(text)) else str(text)
        if cell.strip() == saved.get(int(row), ""):
            continue
        try:
            changes[int(row)] = parse_label(cell, measure=measure)
        except ValueError as exc:
            bad.append(f"row {row}: {exc}")
    if changes:
        done = guard(add_labels, store(), run_id, measure, changes, rater=who or None, source="page")
        if done is not None:
            saved.update({r: "" if v is None else cell_text(edited, r) for r, v in changes.items()})
    for message in bad[:5]:
        st.warning(escape_markdown(message) + " (not saved)", icon=":material/label_off:")
    count = sum(1 for v in saved.values() if v)
    st.caption(f":material/label: **{count:,}** of {len(table):,} rows labelled for {escape_markdown(measure)} by "
               f"{escape_markdown(who) or 'you (no name given)'}; saved in the run store.")  # fmt: skip


def cell_text(edited: pd.DataFrame, row: int) -> str:
    """The label cell of ``row`` as typed (stripped)."""
    found = edited.loc[edited["row"] == row, "label"]
    return str(found.iloc[0]).strip() if len(found) else ""


def agreement_section(run_id: int) -> None:
    """How the run's scores agree with its labels: per measure the statistic with its CI, a chart, the confusion
    table, the best-matching threshold, the most disagreeing rows, and the raters' agreement."""
    got = guard(run_agreement, store(), run_id)
    if got is None:
        return
    _, found = got
    if not found:
        st.info("No labels yet: label rows above, or add them with `runs label RUN --file labels.csv`.",
                icon=":material/label:")  # fmt: skip
        return
    for m in found:
        st.markdown(f"**{escape_markdown(m.measure)}** · {m.labels:,} {m.kind} label(s) on {m.rows:,} row(s)")
        cols = st.columns(max(1, len(m.scorers)))
        for col, s in zip(cols, m.scorers, strict=False):
            ci = "95% CI n/a" if s.ci[0] is None else f"95% CI {s.ci[0]:.3f} to {s.ci[1]:.3f}"
            col.metric(f"{s.scorer}: {s.statistic}", "n/a" if s.value is None else f"{s.value:.3f}",
                       help=f"{ci}; n = {s.n:,}", border=True)  # fmt: skip
            col.caption(f"{ci} · n = {s.n:,}" + (f" · {escape_markdown(s.note)}" if s.note else ""))
        points = chart_points(m)
        if not points.empty and any(s.value is not None for s in m.scorers):  # no curve without a statistic
            st.plotly_chart(agreement_figure(points, kind=m.kind), key=f"labels.chart.{run_id}.{m.measure}")
        st.code(format_agreement([m], top=10), language=None)
        for s in m.scorers:
            if not s.disagreements.empty:
                st.caption(f"{s.scorer}: the rows where it and people disagree most, first")
                st.dataframe(s.disagreements, hide_index=True, key=f"labels.worst.{run_id}.{m.measure}.{s.scorer}",
                             column_config={"score": st.column_config.NumberColumn(format="%.3f"),
                                            "disagreement": st.column_config.NumberColumn(format="%.2f")})  # fmt: skip


def teach_section(run_id: int) -> None:
    """Teach a scorer on this run's labels; list and delete taught scorers."""
    name_col, button_col = st.columns([3, 1], vertical_alignment="bottom")
    name = name_col.text_input("Taught scorer's name", key="labels.teach_name", placeholder="e.g. support-tone")
    if button_col.button("Teach", key="labels.teach", icon=":material/school:", width="stretch", disabled=not name):
        with st.spinner("Embedding the labelled replies and cross-validating…"):
            model = guard(teach, store(), run_id, name=name)
        if model is not None:
            r = model.report
            st.success(f"Taught **{escape_markdown(model.id)}** version {model.version} on {model.rows} rows. "
                       f"Cross-validated {r['statistic']}: **{format_cv(r['taught'])}** (taught) vs "  # type: ignore[arg-type]
                       f"{format_cv(r['base'])} ({escape_markdown(model.measure)}, same rows).",  # type: ignore[arg-type]
                       icon=":material/school:")  # fmt: skip
    models = guard(list_taught, store()) or []
    for model in models:
        text_col, delete_col = st.columns([5, 1], vertical_alignment="center")
        text_col.caption(f"**{escape_markdown(model.id)}@{model.version}** · {model.kind} {model.measure} · "
                         f"{model.rows} rows of {escape_markdown(model.run_label)} · CV {model.report['statistic']} "
                         f"{format_cv(model.report['taught'])} vs {format_cv(model.report['base'])}")  # type: ignore[arg-type]  # fmt: skip
        if delete_col.button("Delete", key=f"labels.delete.{model.name}.{model.version}", icon=":material/delete:"):
            guard(delete_taught, store(), f"{model.name}@{model.version}")
            st.rerun()


def taught_choices() -> list[str]:
    """The taught scorers in the store, loaded so the Batch page can score with them (``taught:NAME``)."""
    models = guard(list_taught, store()) or []
    names = list(dict.fromkeys(m.name for m in models))
    return [info.id for info in (guard(load_taught, store(), n) for n in names) if info is not None]


def downloads(run_id: int) -> None:
    """The run with its labels as CSV and Excel, and its HTML report (made when asked: a report embeds charts)."""
    if not st.toggle("Prepare downloads (rows, scores and labels; the HTML report)", key=f"labels.downloads.{run_id}"):
        return
    from scoring.io.export import to_csv_bytes, to_excel_bytes
    from scoring.io.formats import EXPORTS

    frame = guard(export_frame, store(), run_id)
    page = guard(run_report, store(), run_id)
    if frame is None or page is None:
        return
    stem = f"run-{run_id}"
    csv_col, excel_col, html_col = st.columns(3)
    csv_col.download_button("CSV", to_csv_bytes(frame), f"{stem}.csv", EXPORTS["csv"][1], key=f"labels.csv.{run_id}",
                            icon=":material/download:", width="stretch")  # fmt: skip
    excel_col.download_button("Excel", to_excel_bytes(frame), f"{stem}.xlsx", key=f"labels.xlsx.{run_id}",
                              mime=EXPORTS["xlsx"][1],
                              icon=":material/download:", width="stretch")  # fmt: skip
    html_col.download_button("HTML report", page.encode("utf-8"), f"{stem}.html", "text/html",
                             key=f"labels.html.{run_id}", icon=":material/download:", width="stretch")  # fmt: skip
