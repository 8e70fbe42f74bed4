"""Sentiment engines: one polarity number per text, plus the words that drove it."""

from __future__ import annotations

from functools import cache, lru_cache
from typing import Protocol

from vaderSentiment.vaderSentiment import BOOSTER_DICT, SentimentIntensityAnalyzer, SentiText

from scoring import afinn

__all__ = ["ENGINES", "SentimentEngine", "get_engine"]

_CACHE_SIZE = 200_000


class SentimentEngine(Protocol):
    """Scores text; ``polarity`` > 0 is positive, < 0 negative."""

    name: str
    description: str

    def polarity(self, text: str) -> float: ...

    def explain(self, text: str) -> list[tuple[str, float]]: ...


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


class VaderEngine:
    """VADER's compound score in [-1, 1] (vaderSentiment 3.3.2)."""

    name = "vader"
    description = "VADER compound in [-1, 1]: rules for negation, boosters, caps, 'but', emoji"

    def __init__(self) -> None:
        self._analyzer = SentimentIntensityAnalyzer()
        self.polarity = lru_cache(maxsize=_CACHE_SIZE)(self._polarity)

    def _polarity(self, text: str) -> float:
        return float(self._analyzer.polarity_scores(text)["compound"])

    def explain(self, text: str) -> list[tuple[str, float]]:
        """Return each word's valence after VADER's rules (non-zero ones), in text order."""
        analyzer = self._analyzer
        text = _vader_emoji_text(analyzer, text)
        sentitext = SentiText(text)
        words = sentitext.words_and_emoticons
        sentiments: list[float] = []
        for i, item in enumerate(words):
            if item.lower() in BOOSTER_DICT or (
                i < len(words) - 1 and item.lower() == "kind" and words[i + 1].lower() == "of"
            ):
                sentiments.append(0)
                continue
            sentiments = analyzer.sentiment_valence(0, sentitext, item, i, sentiments)
        sentiments = analyzer._but_check(words, sentiments)
        return [(w, round(float(v), 4)) for w, v in zip(words, sentiments, strict=True) if v]


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
