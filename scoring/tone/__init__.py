"""Tone: sentiment consistency of a response (Mastra's tone scorer) and its sentiment engines."""

from scoring.tone.engines import ENGINES, SentimentEngine, get_engine
from scoring.tone.scorer import ToneScorer, create_tone_scorer, tone_warnings

__all__ = ["ENGINES", "SentimentEngine", "ToneScorer", "create_tone_scorer", "get_engine", "tone_warnings"]
