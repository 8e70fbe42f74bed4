"""Why a text scored as it did: score bands, per-sentence statistics, tone shifts and word drivers."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from scoring.errors import InputError
from scoring.tone.engines import DEFAULT_ENGINE, FactTable, get_engine

__all__ = [
    "MIN_SHIFT",
    "OTHER_ENGINE",
    "SENTIMENT_THRESHOLDS",
    "ToneBand",
    "engine_comparison_frame",
    "sentence_frame",
    "sentence_stats",
    "sentiment_label",
    "tone_band",
    "word_drivers",
]

MIN_SHIFT = 0.25
"""A tone shift deviates from the mean by more than one standard deviation *and* at least this much."""

SENTIMENT_THRESHOLDS: FactTable[float] = FactTable(lambda f: f.threshold)
"""|polarity| above this is positive/negative: each engine's ``facts.threshold``."""

OTHER_ENGINE: FactTable[str] = FactTable(lambda f: f.cross_check)
"""The engine each sentence is cross-checked with (its ``facts.cross_check``): where the two read opposite signs,
neither is trusted. Engines without one (e5) are not cross-checked."""


@dataclass(frozen=True, slots=True)
class ToneBand:
    """A band of the tone score, as Mastra's docs interpret it."""

    label: str
    description: str
    color: str


_BANDS = (  # (lower bound of score/scale, band): the docs' bands, each widened to the nearest tenth
    (0.95, ToneBand("Perfect", "perfect tone consistency/stability", "green")),
    (0.65, ToneBand("Strong", "strong consistency with minor variations", "green")),
    (0.35, ToneBand("Moderate", "moderate consistency with noticeable shifts", "orange")),
    (0.05, ToneBand("Poor", "poor consistency with major tone changes", "red")),
    (-math.inf, ToneBand("None", "no consistency: completely different tones", "red")),
)


def tone_band(score: float, scale: float = 1.0) -> ToneBand:
    """Return the docs' band for a tone score (1.0 perfect; 0.7-0.9 strong; ...; 0.0 none).

    >>> tone_band(0.82).label, tone_band(0.5).label, tone_band(0.0).label, tone_band(9.8, 10).label
    ('Strong', 'Moderate', 'None', 'Perfect')
    """
    ratio = score / scale
    return next(band for low, band in _BANDS if ratio >= low)


def sentiment_label(value: float, engine: str = DEFAULT_ENGINE) -> str:
    """Return "positive", "negative" or "neutral" for a polarity under ``engine``'s threshold."""
    threshold = SENTIMENT_THRESHOLDS[engine]
    if value > threshold:
        return "positive"
    if value < -threshold:
        return "negative"
    return "neutral"


def sentence_stats(sentiments: Sequence[float]) -> tuple[float, float]:
    """Return the mean and population standard deviation (the tone scorer's variance, square-rooted)."""
    if not sentiments:
        return 0.0, 0.0
    mean = math.fsum(sentiments) / len(sentiments)
    return mean, math.sqrt(math.fsum((s - mean) ** 2 for s in sentiments) / len(sentiments))


