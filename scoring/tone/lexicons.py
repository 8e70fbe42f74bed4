"""The lexicon engines (VADER, AFINN): one polarity number per text, plus the words that drove it."""

from __future__ import annotations

import string
from collections.abc import Callable, Sequence
from functools import cache, lru_cache
from heapq import heappop, heappush
from itertools import compress, repeat
from typing import TYPE_CHECKING, Protocol

import numpy as np
import numpy.typing as npt
from vaderSentiment.vaderSentiment import (
    BOOSTER_DICT,
    C_INCR,
    N_SCALAR,
    NEGATE,
    SPECIAL_CASES,
    SentimentIntensityAnalyzer,
    normalize,
)

from scoring import native
from scoring.text.embeddings import CACHED_CHARS
from scoring.tone import afinn
from scoring.tone.facts import EngineFacts

if TYPE_CHECKING:
    from scoring.tone._vader_core import Scorer as _CoreScorer

__all__ = ["LEXICONS", "AfinnEngine", "SentimentEngine", "VaderEngine", "lexicon_engine", "lexicon_scores"]

_CACHE_SIZE = 200_000


class _ShortTextCache:
    """``score`` with an LRU cache of the texts up to ``CACHED_CHARS`` characters long (longer ones rarely repeat)."""

    def __init__(self, score: Callable[[str], float]) -> None:
        self._score = score
        self._cached = lru_cache(maxsize=_CACHE_SIZE)(score)

    def __call__(self, text: str) -> float:
        return self._cached(text) if len(text) <= CACHED_CHARS else self._score(text)

    def many(self, texts: Sequence[str]) -> list[float]:
        """Return ``[self(t) for t in texts]`` without a Python call per text."""
        cached, score = self._cached, self._score
        return [cached(t) if len(t) <= CACHED_CHARS else score(t) for t in texts]

    def cache_clear(self) -> None:
        self._cached.cache_clear()


class SentimentEngine(Protocol):
    """Scores text; ``polarity`` > 0 is positive, < 0 negative."""

    name: str
    description: str
    facts: EngineFacts

    def polarity(self, text: str) -> float: ...

    def explain(self, text: str) -> list[tuple[str, float]]: ...

    def polarities(self, texts: Sequence[str]) -> list[float]: ...


class AfinnEngine:
    """The npm ``sentiment`` package's ``comparative`` (AFINN-165 + emoji), as ``@mastra/evals`` uses."""

    name = "afinn"
    description = "AFINN-165 comparative (score per token), identical to @mastra/evals"
    facts = EngineFacts(
        label="AFINN (as Mastra)",
        axis_label="AFINN comparative (per token)",
        languages=frozenset({"en"}),
        threshold=0.0,  # any AFINN word counts
        lexicon=True,
        cross_check="vader",
        driver_note="AFINN: each word's AFINN-165 value after negation; a sentence's sentiment is their sum "
        "divided by its number of tokens (npm sentiment's comparative).",
    )

    def __init__(self) -> None:
        self.polarity = _ShortTextCache(self._polarity)

    @staticmethod
    def _polarity(text: str) -> float:
        return afinn.comparative(text)

    def explain(self, text: str) -> list[tuple[str, float]]:
        """Return (word, value after negation) in text order."""
        return [(w, float(v)) for w, v in reversed(afinn.analyze(text).calculation)]

    def polarities(self, texts: Sequence[str]) -> list[float]:
        """Return :func:`afinn.comparative` of each text, as ``polarity``; a repeated text is scored once."""
        distinct = dict.fromkeys(texts)  # no per-text cache: one pass
        if len(distinct) == len(texts):
            return afinn.comparatives(texts)
        by_text = dict(zip(distinct, afinn.comparatives(list(distinct)), strict=True))
        return [by_text[t] for t in texts]


_NEGATE = frozenset(NEGATE)
_PUNCTUATION = string.punctuation


def _negated(word: str) -> bool:
    return word in _NEGATE or "n't" in word


