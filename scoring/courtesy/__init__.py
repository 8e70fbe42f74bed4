"""Courtesy: how courteous a reply is toward the person it answers, per sentence and whole, from a learned e5 head."""

from scoring.courtesy.scorer import (
    CURT_AGENT_EXAMPLE,
    DEFAULT_THRESHOLD,
    ENGINES,
    METRICS,
    SCORER_ID,
    SPEED,
    CourtesyScorer,
    create_courtesy_scorer,
)

__all__ = [
    "CURT_AGENT_EXAMPLE",
    "DEFAULT_THRESHOLD",
    "ENGINES",
    "METRICS",
    "SCORER_ID",
    "SPEED",
    "CourtesyScorer",
    "create_courtesy_scorer",
]
