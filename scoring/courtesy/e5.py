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
head uses, so a sentence the Tone page scored with e5 is embedded once) and ``"e5-lite"`` (the weighted mean of
static token vectors distilled from e5, :mod:`scoring.text.e5_lite`; ``data/e5_lite_courtesy_head.json``, written
by ``python -m tools.train_e5_lite courtesy``): an e5-lite head's probability is computed per text from per-token
values (:meth:`scoring.text.e5_lite.LiteModel.linear`), so a text gets the same bits alone or in any batch.
:data:`HEADS` maps each engine of the courtesy scorer to its head file.

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
    "HEADS",
    "HEAD_PATH",
    "LITE_HEAD_PATH",
    "MAX_EXPLAIN_WORDS",
    "MIN_DRIVER",
    "CourtesyHead",
    "explain_many",
    "load_head",
    "probabilities",
]

HEAD_PATH = Path(__file__).resolve().parent / "data" / "e5_courtesy_head.json"
LITE_HEAD_PATH = Path(__file__).resolve().parent / "data" / "e5_lite_courtesy_head.json"
#: the courtesy scorer's engine -> its head file
HEADS = {"e5": HEAD_PATH, "e5-lite": LITE_HEAD_PATH}

Features = npt.NDArray[np.float32]


def _e5(texts: Sequence[str], prefix: str) -> Features:
    return embed(list(texts), prefix=prefix)


def _e5_lite(texts: Sequence[str], prefix: str) -> Features:
    from scoring.text.e5_lite import model

    return model().vectors([prefix + t for t in texts]).astype(np.float32)


#: encoder name -> embed(texts, prefix): the feature input a head file's ``features.encoder`` names
ENCODERS: dict[str, Callable[[Sequence[str], str], Features]] = {"e5": _e5, "e5-lite": _e5_lite}


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

    def probabilities(self, texts: Sequence[str]) -> npt.NDArray[np.float64]:
        """P(courteous) of ``texts`` (e5-lite: each text's own weighted mean of per-token values, batch-free bits)."""
        if self.encoder == "e5-lite":
            from scoring.text.e5_lite import model

            z = model().linear([self.prefix + t for t in texts], self.coef) + self.intercept
            return np.asarray(1.0 / (1.0 + np.exp(-z)), dtype=np.float64)
        return self.apply(self.features(texts))

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


def probabilities(texts: Sequence[str], engine: str = "e5") -> list[float]:
    """P(courteous) of each text by ``engine``'s head (:data:`HEADS`), embedded in one batch (cached per text by
    the encoder).

    Raises:
        EncoderUnavailable: the encoder cannot be used on this machine.
    """
    if not texts:
        return []
    return [float(p) for p in load_head(HEADS[engine]).probabilities(texts)]


def explain_many(texts: Sequence[str], engine: str = "e5") -> list[list[tuple[str, float]]]:
    """For each text, (word, drop in P(courteous) when the word is left out) in text order.

    Texts of more than ``MAX_EXPLAIN_WORDS`` words get ``[]``; words moving the probability by less than
    ``MIN_DRIVER`` are left out. Every occluded variant is embedded in one batch (the tone engines' occlusion).
    """
    return occlusion_drops(texts, lambda every: probabilities(every, engine))