# vaderSentiment 3.3.2's scoring, step for step and in the same float operations (so the same compound to the
# last bit), on words lower-cased once: its own code lower-cases the whole sentence again for every check.
# The rules are vaderSentiment's (MIT License, Copyright (c) 2016 C.J. Hutto); its lexicon and constants are
# imported from the package, and property tests check this port against its polarity_scores.
def _negation_check(valence: float, low: list[str], start_i: int, i: int) -> float:
    """``SentimentIntensityAnalyzer._negation_check``; ``low`` holds the words lower-cased."""
    w1 = low[i - 1]
    if start_i == 0:
        return valence * N_SCALAR if _negated(w1) else valence
    w2 = low[i - 2]
    if start_i == 1:
        if w2 == "never" and w1 in {"so", "this"}:
            return valence * 1.25
        if w2 == "without" and w1 == "doubt":
            return valence
        return valence * N_SCALAR if _negated(w2) else valence
    w3 = low[i - 3]
    if (w3 == "never" and w2 in {"so", "this"}) or w1 in {"so", "this"}:
        return valence * 1.25
    if w3 == "without" and (w2 == "doubt" or w1 == "doubt"):
        return valence
    return valence * N_SCALAR if _negated(w3) else valence


# Every sequence _special_idioms_check looks up starts with one of w3..w0; a multi-word key can only match a
# sequence that starts with the key's first word, so without such a word among w3..w0 nothing can change.
_IDIOM_FIRST_WORDS = frozenset(key.split(" ")[0] for key in (*SPECIAL_CASES, *BOOSTER_DICT) if " " in key)


def _special_idioms_check(valence: float, low: list[str], i: int) -> float:
    """``SentimentIntensityAnalyzer._special_idioms_check`` (reached with ``i`` >= 3)."""
    w3, w2, w1, w0 = low[i - 3], low[i - 2], low[i - 1], low[i]
    if _IDIOM_FIRST_WORDS.isdisjoint((w3, w2, w1, w0)):
        return valence
    threetwoone, threetwo, twoone = f"{w3} {w2} {w1}", f"{w3} {w2}", f"{w2} {w1}"
    for seq in (f"{w1} {w0}", f"{w2} {w1} {w0}", twoone, threetwoone, threetwo):
        if seq in SPECIAL_CASES:
            valence = SPECIAL_CASES[seq]
            break
    if len(low) - 1 > i and (zeroone := f"{w0} {low[i + 1]}") in SPECIAL_CASES:
        valence = SPECIAL_CASES[zeroone]
    if len(low) - 1 > i + 1 and (zeroonetwo := f"{w0} {low[i + 1]} {low[i + 2]}") in SPECIAL_CASES:
        valence = SPECIAL_CASES[zeroonetwo]
    for n_gram in (threetwoone, threetwo, twoone):
        if n_gram in BOOSTER_DICT:
            valence = valence + BOOSTER_DICT[n_gram]
    return valence


def _scalar_inc_dec(word: str, lowered: str, valence: float, cap_diff: bool) -> float:
    """``scalar_inc_dec``: the boost a preceding word gives."""
    scalar = 0.0
    if lowered in BOOSTER_DICT:
        scalar = BOOSTER_DICT[lowered]
        if valence < 0:
            scalar *= -1
        if word.isupper() and cap_diff:
            scalar = scalar + C_INCR if valence > 0 else scalar - C_INCR
    return scalar


def _valence(lexicon: dict[str, float], words: list[str], low: list[str], i: int, cap_diff: bool) -> float:
    """``sentiment_valence`` of the lexicon word at ``i``, with its ``_least_check``."""
    item = low[i]
    valence = lexicon[item]
    if item == "no" and i != len(words) - 1 and low[i + 1] in lexicon:
        valence = 0.0
    no_before = (i > 0 and low[i - 1] == "no") or (i > 1 and low[i - 2] == "no")
    if no_before or (i > 2 and low[i - 3] == "no" and low[i - 1] in ("or", "nor")):
        valence = lexicon[item] * N_SCALAR
    if words[i].isupper() and cap_diff:
        valence = valence + C_INCR if valence > 0 else valence - C_INCR
    for start_i in range(3):
        j = i - start_i - 1
        if j >= 0 and low[j] not in lexicon:
            s = _scalar_inc_dec(words[j], low[j], valence, cap_diff)
            if start_i == 1 and s != 0:
                s = s * 0.95
            if start_i == 2 and s != 0:
                s = s * 0.9
            valence = valence + s
            valence = _negation_check(valence, low, start_i, i)
            if start_i == 2:
                valence = _special_idioms_check(valence, low, i)
    if i > 1 and low[i - 1] not in lexicon and low[i - 1] == "least":
        if low[i - 2] != "at" and low[i - 2] != "very":
            valence = valence * N_SCALAR
    elif i > 0 and low[i - 1] not in lexicon and low[i - 1] == "least":
        valence = valence * N_SCALAR
    return valence