def sentence_frame(
    sentences: Sequence[Mapping[str, object]], engine: str = DEFAULT_ENGINE, *, cross_check: bool = True
) -> pd.DataFrame:
    """Return one row per sentence: number, text, start, end, sentiment, label, deviation, tone_shift,
    and (``cross_check``, for the lexicon engines) other_sentiment and engines_disagree.

    **Engines disagree** when the other lexicon engine (:data:`OTHER_ENGINE`) reads the sentence with the
    opposite sign (one positive, the other negative, each by its own threshold): the words say one thing
    and the rules another (VADER reads "you clearly didn't read the terrible instructions" as positive:
    "didn't" flips "terrible"), so the sentence's sentiment is low-confidence.

    A sentence is a **tone shift** when the text has three or more sentences and the sentence lies outside
    the mean ± 1 standard deviation band, at least :data:`MIN_SHIFT` from the mean, with another
    sentiment label than the mean's (a positive sentence in a positive text is no shift, however strong).
    The mean and band are those of the sentences the engines agree on, and a sentence they disagree on is
    never a shift: a misread sentence neither gets circled nor makes its neighbours look like shifts.

    >>> f = sentence_frame([{"text": t, "start": 0, "end": 1, "sentiment": s}
    ...                     for t, s in [("a", 0.6), ("b", 0.7), ("c", -0.8), ("d", 0.6)]])
    >>> f["tone_shift"].tolist()
    [False, False, True, False]
    """
    # Built from lists in one DataFrame call: the dashboard builds this frame for every text it scores, and
    # pandas' per-column assignments and comparisons cost more than the few rows they compute.
    values = [float(s["sentiment"]) for s in sentences]  # type: ignore[arg-type]
    texts = [str(s["text"]) for s in sentences]
    mean, _ = sentence_stats(values)
    labels = [sentiment_label(v, engine) for v in values]
    columns: dict[str, object] = {
        "sentence": list(range(1, len(values) + 1)),
        "text": texts,
        "start": [int(s["start"]) for s in sentences],  # type: ignore[call-overload]
        "end": [int(s["end"]) for s in sentences],  # type: ignore[call-overload]
        "sentiment": values,
        "label": labels,
        "deviation": [v - mean for v in values],
    }
    disagree = [False] * len(values)
    if cross_check and engine in OTHER_ENGINE:
        other = OTHER_ENGINE[engine]
        other_values = [float(v) for v in get_engine(other).polarities(texts)] if texts else []
        other_labels = [sentiment_label(v, other) for v in other_values]
        disagree = [{a, b} == {"positive", "negative"} for a, b in zip(labels, other_labels, strict=True)]
        columns["other_sentiment"] = np.array(other_values, dtype=float)
        columns["engines_disagree"] = np.array(disagree, dtype=bool)
    trusted = [v for v, d in zip(values, disagree, strict=True) if not d]
    base_mean, base_std = sentence_stats(trusted)
    base_label, limit = sentiment_label(base_mean, engine), max(base_std, MIN_SHIFT)
    columns["tone_shift"] = np.array(
        [
            label != base_label and abs(v - base_mean) > limit and len(values) >= 3 and not d
            for v, label, d in zip(values, labels, disagree, strict=True)
        ],
        dtype=bool,
    )
    return pd.DataFrame(columns)


def word_drivers(sentences: Sequence[str], engine: str) -> pd.DataFrame:
    """Return the words that drove each sentence's polarity: sentence number, word, value.

    AFINN: each word's lexicon value after negation. VADER: each word's valence after its rules
    (boosters, caps, negation, "but"). e5: how much the sentence's polarity drops when the word is left
    out (occlusion; all sentences' variants are embedded in one batch). Words worth 0 are left out.

    >>> word_drivers(["It was not good.", "Great!"], "afinn").values.tolist()
    [[1, 'good', -3.0], [2, 'great', 3.0]]
    """
    scorer = get_engine(engine)
    explain_many = getattr(scorer, "explain_many", None)
    explained = explain_many(list(sentences)) if explain_many else [scorer.explain(t) for t in sentences]
    rows = [(i, word, value) for i, pairs in enumerate(explained, 1) for word, value in pairs]
    return pd.DataFrame(rows, columns=["sentence", "word", "value"])


def engine_comparison_frame(results: Mapping[str, Mapping[str, object]]) -> pd.DataFrame:
    """Return one row per sentence: its number, its text, and its sentiment under each engine.

    ``results`` maps an engine name to its tone result (``to_dict()``) for the same text and splitter,
    so every engine has the same sentences. Engines without a result are left out.

    >>> r = {"text": "Good. Bad.", "preprocessStepResult": {"sentences": [{"text": "Good.", "sentiment": 0.4},
    ...                                                                  {"text": "Bad.", "sentiment": -0.5}]}}
    >>> engine_comparison_frame({"vader": r}).values.tolist()
    [[1, 'Good.', 0.4], [2, 'Bad.', -0.5]]
    """
    columns: dict[str, list[object]] = {}
    for engine, result in results.items():
        sentences = result["preprocessStepResult"]["sentences"]  # type: ignore[index]
        if not columns:
            columns["sentence"] = list(range(1, len(sentences) + 1))
            columns["text"] = [str(s["text"]) for s in sentences]
        if len(sentences) != len(columns["text"]):
            raise InputError(
                f"results must share their sentences; {engine} has {len(sentences)}, not {len(columns['text'])}."
            )
        columns[engine] = [float(s["sentiment"]) for s in sentences]
    return pd.DataFrame(columns if columns else {"sentence": [], "text": []})
