"""A saved run's agreement with its labels: the run, its labels and its taught scorers' training rows together."""

from __future__ import annotations

from typing import Any

from scoring.runs.agreement import TOP_DISAGREEMENTS, MeasureAgreement, agreement
from scoring.runs.labels import labels_frame, measure_of
from scoring.runs.store import RunStore
from scoring.runs.teach import taught_hashes

__all__ = ["run_agreement"]


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
