"""Semantic similarity from multilingual-e5-small: the embeddings' cosine, rescaled to [0, 1].

e5's cosines are bunched high: two unrelated sentences sit near 0.77, paraphrases near 0.94. The raw
cosine would call everything "similar", so it is rescaled linearly between those two anchors::

    similarity = clip((cosine - UNRELATED_COSINE) / (PARAPHRASE_COSINE - UNRELATED_COSINE), 0, 1)

The anchors are the mean cosines (rounded to 0.01) of the unrelated and the paraphrase pairs in the
calibration half (even rows) of ``tests/scoring/data/similarity_pairs.csv``: sentence pairs written for
this purpose, in English and across languages, lower-cased as the scorer's default ``ignore_case`` does.
On the other half (``python -m bench.engines_vs_humans --similarity``), unrelated pairs score 0.06 on
average (at most 0.18), same-topic pairs with a different claim 0.54 and paraphrases 0.89 (at least 0.61;
cross-language paraphrases are the lowest), and ``tests/scoring/similarity/test_e5_similarity.py`` checks
these bands. Same-topic pairs overlap both
bands: the score says "about the same thing", not "says the same thing". Identical
texts score 1. The text pairs may be in different languages: a reply in Korean to an English question
is compared by meaning.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from scoring.errors import InputError
from scoring.text.embeddings import embed

__all__ = ["PARAPHRASE_COSINE", "UNRELATED_COSINE", "e5_similarities", "e5_similarity", "rescale_cosine"]

UNRELATED_COSINE = 0.77
PARAPHRASE_COSINE = 0.94


def rescale_cosine(cosine: float) -> float:
    """Map an e5 cosine to [0, 1]: the unrelated anchor and below -> 0, the paraphrase anchor and above -> 1.

    >>> rescale_cosine(0.77), round(rescale_cosine(0.855), 3), rescale_cosine(0.99)
    (0.0, 0.5, 1.0)
    """
    return float(min(1.0, max(0.0, (cosine - UNRELATED_COSINE) / (PARAPHRASE_COSINE - UNRELATED_COSINE))))


def e5_similarities(first: Sequence[str], second: Sequence[str]) -> list[float]:
    """Return the rescaled e5 similarity of each pair (1 for equal texts), embedding all texts in batches."""
    if len(first) != len(second):
        raise InputError(f"first and second must have the same length; got {len(first)} and {len(second)}.")
    if not first:
        return []
    vectors = embed([*first, *second])
    cosines = np.einsum("ij,ij->i", vectors[: len(first)], vectors[len(first) :])
    return [1.0 if a == b else rescale_cosine(float(c)) for a, b, c in zip(first, second, cosines, strict=True)]


def e5_similarity(first: str, second: str) -> float:
    """Return the rescaled e5 similarity of two texts (1 = same meaning, 0 = unrelated)."""
    return e5_similarities([first], [second])[0]
