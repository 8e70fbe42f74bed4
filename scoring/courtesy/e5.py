"""The learned courtesy head: P(courteous) from a text's embedding, and word drivers by occlusion.

``probability(text) = sigmoid(coef . features(text) + intercept)``: how likely people would call the text
courteous toward the person it answers. The head (``data/e5_courtesy_head.json``) is a logistic regression
fitted by ``python -m tools.train_e5_courtesy`` on TyDiP's English politeness ratings and support replies
written for this project; the file records its training command, the data's SHA-256, the cross-validated
scores and the test scores (TyDiP's nine test languages, a fresh set of support replies written after the
head was frozen).

The file names its feature input (``features``: the encoder, e5's input prefix, the dimensions), and
:data:`ENCODERS` maps an encoder's name to the function that embeds texts for it: a head fitted on
another encoder's features is read by the same loader and applied the same way. Today the one encoder is
``"e5"`` (multilingual-e5-small, :mod:`scoring.text.embeddings`, with the ``query:`` prefix the tone
head uses, so a sentence the Tone page scored with e5 is embedded once).

``explain`` is by occlusion as in the tone engine (:func:`scoring.tone.e5.occlusion_words`): each word is
left out in turn (replaced by a blank), and its value is how much the probability drops without it
(positive: the word made the text more courteous; negative: it pulled it down).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
import numpy.typing as npt

from scoring.errors import InputError
from scoring.text.embeddings import embed
from scoring.tone.e5 import MAX_EXPLAIN_WORDS, MIN_DRIVER, occlusion_drops

__all__ = [
    "ENCODERS",
    "HEAD_PATH",
    "MAX_EXPLAIN_WORDS",
    "MIN_DRIVER",
    "CourtesyHead",
    "explain_many",
    "load_head",
    "probabilities",
]

HEAD_PATH = Path(__file__).resolve().parent / "data" / "e5_courtesy_head.json"

Features = npt.NDArray[np.float32]


def _e5(texts: Sequence[str], prefix: str) -> Features:
    return embed(list(texts), prefix=prefix)


#: encoder name -> embed(texts, prefix): the feature input a head file's ``features.encoder`` names
ENCODERS: dict[str, Callable[[Sequence[str], str], Features]] = {"e5": _e5}


@dataclass(frozen=True)
class CourtesyHead:
    """A logistic head on one encoder's features, its default threshold and the file's scores."""

    encoder: str
    prefix: str
    coef: npt.NDArray[np.float64]
    intercept: float
    threshold: float
    meta: dict[str, object]

    def features(self, texts: Sequence[str]) -> Features:
        """Embed ``texts`` as the head was trained (its encoder and prefix)."""
        return ENCODERS[self.encoder](texts, self.prefix)

    def apply(self, vectors: npt.NDArray[np.floating]) -> npt.NDArray[np.float64]:
        """P(courteous) of already embedded texts."""
        z = np.asarray(vectors, dtype=np.float64) @ self.coef + self.intercept
        return np.asarray(1.0 / (1.0 + np.exp(-z)), dtype=np.float64)


@cache
def load_head(path: Path = HEAD_PATH) -> CourtesyHead:
    """Read the head file once per process, checking its feature input."""
    data = json.loads(path.read_text(encoding="utf-8"))
    features = data["features"]
    encoder, prefix, size = features["encoder"], features["prefix"], int(features["dimensions"])
    if encoder not in ENCODERS:
        raise InputError(f"{path}: features.encoder must be one of {sorted(ENCODERS)}; got {encoder!r}.")
    coef = np.asarray(data["head"]["coef"], dtype=np.float64)
    if coef.shape != (size,):
        raise InputError(f"{path}: head.coef must hold {size} numbers (features.dimensions); got {coef.shape}.")
    meta = {k: v for k, v in data.items() if k != "head"}
    return CourtesyHead(encoder, str(prefix), coef, float(data["head"]["intercept"]), float(data["threshold"]), meta)


def probabilities(texts: Sequence[str]) -> list[float]:
    """P(courteous) of each text, embedded in one batch (cached per text by the encoder).

    Raises:
        EncoderUnavailable: the encoder cannot be used on this machine.
    """
    if not texts:
        return []
    head = load_head()
    return [float(p) for p in head.apply(head.features(texts))]


def explain_many(texts: Sequence[str]) -> list[list[tuple[str, float]]]:
    """For each text, (word, drop in P(courteous) when the word is left out) in text order.

    Texts of more than ``MAX_EXPLAIN_WORDS`` words get ``[]``; words moving the probability by less than
    ``MIN_DRIVER`` are left out. Every occluded variant is embedded in one batch (the tone engines' occlusion).
    """
    return occlusion_drops(texts, probabilities)
