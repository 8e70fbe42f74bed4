"""Why two texts are as similar as they are: what each algorithm measures, and a word-level diff."""

from __future__ import annotations

import math
from collections.abc import Mapping

import pandas as pd
from rapidfuzz.distance import Indel

from scoring.similarity.scorer import ALL_ALGORITHMS_MAX_CELLS, PARTIAL_RATIO_MAX_CHARS

__all__ = ["ALGORITHM_NOTES", "similarity_frame", "word_diff"]

ALGORITHM_NOTES: dict[str, str] = {
    "dice": "Mastra's score: shared character bigrams (Sørensen-Dice), whitespace ignored",
    "ratio": "normalised Indel similarity of the whole strings",
    "partial_ratio": "best ratio of the shorter text against any same-length window of the longer",
    "token_sort_ratio": "ratio after sorting the words: word order does not matter",
    "token_set_ratio": "ratio over shared and unshared word sets: repeated or extra words matter less",
    "levenshtein": "1 - edit distance / longer length",
    "jaro_winkler": "Jaro similarity boosted for a shared prefix",
}


_TOO_LONG_NOTES = {
    "partial_ratio": f"not computed: texts longer than {PARTIAL_RATIO_MAX_CHARS:,} characters take minutes",
}
_TOO_LONG_NOTE = (
    "not computed for texts this long: its time grows with the product of the two lengths "
    f"(over {ALL_ALGORITHMS_MAX_CELLS:,.0f} character pairs)"
)


def similarity_frame(scores: Mapping[str, float]) -> pd.DataFrame:
    """Return one row per algorithm: algorithm, similarity, what it measures.

    >>> similarity_frame({"dice": 0.5}).values.tolist()[0][:2]
    ['dice', 0.5]
    """
    rows = [
        (
            name,
            float(value),
            ALGORITHM_NOTES.get(name, "") if not math.isnan(value) else _TOO_LONG_NOTES.get(name, _TOO_LONG_NOTE),
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
    deleted: list[str] = []
    inserted: list[str] = []

    def flush() -> None:
        if deleted:
            out.append(("delete", " ".join(deleted)))
        if inserted:
            out.append(("insert", " ".join(inserted)))
        deleted.clear()
        inserted.clear()

    # rapidfuzz's Indel alignment (a longest common subsequence of words, bit-parallel in C): difflib's
    # SequenceMatcher took 13 s on two 50,000-character texts and grows with the square of the length.
    for op in Indel.opcodes(wa, wb):
        if op.tag == "equal":
            flush()
            words = " ".join(wa[op.src_start : op.src_end])
            if out and out[-1][0] == "equal":
                out[-1] = ("equal", out[-1][1] + " " + words)
            else:
                out.append(("equal", words))
        else:  # a changed run: what was removed, then what came instead
            deleted.extend(wa[op.src_start : op.src_end])
            inserted.extend(wb[op.dest_start : op.dest_end])
    flush()
    return out
