"""Toxicity: per-opinion verdicts and reasons, from the learned e5 engine, the offline classifier or an LLM judge."""

from scoring.toxicity.scorer import (
    DEFAULT_JUDGE_MODEL,
    ENGINES,
    KNOWN_GAPS,
    MEASURED_RECALL,
    JudgeError,
    ToxicityMetric,
    ToxicityScorer,
    create_toxicity_scorer,
    default_engine,
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
    "default_engine",
]
