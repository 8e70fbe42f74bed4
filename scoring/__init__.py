"""Tone, content-similarity and toxicity scorers for LLM agent responses, in Mastra's shape."""

from scoring.errors import ScoringError
from scoring.evals import run_evals
from scoring.registry import SCORERS, get_scorer
from scoring.result import ScoreResult
from scoring.similarity.scorer import ContentSimilarityScorer, create_content_similarity_scorer
from scoring.tone.scorer import ToneScorer, create_tone_scorer
from scoring.toxicity.scorer import ToxicityMetric, ToxicityScorer, create_toxicity_scorer

__all__ = [
    "SCORERS",
    "ContentSimilarityScorer",
    "ScoreResult",
    "ScoringError",
    "ToneScorer",
    "ToxicityMetric",
    "ToxicityScorer",
    "create_content_similarity_scorer",
    "create_tone_scorer",
    "create_toxicity_scorer",
    "get_scorer",
    "run_evals",
]
