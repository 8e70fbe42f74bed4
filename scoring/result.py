"""The result every scorer returns, shaped like Mastra's scorer results."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from uuid import uuid4

__all__ = ["ScoreResult", "new_run_id"]


def new_run_id() -> str:
    """Return a fresh run id (a UUID4), as Mastra's ``crypto.randomUUID()``."""
    return str(uuid4())


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
