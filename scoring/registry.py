"""Scorers by name, for the CLI, the batch runner and the dashboard."""

from __future__ import annotations

from collections.abc import Callable

from scoring.similarity.scorer import create_content_similarity_scorer
from scoring.tone.scorer import create_tone_scorer
from scoring.toxicity.scorer import create_toxicity_scorer

__all__ = ["SCORERS", "get_scorer"]

SCORERS: dict[str, Callable[..., object]] = {
    "tone": create_tone_scorer,
    "tone-scorer": create_tone_scorer,
    "similarity": create_content_similarity_scorer,
    "content-similarity-scorer": create_content_similarity_scorer,
    "toxicity": create_toxicity_scorer,
    "toxicity-scorer": create_toxicity_scorer,
}


def get_scorer(name: str, **options: object) -> object:
    """Build the scorer called ``name`` (short name or Mastra id) with ``options``."""
    if not isinstance(name, str) or name not in SCORERS:
        raise ValueError(f"scorer must be one of {sorted(SCORERS)}; got {name!r}.")
    return SCORERS[name](**options)
