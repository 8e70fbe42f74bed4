"""Many outputs through the toxicity LLM judge: a bounded number of requests at once, per-row errors, progress.

The batch engine's judge path. Each output gets the verdicts request only (the one overall reason that
``ToxicityScorer.run`` also asks for is not kept in a batch table, so it is not paid for): one request
per row, ``judge_concurrency`` (``TONE_EXPLORER_JUDGE_CONCURRENCY``) in flight. A row whose request
still fails after the judge's own retries gets score NaN and the judge's message; the others are scored.
With a ``cache`` (:class:`scoring.runs.JudgeCache`), a row judged before is answered from it, not asked again.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Any

from scoring.errors import InputError, error_name
from scoring.inputs import to_text
from scoring.result import VerdictCache
from scoring.text.splitters import split_smart
from scoring.toxicity.judge.client import JudgeError, ToxicityJudge, excerpt
from scoring.toxicity.verdicts import score_from_counts, toxic_count

__all__ = ["judge_many"]

Row = tuple[float, int | None, int | None, str | None, bool]


def _judge_one(
    judge: ToxicityJudge, scale: float, question: str, text: str, cache: VerdictCache | None, cancel: threading.Event
) -> Row:
    """Score one output as ``ToxicityScorer.run`` would: (score, toxicCount, opinionCount, error, from the cache)."""
    judge.bind_cancel(cancel)  # this thread's requests stop when judge.cancel(cancel) is called
    opinions = [s.text for s in split_smart(text)]
    if not opinions:
        return 0.0, 0, 0, None, False
    try:
        if cache is None:
            verdicts, cached = judge.verdicts(question, opinions), False
        else:
            verdicts, cached = cache.verdicts(judge, question, opinions)
    except JudgeError as exc:  # that row's error; the others are still scored
        return math.nan, None, None, str(exc), False
    except Exception as exc:  # anything else one reply can cause fails that row only, never its chunk
        why = f"the judge's reply could not be used ({error_name(exc)}: {excerpt(str(exc))})"
        return math.nan, None, None, why, False
    toxic = toxic_count(verdicts)
    return score_from_counts(toxic, len(opinions), scale), toxic, len(opinions), None, cached


def judge_many(
    judge: ToxicityJudge,
    outputs: Sequence[object],
    inputs: Sequence[object] | None = None,
    *,
    scale: float = 1,
    concurrency: int | None = None,
    on_row: Callable[[int], object] | None = None,
    cache: VerdictCache | None = None,
) -> dict[str, list[Any]]:
    """Return ``{"score", "toxicCount", "opinionCount", "error"}`` lists, one entry per output (scores up to ``scale``).

    With a ``cache``, also ``"cached"``: 1.0 where the verdicts came from it (no request), else 0.0.

    ``concurrency`` requests at most run at once (default ``get_limits().judge_concurrency``).
    ``on_row(done)`` is called in the calling thread each time a row finishes. A row fails alone, with its
    message, whatever its reply (not JSON, not a chat completion, nested too deep). On an exception in the
    calling thread (Ctrl-C), requests not yet started are dropped and those in flight are stopped at once.

    Raises:
        ValueError: an input is not text (naming its position).
    """
    texts = [to_text(o, f"outputs[{i}]") for i, o in enumerate(outputs)]
    if inputs is not None and len(inputs) != len(texts):
        raise InputError(f"inputs must have one entry per output ({len(texts)}); got {len(inputs)}.")
    questions = [to_text(q, f"inputs[{i}]", required=False) for i, q in enumerate(inputs or [None] * len(texts))]
    if concurrency is None:
        from scoring.limits import get_limits

        concurrency = get_limits().judge_concurrency
    rows: list[Row] = [(math.nan, None, None, None, False)] * len(texts)
    pool = ThreadPoolExecutor(max_workers=max(1, int(concurrency)), thread_name_prefix="judge")
    cancel = threading.Event()
    try:
        futures: dict[Future[Row], int] = {
            pool.submit(_judge_one, judge, scale, questions[i], texts[i], cache, cancel): i for i in range(len(texts))
        }
        pending, done = set(futures), 0
        while pending:  # timed waits: a Ctrl-C that lands just before a wait still gets handled within 0.25 s
            finished, pending = wait(pending, timeout=0.25, return_when=FIRST_COMPLETED)
            for future in finished:
                rows[futures[future]] = future.result()
                done += 1
                if on_row is not None:
                    on_row(done)
    except BaseException:  # Ctrl-C, or the page stopping the run: requests in flight end now, not at their deadline
        judge.cancel(cancel)
        raise
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
    keys = ("score", "toxicCount", "opinionCount", "error")
    out = {key: [row[j] for row in rows] for j, key in enumerate(keys)}
    if cache is not None:
        out["cached"] = [1.0 if row[4] else 0.0 for row in rows]
    return out
