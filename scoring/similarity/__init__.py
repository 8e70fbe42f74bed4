"""Content similarity: Mastra's Dice-bigram score and rapidfuzz's algorithms."""

from scoring.similarity.scorer import (
    ALGORITHMS,
    ContentSimilarityScorer,
    create_content_similarity_scorer,
    dice,
    dice_many,
    similarities,
)

__all__ = [
    "ALGORITHMS",
    "ContentSimilarityScorer",
    "create_content_similarity_scorer",
    "dice",
    "dice_many",
    "similarities",
]