_VADER_CORE = "scoring.tone._vader_core"  # the C twin of _vader_polarity on ASCII text (_vader_core.c)


def _vader_core_scorer(analyzer: SentimentIntensityAnalyzer) -> _CoreScorer | None:
    """Return the compiled core's scorer on ``analyzer``'s lexicon, or None (warned) where it was not built."""
    core = native.load(_VADER_CORE)
    if core is None:
        return None
    scorer: _CoreScorer = core.Scorer(
        lexicon=analyzer.lexicon,
        boosters=BOOSTER_DICT,
        special_cases=SPECIAL_CASES,
        negate=NEGATE,
        punctuation=_PUNCTUATION,
        n_scalar=N_SCALAR,
        c_incr=C_INCR,
    )
    return scorer


class VaderEngine:
    """VADER's compound score in [-1, 1] (vaderSentiment 3.3.2)."""

    name = "vader"
    description = "VADER compound in [-1, 1]: rules for negation, boosters, caps, 'but', emoji"
    facts = EngineFacts(
        label="VADER",
        axis_label="VADER compound",
        languages=frozenset({"en"}),
        threshold=0.05,  # VADER's authors use ±0.05
        lexicon=True,
        cross_check="afinn",
        driver_note="VADER: each word's valence after VADER's rules (boosters, CAPS, negation, 'but'); a sentence's "
        "compound is their sum, plus punctuation emphasis, normalised to [-1, 1].",
    )

    def __init__(self) -> None:
        self._analyzer = SentimentIntensityAnalyzer()
        self.polarity = _ShortTextCache(self._polarity)
        self._core = _vader_core_scorer(self._analyzer)

    def _polarity(self, text: str) -> float:
        if self._core is not None and text.isascii():  # the same compound, to the bit, computed in C
            return self._core.polarity(text)
        return _vader_polarity(self._analyzer, text)

    def explain(self, text: str) -> list[tuple[str, float]]:
        """Return each word's valence after VADER's rules (non-zero ones), in text order."""
        words, sentiments = _vader_valences(self._analyzer, _vader_emoji_text(self._analyzer, text))
        return [(w, round(float(v), 4)) for w, v in zip(words, sentiments, strict=True) if v]

    def polarities(self, texts: Sequence[str]) -> list[float]:
        """Return ``polarity`` of each text; a repeated text is scored once (and cached)."""
        return self.polarity.many(texts)


def _vader_polarity(analyzer: SentimentIntensityAnalyzer, text: str) -> float:
    """Return ``polarity_scores(text)["compound"]``, skipping the emoji pass for ASCII text (it has none)."""
    text = text.strip() if text.isascii() else _vader_emoji_text(analyzer, text)
    _, sentiments = _vader_valences(analyzer, text)
    if not sentiments:
        return 0.0
    sum_s = float(sum(sentiments))  # score_valence's compound (its pos/neg/neu shares are not needed)
    ep_count, qm_count = text.count("!"), text.count("?")
    ep_amplifier = (4 if ep_count > 4 else ep_count) * 0.292
    qm_amplifier = 0 if qm_count <= 1 else qm_count * 0.18 if qm_count <= 3 else 0.96
    punct_emph_amplifier = ep_amplifier + qm_amplifier
    if sum_s > 0:
        sum_s += punct_emph_amplifier
    elif sum_s < 0:
        sum_s -= punct_emph_amplifier
    return float(round(normalize(sum_s), 4))


