"""Sentiment engines: one polarity number per text, plus the words that drove it."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache, lru_cache
from typing import Protocol

from vaderSentiment.vaderSentiment import (
    BOOSTER_DICT,
    N_SCALAR,
    NEGATE,
    SPECIAL_CASES,
    SentimentIntensityAnalyzer,
    SentiText,
)

from scoring import afinn

__all__ = ["ENGINES", "SentimentEngine", "get_engine"]

_CACHE_SIZE = 200_000


class SentimentEngine(Protocol):
    """Scores text; ``polarity`` > 0 is positive, < 0 negative."""

    name: str
    description: str

    def polarity(self, text: str) -> float: ...

    def explain(self, text: str) -> list[tuple[str, float]]: ...

    def polarities(self, texts: Sequence[str]) -> list[float]: ...


class AfinnEngine:
    """The npm ``sentiment`` package's ``comparative`` (AFINN-165 + emoji), as ``@mastra/evals`` uses."""

    name = "afinn"
    description = "AFINN-165 comparative (score per token), identical to @mastra/evals"

    def __init__(self) -> None:
        self.polarity = lru_cache(maxsize=_CACHE_SIZE)(self._polarity)

    @staticmethod
    def _polarity(text: str) -> float:
        return afinn.analyze(text).comparative

    def explain(self, text: str) -> list[tuple[str, float]]:
        """Return (word, value after negation) in text order."""
        return [(w, float(v)) for w, v in reversed(afinn.analyze(text).calculation)]

    def polarities(self, texts: Sequence[str]) -> list[float]:
        """Return ``polarity`` of each text, tokenising them all in one pass; repeats are scored once."""
        unique = list(dict.fromkeys(texts))
        by_text = dict(zip(unique, afinn.comparatives(unique), strict=True))
        return [by_text[t] for t in texts]


_NEGATE = frozenset(NEGATE)


def _negated(word: str) -> bool:
    return word in _NEGATE or "n't" in word


class _Vader(SentimentIntensityAnalyzer):  # type: ignore[misc]
    """vaderSentiment's analyzer, its negation and idiom checks lower-casing 3-6 words instead of the whole text."""

    @staticmethod
    def _negation_check(valence: float, words: list[str], start_i: int, i: int) -> float:
        """Same rules and results as ``SentimentIntensityAnalyzer._negation_check`` (3.3.2)."""
        w1, w2 = str(words[i - 1]).lower(), str(words[i - 2]).lower() if i > 1 else ""
        if start_i == 0:
            return valence * N_SCALAR if _negated(w1) else valence
        if start_i == 1:
            if w2 == "never" and w1 in {"so", "this"}:
                return valence * 1.25
            if w2 == "without" and w1 == "doubt":
                return valence
            return valence * N_SCALAR if _negated(w2) else valence
        w3 = str(words[i - 3]).lower()
        if (w3 == "never" and w2 in {"so", "this"}) or w1 in {"so", "this"}:
            return valence * 1.25
        if w3 == "without" and (w2 == "doubt" or w1 == "doubt"):
            return valence
        return valence * N_SCALAR if _negated(w3) else valence

    @staticmethod
    def _special_idioms_check(valence: float, words: list[str], i: int) -> float:
        """Same rules and results as ``SentimentIntensityAnalyzer._special_idioms_check`` (3.3.2)."""

        def low(k: int) -> str:
            return str(words[k]).lower()

        w3, w2, w1, w0 = low(i - 3), low(i - 2), low(i - 1), low(i)
        threetwoone, threetwo, twoone = f"{w3} {w2} {w1}", f"{w3} {w2}", f"{w2} {w1}"
        for seq in (f"{w1} {w0}", f"{w2} {w1} {w0}", twoone, threetwoone, threetwo):
            if seq in SPECIAL_CASES:
                valence = SPECIAL_CASES[seq]
                break
        if len(words) - 1 > i and (zeroone := f"{w0} {low(i + 1)}") in SPECIAL_CASES:
            valence = SPECIAL_CASES[zeroone]
        if len(words) - 1 > i + 1 and (zeroonetwo := f"{w0} {low(i + 1)} {low(i + 2)}") in SPECIAL_CASES:
            valence = SPECIAL_CASES[zeroonetwo]
        for n_gram in (threetwoone, threetwo, twoone):
            if n_gram in BOOSTER_DICT:
                valence = valence + BOOSTER_DICT[n_gram]
        return valence


