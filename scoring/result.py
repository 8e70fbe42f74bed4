"""The result every scorer returns, shaped like Mastra's scorer results, and the protocol every scorer follows."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, Protocol

import numpy as np

__all__ = ["BatchScorer", "Columns", "RowsDone", "ScoreResult", "Scorer", "VerdictCache", "make_result", "new_run_id"]

#: A scorer's batch output: ``{"score": [...], "<metric>": [...], ...}``, one entry per output, in order.
#: Besides the score and metrics, ``"warnings"`` (text, "" when none) and ``"error"`` (a message, or None
#: when the row was scored; a failed row's score is NaN) may be present.
Columns = dict[str, list[Any]]
#: ``on_row(done)``: called as rows finish, with how many of this call's rows are done so far.
RowsDone = Callable[[int], object]


_IDS_PER_DRAW = 256
_run_ids: list[str] = []  # ready-made ids; list.pop and list.extend are atomic, so threads never share one
_HYPHEN = 45  # "-": the UUID text is hex digits 8-4-4-4-12 with hyphens between the groups
_GROUPS = ((0, 8, 0), (8, 12, 9), (12, 16, 14), (16, 20, 19), (20, 32, 24))  # digits [start, stop) go to text[at:]


def _draw_run_ids() -> None:
    """Make ``_IDS_PER_DRAW`` UUID4 strings from one ``os.urandom`` call, laid out with numpy (an f-string per id
    cost about twice as much: a microsecond of every score)."""
    raw = bytearray(os.urandom(16 * _IDS_PER_DRAW))
    octets = np.frombuffer(raw, dtype=np.uint8).reshape(_IDS_PER_DRAW, 16)
    octets[:, 6] = (octets[:, 6] & 0x0F) | 0x40  # version 4: 122 random bits remain
    octets[:, 8] = (octets[:, 8] & 0x3F) | 0x80  # the RFC 4122 variant (10xx)
    digits = np.frombuffer(raw.hex().encode("ascii"), dtype=np.uint8).reshape(_IDS_PER_DRAW, 32)
    text = np.full((_IDS_PER_DRAW, 36), _HYPHEN, dtype=np.uint8)
    for start, stop, at in _GROUPS:
        text[:, at : at + stop - start] = digits[:, start:stop]
    joined = text.tobytes().decode("ascii")
    _run_ids.extend(joined[i : i + 36] for i in range(0, len(joined), 36))


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
        """Return the result as Mastra writes it (camelCase keys), with its own copies of the step results.

        (``{**m}`` and ``[*t]`` copy as ``dict(m)`` and ``list(t)`` do, without a call: 2,600 of 4,500
        instructions here, callgrind; ``run_evals`` calls this for every item.)
        """
        out: dict[str, object] = {
            "runId": self.run_id,
            "scorerId": self.scorer_id,
            "preprocessStepResult": {**self.preprocess_step_result},
            "analyzeStepResult": {**self.analyze_step_result},
            "score": self.score,
        }
        if self.reason is not None:
            out["reason"] = self.reason
        if self.warnings:
            out["warnings"] = [*self.warnings]
        return out


# One slot setter per field, in order (unpacking fails at import if a field is added and not set here).
_SET_SCORER_ID, _SET_SCORE, _SET_PREPROCESS, _SET_ANALYZE, _SET_RUN_ID, _SET_REASON, _SET_WARNINGS = (
    getattr(ScoreResult, f.name).__set__ for f in fields(ScoreResult)
)


def make_result(
    scorer_id: str,
    score: float,
    preprocess_step_result: Mapping[str, object],
    analyze_step_result: Mapping[str, object],
    run_id: str | None = None,
    reason: str | None = None,
    warnings: tuple[str, ...] = (),
) -> ScoreResult:
    """``ScoreResult(...)`` for the scorers' per-item path: the same frozen result, and a new run id if none is given.

    It fills the slots directly: the dataclass ``__init__`` calls ``object.__setattr__`` once per field, which
    took 15,200 instructions a result (callgrind, keyword arguments) against 7,000 here.
    """
    result = _new_object(ScoreResult)
    _SET_SCORER_ID(result, scorer_id)
    _SET_SCORE(result, score)
    _SET_PREPROCESS(result, preprocess_step_result)
    _SET_ANALYZE(result, analyze_step_result)
    _SET_RUN_ID(result, run_id or new_run_id())
    _SET_REASON(result, reason)
    _SET_WARNINGS(result, warnings)
    return result


_new_object = object.__new__


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
