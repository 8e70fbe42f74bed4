"""Semantic similarity from e5-lite: the cosine of two texts' static vectors, rescaled to [0, 1].

e5-lite's text vector is the weighted mean of static token vectors distilled from multilingual-e5-small
(:mod:`scoring.text.e5_lite`), centred by the table's PCA, so its cosines spread wider than e5's. As for e5
(:mod:`scoring.similarity.e5`), the cosine is rescaled linearly between two anchors::

    similarity = clip((cosine - UNRELATED_COSINE) / (PARAPHRASE_COSINE - UNRELATED_COSINE), 0, 1)

The anchors are the mean e5-lite cosines (rounded to 0.01) of the unrelated and the paraphrase pairs in the
calibration half (even rows) of ``tests/scoring/data/similarity_pairs.csv``, lower-cased as the scorer's
default ``ignore_case`` does; ``python -m bench.engines_vs_humans --similarity`` prints both halves.
A static model reads words, not their order or their relations: it cannot tell "the dog bit the man" from
"the man bit the dog", and same-topic pairs score as high as paraphrases. Measured on the check half (odd
rows): unrelated pairs' cosines 0.38 on average but up to 0.63, paraphrases 0.67 on average but down to 0.09
(across languages): the bands overlap far more than e5's, so a single pair's score is a weak signal
(docs/engines.md). Identical texts
score 1; two texts none of whose tokens the table holds score 0 unless identical.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from scoring.text.e5_lite import model

__all__ = ["PARAPHRASE_COSINE", "UNRELATED_COSINE", "e5_lite_similarities", "e5_lite_similarity", "rescale_cosine"]

UNRELATED_COSINE = 0.39
PARAPHRASE_COSINE = 0.69


def rescale_cosine(cosine: float) -> float:
    """Map an e5-lite cosine to [0, 1] between the unrelated and the paraphrase anchor."""
    return float(min(1.0, max(0.0, (cosine - UNRELATED_COSINE) / (PARAPHRASE_COSINE - UNRELATED_COSINE))))


def cosine(a: str, b: str) -> float:
    """The cosine of the two texts' e5-lite vectors (0 when either has no token in the table)."""
    lite = model()
    x, y = lite.vector(a), lite.vector(b)
    norms = float(np.sqrt(float(np.dot(x, x))) * np.sqrt(float(np.dot(y, y))))
    return float(np.dot(x, y)) / norms if norms > 0 else 0.0


def e5_lite_similarities(first: Sequence[str], second: Sequence[str]) -> list[float]:
    """The rescaled e5-lite similarity of each pair (1 for equal texts); each pair computed on its own."""
    if len(first) != len(second):
        raise ValueError(f"first and second must have the same length; got {len(first)} and {len(second)}.")
    return [1.0 if a == b else rescale_cosine(cosine(a, b)) for a, b in zip(first, second, strict=True)]


def e5_lite_similarity(first: str, second: str) -> float:
    """Return the rescaled e5-lite similarity of two texts (1 = same meaning, 0 = unrelated)."""
    return e5_lite_similarities([first], [second])[0]
