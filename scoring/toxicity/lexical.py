"""The e5 toxicity engine's word model: TF-IDF of words and word pairs and one logistic regression (toxic or clean).

Mean-pooled e5 vectors blur a single contemptuous word in a long sentence ("Uncle Ray is a bitter, freeloading drunk,
and everyone at this dinner table knows it."); a linear model on the words themselves does not. On English sentences
the engine blends it in (:func:`scoring.toxicity.e5.engine_probabilities`): each kind's probability becomes
``(1 - weight) * engine + weight * word model``. Trained by ``python -m tools.train_e5_toxicity`` on the same English
sentences as the head and written to ``data/e5_lexical.json`` (terms, their IDF and weights); this module reproduces
scikit-learn's ``TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True)`` exactly (lower-cased words of two or more
word characters, ``1 + ln(count)``, smoothed IDF, L2 norm), so no pickle is read.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from scoring.errors import InputError

__all__ = ["LEXICAL_PATH", "LexicalModel", "features", "load_lexical", "terms"]

LEXICAL_PATH = Path(__file__).parent / "data" / "e5_lexical.json"
_TOKEN = re.compile(r"(?u)\b\w\w+\b")  #: scikit-learn's default token pattern


def terms(text: str) -> Counter[str]:
    """The words (two or more word characters, lower-cased) and adjacent word pairs of ``text``, counted.

    >>> sorted(terms("You useless clown, you!").items())
    [('clown', 1), ('clown you', 1), ('useless', 1), ('useless clown', 1), ('you', 2), ('you useless', 1)]
    """
    words = _TOKEN.findall(text.lower())
    return Counter(words + [f"{a} {b}" for a, b in itertools.pairwise(words)])


def features(text: str, vocabulary: dict[str, int], idf: npt.NDArray[np.float64]) -> dict[int, float]:
    """The L2-normalised TF-IDF of ``text`` over ``vocabulary`` (term -> column), as {column: value}."""
    row = {vocabulary[t]: (1.0 + math.log(n)) * float(idf[vocabulary[t]]) for t, n in terms(text).items()
           if t in vocabulary}  # fmt: skip
    norm = math.sqrt(sum(v * v for v in row.values()))
    return {j: v / norm for j, v in row.items()} if norm else {}


@dataclass(frozen=True)
class LexicalModel:
    """Terms (column order), their IDF, the logistic weights and intercept."""

    vocabulary: dict[str, int]
    idf: npt.NDArray[np.float64]
    coef: npt.NDArray[np.float64]
    intercept: float

    def probabilities(self, sentences: Sequence[str]) -> npt.NDArray[np.float64]:
        """P(toxic) of each sentence under the word model."""
        out = np.empty(len(sentences))
        for i, sentence in enumerate(sentences):
            z = self.intercept + sum(v * float(self.coef[j]) for j, v in features(sentence, self.vocabulary,
                                                                                   self.idf).items())  # fmt: skip
            out[i] = 1.0 / (1.0 + math.exp(-z))
        return out

    @classmethod
    def from_content(cls, data: Mapping[str, Any], where: str = "the word model") -> LexicalModel:
        """The model a word-model file holds (``terms``, ``idf``, ``coef``, ``intercept``), parsed or as written."""
        names = [str(t) for t in data["terms"]]
        idf = np.asarray(data["idf"], dtype=np.float64)
        coef = np.asarray(data["coef"], dtype=np.float64)
        if not len(names) == len(idf) == len(coef):
            raise InputError(f"{where}: terms, idf and coef must have one entry per term; got {len(names)}, "
                             f"{len(idf)}, {len(coef)}.")  # fmt: skip
        return cls({t: j for j, t in enumerate(names)}, idf, coef, float(data["intercept"]))


@cache
def load_lexical(path: Path = LEXICAL_PATH) -> LexicalModel:
    """Read the word model's file once per process."""
    return LexicalModel.from_content(json.loads(path.read_text(encoding="utf-8")), str(path))
