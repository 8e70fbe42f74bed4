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
    "comparison_direction",
    "describe_shifts",
    "engine_comparison_frame",
    "honest_band",
    "sentence_frame",
    "sentence_stats",
    "sentiment_label",
    "tone_band",
    "word_drivers",
]

MIN_SHIFT = 0.25
"""A tone shift changes the sentiment by at least this much from the tone before it (and changes its sign)."""

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

    A sentence is a **tone shift** where the tone changes from one sentence to the next: it is positive
    or negative, the tone before it (the last sentence before it that was not neutral) had the other
    label, and its sentiment is at least :data:`MIN_SHIFT` away from that sentence's. ``change`` is that
    difference (this sentence minus the tone before it; NaN for the first tone). A positive sentence in a
    positive text is no shift, however strong, and a neutral sentence (a fact) is none either. A
    sentence the engines disagree on is never a shift nor the tone before one: a misread sentence neither
    gets circled nor makes its neighbour look like a shift. ``deviation`` is the distance from the
    mean of all sentences (what Mastra's variance adds up).

    >>> f = sentence_frame([{"text": t, "start": 0, "end": 1, "sentiment": s}
    ...                     for t, s in [("a", 0.6), ("b", 0.7), ("c", -0.8), ("d", 0.6)]])
    >>> f["tone_shift"].tolist()
    [False, False, True, True]
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
    shift, change = [False] * len(values), [math.nan] * len(values)
    before: tuple[float, str] | None = None  # the tone before this sentence: its sentiment and label
    for i, (v, label, d) in enumerate(zip(values, labels, disagree, strict=True)):
        if d or label == "neutral":
            continue
        if before is not None:
            change[i] = v - before[0]
            shift[i] = label != before[1] and abs(change[i]) >= MIN_SHIFT
        before = (v, label)
    columns["change"] = np.array(change, dtype=float)
    columns["tone_shift"] = np.array(shift, dtype=bool)
    return pd.DataFrame(columns)


def describe_shifts(frame: pd.DataFrame) -> str:
    """Say in words where the tone turns ("" when it never does), from :func:`sentence_frame`'s shifts.

    >>> f = sentence_frame([{"text": t, "start": 0, "end": 1, "sentiment": s}
    ...                     for t, s in [("a", 0.7), ("b", 0.6), ("c", -0.5), ("d", 0.6)]])
    >>> print(describe_shifts(f).replace(", then", ",\\nthen"))
    The tone turns negative at sentence 3 (from +0.60 to -0.50),
    then back to positive at sentence 4 (from -0.50 to +0.60).
    """
    rows = frame[frame["tone_shift"].astype(bool)]
    parts = []
    for i, row in enumerate(rows.itertuples(index=False)):
        value, change = float(row.sentiment), float(row.change)
        back = "back to " if i else ""  # shifts alternate: each later one returns to the tone before the last
        parts.append(f"{back}{row.label} at sentence {row.sentence} (from {value - change:+.2f} to {value:+.2f})")
    if not parts:
        return ""
    shown = parts[:4] + ([f"and {len(parts) - 4} more time(s)"] if len(parts) > 4 else [])
    return "The tone turns " + ", then ".join(shown) + "."


def comparison_direction(response: float, reference: float, engine: str = "vader") -> str:
    """Say whether the reply is warmer or colder than the reference, and what the comparison score ignores.

    The comparison score is 1 minus the distance between the two sentiments: a curt reply to a curt
    reference outscores a polite one, and a reply warmer than its reference loses as much as a colder one.

    >>> print(comparison_direction(0.2, 0.6).replace(". ", ".\\n"))
    The reply is colder than the reference (+0.20 against +0.60).
    The score is the distance only: a reply as much warmer would score the same.
    """
    gap = response - reference
    if abs(gap) <= SENTIMENT_THRESHOLDS[engine] / 2:
        return f"The reply's sentiment matches the reference's ({response:+.2f} against {reference:+.2f})."
    way, other = ("warmer", "colder") if gap > 0 else ("colder", "warmer")
    return (f"The reply is {way} than the reference ({response:+.2f} against {reference:+.2f}). The score is the "
            f"distance only: a reply as much {other} would score the same.")  # fmt: skip


#: Bands that call a text consistent: never shown for a text whose tone turns (:func:`honest_band`).
_CONSISTENT = frozenset({"Perfect", "Strong"})


def honest_band(score: float, frame: pd.DataFrame | None = None, scale: float = 1.0) -> ToneBand:
    """The docs' band for a stability score, unless it calls a text consistent whose tone turns.

    Mastra's score is 1 minus the variance of the sentences' sentiments, so a reply that turns from warm to
    hostile can still land in "strong consistency". Then the band is "Turns" and says where.

    >>> f = sentence_frame([{"text": t, "start": 0, "end": 1, "sentiment": s}
    ...                     for t, s in [("a", 0.7), ("b", 0.7), ("c", -0.5)]])
    >>> honest_band(0.683, f).label, honest_band(0.683).label
    ('Turns', 'Strong')
    """
    band = tone_band(score, scale)
    if frame is None or band.label not in _CONSISTENT or not (said := describe_shifts(frame)):
        return band
    return ToneBand("Turns", f"not consistent: {said[0].lower()}{said[1:]}", "orange")


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
