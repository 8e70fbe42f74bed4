"""Why a text scored as it did: score bands, per-sentence statistics, tone shifts, word drivers, diffs.

Pure helpers for the dashboard and reports. Text meant for Streamlit markdown is escaped here
(every ASCII punctuation character backslash-escaped), so user text never becomes markup.
"""

from __future__ import annotations

import difflib
import math
import re
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from scoring.engines import get_engine
from scoring.similarity import PARTIAL_RATIO_MAX_CHARS

__all__ = [
    "ALGORITHM_NOTES",
    "MIN_SHIFT",
    "SENTIMENT_THRESHOLDS",
    "ToneBand",
    "diff_markdown",
    "escape_markdown",
    "highlight_markdown",
    "sentence_frame",
    "sentence_stats",
    "sentiment_label",
    "similarity_frame",
    "tone_band",
    "word_diff",
    "word_drivers",
]

MIN_SHIFT = 0.25
"""A tone shift deviates from the mean by more than one standard deviation *and* at least this much."""

SENTIMENT_THRESHOLDS: dict[str, float] = {"vader": 0.05, "afinn": 0.0}
"""|polarity| above this is positive/negative (VADER's authors use ±0.05; any AFINN word counts)."""


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


def sentiment_label(value: float, engine: str = "vader") -> str:
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


def sentence_frame(sentences: Sequence[Mapping[str, object]], engine: str = "vader") -> pd.DataFrame:
    """Return one row per sentence: number, text, start, end, sentiment, label, deviation, tone_shift.

    A sentence is a tone shift when the text has three or more sentences and the sentence lies outside
    the mean ± 1 standard deviation band, at least :data:`MIN_SHIFT` from the mean, with another
    sentiment label than the mean's (a positive sentence in a positive text is no shift, however strong).

    >>> f = sentence_frame([{"text": t, "start": 0, "end": 1, "sentiment": s}
    ...                     for t, s in [("a", 0.6), ("b", 0.7), ("c", -0.8), ("d", 0.6)]])
    >>> f["tone_shift"].tolist()
    [False, False, True, False]
    """
    values = [float(s["sentiment"]) for s in sentences]  # type: ignore[arg-type]
    mean, std = sentence_stats(values)
    frame = pd.DataFrame(
        {
            "sentence": list(range(1, len(values) + 1)),
            "text": [str(s["text"]) for s in sentences],
            "start": [int(s["start"]) for s in sentences],  # type: ignore[call-overload]
            "end": [int(s["end"]) for s in sentences],  # type: ignore[call-overload]
            "sentiment": values,
            "label": [sentiment_label(v, engine) for v in values],
            "deviation": [v - mean for v in values],
        }
    )
    away = frame["label"] != sentiment_label(mean, engine)
    shift = (frame["deviation"].abs() > max(std, MIN_SHIFT)) & away & (len(values) >= 3)
    frame["tone_shift"] = shift.astype(bool)
    return frame


def word_drivers(sentences: Sequence[str], engine: str) -> pd.DataFrame:
    """Return the words that drove each sentence's polarity: sentence number, word, value.

    AFINN: each word's lexicon value after negation. VADER: each word's valence after its rules
    (boosters, caps, negation, "but"). Words worth 0 are left out.

    >>> word_drivers(["It was not good.", "Great!"], "afinn").values.tolist()
    [[1, 'good', -3.0], [2, 'great', 3.0]]
    """
    scorer = get_engine(engine)
    rows = [(i, word, value) for i, text in enumerate(sentences, 1) for word, value in scorer.explain(text)]
    return pd.DataFrame(rows, columns=["sentence", "word", "value"])


_MD_SPECIAL = re.compile("([" + re.escape(string.punctuation) + "])")
_SPACE_RUN = re.compile(r"\s+")


def escape_markdown(text: str) -> str:
    """Backslash-escape every ASCII punctuation character, so markdown shows ``text`` literally.

    >>> escape_markdown("<b>$5</b> *x* [y](z)")
    '\\\\<b\\\\>\\\\$5\\\\<\\\\/b\\\\> \\\\*x\\\\* \\\\[y\\\\]\\\\(z\\\\)'
    """
    return _MD_SPECIAL.sub(r"\\\1", text)


def _flat(text: str) -> str:
    """Escape text and fold each whitespace run (line breaks included) into one space."""
    return escape_markdown(_SPACE_RUN.sub(" ", text))


