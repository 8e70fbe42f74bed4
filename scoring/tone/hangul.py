"""Character n-grams of Korean text: the extra features of the e5 engine's Hangul head.

The embedding alone ranks the Korean NSMC reviews at ROC AUC 0.82 (nested CV); short Korean reviews carry
much of their sentiment in spelling the encoder blurs (ㅋㅋ, ㅠㅠ, 재밌, 별로, 최악). The Hangul head adds TF-IDF
weighted character n-grams (1 to 3 characters inside each whitespace-separated word padded with a space,
as scikit-learn's ``analyzer="char_wb"``) to the embedding; ``python -m tools.train_e5_tone`` fits it on
the NSMC sample and writes its n-gram weights to ``data/e5_hangul_ngrams.json`` (the SHA-256 of that file
is in ``data/e5_head.json``).

``ngram_score(text) = sum over the text's known n-grams g of tfidf(g) * weight(g) + sum of ratio(g)``, where
``tfidf(g) = (1 + ln count(g)) * idf(g)``, normalised to unit length over the known n-grams, and ``ratio(g)`` is
g's naive-Bayes log-count ratio (positive over negative reviews; Wang & Manning 2012), counted once per distinct
n-gram. The head averages two separately fitted models, the ridge on the embedding and the TF-IDF n-grams, and
the naive-Bayes sum, each standardised; the average is linear, so the file holds it folded into one weight
and one ratio per n-gram.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from scoring.errors import InputError

__all__ = ["NGRAM_PATH", "NGRAM_RANGE", "NgramWeights", "char_ngrams", "load_ngrams", "mostly_hangul"]

NGRAM_PATH = Path(__file__).resolve().parent / "data" / "e5_hangul_ngrams.json"
NGRAM_RANGE = (1, 3)


def mostly_hangul(text: str) -> bool:
    """Whether more than half of the letters of ``text`` are Hangul (False for a text without letters).

    >>> [mostly_hangul(t) for t in ("정말 재밌다 :)", "Great job :)", "정말 fun 한 영화다", "ㅋㅋㅋ", "♥")]
    [True, False, True, True, False]
    """
    letters = hangul = 0
    for char in text:
        if char.isalpha():
            letters += 1
            code = ord(char)
            hangul += 0xAC00 <= code <= 0xD7A3 or 0x1100 <= code <= 0x11FF or 0x3130 <= code <= 0x318F
    return hangul * 2 > letters


def char_ngrams(text: str) -> Counter[str]:
    """Count the character n-grams of ``text`` (lower-cased; each word padded with one space each side).

    >>> sorted(char_ngrams("재밌다 ㅋ").items())[:6]
    [(' ', 4), (' ㅋ', 1), (' ㅋ ', 1), (' 재', 1), (' 재밌', 1), ('ㅋ', 1)]
    """
    out: Counter[str] = Counter()
    low, high = NGRAM_RANGE
    for word in text.lower().split():
        padded = f" {word} "
        for n in range(low, high + 1):
            out.update(padded[i : i + n] for i in range(len(padded) - n + 1))
    return out


@dataclass(frozen=True, slots=True)
class NgramWeights:
    """Each known n-gram's idf, weight and naive-Bayes ratio; ``score`` is the head's n-gram term for one text."""

    idf: dict[str, float]
    weight: dict[str, float]
    ratio: dict[str, float] = field(default_factory=dict)  # none: the TF-IDF term alone

    @classmethod
    def from_table(cls, table: Mapping[str, Sequence[float]]) -> NgramWeights:
        """The weights of ``{n-gram: [idf, weight, ratio]}``, the n-gram file's ``ngrams``."""
        return cls(*({g: float(v[i]) for g, v in table.items()} for i in range(3)))

    def score(self, text: str) -> float:
        """``sum tfidf(g) * weight(g)`` (tfidf of unit length) ``+ sum ratio(g)`` over the known n-grams of ``text``."""
        known = [(g, c) for g, c in char_ngrams(text).items() if g in self.idf]
        terms = [((1.0 + math.log(c)) * self.idf[g], g) for g, c in known]
        norm = math.sqrt(sum(v * v for v, _ in terms))
        tfidf = sum(v * self.weight[g] for v, g in terms) / norm if norm else 0.0
        return tfidf + sum(self.ratio.get(g, 0.0) for g, _ in known)


def load_ngrams(path: Path = NGRAM_PATH, *, sha256: str | None = None) -> NgramWeights:
    """Read the n-gram weights; with ``sha256``, first check the file is the one the head was trained with."""
    raw = path.read_bytes()
    if sha256 is not None and (found := hashlib.sha256(raw).hexdigest()) != sha256:
        raise InputError(f"{path}: SHA-256 must be {sha256} (recorded in e5_head.json); got {found}. Retrain the head.")
    data = json.loads(raw)
    grams = data["ngrams"]
    if not isinstance(grams, dict) or any(not isinstance(v, list) or len(v) != 3 for v in grams.values()):
        raise InputError(f"{path}: ngrams must map each n-gram to [idf, weight, ratio]; got {type(grams).__name__}.")
    return NgramWeights.from_table(grams)