def _vader_valences(analyzer: SentimentIntensityAnalyzer, text: str) -> tuple[list[str], list[float]]:
    """Return the words of emoji-free ``text`` and their valences, as ``polarity_scores`` computes them."""
    # SentiText.words_and_emoticons: punctuation stripped off words unless that leaves 2 characters or fewer.
    raw = text.split()
    words = [s if len(s) > 2 else w for w, s in zip(raw, map(str.strip, raw, repeat(_PUNCTUATION)), strict=True)]
    low = list(map(str.lower, words))
    lexicon = analyzer.lexicon
    sentiments: list[float] = [0] * len(words)  # what sentiment_valence gives a word outside the lexicon
    if lexicon.keys().isdisjoint(low):
        return words, sentiments  # no valence to set, none for "but" to rescale
    cap_diff = 0 < len(words) - sum(map(str.isupper, words)) < len(words)  # allcap_differential
    last = len(words) - 1
    for i in compress(range(len(low)), map(lexicon.__contains__, low)):  # the lexicon words, in order
        item = low[i]
        if item not in BOOSTER_DICT and not (item == "kind" and i < last and low[i + 1] == "of"):
            sentiments[i] = _valence(lexicon, words, low, i, cap_diff)
    if "but" in low:
        sentiments = _but_check(low, sentiments)
    return words, sentiments


def _but_check(low: list[str], sentiments: list[float]) -> list[float]:
    """``SentimentIntensityAnalyzer._but_check``'s result, in O(n log n) instead of O(n²).

    vaderSentiment walks the valences and, for each value ``v`` at position ``k``, rescales the *first*
    position holding a value equal to ``v`` (``sentiments.index(v)``): by 0.5 before the first "but",
    by 1.5 after it, not at all on it. That first position is ``k`` itself unless an earlier, already
    rescaled position now equals ``v``. Here each value keeps a min-heap of the earlier positions that
    hold it (entries go stale when a position is rescaled, and are dropped when seen), so each step costs
    a heap operation instead of a scan of the list. The same multiplications in the same order give the
    same floats (property-tested against vaderSentiment, on long texts with many "but"s too).
    """
    but = low.index("but")
    cur = list(sentiments)
    earlier: dict[float, list[int]] = {}  # value -> heap of positions < k that held it when pushed
    for k, value in enumerate(sentiments):  # position k is never rescaled before step k
        heap = earlier.get(value)
        while heap and cur[heap[0]] != value:
            heappop(heap)  # stale: that position was rescaled since
        first = heap[0] if heap else k
        if first == but:  # left as it is (the very object: a zero keeps its sign)
            new = cur[first]
        else:
            new = cur[first] = value * (0.5 if first < but else 1.5)
        if first == k:
            heappush(earlier.setdefault(new, []), k)
        else:
            if new != value:  # the earlier position now holds another value (a zero stays zero)
                heappush(earlier.setdefault(new, []), first)
            heappush(earlier.setdefault(value, []), k)  # position k keeps its value
    return cur


def _vader_emoji_text(analyzer: SentimentIntensityAnalyzer, text: str) -> str:
    """Replace emoji by their descriptions as ``polarity_scores`` does before scoring."""
    if analyzer.emojis.keys().isdisjoint(text):  # no emoji (curly quotes, accents...): nothing to replace
        return text.strip()
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


LEXICONS: dict[str, type[AfinnEngine] | type[VaderEngine]] = {"vader": VaderEngine, "afinn": AfinnEngine}


@cache
def lexicon_engine(name: str) -> AfinnEngine | VaderEngine:
    """Return the shared lexicon engine called ``name`` ("vader" or "afinn"), one per process."""
    return LEXICONS[name]()


def lexicon_scores(engines: Sequence[str], texts: Sequence[str]) -> npt.NDArray[np.float64]:
    """Return each text's polarity under each lexicon engine, shape (len(texts), len(engines)).

    >>> lexicon_scores(["vader", "afinn"], ["Great, thanks!", "ok"]).round(3).tolist()
    [[0.807, 2.5], [0.296, 0.0]]
    """
    columns = [np.asarray(lexicon_engine(name).polarities(texts), dtype=np.float64) for name in engines]
    return np.column_stack(columns) if columns else np.zeros((len(texts), 0))