def _gap(text: str) -> str:
    """Render text between sentences: line breaks kept as markdown breaks, other text escaped."""
    if "\n" not in text:
        return _flat(text)
    pieces = text.split("\n")
    last = len(pieces) - 1
    parts = [
        _flat(p).rstrip() if i == 0 else _flat(p).lstrip() if i == last else _flat(p).strip()
        for i, p in enumerate(pieces)
    ]
    return ("\n\n" if text.count("\n") > 1 else "  \n").join(parts)


_COLORS = {"positive": "green", "negative": "red", "neutral": "gray"}


def highlight_markdown(text: str, frame: pd.DataFrame) -> str:
    """Return ``text`` as Streamlit markdown, each sentence on a background coloured by its label.

    Tone shifts are followed by ⚡. ``frame`` is :func:`sentence_frame`'s output for ``text``.

    >>> f = sentence_frame([{"text": "Great!", "start": 0, "end": 6, "sentiment": 0.6}])
    >>> highlight_markdown("Great! [x]", f)
    ':green-background[Great\\\\!] \\\\[x\\\\]'
    """
    out: list[str] = []
    pos = 0
    for row in frame.sort_values("start").itertuples():
        start, end = int(row.start), int(row.end)
        if start < pos:  # overlapping spans: never show text twice
            start = pos
        out.append(_gap(text[pos:start]))
        body = _flat(text[start:end]).strip()
        if body:
            out.append(f":{_COLORS[str(row.label)]}-background[{body}]" + (" ⚡" if row.tone_shift else ""))
        pos = max(pos, end)
    out.append(_gap(text[pos:]))
    return "".join(out).strip()


ALGORITHM_NOTES: dict[str, str] = {
    "dice": "Mastra's score: shared character bigrams (Sørensen-Dice), whitespace ignored",
    "ratio": "normalised Indel similarity of the whole strings",
    "partial_ratio": "best ratio of the shorter text against any same-length window of the longer",
    "token_sort_ratio": "ratio after sorting the words: word order does not matter",
    "token_set_ratio": "ratio over shared and unshared word sets: repeated or extra words matter less",
    "levenshtein": "1 - edit distance / longer length",
    "jaro_winkler": "Jaro similarity boosted for a shared prefix",
}


_TOO_LONG_NOTE = f"not computed: texts longer than {PARTIAL_RATIO_MAX_CHARS:,} characters take minutes"


def similarity_frame(scores: Mapping[str, float]) -> pd.DataFrame:
    """Return one row per algorithm: algorithm, similarity, what it measures.

    >>> similarity_frame({"dice": 0.5}).values.tolist()[0][:2]
    ['dice', 0.5]
    """
    rows = [
        (name, float(value), ALGORITHM_NOTES.get(name, "") if not math.isnan(value) else _TOO_LONG_NOTE)
        for name, value in scores.items()
    ]
    return pd.DataFrame(rows, columns=["algorithm", "similarity", "what it measures"])


def word_diff(a: str, b: str) -> list[tuple[str, str]]:
    """Return a word-level diff of ``a`` to ``b`` as (op, words) with op "equal", "delete" or "insert".

    >>> word_diff("the quick brown fox", "the slow brown fox")
    [('equal', 'the'), ('delete', 'quick'), ('insert', 'slow'), ('equal', 'brown fox')]
    """
    wa, wb = a.split(), b.split()
    out: list[tuple[str, str]] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, wa, wb, autojunk=False).get_opcodes():
        if op == "equal":
            out.append(("equal", " ".join(wa[i1:i2])))
            continue
        if op in ("delete", "replace"):
            out.append(("delete", " ".join(wa[i1:i2])))
        if op in ("insert", "replace"):
            out.append(("insert", " ".join(wb[j1:j2])))
    return out


def diff_markdown(diff: Sequence[tuple[str, str]]) -> str:
    """Render :func:`word_diff` as escaped markdown: deletions red and struck through, insertions green.

    >>> diff_markdown([("equal", "a"), ("delete", "b"), ("insert", "c*")])
    'a :red-background[~~b~~] :green-background[c\\\\*]'
    """
    style = {"equal": "{}", "delete": ":red-background[~~{}~~]", "insert": ":green-background[{}]"}
    return " ".join(style[op].format(escape_markdown(words)) for op, words in diff if words)
