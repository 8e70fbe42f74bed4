"""Toxicity: per-opinion verdicts and reasons, from the offline classifier or an LLM judge."""

from scoring.toxicity.scorer import (
    DEFAULT_JUDGE_MODEL,
    ENGINES,
    KNOWN_GAPS,
    MEASURED_RECALL,
    JudgeError,
    ToxicityMetric,
    ToxicityScorer,
    create_toxicity_scorer,
)

__all__ = [
    "DEFAULT_JUDGE_MODEL",
    "ENGINES",
    "KNOWN_GAPS",
    "MEASURED_RECALL",
    "JudgeError",
    "ToxicityMetric",
    "ToxicityScorer",
    "create_toxicity_scorer",
]
