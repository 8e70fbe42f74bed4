"""Tone scorer: sentiment of the output against a reference tone, or its stability across sentences.

Comparison mode (a reference tone is configured, or the item has a ground truth)::

    difference = |polarity(output) - polarity(reference)|;  score = max(0, 1 - difference) * scale

Stability mode (no reference)::

    variance = population variance of polarity(sentence);    score = max(0, 1 - variance) * scale

``engine="afinn", splitter="mastra"`` reproduces ``@mastra/evals``' ``createToneScorer`` exactly.
"""

from __future__ import annotations

from dataclasses import dataclass

from scoring.engines import SentimentEngine, get_engine
from scoring.inputs import check_scale, to_text
from scoring.result import ScoreResult, new_run_id
from scoring.splitters import Span, get_splitter

__all__ = ["ToneScorer", "create_tone_scorer"]

SCORER_ID = "tone-scorer"


def _mean_and_variance(values: list[float]) -> tuple[float, float]:
    """Return the mean and population variance, summed left to right as Mastra's ``reduce`` does."""
    total = 0.0
    for v in values:
        total += v
    mean = total / len(values)
    squares = 0.0
    for v in values:
        squares += (v - mean) ** 2
    return mean, squares / len(values)


@dataclass(frozen=True, slots=True)
class ToneScorer:
    """Scores tone; built by :func:`create_tone_scorer`. Higher is more on-tone / more stable."""

    reference_tone: str | None
    engine: str
    splitter: str
    scale: float
    id: str = SCORER_ID
    name: str = "Tone Scorer"

    def run(
        self,
        *,
        input: object = None,  # noqa: A002 - Mastra's name
        output: object,
        ground_truth: object = None,
        run_id: str | None = None,
    ) -> ScoreResult:
        """Score one response; ``input`` is accepted for a uniform API and not used."""
        text = to_text(output, "output")
        reference = self.reference_tone or (to_text(ground_truth, "ground_truth") if ground_truth else None)
        engine = get_engine(self.engine)
        spans = get_splitter(self.splitter)(text) or [Span(text, 0, len(text))]
        sentences = [
            {"text": s.text, "start": s.start, "end": s.end, "sentiment": engine.polarity(s.text)} for s in spans
        ]
        if reference:
            metrics, raw = _compare(engine, text, reference)
        else:
            metrics, raw = _stability([float(s["sentiment"]) for s in sentences])  # type: ignore[arg-type]
        score = max(0.0, 1.0 - raw) * self.scale
        return ScoreResult(
            scorer_id=self.id,
            score=score,
            preprocess_step_result={"score": score, **metrics, "sentences": sentences},
            analyze_step_result=dict(metrics),
            warnings=() if text.strip() else ("output is empty: there is no tone to score.",),
            run_id=run_id or new_run_id(),
        )


def _compare(engine: SentimentEngine, text: str, reference: str) -> tuple[dict[str, float], float]:
    response, ref = engine.polarity(text), engine.polarity(reference)
    difference = abs(response - ref)
    return {"responseSentiment": response, "referenceSentiment": ref, "difference": difference}, difference


def _stability(sentiments: list[float]) -> tuple[dict[str, float], float]:
    mean, variance = _mean_and_variance(sentiments)
    return {"avgSentiment": mean, "sentimentVariance": variance}, variance


def create_tone_scorer(
    reference_tone: str | None = None,
    *,
    engine: str = "vader",
    splitter: str = "smart",
    scale: float = 1,
) -> ToneScorer:
    """Create a tone scorer (Mastra's ``createToneScorer``).

    Args:
        reference_tone: text whose sentiment the output should match; None measures stability.
        engine: "vader" (compound in [-1, 1]) or "afinn" (Mastra's numbers).
        splitter: "smart" or "mastra" (Mastra's regex).
        scale: the score's maximum.

    >>> scorer = create_tone_scorer(engine="afinn", splitter="mastra")
    >>> scorer.run(output="It was great. Thanks!").score
    0.75
    """
    if reference_tone is not None and not isinstance(reference_tone, str):
        raise TypeError(f"reference_tone must be a string or None; got {type(reference_tone).__name__}.")
    get_engine(engine)
    get_splitter(splitter)
    return ToneScorer(reference_tone, engine, splitter, check_scale(scale))
