"""A saved run with its labels: its agreement (labels, scores and taught scorers' training rows together), its
export with a label column per measure and rater, and its HTML report."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from scoring.batch.report import render_report
from scoring.charts import agreement_figure
from scoring.errors import InputError
from scoring.runs.agreement import TOP_DISAGREEMENTS, MeasureAgreement, agreement, agreement_html, chart_points
from scoring.runs.labels import labelled_rows, labels_frame, measure_of
from scoring.runs.store import RunStore
from scoring.runs.teach import taught_hashes

__all__ = ["export_frame", "run_agreement", "run_report", "with_run_labels"]


def run_agreement(
    store: RunStore, ref: str | int, *, measure: str | None = None, top: int = TOP_DISAGREEMENTS
) -> tuple[Any, list[MeasureAgreement]]:
    """The agreement of run ``ref`` in the :class:`~scoring.runs.RunStore` ``store``: (its RunInfo, per measure)."""
    run = store.get(ref)
    labels = labels_frame(store, run.info.id)
    chosen = measure_of(measure, run.info.scorers) if measure is not None else None
    thresholds = {str(k): float(v) for k, v in run.summary["threshold"].items() if v is not None and v == v}
    lower = {str(k): bool(v) for k, v in run.summary["lower_is_better"].items()}
    taught = taught_hashes(store, run.rows)
    found = agreement(run.rows, labels, thresholds=thresholds, taught=taught, top=top, measure=chosen,
                      lower_is_better=lower)  # fmt: skip
    return run.info, found


def export_frame(store: RunStore, ref: str | int) -> pd.DataFrame:
    """The run's rows with a ``label.<measure>[@rater]`` column per measure and rater."""
    info = store.resolve(ref)
    return labelled_rows(store.rows(info.id), labels_frame(store, info.id))


def with_run_labels(store: RunStore, ref: str | int, table: pd.DataFrame) -> pd.DataFrame:
    """``table`` (the scored rows of run ``ref`` as ``evaluate`` returned them, before saving: row *n* of the run is
    its *n*-th row) with the saved run's ``label.<measure>[@rater]`` columns, as :func:`export_frame` gives them
    (the same :func:`~scoring.runs.labels.labelled_rows`); ``table`` itself when the run has no labels."""
    info = store.resolve(ref)
    if len(table) != info.row_count:
        raise InputError(f"table: {len(table):,} rows, but {info.label} has {info.row_count:,}: not that run's rows")
    labels = labels_frame(store, info.id)
    if labels.empty:
        return table
    numbered = pd.DataFrame({"row": np.arange(1, len(table) + 1)})
    added = labelled_rows(numbered, labels).drop(columns="row").set_axis(table.index)
    return table.assign(**{str(c): added[c] for c in added.columns})


def run_report(store: RunStore, ref: str | int) -> str:
    """The HTML report of a saved run: its scores, the agreement with its labels (and their charts), worst rows."""
    info, found = run_agreement(store, ref, top=10)
    frame = export_frame(store, info.id)
    run = store.get(info.id)
    scores = [s for s in info.scorers if s in frame.columns]
    labels = [c for c in frame.columns if str(c).startswith("label.")]
    figures = [agreement_figure(chart_points(m), kind=m.kind, title=f"{m.measure}: scores against people's labels")
               for m in found if m.scorers]  # fmt: skip
    problems = [f"row {p['row']}: {p['scorer']}: {p['kind']}: {p['message']}" for p in run.problems.to_dict("records")]
    meta = {"run": info.label, "file": f"{info.source_name} (sha256 {info.source_sha256[:12]})",
            "created": f"{info.created_at:%Y-%m-%d %H:%M} UTC", "rows": f"{info.row_count:,}",
            "scorers": ", ".join(info.scorers)}  # fmt: skip
    return render_report(
        title=f"{info.label}: {info.source_name}", table=frame, scores=scores, figures=figures, meta=meta,
        problems=problems[:50], columns=["row", "input", "output", "reference", *scores, *labels],
        sections=[("Agreement with people's labels", agreement_html(found))],
    )  # fmt: skip
