"""The result every scorer returns, shaped like Mastra's scorer results, and the protocol every scorer follows."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

__all__ = ["BatchScorer", "Columns", "RowsDone", "ScoreResult", "Scorer", "VerdictCache", "new_run_id"]

#: A scorer's batch output: ``{"score": [...], "<metric>": [...], ...}``, one entry per output, in order.
#: Besides the score and metrics, ``"warnings"`` (text, "" when none) and ``"error"`` (a message, or None
#: when the row was scored; a failed row's score is NaN) may be present.
Columns = dict[str, list[Any]]
#: ``on_row(done)``: called as rows finish, with how many of this call's rows are done so far.
RowsDone = Callable[[int], object]


_IDS_PER_DRAW = 256
_run_ids: list[str] = []  # ready-made ids; list.pop and list.extend are atomic, so threads never share one


def _draw_run_ids() -> None:
    """Make ``_IDS_PER_DRAW`` UUID4 strings from one ``os.urandom`` call (``str(uuid4())`` reads it once per id)."""
    digits = os.urandom(16 * _IDS_PER_DRAW).hex()
    ids = []
    for i in range(0, len(digits), 32):
        h = digits[i : i + 32]  # 122 random bits: the version nibble is 4, the variant's two bits are 10
        ids.append(f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{_VARIANT[h[16]]}{h[17:20]}-{h[20:]}")
    _run_ids.extend(ids)


_VARIANT = {d: "89ab"[int(d, 16) & 3] for d in "0123456789abcdef"}
os.register_at_fork(after_in_child=_run_ids.clear)  # a forked worker must not hand out its parent's ids


def new_run_id() -> str:
    """Return a fresh run id (a random UUID4 string), as Mastra's ``crypto.randomUUID()``.

    >>> import uuid; uuid.UUID(new_run_id()).version
    4
    """
    try:
        return _run_ids.pop()
    except IndexError:
        _draw_run_ids()
        return _run_ids.pop()


@dataclass(frozen=True, slots=True)
class ScoreResult:
    """One scorer's verdict on one item; higher ``score`` is better for tone and similarity."""

    scorer_id: str
    score: float
    preprocess_step_result: Mapping[str, object] = field(default_factory=dict)
    analyze_step_result: Mapping[str, object] = field(default_factory=dict)
    run_id: str = field(default_factory=new_run_id)
    reason: str | None = None
    warnings: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, object]:
        """Return the result as Mastra writes it (camelCase keys)."""
        out: dict[str, object] = {
            "runId": self.run_id,
            "scorerId": self.scorer_id,
            "preprocessStepResult": dict(self.preprocess_step_result),
            "analyzeStepResult": dict(self.analyze_step_result),
            "score": self.score,
        }
        if self.reason is not None:
            out["reason"] = self.reason
        if self.warnings:
            out["warnings"] = list(self.warnings)
        return out


class Scorer(Protocol):
    """Anything with an ``id`` and a keyword-only ``run`` returning a :class:`ScoreResult` (``run_evals`` needs it)."""

    @property
    def id(self) -> str: ...

    def run(self, *, input: object, output: object, ground_truth: object = None) -> ScoreResult: ...  # noqa: A002


class BatchScorer(Scorer, Protocol):
    """A scorer of this package: ``run`` for one item, ``score_many`` for many at once (the batch path).

    ``score_many`` gives each output the score and metrics ``run`` would give it, as :data:`Columns`.
    Every scorer takes the same keywords and ignores the ones it has no use for (tone ignores ``inputs``,
    similarity and toxicity ``ground_truths``); which ones each uses is stated in :mod:`scoring.registry`.
    """

    def score_many(
        self,
        *,
        outputs: Sequence[str],
        inputs: Sequence[str | None] | None = None,
        ground_truths: Sequence[str | None] | None = None,
        on_row: RowsDone | None = None,
    ) -> Columns: ...


class VerdictCache(Protocol):
    """Answers ``judge.verdicts(question, opinions)`` from stored answers when it can (and says whether it did)."""

    def verdicts(self, judge: Any, question: str, opinions: Sequence[str]) -> tuple[list[dict[str, str]], bool]: ...
