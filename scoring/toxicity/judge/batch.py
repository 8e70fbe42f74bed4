"""Many outputs through the toxicity LLM judge: a bounded number of requests at once, per-row errors, progress.

The batch engine's judge path. Each output gets the verdicts request only (the one overall reason that
``ToxicityScorer.run`` also asks for is not kept in a batch table, so it is not paid for): one request
per row, ``judge_concurrency`` (``TONE_EXPLORER_JUDGE_CONCURRENCY``) in flight. A row whose request
still fails after the judge's own retries gets score NaN and the judge's message; the others are scored.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from typing import Any

from scoring.inputs import to_text
from scoring.text.splitters import split_smart
from scoring.toxicity.judge.client import JudgeError, ToxicityJudge
from scoring.toxicity.verdicts import score_from_counts, toxic_count

__all__ = ["judge_many"]

Row = tuple[float, int | None, int | None, str | None]


def _judge_one(judge: ToxicityJudge, scale: float, question: str, text: str) -> Row:
    """Score one output as ``ToxicityScorer.run`` would: (score, toxicCount, opinionCount, error)."""
    opinions = [s.text for s in split_smart(text)]
    if not opinions:
        return 0.0, 0, 0, None
    try:
        verdicts = judge.verdicts(question, opinions)
    except JudgeError as exc:  # that row's error; the others are still scored
        return math.nan, None, None, str(exc)
    toxic = toxic_count(verdicts)
    return score_from_counts(toxic, len(opinions), scale), toxic, len(opinions), None


def judge_many(
    judge: ToxicityJudge,
    outputs: Sequence[object],
    inputs: Sequence[object] | None = None,
    *,
    scale: float = 1,
    concurrency: int | None = None,
    on_row: Callable[[int], object] | None = None,
) -> dict[str, list[Any]]:
    """Return ``{"score", "toxicCount", "opinionCount", "error"}`` lists, one entry per output (scores up to ``scale``).

    ``concurrency`` requests at most run at once (default ``get_limits().judge_concurrency``).
    ``on_row(done)`` is called in the calling thread each time a row finishes. On an exception in the
    calling thread (Ctrl-C), requests not yet started are cancelled.

    Raises:
        ValueError: an input is not text (naming its position).
    """
    texts = [to_text(o, f"outputs[{i}]") for i, o in enumerate(outputs)]
    if inputs is not None and len(inputs) != len(texts):
        raise ValueError(f"inputs must have one entry per output ({len(texts)}); got {len(inputs)}.")
    questions = [to_text(q, f"inputs[{i}]", required=False) for i, q in enumerate(inputs or [None] * len(texts))]
    if concurrency is None:
        from scoring.limits import get_limits

        concurrency = get_limits().judge_concurrency
    rows: list[Row] = [(math.nan, None, None, None)] * len(texts)
    pool = ThreadPoolExecutor(max_workers=max(1, int(concurrency)), thread_name_prefix="judge")
    try:
        futures: dict[Future[Row], int] = {
            pool.submit(_judge_one, judge, scale, questions[i], texts[i]): i for i in range(len(texts))
        }
        for done, future in enumerate(as_completed(futures), start=1):
            rows[futures[future]] = future.result()
            if on_row is not None:
                on_row(done)
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
    keys = ("score", "toxicCount", "opinionCount", "error")
    return {key: [row[j] for row in rows] for j, key in enumerate(keys)}
