"""``run_evals``: score a dataset of items with several scorers, as Mastra's ``runEvals``."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import ModuleType

from scoring import native
from scoring.errors import InputError, InputTypeError, error_name
from scoring.result import Scorer

__all__ = ["Scorer", "run_evals"]


def _load_core() -> ModuleType | None:
    return native.load("scoring._untrack_core")


_CORE = _load_core()


def _check(data: object, scorers: object, target: object) -> None:
    if not isinstance(data, Iterable) or isinstance(data, (str, bytes, Mapping)):
        raise InputTypeError(
            f"data must be a list of items like {{'input': ..., 'output': ...}}; got {type(data).__name__}."
        )
    if not isinstance(scorers, Sequence) or isinstance(scorers, str) or not scorers:
        raise InputError(f"scorers must be a non-empty list of scorers; got {scorers!r}.")
    for s in scorers:
        if not callable(getattr(s, "run", None)) or not isinstance(getattr(s, "id", None), str):
            raise InputTypeError(f"scorers must hold objects with an id and a run() method; got {type(s).__name__}.")
    if target is not None and not callable(target):
        raise InputTypeError(f"target must be a function input -> output or None; got {type(target).__name__}.")


def run_evals(
    data: Iterable[Mapping[str, object]],
    scorers: Sequence[Scorer],
    target: Callable[[object], object] | None = None,
    on_item_complete: Callable[[dict[str, object]], object] | None = None,
    *,
    keep_items: bool = True,
) -> dict[str, object]:
    """Run every scorer on every item and average the scores per scorer.

    Items are ``{"input", "output"?, "groundTruth"?}``; ``target(input)`` produces the output of an
    item that has none. An item's ``groundTruth`` is its reference, read as everywhere else: tone
    compares the output's sentiment with it, similarity compares the output with it (else with the
    input); the batch runner does the same with a reference column. A scorer that raises on an item is
    recorded as that item's error and left out of the mean; ``summary.errors`` counts them, so a
    partial result never looks complete. So is a ``target`` that raises (every scorer's error on that
    item). ``on_item_complete(record)`` is called after each item; if it raises, the item keeps its
    scores, its record gets ``onItemCompleteError`` and ``summary.onItemCompleteErrors`` counts them:
    one failing callback never aborts the run.

    ``keep_items=False`` returns only the means and the summary, as Mastra's ``runEvals`` does: each record
    still goes to ``on_item_complete``, but none is kept, so a large dataset's records do not pile up in
    memory.

    A kept record is a tree of plain dicts and lists, which cannot form a reference cycle, so Python's cyclic
    garbage collector is told not to walk it (the compiled ``_untrack_core``; CPython does the same by itself
    for dicts and tuples of plain values): walking every kept record at each full collection took 21-30% of a
    run, and would slow every later collection of the caller's process (docs/benchmarks.md). Only containers
    that the record alone holds are untracked; a value the caller shares (an output list) keeps its record
    tracked. Putting a container in a record's dict tracks that dict again; do not build a reference cycle
    through a record's lists, which the collector would then not free.

    Returns:
        ``{"scores": {scorer_id: mean}, "summary": {"totalItems": n, ...}, "items": [...]}``; no ``"items"``
        with ``keep_items=False``.

    >>> from scoring import create_content_similarity_scorer
    >>> run_evals([{"input": "abc", "output": "abc"}], [create_content_similarity_scorer()])["scores"]
    {'content-similarity-scorer': 1.0}
    """
    _check(data, scorers, target)
    totals = {s.id: 0.0 for s in scorers}
    counts = dict.fromkeys(totals, 0)
    errors = dict.fromkeys(totals, 0)
    items: list[dict[str, object]] = []
    total_items = callback_errors = 0
    for index, item in enumerate(data):
        if type(item) is not dict and not isinstance(item, Mapping):  # a dict skips the slower ABC check
            raise InputTypeError(f"data[{index}] must be a dict with 'input' and 'output'; got {type(item).__name__}.")
        record = _score_item(index, item, scorers, target)
        if keep_items and _CORE is not None:  # a plain tree: the collector need not walk it at every full collection
            _CORE.untrack_plain(record)  # now, while nothing but the record holds its parts
        for scorer_id, result in record["scorerResults"].items():  # type: ignore[attr-defined]
            if "error" not in result:
                totals[scorer_id] += float(result["score"])
                counts[scorer_id] += 1
            else:
                errors[scorer_id] += 1
        total_items += 1
        if on_item_complete is not None:
            try:
                on_item_complete(record)
            except Exception as exc:  # the user's callback: record it on the item, go on
                record["onItemCompleteError"] = f"{error_name(exc)}: {exc}"
                callback_errors += 1
        if keep_items:
            items.append(record)
    summary: dict[str, object] = {"totalItems": total_items}
    if any(errors.values()):
        summary["errors"] = {k: v for k, v in errors.items() if v}
    if callback_errors:
        summary["onItemCompleteErrors"] = callback_errors
    scores = {k: (totals[k] / counts[k] if counts[k] else math.nan) for k in totals}
    out: dict[str, object] = {"scores": scores, "summary": summary}
    if keep_items:
        out["items"] = items
    return out


def _score_item(
    index: int, item: Mapping[str, object], scorers: Sequence[Scorer], target: Callable[[object], object] | None
) -> dict[str, object]:
    item_input = item.get("input")
    output = item.get("output")
    if output is None:
        error = None
        if target is None:  # a bad item is reported as its error; the other items are still scored
            error = f"ValueError: data[{index}] has no 'output' and no target was given to produce one."
        else:
            try:
                output = target(item_input)
            except Exception as exc:  # the user's function failing on one item fails that item only
                error = f"target raised {error_name(exc)}: {exc}"
        if error is not None:
            failed = {s.id: {"error": error} for s in scorers}
            return {"index": index, "item": {**item}, "output": None, "scorerResults": failed}
    ground_truth = item["groundTruth"] if "groundTruth" in item else item.get("ground_truth")  # Mastra's name first
    results: dict[str, dict[str, object]] = {}
    for scorer in scorers:
        try:
            results[scorer.id] = scorer.run(input=item_input, output=output, ground_truth=ground_truth).to_dict()
        except (ValueError, TypeError, RuntimeError, OSError) as exc:
            results[scorer.id] = {"error": f"{error_name(exc)}: {exc}"}
    return {"index": index, "item": {**item}, "output": output, "scorerResults": results}