class VaderEngine:
    """VADER's compound score in [-1, 1] (vaderSentiment 3.3.2)."""

    name = "vader"
    description = "VADER compound in [-1, 1]: rules for negation, boosters, caps, 'but', emoji"

    def __init__(self) -> None:
        self._analyzer = _Vader()
        self.polarity = lru_cache(maxsize=_CACHE_SIZE)(self._polarity)

    def _polarity(self, text: str) -> float:
        return _vader_polarity(self._analyzer, text)

    def explain(self, text: str) -> list[tuple[str, float]]:
        """Return each word's valence after VADER's rules (non-zero ones), in text order."""
        words, sentiments = _vader_valences(self._analyzer, _vader_emoji_text(self._analyzer, text))
        return [(w, round(float(v), 4)) for w, v in zip(words, sentiments, strict=True) if v]

    def polarities(self, texts: Sequence[str]) -> list[float]:
        """Return ``polarity`` of each text; a repeated text is scored once (and cached)."""
        polarity = self.polarity
        return [polarity(t) for t in texts]


def _vader_polarity(analyzer: SentimentIntensityAnalyzer, text: str) -> float:
    """Return ``polarity_scores(text)["compound"]``, skipping the emoji pass for ASCII text (it has none)."""
    text = text.strip() if text.isascii() else _vader_emoji_text(analyzer, text)
    _, sentiments = _vader_valences(analyzer, text)
    return float(analyzer.score_valence(sentiments, text)["compound"])


def _vader_valences(analyzer: SentimentIntensityAnalyzer, text: str) -> tuple[list[str], list[float]]:
    """Return the words of emoji-free ``text`` and their valences, as ``polarity_scores`` computes them."""
    sentitext = SentiText(text)
    words = sentitext.words_and_emoticons
    sentiments: list[float] = []
    lexicon = analyzer.lexicon
    for i, item in enumerate(words):
        lowered = item.lower()
        kind_of = lowered == "kind" and i < len(words) - 1 and words[i + 1].lower() == "of"
        if lowered not in lexicon or lowered in BOOSTER_DICT or kind_of:  # sentiment_valence gives these 0
            sentiments.append(0)
        else:
            sentiments = analyzer.sentiment_valence(0, sentitext, item, i, sentiments)
    return words, analyzer._but_check(words, sentiments)


def _vader_emoji_text(analyzer: SentimentIntensityAnalyzer, text: str) -> str:
    """Replace emoji by their descriptions as ``polarity_scores`` does before scoring."""
    out: list[str] = []
    prev_space = True
    for char in text:
        if char in analyzer.emojis:
            if not prev_space:
                out.append(" ")
            out.append(analyzer.emojis[char])
            prev_space = False
        else:
            out.append(char)
            prev_space = char == " "
    return "".join(out).strip()


ENGINES: dict[str, type[AfinnEngine] | type[VaderEngine]] = {"vader": VaderEngine, "afinn": AfinnEngine}


def get_engine(name: str) -> SentimentEngine:
    """Return the shared engine called ``name`` ("vader" or "afinn")."""
    if not isinstance(name, str) or name not in ENGINES:
        raise ValueError(f"engine must be one of {sorted(ENGINES)}; got {name!r}.")
    return _shared_engine(name)


@cache
def _shared_engine(name: str) -> SentimentEngine:
    return ENGINES[name]()
